package sagemaker

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/eventstream"
	"github.com/llmbench/llmbench/internal/proxy"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

// startSim runs the simulator on loopback with fast fixed timing; some
// requests stop early (finish_reason "stop").
func startSim(t *testing.T, mod func(*sim.Config)) *sim.Running {
	t.Helper()
	return simtest.Start(t, simtest.Fixed(time.Millisecond, 200*time.Microsecond),
		simtest.With(func(c *sim.Config) { c.Seed, c.EOSRate = 42, 0.05 }), simtest.With(mod))
}

func simBackend(t *testing.T, url string, format Format, concurrency int) *Backend {
	t.Helper()
	b, err := New(context.Background(), Config{
		EndpointName: "sim-endpoint",
		Format:       format,
		AWS: AWSConfig{
			Region: "us-east-1", EndpointURL: url, DisableIMDS: true, Concurrency: concurrency,
			credentials: credentials.NewStaticCredentialsProvider(testAKID, testSecret, ""),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// simRequests are the prompts compared across backends.
func simRequests() []*backend.Request {
	var out []*backend.Request
	for i := range 8 {
		out = append(out, &backend.Request{
			Index: i, ID: fmt.Sprintf("req-%d", i), Model: "llmbench-sim",
			Prompt:    fmt.Sprintf("prompt number %d: describe the weather on a planet with %d moons", i, i+1),
			PromptLen: 14, MaxTokens: 3 + 4*i, IgnoreEOS: i%3 == 0,
		})
	}
	return out
}

// TestSimSameAsOpenAIBackend: for the OpenAI formats, the SageMaker backend
// against the simulator's SageMaker API (PayloadParts of 1, 7, 4096 bytes
// and random sizes) gives exactly what the direct OpenAI backend gives
// against the simulator's OpenAI API: text, chunk count, token counts and
// finish reason, and the same request body.
func TestSimSameAsOpenAIBackend(t *testing.T) {
	for _, api := range []struct {
		format Format
		api    openai.API
		path   string
	}{
		{FormatOpenAIChat, openai.Chat, "/v1/chat/completions"},
		{FormatOpenAI, openai.Completions, "/v1/completions"},
	} {
		for _, part := range []string{"1", "7", "4096", "random"} {
			t.Run(fmt.Sprintf("%s-parts-%s", api.format, part), func(t *testing.T) {
				size, err := eventstream.ParsePartSize(part)
				if err != nil {
					t.Fatal(err)
				}
				hs := startSim(t, func(c *sim.Config) { c.PartSize = size })
				sm := simBackend(t, hs.URL, api.format, 2)
				direct, err := openai.New(openai.Config{URL: hs.URL + api.path, API: api.api, MaxConcurrency: 2})
				if err != nil {
					t.Fatal(err)
				}
				defer direct.Close()
				reqs := simRequests()
				if part == "1" {
					reqs = reqs[:4] // 1-byte parts are slow to decode under -race
				}
				sameAsDirect(t, direct, sm, reqs)
				for _, req := range reqs {
					mine, _ := sm.body(req)
					theirs, _ := direct.Body(req)
					if string(mine) != string(theirs) {
						t.Errorf("request body differs from the OpenAI backend's:\n%s\n%s", mine, theirs)
					}
				}
			})
		}
	}
}

// TestSimTokenFormats: TGI and LMI token streams from the simulator carry
// the same text and token count as the OpenAI completions API for the same
// prompt (the simulator derives the text from the prompt alone).
func TestSimTokenFormats(t *testing.T) {
	for _, tf := range []struct {
		format Format
		sim    string
	}{{FormatTGI, sim.FormatTGI}, {FormatLMI, sim.FormatLMI}} {
		for _, part := range []string{"1", "7", "random"} {
			t.Run(fmt.Sprintf("%s-parts-%s", tf.format, part), func(t *testing.T) {
				size, _ := eventstream.ParsePartSize(part)
				hs := startSim(t, func(c *sim.Config) { c.PartSize = size; c.PayloadFormat = tf.sim; c.EOSRate = 0 })
				sm := simBackend(t, hs.URL, tf.format, 1)
				direct, err := openai.New(openai.Config{URL: hs.URL + "/v1/completions", API: openai.Completions})
				if err != nil {
					t.Fatal(err)
				}
				defer direct.Close()
				for _, req := range simRequests() {
					req.IgnoreEOS = true // TGI has no ignore_eos; keep both at full length
					var a, b backend.Response
					direct.Send(context.Background(), req, &a)
					sm.Send(context.Background(), req, &b)
					if a.Err != nil || b.Err != nil {
						t.Fatalf("request %d: openai err %v, sagemaker err %v (%s)", req.Index, a.Err, b.Err, b.ErrClass)
					}
					if a.Text != b.Text {
						t.Errorf("request %d: text %q, want %q", req.Index, b.Text, a.Text)
					}
					if b.CompletionTokens == nil || *b.CompletionTokens != *a.CompletionTokens {
						t.Errorf("request %d: completion tokens %v, want %d", req.Index, b.CompletionTokens, *a.CompletionTokens)
					}
					if b.Chunks.Len() != *a.CompletionTokens {
						t.Errorf("request %d: %d token chunks, want %d (one per token)", req.Index, b.Chunks.Len(), *a.CompletionTokens)
					}
					if b.FinishReason != a.FinishReason {
						t.Errorf("request %d: finish %q, want %q", req.Index, b.FinishReason, a.FinishReason)
					}
				}
			})
		}
	}
}

// TestSimFaults injects the simulator's faults one at a time; each gets its
// own class.
func TestSimFaults(t *testing.T) {
	tests := []struct {
		name    string
		faults  sim.Faults
		timeout time.Duration
		class   string
	}{
		{"throttle", sim.Faults{ThrottleRate: 1}, 0, ClassThrottling},
		{"model-not-ready", sim.Faults{ModelNotReadyRate: 1}, 0, ClassModelNotReady},
		{"model-error", sim.Faults{ModelErrorRate: 1}, 0, ClassModelError},
		{"model-stream-error", sim.Faults{ModelStreamErrorRate: 1}, 0, "ModelStreamError:StreamBroken"},
		{"model-stream-timeout", sim.Faults{ModelStreamErrorRate: 1, ModelStreamErrorCode: "ModelInvocationTimeExceeded"}, 0, "ModelStreamError:ModelInvocationTimeExceeded"},
		{"internal-stream-failure", sim.Faults{InternalStreamFailureRate: 1}, 0, ClassInternalStreamFailure},
		{"disconnect", sim.Faults{DropRate: 1}, 0, record.ErrStreamTruncated},
		{"stall", sim.Faults{StallRate: 1, StallFor: 10 * time.Second}, 400 * time.Millisecond, record.ErrTimeout},
		{"malformed", sim.Faults{MalformedRate: 1}, 0, record.ErrMalformedStream},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := startSim(t, func(c *sim.Config) { c.Faults = tt.faults; c.PartSize = eventstream.PartSize{N: 7} })
			sm := simBackend(t, hs.URL, FormatOpenAIChat, 1)
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			var resp backend.Response
			sm.Send(ctx, simRequests()[2], &resp)
			if resp.Err == nil || resp.ErrClass != tt.class {
				t.Errorf("class %q (err %v), want %q", resp.ErrClass, resp.Err, tt.class)
			}
		})
	}
}

// startProxy runs llmbench's SageMaker Runtime emulator in front of an
// OpenAI-compatible server.
func startProxy(t *testing.T, upstream string, size eventstream.PartSize) *httptest.Server {
	t.Helper()
	p, err := proxy.New(proxy.Config{Upstream: upstream, PartSize: size, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(p)
	t.Cleanup(hs.Close)
	return hs
}

// TestProxySameAsOpenAIBackend: through llmbench proxy (part sizes 1, 7,
// 4096, random) in front of the simulator's OpenAI API, the SageMaker
// backend reports what the direct OpenAI backend reports against the same
// server.
func TestProxySameAsOpenAIBackend(t *testing.T) {
	for _, api := range []struct {
		format Format
		api    openai.API
		path   string
	}{
		{FormatOpenAIChat, openai.Chat, "/v1/chat/completions"},
		{FormatOpenAI, openai.Completions, "/v1/completions"},
	} {
		for _, part := range []string{"1", "7", "4096", "random"} {
			t.Run(fmt.Sprintf("%s-parts-%s", api.format, part), func(t *testing.T) {
				size, _ := eventstream.ParsePartSize(part)
				upstream := startSim(t, nil)
				px := startProxy(t, upstream.URL, size)
				sm := simBackend(t, px.URL, api.format, 2)
				direct, err := openai.New(openai.Config{URL: upstream.URL + api.path, API: api.api, MaxConcurrency: 2})
				if err != nil {
					t.Fatal(err)
				}
				defer direct.Close()
				sameAsDirect(t, direct, sm, simRequests())
			})
		}
	}
}

// sameAsDirect sends each request through the direct OpenAI backend and the
// SageMaker backend and checks that both observed the same outcome, and
// that there was something to compare.
func sameAsDirect(t *testing.T, direct *openai.Client, sm *Backend, reqs []*backend.Request) {
	t.Helper()
	for _, req := range reqs {
		var a, b backend.Response
		direct.Send(context.Background(), req, &a)
		sm.Send(context.Background(), req, &b)
		if a.Err != nil || b.Err != nil {
			t.Fatalf("request %d: openai err %v, sagemaker err %v (%s)", req.Index, a.Err, b.Err, b.ErrClass)
		}
		if diff := cmp.Diff(outcomeOf(&a), outcomeOf(&b)); diff != "" {
			t.Errorf("request %d (-openai +sagemaker):\n%s", req.Index, diff)
		}
		if a.CompletionTokens == nil || a.Text == "" {
			t.Errorf("request %d: nothing to compare (tokens %v)", req.Index, a.CompletionTokens)
		}
	}
}

// TestProxyManyStreams: 1,000 streams at concurrency 200 through the proxy
// and the simulator, all on loopback: every one succeeds, none with "use of
// closed network connection".
func TestProxyManyStreams(t *testing.T) {
	const total, conc = 1000, 200
	upstream := startSim(t, func(c *sim.Config) { c.EOSRate = 0 })
	// 64-byte parts still cut every chunk; smaller ones only cost time here
	// (part boundaries are covered above).
	px := startProxy(t, upstream.URL, eventstream.PartSize{N: 64})
	sm := simBackend(t, px.URL, FormatOpenAIChat, conc)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu       sync.Mutex
		failures = map[string]int{}
		closed   int
		wg       sync.WaitGroup
	)
	work := make(chan int)
	for range conc {
		wg.Go(func() {
			for i := range work {
				req := &backend.Request{Index: i, Model: "llmbench-sim", Prompt: fmt.Sprintf("stream %d", i), MaxTokens: 4, IgnoreEOS: true}
				var resp backend.Response
				sm.Send(ctx, req, &resp)
				mu.Lock()
				if resp.Err != nil {
					failures[resp.ErrClass]++
					if strings.Contains(resp.Err.Error(), "use of closed network connection") {
						closed++
					}
				} else if resp.CompletionTokens == nil || *resp.CompletionTokens != 4 {
					failures["wrong-count"]++
				}
				mu.Unlock()
			}
		})
	}
	for i := range total {
		work <- i
	}
	close(work)
	wg.Wait()
	if len(failures) > 0 || closed > 0 {
		t.Errorf("failures by class %v; %d with \"use of closed network connection\"", failures, closed)
	}
}

// TestSimGroundTruth checks the timing rule against the simulator's record
// of each write: every chunk stamp falls after the server began writing
// that chunk (causality) and not long after it finished (the stamp is taken
// when the part arrives, not at the end of the stream), and Start precedes
// the server's arrival stamp.
func TestSimGroundTruth(t *testing.T) {
	run := simtest.Start(t, simtest.Fixed(30*time.Millisecond, 15*time.Millisecond), simtest.KeepTruth(),
		simtest.With(func(c *sim.Config) { c.PartSize = eventstream.PartSize{N: 7} }))
	srv := run.Server
	sm := simBackend(t, run.URL, FormatOpenAIChat, 1)
	var resp backend.Response
	sm.Send(context.Background(), &backend.Request{ID: "truth-1", Model: sim.DefaultConfig().Model, Prompt: "ground truth", MaxTokens: 10, IgnoreEOS: true}, &resp)
	if resp.Err != nil {
		t.Fatal(resp.Err)
	}
	// The server files its truth when its handler returns, which may be
	// just after the client saw the end of the stream.
	truths := srv.Truth()
	for deadline := time.Now().Add(2 * time.Second); len(truths) == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		truths = srv.Truth()
	}
	if len(truths) != 1 {
		t.Fatalf("%d truths", len(truths))
	}
	tr := truths[0]
	if resp.Start.After(tr.Arrival) {
		t.Errorf("Start %v after the server's arrival stamp", resp.Start.Sub(tr.Arrival))
	}
	var writes []sim.ChunkTruth
	for _, c := range tr.Chunks {
		if c.Kind == sim.ChunkRole || c.Kind == sim.ChunkToken {
			writes = append(writes, c)
		}
	}
	if len(writes) != resp.Chunks.Len() {
		t.Fatalf("%d token chunks stamped, server wrote %d", resp.Chunks.Len(), len(writes))
	}
	for i, w := range writes {
		got := resp.Chunks.At(i)
		if got.Before(w.WriteStart) {
			t.Errorf("chunk %d stamped %v before the server started writing it", i, w.WriteStart.Sub(got))
		}
		if late := got.Sub(w.WriteEnd); late > 2*time.Second { // a gross bound: a busy machine delays reads
			t.Errorf("chunk %d stamped %v after the server finished writing it", i, late)
		}
	}
}

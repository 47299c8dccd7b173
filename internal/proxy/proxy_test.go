package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime/types"

	"github.com/llmbench/llmbench/internal/eventstream"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

type readCloserOnly struct{ io.ReadCloser }

// hideWriterTo works around the SDK's request-body race (docs/sagemaker.md#request-body-race).
type hideWriterTo struct{ c *http.Client }

func (h hideWriterTo) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = readCloserOnly{req.Body}
	}
	return h.c.Do(req)
}

func newSDK(url string) *sagemakerruntime.Client {
	return sagemakerruntime.New(sagemakerruntime.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", ""),
		BaseEndpoint: aws.String(url),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   hideWriterTo{c: &http.Client{Transport: &http.Transport{}}},
	})
}

// startProxy serves a proxy for upstream on a loopback port.
func startProxy(t *testing.T, cfg Config) *Running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	run, err := Start(cfg, ln)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = run.Stop(ctx)
	})
	return run
}

// stream invokes the streaming API; onPart sees each part as it arrives.
func stream(ctx context.Context, c *sagemakerruntime.Client, body string, onPart func([]byte)) ([]byte, error) {
	out, err := c.InvokeEndpointWithResponseStream(ctx, &sagemakerruntime.InvokeEndpointWithResponseStreamInput{
		EndpointName: aws.String("proxied"), Body: []byte(body), ContentType: aws.String("application/json")})
	if err != nil {
		return nil, err
	}
	st := out.GetStream()
	defer st.Close()
	var buf []byte
	for ev := range st.Events() {
		if p, ok := ev.(*types.ResponseStreamMemberPayloadPart); ok {
			buf = append(buf, p.Value.Bytes...)
			if onPart != nil {
				onPart(buf)
			}
		}
	}
	return buf, st.Err()
}

type summary struct {
	Text, Finish string
	Usage        map[string]any
	Chunks       int
	Done         bool
}

func summarize(t *testing.T, b []byte) summary {
	t.Helper()
	var s summary
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "data: ")
		if line == "" {
			continue
		}
		if line == "[DONE]" {
			s.Done = true
			continue
		}
		var ev struct {
			Choices []struct {
				Text  string `json:"text"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			// Errorf, not Fatalf: callers run in their own goroutines.
			t.Errorf("bad event %q: %v", line, err)
			return s
		}
		if len(ev.Choices) == 0 {
			s.Usage = ev.Usage
			continue
		}
		s.Chunks++
		s.Text += ev.Choices[0].Text + ev.Choices[0].Delta.Content
		if f := ev.Choices[0].FinishReason; f != nil {
			s.Finish = *f
		}
	}
	return s
}

// TestProxyMatchesDirect: through the proxy and the real AWS SDK, the
// reassembled text, usage and finish reason equal the upstream's direct
// HTTP stream for every part size.
func TestProxyMatchesDirect(t *testing.T) {
	t.Parallel()
	up := simtest.Start(t, simtest.Fixed(2*time.Millisecond, 200*time.Microsecond))
	bodies := map[string]string{
		"/v1/chat/completions": `{"messages":[{"role":"user","content":"compare me"}],"max_completion_tokens":30,"stream":true,"stream_options":{"include_usage":true}}`,
		"/v1/completions":      `{"prompt":"compare me too","max_tokens":30,"stream":true,"stream_options":{"include_usage":true}}`,
	}
	for _, size := range []string{"1", "7", "4096", "random"} {
		t.Run("part-size-"+size, func(t *testing.T) {
			t.Parallel()
			ps, _ := eventstream.ParsePartSize(size)
			px := startProxy(t, Config{Upstream: up.URL, PartSize: ps, Seed: 3})
			hc := &http.Client{Transport: &http.Transport{}}
			var wg sync.WaitGroup
			for path, body := range bodies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := hc.Post(up.URL+path, "application/json", strings.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					direct, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					got, err := stream(t.Context(), newSDK(px.URL), body, nil)
					if err != nil {
						t.Errorf("%s: %v", path, err)
						return
					}
					w, g := summarize(t, direct), summarize(t, got)
					if w.Text == "" || !w.Done || w.Usage == nil {
						t.Errorf("%s: direct stream incomplete: %+v", path, w)
					}
					if fmt.Sprint(w) != fmt.Sprint(g) {
						t.Errorf("%s:\ndirect %+v\nproxy  %+v", path, w, g)
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestProxyForwardsAsBytesArrive: the upstream sends its second event only
// after the client has received the first through the proxy. A proxy that
// buffered whole responses would deadlock here (bounded by the deadline).
func TestProxyForwardsAsBytesArrive(t *testing.T) {
	t.Parallel()
	gotFirst := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"one\",\"finish_reason\":null}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-gotFirst:
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\" two\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	px := startProxy(t, Config{Upstream: up.URL, PartSize: eventstream.PartSize{N: 7}})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var once sync.Once
	raw, err := stream(ctx, newSDK(px.URL), `{"prompt":"x","stream":true}`, func(b []byte) {
		if bytes.Contains(b, []byte("}\n\n")) {
			once.Do(func() { close(gotFirst) })
		}
	})
	if err != nil {
		t.Fatalf("%v (a buffering proxy never delivers the first event)", err)
	}
	if s := summarize(t, raw); s.Text != "one two" || !s.Done {
		t.Errorf("%+v", s)
	}
}

// TestProxyUpstreamFailures shows what the SDK sees for each upstream
// failure.
func TestProxyUpstreamFailures(t *testing.T) {
	t.Parallel()
	t.Run("upstream 400 becomes ModelError with the original status and body", func(t *testing.T) {
		t.Parallel()
		up := simtest.Start(t, simtest.Fixed(2*time.Millisecond, 200*time.Microsecond))
		px := startProxy(t, Config{Upstream: up.URL})
		_, err := stream(t.Context(), newSDK(px.URL), `{"prompt":"x","max_tokens":0,"stream":true}`, nil)
		var me *types.ModelError
		if !errors.As(err, &me) || aws.ToInt32(me.OriginalStatusCode) != 400 || !strings.Contains(aws.ToString(me.OriginalMessage), "max_tokens") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unreachable upstream is a ModelError(502)", func(t *testing.T) {
		t.Parallel()
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		dead := "http://" + ln.Addr().String()
		ln.Close()
		px := startProxy(t, Config{Upstream: dead})
		_, err := stream(t.Context(), newSDK(px.URL), `{"prompt":"x","stream":true}`, nil)
		var me *types.ModelError
		if !errors.As(err, &me) || aws.ToInt32(me.OriginalStatusCode) != 502 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("upstream connection breaking mid-stream is ModelStreamError StreamBroken", func(t *testing.T) {
		t.Parallel()
		up := simtest.Start(t, simtest.Fixed(2*time.Millisecond, 200*time.Microsecond), simtest.With(func(c *sim.Config) { c.Faults.DropRate = 1 }))
		px := startProxy(t, Config{Upstream: up.URL, PartSize: eventstream.PartSize{N: 7}})
		raw, err := stream(t.Context(), newSDK(px.URL), `{"prompt":"x","max_tokens":30,"stream":true}`, nil)
		var mse *types.ModelStreamError
		if !errors.As(err, &mse) || aws.ToString(mse.ErrorCode_) != "StreamBroken" {
			t.Fatalf("err = %v", err)
		}
		if !bytes.HasPrefix(raw, []byte("data: {")) {
			t.Errorf("no partial content before the error: %q", raw)
		}
	})
	t.Run("non-JSON body is the container's 400", func(t *testing.T) {
		t.Parallel()
		up := simtest.Start(t, simtest.Fixed(2*time.Millisecond, 200*time.Microsecond))
		px := startProxy(t, Config{Upstream: up.URL})
		_, err := stream(t.Context(), newSDK(px.URL), `not json`, nil)
		var me *types.ModelError
		if !errors.As(err, &me) || aws.ToInt32(me.OriginalStatusCode) != 400 {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestProxyCancelPropagates: when the SageMaker client goes away, the
// upstream request is cancelled too.
func TestProxyCancelPropagates(t *testing.T) {
	t.Parallel()
	upDone := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"x\"}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(upDone)
		case <-time.After(10 * time.Second):
		}
	}))
	defer up.Close()
	px := startProxy(t, Config{Upstream: up.URL})
	ctx, cancel := context.WithCancel(t.Context())
	_, _ = stream(ctx, newSDK(px.URL), `{"prompt":"x","stream":true}`, func([]byte) { cancel() })
	select {
	case <-upDone:
	case <-time.After(5 * time.Second):
		t.Fatal("upstream request still open 5 s after the client left")
	}
}

// TestProxyInvokeEndpoint: the non-streaming API returns the upstream body.
func TestProxyInvokeEndpoint(t *testing.T) {
	t.Parallel()
	up := simtest.Start(t, simtest.Fixed(2*time.Millisecond, 200*time.Microsecond))
	px := startProxy(t, Config{Upstream: up.URL})
	out, err := newSDK(px.URL).InvokeEndpoint(t.Context(), &sagemakerruntime.InvokeEndpointInput{
		EndpointName: aws.String("ep"), ContentType: aws.String("application/json"),
		Body: []byte(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":4}`)})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Body, &m); err != nil || m["object"] != "chat.completion" {
		t.Errorf("body %s (%v)", out.Body, err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{{Upstream: "localhost:8000"}, {Upstream: "ftp://x"}, {Upstream: "http://x", Route: "invocations"},
		{Upstream: "ftp://user:s3cret@x"}, {Upstream: "http://user:s3cret@x:port"}, {Upstream: "user:s3cret@x"}} {
		_, err := New(c)
		if err == nil {
			t.Errorf("%+v accepted", c)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

// TestProxyContainerRoute: with a fixed route the proxy fronts a
// container's own /invocations (here the simulator speaking TGI), and the
// SDK gets the same bytes as from the simulator's built-in SageMaker API.
func TestProxyContainerRoute(t *testing.T) {
	t.Parallel()
	up := simtest.Start(t, simtest.Fixed(2*time.Millisecond, 200*time.Microsecond), simtest.With(func(c *sim.Config) { c.PayloadFormat = sim.FormatTGI }))
	px := startProxy(t, Config{Upstream: up.URL, Route: "/invocations", PartSize: eventstream.PartSize{N: 7}})
	body := `{"inputs":"what is a river","parameters":{"max_new_tokens":12,"details":true},"stream":true}`
	viaProxy, err := stream(t.Context(), newSDK(px.URL), body, nil)
	if err != nil {
		t.Fatal(err)
	}
	builtIn, err := stream(t.Context(), newSDK(up.URL), body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(viaProxy, builtIn) {
		t.Errorf("proxy and built-in SageMaker API differ:\n%s\n%s", viaProxy, builtIn)
	}
	if n := bytes.Count(viaProxy, []byte("data:{")); n != 12 || !bytes.Contains(viaProxy, []byte(`"generated_tokens":12`)) {
		t.Errorf("%d TGI events: %s", n, viaProxy)
	}
}

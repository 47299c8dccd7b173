package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// TestSageMakerMatchesHTTP drives the simulator with the real AWS SDK and
// with plain HTTP: the text and usage reassembled from PayloadParts must be
// identical to the direct stream, whatever the part size.
func TestSageMakerMatchesHTTP(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"chat": `{"model":"llmbench-sim","messages":[{"role":"user","content":"tell me about the river"}],` +
			`"max_completion_tokens":40,"stream":true,"stream_options":{"include_usage":true}}`,
		"completions": `{"model":"llmbench-sim","prompt":"the quick brown fox","max_tokens":40,` +
			`"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`,
	}
	paths := map[string]string{"chat": "/v1/chat/completions", "completions": "/v1/completions"}
	for _, size := range []string{"1", "7", "4096", "random"} {
		t.Run("part-size-"+size, func(t *testing.T) {
			t.Parallel()
			cfg := fastFixed()
			ps, err := eventstream.ParsePartSize(size)
			if err != nil {
				t.Fatal(err)
			}
			cfg.PartSize = ps
			cfg.EOSRate = 0.02 // some requests stop early: finish "stop" must survive too
			run := startSim(t, cfg)
			hc := newHTTPClient()
			var wg sync.WaitGroup
			for kind, body := range bodies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sdk := newSDK(run.URL) // one client per goroutine (docs/sagemaker.md#one-client-per-stream)
					resp := post(t, hc, run.URL+paths[kind], body)
					direct, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil {
						t.Error(err)
						return
					}
					raw, parts, out, err := sdkStream(t.Context(), sdk, "my-endpoint", body)
					if err != nil {
						t.Errorf("%s: sdk: %v", kind, err)
						return
					}
					if got := aws.ToString(out.ContentType); got != "text/event-stream; charset=utf-8" {
						t.Errorf("%s: container content type %q", kind, got)
					}
					want, got := parseStream(t, direct), parseStream(t, raw)
					if !want.Done || want.Usage == nil || want.FinishReason == "" || len(want.BadJSON) > 0 {
						t.Errorf("%s: direct stream incomplete: %+v", kind, want)
					}
					if diff := cmp.Diff(want.Text, got.Text); diff != "" {
						t.Errorf("%s: text differs (-http +sagemaker):\n%s", kind, diff)
					}
					if diff := cmp.Diff(want.Usage, got.Usage); diff != "" {
						t.Errorf("%s: usage differs (-http +sagemaker):\n%s", kind, diff)
					}
					if want.FinishReason != got.FinishReason || want.TokenChunks != got.TokenChunks || !got.Done {
						t.Errorf("%s: finish %q/%q chunks %d/%d done %v", kind, want.FinishReason, got.FinishReason,
							want.TokenChunks, got.TokenChunks, got.Done)
					}
					// Same bytes apart from the random completion id.
					if len(raw) != len(direct) {
						t.Errorf("%s: %d bytes via SageMaker, %d direct", kind, len(raw), len(direct))
					}
					if size == "1" && parts != len(raw) {
						t.Errorf("%s: part size 1: %d parts for %d bytes", kind, parts, len(raw))
					}
					if size == "7" && parts < len(raw)/7 {
						t.Errorf("%s: part size 7: only %d parts for %d bytes", kind, parts, len(raw))
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestSageMakerConcurrentStreams runs many concurrent SDK streams (one
// client per goroutine) to show none is cut (docs/sagemaker.md#request-body-race workaround).
func TestSageMakerConcurrentStreams(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	cfg.PartSize = eventstream.PartSize{N: 7}
	run := startSim(t, cfg)
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sdk := newSDK(run.URL)
			body := fmt.Sprintf(`{"prompt":"request %d","max_tokens":20,"stream":true,"stream_options":{"include_usage":true}}`, i)
			raw, _, _, err := sdkStream(t.Context(), sdk, "ep", body)
			if err != nil {
				errs <- err
				return
			}
			if r := parseStream(t, raw); !r.Done || r.TokenChunks != 20 {
				errs <- fmt.Errorf("request %d: done=%v chunks=%d", i, r.Done, r.TokenChunks)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestSageMakerFormats checks the TGI and LMI payload formats as the SDK
// delivers them.
func TestSageMakerFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, format, body, wantCT string
		check                      func(t *testing.T, raw string)
	}{
		{"tgi generate stream: data: without space, last event has generated_text and details",
			FormatTGI, `{"inputs":"hello there","parameters":{"max_new_tokens":5,"details":true},"stream":true}`,
			"text/event-stream; charset=utf-8", func(t *testing.T, raw string) {
				lines := nonEmptyLines(raw)
				if len(lines) != 5 {
					t.Fatalf("want 5 events, got %d: %q", len(lines), raw)
				}
				for _, l := range lines {
					if l[:6] != `data:{` {
						t.Errorf("TGI event %q does not start with data:{", l)
					}
				}
				last := decodeJSON(t, lines[4][5:])
				d := last["details"].(map[string]any)
				if last["generated_text"] == nil || d["finish_reason"] != "length" || d["generated_tokens"] != 5.0 || d["input_length"] != 3.0 {
					t.Errorf("last TGI event: %v", last)
				}
				if first := decodeJSON(t, lines[0][5:]); first["generated_text"] != nil {
					t.Errorf("first event has generated_text: %v", first)
				}
			}},
		{"lmi rolling batch jsonlines: token lines, last with generated_text and details",
			FormatLMI, `{"inputs":"hello there","parameters":{"max_new_tokens":4}}`,
			"application/jsonlines", func(t *testing.T, raw string) {
				lines := nonEmptyLines(raw)
				if len(lines) != 4 {
					t.Fatalf("want 4 lines, got %d: %q", len(lines), raw)
				}
				last := decodeJSON(t, lines[3])
				if last["details"].(map[string]any)["finish_reason"] != "length" || last["generated_text"] == nil {
					t.Errorf("last LMI line: %v", last)
				}
				tok := decodeJSON(t, lines[0])["token"].(map[string]any)
				if _, ok := tok["log_prob"]; !ok {
					t.Errorf("LMI token lacks log_prob: %v", tok)
				}
			}},
		{"lmi with an OpenAI body: vLLM chunks as JSON lines, empty final line",
			FormatLMI, `{"prompt":"hi","max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`,
			"application/jsonlines", func(t *testing.T, raw string) {
				r := parseStream(t, []byte(raw))
				if r.TokenChunks != 3 || r.Usage == nil || r.FinishReason != "length" {
					t.Errorf("parsed %+v", r)
				}
				if raw[len(raw)-2:] != "}\n" && raw[len(raw)-2:] != "\n\n" {
					t.Errorf("stream ends %q", raw[len(raw)-10:])
				}
				if raw[len(raw)-2:] != "\n\n" {
					t.Errorf("no empty final line: ends %q", raw[len(raw)-10:])
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := fastFixed()
			cfg.PayloadFormat = tc.format
			cfg.PartSize = eventstream.PartSize{N: 7}
			run := startSim(t, cfg)
			raw, _, out, err := sdkStream(t.Context(), newSDK(run.URL), "ep", tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if got := aws.ToString(out.ContentType); got != tc.wantCT {
				t.Errorf("content type %q, want %q", got, tc.wantCT)
			}
			tc.check(t, string(raw))
		})
	}
}

// TestSageMakerErrors shows what the AWS SDK makes of each SageMaker fault.
func TestSageMakerErrors(t *testing.T) {
	t.Parallel()
	body := `{"prompt":"hello","max_tokens":30,"stream":true}`
	tests := []struct {
		name  string
		set   func(*Faults)
		check func(t *testing.T, raw []byte, err error)
	}{
		{"throttle: 400 ThrottlingException, classified as a throttle", func(f *Faults) { f.ThrottleRate = 1 },
			func(t *testing.T, _ []byte, err error) {
				var ae smithy.APIError
				if !errors.As(err, &ae) || ae.ErrorCode() != "ThrottlingException" {
					t.Fatalf("err = %v", err)
				}
				if retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) != aws.TrueTernary {
					t.Errorf("SDK does not classify %v as a throttle", err)
				}
				if status := httpStatus(err); status != http.StatusBadRequest {
					t.Errorf("status %d", status)
				}
			}},
		{"model error: 424 with the container status", func(f *Faults) { f.ModelErrorRate = 1 },
			func(t *testing.T, _ []byte, err error) {
				var me *types.ModelError
				if !errors.As(err, &me) || aws.ToInt32(me.OriginalStatusCode) != 500 {
					t.Fatalf("err = %v", err)
				}
			}},
		{"container 429 becomes ModelError(429)", func(f *Faults) { f.HTTP429Rate = 1 },
			func(t *testing.T, _ []byte, err error) {
				var me *types.ModelError
				if !errors.As(err, &me) || aws.ToInt32(me.OriginalStatusCode) != 429 {
					t.Fatalf("err = %v", err)
				}
			}},
		{"model not ready: 429 ModelNotReadyException, not a throttle", func(f *Faults) { f.ModelNotReadyRate = 1 },
			func(t *testing.T, _ []byte, err error) {
				var nr *types.ModelNotReadyException
				if !errors.As(err, &nr) {
					t.Fatalf("err = %v", err)
				}
			}},
		{"model stream error mid-stream", func(f *Faults) { f.ModelStreamErrorRate = 1; f.ModelStreamErrorCode = "ModelInvocationTimeExceeded" },
			func(t *testing.T, raw []byte, err error) {
				var mse *types.ModelStreamError
				if !errors.As(err, &mse) || aws.ToString(mse.ErrorCode_) != "ModelInvocationTimeExceeded" {
					t.Fatalf("err = %v", err)
				}
				if r := parseStream(t, raw); r.TokenChunks == 0 || r.TokenChunks >= 30 || r.Done {
					t.Errorf("want a partial stream before the error, got %d chunks done=%v", r.TokenChunks, r.Done)
				}
			}},
		{"internal stream failure mid-stream", func(f *Faults) { f.InternalStreamFailureRate = 1 },
			func(t *testing.T, raw []byte, err error) {
				var isf *types.InternalStreamFailure
				if !errors.As(err, &isf) {
					t.Fatalf("err = %v", err)
				}
			}},
		{"dropped connection: the SDK reports no error, the stream is just short", func(f *Faults) { f.DropRate = 1 },
			func(t *testing.T, raw []byte, err error) {
				r := parseStream(t, raw)
				if r.Done || r.TokenChunks >= 30 {
					t.Errorf("stream looks complete: %+v", r)
				}
				t.Logf("SDK error after a drop: %v (sagemakerruntime v1.50.4 reports nil, docs/sagemaker.md#truncated-streams)", err)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := fastFixed()
			tc.set(&cfg.Faults)
			run := startSim(t, cfg)
			raw, _, _, err := sdkStream(t.Context(), newSDK(run.URL), "ep", body)
			tc.check(t, raw, err)
		})
	}
}

// TestSageMakerInvokeEndpoint checks the non-streaming API.
func TestSageMakerInvokeEndpoint(t *testing.T) {
	t.Parallel()
	run := startSim(t, fastFixed())
	sdk := newSDK(run.URL)
	out, err := sdk.InvokeEndpoint(t.Context(), &sagemakerruntime.InvokeEndpointInput{
		EndpointName: aws.String("ep"), ContentType: aws.String("application/json"),
		Body: []byte(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":6}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := decodeJSON(t, string(out.Body))
	usage := got["usage"].(map[string]any)
	if got["object"] != "chat.completion" || usage["completion_tokens"] != 6.0 {
		t.Errorf("body %s", out.Body)
	}
	// A bad endpoint name is SageMaker's own ValidationError; so is one
	// longer than 63 characters, though it fits the pattern.
	for _, name := range []string{"bad_name", "a" + strings.Repeat("-", 70) + "b"} {
		_, err = sdk.InvokeEndpoint(t.Context(), &sagemakerruntime.InvokeEndpointInput{
			EndpointName: aws.String(name), Body: []byte(`{}`)})
		var ve *types.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("bad endpoint name %q: %v", name, err)
		}
	}
	// An invalid body is the container's 400, wrapped as ModelError.
	_, err = sdk.InvokeEndpoint(t.Context(), &sagemakerruntime.InvokeEndpointInput{
		EndpointName: aws.String("ep"), Body: []byte(`{"prompt":"x","max_tokens":-1}`)})
	var me *types.ModelError
	if !errors.As(err, &me) || aws.ToInt32(me.OriginalStatusCode) != 400 {
		t.Errorf("invalid body: %v", err)
	}
}

func httpStatus(err error) int {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// TestSageMakerPartsSpanEvents: the last events of a stream leave together,
// so with 7-byte parts some PayloadPart holds the end of one SSE event and
// the start of the next.
func TestSageMakerPartsSpanEvents(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	cfg.PartSize = eventstream.PartSize{N: 7}
	run := startSim(t, cfg)
	out, err := newSDK(run.URL).InvokeEndpointWithResponseStream(t.Context(), &sagemakerruntime.InvokeEndpointWithResponseStreamInput{
		EndpointName: aws.String("ep"), ContentType: aws.String("application/json"),
		Body: []byte(`{"prompt":"x","max_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`)})
	if err != nil {
		t.Fatal(err)
	}
	st := out.GetStream()
	defer st.Close()
	spans := 0
	for ev := range st.Events() {
		if p, ok := ev.(*types.ResponseStreamMemberPayloadPart); ok {
			if i := bytes.Index(p.Value.Bytes, []byte("\n\n")); i >= 0 && i+2 < len(p.Value.Bytes) {
				spans++
			}
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if spans == 0 {
		t.Error("no PayloadPart spans an SSE event boundary")
	}
}

package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime/types"
)

// fastFixed is a fixed-mode config quick enough for unit tests.
func fastFixed() Config {
	c := DefaultConfig()
	c.Mode = ModeFixed
	c.TTFT = 2 * time.Millisecond
	c.ITL = 200 * time.Microsecond
	c.KeepTruth = true
	return c
}

// startSim serves cfg on a loopback port for the test's lifetime. Other
// packages' tests use simtest.Serve; these in-package tests cannot import it
// (simtest imports sim: an import cycle).
func startSim(t *testing.T, cfg Config) *Running {
	t.Helper()
	run, err := Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := run.Stop(ctx); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return run
}

// newHTTPClient returns a client with its own transport (no shared state
// between tests).
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
}

func post(t *testing.T, c *http.Client, url, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sseResult is what a minimal independent SSE reader makes of a stream.
type sseResult struct {
	Text         string
	Role         bool
	TokenChunks  int
	FinishReason string
	Usage        map[string]any
	Done         bool
	Comments     int
	Events       []string // raw data payloads in order
	BadJSON      []string
}

// parseStream reads an OpenAI SSE (or JSON-lines) byte stream the simple
// way: lines, optional "data:" prefix, blank lines and ":" comments
// skipped, [DONE] the end marker.
func parseStream(t *testing.T, b []byte) sseResult {
	t.Helper()
	var r sseResult
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, ":") {
			r.Comments++
			continue
		}
		data := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		r.Events = append(r.Events, data)
		if data == "[DONE]" {
			r.Done = true
			continue
		}
		var ev struct {
			Choices []struct {
				Text  *string `json:"text"`
				Delta *struct {
					Role    string  `json:"role"`
					Content *string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			r.BadJSON = append(r.BadJSON, data)
			continue
		}
		if len(ev.Choices) == 0 {
			if ev.Usage != nil {
				r.Usage = ev.Usage
			}
			continue
		}
		r.TokenChunks++
		c := ev.Choices[0]
		if c.Text != nil {
			r.Text += *c.Text
		}
		if c.Delta != nil {
			if c.Delta.Role != "" {
				r.Role = true
			}
			if c.Delta.Content != nil {
				r.Text += *c.Delta.Content
			}
		}
		if c.FinishReason != nil {
			r.FinishReason = *c.FinishReason
		}
	}
	return r
}

// hideWriterTo hides the request body's io.WriterTo (docs/sagemaker.md#request-body-race: the SDK
// closes the body at the response headers; net/http's write loop can then
// fail and close the connection under the stream).
type hideWriterTo struct{ c *http.Client }

type readCloserOnly struct{ io.ReadCloser }

func (h hideWriterTo) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = readCloserOnly{req.Body}
	}
	return h.c.Do(req)
}

// newSDK returns a real SageMaker Runtime client pointed at url: static
// credentials, retries off, no IMDS or shared config involved. Use one per
// goroutine (docs/sagemaker.md#one-client-per-stream).
func newSDK(url string) *sagemakerruntime.Client {
	return sagemakerruntime.New(sagemakerruntime.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "SECRETTEST", ""),
		BaseEndpoint: aws.String(url),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   hideWriterTo{c: newHTTPClient()},
	})
}

// sdkStream invokes the streaming API and returns the reassembled bytes,
// the number of PayloadParts and the stream's error.
func sdkStream(ctx context.Context, c *sagemakerruntime.Client, endpoint, body string) ([]byte, int, *sagemakerruntime.InvokeEndpointWithResponseStreamOutput, error) {
	out, err := c.InvokeEndpointWithResponseStream(ctx, &sagemakerruntime.InvokeEndpointWithResponseStreamInput{
		EndpointName: aws.String(endpoint),
		Body:         []byte(body),
		ContentType:  aws.String("application/json"),
	})
	if err != nil {
		return nil, 0, nil, err
	}
	st := out.GetStream()
	defer st.Close()
	var buf []byte
	parts := 0
	for ev := range st.Events() {
		if p, ok := ev.(*types.ResponseStreamMemberPayloadPart); ok {
			buf = append(buf, p.Value.Bytes...)
			parts++
		}
	}
	return buf, parts, out, st.Err()
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return m
}

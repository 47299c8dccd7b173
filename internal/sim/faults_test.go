package sim

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestFaultsOnTheWire shows, for every fault type, what an HTTP client sees.
func TestFaultsOnTheWire(t *testing.T) {
	t.Parallel()
	const body = `{"prompt":"x","max_tokens":20,"stream":true,"stream_options":{"include_usage":true}}`
	type seen struct {
		status     int
		header     http.Header
		raw        []byte
		readErr    error
		headerWait time.Duration // send to response headers
		total      time.Duration // send to the end of the body
		truth      Truth         // what the server says it did
	}
	tests := []struct {
		name  string
		set   func(*Faults)
		check func(t *testing.T, s seen)
	}{
		{"500: vLLM-style JSON error", func(f *Faults) { f.HTTP500Rate = 1 }, func(t *testing.T, s seen) {
			e := decodeJSON(t, string(s.raw))["error"].(map[string]any)
			if s.status != 500 || e["code"] != 500.0 || e["message"] == "" {
				t.Errorf("status %d body %s", s.status, s.raw)
			}
		}},
		{"429 with Retry-After in whole seconds", func(f *Faults) { f.HTTP429Rate = 1; f.RetryAfter = 1500 * time.Millisecond }, func(t *testing.T, s seen) {
			if s.status != 429 || s.header.Get("Retry-After") != "2" {
				t.Errorf("status %d Retry-After %q", s.status, s.header.Get("Retry-After"))
			}
		}},
		{"503 while loading", func(f *Faults) { f.Loading503Rate = 1 }, func(t *testing.T, s seen) {
			if s.status != 503 || !strings.Contains(string(s.raw), "loading") {
				t.Errorf("status %d body %s", s.status, s.raw)
			}
		}},
		{"dropped connection: unexpected EOF, partial stream, no [DONE]", func(f *Faults) { f.DropRate = 1 }, func(t *testing.T, s seen) {
			r := parseStream(t, s.raw)
			if !errors.Is(s.readErr, io.ErrUnexpectedEOF) || r.Done || r.TokenChunks == 0 || r.TokenChunks >= 20 {
				t.Errorf("read error %v, %d chunks, done %v", s.readErr, r.TokenChunks, r.Done)
			}
		}},
		{"stall: a long gap mid-stream, then the stream completes", func(f *Faults) { f.StallRate = 1; f.StallFor = 300 * time.Millisecond }, func(t *testing.T, s seen) {
			// The gap is asserted on the server's own write times; the
			// client can only bound it from below by the whole stream's
			// time (a late read of the chunk before the stall would
			// shorten any gap it measured itself).
			r := parseStream(t, s.raw)
			if gap := maxWriteGap(s.truth); gap < 300*time.Millisecond || s.total < 300*time.Millisecond || !r.Done || r.TokenChunks != 20 {
				t.Errorf("largest gap between writes %v, stream took %v, %d chunks, done %v", gap, s.total, r.TokenChunks, r.Done)
			}
		}},
		{"malformed: one chunk is not JSON, the rest is intact", func(f *Faults) { f.MalformedRate = 1 }, func(t *testing.T, s seen) {
			r := parseStream(t, s.raw)
			if len(r.BadJSON) != 1 || r.TokenChunks != 20 || !r.Done {
				t.Errorf("bad JSON %q, %d chunks, done %v", r.BadJSON, r.TokenChunks, r.Done)
			}
		}},
		{"error event: HTTP 200, an error object mid-stream, then [DONE]", func(f *Faults) { f.ErrorEventRate = 1 }, func(t *testing.T, s seen) {
			r := parseStream(t, s.raw)
			last := r.Events[len(r.Events)-2]
			if s.status != 200 || !r.Done || r.TokenChunks == 0 || r.TokenChunks >= 20 || !strings.HasPrefix(last, `{"error":{`) {
				t.Errorf("status %d, %d chunks, done %v, event before [DONE] %q", s.status, r.TokenChunks, r.Done, last)
			}
		}},
		{"slow first byte: headers arrive late, then a normal stream", func(f *Faults) { f.SlowFirstByteRate = 1; f.SlowFirstByteFor = 300 * time.Millisecond }, func(t *testing.T, s seen) {
			r := parseStream(t, s.raw)
			if s.headerWait < 300*time.Millisecond || s.status != 200 || !r.Done {
				t.Errorf("headers after %v, status %d, done %v", s.headerWait, s.status, r.Done)
			}
		}},
		{"SageMaker-only faults do nothing on the OpenAI API", func(f *Faults) { f.ThrottleRate = 0.5; f.ModelStreamErrorRate = 0.5 }, func(t *testing.T, s seen) {
			if r := parseStream(t, s.raw); s.status != 200 || !r.Done {
				t.Errorf("status %d, done %v", s.status, r.Done)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := fastFixed()
			tc.set(&cfg.Faults)
			run := startSim(t, cfg)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, run.URL+"/v1/completions", strings.NewReader(body))
			start := time.Now()
			resp, err := newHTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			s := seen{status: resp.StatusCode, header: resp.Header, headerWait: time.Since(start)}
			br := bufio.NewReader(resp.Body)
			for {
				line, err := br.ReadBytes('\n')
				s.raw = append(s.raw, line...)
				if err != nil {
					if err != io.EOF {
						s.readErr = err
					}
					break
				}
			}
			s.total = time.Since(start)
			tr := run.Server.Truth()
			if len(tr) != 1 {
				t.Fatalf("%d truth records", len(tr))
			}
			s.truth = tr[0]
			tc.check(t, s)
		})
	}
}

// maxWriteGap is the longest pause between the end of one write of a
// response and the start of the next, as the server recorded them.
func maxWriteGap(tr Truth) time.Duration {
	var gap time.Duration
	for i := 1; i < len(tr.Chunks); i++ {
		gap = max(gap, tr.Chunks[i].WriteStart.Sub(tr.Chunks[i-1].WriteEnd))
	}
	return gap
}

// TestLoadingWindow: /health and requests answer 503 until the loading
// period is over.
func TestLoadingWindow(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	// Long enough that the first checks land inside the window even on a
	// loaded machine.
	cfg.Faults.LoadingFor = 1500 * time.Millisecond
	run := startSim(t, cfg)
	hc := newHTTPClient()
	status := func() (int, int) {
		h, err := hc.Get(run.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		h.Body.Close()
		r := post(t, hc, run.URL+"/v1/completions", `{"prompt":"x","max_tokens":2}`)
		r.Body.Close()
		return h.StatusCode, r.StatusCode
	}
	if h, r := status(); h != 503 || r != 503 {
		t.Errorf("while loading: health %d, request %d", h, r)
	}
	time.Sleep(time.Until(run.Server.started().Add(1600 * time.Millisecond)))
	if h, r := status(); h != 200 || r != 200 {
		t.Errorf("after loading: health %d, request %d", h, r)
	}
}

// TestFaultsDeterministic: the same seed gives the same faults to the
// same arrival numbers; another seed gives a different pattern.
func TestFaultsDeterministic(t *testing.T) {
	t.Parallel()
	pattern := func(seed uint64) string {
		cfg := fastFixed()
		cfg.Seed = seed
		cfg.Faults.HTTP500Rate = 0.3
		cfg.Faults.HTTP429Rate = 0.2
		run := startSim(t, cfg)
		hc := newHTTPClient()
		var b strings.Builder
		for range 30 {
			r := post(t, hc, run.URL+"/v1/completions", `{"prompt":"x","max_tokens":1}`)
			r.Body.Close()
			b.WriteString(http.StatusText(r.StatusCode)[:1])
		}
		return b.String()
	}
	a, b, c := pattern(7), pattern(7), pattern(8)
	if a != b {
		t.Errorf("same seed, different faults:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same faults: %s", a)
	}
	if !strings.Contains(a, "I") || !strings.Contains(a, "T") || !strings.Contains(a, "O") {
		t.Errorf("pattern %s lacks one of 500 (I), 429 (T), 200 (O)", a)
	}
}

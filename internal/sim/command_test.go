package sim

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer Serve writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *lockedBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// TestServe: Serve prints where and what it serves, writes the truth
// log, and when its context ends stops and prints its counts.
func TestServe(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	cfg.Model = "m"
	log := filepath.Join(t.TempDir(), "truth.jsonl")
	o := &Options{Preset: DefaultPreset, Addrs: Addrs{Listen: "127.0.0.1:0", Metrics: "127.0.0.1:0"}}
	ctx, cancel := context.WithCancel(t.Context())
	var out lockedBuffer
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, cfg, o, log, &out) }()
	banner := regexp.MustCompile(`^llmbench sim: serving "m" \(fixed, ttft 2ms, itl 200µs\) on (http://127\.0\.0\.1:\d+), metrics on http://127\.0\.0\.1:\d+/metrics\n`)
	var url string
	for deadline := time.Now().Add(5 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := banner.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no banner in %q", out.String())
	}
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b","max_tokens":3}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := "\nllmbench sim: stopped after 1 requests (0 errors, 0 injected faults, 3 tokens)\n"; !strings.HasSuffix(out.String(), want) {
		t.Errorf("output %q, want it to end %q", out.String(), want)
	}
	if b, err := os.ReadFile(log); err != nil || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("truth log %q (%v), want one line", b, err)
	}
}

func TestServeRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, log string
		addrs     Addrs
		truthLog  bool // the error is ErrTruthLog
		prefix    string
	}{
		{"truth log in a missing folder", filepath.Join(t.TempDir(), "no", "t.jsonl"), Addrs{Listen: "127.0.0.1:0"}, true, "truth log: open "},
		{"address that cannot be bound", "", Addrs{Listen: "127.0.0.1:-1"}, false, "sim: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Serve(t.Context(), fastFixed(), &Options{Addrs: tc.addrs}, tc.log, &lockedBuffer{})
			if err == nil || errors.Is(err, ErrTruthLog) != tc.truthLog || !strings.HasPrefix(err.Error(), tc.prefix) {
				t.Errorf("Serve: %v; want an error starting %q, ErrTruthLog %v", err, tc.prefix, tc.truthLog)
			}
		})
	}
}

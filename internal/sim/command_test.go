package sim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServe: Serve prints where and what it serves, writes the truth
// log, and when its context ends stops and prints its counts.
func TestServe(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	cfg.Model = "m"
	log := filepath.Join(t.TempDir(), "truth.jsonl")
	o := &Options{Preset: DefaultPreset, Addrs: Addrs{Listen: "127.0.0.1:0", Metrics: "127.0.0.1:0"}}
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { err := Serve(ctx, cfg, o, log, pw); pw.Close(); done <- err }()
	out := bufio.NewReader(pr)
	line, err := out.ReadString('\n')
	banner := regexp.MustCompile(`^llmbench sim: serving "m" \(fixed, ttft 2ms, itl 200µs\) on (http://127\.0\.0\.1:\d+), metrics on http://127\.0\.0\.1:\d+/metrics\n$`)
	m := banner.FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("banner %q (%v)", line, err)
	}
	url := m[1]
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a b","max_tokens":3}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	rest, _ := io.ReadAll(out)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := "llmbench sim: stopped after 1 requests (0 errors, 0 injected faults, 3 tokens)\n"; string(rest) != want {
		t.Errorf("after the banner %q, want %q", rest, want)
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
			err := Serve(t.Context(), fastFixed(), &Options{Addrs: tc.addrs}, tc.log, io.Discard)
			if err == nil || errors.Is(err, ErrTruthLog) != tc.truthLog || !strings.HasPrefix(err.Error(), tc.prefix) {
				t.Errorf("Serve: %v; want an error starting %q, ErrTruthLog %v", err, tc.prefix, tc.truthLog)
			}
		})
	}
}

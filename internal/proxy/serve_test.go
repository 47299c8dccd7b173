package proxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

func TestSettingsConfig(t *testing.T) {
	t.Parallel()
	ok := Settings{Upstream: "http://127.0.0.1:1", Listen: "127.0.0.1:0", PartSize: "4096", Route: RouteAuto}
	with := func(f func(*Settings)) Settings { s := ok; f(&s); return s }
	tests := []struct {
		name string
		s    Settings
		want Config // when err is ""
		err  string
	}{
		{"defaults", ok, Config{Upstream: "http://127.0.0.1:1", Route: RouteAuto, PartSize: eventstream.PartSize{N: 4096}, Header: http.Header{}}, ""},
		{"random parts, seed, headers", with(func(s *Settings) {
			s.PartSize, s.Seed, s.Headers = "random", 7, []string{"Authorization: Bearer x", " X-A :b:c "}
		}), Config{Upstream: "http://127.0.0.1:1", Route: RouteAuto, PartSize: eventstream.PartSize{Random: true}, Seed: 7,
			Header: http.Header{"Authorization": {"Bearer x"}, "X-A": {"b:c"}}}, ""},
		{"remote allowed", with(func(s *Settings) { s.Listen, s.AllowRemote = "0.0.0.0:0", true }),
			Config{Upstream: "http://127.0.0.1:1", Route: RouteAuto, PartSize: eventstream.PartSize{N: 4096}, Header: http.Header{}}, ""},
		{"no upstream", with(func(s *Settings) { s.Upstream, s.Headers = "", []string{"bad"} }), Config{}, "--upstream is required"},
		{"bad part size", with(func(s *Settings) { s.PartSize = "0" }), Config{}, "part size"},
		{"remote listen", with(func(s *Settings) { s.Listen = "10.0.0.1:80" }), Config{}, "not loopback"},
		{"bad header before a bad URL", with(func(s *Settings) { s.Upstream, s.Headers = "localhost:8000", []string{"a=b"} }), Config{}, "header item"},
		{"bad URL", with(func(s *Settings) { s.Upstream = "localhost:8000" }), Config{}, "want an http:// or https://"},
		{"bad route", with(func(s *Settings) { s.Route = "invocations" }), Config{}, "want \"auto\" or a path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Config()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Config() = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	var he *HeaderError
	bad := with(func(s *Settings) { s.Headers = []string{"Authorization=sk-1"} })
	if _, err := bad.Config(); !errors.As(err, &he) || he.Item != "Authorization=sk-1" {
		t.Errorf("error %v, want a HeaderError naming the item", err)
	}
}

// TestServe: Serve says where it serves (the upstream's password
// hidden), proxies, and stops when its context ends.
func TestServe(t *testing.T) {
	t.Parallel()
	up := simtest.Start(t, simtest.Fixed(time.Millisecond, 100*time.Microsecond))
	cfg := Config{Upstream: strings.Replace(up.URL, "http://", "http://u:s3cret@", 1), Route: RouteAuto, PartSize: eventstream.PartSize{N: 7}}
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { err := Serve(ctx, cfg, "127.0.0.1:0", pw); pw.Close(); done <- err }()
	out := bufio.NewReader(pr)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := strings.Fields(line)[5]
	if want := " -> http://u:xxxxx@" + strings.TrimPrefix(up.URL, "http://") + " (part size 7)\n"; !strings.HasSuffix(line, want) {
		t.Errorf("line %q, want it to end %q", line, want)
	}
	resp, err := http.Post(url+"/endpoints/ep/invocations", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":2}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	cancel()
	rest, _ := io.ReadAll(out)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if string(rest) != "llmbench proxy: stopped\n" {
		t.Errorf("after the banner %q, want the stop line", rest)
	}
	if err := Serve(t.Context(), cfg, "127.0.0.1:-1", io.Discard); err == nil || !strings.HasPrefix(err.Error(), "proxy: ") {
		t.Errorf("Serve on a bad address: %v", err)
	}
}

package simtest_test

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/sim/simtest"
)

func TestConfigOptions(t *testing.T) {
	fast, err := sim.LookupPreset("fast")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts []simtest.Option
		want func(*sim.Config)
	}{
		{"none", nil, func(*sim.Config) {}},
		{"fixed", []simtest.Option{simtest.Fixed(time.Millisecond, 200*time.Microsecond)},
			func(c *sim.Config) { c.Mode, c.TTFT, c.ITL = sim.ModeFixed, time.Millisecond, 200*time.Microsecond }},
		{"keep truth", []simtest.Option{simtest.KeepTruth()}, func(c *sim.Config) { c.KeepTruth = true }},
		{"preset", []simtest.Option{simtest.Preset("fast")}, func(c *sim.Config) { *c = c.WithPreset(fast) }},
		{"nil mod", []simtest.Option{simtest.With(nil)}, func(*sim.Config) {}},
		{"in order", []simtest.Option{simtest.With(func(c *sim.Config) { c.Seed = 1 }), simtest.With(func(c *sim.Config) { c.Seed = 2 })},
			func(c *sim.Config) { c.Seed = 2 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := sim.DefaultConfig()
			tt.want(&want)
			got := simtest.Config(t, tt.opts...)
			if got.Mode != want.Mode || got.TTFT != want.TTFT || got.ITL != want.ITL || got.KeepTruth != want.KeepTruth ||
				got.Seed != want.Seed || got.Batching != want.Batching || got.MaxModelLen != want.MaxModelLen {
				t.Errorf("config = %+v, want %+v", got, want)
			}
		})
	}
}

// TestStartLoopbackUntilCleanup: the simulator answers on 127.0.0.1 during
// the test and is gone once the test's cleanups have run.
func TestStartLoopbackUntilCleanup(t *testing.T) {
	var url string
	t.Run("serve", func(t *testing.T) {
		run := simtest.Start(t, simtest.Fixed(time.Millisecond, time.Millisecond))
		if host, _, _ := net.SplitHostPort(run.Addr); host != "127.0.0.1" {
			t.Errorf("listening on %s, want 127.0.0.1", run.Addr)
		}
		resp, err := http.Get(run.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("/health: %s", resp.Status)
		}
		url = run.URL
	})
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 2 * time.Second}
	if resp, err := c.Get(url + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("%s still answers after the test ended", url)
	}
}

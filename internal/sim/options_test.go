package sim

import (
	"strings"
	"testing"
	"time"
)

// TestOptionsResolve: the preset, then only the figures given over it;
// each bad setting is refused in words that name it.
func TestOptionsResolve(t *testing.T) {
	t.Parallel()
	seqs, step := 3, 7*time.Millisecond
	o := Options{Preset: DefaultPreset, PartSize: "7", Addrs: Addrs{Listen: "127.0.0.1:0"},
		Overrides: Overrides{MaxNumSeqs: &seqs, DecodeBase: &step}}
	cfg, err := o.Resolve(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := LookupPreset(DefaultPreset)
	want := DefaultConfig().WithPreset(p).Batching
	want.MaxNumSeqs, want.DecodeBase = 3, step
	if cfg.Batching != want || cfg.PartSize.String() != "7" {
		t.Errorf("resolved batching %+v part size %v, want %+v and 7", cfg.Batching, cfg.PartSize, want)
	}
	zero := 0
	for _, tt := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Preset = "nope" }, `unknown preset "nope"`},
		{func(o *Options) { o.PartSize = "0" }, "part size"},
		{func(o *Options) { o.Overrides.MaxNumSeqs = &zero }, "must be positive"},
		{func(o *Options) { o.Addrs.Listen = "0.0.0.0:0" }, "not loopback; pass --allow-remote"},
		{func(o *Options) { o.Addrs.Metrics = "0.0.0.0:9465" }, "--metrics-addr: listen address"},
		{func(o *Options) { o.Addrs.DCGM = "nohost" }, "--dcgm-addr: listen address"},
	} {
		bad := Options{Preset: DefaultPreset, PartSize: "4096", Addrs: Addrs{Listen: "127.0.0.1:0"}}
		tt.change(&bad)
		if _, err := bad.Resolve(DefaultConfig()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", bad, err, tt.want)
		}
	}
	o.AllowRemote, o.Addrs.Listen = true, "0.0.0.0:0"
	if _, err := o.Resolve(DefaultConfig()); err != nil {
		t.Errorf("--allow-remote: %v", err)
	}
}

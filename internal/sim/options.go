package sim

import (
	"fmt"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// Options are what `llmbench sim` sets around a Config: the preset and
// the batching figures given apart from it, the SageMaker part size and
// where it serves.
type Options struct {
	// Preset names the batching preset (LookupPreset).
	Preset string
	// Overrides replace the preset's figures; nil fields keep them.
	Overrides Overrides
	// PartSize is the SageMaker PayloadPart size, as ParsePartSize reads it.
	PartSize string
	// Addrs are the listen addresses; AllowRemote lets them be
	// non-loopback (CheckListenAddr).
	Addrs       Addrs
	AllowRemote bool
}

// Overrides are batching figures given apart from the preset.
type Overrides struct {
	MaxNumSeqs, MaxNumBatchedTokens, KVCacheTokens, MaxModelLen *int
	PrefillTokensPerSec                                         *float64
	DecodeBase, DecodePerSeq, DecodePerKVToken                  *time.Duration
}

// apply sets the given figures in cfg.
func (o *Overrides) apply(cfg *Config) {
	b := &cfg.Batching
	set(&b.MaxNumSeqs, o.MaxNumSeqs)
	set(&b.MaxNumBatchedTokens, o.MaxNumBatchedTokens)
	set(&b.KVCacheTokens, o.KVCacheTokens)
	set(&cfg.MaxModelLen, o.MaxModelLen)
	set(&b.PrefillTokensPerSec, o.PrefillTokensPerSec)
	set(&b.DecodeBase, o.DecodeBase)
	set(&b.DecodePerSeq, o.DecodePerSeq)
	set(&b.DecodePerKVToken, o.DecodePerKVToken)
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Resolve applies o to cfg — the preset, then the overrides, then the
// part size — checks the result (Validate) and the listen addresses, and
// returns it. Every error is one of the settings given.
func (o *Options) Resolve(cfg Config) (Config, error) {
	p, err := LookupPreset(o.Preset)
	if err != nil {
		return cfg, err
	}
	cfg = cfg.WithPreset(p)
	o.Overrides.apply(&cfg)
	if cfg.PartSize, err = eventstream.ParsePartSize(o.PartSize); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if err := CheckListenAddr(o.Addrs.Listen, o.AllowRemote); err != nil {
		return cfg, err
	}
	for _, a := range []struct{ flag, addr string }{{"--metrics-addr", o.Addrs.Metrics}, {"--dcgm-addr", o.Addrs.DCGM}} {
		if a.addr == "" {
			continue
		}
		if err := CheckListenAddr(a.addr, o.AllowRemote); err != nil {
			return cfg, fmt.Errorf("%s: %v", a.flag, err)
		}
	}
	return cfg, nil
}

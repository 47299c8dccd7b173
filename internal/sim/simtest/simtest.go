// Package simtest starts the simulator for other packages' tests: on a free
// 127.0.0.1 port, stopped when the test ends. It is the one place tests
// start a simulator in-process (the simulator's own tests cannot import it:
// simtest imports sim).
package simtest

import (
	"context"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/sim"
)

// Option changes the simulator's config before it starts.
type Option func(*sim.Config) error

// Fixed selects fixed timing: every request gets ttft then itl per token,
// whatever the load — fast and repeatable.
func Fixed(ttft, itl time.Duration) Option {
	return func(c *sim.Config) error {
		c.Mode, c.TTFT, c.ITL = sim.ModeFixed, ttft, itl
		return nil
	}
}

// KeepTruth keeps each request's ground truth in memory (Server.Truth).
func KeepTruth() Option {
	return func(c *sim.Config) error {
		c.KeepTruth = true
		return nil
	}
}

// Preset applies a named preset (sim.Presets), as `llmbench sim --preset`.
func Preset(name string) Option {
	return func(c *sim.Config) error {
		p, err := sim.LookupPreset(name)
		if err != nil {
			return err
		}
		*c = c.WithPreset(p)
		return nil
	}
}

// With applies mod (nil is allowed: no change).
func With(mod func(*sim.Config)) Option {
	return func(c *sim.Config) error {
		if mod != nil {
			mod(c)
		}
		return nil
	}
}

// Config is sim.DefaultConfig with opts applied in order.
func Config(t testing.TB, opts ...Option) sim.Config {
	t.Helper()
	cfg := sim.DefaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// Start serves Config(t, opts...) on a free loopback port until the test
// ends; a failure to stop cleanly (the truth log not flushed) fails the test.
func Start(t testing.TB, opts ...Option) *sim.Running {
	t.Helper()
	return Serve(t, Config(t, opts...))
}

// Serve serves cfg on a free loopback port until the test ends.
func Serve(t testing.TB, cfg sim.Config) *sim.Running {
	t.Helper()
	run, err := sim.Start(context.Background(), cfg, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := run.Stop(ctx); err != nil {
			t.Errorf("simulator stop: %v", err)
		}
	})
	return run
}

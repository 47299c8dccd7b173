package servermetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Options are what --server-metrics and its companions ask of a timed run
// or a sweep step, as given (docs/server-metrics.md).
type Options struct {
	// Spec is "auto" (the base URL's origin + /metrics) or
	// URL[,URL...] (ResolveURLs); "" = no scrape.
	Spec     string
	Interval time.Duration
	Extra    []string // further families to keep (--server-metric)
	// ResetPrefixCache POSTs the server's /reset_prefix_cache before the
	// timed run (--reset-prefix-cache).
	ResetPrefixCache bool
}

// Check validates o for a run against base, without network: sageMaker
// says the endpoint is a SageMaker one, which exposes neither /metrics nor
// /reset_prefix_cache (its figures come from CloudWatch). Errors name the
// flags.
func (o Options) Check(sageMaker bool, base string) error {
	if sageMaker {
		if o.Spec != "" {
			return errors.New("--server-metrics reads a server's /metrics, which a SageMaker endpoint does not expose: its figures come from CloudWatch (leave --server-metrics out)")
		}
		if o.ResetPrefixCache {
			return errors.New("--reset-prefix-cache needs the server's /reset_prefix_cache, which a SageMaker endpoint does not expose (leave it out)")
		}
		return nil
	}
	if o.Interval <= 0 {
		return fmt.Errorf("--server-metrics-interval must be positive (got %v)", o.Interval)
	}
	if o.Spec != "" {
		_, err := ResolveURLs(o.Spec, base)
		return err
	}
	return nil
}

// Start starts the window of one timed run against base (the run's base
// URL); nil when o asks for nothing. insecure and worker are
// WindowConfig's; errw gets the warnings, among them a Spec that does not
// resolve (the caller checks it before the run).
func (o Options) Start(ctx context.Context, base string, insecure, worker bool, errw io.Writer) *Window {
	if o.Spec == "" && !o.ResetPrefixCache {
		return nil
	}
	cfg := WindowConfig{Interval: o.Interval, Extra: o.Extra, Insecure: insecure, Worker: worker, Errw: errw}
	if o.ResetPrefixCache {
		cfg.ResetBase = base
	}
	if o.Spec != "" {
		urls, err := ResolveURLs(o.Spec, base)
		if err != nil {
			fmt.Fprintln(errw, "Warning:", err)
		}
		cfg.URLs = urls
	}
	return StartWindow(ctx, cfg)
}

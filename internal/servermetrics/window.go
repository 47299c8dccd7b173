package servermetrics

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/llmbench/llmbench/internal/record"
	redactpkg "github.com/llmbench/llmbench/internal/redact"
)

// WindowConfig is what one timed run (or sweep step) asks of the server:
// --server-metrics' scrapes and --reset-prefix-cache.
type WindowConfig struct {
	// URLs are the /metrics to scrape (ResolveURLs); none = no scrape.
	URLs     []string
	Interval time.Duration
	Extra    []string // further families to keep (--server-metric)
	// ResetBase is the base URL whose origin's /reset_prefix_cache is
	// POSTed before the timed run; "" = no reset.
	ResetBase string
	// Insecure skips TLS verification, as --insecure does for requests.
	Insecure bool
	// Worker: one worker of a distributed run, which sends a share of the
	// server's load, so its counts are not the server's: no cross-check.
	Worker bool
	// Errw receives the warnings (a failed scrape, a failed reset).
	Errw io.Writer
}

// Window is one timed run's (or sweep step's) view of the server: the
// collector while it runs, then its Result and the cross-check's notes.
// A nil *Window is "not asked for": every method is a no-op.
type Window struct {
	c      *Collector
	reset  func(context.Context) error // nil = off
	errw   io.Writer
	worker bool

	once  sync.Once
	res   *Result
	notes []string
}

// StartWindow starts collecting. Scrapes go on their own goroutines and
// connections (Start): nothing here waits for the server until
// BeforeStart.
func StartWindow(ctx context.Context, cfg WindowConfig) *Window {
	w := &Window{errw: cfg.Errw, worker: cfg.Worker}
	if cfg.ResetBase != "" {
		base, insecure := cfg.ResetBase, cfg.Insecure
		w.reset = func(ctx context.Context) error { return ResetPrefixCache(ctx, base, insecure) }
	}
	if len(cfg.URLs) > 0 {
		c := Config{URLs: cfg.URLs, Interval: cfg.Interval, Extra: cfg.Extra,
			OnWarning: func(s string) { fmt.Fprintln(cfg.Errw, "Warning: "+s) }}
		if cfg.Insecure {
			c.Client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
				TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 2}}
		}
		w.c = Start(ctx, c)
	}
	return w
}

// BeforeStart is bench.Hooks.BeforeStart: after the warm-ups, reset the
// prefix cache (so the warm-ups' prompts are not served from it either)
// and mark the metrics window's start. Both wait for the server, at most
// a bounded time, before the run's clock starts.
func (w *Window) BeforeStart(ctx context.Context) func() {
	if w == nil {
		return nil
	}
	return func() {
		if w.reset != nil {
			if err := w.reset(ctx); err != nil {
				fmt.Fprintln(w.errw, "Warning: --reset-prefix-cache:", err)
			}
		}
		if w.c != nil {
			w.c.Mark()
		}
	}
}

// Stop ends the window (one last scrape, bounded) and keeps the Result;
// later calls do nothing. Call it right after the timed run.
func (w *Window) Stop() {
	if w == nil || w.c == nil {
		return
	}
	w.once.Do(func() {
		res := w.c.Stop()
		w.res = &res
	})
}

// CrossCheck compares the server's view with what the client measured
// over the same window (Result.CrossCheck): recs are the run's records,
// start the instant their clock counts from, outputTokens the client's
// total. A worker sends only its share of the server's load, so it
// checks nothing.
func (w *Window) CrossCheck(recs []record.Record, start time.Time, outputTokens int) {
	if w == nil || w.res == nil || w.worker {
		return
	}
	at := w.res.RunningSampleTimes()
	offset := w.res.Start.Sub(start).Seconds()
	w.notes = w.res.CrossCheck(Client{OutputTokens: outputTokens, MeanInFlight: inFlightAt(recs, at, offset)})
}

// inFlightAt is the client's mean count of requests in flight at the
// instants the server's running gauge was sampled (at, seconds after the
// metrics window's start; offset is that start on the records' clock), so
// that both sides average the same moments. A request is in flight from
// its send to its last token (vLLM's latency); failures, which hold a
// slot for no measured time, count nothing. 0 (not checked) without
// samples.
func inFlightAt(recs []record.Record, at []float64, offset float64) float64 {
	if len(at) == 0 {
		return 0
	}
	n := 0
	for _, t := range at {
		t += offset
		for i := range recs {
			r := &recs[i]
			if r.Success && r.StartTime <= t && t < r.StartTime+r.Latency {
				n++
			}
		}
	}
	return float64(n) / float64(len(at))
}

// Result is what the window read; nil when nothing was (not asked for,
// or not stopped yet).
func (w *Window) Result() *Result {
	if w == nil {
		return nil
	}
	return w.res
}

// CrossCheckNotes are the cross-check's disagreements (empty, not nil,
// when it agrees); nil when there was nothing to check: no Result, or a
// worker.
func (w *Window) CrossCheckNotes() []string {
	if w == nil || w.res == nil || w.worker {
		return nil
	}
	if w.notes == nil {
		return []string{}
	}
	return w.notes
}

// WriteCheck prints the server's part of the self-check: its agreement
// with the client, or each disagreement.
func (w *Window) WriteCheck(out io.Writer) {
	notes := w.CrossCheckNotes()
	if notes == nil {
		return
	}
	if len(notes) == 0 {
		line := "Self-check, server view: agrees with the client"
		if v := w.res.Summary.GenerationTokensVsClient; v != nil {
			line += fmt.Sprintf(" (generation tokens %.2fx the client's output tokens)", *v)
		}
		fmt.Fprintln(out, line)
		return
	}
	for _, n := range notes {
		fmt.Fprintln(out, "Self-check, server view:", n)
	}
}

// Summary is the Result's summary for a sweep row; nil when not read.
func (w *Window) Summary() *Summary {
	if w == nil || w.res == nil {
		return nil
	}
	s := w.res.Summary
	return &s
}

// resetTimeout bounds the POST of --reset-prefix-cache.
const resetTimeout = 10 * time.Second

// ResetPrefixCache POSTs /reset_prefix_cache at base's origin (vLLM
// serves it when started with VLLM_SERVER_DEV_MODE=1; llmbench sim
// always). Behind a load balancer only the replica that gets the POST is
// reset; give each replica's --base-url to reset them all.
func ResetPrefixCache(ctx context.Context, base string, insecure bool) error {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return errors.New("the base URL has no origin")
	}
	target := u.Scheme + "://" + u.Host + "/reset_prefix_cache"
	ctx, cancel := context.WithTimeout(ctx, resetTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, nil)
	if err != nil {
		return err
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment}
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("POST %s: %v", redactpkg.URL(target), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: HTTP %d (vLLM serves it only when started with VLLM_SERVER_DEV_MODE=1)", redactpkg.URL(target), resp.StatusCode)
	}
	return nil
}

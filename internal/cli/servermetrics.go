package cli

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

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/servermetrics"
)

// serverMetricsFlags are --server-metrics and its companions (ours,
// docs/server-metrics.md), on run, demo, sweep and their workers.
type serverMetricsFlags struct {
	spec             string
	interval         time.Duration
	names            []string
	resetPrefixCache bool
}

// bindServerMetricsFlags declares the server-metrics flags.
func bindServerMetricsFlags(fs *pflag.FlagSet, f *serverMetricsFlags) {
	fs.StringVar(&f.spec, "server-metrics", "", "also read the server's Prometheus metrics during the timed run: auto (the --base-url origin + /metrics) or URL[,URL...], one per replica, plus a DCGM exporter's (ours; docs/server-metrics.md)")
	fs.DurationVar(&f.interval, "server-metrics-interval", servermetrics.DefaultInterval, "time between --server-metrics scrapes (each bounded by it)")
	fs.StringArrayVar(&f.names, "server-metric", nil, "with --server-metrics: also keep this metric family, as the server names it (repeatable)")
	fs.BoolVar(&f.resetPrefixCache, "reset-prefix-cache", false, "POST the server's /reset_prefix_cache (vLLM) before the timed run and before each sweep step, so no step is served from an earlier one's prefix cache (ours)")
}

// checkServerMetrics validates the server-metrics flags (no network).
func (o *runOptions) checkServerMetrics(cmd *cobra.Command) error {
	f := &o.f.srv
	if f.spec == "" {
		for _, name := range []string{"server-metric", "server-metrics-interval"} {
			if cmd.Flags().Changed(name) {
				return usageErrorf("--%s needs --server-metrics", name)
			}
		}
	}
	if o.f.backend == "sagemaker" {
		if f.spec != "" {
			return usageErrorf("--server-metrics reads a server's /metrics, which a SageMaker endpoint does not expose: its figures come from CloudWatch (leave --server-metrics out)")
		}
		if f.resetPrefixCache {
			return usageErrorf("--reset-prefix-cache needs the server's /reset_prefix_cache, which a SageMaker endpoint does not expose (leave it out)")
		}
		return nil
	}
	if f.interval <= 0 {
		return usageErrorf("--server-metrics-interval must be positive (got %v)", f.interval)
	}
	if f.spec != "" {
		if _, err := servermetrics.ResolveURLs(f.spec, o.baseURL()); err != nil {
			return &UsageError{Err: err}
		}
	}
	return nil
}

// serverRun is one timed run's (or sweep step's) view of the server:
// the collector while it runs, then its Result and the cross-check's
// notes. A nil *serverRun is "not asked for": every method is a no-op.
type serverRun struct {
	c     *servermetrics.Collector
	reset func(context.Context) error // --reset-prefix-cache; nil = off
	errw  io.Writer
	// worker: one worker of a distributed run, which sends a share of
	// the server's load, so its counts are not the server's.
	worker bool

	once  sync.Once
	res   *servermetrics.Result
	notes []string
}

// startServer starts collecting when --server-metrics or
// --reset-prefix-cache asks for it; nil otherwise. Scrapes go on their
// own goroutines and connections (servermetrics.Start): nothing here
// waits for the server until BeforeStart.
func (o *runOptions) startServer(ctx context.Context, errw io.Writer) *serverRun {
	f := &o.f.srv
	if f.spec == "" && !f.resetPrefixCache {
		return nil
	}
	sr := &serverRun{errw: errw, worker: o.w.info != nil}
	if f.resetPrefixCache {
		base, insecure := o.baseURL(), o.f.insecure
		sr.reset = func(ctx context.Context) error { return resetPrefixCache(ctx, base, insecure) }
	}
	if f.spec != "" {
		urls, err := servermetrics.ResolveURLs(f.spec, o.baseURL())
		if err != nil { // checked in validate; kept for safety
			fmt.Fprintln(errw, "Warning:", err)
			return sr
		}
		cfg := servermetrics.Config{URLs: urls, Interval: f.interval, Extra: f.names,
			OnWarning: func(w string) { fmt.Fprintln(errw, "Warning: "+w) }}
		if o.f.insecure {
			cfg.Client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
				TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, MaxIdleConnsPerHost: 2}}
		}
		sr.c = servermetrics.Start(ctx, cfg)
	}
	return sr
}

// beforeStart is bench.Hooks.BeforeStart: after the warm-ups, reset the
// prefix cache (so the warm-ups' prompts are not served from it either)
// and mark the metrics window's start. Both wait for the server, at most
// a bounded time, before the run's clock starts.
func (sr *serverRun) beforeStart(ctx context.Context) func() {
	if sr == nil {
		return nil
	}
	return func() {
		if sr.reset != nil {
			if err := sr.reset(ctx); err != nil {
				fmt.Fprintln(sr.errw, "Warning: --reset-prefix-cache:", err)
			}
		}
		if sr.c != nil {
			sr.c.Mark()
		}
	}
}

// stop ends the window (one last scrape, bounded) and keeps the Result;
// later calls do nothing. Call it right after the timed run.
func (sr *serverRun) stop() {
	if sr == nil || sr.c == nil {
		return
	}
	sr.once.Do(func() {
		res := sr.c.Stop()
		sr.res = &res
	})
}

// crossCheck compares the server's view with what the client measured
// over the same window (servermetrics.Result.CrossCheck). A worker sends
// only its share of the server's load, so it checks nothing.
func (sr *serverRun) crossCheck(outcome *bench.Outcome, sum *metrics.Summary) {
	if sr == nil || sr.res == nil || sr.worker {
		return
	}
	at := sr.res.RunningSampleTimes()
	offset := sr.res.Start.Sub(outcome.Start).Seconds()
	sr.notes = sr.res.CrossCheck(servermetrics.Client{OutputTokens: sum.TotalOutput,
		MeanInFlight: inFlightAt(outcome.Records, at, offset)})
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

// writeSection prints the Server Specifics section under the table.
func (sr *serverRun) writeSection(w io.Writer) error {
	if sr == nil || sr.res == nil {
		return nil
	}
	return report.WriteServerSpecifics(w, sr.res)
}

// writeCheck prints the server's part of the self-check: its
// agreement with the client, or each disagreement.
func (sr *serverRun) writeCheck(w io.Writer) {
	if sr == nil || sr.res == nil || sr.worker {
		return
	}
	if len(sr.notes) == 0 {
		line := "Self-check, server view: agrees with the client"
		if v := sr.res.Summary.GenerationTokensVsClient; v != nil {
			line += fmt.Sprintf(" (generation tokens %.2fx the client's output tokens)", *v)
		}
		fmt.Fprintln(w, line)
		return
	}
	for _, n := range sr.notes {
		fmt.Fprintln(w, "Self-check, server view:", n)
	}
}

// serverMetricsKey is where the Result goes in the result file: the
// llmbench object's server_metrics (see setExtra).
const serverMetricsKey = report.ExtrasKey + "/server_metrics"

// addExtras puts the Result in the result's extras and the cross-check's
// notes in its self_check object.
func (sr *serverRun) addExtras(extra map[string]any) {
	if sr == nil || sr.res == nil {
		return
	}
	extra[serverMetricsKey] = sr.res
	if sc, ok := extra[selfCheckKey].(*report.Object); ok && !sr.worker {
		notes := sr.notes
		if notes == nil {
			notes = []string{}
		}
		sc.Set("server_cross_check", notes)
	}
}

// toRecords adds the Result to the records file's closing line, so that
// llmbench report draws the server's samples from the records alone.
func (sr *serverRun) toRecords(rec *recordsOut) {
	if sr == nil || sr.res == nil || rec == nil || !rec.Open() {
		return
	}
	if err := rec.SetEndExtra("server_metrics", sr.res); err != nil {
		fmt.Fprintln(sr.errw, "Warning:", err)
	}
}

// resetTimeout bounds the POST of --reset-prefix-cache.
const resetTimeout = 10 * time.Second

// resetPrefixCache POSTs /reset_prefix_cache at base's origin (vLLM
// serves it when started with VLLM_SERVER_DEV_MODE=1; llmbench sim
// always). Behind a load balancer only the replica that gets the POST is
// reset; give each replica's --base-url to reset them all.
func resetPrefixCache(ctx context.Context, base string, insecure bool) error {
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
		return fmt.Errorf("POST %s: %v", redactURL(target), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: HTTP %d (vLLM serves it only when started with VLLM_SERVER_DEV_MODE=1)", redactURL(target), resp.StatusCode)
	}
	return nil
}

// sharedPrefixes reports whether the dataset builds prompts on common
// prefixes, where prefix-cache hits are the point, not contamination.
func (o *runOptions) sharedPrefixes() bool {
	d := &o.f.ds
	switch d.Name {
	case dataset.PrefixRepetition, dataset.Sonnet:
		return true
	case dataset.Random:
		return d.RandomPrefixLen > 0
	}
	return false
}

// setResult puts the Result in a sweep step's result object.
func (sr *serverRun) setResult(obj *report.Object) {
	if sr == nil || sr.res == nil {
		return
	}
	setExtra(obj, serverMetricsKey, sr.res)
}

// summary is the Result's summary for a sweep row; nil when not read.
func (sr *serverRun) summary() *servermetrics.Summary {
	if sr == nil || sr.res == nil {
		return nil
	}
	s := sr.res.Summary
	return &s
}

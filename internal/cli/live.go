package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/record"
)

// metricsFlags are the live-metrics flags of run, demo and sweep.
type metricsFlags struct {
	addr        string
	linger      time.Duration
	pushgateway string
}

func bindMetricsFlags(fs *pflag.FlagSet, m *metricsFlags) {
	fs.StringVar(&m.addr, "metrics-addr", "", "serve live Prometheus metrics on this address during the run, e.g. 127.0.0.1:9464 (ours)")
	fs.DurationVar(&m.linger, "metrics-linger", 0, "keep --metrics-addr up this long after the run for a last scrape (ours)")
	fs.StringVar(&m.pushgateway, "pushgateway", "", "push the final metrics to this Prometheus Pushgateway URL (ours)")
}

// inFlightSample is how often the in-flight gauge is refreshed.
const inFlightSample = 250 * time.Millisecond

// liveMetrics feeds the Prometheus exporter from a run: records through
// each step's sink (on the step's collector goroutine), the in-flight
// count from a sampler.
type liveMetrics struct {
	exp      *promexport.Exporter
	stop     func(time.Duration) error
	f        metricsFlags
	inFlight atomic.Int64
	phase    atomic.Value // string
	done     chan struct{}
}

// startLive starts the exporter when --metrics-addr or --pushgateway asks
// for it; nil otherwise.
func startLive(ctx context.Context, f metricsFlags, plan *bench.Plan, out io.Writer) (*liveMetrics, error) {
	if f.addr == "" && f.pushgateway == "" {
		return nil, nil
	}
	cfg := promexport.Config{RunID: strings.Trim(plan.IDPrefix, "-"), Backend: plan.Params.Backend,
		Model: plan.Params.ModelID, Goodput: plan.Params.Goodput, ProcessMetrics: true}
	if plan.Tokenizer != nil {
		cfg.CountTokens = plan.Tokenizer.CountTokens
	}
	l := &liveMetrics{exp: promexport.New(cfg), f: f, done: make(chan struct{})}
	l.phase.Store(promexport.PhaseMain)
	if f.addr != "" {
		addr, stop, err := l.exp.Serve(ctx, f.addr)
		if err != nil {
			return nil, usageErrorf("--metrics-addr %s: %v", f.addr, err)
		}
		l.stop = stop
		fmt.Fprintf(out, "Live metrics on http://%s/metrics\n", addr)
	}
	go l.sample()
	return l, nil
}

func (l *liveMetrics) sample() {
	t := time.NewTicker(inFlightSample)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
			l.exp.SetInFlight(l.phase.Load().(string), int(l.inFlight.Load()))
		}
	}
}

// startPhase labels what follows (main, or a sweep step) and sets its
// target rate and concurrency gauges.
func (l *liveMetrics) startPhase(name string, p *bench.Plan) {
	if l == nil {
		return
	}
	l.phase.Store(name)
	rate, conc := p.Load.Arrivals.Rate, p.Load.MaxConcurrency
	if u := p.Load.Users; u != nil {
		rate, conc = math.Inf(1), u.Users
	}
	l.exp.SetTargetRate(name, rate)
	l.exp.SetConcurrency(name, conc)
}

// sink is the exporter as the current phase's bench.Sink (nil when
// there is no exporter): each record is observed under the phase, and
// the self-check's values are set at the end.
func (l *liveMetrics) sink() bench.Sink {
	if l == nil {
		return nil
	}
	return &liveSink{exp: l.exp, phase: l.phase.Load().(string)}
}

// counter is the count of requests in flight the sampler reads, for
// bench.Hooks.InFlight (nil when there is no exporter).
func (l *liveMetrics) counter() *atomic.Int64 {
	if l == nil {
		return nil
	}
	return &l.inFlight
}

// liveSink feeds one step's records and self-check to the exporter.
type liveSink struct {
	exp   *promexport.Exporter
	phase string
}

// Begin does nothing: the phase's gauges are set by startPhase.
func (s *liveSink) Begin(time.Time, record.Header) error { return nil }

// Record observes one finished request under the phase.
func (s *liveSink) Record(r *record.Record) { s.exp.Observe(s.phase, r) }

// End sets the self-check gauges from the step's outcome.
func (s *liveSink) End(o *bench.Outcome) {
	if o != nil {
		s.exp.SetSelfCheck(o.SelfCheck.Values(), string(o.Verdict.Verdict))
	}
}

// finish pushes the final values and keeps the endpoint up for
// --metrics-linger; failures are warnings (the run's result stands).
func (l *liveMetrics) finish(ctx context.Context, errw io.Writer) {
	if l == nil {
		return
	}
	close(l.done)
	l.exp.SetInFlight(l.phase.Load().(string), 0)
	if l.f.pushgateway != "" {
		if err := l.exp.Push(ctx, l.f.pushgateway, "llmbench"); err != nil {
			fmt.Fprintln(errw, "Warning: --pushgateway:", err)
		}
	}
	if l.stop != nil {
		if err := l.stop(l.f.linger); err != nil {
			fmt.Fprintln(errw, "Warning: --metrics-addr:", err)
		}
	}
}

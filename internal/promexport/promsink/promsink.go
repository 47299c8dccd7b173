// Package promsink feeds the live Prometheus exporter (promexport) from
// a run: each step's records and self-check through a bench.Sink, the
// in-flight count from a sampler, the target gauges per phase. It sits
// beside promexport so that promexport itself stays free of bench.
package promsink

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/record"
)

// Config is what --metrics-addr, --metrics-linger and --pushgateway ask.
type Config struct {
	Addr        string        // serve /metrics here during the run
	Linger      time.Duration // keep Addr up this long after the run
	Pushgateway string        // push the final values here
}

// InFlightSample is how often the in-flight gauge is refreshed.
const InFlightSample = 250 * time.Millisecond

// Live is the exporter of one run. A nil *Live (no exporter asked for)
// does nothing.
type Live struct {
	exp      *promexport.Exporter
	stop     func(time.Duration) error
	cfg      Config
	inFlight atomic.Int64
	phase    atomic.Value // string
	done     chan struct{}
}

// New makes the exporter for plan, labelled with its run id, backend
// and model; Start serves it and starts the in-flight sampler.
func New(cfg Config, plan *bench.Plan) *Live {
	pc := promexport.Config{RunID: strings.Trim(plan.IDPrefix, "-"), Backend: plan.Params.Backend,
		Model: plan.Params.ModelID, Goodput: plan.Params.Goodput, ProcessMetrics: true}
	if plan.Tokenizer != nil {
		pc.CountTokens = plan.Tokenizer.CountTokens
	}
	l := From(promexport.New(pc))
	l.cfg = cfg
	return l
}

// Run starts the exporter of plan that cfg asks for (--metrics-addr or
// --pushgateway) and says on out where it serves /metrics; nil, a Live
// that does nothing, when cfg asks for none. Its error names
// --metrics-addr: the address cannot be listened on.
func Run(ctx context.Context, cfg Config, plan *bench.Plan, out io.Writer) (*Live, error) {
	if cfg.Addr == "" && cfg.Pushgateway == "" {
		return nil, nil
	}
	l := New(cfg, plan)
	addr, err := l.Start(ctx)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %v", cfg.Addr, err)
	}
	if addr != "" {
		fmt.Fprintf(out, "Live metrics on http://%s/metrics\n", addr)
	}
	return l, nil
}

// From wraps an exporter without serving it or sampling (tests).
func From(exp *promexport.Exporter) *Live {
	l := &Live{exp: exp, done: make(chan struct{})}
	l.phase.Store(promexport.PhaseMain)
	return l
}

// Exporter is the exporter l feeds.
func (l *Live) Exporter() *promexport.Exporter { return l.exp }

// Start serves /metrics on Config.Addr (when set; addr is where it
// listens, "" when not served) and starts the in-flight sampler, which
// Finish stops.
func (l *Live) Start(ctx context.Context) (addr string, err error) {
	if l.cfg.Addr != "" {
		var stop func(time.Duration) error
		if addr, stop, err = l.exp.Serve(ctx, l.cfg.Addr); err != nil {
			return "", err
		}
		l.stop = stop
	}
	go l.sample()
	return addr, nil
}

func (l *Live) sample() {
	t := time.NewTicker(InFlightSample)
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

// StartPhase labels what follows (main, or a sweep step) and sets its
// target rate and concurrency gauges.
func (l *Live) StartPhase(name string, p *bench.Plan) {
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

// Sink is the exporter as the current phase's bench.Sink (nil when
// there is no exporter): each record is observed under the phase, and
// the self-check's values are set at the end.
func (l *Live) Sink() bench.Sink {
	if l == nil {
		return nil
	}
	return &sink{exp: l.exp, phase: l.phase.Load().(string)}
}

// Counter is the count of requests in flight the sampler reads, for
// bench.Hooks.InFlight (nil when there is no exporter).
func (l *Live) Counter() *atomic.Int64 {
	if l == nil {
		return nil
	}
	return &l.inFlight
}

// sink feeds one step's records and self-check to the exporter.
type sink struct {
	exp   *promexport.Exporter
	phase string
}

// Begin does nothing: the phase's gauges are set by StartPhase.
func (s *sink) Begin(time.Time, record.Header) error { return nil }

// Record observes one finished request under the phase.
func (s *sink) Record(r *record.Record) { s.exp.Observe(s.phase, r) }

// End sets the self-check gauges from the step's outcome.
func (s *sink) End(o *bench.Outcome) {
	if o != nil {
		s.exp.SetSelfCheck(o.SelfCheck.Values(), string(o.Verdict.Verdict))
	}
}

// Finish pushes the final values and keeps the endpoint up for
// Config.Linger; failures are warnings on errw (the run's result
// stands).
func (l *Live) Finish(ctx context.Context, errw io.Writer) {
	if l == nil {
		return
	}
	close(l.done)
	l.exp.SetInFlight(l.phase.Load().(string), 0)
	if l.cfg.Pushgateway != "" {
		if err := l.exp.Push(ctx, l.cfg.Pushgateway, "llmbench"); err != nil {
			fmt.Fprintln(errw, "Warning: --pushgateway:", err)
		}
	}
	if l.stop != nil {
		if err := l.stop(l.cfg.Linger); err != nil {
			fmt.Fprintln(errw, "Warning: --metrics-addr:", err)
		}
	}
}

// Package step runs one timed step the way llmbench run and each sweep
// step do (README.md, "Layout": one step): the server's view beside it, the
// step itself (bench.Execute) with one fan-out of its sinks — the records
// file, the live Prometheus exporter, the progress line — and, once the
// step is summarized, the close: the server's cross-check, its result in
// the records file's closing line, the closing line itself, and the
// step's steady_state.
//
// It takes typed values and refuses the rest: no flags, no exit codes,
// no console messages of its own. Where the files go and what a failed or
// interrupted step means to the command (run keeps an interrupted run,
// sweep leaves the step out) is the caller's.
package step

import (
	"context"
	"fmt"
	"io"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/progress"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
	"github.com/llmbench/llmbench/internal/servermetrics"
)

// Runner runs steps with the same companions: the same server view, live
// exporter, progress line and steady-state options for each. The zero
// value runs a bare step: no server view, no exporter, no progress line.
type Runner struct {
	// Server is what --server-metrics and --reset-prefix-cache ask of
	// each step (zero: nothing); Base is the run's base URL they resolve
	// against (servermetrics.Options.Start).
	Server servermetrics.Options
	Base   string
	// Insecure skips TLS verification for the server's view, as it does
	// for the requests.
	Insecure bool
	// Worker is set for one worker of a distributed run: its share of the
	// server's load is not the server's, so nothing is cross-checked.
	Worker bool
	// Live is the live Prometheus exporter (nil: none). The caller
	// starts it, names each step's phase and finishes it.
	Live *promsink.Live
	// TTY is the writer whose terminal-ness decides whether the progress
	// line is drawn (progress.New); NoProgress is --disable-tqdm.
	TTY        io.Writer
	NoProgress bool
	// Errw receives the progress line and the warnings: a failed scrape,
	// a records file that cannot be written. nil discards them.
	Errw io.Writer
	// OnEvent receives the step's one-line notes on its phases
	// (bench.Hooks.OnEvent); nil: none.
	OnEvent func(msg string)
	// SteadyState carries --no-steady-state, --steady-state-threshold and
	// --steady-state-min-window (bench.SteadyState).
	SteadyState metrics.SteadyStateOptions
}

// Step is a step that ran: its outcome and what saw it, waiting for the
// close (Close) once the caller has summarized it.
type Step struct {
	Plan    *bench.Plan
	Outcome *bench.Outcome
	// Server is the step's view of the server, stopped; nil when not
	// asked for (every servermetrics.Window method is then a no-op).
	Server *servermetrics.Window
	// Records is the step's records file, still open for its closing
	// line.
	Records *recfile.File

	steady metrics.SteadyStateOptions
	errw   io.Writer
}

// Run runs p: it starts the server's view, executes p with the records
// file rec (nil: none; its write failures are reported on Errw), the live
// exporter and a progress line as one bench.Sinks, and stops the view.
// An error is bench.Execute's (say, bench.ErrInterruptedEarly or an
// *bench.EndpointError), for the caller to word; rec is then closed
// without its closing line, and the file reads back as a step that did
// not finish. An interrupted step (Outcome.Interrupted) is no error.
func (r *Runner) Run(ctx context.Context, p *bench.Plan, rec *recfile.File) (*Step, error) {
	if rec == nil {
		rec = &recfile.File{}
	}
	errw := r.Errw
	if errw == nil {
		errw = io.Discard
	}
	rec.Errw = errw
	// nil unless --server-metrics or --reset-prefix-cache asks for it.
	sr := r.Server.Start(ctx, r.Base, r.Insecure, r.Worker, errw)
	bar := progress.New(r.TTY, errw, p.Expected(), r.NoProgress)
	outcome, err := bench.Execute(ctx, p, bench.Hooks{
		Sink:        bench.Sinks{rec, r.Live.Sink(), bar},
		OnEvent:     r.OnEvent,
		InFlight:    r.Live.Counter(),
		BeforeStart: sr.BeforeStart(ctx),
	})
	sr.Stop()
	if err != nil {
		rec.Close(nil)
		return nil, err
	}
	return &Step{Plan: p, Outcome: outcome, Server: sr, Records: rec, steady: r.SteadyState, errw: errw}, nil
}

// Close is the step's close once sum (bench.Summarize of the step, its
// params final) is known: the server's view is cross-checked against the
// client's records, its Result goes into the records file's closing line
// (so llmbench report draws the server's samples from the records
// alone), the file is closed with sum's params, and the step's
// steady_state is computed (bench.SteadyState: write is whether the
// result has the key at all, ss its object, nil for null). A failure to
// write the file is the file's (recfile.File.Failed), not Close's; err
// is the steady state's.
func (s *Step) Close(sum *bench.Summary) (write bool, ss *metrics.SteadyState, err error) {
	s.Server.CrossCheck(s.Outcome.Records, s.Outcome.Start, sum.Metrics.TotalOutput)
	s.serverToRecords()
	s.Records.Close(&sum.Params)
	return bench.SteadyState(s.Plan, s.Outcome, sum, s.steady)
}

// serverToRecords adds the server's Result to the records file's closing
// line, when both are there.
func (s *Step) serverToRecords() {
	res := s.Server.Result()
	if res == nil || !s.Records.Open() {
		return
	}
	if err := s.Records.SetEndExtra("server_metrics", res); err != nil {
		fmt.Fprintln(s.errw, "Warning:", err)
	}
}

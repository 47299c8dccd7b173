package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/stats"
)

// run --runs K|auto (docs/confidence.md, "Repeated runs"): the whole
// benchmark K times on one plan — the same prompts and the same seeded
// schedule — each run with its own records file, result and self-check,
// the warm-ups and the ready check only before the first (the server is
// warm after it). It is one load's runs without the ladder: the same
// Repeat decides when to stop, each run's figures are capacity.Figures
// as a step's, and stats.RunsByKey makes run_stats of them.

// Runner is what only the command can do for run k of run --runs: open
// its records file (RunFile), execute p with its sinks, summarize it and
// save its own result, saying where (saved; "" = not saved).
type Runner interface {
	RunOnce(ctx context.Context, p *bench.Plan, k int) (o *bench.Outcome, sum *bench.Summary, saved string, err error)
}

// Run is one run that ran.
type Run struct {
	Outcome *bench.Outcome
	Summary *bench.Summary
}

// Repeated is what run --runs measured.
type Repeated struct {
	// Runs are every run made, in order; the last may be interrupted.
	Runs []Run
	// Figures are the complete runs' figures (capacity.Figures): an
	// interrupted run's are partial, shown but not counted.
	Figures []map[string]float64
	// Convergence is --runs auto's record (nil for a fixed K).
	Convergence *stats.Convergence
}

// Run makes the runs of run --runs on p: K of them, or under auto
// until the deciding figures converge (at most MaxRuns); it stops early
// at an interrupted run, at a run where nothing succeeded, or when ctx
// ends. Progress lines go to errw.
func (r Repeat) Run(ctx context.Context, p *bench.Plan, deciding []string, runner Runner, errw io.Writer) (*Repeated, error) {
	res := &Repeated{}
	for k := 1; ; k++ {
		fmt.Fprintf(errw, "run %d of %s ...\n", k, r.of())
		p.TagIDs(fmt.Sprintf("run%d-", k)) // one plan, its ids the run's own
		o, sum, saved, err := runner.RunOnce(ctx, p, k)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, Run{Outcome: o, Summary: sum})
		if o.Interrupted {
			break // its figures are partial: shown, not counted
		}
		figs := capacity.Figures(sum.Metrics)
		res.Figures = append(res.Figures, figs)
		more, c := r.Next(res.Figures, deciding)
		if c != nil {
			res.Convergence = c
		}
		fmt.Fprintf(errw, "  %s%s\n", RunLine(o, sum, figs), ConvergenceNote(c, more))
		if saved != "" {
			fmt.Fprintf(errw, "  result saved to %s\n", saved)
		}
		if !more || sum.Metrics.Completed == 0 || ctx.Err() != nil {
			break // a run where nothing succeeded ends the repetition
		}
		p.NumWarmups, p.ReadyCheck = 0, 0 // warm from the first run
	}
	return res, nil
}

// Defaults of --ci-width and --max-runs (AIPerf's convergence rule:
// the interval's full width under 10 % of the mean).
const (
	DefaultCIWidth = 0.10
	DefaultMaxRuns = 10
)

// RunsValue is --runs as a command-line flag value (pflag.Value's
// String, Set and Type) that writes r's Runs and Auto: a whole number of
// runs K >= 1, or auto (ParseRuns). run and sweep bind it alike.
func (r *Repeat) RunsValue() *RunsValue { return &RunsValue{r: r} }

// RunsValue is the flag value of Repeat.RunsValue.
type RunsValue struct{ r *Repeat }

func (v *RunsValue) String() string {
	if v.r.Auto {
		return "auto"
	}
	return strconv.Itoa(v.r.Runs)
}

func (v *RunsValue) Set(s string) error {
	k, auto, err := ParseRuns(s)
	if err == nil {
		v.r.Runs, v.r.Auto = k, auto
	}
	return err
}

func (v *RunsValue) Type() string { return "K|auto" }

// ParseRuns reads --runs: a whole number of runs K >= 1, or auto (in
// any case; K is then 0).
func ParseRuns(s string) (k int, auto bool, err error) {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		return 0, true, nil
	}
	k, err = strconv.Atoi(strings.TrimSpace(s))
	if err != nil || k < 1 {
		return 0, false, errors.New("want a whole number of runs >= 1 or auto")
	}
	return k, false, nil
}

// Check checks --runs, --ci-width and --max-runs together; given is
// whether --ci-width or --max-runs was set: they mean nothing without
// auto.
func (r Repeat) Check(given bool) error {
	if !r.Auto {
		if given {
			return errors.New("--ci-width and --max-runs need --runs auto")
		}
		return nil
	}
	if !(r.CIWidth > 0) {
		return fmt.Errorf("--ci-width must be positive (got %v)", r.CIWidth)
	}
	if r.MaxRuns < stats.MinAutoRuns {
		return fmt.Errorf("--max-runs must be at least %d: --runs auto checks the interval from the third run (got %d)", stats.MinAutoRuns, r.MaxRuns)
	}
	return nil
}

// of is how many runs the progress lines say there will be.
func (r Repeat) of() string {
	if r.Auto {
		return fmt.Sprintf("at most %d, --runs auto", r.MaxRuns)
	}
	return fmt.Sprint(r.Runs)
}

// RunLine is a run's one-line summary from its figures.
func RunLine(o *bench.Outcome, sum *bench.Summary, m map[string]float64) string {
	s := fmt.Sprintf("%d completed, %d failed, %.1f out tok/s, mean TTFT %.1f ms, mean TPOT %.1f ms, p99 TTFT %.1f ms",
		sum.Metrics.Completed, sum.Metrics.Failed, m[metrics.KeyOutputThroughput], m[metrics.KeyMeanTTFT], m[metrics.KeyMeanTPOT], m[metrics.KeyP99TTFT])
	if v, ok := m[metrics.KeyRequestGoodput]; ok {
		s += fmt.Sprintf(", goodput %.2f req/s", v)
	}
	return s + ", self-check " + string(o.Verdict.Verdict)
}

// Last is the last run made: its table is the one printed.
func (res *Repeated) Last() Run { return res.Runs[len(res.Runs)-1] }

// WriteHeader says, above vLLM's table, which run the table is and what
// the section after it covers.
func (res *Repeated) WriteHeader(w io.Writer) {
	n := len(res.Runs)
	fmt.Fprintf(w, "vLLM's table below is run %d of %d; the section after it covers the %d complete runs.\n", n, n, len(res.Figures))
}

// Stats is each figure's statistics over the complete runs.
func (res *Repeated) Stats() map[string]stats.RunStats {
	return stats.RunsByKey(res.Figures, stats.DefaultConfidence)
}

// WriteStats writes the section over the runs (report.WriteRunStats),
// its lines those of the last run's table.
func (res *Repeated) WriteStats(w io.Writer) error {
	return report.WriteRunStats(w, res.Last().Summary.Metrics, res.Stats(), len(res.Figures), res.Convergence)
}

// Extras are the keys the saved result gets over the runs (SetExtra's
// form): llmbench.run_stats, llmbench.runs and under auto
// llmbench.convergence.
func (res *Repeated) Extras() map[string]any {
	x := map[string]any{report.ExtrasKey + "/" + report.RunStatsKey: res.Stats()}
	maps.Copy(x, report.RunsExtras(res.Figures, res.Convergence))
	return x
}

// RunFile is a file name with -runK before its extension, as a sweep
// names its steps' runs: r.json is r-run2.json, r.records.jsonl
// r-run2.records.jsonl.
func RunFile(name string, k int) string {
	ext := filepath.Ext(name)
	if strings.HasSuffix(name, ".records.jsonl") {
		ext = ".records.jsonl"
	}
	return fmt.Sprintf("%s-run%d%s", strings.TrimSuffix(name, ext), k, ext)
}

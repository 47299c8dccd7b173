package cli

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/sweep"
)

// runsFlag is --runs on run and sweep (one type for both): a whole
// number of runs K >= 1, or "auto" (repeat until the deciding figures'
// t intervals are narrow enough, docs/confidence.md, "Repeated runs").
type runsFlag struct {
	k    int
	auto bool
}

func (r *runsFlag) String() string {
	if r.auto {
		return "auto"
	}
	return strconv.Itoa(r.k)
}

func (r *runsFlag) Set(s string) error {
	k, auto, err := sweep.ParseRuns(s)
	if err == nil {
		r.k, r.auto = k, auto
	}
	return err
}

func (r *runsFlag) Type() string { return "K|auto" }

// repeatFlags are --runs, --ci-width and --max-runs.
type repeatFlags struct {
	runs    runsFlag
	ciWidth float64
	maxRuns int
}

// Defaults of --ci-width and --max-runs (AIPerf's convergence rule:
// the interval's full width under 10 % of the mean).
const (
	defaultCIWidth = 0.10
	defaultMaxRuns = 10
)

// bindRepeatFlags declares --runs, --ci-width and --max-runs on fs; what
// is what one run is ("the benchmark", "each step").
func bindRepeatFlags(fs *pflag.FlagSet, r *repeatFlags, runsUsage string) {
	r.runs = runsFlag{k: 1}
	fs.Var(&r.runs, "runs", runsUsage)
	fs.Float64Var(&r.ciWidth, "ci-width", defaultCIWidth, "with --runs auto: stop once each deciding figure's 95% t interval over the runs is narrower than this fraction of its mean")
	fs.IntVar(&r.maxRuns, "max-runs", defaultMaxRuns, "with --runs auto: stop after this many runs even if the interval has not converged (at least 3)")
}

// value is the flags as the runs' driver takes them.
func (r *repeatFlags) value() sweep.Repeat {
	return sweep.Repeat{Runs: r.runs.k, Auto: r.runs.auto, CIWidth: r.ciWidth, MaxRuns: r.maxRuns}
}

// check validates the three flags (given is whether --ci-width or
// --max-runs was set: sweep.Repeat.Check).
func (r *repeatFlags) check(given bool) error {
	if err := r.value().Check(given); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// repeated is whether more than one run may be made (flags never bound,
// as in a test's options, make one).
func (r *repeatFlags) repeated() bool { return r.value().Planned() > 1 }

package sweep

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/selfcheck"
)

// fakeRunner is a Runner whose run k has output throughput tput[k-1]
// and mean TTFT 100 ms; completed[k-1] == 0 makes a run where nothing
// succeeded, interrupt (1-based) an interrupted run.
type fakeRunner struct {
	tput      []float64
	completed []int
	interrupt int
	fail      error
	warmups   []int // the plan's warm-ups seen by each run
}

func (f *fakeRunner) RunOnce(_ context.Context, p *bench.Plan, k int) (*bench.Outcome, *bench.Summary, string, error) {
	f.warmups = append(f.warmups, p.NumWarmups)
	if f.fail != nil {
		return nil, nil, "", f.fail
	}
	m := &metrics.Summary{Completed: 10, Failed: 1, OutputThroughput: f.tput[k-1],
		Metrics: []metrics.Stats{{Metric: "ttft", Mean: 100}, {Metric: "tpot", Mean: 10}}}
	if f.completed != nil {
		m.Completed = f.completed[k-1]
	}
	o := &bench.Outcome{Interrupted: k == f.interrupt, Verdict: selfcheck.Result{Verdict: selfcheck.Valid}}
	saved := ""
	if k%2 == 0 {
		saved = RunFile("r.json", k)
	}
	return o, &bench.Summary{Metrics: m}, saved, nil
}

// TestRepeatRun: how many runs are made and why they stop, what the
// progress lines say, and that only the first run warms up.
func TestRepeatRun(t *testing.T) {
	t.Parallel()
	deciding := []string{"output_throughput", "mean_ttft_ms"}
	steady := []float64{100, 101, 100, 100, 101, 100}
	for _, c := range []struct {
		name    string
		rp      Repeat
		runner  fakeRunner
		runs    int // made
		figures int // counted
		conv    string
		lines   []string
	}{
		{"a fixed K makes K runs", Repeat{Runs: 3}, fakeRunner{tput: steady}, 3, 3, "",
			[]string{"run 1 of 3 ...\n", "  10 completed, 1 failed, 100.0 out tok/s, mean TTFT 100.0 ms, mean TPOT 10.0 ms, p99 TTFT 0.0 ms, self-check valid\n",
				"run 2 of 3 ...\n", "  result saved to r-run2.json\n"}},
		{"auto stops once the intervals are narrow (the third run at the soonest)", Repeat{Auto: true, CIWidth: 0.1, MaxRuns: 10}, fakeRunner{tput: steady}, 3, 3, "converged",
			[]string{"run 1 of at most 10, --runs auto ...\n", " (converged after 3 runs: "}},
		{"auto stops at --max-runs", Repeat{Auto: true, CIWidth: 0.001, MaxRuns: 4}, fakeRunner{tput: []float64{50, 150, 60, 140}}, 4, 4, "not converged",
			[]string{"(not converged yet: ", " (NOT converged in 4 runs: "}},
		{"an interrupted run ends it and is not counted", Repeat{Runs: 5}, fakeRunner{tput: steady, interrupt: 2}, 2, 1, "", nil},
		{"a run where nothing succeeded ends it", Repeat{Runs: 5}, fakeRunner{tput: steady, completed: []int{10, 0, 10}}, 2, 2, "",
			[]string{"  0 completed, 1 failed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var errw strings.Builder
			p := &bench.Plan{NumWarmups: 4, ReadyCheck: 1}
			res, err := c.rp.Run(t.Context(), p, deciding, &c.runner, &errw)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Runs) != c.runs || len(res.Figures) != c.figures {
				t.Errorf("%d runs, %d counted; want %d, %d", len(res.Runs), len(res.Figures), c.runs, c.figures)
			}
			switch {
			case c.conv == "" && res.Convergence != nil:
				t.Errorf("a convergence record for a fixed K: %+v", res.Convergence)
			case c.conv != "" && (res.Convergence == nil || res.Convergence.Converged != (c.conv == "converged")):
				t.Errorf("convergence %+v, want %s", res.Convergence, c.conv)
			}
			for _, l := range c.lines {
				if !strings.Contains(errw.String(), l) {
					t.Errorf("progress lacks %q:\n%s", l, errw.String())
				}
			}
			if want := append([]int{4}, make([]int, c.runs-1)...); !slices.Equal(c.runner.warmups, want) {
				t.Errorf("warm-ups per run %v, want %v (the first run only)", c.runner.warmups, want)
			}
		})
	}
}

// TestRepeatRunError: a run that fails ends the repetition with its
// error.
func TestRepeatRunError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := Repeat{Runs: 3}.Run(t.Context(), &bench.Plan{}, nil, &fakeRunner{fail: boom}, &strings.Builder{})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}

// TestRepeatedOutput: the line above the table, and the extras: run_stats
// and runs always, convergence under auto only.
func TestRepeatedOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		rp     Repeat
		header string
		keys   string
	}{
		{"fixed K", Repeat{Runs: 2}, "vLLM's table below is run 2 of 2; the section after it covers the 2 complete runs.\n", "llmbench/run_stats llmbench/runs"},
		{"auto", Repeat{Auto: true, CIWidth: 0.5, MaxRuns: 3}, "vLLM's table below is run 3 of 3; the section after it covers the 3 complete runs.\n",
			"llmbench/convergence llmbench/run_stats llmbench/runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, err := c.rp.Run(t.Context(), &bench.Plan{}, []string{"output_throughput"}, &fakeRunner{tput: []float64{100, 110, 105}}, &strings.Builder{})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			res.WriteHeader(&b)
			if b.String() != c.header {
				t.Errorf("header %q, want %q", b.String(), c.header)
			}
			if keys := strings.Join(slices.Sorted(maps.Keys(res.Extras())), " "); keys != c.keys {
				t.Errorf("extras %s, want %s", keys, c.keys)
			}
			b.Reset()
			if err := res.WriteStats(&b); err != nil || !strings.Contains(b.String(), fmt.Sprintf(" Across %d runs (95%% t interval) ", len(res.Figures))) {
				t.Errorf("section over the runs (%v):\n%s", err, b.String())
			}
		})
	}
}

// TestRunFile: -runK goes before the extension, .records.jsonl counted
// whole.
func TestRunFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, want string }{
		{"r.json", "r-run2.json"},
		{"dir/r.records.jsonl", "dir/r-run2.records.jsonl"},
		{"a.b.json", "a.b-run2.json"},
		{"noext", "noext-run2"},
		{".llmbench-records-20261202-080000-42.jsonl", ".llmbench-records-20261202-080000-42-run2.jsonl"},
	} {
		if got := RunFile(c.name, 2); got != c.want {
			t.Errorf("RunFile(%q, 2) = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestRepeatCheck: --ci-width and --max-runs need auto and sound values.
func TestRepeatCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		rp    Repeat
		given bool
		want  string
	}{
		{"a fixed K", Repeat{Runs: 3}, false, ""},
		{"--ci-width without auto", Repeat{Runs: 3}, true, "--ci-width and --max-runs need --runs auto"},
		{"auto with defaults", Repeat{Auto: true, CIWidth: 0.1, MaxRuns: 10}, true, ""},
		{"a width of zero", Repeat{Auto: true, CIWidth: 0, MaxRuns: 10}, true, "--ci-width must be positive (got 0)"},
		{"too few runs to judge", Repeat{Auto: true, CIWidth: 0.1, MaxRuns: 2}, true, "--max-runs must be at least 3: --runs auto checks the interval from the third run (got 2)"},
	} {
		err := c.rp.Check(c.given)
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || (err != nil && got != c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestParseRuns: K >= 1 or auto.
func TestParseRuns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		k    int
		auto bool
		ok   bool
	}{
		{"3", 3, false, true},
		{" 1 ", 1, false, true},
		{"auto", 0, true, true},
		{"AUTO ", 0, true, true},
		{"0", 0, false, false},
		{"-2", 0, false, false},
		{"2.5", 0, false, false},
		{"x", 0, false, false},
	} {
		k, auto, err := ParseRuns(c.in)
		if k != c.k || auto != c.auto || (err == nil) != c.ok {
			t.Errorf("ParseRuns(%q) = %d, %v, %v; want %d, %v, ok %v", c.in, k, auto, err, c.k, c.auto, c.ok)
		}
		if err != nil && err.Error() != "want a whole number of runs >= 1 or auto" {
			t.Errorf("ParseRuns(%q): %v", c.in, err)
		}
	}
}

// TestRunsValue: --runs as a flag value writes the Repeat it was taken
// from, prints what it holds (help shows the default, 1), and leaves it
// as it was on a bad value.
func TestRunsValue(t *testing.T) {
	t.Parallel()
	r := Repeat{Runs: 1}
	v := r.RunsValue()
	if v.Type() != "K|auto" || v.String() != "1" {
		t.Fatalf("unset: Type %q String %q, want K|auto and 1", v.Type(), v.String())
	}
	for _, c := range []struct {
		in, want string
		runs     int
		auto     bool
		err      bool
	}{
		{"5", "5", 5, false, false},
		{" AUTO ", "auto", 0, true, false},
		{"0", "auto", 0, true, true},
		{"3", "3", 3, false, false},
		{"x", "3", 3, false, true},
	} {
		err := v.Set(c.in)
		if (err != nil) != c.err || v.String() != c.want || r.Runs != c.runs || r.Auto != c.auto {
			t.Errorf("Set(%q): err %v, String %q, Repeat %+v; want error %v, %q, runs %d auto %v", c.in, err, v.String(), r, c.err, c.want, c.runs, c.auto)
		}
	}
}

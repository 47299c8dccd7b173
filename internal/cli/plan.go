package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/plan"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/savedfile"
)

// planOptions are plan's flags.
type planOptions struct {
	demand                  string
	peakUsers, offPeakUsers float64
	profile                 string
	prices                  string
	target                  float64
	minReplicas             int
	scaleUp, scaleDown      time.Duration
	endpointName, variant   string
	resultDir, format       string
	now                     func() time.Time
}

// newPlanCmd builds "llmbench plan SWEEP.json... --demand FILE | --peak-users N".
// The arithmetic lives in package plan; this reads the files, binds the
// flags and writes the outputs.
func newPlanCmd(env *Env) *cobra.Command {
	o := &planOptions{now: time.Now}
	cmd := &cobra.Command{
		Use:   "plan SWEEP.json... (--demand FILE | --peak-users N [--profile diurnal|flat])",
		Short: "Plan a fleet over a day from sweeps: replicas per hour, static and autoscaled cost, autoscaler settings",
		Long: `Turn sweeps (one per candidate instance type or endpoint, each judged against an
SLA) and a day's demand into a fleet plan (docs/plan.md):

  - per time slot, the replicas each candidate needs: ceil(demand ÷ (its max
    load under the SLA × --target-utilisation)), at least --min-replicas;
  - the cost per month of static provisioning (the peak's replicas all day)
    and of autoscaling (replicas follow demand; a new one serves
    --scale-up-delay after it is ordered and is billed from the order; one is
    removed after demand stayed low for --scale-down-delay);
  - the user-minutes the lagging fleet carries beyond its max load under the
    SLA while it scales up;
  - the cheapest candidate over the day (compare --need-users's rules), and
    why, when another is cheaper per hour at the peak;
  - the Kubernetes HPA manifest and the SageMaker target-tracking policy that
    realise it.

The demand is a CSV (--demand) with a header "time,users" or
"time,requests_per_s" and one line per slot: its start time of day (HH:MM,
increasing) and the demand until the next line; the last line lasts until
the first line's time the next day. Requests per second become concurrent
users by Little's law with each sweep's mean E2EL and think time at its max
load under the SLA, stated in the output. Without a CSV, --peak-users makes
24 hourly slots: --profile diurnal (off-peak at 02:00, peak at 14:00) or
flat.

Prices come from the sweep (--price-per-hour or --instance-type at sweep
time) or from --price-per-hour here: one value for every sweep, or one per
sweep in order. A month is 730 hours.

The table goes to standard output (--format json prints the plan file
instead) and the plan is saved as plan-DATE.json in --result-dir, which
"llmbench report" draws.`,
		Example: `  llmbench plan sweep-g5-*.json sweep-g6e-*.json --demand demand.csv
  llmbench plan sweep-my-l4-box-*.json --peak-users 40 --off-peak-users 4 --price-per-hour 2
  llmbench plan sweep-*.json --peak-users 200 --profile flat --target-utilisation 0.7 --scale-up-delay 10m
  llmbench report plan-20261201-120000.json -o plan.html`,
		Args: argsBetween(1, -1, "want one or more sweep files (sweep-*.json)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(env, cmd, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.demand, "demand", "", "demand CSV: time,users or time,requests_per_s, one line per slot (HH:MM)")
	fs.Float64Var(&o.peakUsers, "peak-users", 0, "without --demand: the peak's concurrent users, for a day of 24 hourly slots")
	fs.Float64Var(&o.offPeakUsers, "off-peak-users", 0, "with --profile diurnal: the users at 02:00 (default: a tenth of the peak, rounded)")
	fs.StringVar(&o.profile, "profile", plan.Diurnal, "with --peak-users: diurnal (off-peak 02:00, peak 14:00) or flat")
	fs.StringVar(&o.prices, "price-per-hour", "", "USD per instance-hour: one `PRICE` for every sweep, or one per sweep in order, comma-separated (default: the sweep's own price)")
	fs.Float64Var(&o.target, "target-utilisation", plan.DefaultTargetUtilisation, "plan each replica at this fraction of its max load under the SLA (0-1]")
	fs.IntVar(&o.minReplicas, "min-replicas", 1, "never fewer replicas than this in any slot")
	fs.DurationVar(&o.scaleUp, "scale-up-delay", 5*time.Minute, "how long a new replica takes to serve (billed from the order)")
	fs.DurationVar(&o.scaleDown, "scale-down-delay", 15*time.Minute, "how long demand must stay low before a replica is removed")
	fs.StringVar(&o.endpointName, "endpoint-name", "", "SageMaker endpoint named in the scaling policy (default "+plan.DefaultEndpointName+")")
	fs.StringVar(&o.variant, "target-variant", plan.DefaultVariant, "SageMaker production variant named in the scaling policy")
	fs.StringVar(&o.resultDir, "result-dir", ".", "folder for plan-DATE.json")
	fs.StringVar(&o.format, "format", "table", "standard output: table or json")
	return cmd
}

// run reads the sweeps and the demand, plans, prints and saves.
func (o *planOptions) run(env *Env, cmd *cobra.Command, args []string) error {
	if o.format != "table" && o.format != "json" {
		return usageErrorf("--format %q: want table or json", o.format)
	}
	if !(o.target > 0 && o.target <= 1) {
		return usageErrorf("--target-utilisation %v: want more than 0, at most 1", o.target)
	}
	fl := cmd.Flags()
	src := plan.DemandSource{CSV: o.demand, Peak: o.peakUsers, PeakGiven: fl.Changed("peak-users"),
		OffPeak: o.offPeakUsers, OffPeakGiven: fl.Changed("off-peak-users"), Profile: o.profile, ProfileGiven: fl.Changed("profile")}
	d, err := src.Demand()
	if err != nil {
		return &UsageError{Err: err}
	}
	prices, err := plan.ParsePrices(o.prices)
	if err == nil {
		err = prices.Check(len(args))
	}
	if err != nil {
		return &UsageError{Err: err}
	}
	files := make([]*report.SweepFile, len(args))
	for i, p := range args {
		sw, err := savedfile.ReadSweep(p)
		if errors.Is(err, fs.ErrNotExist) {
			return usageErrorf("sweep file %s does not exist", p)
		}
		if err != nil {
			return &UsageError{Err: err}
		}
		prices.Apply(i, sw)
		files[i] = &report.SweepFile{Path: p, Sweep: sw}
	}
	cands := report.SweepCandidates(files)
	in := make([]plan.Input, len(files))
	for i := range files {
		in[i] = plan.Input{Candidate: cands[i], Sweep: files[i].Sweep}
	}
	p, err := plan.Make(in, d, plan.Config{TargetUtilisation: o.target, MinReplicas: o.minReplicas,
		ScaleUpDelay: o.scaleUp, ScaleDownDelay: o.scaleDown, EndpointName: o.endpointName, Variant: o.variant})
	if err == nil {
		err = plan.NotPlanned(p)
	}
	if err != nil {
		return &UsageError{Err: err}
	}
	var js bytes.Buffer
	if err := plan.WriteJSON(&js, p); err != nil {
		return err
	}
	// --result-dir is made when missing, as run and sweep make theirs.
	if err := os.MkdirAll(o.resultDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(o.resultDir, plan.FileName(o.now().Format(bench.DateLayout)))
	if err := writeUserFile(path, func(w io.Writer) error { _, err := w.Write(js.Bytes()); return err }); err != nil {
		return err
	}
	if o.format == "json" {
		_, err = env.Stdout.Write(js.Bytes())
	} else {
		err = plan.WriteText(env.Stdout, p)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "Plan saved to %s\n", path)
	return nil
}

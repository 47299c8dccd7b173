package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/plan"
	"github.com/llmbench/llmbench/internal/savedfile"
)

// newPlanCmd builds "llmbench plan SWEEP.json... --demand FILE | --peak-users N".
// The plan lives in package plan (Request: the files, the demand, the
// arithmetic, the saved file); this binds the flags, plans, saves the plan
// file and prints the table or the file.
func newPlanCmd(env *Env) *cobra.Command {
	var (
		r                 plan.Request
		resultDir, format string
	)
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
			fl := cmd.Flags()
			r.Sweeps = args
			r.Demand.PeakGiven, r.Demand.OffPeakGiven, r.Demand.ProfileGiven = fl.Changed("peak-users"), fl.Changed("off-peak-users"), fl.Changed("profile")
			if err := plan.CheckFormat(format); err != nil {
				return &UsageError{Err: err}
			}
			p, err := r.Plan(savedfile.ReadSweep)
			if err != nil {
				return &UsageError{Err: err}
			}
			path, err := plan.Save(resultDir, time.Now().Format(bench.DateLayout), p)
			if err != nil {
				return err
			}
			if err := plan.Write(env.Stdout, p, format); err != nil {
				return err
			}
			fmt.Fprintf(env.Stderr, "Plan saved to %s\n", path)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&r.Demand.CSV, "demand", "", "demand CSV: time,users or time,requests_per_s, one line per slot (HH:MM)")
	fs.Float64Var(&r.Demand.Peak, "peak-users", 0, "without --demand: the peak's concurrent users, for a day of 24 hourly slots")
	fs.Float64Var(&r.Demand.OffPeak, "off-peak-users", 0, "with --profile diurnal: the users at 02:00 (default: a tenth of the peak, rounded)")
	fs.StringVar(&r.Demand.Profile, "profile", plan.Diurnal, "with --peak-users: diurnal (off-peak 02:00, peak 14:00) or flat")
	fs.StringVar(&r.Prices, "price-per-hour", "", "USD per instance-hour: one `PRICE` for every sweep, or one per sweep in order, comma-separated (default: the sweep's own price)")
	fs.Float64Var(&r.Config.TargetUtilisation, "target-utilisation", plan.DefaultTargetUtilisation, "plan each replica at this fraction of its max load under the SLA (0-1]")
	fs.IntVar(&r.Config.MinReplicas, "min-replicas", 1, "never fewer replicas than this in any slot")
	fs.DurationVar(&r.Config.ScaleUpDelay, "scale-up-delay", 5*time.Minute, "how long a new replica takes to serve (billed from the order)")
	fs.DurationVar(&r.Config.ScaleDownDelay, "scale-down-delay", 15*time.Minute, "how long demand must stay low before a replica is removed")
	fs.StringVar(&r.Config.EndpointName, "endpoint-name", "", "SageMaker endpoint named in the scaling policy (default "+plan.DefaultEndpointName+")")
	fs.StringVar(&r.Config.Variant, "target-variant", plan.DefaultVariant, "SageMaker production variant named in the scaling policy")
	fs.StringVar(&resultDir, "result-dir", ".", "folder for plan-DATE.json")
	fs.StringVar(&format, "format", "table", "standard output: table or json")
	return cmd
}

package cli

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/promexport/promsink"
	"github.com/llmbench/llmbench/internal/servermetrics"
)

// The metrics flags of run, demo and sweep: our live exporter's and the
// server's.

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

// checkServerMetrics validates the server-metrics flags (no network;
// servermetrics.Options.Check).
func (o *runOptions) checkServerMetrics(cmd *cobra.Command) error {
	if o.f.srv.spec == "" {
		for _, name := range []string{"server-metric", "server-metrics-interval"} {
			if cmd.Flags().Changed(name) {
				return usageErrorf("--%s needs --server-metrics", name)
			}
		}
	}
	if err := o.f.srv.options().Check(o.f.backend == "sagemaker", o.baseURL()); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// options are the flags as servermetrics' typed value.
func (f *serverMetricsFlags) options() servermetrics.Options {
	return servermetrics.Options{Spec: f.spec, Interval: f.interval, Extra: f.names, ResetPrefixCache: f.resetPrefixCache}
}

// serverRun is one timed run's (or sweep step's) view of the server
// (servermetrics.Window); nil when not asked for.
type serverRun = servermetrics.Window

// metricsFlags are the live-metrics flags of run, demo and sweep, bound
// to the exporter's configuration.
type metricsFlags = promsink.Config

func bindMetricsFlags(fs *pflag.FlagSet, m *metricsFlags) {
	fs.StringVar(&m.Addr, "metrics-addr", "", "serve live Prometheus metrics on this address during the run, e.g. 127.0.0.1:9464 (ours)")
	fs.DurationVar(&m.Linger, "metrics-linger", 0, "keep --metrics-addr up this long after the run for a last scrape (ours)")
	fs.StringVar(&m.Pushgateway, "pushgateway", "", "push the final metrics to this Prometheus Pushgateway URL (ours)")
}

// liveMetrics is the run's live Prometheus exporter (promsink.Live); nil
// when neither --metrics-addr nor --pushgateway asks for it.
type liveMetrics = promsink.Live

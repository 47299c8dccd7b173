package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
)

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

// startLive starts the exporter when --metrics-addr or --pushgateway asks
// for it; nil otherwise.
func startLive(ctx context.Context, f metricsFlags, plan *bench.Plan, out io.Writer) (*liveMetrics, error) {
	if f.Addr == "" && f.Pushgateway == "" {
		return nil, nil
	}
	l := promsink.New(f, plan)
	addr, err := l.Start(ctx)
	if err != nil {
		return nil, usageErrorf("--metrics-addr %s: %v", f.Addr, err)
	}
	if addr != "" {
		fmt.Fprintf(out, "Live metrics on http://%s/metrics\n", addr)
	}
	return l, nil
}

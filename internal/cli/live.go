package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
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

// liveMetrics is the run's live Prometheus exporter (promsink.Live); nil
// when neither --metrics-addr nor --pushgateway asks for it.
type liveMetrics = promsink.Live

// startLive starts the exporter when --metrics-addr or --pushgateway asks
// for it; nil otherwise.
func startLive(ctx context.Context, f metricsFlags, plan *bench.Plan, out io.Writer) (*liveMetrics, error) {
	if f.addr == "" && f.pushgateway == "" {
		return nil, nil
	}
	l := promsink.New(promsink.Config{Addr: f.addr, Linger: f.linger, Pushgateway: f.pushgateway}, plan)
	addr, err := l.Start(ctx)
	if err != nil {
		return nil, usageErrorf("--metrics-addr %s: %v", f.addr, err)
	}
	if addr != "" {
		fmt.Fprintf(out, "Live metrics on http://%s/metrics\n", addr)
	}
	return l, nil
}

package sim

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Addrs are where `llmbench sim` serves: the API (and its /metrics), and
// optionally /metrics alone on its own address and the simulated DCGM
// exporter's metrics ("" = not served).
type Addrs struct {
	Listen, Metrics, DCGM string
}

// Daemon is the simulator as a server of its own: the API and the
// optional metrics listeners, stopped together.
type Daemon struct {
	*Running
	// MetricsAddr and DCGMAddr are the bound metrics addresses ("" when
	// not served).
	MetricsAddr, DCGMAddr string

	closers []func()
}

// StartDaemon serves cfg at a.Listen and the metrics listeners a asks
// for, until Stop: it does not stop by itself (ctx only carries values).
// The caller checks the addresses first (CheckListenAddr). A metrics
// listener that fails stops what started and names its flag.
func StartDaemon(ctx context.Context, cfg Config, a Addrs) (*Daemon, error) {
	ln, err := net.Listen("tcp", a.Listen)
	if err != nil {
		return nil, err
	}
	run, err := StartListener(context.WithoutCancel(ctx), cfg, ln)
	if err != nil {
		return nil, err
	}
	d := &Daemon{Running: run}
	for _, m := range []struct {
		flag, addr string
		h          http.Handler
		bound      *string
	}{
		{"--metrics-addr", a.Metrics, run.Server.MetricsHandler(), &d.MetricsAddr},
		{"--dcgm-addr", a.DCGM, run.Server.DCGMHandler(DefaultDCGM), &d.DCGMAddr},
	} {
		if m.addr == "" {
			continue
		}
		bound, stop, err := ServeMetrics(m.h, m.addr)
		if err != nil {
			_ = d.Stop(context.Background())
			return nil, fmt.Errorf("%s: %v", m.flag, err)
		}
		*m.bound = bound
		d.closers = append(d.closers, stop)
	}
	return d, nil
}

// Stop stops the simulator (Running.Stop: open responses until ctx is
// done, then the engine and the truth log), then the metrics listeners.
func (d *Daemon) Stop(ctx context.Context) error {
	err := d.Running.Stop(ctx)
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
	d.closers = nil
	return err
}

// ServeMetrics serves h as /metrics on its own listener at addr and
// returns the bound address and a function that closes it.
func ServeMetrics(h http.Handler, addr string) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// Describe names the performance model for a banner: the mode and the
// preset, or the fixed timings.
func Describe(cfg *Config, preset string) string {
	if cfg.Mode == ModeBatching {
		return cfg.Mode + ", preset " + preset
	}
	return cfg.Mode + fmt.Sprintf(", ttft %v, itl %v", cfg.TTFT, cfg.ITL)
}

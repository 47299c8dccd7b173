package promexport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/push"
)

// Handler returns the /metrics handler: the exporter's registry in the
// format the scraper asks for (OpenMetrics when it accepts it, else the
// Prometheus text format; protobuf for native histograms).
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		ErrorHandling:     promhttp.ContinueOnError,
	})
}

// shutdownTimeout bounds how long stop waits for scrapes in progress.
const shutdownTimeout = 5 * time.Second

// metricsServer is one Serve call's listener and state.
type metricsServer struct {
	srv      *http.Server
	served   chan error
	stopping atomic.Bool
	// final is closed when a scrape that began after stop was called has
	// been written: the scraper has the run's final values.
	final     chan struct{}
	finalOnce sync.Once
	stopOnce  sync.Once
	stopErr   error
}

// Serve serves /metrics on addr (host:port; port 0 picks a free one, e.g.
// "127.0.0.1:0") until stop is called or ctx is done, and returns the
// bound address. It refuses nothing itself: checking that addr is loopback
// or intended is the caller's business.
//
// stop(linger) keeps the endpoint up after the run so the last values get
// scraped: it returns once a scrape that began after the call has been
// answered, or after linger, or when ctx is done, whichever comes first,
// then shuts the server down (waiting up to 5 s for scrapes in progress).
// stop(0) shuts down at once. stop may be called more than once: later
// calls wait for nothing and return the first call's result. Without a
// scraper, stop(linger) waits the whole linger.
func (e *Exporter) Serve(ctx context.Context, addr string) (actualAddr string, stop func(linger time.Duration) error, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("metrics: %w", err)
	}
	ms := &metricsServer{served: make(chan error, 1), final: make(chan struct{})}
	h := e.Handler()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		afterStop := ms.stopping.Load()
		h.ServeHTTP(w, r)
		if afterStop {
			ms.finalOnce.Do(func() { close(ms.final) })
		}
	})
	ms.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { ms.served <- ms.srv.Serve(ln) }()
	stopped := make(chan struct{})
	stop = func(linger time.Duration) error {
		ms.stopOnce.Do(func() {
			ms.stopErr = ms.stop(ctx, linger)
			close(stopped)
		})
		return ms.stopErr
	}
	go func() {
		select {
		case <-ctx.Done():
			_ = stop(0)
		case <-stopped:
		}
	}()
	return ln.Addr().String(), stop, nil
}

func (ms *metricsServer) stop(ctx context.Context, linger time.Duration) error {
	ms.stopping.Store(true)
	if linger > 0 {
		t := time.NewTimer(linger)
		select {
		case <-ms.final:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	err := ms.srv.Shutdown(sctx)
	if err != nil {
		_ = ms.srv.Close()
	}
	if serr := <-ms.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// Push sends the exporter's current values to the Prometheus Pushgateway
// at url (e.g. http://127.0.0.1:9091) under job, replacing what that
// job's group held (HTTP PUT): for runs too short to be scraped, call it
// once at the end. The group is keyed by job and, when the run has an
// id, instance=<run id>, so concurrent runs do not overwrite each other.
// ctx bounds the request.
func (e *Exporter) Push(ctx context.Context, url, job string) error {
	p := push.New(url, job).Gatherer(e.reg).Client(&http.Client{})
	if e.cfg.RunID != "" {
		p = p.Grouping("instance", e.cfg.RunID)
	}
	if err := p.PushContext(ctx); err != nil {
		return fmt.Errorf("pushgateway: %w", err)
	}
	return nil
}

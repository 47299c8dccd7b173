package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Running is a simulator serving HTTP on a listener.
type Running struct {
	// Server is the simulator (ground truth, config).
	Server *Server
	// Addr is the listening address, host:port.
	Addr string
	// URL is "http://" + Addr, the base URL for clients.
	URL string

	srv      *http.Server
	served   chan error
	stopOnce sync.Once
	stopErr  error
}

// Start serves a new simulator on addr ("" means "127.0.0.1:0", a free
// loopback port) until ctx is done or Stop is called. It refuses a
// non-loopback address: bind one with StartListener after your own check.
func Start(ctx context.Context, cfg Config, addr string) (*Running, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if err := CheckListenAddr(addr, false); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return StartListener(ctx, cfg, ln)
}

// StartListener serves a new simulator on ln (which it then owns).
func StartListener(ctx context.Context, cfg Config, ln net.Listener) (*Running, error) {
	s, err := New(cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	run := &Running{Server: s, Addr: ln.Addr().String(), URL: "http://" + ln.Addr().String(),
		srv: &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 30 * time.Second}, served: make(chan error, 1)}
	go func() { run.served <- run.srv.Serve(ln) }()
	go func() {
		select {
		case <-ctx.Done():
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = run.Stop(sctx)
		case <-run.served:
			// Stop was called (Serve returned); nothing to do.
		}
	}()
	return run, nil
}

// Stop shuts the server down gracefully: it stops accepting, waits for open
// responses until ctx is done, then closes what is left, stops the engine
// and flushes the truth log. Safe to call more than once.
func (r *Running) Stop(ctx context.Context) error {
	r.stopOnce.Do(func() {
		err := r.srv.Shutdown(ctx)
		if err != nil {
			_ = r.srv.Close()
		}
		r.stopErr = errors.Join(ignoreCanceled(err), r.Server.Close())
	})
	return r.stopErr
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return nil // open streams were cut; that is what a deadline means here
	}
	return err
}

// CheckListenAddr refuses a listen address that is not loopback unless
// allowRemote is set: the simulator has no authentication.
func CheckListenAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("listen address %q is not loopback; pass --allow-remote to listen on other interfaces", addr)
	}
	return nil
}

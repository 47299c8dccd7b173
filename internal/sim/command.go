package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// ErrTruthLog marks a truth log file that cannot be created: the path
// given is at fault, not the simulator.
var ErrTruthLog = errors.New("truth log")

// DefaultFaults are the fault settings `llmbench sim` starts from: no
// fault at any rate, and the lengths a fault takes once one is asked for
// (a 1 s Retry-After, a 5 s stall, a 2 s slow first byte, SageMaker's
// StreamBroken code).
func DefaultFaults() Faults {
	return Faults{RetryAfter: time.Second, StallFor: 5 * time.Second,
		SlowFirstByteFor: 2 * time.Second, ModelStreamErrorCode: "StreamBroken"}
}

// Serve runs the simulator as `llmbench sim` does: cfg (resolved by
// o.Resolve) at o.Addrs until ctx ends, with a line on out saying where
// and what it serves and, once stopped, one with its counts. truthLog,
// when set, is created for cfg.TruthLog (ErrTruthLog when it cannot be)
// and closed at the end. Open responses get 5 seconds to finish.
func Serve(ctx context.Context, cfg Config, o *Options, truthLog string, out io.Writer) error {
	var logFile *os.File
	if truthLog != "" {
		var err error
		if logFile, err = os.Create(truthLog); err != nil {
			return fmt.Errorf("%w: %v", ErrTruthLog, err)
		}
		defer logFile.Close()
		cfg.TruthLog = logFile
	}
	d, err := StartDaemon(ctx, cfg, o.Addrs)
	if err != nil {
		return fmt.Errorf("sim: %v", err)
	}
	metricsNote := ""
	if d.MetricsAddr != "" {
		metricsNote = fmt.Sprintf(", metrics on http://%s/metrics", d.MetricsAddr)
	}
	if d.DCGMAddr != "" {
		metricsNote += fmt.Sprintf(", DCGM metrics on http://%s/metrics", d.DCGMAddr)
	}
	fmt.Fprintf(out, "llmbench sim: serving %q (%s) on %s%s\n", cfg.Model, Describe(&cfg, o.Preset), d.URL, metricsNote)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Stop(sctx); err != nil {
		return fmt.Errorf("sim: shutdown: %v", err)
	}
	if logFile != nil {
		if err := logFile.Close(); err != nil {
			return fmt.Errorf("truth log: %v", err)
		}
	}
	st := d.Server.Stats()
	fmt.Fprintf(out, "llmbench sim: stopped after %d requests (%d errors, %d injected faults, %d tokens)\n",
		st.Requests, st.Errors, st.Faults, st.Tokens)
	return nil
}

package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/report"
)

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// progress is a tqdm-like bar on stderr. It draws only on a terminal and
// is fed from the runner's completion goroutine, never from a request's.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress draws on w when ttyCheck (w's underlying writer) is a
// terminal.
func newProgress(ttyCheck, w io.Writer, total int, disabled bool) *progress {
	f, ok := ttyCheck.(*os.File)
	if disabled || !ok || !term.IsTerminal(int(f.Fd())) {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("requests"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("req"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

func (p *progress) add() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// writeClientSide prints llmbench's own client-side timing section: how
// long requests queued for a concurrency slot, how late the client sent
// them against the schedule, and (with fromIntended) TTFT and E2EL measured
// from the intended send time. Nothing is printed when there is no data.
func writeClientSide(w io.Writer, s *metrics.Summary, fromIntended bool) error {
	x := s.Extra
	type block struct {
		title, short string
		st           *metrics.Stats
	}
	var blocks []block
	if x.ClientQueue != nil {
		blocks = append(blocks, block{"Client queue time", "Queue", x.ClientQueue})
	}
	if x.DispatchLag != nil {
		blocks = append(blocks, block{"Dispatch lag (sent - intended)", "Lag", x.DispatchLag})
	}
	if fromIntended {
		if x.TTFTFromIntended != nil {
			blocks = append(blocks, block{"TTFT from intended send time", "TTFT*", x.TTFTFromIntended})
		}
		if x.E2ELFromIntended != nil {
			blocks = append(blocks, block{"E2EL from intended send time", "E2EL*", x.E2ELFromIntended})
		}
	}
	if len(blocks) == 0 {
		return nil
	}
	lines := []string{report.Center(" Client-side Timing (llmbench) ", '=')}
	f2 := func(label string, v float64) string { return fmt.Sprintf("%-40s %-10.2f", label, v) }
	for _, b := range blocks {
		lines = append(lines, report.Center(b.title, '-'))
		lines = append(lines, f2("Mean "+b.short+" (ms):", b.st.Mean))
		lines = append(lines, f2("Median "+b.short+" (ms):", b.st.Median))
		for i, p := range s.Percentiles {
			if i < len(b.st.Percentiles) {
				lines = append(lines, f2("P"+report.PercentileLabel(p)+" "+b.short+" (ms):", b.st.Percentiles[i]))
			}
		}
	}
	lines = append(lines, report.Center("", '='))
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

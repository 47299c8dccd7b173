package cli

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
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

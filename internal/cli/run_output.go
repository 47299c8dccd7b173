package cli

import (
	"io"
	"sync"

	"github.com/llmbench/llmbench/internal/progress"
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

// newProgress is a step's status line on w when ttyCheck is a terminal
// and --disable-tqdm is off (progress.New; nil draws nothing).
func newProgress(ttyCheck, w io.Writer, total int, disabled bool) *progress.Bar {
	return progress.New(ttyCheck, w, total, disabled)
}

package cli

import (
	"strings"
	"sync"
)

// syncBuf is a strings.Builder safe for several goroutines (stderr is
// written by the progress line, the interrupt note and the run).
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

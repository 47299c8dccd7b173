package record

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the Stream's flush goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func streamRecords() []Record {
	n := 3
	return []Record{
		{Index: 0, Success: true, PromptLen: 4, OutputTokens: &n, TTFT: 0.1, ITL: []float64{0.05, 0.05}, Latency: 0.2, StartTime: 0, StartUnixNano: 1e18},
		{Index: 1, Success: false, ITL: []float64{}, StartTime: 0.5, Error: "boom", ErrorClass: ErrHTTP5xx},
		{Index: 2, Success: true, PromptLen: 4, OutputTokens: &n, TTFT: 0.1, ITL: []float64{0.1, 0.2}, Latency: 0.4, StartTime: 1},
	}
}

func TestStreamRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		close      bool // write the End line
		wantDur    float64
		unfinished bool
	}{
		{"closed: the End line's params win", true, 7, false},
		{"killed: no End line, duration from the last record's end", false, 1 + 0.1 + 0.1 + 0.2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf syncBuffer
			head := Params{RequestRate: Inf, Burstiness: 1, Backend: "openai", ModelID: "m", Tokenizer: "gpt2"}
			s, err := NewStream(&buf, Header{Params: head, Start: &Anchor{UnixNano: 1e18}})
			if err != nil {
				t.Fatal(err)
			}
			recs := streamRecords()
			for i := range recs {
				if err := s.Add(&recs[i]); err != nil {
					t.Fatal(err)
				}
			}
			var end *Params
			if tc.close {
				final := head
				final.DurationS = 7
				end = &final
			}
			if err := s.Close(end, 0); err != nil {
				t.Fatal(err)
			}
			p, got, _, err := Read(strings.NewReader(buf.String()))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || math.Abs(p.DurationS-tc.wantDur) > 1e-9 || p.Unfinished != tc.unfinished || p.Interrupted != tc.unfinished {
				t.Errorf("%d records, duration %v, unfinished %v, interrupted %v", len(got), p.DurationS, p.Unfinished, p.Interrupted)
			}
			if got[0].StartUnixNano != 1e18 {
				t.Errorf("start_unix_ns %d", got[0].StartUnixNano)
			}
		})
	}
}

// TestStreamTornLastLine: a kill mid-write leaves half a line; the
// records before it are read.
func TestStreamTornLastLine(t *testing.T) {
	var buf syncBuffer
	s, err := NewStream(&buf, Header{Params: Params{Backend: "openai"}})
	if err != nil {
		t.Fatal(err)
	}
	recs := streamRecords()
	for i := range recs {
		_ = s.Add(&recs[i])
	}
	if err := s.Close(nil, 0); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	torn := text[:len(text)-20]
	_, got, _, err := Read(strings.NewReader(torn))
	if err != nil || len(got) != 2 {
		t.Fatalf("%d records, err %v", len(got), err)
	}
	// A broken line that is not the last one is still an error.
	broken := strings.Replace(text, `"index":1`, `"index":`, 1)
	if _, _, _, err := Read(strings.NewReader(broken)); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("broken middle line: %v", err)
	}
}

// TestStreamFlushesWhileRunning: a record reaches the file without Close.
func TestStreamFlushesWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := NewStream(f, Header{Params: Params{Backend: "openai"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(nil, 0)
	recs := streamRecords()
	_ = s.Add(&recs[0])
	// Generous: the flush is due within FlushEvery.
	deadline := time.Now().Add(20 * FlushEvery)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), "\n") == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("record not flushed: %q", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

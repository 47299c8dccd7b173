package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Anchor ties a run's monotonic clock to the wall clock, so records of
// several processes can be put on one timeline and joined with server
// logs (docs/records.md).
type Anchor struct {
	// UnixNano is the wall-clock time of the run's clock origin (the
	// instant StartTime 0 stands for), in Unix nanoseconds.
	UnixNano int64 `json:"unix_ns"`
	// Monotonic is a label for the origin on the monotonic clock: always
	// 0, since record times are seconds since that origin. Kept so the
	// header states both clocks explicitly.
	Monotonic float64 `json:"monotonic_s"`
}

// End is the closing line of a streamed records file:
// {"llmbench_records_end":1,"params":{...}}. It carries what is known
// only when the run is over (duration, interrupted, the date stamp).
type End struct {
	Version int    `json:"llmbench_records_end"`
	Params  Params `json:"params"`
	// Records is how many record lines precede this line.
	Records int `json:"records"`
	// NotSent counts requests of the plan that were never sent.
	NotSent int `json:"not_sent,omitempty"`
	// Extras are figures beside the records, known at the end (the
	// server's metrics: "server_metrics"), by key; see SetEndExtra.
	Extras map[string]json.RawMessage `json:"extras,omitempty"`
}

// FlushEvery bounds how long a completed record may sit in a Stream's
// buffer before it reaches the file.
const FlushEvery = time.Second

// Stream writes the JSON-lines records format while a run goes on: the
// header when it is created, each record when Add is called, buffered and
// flushed at least every FlushEvery, and the closing End line on Close. A
// run killed at any point leaves a file that Read accepts (without its
// End line, marked Unfinished). Safe for concurrent use.
type Stream struct {
	mu    sync.Mutex
	bw    *bufio.Writer
	enc   *json.Encoder
	line  []byte // a record's line, reused
	n     int
	err   error
	stop  chan struct{}
	done  chan struct{}
	close sync.Once
	extra map[string]json.RawMessage
}

// NewStream writes h to w and starts the periodic flush.
func NewStream(w io.Writer, h Header) (*Stream, error) {
	s := &Stream{bw: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	s.enc = json.NewEncoder(s.bw)
	s.enc.SetEscapeHTML(false)
	h.Version, h.Streamed = FormatVersion, true
	if err := s.enc.Encode(h); err != nil {
		return nil, fmt.Errorf("writing records header: %w", err)
	}
	if err := s.bw.Flush(); err != nil {
		return nil, fmt.Errorf("writing records header: %w", err)
	}
	go s.flushLoop()
	return s, nil
}

func (s *Stream) flushLoop() {
	defer close(s.done)
	t := time.NewTicker(FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			if s.err == nil {
				s.err = s.bw.Flush()
			}
			s.mu.Unlock()
		}
	}
}

// Add appends one record. The first write error is kept and returned by
// every later call (and by Close); records after it are dropped.
func (s *Stream) Add(r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	line, err := appendJSON(s.line[:0], r, encodeStd)
	if err == nil {
		s.line = line
		_, err = s.bw.Write(line)
	}
	if err != nil {
		s.err = fmt.Errorf("writing record %d: %w", r.Index, err)
		return s.err
	}
	s.n++
	return nil
}

// Close writes the End line for p (nil: leave the file unfinished, as a
// killed run would) and flushes. It does not close the underlying writer.
func (s *Stream) Close(p *Params, notSent int) error {
	s.close.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && p != nil {
		if err := s.enc.Encode(End{Version: 1, Params: *p, Records: s.n, NotSent: notSent, Extras: s.extra}); err != nil {
			s.err = fmt.Errorf("writing records end: %w", err)
		}
	}
	if s.err == nil {
		s.err = s.bw.Flush()
	}
	return s.err
}

// SetEndExtra adds v, as JSON, to the End line's extras under key (the
// last value set for a key wins); Close writes it. A report reads it back
// with ReadEndExtras.
func (s *Stream) SetEndExtra(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("records end extra %s: %w", key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.extra == nil {
		s.extra = map[string]json.RawMessage{}
	}
	s.extra[key] = b
	return nil
}

// ReadEndExtras returns the extras of a records file's End line; nil
// when the file has no End line or no extras (a killed run, an older
// file, conformance input).
func ReadEndExtras(r io.Reader) (map[string]json.RawMessage, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		b, err := br.ReadBytes('\n')
		if bytes.Contains(b, endKey) {
			var e End
			if uerr := json.Unmarshal(b, &e); uerr != nil {
				return nil, fmt.Errorf("records end line: %w", uerr)
			}
			return e.Extras, nil
		}
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

package sim

import (
	"net/http"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// sink is where a response body goes: each write leaves for the socket
// before write returns (HTTP: write + flush; SageMaker: PayloadParts +
// flush).
type sink interface {
	write(b []byte) error
}

type httpSink struct {
	w  http.ResponseWriter
	rc *http.ResponseController // nil: do not flush (whole bodies)
}

func (h *httpSink) write(b []byte) error {
	if _, err := h.w.Write(b); err != nil {
		return err
	}
	if h.rc != nil {
		return h.rc.Flush()
	}
	return nil
}

type esSink struct{ ew *eventstream.Writer }

func newEventStreamSink(w http.ResponseWriter, containerCT, requestID string, size eventstream.PartSize, seed uint64) *esSink {
	eventstream.StartStream(w, containerCT, requestID)
	return &esSink{ew: eventstream.NewWriter(w, size, seed)}
}

func (e *esSink) write(b []byte) error {
	_, err := e.ew.Write(b)
	return err
}

// streamer writes one request's response as the engine produces tokens.
type streamer struct {
	s        *Server
	r        *http.Request
	out      sink
	enc      *encoder
	sq       *seq
	t        *Truth
	f        fault
	req      *Request
	buf      []byte
	batch    []ChunkTruth
	tailSent bool // usage and end marker already written
}

// maxChunksPerWrite bounds how many overdue chunks one write carries.
const maxChunksPerWrite = 64

// put writes b and records the write in the truth.
func (st *streamer) put(kind string, tokens int, due time.Time, b []byte) error {
	start := time.Now()
	err := st.out.write(b)
	st.t.Chunks = append(st.t.Chunks, ChunkTruth{Kind: kind, Tokens: tokens, Due: due, WriteStart: start, WriteEnd: time.Now()})
	return err
}

// wait blocks until the engine has news, the client leaves (false), or the
// ping timer fires.
func (st *streamer) wait(ping *time.Timer) bool {
	var pc <-chan time.Time
	if ping != nil {
		pc = ping.C
	}
	select {
	case <-st.sq.notify:
		return true
	case <-st.r.Context().Done():
		return false
	case <-pc:
		st.buf = st.enc.ping(st.buf[:0])
		if len(st.buf) > 0 && st.put(ChunkPing, 0, time.Time{}, st.buf) != nil {
			return false
		}
		ping.Reset(st.s.cfg.PingInterval)
		return true
	}
}

// stream writes a streamed response. Mid-stream faults strike before the
// chunk that would take the count of written tokens past f.at.
func (st *streamer) stream() {
	cfg := &st.s.cfg
	target := st.sq.target
	k := cfg.TokensPerChunk
	var ping *time.Timer
	if cfg.PingInterval > 0 {
		ping = time.NewTimer(cfg.PingInterval)
		defer ping.Stop()
	}
	written := 0
	faultDone := st.f.name == ""
	for written < target {
		if !faultDone && written >= st.f.at {
			faultDone = true
			if !st.midStreamFault() {
				return
			}
		}
		produced := st.sq.progress()
		if produced-written < k && produced < target {
			if !st.wait(ping) {
				return
			}
			continue
		}
		if written == 0 && st.req.Kind == KindChat {
			st.buf = st.enc.role(st.buf[:0])
			if st.put(ChunkRole, 0, time.Time{}, st.buf) != nil {
				return
			}
		}
		// Normally one chunk is ready. When the writer fell behind (a busy
		// machine), every chunk already due goes out in one write, each
		// still its own event with its own truth entry: a server that is
		// late catches up instead of falling further behind, and the truth
		// shows the shared write times.
		st.buf = st.buf[:0]
		st.batch = st.batch[:0]
		for len(st.batch) < maxChunksPerWrite {
			to := min(written+k, produced)
			if !faultDone && to > st.f.at && st.f.at > written {
				to = st.f.at // stop exactly at the fault point
			}
			st.buf = st.enc.tokens(st.buf, written, to)
			st.batch = append(st.batch, ChunkTruth{Kind: ChunkToken, Tokens: to - written, Due: st.sq.dueOf(to - 1)})
			written = to
			if written == target || (!faultDone && written >= st.f.at) || (produced-written < k && produced < target) {
				break
			}
		}
		if _, ok := st.out.(*esSink); ok && written == target {
			// Behind SageMaker the container's last chunks (finish, usage,
			// [DONE]) reach the front end together and leave in shared
			// PayloadParts, so one part can hold the end of one event and
			// the start of the next.
			st.appendTail()
		}
		start := time.Now()
		err := st.out.write(st.buf)
		end := time.Now()
		for _, c := range st.batch {
			c.WriteStart, c.WriteEnd = start, end
			st.t.Chunks = append(st.t.Chunks, c)
		}
		if err != nil {
			return
		}
		st.t.CompletionTokens = written
		if ping != nil {
			ping.Reset(cfg.PingInterval)
		}
	}
	st.t.FinishReason = st.enc.finish
	if st.tailSent {
		return
	}
	if st.req.IncludeUsage {
		if b := st.enc.usage(st.buf[:0]); len(b) > 0 {
			st.buf = b
			if st.put(ChunkUsage, 0, time.Time{}, st.buf) != nil {
				return
			}
		}
	}
	if b := st.enc.done(st.buf[:0]); len(b) > 0 {
		st.buf = b
		_ = st.put(ChunkDone, 0, time.Time{}, st.buf)
	}
}

// appendTail appends the usage chunk (if asked for) and the end marker to
// st.buf, with their truth entries in st.batch.
func (st *streamer) appendTail() {
	n := len(st.buf)
	if st.req.IncludeUsage {
		if st.buf = st.enc.usage(st.buf); len(st.buf) > n {
			st.batch = append(st.batch, ChunkTruth{Kind: ChunkUsage})
		}
	}
	n = len(st.buf)
	if st.buf = st.enc.done(st.buf); len(st.buf) > n {
		st.batch = append(st.batch, ChunkTruth{Kind: ChunkDone})
	}
	st.tailSent = true
}

// midStreamFault acts out st.f; false ends the response.
func (st *streamer) midStreamFault() bool {
	switch st.f.name {
	case FaultDrop:
		// Abort the handler: net/http closes the connection without the
		// terminating chunk, so the client sees the body end early.
		panic(http.ErrAbortHandler)
	case FaultStall:
		if !sleepCtx(st.r, st.s.cfg.Faults.StallFor) {
			return false
		}
	case FaultMalformed:
		st.buf = st.enc.malformed(st.buf[:0])
		if st.put(ChunkMalformed, 0, time.Time{}, st.buf) != nil {
			return false
		}
	case FaultErrorEvent:
		st.buf = st.enc.errorEvent(st.buf[:0])
		st.buf = st.enc.done(st.buf)
		_ = st.put(ChunkError, 0, time.Time{}, st.buf)
		return false
	case FaultModelStreamError, FaultInternalStreamFailure:
		es, ok := st.out.(*esSink)
		if !ok {
			return true
		}
		start := time.Now()
		if st.f.name == FaultModelStreamError {
			_ = es.ew.WriteException(eventstream.ModelStreamError, st.s.cfg.Faults.ModelStreamErrorCode,
				"Your model primary did not complete sending the inference response in the allotted time. (injected fault)")
		} else {
			_ = es.ew.WriteException(eventstream.InternalStreamFailure, "",
				"The stream processing failed because of an unknown error, exception or failure. Try your request again. (injected fault)")
		}
		st.t.Chunks = append(st.t.Chunks, ChunkTruth{Kind: ChunkError, WriteStart: start, WriteEnd: time.Now()})
		return false
	}
	return true
}

// whole waits for every token and writes one JSON body with usage.
func (st *streamer) whole() {
	target := st.sq.target
	for st.sq.progress() < target {
		if !st.wait(nil) {
			return
		}
	}
	var due time.Time
	if target > 0 {
		due = st.sq.dueOf(target - 1)
	}
	st.t.CompletionTokens = target
	st.t.FinishReason = st.enc.finish
	_ = st.put(ChunkBody, target, due, st.enc.wholeBody())
}

// Package calibrate compares what a client measured with what the server
// did: it reads the simulator's ground truth (llmbench sim --truth-log),
// matches each record to the server's record of the same request by
// request id, and summarizes the client's TTFT and ITL errors per step,
// then finds the largest load measured within a given TTFT error
// (docs/fidelity.md, "Calibrate").
//
// calibrate is pure: it starts no process and opens no connection;
// `llmbench calibrate` drives the steps.
package calibrate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/record"
)

// Truth is the server's record of one request: when it reached the
// handler and when each token chunk's write started, in Unix nanoseconds
// on the server's monotonic-derived clock.
type Truth struct {
	Arrival int64
	Writes  []int64
}

// truthLine is the part of a truth-log line calibrate reads (the
// simulator's JSON-lines format, internal/sim/truth.go).
type truthLine struct {
	RequestID string `json:"request_id"`
	ArrivalNS int64  `json:"arrival_unix_ns"`
	Chunks    []struct {
		Kind         string `json:"kind"`
		WriteStartNS int64  `json:"write_start_unix_ns"`
	} `json:"chunks"`
}

// ReadTruth reads a truth log into a map by request id; lines without an
// id (the models list, a preconnect) are skipped. Token chunks are those
// of kind "token" and chat's "role" chunk, which the client stamps as
// token chunks too.
func ReadTruth(r io.Reader) (map[string]Truth, error) {
	out := map[string]Truth{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l truthLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("truth log line %d: %w", n, err)
		}
		if l.RequestID == "" {
			continue
		}
		t := Truth{Arrival: l.ArrivalNS}
		for _, c := range l.Chunks {
			if c.Kind == "token" || c.Kind == "role" {
				t.Writes = append(t.Writes, c.WriteStartNS)
			}
		}
		out[l.RequestID] = t
	}
	return out, sc.Err()
}

// Errors are a step's client errors against the ground truth, in ms:
// client figure − server figure, so positive means the client saw it
// later. TTFT: client (sent → first chunk read) against server (arrival →
// first token write); ITL: each client gap between chunk reads against
// the server's gap between the same writes.
type Errors struct {
	// Matched counts successful records matched to the truth; Gaps the
	// ITL gaps compared.
	Matched    int     `json:"matched"`
	Gaps       int     `json:"itl_gaps"`
	TTFTMeanMs float64 `json:"ttft_error_mean_ms"`
	TTFTP99Ms  float64 `json:"ttft_error_p99_ms"`
	ITLMeanMs  float64 `json:"itl_error_mean_ms"`
	ITLP99Ms   float64 `json:"itl_error_p99_ms"`
	// ServerTTFTMeanMs is the server's own mean TTFT (arrival → first
	// token write), the figure the client's is compared with.
	ServerTTFTMeanMs float64 `json:"server_ttft_mean_ms"`
}

// Compare matches records (successful ones only) to the truth; id gives
// a record's request id from its index. A record without truth, or with
// another number of token chunks than the server wrote, is an error: the
// client lost or invented a chunk.
func Compare(recs []record.Record, id func(index int) string, truth map[string]Truth) (Errors, error) {
	var e Errors
	var ttft, itl []float64
	var server float64
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		t, ok := truth[id(r.Index)]
		if !ok {
			return e, fmt.Errorf("no ground truth for request %s", id(r.Index))
		}
		if len(t.Writes) != len(r.ITL)+1 {
			return e, fmt.Errorf("request %s: the server wrote %d token chunks, the client stamped %d", id(r.Index), len(t.Writes), len(r.ITL)+1)
		}
		s := float64(t.Writes[0]-t.Arrival) / 1e6
		server += s
		ttft = append(ttft, 1e3*r.TTFT-s)
		for k, g := range r.ITL {
			itl = append(itl, 1e3*g-float64(t.Writes[k+1]-t.Writes[k])/1e6)
		}
	}
	e.Matched, e.Gaps = len(ttft), len(itl)
	if e.Matched > 0 {
		e.ServerTTFTMeanMs = server / float64(e.Matched)
	}
	e.TTFTMeanMs, e.TTFTP99Ms = meanP99(ttft)
	e.ITLMeanMs, e.ITLP99Ms = meanP99(itl)
	return e, nil
}

// meanP99 is the mean and NumPy's linear 99th percentile; NaN when empty.
func meanP99(xs []float64) (mean, p99 float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	slices.Sort(xs)
	pos := 0.99 * float64(len(xs)-1)
	lo := int(pos)
	hi := min(lo+1, len(xs)-1)
	return s / float64(len(xs)), xs[lo] + (pos-float64(lo))*(xs[hi]-xs[lo])
}

// Step is one load level's calibration: its errors and the client's
// self-check figures.
type Step struct {
	Streams int `json:"streams"`
	Errors
	Failed           int     `json:"failed"`
	CPUPerChunkUs    float64 `json:"cpu_per_chunk_us"`
	SchedP99Ms       float64 `json:"sched_latency_p99_ms"`
	DispatchLagP99Ms float64 `json:"dispatch_lag_p99_ms"`
	EventsPerSecond  float64 `json:"events_per_second"`
	Verdict          string  `json:"verdict"`
}

// Within is the largest load whose mean TTFT error is at most boundMs
// (in absolute value) and which lost no request, counting only loads up
// to the first that does not meet it; 0 when even the smallest does not.
func Within(steps []Step, boundMs float64) int {
	s := slices.Clone(steps)
	slices.SortFunc(s, func(a, b Step) int { return a.Streams - b.Streams })
	best := 0
	for _, st := range s {
		if st.Failed > 0 || st.Matched == 0 || math.Abs(st.TTFTMeanMs) > boundMs {
			break
		}
		best = st.Streams
	}
	return best
}

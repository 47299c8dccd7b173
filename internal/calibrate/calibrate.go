// Package calibrate compares what a client measured with what the server
// did: it reads the simulator's ground truth (llmbench sim --truth-log),
// matches each record to the server's record of the same request by
// request id, and summarizes the client's TTFT and ITL errors per
// repetition; a row is one load's repetitions with their spread, and the
// headline is the largest load whose every repetition stayed within a
// given mean TTFT error — withheld when a row rests on too few requests or
// its spread straddles the bound (docs/fidelity.md, "Calibrate").
//
// This file is pure: it starts no process and opens no connection.
// session.go runs the loads and prints the table and headlines as they
// come (Run); process.go is the repetition itself, a fresh simulator
// process ("llmbench sim --truth-log") measured through llmbench's own
// run path (bench.Execute); check.go checks a Config as the command
// takes it and saves the outcome. `llmbench calibrate` binds its flags
// to a Config and calls Check, Run and Save.
package calibrate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/selfcheck"
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

// Repetition is one run of one load against a fresh simulator: its
// errors and the client's self-check figures.
type Repetition struct {
	// Requests is how many requests the repetition sent.
	Requests int `json:"requests"`
	Errors
	Failed           int     `json:"failed"`
	CPUPerChunkUs    float64 `json:"cpu_per_chunk_us"`
	SchedP99Ms       float64 `json:"sched_latency_p99_ms"`
	DispatchLagP99Ms float64 `json:"dispatch_lag_p99_ms"`
	EventsPerSecond  float64 `json:"events_per_second"`
	Verdict          string  `json:"verdict"`
	// WallSeconds is the repetition's timed run.
	WallSeconds float64 `json:"wall_seconds"`
}

// MinHeadlineRequests is the fewest requests a repetition may rest on for
// its row to count in the headline: NumPy's p99 of n ≤ 101 values lies
// between the two largest, 0.99(n−1) − (n−2) of the way to the largest, so
// from 100 values on one outlier no longer sets it and below it tends to
// the maximum; and the mean of fewer moves with single requests (one cold
// connection made a one-request row miss 1 ms; docs/fidelity.md).
const MinHeadlineRequests = 100

// Rule is how much one repetition of a row runs: it holds the row's
// streams for at least Requests requests and at least MinTime of nominal
// request time (the caller repeats it; HeadlineWithin wants two or more).
type Rule struct {
	Requests int
	MinTime  time.Duration
}

// RequestsPerRepetition is how many requests one repetition at streams
// concurrent streams sends: whole waves of streams requests (the closed
// loop keeps streams in flight until the last wave), enough waves for
// Requests requests and for MinTime at nominal per request (the
// simulator's TTFT plus its token gaps). A nominal of 0 leaves the time
// rule out: such requests take no nominal time to count.
func (r Rule) RequestsPerRepetition(streams int, nominal time.Duration) int {
	waves := max(1, ceilDiv(r.Requests, streams))
	if nominal > 0 && r.MinTime > 0 {
		waves = max(waves, int(ceilDiv64(int64(r.MinTime), int64(nominal))))
	}
	if waves > math.MaxInt/streams { // saturate: the caller refuses it as too many
		return math.MaxInt
	}
	return waves * streams
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func ceilDiv64(a, b int64) int64 { return (a + b - 1) / b }

// Range is the least and greatest of a figure over a row's repetitions.
type Range struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// rangeOf spans f over reps; NaN figures (no request) make it NaN.
func rangeOf(reps []Repetition, f func(*Repetition) float64) Range {
	r := Range{Min: math.Inf(1), Max: math.Inf(-1)}
	for i := range reps {
		v := f(&reps[i])
		if math.IsNaN(v) {
			return Range{Min: math.NaN(), Max: math.NaN()}
		}
		r.Min, r.Max = min(r.Min, v), max(r.Max, v)
	}
	if len(reps) == 0 {
		return Range{Min: math.NaN(), Max: math.NaN()}
	}
	return r
}

// Row is one load's repetitions and their spread.
type Row struct {
	Streams     int          `json:"streams"`
	Repetitions []Repetition `json:"repetitions"`
	// The spread of each error figure over the repetitions.
	TTFTMeanMs Range `json:"ttft_error_mean_ms"`
	TTFTP99Ms  Range `json:"ttft_error_p99_ms"`
	ITLMeanMs  Range `json:"itl_error_mean_ms"`
	ITLP99Ms   Range `json:"itl_error_p99_ms"`
	// Failed sums the repetitions' failures; Verdict is the worst
	// repetition's self-check verdict.
	Failed  int    `json:"failed"`
	Verdict string `json:"verdict"`
}

// NewRow summarizes a load's repetitions.
func NewRow(streams int, reps []Repetition) Row {
	row := Row{Streams: streams, Repetitions: reps,
		TTFTMeanMs: rangeOf(reps, func(r *Repetition) float64 { return r.TTFTMeanMs }),
		TTFTP99Ms:  rangeOf(reps, func(r *Repetition) float64 { return r.TTFTP99Ms }),
		ITLMeanMs:  rangeOf(reps, func(r *Repetition) float64 { return r.ITLMeanMs }),
		ITLP99Ms:   rangeOf(reps, func(r *Repetition) float64 { return r.ITLP99Ms }),
	}
	rank := map[string]int{string(selfcheck.Valid): 1, string(selfcheck.Degraded): 2, string(selfcheck.Invalid): 3}
	for _, r := range reps {
		row.Failed += r.Failed
		// An unknown verdict (none measured) ranks below valid: it is not
		// a judgement and must not hide one.
		if rank[r.Verdict] > rank[row.Verdict] || row.Verdict == "" {
			row.Verdict = r.Verdict
		}
	}
	return row
}

// Headline is the largest load measured within a bound of mean TTFT
// error, or why that cannot be said.
type Headline struct {
	// Streams is the largest load, of those tried and counting up to the
	// first that is not within, whose every repetition's mean TTFT error
	// was within the bound; 0 when none was. When not Resolved it is the
	// largest load known to be within (the answer is at least that).
	Streams int `json:"streams"`
	// Resolved is false when a row's repetitions do not settle whether
	// it is within: too few repetitions or requests, or a spread that
	// straddles the bound. Reason then says which row and why.
	Resolved bool   `json:"resolved"`
	Reason   string `json:"reason,omitempty"`
}

// HeadlineWithin scans the rows by load. A row is within when every
// repetition lost no request and its mean TTFT error is at most boundMs
// in absolute value, and out when a request failed or every repetition's
// mean is beyond the bound; the scan stops at the first row that is out.
// A row that is neither, or that rests on fewer than two repetitions or
// on a repetition of fewer than MinHeadlineRequests requests, leaves the
// headline unresolved: one figure cannot say which side of the bound a
// load is on (three runs of the one-request version on one machine said
// 1 stream, 100 streams and none).
func HeadlineWithin(rows []Row, boundMs float64) Headline {
	s := slices.Clone(rows)
	slices.SortFunc(s, func(a, b Row) int { return a.Streams - b.Streams })
	h := Headline{Resolved: true}
	for _, row := range s {
		if row.Failed > 0 {
			return h
		}
		if len(row.Repetitions) < 2 {
			return unresolved(h, fmt.Sprintf("%s ran %d repetition, which gives no spread", loadName(row.Streams), len(row.Repetitions)))
		}
		for _, r := range row.Repetitions {
			if r.Matched < MinHeadlineRequests {
				return unresolved(h, fmt.Sprintf("%s: a repetition rests on %d requests, fewer than the %d a mean and p99 need",
					loadName(row.Streams), r.Matched, MinHeadlineRequests))
			}
		}
		lo, hi := row.TTFTMeanMs.Min, row.TTFTMeanMs.Max
		switch {
		case math.Max(math.Abs(lo), math.Abs(hi)) <= boundMs:
			h.Streams = row.Streams
		case lo > boundMs || hi < -boundMs:
			return h
		default:
			return unresolved(h, fmt.Sprintf("%s: mean TTFT error %.3f to %.3f ms over %d repetitions, across the %g ms bound",
				loadName(row.Streams), lo, hi, len(row.Repetitions), boundMs))
		}
	}
	return h
}

func unresolved(h Headline, reason string) Headline {
	h.Resolved, h.Reason = false, reason
	return h
}

// loadName names a load: "1 stream", "100 streams".
func loadName(n int) string {
	if n == 1 {
		return "1 stream"
	}
	return fmt.Sprintf("%d streams", n)
}

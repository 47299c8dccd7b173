package step

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/progress"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
	"github.com/llmbench/llmbench/internal/record"
)

// stepBackend answers at once with two chunks, or fails every request as
// a refused connection.
type stepBackend struct{ refuse bool }

func (b stepBackend) Send(_ context.Context, _ *backend.Request, resp *backend.Response) {
	resp.Start = time.Now()
	if b.refuse {
		resp.Err, resp.ErrClass = errors.New("connect: connection refused"), record.ErrConnection
		return
	}
	resp.Chunks = backend.StampsOf(resp.Start, resp.Start.Add(time.Millisecond))
	resp.Text, resp.FinishReason = "a b", "length"
}

// TestStepSinksAllSeeTheEnd: the sinks a run gives its step — the
// records file, live metrics and the progress line, as Runner.Run wires
// them (here a drawn progress line, which Run draws only on a terminal)
// — each see the step's end, whether it ends with an outcome or stops
// early. The live exporter used to wrap the hooks and replace the one
// end-of-step callback: a second observer of the end was silently lost.
//
//   - records: with an outcome its count of requests never sent reaches
//     the closing line (only End knows it); stopped early, the file is
//     closed at once without a closing line, its records kept;
//   - live: the self-check gauges are set from the outcome (none when
//     stopped early);
//   - progress: its line is cleared and its ticker stopped.
func TestStepSinksAllSeeTheEnd(t *testing.T) {
	t.Parallel()
	reqs := make([]backend.Request, 8)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, MaxTokens: 2}
	}
	sched := make([]time.Duration, len(reqs))
	for i := 4; i < len(sched); i++ {
		sched[i] = time.Hour // past the step's duration: never sent
	}
	for _, tt := range []struct {
		name    string
		plan    bench.Plan
		outcome bool
	}{
		{"a step that ends", bench.Plan{Backend: stepBackend{}, Requests: reqs, Schedule: sched,
			Load: bench.Load{Duration: 300 * time.Millisecond}}, true},
		{"a step stopped early", bench.Plan{Backend: stepBackend{refuse: true}, Requests: reqs, AbortAfter: 3,
			Load: bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: 1}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "r.records.jsonl")
			var errw strings.Builder
			rec := &recfile.File{Path: path, Errw: &errw}
			live := promsink.From(promexport.New(promexport.Config{}))
			var bar syncBuf
			p := progress.On(&bar, len(reqs))
			out, err := bench.Execute(t.Context(), &tt.plan, bench.Hooks{
				Sink: bench.Sinks{rec, live.Sink(), p}, InFlight: live.Counter()})
			if (err == nil) != tt.outcome {
				t.Fatalf("Execute: %v", err)
			}
			// The progress line: cleared last (its ticker stops then:
			// internal/progress, TestBarDraws).
			if s := bar.String(); !strings.HasSuffix(s, "\r\033[K") {
				t.Errorf("progress line not cleared at the end: %q", s)
			}
			// Live metrics: the self-check's verdict, from the outcome only.
			if got := hasSeries(t, live.Exporter(), "llmbench_client_verdict"); got != tt.outcome {
				t.Errorf("live metrics: self-check verdict published %v, want %v", got, tt.outcome)
			}
			// The records file.
			if tt.outcome {
				rec.Close(&record.Params{DurationS: 1})
				if n := closingLine(t, path).NotSent; n != out.NotSent || n != 4 {
					t.Errorf("closing line: not_sent %d, outcome %d; want 4", n, out.NotSent)
				}
			} else if rec.Open() {
				t.Error("the records file of a step stopped early is still open")
			}
			params, recs, _, err := record.ReadFile(path)
			if err != nil || len(recs) < 3 || params.Unfinished == tt.outcome {
				t.Errorf("records file: %d records, unfinished %v, %v", len(recs), params.Unfinished, err)
			}
			if errw.Len() > 0 {
				t.Errorf("records file errors: %s", errw.String())
			}
		})
	}
}

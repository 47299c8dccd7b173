package step

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/recfile"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/promexport/promsink"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/servermetrics"
)

// fakeBackend answers each request with two chunks gap apart, or fails
// every one as a refused connection; with interrupt set, the call numbered
// interruptAt plays Ctrl-C.
type fakeBackend struct {
	refuse      bool
	gap         time.Duration
	interruptAt int64
	interrupt   context.CancelFunc
	calls       atomic.Int64
}

func (b *fakeBackend) Send(_ context.Context, _ *backend.Request, resp *backend.Response) {
	if n := b.calls.Add(1); b.interrupt != nil && n == b.interruptAt {
		b.interrupt()
	}
	resp.Start = time.Now()
	if b.refuse {
		resp.Err, resp.ErrClass = errors.New("connect: connection refused"), record.ErrConnection
		return
	}
	time.Sleep(b.gap)
	first := time.Now()
	time.Sleep(b.gap)
	resp.Chunks = backend.StampsOf(first, time.Now())
	resp.Text, resp.FinishReason = "a b", "length"
}

// server plays a vLLM server's /metrics and /reset_prefix_cache, counting
// the calls to each.
type server struct {
	*httptest.Server
	scrapes, resets atomic.Int64
}

func newServer(t *testing.T) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "GET /metrics":
			s.scrapes.Add(1)
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			_, _ = w.Write([]byte("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 1\n"))
		case "POST /reset_prefix_cache":
			s.resets.Add(1)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// plan is n requests at an infinite rate, at most 2 in flight.
func plan(be backend.Backend, n int) *bench.Plan {
	reqs := make([]backend.Request, n)
	for i := range reqs {
		reqs[i] = backend.Request{Index: i, MaxTokens: 2}
	}
	two := 2
	return &bench.Plan{Backend: be, Requests: reqs, AbortAfter: 3,
		Load: bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: 2},
		Params: record.Params{RequestRate: record.Rate(math.Inf(1)), Burstiness: 1, MaxConcurrency: &two,
			PercentileMetrics: "ttft,tpot,itl,e2el", MetricPercentiles: "50,99"}}
}

// syncBuf is a strings.Builder safe for the scrapers' warnings.
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

// TestRun: Run wires the step's companions — the server's view, the
// records file, live metrics, the progress line (off a terminal: none) —
// each optional, and Close ends them: the server's Result in the records
// file's closing line with the final params, the cross-check (none for a
// worker). A step stopped early is an error whose records file is closed
// unfinished; an interrupted one is no error, its file left open for the
// caller's close.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// records, live and server ask for the companion; worker is
		// Runner.Worker; refuse makes every request fail alike,
		// interrupt plays Ctrl-C at the third request.
		records, live, server, worker bool
		refuse, interrupt             bool
	}{
		{name: "bare: every companion optional"},
		{name: "every companion", records: true, live: true, server: true},
		{name: "a worker: its share is not the server's, nothing cross-checked", records: true, server: true, worker: true},
		{name: "records without the server: no server_metrics at the end", records: true},
		{name: "stopped early: an error, the file ends unfinished", records: true, live: true, server: true, refuse: true},
		{name: "interrupted: no error, the file waits for the close", records: true, live: true, server: true, interrupt: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			be := &fakeBackend{refuse: tt.refuse, gap: time.Millisecond}
			if tt.interrupt {
				be.interrupt, be.interruptAt = cancel, 3
			}
			var errw syncBuf
			r := &Runner{TTY: &errw, Errw: &errw, Worker: tt.worker}
			var srv *server
			if tt.server {
				srv = newServer(t)
				r.Server = servermetrics.Options{Spec: "auto", Interval: 20 * time.Millisecond, ResetPrefixCache: true}
				r.Base = srv.URL
			}
			if tt.live {
				r.Live = promsink.From(promexport.New(promexport.Config{}))
			}
			var rec *recfile.File
			path := filepath.Join(t.TempDir(), "r.records.jsonl")
			if tt.records {
				rec = &recfile.File{Path: path}
			}
			p := plan(be, 40)
			st, err := r.Run(ctx, p, rec)
			if tt.live {
				if got := hasSeries(t, r.Live.Exporter(), "llmbench_client_verdict"); got != !tt.refuse {
					t.Errorf("live: self-check verdict published %v, want %v", got, !tt.refuse)
				}
			}
			if tt.refuse {
				if e := (*bench.EndpointError)(nil); !errors.As(err, &e) || st != nil {
					t.Fatalf("Run = %v, %v; want an *bench.EndpointError", st, err)
				}
				if rec.Open() {
					t.Error("the records file of a step stopped early is still open")
				}
				if params, _, _, err := record.ReadFile(path); err != nil || !params.Unfinished {
					t.Errorf("records file: unfinished %v, %v; want unfinished", params.Unfinished, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, errw.String())
			}
			if st.Outcome.Interrupted != tt.interrupt || (st.Outcome.NotSent > 0) != tt.interrupt {
				t.Errorf("interrupted %v, not sent %d; want interrupted %v", st.Outcome.Interrupted, st.Outcome.NotSent, tt.interrupt)
			}
			if st.Records.Open() != tt.records {
				t.Errorf("records file open %v before the close, want %v", st.Records.Open(), tt.records)
			}
			if (st.Server != nil) != tt.server || (st.Server.Result() != nil) != tt.server {
				t.Errorf("server view %v, result %v; want %v (stopped by Run)", st.Server != nil, st.Server.Result() != nil, tt.server)
			}
			if tt.server && (srv.resets.Load() != 1 || srv.scrapes.Load() < 2) {
				t.Errorf("server: %d resets, %d scrapes; want 1 reset before the timed run and scrapes around it",
					srv.resets.Load(), srv.scrapes.Load())
			}
			sum, err := bench.Summarize(p, st.Outcome)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := st.Close(sum); err != nil {
				t.Fatal(err)
			}
			if st.Records.Open() {
				t.Error("the records file is open after Close")
			}
			if checked := st.Server.CrossCheckNotes() != nil; checked != (tt.server && !tt.worker) {
				t.Errorf("cross-checked %v, want %v", checked, tt.server && !tt.worker)
			}
			if !tt.records {
				return
			}
			end := closingLine(t, path)
			if _, ok := end.Extras["server_metrics"]; ok != tt.server {
				t.Errorf("closing line: server_metrics %v, want %v", ok, tt.server)
			}
			if end.Params.Interrupted != tt.interrupt || end.NotSent != st.Outcome.NotSent || end.Records != len(st.Outcome.Records) {
				t.Errorf("closing line: interrupted %v, not_sent %d, records %d; want %v, %d, %d", end.Params.Interrupted,
					end.NotSent, end.Records, tt.interrupt, st.Outcome.NotSent, len(st.Outcome.Records))
			}
			if strings.Contains(errw.String(), "Error") {
				t.Errorf("errors on errw: %s", errw.String())
			}
		})
	}
}

// TestCloseSteadyState: Close returns the step's steady_state under
// vLLM's gate (bench.SteadyState) with the Runner's options: computed for
// a closed loop at an infinite rate, null (written, nil) when disabled or
// at a finite rate, absent for conversations, an error for bad options.
func TestCloseSteadyState(t *testing.T) {
	t.Parallel()
	zero := 0.0
	tests := []struct {
		name      string
		opt       metrics.SteadyStateOptions
		rate      float64
		convs     bool
		write, ss bool
		err       bool
	}{
		{"closed loop at inf: computed", metrics.SteadyStateOptions{MinWindow: &zero}, math.Inf(1), false, true, true, false},
		{"--no-steady-state: null", metrics.SteadyStateOptions{Disabled: true, MinWindow: &zero}, math.Inf(1), false, true, false, false},
		{"a finite rate: null", metrics.SteadyStateOptions{MinWindow: &zero}, 10, false, true, false, false},
		{"conversations: no key", metrics.SteadyStateOptions{MinWindow: &zero}, math.Inf(1), true, false, false, false},
		{"a threshold out of (0, 1]: an error", metrics.SteadyStateOptions{Threshold: 2}, math.Inf(1), false, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := plan(nil, 0)
			p.Params.RequestRate = record.Rate(tt.rate)
			if tt.convs {
				p.Conversations = []bench.Conversation{{}}
			}
			// Two requests in flight all along: pairs back to back.
			o := &bench.Outcome{Start: time.Unix(1_700_000_000, 0), Duration: 2 * time.Second}
			for i := range 40 {
				n := 10
				o.Records = append(o.Records, record.Record{Index: i, Success: true, PromptLen: 8, OutputTokens: &n,
					TTFT: 0.01, ITL: slices.Repeat([]float64{0.01}, 9), Latency: 0.1, StartTime: float64(i/2) * 0.1})
			}
			sum, err := bench.Summarize(p, o)
			if err != nil {
				t.Fatal(err)
			}
			st := &Step{Plan: p, Outcome: o, Records: &recfile.File{}, steady: tt.opt}
			write, ss, err := st.Close(sum)
			if (err != nil) != tt.err || write != tt.write || (ss != nil) != tt.ss {
				t.Errorf("Close = %v, %v, %v; want write %v, steady state %v, error %v", write, ss, err, tt.write, tt.ss, tt.err)
			}
		})
	}
}

// hasSeries reports whether exp exports a series of the metric name.
func hasSeries(t *testing.T, exp *promexport.Exporter, name string) bool {
	t.Helper()
	mfs, err := exp.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return true
		}
	}
	return false
}

// closingLine is a records file's closing line.
func closingLine(t *testing.T, path string) record.End {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var end record.End
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &end); err != nil || end.Version != 1 {
		t.Fatalf("last line %q is not a closing line (%v)", lines[len(lines)-1], err)
	}
	return end
}

package sweep

import (
	"math"
	"testing"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/load"
)

// TestStepPlanKeepsTheRateCap: a rate step keeps the run's
// --max-concurrency, in its load (the dispatcher holds requests back
// before their clock starts, as vLLM's semaphore does) and in its
// parameters (the result's max_concurrency); a closed-loop step holds its
// own load in flight. A rate step used to drop the cap while the
// connection pool kept it, so requests queued for a connection inside
// their own TTFT (1196 ms against a 200 ms server) and the result said
// no cap.
func TestStepPlanKeepsTheRateCap(t *testing.T) {
	t.Parallel()
	base := &bench.Plan{Requests: make([]backend.Request, 4),
		Load: bench.Load{Arrivals: load.Arrivals{Rate: math.Inf(1), Burstiness: 1}, MaxConcurrency: 3}}
	for _, tt := range []struct {
		kind      capacity.Kind
		load      float64
		wantLoad  int // the dispatcher's cap (0: none; a closed loop's users)
		wantParam int
	}{
		{capacity.RequestRate, 5, 3, 3},
		{capacity.Concurrency, 8, 0, 8},
		{capacity.Users, 6, 0, 6},
	} {
		d := New(Config{Kind: tt.kind, Loads: []float64{tt.load}, PromptsPerStep: 4}, base, nil, nil)
		d.n = 1
		p, err := d.stepPlan(tt.load, 1)
		if err != nil {
			t.Fatal(err)
		}
		if p.Load.MaxConcurrency != tt.wantLoad || p.Params.MaxConcurrency == nil || *p.Params.MaxConcurrency != tt.wantParam {
			t.Errorf("%v %g: load cap %d, max_concurrency %v; want %d and %d", tt.kind, tt.load, p.Load.MaxConcurrency,
				p.Params.MaxConcurrency, tt.wantLoad, tt.wantParam)
		}
	}
}

// TestMostInFlight: the open-file check's streams are a closed ladder's
// largest load, or a rate ladder's cap.
func TestMostInFlight(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		kind  capacity.Kind
		loads []float64
		cap   int
		want  int
	}{
		{capacity.Concurrency, []float64{1, 400, 8}, 0, 400},
		{capacity.Users, []float64{300, 2}, 0, 300},
		{capacity.RequestRate, []float64{1, 2}, 400, 400},
		{capacity.RequestRate, []float64{1000}, 0, 0},
	} {
		c := Config{Kind: tt.kind, Loads: tt.loads}
		if got := c.MostInFlight(tt.cap); got != tt.want {
			t.Errorf("%v %v cap %d: %d, want %d", tt.kind, tt.loads, tt.cap, got, tt.want)
		}
	}
}

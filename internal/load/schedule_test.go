package load

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// golden mirrors testdata/numpy_golden.json: schedules computed with vLLM's
// get_request arithmetic on NumPy (testdata/gen_numpy.py). The gamma
// sampler's own vectors live with it in internal/numpyrand.
type golden struct {
	Schedules []struct {
		N          int       `json:"n"`
		Rate       any       `json:"rate"`
		Burstiness any       `json:"burstiness"`
		Seed       int64     `json:"seed"`
		Ramp       string    `json:"ramp"`
		Start      int       `json:"start"`
		End        int       `json:"end"`
		Offsets    []float64 `json:"offsets"`
		Rates      []any     `json:"rates"`
	} `json:"schedules"`
}

func loadGolden(t *testing.T) *golden {
	t.Helper()
	b, err := os.ReadFile("testdata/numpy_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Schedules) == 0 {
		t.Fatal("golden file has no schedules")
	}
	return &g
}

func num(v any) float64 {
	if s, ok := v.(string); ok && s == "inf" {
		return math.Inf(1)
	}
	return v.(float64)
}

// closeTo reports whether a and b agree to within a few units in the last
// place: the only differences left are Go's math.Log/Pow against the C
// library's in the last bit.
func closeTo(a, b float64) bool {
	if a == b || (math.IsInf(a, 1) && math.IsInf(b, 1)) {
		return true
	}
	return math.Abs(a-b) <= 1e-13*math.Max(math.Abs(a), math.Abs(b))
}

// TestScheduleMatchesVLLM compares whole schedules with vLLM's get_request
// arithmetic run on NumPy.
func TestScheduleMatchesVLLM(t *testing.T) {
	t.Parallel()
	g := loadGolden(t)
	for _, c := range g.Schedules {
		a := Arrivals{Rate: num(c.Rate), Burstiness: num(c.Burstiness), Seed: c.Seed,
			RampStrategy: c.Ramp, RampStartRPS: c.Start, RampEndRPS: c.End}
		p, err := Schedule(c.N, a)
		if err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		for i := range c.Offsets {
			if !closeTo(p.Seconds[i], c.Offsets[i]) || !closeTo(p.Rates[i], num(c.Rates[i])) {
				t.Fatalf("%+v: request %d at %v s rate %v; vLLM %v s rate %v", a, i, p.Seconds[i], p.Rates[i], c.Offsets[i], c.Rates[i])
			}
			if want := time.Duration(math.Round(c.Offsets[i] * 1e9)); p.Offsets[i]-want > 1 || want-p.Offsets[i] > 1 {
				t.Fatalf("%+v: offset %d = %v, want %v", a, i, p.Offsets[i], want)
			}
		}
	}
}

func TestScheduleProperties(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	tests := []struct {
		why   string
		n     int
		a     Arrivals
		check func(p *Plan) string
	}{
		{"inf rate: everything at 0", 5, Arrivals{}, func(p *Plan) string {
			for _, o := range p.Offsets {
				if o != 0 {
					return "non-zero offset"
				}
			}
			return ""
		}},
		{"constant spacing 1/rate, last at n/rate", 4, Arrivals{Rate: 2, Burstiness: inf}, func(p *Plan) string {
			for i, o := range p.Offsets {
				if o != time.Duration(i+1)*500*time.Millisecond {
					return "offset " + o.String()
				}
			}
			return ""
		}},
		{"Poisson: last at exactly n/rate, first > 0, non-decreasing", 1000, Arrivals{Rate: 50, Seed: 3}, func(p *Plan) string {
			if p.Seconds[999] != 20 || p.Offsets[0] <= 0 {
				return "bad ends"
			}
			for i := 1; i < len(p.Offsets); i++ {
				if p.Offsets[i] < p.Offsets[i-1] {
					return "decreasing"
				}
			}
			// Mean gap 1/rate: about 20 s / 1000; the first gap's share is
			// random, so check the empirical rate loosely.
			return ""
		}},
		{"same seed, same schedule; another seed differs", 10, Arrivals{Rate: 5, Seed: 1}, func(p *Plan) string {
			q, _ := Schedule(10, Arrivals{Rate: 5, Seed: 1})
			r, _ := Schedule(10, Arrivals{Rate: 5, Seed: 2})
			if q.Offsets[3] != p.Offsets[3] || r.Offsets[3] == p.Offsets[3] {
				return "seeding"
			}
			return ""
		}},
		{"linear ramp with one request uses progress 0", 1, Arrivals{RampStrategy: RampLinear, RampStartRPS: 2, RampEndRPS: 4}, func(p *Plan) string {
			if p.Rates[0] != 2 {
				return "rate"
			}
			return ""
		}},
		{"zero requests", 0, Arrivals{Rate: 3}, func(p *Plan) string {
			if len(p.Offsets) != 0 {
				return "len"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		p, err := Schedule(tt.n, tt.a)
		if err != nil {
			t.Fatalf("%s: %v", tt.why, err)
		}
		if msg := tt.check(p); msg != "" {
			t.Errorf("%s: %s (%v)", tt.why, msg, p.Offsets)
		}
	}
}

func TestScheduleRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		why string
		n   int
		a   Arrivals
		msg string
	}{
		{"negative burstiness", 1, Arrivals{Burstiness: -1}, "positive burstiness"},
		{"NaN rate", 1, Arrivals{Rate: math.NaN()}, "request rate"},
		{"negative rate", 1, Arrivals{Rate: -2}, "request rate"},
		{"seed too large", 1, Arrivals{Seed: 1 << 32}, "seed must be"},
		{"ramp with a finite rate", 1, Arrivals{Rate: 3, RampStrategy: RampLinear, RampEndRPS: 2}, "do not specify --request-rate"},
		{"ramp start > end", 1, Arrivals{RampStrategy: RampLinear, RampStartRPS: 5, RampEndRPS: 2}, "less than end"},
		{"negative ramp", 1, Arrivals{RampStrategy: RampLinear, RampStartRPS: -1, RampEndRPS: 2}, "non-negative"},
		{"exponential from 0", 1, Arrivals{RampStrategy: RampExponential, RampEndRPS: 2}, "cannot be 0"},
		{"unknown strategy", 1, Arrivals{RampStrategy: "sine"}, "unknown ramp-up strategy"},
		{"linear from 0 passes validation but fails on request 0", 3, Arrivals{RampStrategy: RampLinear, RampEndRPS: 2}, "non-positive request rate 0 for request 0"},
		{"negative n", -1, Arrivals{}, "must be >= 0"},
	}
	for _, tt := range tests {
		if _, err := Schedule(tt.n, tt.a); err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %v, want %q", tt.why, err, tt.msg)
		}
	}
}

func TestRPSChanges(t *testing.T) {
	t.Parallel()
	rates := []float64{1, 1.5, 2.2, 4.9, 5, 5.1}
	at := []time.Duration{0, 1e9, 2e9, 3e9, 4e9, 5e9}
	got := RPSChanges(1, rates, at)
	want := []RPSChange{{1, 0}, {2, 2e9}, {3, 3e9}, {4, 3e9}, {5, 4e9}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if RPSChanges(-1, rates, at) != nil {
		t.Error("no ramp should give nil")
	}
}

package capacity

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSLA(t *testing.T) {
	t.Parallel()
	got, err := ParseSLA(" p99_ttft_ms<500, p99.9_itl_ms<=30,error_rate<0.01,p10_per_user_tps>=20,output_throughput>1000")
	if err != nil {
		t.Fatal(err)
	}
	want := SLA{
		{"p99_ttft_ms", "<", 500}, {"p99.9_itl_ms", "<=", 30}, {"error_rate", "<", 0.01},
		{"p10_per_user_tps", ">=", 20}, {"output_throughput", ">", 1000},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if s := got.String(); s != "p99_ttft_ms<500,p99.9_itl_ms<=30,error_rate<0.01,p10_per_user_tps>=20,output_throughput>1000" {
		t.Errorf("String() = %q", s)
	}
	if p := got.Percentiles(); !cmp.Equal(p, []float64{99, 99.9}) {
		t.Errorf("Percentiles() = %v, want [99 99.9]", p)
	}
	if m := got.Metrics(); !cmp.Equal(m, []string{"itl", "ttft"}) {
		t.Errorf("Metrics() = %v, want [itl ttft]", m)
	}
	if s, err := ParseSLA("  "); s != nil || err != nil {
		t.Errorf("empty SLA = %v, %v; want nil, nil", s, err)
	}
}

func TestParseSLAErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, msg string
	}{
		{"p99_ttft_ms", "is not KEY<VALUE"},                    // no operator
		{"<500", "is not KEY<VALUE"},                           // no key
		{"p99_ttft_ms<abc", `"abc" is not a finite number`},    // bad number
		{"p99_ttft_ms<inf", "not a finite number"},             // infinite limit
		{"p99_ttft<500", `unknown key "p99_ttft"`},             // missing _ms
		{"p101_ttft_ms<500", "unknown key"},                    // percentile over 100
		{"p99_ttft_ms>500", "lower is better"},                 // a latency floor makes no sense
		{"error_rate>0.1", "lower is better"},                  // neither does an error floor
		{"output_throughput<100", "higher is better"},          // nor a throughput ceiling
		{"p99_ttft_ms<-1", "must not be negative"},             // negative limit
		{"p99_ttft_ms<500,,p99_itl_ms<30", "is not KEY<VALUE"}, // empty item
		{"p99_ttft_ms=500", "is not KEY<VALUE"},                // = alone is no op
		{"p99_ttft_ms<<500", `"<500" is not a finite number`},  // doubled op
	} {
		_, err := ParseSLA(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseSLA(%q) = %v, want an error containing %q", tt.in, err, tt.msg)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSLA(%q): error is not one line: %q", tt.in, err)
		}
	}
}

func TestTermPassHeadroom(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		term     Term
		v        float64
		pass     bool
		headroom float64
	}{
		{Term{"p99_ttft_ms", "<", 500}, 400, true, 0.2},
		{Term{"p99_ttft_ms", "<", 500}, 500, false, 0}, // < is strict
		{Term{"p99_ttft_ms", "<=", 500}, 500, true, 0}, // <= is not
		{Term{"p99_ttft_ms", "<", 500}, 600, false, -0.2},
		{Term{"output_throughput", ">", 1000}, 1200, true, 0.2},
		{Term{"output_throughput", ">=", 1000}, 1000, true, 0},
		{Term{"error_rate", "<=", 0}, 0.02, false, -0.02}, // zero limit: headroom in the key's unit
		{Term{"p99_ttft_ms", "<", 500}, math.NaN(), false, math.NaN()},
	} {
		if got := tt.term.Pass(tt.v); got != tt.pass {
			t.Errorf("%v at %v: pass %v, want %v", tt.term, tt.v, got, tt.pass)
		}
		h := tt.term.Headroom(tt.v)
		if !(math.Abs(h-tt.headroom) < 1e-12 || math.IsNaN(h) && math.IsNaN(tt.headroom)) {
			t.Errorf("%v at %v: headroom %v, want %v", tt.term, tt.v, h, tt.headroom)
		}
	}
}

func TestKeyWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"p99_ttft_ms": "p99 TTFT", "mean_itl_ms": "mean ITL", "p99.9_e2el_ms": "p99.9 E2EL",
		"error_rate": "error rate", "p10_per_user_tps": "p10 per user TPS",
	} {
		if got := keyWords(in); got != want {
			t.Errorf("keyWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMinRequests(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]int{
		"p99_ttft_ms": 100, "p99.9_e2el_ms": 1000, "p90_tpot_ms": 10, "median_ttft_ms": 2, "p50_ttft_ms": 2,
		"mean_ttft_ms": 0, "p99_itl_ms": 0, "error_rate": 0, "output_throughput": 0,
	} {
		if got := MinRequests(key); got != want {
			t.Errorf("MinRequests(%s) = %d, want %d", key, got, want)
		}
	}
	sla, _ := ParseSLA("p90_ttft_ms<500,p99_e2el_ms<9000,mean_itl_ms<30")
	if got := sla.MinRequestsFor(); got != 100 {
		t.Errorf("MinRequestsFor = %d, want 100", got)
	}
}

// TestSmallSampleNote: a step whose SLA percentile rests on fewer
// requests than it needs says so (issue 29: a p99 of 6 requests fed the
// verdict silently).
func TestSmallSampleNote(t *testing.T) {
	t.Parallel()
	rows := rowsOf(Concurrency, 0, spec{load: 1, tput: 100, p99TTFT: 40, p99ITL: 9}, spec{load: 2, tput: 190, p99TTFT: 42, p99ITL: 9})
	rows[0].Completed = 6
	sla, _ := ParseSLA("p99_ttft_ms<500,median_e2el_ms<90000")
	s, err := Analyze(Concurrency, sla, rows)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 concurrent user: p99 TTFT rests on 6 completed requests; a p99 needs at least 100 (raise --prompts-per-step or --step-duration)"}
	if fmt.Sprint(s.Notes) != fmt.Sprint(want) {
		t.Errorf("notes %q, want %q", s.Notes, want)
	}
}

// TestWithErrorGate: a sweep's SLA gets error_rate<=rate unless it has an
// error_rate term of its own; an empty SLA, which judges nothing, none.
func TestWithErrorGate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sla, want string
		gate      bool
	}{
		{"p99_ttft_ms<500", "p99_ttft_ms<500,error_rate<=0.05", true},
		{"p99_ttft_ms<500,error_rate<0.2", "p99_ttft_ms<500,error_rate<0.2", false},
		{"", "", false},
	}
	for _, tt := range tests {
		sla, err := ParseSLA(tt.sla)
		if err != nil {
			t.Fatal(err)
		}
		got, gate := sla.WithErrorGate(0.05)
		if got.String() != tt.want || gate != tt.gate {
			t.Errorf("%q: %q, gate %v; want %q, %v", tt.sla, got, gate, tt.want, tt.gate)
		}
	}
}

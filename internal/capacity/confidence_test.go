package capacity

import (
	"bytes"
	"math"
	"testing"

	"github.com/llmbench/llmbench/internal/stats"
)

// TestJudgeShareVectors checks the Wilson vectors against a
// p95 term: 95/100 → [0.888, 0.978] unresolved; 100/100 → [0.963, 1.0]
// pass; and a clear miss fails.
func TestJudgeShareVectors(t *testing.T) {
	t.Parallel()
	sla := mustSLA(t, "p95_ttft_ms<500")
	tests := []struct {
		met, n    int
		low, high float64
		want      string
	}{
		{95, 100, 0.888, 0.978, VerdictUnresolved},
		{100, 100, 0.963, 1.0, VerdictPass},
		{80, 100, 0.711, 0.867, VerdictFail},
	}
	for _, tt := range tests {
		r := RowFrom(synthSummary(spec{load: 1, tput: 100, p99TTFT: 100, p99ITL: 10}, Concurrency, 0),
			Step{Load: 1, Kind: Concurrency, Shares: map[string]Share{"p95_ttft_ms": {tt.met, tt.n}}})
		r.Metrics["p95_ttft_ms"] = 90
		evaluate(&r, sla)
		tr := r.SLATerms[0]
		if tr.JudgedOn != JudgedShare || tr.Interval == nil || *tr.TargetShare != 0.95 {
			t.Fatalf("%d/%d: judged on %q, interval %v", tt.met, tt.n, tr.JudgedOn, tr.Interval)
		}
		if math.Abs(tr.Interval.Low-tt.low) > 0.0005 || math.Abs(tr.Interval.High-tt.high) > 0.0005 {
			t.Errorf("%d/%d: interval [%.4f, %.4f], want [%.3f, %.3f]", tt.met, tt.n, tr.Interval.Low, tr.Interval.High, tt.low, tt.high)
		}
		if tr.Verdict != tt.want || r.SLAVerdict != tt.want {
			t.Errorf("%d/%d: term %s, step %s; want %s", tt.met, tt.n, tr.Verdict, r.SLAVerdict, tt.want)
		}
	}
}

// TestShareOf counts values within the limit, equality by the op.
func TestShareOf(t *testing.T) {
	t.Parallel()
	v := []float64{100, 499, 500, 501}
	if got := ShareOf(Term{Key: "p99_ttft_ms", Op: "<", Value: 500}, v); got != (Share{2, 4}) {
		t.Errorf("< 500: %v", got)
	}
	if got := ShareOf(Term{Key: "p99_ttft_ms", Op: "<=", Value: 500}, v); got != (Share{3, 4}) {
		t.Errorf("<= 500: %v", got)
	}
	for key, want := range map[string]float64{"p99_ttft_ms": 0.99, "median_e2el_ms": 0.5, "p95_tpot_ms": 0.95, "p99_itl_ms": 0, "mean_ttft_ms": 0} {
		got, ok := ShareTerm(Term{Key: key})
		if got != want || ok != (want > 0) {
			t.Errorf("ShareTerm(%s) = %v, %v", key, got, ok)
		}
	}
}

// TestGoldenConfidence writes the step verdicts of two synthetic ladders:
// one run per step judged on the Wilson share (pass, pass, unresolved,
// fail: max load 2, not resolved), and three runs per step judged on the
// t interval over the runs.
func TestGoldenConfidence(t *testing.T) {
	t.Parallel()
	// One run: p95 TTFT < 500 with the share of requests under 500 ms
	// counted; and a mean term judged on the mean's t interval.
	one := rowsOf(Concurrency, 0, a100[:5]...)
	shares := []Share{{100, 100}, {100, 100}, {95, 100}, {96, 100}, {80, 100}}
	for i := range one {
		one[i].Metrics["p95_ttft_ms"] = 0.9 * one[i].P99TTFTMs
		one[i].Shares = map[string]Share{"p95_ttft_ms": shares[i]}
		one[i].MeanCI = map[string]stats.Interval{"mean_ttft_ms": {Low: one[i].MeanTTFTMs * 0.9, High: one[i].MeanTTFTMs * 1.1}}
	}
	// Three runs per load: p99 TTFT spread widens with load, so 32 is
	// unresolved (the interval straddles 150) and 64 fails.
	var three []spec
	for _, sp := range a100[:7] {
		for _, f := range []float64{0.95, 1, 1.05} {
			s := sp
			s.p99TTFT *= f
			s.tput *= f
			three = append(three, s)
		}
	}
	tests := []struct {
		name string
		sla  SLA
		rows []Row
	}{
		{"confidence_wilson", mustSLA(t, "p95_ttft_ms<500,mean_ttft_ms<40,error_rate<0.01"), one},
		{"confidence_runs", mustSLA(t, "p99_ttft_ms<150,error_rate<0.01"), rowsOf(Concurrency, 0, three...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Analyze(Concurrency, tt.sla, tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			var js, txt bytes.Buffer
			if err := WriteJSON(&js, s); err != nil {
				t.Fatal(err)
			}
			if err := WriteText(&txt, s); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".json", js.Bytes())
			golden(t, tt.name+".txt", txt.Bytes())
		})
	}
}

package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Refinement bounds (docs/capacity.md, "Refinement").
const (
	// MaxRefineSteps bounds the bisection probes a sweep adds after its
	// ladder.
	MaxRefineSteps = 8
	// RateResolution: a request-rate bisection stops when the gap between
	// the passing and the failing rate is within this fraction of the
	// failing rate.
	RateResolution = 0.02
)

// NextProbe is the next load to try when bisecting between a passing
// load and a failing one (pass may be 0 when even the first step
// failed): the midpoint, rounded down to a whole number for concurrency
// and users, to three significant digits for request rates. ok is false
// when the interval cannot be split further: adjacent whole numbers, or
// rates within RateResolution of each other. Example: NextProbe(64, 128,
// Concurrency) = 96; then (96, 128) gives 112, (96, 112) gives 104, ...
// until (99, 100) stops: at most log2(128-64) = 6 probes.
func NextProbe(pass, fail float64, kind Kind) (load float64, ok bool) {
	if !(fail > pass) || math.IsInf(fail, 0) || math.IsNaN(pass) {
		return 0, false
	}
	mid := (pass + fail) / 2
	if kind.Integer() {
		mid = math.Floor(mid)
		if mid <= pass {
			mid = math.Floor(pass) + 1
		}
		return mid, mid < fail && mid > pass
	}
	if fail-pass <= RateResolution*fail {
		return 0, false
	}
	if r := roundSig(mid, 3); r > pass && r < fail {
		mid = r
	}
	return mid, true
}

// roundSig rounds v to n significant digits.
func roundSig(v float64, n int) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// loadWords is a load in words: "96 concurrent users", "1 user",
// "12.5 req/s".
func loadWords(load float64, kind Kind) string {
	n := strconv.FormatFloat(load, 'f', -1, 64)
	switch kind {
	case Concurrency:
		if load == 1 {
			return "1 concurrent user"
		}
		return n + " concurrent users"
	case Users:
		if load == 1 {
			return "1 user"
		}
		return n + " users"
	}
	return n + " req/s"
}

// num0 is a whole figure with thousands separators ("1,162", "77").
func num0(v float64) string {
	if math.Abs(v) >= 100 || math.IsNaN(v) || math.IsInf(v, 0) {
		return num(v)
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}

// figure is num, but a whole number stays whole ("16", not "16.0").
func figure(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return num0(v)
	}
	return num(v)
}

// num formats a figure for words: thousands separators and no decimals
// from 100 up ("3,150"), one decimal from 10 ("55.2"), else two ("0.05").
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case a < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// termAt finds the outcome of key at the step of load.
func (s *Sweep) termAt(load float64, key string) (TermResult, bool) {
	for i := range s.Steps {
		if s.Steps[i].Load != load {
			continue
		}
		for _, t := range s.Steps[i].SLATerms {
			if t.Key == key {
				return t, true
			}
		}
	}
	return TermResult{}, false
}

// termValue is "1,200 ms against < 500" for a term's outcome.
func termValue(t TermResult) string {
	actual := "not reported"
	if t.Actual != nil {
		actual = num(*t.Actual)
		if strings.HasSuffix(t.Key, "_ms") {
			actual += " ms"
		}
	}
	return fmt.Sprintf("%s against %s %s", actual, t.Op, strconv.FormatFloat(t.Value, 'f', -1, 64))
}

// verdict is the sweep's answer in plain words (docs/capacity.md,
// "Verdict"), one sentence of clauses joined by semicolons.
func verdict(s *Sweep) string {
	var top *Row
	limited := 0
	for i := range s.Steps {
		switch {
		case !counted(&s.Steps[i]):
			limited++
		case s.Steps[i].Completed > 0 || top == nil:
			// A step where nothing completed measured no throughput.
			top = &s.Steps[i]
		}
	}
	if top == nil {
		if len(s.Steps) == 0 {
			return "no steps were run."
		}
		return "no step can be judged: every step was limited by the client (harness_limited); run the client on a bigger machine or lower the load."
	}
	var parts []string
	parts = append(parts, slaClauses(s)...)
	parts = append(parts, unresolvedClause(s)...)
	if sat := s.Saturation; sat != nil {
		parts = append(parts, fmt.Sprintf("throughput saturates at ~%s tok/s at %s", num(sat.OutputThroughput), loadWords(sat.Load, s.LoadKind)))
	} else {
		parts = append(parts, fmt.Sprintf("no saturation seen: output throughput reached %s tok/s at %s, the highest load counted", num(top.OutputThroughput), loadWords(top.Load, s.LoadKind)))
	}
	parts = append(parts, advice(s))
	if limited > 0 {
		parts = append(parts, fmt.Sprintf("%d step(s) were limited by the client and not counted", limited))
	}
	return strings.Join(parts, "; ") + "."
}

// unresolvedClause says, when max_load_under_sla is not resolved, which
// steps are unresolved and what load surely meets the SLA.
func unresolvedClause(s *Sweep) []string {
	ml := s.MaxLoadUnderSLA
	if ml.Resolved == nil || *ml.Resolved {
		return nil
	}
	var loads []string
	for i := range s.Steps {
		r := &s.Steps[i]
		if counted(r) && r.SLAVerdict == VerdictUnresolved && (ml.FirstFailingLoad == nil || r.Load <= *ml.FirstFailingLoad) {
			loads = append(loads, strconv.FormatFloat(r.Load, 'f', -1, 64))
		}
	}
	what := "not every verdict is sure"
	if len(loads) > 0 {
		what = fmt.Sprintf("the verdict at %s %s is unresolved (its interval straddles a limit)", s.LoadKind, strings.Join(loads, ", "))
	}
	sure := "no load tested surely meets it"
	if ml.LowerBound != nil {
		sure = "it is surely met only up to " + loadWords(*ml.LowerBound, s.LoadKind)
	}
	return []string{fmt.Sprintf("but %s, so %s; more requests per step (--prompts-per-step, --refine) or --runs settle it", what, sure)}
}

// slaClauses say how the SLA fared and which term binds.
func slaClauses(s *Sweep) []string {
	if len(s.SLA) == 0 {
		return []string{"no SLA given"}
	}
	ml := s.MaxLoadUnderSLA
	switch {
	case ml.Load == nil && ml.FirstFailingLoad == nil:
		return []string{"no step could be judged against the SLA"}
	case ml.Load == nil:
		t, _ := s.termAt(*ml.FirstFailingLoad, *ml.Binding)
		return []string{fmt.Sprintf("fails the SLA even at the lowest load tested, %s (%s %s)", loadWords(*ml.FirstFailingLoad, s.LoadKind), keyWords(t.Key), termValue(t))}
	case ml.FirstFailingLoad == nil:
		t, _ := s.termAt(*ml.Load, *ml.Binding)
		return []string{fmt.Sprintf("meets the SLA at every load tested, up to %s", loadWords(*ml.Load, s.LoadKind)),
			fmt.Sprintf("%s has the least headroom (%s)", keyWords(*ml.Binding), termValue(t))}
	}
	t, _ := s.termAt(*ml.FirstFailingLoad, *ml.Binding)
	return []string{fmt.Sprintf("meets the SLA up to %s", loadWords(*ml.Load, s.LoadKind)),
		fmt.Sprintf("%s is the binding limit (%s at %s)", keyWords(*ml.Binding), termValue(t), loadWords(*ml.FirstFailingLoad, s.LoadKind))}
}

// advice is the clause that says what to do.
func advice(s *Sweep) string {
	ml := s.MaxLoadUnderSLA
	switch {
	case len(s.SLA) == 0 && s.Saturation != nil:
		return fmt.Sprintf("plan for at most ~%s tok/s per instance", num(s.Saturation.OutputThroughput))
	case len(s.SLA) == 0:
		return "extend the ladder to find the knee"
	case ml.Load == nil && ml.FirstFailingLoad != nil:
		return "one instance does not meet this SLA at any load tested: scale up, or test lower loads"
	case ml.FirstFailingLoad != nil && s.AtSLA != nil:
		// Not "scale out before L" beside "meets the SLA up to L": that
		// read as a contradiction (issue 29). The targets hold each
		// instance to ScaleOutAt of L.
		return fmt.Sprintf("to stay inside it, scale out at %g %% of that load: a Kubernetes HPA target of %s requests in flight per pod, or a SageMaker InvocationsPerInstance target of %s per minute",
			100*ScaleOutAt, num0(s.AtSLA.HPATargetInFlight), num0(s.AtSLA.SageMakerInvocationsTarget))
	case ml.FirstFailingLoad != nil:
		return fmt.Sprintf("to stay inside it, scale out at %g %% of %s", 100*ScaleOutAt, loadWords(*ml.Load, s.LoadKind))
	case s.Saturation != nil:
		return "the SLA still holds past saturation, so throughput, not latency, sets the capacity"
	}
	return "extend the ladder to find the limit"
}

// Package capacity turns the summaries of a sweep's steps into a
// capacity answer: per-step rows, SLA verdicts, the saturation point,
// the largest load that meets the SLA and its binding term, a
// Little's-law cross-check, bisection probes and a verdict in plain
// words, written as JSON, CSV and a text table; with a price, the cost of
// each step and at the SLA load; and, over several sweeps, the instance
// choice: how many of each candidate a need takes and the cheapest that
// meets the SLA (Choose). The rules are in docs/capacity.md and
// docs/instance-choice.md.
//
// It is a pure function of the steps' summaries: it never touches the
// network, never runs a step and never reads records. The sweep command
// drives the steps and hands each step's metrics.Summary to RowFrom.
package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// Saturation rule thresholds (docs/capacity.md, "Saturation point").
const (
	// SaturationWithin: the knee is the smallest load whose output
	// throughput is within this fraction of the peak.
	SaturationWithin = 0.05
	// TailRise: a higher load must show a latency tail (p99 TTFT, ITL or
	// E2EL) at least this fraction above the knee's to confirm it.
	TailRise = 0.20
)

// SaturationRule is the rule's text, as saved with the result.
var SaturationRule = fmt.Sprintf("smallest load whose output throughput is within %g %% of the peak, confirmed by a higher load whose p99 TTFT, ITL or E2EL is at least %g %% above the knee's (harness-limited steps excluded)",
	100*SaturationWithin, 100*TailRise)

// tailKeys are the latency tails that confirm a knee, in order of
// preference for the evidence text.
var tailKeys = []string{metrics.KeyP99TTFT, metrics.KeyP99ITL, metrics.KeyP99E2EL}

// Saturation is where added load stopped buying throughput.
type Saturation struct {
	Load             float64 `json:"load"`
	OutputThroughput float64 `json:"output_throughput"`
	Rule             string  `json:"rule"`
	// Evidence says which higher step confirmed the knee, in words.
	Evidence string `json:"evidence"`
	// Cause is why the knee comes, from the server's own metrics
	// (batch_limit, kv_cache, compute, unknown; see ExplainKnee), and
	// CauseDetail one sentence with the numbers; absent when the sweep
	// did not read them.
	Cause       string `json:"cause,omitempty"`
	CauseDetail string `json:"cause_detail,omitempty"`
	// LoadLow and LoadHigh bracket the knee by inference-perf's plateau
	// test (see kneeInterval); absent when no pair of steps plateaus.
	LoadLow  *float64 `json:"load_low,omitempty"`
	LoadHigh *float64 `json:"load_high,omitempty"`
}

// MaxLoad is the largest load that met the SLA and what limited it.
type MaxLoad struct {
	// Load is the largest tested load at which the SLA held, with every
	// lower counted load passing too; null when even the first counted
	// step failed, or without an SLA.
	Load *float64 `json:"load"`
	// Binding is the key of the SLA term that failed first (the worst
	// violation at the first failing step), or, when no step failed, the
	// term with the least headroom at Load; null without an SLA.
	Binding *string `json:"binding"`
	// FirstFailingLoad is the lowest counted load that failed; null when
	// none failed. Refinement bisects between Load (or 0) and it.
	FirstFailingLoad *float64 `json:"first_failing_load"`
	// Resolved is true when every counted step up to FirstFailingLoad
	// has an SLA verdict on its interval (sla_verdict) that agrees with
	// the one on its figures (sla_pass); false when one is unresolved (or
	// disagrees): Load then rests on point figures, and LowerBound is the
	// load surely under the SLA. Null without an SLA.
	Resolved *bool `json:"resolved"`
	// LowerBound is, when not Resolved, the last load whose verdict is a
	// pass before the first that is not; absent when resolved or when no
	// step surely passes.
	LowerBound *float64 `json:"lower_bound,omitempty"`
}

// Sweep is the analysis of a sweep: the content of sweep-*.json.
type Sweep struct {
	// Label names the swept endpoint or instance (sweep --label, else the
	// endpoint or model name); compare heads its rows with it.
	Label    string `json:"label,omitempty"`
	LoadKind Kind   `json:"load_kind"`
	SLA      SLA    `json:"sla"`
	// Steps are the rows sorted by load, repeated runs aggregated.
	Steps           []Row       `json:"steps"`
	Saturation      *Saturation `json:"saturation"`
	MaxLoadUnderSLA MaxLoad     `json:"max_load_under_sla"`
	Verdict         string      `json:"verdict"`
	// AtSLA are the figures at the largest load under the SLA (the
	// SLA-aware MaxInvocations); absent when no load met the SLA.
	AtSLA *AtSLA `json:"at_sla,omitempty"`
	// Pricing is the price cost figures use; absent without one (see
	// Price).
	Pricing *Pricing `json:"pricing,omitempty"`
	// Notes are caveats: harness-limited steps, Little's-law mismatches.
	Notes []string `json:"notes"`
	// Worker identifies a distributed sweep (docs/distributed.md): on a
	// worker's sweep file its run id, config hash and index; on the
	// output of llmbench merge the run, with Merged set. Absent for a
	// single process.
	Worker *record.WorkerInfo `json:"worker,omitempty"`
}

// Analyze evaluates sla on every row, finds the saturation point and
// the largest load under the SLA, and writes the verdict. Rows of equal
// load are aggregated (see Aggregate); every row must be of kind.
func Analyze(kind Kind, sla SLA, rows []Row) (*Sweep, error) {
	for i := range rows {
		if rows[i].LoadKind != kind {
			return nil, fmt.Errorf("capacity: step %d is a %s step in a %s sweep", i, rows[i].LoadKind, kind)
		}
	}
	steps, err := groupByLoad(rows)
	if err != nil {
		return nil, err
	}
	s := &Sweep{LoadKind: kind, SLA: sla, Steps: steps, Notes: []string{}}
	if s.SLA == nil {
		s.SLA = SLA{}
	}
	if s.Steps == nil {
		s.Steps = []Row{}
	}
	for i := range s.Steps {
		evaluate(&s.Steps[i], sla)
	}
	s.Saturation = saturation(s.Steps)
	s.MaxLoadUnderSLA = maxLoad(s.Steps, sla)
	s.Notes = notes(s.Steps, sla)
	s.AtSLA = atSLA(s)
	s.Verdict = verdict(s)
	return s, nil
}

// evaluate fills r's SLA outcome. A step without a successful request
// has no latency or throughput figures (its zeros are vLLM's empty-list
// convention, not measurements), so those terms fail as not reported.
func evaluate(r *Row, sla SLA) {
	r.SLATerms, r.SLAPass = []TermResult{}, nil
	if len(sla) == 0 {
		return
	}
	all := true
	for _, t := range sla {
		tr := TermResult{Term: t}
		v, ok := r.Value(t.Key)
		if r.Completed == 0 && t.Key != "error_rate" {
			ok = false
		}
		if ok {
			h := t.Headroom(v)
			tr.Actual, tr.Headroom, tr.Pass = &v, &h, t.Pass(v)
		}
		all = all && tr.Pass
		judgeTerm(r, &tr)
		r.SLATerms = append(r.SLATerms, tr)
	}
	r.SLAPass = &all
	r.SLAVerdict = stepVerdict(r.SLATerms)
}

// counted reports whether a step may stand as a server verdict.
func counted(r *Row) bool { return !r.HarnessLimited }

// saturation applies SaturationRule to steps (sorted by load); nil when
// no knee is confirmed.
func saturation(steps []Row) *Saturation {
	var c []*Row
	peak := 0.0
	for i := range steps {
		if counted(&steps[i]) && steps[i].Completed > 0 {
			c = append(c, &steps[i])
			peak = max(peak, steps[i].OutputThroughput)
		}
	}
	if len(c) < 2 || peak <= 0 {
		return nil
	}
	k := 0
	for c[k].OutputThroughput < (1-SaturationWithin)*peak {
		k++
	}
	knee := c[k]
	for _, later := range c[k+1:] {
		for _, key := range tailKeys {
			at, ok1 := knee.Value(key)
			v, ok2 := later.Value(key)
			if !ok1 || !ok2 || at <= 0 || v < (1+TailRise)*at {
				continue
			}
			ev := fmt.Sprintf("at %s output throughput was %s tok/s (%+.1f %%) while %s rose from %s to %s ms (×%.1f)",
				loadWords(later.Load, later.LoadKind), num(later.OutputThroughput),
				100*(later.OutputThroughput/knee.OutputThroughput-1), keyWords(key), num(at), num(v), v/at)
			if k == 0 {
				ev += "; this is the lowest load counted, so the knee may lie lower"
			}
			sat := &Saturation{Load: knee.Load, OutputThroughput: knee.OutputThroughput, Rule: SaturationRule, Evidence: ev}
			if lo, hi, ok := kneeInterval(c); ok {
				sat.LoadLow, sat.LoadHigh = &lo, &hi
			}
			return sat
		}
	}
	return nil
}

// maxLoad finds the largest load under the SLA among counted steps
// (sorted by load): the last pass before the first failure, each step
// judged on its figures (sla_pass); then whether every step up to the
// first failure has a verdict on its interval (sla_verdict) that agrees,
// and if not the last step whose interval passes before the first that
// does not: the load surely under the SLA.
func maxLoad(steps []Row, sla SLA) MaxLoad {
	var ml MaxLoad
	if len(sla) == 0 {
		return ml
	}
	var last *Row
	for i := range steps {
		r := &steps[i]
		if !counted(r) || r.SLAPass == nil {
			continue
		}
		if !*r.SLAPass {
			fail := r.Load
			ml.FirstFailingLoad = &fail
			b := worstTerm(r.SLATerms, true)
			ml.Binding = &b
			break
		}
		last = r
	}
	if last != nil {
		l := last.Load
		ml.Load = &l
		if ml.Binding == nil {
			b := worstTerm(last.SLATerms, false)
			ml.Binding = &b
		}
	}
	resolved := true
	var sure *Row
	open := false
	for i := range steps {
		r := &steps[i]
		if !counted(r) || r.SLAPass == nil {
			continue
		}
		if ml.FirstFailingLoad != nil && r.Load > *ml.FirstFailingLoad {
			break
		}
		point := map[bool]string{true: VerdictPass, false: VerdictFail}[*r.SLAPass]
		if r.SLAVerdict != point {
			resolved = false
		}
		if r.SLAVerdict != VerdictPass {
			open = true
		} else if !open {
			sure = r
		}
	}
	ml.Resolved = &resolved
	if !resolved && sure != nil {
		l := sure.Load
		ml.LowerBound = &l
	}
	return ml
}

// worstTerm is the key of the term with the least headroom (a term not
// reported counts as the worst); with failing, only failed terms count.
func worstTerm(terms []TermResult, failing bool) string {
	best, worst := "", math.Inf(1)
	for _, t := range terms {
		if failing && t.Pass {
			continue
		}
		h := math.Inf(-1)
		if t.Headroom != nil {
			h = *t.Headroom
		}
		if best == "" || h < worst {
			best, worst = t.Key, h
		}
	}
	return best
}

// MinRequests is the fewest completed requests a percentile p (0..100)
// of a per-request metric can rest on: 1 / (1 − p/100), so that at least
// one request lies above it (p99: 100, p90: 10, the median: 2); 0 for a
// key that is no per-request percentile (means, error_rate, throughputs,
// ITL, which is pooled over token chunks).
func MinRequests(key string) int {
	m := latencyKey.FindStringSubmatch(key)
	if m == nil || m[4] == "itl" {
		return 0
	}
	p := 50.0
	switch {
	case m[2] != "":
		p, _ = strconv.ParseFloat(m[2], 64)
	case m[1] != "median":
		return 0
	}
	if p >= 100 {
		return 0
	}
	return int(math.Ceil(1/(1-p/100) - 1e-9))
}

// MinRequestsFor is the most MinRequests of the SLA's terms.
func (s SLA) MinRequestsFor() int {
	n := 0
	for _, t := range s {
		n = max(n, MinRequests(t.Key))
	}
	return n
}

// notes lists the caveats a reader must see beside the verdict.
func notes(steps []Row, sla SLA) []string {
	out := []string{}
	for i := range steps {
		r := &steps[i]
		for _, t := range sla {
			if need := MinRequests(t.Key); r.Completed > 0 && r.Completed < need && counted(r) {
				out = append(out, fmt.Sprintf("%s: %s rests on %d completed requests; a %s needs at least %d (raise --prompts-per-step or --step-duration)",
					loadWords(r.Load, r.LoadKind), keyWords(t.Key), r.Completed, strings.SplitN(keyWords(t.Key), " ", 2)[0], need))
			}
		}
		if r.HarnessLimited {
			out = append(out, fmt.Sprintf("%s: harness-limited (%s); not counted as a server verdict", loadWords(r.Load, r.LoadKind), r.HarnessReason))
		}
		if r.LittlesLawOff {
			out = append(out, fmt.Sprintf("%s: Little's law is off by %+.0f %% (throughput × latency against the in-flight count): %s",
				loadWords(r.Load, r.LoadKind), 100*(*r.LittlesLawRatio-1), littleCause(r)))
		}
	}
	if n := steadyNote(steps); n != "" {
		out = append(out, n)
	}
	return append(out, convergenceNotes(steps)...)
}

// Stop reports whether --stop-when-saturated may end the ladder: the
// knee is confirmed and, when an SLA was given, some step failed it.
func (s *Sweep) Stop() bool {
	if s.Saturation == nil {
		return false
	}
	return len(s.SLA) == 0 || s.MaxLoadUnderSLA.FirstFailingLoad != nil
}

// RefineBounds are the loads refinement bisects between: the largest
// passing load (0 when even the first step failed) and the first failing
// one; ok is false without an SLA failure to refine.
func (s *Sweep) RefineBounds() (pass, fail float64, ok bool) {
	ml := s.MaxLoadUnderSLA
	if ml.FirstFailingLoad == nil {
		return 0, 0, false
	}
	if ml.Load != nil {
		pass = *ml.Load
	}
	return pass, *ml.FirstFailingLoad, true
}

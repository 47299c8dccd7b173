package capacity

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
)

// Term is one SLA condition on a step's result key, e.g. p99_ttft_ms < 500.
type Term struct {
	// Key is a result key: mean_/median_/std_/pNN_ ttft, tpot, itl or
	// e2el _ms, error_rate, or a throughput-like key (see ParseSLA).
	Key string `json:"key"`
	// Op is "<", "<=", ">" or ">=".
	Op string `json:"op"`
	// Value is the limit, in the key's unit.
	Value float64 `json:"value"`
}

// SLA is a list of terms that must all hold; a step meets the SLA when
// every term passes.
type SLA []Term

// String is the term as the user writes it, e.g. "p99_ttft_ms<500".
func (t Term) String() string {
	return t.Key + t.Op + strconv.FormatFloat(t.Value, 'f', -1, 64)
}

// String joins the terms with commas, as --sla takes them.
func (s SLA) String() string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// latencyKey matches vLLM's latency statistics keys (mean_ttft_ms,
// p99.9_itl_ms, ...).
var latencyKey = regexp.MustCompile(`^(mean|median|std|p([0-9]+(\.[0-9]+)?))_(ttft|tpot|itl|e2el)_ms$`)

// higherBetter are the keys where more is better: an SLA sets a floor
// with > or >=.
var higherBetter = []string{
	metrics.KeyOutputThroughput, metrics.KeyRequestThroughput, metrics.KeyTotalTokenThroughput, metrics.KeyRequestGoodput,
	"token_goodput", "system_output_tps", "mean_per_user_tps", "median_per_user_tps",
	"p1_per_user_tps", "p5_per_user_tps", "p10_per_user_tps",
}

// lowerBetter reports whether key is a known lower-is-better key, and
// whether it is known at all.
func lowerBetter(key string) (lower, known bool) {
	if m := latencyKey.FindStringSubmatch(key); m != nil {
		if m[2] != "" {
			if p, err := strconv.ParseFloat(m[2], 64); err != nil || p > 100 {
				return false, false
			}
		}
		return true, true
	}
	if key == "error_rate" {
		return true, true
	}
	return false, slices.Contains(higherBetter, key)
}

// ParseSLA parses --sla: comma-separated terms KEY OP VALUE with OP one
// of <, <=, >, >=, e.g. "p99_ttft_ms<500,p99_itl_ms<30,error_rate<0.01".
// Latency keys (mean_/median_/std_/pNN_ ttft|tpot|itl|e2el _ms, in ms)
// and error_rate (a fraction, 0.01 = 1 %) take < or <=; throughput-like
// keys (output_throughput, request_throughput, token_goodput,
// mean_per_user_tps, p10_per_user_tps, ...) take > or >=. Spaces around
// items are ignored. The empty string is no SLA (nil, nil).
func ParseSLA(s string) (SLA, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out SLA
	for item := range strings.SplitSeq(s, ",") {
		t, err := parseTerm(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTerm(item string) (Term, error) {
	i := strings.IndexAny(item, "<>")
	if i <= 0 {
		return Term{}, fmt.Errorf("sla term %q is not KEY<VALUE (e.g. p99_ttft_ms<500; ops <, <=, >, >=)", item)
	}
	t := Term{Key: strings.TrimSpace(item[:i]), Op: item[i : i+1]}
	rest := item[i+1:]
	if strings.HasPrefix(rest, "=") {
		t.Op += "="
		rest = rest[1:]
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Term{}, fmt.Errorf("sla term %q: %q is not a finite number", item, strings.TrimSpace(rest))
	}
	t.Value = v
	lower, known := lowerBetter(t.Key)
	switch {
	case !known:
		return Term{}, fmt.Errorf("sla term %q: unknown key %q (want e.g. p99_ttft_ms, mean_itl_ms, p90_e2el_ms, error_rate, output_throughput, p10_per_user_tps)", item, t.Key)
	case lower && t.Op[0] == '>':
		return Term{}, fmt.Errorf("sla term %q: lower is better for %s, so its limit takes < or <=", item, t.Key)
	case !lower && t.Op[0] == '<':
		return Term{}, fmt.Errorf("sla term %q: higher is better for %s, so its floor takes > or >=", item, t.Key)
	case v < 0:
		return Term{}, fmt.Errorf("sla term %q: the limit must not be negative", item)
	}
	return t, nil
}

// Pass reports whether v meets the term; NaN never does.
func (t Term) Pass(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Value
	case "<=":
		return v <= t.Value
	case ">":
		return v > t.Value
	case ">=":
		return v >= t.Value
	}
	return false
}

// Headroom is how far v is from the limit, as a fraction of the limit:
// positive inside, negative outside. p99_ttft_ms<500 at 400 ms has
// headroom 0.2, at 600 ms -0.2; output_throughput>1000 at 1200 has 0.2.
// A zero limit measures in the key's unit instead.
func (t Term) Headroom(v float64) float64 {
	d := t.Value - v
	if t.Op[0] == '>' {
		d = -d
	}
	if t.Value == 0 {
		return d
	}
	return d / t.Value
}

// Percentiles lists the latency percentiles the SLA's keys need (99 for
// p99_ttft_ms), sorted and unique, so a sweep can add them to
// --metric-percentiles; Metrics lists the latency metrics (ttft, e2el,
// ...) the same way, for --percentile-metrics.
func (s SLA) Percentiles() []float64 {
	var out []float64
	for _, t := range s {
		if m := latencyKey.FindStringSubmatch(t.Key); m != nil && m[2] != "" {
			p, _ := strconv.ParseFloat(m[2], 64)
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Metrics lists the latency metrics (ttft, tpot, itl, e2el) the SLA's
// keys refer to, sorted and unique.
func (s SLA) Metrics() []string {
	var out []string
	for _, t := range s {
		if m := latencyKey.FindStringSubmatch(t.Key); m != nil {
			out = append(out, m[4])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// WithErrorGate adds error_rate<=rate to an SLA that has no error_rate
// term of its own, and says whether it did; an empty SLA, which judges
// no step, gets none. Failures a step's own end canceled do not count
// (Row.ErrorRate).
func (s SLA) WithErrorGate(rate float64) (SLA, bool) {
	if len(s) == 0 {
		return s, false
	}
	for _, t := range s {
		if t.Key == "error_rate" {
			return s, false
		}
	}
	return append(s, Term{Key: "error_rate", Op: "<=", Value: rate}), true
}

// keyWords is a result key in words for verdicts: "p99_ttft_ms" is
// "p99 TTFT", "error_rate" is "error rate".
func keyWords(key string) string {
	if m := latencyKey.FindStringSubmatch(key); m != nil {
		return m[1] + " " + strings.ToUpper(m[4])
	}
	w := strings.ReplaceAll(key, "_", " ")
	return strings.ReplaceAll(w, " tps", " TPS")
}

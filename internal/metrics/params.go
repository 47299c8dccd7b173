package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/record"
)

// Percentile metric names, vLLM's --percentile-metrics vocabulary, in the
// order vLLM prints and saves them.
const (
	TTFT = "ttft"
	TPOT = "tpot"
	ITL  = "itl"
	E2EL = "e2el"
	// ClientQueueTime is newer vLLM's client-side wait for a concurrency
	// slot (needs --max-concurrency).
	ClientQueueTime = "client_queue_time"
	// E2ELInclQueue is newer vLLM's latency + client queue time (needs
	// --max-concurrency and a finite rate).
	E2ELInclQueue = "e2el_including_client_queue"
)

// MetricOrder is every percentile metric in vLLM's print and save order.
var MetricOrder = []string{TTFT, TPOT, ITL, E2EL, ClientQueueTime, E2ELInclQueue}

// Goodput SLO keys accepted by --goodput.
var goodputKeys = []string{TTFT, TPOT, E2EL}

// DefaultPercentileMetrics is vLLM's default for generation backends.
const DefaultPercentileMetrics = "ttft,tpot,itl"

// DefaultLagWarning is the p99 dispatch lag above which Summarize warns
// that the client fell behind its schedule.
const DefaultLagWarning = 0.010

// Params are the inputs of Summarize besides the records. The zero value
// is not usable: Duration must be set.
type Params struct {
	// Duration is the benchmark duration in seconds (vLLM's
	// benchmark_duration); every throughput divides by it. Must be > 0.
	Duration float64
	// Percentiles to report, each in [0, 100]; nil = [99].
	Percentiles []float64
	// PercentileMetrics selects the metrics to report from MetricOrder;
	// nil = ttft, tpot, itl.
	PercentileMetrics []string
	// Goodput holds SLOs in milliseconds keyed ttft, tpot, e2el; empty =
	// goodput not configured (reported as null).
	Goodput SLOs
	// NoTokenizer mirrors vLLM's --skip-tokenizer-init: an output length
	// that the usage frame did not give is 1, and the token-dependent
	// figures (ttft/tpot/itl statistics, token throughputs) are not
	// reported.
	NoTokenizer bool
	// Counter counts the tokens of generated text when the usage frame
	// gave no count and the record carries no saved count
	// (record.TokenizerCount, used first). nil with a tokenizer: such a
	// record counts 1, with a warning.
	Counter TokenCounter
	// MaxConcurrency is --max-concurrency; 0 = not set.
	MaxConcurrency int
	// RateFinite is true when the request rate was not "inf" (vLLM offers
	// e2el_including_client_queue only then).
	RateFinite bool
	// LagWarning is the p99 dispatch lag in seconds above which a warning
	// is added; 0 = DefaultLagWarning, negative = never warn.
	LagWarning float64
}

// TokenCounter counts the tokens of a text the way vLLM's client does for
// a missing usage count: encode without special tokens, count the ids.
type TokenCounter interface {
	CountTokens(text string) int
}

// Whitespace is the conformance vectors' stand-in tokenizer: one token per
// whitespace-separated word.
type Whitespace struct{}

// CountTokens returns the number of whitespace-separated words in text.
func (Whitespace) CountTokens(text string) int { return len(strings.Fields(text)) }

// ParamsFrom builds Summarize's Params from a run's record.Params: it parses
// the percentile and metric lists and copies the SLOs, concurrency and
// rate. counter may be nil (see Params.Counter); for
// record.TokenizerWhitespace, pass Whitespace{}.
func ParamsFrom(rp *record.Params, counter TokenCounter) (Params, error) {
	p := Params{
		Duration:    rp.DurationS,
		NoTokenizer: !rp.HasTokenizer(),
		Counter:     counter,
		RateFinite:  !rp.RequestRate.IsInf(),
	}
	if rp.MaxConcurrency != nil {
		p.MaxConcurrency = *rp.MaxConcurrency
	}
	var err error
	metricsList := rp.PercentileMetrics
	if metricsList == "" {
		metricsList = DefaultPercentileMetrics
	}
	if p.PercentileMetrics, err = ParsePercentileMetrics(metricsList); err != nil {
		return Params{}, err
	}
	pcts := rp.MetricPercentiles
	if pcts == "" {
		pcts = "99"
	}
	if p.Percentiles, err = ParsePercentiles(pcts); err != nil {
		return Params{}, err
	}
	if len(rp.Goodput) > 0 {
		p.Goodput = make(map[string]float64, len(rp.Goodput))
		for k, v := range rp.Goodput {
			p.Goodput[k] = v
		}
	}
	return p, p.Validate()
}

// ParsePercentileMetrics splits vLLM's comma list (no spaces, like vLLM,
// which splits on "," without trimming) and checks every name.
func ParsePercentileMetrics(s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for _, m := range parts {
		if err := checkMetric(m); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

func checkMetric(m string) error {
	for _, k := range MetricOrder {
		if m == k {
			return nil
		}
	}
	return fmt.Errorf("unknown percentile metric %q (want a comma list without spaces of %s)", m, strings.Join(MetricOrder, ", "))
}

// ParsePercentiles parses vLLM's --metric-percentiles comma list ("50,99.9").
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return nil, fmt.Errorf("metric percentile %q is not a number", part)
		}
		if err := checkPercentile(f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func checkPercentile(f float64) error {
	if math.IsNaN(f) || f < 0 || f > 100 {
		return fmt.Errorf("metric percentile %v is outside [0, 100]", f)
	}
	return nil
}

// ParseGoodput parses vLLM's --goodput items ("ttft:200", "tpot:30"), each
// KEY:VALUE with VALUE in milliseconds.
func ParseGoodput(items []string) (map[string]float64, error) {
	out := make(map[string]float64, len(items))
	for _, it := range items {
		kv := strings.Split(it, ":")
		if len(kv) != 2 {
			return nil, fmt.Errorf("goodput item %q is not KEY:VALUE (e.g. ttft:200)", it)
		}
		v, err := strconv.ParseFloat(kv[1], 64)
		if err != nil {
			return nil, fmt.Errorf("goodput item %q: %q is not a number of milliseconds", it, kv[1])
		}
		out[kv[0]] = v
	}
	return out, checkGoodput(out)
}

func checkGoodput(g map[string]float64) error {
	// Sorted for a deterministic first error.
	for _, k := range sortedKeys(g) {
		v := g[k]
		ok := false
		for _, gk := range goodputKeys {
			ok = ok || k == gk
		}
		if !ok {
			return fmt.Errorf("invalid goodput metric %q (want ttft, tpot or e2el)", k)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("invalid goodput value %v for %s: must be a non-negative number of milliseconds", v, k)
		}
	}
	return nil
}

// Validate reports the first unusable parameter.
func (p *Params) Validate() error {
	if math.IsNaN(p.Duration) || math.IsInf(p.Duration, 0) || p.Duration <= 0 {
		return fmt.Errorf("benchmark duration must be a positive number of seconds (got %v)", p.Duration)
	}
	for _, f := range p.Percentiles {
		if err := checkPercentile(f); err != nil {
			return err
		}
	}
	for _, m := range p.PercentileMetrics {
		if err := checkMetric(m); err != nil {
			return err
		}
	}
	if p.MaxConcurrency < 0 {
		return fmt.Errorf("max concurrency must not be negative (got %d)", p.MaxConcurrency)
	}
	return checkGoodput(p.Goodput)
}

package record

import (
	"github.com/llmbench/llmbench/internal/pyjson"

	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Tokenizer values of Params.Tokenizer with a special meaning; any other
// non-empty value names a tokenizer (a Hugging Face id or a path).
const (
	// TokenizerWhitespace is the conformance vectors' stand-in tokenizer:
	// one token per whitespace-separated word.
	TokenizerWhitespace = "whitespace"
	// TokenizerNone means no tokenizer, like vLLM's --skip-tokenizer-init:
	// output lengths fall back to 1 and token figures are not reported.
	TokenizerNone = "none"
)

// Rate is a request rate in requests per second. +Inf is vLLM's "inf" (all
// requests dispatched at once); in JSON it is the string "inf", any other
// value a number.
type Rate float64

// Inf is the rate "inf".
var Inf = Rate(math.Inf(1))

// IsInf reports whether r is the rate "inf".
func (r Rate) IsInf() bool { return math.IsInf(float64(r), 1) }

// MarshalJSON writes "inf" for an infinite rate, else the number.
func (r Rate) MarshalJSON() ([]byte, error) {
	if r.IsInf() {
		return []byte(`"inf"`), nil
	}
	f := float64(r)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("request rate %v cannot be written", f)
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON accepts a number or the strings "inf"/"Infinity".
func (r *Rate) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := ParseRate(s)
		if err != nil {
			return err
		}
		*r = v
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("request_rate must be a number or \"inf\": %s", b)
	}
	if f < 0 || math.IsNaN(f) {
		return fmt.Errorf("request_rate must not be negative (%v)", f)
	}
	*r = Rate(f)
	return nil
}

// ParseRate parses a request rate as typed on vLLM's command line: a
// non-negative number or "inf".
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "inf", "+inf", "infinity":
		return Inf, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, fmt.Errorf("request rate %q is not a non-negative number or \"inf\"", s)
	}
	return Rate(f), nil
}

// RPSChangeEvent is one entry of vLLM's rps_change_events under ramp-up.
type RPSChangeEvent struct {
	RPS       int    `json:"rps"`
	Timestamp string `json:"timestamp"`
}

// Params are a run's parameters as far as metrics and reports need them.
// The first group mirrors the "params" object of the conformance input
// format (testdata/conformance/metrics/README.md), with the same JSON names;
// the second group is ours. Zero values are documented per field; readers
// fill the conformance defaults (see ConformanceDefaults).
type Params struct {
	// DurationS is the benchmark duration in seconds (vLLM's
	// benchmark_duration): all throughputs divide by it. Required, > 0.
	DurationS float64 `json:"duration_s"`
	// RequestRate is the configured rate; Inf for "inf".
	RequestRate Rate `json:"request_rate"`
	// Burstiness is the gamma shape factor (echoed only); 1.0 = Poisson,
	// Inf = constant spacing. It shares Rate's JSON form ("inf" or a number).
	Burstiness Rate `json:"burstiness"`
	// MaxConcurrency is --max-concurrency; nil = no limit.
	MaxConcurrency *int `json:"max_concurrency"`
	// Goodput holds SLOs in milliseconds keyed ttft, tpot, e2el; empty =
	// no goodput.
	Goodput map[string]float64 `json:"goodput,omitempty"`
	// PercentileMetrics is vLLM's comma list (e.g. "ttft,tpot,itl").
	PercentileMetrics string `json:"percentile_metrics,omitempty"`
	// MetricPercentiles is vLLM's comma list of percentiles (e.g. "50,99").
	MetricPercentiles string `json:"metric_percentiles,omitempty"`
	// Tokenizer is TokenizerWhitespace, TokenizerNone or a tokenizer id.
	Tokenizer string `json:"tokenizer,omitempty"`
	// Backend is vLLM's --backend (e.g. "openai", "openai-chat").
	Backend string `json:"backend,omitempty"`
	// ModelID is the model id (result key model_id, file name part).
	ModelID string `json:"model_id,omitempty"`
	// NumPrompts is --num-prompts as given; nil = number of records.
	NumPrompts *int `json:"num_prompts,omitempty"`
	// Label is --label; nil = not given (saved as null).
	Label *string `json:"label,omitempty"`
	// Metadata holds --metadata "KEY=VALUE" items in the order given.
	Metadata []string `json:"metadata,omitempty"`
	// RampUpStrategy is "linear" or "exponential"; "" = no ramp-up.
	RampUpStrategy string `json:"ramp_up_strategy,omitempty"`
	// RampUpStartRPS and RampUpEndRPS are the ramp-up bounds.
	RampUpStartRPS *int `json:"ramp_up_start_rps,omitempty"`
	RampUpEndRPS   *int `json:"ramp_up_end_rps,omitempty"`

	// TokenizerID is the result's tokenizer_id when it differs from what
	// Tokenizer implies; "" = derive it (see ResolvedTokenizerID).
	TokenizerID string `json:"tokenizer_id,omitempty"`
	// Date is the run's local time as YYYYMMDD-HHMMSS (result key date and
	// file name suffix); "" = unknown.
	Date string `json:"date,omitempty"`
	// Interrupted is true when the run was stopped before all requests
	// finished (Ctrl-C); its figures cover the finished ones only.
	Interrupted bool `json:"interrupted,omitempty"`
	// EndpointName is the SageMaker endpoint name, "" for HTTP endpoints.
	EndpointName string `json:"endpoint_name,omitempty"`
	// RPSChangeEvents are the ramp-up rate steps as the run recorded them.
	RPSChangeEvents []RPSChangeEvent `json:"rps_change_events,omitempty"`

	// Unfinished is set by Read for a streamed records file without its
	// closing line: the run was killed, DurationS is estimated from the
	// records (see markUnfinished) and Interrupted is set. Never saved.
	Unfinished bool `json:"-"`
}

// ConformanceDefaults returns the defaults of the conformance input format
// for params that are absent: rate inf, burstiness 1, percentile metrics
// ttft,tpot,itl, percentile 99, whitespace tokenizer, backend openai, model
// mock-model.
func ConformanceDefaults() Params {
	return Params{
		RequestRate:       Inf,
		Burstiness:        1.0,
		PercentileMetrics: "ttft,tpot,itl",
		MetricPercentiles: "99",
		Tokenizer:         TokenizerWhitespace,
		Backend:           "openai",
		ModelID:           "mock-model",
	}
}

// HasTokenizer reports whether a tokenizer exists (Tokenizer is not
// TokenizerNone), which decides vLLM's token-dependent table lines.
func (p *Params) HasTokenizer() bool { return p.Tokenizer != TokenizerNone }

// ResolvedTokenizerID is the result's tokenizer_id: nil without a
// tokenizer, else TokenizerID, else the Tokenizer id, else the model id
// (vLLM's default: the tokenizer is the model's).
func (p *Params) ResolvedTokenizerID() *string {
	if !p.HasTokenizer() {
		return nil
	}
	id := p.TokenizerID
	if id == "" && p.Tokenizer != TokenizerWhitespace {
		id = p.Tokenizer
	}
	if id == "" {
		id = p.ModelID
	}
	return &id
}

// Validate reports the first parameter that makes the run's metrics
// meaningless: a missing or non-positive duration, a negative burstiness
// or concurrency, or malformed metadata.
func (p *Params) Validate() error {
	if math.IsNaN(p.DurationS) || math.IsInf(p.DurationS, 0) || p.DurationS <= 0 {
		return fmt.Errorf("duration_s must be a positive number of seconds (got %v)", p.DurationS)
	}
	if math.IsNaN(float64(p.Burstiness)) || p.Burstiness < 0 {
		return fmt.Errorf("burstiness must not be negative (got %v)", p.Burstiness)
	}
	if p.MaxConcurrency != nil && *p.MaxConcurrency < 0 {
		return fmt.Errorf("max_concurrency must not be negative (got %d)", *p.MaxConcurrency)
	}
	if p.NumPrompts != nil && *p.NumPrompts < 0 {
		return fmt.Errorf("num_prompts must not be negative (got %d)", *p.NumPrompts)
	}
	for _, kv := range p.Metadata {
		if !strings.Contains(kv, "=") {
			return fmt.Errorf("metadata item %q is not KEY=VALUE", kv)
		}
	}
	return nil
}

// AppendPyJSON writes r as vLLM's result files hold it: "inf" for the
// infinite rate, else Python's repr of the float (10.0, not 10).
func (r Rate) AppendPyJSON(dst []byte) []byte {
	if r.IsInf() {
		return append(dst, `"inf"`...)
	}
	return pyjson.AppendFloat(dst, float64(r))
}

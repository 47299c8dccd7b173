package bench

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// The checks and derivations of a run's settings on their way into a
// Spec: the command line gives them as typed values, these refuse the
// values no run can use (in the order a user meets them, with the
// command line's words) and derive what follows from them.

// MaxNumPrompts bounds the prompt count: every request's prompt, schedule
// slot and record are held in memory, so a typo such as 99999999999 would
// end in an out-of-memory crash instead of an error.
const MaxNumPrompts = 1_000_000

// Ranges are the settings whose values alone can be wrong, as given.
type Ranges struct {
	Kind       Kind
	Dataset    string // the dataset's name
	NumPrompts int
	// BaseURL is --base-url as given ("" = from the host and port).
	BaseURL string
	Label   string
	// MaxConcurrency is nil when no cap was given.
	MaxConcurrency          *int
	RequestRate, Burstiness float64
	NumWarmups              int
	ReadyCheckSec           float64
	RequestTimeout          time.Duration
	MaxErrorRate            float64
	MaxErrorRateGiven       bool
	// RampStrategy is the ramp-up strategy ("" = none); RampStartGiven
	// and RampEndGiven say its rates were given (CheckRamp).
	RampStrategy                 string
	RampStartGiven, RampEndGiven bool
	// EndpointName is the SageMaker endpoint's (CheckEndpointName).
	EndpointName string
}

// Check refuses the first value no run can use, up to the error-rate
// gate (CheckRamp checks the ramp-up's presence).
func (r *Ranges) Check() error {
	if r.Dataset == dataset.TimedTrace && r.Kind != OpenAICompletions {
		//lint:ignore ST1005 vLLM's words, full stop included.
		return errors.New("timed_trace dataset passes pre-tokenized prompts (list[int]) and requires a completions backend ('vllm' or 'openai').")
	}
	if r.NumPrompts <= 0 || r.NumPrompts > MaxNumPrompts {
		return fmt.Errorf("--num-prompts must be in 1..%d (got %d); split larger runs", MaxNumPrompts, r.NumPrompts)
	}
	if u := r.BaseURL; u != "" && !strings.Contains(u, "://") {
		// Go's URL parser would say "first path segment in URL cannot
		// contain colon" of 127.0.0.1:8000.
		shown := "http://" + u
		if r := redact.URL(shown); strings.HasPrefix(r, "http://") {
			shown = r
		}
		return fmt.Errorf("--base-url %s has no scheme: add http:// (--base-url %s) or https://", strings.TrimPrefix(shown, "http://"), shown)
	}
	if strings.ContainsAny(r.Label, `/\`) {
		return fmt.Errorf("--label %q: must not contain a path separator (it starts the result file name; use --result-dir for folders)", r.Label)
	}
	if c := r.MaxConcurrency; c != nil && *c <= 0 {
		return fmt.Errorf("--max-concurrency must be positive (got %d); leave it out for no limit", *c)
	}
	return r.checkNumbers()
}

// checkNumbers refuses the rate, burstiness, warm-ups, timeouts and
// error-rate gate no run can use.
func (r *Ranges) checkNumbers() error {
	switch {
	case r.RequestRate <= 0:
		return fmt.Errorf("--request-rate must be positive or inf (got %v)", r.RequestRate)
	case r.Burstiness <= 0:
		return fmt.Errorf("--burstiness must be positive (got %v)", r.Burstiness)
	case r.NumWarmups < 0:
		return fmt.Errorf("--num-warmups must not be negative")
	case r.ReadyCheckSec < 0:
		return fmt.Errorf("--ready-check-timeout-sec must not be negative")
	case r.RequestTimeout <= 0:
		return fmt.Errorf("--request-timeout must be positive")
	case r.MaxErrorRateGiven && (r.MaxErrorRate < 0 || r.MaxErrorRate > 1):
		return fmt.Errorf("--max-error-rate must be in [0, 1] (got %v)", r.MaxErrorRate)
	}
	return nil
}

// CheckRamp checks that a ramp-up has both rates and that rates come
// with a ramp-up. Presence only: the schedule, which cannot tell an unset
// rate from 0, checks the values with vLLM's messages.
func (r *Ranges) CheckRamp() error {
	if r.RampStrategy != "" && (!r.RampStartGiven || !r.RampEndGiven) {
		return fmt.Errorf("when using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified")
	}
	if r.RampStrategy == "" && (r.RampStartGiven || r.RampEndGiven) {
		return fmt.Errorf("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy")
	}
	return nil
}

// CheckEndpointName checks that a SageMaker endpoint is named, and only
// a SageMaker endpoint.
func (r *Ranges) CheckEndpointName() error {
	if r.Kind == SageMaker && r.EndpointName == "" {
		return fmt.Errorf("--backend sagemaker needs --endpoint-name")
	}
	if r.Kind != SageMaker && r.EndpointName != "" {
		return fmt.Errorf("--endpoint-name needs --backend sagemaker")
	}
	return nil
}

// ClosedLoop are the closed-loop settings as given: --users and its
// companions.
type ClosedLoop struct {
	Users            int
	SpawnRate        float64
	Duration, Warmup time.Duration
	Think            string
	Seed             int64
	// Given reports whether the user gave the named setting (on the
	// command line), as opposed to a configuration file or a default.
	Given func(name string) bool
}

// Loop checks the settings and returns the closed loop: nil without
// users.
func (c *ClosedLoop) Loop() (*load.Users, error) {
	if c.Users < 0 || c.SpawnRate < 0 || c.Duration < 0 || c.Warmup < 0 {
		return nil, fmt.Errorf("--users, --spawn-rate, --duration and --warmup-duration must not be negative")
	}
	if c.Users == 0 {
		for _, name := range []string{"think-time", "spawn-rate", "warmup-duration"} {
			if c.Given(name) {
				return nil, fmt.Errorf("--%s needs --users", name)
			}
		}
		return nil, nil
	}
	for _, name := range []string{"request-rate", "max-concurrency", "ramp-up-strategy", "burstiness"} {
		if c.Given(name) {
			return nil, fmt.Errorf("--users runs a closed loop: it replaces --%s (leave it out)", name)
		}
	}
	think, err := load.ParseThink(c.Think)
	if err != nil {
		return nil, fmt.Errorf("--think-time: %w", err)
	}
	if c.Warmup > 0 && (c.Duration == 0 || c.Warmup >= c.Duration) {
		return nil, fmt.Errorf("--warmup-duration needs a longer --duration")
	}
	return &load.Users{Users: c.Users, Think: think, SpawnRate: c.SpawnRate, Warmup: c.Warmup, Seed: uint64(c.Seed)}, nil
}

// IDPrefix is the first prefix given (not ""), else vLLM's random
// request-id prefix, "bench-XXXXXXXX-", drawn anew.
func IDPrefix(given ...string) string {
	for _, p := range given {
		if p != "" {
			return p
		}
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "bench-" + hex.EncodeToString(b[:]) + "-"
}

// InFlight is the most requests the Spec's run can hold in flight: a
// closed loop's users, else the concurrency cap, else every prompt at
// once. The open-file check (host.EnsureFileLimit) and the SageMaker
// connection pool are sized by it.
func (s *Spec) InFlight() int {
	switch l := &s.Load; {
	case l.Users != nil:
		return l.Users.Users
	case l.MaxConcurrency > 0:
		return l.MaxConcurrency
	}
	return s.Dataset.NumPrompts
}

// DescribeLoad is p, the run's params as the settings describe it, with
// the load's fields added from the Spec: the rate and burstiness, the
// concurrency cap (a closed loop's users, sent as fast as they come
// back), the prompt count, the ramp-up and a SageMaker endpoint's name.
// prepare.Build adds the model and the tokenizer, FinalParams the rest.
func (s *Spec) DescribeLoad(p record.Params) record.Params {
	l := &s.Load
	p.RequestRate, p.Burstiness = record.Rate(l.Arrivals.Rate), record.Rate(l.Arrivals.Burstiness)
	if c := l.MaxConcurrency; c > 0 {
		p.MaxConcurrency = &c
	}
	n := s.Dataset.NumPrompts
	p.NumPrompts = &n
	if l.Users != nil {
		u := l.Users.Users
		p.MaxConcurrency, p.RequestRate = &u, record.Inf
	}
	if a := l.Arrivals; a.RampStrategy != "" {
		p.RampUpStrategy = a.RampStrategy
		p.RampUpStartRPS, p.RampUpEndRPS = &a.RampStartRPS, &a.RampEndRPS
	}
	if s.Endpoint.Kind == SageMaker {
		p.EndpointName = s.Endpoint.SageMaker.EndpointName
	}
	return p
}

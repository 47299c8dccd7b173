package bench

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// okRanges are settings every check accepts (vLLM's defaults).
func okRanges() Ranges {
	return Ranges{Kind: OpenAICompletions, Dataset: dataset.Random, NumPrompts: 1000, RequestRate: math.Inf(1), Burstiness: 1, RequestTimeout: time.Minute}
}

// TestRangesCheck: each value no run can use is refused with the
// command line's words; vLLM's defaults pass.
func TestRangesCheck(t *testing.T) {
	t.Parallel()
	neg, zero := -1, 0
	for _, tc := range []struct {
		name string
		edit func(*Ranges)
		want string
	}{
		{"defaults", func(*Ranges) {}, ""},
		{"timed trace on chat", func(r *Ranges) { r.Dataset, r.Kind = dataset.TimedTrace, OpenAIChat }, "timed_trace dataset passes pre-tokenized prompts (list[int]) and requires a completions backend ('vllm' or 'openai')."},
		{"no prompts", func(r *Ranges) { r.NumPrompts = 0 }, "--num-prompts must be in 1..1000000 (got 0); split larger runs"},
		{"too many prompts", func(r *Ranges) { r.NumPrompts = MaxNumPrompts + 1 }, "--num-prompts must be in 1..1000000 (got 1000001); split larger runs"},
		{"base URL without scheme", func(r *Ranges) { r.BaseURL = "127.0.0.1:8000" }, "--base-url 127.0.0.1:8000 has no scheme: add http:// (--base-url http://127.0.0.1:8000) or https://"},
		{"base URL's password hidden", func(r *Ranges) { r.BaseURL = "u:secret@h:1" }, "--base-url u:xxxxx@h:1 has no scheme"},
		{"label with a separator", func(r *Ranges) { r.Label = "a/b" }, `--label "a/b": must not contain a path separator`},
		{"cap of zero", func(r *Ranges) { r.MaxConcurrency = &zero }, "--max-concurrency must be positive (got 0); leave it out for no limit"},
		{"negative cap", func(r *Ranges) { r.MaxConcurrency = &neg }, "--max-concurrency must be positive (got -1)"},
		{"rate of zero", func(r *Ranges) { r.RequestRate = 0 }, "--request-rate must be positive or inf (got 0)"},
		{"burstiness of zero", func(r *Ranges) { r.Burstiness = 0 }, "--burstiness must be positive (got 0)"},
		{"negative warm-ups", func(r *Ranges) { r.NumWarmups = -1 }, "--num-warmups must not be negative"},
		{"negative ready check", func(r *Ranges) { r.ReadyCheckSec = -1 }, "--ready-check-timeout-sec must not be negative"},
		{"no request timeout", func(r *Ranges) { r.RequestTimeout = 0 }, "--request-timeout must be positive"},
		{"error rate above 1", func(r *Ranges) { r.MaxErrorRate, r.MaxErrorRateGiven = 1.5, true }, "--max-error-rate must be in [0, 1] (got 1.5)"},
		{"error rate not given", func(r *Ranges) { r.MaxErrorRate = 1.5 }, ""},
		{"the first error wins", func(r *Ranges) { r.NumPrompts, r.Burstiness = 0, 0 }, "--num-prompts"},
	} {
		r := okRanges()
		tc.edit(&r)
		err := r.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestRangesPairs: a ramp-up needs both rates, and rates need a ramp-up;
// a SageMaker endpoint needs its name, and the name needs SageMaker.
func TestRangesPairs(t *testing.T) {
	t.Parallel()
	ramp, name := (*Ranges).CheckRamp, (*Ranges).CheckEndpointName
	for _, tc := range []struct {
		check func(*Ranges) error
		r     Ranges
		want  string
	}{
		{ramp, Ranges{}, ""},
		{ramp, Ranges{RampStrategy: "linear", RampStartGiven: true, RampEndGiven: true}, ""},
		{ramp, Ranges{RampStrategy: "linear", RampStartGiven: true}, "when using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified"},
		{ramp, Ranges{RampEndGiven: true}, "--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy"},
		{name, Ranges{Kind: OpenAICompletions}, ""},
		{name, Ranges{Kind: SageMaker, EndpointName: "ep"}, ""},
		{name, Ranges{Kind: SageMaker}, "--backend sagemaker needs --endpoint-name"},
		{name, Ranges{Kind: OpenAIChat, EndpointName: "ep"}, "--endpoint-name needs --backend sagemaker"},
	} {
		if err := tc.check(&tc.r); (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.r, err, tc.want)
		}
	}
}

// TestClosedLoop: without users the companions are refused when given;
// with users the open-loop settings are; the loop carries the settings.
func TestClosedLoop(t *testing.T) {
	t.Parallel()
	given := func(names ...string) func(string) bool {
		return func(n string) bool { return strings.Contains(strings.Join(names, ","), n) }
	}
	for _, tc := range []struct {
		name string
		c    ClosedLoop
		want *load.Users
		err  string
	}{
		{"none", ClosedLoop{Given: given()}, nil, ""},
		{"a config's think time without users", ClosedLoop{Think: "2s", Given: given()}, nil, ""},
		{"think time given without users", ClosedLoop{Given: given("think-time")}, nil, "--think-time needs --users"},
		{"negative", ClosedLoop{Users: -1, Given: given()}, nil, "--users, --spawn-rate, --duration and --warmup-duration must not be negative"},
		{"users with a rate", ClosedLoop{Users: 2, Given: given("request-rate")}, nil, "--users runs a closed loop: it replaces --request-rate (leave it out)"},
		{"bad think time", ClosedLoop{Users: 2, Think: "x", Given: given()}, nil, `--think-time: think time "x"`},
		{"warm-up past the duration", ClosedLoop{Users: 2, Think: "0", Warmup: time.Second, Given: given()}, nil, "--warmup-duration needs a longer --duration"},
		{"users", ClosedLoop{Users: 3, Think: "1s-3s", SpawnRate: 2, Duration: time.Minute, Warmup: time.Second, Seed: 7, Given: given()},
			&load.Users{Users: 3, Think: load.Think{Min: time.Second, Max: 3 * time.Second}, SpawnRate: 2, Warmup: time.Second, Seed: 7}, ""},
	} {
		got, err := tc.c.Loop()
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

// TestDescribeLoad: the params carry the load as vLLM's result names it:
// the cap given, a closed loop's users at an infinite rate, the ramp-up
// and a SageMaker endpoint's name; the described settings are kept.
func TestDescribeLoad(t *testing.T) {
	t.Parallel()
	label := "x"
	open := Spec{Dataset: dataset.Config{NumPrompts: 5}, Load: Load{Arrivals: load.Arrivals{Rate: 4, Burstiness: 0.5}, MaxConcurrency: 3}}
	p := open.DescribeLoad(record.Params{Backend: "vllm", Label: &label})
	if p.RequestRate != 4 || p.Burstiness != 0.5 || *p.MaxConcurrency != 3 || *p.NumPrompts != 5 || p.Backend != "vllm" || *p.Label != "x" || p.RampUpStrategy != "" || p.EndpointName != "" {
		t.Errorf("open loop: %+v", p)
	}
	if p := (&Spec{Load: Load{Arrivals: load.Arrivals{Rate: 4}}}).DescribeLoad(record.Params{}); p.MaxConcurrency != nil {
		t.Errorf("no cap given: max concurrency %v", *p.MaxConcurrency)
	}
	users := Spec{Load: Load{Arrivals: load.Arrivals{Rate: 4, RampStrategy: "linear", RampStartRPS: 1, RampEndRPS: 9}, Users: &load.Users{Users: 8}},
		Endpoint: Endpoint{Kind: SageMaker, SageMaker: sagemaker.Config{EndpointName: "ep"}}}
	p = users.DescribeLoad(record.Params{})
	if !p.RequestRate.IsInf() || *p.MaxConcurrency != 8 || p.RampUpStrategy != "linear" || *p.RampUpStartRPS != 1 || *p.RampUpEndRPS != 9 || p.EndpointName != "ep" {
		t.Errorf("closed loop on SageMaker: %+v", p)
	}
}

// TestIDPrefix: the first prefix given wins; without one, vLLM's
// "bench-" and 8 hex digits, drawn anew each time.
func TestIDPrefix(t *testing.T) {
	t.Parallel()
	if got := IDPrefix("", "w-", "x-"); got != "w-" {
		t.Errorf("given: %q, want w-", got)
	}
	a, b := IDPrefix(), IDPrefix("", "")
	if !regexp.MustCompile(`^bench-[0-9a-f]{8}-$`).MatchString(a) || a == b {
		t.Errorf("prefixes %q and %q", a, b)
	}
}

// TestInFlight: the most requests a run holds in flight — a closed
// loop's users, else the cap, else every prompt.
func TestInFlight(t *testing.T) {
	t.Parallel()
	users := load.Users{Users: 50}
	for _, tt := range []struct {
		name string
		l    Load
		want int
	}{
		{"users", Load{Users: &users, MaxConcurrency: 4}, 50},
		{"capped", Load{MaxConcurrency: 4}, 4},
		{"open", Load{}, 600},
	} {
		s := Spec{Load: tt.l, Dataset: dataset.Config{NumPrompts: 600}}
		if got := s.InFlight(); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

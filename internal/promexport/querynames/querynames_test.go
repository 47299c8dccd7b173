package querynames

import (
	"slices"
	"testing"
)

func TestMetrics(t *testing.T) {
	t.Parallel()
	cases := []struct {
		why, expr string
		want      []string
	}{
		{"bare name", `llmbench_client_valid == 0`, []string{"llmbench_client_valid"}},
		{"function and aggregation names are not metrics; le is a grouping label",
			`histogram_quantile(0.99, sum by (le, phase) (rate(llmbench_ttft_seconds_bucket{phase!="warmup"}[1m]))) > 0.5`,
			[]string{"llmbench_ttft_seconds_bucket"}},
		{"matchers may hold anything, strings too",
			`sum(rate(llmbench_requests_total{outcome="fail(ure)", run_id=~"$run_id", model='a{b}'}[$__rate_interval]))`,
			[]string{"llmbench_requests_total"}},
		{"binary operators, bool, on/ignoring lists, numbers with exponents, offsets",
			`a_total / on(run_id) group_left(model) b_info > bool 1e-3 or c unless d offset 5m and 0x1f`,
			[]string{"a_total", "b_info", "c", "d"}},
		{"a space before the parenthesis is still a call",
			`sum (x) without (y)`, []string{"x"}},
		{"colons are part of names (vLLM's, recording rules)",
			`avg(vllm:num_requests_running{model_name="m"})`, []string{"vllm:num_requests_running"}},
		{"subquery and @ modifier", `max_over_time(deriv(x[5m])[30m:1m] @ end())`, []string{"x"}},
		{"Grafana variable in a threshold", `x > ${ttft_sla}`, []string{"x"}},
		{"repeats once, sorted", `b + a + b`, []string{"a", "b"}},
	}
	for _, c := range cases {
		if got := Metrics(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("%s: Metrics(%q) = %q, want %q", c.why, c.expr, got, c.want)
		}
	}
}

package report

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/servermetrics"
)

func fp(v float64) *float64 { return &v }

// TestServerSpecificsLines: the section shows what the server exposed,
// in vLLM's "{:<40} {:<10}" layout, and leaves out what it did not.
func TestServerSpecificsLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sum  servermetrics.Summary
		want []string
	}{
		{"vllm with DCGM", servermetrics.Summary{Server: "vllm", Scrapes: 12, ScrapeErrors: 1, RunningMean: fp(6.4), RunningMax: fp(8),
			WaitingMean: fp(5.6), WaitingMax: fp(8), KVCacheUsageMax: fp(0.0134), Preemptions: fp(0), PrefixCacheHitRate: fp(0.5),
			GenerationTokens: fp(4096), PromptTokens: fp(2606), GenerationTokensVsClient: fp(1), QueueTimeMeanS: fp(0.22315),
			ServerTTFTMeanS: fp(0.22673), GPUUtilizationMean: fp(0.883), PowerMeanW: fp(271.86), EnergyJ: fp(615.25), EnergyPerOutputTokenJ: fp(0.150208)},
			[]string{
				"================ Server Specifics ================",
				"Server:                                  vllm      ",
				"Scrapes (errors):                        12 (1)    ",
				"Running requests, mean:                  6.40      ",
				"Running requests, max:                   8         ",
				"Waiting requests, mean:                  5.60      ",
				"Waiting requests, max:                   8         ",
				"KV-cache usage, max (%):                 1.34      ",
				"Preemptions:                             0         ",
				"Prefix-cache hit rate (%):               50.00     ",
				"Generation tokens:                       4096      ",
				"Prompt tokens:                           2606      ",
				"Generation tokens / client's:            1.00      ",
				"Mean queue time (ms):                    223.15    ",
				"Mean server TTFT (ms):                   226.73    ",
				"GPU utilisation, mean (%):               88.30     ",
				"GPU power, mean (W):                     271.86    ",
				"GPU energy (J):                          615.25    ",
				"Energy per output token (J):             0.1502    ",
				"==================================================",
			}},
		{"nothing recognised, every scrape failed", servermetrics.Summary{ScrapeErrors: 3},
			[]string{
				"================ Server Specifics ================",
				"Server:                                  not recognised",
				"Scrapes (errors):                        0 (3)     ",
				"==================================================",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ServerSpecificsLines(&servermetrics.Result{Summary: tt.sum})
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

package flagset

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// groups sorts run's (and demo's and sweep's) flags into help sections,
// like vLLM's argument groups; flags not listed go under "Other".
var groups = []struct {
	title string
	flags []string
}{
	{"Endpoint and authentication", []string{"backend", "base-url", "host", "port", "endpoint", "model", "served-model-name",
		"header", "insecure", "request-id-prefix", "request-timeout", "ready-check-timeout-sec", "lora-modules", "extra-body",
		"logprobs", "use-beam-search"}},
	{"SageMaker", []string{"endpoint-name", "region", "profile", "endpoint-url", "no-instance-metadata", "payload-format",
		"target-variant", "target-container-hostname", "inference-component", "custom-attributes", "cloudwatch",
		"cloudwatch-wait", "instance-type", "instance-count", "price-per-hour", "sagemaker-read-timeout"}},
	{"Load", []string{"request-rate", "burstiness", "max-concurrency", "ramp-up-strategy", "ramp-up-start-rps",
		"ramp-up-end-rps", "num-warmups", "users", "think-time", "spawn-rate", "duration", "warmup-duration",
		"concurrency", "request-rates", "step-duration", "prompts-per-step", "step-warmup", "runs", "sla",
		"stop-when-saturated", "refine"}},
	{"Dataset", []string{"dataset-name", "dataset-path", "num-prompts", "seed", "input-len", "output-len",
		"random-input-len", "random-output-len", "random-range-ratio", "random-prefix-len", "sharegpt-output-len",
		"custom-output-len", "skip-chat-template", "no-oversample", "disable-shuffle", "hf-split", "hf-subset",
		"hf-output-len", "hf-prompt-column", "hf-revision", "input-len-dist", "output-len-dist"}},
	{"Tokenizer", []string{"tokenizer", "tokenizer-mode", "tokenizer-revision", "trust-remote-code",
		"skip-tokenizer-init", "strict-tokens"}},
	{"Sampling", []string{"ignore-eos", "temperature", "top-p", "top-k", "min-p", "frequency-penalty",
		"presence-penalty", "repetition-penalty"}},
	{"Metrics", []string{"percentile-metrics", "metric-percentiles", "goodput", "latency-from-intended",
		"max-error-rate", "no-steady-state", "steady-state-threshold", "steady-state-min-window"}},
	{"Output", []string{"save-result", "save-detailed", "append-result", "result-dir", "result-filename", "label",
		"metadata", "save-records", "html", "disable-tqdm", "metrics-addr", "metrics-linger", "pushgateway"}},
	{"Project configuration", []string{"config", "no-config", "course", "print-command"}},
}

// groupPrefixes sends whole families of flags to a section.
var groupPrefixes = []struct{ prefix, title string }{
	{"prefix-repetition-", "Dataset"}, {"timed-trace-", "Dataset"}, {"sonnet-", "Dataset"}, {"self-timed", "Dataset"},
	{"no-self-timed", "Dataset"}, {"burstgpt-", "Dataset"}, {"sim-", "Simulator"},
	{"server-metric", "Server metrics"}, {"reset-prefix-cache", "Server metrics"},
}

// groupOf is the help section of the flag name.
func groupOf(name string) string {
	for _, g := range groups {
		if slices.Contains(g.flags, name) {
			return g.title
		}
	}
	for _, p := range groupPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.title
		}
	}
	return "Other"
}

// Section is one help section: its title and its flags.
type Section struct {
	Title string
	Flags *pflag.FlagSet
}

// Sections sorts fs's flags into help sections, in the order help prints
// them (the listed groups, then "Server metrics", "Simulator", "Other");
// a section without flags is left out.
func Sections(fs *pflag.FlagSet) []Section {
	sets := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		g := groupOf(f.Name)
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
		}
		sets[g].AddFlag(f)
	})
	var order []string
	for _, g := range groups {
		order = append(order, g.title)
	}
	var out []Section
	for _, title := range append(order, "Server metrics", "Simulator", "Other") {
		if sets[title] != nil {
			out = append(out, Section{Title: title, Flags: sets[title]})
		}
	}
	return out
}

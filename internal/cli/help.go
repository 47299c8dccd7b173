package cli

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/editdist"
)

// flagGroups sorts run's flags into sections, like vLLM's argument groups;
// flags not listed go under "Other".
var flagGroups = []struct {
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

func groupOf(name string) string {
	for _, g := range flagGroups {
		for _, f := range g.flags {
			if f == name {
				return g.title
			}
		}
	}
	for _, p := range groupPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.title
		}
	}
	return "Other"
}

// terminalWidth is the width help lines wrap at: the terminal's, else
// $COLUMNS, else 80; never under 60.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return max(cols, 60)
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil {
		return max(c, 60)
	}
	return 80
}

// groupedHelp prints a command's help with its flags in sections, each
// wrapped to the terminal's width.
func groupedHelp(cmd *cobra.Command, _ []string) {
	w := cmd.OutOrStdout()
	width := terminalWidth(w)
	if cmd.Long != "" {
		fmt.Fprintln(w, strings.TrimSpace(cmd.Long))
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Usage:\n  %s\n\n", cmd.UseLine())
	if cmd.Example != "" {
		fmt.Fprintf(w, "Examples:\n%s\n\n", cmd.Example)
	}
	sets := map[string]*pflag.FlagSet{}
	var order []string
	for _, g := range flagGroups {
		order = append(order, g.title)
	}
	order = append(order, "Server metrics", "Simulator", "Other")
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		g := groupOf(f.Name)
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
		}
		sets[g].AddFlag(f)
	})
	for _, g := range order {
		if fs := sets[g]; fs != nil {
			fmt.Fprintf(w, "%s:\n%s\n", g, fs.FlagUsagesWrapped(width-1))
		}
	}
	fmt.Fprintln(w, "Underscore spellings work too (--max_concurrency). Docs: README.md, docs/.")
}

// suggestFlag adds "did you mean --x?" to an unknown-flag error.
func suggestFlag(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	best, bestD := "", 4
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if d := editdist.Levenshtein(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" {
		return fmt.Errorf("%w (see %s --help)", err, cmd.CommandPath())
	}
	return fmt.Errorf("%w: did you mean --%s?", err, best)
}

// defaultNote matches a "(default ...)" written into a flag's usage text.
var defaultNote = regexp.MustCompile(`\s*\(default[^()]*(\([^()]*\)[^()]*)*\)`)

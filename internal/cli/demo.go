package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// demoDefaults are the seed defaults a first run uses: 20 prompts at
// concurrency 4, random 256-token prompts asking for 128 tokens, 2
// warm-ups, percentiles 50/95/99.
var demoDefaults = []struct{ name, value string }{
	{"num-prompts", "20"}, {"max-concurrency", "4"},
	{"random-input-len", "256"}, {"random-output-len", "128"},
	{"num-warmups", "2"}, {"metric-percentiles", "50,95,99"},
	{"percentile-metrics", "ttft,tpot,itl,e2el"}, {"tokenizer", tokenizer.BuiltinGPT2},
}

// newDemoCmd builds "llmbench demo": the built-in simulator on a loopback
// port and a default benchmark against it over real HTTP.
func newDemoCmd(env *Env) *cobra.Command {
	o := &runOptions{}
	var preset string
	cmd := &cobra.Command{
		Use:   "demo [run flags]",
		Short: "Run a benchmark against the built-in simulator (start here)",
		Long: `Start the built-in simulated LLM server on a free loopback port and run a
default benchmark against it over real HTTP: 20 random prompts of 256
tokens asking for 128 tokens each, at most 4 in flight, after 2 warm-up
requests, reporting percentiles 50, 95 and 99. Client and simulator count
tokens with GPT-2's tokenizer, built into the binary.

Every "llmbench run" flag works here too (e.g. --max-concurrency 16,
--backend openai-chat, --goodput ttft:500 tpot:40). The simulator models
Llama-3.1-8B on one A10G GPU by default (--sim-preset picks another).`,
		Example: `  llmbench demo
  llmbench demo --max-concurrency 16 --num-prompts 64
  llmbench demo --sim-preset fast --backend openai-chat --goodput ttft:200`,
		Args: argsBetween(0, 0, "takes flags only"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			p, err := sim.LookupPreset(preset)
			if err != nil {
				return &UsageError{Err: fmt.Errorf("--sim-preset: %w", err)}
			}
			for _, name := range []string{"base-url", "host", "port"} {
				if cmd.Flags().Changed(name) {
					return usageErrorf("demo runs against its own simulator and ignores --%s; to measure a server use llmbench run --%s", name, name)
				}
			}
			if o.f.backend == "sagemaker" {
				return usageErrorf("demo runs against the simulator's OpenAI API; for SageMaker use llmbench sim and llmbench run --backend sagemaker --endpoint-url")
			}
			// Bad flags fail before the simulator starts.
			if err := o.validate(cmd); err != nil {
				return err
			}
			cfg := sim.DefaultConfig().WithPreset(p)
			// The simulator counts with the client's tokenizer, so prompt
			// lengths and usage agree token for token.
			if o.f.tokenizer != "" && !o.f.skipTokenizer {
				if cfg.Tokenizer, err = tokenizer.Load(ctx, o.f.tokenizer, tokenizer.Options{Hub: hfhub.FromEnv(env.Getenv)}); err != nil {
					return tokenizerError(err)
				}
			}
			srv, err := sim.Start(ctx, cfg, "")
			if err != nil {
				return fmt.Errorf("starting the simulator: %w", err)
			}
			defer srv.Stop(ctx)
			o.f.simURL = srv.URL // demo refuses --base-url: the flag stays unset
			fmt.Fprintf(env.Stdout, "Simulator (%s) listening on %s\n", p.Doc, srv.URL)
			if err := o.run(ctx, env, cmd); err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, "\nThat was the built-in simulator. To measure a real server, run the same command with\n"+
				"  llmbench run --base-url http://HOST:PORT --model MODEL [flags shown in llmbench run --help]")
			return nil
		},
	}
	fs := cmd.Flags()
	bindRunFlags(fs, &o.f)
	bindClosedLoopFlags(fs, &o.f)
	bindMetricsFlags(fs, &o.m)
	o.sm = bindSageMakerFlags(fs)
	for _, d := range demoDefaults {
		flagset.SetDefault(fs, d.name, d.value)
	}
	fs.StringVar(&preset, "sim-preset", sim.DefaultPreset, "simulator performance preset (see llmbench sim --help)")
	return cmd
}

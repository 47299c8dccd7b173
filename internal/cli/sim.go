package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/sim"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// simFlags holds `llmbench sim`'s flag values, o's but its Overrides.
type simFlags struct {
	o                   sim.Options
	truthLog, tokenizer string
	listPresets         bool
	exitAfter           time.Duration

	// Batching overrides (applied only when Changed).
	maxNumSeqs, maxBatched, kvTokens, maxModelLen int
	prefillRate                                   float64
	decodeBase, decodePerSeq, decodePerKV         time.Duration
}

func newSimCmd(env *Env) *cobra.Command {
	cfg := sim.DefaultConfig()
	f := &simFlags{}
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run a simulated LLM server (OpenAI-compatible and SageMaker Runtime APIs)",
		Long: `sim serves a simulated LLM with vLLM's OpenAI-compatible API
(/v1/completions, /v1/chat/completions, /v1/models, /health, /tokenize,
/detokenize) and the SageMaker Runtime API (/endpoints/NAME/invocations and
/endpoints/NAME/invocations-response-stream, AWS event-stream framing).

Performance model: --mode batching (default) runs one continuous-batching
engine loop (batch slots, chunked prefill at --prefill-rate, a decode step
that grows with the batch, a KV-cache capacity, a FIFO waiting queue), so
throughput flattens and TTFT/ITL tails climb as concurrency rises. Presets
(--list-presets) model an 8B model on one GPU; the figures are approximate.
--mode fixed gives every request --ttft and --itl whatever the load, for
measuring a client's own overhead.

Prompt tokens are counted one per whitespace-separated word (plus one BOS),
or with --tokenizer (a tokenizer.json or Hugging Face id; chat prompts use a
plain "role\ncontent\n" template, not the model's); generated text is
deterministic words, one token each.

/metrics carries vLLM's metric families and histogram buckets (running,
waiting, KV-cache usage, preemptions, prefix-cache queries and hits,
TTFT, inter-token, e2e, queue, prefill and decode histograms). The KV
cache is taken in 16-token blocks as contexts grow; when none is free the
newest running request is preempted and later recomputed, as in vLLM V1.
The prefix cache is on (--no-enable-prefix-caching turns it off; POST
/reset_prefix_cache empties it). --dcgm-addr serves simulated NVIDIA DCGM
exporter GPU metrics (docs/server-metrics.md).

--truth-log FILE writes one JSON line per request: arrival, and for every
chunk the write start/end (Unix ns from the monotonic clock) and its token
count. Faults (--fault-*) are rates in 0..1, deterministic with --seed.`,
		Args: argsBetween(0, 0, "takes flags only"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.listPresets {
				for _, p := range sim.Presets {
					fmt.Fprintf(env.Stdout, "%-16s %s\n", p.Name, p.Doc)
				}
				return nil
			}
			return runSim(cmd, env, cfg, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.o.Addrs.Listen, "listen", "127.0.0.1:8000", "address to listen on (port 0 = any free port)")
	fs.StringVar(&f.o.Addrs.Metrics, "metrics-addr", "", "also serve the simulator's /metrics (vLLM's metric names) on this address, e.g. 127.0.0.1:9465 (it is always on the API port's /metrics too)")
	fs.StringVar(&f.o.Addrs.DCGM, "dcgm-addr", "", "also serve simulated NVIDIA DCGM exporter metrics (GPU utilisation, memory, power, energy from the engine's busy time) on this address, e.g. 127.0.0.1:9400")
	fs.BoolVar(&cfg.NoPrefixCache, "no-enable-prefix-caching", false, "batching: turn the prefix cache off (on by default, as in vLLM; POST /reset_prefix_cache empties it)")
	fs.BoolVar(&f.o.AllowRemote, "allow-remote", false, "allow a non-loopback --listen address (the simulator has no authentication)")
	fs.DurationVar(&f.exitAfter, "exit-after", 0, "stop after this long (0 = run until interrupted)")
	fs.StringVar(&cfg.Model, "model", cfg.Model, "served model name")
	fs.StringVar(&cfg.Mode, "mode", cfg.Mode, "performance model: batching or fixed")
	fs.StringVar(&f.o.Preset, "preset", sim.DefaultPreset, "batching preset (see --list-presets)")
	fs.BoolVar(&f.listPresets, "list-presets", false, "list the presets and what they model, then exit")
	fs.DurationVar(&cfg.TTFT, "ttft", cfg.TTFT, "fixed mode: time to first token")
	fs.DurationVar(&cfg.ITL, "itl", cfg.ITL, "fixed mode: inter-token latency")
	fs.DurationVar(&cfg.SpinWait, "spin-wait", 0, "busy-wait (yielding) this long before each engine deadline, e.g. 1ms: sub-ms accuracy for a core of CPU")
	fs.IntVar(&f.maxNumSeqs, "max-num-seqs", 0, "batching: running batch size cap (default from preset)")
	fs.IntVar(&f.maxBatched, "max-num-batched-tokens", 0, "batching: tokens per step cap (default from preset)")
	fs.Float64Var(&f.prefillRate, "prefill-rate", 0, "batching: prefill tokens per second (default from preset)")
	fs.DurationVar(&f.decodeBase, "decode-base", 0, "batching: step time with an empty batch (default from preset)")
	fs.DurationVar(&f.decodePerSeq, "decode-per-seq", 0, "batching: step time added per running sequence (default from preset)")
	fs.DurationVar(&f.decodePerKV, "decode-per-kv-token", 0, "batching: step time added per context token in the batch (default from preset)")
	fs.IntVar(&f.kvTokens, "kv-cache-tokens", 0, "batching: KV-cache capacity in tokens (default from preset)")
	fs.IntVar(&f.maxModelLen, "max-model-len", 0, "context length, prompt + output (default from preset)")
	fs.IntVar(&cfg.TokensPerChunk, "tokens-per-chunk", cfg.TokensPerChunk, "tokens carried by each streamed chunk")
	fs.DurationVar(&cfg.PingInterval, "ping-interval", 0, "write an SSE ': ping' comment after this much silence (0 = never, like vLLM)")
	fs.BoolVar(&cfg.CRLF, "crlf", false, "end SSE lines with \\r\\n")
	fs.Float64Var(&cfg.EOSRate, "eos-rate", 0, "chance per token of an early EOS (finish_reason stop) unless ignore_eos")
	fs.Uint64Var(&cfg.Seed, "seed", 0, "seed for EOS, faults, random part sizes and generated words")
	fs.StringVar(&cfg.PayloadFormat, "payload-format", cfg.PayloadFormat, "SageMaker container format: openai, tgi or lmi")
	fs.StringVar(&f.o.PartSize, "part-size", "4096", "SageMaker PayloadPart size in bytes, or random")
	fs.StringVar(&f.truthLog, "truth-log", "", "write per-request ground truth as JSON lines to this file")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "count prompt tokens with this tokenizer (tokenizer.json path or Hugging Face id) instead of one per word")
	bindSimFaultFlags(fs, &cfg.Faults)
	return cmd
}

// bindSimFaultFlags declares the fault-injection flags (rates in 0..1,
// deterministic with --seed).
func bindSimFaultFlags(fs *pflag.FlagSet, ft *sim.Faults) {
	d := sim.DefaultFaults()
	fs.Float64Var(&ft.HTTP500Rate, "fault-500", 0, "rate of HTTP 500 answers")
	fs.Float64Var(&ft.HTTP429Rate, "fault-429", 0, "rate of HTTP 429 answers (with Retry-After)")
	fs.DurationVar(&ft.RetryAfter, "retry-after", d.RetryAfter, "Retry-After sent with 429 (whole seconds)")
	fs.Float64Var(&ft.Loading503Rate, "fault-503", 0, "rate of HTTP 503 'model loading' answers")
	fs.DurationVar(&ft.LoadingFor, "loading-for", 0, "answer 503 to everything (and /health) for this long after start")
	fs.Float64Var(&ft.DropRate, "fault-drop", 0, "rate of connections dropped mid-stream")
	fs.Float64Var(&ft.StallRate, "fault-stall", 0, "rate of mid-stream stalls")
	fs.DurationVar(&ft.StallFor, "stall-for", d.StallFor, "length of a mid-stream stall")
	fs.Float64Var(&ft.MalformedRate, "fault-malformed", 0, "rate of streams with one malformed JSON chunk")
	fs.Float64Var(&ft.ErrorEventRate, "fault-error-event", 0, "rate of streams ended by an in-stream error object (HTTP 200, then [DONE])")
	fs.Float64Var(&ft.SlowFirstByteRate, "fault-slow-first-byte", 0, "rate of responses whose headers are delayed")
	fs.DurationVar(&ft.SlowFirstByteFor, "slow-first-byte", d.SlowFirstByteFor, "delay of a slow first byte")
	fs.Float64Var(&ft.ModelStreamErrorRate, "fault-model-stream-error", 0, "SageMaker: rate of ModelStreamError frames mid-stream")
	fs.StringVar(&ft.ModelStreamErrorCode, "model-stream-error-code", d.ModelStreamErrorCode, "SageMaker: ModelStreamError ErrorCode (StreamBroken or ModelInvocationTimeExceeded)")
	fs.Float64Var(&ft.InternalStreamFailureRate, "fault-internal-stream-failure", 0, "SageMaker: rate of InternalStreamFailure frames mid-stream")
	fs.Float64Var(&ft.ThrottleRate, "fault-throttle", 0, "SageMaker: rate of ThrottlingException answers")
	fs.Float64Var(&ft.ModelErrorRate, "fault-model-error", 0, "SageMaker: rate of ModelError (424) answers")
	fs.Float64Var(&ft.ModelNotReadyRate, "fault-model-not-ready", 0, "SageMaker: rate of ModelNotReadyException (429) answers")
}

// options are the flags as sim.Options; the batching figures only
// when given.
func (f *simFlags) options(fl *pflag.FlagSet) *sim.Options {
	o := f.o
	o.Overrides = sim.Overrides{
		MaxNumSeqs:          flagset.Given(fl, "max-num-seqs", &f.maxNumSeqs),
		MaxNumBatchedTokens: flagset.Given(fl, "max-num-batched-tokens", &f.maxBatched),
		PrefillTokensPerSec: flagset.Given(fl, "prefill-rate", &f.prefillRate),
		DecodeBase:          flagset.Given(fl, "decode-base", &f.decodeBase),
		DecodePerSeq:        flagset.Given(fl, "decode-per-seq", &f.decodePerSeq),
		DecodePerKVToken:    flagset.Given(fl, "decode-per-kv-token", &f.decodePerKV),
		KVCacheTokens:       flagset.Given(fl, "kv-cache-tokens", &f.kvTokens),
		MaxModelLen:         flagset.Given(fl, "max-model-len", &f.maxModelLen),
	}
	return &o
}

// runSim resolves the flags, loads --tokenizer and serves (sim.Serve).
func runSim(cmd *cobra.Command, env *Env, cfg sim.Config, f *simFlags) error {
	o := f.options(cmd.Flags())
	cfg, err := o.Resolve(cfg)
	if err != nil {
		return &UsageError{Err: err}
	}
	if f.tokenizer != "" {
		if cfg.Tokenizer, err = tokenizer.Load(cmd.Context(), f.tokenizer, tokenizer.Options{Hub: hfhub.FromEnv(env.Getenv)}); err != nil {
			return tokenizerError(err)
		}
	}
	ctx, cancel := withExitAfter(cmd.Context(), f.exitAfter)
	defer cancel()
	err = sim.Serve(ctx, cfg, o, f.truthLog, env.Stdout)
	if errors.Is(err, sim.ErrTruthLog) {
		return &UsageError{Err: err}
	}
	return err
}

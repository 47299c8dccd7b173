package sim

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// Performance modes.
const (
	// ModeBatching runs a continuous-batching engine loop (the default).
	ModeBatching = "batching"
	// ModeFixed gives every request the same TTFT and ITL regardless of
	// load, for measuring a client's own overhead.
	ModeFixed = "fixed"
)

// SageMaker payload formats (what the container inside the endpoint emits).
const (
	// FormatOpenAI is the vLLM container: OpenAI SSE, chat for a body with
	// "messages", completions for a body with "prompt".
	FormatOpenAI = "openai"
	// FormatTGI is Hugging Face TGI: "inputs" bodies stream
	// `data:{"token":{...}}` events, the last with generated_text/details;
	// "messages"/"prompt" bodies get OpenAI SSE.
	FormatTGI = "tgi"
	// FormatLMI is DJL-Serving LMI: "inputs" bodies stream rolling-batch
	// JSON lines {"token":{...}}, the last with generated_text/details;
	// "messages"/"prompt" bodies get vLLM's chunks as JSON lines with an
	// empty final line instead of [DONE].
	FormatLMI = "lmi"
)

// Config configures a simulated server. The zero value is not usable; start
// from DefaultConfig or a preset and change fields.
type Config struct {
	// Model is the served model name (/v1/models, the "model" field of
	// responses). A request naming another model gets vLLM's 404.
	Model string
	// Mode is ModeBatching or ModeFixed.
	Mode string

	// TTFT and ITL are the fixed-mode time to first token and inter-token
	// latency. Ignored in batching mode.
	TTFT, ITL time.Duration
	// SpinWait makes the engine loop busy-wait (yielding) for the last
	// SpinWait before each deadline instead of sleeping, trading CPU for
	// sub-millisecond emission accuracy (Go's timers sleep in whole
	// milliseconds when the process is idle). 0 = plain timers.
	SpinWait time.Duration

	// Batching is the batching-mode performance model.
	Batching Batching

	// MaxModelLen is the context length: prompt + output tokens must fit
	// (vLLM's --max-model-len). It also sets the default max_tokens.
	MaxModelLen int
	// TokensPerChunk is how many tokens each streamed chunk carries (some
	// deployments batch detokenized output); 1 = one token per chunk, like
	// vLLM. The last chunk may carry fewer.
	TokensPerChunk int
	// PingInterval, when > 0, writes an SSE ": ping" comment whenever a
	// stream has been silent that long (what proxies and some servers do;
	// vLLM does not). Costs one timer per stream.
	PingInterval time.Duration
	// CRLF ends SSE lines with "\r\n" instead of "\n".
	CRLF bool
	// EOSRate is the chance per generated token that the model emits EOS
	// and stops early (finish_reason "stop"); requests with ignore_eos are
	// unaffected. 0 = never stop early.
	EOSRate float64
	// Seed drives every random choice (EOS, faults, random part sizes,
	// generated words), so a run replays exactly.
	Seed uint64

	// PayloadFormat is the SageMaker container format: FormatOpenAI (the
	// default), FormatTGI or FormatLMI.
	PayloadFormat string
	// PartSize is where SageMaker PayloadPart boundaries fall.
	PartSize eventstream.PartSize

	// Faults configures fault injection.
	Faults Faults

	// NoPrefixCache turns the batching engine's prefix cache off (vLLM's
	// --no-enable-prefix-caching). It is on by default, as in vLLM: a
	// prompt's leading 16-token blocks already in the KV cache (from an
	// earlier request with the same prefix) are shared, not prefilled.
	NoPrefixCache bool

	// Tokenizer counts prompt tokens; nil = WordTokenizer.
	Tokenizer Tokenizer
	// TruthLog, when non-nil, receives one JSON line of ground truth per
	// finished request (written off the request path).
	TruthLog io.Writer
	// KeepTruth keeps every request's ground truth in memory for
	// Server.Truth (memory grows with the number of requests).
	KeepTruth bool
	// OnTruth, when non-nil, is called with each finished request's ground
	// truth, from the request's goroutine, after its response was written.
	OnTruth func(Truth)
}

// Batching is the continuous-batching performance model. One engine loop
// runs steps back to back while there is work. A step takes
//
//	DecodeBase + DecodePerSeq*running + DecodePerKVToken*contextTokens
//	  + prefillTokens/PrefillTokensPerSec
//
// and gives every running sequence whose prefill is complete one token.
// Prefill is chunked: each step spends what is left of MaxNumBatchedTokens
// after the decodes on waiting prompts, oldest first; a sequence's first
// token comes at the end of the step that completes its prefill. A request
// is admitted when fewer than MaxNumSeqs are running and the KV cache has
// free 16-token blocks for its prompt; otherwise it waits in FIFO order.
// Decoding takes a block whenever a sequence's context crosses a block
// boundary; when none is free, the newest running sequence is preempted
// as in vLLM V1 (its blocks are freed, it goes back to the head of the
// queue and is recomputed, prompt and tokens so far, when readmitted).
// The prefix cache (Config.NoPrefixCache turns it off) keeps full prompt
// blocks after their sequence ends, until their space is needed; a prompt
// whose leading blocks are cached skips their prefill. Example (llama3-8b-a10g): one stream decodes in
// 28ms+0.15ms+~1k*220ns ≈ 28.4 ms per token (~35 tok/s); 64 streams in
// 28+9.6+64k*0.22µs ≈ 52 ms per step, i.e. ~1,230 tok/s in total.
type Batching struct {
	// MaxNumSeqs caps the running batch (vLLM's --max-num-seqs).
	MaxNumSeqs int
	// MaxNumBatchedTokens caps the tokens one step processes (decodes plus
	// prefill chunk; vLLM's --max-num-batched-tokens).
	MaxNumBatchedTokens int
	// PrefillTokensPerSec is the prefill rate: a prompt of P tokens adds
	// P/rate to the steps that process it.
	PrefillTokensPerSec float64
	// DecodeBase is the step time with an empty batch (reading the weights).
	DecodeBase time.Duration
	// DecodePerSeq is added per running sequence.
	DecodePerSeq time.Duration
	// DecodePerKVToken is added per token of context held by running
	// sequences (attention reads the KV cache).
	DecodePerKVToken time.Duration
	// KVCacheTokens is the KV-cache capacity in tokens.
	KVCacheTokens int
}

// Faults configures fault injection. Each *Rate is the probability that a
// request gets that fault (0..1; their sum must not exceed 1); each request
// gets at most one, drawn from Config.Seed and the request's arrival number,
// so the n-th request meets the same fate in every run. Mid-stream faults
// strike after a seeded number of tokens between 1 and the output length - 1.
type Faults struct {
	// HTTP500Rate answers HTTP 500 with a vLLM-style error body.
	HTTP500Rate float64
	// HTTP429Rate answers HTTP 429 with a Retry-After header.
	HTTP429Rate float64
	// RetryAfter is the 429's Retry-After, rounded up to whole seconds
	// (default 1 s).
	RetryAfter time.Duration
	// Loading503Rate answers HTTP 503 as a server still loading its model.
	Loading503Rate float64
	// LoadingFor makes the server "load" for this long after it starts:
	// /health and every request answer 503 until then.
	LoadingFor time.Duration
	// DropRate closes the connection mid-stream without ending the response.
	DropRate float64
	// StallRate pauses the stream mid-way for StallFor (default 5 s).
	StallRate float64
	StallFor  time.Duration
	// MalformedRate writes one chunk whose JSON is cut short, then goes on.
	MalformedRate float64
	// ErrorEventRate ends the stream mid-way the way vLLM reports an
	// engine error after the headers: an SSE event whose JSON is
	// {"error": {...}}, then [DONE], with HTTP status still 200.
	ErrorEventRate float64
	// SlowFirstByteRate delays the response headers by SlowFirstByteFor
	// (default 2 s) on top of the model's own time.
	SlowFirstByteRate float64
	SlowFirstByteFor  time.Duration

	// SageMaker-only faults (the /endpoints API; ignored elsewhere).

	// ModelStreamErrorRate sends a ModelStreamError exception frame
	// mid-stream (ErrorCode ModelStreamErrorCode, default StreamBroken).
	ModelStreamErrorRate float64
	ModelStreamErrorCode string
	// InternalStreamFailureRate sends an InternalStreamFailure frame
	// mid-stream.
	InternalStreamFailureRate float64
	// ThrottleRate answers 400 ThrottlingException before the stream.
	ThrottleRate float64
	// ModelErrorRate answers 424 ModelError (container status 500).
	ModelErrorRate float64
	// ModelNotReadyRate answers 429 ModelNotReadyException.
	ModelNotReadyRate float64
}

// Preset is a named, documented set of performance defaults.
type Preset struct {
	// Name is what --preset takes.
	Name string
	// Doc says what the preset models.
	Doc string
	// MaxModelLen is the context length the preset serves.
	MaxModelLen int
	// Batching is the performance model.
	Batching Batching
}

// Presets are approximate models of real deployments, derived from
// bandwidth and FLOP arithmetic for Llama-3.1-8B in bf16 (16 GB of weights,
// 128 KiB of KV cache per token), not from measurements: a decode step must
// read all weights (DecodeBase ≈ 16 GB / memory bandwidth), attention reads
// each sequence's KV cache (DecodePerKVToken ≈ 128 KiB / bandwidth), and
// prefill runs at roughly 40–50 % of dense bf16 FLOPs at 16 GFLOP per token.
// The KV cache is what is left of 90 % of GPU memory after the weights.
var Presets = []Preset{
	{
		Name:        "llama3-8b-a10g",
		Doc:         "Llama-3.1-8B bf16 on one NVIDIA A10G (24 GB, 600 GB/s; SageMaker ml.g5): ~35 tok/s per stream, ~36k-token KV cache",
		MaxModelLen: 8192,
		Batching: Batching{MaxNumSeqs: 256, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 4500,
			DecodeBase: 28 * time.Millisecond, DecodePerSeq: 150 * time.Microsecond, DecodePerKVToken: 220, KVCacheTokens: 36000},
	},
	{
		Name:        "llama3-8b-l4",
		Doc:         "Llama-3.1-8B bf16 on one NVIDIA L4 (24 GB, 300 GB/s; SageMaker ml.g6): ~18 tok/s per stream, ~36k-token KV cache",
		MaxModelLen: 8192,
		Batching: Batching{MaxNumSeqs: 256, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 2500,
			DecodeBase: 55 * time.Millisecond, DecodePerSeq: 250 * time.Microsecond, DecodePerKVToken: 440, KVCacheTokens: 36000},
	},
	{
		Name:        "llama3-8b-h100",
		Doc:         "Llama-3.1-8B bf16 on one NVIDIA H100 SXM (80 GB, 3.35 TB/s; SageMaker ml.p5): ~150 tok/s per stream, ~450k-token KV cache",
		MaxModelLen: 32768,
		Batching: Batching{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, PrefillTokensPerSec: 25000,
			DecodeBase: 6 * time.Millisecond, DecodePerSeq: 50 * time.Microsecond, DecodePerKVToken: 40, KVCacheTokens: 450000},
	},
	{
		Name:        "fast",
		Doc:         "a scaled-down engine for tests and demos: 2 ms steps, 16 sequences, saturates at low concurrency (not a real GPU)",
		MaxModelLen: 4096,
		Batching: Batching{MaxNumSeqs: 16, MaxNumBatchedTokens: 2048, PrefillTokensPerSec: 200000,
			DecodeBase: 2 * time.Millisecond, DecodePerSeq: 250 * time.Microsecond, DecodePerKVToken: 0, KVCacheTokens: 65536},
	},
}

// DefaultPreset is the preset DefaultConfig uses.
const DefaultPreset = "llama3-8b-a10g"

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, error) {
	for _, p := range Presets {
		if p.Name == name {
			return p, nil
		}
	}
	names := make([]string, len(Presets))
	for i, p := range Presets {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("unknown preset %q (want one of %s)", name, strings.Join(names, ", "))
}

// DefaultConfig is batching mode with DefaultPreset, model "llmbench-sim",
// one token per chunk, the OpenAI payload format and 4096-byte parts.
func DefaultConfig() Config {
	p, _ := LookupPreset(DefaultPreset)
	return Config{
		Model:          "llmbench-sim",
		Mode:           ModeBatching,
		TTFT:           50 * time.Millisecond,
		ITL:            10 * time.Millisecond,
		Batching:       p.Batching,
		MaxModelLen:    p.MaxModelLen,
		TokensPerChunk: 1,
		PayloadFormat:  FormatOpenAI,
		PartSize:       eventstream.DefaultPartSize,
	}
}

// WithPreset returns c with the preset's performance model and context length.
func (c Config) WithPreset(p Preset) Config {
	c.Batching = p.Batching
	c.MaxModelLen = p.MaxModelLen
	return c
}

// Validate reports every unusable setting, joined in one error.
func (c *Config) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if c.Model == "" {
		bad("model name is empty")
	}
	switch c.Mode {
	case ModeFixed:
		if c.TTFT < 0 || c.ITL < 0 {
			bad("ttft and itl must not be negative")
		}
	case ModeBatching:
		b := c.Batching
		if b.MaxNumSeqs < 1 || b.MaxNumBatchedTokens < 1 || b.KVCacheTokens < 1 {
			bad("max-num-seqs, max-num-batched-tokens and kv-cache-tokens must be positive")
		}
		if b.MaxNumBatchedTokens < b.MaxNumSeqs {
			bad("max-num-batched-tokens (%d) must be at least max-num-seqs (%d)", b.MaxNumBatchedTokens, b.MaxNumSeqs)
		}
		if b.PrefillTokensPerSec <= 0 {
			bad("prefill rate must be positive")
		}
		if b.DecodeBase < 0 || b.DecodePerSeq < 0 || b.DecodePerKVToken < 0 {
			bad("decode times must not be negative")
		}
		if b.DecodeBase == 0 && b.DecodePerSeq == 0 {
			bad("decode-base and decode-per-seq cannot both be zero (steps would take no time)")
		}
		if b.KVCacheTokens < c.MaxModelLen {
			bad("kv-cache-tokens (%d) must hold at least one max-model-len (%d) sequence", b.KVCacheTokens, c.MaxModelLen)
		}
	default:
		bad("mode %q: want %q or %q", c.Mode, ModeBatching, ModeFixed)
	}
	if c.MaxModelLen < 2 {
		bad("max-model-len must be at least 2")
	}
	if c.TokensPerChunk < 1 {
		bad("tokens-per-chunk must be at least 1")
	}
	if c.EOSRate < 0 || c.EOSRate >= 1 {
		bad("eos-rate must be in [0, 1)")
	}
	if c.PingInterval < 0 || c.SpinWait < 0 {
		bad("ping-interval and spin-wait must not be negative")
	}
	if !slices.Contains([]string{FormatOpenAI, FormatTGI, FormatLMI}, c.PayloadFormat) {
		bad("payload format %q: want openai, tgi or lmi", c.PayloadFormat)
	}
	if err := c.Faults.validate(); err != nil {
		bad("%v", err)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func (f *Faults) validate() error {
	rates := []struct {
		name string
		v    float64
	}{
		{"500", f.HTTP500Rate}, {"429", f.HTTP429Rate}, {"503", f.Loading503Rate},
		{"drop", f.DropRate}, {"stall", f.StallRate}, {"malformed", f.MalformedRate},
		{"slow-first-byte", f.SlowFirstByteRate}, {"error-event", f.ErrorEventRate}, {"model-stream-error", f.ModelStreamErrorRate},
		{"internal-stream-failure", f.InternalStreamFailureRate}, {"throttle", f.ThrottleRate},
		{"model-error", f.ModelErrorRate}, {"model-not-ready", f.ModelNotReadyRate},
	}
	sum := 0.0
	for _, r := range rates {
		if r.v < 0 || r.v > 1 {
			return fmt.Errorf("fault rate %s = %v: want 0..1", r.name, r.v)
		}
		sum += r.v
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("fault rates add up to %v, more than 1", sum)
	}
	if f.RetryAfter < 0 || f.StallFor < 0 || f.SlowFirstByteFor < 0 || f.LoadingFor < 0 {
		return errors.New("fault durations must not be negative")
	}
	return nil
}

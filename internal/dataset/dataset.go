// Package dataset builds the list of requests a benchmark sends: prompts,
// their token counts, the output length each request asks for and, for
// replayed traces, when each is due. It reproduces vllm bench serve's
// samplers (random, sharegpt, custom, hf, prefix_repetition, timed_trace,
// sonnet, burstgpt) so that, for the same --seed, lengths and tokenizer,
// llmbench sends the very prompts vLLM sends, and adds length distributions
// and Zipf-weighted shared prefixes beyond vLLM.
//
// Exactness, per dataset:
//   - random: bit-exact with vLLM (NumPy default_rng reimplemented in
//     numpyrand; vLLM's decode/re-encode adjustment); needs the same
//     tokenizer. Without a tokenizer a word-based generator stands in and
//     lengths are approximate (a warning says so).
//   - sharegpt, custom: the same filtering, and the same shuffle and
//     oversampling order as CPython's random (pyrand).
//   - prefix_repetition: the same draws as NumPy's legacy global RNG and
//     Python's shuffle; with --prefix-repetition-zipf > 0 (ours) prefixes
//     are reused with Zipf weights instead.
//   - hf: a generic reader of a dataset repository's JSONL/JSON/Parquet
//     files (vLLM dispatches per dataset id instead); order differs from
//     vLLM's streaming shuffle.
//   - timed_trace: the same entries, lengths, block structure and trace
//     times (Request.Arrival, TraceSchedule); the token ids inside a block
//     differ, since vLLM seeds each block with Python's per-process hash().
//   - sonnet: the same line draws (CPython's random) and line counts; no
//     chat template (see below).
//   - burstgpt: the same rows as pandas' DataFrame.sample (NumPy's legacy
//     RandomState) and the same synthetic prompts; with --self-timed
//     (ours) the rows are replayed on their timestamps.
//
// Differences from vLLM, each reported as a warning when it applies:
//   - No chat-template rendering (there is no template engine). Where vLLM
//     renders the template client-side (custom without
//     --skip-chat-template), the prompt is also given as a one-message chat
//     (Request.Messages) so chat endpoints apply the server's template;
//     completions endpoints get the raw prompt, and prompt_len counts it.
//   - Without a tokenizer (vLLM refuses most datasets then) token counts are
//     estimates: a word per token for random, 4 bytes per token elsewhere.
//   - --no-oversample with fewer usable rows than --num-prompts is an error
//     naming the file, where vLLM silently sends fewer requests.
//
// The package performs network I/O only for the hf dataset (hub downloads,
// through internal/hfhub) and for AlignToServer.
package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/hfhub"
)

// Tokenizer is what the samplers need from a tokenizer, with Hugging Face
// transformers semantics (internal/tokenizer implements it). It must be
// safe for concurrent use: the random sampler encodes on all CPUs.
type Tokenizer interface {
	// Encode returns the token ids of text; addSpecialTokens adds what the
	// post-processor adds (BOS for Llama/Mistral).
	Encode(text string, addSpecialTokens bool) []int
	// Decode returns the text of ids, special tokens included.
	Decode(ids []int) string
	// VocabSize is the base vocabulary size, excluding added tokens.
	VocabSize() int
	// SpecialIDs are the ids of the named special tokens (all_special_ids).
	SpecialIDs() []int
	// NumSpecialTokensToAdd is what Encode(text, true) adds to one sequence.
	NumSpecialTokensToAdd() int
	// CountTokens is len(Encode(text, false)).
	CountTokens(text string) int
	// ID names the tokenizer (for messages).
	ID() string
}

// Request is one sampled request.
type Request struct {
	// Prompt is the prompt text (completions), or the single user message
	// (chat) when Messages is nil.
	Prompt string
	// Messages, when non-nil, is a prebuilt chat conversation to send as-is
	// to chat endpoints.
	Messages []map[string]any
	// PromptLen is the client-side token count of the prompt (what vLLM
	// calls prompt_len); approximate when no tokenizer was given.
	PromptLen int
	// OutputLen is the requested output length (max_tokens).
	OutputLen int
	// PrefixID is the shared-prefix group of prefix_repetition requests
	// (0-based); -1 for datasets without shared prefixes.
	PrefixID int
	// PromptIDs, when non-nil, are the prompt's token ids, which vLLM
	// sends to completions endpoints as the prompt itself (a list of ids)
	// so the server sees exactly these tokens (timed_trace). Prompt then
	// holds their decoded text, for chat endpoints.
	PromptIDs []int
	// Arrival is when the request is due, counted from the start of the
	// benchmark, for a dataset replayed on its own timestamps (timed_trace;
	// burstgpt with --self-timed); it is meaningful only when HasArrival.
	// TraceSchedule turns the arrivals into send offsets.
	Arrival    time.Duration
	HasArrival bool
}

// Dataset names accepted in Config.Name (vLLM's --dataset-name values we
// implement).
const (
	Random           = "random"
	ShareGPT         = "sharegpt"
	Custom           = "custom"
	HF               = "hf"
	PrefixRepetition = "prefix_repetition"
	TimedTrace       = "timed_trace"
	Sonnet           = "sonnet"
	BurstGPT         = "burstgpt"
)

// Names lists the supported dataset names.
var Names = []string{Random, ShareGPT, Custom, HF, PrefixRepetition, TimedTrace, Sonnet, BurstGPT}

// Config carries vllm bench serve's dataset flags. Zero values mean vLLM's
// defaults unless a field says otherwise; DefaultConfig spells them out.
type Config struct {
	// Name is --dataset-name; "" means "random".
	Name string
	// Path is --dataset-path: a file (sharegpt, custom, hf local) or an HF
	// dataset id ORG/NAME (hf). Refused for random and prefix_repetition.
	Path string
	// NumPrompts is --num-prompts; 0 means 1000. The custom dataset takes
	// all rows when it is negative.
	NumPrompts int
	// Seed is --seed (default 0). It seeds NumPy's and Python's generators
	// exactly as vLLM does.
	Seed int64

	// InputLen and OutputLen are the generic --input-len / --output-len
	// overrides; 0 means unset. InputLen replaces RandomInputLen; OutputLen
	// replaces every dataset's output length flag.
	InputLen  int
	OutputLen int

	// RandomInputLen (--random-input-len, 0 = 1024), RandomOutputLen
	// (--random-output-len, 0 = 128), RandomRangeRatio
	// (--random-range-ratio: "0.0", "0.5" or `{"input":0.1,"output":0.5}`;
	// "" = 0) and RandomPrefixLen (--random-prefix-len) shape the random
	// dataset.
	RandomInputLen   int
	RandomOutputLen  int
	RandomRangeRatio string
	RandomPrefixLen  int

	// SharegptOutputLen is --sharegpt-output-len; 0 means "the completion's
	// token count".
	SharegptOutputLen int

	// CustomOutputLen is --custom-output-len; 0 means 256, -1 means "the
	// file's output_tokens".
	CustomOutputLen int
	// SkipChatTemplate is --skip-chat-template (custom, hf).
	SkipChatTemplate bool

	// HFSplit (--hf-split, "" = "train"), HFSubset (--hf-subset),
	// HFPromptColumn (ours: the column holding the prompt; "" = detect) and
	// HFOutputLen (--hf-output-len, 0 = from the data or 256) select and
	// read an hf dataset. HFRevision picks a revision ("" = "main").
	HFSplit        string
	HFSubset       string
	HFPromptColumn string
	HFOutputLen    int
	HFRevision     string
	// Hub finds hf datasets in the Hugging Face cache and downloads them
	// into it; nil means hfhub.FromEnv(os.Getenv) (HF_HOME, HF_HUB_CACHE,
	// HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE).
	Hub *hfhub.Client

	// PrefixRepetition* are --prefix-repetition-prefix-len (0 = 256),
	// -suffix-len (0 = 256), -num-prefixes (0 = 10) and -output-len
	// (0 = 128).
	PrefixRepetitionPrefixLen   int
	PrefixRepetitionSuffixLen   int
	PrefixRepetitionNumPrefixes int
	PrefixRepetitionOutputLen   int
	// PrefixRepetitionZipf (ours, --prefix-repetition-zipf) > 0 draws each
	// request's prefix with Zipf weights 1/(k+1)^s instead of vLLM's equal
	// share, so a few hot prefixes dominate as in production traffic.
	PrefixRepetitionZipf float64

	// InputLenDist and OutputLenDist (ours, --input-len-dist,
	// --output-len-dist) draw lengths from a distribution spec such as
	// "normal:mean=512,std=128,min=16,max=2048" (see ParseLengthDist).
	// InputLenDist applies to random; OutputLenDist to every dataset and
	// wins over the output-length flags.
	InputLenDist  string
	OutputLenDist string

	// TimedTrace* are the timed_trace flags: --timed-trace-chunk-hash-size
	// (tokens per hash id; 0 = 16), --timed-trace-sec-multiplier (timestamp
	// to seconds; 0 = 1) and the JSON keys --timed-trace-label-timestamp
	// ("" = "timestamp"), -input-length ("" = "input_length"),
	// -output-length ("" = "output_length") and -hash-ids ("" =
	// "hash_ids").
	TimedTraceChunkHashSize     int
	TimedTraceSecMultiplier     float64
	TimedTraceLabelTimestamp    string
	TimedTraceLabelInputLength  string
	TimedTraceLabelOutputLength string
	TimedTraceLabelHashIDs      string
	// SelfTimed is --self-timed / --no-self-timed: nil = the dataset's
	// default (on for timed_trace, off for burstgpt); true gives every
	// request its trace time (Request.Arrival), false leaves the schedule
	// to --request-rate. Only timed_trace and burstgpt carry timestamps.
	SelfTimed *bool

	// SonnetInputLen (--sonnet-input-len, 0 = 550), SonnetOutputLen
	// (--sonnet-output-len, 0 = 150) and SonnetPrefixLen
	// (--sonnet-prefix-len, 0 = 200) shape the sonnet dataset, in tokens.
	SonnetInputLen  int
	SonnetOutputLen int
	SonnetPrefixLen int

	// NoOversample is --no-oversample: with fewer usable rows than
	// NumPrompts, fail instead of repeating rows.
	NoOversample bool
	// DisableShuffle is --disable-shuffle: keep the file's order.
	DisableShuffle bool
}

// DefaultConfig returns vllm bench serve's defaults.
func DefaultConfig() Config {
	return Config{
		Name:                        Random,
		NumPrompts:                  1000,
		RandomInputLen:              1024,
		RandomOutputLen:             128,
		RandomRangeRatio:            "0.0",
		CustomOutputLen:             256,
		HFSplit:                     "train",
		PrefixRepetitionPrefixLen:   256,
		PrefixRepetitionSuffixLen:   256,
		PrefixRepetitionNumPrefixes: 10,
		PrefixRepetitionOutputLen:   128,
		TimedTraceChunkHashSize:     16,
		TimedTraceSecMultiplier:     1,
		TimedTraceLabelTimestamp:    "timestamp",
		TimedTraceLabelInputLength:  "input_length",
		TimedTraceLabelOutputLength: "output_length",
		TimedTraceLabelHashIDs:      "hash_ids",
		SonnetInputLen:              550,
		SonnetOutputLen:             150,
		SonnetPrefixLen:             200,
	}
}

// withDefaults fills zero fields with vLLM's defaults.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Name == "" {
		c.Name = d.Name
	}
	if c.NumPrompts == 0 {
		c.NumPrompts = d.NumPrompts
	}
	if c.RandomInputLen == 0 {
		c.RandomInputLen = d.RandomInputLen
	}
	if c.RandomOutputLen == 0 {
		c.RandomOutputLen = d.RandomOutputLen
	}
	if c.RandomRangeRatio == "" {
		c.RandomRangeRatio = d.RandomRangeRatio
	}
	if c.CustomOutputLen == 0 {
		c.CustomOutputLen = d.CustomOutputLen
	}
	if c.HFSplit == "" {
		c.HFSplit = d.HFSplit
	}
	if c.PrefixRepetitionPrefixLen == 0 {
		c.PrefixRepetitionPrefixLen = d.PrefixRepetitionPrefixLen
	}
	if c.PrefixRepetitionSuffixLen == 0 {
		c.PrefixRepetitionSuffixLen = d.PrefixRepetitionSuffixLen
	}
	if c.PrefixRepetitionNumPrefixes == 0 {
		c.PrefixRepetitionNumPrefixes = d.PrefixRepetitionNumPrefixes
	}
	if c.PrefixRepetitionOutputLen == 0 {
		c.PrefixRepetitionOutputLen = d.PrefixRepetitionOutputLen
	}
	c = c.withNewDefaults(d)
	// vLLM step 9: --input-len / --output-len override the per-dataset flags.
	if c.InputLen > 0 {
		c.RandomInputLen = c.InputLen
		c.SonnetInputLen = c.InputLen
	}
	if c.OutputLen > 0 {
		c.RandomOutputLen = c.OutputLen
		c.SonnetOutputLen = c.OutputLen
		c.SharegptOutputLen = c.OutputLen
		c.CustomOutputLen = c.OutputLen
		c.HFOutputLen = c.OutputLen
		c.PrefixRepetitionOutputLen = c.OutputLen
	}
	return c
}

// withNewDefaults fills the zero timed_trace and sonnet fields from d.
func (c Config) withNewDefaults(d Config) Config {
	fill := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	fillS := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	fill(&c.TimedTraceChunkHashSize, d.TimedTraceChunkHashSize)
	if c.TimedTraceSecMultiplier == 0 {
		c.TimedTraceSecMultiplier = d.TimedTraceSecMultiplier
	}
	fillS(&c.TimedTraceLabelTimestamp, d.TimedTraceLabelTimestamp)
	fillS(&c.TimedTraceLabelInputLength, d.TimedTraceLabelInputLength)
	fillS(&c.TimedTraceLabelOutputLength, d.TimedTraceLabelOutputLength)
	fillS(&c.TimedTraceLabelHashIDs, d.TimedTraceLabelHashIDs)
	fill(&c.SonnetInputLen, d.SonnetInputLen)
	fill(&c.SonnetOutputLen, d.SonnetOutputLen)
	fill(&c.SonnetPrefixLen, d.SonnetPrefixLen)
	return c
}

// selfTimed reports whether requests get their trace times: --self-timed
// when given, else on for timed_trace only (vLLM's default).
func (c Config) selfTimed() bool {
	if c.SelfTimed != nil {
		return *c.SelfTimed
	}
	return c.Name == TimedTrace
}

// validateNew checks the timed_trace, sonnet and burstgpt flags.
func (c Config) validateNew() error {
	if c.SelfTimed != nil && c.Name != TimedTrace && c.Name != BurstGPT {
		return configErrorf("--self-timed/--no-self-timed is only supported with --dataset-name timed_trace (and, beyond vLLM, burstgpt)")
	}
	if c.TimedTraceChunkHashSize < 1 {
		return configErrorf("--timed-trace-chunk-hash-size must be positive, got %d", c.TimedTraceChunkHashSize)
	}
	if m := c.TimedTraceSecMultiplier; math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
		return configErrorf("--timed-trace-sec-multiplier must be a non-negative number, got %v", m)
	}
	if c.SonnetInputLen < 0 || c.SonnetOutputLen < 0 || c.SonnetPrefixLen < 0 {
		return configErrorf("--sonnet-input-len, --sonnet-output-len and --sonnet-prefix-len must not be negative")
	}
	return nil
}

// ErrBadConfig marks configuration errors (bad flag values or
// combinations); callers map it to a usage error.
var ErrBadConfig = errors.New("bad dataset configuration")

func configErrorf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadConfig, fmt.Sprintf(format, a...))
}

// Validate checks cfg without reading any file or tokenizer, so the CLI can
// reject bad flags before it starts anything.
func (c Config) Validate() error {
	c = c.withDefaults()
	known := false
	for _, n := range Names {
		if c.Name == n {
			known = true
		}
	}
	if !known {
		return configErrorf("unknown --dataset-name %q (supported: %s)", c.Name, strings.Join(Names, ", "))
	}
	switch c.Name {
	case Random, PrefixRepetition:
		if c.Path != "" {
			return configErrorf("--dataset-path is not allowed with --dataset-name %s", c.Name)
		}
	default:
		if c.Path == "" {
			return configErrorf("--dataset-name %s needs --dataset-path", c.Name)
		}
	}
	if c.Name != Custom && c.NumPrompts < 0 {
		return configErrorf("--num-prompts must be positive, got %d", c.NumPrompts)
	}
	if c.Seed < 0 {
		return configErrorf("--seed must be non-negative, got %d (NumPy's default_rng refuses negative seeds)", c.Seed)
	}
	if _, err := ParseRangeRatio(c.RandomRangeRatio); err != nil {
		return err
	}
	for _, v := range []struct {
		name string
		val  int
	}{
		{"--random-input-len", c.RandomInputLen},
		{"--random-output-len", c.RandomOutputLen},
		{"--random-prefix-len", c.RandomPrefixLen},
		{"--sharegpt-output-len", c.SharegptOutputLen},
		{"--hf-output-len", c.HFOutputLen},
		{"--input-len", c.InputLen},
		{"--output-len", c.OutputLen},
		{"--prefix-repetition-prefix-len", c.PrefixRepetitionPrefixLen},
		{"--prefix-repetition-suffix-len", c.PrefixRepetitionSuffixLen},
		{"--prefix-repetition-num-prefixes", c.PrefixRepetitionNumPrefixes},
		{"--prefix-repetition-output-len", c.PrefixRepetitionOutputLen},
	} {
		if v.val < 0 {
			return configErrorf("%s must not be negative, got %d", v.name, v.val)
		}
	}
	if c.RandomInputLen+c.RandomPrefixLen > maxLength || c.PrefixRepetitionPrefixLen+c.PrefixRepetitionSuffixLen > maxLength {
		return configErrorf("prompt length above %d tokens requested; that is surely a typo", maxLength)
	}
	if c.CustomOutputLen < -1 {
		return configErrorf("--custom-output-len must be -1 (from the file) or positive, got %d", c.CustomOutputLen)
	}
	if err := c.validateNew(); err != nil {
		return err
	}
	if c.PrefixRepetitionZipf < 0 {
		return configErrorf("--prefix-repetition-zipf must be >= 0, got %g", c.PrefixRepetitionZipf)
	}
	if c.InputLenDist != "" {
		if _, err := ParseLengthDist(c.InputLenDist); err != nil {
			return fmt.Errorf("--input-len-dist: %w", err)
		}
		if c.Name != Random {
			return configErrorf("--input-len-dist applies to --dataset-name random only")
		}
	}
	if c.OutputLenDist != "" {
		if _, err := ParseLengthDist(c.OutputLenDist); err != nil {
			return fmt.Errorf("--output-len-dist: %w", err)
		}
	}
	return nil
}

// Load samples the requests cfg describes. tok may be nil (vLLM's
// --skip-tokenizer-init): then token counts are estimates and a warning
// says so. Warnings are things the user should see but that do not stop
// the run. Errors name the file and line or row at fault.
func Load(ctx context.Context, cfg Config, tok Tokenizer) ([]Request, []string, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	cfg = cfg.withDefaults()
	if tok != nil {
		// A typed nil pointer in the interface means "no tokenizer" too.
		if v := reflect.ValueOf(tok); v.Kind() == reflect.Pointer && v.IsNil() {
			tok = nil
		}
	}
	var (
		reqs []Request
		warn []string
		err  error
	)
	switch cfg.Name {
	case Random:
		reqs, warn, err = sampleRandom(ctx, cfg, tok)
	case ShareGPT:
		reqs, warn, err = loadShareGPT(ctx, cfg, tok)
	case Custom:
		reqs, warn, err = loadCustom(ctx, cfg, tok)
	case HF:
		reqs, warn, err = loadHF(ctx, cfg, tok)
	case PrefixRepetition:
		reqs, warn, err = samplePrefixRepetition(cfg, tok)
	case TimedTrace:
		reqs, warn, err = loadTimedTrace(ctx, cfg, tok)
	case Sonnet:
		reqs, warn, err = loadSonnet(cfg, tok)
	case BurstGPT:
		reqs, warn, err = loadBurstGPT(ctx, cfg, tok)
	}
	if err != nil {
		return nil, warn, err
	}
	if cfg.OutputLenDist != "" {
		d, _ := ParseLengthDist(cfg.OutputLenDist)
		lens := d.Sample(cfg.Seed, 1, len(reqs))
		for i := range reqs {
			reqs[i].OutputLen = lens[i]
		}
	}
	return reqs, warn, nil
}

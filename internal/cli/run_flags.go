package cli

import (
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/dataset"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/sweep"
)

// runFlags holds "llmbench run"'s settings. Names, defaults and meanings are
// vllm bench serve's (docs/metrics.md#command-line-flags) unless marked as ours.
type runFlags struct {
	// Endpoint / backend.
	backend         string
	baseURL         string
	host            string
	port            int
	endpoint        string
	model           string
	servedModelName string
	headers         []string
	insecure        bool
	tokenizer       string
	tokenizerMode   string
	tokenizerRev    string
	trustRemoteCode bool
	skipTokenizer   bool
	logprobs        flagset.OptInt
	requestIDPrefix string
	extraBody       string
	useBeamSearch   bool
	loraModules     []string
	requestTimeout  time.Duration
	maxResponseMiB  int // --max-response-mib: per-response memory cap (0 = the backend's 16 MiB)
	readyCheckSec   float64
	numWarmups      int
	strictTokens    bool

	// Dataset: ds is bound directly to the dataset flags (its zero values
	// mean vLLM's defaults, as the flags' do).
	ds dataset.Config

	// Load shaping.
	requestRate     floatOrInf
	burstiness      floatOrInf
	maxConcurrency  flagset.OptInt
	rampUpStrategy  string
	rampUpStartRPS  flagset.OptInt
	rampUpEndRPS    flagset.OptInt
	ignoreEOS       bool
	temperature     flagset.OptFloat
	topP            flagset.OptFloat
	topK            flagset.OptInt
	minP            flagset.OptFloat
	frequencyPen    flagset.OptFloat
	presencePen     flagset.OptFloat
	repetitionPen   flagset.OptFloat
	maxErrorRate    flagset.OptFloat
	saveRecordsPath string
	htmlPath        string

	// preconnect opens the connection pool before the timed run;
	// requireValid exits 1 unless the self-check says valid (ours,
	// docs/fidelity.md).
	preconnect, requireValid bool

	// Closed-loop users and time bounds (ours; see bindClosedLoopFlags).
	users          int
	multiTurn      bool
	turnThinkTime  string
	thinkTime      string
	spawnRate      float64
	duration       time.Duration
	warmupDuration time.Duration

	// Output.
	percentileMetrics string
	metricPercentiles string
	goodput           []string
	saveResult        bool
	saveDetailed      bool
	appendResult      bool
	resultDir         string
	resultFilename    string
	label             string
	metadata          []string
	disableTqdm       bool
	fromIntended      bool

	// simURL is demo's simulator, started after the flags were parsed;
	// baseURL() prefers it. Not a flag: no flag value is written after
	// parsing.
	simURL string
	// swept, when set (sweep: checkSweep), are the percentile figures a
	// sweep's results report instead of the flags': those its --sla
	// needs (sweep.ResultFigures). Not flags either.
	swept *figures

	// Steady state, as vLLM's Rust bench client spells its flags
	// (docs/confidence.md#steady_state): noSteadyState leaves the
	// figures out, steadyStateThreshold is the fraction of
	// --max-concurrency that opens the window, steadyStateMinWindow the
	// window length in seconds under which it warns (unset = max(10 s,
	// 10 % of the run)).
	noSteadyState        bool
	steadyStateThreshold float64
	steadyStateMinWindow flagset.OptFloat
	// srv are --server-metrics and its companions (run_metrics.go).
	srv serverMetricsFlags
	// repeat are --runs, --ci-width and --max-runs (bindRepeatFlags):
	// bound by run and, with its own usage text, by sweep.
	repeat sweep.Repeat
}

// bindRunFlags declares run's flags on fs with vLLM's defaults.
func bindRunFlags(fs *pflag.FlagSet, f *runFlags) {
	f.requestRate = floatOrInf(math.Inf(1))
	f.burstiness = 1.0

	bindEndpointFlags(fs, f)
	bindDatasetFlags(fs, f)
	bindLoadFlags(fs, f)
	bindSamplingFlags(fs, f)
	bindOutputFlags(fs, f)
	bindServerMetricsFlags(fs, &f.srv)
}

// bindEndpointFlags declares the server, model, tokenizer and request flags.
func bindEndpointFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.StringVar(&f.backend, "backend", "openai", "request format: openai or vllm (completions), openai-chat (chat completions), sagemaker")
	fs.StringVar(&f.baseURL, "base-url", "", "server base URL, e.g. http://127.0.0.1:8000 (overrides --host/--port)")
	fs.StringVar(&f.host, "host", "127.0.0.1", "server host")
	fs.IntVar(&f.port, "port", 8000, "server port")
	fs.StringVar(&f.endpoint, "endpoint", "/v1/completions", "API path appended to the base URL (openai-chat needs /v1/chat/completions)")
	fs.StringVar(&f.model, "model", "", "model id; if absent, the first model of GET /v1/models")
	fs.StringVar(&f.servedModelName, "served-model-name", "", "name sent in the request's model field (default: --model)")
	fs.StringArrayVar(&f.headers, "header", nil, "extra HTTP header KEY=VALUE on every request (repeatable; vLLM's space-separated list works too)")
	fs.BoolVar(&f.insecure, "insecure", false, "skip TLS certificate verification")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "tokenizer: a tokenizer.json file, a folder, a Hugging Face id, or cl100k_base/o200k_base (default: the model's, if it can be found)")
	fs.StringVar(&f.tokenizerMode, "tokenizer-mode", "auto", "accepted for vLLM compatibility; only Hugging Face tokenizer.json files are read")
	fs.StringVar(&f.tokenizerRev, "tokenizer-revision", "", "Hugging Face revision of the tokenizer (default main)")
	fs.BoolVar(&f.trustRemoteCode, "trust-remote-code", false, "accepted for vLLM compatibility (no remote code is ever run)")
	fs.BoolVar(&f.skipTokenizer, "skip-tokenizer-init", false, "use no tokenizer; lines that need one are left out, as in vLLM")
	fs.Var(&f.logprobs, "logprobs", "logprobs sent in completions requests (null when unset)")
	fs.StringVar(&f.requestIDPrefix, "request-id-prefix", "", "request id prefix, sent as x-request-id (default bench-<8 hex>-)")
	fs.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body")
	fs.BoolVar(&f.useBeamSearch, "use-beam-search", false, "accepted for vLLM compatibility; unused")
	fs.StringArrayVar(&f.loraModules, "lora-modules", nil, "LoRA adapter names; each request's model becomes one of them (round-robin)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", 6*time.Hour, "per-request deadline, including the whole stream (ours; vLLM uses 6h)")
	fs.IntVar(&f.maxResponseMiB, "max-response-mib", 16, "fail a response as response_too_large once its text and chunk stamps hold this many MiB (ours)")
	fs.Float64Var(&f.readyCheckSec, "ready-check-timeout-sec", 0, "retry a test request for up to this many seconds before starting (0 = skip)")
	fs.IntVar(&f.numWarmups, "num-warmups", 0, "warm-up requests sent before the run and excluded from it")
	fs.BoolVar(&f.strictTokens, "strict-tokens", false, "fail when the server's /tokenize counts differ from ours (ours)")
}

// bindDatasetFlags declares the dataset flags, bound to f.ds.
func bindDatasetFlags(fs *pflag.FlagSet, f *runFlags) {
	d := &f.ds
	fs.StringVar(&d.Name, "dataset-name", "random", "dataset: random, sharegpt, custom, hf, prefix_repetition, timed_trace, sonnet, burstgpt")
	fs.StringVar(&d.Path, "dataset-path", "", "dataset file, or a Hugging Face dataset id for hf")
	fs.IntVar(&d.NumPrompts, "num-prompts", 1000, "number of requests")
	fs.Int64Var(&d.Seed, "seed", 0, "random seed for the dataset and the arrival process")
	fs.IntVar(&d.InputLen, "input-len", 0, "overrides --random-input-len")
	fs.IntVar(&d.OutputLen, "output-len", 0, "overrides the dataset's output length")
	fs.IntVar(&d.RandomInputLen, "random-input-len", 1024, "random dataset: prompt tokens")
	fs.IntVar(&d.RandomOutputLen, "random-output-len", 128, "random dataset: output tokens")
	fs.StringVar(&d.RandomRangeRatio, "random-range-ratio", "0.0", `random dataset: length spread in [0,1), or JSON {"input":a,"output":b}`)
	fs.IntVar(&d.RandomPrefixLen, "random-prefix-len", 0, "random dataset: shared prefix tokens")
	fs.IntVar(&d.SharegptOutputLen, "sharegpt-output-len", 0, "sharegpt: fixed output length (default: the completion's length)")
	fs.IntVar(&d.CustomOutputLen, "custom-output-len", 256, "custom dataset: output length (-1 = from the file)")
	fs.BoolVar(&d.SkipChatTemplate, "skip-chat-template", false, "custom dataset: send prompts without a chat template")
	fs.BoolVar(&d.NoOversample, "no-oversample", false, "don't repeat samples when the dataset is smaller than --num-prompts")
	fs.BoolVar(&d.DisableShuffle, "disable-shuffle", false, "keep dataset order")
	fs.StringVar(&d.HFSplit, "hf-split", "", "hf dataset split")
	fs.StringVar(&d.HFSubset, "hf-subset", "", "hf dataset subset (config)")
	fs.IntVar(&d.HFOutputLen, "hf-output-len", 0, "hf dataset output length")
	fs.StringVar(&d.HFPromptColumn, "hf-prompt-column", "", "hf dataset prompt column (default: detected)")
	fs.StringVar(&d.HFRevision, "hf-revision", "", "hf dataset revision: branch, tag or commit (default main)")
	fs.StringVar(&d.InputLenDist, "input-len-dist", "", "draw prompt lengths from a distribution, e.g. normal:mean=512,std=128,min=16,max=2048 (ours)")
	fs.StringVar(&d.OutputLenDist, "output-len-dist", "", "draw output lengths from a distribution (ours)")
	fs.IntVar(&d.PrefixRepetitionNumPrefixes, "prefix-repetition-num-prefixes", 10, "prefix_repetition: distinct prefixes")
	fs.IntVar(&d.PrefixRepetitionPrefixLen, "prefix-repetition-prefix-len", 256, "prefix_repetition: prefix tokens")
	fs.IntVar(&d.PrefixRepetitionSuffixLen, "prefix-repetition-suffix-len", 256, "prefix_repetition: suffix tokens")
	fs.IntVar(&d.PrefixRepetitionOutputLen, "prefix-repetition-output-len", 128, "prefix_repetition: output tokens")
	fs.Float64Var(&d.PrefixRepetitionZipf, "prefix-repetition-zipf", 0, "prefix_repetition: Zipf exponent for prefix reuse (0 = equal use; ours)")
	// timed_trace, sonnet, burstgpt (issue 17).
	fs.IntVar(&d.TimedTraceChunkHashSize, "timed-trace-chunk-hash-size", 16, "timed_trace: prompt tokens per hash id (Mooncake 512, Qwen/Alibaba 16)")
	fs.Float64Var(&d.TimedTraceSecMultiplier, "timed-trace-sec-multiplier", 1, "timed_trace: multiplies timestamps into seconds (0.001 for milliseconds); also scales burstgpt replay")
	fs.StringVar(&d.TimedTraceLabelTimestamp, "timed-trace-label-timestamp", "timestamp", "timed_trace: JSON key of the timestamp")
	fs.StringVar(&d.TimedTraceLabelInputLength, "timed-trace-label-input-length", "input_length", "timed_trace: JSON key of the input length")
	fs.StringVar(&d.TimedTraceLabelOutputLength, "timed-trace-label-output-length", "output_length", "timed_trace: JSON key of the output length")
	fs.StringVar(&d.TimedTraceLabelHashIDs, "timed-trace-label-hash-ids", "hash_ids", "timed_trace: JSON key of the hash ids")
	fs.Var(flagset.TriBool(&d.SelfTimed, false), "self-timed", "send each request at its trace time (default on for timed_trace; burstgpt: ours)")
	fs.Lookup("self-timed").NoOptDefVal = "true"
	fs.Var(flagset.TriBool(&d.SelfTimed, true), "no-self-timed", "ignore trace times and use --request-rate")
	fs.Lookup("no-self-timed").NoOptDefVal = "true"
	fs.IntVar(&d.SonnetInputLen, "sonnet-input-len", 550, "sonnet: prompt tokens (--input-len overrides)")
	fs.IntVar(&d.SonnetOutputLen, "sonnet-output-len", 150, "sonnet: output tokens (--output-len overrides)")
	fs.IntVar(&d.SonnetPrefixLen, "sonnet-prefix-len", 200, "sonnet: shared prefix tokens")
}

// bindLoadFlags declares the arrival process and the concurrency cap.
func bindLoadFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.Var(&f.requestRate, "request-rate", "requests per second, or inf to send all at once")
	fs.Var(&f.burstiness, "burstiness", "gamma shape of the arrival gaps: 1 = Poisson, inf = constant spacing")
	fs.Var(&f.maxConcurrency, "max-concurrency", "client-side cap on requests in flight (default: none)")
	fs.StringVar(&f.rampUpStrategy, "ramp-up-strategy", "", "linear or exponential ramp of the request rate (needs --request-rate inf)")
	fs.Var(&f.rampUpStartRPS, "ramp-up-start-rps", "ramp-up start rate")
	fs.Var(&f.rampUpEndRPS, "ramp-up-end-rps", "ramp-up end rate")
}

// bindSamplingFlags declares the sampling parameters sent in the body.
func bindSamplingFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, `send "ignore_eos": true (forced on for the random dataset, as in vLLM)`)
	fs.Var(&f.temperature, "temperature", "sampling temperature (server default when unset)")
	fs.Var(&f.topP, "top-p", "top-p")
	fs.Var(&f.topK, "top-k", "top-k")
	fs.Var(&f.minP, "min-p", "min-p")
	fs.Var(&f.frequencyPen, "frequency-penalty", "frequency penalty")
	fs.Var(&f.presencePen, "presence-penalty", "presence penalty")
	fs.Var(&f.repetitionPen, "repetition-penalty", "repetition penalty")
}

// bindOutputFlags declares the metrics, result and output flags.
func bindOutputFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.StringVar(&f.percentileMetrics, "percentile-metrics", "", "metrics to report percentiles for, from ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue (default ttft,tpot,itl)")
	fs.StringVar(&f.metricPercentiles, "metric-percentiles", "99", "percentiles to report, e.g. 50,95,99")
	fs.StringArrayVar(&f.goodput, "goodput", nil, "SLOs in ms as KEY:VALUE with keys ttft, tpot, e2el (e.g. --goodput ttft:500 tpot:30)")
	fs.BoolVar(&f.saveResult, "save-result", false, "write the result JSON")
	fs.BoolVar(&f.saveDetailed, "save-detailed", false, "keep per-request arrays in the result JSON")
	fs.BoolVar(&f.appendResult, "append-result", false, "append the result to the file as one JSON line")
	fs.StringVar(&f.resultDir, "result-dir", "", "directory for the result file (default: current directory)")
	fs.StringVar(&f.resultFilename, "result-filename", "", "result file name (default: vLLM's automatic name)")
	fs.StringVar(&f.label, "label", "", "prefix of the automatic file name, saved as label (default: backend)")
	fs.StringArrayVar(&f.metadata, "metadata", nil, "extra KEY=VALUE saved at the top level of the result")
	fs.BoolVar(&f.disableTqdm, "disable-tqdm", false, "no progress bar")
	fs.BoolVar(&f.fromIntended, "latency-from-intended", false, "also print TTFT and E2EL measured from each request's intended send time (ours)")
	fs.BoolVar(&f.noSteadyState, "no-steady-state", false, "leave out the steady_state figures of a closed-loop run (--request-rate inf with --max-concurrency)")
	fs.Float64Var(&f.steadyStateThreshold, "steady-state-threshold", metrics.DefaultSteadyStateThreshold, "steady state: the window holds at least this fraction of --max-concurrency in flight, in (0.0, 1.0]")
	fs.Var(&f.steadyStateMinWindow, "steady-state-min-window", "steady state: warn when the window is shorter than this many seconds (default max(10, 10% of the run))")
	fs.Var(&f.maxErrorRate, "max-error-rate", "exit 1 when the failed fraction exceeds this (0..1) (ours)")
	fs.StringVar(&f.htmlPath, "html", "", "also write an HTML report with charts of the run to this file (ours)")
	fs.StringVar(&f.saveRecordsPath, "save-records", "", "write every request's record as JSON lines to this file, for llmbench metrics (ours)")
	fs.BoolVar(&f.preconnect, "preconnect", false, "open the connections before the timed run, so TTFT leaves out connection set-up (ours; vLLM's TTFT includes it)")
	fs.BoolVar(&f.requireValid, "require-valid", false, "exit 1 unless the client's self-check verdict is valid (ours)")
}

// bindClosedLoopFlags declares the closed-loop user flags and the time
// bound of run and demo (sweep has its own ladder of users).
func bindClosedLoopFlags(fs *pflag.FlagSet, f *runFlags) {
	fs.BoolVar(&f.multiTurn, "multi-turn", false, "replay conversations turn by turn with their history (--dataset-name sharegpt: each entry's human turns, max_tokens from its gpt answers; custom: JSONL with a \"turns\" list; --num-prompts counts conversations, --max-concurrency active ones; needs --backend openai-chat)")
	fs.StringVar(&f.turnThinkTime, "turn-think-time", "0", "with --multi-turn: pause between an answer and the next turn: fixed (2s) or range (1s-3s)")
	fs.IntVar(&f.users, "users", 0, "closed loop: this many users each send, read the whole stream, think, repeat (ours; replaces --request-rate and --max-concurrency)")
	fs.StringVar(&f.thinkTime, "think-time", "0", "users' pause after each response: fixed (2s) or uniform range (1s-3s, like Locust's between)")
	fs.Float64Var(&f.spawnRate, "spawn-rate", 0, "users started per second (0 = all at once)")
	fs.DurationVar(&f.duration, "duration", 0, "stop sending after this long (e.g. 5m); with --users, requests cycle through the dataset until then")
	fs.DurationVar(&f.warmupDuration, "warmup-duration", 0, "with --users: requests started in this first part of --duration are sent but left out of the metrics")
}

// figures are the percentile metrics and percentiles a result reports,
// as --percentile-metrics and --metric-percentiles spell them.
type figures struct{ metrics, percentiles string }

// reported are the figures the results report: a sweep's, else the
// flags'.
func (f *runFlags) reported() figures {
	if f.swept != nil {
		return *f.swept
	}
	return figures{f.percentileMetrics, f.metricPercentiles}
}

// floatOrInf is a float flag that also accepts "inf" (flagset.FloatOrInf).
type floatOrInf = flagset.FloatOrInf

// bindRepeatFlags declares --runs, --ci-width and --max-runs on fs,
// written into r; runsUsage says what one run is ("the benchmark", "each
// step").
func bindRepeatFlags(fs *pflag.FlagSet, r *sweep.Repeat, runsUsage string) {
	r.Runs = 1
	fs.Var(r.RunsValue(), "runs", runsUsage)
	fs.Float64Var(&r.CIWidth, "ci-width", sweep.DefaultCIWidth, "with --runs auto: stop once each deciding figure's 95% t interval over the runs is narrower than this fraction of its mean")
	fs.IntVar(&r.MaxRuns, "max-runs", sweep.DefaultMaxRuns, "with --runs auto: stop after this many runs even if the interval has not converged (at least 3)")
}

// checkRepeat checks --runs, --ci-width and --max-runs together
// (sweep.Repeat.Check: the last two need --runs auto).
func checkRepeat(fs *pflag.FlagSet, r sweep.Repeat) error {
	if err := r.Check(fs.Changed("ci-width") || fs.Changed("max-runs")); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

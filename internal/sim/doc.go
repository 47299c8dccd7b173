// Package sim is a simulated LLM server for testing and demonstrating
// benchmark clients: vLLM's OpenAI-compatible API (/v1/completions,
// /v1/chat/completions, /v1/models, /health, /tokenize, /detokenize) and the
// SageMaker Runtime API (/endpoints/{name}/invocations and
// /endpoints/{name}/invocations-response-stream, AWS event-stream framing
// via internal/eventstream) on one performance model.
//
// Two performance modes: ModeFixed gives every request the same TTFT and ITL
// whatever the load (to measure a client's own overhead), and ModeBatching
// runs a continuous-batching engine loop (see Batching) so throughput
// flattens and latency tails climb as concurrency rises. In both modes one
// engine goroutine drives every sequence: there is no timer per token per
// stream; each request's goroutine only wakes to write what the engine has
// produced.
//
// The batching engine models vLLM V1's KV cache: 16-token blocks taken
// as contexts grow, preemption of the newest request when they run out,
// and a prefix cache (on by default; POST /reset_prefix_cache empties
// it). /metrics carries vLLM's families and default buckets (running,
// waiting, KV usage, preemptions, prefix-cache queries and hits, token
// counters, request_success_total, TTFT, inter-token, e2e, queue,
// prefill and decode histograms); Server.DCGMHandler serves NVIDIA DCGM
// exporter names (utilisation, memory, power, energy) modelled from the
// engine's busy time.
//
// Every request leaves ground truth (Truth): when it arrived, and for each
// write its kind, token count, the engine's due time and the start and end
// of the write and flush, available in-process (Server.Truth,
// Config.OnTruth) and as JSON lines (Config.TruthLog).
//
// Faults (Faults) are injected at seeded rates: HTTP 500/429/503, dropped
// connections, stalls, malformed chunks, in-stream error events, slow first
// bytes, and SageMaker's ThrottlingException, ModelError,
// ModelNotReadyException, ModelStreamError and InternalStreamFailure.
//
// In-process use (what "llmbench demo" does):
//
//	run, err := sim.Start(ctx, sim.DefaultConfig(), "") // free loopback port
//	...use run.URL...
//	err = run.Stop(ctx)
//
// As a server of its own ("llmbench sim"): Options.Resolve turns the
// command's settings into a Config, Serve runs a Daemon (the API and the
// optional metrics listeners) until its context ends.
//
// The package deliberately does not import internal/backend: a fake built
// from the client's own types could not catch the client's bugs. It shares
// wire fixtures instead (testdata/wire). It does not authenticate, does not
// check SigV4 signatures, does not implement sampling parameters, stop
// strings, n > 1, logprobs, tools or multimodal inputs, and its token
// counts come from a stand-in tokenizer unless Config.Tokenizer is set.
package sim

package sim

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// Server is a simulated LLM server: vLLM's OpenAI-compatible API and the
// SageMaker Runtime API over one performance model. Create it with New,
// serve Handler() on a listener (or use Start), and Close it when done.
type Server struct {
	cfg      Config
	tok      Tokenizer
	eng      engine
	clock    clock
	arrivals atomic.Uint64

	nReq, nErr, nTok, nFault atomic.Int64
	nPromptTok               atomic.Int64
	log                      *truthLog
	mux                      *http.ServeMux
	metrics                  http.Handler
	hist                     *requestHistograms

	mu     sync.Mutex
	truths []Truth

	closeOnce sync.Once
	closeErr  error
}

// New validates cfg and starts the engine loop.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, tok: cfg.Tokenizer, clock: newClock()}
	if s.tok == nil {
		s.tok = WordTokenizer{}
	}
	if s.cfg.Faults.RetryAfter == 0 {
		s.cfg.Faults.RetryAfter = time.Second
	}
	if s.cfg.Faults.StallFor == 0 {
		s.cfg.Faults.StallFor = 5 * time.Second
	}
	if s.cfg.Faults.SlowFirstByteFor == 0 {
		s.cfg.Faults.SlowFirstByteFor = 2 * time.Second
	}
	if s.cfg.Faults.ModelStreamErrorCode == "" {
		s.cfg.Faults.ModelStreamErrorCode = "StreamBroken"
	}
	sl := newSleeper(cfg.SpinWait, true)
	if cfg.Mode == ModeFixed {
		s.eng = newFixedEngine(cfg.TTFT, cfg.ITL, sl)
	} else {
		s.eng = newBatchEngine(cfg.Batching, !cfg.NoPrefixCache, sl)
	}
	if cfg.TruthLog != nil {
		s.log = startTruthLog(cfg.TruthLog)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", s.handleOpenAI(KindCompletion))
	mux.HandleFunc("POST /v1/chat/completions", s.handleOpenAI(KindChat))
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /health", s.handleHealth)
	mux.HandleFunc("GET /ping", s.handleHealth)
	mux.HandleFunc("POST /tokenize", s.handleTokenize)
	mux.HandleFunc("POST /detokenize", s.handleDetokenize)
	mux.HandleFunc("POST /invocations", s.handleContainerInvocations)
	mux.HandleFunc("POST /endpoints/{name}/invocations", s.handleSageMaker(false))
	mux.HandleFunc("POST /endpoints/{name}/invocations-response-stream", s.handleSageMaker(true))
	s.hist = newRequestHistograms(cfg.Model)
	s.metrics = newMetricsHandler(s)
	mux.HandleFunc("POST /reset_prefix_cache", s.handleResetPrefixCache)
	mux.Handle("GET /metrics", s.metrics)
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": "llmbench-sim"})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		// FastAPI's answer for an unknown path, as vLLM gives it.
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	})
	s.mux = mux
	return s, nil
}

// Handler serves the simulator's HTTP API.
func (s *Server) Handler() http.Handler { return s.mux }

// Truth returns the ground truth of every finished request so far, in
// finishing order. It is empty unless Config.KeepTruth is set.
func (s *Server) Truth() []Truth {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Truth(nil), s.truths...)
}

// UnixNano converts a time from the truth to the Unix nanoseconds the
// truth log writes, using the server's monotonic origin.
func (s *Server) UnixNano(t time.Time) int64 { return s.clock.ns(t) }

// Close stops the engine loop (streams still open stop receiving tokens)
// and flushes the truth log. Close the HTTP server first.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.eng.close()
		if s.log != nil {
			s.closeErr = s.log.close()
		}
	})
	return s.closeErr
}

// Stats counts what the server has done so far.
type Stats struct {
	// Requests counts finished generation requests (OpenAI, SageMaker and
	// /invocations; not /tokenize, /health, ...); Errors those
	// answered with a non-200 status.
	Requests, Errors int64
	// Tokens counts generated tokens written to clients.
	Tokens int64
	// Faults counts requests that got an injected fault.
	Faults int64
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	return Stats{Requests: s.nReq.Load(), Errors: s.nErr.Load(), Tokens: s.nTok.Load(), Faults: s.nFault.Load()}
}

func (s *Server) finish(t *Truth) {
	t.End = time.Now()
	s.nReq.Add(1)
	if t.Status != http.StatusOK {
		s.nErr.Add(1)
	} else {
		s.nPromptTok.Add(int64(t.PromptTokens))
	}
	if t.Fault != "" {
		s.nFault.Add(1)
	}
	s.nTok.Add(int64(t.CompletionTokens))
	if s.cfg.KeepTruth {
		s.mu.Lock()
		s.truths = append(s.truths, *t)
		s.mu.Unlock()
	}
	if s.log != nil {
		s.log.ch <- s.clock.encode(t)
	}
	if s.cfg.OnTruth != nil {
		s.cfg.OnTruth(*t)
	}
}

// started is when the server was created (the loading window's origin).
func (s *Server) started() time.Time { return s.clock.mono }

func (s *Server) loading() bool {
	return s.cfg.Faults.LoadingFor > 0 && time.Since(s.clock.mono) < s.cfg.Faults.LoadingFor
}

func writeAPIError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(e.body())
}

func (s *Server) newTruth(r *http.Request, endpoint string) *Truth {
	return &Truth{Arrival: time.Now(), Seq: s.arrivals.Add(1), Endpoint: endpoint,
		RequestID: r.Header.Get("X-Request-Id")}
}

func readBody(r *http.Request) ([]byte, *apiError) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		return nil, badRequest("reading request body: %v", err)
	}
	if len(b) > maxBodyBytes {
		return nil, badRequest("request body is larger than %d bytes", maxBodyBytes)
	}
	return b, nil
}

func (s *Server) handleOpenAI(kind Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t := s.newTruth(r, kind.String())
		defer s.finish(t)
		body, aerr := readBody(r)
		if aerr == nil {
			var req *Request
			req, aerr = parseRequest(kind, body)
			if aerr == nil {
				s.serve(w, r, req, t, dialectOpenAI)
				return
			}
		}
		t.Status = aerr.Status
		writeAPIError(w, aerr)
	}
}

// dialect is which API a generation request came through.
type dialect int

const (
	dialectOpenAI    dialect = iota // /v1/completions, /v1/chat/completions
	dialectContainer                // a container's own /invocations
	dialectSMStream                 // InvokeEndpointWithResponseStream
	dialectSMInvoke                 // InvokeEndpoint
)

func (d dialect) sagemaker() bool { return d == dialectSMStream || d == dialectSMInvoke }

// fault is the fault drawn for one request.
type fault struct {
	name string
	at   int // mid-stream faults: strike once this many tokens were written
}

// Fault names as they appear in the truth.
const (
	FaultHTTP500               = "http_500"
	FaultHTTP429               = "http_429"
	FaultLoading503            = "loading_503"
	FaultDrop                  = "drop"
	FaultStall                 = "stall"
	FaultMalformed             = "malformed"
	FaultSlowFirstByte         = "slow_first_byte"
	FaultErrorEvent            = "error_event"
	FaultModelStreamError      = "model_stream_error"
	FaultInternalStreamFailure = "internal_stream_failure"
	FaultThrottle              = "throttle"
	FaultModelError            = "model_error"
	FaultModelNotReady         = "model_not_ready"
)

// rollFault draws request seqNo's fault. The order of the table is fixed,
// so a given draw means the same fault whatever the API; SageMaker-only
// faults drawn for an OpenAI request mean no fault.
func (s *Server) rollFault(seqNo uint64, target int, d dialect) fault {
	f := &s.cfg.Faults
	rng := rand.New(rand.NewPCG(s.cfg.Seed, seqNo))
	u := rng.Float64()
	at := 0
	if target > 1 {
		at = 1 + rng.IntN(target-1)
	}
	table := []struct {
		name string
		rate float64
		sm   bool
	}{
		{FaultHTTP500, f.HTTP500Rate, false}, {FaultHTTP429, f.HTTP429Rate, false},
		{FaultLoading503, f.Loading503Rate, false}, {FaultDrop, f.DropRate, false},
		{FaultStall, f.StallRate, false}, {FaultMalformed, f.MalformedRate, false},
		{FaultSlowFirstByte, f.SlowFirstByteRate, false},
		{FaultErrorEvent, f.ErrorEventRate, false},
		{FaultModelStreamError, f.ModelStreamErrorRate, true},
		{FaultInternalStreamFailure, f.InternalStreamFailureRate, true},
		{FaultThrottle, f.ThrottleRate, true}, {FaultModelError, f.ModelErrorRate, true},
		{FaultModelNotReady, f.ModelNotReadyRate, true},
	}
	acc := 0.0
	for _, e := range table {
		acc += e.rate
		if u < acc {
			if e.sm && !d.sagemaker() {
				return fault{}
			}
			if (e.name == FaultModelStreamError || e.name == FaultInternalStreamFailure) && d != dialectSMStream {
				return fault{}
			}
			return fault{name: e.name, at: at}
		}
	}
	return fault{}
}

// outputPlan decides the output length: max_tokens (or the default), cut
// short by EOS unless ignore_eos. The EOS draw is seeded by the prompt, so
// the same request gets the same output over every API.
func (s *Server) outputPlan(req *Request, maxTokens int) *gen {
	h := fnv.New64a()
	h.Write([]byte(req.promptText()))
	g := &gen{h: h.Sum64() ^ s.cfg.Seed, target: maxTokens}
	if s.cfg.EOSRate > 0 && !req.IgnoreEOS {
		rng := rand.New(rand.NewPCG(g.h, 0xe05))
		u := rng.Float64()
		// Geometric: first token at which EOS comes, P(EOS per token)=rate.
		l := int(math.Ceil(math.Log1p(-u) / math.Log1p(-s.cfg.EOSRate)))
		if l < 1 {
			l = 1
		}
		if l <= maxTokens {
			g.target, g.eos = l, true
		}
	}
	return g
}

// Default max_new_tokens for TGI and LMI generate requests.
const (
	tgiDefaultMaxNewTokens = 100
	lmiDefaultMaxNewTokens = 30
)

// serve runs one generation request end to end.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, req *Request, t *Truth, d dialect) {
	t.Kind = req.Kind.String()
	if d.sagemaker() || d == dialectContainer {
		t.Format = s.cfg.PayloadFormat
	}
	if req.Model != "" && req.Model != s.cfg.Model && !d.sagemaker() && d != dialectContainer {
		s.reject(w, t, d, &apiError{Status: http.StatusNotFound, Type: "NotFoundError",
			Message: fmt.Sprintf("The model `%s` does not exist.", req.Model)})
		return
	}
	prompt := req.promptTokens(s.tok)
	t.PromptTokens = prompt
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		switch {
		case req.Kind == KindGenerate && s.cfg.PayloadFormat == FormatLMI:
			maxTokens = lmiDefaultMaxNewTokens
		case req.Kind == KindGenerate:
			maxTokens = tgiDefaultMaxNewTokens
		default:
			maxTokens = s.cfg.MaxModelLen - prompt
		}
	}
	if prompt+maxTokens > s.cfg.MaxModelLen || maxTokens < 1 {
		s.reject(w, t, d, badRequest("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			s.cfg.MaxModelLen, prompt+maxTokens, prompt, maxTokens))
		return
	}
	if s.loading() {
		s.preStreamFault(w, t, d, FaultLoading503)
		return
	}
	g := s.outputPlan(req, maxTokens)
	f := s.rollFault(t.Seq, g.target, d)
	t.Fault = f.name
	switch f.name {
	case FaultHTTP500, FaultHTTP429, FaultLoading503, FaultThrottle, FaultModelError, FaultModelNotReady:
		s.preStreamFault(w, t, d, f.name)
		return
	case FaultSlowFirstByte:
		if !sleepCtx(r, s.cfg.Faults.SlowFirstByteFor) {
			return
		}
	}

	sq := newSeq(t.Arrival, prompt, g.target)
	if s.cfg.Mode == ModeBatching && !s.cfg.NoPrefixCache {
		sq.hashes = req.blockHashes(s.tok)
	}
	s.eng.submit(sq)
	defer sq.gone.Store(true) // a client that left frees its batch slot

	idPrefix := "cmpl-"
	if req.Kind == KindChat {
		idPrefix = "chatcmpl-"
	}
	base := t.RequestID // x-request-id, or SageMaker's inference id
	if base == "" {
		base = fmt.Sprintf("%016x", rand.Uint64())
	}
	fr := framingSSE
	switch {
	case d != dialectOpenAI && s.cfg.PayloadFormat == FormatLMI:
		fr = framingJSONL
	case d != dialectOpenAI && s.cfg.PayloadFormat == FormatTGI && req.Kind == KindGenerate:
		fr = framingSSETight
	}
	enc := newEncoder(req.Kind, s.cfg.PayloadFormat, fr, s.cfg.CRLF, g, prompt, idPrefix+base,
		t.Arrival.Unix(), s.cfg.Model, req)
	// OpenAI bodies stream when they ask to (on the streaming SageMaker API
	// a non-streamed body travels as one JSON document in PayloadParts);
	// TGI/LMI generate bodies always stream there.
	stream := req.Stream || (req.Kind == KindGenerate && d == dialectSMStream)

	t.Stream = stream
	out := s.openSink(w, r, t, d, stream, enc)
	t.Status = http.StatusOK
	st := &streamer{s: s, r: r, out: out, enc: enc, sq: sq, t: t, f: f, req: req}
	if stream {
		st.stream()
	} else {
		st.whole()
	}
	s.hist.observe(t.Arrival, sq, g.eos)
}

// handleResetPrefixCache is vLLM's POST /reset_prefix_cache: the engine
// forgets every cached prompt block before it next admits a request
// (blocks held by running requests stay theirs but stop matching). The
// hit counters keep counting; later hits need prompts seen since.
func (s *Server) handleResetPrefixCache(w http.ResponseWriter, _ *http.Request) {
	s.eng.engineGauges().resets.Add(1)
	w.WriteHeader(http.StatusOK)
}

// openSink writes the 200 headers for d and returns where the body goes.
func (s *Server) openSink(w http.ResponseWriter, r *http.Request, t *Truth, d dialect, stream bool, enc *encoder) sink {
	ct := "application/json"
	if stream {
		ct = enc.contentType()
	}
	switch d {
	case dialectSMStream:
		return newEventStreamSink(w, ct, fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rand.Uint32(), rand.Uint32N(1<<16),
			rand.Uint32N(1<<12), rand.Uint32N(1<<12), rand.Uint64N(1<<48)), s.cfg.PartSize, s.cfg.Seed^t.Seq)
	case dialectSMInvoke:
		w.Header().Set("Content-Type", ct)
		w.Header().Set("X-Amzn-Invoked-Production-Variant", "AllTraffic")
		w.WriteHeader(http.StatusOK)
		return &httpSink{w: w} // SageMaker returns the body whole: no flushing
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	hs := &httpSink{w: w, rc: http.NewResponseController(w)}
	if stream {
		_ = hs.rc.Flush() // headers go out before the first token, as with uvicorn
	}
	return hs
}

// reject answers a request the server refuses (validation), in d's dialect.
func (s *Server) reject(w http.ResponseWriter, t *Truth, d dialect, e *apiError) {
	if d.sagemaker() {
		// The container answered 4xx: SageMaker wraps it in ModelError.
		me := eventstream.ModelError(t.EndpointName, e.Status, string(e.body()))
		t.Status = me.Status
		me.Write(w)
		return
	}
	t.Status = e.Status
	writeAPIError(w, e)
}

// preStreamFault answers with an injected error before any token.
func (s *Server) preStreamFault(w http.ResponseWriter, t *Truth, d dialect, name string) {
	t.Fault = name
	status, typ, msg := 0, "", ""
	switch name {
	case FaultHTTP500:
		status, typ, msg = http.StatusInternalServerError, "InternalServerError", "Internal server error (injected fault)"
	case FaultHTTP429:
		status, typ, msg = http.StatusTooManyRequests, "TooManyRequestsError", "Too many requests (injected fault)"
	case FaultLoading503:
		status, typ, msg = http.StatusServiceUnavailable, "ServiceUnavailableError", "The model is still loading (injected fault)"
	}
	if d.sagemaker() {
		e := s.smError(t, name, status, msg)
		t.Status = e.Status
		e.Write(w)
		return
	}
	if name == FaultHTTP429 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(s.cfg.Faults.RetryAfter.Seconds()))))
	}
	t.Status = status
	writeAPIError(w, &apiError{Status: status, Type: typ, Message: msg})
}

func sleepCtx(r *http.Request, d time.Duration) bool {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	created := s.clock.mono.Unix()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{
		"id": s.cfg.Model, "object": "model", "created": created, "owned_by": "vllm",
		"root": s.cfg.Model, "parent": nil, "max_model_len": s.cfg.MaxModelLen,
		"permission": []any{}, "llmbench_tokenizer": s.tokenizerID(),
	}}})
}

// tokenizerID names what the simulator counts tokens with, for clients
// (llmbench run) that want to count the same way: the tokenizer's id, or
// "words" for WordTokenizer.
func (s *Server) tokenizerID() string {
	if t, ok := s.cfg.Tokenizer.(interface{ ID() string }); ok {
		return t.ID()
	}
	return "words"
}

func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	if s.loading() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	body, aerr := readBody(r)
	if aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	var f map[string]json.RawMessage
	if aerr = decodeObject(body, &f); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	addSpecial := true
	if raw, ok := f["add_special_tokens"]; ok && !isNull(raw) {
		if addSpecial, aerr = optBool(f, "add_special_tokens"); aerr != nil {
			writeAPIError(w, aerr)
			return
		}
	}
	var text string
	if f["messages"] != nil {
		msgs, aerr := parseMessages(f)
		if aerr != nil {
			writeAPIError(w, aerr)
			return
		}
		text = renderChat(msgs)
	} else if text, aerr = optString(f, "prompt"); aerr != nil || f["prompt"] == nil {
		if aerr == nil {
			aerr = badRequest("prompt: Field required")
		}
		writeAPIError(w, aerr)
		return
	}
	ids := s.tok.Encode(text, addSpecial)
	writeJSON(w, http.StatusOK, map[string]any{"count": len(ids), "max_model_len": s.cfg.MaxModelLen,
		"tokens": ids, "token_strs": nil})
}

func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	body, aerr := readBody(r)
	if aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	var f map[string]json.RawMessage
	if aerr = decodeObject(body, &f); aerr != nil {
		writeAPIError(w, aerr)
		return
	}
	var ids []int
	if raw := f["tokens"]; raw == nil || json.Unmarshal(raw, &ids) != nil {
		writeAPIError(w, badRequest("tokens: Input should be a list of token ids"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt": s.tok.Decode(ids)})
}

// handleContainerInvocations is a container's own /invocations (what
// SageMaker calls inside the endpoint): the body picks the API and the
// payload format decides the bytes, with no event-stream framing. Pointing
// the proxy at the simulator exercises this path.
func (s *Server) handleContainerInvocations(w http.ResponseWriter, r *http.Request) {
	t := s.newTruth(r, "invocations")
	defer s.finish(t)
	body, aerr := readBody(r)
	if aerr == nil {
		var req *Request
		if req, aerr = parseInvocation(body); aerr == nil {
			s.serve(w, r, req, t, dialectContainer)
			return
		}
	}
	t.Status = aerr.Status
	writeAPIError(w, aerr)
}

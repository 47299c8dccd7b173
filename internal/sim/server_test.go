package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

var createdRE = regexp.MustCompile(`"created":\d+`)

// TestWireGolden pins the exact bytes of each response kind (the
// "created" timestamp normalised). Regenerate with go test -update.
func TestWireGolden(t *testing.T) {
	t.Parallel()
	chatBody := `{"model":"llmbench-sim","messages":[{"role":"user","content":"hello there"}],"max_completion_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`
	tests := []struct {
		name, path, body string
		mutate           func(*Config)
	}{
		{"completions_stream", "/v1/completions", `{"model":"llmbench-sim","prompt":"the quick brown fox","max_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`, nil},
		{"completions_stream_no_usage", "/v1/completions", `{"prompt":"the quick brown fox","max_tokens":3,"stream":true}`, nil},
		{"completions_whole", "/v1/completions", `{"prompt":"the quick brown fox","max_tokens":3}`, nil},
		{"chat_stream", "/v1/chat/completions", chatBody, nil},
		{"chat_stream_continuous_usage", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":2,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`, nil},
		{"chat_whole", "/v1/chat/completions", `{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"hello"}]}],"max_tokens":3}`, nil},
		{"chat_stream_crlf", "/v1/chat/completions", chatBody, func(c *Config) { c.CRLF = true }},
		{"chat_stream_3_tokens_per_chunk", "/v1/chat/completions", strings.Replace(chatBody, `"max_completion_tokens":4`, `"max_completion_tokens":7`, 1),
			func(c *Config) { c.TokensPerChunk = 3 }},
		{"completions_stream_eos", "/v1/completions", `{"prompt":"stop early please","max_tokens":50,"stream":true,"stream_options":{"include_usage":true}}`,
			func(c *Config) { c.EOSRate = 0.3 }},
		{"completions_stream_ignore_eos", "/v1/completions", `{"prompt":"stop early please","max_tokens":5,"ignore_eos":true,"stream":true}`,
			func(c *Config) { c.EOSRate = 0.3 }},
		{"tgi_invocations_stream", "/invocations", `{"inputs":"hello there","parameters":{"max_new_tokens":3,"details":true},"stream":true}`,
			func(c *Config) { c.PayloadFormat = FormatTGI }},
		{"lmi_invocations_stream", "/invocations", `{"inputs":"hello there","parameters":{"max_new_tokens":3},"stream":true}`,
			func(c *Config) { c.PayloadFormat = FormatLMI }},
		{"tgi_invocations_whole", "/invocations", `{"inputs":"hello there","parameters":{"max_new_tokens":3,"details":true}}`,
			func(c *Config) { c.PayloadFormat = FormatTGI }},
		{"lmi_invocations_whole", "/invocations", `{"inputs":"hello there","parameters":{"max_new_tokens":3,"details":true}}`,
			func(c *Config) { c.PayloadFormat = FormatLMI }},
		{"lmi_invocations_chat_stream", "/invocations", chatBody, func(c *Config) { c.PayloadFormat = FormatLMI }},
		{"tgi_invocations_eos", "/invocations", `{"inputs":"stop early please","parameters":{"max_new_tokens":50,"details":true},"stream":true}`,
			func(c *Config) { c.PayloadFormat = FormatTGI; c.EOSRate = 0.3 }},
		{"completions_stream_error_event", "/v1/completions", `{"prompt":"x","max_tokens":6,"stream":true}`,
			func(c *Config) { c.Faults.ErrorEventRate = 1 }},
		{"tokenize_chat", "/tokenize", `{"messages":[{"role":"user","content":"the quick fox"}]}`, nil},
		{"detokenize_bad", "/detokenize", `{"tokens":"abc"}`, nil},
		{"error_bad_json", "/v1/completions", `{"prompt":`, nil},
		{"error_max_tokens_zero", "/v1/completions", `{"prompt":"x","max_tokens":0}`, nil},
		{"error_context_length", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":9000}`, nil},
		{"error_unknown_model", "/v1/completions", `{"model":"other","prompt":"x"}`, nil},
		{"error_n_2", "/v1/completions", `{"prompt":"x","n":2}`, nil},
		{"error_stream_options_without_stream", "/v1/completions", `{"prompt":"x","stream_options":{"include_usage":true}}`, nil},
		{"error_no_messages", "/v1/chat/completions", `{"model":"llmbench-sim"}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := fastFixed()
			if tc.mutate != nil {
				tc.mutate(&cfg)
			}
			run := startSim(t, cfg)
			resp := post(t, newHTTPClient(), run.URL+tc.path, tc.body, "X-Request-Id", "golden-1")
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("HTTP %d\nContent-Type: %s\n\n%s", resp.StatusCode, resp.Header.Get("Content-Type"),
				createdRE.ReplaceAll(b, []byte(`"created":0`)))
			golden := filepath.Join("testdata", "wire", tc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("wire bytes differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestStreamSemantics checks the protocol rules a client depends on,
// independently of the golden bytes.
func TestStreamSemantics(t *testing.T) {
	t.Parallel()
	run := startSim(t, fastFixed())
	hc := newHTTPClient()
	t.Run("chat: role-only first delta, finish on the last choice chunk, usage, [DONE]", func(t *testing.T) {
		resp := post(t, hc, run.URL+"/v1/chat/completions",
			`{"messages":[{"role":"user","content":"a b c"}],"max_completion_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
			t.Errorf("content type %q", ct)
		}
		r := parseStream(t, b)
		if !r.Role || r.TokenChunks != 6 || r.FinishReason != "length" || !r.Done {
			t.Fatalf("%+v", r)
		}
		// Prompt: BOS + "user\na b c\n" (4 words) + "assistant" = 6.
		if r.Usage["prompt_tokens"] != 6.0 || r.Usage["completion_tokens"] != 5.0 || r.Usage["total_tokens"] != 11.0 {
			t.Errorf("usage %v", r.Usage)
		}
		// finish_reason only on the last choice chunk.
		for i, ev := range r.Events[:len(r.Events)-3] {
			if !strings.Contains(ev, `"finish_reason":null`) {
				t.Errorf("event %d has a finish reason early: %s", i, ev)
			}
		}
		if !strings.Contains(r.Events[len(r.Events)-3], `"finish_reason":"length"`) {
			t.Errorf("last choice chunk: %s", r.Events[len(r.Events)-3])
		}
	})
	t.Run("completion tokens equal max_tokens and the text is one word per token", func(t *testing.T) {
		resp := post(t, hc, run.URL+"/v1/completions", `{"prompt":"x","max_tokens":17,"stream":true,"stream_options":{"include_usage":true}}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r := parseStream(t, b)
		if n := len(strings.Fields(r.Text)); n != 17 || r.Usage["completion_tokens"] != 17.0 {
			t.Errorf("%d words, usage %v", n, r.Usage)
		}
	})
	t.Run("same prompt, same text", func(t *testing.T) {
		get := func() string {
			resp := post(t, hc, run.URL+"/v1/completions", `{"prompt":"same","max_tokens":8}`)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return decodeJSON(t, string(b))["choices"].([]any)[0].(map[string]any)["text"].(string)
		}
		if a, b := get(), get(); a != b {
			t.Errorf("%q != %q", a, b)
		}
	})
	t.Run("models, health, tokenize, detokenize", func(t *testing.T) {
		resp, err := hc.Get(run.URL + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := decodeJSON(t, string(b))
		if m["object"] != "list" || m["data"].([]any)[0].(map[string]any)["id"] != "llmbench-sim" {
			t.Errorf("models: %s", b)
		}
		resp, err = hc.Get(run.URL + "/health")
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("health: %v %v", resp.StatusCode, err)
		}
		resp.Body.Close()
		resp = post(t, hc, run.URL+"/tokenize", `{"prompt":"the quick brown fox"}`)
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		tok := decodeJSON(t, string(b))
		if tok["count"] != 5.0 {
			t.Errorf("tokenize: %s", b)
		}
		ids, _ := tok["tokens"].([]any)
		var sb strings.Builder
		for i, id := range ids {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprint(&sb, id)
		}
		resp = post(t, hc, run.URL+"/detokenize", `{"tokens":[`+sb.String()+`]}`)
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := decodeJSON(t, string(b))["prompt"]; got != "the quick brown fox" {
			t.Errorf("detokenize: %v", got)
		}
	})
	t.Run("unknown path is a JSON 404", func(t *testing.T) {
		resp, err := hc.Get(run.URL + "/v2/nothing")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("status %d", resp.StatusCode)
		}
	})
}

// TestPingComments: with a ping interval shorter than the TTFT the client
// sees ": ping" comments before the first token.
func TestPingComments(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	cfg.TTFT = 300 * time.Millisecond
	cfg.PingInterval = 25 * time.Millisecond
	run := startSim(t, cfg)
	resp := post(t, newHTTPClient(), run.URL+"/v1/completions", `{"prompt":"x","max_tokens":2,"stream":true}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := parseStream(t, b)
	if r.Comments < 2 || !bytes.HasPrefix(b, []byte(": ping\n\n")) || r.TokenChunks != 2 {
		t.Errorf("%d comments, starts %q, %d chunks", r.Comments, b[:min(len(b), 10)], r.TokenChunks)
	}
}

// TestTruthLog checks the JSON-lines ground truth against what the client
// received: one line per request with the request id, endpoint kind and one
// chunk entry per write, each token chunk's write inside the request.
func TestTruthLog(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	cfg := fastFixed()
	cfg.TruthLog = &log
	run, err := Start(t.Context(), cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	hc := newHTTPClient()
	resp := post(t, hc, run.URL+"/v1/chat/completions",
		`{"messages":[{"role":"user","content":"x"}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`, "X-Request-Id", "req-42")
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err := run.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	lines := nonEmptyLines(log.String())
	if len(lines) != 1 {
		t.Fatalf("%d lines: %q", len(lines), log.String())
	}
	// Unix nanoseconds do not fit a float64 exactly: decode as numbers.
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	num := func(v any) int64 { n, _ := v.(json.Number).Int64(); return n }
	if m["request_id"] != "req-42" || m["endpoint"] != "chat" || num(m["status"]) != 200 || num(m["completion_tokens"]) != 3 || m["finish_reason"] != "length" {
		t.Errorf("truth line: %s", lines[0])
	}
	var kinds []string
	arrival := num(m["arrival_unix_ns"])
	for _, c := range m["chunks"].([]any) {
		ch := c.(map[string]any)
		kinds = append(kinds, ch["kind"].(string))
		ws, we := num(ch["write_start_unix_ns"]), num(ch["write_end_unix_ns"])
		if ws < arrival || we < ws {
			t.Errorf("chunk times out of order: arrival %d start %d end %d", arrival, ws, we)
		}
		if ch["kind"] == "token" {
			due := num(ch["due_unix_ns"])
			// fixed mode: TTFT 2ms, ITL 0.2ms, so the 3rd token is due
			// 2.4ms after arrival.
			if due-arrival < int64(2*time.Millisecond) || due-arrival > int64(2500*time.Microsecond) {
				t.Errorf("token due %v after arrival", time.Duration(due-arrival))
			}
		}
	}
	if want := []string{"role", "token", "token", "token", "usage", "done"}; !cmp.Equal(kinds, want) {
		t.Errorf("chunk kinds %v, want %v", kinds, want)
	}
}

// TestTruthBracketsClientStamps: a client's arrival stamp for each event
// comes after the server started writing it (causality, on one monotonic
// clock in one process), and the ground truth lists the events in the
// order the client saw them.
func TestTruthBracketsClientStamps(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	cfg.ITL = 3 * time.Millisecond
	run := startSim(t, cfg)
	resp := post(t, newHTTPClient(), run.URL+"/v1/chat/completions",
		`{"messages":[{"role":"user","content":"x"}],"max_tokens":15,"stream":true,"stream_options":{"include_usage":true}}`)
	defer resp.Body.Close()
	var stamps []time.Time
	var kinds []string
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, "data: ") {
			stamps = append(stamps, time.Now())
			data := strings.TrimSpace(line[6:])
			switch {
			case data == "[DONE]":
				kinds = append(kinds, ChunkDone)
			case strings.Contains(data, `"role":"assistant"`):
				kinds = append(kinds, ChunkRole)
			case strings.Contains(data, `"choices":[]`):
				kinds = append(kinds, ChunkUsage)
			default:
				kinds = append(kinds, ChunkToken)
			}
		}
		if err != nil {
			break
		}
	}
	tr := run.Server.Truth()
	if len(tr) != 1 || len(tr[0].Chunks) != len(stamps) {
		t.Fatalf("%d truth records, %d chunks vs %d client events", len(tr), len(tr[0].Chunks), len(stamps))
	}
	for i, ch := range tr[0].Chunks {
		if ch.Kind != kinds[i] {
			t.Errorf("chunk %d: truth %s, client saw %s", i, ch.Kind, kinds[i])
		}
		if stamps[i].Before(ch.WriteStart) {
			t.Errorf("chunk %d: client stamp %v before the write started", i, ch.WriteStart.Sub(stamps[i]))
		}
		if ch.Kind == ChunkToken && ch.WriteStart.Before(ch.Due) {
			t.Errorf("chunk %d written %v before it was due", i, ch.Due.Sub(ch.WriteStart))
		}
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	cfg := fastFixed()
	run := startSim(t, cfg)
	hc := newHTTPClient()
	for _, body := range []string{`{"prompt":"x","max_tokens":4,"stream":true}`, `{"prompt":"x","max_tokens":3}`, `{"prompt":"x","max_tokens":0}`} {
		r := post(t, hc, run.URL+"/v1/completions", body)
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	if got, want := run.Server.Stats(), (Stats{Requests: 3, Errors: 1, Tokens: 7}); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
}

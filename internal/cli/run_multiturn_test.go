package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestRunMultiTurn: with --multi-turn each turn k of a conversation is
// sent with exactly the previous k-1 user messages and the answers the
// server actually gave (captured on the wire between llmbench and the
// simulator), turns of one conversation in order, and the result reports
// TTFT by turn.
func TestRunMultiTurn(t *testing.T) {
	t.Parallel()
	srv := startSim(t, nil)
	target, _ := url.Parse(srv.URL)
	var mu sync.Mutex
	sent := map[string][]map[string]any{} // request id -> messages
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Messages []map[string]any `json:"messages"`
		}
		if json.Unmarshal(body, &req) == nil && r.Header.Get("x-request-id") != "" {
			mu.Lock()
			sent[r.Header.Get("x-request-id")] = req.Messages
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()

	dir := t.TempDir()
	var lines strings.Builder
	for c := range 4 {
		fmt.Fprintf(&lines, `{"turns": ["conversation %d opens", {"prompt": "and asks again", "output_tokens": 6}, "a third time"]}`+"\n", c)
	}
	data := filepath.Join(dir, "conv.jsonl")
	if err := os.WriteFile(data, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := filepath.Join(dir, "r.jsonl")
	code, out, errs := runCLI(t, "run", "--backend", "openai-chat", "--base-url", front.URL, "--model", "llmbench-sim",
		"--dataset-name", "custom", "--dataset-path", data, "--multi-turn", "--num-prompts", "3", "--custom-output-len", "4",
		"--max-concurrency", "2", "--turn-think-time", "10ms", "--request-id-prefix", "mt-", "--tokenizer", "builtin:gpt2",
		"--save-records", recs, "--save-result", "--result-dir", dir, "--result-filename", "r.json", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	_, got, _, err := record.ReadFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 9 {
		t.Fatalf("%d records, want 3 conversations x 3 turns", len(got))
	}
	answers := map[[2]int]string{}
	for _, r := range got {
		answers[[2]int{r.Conversation, r.Turn}] = r.GeneratedText
	}
	for c := 1; c <= 3; c++ {
		var prompts []string
		for k := 1; k <= 3; k++ {
			msgs := sentMessages(t, &mu, sent, c, k)
			if len(msgs) != 2*k-1 {
				t.Fatalf("conversation %d turn %d: %d messages, want %d", c, k, len(msgs), 2*k-1)
			}
			for j := 0; j < k-1; j++ {
				if msgs[2*j]["content"] != prompts[j] || msgs[2*j+1]["role"] != "assistant" || msgs[2*j+1]["content"] != answers[[2]int{c, j + 1}] {
					t.Errorf("conversation %d turn %d: history entry %d is %v / %v", c, k, j, msgs[2*j], msgs[2*j+1])
				}
			}
			prompts = append(prompts, msgs[2*k-2]["content"].(string))
		}
	}
	for k := 1; k <= 3; k++ {
		if !strings.Contains(out, fmt.Sprintf("Turn %d mean TTFT (ms):", k)) {
			t.Errorf("no TTFT for turn %d:\n%s", k, out)
		}
	}
	x, _ := readResult(t, filepath.Join(dir, "r.json"))["llmbench"].(map[string]any)
	if pt, _ := x["per_turn"].([]any); len(pt) != 3 {
		t.Errorf("per_turn = %v", x["per_turn"])
	}
}

// sentMessages finds the messages of conversation c's turn k among the
// captured requests (ids are prefix + "c<i>-t<k>", both 0-based; the
// record's conversation number is i+1).
func sentMessages(t *testing.T, mu *sync.Mutex, sent map[string][]map[string]any, c, k int) []map[string]any {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	msgs, ok := sent[fmt.Sprintf("mt-c%d-t%d", c-1, k-1)]
	if !ok {
		t.Fatalf("no request captured for conversation %d turn %d", c, k)
	}
	return msgs
}

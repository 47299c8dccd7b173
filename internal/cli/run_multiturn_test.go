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
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/tokenizer/tokenizertest"
)

// TestRunMultiTurn: with --multi-turn each turn k of a conversation is
// sent with exactly the previous k-1 user messages and the answers the
// server actually gave (captured on the wire between llmbench and the
// simulator), turns of one conversation in order, and the result reports
// TTFT by turn.
func TestRunMultiTurn(t *testing.T) {
	t.Parallel()
	front := startChatCapture(t)

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
	code, out, errs := runCLI(t, "run", "--backend", "openai-chat", "--base-url", front.url, "--model", "llmbench-sim",
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
			msgs := front.sent(t, c, k).Messages
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

// chatCapture is a proxy in front of the simulator that keeps the chat
// body of every request carrying an x-request-id, to check what went on
// the wire.
type chatCapture struct {
	url  string
	mu   sync.Mutex
	body map[string]chatBody // by request id
}

// chatBody is the part of a chat request body the tests check.
type chatBody struct {
	Messages  []map[string]any `json:"messages"`
	MaxTokens int              `json:"max_completion_tokens"`
}

// startChatCapture starts the simulator (startSim) behind a chatCapture.
func startChatCapture(t *testing.T) *chatCapture {
	t.Helper()
	target, _ := url.Parse(startSim(t, nil).URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	c := &chatCapture{body: map[string]chatBody{}}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var b chatBody
		if json.Unmarshal(raw, &b) == nil && r.Header.Get("x-request-id") != "" {
			c.mu.Lock()
			c.body[r.Header.Get("x-request-id")] = b
			c.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c.url = front.URL
	return c
}

// sent finds the body of conversation c's turn k among the captured
// requests (ids are prefix "mt-" + "c<i>-t<k>", both 0-based; the
// record's conversation number is i+1).
func (cc *chatCapture) sent(t *testing.T, c, k int) chatBody {
	t.Helper()
	cc.mu.Lock()
	defer cc.mu.Unlock()
	b, ok := cc.body[fmt.Sprintf("mt-c%d-t%d", c-1, k-1)]
	if !ok {
		t.Fatalf("no request captured for conversation %d turn %d", c, k)
	}
	return b
}

// TestRunMultiTurnShareGPT: --dataset-name sharegpt --multi-turn replays
// each ShareGPT conversation's human turns in order (a leading system turn
// and a trailing unanswered question left out, docs/metrics.md#multi-turn);
// on the wire turn k carries exactly the earlier k-1 questions and the
// answers the simulator actually gave, max_completion_tokens is the token
// count of the dataset's answer to that question, and TTFT is reported by
// turn with each turn's count of conversations.
func TestRunMultiTurnShareGPT(t *testing.T) {
	t.Parallel()
	front := startChatCapture(t)
	// Questions and the dataset's answers, by conversation; the answers'
	// lengths differ so a wrong pairing shows in max_completion_tokens.
	convs := [][][2]string{
		{{"Plan a three-day trip to Lisbon.", "Day one: Alfama and the castle. Day two: Belem. Day three: Sintra by train."}, {"Cheaper?", "Stay in a hostel."}, {"Food tips?", "Try pasteis de nata, grilled sardines and bifanas; eat where locals queue."}},
		{{"What is a B-tree?", "A balanced search tree whose nodes hold many keys, so lookups touch few disk pages."}, {"Why not a binary tree?", "Too deep."}},
		{{"Say hi.", "Hi!"}},
	}
	var entries []any
	for _, c := range convs {
		turns := []map[string]string{{"from": "system", "value": "You are a helpful assistant."}}
		for _, qa := range c {
			turns = append(turns, map[string]string{"from": "human", "value": qa[0]}, map[string]string{"from": "gpt", "value": qa[1]})
		}
		turns = append(turns, map[string]string{"from": "human", "value": "unanswered, so never sent"})
		entries = append(entries, map[string]any{"id": c[0][0], "conversations": turns})
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "sharegpt.json")
	raw, _ := json.Marshal(entries)
	if err := os.WriteFile(data, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	recs := filepath.Join(dir, "r.jsonl")
	code, out, errs := runCLI(t, "run", "--backend", "openai-chat", "--base-url", front.url, "--model", "llmbench-sim",
		"--dataset-name", "sharegpt", "--dataset-path", data, "--multi-turn", "--num-prompts", "3", "--seed", "3",
		"--max-concurrency", "2", "--request-id-prefix", "mt-", "--tokenizer", "builtin:gpt2",
		"--save-records", recs, "--save-result", "--result-dir", dir, "--result-filename", "r.json", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	_, got, _, err := record.ReadFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	answers := map[[2]int]string{}
	for _, r := range got {
		answers[[2]int{r.Conversation, r.Turn}] = r.GeneratedText
	}
	if len(got) != 6 || len(answers) != 6 {
		t.Fatalf("%d records (%d distinct turns), want 3+2+1", len(got), len(answers))
	}
	tok := tokenizertest.Load(t, tokenizertest.GPT2)
	perTurn := map[int]int{} // turn -> conversations that reached it
	for c := 1; c <= 3; c++ {
		first := front.sent(t, c, 1).Messages[0]["content"]
		i := slices.IndexFunc(convs, func(qa [][2]string) bool { return qa[0][0] == first })
		if i < 0 {
			t.Fatalf("conversation %d opens with %q, not a dataset question", c, first)
		}
		for k, qa := range convs[i] {
			perTurn[k+1]++
			b := front.sent(t, c, k+1)
			var want []map[string]any
			for j := range k {
				want = append(want, map[string]any{"role": "user", "content": convs[i][j][0]},
					map[string]any{"role": "assistant", "content": answers[[2]int{c, j + 1}]})
			}
			want = append(want, map[string]any{"role": "user", "content": qa[0]})
			if !reflect.DeepEqual(b.Messages, want) {
				t.Errorf("conversation %d turn %d: messages %v, want %v", c, k+1, b.Messages, want)
			}
			if k > 0 && answers[[2]int{c, k}] == convs[i][k-1][1] {
				t.Errorf("conversation %d: the simulator's answer equals the dataset's; the history check proves nothing", c)
			}
			if n := tok.CountTokens(qa[1]) + tok.NumSpecialTokensToAdd(); b.MaxTokens != n {
				t.Errorf("conversation %d turn %d: max_completion_tokens %d, want %d (the dataset answer's tokens)", c, k+1, b.MaxTokens, n)
			}
		}
	}
	x, _ := readResult(t, filepath.Join(dir, "r.json"))["llmbench"].(map[string]any)
	pt, _ := x["per_turn"].([]any)
	if len(pt) != 3 {
		t.Fatalf("per_turn = %v", x["per_turn"])
	}
	for k, v := range pt {
		m, _ := v.(map[string]any)
		if m["turn"] != float64(k+1) || m["n"] != float64(perTurn[k+1]) || m["mean_ttft_ms"].(float64) <= 0 {
			t.Errorf("per_turn[%d] = %v, want turn %d over %d conversations with a TTFT", k, m, k+1, perTurn[k+1])
		}
		if !strings.Contains(out, fmt.Sprintf("Turn %d mean TTFT (ms):", k+1)) {
			t.Errorf("no TTFT for turn %d:\n%s", k+1, out)
		}
	}
}

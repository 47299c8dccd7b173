package dataset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func traceConfig(path string) Config {
	return Config{Name: TimedTrace, Path: path}
}

func TestTimedTraceSchedule50Over5s(t *testing.T) {
	t.Parallel()
	// Mooncake-style: timestamps in milliseconds, one request every 100 ms.
	var sb strings.Builder
	for i := range 50 {
		fmt.Fprintf(&sb, `{"timestamp": %d, "input_length": 20, "output_length": 5, "hash_ids": [%d, %d]}`+"\n", i*100, i%3, 100+i)
	}
	cfg := traceConfig(writeFile(t, t.TempDir(), "trace.jsonl", sb.String()))
	cfg.NumPrompts = 50
	cfg.TimedTraceSecMultiplier = 0.001
	reqs, _, err := Load(t.Context(), cfg, idTok{vocab: 100, special: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := TraceSchedule(reqs)
	if !ok || len(got) != 50 {
		t.Fatalf("TraceSchedule = %d offsets, %v; want 50, true", len(got), ok)
	}
	for i, d := range got {
		if want := time.Duration(i) * 100 * time.Millisecond; d != want {
			t.Errorf("request %d due at %v, want %v", i, d, want)
		}
		if reqs[i].OutputLen != 5 || reqs[i].PromptLen != 20 || len(reqs[i].PromptIDs) != 20 {
			t.Errorf("request %d: output %d, prompt_len %d, %d ids; want 5, 20, 20", i, reqs[i].OutputLen, reqs[i].PromptLen, len(reqs[i].PromptIDs))
		}
	}
	// --no-self-timed leaves the schedule to --request-rate.
	off := false
	cfg.SelfTimed = &off
	reqs, _, err = Load(t.Context(), cfg, idTok{vocab: 100, special: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := TraceSchedule(reqs); ok {
		t.Error("--no-self-timed: requests still carry trace times")
	}
}

func TestTimedTraceSharedHashIDs(t *testing.T) {
	t.Parallel()
	// vLLM's own test trace (chunk size 8): entries 0 and 2 share ids 7
	// and 11, entry 1 shares only 7; entry 0 needs 4 tokens of block 11.
	trace := `{"ts": 0, "input_length": 12, "output_length": 3, "hash_ids": [7, 11]}
{"ts": 1, "input_length": 16, "output_length": 3, "hash_ids": [7, 19]}
{"ts": 2, "input_length": 16, "output_length": 3, "hash_ids": [7, 11]}
`
	cfg := traceConfig(writeFile(t, t.TempDir(), "trace.jsonl", trace))
	cfg.TimedTraceChunkHashSize = 8
	cfg.TimedTraceLabelTimestamp = "ts"
	tok := idTok{vocab: 100, special: []int{0}}
	reqs, _, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	p := [][]int{reqs[0].PromptIDs, reqs[1].PromptIDs, reqs[2].PromptIDs}
	if diff := cmp.Diff([]int{12, 16, 16}, []int{len(p[0]), len(p[1]), len(p[2])}); diff != "" {
		t.Fatalf("prompt lengths (-want +got):\n%s", diff)
	}
	if !slices.Equal(p[0], p[2][:12]) || !slices.Equal(p[0][:8], p[1][:8]) || slices.Equal(p[1][8:], p[2][8:]) {
		t.Errorf("shared blocks not shared (or distinct ones equal):\n%v\n%v\n%v", p[0], p[1], p[2])
	}
	// Block contents are Python's random.Random(fnv1a32("7")).choices(ids
	// 1..99, k=8), computed with CPython 3.
	if diff := cmp.Diff([]int{27, 51, 9, 29, 79, 99, 85, 89}, p[0][:8]); diff != "" {
		t.Errorf("block of hash id 7 (-want +got):\n%s", diff)
	}
	if reqs[1].Prompt != tok.Decode(p[1]) || reqs[1].Arrival != time.Second {
		t.Errorf("request 1: prompt %q arrival %v; want the decoded ids, 1s", reqs[1].Prompt, reqs[1].Arrival)
	}
	// A real tokenizer: the same ids decode to the same leading text.
	gpt2 := realTokenizer(t, "gpt2")
	reqs, _, err = Load(t.Context(), cfg, gpt2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reqs[0].PromptIDs, reqs[2].PromptIDs[:12]) || !strings.HasPrefix(reqs[2].Prompt, gpt2.Decode(reqs[2].PromptIDs[:8])) {
		t.Error("gpt2: entries sharing hash ids do not share leading tokens")
	}
	for _, id := range reqs[1].PromptIDs {
		if slices.Contains(gpt2.SpecialIDs(), id) {
			t.Errorf("special id %d drawn", id)
		}
	}
}

func TestTimedTraceFormats(t *testing.T) {
	t.Parallel()
	// Custom labels, a string timestamp, ids missing (empty prompt, as in
	// vLLM), too few ids, a blank line, a later entry due earlier.
	trace := `{"t": "3.5", "in": 4, "out": 2, "h": [1]}

{"t": 1, "in": 10, "out": 2}
{"t": -2, "in": 2, "out": 7, "h": [1, 2]}
`
	cfg := traceConfig(writeFile(t, t.TempDir(), "trace.jsonl", trace))
	cfg.TimedTraceChunkHashSize = 3
	cfg.TimedTraceLabelTimestamp, cfg.TimedTraceLabelInputLength = "t", "in"
	cfg.TimedTraceLabelOutputLength, cfg.TimedTraceLabelHashIDs = "out", "h"
	reqs, warns, err := Load(t.Context(), cfg, idTok{vocab: 50, special: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{3, 0, 2}, []int{reqs[0].PromptLen, reqs[1].PromptLen, reqs[2].PromptLen}); diff != "" {
		t.Errorf("prompt lengths (-want +got):\n%s", diff)
	}
	offsets, _ := TraceSchedule(reqs)
	if diff := cmp.Diff([]time.Duration{3500 * time.Millisecond, 3500 * time.Millisecond, 3500 * time.Millisecond}, offsets); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
	if !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "2 trace entries list too few hash ids") }) ||
		!slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "fewer than --num-prompts 1000") }) {
		t.Errorf("warnings %q", warns)
	}
	// Without a tokenizer: word blocks, still shared.
	reqs, _, err = Load(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].PromptIDs != nil || !strings.HasPrefix(reqs[2].Prompt, reqs[0].Prompt[:strings.LastIndexByte(reqs[0].Prompt, ' ')]) {
		t.Errorf("word-based prompts %q, %q", reqs[0].Prompt, reqs[2].Prompt)
	}
}

func TestTimedTraceErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := `{"timestamp": 0, "input_length": 4, "output_length": 2, "hash_ids": [1]}` + "\n"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"not json", good + "{oops\n", []string{"trace.jsonl:2", "not a JSON object"}},
		{"no timestamp", good + good + `{"input_length": 4, "output_length": 2}` + "\n", []string{"trace.jsonl:3", `"timestamp"`, "--timed-trace-label-timestamp"}},
		{"no input length", `{"timestamp": 0, "output_length": 2}`, []string{"trace.jsonl:1", `"input_length"`, "--timed-trace-label-input-length"}},
		{"fractional length", `{"timestamp": 0, "input_length": 2.5, "output_length": 2}`, []string{"trace.jsonl:1", "whole number"}},
		{"bad timestamp", `{"timestamp": "soon", "input_length": 2, "output_length": 2}`, []string{"trace.jsonl:1", `"soon" is not a number`}},
		{"bad hash ids", `{"timestamp": 0, "input_length": 2, "output_length": 2, "hash_ids": ["a"]}`, []string{"trace.jsonl:1", "list of integers"}},
		{"empty", "\n\n", []string{"trace.jsonl: no trace entries"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := traceConfig(writeFile(t, t.TempDir(), "trace.jsonl", tc.body))
			_, _, err := Load(t.Context(), cfg, idTok{vocab: 10, special: []int{0}})
			wantErr(t, err, tc.want...)
		})
	}
	_, _, err := Load(t.Context(), traceConfig(dir+"/missing.jsonl"), nil)
	wantErr(t, err, "missing.jsonl")
	on := true
	_, _, err = Load(t.Context(), Config{Name: Random, SelfTimed: &on}, nil)
	wantErr(t, err, "--self-timed/--no-self-timed is only supported with --dataset-name timed_trace")
	_, _, err = Load(t.Context(), Config{Name: TimedTrace, Path: "x", TimedTraceChunkHashSize: -1}, nil)
	wantErr(t, err, "--timed-trace-chunk-hash-size must be positive")
}

func TestTraceSchedule(t *testing.T) {
	t.Parallel()
	at := func(d time.Duration) Request { return Request{Arrival: d, HasArrival: true} }
	for _, tc := range []struct {
		name string
		reqs []Request
		want []time.Duration
	}{
		{"in order", []Request{at(0), at(time.Second), at(2 * time.Second)}, []time.Duration{0, time.Second, 2 * time.Second}},
		{"an earlier one goes right after its predecessor", []Request{at(time.Second), at(3 * time.Second), at(2 * time.Second), at(4 * time.Second)},
			[]time.Duration{time.Second, 3 * time.Second, 3 * time.Second, 4 * time.Second}},
		{"negative times are due at once", []Request{at(-time.Second), at(time.Second)}, []time.Duration{0, time.Second}},
		{"a request without a time counts as 0", []Request{at(time.Second), {}}, []time.Duration{time.Second, time.Second}},
	} {
		got, ok := TraceSchedule(tc.reqs)
		if !ok {
			t.Errorf("%s: not timed", tc.name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if got, ok := TraceSchedule([]Request{{}, {}}); ok || got != nil {
		t.Errorf("untimed requests: %v, %v; want nil, false", got, ok)
	}
}

// FuzzTimedTrace feeds arbitrary trace files to the loader: it must return
// requests or an error naming the file, never panic, and every request
// must carry its ids and its trace time.
func FuzzTimedTrace(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 20, "output_length": 5, "hash_ids": [1, 2]}`))
	f.Add([]byte("{\"timestamp\": \"1e3\", \"input_length\": 3, \"output_length\": 1, \"hash_ids\": [-9223372036854775808]}\n\n{}"))
	f.Add([]byte(`{"timestamp": 1e308, "input_length": 1, "output_length": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := traceConfig(writeFile(t, t.TempDir(), "trace.jsonl", string(data)))
		cfg.NumPrompts = 20
		cfg.TimedTraceChunkHashSize = 4
		reqs, _, err := Load(t.Context(), cfg, idTok{vocab: 30, special: []int{0}})
		if err != nil {
			if !strings.Contains(err.Error(), "trace.jsonl") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, r := range reqs {
			if len(r.PromptIDs) != r.PromptLen || !r.HasArrival {
				t.Fatalf("request %+v", r)
			}
		}
	})
}

package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/hfhub/hubtest"
	"github.com/parquet-go/parquet-go"
)

type pqTurn struct {
	From  string `parquet:"from"`
	Value string `parquet:"value"`
}

type pqConvRow struct {
	ID            string   `parquet:"id"`
	Conversations []pqTurn `parquet:"conversations,list"`
}

type pqMsg struct {
	Role    string `parquet:"role"`
	Content string `parquet:"content"`
}

type pqMsgRow struct {
	Messages []pqMsg `parquet:"messages,list"`
}

type pqAlpacaRow struct {
	Instruction string `parquet:"instruction"`
	Input       string `parquet:"input"`
	Output      string `parquet:"output"`
}

type pqOddRow struct {
	Title string `parquet:"title"`
	Score int64  `parquet:"score"`
}

func parquetBytes[T any](tb testing.TB, rows []T) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// convRows makes n ShareGPT-style rows whose prompts pass vLLM's filter.
func convRows(prefix string, n int) []pqConvRow {
	rows := make([]pqConvRow, n)
	for i := range rows {
		rows[i] = pqConvRow{ID: fmt.Sprintf("%s-%d", prefix, i), Conversations: []pqTurn{
			{"human", fmt.Sprintf("%s question number %d: how do tides work near a narrow bay?", prefix, i)},
			{"gpt", fmt.Sprintf("%s answer %d: the moon pulls the water and the bay funnels it into a higher range.", prefix, i)},
		}}
	}
	return rows
}

func TestHFLocalFilesAndLayouts(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	dir := t.TempDir()
	writeFile(t, dir, "conv/data/train-00000-of-00001.parquet", string(parquetBytes(t, convRows("train", 12))))
	writeFile(t, dir, "conv/data/test-00000-of-00001.parquet", string(parquetBytes(t, convRows("test", 5))))
	writeFile(t, dir, "conv/README.md", "# not data\n")
	writeFile(t, dir, "msgs.parquet", string(parquetBytes(t, []pqMsgRow{
		{Messages: []pqMsg{{"user", "Name three rivers in South America, please."}, {"assistant", "The Amazon, the Paraná and the Orinoco."}}},
	})))
	writeFile(t, dir, "alpaca.parquet", string(parquetBytes(t, []pqAlpacaRow{
		{Instruction: "Sort these words alphabetically.", Input: "pear apple fig", Output: "The sorted words are: apple, fig, pear."},
	})))
	writeFile(t, dir, "rows.jsonl", `{"question": "What is the tallest mountain in Africa?", "answer": "Mount Kilimanjaro, at about 5,895 metres."}`+"\n")
	writeFile(t, dir, "rows.json", `[{"prompt": "Give one tip for better sleep."}, {"prompt": "And another one, please?"}]`)
	writeFile(t, dir, "trailing.json", `[{"prompt": "Give one tip for better sleep."}]`+"\n]")
	writeFile(t, dir, "odd.parquet", string(parquetBytes(t, []pqOddRow{{"A short title about river tides", 1}})))

	for _, tc := range []struct {
		name, path, split, column string
		outLen, n                 int
		wantPrompt                string // first request's prompt (shuffle off)
		wantOut                   int    // -1: completion token count
		wantWarn                  string
	}{
		{"parquet conversations, train split", "conv", "", "", 0, 12, "train question number 0: how do tides work near a narrow bay?", -1, ""},
		{"test split", "conv", "test", "", 0, 5, "test question number 0: how do tides work near a narrow bay?", -1, ""},
		{"messages", "msgs.parquet", "", "", 0, 1, "Name three rivers in South America, please.", -1, ""},
		{"alpaca instruction + input", "alpaca.parquet", "", "", 0, 1, "Sort these words alphabetically.\n\npear apple fig", -1, ""},
		{"jsonl question/answer", "rows.jsonl", "", "", 0, 1, "What is the tallest mountain in Africa?", -1, ""},
		{"json array, no completion", "rows.json", "", "", 0, 2, "Give one tip for better sleep.", 256, "no completion"},
		{"fixed output length", "rows.json", "", "", 77, 2, "Give one tip for better sleep.", 77, ""},
		{"named column", "odd.parquet", "", "title", 5, 1, "A short title about river tides", 5, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Name: HF, Path: filepath.Join(dir, tc.path), HFSplit: tc.split, HFPromptColumn: tc.column,
				HFOutputLen: tc.outLen, NumPrompts: tc.n, DisableShuffle: true, SkipChatTemplate: true}
			reqs, warns, err := Load(t.Context(), cfg, tok)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != tc.n {
				t.Fatalf("%d requests, want %d", len(reqs), tc.n)
			}
			r := reqs[0]
			if r.Prompt != tc.wantPrompt {
				t.Errorf("prompt %q, want %q", r.Prompt, tc.wantPrompt)
			}
			if r.PromptLen != len(tok.Encode(r.Prompt, true)) {
				t.Errorf("prompt_len %d", r.PromptLen)
			}
			if tc.wantOut >= 0 && r.OutputLen != tc.wantOut {
				t.Errorf("output_len %d, want %d", r.OutputLen, tc.wantOut)
			}
			if tc.wantOut < 0 && r.OutputLen < 4 {
				t.Errorf("output_len %d should be the completion's token count", r.OutputLen)
			}
			if (tc.wantWarn == "") != (len(warns) == 0) || (tc.wantWarn != "" && !strings.Contains(strings.Join(warns, "|"), tc.wantWarn)) {
				t.Errorf("warnings %v, want %q", warns, tc.wantWarn)
			}
		})
	}

	for _, tc := range []struct {
		name, path, split, column string
		want                      []string
	}{
		{"no usable column", "odd.parquet", "", "", []string{"odd.parquet row 0", "no usable prompt column", "score, title", "--hf-prompt-column"}},
		{"unknown column", "rows.json", "", "body", []string{"rows.json:1", "no column \"body\"", "prompt"}},
		{"unknown split", "conv", "validation", "", []string{"conv", "split \"validation\"", "train-00000-of-00001.parquet"}},
		{"data after the array", "trailing.json", "", "", []string{"trailing.json:2:1", "unexpected data after the top-level array"}},
		{"not data", "conv/README.md", "", "", []string{"README.md", "not JSON, JSON lines or Parquet"}},
		{"neither path nor id", "no/such/thing", "", "", []string{"no/such/thing", "not a dataset id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Name: HF, Path: filepath.Join(dir, tc.path), HFSplit: tc.split, HFPromptColumn: tc.column, NumPrompts: 1,
				Hub: &hfhub.Client{CacheDir: t.TempDir(), Offline: true}}
			if tc.name == "neither path nor id" {
				cfg.Path = tc.path
			}
			_, _, err := Load(t.Context(), cfg, tok)
			wantErr(t, err, tc.want...)
		})
	}
}

// TestHFFakeHubThenOfflineCache downloads a private dataset (every request
// must carry the token) from the hub, then reads it back offline.
func TestHFFakeHubThenOfflineCache(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	const token = "hf_test_secret"
	hub, url := hubtest.Start(t)
	hub.SetToken(token)
	train := "data/train-00000-of-00001.parquet"
	sha := hub.Add(hubtest.Repo{Type: hubtest.Dataset, ID: "acme/tides", Commit: strings.Repeat("ab", 20), Private: true,
		Files: map[string][]byte{
			train:                              parquetBytes(t, convRows("train", 30)),
			"data/test-00000-of-00001.parquet": parquetBytes(t, convRows("test", 3)),
			"README.md":                        []byte("# card\n"),
		},
		LFS: []string{train, "data/test-00000-of-00001.parquet"},
	})
	cache := t.TempDir()
	online := &hfhub.Client{Endpoint: url, Token: token, CacheDir: cache}
	cfg := Config{Name: HF, Path: "acme/tides", NumPrompts: 10, Seed: 3, Hub: online}
	first, warns, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 10 {
		t.Fatalf("%d requests", len(first))
	}
	for _, r := range first {
		if !strings.HasPrefix(r.Prompt, "train question") {
			t.Errorf("prompt from the wrong split: %q", r.Prompt)
		}
	}
	if got, gotTrain := hub.Downloads(), hub.FileDownloads(hubtest.Dataset, "acme/tides", train); got != 1 || gotTrain != 1 {
		t.Errorf("%d downloads (%d of the train split), want 1 (the train split only)", got, gotTrain)
	}
	if !strings.Contains(strings.Join(warns, "|"), "downloaded 1 file") {
		t.Errorf("warnings %v", warns)
	}
	for _, w := range warns {
		if strings.Contains(w, token) {
			t.Fatal("a warning leaks the token")
		}
	}
	// huggingface_hub's layout: refs/main -> commit, snapshot symlink to a blob.
	ref, err := os.ReadFile(filepath.Join(cache, "datasets--acme--tides", "refs", "main"))
	if err != nil || string(ref) != sha {
		t.Fatalf("refs/main = %q, %v", ref, err)
	}
	snapFile := filepath.Join(cache, "datasets--acme--tides", "snapshots", sha, "data", "train-00000-of-00001.parquet")
	if st, err := os.Lstat(snapFile); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("snapshot file %s: %v (want a symlink to blobs/)", snapFile, err)
	}

	// Offline, from the cache alone: the same requests, and the hub (still
	// listening) is not asked anything.
	asked := hub.RequestCount()
	cfg.Hub = &hfhub.Client{Endpoint: url, Token: token, CacheDir: cache, Offline: true}
	second, _, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Error("offline load from the cache differs from the online load")
	}
	// The test split was not downloaded, and offline cannot fetch it.
	cfg.HFSplit = "test"
	_, _, err = Load(t.Context(), cfg, tok)
	if err == nil || !strings.Contains(err.Error(), "split \"test\"") {
		t.Errorf("offline test split: %v", err)
	}
	cfg.Path, cfg.HFSplit = "acme/other", ""
	_, _, err = Load(t.Context(), cfg, tok)
	if err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE") {
		t.Errorf("offline missing dataset: %v", err)
	}
	if n := hub.RequestCount(); n != asked {
		t.Errorf("offline loads asked the hub %d times: %v", n-asked, hub.Requests()[asked:])
	}
}

func TestHFFakeHubErrors(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	hub, url := hubtest.Start(t)
	hub.SetToken("right")
	hub.Add(hubtest.Repo{Type: hubtest.Dataset, ID: "acme/tides", Commit: strings.Repeat("cd", 20), Private: true,
		Files: map[string][]byte{"notes.txt": []byte("no data here")}})
	for _, tc := range []struct {
		name, token, repo string
		want              []string
	}{
		{"bad token", "wrong", "acme/tides", []string{"acme/tides", "HF_TOKEN"}},
		{"no token", "", "acme/tides", []string{"acme/tides", "HF_TOKEN"}},
		{"no such dataset", "right", "acme/none", []string{"acme/none", "no such repository"}},
		{"no data files", "right", "acme/tides", []string{"acme/tides", "no data files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Name: HF, Path: tc.repo, NumPrompts: 1,
				Hub: &hfhub.Client{Endpoint: url, Token: tc.token, CacheDir: t.TempDir()}}
			_, _, err := Load(t.Context(), cfg, tok)
			wantErr(t, err, tc.want...)
			if strings.Contains(err.Error(), "right") || strings.Contains(err.Error(), "wrong") {
				t.Errorf("error leaks the token: %v", err)
			}
		})
	}
}

func TestSelectFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		files         []string
		subset, split string
		given         bool
		want          string
	}{
		{"single file repo is train", []string{"sharegpt.json"}, "", "train", false, "sharegpt.json"},
		{"split by file name", []string{"data/train-0.parquet", "data/test-0.parquet"}, "", "test", true, "data/test-0.parquet"},
		{"split by folder", []string{"train/a.jsonl", "validation/a.jsonl"}, "", "validation", true, "validation/a.jsonl"},
		{"subset folder", []string{"main/train-0.parquet", "socratic/train-0.parquet"}, "socratic", "train", false, "socratic/train-0.parquet"},
		{"underscore split", []string{"x_train.jsonl", "x_test.jsonl"}, "", "train", false, "x_train.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := selectFiles(tc.files, tc.subset, tc.split, tc.given)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("got %v, want %s", got, tc.want)
			}
		})
	}
	if _, err := selectFiles([]string{"data/train-0.parquet"}, "", "test", true); err == nil {
		t.Error("missing split should fail")
	}
	if _, err := selectFiles([]string{"a.jsonl"}, "", "test", true); err == nil {
		t.Error("an explicit non-train split on an unsplit repo should fail")
	}
}

// TestHFShareGPTFile: a ShareGPT JSON file under hf (the common hub
// layout) selects the same requests as the sharegpt dataset.
func TestHFShareGPTFile(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	want, _, err := Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 20, Seed: 4}, tok)
	if err != nil {
		t.Fatal(err)
	}
	got, warns, err := Load(t.Context(), Config{Name: HF, Path: sampleShareGPTPath, NumPrompts: 20, Seed: 4}, tok)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %v", warns)
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Error("hf and sharegpt disagree on the same ShareGPT file")
	}
	_, _, err = Load(t.Context(), Config{Name: HF, Path: sampleShareGPTPath, NumPrompts: 2, HFPromptColumn: "id"}, tok)
	if err == nil || !strings.Contains(err.Error(), "conversations") {
		t.Errorf("column on a ShareGPT file: %v", err)
	}
}

// TestHFCacheLayoutOffline reads a hand-made huggingface_hub cache: refs,
// a subset folder, gzipped JSON lines, and a revision given as a commit.
func TestHFCacheLayoutOffline(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	cache := t.TempDir()
	sha := strings.Repeat("0f", 20)
	root := filepath.Join(cache, "datasets--acme--math")
	writeFile(t, root, "refs/main", sha)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	for i := range 6 {
		fmt.Fprintf(zw, "{\"question\": \"How many apples are left if you eat %d of ten?\", \"answer\": \"There are %d apples left over.\"}\n", i, 10-i)
	}
	zw.Close()
	writeFile(t, root, "snapshots/"+sha+"/socratic/test-00000-of-00001.jsonl.gz", gz.String())
	writeFile(t, root, "snapshots/"+sha+"/main/test-00000-of-00001.jsonl", `{"question": "What is seven times six, exactly?", "answer": "Seven times six is forty-two."}`+"\n")
	hub := &hfhub.Client{CacheDir: cache, Offline: true}
	for _, tc := range []struct {
		subset, rev string
		want        int
	}{{"socratic", "", 6}, {"main", "", 1}, {"socratic", sha, 6}} {
		cfg := Config{Name: HF, Path: "acme/math", HFSubset: tc.subset, HFSplit: "test", HFRevision: tc.rev, NumPrompts: tc.want, NoOversample: true, Hub: hub}
		reqs, _, err := Load(t.Context(), cfg, tok)
		if err != nil {
			t.Fatalf("subset %s rev %q: %v", tc.subset, tc.rev, err)
		}
		if len(reqs) != tc.want || !strings.Contains(reqs[0].Prompt, "?") {
			t.Errorf("subset %s: %d requests, first %q", tc.subset, len(reqs), reqs[0].Prompt)
		}
	}
	_, _, err := Load(t.Context(), Config{Name: HF, Path: "acme/math", HFSubset: "nope", HFSplit: "test", NumPrompts: 1, Hub: hub}, tok)
	if err == nil || !strings.Contains(err.Error(), "subset \"nope\"") {
		t.Errorf("unknown subset: %v", err)
	}
}

func TestLoadHonoursCancellation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err := Load(ctx, Config{NumPrompts: 10, RandomInputLen: 64}, realTokenizer(t, "gpt2"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("random: %v, want context.Canceled", err)
	}
	_, _, err = Load(ctx, Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 10}, realTokenizer(t, "gpt2"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("sharegpt: %v, want context.Canceled", err)
	}
}

package dataset

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func burstConfig(n int) Config {
	return Config{Name: BurstGPT, Path: repoTestdata("dataset", "burstgpt_sample.csv"), NumPrompts: n}
}

func TestBurstGPTSampleMatchesPandas(t *testing.T) {
	t.Parallel()
	// The sample has 6 usable rows (GPT-4, Response tokens > 0). Expected
	// (request, response) pairs: pandas 1.5.3 DataFrame.sample(n,
	// random_state=0) on the filtered frame, as vLLM samples.
	for _, tc := range []struct {
		name string
		n    int
		want [][2]int
	}{
		{"without replacement", 3, [][2]int{{100, 40}, {30, 25}, {12, 7}}},
		{"with replacement", 10, [][2]int{{64, 120}, {100, 40}, {1087, 230}, {8, 3}, {8, 3}, {8, 3}, {12, 7}, {8, 3}, {100, 40}, {30, 25}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tok := idTok{vocab: 50, special: []int{0}}
			reqs, _, err := Load(t.Context(), burstConfig(tc.n), tok)
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]int
			for i, r := range reqs {
				got = append(got, [2]int{r.PromptLen, r.OutputLen})
				// vLLM's synthetic prompt: ids (i + j) mod vocab_size.
				ids := tok.Encode(r.Prompt, false)
				if len(ids) != r.PromptLen || (len(ids) > 1 && (ids[0] != i%50 || ids[1] != (i+1)%50)) || r.HasArrival {
					t.Errorf("request %d: %d ids starting %v, arrival %v", i, len(ids), ids[:min(2, len(ids))], r.HasArrival)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(request, response) tokens (-want +got):\n%s", diff)
			}
		})
	}
	// NumPy's legacy permutation beyond 2^k boundaries (numpy 1.24:
	// RandomState(7).permutation(1000)[:5]).
	got, err := pandasSample(1000, 5, 7)
	if err != nil || !slices.Equal(got, []int{778, 334, 271, 802, 216}) {
		t.Errorf("pandasSample(1000, 5, 7) = %v, %v", got, err)
	}
}

func TestBurstGPTSelfTimed(t *testing.T) {
	t.Parallel()
	// Beyond vLLM: replay the first rows on their timestamps, shifted to
	// start at 0 and scaled by --timed-trace-sec-multiplier.
	cfg := burstConfig(4)
	on := true
	cfg.SelfTimed = &on
	cfg.TimedTraceSecMultiplier = 0.5
	reqs, _, err := Load(t.Context(), cfg, idTok{vocab: 50, special: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	offsets, ok := TraceSchedule(reqs)
	want := []time.Duration{0, 47500 * time.Millisecond, 48250 * time.Millisecond, 57500 * time.Millisecond}
	if diff := cmp.Diff(want, offsets); !ok || diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
	if reqs[0].PromptLen != 1087 || reqs[3].OutputLen != 3 {
		t.Errorf("rows not in file order: %+v", reqs)
	}
	cfg.NumPrompts = 50
	_, warns, err := Load(t.Context(), cfg, nil)
	if err != nil || !slices.ContainsFunc(warns, func(w string) bool { return strings.Contains(w, "6 usable GPT-4 rows, fewer than --num-prompts 50") }) {
		t.Errorf("warnings %q, err %v", warns, err)
	}
}

func TestBurstGPTErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"no model column", "Timestamp,Request tokens,Response tokens\n1,2,3\n", []string{"b.csv:1", `no "Model" column`}},
		{"bad count", "Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,2,3\n2,GPT-4,x,3\n", []string{"b.csv:3", `Request tokens "x"`}},
		{"bad timestamp", "Timestamp,Model,Request tokens,Response tokens\nsoon,GPT-4,2,3\n", []string{"b.csv:2", `Timestamp "soon"`}},
		{"no usable rows", "Timestamp,Model,Request tokens,Response tokens\n1,ChatGPT,2,3\n2,GPT-4,2,0\n", []string{"b.csv: no rows with Model \"GPT-4\""}},
		{"bad csv", "Timestamp,Model,Request tokens,Response tokens\n1,\"GPT-4,2,3\n", []string{"b.csv", "line 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Name: BurstGPT, Path: writeFile(t, t.TempDir(), "b.csv", tc.body), NumPrompts: 1}
			_, _, err := Load(t.Context(), cfg, idTok{vocab: 10, special: []int{0}})
			wantErr(t, err, tc.want...)
		})
	}
}

// FuzzBurstGPT feeds arbitrary CSV files to the loader: requests or an
// error naming the file, never a panic.
func FuzzBurstGPT(f *testing.F) {
	f.Add([]byte("Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,2,3\n"))
	f.Add([]byte("Model,Response tokens,Request tokens\nGPT-4,1,1e6\n"))
	f.Add([]byte("\ufeffTimestamp,Model,Request tokens,Response tokens\n\"1\",GPT-4,0,3,extra\nx\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := Config{Name: BurstGPT, Path: writeFile(t, t.TempDir(), "b.csv", string(data)), NumPrompts: 3}
		reqs, _, err := Load(t.Context(), cfg, idTok{vocab: 10, special: []int{0}})
		if err != nil {
			if !strings.Contains(err.Error(), "b.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
	})
}

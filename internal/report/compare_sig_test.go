package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// runsFile is a result standing for len(vals) runs whose figure key took
// vals, its headline the mean (as the --runs round will save it).
func runsFile(name, key string, vals []float64) *CompareFile {
	runs := make([]any, len(vals))
	sum := 0.0
	for i, v := range vals {
		runs[i] = map[string]any{key: json.Number(fmt.Sprint(v))}
		sum += v
	}
	return &CompareFile{Path: name, Values: map[string]any{
		"completed": json.Number("100"),
		key:         json.Number(fmt.Sprint(sum / float64(len(vals)))),
		ExtrasKey:   map[string]any{RunsKey: runs},
	}}
}

// TestComparisonOverRuns: figures with one value per run are judged by
// Mann–Whitney over the runs, and never called with fewer than 4 a side.
func TestComparisonOverRuns(t *testing.T) {
	t.Parallel()
	const key = "request_throughput"
	tests := []struct {
		name    string
		a, b    []float64
		mark    string // the Δ cell ends with it
		p       float64
		refused bool
	}{
		{"4 a side, fully separated: p = 2/70", []float64{10, 10.1, 10.2, 10.3}, []float64{11, 11.1, 11.2, 11.3}, " (p=0.029)", 2.0 / 70, false},
		{"5 a side, interleaved: ~", []float64{10, 10.4, 10.8, 11.2, 11.6}, []float64{10.2, 10.6, 11, 11.4, 11.8}, " ~", math.NaN(), false},
		{"3 a side, fully separated: refused, ~", []float64{10, 10.1, 10.2}, []float64{11, 11.1, 11.2}, " ~", math.NaN(), true},
		{"one run against four: refused", []float64{10}, []float64{11, 11.1, 11.2, 11.3}, " ~", math.NaN(), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := []*CompareFile{runsFile("a.json", key, tt.a), runsFile("b.json", key, tt.b)}
			LabelCompareFiles(files)
			c := NewComparison(files, CompareOptions{})
			s, ok := c.Significance(1, key)
			if !ok || s.Method != MethodMannWhitney {
				t.Fatalf("significance %+v, %v; want Mann-Whitney", s, ok)
			}
			if (s.Refused != "") != tt.refused {
				t.Errorf("refused %q, want refused: %v", s.Refused, tt.refused)
			}
			if !math.IsNaN(tt.p) && math.Abs(s.P-tt.p) > 1e-12 {
				t.Errorf("p = %v, want %v", s.P, tt.p)
			}
			if got := c.DeltaText(1, key); !strings.HasSuffix(got, tt.mark) {
				t.Errorf("Δ cell %q does not end with %q", got, tt.mark)
			}
			// A bound crossed by an uncalled change does not fail.
			b, _ := ParseBound(key + ">+1%")
			crossed, noise, err := c.CheckBounds([]Bound{b})
			if err != nil {
				t.Fatal(err)
			}
			if len(crossed)+len(noise) != 1 || (len(crossed) == 1) != s.Significant {
				t.Errorf("crossed %v, noise %v; significant %v", crossed, noise, s.Significant)
			}
		})
	}
}

// TestComparisonUnjudged: without per-request data or runs, and under
// --alpha 1, Δ cells keep their plain form and bounds are plain.
func TestComparisonUnjudged(t *testing.T) {
	t.Parallel()
	plain := func(v string) *CompareFile {
		return &CompareFile{Path: v + ".json", Values: map[string]any{"completed": json.Number("10"), "p99_ttft_ms": json.Number(v)}}
	}
	files := []*CompareFile{plain("100"), plain("103")}
	LabelCompareFiles(files)
	c := NewComparison(files, CompareOptions{})
	if c.Judged() || c.DeltaText(1, "p99_ttft_ms") != "+3.00%" || c.Notes() != nil {
		t.Errorf("judged %v, cell %q, notes %v; want the plain +3.00%%", c.Judged(), c.DeltaText(1, "p99_ttft_ms"), c.Notes())
	}
	b, _ := ParseBound("p99_ttft_ms>+2%")
	if crossed, _, _ := c.CheckBounds([]Bound{b}); len(crossed) != 1 {
		t.Errorf("the plain +3%% must cross +2%%: %v", crossed)
	}
	var buf bytes.Buffer
	if err := WriteComparisonJSON(&buf, c, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "significance") {
		t.Errorf("unjudged JSON carries significance:\n%s", buf.String())
	}
	// --alpha 1 with runs: nothing judged either.
	r := []*CompareFile{runsFile("a.json", "x", []float64{1, 2, 3, 4}), runsFile("b.json", "x", []float64{5, 6, 7, 8})}
	LabelCompareFiles(r)
	if NewComparison(r, CompareOptions{Alpha: 1}).Judged() {
		t.Error("--alpha 1 judged a change")
	}
}

func TestRowStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key    string
		metric string
		q      float64 // NaN = the mean
		ok     bool
	}{
		{"mean_ttft_ms", "ttft", math.NaN(), true},
		{"median_e2el_ms", "e2el", 0.5, true},
		{"p99_itl_ms", "itl", 0.99, true},
		{"p99.9_tpot_ms", "tpot", 0.999, true},
		{"std_ttft_ms", "", 0, false},
		{"p99_client_queue_time_ms", "", 0, false},
		{"request_throughput", "", 0, false},
	}
	for _, tt := range tests {
		m, q, ok := rowStat(tt.key)
		if ok != tt.ok || m != tt.metric || (ok && !(math.Abs(q-tt.q) < 1e-12 || math.IsNaN(q) && math.IsNaN(tt.q))) {
			t.Errorf("rowStat(%q) = %q, %v, %v; want %q, %v, %v", tt.key, m, q, ok, tt.metric, tt.q, tt.ok)
		}
	}
}

// TestComparisonGolden pins the judged table and JSON: two conformance
// results with per-request arrays (10 and 6 requests: nothing is
// significant but p99 ITL, +1450 %), and a crossed bound ignored as noise.
func TestComparisonGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := conformanceResult(t, dir, "basic_stream", "a.json", nil)
	b := conformanceResult(t, dir, "skewed_itl", "b.json", nil)
	var files []*CompareFile
	for _, p := range []string{a, b} {
		f, err := ReadCompareFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	LabelCompareFiles(files)
	c := NewComparison(files, CompareOptions{})
	var bounds []Bound
	for _, s := range []string{"mean_itl_ms>+10%", "p99_itl_ms>+1000%", "p99_e2el_ms>2000"} {
		bd, err := ParseBound(s)
		if err != nil {
			t.Fatal(err)
		}
		bounds = append(bounds, bd)
	}
	crossed, noise, err := c.CheckBounds(bounds)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteComparisonTable(&buf, c); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("--- noise\n")
	for _, n := range noise {
		buf.WriteString(n.Reason + "\n")
	}
	buf.WriteString("--- json\n")
	if err := WriteComparisonJSON(&buf, c, crossed); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(buf.String(), dir+"/", "")
	golden(t, "compare/two-judged.golden", []byte(got))
}

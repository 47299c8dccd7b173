package dataset

import (
	"math"
	"strings"
	"testing"
)

func TestParseRangeRatio(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want RangeRatio
		err  string
	}{
		{"", RangeRatio{}, ""},
		{"0.0", RangeRatio{}, ""},
		{"0.5", RangeRatio{0.5, 0.5}, ""},
		{`{"input": 0.3, "output": 0.5}`, RangeRatio{0.3, 0.5}, ""},
		{`{"output": 0, "input": 0.99}`, RangeRatio{0.99, 0}, ""},
		{"1.0", RangeRatio{}, "[0, 1)"},
		{"-0.1", RangeRatio{}, "[0, 1)"},
		{`{"input": 0.3}`, RangeRatio{}, "'input' and 'output'"},
		{`{"input": "a", "output": 0}`, RangeRatio{}, "neither a number"},
		{"[0.1]", RangeRatio{}, "neither a number"},
	} {
		got, err := ParseRangeRatio(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v %v, want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseLengthDist(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec string
		err  string // "" = valid
	}{
		{"fixed:512", ""},
		{"fixed:value=64", ""},
		{"uniform:min=10,max=20", ""},
		{"normal:mean=512,std=128,min=16,max=2048", ""},
		{"lognormal:mean=300,std=200", ""},
		{"lognormal:mu=5,sigma=0.5,max=4000", ""},
		{"gamma:k=2", "unknown kind"},
		{"normal:mean=512", "needs std"},
		{"normal:mean=512,std=-1", "std must be >= 0"},
		{"uniform:min=20,max=10", "min 20 > max 10"},
		{"uniform:min=1.5,max=10", "integer in"},
		{"normal:mean=1,std=1,p=3", "does not take \"p\""},
		{"normal:mean=x,std=1", "not a number"},
		{"lognormal:mean=10,sigma=1", "lognormal takes"},
		{"fixed", "needs value"},
		{"fixed:0", "integer in [1, 1048576]"},
		{"uniform:min=1,max=9999999", "integer in [1, 1048576]"},
		{"normal:mean=1,mean=2,std=1", "given twice"},
	} {
		_, err := ParseLengthDist(tc.spec)
		if tc.err == "" && err != nil {
			t.Errorf("%q: %v", tc.spec, err)
		}
		if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: error %v, want %q", tc.spec, err, tc.err)
		}
	}
}

// TestLengthDistSample checks the draws' moments and bounds, so a wrong
// formula (say, lognormal fed the length's mean as mu) fails.
func TestLengthDistSample(t *testing.T) {
	t.Parallel()
	const n = 20000
	for _, tc := range []struct {
		spec                 string
		mean, std, tolerance float64
		min, max             int
	}{
		{"fixed:77", 77, 0, 0, 77, 77},
		{"uniform:min=10,max=30", 20, math.Sqrt((21*21 - 1) / 12.0), 0.03, 10, 30},
		{"normal:mean=512,std=128,min=16,max=2048", 512, 128, 0.03, 16, 2048},
		{"lognormal:mean=300,std=150", 300, 150, 0.04, 1, maxLength},
	} {
		d, err := ParseLengthDist(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		xs := d.Sample(42, 0, n)
		sum, sq := 0.0, 0.0
		for _, x := range xs {
			if x < tc.min || x > tc.max {
				t.Fatalf("%s: %d outside [%d, %d]", tc.spec, x, tc.min, tc.max)
			}
			sum += float64(x)
		}
		mean := sum / n
		for _, x := range xs {
			sq += (float64(x) - mean) * (float64(x) - mean)
		}
		std := math.Sqrt(sq / n)
		if math.Abs(mean-tc.mean) > tc.tolerance*tc.mean+0.5 || math.Abs(std-tc.std) > tc.tolerance*tc.std*3+0.5 {
			t.Errorf("%s: mean %.1f std %.1f, want about %.1f and %.1f", tc.spec, mean, std, tc.mean, tc.std)
		}
		again := d.Sample(42, 0, n)
		for i := range xs {
			if xs[i] != again[i] {
				t.Fatalf("%s: same seed gave different draws", tc.spec)
			}
		}
	}
}

func TestLengthDistsInLoad(t *testing.T) {
	t.Parallel()
	tok := realTokenizer(t, "gpt2")
	cfg := Config{Seed: 5, NumPrompts: 30, InputLenDist: "uniform:min=20,max=60", OutputLenDist: "fixed:9"}
	reqs, _, err := Load(t.Context(), cfg, tok)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int]bool{}
	for i, r := range reqs {
		if r.PromptLen < 20 || r.PromptLen > 60 || r.OutputLen != 9 {
			t.Errorf("request %d: prompt_len %d output_len %d", i, r.PromptLen, r.OutputLen)
		}
		if got := len(tok.Encode(r.Prompt, false)); got != r.PromptLen {
			t.Errorf("request %d re-encodes to %d, prompt_len %d", i, got, r.PromptLen)
		}
		distinct[r.PromptLen] = true
	}
	if len(distinct) < 10 {
		t.Errorf("only %d distinct prompt lengths from uniform:20..60", len(distinct))
	}
	// The output distribution applies to file datasets too.
	reqs, _, err = Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, NumPrompts: 5, OutputLenDist: "uniform:min=100,max=100"}, tok)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		if r.OutputLen != 100 {
			t.Errorf("sharegpt output_len %d, want 100 from --output-len-dist", r.OutputLen)
		}
	}
	_, _, err = Load(t.Context(), Config{Name: ShareGPT, Path: sampleShareGPTPath, InputLenDist: "fixed:5"}, tok)
	if err == nil || !strings.Contains(err.Error(), "random only") {
		t.Errorf("input dist on sharegpt: %v", err)
	}
}

func TestOverrides(t *testing.T) {
	t.Parallel()
	tok := idTok{vocab: 1000, special: []int{0}}
	reqs, _, err := Load(t.Context(), Config{NumPrompts: 2, InputLen: 12, OutputLen: 3, RandomInputLen: 500, RandomOutputLen: 90}, tok)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].PromptLen != 12 || reqs[0].OutputLen != 3 {
		t.Errorf("--input-len/--output-len should win: %+v", reqs[0])
	}
}

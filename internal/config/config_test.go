package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSchema is a small schema with one key of each shape.
var testSchema = Schema{
	Keys: map[string]Key{
		"num_prompts":     {},
		"request_rate":    {},
		"max_concurrency": {},
		"save_results":    {Bool: true},
		"percentiles":     {Join: ","},
		"goodput":         {Many: true, Fields: true, PairSep: ":"},
		"header":          {Many: true, PairSep: "="},
		"lora_modules":    {Many: true, Fields: true},
	},
	Renamed: map[string]string{"metric_percentiles": "percentiles"},
}

func TestParseValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		want       []Setting
		coursesDir string
	}{
		{name: "empty file is all defaults", yaml: ""},
		{name: "comments only", yaml: "# nothing\n"},
		{name: "empty benchmark section", yaml: "benchmark:\n"},
		{name: "scalars keep their text", yaml: "benchmark:\n  num_prompts: 20\n  request_rate: \"inf\"\n",
			want: []Setting{{Key: "num_prompts", Values: []string{"20"}, Pos: Pos{"c.yaml", 2}},
				{Key: "request_rate", Values: []string{"inf"}, Pos: Pos{"c.yaml", 3}}}},
		{name: "YAML .inf is inf", yaml: "benchmark:\n  request_rate: .inf\n",
			want: []Setting{{Key: "request_rate", Values: []string{"inf"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "bool is lower-cased", yaml: "benchmark:\n  save_results: True\n",
			want: []Setting{{Key: "save_results", Values: []string{"true"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "null keeps run's default", yaml: "benchmark:\n  max_concurrency: null\n  num_prompts:\n",
			want: []Setting{{Key: "max_concurrency", Null: true, Pos: Pos{"c.yaml", 2}},
				{Key: "num_prompts", Null: true, Pos: Pos{"c.yaml", 3}}}},
		{name: "list joined for percentiles", yaml: "benchmark:\n  percentiles: [50, 95, 99.9]\n",
			want: []Setting{{Key: "percentiles", Values: []string{"50,95,99.9"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "string percentiles as written", yaml: "benchmark:\n  percentiles: \"50,95,99\"\n",
			want: []Setting{{Key: "percentiles", Values: []string{"50,95,99"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "goodput as vLLM's space-separated string", yaml: "benchmark:\n  goodput: ttft:200 tpot:50\n",
			want: []Setting{{Key: "goodput", Values: []string{"ttft:200", "tpot:50"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "goodput as a mapping, in file order", yaml: "benchmark:\n  goodput:\n    tpot: 50\n    ttft: 200\n",
			want: []Setting{{Key: "goodput", Values: []string{"tpot:50", "ttft:200"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "goodput as a list", yaml: "benchmark:\n  goodput: [\"ttft:200\", \"e2el:1000\"]\n",
			want: []Setting{{Key: "goodput", Values: []string{"ttft:200", "e2el:1000"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "header value keeps its spaces", yaml: "benchmark:\n  header:\n    Authorization: Bearer abc def\n",
			want: []Setting{{Key: "header", Values: []string{"Authorization=Bearer abc def"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "single header string is one value", yaml: "benchmark:\n  header: \"X-A=b c\"\n",
			want: []Setting{{Key: "header", Values: []string{"X-A=b c"}, Pos: Pos{"c.yaml", 2}}}},
		{name: "empty list clears", yaml: "benchmark:\n  lora_modules: []\n",
			want: []Setting{{Key: "lora_modules", Pos: Pos{"c.yaml", 2}}}},
		{name: "courses_dir template", yaml: "courses_dir: projects/{course}/deploy\n", coursesDir: "projects/{course}/deploy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("c.yaml", []byte(tc.yaml), testSchema)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.Benchmark); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			want := DefaultCoursesDir
			if tc.coursesDir != "" {
				want = tc.coursesDir
			}
			if f.CoursesDir != want {
				t.Errorf("CoursesDir = %q, want %q", f.CoursesDir, want)
			}
		})
	}
}

func TestParseAliasInBenchmark(t *testing.T) {
	t.Parallel()
	y := "benchmark:\n  num_prompts: &n 7\n  max_concurrency: *n\n"
	f, err := Parse("c.yaml", []byte(y), testSchema)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := f.Lookup("max_concurrency")
	if !ok || len(s.Values) != 1 || s.Values[0] != "7" {
		t.Fatalf("max_concurrency = %+v, want 7 through the alias", s)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown benchmark key with a suggestion", "benchmark:\n  num_prompts: 5\n  num_promts: 5\n",
			"c.yaml:3: unknown key benchmark.num_promts (did you mean num_prompts?)"},
		{"kebab spelling points at snake_case", "benchmark:\n  max-concurrency: 5\n",
			"c.yaml:2: unknown key benchmark.max-concurrency (did you mean max_concurrency?)"},
		{"unknown key far from any", "benchmark:\n  colour: blue\n",
			"c.yaml:2: unknown key benchmark.colour"},
		{"renamed key says what to write", "benchmark:\n  metric_percentiles: 99\n",
			"c.yaml:2: unknown key benchmark.metric_percentiles: write percentiles"},
		{"unknown top-level key", "benchmarks:\n  num_prompts: 5\n",
			`c.yaml:1: unknown key "benchmarks" (did you mean benchmark?)`},
		{"duplicate key", "benchmark:\n  num_prompts: 5\n  num_prompts: 6\n",
			"c.yaml:3: benchmark.num_prompts is already set on line 2"},
		{"list for a single value", "benchmark:\n  num_prompts: [1, 2]\n",
			"c.yaml:2: benchmark.num_prompts: want a single value, got a list"},
		{"mapping for a single value", "benchmark:\n  num_prompts: {a: 1}\n",
			"c.yaml:2: benchmark.num_prompts: want a single value, got a mapping"},
		{"bool must be a YAML boolean", "benchmark:\n  save_results: yes\n",
			`c.yaml:2: benchmark.save_results: want true or false, got "yes"`},
		{"quoted bool is a string", "benchmark:\n  save_results: \"true\"\n",
			`c.yaml:2: benchmark.save_results: want true or false, got "true"`},
		{"nested list item", "benchmark:\n  goodput:\n    - [a]\n",
			"c.yaml:3: benchmark.goodput: list items must be plain values, got a list"},
		{"mapping value not plain", "benchmark:\n  goodput:\n    ttft: [1]\n",
			"c.yaml:3: benchmark.goodput.ttft: want a plain value, got a list"},
		{"NaN refused", "benchmark:\n  request_rate: .nan\n",
			"c.yaml:2: benchmark.request_rate: NaN is not a usable value"},
		{"benchmark must be a mapping", "benchmark: 5\n",
			`c.yaml:1: benchmark: want a mapping of settings, got "5"`},
		{"top level must be a mapping", "- a\n",
			"c.yaml:1: want a mapping with a benchmark: section, got a list"},
		{"YAML syntax error has a line", "benchmark:\n  num_prompts: 5\n bad: [\n",
			"c.yaml:2: did not find expected key"},
		{"tab indentation", "benchmark:\n\tnum_prompts: 5\n",
			"c.yaml:2: "},
		{"two documents", "benchmark:\n---\nbenchmark:\n",
			"c.yaml:2: a second YAML document; config.yaml holds one"},
		{"empty courses_dir", "courses_dir: \"\"\n",
			`c.yaml:1: courses_dir: want a folder such as "courses/{course}"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("c.yaml", []byte(tc.yaml), testSchema)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q\nwant prefix %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "proj", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("benchmark:\n  num_prompts: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if f.Dir != filepath.Dir(path) || f.Path != path {
		t.Errorf("Dir, Path = %q, %q", f.Dir, f.Path)
	}
	if s, _ := f.Lookup("num_prompts"); s.Pos.String() != path+":2" {
		t.Errorf("Pos = %s, want %s:2", s.Pos, path)
	}
	_, err = Load(filepath.Join(dir, "nope.yaml"), testSchema)
	if err == nil || !strings.Contains(err.Error(), "nope.yaml not found") {
		t.Errorf("missing file: %v", err)
	}
}

// TestDefaults pins the built-in defaults the issue and DESIGN.md name.
func TestDefaults(t *testing.T) {
	t.Parallel()
	got := map[string]string{}
	for _, d := range Defaults {
		got[d.Key] = d.Value
	}
	want := map[string]string{
		"num_prompts": "20", "max_concurrency": "4", "request_rate": "inf", "input_len": "256",
		"output_len": "128", "num_warmups": "2", "percentiles": "50,95,99", "save_results": "true",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Defaults (-want +got):\n%s", diff)
	}
}

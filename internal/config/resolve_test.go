package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testSpecs is a small run command: each flag's name, kind and value
// after an empty command line.
var testSpecs = []struct{ name, kind, def string }{
	{"backend", "", "openai"}, {"model", "", ""}, {"endpoint-name", "", ""}, {"region", "", ""},
	{"num-warmups", "int", "0"}, {"num-prompts", "int", "1000"}, {"input-len", "int", "0"},
	{"random-input-len", "int", "1024"}, {"output-len", "int", "0"}, {"request-rate", "", "inf"},
	{"max-concurrency", "int", ""}, {"users", "int", "0"},
	{"metric-percentiles", "", "99"}, {"goodput", "list", ""}, {"header", "list", ""},
	{"save-result", "bool", "false"}, {"save-detailed", "bool", "false"},
	{"result-dir", "", ""}, {"result-filename", "", ""}, {"label", "", ""},
}

func testKind(name string) string {
	for _, s := range testSpecs {
		if s.name == name {
			return s.kind
		}
	}
	return "none"
}

// testFlags describes testSpecs with given (name: values) set on the
// command line.
func testFlags(given map[string][]string) []Flag {
	var fs []Flag
	for _, s := range testSpecs {
		f := Flag{Name: s.name, List: s.kind == "list", Bool: s.kind == "bool", Nargs: Nargs[s.name], IsDefault: true}
		if !f.List {
			f.Values = []string{s.def}
		}
		if vs, ok := given[s.name]; ok {
			f.Values, f.Given, f.IsDefault = vs, true, false
		}
		fs = append(fs, f)
	}
	return fs
}

// testCheck parses as testSpecs' flags would: integers (printed back
// without spaces), booleans, lists as given, anything else as text.
func testCheck(name string, values []string) ([]string, error) {
	kind := testKind(name)
	switch {
	case kind == "none":
		return nil, fmt.Errorf("no flag --%s", name)
	case kind == "list":
		return values, nil
	case len(values) != 1:
		return nil, fmt.Errorf("want one value, got %d", len(values))
	case kind == "int":
		n, err := strconv.Atoi(strings.TrimSpace(values[0]))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", values[0])
		}
		return []string{strconv.Itoa(n)}, nil
	case kind == "bool":
		b, err := strconv.ParseBool(values[0])
		if err != nil {
			return nil, err
		}
		return []string{strconv.FormatBool(b)}, nil
	}
	return values, nil
}

func resolveSchema() Schema {
	s := Schema{Keys: map[string]Key{}, Renamed: Renamed}
	for _, sp := range testSpecs {
		s.Keys[KeyOfFlag(sp.name)] = KeyOf(sp.name, sp.kind == "bool", sp.kind == "list")
	}
	return s
}

// dashArgs turns "name=value" pairs into the entries after "--".
func dashArgs(pairs ...string) []Entry {
	var es []Entry
	for _, p := range pairs {
		n, v, _ := strings.Cut(p, "=")
		es = append(es, Entry{Name: n, Values: []string{v}})
	}
	return es
}

type resolveCase struct {
	name     string
	file     string // config.yaml's benchmark: section, "" = no file
	state    string // the course's state.json, "" = no --course, "-" = none written
	given    map[string][]string
	dash     []Entry
	skip     string // a flag the command leaves to run
	without  string // a flag of the file's schema the command lacks
	loop     string // the command's own closed loop
	want     string // the printed command after "llmbench run"; $C is the course folder
	notes    []string
	err      string
	wantSrcs map[string]Source
}

func TestResolve(t *testing.T) {
	t.Parallel()
	defaults := ` \
  --num-warmups 2 \
  --num-prompts 20 \
  --input-len 256 \
  --output-len 128 \
  --request-rate inf \
  --max-concurrency 4 \
  --metric-percentiles 50,95,99 \
  --save-result \
  --save-detailed \
  --result-dir `
	for _, tc := range []resolveCase{
		{name: "no configuration: vLLM's defaults and the flags", given: map[string][]string{"num-prompts": {"7"}},
			want: " \\\n  --num-prompts 7", wantSrcs: map[string]Source{"num-prompts": SourceFlag}},
		{name: "an empty file brings the built-in defaults", file: "{}", want: defaults + "bench_results",
			wantSrcs: map[string]Source{"num-prompts": SourceDefault, "result-dir": SourceCourse}},
		{name: "file over defaults, flags over file, -- over flags",
			file:     "num_prompts: 50\nmax_concurrency: 8\nmodel: m",
			given:    map[string][]string{"num-prompts": {"7"}, "max-concurrency": {"16"}},
			dash:     dashArgs("max-concurrency=32", "max-concurrency=33"),
			want:     " \\\n  --model m \\\n  --num-warmups 2 \\\n  --num-prompts 7 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --max-concurrency 33 \\\n  --metric-percentiles 50,95,99 \\\n  --save-result \\\n  --save-detailed \\\n  --result-dir bench_results",
			wantSrcs: map[string]Source{"model": SourceFile, "num-prompts": SourceFlag, "max-concurrency": SourceDash, "num-warmups": SourceDefault}},
		{name: "null keeps run's own default", file: "max_concurrency: null\nsave_results: null\nnum_warmups: ~",
			want: " \\\n  --num-prompts 20 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --metric-percentiles 50,95,99"},
		{name: "a value is printed as its flag prints it", file: "num_prompts: ' 9'\nsave_results: false",
			want: " \\\n  --num-warmups 2 \\\n  --num-prompts 9 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --max-concurrency 4 \\\n  --metric-percentiles 50,95,99 \\\n  --save-result=false"},
		{name: "lists: -- replaces the file's and the flags', nargs printed vLLM's way",
			file: "goodput: {ttft: 300}\nsave_results: false", given: map[string][]string{"goodput": {"e2el:1000"}},
			dash: dashArgs("goodput=ttft:200", "goodput=tpot:50"),
			want: " \\\n  --num-warmups 2 \\\n  --num-prompts 20 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --max-concurrency 4 \\\n  --metric-percentiles 50,95,99 \\\n  --goodput ttft:200 tpot:50 \\\n  --save-result=false"},
		{name: "a specific length above drops the generic one", file: "save_results: false", dash: dashArgs("random-input-len=64"),
			want: " \\\n  --num-warmups 2 \\\n  --num-prompts 20 \\\n  --random-input-len 64 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --max-concurrency 4 \\\n  --metric-percentiles 50,95,99 \\\n  --save-result=false"},
		{name: "course: endpoint, region, backend, results in its data folder", state: `{"endpoint_name": "ep", "region": "eu-west-1"}`,
			want:     " \\\n  --backend sagemaker \\\n  --endpoint-name ep \\\n  --region eu-west-1" + strings.Replace(defaults, "--num-warmups", "--num-warmups", 1) + "$C/data",
			notes:    []string{"Course c: endpoint ep in eu-west-1 (from $C/data/state.json)"},
			wantSrcs: map[string]Source{"backend": SourceCourse, "endpoint-name": SourceCourse, "result-dir": SourceCourse}},
		{name: "course beats the file's endpoint, a given region stays, --model brings the label",
			file: "endpoint_name: from-file\nsave_results: true", state: `{"endpoint_name": "ep", "region": "eu-west-1"}`,
			given: map[string][]string{"region": {"us-east-1"}, "model": {"org/m"}},
			want:  " \\\n  --backend sagemaker \\\n  --model org/m \\\n  --endpoint-name ep \\\n  --region us-east-1" + defaults + "$C/data \\\n  --label sagemaker-ep",
			notes: []string{"Course c: endpoint ep (from $C/data/state.json)"}},
		{name: "a given endpoint needs no state file", state: "-", given: map[string][]string{"endpoint-name": {"mine"}},
			want: " \\\n  --backend sagemaker \\\n  --endpoint-name mine" + defaults + "$C/data"},
		{name: "another backend uses the course for results only", state: "-", given: map[string][]string{"backend": {"openai-chat"}},
			want: " \\\n  --backend openai-chat" + defaults + "$C/data"},
		{name: "an endpoint name alone makes the backend sagemaker", given: map[string][]string{"endpoint-name": {"x"}},
			want: " \\\n  --backend sagemaker \\\n  --endpoint-name x"},
		{name: "closed loop: the file's cap is left out, with a note", file: "max_concurrency: 4\nusers: 16\nsave_results: false",
			want:     " \\\n  --num-warmups 2 \\\n  --num-prompts 20 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --users 16 \\\n  --metric-percentiles 50,95,99 \\\n  --save-result=false",
			notes:    []string{"Note: max_concurrency 4 from the config file does not apply to --users 16: a closed loop keeps its own requests in flight."},
			wantSrcs: map[string]Source{"max-concurrency": SourceNone, "users": SourceFile}},
		{name: "closed loop: the built-in default's cap too", state: "-", given: map[string][]string{"users": {"8"}, "endpoint-name": {"e"}},
			want:  " \\\n  --backend sagemaker \\\n  --endpoint-name e \\\n  --num-warmups 2 \\\n  --num-prompts 20 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --users 8 \\\n  --metric-percentiles 50,95,99 \\\n  --save-result \\\n  --save-detailed \\\n  --result-dir $C/data",
			notes: []string{"Note: max_concurrency 4 from the configuration's built-in default does not apply to --users 8: a closed loop keeps its own requests in flight."}},
		{name: "closed loop: a cap the user gave stays (the command refuses it)", given: map[string][]string{"users": {"8"}, "max-concurrency": {"2"}},
			want: " \\\n  --max-concurrency 2 \\\n  --users 8"},
		{name: "the command's own loop, and keys it leaves to run", file: "users: 5\nmax_concurrency: 3\nsave_results: false", skip: "users", loop: "sweep --concurrency",
			want:  " \\\n  --num-warmups 2 \\\n  --num-prompts 20 \\\n  --input-len 256 \\\n  --output-len 128 \\\n  --request-rate inf \\\n  --metric-percentiles 50,95,99 \\\n  --save-result=false",
			notes: []string{"Note: max_concurrency 3 from the config file does not apply to sweep --concurrency: a closed loop keeps its own requests in flight.", "Note: users in config.yaml: llmbench run settings; llmbench run leaves them out."}},
		{name: "an invalid file value names file and line", file: "model: m\nnum_prompts: lots", err: `config.yaml:3: benchmark.num_prompts: invalid value "lots": "lots" is not an integer`},
		{name: "a key of no flag of the command", file: "model: m\nregion: r", without: "region", err: "config.yaml:3: benchmark.region: no such run flag --region"},
		{name: "an invalid value after --", dash: dashArgs("num-prompts=5", "num-prompts=x"), err: `after --: invalid argument "x" for --num-prompts: "x" is not an integer`},
		{name: "a course without its state file", state: "-", err: `course "c" has no state file $C/data/state.json`},
	} {
		t.Run(tc.name, func(t *testing.T) { testResolve(t, tc) })
	}
}

func testResolve(t *testing.T, tc resolveCase) {
	in := Input{Command: "run", Flags: testFlags(tc.given), Dash: tc.dash, LoopFlag: "users", Loop: tc.loop, Check: testCheck}
	in.Flags = slices.DeleteFunc(in.Flags, func(f Flag) bool { return f.Name == tc.without })
	if tc.skip != "" {
		in.Skip = map[string]bool{tc.skip: true}
	}
	if tc.file != "" {
		f, err := Parse(DefaultFile, []byte("benchmark:\n  "+strings.ReplaceAll(tc.file, "\n", "\n  ")+"\n"), resolveSchema())
		if err != nil {
			t.Fatal(err)
		}
		in.File = f
	}
	dir := t.TempDir()
	if tc.state != "" {
		in.Course = &Course{Name: "c", Dir: dir}
		if tc.state != "-" {
			writeFile(t, filepath.Join(dir, "data", "state.json"), tc.state)
		}
	}
	res, err := Resolve(in)
	fix := func(s string) string { return strings.ReplaceAll(s, dir, "$C") }
	if tc.err != "" || err != nil {
		if err == nil || !strings.Contains(fix(err.Error()), tc.err) {
			t.Fatalf("error %v, want %q", err, tc.err)
		}
		return
	}
	var b strings.Builder
	WriteCommand(&b, "llmbench run", CommandOf(applied(in.Flags, res), res.Sources))
	if got := fix(strings.TrimSuffix(strings.TrimPrefix(b.String(), "llmbench run"), "\n")); got != tc.want {
		t.Errorf("command:\n%s\nwant:\n%s", got, tc.want)
	}
	var notes []string
	for _, n := range res.Notes {
		notes = append(notes, fix(n))
	}
	if !reflect.DeepEqual(notes, tc.notes) {
		t.Errorf("notes %q, want %q", notes, tc.notes)
	}
	for name, want := range tc.wantSrcs {
		if got := res.Sources[name]; got != want {
			t.Errorf("source of --%s is %v, want %v", name, got, want)
		}
	}
}

// TestResolveAssign: one assignment per flag, in the order the values
// take effect, with the source that decides whether it counts as the
// user's.
func TestResolveAssign(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "data", "state.json"), `{"endpoint_name": "ep"}`)
	f, err := Parse(DefaultFile, []byte("benchmark:\n  endpoint_name: from-file\n  save_results: false\n  model: m\n"), resolveSchema())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(Input{
		Flags: testFlags(map[string][]string{"num-prompts": {"3"}}), File: f, Course: &Course{Name: "c", Dir: dir},
		Dash: dashArgs("users=1", "header=a=1", "num-warmups=0", "header=b=2", "users=2"), Check: testCheck,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Assignment{
		{"max-concurrency", []string{"4"}, SourceDefault}, {"request-rate", []string{"inf"}, SourceDefault},
		{"input-len", []string{"256"}, SourceDefault}, {"output-len", []string{"128"}, SourceDefault},
		{"metric-percentiles", []string{"50,95,99"}, SourceDefault},
		{"save-result", []string{"false"}, SourceFile}, {"model", []string{"m"}, SourceFile},
		{"num-warmups", []string{"0"}, SourceDash}, {"users", []string{"2"}, SourceDash},
		{"header", []string{"a=1", "b=2"}, SourceDash},
		{"endpoint-name", []string{"ep"}, SourceCourse}, {"backend", []string{"sagemaker"}, SourceCourse},
	}
	if !reflect.DeepEqual(res.Assign, want) {
		t.Errorf("assign\n%v\nwant\n%v", res.Assign, want)
	}
}

// applied describes flags once res is written on them, as flagset.Apply
// and Describe would.
func applied(flags []Flag, res *Resolved) []Flag {
	out := slices.Clone(flags)
	for _, a := range res.Assign {
		for i := range out {
			if out[i].Name == a.Name {
				out[i].Values, _ = testCheck(a.Name, a.Values)
				out[i].IsDefault = false
			}
		}
	}
	return out
}

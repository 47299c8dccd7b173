package flagset

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
)

var skip = map[string]bool{"course": true, "help": true}

// testFlags is a small command: scalars, bools, a list (vLLM's nargs
// --goodput) and a flag that steers the configuration (skipped), declared
// out of alphabetical order.
type testFlags struct {
	num      int
	model    string
	stream   bool
	goodput  []string
	pct      string
	course   string
	selfTime bool
}

func newTestFlags() (*pflag.FlagSet, *testFlags) {
	v := &testFlags{}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetNormalizeFunc(Normalize)
	fs.IntVarP(&v.num, "num-prompts", "n", 1000, "prompts")
	fs.StringVar(&v.model, "model", "", "model")
	fs.BoolVar(&v.stream, "stream", false, "stream")
	fs.StringArrayVar(&v.goodput, "goodput", nil, "SLOs")
	fs.StringVar(&v.pct, "metric-percentiles", "99", "percentiles")
	fs.StringVar(&v.course, "course", "", "course")
	fs.BoolVar(&v.selfTime, "self-timed", false, "self-timed")
	return fs, v
}

func TestSchema(t *testing.T) {
	t.Parallel()
	fs, _ := newTestFlags()
	got := Schema(fs, skip)
	want := map[string]config.Key{
		"num_prompts": {}, "model": {}, "stream": {Bool: true}, "goodput": {Many: true, PairSep: ":", Fields: true},
		"percentiles": {Join: ","}, "self_timed": {Bool: true},
	}
	if !reflect.DeepEqual(got.Keys, want) || got.Renamed["metric_percentiles"] != "percentiles" {
		t.Errorf("schema %+v", got)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	fs, _ := newTestFlags()
	if err := fs.Parse([]string{"--model", "m", "--goodput", "ttft:1", "--goodput", "tpot:2", "--num-prompts", "1000"}); err != nil {
		t.Fatal(err)
	}
	got := Describe(fs, skip)
	want := []config.Flag{
		{Name: "num-prompts", Values: []string{"1000"}, Given: true, IsDefault: true},
		{Name: "model", Values: []string{"m"}, Given: true},
		{Name: "stream", Bool: true, Values: []string{"false"}, IsDefault: true},
		{Name: "goodput", List: true, Nargs: true, Values: []string{"ttft:1", "tpot:2"}, Given: true},
		{Name: "metric-percentiles", Values: []string{"99"}, IsDefault: true},
		{Name: "self-timed", Bool: true, Values: []string{"false"}, IsDefault: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Describe\n%+v\nwant\n%+v", got, want)
	}
	if !fs.SortFlags {
		t.Error("Describe left the flag set unsorted")
	}
}

func TestParseDash(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []config.Entry
		err  string
	}{
		{[]string{"--num_prompts", "5", "-n", "6", "--stream", "--goodput", "a", "--goodput=b"}, []config.Entry{
			{Name: "num-prompts", Values: []string{"5"}}, {Name: "num-prompts", Values: []string{"6"}},
			{Name: "stream", Values: []string{"true"}}, {Name: "goodput", Values: []string{"a"}}, {Name: "goodput", Values: []string{"b"}},
		}, ""},
		{nil, nil, ""},
		{[]string{"--no-such"}, nil, "after --: unknown flag: --no-such"},
		{[]string{"--course", "x"}, nil, "after --: --course is not a benchmark flag; put it before --"},
		{[]string{"--help"}, nil, "after --: only run's benchmark flags; put --help before --"},
		{[]string{"--model", "m", "stray"}, nil, `after --: unexpected argument "stray" (only run flags may follow --)`},
		{[]string{"--model"}, nil, "after --: flag needs an argument: --model"},
	} {
		fs, v := newTestFlags()
		got, err := ParseDash(fs, skip, tc.args)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
		if v.num != 1000 || v.stream || fs.Changed("num-prompts") {
			t.Errorf("%q: ParseDash wrote the flags", tc.args)
		}
	}
}

func TestChecker(t *testing.T) {
	t.Parallel()
	live, v := newTestFlags()
	scratch, _ := newTestFlags()
	check := Checker(scratch)
	for _, tc := range []struct {
		name   string
		values []string
		want   []string
		err    string
	}{
		{"num-prompts", []string{"0x10"}, []string{"16"}, ""},
		{"stream", []string{"1"}, []string{"true"}, ""},
		{"goodput", []string{"a", "b"}, []string{"a", "b"}, ""},
		{"goodput", nil, []string{}, ""},
		{"num-prompts", []string{"lots"}, nil, "must be an integer"},
		{"model", []string{"a", "b"}, nil, "want one value, got 2"},
		{"nope", []string{"1"}, nil, "no flag --nope"},
	} {
		got, err := check(tc.name, tc.values)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want %q", tc.name, tc.values, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: %q, %v; want %q", tc.name, tc.values, got, err, tc.want)
		}
	}
	if v.num != 1000 || v.stream || v.goodput != nil || live.Changed("num-prompts") {
		t.Error("Checker wrote the live flags")
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	fs, v := newTestFlags()
	if err := fs.Parse([]string{"--goodput", "x"}); err != nil {
		t.Fatal(err)
	}
	err := Apply(fs, []config.Assignment{
		{Name: "num-prompts", Values: []string{"20"}, Source: config.SourceDefault},
		{Name: "model", Values: []string{"m"}, Source: config.SourceFile},
		{Name: "goodput", Values: []string{"a", "b"}, Source: config.SourceDash},
		{Name: "metric-percentiles", Values: []string{"50"}, Source: config.SourceCourse},
	})
	if err != nil {
		t.Fatal(err)
	}
	if v.num != 20 || v.model != "m" || !slices.Equal(v.goodput, []string{"a", "b"}) || v.pct != "50" {
		t.Errorf("values %+v", v)
	}
	for name, want := range map[string]bool{"num-prompts": false, "model": true, "goodput": true, "metric-percentiles": false} {
		if fs.Changed(name) != want {
			t.Errorf("--%s Changed %v, want %v", name, !want, want)
		}
	}
	if err := Apply(fs, []config.Assignment{{Name: "model", Values: []string{"a", "b"}}}); err == nil || err.Error() != "--model: want one value, got 2" {
		t.Errorf("two values for a scalar: %v", err)
	}
}

func TestSetDefault(t *testing.T) {
	t.Parallel()
	fs, v := newTestFlags()
	fs.Lookup("num-prompts").Usage = "prompts (default 1000)"
	fs.Lookup("metric-percentiles").Usage = "percentiles (default 99 (p99)) to report"
	SetDefault(fs, "num-prompts", "20")
	SetDefault(fs, "metric-percentiles", "50")
	fl := fs.Lookup("num-prompts")
	if v.num != 20 || fl.DefValue != "20" || fl.Changed || fl.Usage != "prompts" {
		t.Errorf("value %d, %+v", v.num, fl)
	}
	if fl := fs.Lookup("metric-percentiles"); fl.Usage != "percentiles to report" {
		t.Errorf("usage %q, want the nested default note gone", fl.Usage)
	}
}

func TestExpandNargs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"vLLM style several values", []string{"run", "--goodput", "ttft:200", "tpot:50", "--num-prompts", "5"},
			[]string{"run", "--goodput", "ttft:200", "--goodput", "tpot:50", "--num-prompts", "5"}},
		{"underscore spelling", []string{"--lora_modules", "a", "b"},
			[]string{"--lora_modules", "a", "--lora_modules", "b"}},
		{"single value untouched", []string{"--header", "x=1"}, []string{"--header", "x=1"}},
		{"equals form untouched", []string{"--goodput=ttft:1", "tpot:2"}, []string{"--goodput=ttft:1", "tpot:2"}},
		{"stops at double dash", []string{"--goodput", "ttft:1", "--", "tpot:2"},
			[]string{"--goodput", "ttft:1", "--", "tpot:2"}},
		{"other flags untouched", []string{"--model", "m", "x"}, []string{"--model", "m", "x"}},
	}
	for _, tt := range tests {
		if got := ExpandNargs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("%s: ExpandNargs(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// sideOf is one of two flags sharing one setting, as --self-timed and
// --no-self-timed do.
type sideOf struct {
	dst    *bool
	negate bool
}

func (s sideOf) String() string { return strconv.FormatBool(*s.dst != s.negate) }
func (s sideOf) Set(v string) error {
	b, err := strconv.ParseBool(v)
	*s.dst = b != s.negate
	return err
}
func (s sideOf) Type() string { return "bool" }

// TestResolveWritesOnce: the resolution is written on the live flags once,
// the scratch copy takes the checks, and the printed command shows what
// the flags hold, two flags sharing a setting included.
func TestResolveWritesOnce(t *testing.T) {
	t.Parallel()
	newFlags := func() (*pflag.FlagSet, *bool) {
		fs, _ := newTestFlags()
		shared := new(bool)
		fs.Var(sideOf{dst: shared}, "on", "")
		fs.Var(sideOf{dst: shared, negate: true}, "off", "")
		fs.Lookup("on").NoOptDefVal, fs.Lookup("off").NoOptDefVal = "true", "true"
		return fs, shared
	}
	live, shared := newFlags()
	scratch, _ := newFlags()
	if err := live.Parse([]string{"--on", "--model", "m"}); err != nil {
		t.Fatal(err)
	}
	dash, err := ParseDash(live, skip, []string{"--off", "-n", "0x20"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Resolve(live, scratch, skip, config.Input{Dash: dash})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	config.WriteCommand(&b, "x", config.CommandOf(Describe(live, skip), res.Sources))
	if want := "x \\\n  --num-prompts 32 \\\n  --model m \\\n  --on=false \\\n  --off\n"; b.String() != want || *shared {
		t.Errorf("command\n%s\nwant\n%s", b.String(), want)
	}
	if !live.Changed("num-prompts") || !live.Changed("off") || res.Sources["on"] != config.SourceFlag || res.Sources["off"] != config.SourceDash {
		t.Errorf("changed or sources wrong: %v", res.Sources)
	}
	if _, err := Resolve(live, scratch, skip, config.Input{Dash: []config.Entry{{Name: "num-prompts", Values: []string{"x"}}}}); err == nil ||
		!strings.HasPrefix(err.Error(), `after --: invalid argument "x" for --num-prompts: `) {
		t.Errorf("bad value after --: %v", err)
	}
}

// TestNormalize: vLLM's underscore spellings name the kebab-case flags.
func TestNormalize(t *testing.T) {
	t.Parallel()
	fs, v := newTestFlags()
	if err := fs.Parse([]string{"--num_prompts", "5", "--num-prompts", "6", "--self_timed"}); err != nil {
		t.Fatal(err)
	}
	if v.num != 6 || !v.selfTime {
		t.Errorf("num %d, self-time %v; want 6, true", v.num, v.selfTime)
	}
}

// TestFlagValues: every flag in name order with its printed value, a derived
// value in place of the flag's, and an early stop honoured.
func TestFlagValues(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.String("b", "2", "")
	fs.Int("a", 1, "")
	fs.String("c", "3", "")
	var got []string
	for name, value := range Values(fs, map[string]string{"c": "derived"}) {
		got = append(got, name+"="+value)
	}
	if want := []string{"a=1", "b=2", "c=derived"}; !slices.Equal(got, want) {
		t.Errorf("values %v, want %v", got, want)
	}
	for name := range Values(fs, nil) {
		if name != "a" {
			t.Errorf("after a break: %q", name)
		}
		break
	}
}

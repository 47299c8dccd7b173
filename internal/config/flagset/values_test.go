package flagset

import (
	"math"
	"testing"

	"github.com/spf13/pflag"
)

// TestValues: each value type parses, prints and names itself as the
// help and the resolution (Describe, Checker) read it; a value never
// given prints "" so that help shows no default.
func TestValues(t *testing.T) {
	t.Parallel()
	var (
		i          OptInt
		f          OptFloat
		inf        = FloatOrInf(math.Inf(1))
		tri        *bool
		triNegated *bool
	)
	type step struct{ in, want, err string }
	for _, tc := range []struct {
		name, typ, unset string
		v                pflag.Value
		steps            []step
	}{
		{"float|inf", "float|inf", "inf", &inf, []step{
			{"2.5", "2.5", ""}, {" inf ", "inf", ""}, {"-inf", "-Inf", ""}, {"1e3", "1000", ""},
			{"nan", "1000", `"nan" is not a number or inf`}, {"x", "1000", `"x" is not a number or inf`},
		}},
		{"optional int", "int", "", &i, []step{
			{"x", "", `"x" is not an integer`}, {" 7 ", "7", ""}, {"0", "0", ""}, {"1.5", "0", `"1.5" is not an integer`},
		}},
		{"optional float", "float", "", &f, []step{
			{"inf", "", `"inf" is not a finite number`}, {"0.25", "0.25", ""}, {"nan", "0.25", `"nan" is not a finite number`},
		}},
		{"--x", "bool", "", TriBool(&tri, false), []step{
			{"false", "false", ""}, {"true", "true", ""}, {"maybe", "true", `strconv.ParseBool: parsing "maybe": invalid syntax`},
		}},
		{"--no-x", "bool", "", TriBool(&triNegated, true), []step{{"true", "true", ""}, {"false", "false", ""}}},
	} {
		if got := tc.v.Type(); got != tc.typ {
			t.Errorf("%s: Type() = %q, want %q", tc.name, got, tc.typ)
		}
		if got := tc.v.String(); got != tc.unset {
			t.Errorf("%s: String() before Set = %q, want %q", tc.name, got, tc.unset)
		}
		for _, s := range tc.steps {
			err := tc.v.Set(s.in)
			if (err == nil) != (s.err == "") || err != nil && err.Error() != s.err {
				t.Errorf("%s: Set(%q) = %v, want error %q", tc.name, s.in, err, s.err)
			}
			if got := tc.v.String(); got != s.want {
				t.Errorf("%s: after Set(%q), String() = %q, want %q", tc.name, s.in, got, s.want)
			}
		}
	}
	if i.V != 0 || !i.Given || f.V != 0.25 || !f.Given {
		t.Errorf("optional values wrote %d %v, %g %v; want 0 true, 0.25 true", i.V, i.Given, f.V, f.Given)
	}
	// --no-x false is --x true: the pair shares one tri-state value.
	if tri == nil || !*tri || triNegated == nil || !*triNegated {
		t.Errorf("tri-states: %v, %v; want true, true", tri, triNegated)
	}
}

// TestTriBoolPair: the two sides of a pair bound to one value, the last
// given winning as in argparse; neither given leaves the caller's
// default (nil).
func TestTriBoolPair(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, tc := range []struct {
		args []string
		want *bool
	}{
		{nil, nil},
		{[]string{"--x"}, &yes},
		{[]string{"--no-x"}, &no},
		{[]string{"--x=false"}, &no},
		{[]string{"--no-x=false"}, &yes},
		{[]string{"--x", "--no-x"}, &no},
	} {
		var v *bool
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.Var(TriBool(&v, false), "x", "")
		fs.Lookup("x").NoOptDefVal = "true"
		fs.Var(TriBool(&v, true), "no-x", "")
		fs.Lookup("no-x").NoOptDefVal = "true"
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if (v == nil) != (tc.want == nil) || v != nil && *v != *tc.want {
			t.Errorf("%v: got %v, want %v", tc.args, v, tc.want)
		}
	}
}

// TestGiven: a flag's value counts only when given, even if given its
// default.
func TestGiven(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	a, b := fs.Int("a", 3, ""), fs.Int("b", 3, "")
	if err := fs.Parse([]string{"--a", "3"}); err != nil {
		t.Fatal(err)
	}
	if got := Given(fs, "a", a); got != a {
		t.Errorf("Given(a) = %v, want %v", got, a)
	}
	if got := Given(fs, "b", b); got != nil {
		t.Errorf("Given(b) = %v, want nil", got)
	}
}

// TestOptPtr: an optional flag's Ptr is nil until it is given, then a
// copy of its value (a caller holding it does not see later Sets).
func TestOptPtr(t *testing.T) {
	t.Parallel()
	var i OptInt
	var f OptFloat
	if i.Ptr() != nil || f.Ptr() != nil {
		t.Fatalf("unset: Ptr = %v, %v, want nil", i.Ptr(), f.Ptr())
	}
	if err := i.Set("0"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("0.5"); err != nil {
		t.Fatal(err)
	}
	ip, fp := i.Ptr(), f.Ptr()
	if ip == nil || *ip != 0 || fp == nil || *fp != 0.5 {
		t.Fatalf("given: Ptr = %v, %v, want 0 and 0.5", ip, fp)
	}
	i.V, f.V = 9, 9
	if *ip != 0 || *fp != 0.5 {
		t.Errorf("Ptr shares the flag's value: %d, %g after a later write", *ip, *fp)
	}
}

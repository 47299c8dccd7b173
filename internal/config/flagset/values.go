package flagset

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// The flag value types vLLM's argparse flags need and pflag lacks: a
// float that may be inf, a number whose absence matters (argparse's None)
// and one side of a --x / --no-x pair.

// FloatOrInf is a float flag that also accepts "inf" (vLLM's
// --request-rate and --burstiness).
type FloatOrInf float64

func (f *FloatOrInf) String() string {
	if math.IsInf(float64(*f), 1) {
		return "inf"
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 64)
}

func (f *FloatOrInf) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) {
		return fmt.Errorf("%q is not a number or inf", s)
	}
	*f = FloatOrInf(v)
	return nil
}

func (f *FloatOrInf) Type() string { return "float|inf" }

// OptInt is an integer flag whose absence matters (vLLM's None), such as
// --max-concurrency: Set writes V and sets Given; it prints "" while not
// given.
type OptInt struct {
	V     int
	Given bool
}

func (o *OptInt) String() string {
	if !o.Given {
		return ""
	}
	return strconv.Itoa(o.V)
}

func (o *OptInt) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	o.V, o.Given = v, true
	return nil
}

func (o *OptInt) Type() string { return "int" }

// Ptr is a copy of the value, nil when it was not given.
func (o *OptInt) Ptr() *int { return ptr(o.V, o.Given) }

// OptFloat is a finite float flag whose absence matters (sampling
// parameters are sent only when given), as OptInt.
type OptFloat struct {
	V     float64
	Given bool
}

func (o *OptFloat) String() string {
	if !o.Given {
		return ""
	}
	return strconv.FormatFloat(o.V, 'g', -1, 64)
}

func (o *OptFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	o.V, o.Given = v, true
	return nil
}

func (o *OptFloat) Type() string { return "float" }

// Ptr is a copy of the value, nil when it was not given.
func (o *OptFloat) Ptr() *float64 { return ptr(o.V, o.Given) }

// ptr is a copy of v, nil when not given.
func ptr[T any](v T, given bool) *T {
	if !given {
		return nil
	}
	return &v
}

// TriBool is one side of a --x / --no-x pair (argparse's
// BooleanOptionalAction, vLLM's --self-timed / --no-self-timed): either
// flag sets the shared tri-state *dst (nil = the caller's default), the
// negate side to the negation. Declare it with NoOptDefVal "true".
func TriBool(dst **bool, negate bool) pflag.Value { return triBool{dst: dst, negate: negate} }

type triBool struct {
	dst    **bool
	negate bool
}

func (f triBool) String() string {
	if *f.dst == nil {
		return ""
	}
	return strconv.FormatBool(**f.dst != f.negate)
}

func (f triBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	v = v != f.negate
	*f.dst = &v
	return nil
}

func (f triBool) Type() string { return "bool" }

// Given is v when the flag name on fs was given, else nil: a setting
// applied only over another's when the user asked for it.
func Given[T any](fs *pflag.FlagSet, name string, v *T) *T {
	if fs.Changed(name) {
		return v
	}
	return nil
}

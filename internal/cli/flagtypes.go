package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// floatOrInf is a float flag that also accepts "inf" (vLLM's
// --request-rate and --burstiness).
type floatOrInf float64

func (f *floatOrInf) String() string {
	if math.IsInf(float64(*f), 1) {
		return "inf"
	}
	return strconv.FormatFloat(float64(*f), 'g', -1, 64)
}

func (f *floatOrInf) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) {
		return fmt.Errorf("%q is not a number or inf", s)
	}
	*f = floatOrInf(v)
	return nil
}

func (f *floatOrInf) Type() string { return "float|inf" }

// optInt is an integer flag whose absence matters (vLLM's None), such as
// --max-concurrency.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string {
	if !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	o.v, o.set = v, true
	return nil
}

func (o *optInt) Type() string { return "int" }

// ptr returns nil when unset.
func (o *optInt) ptr() *int {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}

// optFloat is a float flag whose absence matters (sampling parameters are
// sent only when given).
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%q is not a finite number", s)
	}
	o.v, o.set = v, true
	return nil
}

func (o *optFloat) Type() string { return "float" }

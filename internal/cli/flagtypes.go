package cli

import (
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config/flagset"
)

// floatOrInf is a float flag that also accepts "inf" (flagset.FloatOrInf).
type floatOrInf = flagset.FloatOrInf

// optInt is an integer flag whose absence matters (vLLM's None), such as
// --max-concurrency; flag() is its pflag side (flagset.OptInt).
type optInt struct {
	v   int
	set bool
}

func (o *optInt) flag() pflag.Value { return flagset.OptInt(&o.v, &o.set) }

// ptr returns nil when unset.
func (o *optInt) ptr() *int {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}

// optFloat is a float flag whose absence matters (sampling parameters are
// sent only when given); flag() is its pflag side (flagset.OptFloat).
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) flag() pflag.Value { return flagset.OptFloat(&o.v, &o.set) }

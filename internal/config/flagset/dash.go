package flagset

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
)

// The flags after "--", parsed as the command's flags but only recorded:
// config.Resolve lays them over everything, once.

// recorder stands in for a flag while the arguments after "--" are
// parsed; it only notes the values.
type recorder struct {
	fl      *pflag.Flag
	entries *[]config.Entry
}

func (r *recorder) Set(s string) error {
	*r.entries = append(*r.entries, config.Entry{Name: r.fl.Name, Values: []string{s}})
	return nil
}

func (r *recorder) String() string { return "" }

func (r *recorder) Type() string { return r.fl.Value.Type() }

// ParseDash parses args, the arguments after "--", as flags of fs (those in
// skip refused): one entry per occurrence, in order. vLLM's nargs flags
// ("--goodput a b") must be expanded first (ExpandNargs).
func ParseDash(fs *pflag.FlagSet, skip map[string]bool, args []string) ([]config.Entry, error) {
	var entries []config.Entry
	rec := pflag.NewFlagSet("after --", pflag.ContinueOnError)
	rec.SetOutput(io.Discard)
	rec.Usage = func() {}
	rec.SetNormalizeFunc(fs.GetNormalizeFunc())
	fs.VisitAll(func(fl *pflag.Flag) {
		if skip[fl.Name] {
			return
		}
		r := rec.VarPF(&recorder{fl: fl, entries: &entries}, fl.Name, fl.Shorthand, fl.Usage)
		r.NoOptDefVal = fl.NoOptDefVal // bool flags take no value
	})
	if err := rec.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, errors.New("after --: only run's benchmark flags; put --help before --")
		}
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
			if n := string(fs.GetNormalizeFunc()(fs, name)); skip[n] {
				return nil, fmt.Errorf("after --: --%s is not a benchmark flag; put it before --", n)
			}
		}
		return nil, fmt.Errorf("after --: %v", err)
	}
	if rest := rec.Args(); len(rest) > 0 {
		return nil, fmt.Errorf("after --: unexpected argument %q (only run flags may follow --)", rest[0])
	}
	return entries, nil
}

// ExpandNargs rewrites "--goodput a b --x" into "--goodput a --goodput b
// --x" for vLLM's nargs flags (config.Nargs): pflag takes one value per
// occurrence. Values that start with "-" end the run, as in argparse; so
// does "--". Underscore spellings (--max_concurrency style) are
// recognised too.
func ExpandNargs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if !strings.HasPrefix(a, "--") || strings.Contains(a, "=") {
			continue
		}
		if !config.Nargs[string(Normalize(nil, strings.TrimPrefix(a, "--")))] {
			continue
		}
		// The first value belongs to the flag as written; each further value
		// gets the flag repeated in front of it.
		first := true
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			if !first {
				out = append(out, a)
			}
			out = append(out, args[i+1])
			first = false
			i++
		}
	}
	return out
}

// Normalize lets users type vLLM's underscore spellings
// (--max_concurrency) for kebab-case flags (pflag's normalize func).
func Normalize(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

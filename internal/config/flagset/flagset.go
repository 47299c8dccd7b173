// Package flagset joins the configuration's resolution (config.Resolve) to
// a command's pflag flags: it derives the benchmark: keys from the flags,
// describes them for the resolution, parses the flags after "--", checks
// values on a scratch copy of the flags, and writes a resolution on the
// live flags once; it also holds the flag value types vLLM's argparse
// flags need and pflag lacks (values.go). It decides no precedence
// (package config does) and knows no command: which flags steer the
// configuration itself is the caller's to say (skip).
package flagset

import (
	"fmt"
	"iter"
	"regexp"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
)

// Schema derives the benchmark: section's keys from the flags on fs (those
// in skip left out), so every setting has a key of the same (snake_case)
// name.
func Schema(fs *pflag.FlagSet, skip map[string]bool) config.Schema {
	s := config.Schema{Keys: map[string]config.Key{}, Renamed: config.Renamed}
	fs.VisitAll(func(fl *pflag.Flag) {
		if !skip[fl.Name] {
			s.Keys[config.KeyOfFlag(fl.Name)] = config.KeyOf(fl.Name, isBool(fl), isList(fl))
		}
	})
	return s
}

// Describe describes the flags on fs (those in skip left out) as they
// stand after the command line, in declaration order.
func Describe(fs *pflag.FlagSet, skip map[string]bool) []config.Flag {
	var out []config.Flag
	sorted := fs.SortFlags
	fs.SortFlags = false // declaration order groups related flags
	fs.VisitAll(func(fl *pflag.Flag) {
		if skip[fl.Name] {
			return
		}
		out = append(out, config.Flag{
			Name: fl.Name, List: isList(fl), Bool: isBool(fl), Nargs: config.Nargs[fl.Name],
			Values: valuesOf(fl), Given: fl.Changed, IsDefault: fl.Value.String() == fl.DefValue,
		})
	})
	fs.SortFlags = sorted
	return out
}

// Resolve completes in with fs's flags (those in skip left out) and a
// Check on scratch, a fresh copy of fs's flags, resolves it
// (config.Resolve) and writes the outcome on fs once (Apply). Its errors
// are the user's input's.
func Resolve(fs, scratch *pflag.FlagSet, skip map[string]bool, in config.Input) (*config.Resolved, error) {
	in.Flags, in.Check = Describe(fs, skip), Checker(scratch)
	res, err := config.Resolve(in)
	if err != nil {
		return nil, err
	}
	if err := Apply(fs, res.Assign); err != nil {
		panic("flagset: " + err.Error()) // checked on scratch: a programming error
	}
	return res, nil
}

// Checker returns a config.Input.Check that parses values on scratch, a
// fresh copy of the command's flags, so the live flags are written once
// (Apply) and every value by the flag's own parser.
func Checker(scratch *pflag.FlagSet) func(name string, values []string) ([]string, error) {
	return func(name string, values []string) ([]string, error) {
		fl := scratch.Lookup(name)
		if fl == nil {
			return nil, fmt.Errorf("no flag --%s", name)
		}
		if err := set(fl, values); err != nil {
			return nil, err
		}
		return valuesOf(fl), nil
	}
}

// Apply writes a resolution's values on fs's flags, in order. A value
// from the file or after "--" marks its flag as set (Changed), as on the
// command line; a default or a derived one does not.
func Apply(fs *pflag.FlagSet, assign []config.Assignment) error {
	for _, a := range assign {
		fl := fs.Lookup(a.Name)
		if fl == nil {
			return fmt.Errorf("no flag --%s", a.Name)
		}
		if err := set(fl, a.Values); err != nil {
			return fmt.Errorf("--%s: %w", a.Name, err) // Resolve checked it: a programming error
		}
		if a.Source == config.SourceFile || a.Source == config.SourceDash {
			fl.Changed = true
		}
	}
	return nil
}

// defaultNote matches a "(default ...)" written into a flag's usage
// text, one level of parentheses inside allowed.
var defaultNote = regexp.MustCompile(`\s*\(default[^()]*(\([^()]*\)[^()]*)*\)`)

// SetDefault changes a flag's value and shown default without marking it
// as set by the user; an old default written into its usage text
// (defaultNote) is removed, so it does not name it beside the new one.
func SetDefault(fs *pflag.FlagSet, name, value string) {
	fl := fs.Lookup(name)
	if fl == nil {
		panic("flagset: no flag " + name) // a programming error, caught by tests
	}
	if err := fl.Value.Set(value); err != nil {
		panic(fmt.Sprintf("flagset: default %s=%s: %v", name, value, err))
	}
	fl.DefValue = value
	fl.Usage = defaultNote.ReplaceAllString(fl.Usage, "")
}

// set gives a flag its values: a list replaces a list flag's items,
// anything else takes one value.
func set(fl *pflag.Flag, values []string) error {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.Replace(append([]string(nil), values...))
	}
	if len(values) != 1 {
		return fmt.Errorf("want one value, got %d", len(values))
	}
	return fl.Value.Set(values[0])
}

// valuesOf is a flag's value as it prints: a list's items, else one
// string.
func valuesOf(fl *pflag.Flag) []string {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{fl.Value.String()}
}

func isList(fl *pflag.Flag) bool {
	_, ok := fl.Value.(pflag.SliceValue)
	return ok
}

func isBool(fl *pflag.Flag) bool { return fl.Value.Type() == "bool" }

// Values yields every flag of fs in name order with the value the
// command reads: read's where it has one (a value the command derived
// from others), else the flag's own as it prints (a worker's config
// hash, worker.ConfigHash).
func Values(fs *pflag.FlagSet, read map[string]string) iter.Seq2[string, string] {
	return func(yield func(name, value string) bool) {
		stopped := false
		fs.VisitAll(func(fl *pflag.Flag) { // lexicographical order
			if stopped {
				return
			}
			value, ok := read[fl.Name]
			if !ok {
				value = fl.Value.String()
			}
			stopped = !yield(fl.Name, value)
		})
	}
}

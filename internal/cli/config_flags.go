package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
)

// Run's flags as configuration: the benchmark: keys they define, the
// flags after "--" recorded for the top layer, and the resolved command
// written back from them (config.WriteCommand).

// configSchema derives the benchmark: section's keys from the run flags
// on fs, so every run setting has a key of the same (snake_case) name.
func configSchema(fs *pflag.FlagSet) config.Schema {
	s := config.Schema{
		Keys:    map[string]config.Key{},
		Renamed: config.Renamed,
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		if configOnlyFlags[fl.Name] {
			return
		}
		var k config.Key
		switch {
		case fl.Value.Type() == "bool":
			k.Bool = true
		case isSlice(fl):
			k.Many = true
			switch fl.Name {
			case "header", "metadata":
				k.PairSep = "=" // values may hold spaces: one item each
			case "goodput":
				k.PairSep, k.Fields = ":", true
			default:
				k.Fields = nargsFlags[fl.Name]
			}
		case fl.Name == "metric-percentiles" || fl.Name == "percentile-metrics":
			k.Join = ","
		}
		s.Keys[config.KeyOfFlag(fl.Name)] = k
	})
	return s
}

func isSlice(fl *pflag.Flag) bool {
	_, ok := fl.Value.(pflag.SliceValue)
	return ok
}

// setFlag gives a flag its values: a list replaces a slice flag's items,
// anything else takes one value.
func setFlag(fl *pflag.Flag, values []string) error {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.Replace(append([]string(nil), values...))
	}
	if len(values) != 1 {
		return fmt.Errorf("want one value, got %d", len(values))
	}
	return fl.Value.Set(values[0])
}

// dashOp is one flag occurrence after "--".
type dashOp struct {
	flag  *pflag.Flag // the real flag on run's FlagSet
	value string
}

// recorder stands in for a run flag while the arguments after "--" are
// parsed; it only notes the values, which are applied later over the
// configuration.
type recorder struct {
	fl  *pflag.Flag
	ops *[]dashOp
}

func (r *recorder) Set(s string) error {
	*r.ops = append(*r.ops, dashOp{flag: r.fl, value: s})
	return nil
}

func (r *recorder) String() string { return "" }

func (r *recorder) Type() string { return r.fl.Value.Type() }

// parseAfterDash parses the arguments after "--" as run flags.
func parseAfterDash(fs *pflag.FlagSet, args []string) ([]dashOp, error) {
	var ops []dashOp
	rec := pflag.NewFlagSet("after --", pflag.ContinueOnError)
	rec.SetOutput(io.Discard)
	rec.Usage = func() {}
	rec.SetNormalizeFunc(fs.GetNormalizeFunc())
	fs.VisitAll(func(fl *pflag.Flag) {
		if configOnlyFlags[fl.Name] {
			return
		}
		r := rec.VarPF(&recorder{fl: fl, ops: &ops}, fl.Name, fl.Shorthand, fl.Usage)
		r.NoOptDefVal = fl.NoOptDefVal // bool flags take no value
	})
	if err := rec.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, usageErrorf("after --: only run's benchmark flags; put --help before --")
		}
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
			if n := string(fs.GetNormalizeFunc()(fs, name)); configOnlyFlags[n] {
				return nil, usageErrorf("after --: --%s is not a benchmark flag; put it before --", n)
			}
		}
		return nil, usageErrorf("after --: %v", err)
	}
	if rest := rec.Args(); len(rest) > 0 {
		return nil, usageErrorf("after --: unexpected argument %q (only run flags may follow --)", rest[0])
	}
	return ops, nil
}

// applyAfterDash sets the flags given after "--", over everything. Slice
// flags take all their values from there; other flags take the last.
func applyAfterDash(ops []dashOp) error {
	lists := map[*pflag.Flag][]string{}
	var order []*pflag.Flag
	for _, op := range ops {
		if isSlice(op.flag) {
			if _, ok := lists[op.flag]; !ok {
				order = append(order, op.flag)
			}
			lists[op.flag] = append(lists[op.flag], op.value)
			continue
		}
		if err := op.flag.Value.Set(op.value); err != nil {
			return usageErrorf("after --: invalid argument %q for --%s: %v", op.value, op.flag.Name, err)
		}
		op.flag.Changed = true
	}
	for _, fl := range order {
		if err := setFlag(fl, lists[fl]); err != nil {
			return usageErrorf("after --: --%s: %v", fl.Name, err)
		}
		fl.Changed = true
	}
	return nil
}

// writeCommand prints the resolved command (name: "llmbench run"): one flag per
// setting that was set anywhere or differs from its default, in the order
// run declares them (config.WriteCommand renders, quotes and redacts). It
// returns how many values it redacted.
func writeCommand(w io.Writer, name string, fs *pflag.FlagSet, sources map[string]string) int {
	var flags []config.CommandFlag
	sorted := fs.SortFlags
	fs.SortFlags = false // declaration order groups related flags
	fs.VisitAll(func(fl *pflag.Flag) {
		if configOnlyFlags[fl.Name] {
			return
		}
		if sources[fl.Name] == "" && !fl.Changed && fl.Value.String() == fl.DefValue {
			return
		}
		cf := config.CommandFlag{Name: fl.Name, Bool: fl.Value.Type() == "bool", Nargs: nargsFlags[fl.Name]}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			cf.List, cf.Values = true, sv.GetSlice()
		} else {
			cf.Values = []string{fl.Value.String()}
		}
		flags = append(flags, cf)
	})
	fs.SortFlags = sorted
	return config.WriteCommand(w, name, flags)
}

package config

import (
	"fmt"
	"slices"
)

// The resolution of "llmbench run"'s settings, once, before anything is
// written: the layers (built-in defaults < config.yaml < command line <
// flags after "--") merged by Merge, then what --course and the endpoint
// name imply and the closed loop's cap (derive.go). The outcome is a
// typed set of values, each with its source, that the caller writes on
// its flags once (package config/flagset does it for pflag), before
// --print-command prints them (CommandOf). Nothing here knows pflag: a
// Flag describes a flag, and Input.Check parses a value with the flag's
// own parser.

// Flag describes one flag of the command the settings are resolved for.
type Flag struct {
	// Name is the flag's name without dashes.
	Name string
	// List marks a list flag: a layer's values replace its items.
	List bool
	// Bool marks a boolean flag (printed "--x" or "--x=false").
	Bool bool
	// Nargs marks one of vLLM's nargs="+" flags (Nargs), printed
	// "--goodput a b".
	Nargs bool
	// Values is the flag's value after the command line, as the flag
	// prints it: a list's items, else one string.
	Values []string
	// Given marks a flag set on the command line.
	Given bool
	// IsDefault is true while the flag holds its declared default.
	IsDefault bool
}

// Input is what Resolve starts from.
type Input struct {
	// Command is the command's name in notes ("run", "sweep").
	Command string
	// Flags are the command's flags in declaration order, the flags that
	// steer the configuration itself (--config, --course...) left out.
	Flags []Flag
	// Dash are the flags after "--", one entry of one value per
	// occurrence, in order.
	Dash []Entry
	// File is the configuration file (nil: none) and Course the --course
	// folder (nil: none). Either brings the built-in defaults in.
	File   *File
	Course *Course
	// Skip names the flags whose keys the command leaves to run (sweep's
	// own ladder and time bounds): a file's value for one is not applied
	// and the keys are named in a note.
	Skip map[string]bool
	// LoopFlag names the flag whose positive value makes the run a closed
	// loop ("users": "--users 16"); Loop names the command's own closed
	// loop instead (sweep's ladder, "sweep --concurrency"). See
	// dropClosedLoopCap.
	LoopFlag, Loop string
	// Check parses values with flag name's own parser without keeping
	// them, and returns them as the flag prints them: a list's items
	// replace it, anything else takes exactly one value.
	Check func(name string, values []string) ([]string, error)
}

// Assignment is one flag's resolved value, for the caller to write.
type Assignment struct {
	Name string
	// Values are the value as its layer gave it: a list's items, else one
	// value.
	Values []string
	// Source is its layer, or SourceCourse for a derived value. A value
	// from the file or after "--" counts as set by the user on the flag;
	// a default or a derived one does not.
	Source Source
}

// Resolved is the outcome of Resolve.
type Resolved struct {
	// Assign are the values to write over the command line's, one per
	// flag, in the order they take effect (two flags may share one
	// setting, as --self-timed and --no-self-timed do).
	Assign []Assignment
	// Sources maps every flag a layer set (the command line included) or
	// the course derived to its source.
	Sources map[string]Source
	// Notes are the lines to tell the user, in order.
	Notes []string
}

// resolver carries one resolution.
type resolver struct {
	in    Input
	flags map[string]*Flag
	out   Resolved
	shown map[string][]string // an assigned flag's value as it prints
}

// Resolve merges the layers, applies what --course and the endpoint name
// imply and the closed loop's cap, and returns the values to write. Every
// value is checked with Input.Check in the order a user meets them: the
// defaults and the file (errors name the file and line), the flags after
// "--", then the course's state file.
func Resolve(in Input) (*Resolved, error) {
	r := &resolver{in: in, flags: map[string]*Flag{}, shown: map[string][]string{}}
	r.out.Sources = map[string]Source{}
	for i := range in.Flags {
		f := &in.Flags[i]
		r.flags[f.Name] = f
		if f.Given {
			r.out.Sources[f.Name] = SourceFlag
		}
	}
	for _, e := range in.Dash {
		r.out.Sources[e.Name] = SourceDash
	}
	inPlay := in.File != nil || in.Course != nil
	if inPlay {
		if err := r.layers(); err != nil {
			return nil, err
		}
	}
	if err := r.dash(); err != nil {
		return nil, err
	}
	if err := r.endpoint(); err != nil {
		return nil, err
	}
	r.dropClosedLoopCap()
	if inPlay {
		if err := r.results(); err != nil {
			return nil, err
		}
	}
	r.skipNote()
	return &r.out, nil
}

// layers assigns the built-in defaults and the file's values that survive
// Merge under the command line and the flags after "--": the defaults'
// first, then the file's in file order.
func (r *resolver) layers() error {
	var defaults, file, flags, dash Layer
	defaults.Source, file.Source, flags.Source, dash.Source = SourceDefault, SourceFile, SourceFlag, SourceDash
	keys := map[string]string{} // flag name -> its key, for errors
	for _, d := range Defaults {
		keys[FlagOfKey(d.Key)] = d.Key
		defaults.Entries = append(defaults.Entries, Entry{Name: FlagOfKey(d.Key), Values: []string{d.Value}})
	}
	if f := r.in.File; f != nil {
		for _, s := range f.Benchmark {
			keys[FlagOfKey(s.Key)] = s.Key
			file.Entries = append(file.Entries, Entry{Name: FlagOfKey(s.Key), Values: s.Values, Null: s.Null, Pos: s.Pos})
		}
	}
	for name, src := range r.out.Sources {
		l := &flags
		if src == SourceDash {
			l = &dash
		}
		l.Entries = append(l.Entries, Entry{Name: name})
	}
	for _, w := range Merge(defaults, file, flags, dash) {
		if w.Source > SourceFile || r.in.Skip[w.Name] {
			continue
		}
		if err := r.layerValue(w, keys[w.Name]); err != nil {
			if w.Source == SourceDefault {
				panic(fmt.Sprintf("config: built-in default %s: %v", keys[w.Name], err)) // a programming error, caught by tests
			}
			return err
		}
	}
	return nil
}

// layerValue assigns a default's or the file's value (key names it in
// errors).
func (r *resolver) layerValue(w Winner, key string) error {
	if r.flags[w.Name] == nil {
		return w.Pos.Errorf("benchmark.%s: no such run flag --%s", key, w.Name)
	}
	shown, err := r.in.Check(w.Name, w.Values)
	if err != nil {
		return w.Pos.Errorf("benchmark.%s: invalid value %s: %v", key, QuoteValues(w.Values), err)
	}
	r.assign(Assignment{Name: w.Name, Values: w.Values, Source: w.Source}, shown)
	return nil
}

// dash assigns the flags after "--", over everything: a list takes all
// its values from there, anything else the last (each checked in turn).
func (r *resolver) dash() error {
	lists := map[string][]string{}
	var order []string
	for _, e := range r.in.Dash {
		if f := r.flags[e.Name]; f != nil && f.List {
			if _, ok := lists[e.Name]; !ok {
				order = append(order, e.Name)
			}
			lists[e.Name] = append(lists[e.Name], e.Values...)
			continue
		}
		shown, err := r.in.Check(e.Name, e.Values)
		if err != nil {
			return fmt.Errorf("after --: invalid argument %q for --%s: %v", e.Values[0], e.Name, err)
		}
		r.assign(Assignment{Name: e.Name, Values: e.Values, Source: SourceDash}, shown)
	}
	for _, name := range order {
		shown, err := r.in.Check(name, lists[name])
		if err != nil {
			return fmt.Errorf("after --: --%s: %v", name, err)
		}
		r.assign(Assignment{Name: name, Values: lists[name], Source: SourceDash}, shown)
	}
	return nil
}

// assign makes a the flag's value, after any it replaces.
func (r *resolver) assign(a Assignment, shown []string) {
	r.unassign(a.Name)
	r.out.Assign = append(r.out.Assign, a)
	r.out.Sources[a.Name] = a.Source
	r.shown[a.Name] = shown
}

// unassign forgets flag name's value and source.
func (r *resolver) unassign(name string) {
	r.out.Assign = slices.DeleteFunc(r.out.Assign, func(a Assignment) bool { return a.Name == name })
	delete(r.out.Sources, name)
	delete(r.shown, name)
}

// value is flag name's value as it prints: assigned, else the command
// line's or its default ("" for a list or an unknown flag).
func (r *resolver) value(name string) string {
	f := r.flags[name]
	if f == nil || f.List {
		return ""
	}
	vs, ok := r.shown[name]
	if !ok {
		vs = f.Values
	}
	if len(vs) != 1 {
		return ""
	}
	return vs[0]
}

// CommandOf lists the resolved command's flags for WriteCommand: every
// flag a source set (sources: Resolved.Sources) or that holds other than
// its default, in declaration order. flags describe the flags once the
// resolution is written on them: flags that share one setting
// (--self-timed, --no-self-timed) print what the run will use.
func CommandOf(flags []Flag, sources map[string]Source) []CommandFlag {
	var out []CommandFlag
	for _, f := range flags {
		if sources[f.Name] == SourceNone && f.IsDefault {
			continue
		}
		out = append(out, CommandFlag{Name: f.Name, Values: f.Values, List: f.List, Bool: f.Bool, Nargs: f.Nargs})
	}
	return out
}

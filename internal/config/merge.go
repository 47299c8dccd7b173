package config

// The precedence of "llmbench run"'s settings, as a pure function over
// layers. Each source of settings (the built-in defaults, config.yaml, the
// command line, the flags after "--") gives one Layer of named values;
// Merge combines them lowest first, the way k6's Config.Apply lays one
// partial configuration over another: a value from a lower layer survives
// only where no higher layer speaks for its name. The caller decides what
// a name is (cli uses flag names) and what to do with the winners.

// Source is where a setting's value came from, lowest precedence first.
type Source int

// The layers, lowest first.
const (
	SourceNone    Source = iota // not set by any layer
	SourceDefault               // Defaults, when a configuration is in play
	SourceFile                  // the config file's benchmark: section
	SourceFlag                  // the command line, before "--"
	SourceDash                  // the flags after "--"
	// SourceCourse marks a value Resolve derived from --course or the
	// endpoint name; it is not a layer of Merge.
	SourceCourse
)

// String is the source's name in messages and tests.
func (s Source) String() string {
	switch s {
	case SourceDefault:
		return "config default"
	case SourceFile:
		return "config file"
	case SourceFlag:
		return "flag"
	case SourceDash:
		return "after --"
	case SourceCourse:
		return "course"
	}
	return "unset"
}

// Entry is one named value of a layer.
type Entry struct {
	// Name is what the value sets (cli: a flag name).
	Name string
	// Values are the value as text: one for a scalar, any number for a
	// list. A higher layer's list replaces a lower one's; lists are not
	// appended across layers.
	Values []string
	// Null asks for the setting's own default: it hides every lower
	// layer's value of Name and sets nothing itself ("max_concurrency:
	// null").
	Null bool
	// Pos is where a file's entry is written (zero elsewhere).
	Pos Pos
}

// Layer is the partial set of values one source gives.
type Layer struct {
	Source  Source
	Entries []Entry
}

// Overrides lists, for a generic length, the dataset-specific names it
// stands for (dataset.Config's InputLen/OutputLen rules): a generic value
// from a lower layer is dropped when a higher layer sets one of these
// ("-- --random-input-len 1024" wins over input_len: 256).
var Overrides = map[string][]string{
	"input-len":  {"random-input-len"},
	"output-len": {"random-output-len", "sharegpt-output-len", "custom-output-len", "hf-output-len", "prefix-repetition-output-len"},
}

// Winner is an entry that survived the merge, with its layer.
type Winner struct {
	Entry
	Source Source
}

// Merge lays the layers over each other and returns the entries that
// survive, lowest layer first and each layer in its own order. layers must
// be given lowest first. An entry survives when no higher layer has an
// entry of the same name (null or not) and none sets a name that
// Overrides says it stands for. Null entries never survive. Entries of one
// name within one layer all survive; combining them is the layer's job.
func Merge(layers ...Layer) []Winner {
	var out []Winner
	for i, l := range layers {
		named, set := above(layers[i+1:])
		for _, e := range l.Entries {
			if e.Null || named[e.Name] || overridden(e.Name, set) {
				continue
			}
			out = append(out, Winner{Entry: e, Source: l.Source})
		}
	}
	return out
}

// above returns the names the layers speak for (named, nulls included)
// and those they set (set).
func above(layers []Layer) (named, set map[string]bool) {
	named, set = map[string]bool{}, map[string]bool{}
	for _, l := range layers {
		for _, e := range l.Entries {
			named[e.Name] = true
			if !e.Null {
				set[e.Name] = true
			}
		}
	}
	return named, set
}

func overridden(name string, set map[string]bool) bool {
	for _, specific := range Overrides[name] {
		if set[specific] {
			return true
		}
	}
	return false
}

// Sources maps each name set by a surviving entry to its layer: the answer
// to "which layer set this" once the layers are merged.
func Sources(winners []Winner) map[string]Source {
	m := make(map[string]Source, len(winners))
	for _, w := range winners {
		m[w.Name] = w.Source
	}
	return m
}

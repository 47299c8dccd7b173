package config

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/llmbench/llmbench/internal/editdist"
)

// The YAML walk behind Parse: strict keys, shaped values, positions.

type parser struct {
	name   string
	schema Schema
}

func (p *parser) pos(n *yaml.Node) Pos { return Pos{p.name, n.Line} }

// dup refuses a key written twice in one mapping: YAML forbids it and the
// second would silently win.
func (p *parser) dup(seen map[string]int, k *yaml.Node, section string) error {
	if k.Kind != yaml.ScalarNode {
		return p.pos(k).Errorf("%swant a plain key, got %s", section, kindName(k))
	}
	if line, ok := seen[k.Value]; ok {
		return p.pos(k).Errorf("%s%s is already set on line %d", section, k.Value, line)
	}
	seen[k.Value] = k.Line
	return nil
}

func (p *parser) benchmark(f *File, n *yaml.Node) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return p.pos(n).Errorf("benchmark: want a mapping of settings, got %s", kindName(n))
	}
	known := p.schema.KnownKeys()
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if err := p.dup(seen, k, "benchmark."); err != nil {
			return err
		}
		key, ok := p.schema.Keys[k.Value]
		if !ok {
			if to, ok := p.schema.Renamed[k.Value]; ok {
				return p.pos(k).Errorf("unknown key benchmark.%s: write %s", k.Value, to)
			}
			return p.pos(k).Errorf("unknown key benchmark.%s%s", k.Value, suggest(k.Value, known))
		}
		s, err := p.setting(k, v, key)
		if err != nil {
			return err
		}
		f.Benchmark = append(f.Benchmark, s)
	}
	return nil
}

// setting shapes one value according to its Key.
func (p *parser) setting(k, v *yaml.Node, key Key) (Setting, error) {
	s := Setting{Key: k.Value, Pos: p.pos(k)}
	name := "benchmark." + k.Value
	if isNull(v) {
		s.Null = true
		return s, nil
	}
	switch v.Kind {
	case yaml.ScalarNode:
		val, err := p.scalar(name, v)
		if err != nil {
			return s, err
		}
		if key.Bool && v.Tag != "!!bool" {
			return s, p.pos(v).Errorf("%s: want true or false, got %q", name, v.Value)
		}
		if key.Many && key.Fields {
			s.Values = strings.Fields(val)
		} else {
			s.Values = []string{val}
		}
	case yaml.SequenceNode:
		if !key.Many && key.Join == "" {
			return s, p.pos(v).Errorf("%s: want a single value, got a list", name)
		}
		for _, it := range v.Content {
			it = deref(it)
			if it.Kind != yaml.ScalarNode || isNull(it) {
				return s, p.pos(it).Errorf("%s: list items must be plain values, got %s", name, kindName(it))
			}
			val, err := p.scalar(name, it)
			if err != nil {
				return s, err
			}
			s.Values = append(s.Values, val)
		}
		if key.Join != "" {
			s.Values = []string{strings.Join(s.Values, key.Join)}
		}
	case yaml.MappingNode:
		if key.PairSep == "" {
			return s, p.pos(v).Errorf("%s: want a single value, got a mapping", name)
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			mk, mv := deref(v.Content[i]), deref(v.Content[i+1])
			if err := p.dup(seen, mk, name+"."); err != nil {
				return s, err
			}
			if mv.Kind != yaml.ScalarNode || isNull(mv) {
				return s, p.pos(mv).Errorf("%s.%s: want a plain value, got %s", name, mk.Value, kindName(mv))
			}
			val, err := p.scalar(name, mv)
			if err != nil {
				return s, err
			}
			s.Values = append(s.Values, mk.Value+key.PairSep+val)
		}
	default:
		return s, p.pos(v).Errorf("%s: unsupported value (%s)", name, kindName(v))
	}
	return s, nil
}

// scalar gives a scalar's text as a flag would take it: YAML's .inf is
// "inf", booleans are lower case.
func (p *parser) scalar(name string, n *yaml.Node) (string, error) {
	switch n.Tag {
	case "!!bool":
		return strings.ToLower(n.Value), nil
	case "!!float":
		switch strings.ToLower(n.Value) {
		case ".inf", "+.inf":
			return "inf", nil
		case "-.inf":
			return "-inf", nil
		case ".nan":
			return "", p.pos(n).Errorf("%s: NaN is not a usable value", name)
		}
	}
	return n.Value, nil
}

// deref follows YAML aliases (*anchor) to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an unsupported node"
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError puts the YAML library's "line N" into file:line form.
func yamlError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Pos{name, line}.Errorf("%s", m[2])
	}
	return fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "yaml: "))
}

// suggest returns ` (did you mean "x"?)` for the known key closest to key,
// or "" when none is close: typos are the usual cause of an unknown key.
func suggest(key string, known []string) string {
	norm := strings.ReplaceAll(strings.ToLower(key), "-", "_")
	best, bestD := "", 3 // at most two edits away
	for _, k := range known {
		if k == norm {
			return fmt.Sprintf(" (did you mean %s?)", k)
		}
		if d := editdist.Levenshtein(norm, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// KnownKeys returns the schema's keys, sorted.
func (s Schema) KnownKeys() []string {
	keys := make([]string, 0, len(s.Keys))
	for k := range s.Keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

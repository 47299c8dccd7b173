// Package config reads a project's config.yaml: the benchmark: section that
// "llmbench run" turns into flags, the built-in defaults of that section,
// and where courses keep their deployment state and results.
//
// The file is strict: an unknown key, a duplicate key or a value of the
// wrong shape is an error naming the file and line. Which benchmark keys
// exist is not decided here: the caller passes a Schema (the cli package
// derives it from run's flags), so a new run flag is a new config key with
// no change to this package. Merge decides the precedence of the layers
// (defaults < file < command line < after "--") over plain names, and
// WriteCommand renders the resolved command; neither knows pflag, and
// setting flag values is the caller's job. This package never touches the
// network.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/llmbench/llmbench/internal/editdist"
)

// DefaultFile is the configuration file used when none is named, if it
// exists in the working directory.
const DefaultFile = "config.yaml"

// CoursePlaceholder stands for the course name in a courses_dir template.
const CoursePlaceholder = "{course}"

// DefaultCoursesDir is where course folders live unless courses_dir says
// otherwise: courses/NAME/ beside the configuration file.
const DefaultCoursesDir = "courses/" + CoursePlaceholder

// ResultsDir is the folder, beside the configuration file, that receives
// results of runs without a course.
const ResultsDir = "bench_results"

// Default is one built-in default of the benchmark: section.
type Default struct {
	Key   string
	Value string
}

// Defaults are the benchmark: section's built-in defaults, the values of
// the SageMaker project this configuration replaces. They apply whenever a
// configuration is in play (a file, or a course); Key names are schema
// keys, Values are what a user would write in the file.
var Defaults = []Default{
	{"num_prompts", "20"},
	{"max_concurrency", "4"},
	{"request_rate", "inf"},
	{"input_len", "256"},
	{"output_len", "128"},
	{"num_warmups", "2"},
	{"percentiles", "50,95,99"},
	{"save_results", "true"},
}

// Key describes what shape of YAML value a benchmark key accepts. The zero
// Key accepts one scalar (string, number or boolean).
type Key struct {
	// Bool accepts only true or false.
	Bool bool
	// Many accepts a sequence, one value per item; a single scalar is one
	// value.
	Many bool
	// Fields splits a single scalar on white space into several values
	// (vLLM's "--goodput ttft:200 tpot:50" written as one string). Needs
	// Many.
	Fields bool
	// PairSep, when not empty, also accepts a mapping: each entry becomes
	// one value KEY+PairSep+VALUE, in file order ("ttft: 200" -> "ttft:200"
	// with ":"; "Authorization: x" -> "Authorization=x" with "="). Needs
	// Many.
	PairSep string
	// Join, when not empty, accepts a sequence and joins its items with
	// Join into one value ([50, 95, 99] -> "50,95,99" with ",").
	Join string
}

// Schema lists the keys of the benchmark: section.
type Schema struct {
	// Keys are the accepted keys, snake_case.
	Keys map[string]Key
	// Renamed maps a key that is refused to the key to write instead, for
	// a clearer error (metric_percentiles -> percentiles).
	Renamed map[string]string
}

// Pos is a place in a configuration file.
type Pos struct {
	File string
	Line int
}

// String is "file:line", the form editors jump to.
func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Errorf returns an error prefixed with the position, for mistakes found
// after loading (a value the flag refuses).
func (p Pos) Errorf(format string, a ...any) error {
	return fmt.Errorf("%s: %s", p, fmt.Sprintf(format, a...))
}

// Setting is one key of the benchmark: section as written.
type Setting struct {
	// Key is the schema key.
	Key string
	// Values are the value's scalars as text, after the Key's shaping:
	// exactly one for a plain scalar key, any number for Many keys. YAML's
	// .inf is given as "inf" and booleans as "true"/"false".
	Values []string
	// Null is true for an explicit null ("max_concurrency: null" or an
	// empty value): use llmbench run's own default, not the built-in one.
	Null bool
	// Pos is where the key is written.
	Pos Pos
}

// File is a parsed configuration file.
type File struct {
	// Path is the file's path as given.
	Path string
	// Dir is the folder holding the file; courses_dir and the results
	// folder are relative to it.
	Dir string
	// CoursesDir is the course folder template (DefaultCoursesDir when the
	// file has no courses_dir).
	CoursesDir string
	// Benchmark are the benchmark: section's settings in file order.
	Benchmark []Setting
}

// Lookup returns the setting for key, if the file has one.
func (f *File) Lookup(key string) (Setting, bool) {
	for _, s := range f.Benchmark {
		if s.Key == key {
			return s, true
		}
	}
	return Setting{}, false
}

// Load reads and parses the configuration file at path.
func Load(path string, schema Schema) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("config file %s not found", path)
		}
		return nil, fmt.Errorf("reading config file: %w", err)
	}
	f, err := Parse(path, data, schema)
	if err != nil {
		return nil, err
	}
	f.Dir = filepath.Dir(path)
	return f, nil
}

// Parse parses a configuration file's contents; name is used in errors
// and as Path. Dir is left as "." (Load sets it).
func Parse(name string, data []byte, schema Schema) (*File, error) {
	f := &File{Path: name, Dir: ".", CoursesDir: DefaultCoursesDir}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return f, nil // an empty file: every default
		}
		return nil, yamlError(name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Pos{name, extra.Line}.Errorf("a second YAML document; config.yaml holds one")
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlError(name, err)
	}
	p := parser{name: name, schema: schema}
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return f, nil
		}
		root = deref(root.Content[0])
	}
	if isNull(root) {
		return f, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.pos(root).Errorf("want a mapping with a benchmark: section, got %s", kindName(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := deref(root.Content[i]), deref(root.Content[i+1])
		if err := p.dup(seen, k, ""); err != nil {
			return nil, err
		}
		switch k.Value {
		case "benchmark":
			if err := p.benchmark(f, v); err != nil {
				return nil, err
			}
		case "courses_dir":
			if v.Kind != yaml.ScalarNode || isNull(v) || strings.TrimSpace(v.Value) == "" {
				return nil, p.pos(v).Errorf("courses_dir: want a folder such as %q", DefaultCoursesDir)
			}
			f.CoursesDir = v.Value
		default:
			return nil, p.pos(k).Errorf("unknown key %q%s", k.Value, suggest(k.Value, []string{"benchmark", "courses_dir"}))
		}
	}
	return f, nil
}

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

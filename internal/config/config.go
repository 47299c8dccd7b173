// Package config reads a project's config.yaml: the benchmark: section that
// "llmbench run" turns into flags, the built-in defaults of that section,
// and where courses keep their deployment state and results.
//
// The file is strict: an unknown key, a duplicate key or a value of the
// wrong shape is an error naming the file and line. Which benchmark keys
// exist is not decided here: the caller passes a Schema (the cli package
// derives it from run's flags), so a new run flag is a new config key with
// no change to this package. Merge decides the precedence of the layers
// (defaults < file < command line < after "--") over plain names; Resolve
// runs it once for a command's described flags and derives what --course,
// the endpoint name and a closed loop imply, returning the values to write
// (CommandOf and WriteCommand then print the resolved command). Nothing
// here knows pflag: writing the values on the flags is the caller's job
// (config/flagset). This package never touches the network.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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

// Locate returns DefaultFile when it exists in the working directory, ""
// when it does not.
func Locate() (string, error) {
	if _, err := os.Stat(DefaultFile); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", fmt.Errorf("looking for %s: %w", DefaultFile, err)
	}
	return DefaultFile, nil
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

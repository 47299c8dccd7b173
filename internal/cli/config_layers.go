package cli

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
)

// The configuration's layers on run's flags: config.Merge decides which
// default and file values survive the flags; this file sets them, then
// derives what --course and the endpoint name imply (see run_config.go).

// applyConfig sets the values of the built-in defaults and the file that
// survive config.Merge under the flags given on the command line and after
// "--" (already on fs): the file's in file order after the defaults.
func (c *configFlags) applyConfig(fs *pflag.FlagSet, file *config.File) error {
	var defaults, fromFile, flags, dash config.Layer
	defaults.Source, fromFile.Source = config.SourceDefault, config.SourceFile
	flags.Source, dash.Source = config.SourceFlag, config.SourceDash
	keys := map[string]string{} // flag name -> its key, for errors
	for _, d := range config.Defaults {
		keys[config.FlagOfKey(d.Key)] = d.Key
		defaults.Entries = append(defaults.Entries, config.Entry{Name: config.FlagOfKey(d.Key), Values: []string{d.Value}})
	}
	if file != nil {
		for _, s := range file.Benchmark {
			name := config.FlagOfKey(s.Key)
			keys[name] = s.Key
			if !s.Null && c.runOnly[name] {
				c.skipped = append(c.skipped, s.Key)
			}
			fromFile.Entries = append(fromFile.Entries, config.Entry{Name: name, Values: s.Values, Null: s.Null, Pos: s.Pos})
		}
	}
	for name, src := range c.sources {
		l := &flags
		if src == srcDash {
			l = &dash
		}
		l.Entries = append(l.Entries, config.Entry{Name: name})
	}
	for _, w := range config.Merge(defaults, fromFile, flags, dash) {
		if w.Source > config.SourceFile || c.runOnly[w.Name] {
			continue
		}
		if err := c.apply(fs, w, keys[w.Name]); err != nil {
			if w.Source == config.SourceDefault {
				return err // a programming error: the defaults must parse
			}
			return &UsageError{Err: err}
		}
	}
	return nil
}

// apply sets a default's or the file's value on its flag (key names it
// in errors).
func (c *configFlags) apply(fs *pflag.FlagSet, w config.Winner, key string) error {
	fl := fs.Lookup(w.Name)
	if fl == nil {
		return w.Pos.Errorf("benchmark.%s: no such run flag --%s", key, w.Name)
	}
	if err := setFlag(fl, w.Values); err != nil {
		return w.Pos.Errorf("benchmark.%s: invalid value %s: %v", key, config.QuoteValues(w.Values), err)
	}
	if w.Source == config.SourceFile {
		fl.Changed = true
	}
	c.sources[w.Name] = w.Source.String()
	return nil
}

// setDerived sets a flag from the course or endpoint when nothing else
// did.
func (c *configFlags) setDerived(fs *pflag.FlagSet, name, value string) {
	if c.sources[name] != "" {
		return
	}
	fl := fs.Lookup(name)
	if fl == nil || fl.Value.Set(value) != nil {
		panic("run_config: cannot set --" + name) // a programming error, caught by tests
	}
	c.sources[name] = srcCourse
}

// resolveEndpoint takes the endpoint name from the course's state file
// (unless one was given) and makes sagemaker the backend for a named
// endpoint (unless one was chosen).
func (c *configFlags) resolveEndpoint(fs *pflag.FlagSet, course *config.Course, env *Env) error {
	// A backend chosen other than sagemaker uses --course for the result
	// folder only.
	otherBackend := c.sources["backend"] != "" && fs.Lookup("backend").Value.String() != "sagemaker"
	if course != nil && !otherBackend && c.sources["endpoint-name"] != srcFlag && c.sources["endpoint-name"] != srcDash {
		name, err := course.EndpointName()
		if err != nil {
			return &UsageError{Err: err}
		}
		delete(c.sources, "endpoint-name") // --course beats the file's endpoint_name
		c.setDerived(fs, "endpoint-name", name)
		region := course.Region()
		if region != "" && c.sources["region"] == "" {
			c.setDerived(fs, "region", region)
			fmt.Fprintf(env.Stderr, "Course %s: endpoint %s in %s (from %s)\n", course.Name, name, region, course.StatePath())
		} else {
			fmt.Fprintf(env.Stderr, "Course %s: endpoint %s (from %s)\n", course.Name, name, course.StatePath())
		}
	}
	if course != nil || fs.Lookup("endpoint-name").Value.String() != "" {
		c.setDerived(fs, "backend", "sagemaker")
	}
	return nil
}

// resolveResults points saved results at the project's folders: the
// course's data/ with --course, else bench_results/ beside the config
// file; with save_results true the per-request details are kept too, and
// the file name carries the endpoint name.
func (c *configFlags) resolveResults(fs *pflag.FlagSet, file *config.File, course *config.Course, detailed bool) {
	if fs.Lookup("save-result").Value.String() != "true" {
		return
	}
	if detailed {
		c.setDerived(fs, "save-detailed", "true")
	}
	if c.sources["result-dir"] == "" {
		dir := config.ResultsDir
		if course != nil {
			dir = course.DataDir()
		} else if file != nil {
			dir = filepath.Join(file.Dir, config.ResultsDir)
		}
		c.setDerived(fs, "result-dir", dir)
	}
	// vLLM's automatic file name carries the model id and a timestamp. For
	// a SageMaker endpoint without --model the model id is the endpoint
	// name; with --model, the label (the name's first part) carries it.
	endpoint := fs.Lookup("endpoint-name").Value.String()
	if endpoint != "" && fs.Lookup("model").Value.String() != "" && fs.Lookup("result-filename").Value.String() == "" {
		c.setDerived(fs, "label", fs.Lookup("backend").Value.String()+"-"+endpoint)
	}
}

package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// What the resolution derives once the layers are merged: the endpoint,
// region and backend --course and the endpoint name imply, where results
// go, and the closed loop's cap. A derived value (SourceCourse) is set only
// on a flag no layer set, except that --course's endpoint beats the file's
// endpoint_name.

// endpoint takes the endpoint name from the course's state file (unless
// one was given) and makes sagemaker the backend for a named endpoint
// (unless one was chosen).
func (r *resolver) endpoint() error {
	// A backend chosen other than sagemaker uses --course for the result
	// folder only.
	otherBackend := r.out.Sources["backend"] != SourceNone && r.value("backend") != "sagemaker"
	src := r.out.Sources["endpoint-name"]
	if c := r.in.Course; c != nil && !otherBackend && src != SourceFlag && src != SourceDash {
		name, err := c.EndpointName()
		if err != nil {
			return err
		}
		r.unassign("endpoint-name") // --course beats the file's endpoint_name
		if err := r.derive("endpoint-name", name); err != nil {
			return err
		}
		region := c.Region()
		if region != "" && r.out.Sources["region"] == SourceNone {
			if err := r.derive("region", region); err != nil {
				return err
			}
			r.note("Course %s: endpoint %s in %s (from %s)", c.Name, name, region, c.StatePath())
		} else {
			r.note("Course %s: endpoint %s (from %s)", c.Name, name, c.StatePath())
		}
	}
	if r.in.Course != nil || r.value("endpoint-name") != "" {
		return r.derive("backend", "sagemaker")
	}
	return nil
}

// results points saved results at the project's folders: the course's
// data/ with --course, else ResultsDir beside the config file; with
// save_results true the per-request details are kept too, and the file
// name carries the endpoint name.
func (r *resolver) results() error {
	if r.value("save-result") != "true" {
		return nil
	}
	if SaveResults(r.in.File) {
		if err := r.derive("save-detailed", "true"); err != nil {
			return err
		}
	}
	dir := ResultsDir
	if r.in.Course != nil {
		dir = r.in.Course.DataDir()
	} else if r.in.File != nil {
		dir = filepath.Join(r.in.File.Dir, ResultsDir)
	}
	if err := r.derive("result-dir", dir); err != nil {
		return err
	}
	// vLLM's automatic file name carries the model id and a timestamp. For
	// a SageMaker endpoint without --model the model id is the endpoint
	// name; with --model, the label (the name's first part) carries it.
	endpoint := r.value("endpoint-name")
	if endpoint != "" && r.value("model") != "" && r.value("result-filename") == "" {
		return r.derive("label", r.value("backend")+"-"+endpoint)
	}
	return nil
}

// dropClosedLoopCap leaves out a max_concurrency that came from the file
// or the built-in defaults when the run is a closed loop: the loop's
// concurrency is its own, and a smaller cap would hold it lower on the
// client (the connection pool is sized by the cap) while the report named
// the loop's (issue 29). A cap the user gave stays, for the command to
// refuse. The note names where the dropped value came from.
func (r *resolver) dropClosedLoopCap() {
	const name = "max-concurrency"
	loop := r.in.Loop
	if v := r.value(r.in.LoopFlag); loop == "" && r.in.LoopFlag != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			loop = "--" + r.in.LoopFlag + " " + v
		}
	}
	src := r.out.Sources[name]
	if loop == "" || (src != SourceFile && src != SourceDefault) {
		return
	}
	where := "the configuration's built-in default"
	if src == SourceFile {
		where = "the config file"
	}
	r.note("Note: max_concurrency %s from %s does not apply to %s: a closed loop keeps its own requests in flight.", r.value(name), where, loop)
	r.unassign(name)
}

// skipNote names once the file's keys the command leaves to run.
func (r *resolver) skipNote() {
	if r.in.File == nil {
		return
	}
	var skipped []string
	for _, s := range r.in.File.Benchmark {
		if !s.Null && r.in.Skip[FlagOfKey(s.Key)] {
			skipped = append(skipped, s.Key)
		}
	}
	if len(skipped) > 0 {
		r.note("Note: %s in %s: llmbench run settings; llmbench %s leaves them out.", strings.Join(skipped, ", "), r.in.File.Path, r.in.Command)
	}
}

// derive gives flag name a value when no layer set it.
func (r *resolver) derive(name, value string) error {
	if r.out.Sources[name] != SourceNone {
		return nil
	}
	if r.flags[name] == nil {
		return fmt.Errorf("config: no flag --%s to take %q", name, value)
	}
	shown, err := r.in.Check(name, []string{value})
	if err != nil {
		return fmt.Errorf("config: --%s cannot take %q: %v", name, value, err)
	}
	r.assign(Assignment{Name: name, Values: []string{value}, Source: SourceCourse}, shown)
	return nil
}

func (r *resolver) note(format string, a ...any) {
	r.out.Notes = append(r.out.Notes, fmt.Sprintf(format, a...))
}

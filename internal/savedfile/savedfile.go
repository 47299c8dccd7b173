// Package savedfile tells the files llmbench saves apart by their content
// and reads them, in one place (as vegeta's DecoderFor picks a results
// decoder): records files, conformance input, result JSON (ours or vLLM's
// --save-result, appended or not), sweep files and plan files. Every
// command that takes saved files (report, compare, merge, plan) and the
// report pages ask Sniff, so that a file is the same kind to all of them;
// before, four copies asked with two different tests for "is a sweep".
//
// It decodes with the owners' decoders — record.ReadFile for records,
// report.ReadCompareFile for results, capacity.DecodeSweep for sweeps
// (the one sweep type), plan.Read for plans — and keeps no schema of its
// own. It computes no metric.
package savedfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/plan"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// Kind is what a saved file holds.
type Kind int

// The kinds Sniff tells apart.
const (
	// Unknown is anything else: not JSON, or JSON that is not an object.
	// Readers of results treat it as a result and report why it is not.
	Unknown Kind = iota
	// Records is llmbench's JSON-lines records file: a first line with
	// "llmbench_records" (internal/record).
	Records
	// Input is the conformance input format: one object with "requests"
	// and "params" (internal/record reads it too).
	Input
	// Result is any other JSON object: a result JSON, llmbench's or vLLM's
	// own --save-result, possibly one object per line (--append-result).
	Result
	// Sweep is a sweep file (capacity.WriteJSON): an object with "steps"
	// or "load_kind". Both mark a sweep, so an object with one of them
	// is a broken sweep, and reading it says which key it lacks (a result
	// has neither).
	Sweep
	// Plan is a plan file (plan.WriteJSON): an object whose "kind" is
	// plan.Kind.
	Plan
)

// String names the kind as messages do.
func (k Kind) String() string {
	switch k {
	case Records:
		return "records file"
	case Input:
		return "conformance input"
	case Result:
		return "result"
	case Sweep:
		return "sweep file"
	case Plan:
		return "plan file"
	}
	return "unknown"
}

// headLimit bounds the first line read to spot a records file.
const headLimit = 1 << 20

// Sniff reads path and tells its kind from the content, never the name.
// A records file is told from its first line alone (at most 1 MiB of it),
// so sniffing a long run's records reads little; any other file is read
// whole. Only a file that cannot be read is an error.
func Sniff(path string) (Kind, error) {
	f, err := os.Open(path)
	if err != nil {
		return Unknown, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, headLimit)
	line, err := br.ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Unknown, err // as os.ReadFile words it: "read PATH: is a directory"
	}
	if bytes.Contains(line, []byte(`"llmbench_records"`)) {
		return Records, nil
	}
	head := bytes.Clone(line) // line is br's buffer, which reading on reuses
	rest, err := io.ReadAll(br)
	if err != nil {
		return Unknown, err
	}
	return sniffJSON(append(head, rest...)), nil
}

// sniffJSON tells the kind of a file that is not a records file from the
// keys of its first JSON value (an appended result holds several).
func sniffJSON(data []byte) Kind {
	var keys map[string]json.RawMessage
	if json.NewDecoder(bytes.NewReader(report.PythonJSONCompat(data))).Decode(&keys) != nil || keys == nil {
		return Unknown
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	var kind string
	_ = json.Unmarshal(keys["kind"], &kind)
	switch {
	case kind == plan.Kind:
		return Plan
	case has("steps") || has("load_kind"):
		return Sweep
	case has("requests") && has("params"):
		return Input
	}
	return Result
}

// ReadSweep reads a sweep file into the one sweep type
// (capacity.ReadSweep); a file of another kind is an error naming it.
func ReadSweep(path string) (*capacity.Sweep, error) {
	k, err := Sniff(path)
	if err != nil {
		return nil, err
	}
	if k != Sweep {
		return nil, fmt.Errorf("%s: not a sweep file (no steps and load_kind)", path)
	}
	return capacity.ReadSweep(path)
}

// Count is how many of paths hold kind k (Sniff); a file that cannot be
// read is an error.
func Count(paths []string, k Kind) (int, error) {
	n := 0
	for _, p := range paths {
		got, err := Sniff(p)
		if err != nil {
			return 0, err
		}
		if got == k {
			n++
		}
	}
	return n, nil
}

// ReadSweeps reads sweep files (ReadSweep) for compare, in order.
func ReadSweeps(paths []string) ([]*report.SweepFile, error) {
	files := make([]*report.SweepFile, len(paths))
	for i, p := range paths {
		sw, err := ReadSweep(p)
		if err != nil {
			return nil, err
		}
		files[i] = &report.SweepFile{Path: p, Sweep: sw}
	}
	return files, nil
}

// ReadPlan reads a plan file; a file of another kind is an error.
func ReadPlan(path string) (*plan.Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := plan.Read(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Run is one benchmark read from a file: the result object of a result
// JSON, or the parameters and records of a records file or conformance
// input.
type Run struct {
	Path string
	Kind Kind
	// Result is the result object (Kind Result or Unknown).
	Result *report.CompareFile
	// Params and Records are the run's (Kind Records or Input).
	Params  record.Params
	Records []record.Record
}

// ReadRun reads one benchmark of the kind k (from Sniff): records and
// conformance input through record.ReadFile, anything else as a result
// JSON through report.ReadCompareFile, whose errors say why a file is
// not one. A sweep or a plan is not a run.
func ReadRun(path string, k Kind) (*Run, error) {
	run := &Run{Path: path, Kind: k}
	switch k {
	case Sweep, Plan:
		return nil, fmt.Errorf("%s: a %s, not a run", path, k)
	case Records, Input:
		p, recs, _, err := record.ReadFile(path)
		if err != nil {
			return nil, err
		}
		run.Params, run.Records = p, recs
		return run, nil
	}
	f, err := report.ReadCompareFile(path)
	if err != nil {
		return nil, err
	}
	run.Result = f
	return run, nil
}

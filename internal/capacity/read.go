package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
)

// ReadSweep reads a sweep file (what WriteJSON writes, sweep-*.json)
// into the one sweep type; errors name the file. It is the reader every
// consumer of sweep files should use, so that the page, compare and
// merge cannot each keep a schema of their own that drifts from the
// writer's (a second schema once drew the sweep page's headline chart
// blank).
func ReadSweep(path string) (*Sweep, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := DecodeSweep(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// DecodeSweep decodes one sweep file from r and checks what every reader
// relies on: a known load kind, at least one step, each step of that
// kind with its figures (the "metrics" object, where every chart and SLA
// term looks its keys up). Steps come back in load order, as Analyze
// leaves them.
func DecodeSweep(r io.Reader) (*Sweep, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("not a sweep file: %w", err)
	}
	for _, k := range []string{"load_kind", "steps"} {
		if _, ok := keys[k]; !ok {
			return nil, fmt.Errorf("not a sweep file: no %q", k)
		}
	}
	var s Sweep
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("invalid sweep file: %w", err)
	}
	switch s.LoadKind {
	case Concurrency, RequestRate, Users:
	default:
		return nil, fmt.Errorf("invalid sweep file: unknown load_kind %q", s.LoadKind)
	}
	if len(s.Steps) == 0 {
		return nil, fmt.Errorf("invalid sweep file: no steps")
	}
	for i := range s.Steps {
		r := &s.Steps[i]
		if r.LoadKind != s.LoadKind {
			return nil, fmt.Errorf("invalid sweep file: step %d (load %g) is a %q step in a %q sweep", i, r.Load, r.LoadKind, s.LoadKind)
		}
		if r.Metrics == nil {
			return nil, fmt.Errorf("invalid sweep file: step %d (load %g) has no metrics", i, r.Load)
		}
	}
	slices.SortStableFunc(s.Steps, func(a, b Row) int {
		switch {
		case a.Load < b.Load:
			return -1
		case a.Load > b.Load:
			return 1
		}
		return 0
	})
	return &s, nil
}

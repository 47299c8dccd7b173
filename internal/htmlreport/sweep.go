package htmlreport

import (
	"github.com/llmbench/llmbench/internal/capacity"
)

// Sweep is a sweep file as the sweep page shows it: the one sweep type,
// read by capacity.ReadSweep (steps in load order), and the file it came
// from. The page keeps no schema of its own: a copy that read only the
// steps' top-level numbers once drew the headline chart blank.
type Sweep struct {
	Path string
	*capacity.Sweep
}

// readSweep reads the sweep file at path.
func readSweep(path string) (*Sweep, error) {
	s, err := capacity.ReadSweep(path)
	if err != nil {
		return nil, err
	}
	return &Sweep{Path: path, Sweep: s}, nil
}

// LoadUnit names the sweep's load axis with its unit.
func (sw *Sweep) LoadUnit() string {
	switch sw.LoadKind {
	case capacity.RequestRate:
		return "request rate (req/s)"
	case capacity.Users:
		return "users (closed loop)"
	}
	return "max concurrency (requests)"
}

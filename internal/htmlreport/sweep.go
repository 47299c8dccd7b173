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

// stepValue is a step's figure for a result key: the step's metrics
// (every numeric result key, see capacity.Row.Metrics), else its cost
// figures, which live beside them; ok false when the step lacks it.
func stepValue(r *capacity.Row, key string) (float64, bool) {
	if v, ok := r.Value(key); ok {
		return v, true
	}
	var p *float64
	switch key {
	case "usd_per_1m_output_tokens":
		p = r.USDPer1MOutputTokens
	case "usd_per_request":
		p = r.USDPerRequest
	case "usd_per_hour":
		p = r.USDPerHour
	}
	if p == nil {
		return 0, false
	}
	return *p, true
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

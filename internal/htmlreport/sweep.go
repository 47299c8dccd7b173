package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/llmbench/llmbench/internal/report"
)

// Sweep is a sweep file: one step per load, the capacity analysis and its
// verdict. Optional keys may be absent (zero values, nil pointers).
type Sweep struct {
	Path string
	// LoadKind is "concurrency", "request_rate" or "users".
	LoadKind string `json:"load_kind"`
	// SLA are the terms every step was judged by.
	SLA []SLATerm `json:"sla"`
	// Steps in load order.
	Steps []Step `json:"steps"`
	// Saturation is where throughput stopped growing; nil when not found.
	Saturation *Saturation `json:"saturation"`
	// MaxLoadUnderSLA is the largest load meeting the SLA.
	MaxLoadUnderSLA struct {
		Load    *float64 `json:"load"`
		Binding *string  `json:"binding"`
	} `json:"max_load_under_sla"`
	// Verdict is the analysis in one paragraph.
	Verdict string `json:"verdict"`
}

// SLATerm is one SLA condition, e.g. p99_ttft_ms < 500.
type SLATerm struct {
	Key   string  `json:"key"`
	Op    string  `json:"op"`
	Value float64 `json:"value"`
}

// Saturation is the saturation point of a sweep.
type Saturation struct {
	Load             float64 `json:"load"`
	OutputThroughput float64 `json:"output_throughput"`
	Rule             string  `json:"rule"`
}

// Step is one load step's figures; Values keeps every numeric key of the
// step (json names, e.g. p99_ttft_ms), so pages read optional ones.
type Step struct {
	Load           float64
	SLAPass        *bool
	HarnessLimited bool
	ResultFile     string
	Values         map[string]float64
}

// Get returns the step's value for key, if present.
func (s *Step) Get(key string) (float64, bool) {
	v, ok := s.Values[key]
	return v, ok
}

// UnmarshalJSON reads a step tolerantly: numbers into Values, and the
// known non-numeric keys.
func (s *Step) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	s.Values = map[string]float64{}
	for k, v := range m {
		switch x := v.(type) {
		case json.Number:
			if f, err := x.Float64(); err == nil {
				s.Values[k] = f
			}
		case bool:
			switch k {
			case "sla_pass":
				s.SLAPass = &x
			case "harness_limited":
				s.HarnessLimited = x
			}
		case string:
			if k == "result_file" {
				s.ResultFile = x
			}
		}
	}
	load, ok := s.Values["load"]
	if !ok {
		return fmt.Errorf("a step has no numeric load")
	}
	s.Load = load
	return nil
}

// parseSweep decodes a sweep file and sorts its steps by load.
func parseSweep(path string, data []byte) (*Sweep, error) {
	var sw Sweep
	if err := json.Unmarshal(report.PythonJSONCompat(data), &sw); err != nil {
		return nil, fmt.Errorf("%s: not a sweep file: %w", path, err)
	}
	if len(sw.Steps) == 0 {
		return nil, fmt.Errorf("%s: the sweep has no steps", path)
	}
	sw.Path = path
	slices.SortStableFunc(sw.Steps, func(a, b Step) int {
		switch {
		case a.Load < b.Load:
			return -1
		case a.Load > b.Load:
			return 1
		}
		return 0
	})
	return &sw, nil
}

// LoadUnit names the sweep's load axis with its unit.
func (sw *Sweep) LoadUnit() string {
	switch sw.LoadKind {
	case "request_rate":
		return "request rate (req/s)"
	case "users":
		return "users (closed loop)"
	}
	return "max concurrency (requests)"
}

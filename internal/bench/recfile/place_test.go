package recfile

import (
	"path/filepath"
	"testing"
)

// TestPlace: where the records go, flag by flag.
func TestPlace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		p    Place
		path string
		temp bool
	}{
		{"--save-records wins over a detailed result", Place{Path: "x/r.jsonl", Dir: "out", Result: "r.json", Detailed: true}, "x/r.jsonl", false},
		{"--save-detailed: beside the result", Place{Dir: "out", Result: "vllm-1qps.json", Detailed: true}, filepath.Join("out", "vllm-1qps.records.jsonl"), false},
		{"--save-detailed, a name without extension", Place{Dir: "out", Result: "r", Detailed: true}, filepath.Join("out", "r.records.jsonl"), false},
		{"a result alone: a temporary copy", Place{Dir: "out", Result: "r.json"}, filepath.Join("out", ".llmbench-records-20261202-081500-42.jsonl"), true},
		{"no result, no path: none", Place{Dir: "out", Detailed: true}, "", false},
	} {
		f := c.p.File("20261202-081500", 42)
		if f.Path != c.path || f.Temp != c.temp {
			t.Errorf("%s: %q temp %v, want %q temp %v", c.name, f.Path, f.Temp, c.path, c.temp)
		}
	}
}

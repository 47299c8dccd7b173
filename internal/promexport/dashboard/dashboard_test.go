package dashboard

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/promexport/querynames"
	"github.com/llmbench/llmbench/internal/sim"
)

var update = flag.Bool("update", false, "rewrite deploy/grafana/llmbench-dashboard.json")

var jsonPath = filepath.Join("..", "..", "..", "deploy", "grafana", "llmbench-dashboard.json")

// TestCommittedJSONIsCurrent fails when the committed dashboard differs
// from what this package builds (run with -update to rewrite it).
func TestCommittedJSONIsCurrent(t *testing.T) {
	got, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(jsonPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go test ./internal/promexport/dashboard -update", jsonPath)
	}
}

// labelValues matches a Grafana variable query: label_values(SELECTOR, LABEL).
var labelValues = regexp.MustCompile(`^label_values\((.*),\s*(\w+)\)$`)

// TestQueriesNameExportedMetrics: every PromQL expression in the
// committed dashboard — panel targets and variable queries — reads only
// metrics the exporter exposes (or, for the server row, vLLM's names as
// the simulator exposes them), and every variable is a label the
// exporter's series carry.
func TestQueriesNameExportedMetrics(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Type    string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Name, Type string
				Query      any
			}
		}
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	exported := append(promexport.New(promexport.Config{}).MetricNames(), simMetricNames(t)...)
	check := func(where, expr string) {
		names := querynames.Metrics(expr)
		if len(names) == 0 {
			t.Errorf("%s: no metric in %q", where, expr)
		}
		for _, n := range names {
			if !slices.Contains(exported, n) {
				t.Errorf("%s: %s is not exported by llmbench (query %q)", where, n, expr)
			}
		}
	}
	nTargets := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			nTargets++
			check("panel "+p.Title, tg.Expr)
		}
		if p.Type == "timeseries" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
	}
	if nTargets < 15 {
		t.Errorf("%d queries in the dashboard, expected at least 15", nTargets)
	}
	var vars []string
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(string)
		m := labelValues.FindStringSubmatch(q)
		if m == nil {
			t.Errorf("variable %s: query %q is not label_values(metric, label)", v.Name, q)
			continue
		}
		check("variable "+v.Name, m[1])
		vars = append(vars, m[2])
	}
	if !slices.Equal(vars, []string{"run_id", "backend", "model", "phase"}) {
		t.Errorf("label variables %q, want one per exporter label", vars)
	}
}

// simMetricNames are the names on the simulator's /metrics (vLLM's).
func simMetricNames(t *testing.T) []string {
	t.Helper()
	s, err := sim.New(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := httptest.NewRecorder()
	s.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var names []string
	for line := range strings.Lines(rec.Body.String()) {
		if name, _, ok := strings.Cut(line, "{"); ok && !strings.HasPrefix(line, "#") {
			names = append(names, name)
		}
	}
	if !slices.Contains(names, "vllm:num_requests_running") {
		t.Fatalf("simulator metrics %q lack vllm:num_requests_running", names)
	}
	return names
}

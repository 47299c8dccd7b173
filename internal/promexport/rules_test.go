package promexport_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/llmbench/llmbench/internal/promexport"
	"github.com/llmbench/llmbench/internal/promexport/querynames"
)

// promDir holds the example Prometheus configuration and alert rules.
var promDir = filepath.Join("..", "..", "deploy", "prometheus")

// TestPromtool runs promtool on the shipped files: the rules and the
// example configuration load, and every alert fires (and stays quiet) as
// alerts_test.yml expects on synthetic series.
func TestPromtool(t *testing.T) {
	t.Parallel()
	bin := needTool(t, "promtool")
	for _, args := range [][]string{
		{"check", "rules", "alerts.yml"},
		{"check", "config", "prometheus.yml"},
		{"test", "rules", "alerts_test.yml"},
	} {
		cmd := exec.CommandContext(t.Context(), bin, args...)
		cmd.Dir = promDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}

// TestAlertRulesQueryExportedMetrics: every metric an alert rule reads is
// one the exporter exposes (a renamed metric must not silence an alert).
func TestAlertRulesQueryExportedMetrics(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(promDir, "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Alert, Record, Expr string
			}
		}
	}
	if err := yaml.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	exported := promexport.New(promexport.Config{}).MetricNames()
	n := 0
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			n++
			names := querynames.Metrics(r.Expr)
			if len(names) == 0 {
				t.Errorf("%s: no metric in %q", r.Alert+r.Record, r.Expr)
			}
			for _, name := range names {
				if !slices.Contains(exported, name) {
					t.Errorf("%s reads %s, which llmbench does not export", r.Alert+r.Record, name)
				}
			}
		}
	}
	if n < 4 {
		t.Errorf("%d rules in alerts.yml, want at least 4", n)
	}
}

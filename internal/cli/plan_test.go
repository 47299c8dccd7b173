package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planSweep is the real sweep of a server holding 8 streams at $2/h
// (internal/plan/testdata/README.md says how it was made).
const planSweep = "../plan/testdata/sweep-sim-batch8.json"

// TestPlanCommand: the example through the command: the table on
// standard output, plan-*.json saved with mode 0600 and the keys,
// and --format json printing the same file.
func TestPlanCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errs := runCLI(t, "plan", planSweep, "--peak-users", "40", "--off-peak-users", "4", "--result-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"sim-batch8                   8              6.4    2.00              7             1        14.00       10,220.00",
		"RECOMMENDED", `averageValue: "6.4"`, "(6 where a whole number is needed)", "SageMakerVariantInvocationsPerInstance",
		"aws application-autoscaling register-scalable-target", "--min-capacity 1 --max-capacity 7"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "plan-*.json"))
	if len(files) != 1 || !strings.Contains(errs, "Plan saved to "+files[0]) {
		t.Fatalf("plan files %v, stderr %q", files, errs)
	}
	st, err := os.Stat(files[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("plan file mode %v (%v), want 0600", st.Mode(), err)
	}
	data, _ := os.ReadFile(files[0])
	var p struct {
		Candidates []map[string]any `json:"candidates"`
		Rec        map[string]any   `json:"recommendation"`
		HPA        map[string]any   `json:"hpa"`
		SageMaker  map[string]any   `json:"sagemaker"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	c := p.Candidates[0]
	for _, k := range []string{"label", "max_load_under_sla", "price_per_hour", "peak_replicas", "static_cost_per_month",
		"autoscaled_cost_per_month", "sla_overrun_user_minutes", "slots"} {
		if _, ok := c[k]; !ok {
			t.Errorf("candidate lacks %q", k)
		}
	}
	slot := c["slots"].([]any)[14].(map[string]any)
	if slot["time"] != "14:00" || slot["users"] != 40.0 || slot["replicas"] != 7.0 || slot["cost_per_hour"] != 14.0 {
		t.Errorf("14:00 slot %v", slot)
	}
	if c["static_cost_per_month"] != 10220.0 || p.Rec["label"] != "sim-batch8" || p.Rec["peak_replicas"] != 7.0 ||
		p.Rec["autoscaled_cost_per_month"] == nil || p.HPA["average_value"] != 6.4 ||
		p.SageMaker["min_capacity"] != 1.0 || p.SageMaker["max_capacity"] != 7.0 || p.SageMaker["target_invocations_per_instance_per_minute"] == nil {
		t.Errorf("plan %v %v %v", p.Rec, p.HPA, p.SageMaker)
	}
	// --format json prints the plan file itself; a --result-dir that does
	// not exist yet is made, as run and sweep make theirs.
	dir2 := filepath.Join(t.TempDir(), "new", "plans")
	code, out, _ = runCLI(t, "plan", planSweep, "--peak-users", "40", "--result-dir", dir2, "--format", "json")
	files2, _ := filepath.Glob(filepath.Join(dir2, "plan-*.json"))
	if code != 0 || len(files2) != 1 {
		t.Fatalf("exit %d, files %v", code, files2)
	}
	saved, _ := os.ReadFile(files2[0])
	if out != string(saved) || string(saved) != string(data) {
		t.Errorf("--format json output differs from the saved plan or from the first run's")
	}
}

// TestPlanCommandRequestsPerS: a demand CSV in requests per second is
// turned into users by Little's law with the sweep's mean E2EL and think
// time at its max load under the SLA (8 users: 677.6 ms, none), and the
// table says so.
func TestPlanCommandRequestsPerS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := filepath.Join(dir, "rps.csv")
	if err := os.WriteFile(csv, []byte("time,requests_per_s\n00:00,5\n09:00,40\n18:00,10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "plan", planSweep, "--demand", csv, "--result-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	// 40 req/s × 0.6776 s = 27.1 users: ceil(27.1 / 6.4) = 5 replicas;
	// one serves while they start: (27.1 - 8) users × 5 min over the SLA.
	for _, want := range []string{"Little's law (sim-batch8): users = requests/s × (mean E2EL 677.6 ms + think time 0 s), from its step at load 8",
		"09:00              40    5 (95.5)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestPlanCommandErrors: bad input is one line on stderr and exit 2, and
// nothing is saved.
func TestPlanCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badCSV := write("bad.csv", "time,users\n00:00,3\n12:00,many\n")
	rpsCSV := write("rps.csv", "time,requests_per_s\n00:00,3\n")
	notSweep := write("result.json", `{"completed": 3, "duration": 1}`)
	sweep, _ := os.ReadFile(planSweep)
	var s map[string]any
	_ = json.Unmarshal(sweep, &s)
	s["max_load_under_sla"] = map[string]any{"load": nil, "binding": "p90_ttft_ms", "first_failing_load": 2}
	failing, _ := json.Marshal(s)
	never := write("sweep-never.json", string(failing))
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing sweep", []string{"nothere.json", "--peak-users", "4"}, "sweep file nothere.json does not exist"},
		{"not a sweep", []string{notSweep, "--peak-users", "4"}, "not a sweep file"},
		{"no demand", []string{planSweep}, "give the demand: --demand FILE"},
		{"both demands", []string{planSweep, "--peak-users", "4", "--demand", rpsCSV}, "give --demand or --peak-users, not both"},
		{"bad csv", []string{planSweep, "--demand", badCSV}, "bad.csv line 3: users \"many\" is not a number >= 0"},
		{"no load under the SLA", []string{never, "--peak-users", "4"}, "no sweep can be planned and priced (" + never + ": never meets the SLA at any load tested)"},
		{"prices per sweep", []string{planSweep, "--peak-users", "4", "--price-per-hour", "1,2"}, "--price-per-hour: 2 values for 1 sweeps"},
		{"bad price", []string{planSweep, "--peak-users", "4", "--price-per-hour", "2,free"}, `--price-per-hour "free": want a price > 0`},
		{"utilisation", []string{planSweep, "--peak-users", "4", "--target-utilisation", "0"}, "--target-utilisation 0: want more than 0, at most 1"},
		{"profile", []string{planSweep, "--peak-users", "4", "--profile", "weekly"}, `--profile "weekly": want diurnal or flat`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(t, append([]string{"plan", "--result-dir", out}, tt.args...)...)
			if code != 2 || !strings.Contains(errs, tt.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, errs, tt.want)
			}
		})
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*")); len(files) > 0 {
		t.Errorf("files left after errors: %v", files)
	}
}

// TestPlanHelp: --help explains the demand and shows an example.
func TestPlanHelp(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "plan", "--help")
	for _, want := range []string{"time,requests_per_s", "Little's law", "llmbench plan sweep-g5-*.json sweep-g6e-*.json --demand demand.csv", "--scale-up-delay"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}

// TestPlanCommandUnpriced: a sweep without a price cannot be
// recommended; the error says how to give one, and --price-per-hour does.
func TestPlanCommandUnpriced(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sweep, _ := os.ReadFile(planSweep)
	var s map[string]any
	_ = json.Unmarshal(sweep, &s)
	delete(s, "pricing")
	b, _ := json.Marshal(s)
	unpriced := filepath.Join(dir, "sweep-unpriced.json")
	if err := os.WriteFile(unpriced, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "plan", unpriced, "--peak-users", "40", "--result-dir", dir)
	if code != 2 || !strings.Contains(errs, "not priced (sweep without --price-per-hour or --instance-type)") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	code, out, errs := runCLI(t, "plan", unpriced, "--peak-users", "40", "--price-per-hour", "2", "--result-dir", dir)
	if code != 0 || !strings.Contains(out, "10,220.00") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}

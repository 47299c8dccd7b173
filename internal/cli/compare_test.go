package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ccResult writes the expected save_result of a conformance vector (a
// file exactly as vLLM saved it) into dir and returns its path.
func ccResult(t *testing.T, dir, name, as string) string {
	t.Helper()
	exp := mcLoadExpected(t, name)
	path := filepath.Join(dir, as)
	if err := os.WriteFile(path, exp.SaveResult, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ccResult(t, dir, "basic_stream", "a.json")
	b := ccResult(t, dir, "skewed_itl", "b.json")
	code, out, errOut := mcRun(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// basic_stream p99 TTFT 294.66792 ms, skewed_itl 273.6319 ms:
	// (273.6319-294.66792)/294.66792 = -7.14%.
	// basic_stream output throughput 55.83, skewed_itl 54.57: -2.26%.
	for _, want := range []string{
		"A  " + a + "\nB  " + b + "\nMetric                                      A        B         Δ%\n",
		"P99 TTFT (ms)                          294.67   273.63     -7.14%\n",
		"Output token throughput (tok/s)         55.83    54.57     -2.26%\n",
		"Successful requests                        10        6    -40.00%\n",
		"Peak output token throughput (tok/s)    56.00   114.00   +103.57%\n",
		"Mean E2EL (ms)                              -  1283.83          -\n",
		// Every percentile either file saved, in numeric order, P99.9 after P99.
		"P90 ITL (ms)                                -    39.85          -\n",
		"P99 ITL (ms)                            39.48   612.00  +1450.24%\nP99.9 ITL (ms)                              -  1418.40          -\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// request_goodput is null in both: no row.
	if strings.Contains(out, "goodput") {
		t.Errorf("table shows goodput although both files have null:\n%s", out)
	}
}

func TestCompareFailIf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ccResult(t, dir, "basic_stream", "a.json")
	b := ccResult(t, dir, "skewed_itl", "b.json")
	tests := []struct {
		name     string
		bounds   []string
		wantCode int
		wantErr  []string // one line each, in order
	}{
		{"relative bound not crossed", []string{"p99_ttft_ms>+10%"}, 0, nil},
		{"relative drop crossed", []string{"p99_ttft_ms<-5%"}, 1, []string{
			"fail-if: b.json: p99_ttft_ms 273.63 is -7.14% vs a.json 294.67 (bound p99_ttft_ms<-5%)",
		}},
		{"mean itl grew", []string{"mean_itl_ms>+10%", "p99_itl_ms>=+1000%"}, 1, []string{
			"fail-if: b.json: mean_itl_ms 48.88 is +78.20% vs a.json 27.43 (bound mean_itl_ms>+10%)",
			"fail-if: b.json: p99_itl_ms 612.00 is +1450.24% vs a.json 39.48 (bound p99_itl_ms>=+1000%)",
		}},
		{"absolute bound", []string{"p99_e2el_ms>2000", "completed<=6"}, 1, []string{
			"fail-if: b.json: p99_e2el_ms 2972.00 crosses the bound p99_e2el_ms>2000",
			"fail-if: b.json: completed 6 crosses the bound completed<=6",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"compare", a, b}
			for _, bd := range tt.bounds {
				args = append(args, "--fail-if", bd)
			}
			code, out, errOut := mcRun(t, args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			if !strings.Contains(out, "P99 TTFT (ms)") {
				t.Errorf("the table is printed even when a bound is crossed; got %q", out)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if tt.wantCode == 0 {
				if errOut != "" {
					t.Errorf("stderr %q, want empty", errOut)
				}
				return
			}
			if len(lines) != len(tt.wantErr)+1 {
				t.Fatalf("stderr has %d lines, want %d reasons + summary:\n%s", len(lines), len(tt.wantErr), errOut)
			}
			for i, w := range tt.wantErr {
				if lines[i] != w {
					t.Errorf("reason %d = %q, want %q", i, lines[i], w)
				}
			}
		})
	}
}

func TestCompareAppendedAndJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ccResult(t, dir, "basic_stream", "a.json")
	// An --append-result file: two objects, one per line; the last counts.
	one := mcLoadExpected(t, "goodput_slos").SaveResult
	two := mcLoadExpected(t, "bursts_peak").SaveResult
	var c1, c2 bytes.Buffer
	if err := json.Compact(&c1, one); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&c2, two); err != nil {
		t.Fatal(err)
	}
	appended := filepath.Join(dir, "appended.json")
	if err := os.WriteFile(appended, []byte(c1.String()+"\n"+c2.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := mcRun(t, "compare", a, appended)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "B  "+appended+" (last of 2 results)\n") {
		t.Errorf("table does not say which object was used:\n%s", out)
	}
	// bursts_peak has 13 completed requests (goodput_slos 9).
	if !strings.Contains(out, "Successful requests                        10       13   +30.00%\n") {
		t.Errorf("not the last object:\n%s", out)
	}

	code, out, errOut = mcRun(t, "compare", a, appended, "--format", "json", "--fail-if", "completed>+20%")
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	var got struct {
		Files []struct{ Path, Note string }
		Rows  []struct {
			Key      string
			Values   []*float64
			DeltaPct []*float64 `json:"delta_pct"`
		}
		Crossed []string `json:"fail_if_crossed"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(got.Files) != 2 || got.Files[1].Note != "last of 2 results" || len(got.Crossed) != 1 {
		t.Errorf("files/crossed = %+v / %q", got.Files, got.Crossed)
	}
	found := false
	for _, r := range got.Rows {
		if r.Key == "completed" {
			found = true
			if *r.Values[0] != 10 || *r.Values[1] != 13 || r.DeltaPct[0] != nil || *r.DeltaPct[1] != 30 {
				t.Errorf("completed row = %v %v", r.Values, r.DeltaPct)
			}
		}
	}
	if !found {
		t.Error("no completed row")
	}
}

func TestCompareBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := ccResult(t, dir, "basic_stream", "a.json")
	bad := filepath.Join(dir, "bad.json")
	notResult := filepath.Join(dir, "records.json")
	for path, content := range map[string]string{bad: `{"duration": 1.0, "completed": }`, notResult: `{"params": {}}`} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"compare", a, filepath.Join(dir, "nope.json")}, "no such file"},
		{"invalid JSON", []string{"compare", a, bad}, "bad.json: invalid JSON at byte"},
		{"not a result", []string{"compare", a, notResult}, "not a benchmark result"},
		{"one file", []string{"compare", a}, "compare: want two or more result files, got 1"},
		{"bad bound", []string{"compare", a, a, "--fail-if", "p99_ttft_ms=10%"}, "want KEY>BOUND"},
		{"bad bound number", []string{"compare", a, a, "--fail-if", "p99_ttft_ms>ten%"}, `bound "ten" is not a number`},
		{"unknown key", []string{"compare", a, a, "--fail-if", "p99_foo_ms>1"}, "has no numeric p99_foo_ms"},
		{"bad format", []string{"compare", a, a, "--format", "csv"}, `--format "csv"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := mcRun(t, tt.args...)
			if code != 2 || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", code, errOut, tt.want)
			}
		})
	}
}

// ccEdit writes a conformance vector's saved result with keys replaced
// (set) into dir/as.
func ccEdit(t *testing.T, dir, name, as string, set map[string]any) string {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(mcLoadExpected(t, name).SaveResult, &obj); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		obj[k] = v
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, as)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareLabelsAndInterrupted: columns carry short labels (the runs'
// own labels here) with a legend, so long file names do not widen the
// table, and an interrupted run is marked.
func TestCompareLabelsAndInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := "openai-chat-infqps-concurrency64-Llama-3.1-8B-Instruct-20260101-000000"
	a := ccEdit(t, dir, "basic_stream", long+"-a.json", map[string]any{"label": "base"})
	b := ccEdit(t, dir, "skewed_itl", long+"-b.json", map[string]any{
		"label": "cand", "llmbench": map[string]any{"interrupted": true}})
	code, out, errOut := mcRun(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"base  " + a + "\n",
		"cand  " + b + " (interrupted (Ctrl-C): covers only the requests it finished)\n",
		"Metric                                   base    cand*         Δ%\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n")[2:] {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("table line is %d columns wide, want <= 80: %q", n, line)
		}
	}

	// Same labels in both files: letters instead; JSON says interrupted.
	c := ccEdit(t, dir, "skewed_itl", "c.json", map[string]any{"label": "base"})
	code, out, errOut = mcRun(t, "compare", a, c, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"label": "A"`) || !strings.Contains(out, `"label": "B"`) {
		t.Errorf("repeated run labels should give letters:\n%s", out)
	}
	_, out, _ = mcRun(t, "compare", a, b, "--format", "json")
	if !strings.Contains(out, `"interrupted": true`) {
		t.Errorf("JSON does not mark the interrupted run:\n%s", out)
	}
}

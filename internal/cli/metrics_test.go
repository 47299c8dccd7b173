package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/cli"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report/reporttest"
)

// mcConformanceDir holds the vLLM conformance vectors.
const mcConformanceDir = "../../testdata/conformance/metrics"

var mcCases = []string{"basic_stream", "single_token_outputs", "failures_concurrency", "goodput_slos", "skewed_itl", "bursts_peak", "client_queue"}

// mcRun runs llmbench in-process and returns its exit code and output.
func mcRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Main(context.Background(), "test", args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

type mcExpected struct {
	ResultFilename string          `json:"result_filename"`
	ConsoleTable   []string        `json:"console_table"`
	SaveResult     json.RawMessage `json:"save_result"`
}

func mcLoadExpected(t *testing.T, name string) mcExpected {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mcConformanceDir, name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e mcExpected
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func mcInput(name string) string { return filepath.Join(mcConformanceDir, name+".input.json") }

// TestMetricsConformance runs "llmbench metrics" on every conformance
// vector in each output format.
func TestMetricsConformance(t *testing.T) {
	t.Parallel()
	for _, name := range mcCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			exp := mcLoadExpected(t, name)

			code, out, errOut := mcRun(t, "metrics", mcInput(name), "--format", "json", "--date", "20260101-000000")
			if code != 0 {
				t.Fatalf("json: exit %d, stderr %q", code, errOut)
			}
			reporttest.CompareResult(t, exp.SaveResult, []byte(out))

			code, out, errOut = mcRun(t, "metrics", mcInput(name), "--format", "filename", "--date", "20260101-000000")
			if code != 0 || out != exp.ResultFilename+"\n" {
				t.Errorf("filename: exit %d, got %q, want %q (stderr %q)", code, out, exp.ResultFilename, errOut)
			}

			code, out, errOut = mcRun(t, "metrics", mcInput(name))
			if code != 0 {
				t.Fatalf("table: exit %d, stderr %q", code, errOut)
			}
			// The table is the last lines; failed-request lines may precede it.
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) < len(exp.ConsoleTable) {
				t.Fatalf("table: %d lines, want at least %d:\n%s", len(lines), len(exp.ConsoleTable), out)
			}
			got := lines[len(lines)-len(exp.ConsoleTable):]
			if diff := cmp.Diff(exp.ConsoleTable, got); diff != "" {
				t.Errorf("table (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMetricsGoodputLiteral is the literal command of the acceptance
// criteria: no --date, so the date is now and everything else equals the
// expected save_result.
func TestMetricsGoodputLiteral(t *testing.T) {
	t.Parallel()
	exp := mcLoadExpected(t, "goodput_slos")
	code, out, errOut := mcRun(t, "metrics", mcInput("goodput_slos"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	date, _ := got["date"].(string)
	if !regexp.MustCompile(`^\d{8}-\d{6}$`).MatchString(date) {
		t.Fatalf("date = %q, want YYYYMMDD-HHMMSS", date)
	}
	fixed := strings.Replace(out, `"date": "`+date+`"`, `"date": "20260101-000000"`, 1)
	reporttest.CompareResult(t, exp.SaveResult, []byte(fixed))
}

// TestMetricsFailuresPrinted checks vLLM's failed-request lines before the
// table.
func TestMetricsFailuresPrinted(t *testing.T) {
	t.Parallel()
	code, out, _ := mcRun(t, "metrics", mcInput("failures_concurrency"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "Failed requests during benchmark run detected (capping to 10):\nError 0: Service Unavailable\nError 1: Traceback"
	if !strings.HasPrefix(out, want) {
		t.Errorf("output starts %q, want prefix %q", out[:min(len(out), 120)], want)
	}
}

// mcJSONLines converts a conformance input into our JSON-lines format and
// returns the new file's path.
func mcJSONLines(t *testing.T, name string, edit func(*record.Params, []record.Record)) string {
	t.Helper()
	p, recs, _, err := record.ReadFile(mcInput(name))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&p, recs)
	}
	path := filepath.Join(t.TempDir(), name+".records.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := record.WriteJSONLines(f, p, recs); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMetricsJSONLines: our own records format gives the same vLLM figures
// and, by default, appends the "llmbench" object after vLLM's keys.
func TestMetricsJSONLines(t *testing.T) {
	t.Parallel()
	exp := mcLoadExpected(t, "failures_concurrency")
	path := mcJSONLines(t, "failures_concurrency", func(p *record.Params, recs []record.Record) {
		p.Date = "20260101-000000"
		p.EndpointName = "my-endpoint"
	})
	code, out, errOut := mcRun(t, "metrics", path, "--format", "json", "--extras=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	reporttest.CompareResult(t, exp.SaveResult, []byte(out))

	code, out, _ = mcRun(t, "metrics", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	keys, err := reporttest.Keys([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if keys[len(keys)-1] != "llmbench" {
		t.Errorf("last key = %q, want llmbench (after all of vLLM's)", keys[len(keys)-1])
	}
	var got struct {
		Llmbench struct {
			EndpointName string `json:"endpoint_name"`
			Stream       struct {
				Errors map[string]int `json:"errors"`
			} `json:"stream"`
		} `json:"llmbench"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Llmbench.EndpointName != "my-endpoint" || got.Llmbench.Stream.Errors["unclassified"] != 3 {
		t.Errorf("llmbench object = %+v, want endpoint my-endpoint and 3 unclassified errors", got.Llmbench)
	}

	// The table of our records ends with the specifics section.
	code, out, errOut = mcRun(t, "metrics", path)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(errOut, "interrupted") {
		t.Errorf("a complete run is reported as interrupted: %q", errOut)
	}
	for _, want := range []string{"============== SageMaker Specifics ===============\n", "Error breakdown:                         3         \n  unclassified:                          3         \n"} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
}

// TestMetricsInterrupted: recomputing a run stopped with Ctrl-C says its
// figures are partial.
func TestMetricsInterrupted(t *testing.T) {
	t.Parallel()
	path := mcJSONLines(t, "basic_stream", func(p *record.Params, _ []record.Record) { p.Interrupted = true })
	code, _, errOut := mcRun(t, "metrics", path)
	if code != 0 || !strings.Contains(errOut, "interrupted") {
		t.Errorf("exit %d, stderr %q; want a note that the run was interrupted", code, errOut)
	}
}

// TestMetricsBadInput: every kind of bad input ends with exit code 2 and a
// clear one-line message, never a panic.
func TestMetricsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badJSON := write("bad.json", "{\n \"params\": {\"duration_s\": 1},\n \"requests\": [\n  {\"success\": true,,}\n ]\n}\n")
	badLine := write("bad.jsonl", `{"llmbench_records":1,"params":{"duration_s":1}}`+"\n"+
		`{"index":0,"success":true,"prompt_len":1,"output_tokens":1,"ttft":0.1,"itl":[],"latency":0.1,"start_time":0}`+"\n"+
		`{"index":1,"success":true,"ttft":0.1,`+"\n")
	negTTFT := write("neg.json", `{"params":{"duration_s":1},"requests":[{"success":true,"prompt_len":1,"output_tokens":1,"ttft":-0.5,"itl":[],"latency":0.1,"start_time":0}]}`)
	noDuration := write("nodur.json", `{"params":{},"requests":[]}`)
	notRecords := write("result.json", `{"date":"x","duration":1.0}`)
	typo := write("typo.json", `{"params":{"duration_s":1,"goodputs":{"ttft":1}},"requests":[]}`)
	badMetricParam := write("badmetric.json", `{"params":{"duration_s":1,"percentile_metrics":"ttft,latency"},"requests":[]}`)
	good := mcInput("basic_stream")
	const hdr = `{"llmbench_records":1,"params":{"duration_s":1,"num_prompts":50}}` + "\n"
	const rec0 = `{"index":0,"success":true,"prompt_len":1,"output_tokens":2,"ttft":0.1,"itl":[0.1],"latency":0.2,"start_time":0}` + "\n"
	emptyObject := write("empty.jsonl", hdr+rec0+"{}\n")
	joined := write("joined.jsonl", hdr+rec0+hdr)
	duplicated := write("dup.jsonl", hdr+rec0+rec0)
	infinite := write("inf.jsonl", hdr+`{"index":0,"success":true,"prompt_len":1,"output_tokens":3,"ttft":0.1,"itl":[1e308,1e308],"latency":0.2,"start_time":0}`+"\n")

	tests := []struct {
		name string
		args []string
		want string // substring of the one-line message
	}{
		{"missing file", []string{"metrics", filepath.Join(dir, "nope.json")}, "no such file"},
		{"invalid JSON names line and column", []string{"metrics", badJSON}, "invalid JSON at line 4, column 20"},
		{"invalid JSON-lines names the line", []string{"metrics", badLine}, "line 3: invalid JSON"},
		{"an empty object is no request", []string{"metrics", emptyObject}, `line 3: not a request's record`},
		{"another run's header", []string{"metrics", joined}, "line 3: a records header in the middle of the file"},
		{"a duplicated line", []string{"metrics", duplicated}, "line 3: record 0: request 0 is already recorded on line 2"},
		{"ITLs summing past float64", []string{"metrics", infinite, "--format", "json"}, "line 2: record 0: itl[0] is 1e+308 s, more than 1e+12 s"},
		{"negative ttft", []string{"metrics", negTTFT}, "requests[0]: ttft is negative (-0.5)"},
		{"missing duration", []string{"metrics", noDuration}, "duration_s must be a positive number"},
		{"not a records file", []string{"metrics", notRecords}, `no "requests" array`},
		{"unknown params key", []string{"metrics", typo}, `unknown field "goodputs"`},
		{"unknown percentile metric in file", []string{"metrics", badMetricParam}, `unknown percentile metric "latency"`},
		{"unknown percentile metric flag", []string{"metrics", good, "--percentile-metrics", "ttft,foo"}, `unknown percentile metric "foo"`},
		{"spaces in metric list", []string{"metrics", good, "--percentile-metrics", "ttft, tpot"}, `unknown percentile metric " tpot"`},
		{"bad goodput key", []string{"metrics", good, "--goodput", "latency:100"}, `invalid goodput metric "latency"`},
		{"negative goodput", []string{"metrics", good, "--goodput", "ttft:-1"}, "invalid goodput value -1 for ttft"},
		{"goodput without colon", []string{"metrics", good, "--goodput", "ttft=1"}, "not KEY:VALUE"},
		{"percentile above 100", []string{"metrics", good, "--metric-percentiles", "50,101"}, "metric percentile 101 is outside [0, 100]"},
		{"negative percentile", []string{"metrics", good, "--metric-percentiles", "-1"}, "metric percentile -1 is outside [0, 100]"},
		{"percentile not a number", []string{"metrics", good, "--metric-percentiles", "p99"}, `metric percentile "p99" is not a number`},
		{"bad format", []string{"metrics", good, "--format", "yaml"}, `--format "yaml"`},
		{"bad date", []string{"metrics", good, "--date", "2026-01-01"}, "want YYYYMMDD-HHMMSS"},
		{"no file", []string{"metrics"}, "metrics: want one records file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := mcRun(t, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stdout %q, stderr %q)", code, out, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q lacks %q", errOut, tt.want)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "llmbench: ") {
				t.Errorf("stderr %q is not one line starting with \"llmbench: \"", errOut)
			}
		})
	}
}

// TestMetricsOverrides: flags replace the file's parameters.
func TestMetricsOverrides(t *testing.T) {
	t.Parallel()
	code, out, errOut := mcRun(t, "metrics", mcInput("basic_stream"), "--percentile-metrics", "e2el", "--metric-percentiles", "50,99.9", "--goodput", "ttft:200", "--tokenizer", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Request goodput (req/s):", "P99.9 E2EL (ms):", "P50 E2EL (ms):"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"Total generated tokens:", "Time to First Token"} {
		if strings.Contains(out, absent) {
			t.Errorf("output has %q without a tokenizer:\n%s", absent, out)
		}
	}
}

// TestMetricsGoodputNargs: vLLM's "--goodput a b c" spelling sets all
// three SLOs, reproducing the vector's own goodput.
func TestMetricsGoodputNargs(t *testing.T) {
	t.Parallel()
	path := mcJSONLines(t, "goodput_slos", func(p *record.Params, _ []record.Record) { p.Goodput = nil })
	code, out, errOut := mcRun(t, "metrics", path, "--format", "json", "--goodput", "ttft:200", "tpot:30", "e2el:1000", "--extras=false")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Goodput *float64 `json:"request_goodput"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Goodput == nil || *got.Goodput != 2.5 {
		t.Errorf("request_goodput = %v, want 2.5", got.Goodput)
	}
}

// TestMetricsStdin: "-" reads the records from standard input.
func TestMetricsStdin(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(mcInput("basic_stream"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), "test", []string{"metrics", "-", "--format", "filename", "--date", "20260101-000000"}, bytes.NewReader(data), &out, &errb)
	if code != 0 || out.String() != "openai-infqps-mock-model-20260101-000000.json\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	code = cli.Main(context.Background(), "test", []string{"metrics", "-"}, strings.NewReader("{"), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "stdin: invalid JSON") {
		t.Errorf("bad stdin: exit %d, stderr %q", code, errb.String())
	}
}

package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

func TestPyRepr(t *testing.T) {
	t.Parallel()
	// Expected strings are Python 3's repr(float).
	tests := []struct {
		in   float64
		want string
	}{
		{1, "1.0"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.1, "0.1"},
		{150.00000000000003, "150.00000000000003"},
		{0.0001, "0.0001"},
		{0.00001, "1e-05"},
		{0.000123, "0.000123"},
		{0.0000123, "1.23e-05"},
		{1e15, "1000000000000000.0"},
		{1e16, "1e+16"},
		{1.5e16, "1.5e+16"},
		{123456789012345.6, "123456789012345.6"},
		{5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{-2.5, "-2.5"},
		{math.Inf(1), "inf"},
		{math.NaN(), "nan"},
	}
	for _, tt := range tests {
		if got := PyRepr(tt.in); got != tt.want {
			t.Errorf("PyRepr(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPythonJSON(t *testing.T) {
	t.Parallel()
	o := NewObject()
	o.Set("s", "é\"\\\n\t\x01\x7f😀<&>")
	o.Set("n", nil)
	o.Set("f", []float64{1, 0.5, math.NaN(), math.Inf(1), math.Inf(-1)})
	o.Set("i", []int{1, -2})
	o.Set("rate", record.Inf)
	o.Set("rate2", record.Rate(8))
	o.Set("nested", [][]float64{{}, {0.25}})
	o.Set("s", "replaced keeps position")
	o.Set("b", true)
	o.Set("later", 1)
	o.Delete("later")
	// What Python's json.dumps writes for the same dict.
	want := `{"s": "replaced keeps position", "n": null, "f": [1.0, 0.5, NaN, Infinity, -Infinity], "i": [1, -2], "rate": "inf", "rate2": 8.0, "nested": [[], [0.25]], "b": true}`
	if got := o.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	o2 := NewObject()
	o2.Set("s", "é\"\\\n\t\x01\x7f😀<&>")
	if got, want := o2.String(), `{"s": "\u00e9\"\\\n\t\u0001\u007f\ud83d\ude00<&>"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Our extras: maps with sorted keys, structs through their JSON tags
	// (fields in order), all with Python's separators.
	o3 := NewObject()
	o3.Set("sagemaker", map[string]any{"region": "us-east-1", "endpoint_name": "ep", "n": 2})
	o3.Set("cost", struct {
		USD float64 `json:"usd"`
	}{1.5})
	if got, want := o3.String(), `{"sagemaker": {"endpoint_name": "ep", "n": 2, "region": "us-east-1"}, "cost": {"usd": 1.5}}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	o2.Set("bad", make(chan int))
	if err := o2.WriteJSON(&bytes.Buffer{}); err == nil {
		t.Error("an unsupported type was written")
	}
}

func TestCenterAndLabels(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		" Serving Benchmark Result ":              "============ Serving Benchmark Result ============",
		"Time per Output Token (excl. 1st token)": "-----Time per Output Token (excl. 1st token)------",
	} {
		fill := byte('=')
		if !strings.HasPrefix(in, " ") {
			fill = '-'
		}
		if got := Center(in, fill); got != want {
			t.Errorf("Center(%q) = %q, want %q", in, got, want)
		}
	}
	for p, want := range map[float64]string{99: "99", 99.9: "99.9", 0: "0", 100: "100", 12.5: "12.5", 99.99: "99.99"} {
		if got := PercentileLabel(p); got != want {
			t.Errorf("PercentileLabel(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestResultFilename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    record.Params
		want string
	}{
		{"defaults", record.Params{Backend: "openai", ModelID: "meta-llama/Llama-3.1-8B", RequestRate: record.Inf, Date: "20260101-000000"},
			"openai-infqps-Llama-3.1-8B-20260101-000000.json"},
		{"rate and concurrency", record.Params{Backend: "openai-chat", ModelID: "m", RequestRate: 20, MaxConcurrency: ptr(32), Date: "d"},
			"openai-chat-20.0qps-concurrency32-m-d.json"},
		{"fractional rate and label", record.Params{Backend: "openai", Label: ptr("run"), ModelID: "a/b/c", RequestRate: 0.5, Date: "d"},
			"run-0.5qps-c-d.json"},
		{"empty label falls back to backend", record.Params{Backend: "vllm", Label: ptr(""), ModelID: "m", RequestRate: record.Inf, Date: "d"},
			"vllm-infqps-m-d.json"},
		{"ramp-up", record.Params{Backend: "openai", ModelID: "m", RequestRate: record.Inf, RampUpStrategy: "linear", RampUpStartRPS: ptr(1), RampUpEndRPS: ptr(10), MaxConcurrency: ptr(8), Date: "d"},
			"openai-ramp-up-linear-1qps-10qps-concurrency8-m-d.json"},
	}
	for _, tt := range tests {
		if got := ResultFilename(&tt.p); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// summaryFor builds a Summary of recs the way the CLI does.
func summaryFor(t *testing.T, p *record.Params, recs []record.Record) *metrics.Summary {
	t.Helper()
	mp, err := metrics.ParamsFrom(p, metrics.Whitespace{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testRecords() []record.Record {
	return []record.Record{
		{Success: true, PromptLen: 10, OutputTokens: ptr(3), TTFT: 0.1, ITL: []float64{0.02, 0.03}, Latency: 0.15, StartTime: 0,
			GeneratedText: "a b c", FinishReason: "length", UsageSeen: true, IntendedTime: ptr(0.0)},
		{Success: true, PromptLen: 20, TTFT: 0.2, ITL: nil, Latency: 0.2, StartTime: 0.5, GeneratedText: "x", FinishReason: "stop", IntendedTime: ptr(0.375), QueueTime: 0.125},
		{Success: false, PromptLen: 30, Error: "Service Unavailable", ErrorClass: record.ErrHTTP5xx, StartTime: 0.7},
	}
}

func TestResultOptions(t *testing.T) {
	t.Parallel()
	p := record.ConformanceDefaults()
	p.DurationS, p.Date = 2, "20260101-000000"
	p.Metadata = []string{" team = infra ", "date=overridden", "x=a=b"}
	p.Tokenizer = record.TokenizerNone
	p.RampUpStrategy, p.RampUpStartRPS, p.RampUpEndRPS = "exponential", ptr(1), ptr(4)
	p.RPSChangeEvents = []record.RPSChangeEvent{{RPS: 1, Timestamp: "t0"}}
	p.PercentileMetrics = "ttft,e2el"
	p.MaxConcurrency = ptr(2) // record 1 queued for a slot
	recs := testRecords()
	s := summaryFor(t, &p, recs)

	o, err := Result(s, &p, recs, ResultOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts", "team", "x",
		"request_rate", "burstiness", "max_concurrency", "ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps",
		"duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput",
		"output_throughput", "total_token_throughput", "latencies", "queue_times",
		"max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
		"rps_change_events", "mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p99_e2el_ms"}
	if diff := cmp.Diff(wantKeys, o.Keys()); diff != "" {
		t.Errorf("keys without --save-detailed, no tokenizer (-want +got):\n%s", diff)
	}
	// latencies and queue_times stay without --save-detailed (newer vLLM),
	// one entry per request, failed ones included.
	if text := o.String(); !strings.Contains(text, `"latencies": [0.15, 0.2, 0.0], "queue_times": [0.0, 0.125, 0.0]`) {
		t.Errorf("latencies/queue_times missing or wrong:\n%s", text)
	}
	if v, _ := o.Get("date"); v != "overridden" {
		t.Errorf("metadata date = %v: a Python dict keeps the key's position and takes the new value", v)
	}
	if v, _ := o.Get("x"); v != "a=b" {
		t.Errorf("metadata x = %v, want split at the first =", v)
	}
	if v, _ := o.Get("tokenizer_id"); v.(*string) != nil {
		t.Errorf("tokenizer_id = %v, want null without a tokenizer", v)
	}
	if v, _ := o.Get("total_output_tokens"); v != 4 {
		t.Errorf("total_output_tokens = %v, want 3 + 1 (fallback-1 without a tokenizer)", v)
	}

	o, err = Result(s, &p, recs, ResultOptions{Detailed: true, Extras: true})
	if err != nil {
		t.Fatal(err)
	}
	keys := o.Keys()
	if keys[len(keys)-1] != ExtrasKey {
		t.Errorf("last key %q, want %q", keys[len(keys)-1], ExtrasKey)
	}
	text := o.String()
	for _, want := range []string{
		`"itls": [[0.02, 0.03], [], []], "latencies": [0.15, 0.2, 0.0], "start_times": [0.0, 0.5, 0.7], "queue_times": [0.0, 0.125, 0.0], "generated_texts"`,
		`"output_lens": [3, 1, 0]`,
		`"errors": ["", "", "Service Unavailable"]`,
		`"dispatch_lag": {"n": 2, "mean_ms": 0.0, "median_ms": 0.0, "std_ms": 0.0, "p99_ms": 0.0}`,
		`"stream": {"truncated_length": 1, "stopped_eos": 1, "finish_reason_unknown": 0, "without_usage": 1, "output_token_sources": {"server-usage": 1, "fallback-1": 1}, "errors": {"http_5xx": 1}}`,
		`"rps_change_events": [{"rps": 1, "timestamp": "t0"}]`,
		`"per_user_tps_n": 1, "mean_per_user_tps": 60.000000000000014, "median_per_user_tps": 60.000000000000014, "p1_per_user_tps": 60.000000000000014, "p5_per_user_tps": 60.000000000000014, "p10_per_user_tps": 60.000000000000014, "system_output_tps": 2.0, "token_goodput": 0.5, "token_goodput_tokens": 1, "token_goodput_requests": 1, "stream":`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %s\n%s", want, text)
		}
	}
	if _, err := Result(s, &p, recs[:1], ResultOptions{}); err == nil {
		t.Error("a record count that does not match the summary was accepted")
	}
}

func TestTableWithoutTokenizerAndSpecifics(t *testing.T) {
	t.Parallel()
	p := record.ConformanceDefaults()
	p.DurationS = 2
	p.Tokenizer = record.TokenizerNone
	p.PercentileMetrics = "ttft,tpot,itl,e2el"
	p.MetricPercentiles = "50,99.9"
	p.Goodput = map[string]float64{"e2el": 150}
	p.MaxConcurrency = ptr(2)
	p.RequestRate = 3
	recs := testRecords()
	s := summaryFor(t, &p, recs)
	want := []string{
		"============ Serving Benchmark Result ============",
		"Successful requests:                     2         ",
		"Failed requests:                         1         ",
		"Maximum request concurrency:             2         ",
		"Request rate configured (RPS):           3.00      ",
		"Benchmark duration (s):                  2.00      ",
		"Total input tokens:                      30        ",
		"Request throughput (req/s):              1.00      ",
		"Request goodput (req/s):                 0.50      ",
		"Peak concurrent requests:                2.00      ",
		"----------------End-to-end Latency----------------",
		"Mean E2EL (ms):                          175.00    ",
		"Median E2EL (ms):                        175.00    ",
		"P50 E2EL (ms):                           175.00    ",
		"P99.9 E2EL (ms):                         199.95    ",
		"==================================================",
	}
	if diff := cmp.Diff(want, TableLines(s, &p)); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}

	var buf bytes.Buffer
	if err := WriteSpecifics(&buf, SageMakerSpecifics, s); err != nil {
		t.Fatal(err)
	}
	wantSpec := strings.Join([]string{
		"============== SageMaker Specifics ===============",
		"Truncated (finish_reason=length):        1         ",
		"Stopped at EOS:                          1         ",
		"Finish reason unknown:                   0         ",
		"Requests without usage frame:            1         ",
		"Output token count source:               server-usage 1, fallback-1 1",
		"Error breakdown:                         1         ",
		"  http_5xx:                              1         ",
		"==================================================",
	}, "\n") + "\n"
	if buf.String() != wantSpec {
		t.Errorf("specifics:\n%s\nwant:\n%s", buf.String(), wantSpec)
	}

	buf.Reset()
	if err := WriteFailures(&buf, s); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "Failed requests during benchmark run detected (capping to 10):\nError 0: Service Unavailable\n" {
		t.Errorf("failures = %q", got)
	}
	ok := *s
	ok.Failed, ok.Stream.Errors = 0, nil
	buf.Reset()
	WriteFailures(&buf, &ok)
	WriteSpecifics(&buf, StreamSpecifics, &ok)
	if !strings.Contains(buf.String(), "Error breakdown:                         none      \n") || strings.Contains(buf.String(), "Failed requests") {
		t.Errorf("without failures:\n%s", buf.String())
	}
}

func TestSaveResult(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "results", "sub")
	o := NewObject()
	o.Set("completed", 1)
	path, err := SaveResult(dir, "r.json", false, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Set("completed", 2)
	if _, err := SaveResult(dir, "r.json", true, o); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveResult(dir, "r.json", true, o); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"completed\": 1}\n{\"completed\": 2}\n{\"completed\": 2}"; string(got) != want {
		t.Errorf("appended file = %q, want %q", got, want)
	}
	if _, err := SaveResult(dir, "r.json", false, o); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"completed": 2}` {
		t.Errorf("overwritten file = %q", got)
	}
	// Results carry server text (error bodies may echo credentials).
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != FileMode {
		t.Errorf("mode %v (%v), want %v", st.Mode().Perm(), err, 0o600)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the result folder, want 1 (no temporary file left)", len(entries))
	}
}

// TestSaveResultErrorKeepsOld: a write that fails (here: the object cannot
// be encoded) leaves the previous file whole and returns the error.
func TestSaveResultErrorKeepsOld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o := NewObject()
	o.Set("completed", 1)
	path, err := SaveResult(dir, "r.json", false, o)
	if err != nil {
		t.Fatal(err)
	}
	bad := NewObject()
	bad.Set("completed", 2)
	bad.Set("bad", make(chan int))
	for _, appendMode := range []bool{false, true} {
		if _, err := SaveResult(dir, "r.json", appendMode, bad); err == nil {
			t.Fatalf("append=%v: no error for an object that cannot be encoded", appendMode)
		}
		if got, _ := os.ReadFile(path); string(got) != `{"completed": 1}` {
			t.Errorf("append=%v: file = %q after a failed save, want the old content", appendMode, got)
		}
	}
}

// TestClientTimingLines: llmbench's own section uses the table's layout,
// shows only the blocks that have data, and the intended-time blocks only
// when asked.
func TestClientTimingLines(t *testing.T) {
	t.Parallel()
	p := record.ConformanceDefaults()
	p.DurationS = 2
	p.MaxConcurrency = ptr(2)
	p.MetricPercentiles = "50"
	recs := testRecords()
	s := summaryFor(t, &p, recs)
	want := []string{
		"========= Client-side Timing (llmbench) ==========",
		"----------------Client queue time-----------------",
		"Mean Queue (ms):                         62.50     ",
		"Median Queue (ms):                       62.50     ",
		"P50 Queue (ms):                          62.50     ",
		"----------Dispatch lag (sent - intended)----------",
		"Mean Lag (ms):                           0.00      ",
		"Median Lag (ms):                         0.00      ",
		"P50 Lag (ms):                            0.00      ",
		// 3 tokens in 0.05 s after the first; the 1-token request has no
		// per-user TPS; only the "stop" one (1 token) is token goodput.
		"------------------Per-user view-------------------",
		"Mean per-user TPS (tok/s):               60.00     ",
		"Median per-user TPS (tok/s):             60.00     ",
		"P1 per-user TPS (tok/s):                 60.00     ",
		"P5 per-user TPS (tok/s):                 60.00     ",
		"P10 per-user TPS (tok/s):                60.00     ",
		"System output TPS (tok/s):               2.00      ",
		"Token goodput (tok/s):                   0.50      ",
		"==================================================",
	}
	if diff := cmp.Diff(want, ClientTimingLines(s, false)); diff != "" {
		t.Errorf("client timing (-want +got):\n%s", diff)
	}
	got := ClientTimingLines(s, true)
	if diff := cmp.Diff([]string{
		"-----------TTFT from intended send time-----------",
		"Mean TTFT* (ms):                         212.50    ",
	}, got[9:11]); diff != "" || len(got) != len(want)+8 {
		t.Errorf("with fromIntended, %d lines (-want +got):\n%s", len(got), diff)
	}
	var none metrics.Summary
	if l := ClientTimingLines(&none, true); l != nil {
		t.Errorf("without data: %q, want nothing", l)
	}
}

func TestWriteWarnings(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := &metrics.Summary{Warnings: []string{"one", "two"}}
	if err := WriteWarnings(&buf, s); err != nil || buf.String() != "Warning: one\nWarning: two\n" {
		t.Errorf("WriteWarnings = %q, %v", buf.String(), err)
	}
}

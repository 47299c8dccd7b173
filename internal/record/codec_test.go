package record

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func intp(v int) *int         { return &v }
func f64p(v float64) *float64 { return &v }
func strp(v string) *string   { return &v }

func TestJSONLinesRoundTrip(t *testing.T) {
	t.Parallel()
	p := Params{
		DurationS: 12.5, RequestRate: Inf, Burstiness: Rate(math.Inf(1)), MaxConcurrency: intp(4),
		Goodput: map[string]float64{"ttft": 200}, PercentileMetrics: "ttft,e2el", MetricPercentiles: "50,99.9",
		Tokenizer: "meta-llama/Llama-3.1-8B", Backend: "openai-chat", ModelID: "m", NumPrompts: intp(2),
		Label: strp("lbl"), Metadata: []string{"a=b"}, Date: "20260101-000000", Interrupted: true,
		EndpointName: "ep", RampUpStrategy: "linear", RampUpStartRPS: intp(1), RampUpEndRPS: intp(5),
		RPSChangeEvents: []RPSChangeEvent{{RPS: 1, Timestamp: "2026-01-01T00:00:00"}},
	}
	recs := []Record{
		{Index: 0, Success: true, PromptLen: 5, OutputTokens: intp(3), TTFT: 0.1, ITL: []float64{0.01, 0.02},
			Latency: 0.13, StartTime: 1, GeneratedText: "héllo \"x\"\n<tag>", IntendedTime: f64p(0.9), QueueTime: 0.05,
			OutputTokensSource: SourceServerUsage, FinishReason: "length", UsageSeen: true, HTTPStatus: 200, Worker: 2},
		{Index: 1, Success: false, PromptLen: 7, ITL: []float64{}, Error: "Bad Gateway", ErrorClass: ErrHTTP5xx,
			OutputTokensSource: SourceTokenizer, TokenizerCount: 4},
	}
	var buf bytes.Buffer
	if err := WriteJSONLines(&buf, p, recs); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(buf.String(), "\n"); !strings.HasPrefix(first, `{"llmbench_records":1,"params":{"duration_s":12.5,"request_rate":"inf","burstiness":"inf"`) {
		t.Errorf("header line = %s", first)
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Errorf("%d lines, want header + 2 records", n)
	}
	gotP, gotRecs, format, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if format != FormatJSONLines {
		t.Errorf("format = %v", format)
	}
	if diff := cmp.Diff(p, gotP); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(recs, gotRecs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestReadConformanceDefaults(t *testing.T) {
	t.Parallel()
	in := `{"description": "d", "params": {"duration_s": 2, "request_rate": 8.0, "max_concurrency": 4},
	 "requests": [{"success": true, "prompt_len": 3, "output_tokens": null, "expected_output_len": 3,
	   "ttft": 0.1, "itl": [0.1], "latency": 0.2, "start_time": 5.0, "generated_text": "a b", "error": ""},
	  {"success": false, "prompt_len": 3, "output_tokens": 0, "ttft": 0, "itl": [], "latency": 0, "start_time": 5.5, "generated_text": "", "error": "x"}]}`
	p, recs, format, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := ConformanceDefaults()
	want.DurationS, want.RequestRate, want.MaxConcurrency, want.NumPrompts = 2, 8, intp(4), intp(2)
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if format != FormatConformance || len(recs) != 2 || recs[1].Index != 1 || recs[0].OutputTokens != nil || *recs[1].OutputTokens != 0 {
		t.Errorf("format %v records %+v", format, recs)
	}
	if id := p.ResolvedTokenizerID(); id == nil || *id != "mock-model" {
		t.Errorf("tokenizer id = %v, want the model id", id)
	}
}

// TestReadJSONLinesDefaults: a header with only duration_s means vLLM's
// defaults, without the conformance format's tokenizer, backend and model.
func TestReadJSONLinesDefaults(t *testing.T) {
	t.Parallel()
	p, _, _, err := Read(strings.NewReader(`{"llmbench_records":1,"params":{"duration_s":3}}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Params{DurationS: 3, RequestRate: Inf, Burstiness: 1, PercentileMetrics: "ttft,tpot,itl", MetricPercentiles: "99", NumPrompts: intp(0)}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	t.Parallel()
	const hdr = `{"llmbench_records":1,"params":{"duration_s":1}}` + "\n"
	const good = `{"index":0,"success":true,"prompt_len":1,"ttft":0.1,"itl":[],"latency":0.1,"start_time":0}` + "\n"
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "empty file"},
		{"blank", "\n  \n", "empty file"},
		{"JSON-lines syntax error names the line and byte", hdr + good + `{"index":1,"success":tru}` + "\n", "line 3: invalid JSON at byte 25: invalid character '}' in literal true"},
		{"JSON-lines truncated line", hdr + `{"index":1,` + "\n", "line 2: invalid JSON: unexpected end of input"},
		{"JSON-lines wrong type", hdr + `{"index":1,"ttft":"fast"}` + "\n", "line 2: invalid JSON at byte 24: ttft must be float64, not string"},
		{"JSON-lines two values on a line", hdr + good[:len(good)-1] + good, "line 2: invalid JSON at byte"},
		{"JSON-lines stray bracket after the record", hdr + good[:len(good)-1] + "]\n", "line 2: invalid JSON at byte"},
		{"JSON-lines negative time", hdr + `{"index":7,"success":true,"ttft":0.1,"itl":[0.1,-0.2],"latency":1}` + "\n", "line 2: record 7: itl[1] is negative (-0.2)"},
		{"JSON-lines unknown key", hdr + `{"index":0,"success":true,"bogus":1}` + "\n", `line 2: unknown field "bogus"`},
		{"JSON-lines empty object", hdr + good + "{}\n", `line 3: not a request's record: "index" and "success" are required`},
		{"JSON-lines another run's header", hdr + good + hdr + `{"index":1,"success":true}` + "\n", "line 3: a records header in the middle of the file"},
		{"JSON-lines duplicated line", hdr + good + `{"index":1,"success":true}` + "\n" + good, "line 4: record 0: request 0 is already recorded on line 2"},
		{"JSON-lines negative index", hdr + `{"index":-1,"success":true}` + "\n", "line 2: record -1: the request index is negative"},
		{"JSON-lines index past num_prompts", `{"llmbench_records":1,"params":{"duration_s":1,"num_prompts":2}}` + "\n" + `{"index":2,"success":true}` + "\n", "line 2: record 2: the request index is outside the run's 0..1 (num_prompts 2)"},
		{"JSON-lines ITLs that sum past float64", hdr + `{"index":0,"success":true,"ttft":0.1,"itl":[1e308,1e308],"latency":1}` + "\n", "line 2: record 0: itl[0] is 1e+308 s, more than 1e+12 s: not a measured time"},
		{"JSON-lines huge start time", hdr + `{"index":0,"success":true,"start_time":-1.7e308}` + "\n", "line 2: record 0: start_time is -1.7e+308 s, more than 1e+12 s from the run's start"},
		{"JSON-lines huge latency", hdr + `{"index":0,"success":true,"latency":1e300}` + "\n", "line 2: record 0: latency is 1e+300 s"},
		{"conformance ITLs that sum past float64", `{"params": {"duration_s": 1}, "requests": [{"success": true, "itl": [1.7e308, 1.7e308]}]}`, "requests[0]: itl[0] is 1.7e+308 s"},
		{"header version", `{"llmbench_records":2,"params":{"duration_s":1}}` + "\n", "version 2 is not supported"},
		{"header unknown param", `{"llmbench_records":1,"params":{"duration_s":1,"rate":3}}` + "\n", `line 1 (header): unknown field "rate"`},
		{"header without duration", `{"llmbench_records":1,"params":{}}` + "\n", "line 1 (header): duration_s must be a positive number"},
		{"header bad rate", `{"llmbench_records":1,"params":{"duration_s":1,"request_rate":"fast"}}` + "\n", `request rate "fast" is not a non-negative number or "inf"`},
		{"conformance syntax error has line and column", "{\"params\": {\"duration_s\": 1},\n \"requests\": [}\n", "invalid JSON at line 2, column 15 (byte 45)"},
		{"conformance type error", `{"params": {"duration_s": 1}, "requests": [{"latency": "1"}]}`, "requests.latency must be float64, not string"},
		{"conformance negative prompt", `{"params": {"duration_s": 1}, "requests": [{"prompt_len": -1}]}`, "requests[0]: prompt_len is negative (-1)"},
		{"conformance NaN-free but negative ttft", `{"params": {"duration_s": 1}, "requests": [{}, {"ttft": -1e-9}]}`, "requests[1]: ttft is negative"},
		{"no requests", `{"params": {"duration_s": 1}}`, `no "requests" array`},
		{"no params", `{"requests": []}`, `no "params" object`},
		{"a result file is not records", `{"date": "x", "duration": 1.0}`, `no "requests" array`},
		{"metadata without =", `{"params": {"duration_s": 1, "metadata": ["x"]}, "requests": []}`, `metadata item "x" is not KEY=VALUE`},
		{"negative max concurrency", `{"params": {"duration_s": 1, "max_concurrency": -1}, "requests": []}`, "max_concurrency must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, _, err := Read(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Rate{"inf": Inf, "Infinity": Inf, " 2.5 ": 2.5, "0": 0} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "nan", "fast"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

func TestResolvedTokenizerID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    Params
		want *string
	}{
		{Params{Tokenizer: TokenizerNone, ModelID: "m"}, nil},
		{Params{Tokenizer: TokenizerWhitespace, ModelID: "m"}, strp("m")},
		{Params{Tokenizer: "", ModelID: "m"}, strp("m")},
		{Params{Tokenizer: "org/tok", ModelID: "m"}, strp("org/tok")},
		{Params{Tokenizer: "org/tok", TokenizerID: "other", ModelID: "m"}, strp("other")},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.p.ResolvedTokenizerID()); diff != "" {
			t.Errorf("%+v: %s", tt.p, diff)
		}
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.records.jsonl")
	recs := []Record{{Index: 0, Success: true, PromptLen: 3, ITL: []float64{}, Error: ""}}
	if err := WriteFile(path, Params{DurationS: 1}, recs); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != FileMode {
		t.Fatalf("stat %v, mode %v; want %o", err, st.Mode().Perm(), FileMode)
	}
	_, got, _, err := ReadFile(path)
	if err != nil || len(got) != 1 || got[0].PromptLen != 3 {
		t.Errorf("read back %+v, %v", got, err)
	}
}

// TestReadKeeps: what the line checks must not refuse.
func TestReadKeeps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		n        int
	}{
		// A closed-loop run bounded by --duration cycles its prompts and
		// numbers requests past num_prompts.
		{"closed-loop records past num_prompts", `{"llmbench_records":1,"params":{"duration_s":1,"num_prompts":1}}` + "\n" +
			`{"index":0,"success":true,"user":1}` + "\n" + `{"index":1,"success":true,"user":1}` + "\n", 2},
		{"the largest time", `{"llmbench_records":1,"params":{"duration_s":1}}` + "\n" + `{"index":0,"success":true,"ttft":1e12,"itl":[1e12],"latency":1e12}` + "\n", 1},
		{"a torn last line is still dropped", `{"llmbench_records":1,"params":{"duration_s":1}}` + "\n" + `{"index":0,"success":true}` + "\n" + `{"index":1,"succ`, 1},
		// Killed before its first record: zero requests, not an error.
		{"header only", `{"llmbench_records":1,"params":{"duration_s":0,"num_prompts":5},"streamed":true}` + "\n", 0},
		{"header and failures at the origin", `{"llmbench_records":1,"params":{"duration_s":0},"streamed":true}` + "\n" +
			`{"index":0,"success":false,"error":"refused","error_class":"connection"}` + "\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, recs, _, err := Read(strings.NewReader(tt.in))
			if err != nil || len(recs) != tt.n {
				t.Fatalf("read %d records, err %v; want %d records", len(recs), err, tt.n)
			}
			if p.DurationS <= 0 {
				t.Errorf("duration %v", p.DurationS)
			}
		})
	}
}

func TestIndices(t *testing.T) {
	t.Parallel()
	var s Indices
	for i, idx := range []int{3, 0, 7} {
		if _, dup := s.Add(idx, i); dup {
			t.Fatalf("index %d reported twice on first sight", idx)
		}
	}
	if prev, dup := s.Add(0, 9); !dup || prev != 1 {
		t.Errorf("Add(0) again = %d, %v; want 1, true", prev, dup)
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestWriteRecordsMetrics: what llmbench metrics prints for each output,
// kind of records file and steady state.
func TestWriteRecordsMetrics(t *testing.T) {
	t.Parallel()
	p := record.Params{DurationS: 1, RequestRate: record.Inf, Burstiness: 1, Tokenizer: record.TokenizerWhitespace, ModelID: "m", Date: "20260101-000000"}
	recs := testRecords()
	s := summaryFor(t, &p, recs)
	ss := &metrics.SteadyState{Window: metrics.SteadyStateWindow{TargetConcurrency: 2, RequestsTotal: 3}}
	sm := p
	sm.EndpointName = "ep"
	for _, tc := range []struct {
		name        string
		p           record.Params
		o           RecordsOutput
		want, never []string
	}{
		{name: "conformance input: vLLM's table alone", p: p, o: RecordsOutput{},
			want: []string{"Serving Benchmark Result"}, never: []string{StreamSpecifics, "Steady-State"}},
		{name: "records: our sections", p: p, o: RecordsOutput{Ours: true},
			want: []string{"Serving Benchmark Result", StreamSpecifics}, never: []string{"Steady-State"}},
		{name: "records of a SageMaker run", p: sm, o: RecordsOutput{Ours: true},
			want: []string{SageMakerSpecifics}, never: []string{StreamSpecifics}},
		{name: "steady state under the table", p: p, o: RecordsOutput{Ours: true, WithSteadyState: true, SteadyState: ss},
			want: []string{"Steady-State Metrics", StreamSpecifics}},
		{name: "JSON with extras: steady_state", p: p, o: RecordsOutput{JSON: true, Extras: true, WithSteadyState: true},
			want: []string{`"steady_state": null`, `"llmbench": {`}, never: []string{"input_lens"}},
		{name: "JSON without extras: Python's object", p: p, o: RecordsOutput{JSON: true, Detailed: true, WithSteadyState: true},
			want: []string{`"input_lens"`}, never: []string{"steady_state", `"llmbench"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteRecordsMetrics(&buf, s, &tc.p, recs, tc.o); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if tc.o.JSON && (!strings.HasPrefix(out, "{") || !strings.HasSuffix(out, "}\n")) {
				t.Errorf("JSON not one object and a newline: %q...", out[:min(len(out), 40)])
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in:\n%s", w, out)
				}
			}
			if tc.o.SteadyState != nil && strings.Index(out, "Steady-State") > strings.Index(out, StreamSpecifics) {
				t.Errorf("the steady state is not under vLLM's table, before our sections:\n%s", out)
			}
			for _, n := range tc.never {
				if strings.Contains(out, n) {
					t.Errorf("%q in:\n%s", n, out)
				}
			}
		})
	}
}

func TestWriteUnfinishedNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    record.Params
		want string
	}{
		{"finished", record.Params{}, ""},
		{"unfinished", record.Params{Unfinished: true, Interrupted: true, DurationS: 12.345},
			"Note: the run did not finish (stopped early, killed or crashed: the records file has no closing line): the figures cover the 7 requests it recorded, and the duration (12.35 s) is estimated from their end times\n"},
		{"interrupted", record.Params{Interrupted: true},
			"Note: this run was interrupted (Ctrl-C): the figures cover only the requests it finished\n"},
	} {
		var buf bytes.Buffer
		WriteUnfinishedNote(&buf, &tc.p, 7)
		if buf.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, buf.String(), tc.want)
		}
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestRecompute: llmbench metrics' flow over one records file — the
// format asked, the overrides applied, the llmbench object by default
// only for llmbench records, and the input's faults as *InputError (the
// command's exit code 2), never a writer's.
func TestRecompute(t *testing.T) {
	t.Parallel()
	n := 4
	p := record.Params{DurationS: 1, RequestRate: record.Inf, Burstiness: record.Rate(1), ModelID: "m", Backend: "openai",
		NumPrompts: &n, PercentileMetrics: "ttft,tpot,itl", MetricPercentiles: "99", Date: "20260101-000000"}
	var recs []record.Record
	for i := range n {
		out := 3
		recs = append(recs, record.Record{Index: i, Success: true, PromptLen: 5, OutputTokens: &out, TTFT: 0.1,
			ITL: []float64{0.01, 0.01}, Latency: 0.12, StartTime: float64(i) * 0.1, HTTPStatus: 200})
	}
	var file bytes.Buffer
	if err := record.WriteJSONLines(&file, p, recs); err != nil {
		t.Fatal(err)
	}
	off := false
	for _, tt := range []struct {
		name string
		r    Recompute
		in   string
		want []string // in the output
		json map[string]bool
		err  string // an *InputError's text
	}{
		{name: "table", r: Recompute{Format: "table"}, in: file.String(),
			want: []string{"Serving Benchmark Result", "Successful requests:", "Stream Specifics"}},
		{name: "filename with a --date", r: Recompute{Format: "filename", Overrides: metrics.Overrides{Date: strp("20261202-120000")}},
			in: file.String(), want: []string{"20261202-120000"}},
		{name: "json: llmbench object by default", r: Recompute{Format: "json"}, in: file.String(),
			json: map[string]bool{"llmbench": true, "ttfts": false}},
		{name: "json: detailed, no extras", r: Recompute{Format: "json", Detailed: true, Extras: &off}, in: file.String(),
			json: map[string]bool{"llmbench": false, "ttfts": true}},
		{name: "not records", r: Recompute{Format: "table"}, in: "hello\n", err: "line 1"},
		{name: "bad override", r: Recompute{Format: "table", Overrides: metrics.Overrides{MetricPercentiles: strp("x")}},
			in: file.String(), err: "x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errw bytes.Buffer
			tt.r.Now = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
			err := tt.r.Run("-", strings.NewReader(tt.in), &out, &errw)
			var ie *InputError
			if tt.err != "" {
				if !errors.As(err, &ie) || !strings.Contains(ie.Error(), tt.err) {
					t.Fatalf("error %v, want an *InputError naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if tt.json != nil {
				var m map[string]any
				if err := json.Unmarshal(out.Bytes(), &m); err != nil {
					t.Fatalf("%v\n%s", err, out.String())
				}
				for key, present := range tt.json {
					if _, ok := m[key]; ok != present {
						t.Errorf("key %q present %v, want %v", key, ok, present)
					}
				}
			}
		})
	}
}

func strp(s string) *string { return &s }

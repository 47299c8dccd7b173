package metrics

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/record"
)

// TestSummarizeRecords: the token counter follows the file's tokenizer —
// the whitespace stand-in counts the text; a tokenizer id uses the count
// the run saved; none (and an id without a saved count) fall back to 1.
func TestSummarizeRecords(t *testing.T) {
	t.Parallel()
	recs := []record.Record{
		{Success: true, PromptLen: 2, TTFT: 0.1, Latency: 0.5, ITL: []float64{0.1, 0.1}, GeneratedText: "a b c"},
		{Success: true, PromptLen: 2, TTFT: 0.1, Latency: 0.5, ITL: []float64{0.1}, GeneratedText: "x y", OutputTokensSource: record.SourceTokenizer, TokenizerCount: 7},
	}
	for _, tc := range []struct {
		tokenizer string
		want      []int
	}{
		{record.TokenizerWhitespace, []int{3, 7}},
		{"meta-llama/Llama-3.1-8B", []int{1, 7}},
		{record.TokenizerNone, []int{1, 1}},
	} {
		p := record.Params{DurationS: 1, Tokenizer: tc.tokenizer, MetricPercentiles: "99", PercentileMetrics: "ttft"}
		s, err := SummarizeRecords(&p, recs)
		if err != nil {
			t.Fatalf("%s: %v", tc.tokenizer, err)
		}
		if !reflect.DeepEqual(s.OutputLens, tc.want) {
			t.Errorf("%s: output lens %v, want %v", tc.tokenizer, s.OutputLens, tc.want)
		}
	}
	bad := record.Params{DurationS: 1, MetricPercentiles: "101"}
	if _, err := SummarizeRecords(&bad, recs); err == nil {
		t.Error("percentile 101: no error")
	}
}

func TestOverridesApply(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.Local)
	file := record.Params{PercentileMetrics: "ttft", MetricPercentiles: "99", Goodput: map[string]float64{"ttft": 1}, Tokenizer: "id", Date: "20250101-000000"}
	for _, tc := range []struct {
		name    string
		p       record.Params
		o       Overrides
		want    record.Params
		wantErr string
	}{
		{name: "none keeps the file's", p: file, want: file},
		{name: "every one", p: file,
			o:    Overrides{PercentileMetrics: str("e2el"), MetricPercentiles: str("50,90"), Goodput: []string{"tpot:30"}, Tokenizer: str(record.TokenizerWhitespace), Date: str("20260101-120000")},
			want: record.Params{PercentileMetrics: "e2el", MetricPercentiles: "50,90", Goodput: map[string]float64{"tpot": 30}, Tokenizer: record.TokenizerWhitespace, Date: "20260101-120000"}},
		{name: "an empty value overrides too", p: file, o: Overrides{PercentileMetrics: str("")},
			want: record.Params{MetricPercentiles: "99", Goodput: map[string]float64{"ttft": 1}, Tokenizer: "id", Date: "20250101-000000"}},
		{name: "no date in the file: now", p: record.Params{}, want: record.Params{Date: "20260304-050607"}},
		{name: "bad goodput", p: file, o: Overrides{Goodput: []string{"ttft"}}, wantErr: `goodput item "ttft" is not KEY:VALUE`},
		{name: "bad date", p: file, o: Overrides{Date: str("2026-01-01")}, wantErr: `--date "2026-01-01": want YYYYMMDD-HHMMSS`},
		{name: "goodput is checked before the date", p: file, o: Overrides{Goodput: []string{"x:1"}, Date: str("bad")}, wantErr: `invalid goodput metric "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := tc.p
			err := tc.o.Apply(&p, now)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tc.want) {
				t.Errorf("got %+v, want %+v", p, tc.want)
			}
		})
	}
}

// TestRecordsSteadyState: the run's gate, read from the records' params.
func TestRecordsSteadyState(t *testing.T) {
	t.Parallel()
	var recs []record.Record
	for i := range 8 {
		recs = append(recs, ssReq(float64(i)*0.5, 20, 0.1, []float64{0.1}, 1))
	}
	turns := append([]record.Record(nil), recs...)
	turns[1].Turn = 1
	eight := 8
	closed := record.Params{DurationS: 25, RequestRate: record.Inf, MaxConcurrency: &eight, MetricPercentiles: "99", PercentileMetrics: "ttft"}
	open := closed
	open.RequestRate = 4
	unbounded := closed
	unbounded.MaxConcurrency = nil
	for _, tc := range []struct {
		name          string
		p             record.Params
		recs          []record.Record
		opt           SteadyStateOptions
		write, window bool
	}{
		{name: "closed loop: a window", p: closed, recs: recs, opt: SteadyStateOptions{Threshold: 0.95}, write: true, window: true},
		{name: "--no-steady-state: null", p: closed, recs: recs, opt: SteadyStateOptions{Threshold: 0.95, Disabled: true}, write: true},
		{name: "a finite rate: null", p: open, recs: recs, opt: SteadyStateOptions{Threshold: 0.95}, write: true},
		{name: "no max_concurrency: null", p: unbounded, recs: recs, opt: SteadyStateOptions{Threshold: 0.95}, write: true},
		{name: "multi-turn: no key", p: closed, recs: turns, opt: SteadyStateOptions{Threshold: 0.95}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := SummarizeRecords(&tc.p, tc.recs)
			if err != nil {
				t.Fatal(err)
			}
			ss, write, err := RecordsSteadyState(&tc.p, tc.recs, s, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if write != tc.write || (ss != nil) != tc.window {
				t.Fatalf("write %v, window %v; want %v, %v", write, ss != nil, tc.write, tc.window)
			}
			if ss != nil && (ss.Window.TargetConcurrency != 8 || ss.Window.StartS != 3.5) {
				t.Errorf("window %+v, want target 8 from 3.5 s", ss.Window)
			}
		})
	}
}

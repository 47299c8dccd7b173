package report

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
)

// TestWriteRun: WriteRunReport's output with the run's notes around it:
// the canceled count above the table, the partial-figures note and the
// steady state right under it, the duration note and the warnings on
// errw.
func TestWriteRun(t *testing.T) {
	p := &record.Params{Backend: "openai", ModelID: "m", RequestRate: record.Inf, Date: "d", DurationS: 2, NumPrompts: ptr(3)}
	s := summaryFor(t, p, testRecords())
	steady := &metrics.SteadyState{RequestThroughput: 7}
	// report is vLLM's table and our sections with under the table what
	// after writes.
	report := func(title string, after ...func(io.Writer) error) string {
		var b strings.Builder
		opt := RunReportOptions{Title: title, Failures: s}
		if len(after) > 0 {
			opt.AfterTable = func(w io.Writer) error {
				for _, f := range after {
					if err := f(w); err != nil {
						return err
					}
				}
				return nil
			}
		}
		if err := WriteRunReport(&b, s, p, opt); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	steadySection := func(w io.Writer) error { return WriteSteadyState(w, steady) }
	var warnings strings.Builder
	if err := WriteWarnings(&warnings, s); err != nil {
		t.Fatal(err)
	}
	partial := "Note: interrupted (Ctrl-C): the figures above cover the 3 of 10 requests that finished or failed.\n"
	tests := []struct {
		name      string
		v         RunView
		out, errw string
	}{
		{"plain", RunView{}, report(StreamSpecifics), warnings.String()},
		{"sagemaker", RunView{SageMaker: true}, report(SageMakerSpecifics), warnings.String()},
		{"interrupted", RunView{Interrupted: true, Canceled: 2, Finished: 3, Planned: 10, Timed: true, CanceledAtEnd: 2},
			"Interrupted: 2 requests in flight were canceled after the 5s grace period; they count as failed (class canceled).\n" +
				report(StreamSpecifics, text(partial)), warnings.String()},
		{"duration ended", RunView{Timed: true, CanceledAtEnd: 4}, report(StreamSpecifics),
			warnings.String() + "Note: 4 requests still in flight 5s after --duration ended were canceled; they count as failed (class canceled).\n"},
		{"steady state", RunView{Steady: steady}, report(StreamSpecifics, steadySection), warnings.String()},
		{"interrupted with steady state", RunView{Interrupted: true, Finished: 3, Planned: 10, Steady: steady},
			report(StreamSpecifics, text(partial), steadySection), warnings.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.v
			v.Summary, v.Params, v.Grace = s, p, 5*time.Second
			var out, errw strings.Builder
			if err := WriteRun(&out, &errw, v); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.out {
				t.Errorf("out:\n%s\nwant:\n%s", out.String(), tt.out)
			}
			if errw.String() != tt.errw {
				t.Errorf("errw:\n%s\nwant:\n%s", errw.String(), tt.errw)
			}
		})
	}
}

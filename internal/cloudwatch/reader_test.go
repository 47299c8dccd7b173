package cloudwatch

import (
	"context"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/cloudwatch/cwtest"
)

// TestReaderRun: a run's read is the invocation metrics, then the
// instance utilisation over the run (normalised by the instance's vCPUs
// and GPUs); not the utilisation of an inference component; a failed
// utilisation read is a warning of the summary, not an error.
func TestReaderRun(t *testing.T) {
	invocations, utilisation := standard(100), cwtest.PerMinute(utilValues(winStart))
	answer := func(utilStatus int) cwtest.Answer {
		return func(call int, req request) (int, []result, string, string) {
			if req.Queries[0].Namespace != Namespace {
				if utilStatus != 200 {
					return utilStatus, nil, "", "InvalidParameterValueException"
				}
				return utilisation(call, req)
			}
			return invocations(call, req)
		}
	}
	tests := []struct {
		name       string
		component  string
		utilStatus int
		calls      int
		wantUtil   bool
		warning    string
	}{
		{name: "endpoint", utilStatus: 200, calls: 2, wantUtil: true},
		{name: "inference component", component: "ic-1", utilStatus: 200, calls: 1},
		{name: "utilisation fails", utilStatus: 400, calls: 2, warning: "InvalidParameterValueException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeCW{cwtest.New(t, answer(tt.utilStatus))}
			r := &Reader{API: f.client(), EndpointName: "ep", InferenceComponent: tt.component, VCPUs: 48, GPUs: 4}
			s, err := r.Run(context.Background(), runStart, runEnd, 100)
			if err != nil {
				t.Fatal(err)
			}
			if f.Calls() != tt.calls || !s.Complete || s.ModelLatency.SampleCount != 100 {
				t.Fatalf("calls %d summary %+v", f.Calls(), s)
			}
			if got := s.Utilization != nil; got != tt.wantUtil {
				t.Fatalf("utilisation %+v, want it: %v", s.Utilization, tt.wantUtil)
			}
			if tt.wantUtil && (s.Utilization.CPUPct == nil || *s.Utilization.CPUPct != 20 || !s.Utilization.Normalized) {
				t.Errorf("utilisation %+v", s.Utilization)
			}
			if tt.warning != "" && (len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tt.warning)) {
				t.Errorf("warnings %q, want one with %q", s.Warnings, tt.warning)
			}
		})
	}
}

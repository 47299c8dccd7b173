package cost

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestInstanceEstimate: the flag's price wins, the table prices a known
// type, no price is no estimate, a count below 1 counts as 1.
func TestInstanceEstimate(t *testing.T) {
	tests := []struct {
		name    string
		in      Instance
		wantNil bool
		wantErr string
		cost    float64 // CostUSD of 2 minutes
		source  string
		count   int
	}{
		{name: "no price", in: Instance{Count: 1}, wantNil: true},
		{name: "type only", in: Instance{Type: "ml.g5.2xlarge", Count: 1}, cost: 1.515 * 2 / 60, source: SourceTable, count: 1},
		{name: "flag wins", in: Instance{Type: "ml.g5.2xlarge", Count: 2, PricePerHour: 3}, cost: 3 * 2 * 2.0 / 60, source: SourceFlag, count: 2},
		{name: "count zero is one", in: Instance{PricePerHour: 6}, cost: 6 * 2.0 / 60, source: SourceFlag, count: 1},
		{name: "unknown type", in: Instance{Type: "ml.x9.huge", Count: 1}, wantErr: "--price-per-hour"},
		{name: "negative price", in: Instance{PricePerHour: -1, Count: 1}, wantErr: "--price-per-hour must be a positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := tt.in.Estimate(2*time.Minute, 200, 100_000)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			case tt.wantNil:
				if e != nil {
					t.Fatalf("estimate %+v, want none", e)
				}
				return
			}
			if d := e.CostUSD - tt.cost; d > 1e-12 || d < -1e-12 || e.PriceSource != tt.source || e.InstanceCount != tt.count || e.InstanceType != tt.in.Type {
				t.Errorf("estimate %+v, want cost %v source %q count %d", e, tt.cost, tt.source, tt.count)
			}
		})
	}
}

// TestWriteAfterRun: the cost section when there is an estimate, the
// reminder when an endpoint bills, in that order.
func TestWriteAfterRun(t *testing.T) {
	est, err := Instance{Type: "ml.g5.2xlarge", Count: 1}.Estimate(2*time.Minute, 200, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	reminder := "Reminder: real-time endpoint prod-ep bills per instance-hour until it is deleted; when done: aws sagemaker delete-endpoint --endpoint-name prod-ep --region us-west-2\n"
	var section bytes.Buffer
	if err := est.Write(&section); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		est      *Estimate
		endpoint string
		want     string
	}{
		{"nothing", nil, "", ""},
		{"cost only", est, "", section.String()},
		{"reminder only", nil, "prod-ep", reminder},
		{"both", est, "prod-ep", section.String() + reminder},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteAfterRun(&out, tt.est, tt.endpoint, "us-west-2"); err != nil || out.String() != tt.want {
				t.Errorf("got %q, %v; want %q", out.String(), err, tt.want)
			}
		})
	}
}

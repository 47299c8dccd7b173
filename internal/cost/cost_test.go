package cost

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"ml.g5.2xlarge", 1.515, true},
		{"ML.G5.2XLARGE", 1.515, true},
		{"g5.2xlarge", 1.515, true},
		{" ml.p4d.24xlarge ", 37.688, true},
		{"ml.m5.large", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		p, ok := Lookup(tt.in)
		if ok != tt.ok || p.USDPerHour != tt.want {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tt.in, p.USDPerHour, ok, tt.want, tt.ok)
		}
	}
	for _, p := range Table() {
		if !strings.HasPrefix(p.InstanceType, "ml.") || p.USDPerHour <= 0 || p.GPUs == "" {
			t.Errorf("bad table entry %+v", p)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		instance string
		price    float64
		want     float64
		source   string
		ok       bool
		err      string
	}{
		{"flag wins", "ml.g5.2xlarge", 2.5, 2.5, SourceFlag, true, ""},
		{"table", "ml.g5.2xlarge", 0, 1.515, SourceTable, true, ""},
		{"nothing", "", 0, 0, "", false, ""},
		{"unknown type", "ml.x9.huge", 0, 0, "", false, "not in the built-in price table"},
		{"unknown type with price", "ml.x9.huge", 3, 3, SourceFlag, true, ""},
		{"negative", "", -1, 0, "", false, "positive"},
		{"nan", "", math.NaN(), 0, "", false, "positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, src, ok, err := Resolve(tt.instance, tt.price)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || p != tt.want || src != tt.source || ok != tt.ok {
				t.Errorf("got %v %q %v %v", p, src, ok, err)
			}
		})
	}
}

// TestCompute checks the doc comment's worked example.
func TestCompute(t *testing.T) {
	e, err := Compute("ml.g5.2xlarge", 1.515, 1, 120*time.Second, 200, 100_000, SourceTable)
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	if !near(e.CostUSD, 0.0505) || !near(*e.USDPerRequest, 0.0505/200) || !near(*e.USDPerMillionOutputTokens, 0.505) {
		t.Errorf("cost %v per request %v per 1M %v", e.CostUSD, *e.USDPerRequest, *e.USDPerMillionOutputTokens)
	}
	two, _ := Compute("ml.g5.2xlarge", 1.515, 2, 120*time.Second, 200, 100_000, SourceTable)
	if !near(two.CostUSD, 2*e.CostUSD) {
		t.Errorf("two instances cost %v, want twice %v", two.CostUSD, e.CostUSD)
	}
	none, _ := Compute("", 1, 1, time.Minute, 0, 0, SourceFlag)
	if none.USDPerRequest != nil || none.USDPerMillionOutputTokens != nil {
		t.Errorf("per-unit figures without units: %+v", none)
	}
	for _, bad := range []struct {
		price float64
		count int
		d     time.Duration
	}{{0, 1, time.Second}, {1, 0, time.Second}, {1, 1, -time.Second}} {
		if _, err := Compute("", bad.price, bad.count, bad.d, 1, 1, SourceFlag); err == nil {
			t.Errorf("Compute(%v) accepted bad input", bad)
		}
	}
	b, _ := json.Marshal(e)
	if !strings.Contains(string(b), `"approximate":true`) || !strings.Contains(string(b), `"usd_per_1m_output_tokens":0.50`) {
		t.Errorf("JSON %s", b)
	}
}

func TestWrite(t *testing.T) {
	e, _ := Compute("ml.g5.2xlarge", 1.515, 1, 120*time.Second, 200, 100_000, SourceTable)
	var buf bytes.Buffer
	if err := e.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := WriteEndpointReminder(&buf, "my-ep", "us-west-2"); err != nil {
		t.Fatal(err)
	}
	want := `----------------Cost (approximate)----------------
Instance:                                ml.g5.2xlarge x1 @ $1.515/h
Price source:                            built-in table (us-east-1 on-demand, 2025-10, approximate)
Cost of the run (USD):                   0.0505    
Cost per request (USD):                  0.000252  
Cost per 1M output tokens (USD):         0.5050    
Reminder: real-time endpoint my-ep bills per instance-hour until it is deleted; when done: aws sagemaker delete-endpoint --endpoint-name my-ep --region us-west-2
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

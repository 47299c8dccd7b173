package cloudwatch

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/cloudwatch/cwtest"
)

// utilValues is what the fake publishes: on a 48-vCPU, 4-GPU instance,
// CPU at 960 (20 % of 4,800), GPU at 40 × the minute index (summed over
// 4 GPUs), GPU memory 360 (90 % of 400), memory 55 %, no disk figure.
func utilValues(from time.Time) func(metric, stat string, m time.Time) (float64, bool) {
	return func(metric, stat string, m time.Time) (float64, bool) {
		if stat != "Average" {
			return 0, false
		}
		i := m.Sub(from).Minutes()
		switch metric {
		case CPUUtilization:
			return 960, true
		case GPUUtilization:
			return 40 * i, true
		case GPUMemoryUtilization:
			return 360, true
		case MemoryUtilization:
			return 55, true
		}
		return 0, false
	}
}

func TestFetchUtilization(t *testing.T) {
	f := cwtest.New(t, cwtest.PerMinute(utilValues(winStart)))
	// 08:03:25 .. 08:07:10 is read as the minutes 08:03 .. 08:07.
	s, err := FetchUtilization(context.Background(), (&fakeCW{f}).client(), UtilizationQuery{EndpointName: "ep",
		Start: runStart, End: runEnd, VCPUs: 48, GPUs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || s.Polls != 1 || !s.WindowStart.Equal(winStart) || !s.WindowEnd.Equal(winStart.Add(5*time.Minute)) {
		t.Fatalf("series %+v", s)
	}
	req := f.Requests()[0]
	if len(req.Queries) != 5 {
		t.Fatalf("%d queries", len(req.Queries))
	}
	for _, q := range req.Queries {
		if q.Namespace != "/aws/sagemaker/Endpoints" || q.Period != 60 || q.Stat != "Average" ||
			q.Dims["EndpointName"] != "ep" || q.Dims["VariantName"] != "AllTraffic" || len(q.Dims) != 2 {
			t.Errorf("query %+v", q)
		}
	}
	u := s.Over(runStart, runEnd)
	// GPU: minutes 0..4 at 0, 40, 80, 120, 160 → mean 80 of 400 = 20 %.
	want := map[string]float64{"cpu": 20, "gpu": 20, "gmem": 90, "mem": 55}
	got := map[string]*float64{"cpu": u.CPUPct, "gpu": u.GPUPct, "gmem": u.GPUMemoryPct, "mem": u.MemoryPct}
	for k, w := range want {
		if got[k] == nil || math.Abs(*got[k]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	if u.DiskPct != nil || !u.Normalized || u.Minutes != 5 || u.Note != "" {
		t.Errorf("utilization %+v", u)
	}
	// One step inside the minute 08:05: that minute only, and a note.
	step := s.Over(winStart.Add(2*time.Minute+10*time.Second), winStart.Add(2*time.Minute+40*time.Second))
	if step.GPUPct == nil || *step.GPUPct != 20 || step.Minutes != 1 || !strings.Contains(step.Note, "shorter than 2 minutes") {
		t.Errorf("short window %+v", step)
	}
	// Unknown instance type: AWS's sums, said so.
	raw, err := FetchUtilization(context.Background(), (&fakeCW{f}).client(), UtilizationQuery{EndpointName: "ep", Start: runStart, End: runEnd})
	if err != nil {
		t.Fatal(err)
	}
	if r := raw.Over(runStart, runEnd); r.Normalized || *r.CPUPct != 960 || !strings.Contains(r.Note, "sums over vCPUs") {
		t.Errorf("raw %+v", r)
	}
}

// TestFetchUtilizationWaits: the last minute arrives on the third look.
func TestFetchUtilizationWaits(t *testing.T) {
	publish := cwtest.PerMinute(utilValues(winStart))
	f := cwtest.New(t, func(call int, req cwtest.Request) (int, []cwtest.Result, string, string) {
		if call < 2 {
			req.End = req.End.Add(-time.Minute) // CloudWatch's lag
		}
		return publish(call, req)
	})
	s, err := FetchUtilization(context.Background(), (&fakeCW{f}).client(), UtilizationQuery{EndpointName: "ep",
		Start: runStart, End: runEnd, VCPUs: 48, GPUs: 4, Wait: 10 * time.Second, PollInterval: 5 * time.Millisecond})
	if err != nil || !s.Complete || s.Polls != 3 || len(s.Warnings) != 0 {
		t.Fatalf("err %v series %+v", err, s)
	}
	f2 := cwtest.New(t, func(call int, req cwtest.Request) (int, []cwtest.Result, string, string) {
		req.End = req.End.Add(-time.Minute)
		return publish(call, req)
	})
	s, err = FetchUtilization(context.Background(), (&fakeCW{f2}).client(), UtilizationQuery{EndpointName: "ep", Start: runStart, End: runEnd})
	if err != nil || s.Complete || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "no datapoint for 08:07") {
		t.Fatalf("err %v series %+v", err, s)
	}
	if _, err := FetchUtilization(context.Background(), nil, UtilizationQuery{Start: runStart, End: runEnd}); err == nil {
		t.Error("no endpoint: want an error")
	}
}

// TestWriteTableUtilization: the run's CloudWatch section shows the
// utilisation beside the latencies.
func TestWriteTableUtilization(t *testing.T) {
	cpu, mem := 20.0, 55.0
	s := &Summary{Namespace: Namespace, Dimensions: map[string]string{"EndpointName": "ep"}, WindowStart: winStart,
		WindowEnd: winStart.Add(2 * time.Minute), Utilization: &Utilization{CPUPct: &cpu, MemoryPct: &mem, Normalized: true, Minutes: 2}}
	var buf bytes.Buffer
	if err := WriteTable(&buf, s, 100, 10); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--Instance utilization--", fmt.Sprintf("%-40s 20.00", "CPU (% of instance):"), fmt.Sprintf("%-40s 55.00", "Memory (%):"),
		fmt.Sprintf("%-40s n/a", "GPU (% of instance):"), fmt.Sprintf("%-40s 2 ", "Minutes averaged:")} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

package cloudwatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/cloudwatch/cwtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The fake CloudWatch lives in package cwtest, shared with the CLI's
// tests; these names keep the tests short.
type (
	request = cwtest.Request
	result  = cwtest.Result
)

// fakeCW is a cwtest server.
type fakeCW struct{ *cwtest.Server }

func newFakeCW(t *testing.T, answer func(call int, req request) (int, []result, string, string)) *fakeCW {
	return &fakeCW{cwtest.New(t, answer)}
}

// client returns a real CloudWatch client pointed at the fake.
func (f *fakeCW) client() *cloudwatch.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDCW", "cw-secret", ""),
	}
	return NewClient(cfg, f.URL)
}

var (
	runStart = time.Date(2026, 11, 29, 8, 3, 25, 0, time.UTC)
	runEnd   = time.Date(2026, 11, 29, 8, 7, 10, 0, time.UTC)
	winStart = time.Date(2026, 11, 29, 8, 3, 0, 0, time.UTC)
)

// standard answers with one datapoint per statistic: 100 invocations,
// ModelLatency mean 1.5 s, OverheadLatency mean 12 ms, 2 5XX errors.
func standard(samples float64) func(int, request) (int, []result, string, string) {
	return func(_ int, req request) (int, []result, string, string) {
		vals := map[string]float64{
			"mlAvg": 1_500_000, "mlN": samples, "mlMin": 900_000, "mlMax": 2_250_000, "mlP99": 2_100_000,
			"olAvg": 12_000, "olN": samples, "olMin": 5_000, "olMax": 40_000,
			"inv": samples, "e4xx": 0, "e5xx": 2,
		}
		var rs []result
		for _, q := range req.Queries {
			if v, ok := vals[q.ID]; ok && samples > 0 {
				rs = append(rs, result{ID: q.ID, Times: []time.Time{req.Start}, Values: []float64{v}})
			} else {
				rs = append(rs, result{ID: q.ID})
			}
		}
		return 200, rs, "", ""
	}
}

func f64(v float64) *float64 { return &v }

func TestFetch(t *testing.T) {
	f := newFakeCW(t, standard(100))
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := &Summary{
		Namespace:     "AWS/SageMaker",
		Dimensions:    map[string]string{"EndpointName": "ep", "VariantName": "AllTraffic"},
		WindowStart:   winStart,
		WindowEnd:     time.Date(2026, 11, 29, 8, 9, 0, 0, time.UTC),
		PeriodSeconds: 360,
		ModelLatency: Latency{SampleCount: 100, MeanMs: f64(1500), MinMs: f64(900), MaxMs: f64(2250),
			P99Ms: f64(2100)},
		OverheadLatency:     Latency{SampleCount: 100, MeanMs: f64(12), MinMs: f64(5), MaxMs: f64(40)},
		Invocations:         f64(100),
		Invocation4XXErrors: f64(0),
		Invocation5XXErrors: f64(2),
		RequestsSent:        100,
		Complete:            true,
		Polls:               1,
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	// What went on the wire: one query per statistic, the whole window as
	// one period, the endpoint's dimensions.
	req := f.Requests()[0]
	if !req.Start.Equal(winStart) || !req.End.Equal(want.WindowEnd) {
		t.Errorf("window %v..%v", req.Start, req.End)
	}
	if len(req.Queries) != len(allSeries) {
		t.Fatalf("%d queries, want %d", len(req.Queries), len(allSeries))
	}
	for _, q := range req.Queries {
		if q.Namespace != "AWS/SageMaker" || q.Period != 360 || !cmp.Equal(q.Dims, want.Dimensions) {
			t.Errorf("query %+v", q)
		}
	}
	// JSON-serialisable for the saved result.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"model_latency":{"sample_count":100,"mean_ms":1500`)) {
		t.Errorf("JSON: %s", b)
	}
}

// TestFetchPollsUntilComplete: the first looks find nothing or a partial
// count (CloudWatch's publishing lag); Fetch keeps polling.
func TestFetchPollsUntilComplete(t *testing.T) {
	f := newFakeCW(t, func(call int, req request) (int, []result, string, string) {
		switch call {
		case 0:
			return standard(0)(call, req)
		case 1:
			return standard(40)(call, req)
		}
		return standard(100)(call, req)
	})
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 100,
		Wait: 10 * time.Second, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Complete || s.Polls != 3 || s.ModelLatency.SampleCount != 100 || len(s.Warnings) != 0 {
		t.Errorf("complete=%v polls=%d samples=%v warnings=%v", s.Complete, s.Polls, s.ModelLatency.SampleCount, s.Warnings)
	}
}

// TestFetchIncomplete: datapoints never reach the request count; Fetch
// gives up after the wait and says so.
func TestFetchIncomplete(t *testing.T) {
	f := newFakeCW(t, standard(40))
	began := time.Now()
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 100,
		Wait: 100 * time.Millisecond, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 10*time.Second { // gives up; a busy machine may be slow
		t.Errorf("took %v for a 100ms wait", took)
	}
	if s.Complete || s.Polls < 2 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "40 of 100") {
		t.Errorf("complete=%v polls=%d warnings=%q", s.Complete, s.Polls, s.Warnings)
	}
}

// TestFetchInferenceComponent reads the component's own series.
func TestFetchInferenceComponent(t *testing.T) {
	f := newFakeCW(t, standard(10))
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", InferenceComponent: "ic-1", Start: runStart, End: runEnd, Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"InferenceComponentName": "ic-1"}
	if !cmp.Equal(s.Dimensions, want) || !cmp.Equal(f.Requests()[0].Queries[0].Dims, want) {
		t.Errorf("dims %v / %v", s.Dimensions, f.Requests()[0].Queries[0].Dims)
	}
}

// TestFetchPagesAndCombines: results split over two pages, and several
// datapoints per statistic, are combined (weighted mean, overall max;
// percentiles that cannot be combined are dropped).
func TestFetchPagesAndCombines(t *testing.T) {
	t1, t2 := winStart, winStart.Add(time.Minute)
	f := newFakeCW(t, func(call int, req request) (int, []result, string, string) {
		if req.NextToken == "" {
			return 200, []result{
				{ID: "mlAvg", Times: []time.Time{t1, t2}, Values: []float64{1000, 3000}},
				{ID: "mlN", Times: []time.Time{t1, t2}, Values: []float64{1, 3}},
			}, "page2", ""
		}
		return 200, []result{
			{ID: "mlMax", Times: []time.Time{t1, t2}, Values: []float64{1500, 4000}},
			{ID: "mlP99", Times: []time.Time{t1, t2}, Values: []float64{1500, 4000}},
			{ID: "inv", Times: []time.Time{t1, t2}, Values: []float64{1, 3}},
		}, "", ""
	})
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s.ModelLatency.MeanMs == nil || math.Abs(*s.ModelLatency.MeanMs-2.5) > 1e-12 {
		t.Errorf("weighted mean = %v, want 2.5 ms", s.ModelLatency.MeanMs)
	}
	if s.ModelLatency.MaxMs == nil || *s.ModelLatency.MaxMs != 4 || s.ModelLatency.P99Ms != nil {
		t.Errorf("max %v p99 %v", s.ModelLatency.MaxMs, s.ModelLatency.P99Ms)
	}
	if s.Invocations == nil || *s.Invocations != 4 || !s.Complete {
		t.Errorf("invocations %v complete %v", s.Invocations, s.Complete)
	}
	if len(f.Requests()) != 2 || f.Requests()[1].NextToken != "page2" {
		t.Errorf("pagination: %d requests", len(f.Requests()))
	}
}

// TestFetchAPIError: a CloudWatch error (decoded from CBOR into the SDK's
// typed exception) is returned, not hidden.
func TestFetchAPIError(t *testing.T) {
	f := newFakeCW(t, func(int, request) (int, []result, string, string) {
		return 400, nil, "", "InvalidParameterValueException"
	})
	_, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd})
	var ipv *types.InvalidParameterValueException
	if err == nil || !errorsAs(err, &ipv) {
		t.Fatalf("err = %v, want InvalidParameterValueException", err)
	}
	if strings.Contains(err.Error(), "cw-secret") {
		t.Errorf("secret in error: %v", err)
	}
}

func TestFetchBadInput(t *testing.T) {
	if _, err := Fetch(context.Background(), nil, Query{Start: runStart, End: runEnd}); err == nil {
		t.Error("no endpoint: want an error")
	}
	if _, err := Fetch(context.Background(), nil, Query{EndpointName: "ep", Start: runEnd, End: runStart}); err == nil {
		t.Error("end before start: want an error")
	}
}

func TestWindow(t *testing.T) {
	tests := []struct {
		start, end time.Time
		from, to   string
		period     int
	}{
		{runStart, runEnd, "08:03:00", "08:09:00", 360},
		{winStart, winStart.Add(time.Minute), "08:03:00", "08:05:00", 120},
		{runStart, runStart.Add(time.Second), "08:03:00", "08:05:00", 120},
	}
	for _, tt := range tests {
		from, to, p := Window(tt.start, tt.end)
		if from.Format("15:04:05") != tt.from || to.Format("15:04:05") != tt.to || p != tt.period {
			t.Errorf("Window(%v, %v) = %v %v %d", tt.start, tt.end, from, to, p)
		}
	}
}

// TestWriteTable compares the printed section with a golden file
// (regenerate with go test ./internal/cloudwatch -update).
func TestWriteTable(t *testing.T) {
	f := newFakeCW(t, standard(100))
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 100})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, s, 1534.5, 210.25); err != nil {
		t.Fatal(err)
	}
	incomplete := &Summary{Namespace: Namespace, Dimensions: map[string]string{"EndpointName": "ep", "VariantName": "AllTraffic"},
		WindowStart: winStart, WindowEnd: winStart.Add(2 * time.Minute), PeriodSeconds: 120, RequestsSent: 5, Polls: 3,
		Warnings: []string{"CloudWatch incomplete: ModelLatency covers 0 of 5 requests after waiting 1m0s"}}
	if err := WriteTable(&buf, incomplete, math.NaN(), 0); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "table.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestClientRetries: unlike the benchmark's SageMaker client, the
// CloudWatch client retries a throttled read, even when built from a
// configuration with retries off.
func TestClientRetries(t *testing.T) {
	f := newFakeCW(t, func(call int, req request) (int, []result, string, string) {
		if call == 0 {
			return 400, nil, "", "Throttling"
		}
		return standard(3)(call, req)
	})
	cfg := aws.Config{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDCW", "cw-secret", ""),
		RetryMaxAttempts: 1,
		Retryer:          func() aws.Retryer { return aws.NopRetryer{} },
	}
	s, err := Fetch(context.Background(), NewClient(cfg, f.URL), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 3})
	if err != nil {
		t.Fatalf("throttled read not retried: %v", err)
	}
	if !s.Complete || f.Calls() != 2 {
		t.Errorf("complete %v after %d calls", s.Complete, f.Calls())
	}
}

// TestFetchFirstChunk: the streaming metrics, when CloudWatch has them, are
// reported (in ms) and printed beside the client's TTFT.
func TestFetchFirstChunk(t *testing.T) {
	f := newFakeCW(t, func(call int, req request) (int, []result, string, string) {
		status, rs, next, typ := standard(10)(call, req)
		for i := range rs {
			switch rs[i].ID {
			case "fcAvg":
				rs[i] = result{ID: "fcAvg", Times: []time.Time{req.Start}, Values: []float64{250_000}}
			case "fcN":
				rs[i] = result{ID: "fcN", Times: []time.Time{req.Start}, Values: []float64{10}}
			case "mse":
				rs[i] = result{ID: "mse", Times: []time.Time{req.Start}, Values: []float64{1}}
			}
		}
		return status, rs, next, typ
	})
	s, err := Fetch(context.Background(), f.client(), Query{EndpointName: "ep", Start: runStart, End: runEnd, Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if s.FirstChunkLatency == nil || s.FirstChunkLatency.MeanMs == nil || *s.FirstChunkLatency.MeanMs != 250 ||
		s.MidStreamErrors == nil || *s.MidStreamErrors != 1 {
		t.Fatalf("first chunk %+v mid-stream errors %v", s.FirstChunkLatency, s.MidStreamErrors)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, s, 900, 240); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{fmt.Sprintf("%-40s 1", "Mid-stream errors:"), fmt.Sprintf("%-40s 250.00", "FirstChunkLatency mean (ms):"), "--FirstChunkLatency--"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

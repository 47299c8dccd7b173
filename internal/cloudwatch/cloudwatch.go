// Package cloudwatch reads SageMaker's own view of a benchmark run from
// Amazon CloudWatch (namespace AWS/SageMaker): ModelLatency and
// OverheadLatency (published in microseconds, reported here in
// milliseconds), Invocations and the 4XX/5XX error counts, for the run's
// endpoint and variant or inference component, over the run's window.
//
// CloudWatch publishes with an undocumented lag, so Fetch polls until the
// datapoints account for every request sent or a wait expires, and then
// says whether the picture is complete. Whether ModelLatency of a streamed
// response ends at the first or the last byte is not documented either:
// WriteTable sets the figures beside the client's E2EL and TTFT for
// comparison and labels them as such.
//
// FetchUtilization reads the instance utilisation the endpoint publishes
// in /aws/sagemaker/Endpoints (CPU, memory, GPU, GPU memory, disk) at
// one-minute resolution, normalised per vCPU and GPU when the instance's
// counts are known; UtilizationSeries.Over cuts any window out of it (a
// run, or each step of a sweep).
//
// The package only reads metrics; it creates nothing in AWS.
package cloudwatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// Namespace is where SageMaker publishes invocation metrics.
const Namespace = "AWS/SageMaker"

// DefaultVariant is the variant name SageMaker gives a single-variant
// endpoint created by the usual tooling.
const DefaultVariant = "AllTraffic"

// DefaultPollInterval is the pause between polls while waiting for
// datapoints (CloudWatch publishes once a minute).
const DefaultPollInterval = 30 * time.Second

// API is the part of the CloudWatch client Fetch uses; *cloudwatch.Client
// implements it.
type API interface {
	GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, optFns ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error)
}

// NewClient returns a CloudWatch client from the run's AWS configuration
// (region, credentials). endpointURL, when set, replaces
// monitoring.<region>.amazonaws.com (tests, VPC endpoints); the SageMaker
// --endpoint-url is not used here, it points at SageMaker Runtime.
// AWS_ENDPOINT_URL_CLOUDWATCH is honoured by the SDK as usual.
func NewClient(cfg aws.Config, endpointURL string) *cloudwatch.Client {
	return cloudwatch.NewFromConfig(cfg, func(o *cloudwatch.Options) {
		if endpointURL != "" {
			o.BaseEndpoint = aws.String(endpointURL)
		}
		// The benchmark's configuration turns retries off (they would hide
		// inside measured latencies); reading metrics afterwards is not
		// measured, and CloudWatch throttles, so retry here.
		o.Retryer = retry.NewStandard()
		o.RetryMaxAttempts = 0
	})
}

// Query says which series to read and how long to wait for them.
type Query struct {
	// EndpointName is the endpoint (required unless InferenceComponent is
	// set).
	EndpointName string
	// VariantName is the production variant; "" means DefaultVariant.
	// Ignored with InferenceComponent.
	VariantName string
	// InferenceComponent, when set, reads the series published under the
	// InferenceComponentName dimension alone (endpoints hosting components
	// report invocations against the component, docs/sagemaker.md#inference-components).
	InferenceComponent string
	// Start and End bound the run (wall clock). The window read is Start
	// floored to the minute up to End ceiled to the minute plus one minute,
	// read as a single period so that its statistics cover the whole run.
	Start, End time.Time
	// Requests is the number of invocations sent in the window (including
	// warm-ups); polling stops once ModelLatency's SampleCount reaches it.
	// 0 stops at the first datapoint.
	Requests int
	// Wait is how long to keep polling for datapoints after the first
	// look; 0 looks once.
	Wait time.Duration
	// PollInterval is the pause between looks; 0 means
	// DefaultPollInterval.
	PollInterval time.Duration
}

// Latency summarises one latency metric over the window, in milliseconds.
// Nil fields had no datapoints (percentiles are often unavailable:
// SageMaker publishes statistic sets, from which CloudWatch cannot derive
// them).
type Latency struct {
	// SampleCount is the number of invocations measured.
	SampleCount float64  `json:"sample_count"`
	MeanMs      *float64 `json:"mean_ms"`
	MinMs       *float64 `json:"min_ms"`
	MaxMs       *float64 `json:"max_ms"`
	P50Ms       *float64 `json:"p50_ms"`
	P90Ms       *float64 `json:"p90_ms"`
	P99Ms       *float64 `json:"p99_ms"`
}

// Summary is SageMaker's view of the run. It is JSON-serialisable for the
// saved result.
type Summary struct {
	// Namespace and Dimensions identify the series read.
	Namespace  string            `json:"namespace"`
	Dimensions map[string]string `json:"dimensions"`
	// WindowStart and WindowEnd are the minute-aligned window read.
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// PeriodSeconds is the statistics period (the whole window).
	PeriodSeconds int `json:"period_seconds"`

	ModelLatency    Latency `json:"model_latency"`
	OverheadLatency Latency `json:"overhead_latency"`
	// Invocations, Invocation4XXErrors and Invocation5XXErrors are sums
	// over the window; nil when no datapoint arrived.
	Invocations         *float64 `json:"invocations"`
	Invocation4XXErrors *float64 `json:"invocation_4xx_errors"`
	Invocation5XXErrors *float64 `json:"invocation_5xx_errors"`
	// FirstChunkLatency and MidStreamErrors are read too but may not be
	// published for this API; nil when no datapoint arrived.
	FirstChunkLatency *Latency `json:"first_chunk_latency,omitempty"`
	MidStreamErrors   *float64 `json:"mid_stream_errors,omitempty"`

	// Utilization is the endpoint's instance utilisation over the run
	// window (/aws/sagemaker/Endpoints), when read.
	Utilization *Utilization `json:"utilization,omitempty"`

	// RequestsSent is Query.Requests.
	RequestsSent int `json:"requests_sent"`
	// Complete is true when ModelLatency's SampleCount reached
	// RequestsSent (or, with RequestsSent 0, any datapoint arrived).
	Complete bool `json:"complete"`
	// Polls is how many times CloudWatch was read.
	Polls int `json:"polls"`
	// Warnings explain anything incomplete or odd.
	Warnings []string `json:"warnings,omitempty"`
}

// query ids: lower-case first letter, as GetMetricData requires.
type series struct {
	id, metric, stat string
}

var allSeries = []series{
	{"mlAvg", "ModelLatency", "Average"},
	{"mlN", "ModelLatency", "SampleCount"},
	{"mlMin", "ModelLatency", "Minimum"},
	{"mlMax", "ModelLatency", "Maximum"},
	{"mlP50", "ModelLatency", "p50"},
	{"mlP90", "ModelLatency", "p90"},
	{"mlP99", "ModelLatency", "p99"},
	{"olAvg", "OverheadLatency", "Average"},
	{"olN", "OverheadLatency", "SampleCount"},
	{"olMin", "OverheadLatency", "Minimum"},
	{"olMax", "OverheadLatency", "Maximum"},
	{"olP50", "OverheadLatency", "p50"},
	{"olP90", "OverheadLatency", "p90"},
	{"olP99", "OverheadLatency", "p99"},
	// Published for the HTTP/2 bidirectional streaming API; whether they
	// exist for InvokeEndpointWithResponseStream is not established (docs/sagemaker.md#streaming-specific-metrics),
	// so "no datapoints" is normal.
	{"fcAvg", "FirstChunkLatency", "Average"},
	{"fcN", "FirstChunkLatency", "SampleCount"},
	{"fcMin", "FirstChunkLatency", "Minimum"},
	{"fcMax", "FirstChunkLatency", "Maximum"},
	{"mse", "MidStreamErrors", "Sum"},
	{"inv", "Invocations", "Sum"},
	{"e4xx", "Invocation4XXErrors", "Sum"},
	{"e5xx", "Invocation5XXErrors", "Sum"},
}

// Window returns the minute-aligned window and period Fetch reads for a run
// from start to end: [floor(start), ceil(end)+1min), one period.
func Window(start, end time.Time) (from, to time.Time, periodSeconds int) {
	from = start.UTC().Truncate(time.Minute)
	to = end.UTC().Truncate(time.Minute)
	if to.Before(end.UTC()) {
		to = to.Add(time.Minute)
	}
	to = to.Add(time.Minute)
	if !to.After(from) {
		to = from.Add(time.Minute)
	}
	return from, to, int(to.Sub(from) / time.Second)
}

// Fetch reads the metrics, polling until complete or q.Wait has passed.
// An API error (no permission, bad input) is returned as is; datapoints
// still missing after the wait are not an error but Complete=false with a
// warning.
func Fetch(ctx context.Context, api API, q Query) (*Summary, error) {
	if q.EndpointName == "" && q.InferenceComponent == "" {
		return nil, errors.New("cloudwatch: no endpoint name or inference component to read metrics for")
	}
	if !q.End.After(q.Start) {
		return nil, fmt.Errorf("cloudwatch: run window end %s is not after start %s", q.End.Format(time.RFC3339), q.Start.Format(time.RFC3339))
	}
	from, to, period := Window(q.Start, q.End)
	s := &Summary{
		Namespace:     Namespace,
		Dimensions:    map[string]string{},
		WindowStart:   from,
		WindowEnd:     to,
		PeriodSeconds: period,
		RequestsSent:  q.Requests,
	}
	var dims []types.Dimension
	if q.InferenceComponent != "" {
		dims = []types.Dimension{{Name: aws.String("InferenceComponentName"), Value: aws.String(q.InferenceComponent)}}
		s.Dimensions["InferenceComponentName"] = q.InferenceComponent
	} else {
		variant := q.VariantName
		if variant == "" {
			variant = DefaultVariant
		}
		dims = []types.Dimension{
			{Name: aws.String("EndpointName"), Value: aws.String(q.EndpointName)},
			{Name: aws.String("VariantName"), Value: aws.String(variant)},
		}
		s.Dimensions["EndpointName"] = q.EndpointName
		s.Dimensions["VariantName"] = variant
	}
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(from),
		EndTime:   aws.Time(to),
		ScanBy:    types.ScanByTimestampAscending,
	}
	for _, sr := range allSeries {
		in.MetricDataQueries = append(in.MetricDataQueries, types.MetricDataQuery{
			Id: aws.String(sr.id),
			MetricStat: &types.MetricStat{
				Metric: &types.Metric{
					Namespace:  aws.String(Namespace),
					MetricName: aws.String(sr.metric),
					Dimensions: dims,
				},
				Period: aws.Int32(int32(period)),
				Stat:   aws.String(sr.stat),
			},
			ReturnData: aws.Bool(true),
		})
	}
	interval := q.PollInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	deadline := time.Now().Add(q.Wait)
	for {
		res, err := getAll(ctx, api, in)
		s.Polls++
		if err != nil {
			return nil, fmt.Errorf("cloudwatch GetMetricData: %w", err)
		}
		s.fill(res)
		if s.Complete {
			return s, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		t := time.NewTimer(min(interval, left))
		select {
		case <-ctx.Done():
			t.Stop()
			s.Warnings = append(s.Warnings, "stopped waiting for CloudWatch: "+ctx.Err().Error())
			return s, nil
		case <-t.C:
		}
	}
	have := s.ModelLatency.SampleCount
	if q.Requests > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("CloudWatch incomplete: ModelLatency covers %.0f of %d requests after waiting %s (CloudWatch publishes with a lag of minutes; raise --cloudwatch-wait)", have, q.Requests, q.Wait))
	} else {
		s.Warnings = append(s.Warnings, fmt.Sprintf("CloudWatch incomplete: no ModelLatency datapoints after waiting %s", q.Wait))
	}
	return s, nil
}

// getAll runs the query and pages until NextToken is empty, returning the
// values per query id.
func getAll(ctx context.Context, api API, in *cloudwatch.GetMetricDataInput) (map[string][]point, error) {
	out := map[string][]point{}
	req := *in
	for page := 0; ; page++ {
		if page >= 100 {
			return nil, errors.New("more than 100 result pages")
		}
		resp, err := api.GetMetricData(ctx, &req)
		if err != nil {
			return nil, err
		}
		for _, r := range resp.MetricDataResults {
			id := aws.ToString(r.Id)
			n := min(len(r.Timestamps), len(r.Values))
			for i := range n {
				out[id] = append(out[id], point{r.Timestamps[i], r.Values[i]})
			}
		}
		if aws.ToString(resp.NextToken) == "" {
			return out, nil
		}
		req.NextToken = resp.NextToken
	}
}

type point struct {
	t time.Time
	v float64
}

// fill computes the summary from the latest poll's values.
func (s *Summary) fill(res map[string][]point) {
	s.ModelLatency = latency(res, "ml")
	s.OverheadLatency = latency(res, "ol")
	s.Invocations = sum(res["inv"])
	s.Invocation4XXErrors = sum(res["e4xx"])
	s.Invocation5XXErrors = sum(res["e5xx"])
	s.FirstChunkLatency = nil
	if fc := latency(res, "fc"); fc.SampleCount > 0 || fc.MeanMs != nil {
		s.FirstChunkLatency = &fc
	}
	s.MidStreamErrors = sum(res["mse"])
	if s.RequestsSent > 0 {
		s.Complete = s.ModelLatency.SampleCount >= float64(s.RequestsSent)
	} else {
		s.Complete = s.ModelLatency.SampleCount > 0
	}
}

// latency combines one metric's statistics, converting microseconds to
// milliseconds. With one period there is one datapoint per statistic;
// should CloudWatch return several (per-timestamp), the mean is weighted by
// each timestamp's SampleCount, min/max are taken over all, and
// percentiles, which cannot be combined, are kept only if there is exactly
// one.
func latency(res map[string][]point, prefix string) Latency {
	var l Latency
	counts := map[time.Time]float64{}
	for _, p := range res[prefix+"N"] {
		counts[p.t] += p.v
		l.SampleCount += p.v
	}
	if avg := res[prefix+"Avg"]; len(avg) > 0 {
		var num, den float64
		for _, p := range avg {
			w := counts[p.t]
			if len(avg) == 1 && w == 0 {
				w = 1 // a lone average without its count
			}
			num += p.v * w
			den += w
		}
		if den > 0 {
			l.MeanMs = ms(num / den)
		}
	}
	l.MinMs = extreme(res[prefix+"Min"], math.Min)
	l.MaxMs = extreme(res[prefix+"Max"], math.Max)
	l.P50Ms = single(res[prefix+"P50"])
	l.P90Ms = single(res[prefix+"P90"])
	l.P99Ms = single(res[prefix+"P99"])
	return l
}

// ms converts microseconds (CloudWatch's unit for SageMaker latencies) to
// milliseconds.
func ms(us float64) *float64 {
	v := us / 1000
	return &v
}

func extreme(ps []point, pick func(a, b float64) float64) *float64 {
	if len(ps) == 0 {
		return nil
	}
	v := ps[0].v
	for _, p := range ps[1:] {
		v = pick(v, p.v)
	}
	return ms(v)
}

func single(ps []point) *float64 {
	if len(ps) != 1 {
		return nil
	}
	return ms(ps[0].v)
}

func sum(ps []point) *float64 {
	if len(ps) == 0 {
		return nil
	}
	var v float64
	for _, p := range ps {
		v += p.v
	}
	return &v
}

// sortedDims returns the dimensions as "k=v" in key order.
func sortedDims(d map[string]string) []string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + d[k]
	}
	return out
}

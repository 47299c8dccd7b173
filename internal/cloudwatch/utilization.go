package cloudwatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"
)

// UtilizationNamespace is where SageMaker publishes a real-time endpoint's
// instance utilisation, once a minute, per EndpointName and VariantName
// (averaged over the variant's instances).
const UtilizationNamespace = "/aws/sagemaker/Endpoints"

// Utilisation metrics as AWS documents them: CPUUtilization is the sum
// over the instance's vCPUs (0 to 100 × vCPUs), GPUUtilization and
// GPUMemoryUtilization the sum over its GPUs (0 to 100 × GPUs);
// MemoryUtilization and DiskUtilization are 0-100.
const (
	CPUUtilization       = "CPUUtilization"
	MemoryUtilization    = "MemoryUtilization"
	GPUUtilization       = "GPUUtilization"
	GPUMemoryUtilization = "GPUMemoryUtilization"
	DiskUtilization      = "DiskUtilization"
)

// utilMetrics are the metrics read, with their query ids.
var utilMetrics = []struct{ id, name string }{
	{"cpu", CPUUtilization}, {"mem", MemoryUtilization}, {"gpu", GPUUtilization},
	{"gmem", GPUMemoryUtilization}, {"disk", DiskUtilization},
}

// UtilizationQuery says which endpoint's utilisation to read over which
// span: a run, or a whole sweep whose steps are then cut out with
// UtilizationSeries.Over.
type UtilizationQuery struct {
	EndpointName string
	// VariantName "" means DefaultVariant.
	VariantName string
	// Start and End bound the span (wall clock); it is read as whole
	// minutes, floor(Start) to ceil(End).
	Start, End time.Time
	// VCPUs and GPUs are the instance's, to normalise CPU and GPU figures
	// to percent of the instance; 0 = unknown, figures left as published.
	VCPUs, GPUs int
	// Wait is how long to keep polling until the span's last minute has a
	// datapoint; 0 looks once. PollInterval 0 means DefaultPollInterval.
	Wait, PollInterval time.Duration
}

// UtilizationSeries is the per-minute Average of each metric over the
// span read; Over summarises any window of it.
type UtilizationSeries struct {
	Namespace  string            `json:"namespace"`
	Dimensions map[string]string `json:"dimensions"`
	// WindowStart and WindowEnd are the minute-aligned span read.
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// VCPUs and GPUs are the query's, 0 when unknown.
	VCPUs int `json:"vcpus"`
	GPUs  int `json:"gpus"`
	// Complete is true when the span's last minute had a CPU or memory
	// datapoint; Polls counts the reads.
	Complete bool     `json:"complete"`
	Polls    int      `json:"polls"`
	Warnings []string `json:"warnings,omitempty"`
	// points holds each metric's per-minute values, by metric name.
	points map[string][]point
}

// minutes is the minute-aligned span [floor(start), ceil(end)), at least
// one minute.
func minutes(start, end time.Time) (from, to time.Time) {
	from = start.UTC().Truncate(time.Minute)
	to = end.UTC().Truncate(time.Minute)
	if to.Before(end.UTC()) {
		to = to.Add(time.Minute)
	}
	if !to.After(from) {
		to = from.Add(time.Minute)
	}
	return from, to
}

// FetchUtilization reads the endpoint's instance utilisation at one-minute
// resolution, polling until the span's last minute has arrived or q.Wait
// has passed (then Complete is false, with a warning). An API error is
// returned as is.
func FetchUtilization(ctx context.Context, api API, q UtilizationQuery) (*UtilizationSeries, error) {
	if q.EndpointName == "" {
		return nil, errors.New("cloudwatch: no endpoint name to read utilisation for")
	}
	if !q.End.After(q.Start) {
		return nil, fmt.Errorf("cloudwatch: window end %s is not after start %s", q.End.Format(time.RFC3339), q.Start.Format(time.RFC3339))
	}
	variant := q.VariantName
	if variant == "" {
		variant = DefaultVariant
	}
	from, to := minutes(q.Start, q.End)
	s := &UtilizationSeries{Namespace: UtilizationNamespace, WindowStart: from, WindowEnd: to, VCPUs: q.VCPUs, GPUs: q.GPUs,
		Dimensions: map[string]string{"EndpointName": q.EndpointName, "VariantName": variant}}
	dims := []types.Dimension{
		{Name: aws.String("EndpointName"), Value: aws.String(q.EndpointName)},
		{Name: aws.String("VariantName"), Value: aws.String(variant)},
	}
	in := &cloudwatch.GetMetricDataInput{StartTime: aws.Time(from), EndTime: aws.Time(to), ScanBy: types.ScanByTimestampAscending}
	for _, m := range utilMetrics {
		in.MetricDataQueries = append(in.MetricDataQueries, types.MetricDataQuery{
			Id: aws.String(m.id),
			MetricStat: &types.MetricStat{
				Metric: &types.Metric{Namespace: aws.String(UtilizationNamespace), MetricName: aws.String(m.name), Dimensions: dims},
				Period: aws.Int32(60), Stat: aws.String("Average"),
			},
			ReturnData: aws.Bool(true),
		})
	}
	return s, s.poll(ctx, api, in, q)
}

// poll reads until the last minute arrived or the wait is over.
func (s *UtilizationSeries) poll(ctx context.Context, api API, in *cloudwatch.GetMetricDataInput, q UtilizationQuery) error {
	interval := q.PollInterval
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	deadline := time.Now().Add(q.Wait)
	last := s.WindowEnd.Add(-time.Minute)
	for {
		res, err := getAll(ctx, api, in)
		s.Polls++
		if err != nil {
			return fmt.Errorf("cloudwatch GetMetricData (utilisation): %w", err)
		}
		s.points = map[string][]point{}
		for _, m := range utilMetrics {
			s.points[m.name] = res[m.id]
		}
		s.Complete = hasAtOrAfter(s.points[CPUUtilization], last) || hasAtOrAfter(s.points[MemoryUtilization], last)
		if s.Complete {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		t := time.NewTimer(min(interval, left))
		select {
		case <-ctx.Done():
			t.Stop()
			s.Warnings = append(s.Warnings, "stopped waiting for CloudWatch utilisation: "+ctx.Err().Error())
			return nil
		case <-t.C:
		}
	}
	s.Warnings = append(s.Warnings, fmt.Sprintf("CloudWatch utilisation incomplete: no datapoint for %s UTC after waiting %s (raise --cloudwatch-wait)", last.Format("15:04"), q.Wait))
	return nil
}

func hasAtOrAfter(ps []point, t time.Time) bool {
	for _, p := range ps {
		if !p.t.Before(t) {
			return true
		}
	}
	return false
}

// Utilization is the utilisation over one window: each metric's mean of
// the per-minute Averages of the minutes the window touches; nil when no
// minute had a datapoint.
type Utilization struct {
	// CPUPct, GPUPct and GPUMemoryPct are percent of the instance (0-100)
	// when Normalized: CPUUtilization ÷ vCPUs, GPU figures ÷ GPUs. Else
	// they are AWS's sums (0 to 100 × vCPUs or GPUs).
	CPUPct       *float64 `json:"cpu_pct"`
	GPUPct       *float64 `json:"gpu_pct"`
	GPUMemoryPct *float64 `json:"gpu_memory_pct"`
	MemoryPct    *float64 `json:"memory_pct"`
	DiskPct      *float64 `json:"disk_pct"`
	Normalized   bool     `json:"normalized"`
	// Minutes is how many minutes had a CPU or memory datapoint.
	Minutes int `json:"minutes"`
	// Note says what the reader must know: a window shorter than the
	// minutes it was read as, figures not normalised.
	Note string `json:"note,omitempty"`
}

// Over summarises the window [start, end) from the series: the minutes
// from floor(start) to ceil(end). A window shorter than two minutes
// shares its minutes with whatever ran just before and after, which the
// note says. Example: a step from 10:00:20 to 10:00:50 is read as the
// minute 10:00, whose Average also covers 10:00:00-10:00:20 and
// 10:00:50-10:01:00.
func (s *UtilizationSeries) Over(start, end time.Time) Utilization {
	from, to := minutes(start, end)
	var u Utilization
	mean := func(metric string, div int) *float64 {
		sum, n := 0.0, 0
		for _, p := range s.points[metric] {
			if !p.t.Before(from) && p.t.Before(to) {
				sum += p.v
				n++
			}
		}
		if n == 0 {
			return nil
		}
		v := sum / float64(n) / float64(max(div, 1))
		return &v
	}
	u.Normalized = s.VCPUs > 0
	cpuDiv, gpuDiv := s.VCPUs, s.GPUs
	if !u.Normalized {
		cpuDiv, gpuDiv = 1, 1
	}
	u.CPUPct, u.GPUPct, u.GPUMemoryPct = mean(CPUUtilization, cpuDiv), mean(GPUUtilization, gpuDiv), mean(GPUMemoryUtilization, gpuDiv)
	u.MemoryPct, u.DiskPct = mean(MemoryUtilization, 1), mean(DiskUtilization, 1)
	for m := from; m.Before(to); m = m.Add(time.Minute) {
		if hasMinute(s.points[CPUUtilization], m) || hasMinute(s.points[MemoryUtilization], m) {
			u.Minutes++
		}
	}
	var notes []string
	if end.Sub(start) < 2*time.Minute {
		notes = append(notes, "windows shorter than 2 minutes are read as the whole CloudWatch minutes they touch, which include neighbouring load (use --step-duration 5m or more)")
	}
	if !u.Normalized {
		notes = append(notes, "CPU and GPU figures are AWS's sums over vCPUs and GPUs (up to 100 × their count): give a known --instance-type to normalise them")
	}
	for i, n := range notes {
		if i > 0 {
			u.Note += "; "
		}
		u.Note += n
	}
	return u
}

func hasMinute(ps []point, m time.Time) bool {
	for _, p := range ps {
		if p.t.Equal(m) {
			return true
		}
	}
	return false
}

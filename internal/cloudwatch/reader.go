package cloudwatch

import (
	"context"
	"time"
)

// Reader reads one endpoint's metrics after a run (Run) or a sweep
// (Utilization): which endpoint, variant or inference component, how long
// to wait for CloudWatch's late datapoints, and the instance's vCPUs and
// GPUs by which utilisation is normalised.
type Reader struct {
	// API is the CloudWatch client (NewClient from the run's AWS
	// configuration).
	API                API
	EndpointName       string
	VariantName        string // "" means DefaultVariant
	InferenceComponent string
	// Wait bounds all polling of one read (Query.Wait).
	Wait time.Duration
	// VCPUs and GPUs are the instance's; 0 = unknown (UtilizationQuery).
	VCPUs, GPUs int
}

// Run reads a run that sent requests invocations (warm-ups included)
// between start and end (wall clock): the invocation metrics (Fetch),
// then, within what is left of Wait, the instance utilisation over the
// run. Inference components publish their utilisation elsewhere
// (/aws/sagemaker/InferenceComponents), which Run does not read. A
// failed utilisation read is a warning of the summary, not an error.
func (r *Reader) Run(ctx context.Context, start, end time.Time, requests int) (*Summary, error) {
	began := time.Now()
	s, err := Fetch(ctx, r.API, Query{
		EndpointName:       r.EndpointName,
		VariantName:        r.VariantName,
		InferenceComponent: r.InferenceComponent,
		Start:              start,
		End:                end,
		Requests:           requests,
		Wait:               r.Wait,
	})
	if err != nil || r.InferenceComponent != "" {
		return s, err
	}
	series, err := r.Utilization(ctx, start, end, max(0, r.Wait-time.Since(began)))
	if err != nil {
		s.Warnings = append(s.Warnings, err.Error())
		return s, nil
	}
	u := series.Over(start, end)
	s.Utilization = &u
	s.Warnings = append(s.Warnings, series.Warnings...)
	return s, nil
}

// Utilization reads the endpoint's instance utilisation from start to end
// (a run, or a whole sweep), polling up to wait (FetchUtilization).
func (r *Reader) Utilization(ctx context.Context, start, end time.Time, wait time.Duration) (*UtilizationSeries, error) {
	return FetchUtilization(ctx, r.API, UtilizationQuery{EndpointName: r.EndpointName, VariantName: r.VariantName,
		Start: start, End: end, Wait: wait, VCPUs: r.VCPUs, GPUs: r.GPUs})
}

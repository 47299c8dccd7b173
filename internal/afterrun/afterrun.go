// Package afterrun is the one home of what an endpoint's provider says
// after a run: the SageMaker endpoint's description for the saved result,
// its CloudWatch metrics over the run's window (package cloudwatch), the
// cost of the run (package cost, for any backend) and the reminder that a
// real-time endpoint bills until it is deleted. `llmbench run` calls
// Endpoint.Write once the run is summarised; `llmbench sweep` reads each
// step's utilisation through Endpoint.Reader.
//
// It is a package of its own because these sections join packages that
// do not know each other (the SageMaker backend's configuration,
// cloudwatch, cost), and which of them apply depends on the run: a
// SageMaker endpoint, --cloudwatch, a price. cloudwatch and cost stay
// usable alone; this package only decides, in one place, what a run shows
// and saves of them.
//
// It knows nothing of flags or of the CLI (the caller converts its flags
// into an Endpoint), computes no metric (the run's figures come in as a
// Run) and creates nothing in AWS: it only reads CloudWatch.
package afterrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/cost"
)

// The keys Write adds to the result's extra top-level objects (the run's
// HTML page shows them under the same names: htmlreport's page.go).
const (
	KeySageMaker  = "sagemaker"
	KeyCloudWatch = "cloudwatch"
	KeyCost       = "cost"
)

// Endpoint is the endpoint a run measured as its provider sees it: the
// SageMaker endpoint when the run was one, whether to read its CloudWatch
// metrics, and the priced instances (for any backend). The zero value is
// an unpriced OpenAI-compatible server, for which Write shows nothing.
type Endpoint struct {
	// SageMaker is true for a --backend sagemaker run: the result
	// records the endpoint (Info) and CloudWatch may be read. False: an
	// OpenAI-compatible server, for which only the cost section applies.
	SageMaker bool
	// Config is the SageMaker backend's configuration as given; its
	// region is AWS's when AWS is set (--region may leave it to the
	// environment).
	Config sagemaker.Config
	// AWS is the configuration (region, credentials) the SageMaker
	// backend resolved, reused to read CloudWatch; nil when the backend
	// was not set up (Reader fails).
	AWS *aws.Config

	// CloudWatch turns the CloudWatch read-back on (--cloudwatch).
	CloudWatch bool
	// Wait bounds the polling for CloudWatch's late datapoints
	// (--cloudwatch-wait; cloudwatch.Reader.Wait).
	Wait time.Duration

	// Instance is the priced endpoint (--instance-type, --instance-count,
	// --price-per-hour); the zero value prices nothing.
	Instance cost.Instance
}

// Run is what the sections need of a finished run.
type Run struct {
	// Start is when the run began (wall clock) and Duration how long it
	// took: the CloudWatch window and the cost come from them.
	Start    time.Time
	Duration time.Duration
	// Invocations is every request sent to the endpoint, warm-ups
	// included: CloudWatch counts them all.
	Invocations int
	// Completed and OutputTokens are the completed requests and their
	// output tokens, for the cost per request and per million tokens.
	Completed, OutputTokens int
	// MeanE2ELms and MeanTTFTms are the client's mean E2EL and TTFT in
	// milliseconds, set beside CloudWatch's latencies (NaN: not
	// available; cloudwatch.WriteTable).
	MeanE2ELms, MeanTTFTms float64
}

// CostError is Write's error when the run cannot be priced (a bad price
// or instance type; cost.Instance.Estimate): a usage error, unlike a
// failed write.
type CostError struct{ Err error }

func (e *CostError) Error() string { return e.Err.Error() }

// Unwrap returns the cost package's error.
func (e *CostError) Unwrap() error { return e.Err }

// Write prints the after-run sections of run and returns the result's
// extra keys:
//   - a SageMaker endpoint: KeySageMaker (Info); with CloudWatch on, its
//     metrics over the run (Reader, cloudwatch.Reader.Run) as a table on
//     out and KeyCloudWatch; a failed read is a warning on errw, not an
//     error;
//   - a price: the cost section on out and KeyCost (a *cost.Estimate);
//   - then, for a SageMaker endpoint or a price, the reminder to delete
//     an endpoint that bills (cost.WriteAfterRun; not for a local proxy
//     or simulator).
//
// An error pricing the run is a *CostError; the other errors are out's.
func (e *Endpoint) Write(ctx context.Context, out, errw io.Writer, run Run) (map[string]any, error) {
	extra := map[string]any{}
	if e.SageMaker {
		extra[KeySageMaker] = e.Info()
		cw, cwErr := e.cloudWatch(ctx, run)
		if cwErr != nil {
			fmt.Fprintln(errw, "Warning: CloudWatch:", cwErr)
		}
		if cw != nil {
			if err := cloudwatch.WriteTable(out, cw, run.MeanE2ELms, run.MeanTTFTms); err != nil {
				return nil, err
			}
			extra[KeyCloudWatch] = cw
		}
	}
	est, err := e.Instance.Estimate(run.Duration, run.Completed, run.OutputTokens)
	if err != nil {
		return nil, &CostError{Err: err}
	}
	if est != nil {
		extra[KeyCost] = est
	}
	if e.SageMaker || est != nil {
		if err := e.writeCost(out, est); err != nil {
			return nil, err
		}
	}
	return extra, nil
}

// Info is what a saved result records of the SageMaker endpoint
// (sagemaker.Config.ResultInfo, with the resolved region and the priced
// instance type): never the custom attributes' value or anything from
// the credentials.
func (e *Endpoint) Info() map[string]any {
	return e.endpoint().ResultInfo(e.Instance.Type)
}

// endpoint is the backend's configuration with the region the backend
// resolved once it is set up (--region may leave it to the environment).
func (e *Endpoint) endpoint() sagemaker.Config {
	c := e.Config
	if e.AWS != nil {
		c.AWS.Region = e.AWS.Region
	}
	return c
}

// cloudWatch reads the endpoint's CloudWatch metrics of a run
// (cloudwatch.Reader.Run) from its start to its end on the wall clock;
// nil, nil when CloudWatch is off.
func (e *Endpoint) cloudWatch(ctx context.Context, run Run) (*cloudwatch.Summary, error) {
	if !e.CloudWatch {
		return nil, nil
	}
	r, err := e.Reader()
	if err != nil {
		return nil, err
	}
	return r.Run(ctx, run.Start, run.Start.Add(run.Duration), run.Invocations)
}

// Reader is the CloudWatch reader of the endpoint, with the run's region
// and credentials and the real CloudWatch endpoint (not --endpoint-url,
// which points at SageMaker Runtime; AWS_ENDPOINT_URL_CLOUDWATCH when
// set), its figures normalised by the instance type's vCPUs and GPUs when
// the built-in table knows it (cost.Lookup).
func (e *Endpoint) Reader() (*cloudwatch.Reader, error) {
	if e.AWS == nil {
		return nil, errors.New("cloudwatch: the SageMaker backend was not set up")
	}
	r := &cloudwatch.Reader{API: cloudwatch.NewClient(*e.AWS, ""), EndpointName: e.Config.EndpointName,
		VariantName: e.Config.TargetVariant, InferenceComponent: e.Config.InferenceComponent, Wait: e.Wait}
	if p, ok := cost.Lookup(e.Instance.Type); ok {
		r.VCPUs, r.GPUs = p.VCPUs, p.GPUCount
	}
	return r, nil
}

// writeCost prints the cost section (when est is not nil) and, for a
// SageMaker endpoint that bills (not a local proxy or simulator), the
// reminder to delete it (cost.WriteAfterRun).
func (e *Endpoint) writeCost(w io.Writer, est *cost.Estimate) error {
	c := e.endpoint()
	if c.AWS.Local() {
		c.EndpointName = ""
	}
	return cost.WriteAfterRun(w, est, c.EndpointName, c.AWS.Region)
}

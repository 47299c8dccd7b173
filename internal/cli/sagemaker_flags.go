package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/afterrun"
	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/cost"
)

// sageMakerFlags holds the flags of "--backend sagemaker", the CloudWatch
// read-back and the cost estimate. The run command binds them with
// bindSageMakerFlags and, after a run, hands them to package afterrun
// (provider).
type sageMakerFlags struct {
	// cfg holds the settings bound as they are; config adds the rest.
	cfg sagemaker.Config
	// inferenceComponent is read by the sweep's CloudWatch reader too.
	inferenceComponent, payloadFormat string
	readTimeout                       time.Duration

	cloudwatch     bool
	cloudwatchWait time.Duration

	// inst is the priced endpoint (--instance-type, --instance-count,
	// --price-per-hour), for any backend.
	inst cost.Instance

	// backend is the SageMaker backend the plan was built with; its AWS
	// configuration (region, credentials) is reused for CloudWatch.
	backend *sagemaker.Backend
}

// bindSageMakerFlags declares the SageMaker, CloudWatch and cost flags on
// fs.
func bindSageMakerFlags(fs *pflag.FlagSet) *sageMakerFlags {
	f := &sageMakerFlags{}
	fs.StringVar(&f.cfg.EndpointName, "endpoint-name", "", "SageMaker endpoint to benchmark (--backend sagemaker)")
	fs.StringVar(&f.cfg.AWS.Region, "region", "", "AWS region of the endpoint (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region); required")
	fs.StringVar(&f.cfg.AWS.Profile, "profile", "", "AWS shared config profile (default: AWS_PROFILE or \"default\")")
	fs.StringVar(&f.cfg.AWS.EndpointURL, "endpoint-url", "", "send SageMaker Runtime calls to this URL instead of AWS (llmbench proxy or sim, a VPC endpoint)")
	fs.StringVar(&f.cfg.TargetVariant, "target-variant", "", "production variant to invoke (X-Amzn-SageMaker-Target-Variant); also the CloudWatch VariantName")
	fs.StringVar(&f.cfg.TargetContainerHostname, "target-container-hostname", "", "container of a multi-container endpoint to invoke")
	fs.StringVar(&f.inferenceComponent, "inference-component", "", "inference component to invoke (endpoints hosting components)")
	fs.StringVar((*string)(&f.cfg.CustomAttributes), "custom-attributes", "", "opaque X-Amzn-SageMaker-Custom-Attributes value passed to the container (never printed or saved)")
	fs.StringVar(&f.payloadFormat, "payload-format", string(sagemaker.FormatOpenAIChat), "container request/stream format: openai-chat (vLLM container, chat), openai (completions), tgi, lmi")
	fs.DurationVar(&f.readTimeout, "sagemaker-read-timeout", sagemaker.DefaultReadTimeout, "fail a SageMaker stream that sends nothing for this long (0 = never)")
	fs.BoolVar(&f.cfg.AWS.DisableIMDS, "no-instance-metadata", false, "do not look for AWS credentials in EC2 instance metadata (keep it on EC2 and in SageMaker notebooks)")
	fs.BoolVar(&f.cloudwatch, "cloudwatch", false, "after a SageMaker run or sweep, read the endpoint's CloudWatch metrics (ModelLatency, OverheadLatency, Invocations, 4XX/5XX; CPU/GPU/memory/disk utilisation) for the run window or each step")
	fs.DurationVar(&f.cloudwatchWait, "cloudwatch-wait", 5*time.Minute, "how long to keep polling CloudWatch for the run's datapoints (they appear minutes late)")
	fs.StringVar(&f.inst.Type, "instance-type", "", "endpoint instance type (e.g. ml.g5.2xlarge) for cost figures from the built-in us-east-1 price table")
	fs.IntVar(&f.inst.Count, "instance-count", 1, "number of instances behind the endpoint, for cost figures")
	fs.Float64Var(&f.inst.PricePerHour, "price-per-hour", 0, "USD per instance-hour for cost figures (overrides the built-in table)")
	return f
}

// validate checks the flags that need no AWS access, for any backend (the
// cost flags also price OpenAI-backend runs): call it before the run so a
// typo fails at once. Errors are *UsageError.
func (f *sageMakerFlags) validate() error {
	if _, err := sagemaker.ParseFormat(f.payloadFormat); err != nil {
		return &UsageError{Err: fmt.Errorf("--payload-format: %w", err)}
	}
	if f.inst.Count < 1 {
		return usageErrorf("--instance-count must be at least 1, got %d", f.inst.Count)
	}
	if f.cloudwatchWait < 0 {
		return usageErrorf("--cloudwatch-wait must not be negative")
	}
	if f.readTimeout < 0 {
		return usageErrorf("--sagemaker-read-timeout must not be negative")
	}
	if _, _, _, err := f.inst.Price(); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// config turns the flags into the backend's configuration, unchecked
// (validate checks the flags, prepare.SageMaker the configuration).
// concurrency is the most requests in flight (--max-concurrency, or
// --num-prompts when unlimited).
func (f *sageMakerFlags) config(concurrency int) sagemaker.Config {
	c := f.cfg
	c.InferenceComponent = f.inferenceComponent
	c.Format, _ = sagemaker.ParseFormat(f.payloadFormat)
	c.AWS.Concurrency, c.AWS.ReadTimeout = concurrency, f.readTimeout
	if f.readTimeout == 0 {
		c.AWS.ReadTimeout = -1 // the flag's 0 means never; the config's 0 means default
	}
	return c
}

// provider is the endpoint the flags describe, for what its provider says
// after a run (afterrun.Endpoint: the SageMaker description, CloudWatch,
// cost, the reminder); sageMaker is a --backend sagemaker run. Call it
// after the plan is built, which sets up the backend.
func (f *sageMakerFlags) provider(sageMaker bool) *afterrun.Endpoint {
	e := &afterrun.Endpoint{SageMaker: sageMaker, Config: f.config(0), CloudWatch: f.cloudwatch, Wait: f.cloudwatchWait,
		Instance: f.inst}
	if f.backend != nil {
		cfg := f.backend.AWS()
		e.AWS = &cfg
	}
	return e
}

// utilization reads the endpoint's instance utilisation from start to end
// (cloudwatch.Reader.Utilization). Call it after the plan is built.
func (f *sageMakerFlags) utilization(ctx context.Context, start, end time.Time, wait time.Duration) (*cloudwatch.UtilizationSeries, error) {
	r, err := f.provider(true).Reader()
	if err != nil {
		return nil, err
	}
	return r.Utilization(ctx, start, end, wait)
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/cost"
)

// sageMakerFlags holds the flags of "--backend sagemaker", the CloudWatch
// read-back and the cost estimate. The run command binds them with
// bindSageMakerFlags and, after a run, calls cloudWatch, costEstimate and
// writeAfterRun.
type sageMakerFlags struct {
	endpointName            string
	region                  string
	profile                 string
	endpointURL             string
	targetVariant           string
	targetContainerHostname string
	inferenceComponent      string
	customAttributes        string
	payloadFormat           string
	readTimeout             time.Duration
	disableIMDS             bool

	cloudwatch     bool
	cloudwatchWait time.Duration

	instanceType  string
	instanceCount int
	pricePerHour  float64

	// backend is the SageMaker backend the plan was built with; its AWS
	// configuration (region, credentials) is reused for CloudWatch.
	backend *sagemaker.Backend
}

// bindSageMakerFlags declares the SageMaker, CloudWatch and cost flags on
// fs.
func bindSageMakerFlags(fs *pflag.FlagSet) *sageMakerFlags {
	f := &sageMakerFlags{}
	fs.StringVar(&f.endpointName, "endpoint-name", "", "SageMaker endpoint to benchmark (--backend sagemaker)")
	fs.StringVar(&f.region, "region", "", "AWS region of the endpoint (default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region); required")
	fs.StringVar(&f.profile, "profile", "", "AWS shared config profile (default: AWS_PROFILE or \"default\")")
	fs.StringVar(&f.endpointURL, "endpoint-url", "", "send SageMaker Runtime calls to this URL instead of AWS (llmbench proxy or sim, a VPC endpoint)")
	fs.StringVar(&f.targetVariant, "target-variant", "", "production variant to invoke (X-Amzn-SageMaker-Target-Variant); also the CloudWatch VariantName")
	fs.StringVar(&f.targetContainerHostname, "target-container-hostname", "", "container of a multi-container endpoint to invoke")
	fs.StringVar(&f.inferenceComponent, "inference-component", "", "inference component to invoke (endpoints hosting components)")
	fs.StringVar(&f.customAttributes, "custom-attributes", "", "opaque X-Amzn-SageMaker-Custom-Attributes value passed to the container (never printed or saved)")
	fs.StringVar(&f.payloadFormat, "payload-format", string(sagemaker.FormatOpenAIChat), "container request/stream format: openai-chat (vLLM container, chat), openai (completions), tgi, lmi")
	fs.DurationVar(&f.readTimeout, "sagemaker-read-timeout", sagemaker.DefaultReadTimeout, "fail a SageMaker stream that sends nothing for this long (0 = never)")
	fs.BoolVar(&f.disableIMDS, "no-instance-metadata", false, "do not look for AWS credentials in EC2 instance metadata (keep it on EC2 and in SageMaker notebooks)")
	fs.BoolVar(&f.cloudwatch, "cloudwatch", false, "after a SageMaker run or sweep, read the endpoint's CloudWatch metrics (ModelLatency, OverheadLatency, Invocations, 4XX/5XX; CPU/GPU/memory/disk utilisation) for the run window or each step")
	fs.DurationVar(&f.cloudwatchWait, "cloudwatch-wait", 5*time.Minute, "how long to keep polling CloudWatch for the run's datapoints (they appear minutes late)")
	fs.StringVar(&f.instanceType, "instance-type", "", "endpoint instance type (e.g. ml.g5.2xlarge) for cost figures from the built-in us-east-1 price table")
	fs.IntVar(&f.instanceCount, "instance-count", 1, "number of instances behind the endpoint, for cost figures")
	fs.Float64Var(&f.pricePerHour, "price-per-hour", 0, "USD per instance-hour for cost figures (overrides the built-in table)")
	return f
}

// validate checks the flags that need no AWS access, for any backend (the
// cost flags also price OpenAI-backend runs): call it before the run so a
// typo fails at once. Errors are *UsageError.
func (f *sageMakerFlags) validate() error {
	if _, err := sagemaker.ParseFormat(f.payloadFormat); err != nil {
		return &UsageError{Err: fmt.Errorf("--payload-format: %w", err)}
	}
	if f.instanceCount < 1 {
		return usageErrorf("--instance-count must be at least 1, got %d", f.instanceCount)
	}
	if f.cloudwatchWait < 0 {
		return usageErrorf("--cloudwatch-wait must not be negative")
	}
	if f.readTimeout < 0 {
		return usageErrorf("--sagemaker-read-timeout must not be negative")
	}
	if _, _, _, err := cost.Resolve(f.instanceType, f.pricePerHour); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// config turns the flags into the backend's configuration, unchecked
// (validate checks the flags, prepare.SageMaker the configuration).
// concurrency is the most requests in flight (--max-concurrency, or
// --num-prompts when unlimited).
func (f *sageMakerFlags) config(concurrency int) sagemaker.Config {
	format, _ := sagemaker.ParseFormat(f.payloadFormat)
	readTimeout := f.readTimeout
	if readTimeout == 0 {
		readTimeout = -1 // the flag's 0 means never; the config's 0 means default
	}
	return sagemaker.Config{
		EndpointName:            f.endpointName,
		Format:                  format,
		TargetVariant:           f.targetVariant,
		TargetContainerHostname: f.targetContainerHostname,
		InferenceComponent:      f.inferenceComponent,
		CustomAttributes:        sagemaker.Sensitive(f.customAttributes),
		AWS: sagemaker.AWSConfig{
			Region:      f.region,
			Profile:     f.profile,
			EndpointURL: f.endpointURL,
			DisableIMDS: f.disableIMDS,
			Concurrency: concurrency,
			ReadTimeout: readTimeout,
		},
	}
}

// resultInfo is what a saved result records of the SageMaker settings:
// never the custom attributes' value or anything from the credentials.
func (f *sageMakerFlags) resultInfo() map[string]any {
	m := map[string]any{
		"endpoint_name":  f.endpointName,
		"payload_format": f.payloadFormat,
	}
	add := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	region := f.region
	if f.backend != nil {
		region = f.backend.AWS().Region
	}
	add("region", region)
	add("endpoint_url", f.endpointURL)
	add("target_variant", f.targetVariant)
	add("target_container_hostname", f.targetContainerHostname)
	add("inference_component", f.inferenceComponent)
	if f.customAttributes != "" {
		m["custom_attributes"] = "[redacted]"
	}
	add("instance_type", f.instanceType)
	return m
}

// cloudWatch reads the endpoint's CloudWatch metrics for a run that sent
// requests invocations (warm-ups included) between start and end (wall
// clock), polling up to --cloudwatch-wait. It returns nil, nil when
// --cloudwatch is off. Call it after the plan is built. The CloudWatch client uses
// the run's region and credentials, the real CloudWatch endpoint (not
// --endpoint-url, which points at SageMaker Runtime), or
// AWS_ENDPOINT_URL_CLOUDWATCH when set.
func (f *sageMakerFlags) cloudWatch(ctx context.Context, start, end time.Time, requests int) (*cloudwatch.Summary, error) {
	if !f.cloudwatch {
		return nil, nil
	}
	if f.backend == nil {
		return nil, errors.New("cloudwatch: the SageMaker backend was not set up")
	}
	client := cloudwatch.NewClient(f.backend.AWS(), "")
	began := time.Now()
	s, err := cloudwatch.Fetch(ctx, client, cloudwatch.Query{
		EndpointName:       f.endpointName,
		VariantName:        f.targetVariant,
		InferenceComponent: f.inferenceComponent,
		Start:              start,
		End:                end,
		Requests:           requests,
		Wait:               f.cloudwatchWait,
	})
	if err != nil || f.inferenceComponent != "" {
		return s, err // components publish utilisation elsewhere (/aws/sagemaker/InferenceComponents)
	}
	series, err := f.utilization(ctx, start, end, max(0, f.cloudwatchWait-time.Since(began)))
	if err != nil {
		s.Warnings = append(s.Warnings, err.Error())
		return s, nil
	}
	u := series.Over(start, end)
	s.Utilization = &u
	s.Warnings = append(s.Warnings, series.Warnings...)
	return s, nil
}

// utilization reads the endpoint's instance utilisation from start to
// end (a run, or a whole sweep), polling up to wait, normalised by the
// vCPUs and GPUs of --instance-type when the built-in table knows it.
// Call it after the plan is built.
func (f *sageMakerFlags) utilization(ctx context.Context, start, end time.Time, wait time.Duration) (*cloudwatch.UtilizationSeries, error) {
	if f.backend == nil {
		return nil, errors.New("cloudwatch: the SageMaker backend was not set up")
	}
	q := cloudwatch.UtilizationQuery{EndpointName: f.endpointName, VariantName: f.targetVariant, Start: start, End: end, Wait: wait}
	if p, ok := cost.Lookup(f.instanceType); ok {
		q.VCPUs, q.GPUs = p.VCPUs, p.GPUCount
	}
	return cloudwatch.FetchUtilization(ctx, cloudwatch.NewClient(f.backend.AWS(), ""), q)
}

// costEstimate prices the run from --price-per-hour or --instance-type;
// nil, nil when neither was given. duration is the benchmark duration,
// requests the completed requests, outputTokens the total output tokens.
func (f *sageMakerFlags) costEstimate(duration time.Duration, requests, outputTokens int) (*cost.Estimate, error) {
	price, source, ok, err := cost.Resolve(f.instanceType, f.pricePerHour)
	if err != nil || !ok {
		return nil, err
	}
	e, err := cost.Compute(f.instanceType, price, max(f.instanceCount, 1), duration, requests, outputTokens, source)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// pricing is the price of the swept endpoint from --price-per-hour or
// --instance-type and --instance-count, for any backend; nil, nil when
// neither was given.
func (f *sageMakerFlags) pricing() (*capacity.Pricing, error) {
	price, source, ok, err := cost.Resolve(f.instanceType, f.pricePerHour)
	if err != nil || !ok {
		return nil, err
	}
	return &capacity.Pricing{InstanceType: f.instanceType, InstanceCount: max(f.instanceCount, 1), USDPerInstanceHour: price, Source: source}, nil
}

// writeAfterRun prints the cost section (when est is not nil) and, for a
// SageMaker run against AWS (no --endpoint-url), the reminder that the
// endpoint bills until deleted, with the command that deletes it.
func (f *sageMakerFlags) writeAfterRun(w io.Writer, est *cost.Estimate) error {
	if est != nil {
		if err := est.Write(w); err != nil {
			return err
		}
	}
	if f.endpointName == "" || isLoopbackURL(f.endpointURL) {
		return nil // a local proxy or simulator bills nobody
	}
	region := f.region
	if f.backend != nil {
		region = f.backend.AWS().Region
	}
	return cost.WriteEndpointReminder(w, f.endpointName, region)
}

// isLoopbackURL reports a URL whose host is this machine (our proxy or
// simulator); a VPC endpoint URL still reaches a billed endpoint.
func isLoopbackURL(raw string) bool {
	if raw == "" {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

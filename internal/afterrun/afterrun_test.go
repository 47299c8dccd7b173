package afterrun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/cloudwatch/cwtest"
	"github.com/llmbench/llmbench/internal/cost"
)

// run is a finished run: 100 requests (2 of them warm-ups) over 3m45s.
var run = Run{
	Start: time.Date(2026, 11, 29, 8, 3, 25, 0, time.UTC), Duration: 3*time.Minute + 45*time.Second,
	Invocations: 100, Completed: 98, OutputTokens: 12_544, MeanE2ELms: 1480, MeanTTFTms: math.NaN(),
}

// invocationValues are the invocation metrics the fake CloudWatch
// publishes for run (by metric/statistic; microseconds for latencies).
var invocationValues = map[string]float64{
	"ModelLatency/Average": 1_500_000, "ModelLatency/SampleCount": 100, "ModelLatency/Minimum": 900_000,
	"ModelLatency/Maximum": 2_250_000, "OverheadLatency/Average": 12_000, "OverheadLatency/SampleCount": 100,
	"Invocations/Sum": 100, "Invocation4XXErrors/Sum": 0, "Invocation5XXErrors/Sum": 2,
}

// fakeCloudWatch answers with invocationValues and a 20% utilisation each
// minute, or, when status is not 200, an AccessDeniedException.
func fakeCloudWatch(t *testing.T, status int) *cwtest.Server {
	util := cwtest.PerMinute(func(string, string, time.Time) (float64, bool) { return 20, true })
	return cwtest.New(t, func(call int, req cwtest.Request) (int, []cwtest.Result, string, string) {
		if status != 200 {
			return status, nil, "", "AccessDeniedException"
		}
		if req.Queries[0].Namespace != cloudwatch.Namespace {
			return util(call, req)
		}
		var rs []cwtest.Result
		for _, q := range req.Queries {
			r := cwtest.Result{ID: q.ID}
			if v, ok := invocationValues[q.Metric+"/"+q.Stat]; ok {
				r.Times, r.Values = []time.Time{req.Start}, []float64{v}
			}
			rs = append(rs, r)
		}
		return 200, rs, "", ""
	})
}

// awsConfig is a SageMaker backend's resolved AWS configuration, reading
// CloudWatch at url.
func awsConfig(url string) *aws.Config {
	return &aws.Config{Region: "eu-west-1", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDAFTERRUN", "afterrun-secret", "")}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	real := sagemaker.Config{EndpointName: "prod-ep", Format: sagemaker.FormatOpenAIChat}
	local := real
	local.AWS.EndpointURL = "http://127.0.0.1:8080"
	priced := cost.Instance{Type: "ml.g5.2xlarge", Count: 2}
	const reminder = "Reminder: real-time endpoint prod-ep bills per instance-hour until it is deleted; " +
		"when done: aws sagemaker delete-endpoint --endpoint-name prod-ep --region eu-west-1\n"
	tests := []struct {
		name string
		e    Endpoint
		// cw is the fake CloudWatch's status (0: no fake, AWS not set).
		cw       int
		keys     []string
		want     []string // in out, in this order
		wantNot  []string // not in out
		warning  string   // errw, exactly
		emptyOut bool
	}{
		{name: "OpenAI server, no price: nothing to say",
			e: Endpoint{}, emptyOut: true},
		{name: "OpenAI server with a price: the cost section, no reminder",
			e: Endpoint{Instance: priced}, keys: []string{KeyCost},
			want: []string{"Cost (approximate)", "ml.g5.2xlarge x2 @ $1.515/h", "Cost of the run (USD):"}, wantNot: []string{"Reminder"}},
		{name: "OpenAI server priced by the hour only: the instance is unnamed",
			e: Endpoint{Instance: cost.Instance{PricePerHour: 4}}, keys: []string{KeyCost}, want: []string{"instance x1 @ $4/h"}},
		{name: "SageMaker endpoint, no price: its description and the reminder with the resolved region",
			e: Endpoint{SageMaker: true, Config: real}, cw: 200, keys: []string{KeySageMaker}, want: []string{reminder}},
		{name: "SageMaker endpoint priced: the cost section, then the reminder",
			e: Endpoint{SageMaker: true, Config: real, Instance: priced}, cw: 200, keys: []string{KeySageMaker, KeyCost},
			want: []string{"Cost (approximate)", reminder}},
		{name: "local endpoint (proxy, simulator) bills nobody: no reminder",
			e: Endpoint{SageMaker: true, Config: local, Instance: priced}, cw: 200, keys: []string{KeySageMaker, KeyCost},
			want: []string{"Cost (approximate)"}, wantNot: []string{"Reminder", "prod-ep"}},
		{name: "local endpoint, no price: nothing printed",
			e: Endpoint{SageMaker: true, Config: local}, cw: 200, keys: []string{KeySageMaker}, emptyOut: true},
		{name: "CloudWatch off: not read, even without a backend",
			e: Endpoint{SageMaker: true, Config: local}, keys: []string{KeySageMaker}, emptyOut: true},
		{name: "CloudWatch without a backend: a warning, not an error",
			e: Endpoint{SageMaker: true, Config: local, CloudWatch: true}, keys: []string{KeySageMaker}, emptyOut: true,
			warning: "Warning: CloudWatch: cloudwatch: the SageMaker backend was not set up\n"},
		{name: "CloudWatch refuses: a warning only, no table",
			e: Endpoint{SageMaker: true, Config: local, CloudWatch: true}, cw: 403, keys: []string{KeySageMaker}, emptyOut: true,
			warning: "Warning: CloudWatch: cloudwatch GetMetricData: "},
		{name: "CloudWatch summary: its table before the cost section, normalised by the instance type",
			e: Endpoint{SageMaker: true, Config: real, CloudWatch: true, Instance: priced}, cw: 200,
			keys: []string{KeySageMaker, KeyCloudWatch, KeyCost},
			want: []string{" SageMaker CloudWatch ", "EndpointName=prod-ep,VariantName=AllTraffic", "Requests sent by the client:",
				"1500.00", "Instance utilization", "CPU (% of instance):", "Client Mean E2EL (ms):", "1480.00",
				"CloudWatch complete after 1 poll(s).", "Cost (approximate)", reminder}},
		{name: "CloudWatch of a local endpoint: the table, no reminder",
			e: Endpoint{SageMaker: true, Config: local, CloudWatch: true}, cw: 200, keys: []string{KeySageMaker, KeyCloudWatch},
			want: []string{" SageMaker CloudWatch "}, wantNot: []string{"Reminder"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := tt.e
			var fake *cwtest.Server
			if tt.cw != 0 {
				fake = fakeCloudWatch(t, tt.cw)
				e.AWS = awsConfig(fake.URL)
			}
			var out, errw bytes.Buffer
			extra, err := e.Write(t.Context(), &out, &errw, run)
			if err != nil {
				t.Fatal(err)
			}
			if len(extra) != len(tt.keys) {
				t.Errorf("extra keys %v, want %v", keys(extra), tt.keys)
			}
			for _, k := range tt.keys {
				if extra[k] == nil {
					t.Errorf("extra lacks %q: %v", k, keys(extra))
				}
			}
			rest := out.String()
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (or not in order):\n%s", w, out.String())
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out.String(), w) {
					t.Errorf("output has %q:\n%s", w, out.String())
				}
			}
			if tt.emptyOut && out.Len() != 0 {
				t.Errorf("output %q, want none", out.String())
			}
			if got := errw.String(); tt.warning == "" && got != "" || !strings.HasPrefix(got, tt.warning) {
				t.Errorf("errw %q, want %q", got, tt.warning)
			}
			if fake != nil && !e.CloudWatch && fake.Calls() != 0 {
				t.Errorf("CloudWatch read %d times with --cloudwatch off", fake.Calls())
			}
		})
	}
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestWriteValues: what the result saves under each key.
func TestWriteValues(t *testing.T) {
	t.Parallel()
	fake := fakeCloudWatch(t, 200)
	e := Endpoint{SageMaker: true, CloudWatch: true, AWS: awsConfig(fake.URL), Instance: cost.Instance{Type: "ml.g5.12xlarge"},
		Config: sagemaker.Config{EndpointName: "ep", TargetVariant: "blue", Format: sagemaker.FormatTGI, CustomAttributes: "tenant=secret"}}
	extra, err := e.Write(t.Context(), io.Discard, io.Discard, run)
	if err != nil {
		t.Fatal(err)
	}
	info := extra[KeySageMaker].(map[string]any)
	for k, want := range map[string]any{"endpoint_name": "ep", "region": "eu-west-1", "target_variant": "blue",
		"payload_format": "tgi", "instance_type": "ml.g5.12xlarge", "custom_attributes": "[redacted]"} {
		if info[k] != want {
			t.Errorf("%s = %v, want %v (%v)", k, info[k], want, info)
		}
	}
	cw := extra[KeyCloudWatch].(*cloudwatch.Summary)
	if cw.RequestsSent != 100 || cw.Dimensions["VariantName"] != "blue" || !cw.Complete {
		t.Errorf("CloudWatch summary %+v", cw)
	}
	// ml.g5.12xlarge has 48 vCPUs and 4 GPUs: 20 summed over them is
	// 20/48 and 20/4 percent of the instance.
	if u := cw.Utilization; u == nil || !u.Normalized || u.GPUPct == nil || *u.GPUPct != 5 {
		t.Errorf("utilisation %+v", cw.Utilization)
	}
	est := extra[KeyCost].(*cost.Estimate)
	if est.InstanceType != "ml.g5.12xlarge" || est.Requests != 98 || est.OutputTokens != 12_544 || est.DurationSeconds != 225 {
		t.Errorf("estimate %+v", est)
	}
}

// TestWriteCostError: a run that cannot be priced is a *CostError, and
// only the sections before the cost were printed.
func TestWriteCostError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		inst cost.Instance
		want string
	}{
		{"negative price", cost.Instance{PricePerHour: -1}, "--price-per-hour must be a positive number"},
		{"unknown instance type", cost.Instance{Type: "ml.x9.huge"}, "not in the built-in price table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			e := Endpoint{SageMaker: true, Config: sagemaker.Config{EndpointName: "ep"}, Instance: tt.inst}
			extra, err := e.Write(context.Background(), &out, io.Discard, run)
			var ce *CostError
			if !errors.As(err, &ce) || !strings.Contains(ce.Err.Error(), tt.want) || err.Error() != ce.Err.Error() || extra != nil {
				t.Fatalf("extra %v, err %v, want a CostError with %q", extra, err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("output %q", out.String())
			}
		})
	}
}

// TestReader: the reader of the endpoint named by the configuration,
// normalised by the instance type the table knows; none without a backend.
func TestReader(t *testing.T) {
	t.Parallel()
	cfg := sagemaker.Config{EndpointName: "ep", TargetVariant: "green", InferenceComponent: "ic-1"}
	tests := []struct {
		name        string
		e           Endpoint
		vcpus, gpus int
		err         string
	}{
		{"known instance type", Endpoint{Config: cfg, AWS: awsConfig("http://127.0.0.1:9"), Wait: time.Minute,
			Instance: cost.Instance{Type: "ml.g5.12xlarge"}}, 48, 4, ""},
		{"priced by the hour: not normalised", Endpoint{Config: cfg, AWS: awsConfig("http://127.0.0.1:9"), Wait: time.Minute,
			Instance: cost.Instance{PricePerHour: 3}}, 0, 0, ""},
		{"no backend", Endpoint{Config: cfg}, 0, 0, "the SageMaker backend was not set up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := tt.e.Reader()
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.EndpointName != "ep" || r.VariantName != "green" || r.InferenceComponent != "ic-1" || r.Wait != time.Minute ||
				r.VCPUs != tt.vcpus || r.GPUs != tt.gpus || r.API == nil {
				t.Errorf("reader %+v", r)
			}
		})
	}
}

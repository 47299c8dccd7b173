package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/smithy-go/encoding/cbor"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/afterrun"
	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench/prepare"
	"github.com/llmbench/llmbench/internal/cloudwatch"
	"github.com/llmbench/llmbench/internal/cost"
	"github.com/llmbench/llmbench/internal/sim"
)

// awsTestEnv isolates the AWS environment and sets static test keys.
func awsTestEnv(t *testing.T, withKeys bool) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_CA_BUNDLE", "AWS_MAX_ATTEMPTS"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	if withKeys {
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDCLITEST")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "cli-test-secret")
	}
}

func parseSageMakerFlags(t *testing.T, args ...string) *sageMakerFlags {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	f := bindSageMakerFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// newBackend builds the backend the flags describe as a run does: the
// flags checked, their configuration, prepare's SageMaker backend (kept
// for CloudWatch), its input errors as usage errors.
func newBackend(f *sageMakerFlags, concurrency, maxResponseBytes int) (*sagemaker.Backend, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	cfg := f.config(concurrency)
	cfg.MaxResponseBytes = maxResponseBytes
	b, err := prepare.SageMaker(context.Background(), cfg)
	if err != nil {
		return nil, usageOf(err)
	}
	f.backend = b
	return b, nil
}

// TestSageMakerFlagsAgainstSim builds the backend from flags and sends one
// request per payload format to the simulator's SageMaker API over real
// HTTP.
func TestSageMakerFlagsAgainstSim(t *testing.T) {
	awsTestEnv(t, true)
	for _, format := range []struct{ flag, sim string }{
		{"openai-chat", sim.FormatOpenAI}, {"openai", sim.FormatOpenAI}, {"tgi", sim.FormatTGI}, {"lmi", sim.FormatLMI},
	} {
		t.Run(format.flag, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			cfg.Mode = sim.ModeFixed
			cfg.TTFT, cfg.ITL = time.Millisecond, time.Millisecond
			cfg.PayloadFormat = format.sim
			srv, err := sim.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			hs := httptest.NewServer(srv.Handler())
			defer hs.Close()
			f := parseSageMakerFlags(t, "--endpoint-name", "my-endpoint", "--region", "eu-west-1",
				"--endpoint-url", hs.URL, "--payload-format", format.flag)
			b, err := newBackend(f, 4, 0)
			if err != nil {
				t.Fatal(err)
			}
			var resp backend.Response
			b.Send(context.Background(), &backend.Request{ID: "r1", Model: cfg.Model, Prompt: "tell me a story", MaxTokens: 12, IgnoreEOS: true}, &resp)
			if resp.Err != nil {
				t.Fatalf("Send: %v (%s)", resp.Err, resp.ErrClass)
			}
			if resp.CompletionTokens == nil || *resp.CompletionTokens != 12 || resp.FinishReason != "length" || resp.Text == "" {
				t.Errorf("tokens %v finish %q text %q", resp.CompletionTokens, resp.FinishReason, resp.Text)
			}
			// A loopback endpoint URL bills nobody: no reminder.
			var out bytes.Buffer
			if _, err := f.provider(true).Write(context.Background(), &out, io.Discard, afterrun.Run{}); err != nil || out.Len() != 0 {
				t.Errorf("after-run output %q, %v", out.String(), err)
			}
		})
	}
}

func TestSageMakerFlagErrors(t *testing.T) {
	awsTestEnv(t, true)
	tests := []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"--endpoint-name", "ep", "--region", "us-east-1", "--payload-format", "bedrock"}, "--payload-format", true},
		{[]string{"--region", "us-east-1"}, "--endpoint-name is required", true},
		{[]string{"--endpoint-name", "ep"}, "no AWS region", true},
		{[]string{"--endpoint-name", "ep", "--region", "us-east-1", "--instance-type", "ml.x9.huge"}, "--price-per-hour", true},
		{[]string{"--endpoint-name", "ep", "--region", "us-east-1", "--instance-count", "0"}, "--instance-count", true},
		{[]string{"--endpoint-name", "ep", "--region", "us-east-1", "--endpoint-url", "http://u:p@127.0.0.1:1"}, "user info", true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f := parseSageMakerFlags(t, tt.args...)
			_, err := newBackend(f, 1, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			var ue *UsageError
			if errors.As(err, &ue) != tt.usage {
				t.Errorf("usage error = %v, want %v", errors.As(err, &ue), tt.usage)
			}
		})
	}
	t.Run("no credentials", func(t *testing.T) {
		awsTestEnv(t, false)
		f := parseSageMakerFlags(t, "--endpoint-name", "ep", "--region", "us-east-1")
		began := time.Now()
		_, err := newBackend(f, 1, 0)
		if err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
			t.Fatalf("err = %v", err)
		}
		if time.Since(began) > 5*time.Second {
			t.Errorf("took %v", time.Since(began))
		}
	})
}

// TestSageMakerAfterRun: cost section and the delete-endpoint reminder for
// a real endpoint; result info never carries the custom attributes.
func TestSageMakerAfterRun(t *testing.T) {
	awsTestEnv(t, true)
	f := parseSageMakerFlags(t, "--endpoint-name", "prod-ep", "--region", "us-west-2", "--instance-type", "ml.g5.2xlarge",
		"--custom-attributes", "tenant=secret-value")
	if _, err := newBackend(f, 8, 0); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	extra, err := f.provider(true).Write(context.Background(), &out, io.Discard,
		afterrun.Run{Duration: 2 * time.Minute, Completed: 200, OutputTokens: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	if est, _ := extra[afterrun.KeyCost].(*cost.Estimate); est == nil {
		t.Fatalf("no estimate in %v", extra)
	}
	for _, want := range []string{"Cost (approximate)", "ml.g5.2xlarge x1", "aws sagemaker delete-endpoint --endpoint-name prod-ep --region us-west-2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	info, _ := extra[afterrun.KeySageMaker].(map[string]any)
	if info["custom_attributes"] != "[redacted]" || info["region"] != "us-west-2" {
		t.Errorf("result info %v", info)
	}
	for _, v := range info {
		if s, _ := v.(string); strings.Contains(s, "secret-value") {
			t.Errorf("custom attributes leaked into result info: %v", info)
		}
	}
	none := parseSageMakerFlags(t, "--endpoint-name", "ep")
	if est, err := none.inst.Estimate(time.Minute, 1, 1); est != nil || err != nil {
		t.Errorf("no price given: %v %v", est, err)
	}
	// --cloudwatch off: nothing read (the backend was not set up, so a
	// read would warn).
	var errw bytes.Buffer
	extra, err = none.provider(true).Write(context.Background(), io.Discard, &errw, afterrun.Run{Start: time.Now(), Invocations: 1})
	if _, read := extra[afterrun.KeyCloudWatch]; read || err != nil || errw.Len() != 0 {
		t.Errorf("--cloudwatch off: %v %v %q", extra, err, errw.String())
	}
}

// TestSageMakerCloudWatch: --cloudwatch reads metrics with the run's
// region and credentials from CloudWatch (here AWS_ENDPOINT_URL_CLOUDWATCH,
// a loopback CBOR responder), not from --endpoint-url.
func TestSageMakerCloudWatch(t *testing.T) {
	awsTestEnv(t, true)
	var calls atomic.Int32
	cw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/operation/GetMetricData") || !strings.Contains(r.Header.Get("Authorization"), "/eu-central-1/monitoring/") {
			w.WriteHeader(400)
			return
		}
		calls.Add(1)
		w.Header().Set("Smithy-Protocol", "rpc-v2-cbor")
		w.Header().Set("Content-Type", "application/cbor")
		w.Write(cbor.Encode(cbor.Map{"MetricDataResults": cbor.List{}}))
	}))
	defer cw.Close()
	t.Setenv("AWS_ENDPOINT_URL_CLOUDWATCH", cw.URL)
	f := parseSageMakerFlags(t, "--endpoint-name", "ep", "--region", "eu-central-1", "--endpoint-url", "http://127.0.0.1:9",
		"--cloudwatch", "--cloudwatch-wait", "0s")
	if _, err := newBackend(f, 2, 0); err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	run := afterrun.Run{Start: time.Now().Add(-time.Minute), Duration: time.Minute, Invocations: 10, MeanE2ELms: 100, MeanTTFTms: 20}
	extra, err := f.provider(true).Write(context.Background(), &out, &errw, run)
	if err != nil || errw.Len() != 0 {
		t.Fatal(err, errw.String())
	}
	s, _ := extra[afterrun.KeyCloudWatch].(*cloudwatch.Summary)
	if s == nil {
		t.Fatalf("no CloudWatch summary in %v", extra)
	}
	// Two reads: the invocation metrics, then the instance utilisation;
	// neither had datapoints, and each says so.
	if calls.Load() != 2 || s.Complete || len(s.Warnings) != 2 || s.Dimensions["EndpointName"] != "ep" || s.Utilization == nil {
		t.Errorf("calls %d summary %+v", calls.Load(), s)
	}
	if !strings.Contains(out.String(), "CloudWatch incomplete") {
		t.Errorf("table:\n%s", out.String())
	}
}

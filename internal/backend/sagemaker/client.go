package sagemaker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/redact"
)

// DefaultPreflightTimeout bounds the credential check done at construction.
// Long enough for a web-identity or SSO exchange with STS, short enough that
// a laptop without AWS credentials (where the SDK would otherwise wait 4-11 s
// for EC2 instance metadata, once per attempt) fails within seconds.
const DefaultPreflightTimeout = 3 * time.Second

// DefaultReadTimeout is the idle timeout per read on a SageMaker connection
// when AWSConfig.ReadTimeout is 0: the reference tool's 900 s, longer than
// any plausible time to first token (cold start, deep queue).
const DefaultReadTimeout = 900 * time.Second

// AWSConfig says how to reach AWS: region, credentials, endpoint and the
// HTTP client shape. The zero value uses the default credential chain and
// fails for want of a region.
type AWSConfig struct {
	// Region is the AWS region; "" falls back to AWS_REGION,
	// AWS_DEFAULT_REGION and the profile's region. Required in the end,
	// even with EndpointURL (the SDK would otherwise sign with an empty
	// region scope and only fail against real AWS).
	Region string
	// Profile selects a shared config profile; "" means AWS_PROFILE or
	// "default".
	Profile string
	// EndpointURL, when set, sends SageMaker Runtime calls there instead of
	// runtime.sagemaker.<region>.amazonaws.com (our proxy or simulator, or
	// a VPC endpoint). Must be http(s)://host[:port][/path] without
	// credentials in it.
	EndpointURL string
	// DisableIMDS turns off the EC2 instance metadata credential source.
	// Leave it false on EC2 or in SageMaker notebooks, where instance
	// metadata is the credential source.
	DisableIMDS bool
	// Concurrency sizes the connection pool (MaxIdleConns and
	// MaxIdleConnsPerHost); values below 10 keep the SDK default of 10.
	Concurrency int
	// ReadTimeout is the idle timeout per read (a stalled stream fails
	// after this long without bytes); 0 means DefaultReadTimeout, a
	// negative value disables it.
	ReadTimeout time.Duration
	// PreflightTimeout bounds the credential check; 0 means
	// DefaultPreflightTimeout.
	PreflightTimeout time.Duration

	// credentials, when set, replaces the default chain (tests).
	credentials aws.CredentialsProvider
}

// ErrNoRegion is returned by New when no region is configured anywhere.
var ErrNoRegion = errors.New("no AWS region: pass --region or set AWS_REGION (required even with --endpoint-url: the region is part of the request signature)")

// loadAWS resolves the configuration once for every client of a run:
// region (required), credentials (retrieved now, with a deadline, so a
// missing credential fails here and not inside the first measured request),
// retries pinned off in code, and an HTTP client with a pool sized to the
// concurrency whose request bodies hide io.WriterTo (docs/sagemaker.md#request-body-race).
//
// Every credential it resolves, now or on a later refresh, is added to
// secrets, so that text a server echoes back can be cleaned of it.
func loadAWS(ctx context.Context, c AWSConfig, secrets *redact.Redactor) (aws.Config, error) {
	if c.EndpointURL != "" {
		if err := checkEndpointURL(c.EndpointURL); err != nil {
			return aws.Config{}, err
		}
	}
	pool := max(c.Concurrency, 10)
	readTimeout := c.ReadTimeout
	switch {
	case readTimeout == 0:
		readTimeout = DefaultReadTimeout
	case readTimeout < 0:
		readTimeout = 0 // BuildableClient: 0 disables
	}
	// A BuildableClient, not a wrapper, goes into LoadDefaultConfig: with
	// AWS_CA_BUNDLE or a profile's ca_bundle the loader must add root CAs
	// through WithTransportOptions and fails on any other client type
	// (docs/sagemaker.md#ca-bundle). We wrap whatever it hands back afterwards.
	buildable := awshttp.NewBuildableClient().
		WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConns = pool
			tr.MaxIdleConnsPerHost = pool
		}).
		WithReadTimeout(readTimeout)
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(buildable),
		// Retries off in code: AWS_MAX_ATTEMPTS, AWS_RETRY_MODE or
		// max_attempts in a profile would otherwise switch them back on
		// and hide failed attempts inside TTFT (docs/sagemaker.md#retries).
		config.WithRetryMaxAttempts(1),
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
		config.WithCredentialsCacheOptions(func(o *aws.CredentialsCacheOptions) {
			// Refresh temporary credentials well before they expire so a
			// refresh rarely lands inside a measured request.
			o.ExpiryWindow = 5 * time.Minute
		}),
	}
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	if c.DisableIMDS {
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	if c.credentials != nil {
		opts = append(opts, config.WithCredentialsProvider(c.credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return aws.Config{}, ErrNoRegion
	}
	cfg.HTTPClient = &readOnlyBodyClient{inner: cfg.HTTPClient}
	cfg.RetryMaxAttempts = 1
	cfg.Retryer = func() aws.Retryer { return aws.NopRetryer{} }
	if cfg.Credentials != nil {
		// The loader's cache refreshes 5 minutes early; ours, around it,
		// asks it at the same moment and notes what it hands out.
		cfg.Credentials = aws.NewCredentialsCache(noting{cfg.Credentials, secrets}, func(o *aws.CredentialsCacheOptions) {
			o.ExpiryWindow = 5 * time.Minute
		})
	}

	if err := preflight(ctx, cfg, c.PreflightTimeout); err != nil {
		return aws.Config{}, err
	}
	return cfg, nil
}

// preflight retrieves credentials under a short deadline. Credentials are
// otherwise fetched lazily by the first signed request, and on a machine
// without any source the SDK ends with instance metadata, which takes 4-11 s
// to give up (docs/sagemaker.md#credential-preflight).
func preflight(ctx context.Context, cfg aws.Config, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultPreflightTimeout
	}
	if cfg.Credentials == nil {
		return errors.New(noCredentialsHelp)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		// The SDK's message names the provider that failed; it carries no
		// secret material.
		why := err.Error()
		if ctx.Err() != nil {
			why = fmt.Sprintf("no credential source answered within %s", timeout)
		}
		return fmt.Errorf("%s (%s)", noCredentialsHelp, why)
	}
	if !creds.HasKeys() {
		return errors.New(noCredentialsHelp + " (the credential source returned empty keys)")
	}
	return nil
}

// noting adds the credentials its provider hands out to a redactor.
type noting struct {
	inner   aws.CredentialsProvider
	secrets *redact.Redactor
}

func (n noting) Retrieve(ctx context.Context) (aws.Credentials, error) {
	c, err := n.inner.Retrieve(ctx)
	if err == nil {
		n.secrets.Add(c.AccessKeyID, c.SecretAccessKey, c.SessionToken)
	}
	return c, err
}

// noCredentialsHelp says what to set; it is the first thing a user without
// credentials sees.
const noCredentialsHelp = "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY " +
	"(plus AWS_SESSION_TOKEN for temporary keys), or pass --profile NAME / set AWS_PROFILE " +
	"(run \"aws sso login --profile NAME\" for SSO profiles), or run where an instance role is available"

// checkEndpointURL accepts http(s) URLs with a host and no user info (which
// would be a secret printed in every error message).
func checkEndpointURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--endpoint-url: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("--endpoint-url %q: scheme must be http or https", u.Redacted())
	}
	if u.Host == "" {
		return fmt.Errorf("--endpoint-url %q: no host", u.Redacted())
	}
	if u.User != nil {
		return errors.New("--endpoint-url must not contain user info (credentials); SageMaker requests are signed with AWS credentials instead")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("--endpoint-url %q: must not have a query or fragment", u.Redacted())
	}
	return nil
}

// readOnlyBodyClient hides io.WriterTo on request bodies. smithy-go wraps
// the body in a type whose WriteTo returns io.EOF as an error once the SDK
// has closed it, and the SDK closes it as soon as the response headers
// arrive; if net/http's writer is still on its final copy, the transport
// then closes the connection under the live stream ("use of closed network
// connection", docs/sagemaker.md#request-body-race). With only Read and Close visible, net/http copies
// through Read and a closed body is a clean EOF.
//
// It also bounds the body of a non-2xx answer (errorBoundBody).
type readOnlyBodyClient struct{ inner aws.HTTPClient }

func (c *readOnlyBodyClient) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = readCloser{req.Body}
	}
	resp, err := c.inner.Do(req)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		errorBoundBody(resp)
	}
	return resp, err
}

// errorBoundBody replaces the body of a non-2xx answer by its first
// backend.ErrorBodyRead bytes and closes the connection's body. The SDK copies an
// error body whole into memory before it decodes it: a 429 with a 64 MiB
// body, 50 in flight, took 4.3 GB. A read error is handed on after the
// bytes read, as the SDK would have met it.
func errorBoundBody(resp *http.Response) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, backend.ErrorBodyRead))
	resp.Body.Close()
	var rest io.Reader = bytes.NewReader(b)
	if err != nil {
		rest = io.MultiReader(rest, errReader{err})
	}
	resp.Body = io.NopCloser(rest)
}

// errReader fails every read with its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readCloser exposes only Read and Close of the body it holds.
type readCloser struct{ rc io.ReadCloser }

func (r readCloser) Read(p []byte) (int, error) { return r.rc.Read(p) }
func (r readCloser) Close() error               { return r.rc.Close() }

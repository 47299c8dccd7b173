// Package sagemaker is the benchmark backend for SageMaker real-time
// endpoints: it calls InvokeEndpointWithResponseStream with the AWS SDK for
// Go v2 (default credential chain, SigV4) and times the streamed response
// with the same rules as the OpenAI backend.
//
// The container's bytes arrive in PayloadParts whose boundaries are
// arbitrary (inside "data:", inside a JSON string, inside a UTF-8
// character, between the two newlines of an SSE terminator), so the parts
// are reassembled into one byte stream before any line is cut; a token
// chunk is stamped with the time its completing part was received. Every
// payload format is decoded by package stream (stream.Receiver), the OpenAI
// formats by the very collector the OpenAI backend uses.
//
// A request succeeds only if the format's end marker arrived: since
// sagemakerruntime v1.50 a connection cut mid-stream ends the event channel
// without an error, and would otherwise count as a success.
//
// The package works around the SDK pitfalls of docs/sagemaker.md#go-sdk-pitfalls:
// request bodies hide io.WriterTo (the race that closes live streams),
// retries are off in code, the connection pool is sized to the concurrency,
// a region is required, credentials are checked up front under a short
// deadline, and each in-flight stream uses its own client (a shared one
// shares a smithy-go decoder between streams, a data race under -race).
//
// It does not create, describe or delete endpoints, and it does not read
// CloudWatch (package cloudwatch does).
package sagemaker

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/stream"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// Config describes the endpoint to benchmark and how to reach it.
type Config struct {
	// AWS holds region, profile, endpoint URL and client settings.
	AWS AWSConfig
	// EndpointName is the SageMaker endpoint (required).
	EndpointName string
	// Format is the payload format; "" means FormatOpenAIChat.
	Format Format
	// TargetVariant, when set, sends every request to this production
	// variant (X-Amzn-SageMaker-Target-Variant).
	TargetVariant string
	// TargetContainerHostname picks a container of a multi-container
	// endpoint with direct invocation.
	TargetContainerHostname string
	// InferenceComponent names the inference component to invoke; required
	// by endpoints that host components.
	InferenceComponent string
	// CustomAttributes is passed through to the container
	// (X-Amzn-SageMaker-Custom-Attributes). SageMaker marks it sensitive;
	// it is never printed.
	CustomAttributes Sensitive
	// MaxResponseBytes caps what one response may hold in memory (text,
	// stream.ChunkStampBytes per token chunk, incomplete lines and
	// messages); 0 means stream.DefaultMaxResponseBytes (16 MiB). A
	// response that outgrows it fails as record.ErrResponseTooLarge,
	// keeping the TTFT and ITLs measured so far.
	MaxResponseBytes int
	// MaxTotalResponseBytes caps what all responses in flight hold
	// together; 0 means stream.DefaultMaxTotalResponseBytes (1 GiB).
	MaxTotalResponseBytes int64
}

// Sensitive is a value that must not be printed: it formats as
// "[redacted]", so a Config logged with %v or %+v does not show it.
type Sensitive string

// String hides the value.
func (Sensitive) String() string { return "[redacted]" }

// GoString hides the value from %#v.
func (Sensitive) GoString() string { return `"[redacted]"` }

// Backend invokes one SageMaker endpoint. It is safe for concurrent use.
type Backend struct {
	cfg    Config
	format Format
	aws    aws.Config
	opts   func(*sagemakerruntime.Options)

	// budget bounds what all responses in flight hold together.
	budget *stream.Budget
	// secrets knows the custom attributes and every AWS credential the
	// run has used; failures are cleaned of them.
	secrets *redact.Redactor

	// clients holds idle clients; a Send takes one for the length of its
	// stream. Clients share the HTTP transport (one connection pool) but
	// not the event-stream decoder, which smithy-go keeps per client.
	clients chan *sagemakerruntime.Client
}

// endpointNameRE is SageMaker's pattern for endpoint and variant names.
var endpointNameRE = regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9])*$`)

// Validate checks the settings that need no network.
func (c *Config) Validate() error {
	if c.EndpointName == "" {
		return errors.New("--endpoint-name is required with --backend sagemaker")
	}
	if len(c.EndpointName) > 63 || !endpointNameRE.MatchString(c.EndpointName) {
		return fmt.Errorf("--endpoint-name %q is not a SageMaker endpoint name (letters, digits and hyphens, at most 63, starting and ending with a letter or digit)", c.EndpointName)
	}
	if c.TargetVariant != "" && (len(c.TargetVariant) > 63 || !endpointNameRE.MatchString(c.TargetVariant)) {
		return fmt.Errorf("--target-variant %q is not a variant name (letters, digits and hyphens, at most 63)", c.TargetVariant)
	}
	if len(c.TargetContainerHostname) > 63 {
		return errors.New("--target-container-hostname is longer than 63 characters")
	}
	if len(c.InferenceComponent) > 63 {
		return errors.New("--inference-component is longer than 63 characters")
	}
	if c.MaxResponseBytes < 0 || c.MaxTotalResponseBytes < 0 {
		return fmt.Errorf("response size limits must be >= 0, got %d and %d", c.MaxResponseBytes, c.MaxTotalResponseBytes)
	}
	if len(c.CustomAttributes) > 1024 {
		return errors.New("--custom-attributes is longer than 1024 characters")
	}
	for _, r := range c.CustomAttributes {
		if r < 0x20 || r > 0x7e {
			// The value is sensitive: say what is wrong, not what it is.
			return errors.New("--custom-attributes must be visible ASCII characters only")
		}
	}
	if c.Format != "" {
		if _, err := ParseFormat(string(c.Format)); err != nil {
			return err
		}
	}
	if c.AWS.EndpointURL != "" {
		if err := checkEndpointURL(c.AWS.EndpointURL); err != nil {
			return err
		}
	}
	return nil
}

// New validates cfg, loads the AWS configuration, checks that credentials
// resolve (within AWSConfig.PreflightTimeout) and prepares one client per
// unit of concurrency. It makes no call to SageMaker itself.
func New(ctx context.Context, cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	secrets := redact.New(string(cfg.CustomAttributes))
	awsCfg, err := loadAWS(ctx, cfg.AWS, secrets)
	if err != nil {
		return nil, err
	}
	b := &Backend{cfg: cfg, format: cfg.Format, aws: awsCfg, budget: stream.NewBudget(cfg.MaxTotalResponseBytes), secrets: secrets}
	if b.format == "" {
		b.format = FormatOpenAIChat
	}
	endpointURL := cfg.AWS.EndpointURL
	b.opts = func(o *sagemakerruntime.Options) {
		if endpointURL != "" {
			o.BaseEndpoint = aws.String(endpointURL)
		}
		// Pinned again per client: nothing in the environment or shared
		// config may turn retries back on (docs/sagemaker.md#retries).
		o.Retryer = aws.NopRetryer{}
		o.RetryMaxAttempts = 0
	}
	// Room for one idle client per unit of concurrency; a few are made
	// now, the rest on first use (a run with --num-prompts 10000 and no
	// concurrency cap should not build 10,000 clients up front).
	n := max(cfg.AWS.Concurrency, 1)
	b.clients = make(chan *sagemakerruntime.Client, n)
	for range min(n, prebuiltClients) {
		b.clients <- b.newClient()
	}
	return b, nil
}

// prebuiltClients is how many clients New builds ahead of the first
// requests.
const prebuiltClients = 64

// AWS returns the resolved AWS configuration (region, credentials), for
// other clients of the same run such as CloudWatch. Its HTTP client is the
// benchmark's; give other services their own if they must not share it.
func (b *Backend) AWS() aws.Config { return b.aws }

func (b *Backend) newClient() *sagemakerruntime.Client {
	return sagemakerruntime.NewFromConfig(b.aws, b.opts)
}

// client takes an idle client, or makes one when more requests are in
// flight than the configured concurrency (cheap: the transport is shared).
func (b *Backend) client() *sagemakerruntime.Client {
	select {
	case c := <-b.clients:
		return c
	default:
		return b.newClient()
	}
}

func (b *Backend) release(c *sagemakerruntime.Client) {
	select {
	case b.clients <- c:
	default:
	}
}

// eventStreamContentType is the Content-Type of a streaming response.
const eventStreamContentType = "application/vnd.amazon.eventstream"

// validInferenceID reports whether id is what SageMaker accepts as an
// inference id, "1–64 printable characters" (spec/sagemaker-streaming.md):
// none in Unicode's Other category (control, format, private use). A loop,
// not the regexp ^\PC{1,64}$ it replaces: compiling {1,64} of a Unicode
// class cost every start of the binary 2.9 ms and 2.4 MB.
func validInferenceID(id string) bool {
	n := 0
	for _, r := range id { // invalid UTF-8 reads as U+FFFD, as in regexp
		if n++; n > 64 || unicode.Is(unicode.C, r) {
			return false
		}
	}
	return n > 0
}

// Send performs req and fills resp; see backend.Backend. resp.Start is
// taken immediately before the invoke call, so credential signing and the
// wait for response headers are inside TTFT, as connection setup and the
// wait for headers are for the OpenAI backend.
func (b *Backend) Send(ctx context.Context, req *backend.Request, resp *backend.Response) {
	defer b.redactFailure(resp)
	in, err := b.input(req)
	if err != nil {
		resp.Err, resp.ErrClass = err, record.ErrOther
		return
	}
	rcv := b.newReceiver(req, resp)
	defer rcv.Release()

	c := b.client()
	defer b.release(c)

	resp.Start = time.Now()
	out, err := c.InvokeEndpointWithResponseStream(ctx, in)
	if err != nil {
		resp.HTTPStatus = httpStatus(err)
		rcv.Fail(classify(err), answerError(err, b.secrets))
		return
	}
	resp.HTTPStatus = 200
	es := out.GetStream()
	defer es.Close() // always, even after an error (docs/sagemaker.md#closing-the-stream)
	if raw, ok := awsmiddleware.GetRawResponse(out.ResultMetadata).(*smithyhttp.Response); ok {
		resp.HTTPStatus = raw.StatusCode
		if ct := raw.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, eventStreamContentType) {
			// Most likely --endpoint-url points at the model server itself;
			// the SDK would report an opaque framing error.
			rcv.Fail(record.ErrMalformedStream, fmt.Errorf("the response is %q, not an AWS event stream (%s): "+
				"--endpoint-url must point at SageMaker Runtime or an emulator of it (llmbench proxy, llmbench sim), "+
				"not at the model server", ct, eventStreamContentType))
			return
		}
	}

	for ev := range es.Events() {
		now := time.Now()
		part, ok := ev.(*types.ResponseStreamMemberPayloadPart)
		if !ok {
			continue // an event type this SDK does not know: skipped
		}
		if err := rcv.Feed(part.Value.Bytes, now); err != nil {
			// The response has failed; closing the stream ends the
			// reader, and Events() is drained below so its goroutine
			// is not left blocked.
			es.Close()
			for range es.Events() {
			}
			return
		}
	}
	// Err is only meaningful once the channel has closed.
	if err := es.Err(); err != nil {
		class := classify(err)
		if code, ok := strings.CutPrefix(class, ClassModelStreamError+":"); ok {
			// The SDK's text shows the shape name, not the code.
			err = fmt.Errorf("%w (ErrorCode %s)", err, code)
		}
		rcv.Fail(class, err)
		return
	}
	b.finish(rcv, resp, time.Now())
	if resp.ErrClass == record.ErrStreamTruncated && ctx.Err() != nil {
		// Cut short because the request's deadline passed or it was
		// cancelled, though the SDK reported a clean end: file it under
		// the cause.
		resp.ErrClass = classify(ctx.Err())
		resp.Err = fmt.Errorf("%w: %w", ctx.Err(), resp.Err)
	}
}

// input builds the InvokeEndpointWithResponseStream input for req.
func (b *Backend) input(req *backend.Request) (*sagemakerruntime.InvokeEndpointWithResponseStreamInput, error) {
	body, err := b.body(req)
	if err != nil {
		return nil, err
	}
	in := &sagemakerruntime.InvokeEndpointWithResponseStreamInput{
		EndpointName: aws.String(b.cfg.EndpointName),
		Body:         body,
		ContentType:  aws.String("application/json"),
	}
	if b.cfg.TargetVariant != "" {
		in.TargetVariant = aws.String(b.cfg.TargetVariant)
	}
	if b.cfg.TargetContainerHostname != "" {
		in.TargetContainerHostname = aws.String(b.cfg.TargetContainerHostname)
	}
	if b.cfg.InferenceComponent != "" {
		in.InferenceComponentName = aws.String(b.cfg.InferenceComponent)
	}
	if b.cfg.CustomAttributes != "" {
		in.CustomAttributes = aws.String(string(b.cfg.CustomAttributes))
	}
	if req.ID != "" && validInferenceID(req.ID) {
		in.InferenceId = aws.String(req.ID)
	}
	return in, nil
}

// Secrets returns the redactor of the run's secrets (custom attributes
// and every AWS credential used so far), for text from the endpoint kept
// elsewhere (successful answers, bench).
func (b *Backend) Secrets() *redact.Redactor { return b.secrets }

// redactFailure removes the run's secrets from what the server put in a
// failed response: SDK error messages carry the server's message, which may
// echo the request's headers (signature, security token, custom
// attributes), and the text generated before the failure.
func (b *Backend) redactFailure(resp *backend.Response) {
	if resp.Err == nil {
		return
	}
	resp.Err = b.secrets.Error(resp.Err)
	resp.Text = b.secrets.String(resp.Text)
	resp.FinishReason = b.secrets.String(resp.FinishReason)
}

package sagemaker

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime/types"
	"github.com/aws/smithy-go"
	smithyes "github.com/aws/smithy-go/eventstream"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/backend/stream"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// SageMaker-specific error classes (Response.ErrClass). API errors are filed
// under their AWS error code as is ("ThrottlingException",
// "ModelNotReadyException", "ModelError", "ServiceUnavailable",
// "ValidationError", "AccessDeniedException", ...); the transport-independent
// classes come from package record.
const (
	// ClassModelStreamError prefixes the ModelStreamError code found in the
	// exception's ErrorCode_ field: "ModelStreamError:StreamBroken",
	// "ModelStreamError:ModelInvocationTimeExceeded".
	ClassModelStreamError = "ModelStreamError"
	// ClassInternalStreamFailure is SageMaker's server-side stream failure.
	ClassInternalStreamFailure = "InternalStreamFailure"
	// ClassThrottling is the AWS throttling error code (it has no Go type).
	ClassThrottling = "ThrottlingException"
	// ClassModelNotReady is the 429 SageMaker returns while a model loads;
	// it is not throttling.
	ClassModelNotReady = "ModelNotReadyException"
	// ClassModelError is the container's own non-2xx answer, wrapped (424).
	ClassModelError = "ModelError"
	// ClassReadIdleTimeout is the idle timeout per read
	// (AWSConfig.ReadTimeout): the stream stalled that long without a
	// byte. Kept apart from record.ErrTimeout, the request's own deadline
	// (docs/sagemaker.md#error-classes: Timeout(read-idle) vs Timeout(client-deadline)).
	ClassReadIdleTimeout = "timeout_read_idle"
	// ClassServerError is an error object the container put inside a 200
	// stream (vLLM {"error":...}, TGI {"error":..., "error_type":...}, an
	// LMI finish_reason "error"); the same class the OpenAI backend uses.
	ClassServerError = stream.ClassServerError
)

// Throttled reports whether class, a failed request's class, is
// throttling: an AWS throttle code (ThrottlingException,
// TooManyRequestsException, ... the codes classify files under step 7 of
// docs/sagemaker.md#error-classes) or a bare 429; not
// ModelNotReadyException, a 429 that means the model is loading.
func Throttled(class string) bool {
	_, ok := retry.DefaultThrottleErrorCodes[class]
	return ok || class == record.ErrHTTP429
}

// classify files an error from the SDK (the invoke call or stream.Err())
// under one class. The order matters (docs/sagemaker.md#error-classes): a ModelStreamError arrives
// wrapped like any other error; deadlines are checked before transport
// failures, which wrap them; ModelNotReadyException before throttling,
// though both can be 429.
func classify(err error) string {
	var mse *types.ModelStreamError
	if errors.As(err, &mse) {
		code := aws.ToString(mse.ErrorCode_) // ErrorCode() is the shape name
		if code == "" {
			code = "unknown"
		}
		return ClassModelStreamError + ":" + code
	}
	var isf *types.InternalStreamFailure
	if errors.As(err, &isf) {
		return ClassInternalStreamFailure
	}
	var rte *awshttp.ResponseTimeoutError
	if errors.As(err, &rte) {
		return ClassReadIdleTimeout
	}
	if isTimeout(err) {
		return record.ErrTimeout
	}
	if errors.Is(err, context.Canceled) {
		return record.ErrCanceled
	}
	var notReady *types.ModelNotReadyException
	if errors.As(err, &notReady) {
		return ClassModelNotReady
	}
	var api smithy.APIError
	hasAPI := errors.As(err, &api)
	if retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary {
		if hasAPI && api.ErrorCode() != "" && api.ErrorCode() != "UnknownError" {
			return api.ErrorCode() // ThrottlingException, TooManyRequestsException, ...
		}
		return record.ErrHTTP429 // a bare 429 without an error type
	}
	var modelErr *types.ModelError
	if errors.As(err, &modelErr) {
		return ClassModelError
	}
	if hasAPI {
		if code := api.ErrorCode(); code != "" && code != "UnknownError" {
			return code
		}
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			return statusClass(re.HTTPStatusCode())
		}
		return record.ErrOther
	}
	if re := errorResponse(err); re != nil {
		// A non-2xx answer whose body is no AWS error document (a
		// redirect, a proxy's error page, a document cut at
		// backend.ErrorBodyRead, whose decoder then meets an unexpected EOF, or
		// one whose reading broke off) was answered, not garbled nor
		// refused: filed under the X-Amzn-ErrorType header's code, else
		// by its status, as the OpenAI path files any non-200; a redirect
		// is other (README.md, error classes).
		if code := headerCode(re.Response.Header.Get("X-Amzn-ErrorType")); code != "" {
			return code
		}
		return statusClass(re.HTTPStatusCode())
	}
	var cksum smithyes.ChecksumError
	if errors.As(err, &cksum) {
		return record.ErrMalformedStream
	}
	if isConnection(err) {
		return record.ErrConnection
	}
	if strings.HasPrefix(err.Error(), "decode event:") || strings.Contains(err.Error(), "deserialization failed") {
		return record.ErrMalformedStream
	}
	return record.ErrOther
}

// statusClass files a non-2xx HTTP status: http_429, http_5xx, http_4xx,
// else (a redirect) other.
func statusClass(status int) string {
	switch {
	case status == 429:
		return record.ErrHTTP429
	case status >= 500:
		return record.ErrHTTP5xx
	case status >= 400:
		return record.ErrHTTP4xx
	}
	return record.ErrOther
}

// errorResponse returns the response of an SDK error that carries a
// non-2xx answer, nil if none.
func errorResponse(err error) *awshttp.ResponseError {
	var re *awshttp.ResponseError
	if !errors.As(err, &re) || re.ResponseError == nil || re.Response == nil || re.HTTPStatusCode()/100 == 2 {
		return nil
	}
	return re
}

// headerCode is the error code of an X-Amzn-ErrorType value, cleaned as
// the SDK does: "aws.protocoltests#ThrottlingException:http://..." is
// "ThrottlingException".
func headerCode(v string) string {
	v, _, _ = strings.Cut(v, ":")
	if i := strings.LastIndexByte(v, '#'); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// isTimeout reports a client-side deadline (ctx) or any network timeout.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ETIMEDOUT) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isConnection reports transport failures: dial, reset, closed connection,
// a body cut short.
func isConnection(err error) bool {
	var se *smithyhttp.RequestSendError
	if errors.As(err, &se) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	return errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF)
}

// httpStatus returns the HTTP status carried by an SDK error, 0 if none
// (no response arrived).
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// answerError is err, an SDK error for a non-2xx answer, with the
// server's part of its message shown as the OpenAI path shows a body
// (backend.ErrorText): a message longer than ErrorBodyBytes is redacted of the run's secrets, put on one line and
// cut there, marked "..."; a redirect names where it points. The result
// unwraps to err.
func answerError(err error, secrets *redact.Redactor) error {
	text := err.Error()
	var api smithy.APIError
	if errors.As(err, &api) {
		if msg := api.ErrorMessage(); len(msg) > backend.ErrorBodyBytes && strings.HasSuffix(text, msg) {
			text = text[:len(text)-len(msg)] + backend.ErrorText(secrets.String(msg))
		}
	}
	if re := errorResponse(err); re != nil && re.HTTPStatusCode()/100 == 3 {
		if loc := re.Response.Header.Get("Location"); loc != "" {
			text += " (redirect to " + loc + "; check --endpoint-url)"
		}
	}
	if text == err.Error() {
		return err
	}
	return &shownError{text: text, err: err}
}

// shownError is an error shown as text, which unwraps to the error it
// describes (for errors.As in classify).
type shownError struct {
	text string
	err  error
}

func (e *shownError) Error() string { return e.text }
func (e *shownError) Unwrap() error { return e.err }

package eventstream

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
)

// APIError is an error SageMaker Runtime answers with before any stream
// starts: an HTTP status, the X-Amzn-ErrorType header the AWS SDK reads the
// error code from, and a JSON body with the message (docs/sagemaker.md#errors-before-the-stream).
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the error code (the modeled shape name or a common error such
	// as ThrottlingException).
	Code string
	// Message is the human-readable text.
	Message string
	// OriginalStatusCode and OriginalMessage are ModelError's extra fields:
	// what the container answered. Zero/empty leaves them out.
	OriginalStatusCode int
	OriginalMessage    string
	// RetryAfter, when > 0, is sent as a Retry-After header in seconds.
	RetryAfter int
}

// Throttling is SageMaker's answer to a request over the endpoint's rate:
// status 400 with ThrottlingException (the AWS common-error convention). The
// SDK has no Go type for it; it classifies the code as a throttle.
func Throttling(msg string) APIError {
	if msg == "" {
		msg = "Rate exceeded"
	}
	return APIError{Status: http.StatusBadRequest, Code: "ThrottlingException", Message: msg}
}

// ModelError is what SageMaker returns (424) when the container answered the
// invocation with a non-2xx status; the container's status and body ride
// along in OriginalStatusCode/OriginalMessage.
func ModelError(endpoint string, status int, body string) APIError {
	return APIError{
		Status: http.StatusFailedDependency,
		Code:   "ModelError",
		Message: fmt.Sprintf("Received server error (%d) from primary with message %q. "+
			"See https://console.aws.amazon.com/cloudwatch/home#logEventViewer:group=/aws/sagemaker/Endpoints/%s for more information.",
			status, body, endpoint),
		OriginalStatusCode: status,
		OriginalMessage:    body,
	}
}

// ModelNotReady is the 429 SageMaker returns while the model is not ready
// to serve (the SDK decodes *types.ModelNotReadyException and, unlike
// throttling, does not retry it).
func ModelNotReady(msg string) APIError {
	if msg == "" {
		msg = "Model is not ready to serve inference requests."
	}
	return APIError{Status: http.StatusTooManyRequests, Code: "ModelNotReadyException", Message: msg}
}

// ValidationError is SageMaker's 400 for a request it rejects itself (for
// example an unknown endpoint name).
func ValidationError(msg string) APIError {
	return APIError{Status: http.StatusBadRequest, Code: "ValidationError", Message: msg}
}

// endpointNameRE is SageMaker's endpoint-name pattern. It does not bound
// the length (any number of hyphens fits "-*"); EndpointNameError does.
var endpointNameRE = regexp.MustCompile(`^[a-zA-Z0-9](-*[a-zA-Z0-9])*$`)

// maxEndpointName is SageMaker's limit on an endpoint name's length.
const maxEndpointName = 63

// EndpointNameError returns the ValidationError SageMaker answers for a
// name that is not an endpoint name (1 to 63 characters matching
// ^[a-zA-Z0-9](-*[a-zA-Z0-9])*), and bad = false for a valid name.
func EndpointNameError(name string) (e APIError, bad bool) {
	const prefix = "1 validation error detected: Value at 'endpointName' failed to satisfy constraint: "
	if len(name) > maxEndpointName {
		return ValidationError(prefix + fmt.Sprintf("Member must have length less than or equal to %d", maxEndpointName)), true
	}
	if !endpointNameRE.MatchString(name) {
		return ValidationError(prefix + "Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9])*"), true
	}
	return APIError{}, false
}

// Write sends the error as the HTTP response.
func (e APIError) Write(w http.ResponseWriter) {
	body := map[string]any{"__type": e.Code, "message": e.Message}
	if e.Code == "ModelError" || e.Code == "ModelNotReadyException" {
		// The modeled shapes spell it Message; the SDK reads either.
		delete(body, "message")
		body["Message"] = e.Message
	}
	if e.OriginalStatusCode != 0 {
		body["OriginalStatusCode"] = e.OriginalStatusCode
		body["OriginalMessage"] = e.OriginalMessage
	}
	b, _ := json.Marshal(body)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-ErrorType", e.Code)
	if e.RetryAfter > 0 {
		h.Set("Retry-After", fmt.Sprint(e.RetryAfter))
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(b)
}

// StartStream writes the HTTP 200 headers of an
// InvokeEndpointWithResponseStream answer: the event-stream content type,
// the container's content type in X-Amzn-SageMaker-Content-Type and the
// invoked variant, then flushes so the SDK call returns (it returns at the
// headers, before the first part).
func StartStream(w http.ResponseWriter, containerContentType, requestID string) {
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("X-Amzn-SageMaker-Content-Type", containerContentType)
	h.Set("X-Amzn-Invoked-Production-Variant", "AllTraffic")
	if requestID != "" {
		h.Set("X-Amzn-RequestId", requestID)
	}
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

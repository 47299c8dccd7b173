package sim

import (
	"net/http"

	"github.com/llmbench/llmbench/internal/eventstream"
)

// handleSageMaker serves InvokeEndpoint (stream false) and
// InvokeEndpointWithResponseStream (stream true). Any endpoint name that
// matches SageMaker's pattern is served by the one simulated model. The
// body goes to the container unchanged: "messages" => chat, "prompt" =>
// completions, "inputs" => TGI/LMI generate.
func (s *Server) handleSageMaker(stream bool) http.HandlerFunc {
	d, endpoint := dialectSMInvoke, "sagemaker-invoke"
	if stream {
		d, endpoint = dialectSMStream, "sagemaker-stream"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		t := s.newTruth(r, endpoint)
		if id := r.Header.Get("X-Amzn-SageMaker-Inference-Id"); id != "" {
			t.RequestID = id
		}
		t.EndpointName = r.PathValue("name")
		t.Format = s.cfg.PayloadFormat
		defer s.finish(t)
		if e, bad := eventstream.EndpointNameError(t.EndpointName); bad {
			t.Status = e.Status
			e.Write(w)
			return
		}
		body, aerr := readBody(r)
		if aerr == nil {
			var req *Request
			if req, aerr = parseInvocation(body); aerr == nil {
				s.serve(w, r, req, t, d)
				return
			}
		}
		s.reject(w, t, d, aerr)
	}
}

// smError maps an injected pre-stream fault to SageMaker Runtime's answer:
// container failures (500/429/503) come back as 424 ModelError carrying the
// container's status; throttling, ModelError and ModelNotReady are the
// front end's own answers.
func (s *Server) smError(t *Truth, name string, status int, msg string) eventstream.APIError {
	switch name {
	case FaultThrottle:
		return eventstream.Throttling("Rate exceeded (injected fault)")
	case FaultModelNotReady:
		return eventstream.ModelNotReady("Model is not ready to serve inference requests (injected fault).")
	case FaultModelError:
		status, msg = http.StatusInternalServerError, "Internal server error (injected fault)"
	}
	e := &apiError{Status: status, Type: "InternalServerError", Message: msg}
	return eventstream.ModelError(t.EndpointName, status, string(e.body()))
}

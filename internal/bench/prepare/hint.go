package prepare

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// hintTimeout bounds the /v1/models question of a hint.
const hintTimeout = 5 * time.Second

// EndpointHint says what to check when the first requests of the plan
// built from spec all failed alike (e: bench.EndpointError, or every
// request of a small run), as text to append to the failure: " — ...". A
// 404 is a wrong --model as often as a wrong path (vLLM answers "The
// model `x` does not exist." with 404): the server's /v1/models tells
// which. An interrupt does not cut that question short.
func EndpointHint(ctx context.Context, spec *bench.Spec, plan *bench.Plan, e *bench.EndpointError) string {
	if plan.Kind == bench.SageMaker {
		return sageMakerHint(spec, e)
	}
	ep := &spec.Endpoint
	where := redact.URL(ep.BaseURL) + APIPath(ep) // the path the requests went to
	switch {
	case e.Class == record.ErrConnection:
		return fmt.Sprintf(" — is the server at %s running? check --base-url (or --host/--port)", redact.URL(ep.BaseURL))
	case e.Class == record.ErrMalformedStream: // it answers, in a framing or format llmbench cannot read
		return fmt.Sprintf(" — %s answers with a stream that is not HTTP/1.1 OpenAI SSE: check that it is an OpenAI-compatible server and --backend", where)
	case e.Status == http.StatusNotFound:
		if hint := modelHint(ctx, ep, plan); hint != "" {
			return hint
		}
		return fmt.Sprintf(" — %s does not exist: check --endpoint (vLLM serves /v1/completions and /v1/chat/completions) and that --base-url does not end in /v1", where)
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return fmt.Sprintf(" — %s refused the credentials: check OPENAI_API_KEY or --header 'Authorization=Bearer ...'", where)
	}
	return answeredHint(where, spec.RequestTimeout, e)
}

// answeredHint is the hint for a server that took the requests and then
// failed them: only a 4xx is a rejection of what was sent; a request
// that timed out, was rate-limited, failed on the server or lost its
// stream was accepted, and "check --model" would send the user the
// wrong way.
func answeredHint(where string, timeout time.Duration, e *bench.EndpointError) string {
	switch {
	case e.Status == http.StatusTooManyRequests || e.Class == record.ErrHTTP429:
		return fmt.Sprintf(" — %s is limiting the request rate (429): lower the load or raise the server's limit", where)
	case e.Status == http.StatusRequestEntityTooLarge: // the model is fine, the body is not
		return fmt.Sprintf(" — %s refused the request as too large (413): send shorter prompts (a smaller --random-input-len, "+
			"or another dataset) or raise the server's request size limit", where)
	case e.Status >= 400 && e.Status < 500 || e.Class == record.ErrHTTP4xx:
		return fmt.Sprintf(" — %s rejected the request: check --model, --backend and the request flags", where)
	case e.Class == record.ErrTimeout:
		limit := "the request timeout"
		if timeout > 0 {
			limit = "--request-timeout " + timeout.String()
		}
		return fmt.Sprintf(" — %s took the requests but did not finish one within %s: check that the server is not stalled, or raise the timeout for long answers", where, limit)
	case e.Status >= 500 || e.Class == record.ErrHTTP5xx || e.Class == record.ErrServer:
		return fmt.Sprintf(" — %s failed the requests on its side: check the server's log", where)
	case e.Class == record.ErrStreamTruncated:
		return fmt.Sprintf(" — %s ended its streams before the last frame: check the server's log and any proxy in between", where)
	}
	return fmt.Sprintf(" — %s: every request failed alike; the error breakdown above says how", where)
}

// sageMakerHint is EndpointHint for a SageMaker endpoint. It names the
// cause as the OpenAI path does (docs/sagemaker.md: errors before and
// inside the stream, throttling): "check --endpoint-name, --region and
// the credentials" fits only a rejection (a 4xx: credentials, a wrong name
// or region), not a throttled, stalled, broken or truncated stream.
func sageMakerHint(spec *bench.Spec, e *bench.EndpointError) string {
	sm := &spec.Endpoint.SageMaker
	where := "endpoint " + sm.EndpointName
	logs := "check the container's log in CloudWatch (/aws/sagemaker/Endpoints/" + sm.EndpointName + ")"
	switch {
	case e.Class == record.ErrConnection && sm.AWS.EndpointURL != "":
		return fmt.Sprintf(" — is the server at %s running? check --endpoint-url", redact.URL(sm.AWS.EndpointURL))
	case e.Class == record.ErrConnection:
		return " — could not reach SageMaker Runtime: check --region and the network"
	case e.Status/100 == 3: // most likely from an --endpoint-url
		at := where
		if sm.AWS.EndpointURL != "" {
			at = redact.URL(sm.AWS.EndpointURL)
		}
		return fmt.Sprintf(" — %s redirects the requests (HTTP %d), and llmbench follows no redirect: "+
			"point --endpoint-url at SageMaker Runtime or an emulator of it", at, e.Status)
	case e.Class == sagemaker.ClassModelNotReady:
		return fmt.Sprintf(" — the model of %s is not ready yet (%s): wait until it has loaded, then run again", where, e.Class)
	case sagemaker.Throttled(e.Class):
		return fmt.Sprintf(" — %s is throttling the requests (%s): lower the load or raise the endpoint's quota", where, e.Class)
	case e.Class == sagemaker.ClassModelError:
		return fmt.Sprintf(" — the model container of %s answered with an error (%s, its status and message above): %s", where, e.Class, logs)
	case e.Class == sagemaker.ClassModelStreamError+":ModelInvocationTimeExceeded":
		return fmt.Sprintf(" — the model of %s did not finish an answer within SageMaker's time limit (%s): "+
			"ask for shorter answers, or check that the container is not stalled", where, e.Class)
	case strings.HasPrefix(e.Class, sagemaker.ClassModelStreamError+":") || e.Class == sagemaker.ClassInternalStreamFailure:
		return fmt.Sprintf(" — %s broke off its streams (%s): %s", where, e.Class, logs)
	case e.Class == sagemaker.ClassReadIdleTimeout:
		idle := sm.AWS.ReadTimeout
		if idle == 0 {
			idle = sagemaker.DefaultReadTimeout
		}
		return fmt.Sprintf(" — %s sent nothing mid-stream for longer than --sagemaker-read-timeout %s: "+
			"check that the container is not stalled", where, idle)
	case e.Class == record.ErrMalformedStream:
		return fmt.Sprintf(" — %s answers in a format llmbench cannot read: check --payload-format (openai-chat, openai, tgi, lmi) "+
			"and that --endpoint-url, if set, points at SageMaker Runtime or an emulator of it", where)
	case e.Status >= 400 && e.Status < 500 && e.Status != http.StatusRequestEntityTooLarge:
		return " — check --endpoint-name, --region and the credentials"
	}
	return answeredHint(where, spec.RequestTimeout, e)
}

// modelHint asks the server's /v1/models whether it serves the model the
// requests named: " — the server does not serve model X; /v1/models
// lists: a, b" when it does not, "" when it does or cannot say.
func modelHint(ctx context.Context, ep *bench.Endpoint, plan *bench.Plan) string {
	c, ok := plan.Backend.(*openai.Client)
	if !ok || len(plan.Requests) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hintTimeout)
	defer cancel()
	models, err := openai.ListModels(ctx, c.HTTPClient(), ep.BaseURL, ep.APIKey)
	if err != nil || len(models) == 0 {
		return ""
	}
	asked := plan.Requests[0].Model
	var ids []string
	for _, m := range models {
		if m.ID == asked {
			return ""
		}
		ids = append(ids, m.ID)
	}
	const most = 10
	list := strings.Join(ids[:min(len(ids), most)], ", ")
	if len(ids) > most {
		list += fmt.Sprintf(", ... (%d in all)", len(ids))
	}
	return fmt.Sprintf(" — the server does not serve model %q; its /v1/models lists: %s (pass one with --model, or leave --model out to take the first)", asked, list)
}

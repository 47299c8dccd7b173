package bench

import (
	"github.com/llmbench/llmbench/internal/backend"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/redact"
)

// secretKeeper is a backend that knows the run's secrets (the OpenAI
// client: API key and header values; SageMaker: custom attributes and AWS
// credentials).
type secretKeeper interface {
	Secrets() *redact.Redactor
}

// redactAnswer cleans a successful answer of the run's secrets before the
// record is saved or shown: a server may echo a credential into its
// generated text (README, "How the numbers are made"). Backends clean
// failures themselves; a success is cleaned here, once per request on the
// collector goroutine, never per chunk, and not in what a multi-turn
// conversation sends back to the server.
func redactAnswer(be backend.Backend, r *record.Record) {
	if !r.Success || (r.GeneratedText == "" && r.FinishReason == "") {
		return
	}
	k, ok := be.(secretKeeper)
	if !ok {
		return
	}
	s := k.Secrets()
	r.GeneratedText = s.String(r.GeneratedText)
	r.FinishReason = s.String(r.FinishReason)
}

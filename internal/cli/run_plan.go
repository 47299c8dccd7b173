package cli

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/prepare"
	"github.com/llmbench/llmbench/internal/hfhub"
	"github.com/llmbench/llmbench/internal/tokenizer"
)

// plan turns the flags into the run's Spec (kept in o.resolved for the
// hints and sections that follow) and the Spec into the step's plan:
// backend, tokenizer, prompts, requests and load (prepare.Build).
func (o *runOptions) plan(ctx context.Context, env *Env, cmd *cobra.Command, errw io.Writer) (*bench.Plan, func(), error) {
	spec, err := o.spec(cmd, env)
	if err != nil {
		return nil, nil, err
	}
	o.resolved = &spec
	p, closeBE, err := prepare.Build(ctx, spec, prepare.Deps{Notes: errw, Hub: hfhub.FromEnv(env.Getenv)})
	if err != nil {
		return nil, nil, usageOf(err)
	}
	if b, ok := p.Backend.(*sagemaker.Backend); ok {
		o.sm.backend = b // CloudWatch reads with its region and credentials
	}
	return p, closeBE, nil
}

// endpointHint is prepare.EndpointHint for the resolved Spec.
func (o *runOptions) endpointHint(ctx context.Context, _ *Env, plan *bench.Plan, e *bench.EndpointError) string {
	return prepare.EndpointHint(ctx, o.resolved, plan, e)
}

// usageOf makes prepare's input errors usage errors (exit code 2).
func usageOf(err error) error {
	if e, ok := err.(*prepare.InputError); ok {
		return &UsageError{Err: e.Err}
	}
	return err
}

// tokenizerError makes a tokenizer that cannot work (no such file or hub
// repository, a broken or unsupported tokenizer.json) a usage error, exit
// code 2; a network failure stays a plain error.
func tokenizerError(err error) error {
	if errors.Is(err, tokenizer.ErrInvalid) {
		return &UsageError{Err: err}
	}
	return err
}

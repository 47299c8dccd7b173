package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend/sagemaker"
	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/bench/prepare"
	"github.com/llmbench/llmbench/internal/hfhub"
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

// usageOf makes prepare's input errors usage errors (exit code 2).
func usageOf(err error) error {
	if e, ok := err.(*prepare.InputError); ok {
		return &UsageError{Err: e.Err}
	}
	return err
}

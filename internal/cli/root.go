// Package cli wires llmbench's subcommands. It holds flags, help texts and the
// mapping from flags to the core packages' plain config structs; it holds no
// measurement logic. Commands write only to the writers they are given.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/config/flagset"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable; tests replace it.
	Getenv func(string) string
	// Version is the build's version string.
	Version string
}

// UsageError marks an error caused by bad input (flags, files, values). Main
// prints it on one line and exits with code 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf returns a *UsageError with a formatted message.
func usageErrorf(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// argsBetween accepts from min to max positional arguments (max < 0: no
// limit); otherwise a *UsageError naming the command and what it takes,
// instead of cobra's "accepts 1 arg(s), received 0".
func argsBetween(min, max int, want string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usageErrorf("%s: %s, got %d argument(s) (see %s --help)", cmd.Name(), want, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// ExitError carries a specific exit code for a command that ran but must
// report failure (for example a crossed --fail-if bound). Its message, if
// any, is printed on one line.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// NewRootCmd builds the llmbench command tree.
func NewRootCmd(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "llmbench",
		Short: "Benchmark LLM serving endpoints the way vllm bench serve does",
		Long: `llmbench measures how fast an LLM serving endpoint streams tokens:
TTFT, TPOT, ITL, E2EL, throughput and goodput, with the definitions, flag
names, result table and JSON keys of "vllm bench serve".

Start with "llmbench demo", which runs a benchmark against the built-in
simulator on this machine.`,
		Version:       env.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetGlobalNormalizationFunc(flagset.Normalize) // --max_concurrency
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &UsageError{Err: suggestFlag(cmd, err)}
	})
	root.AddCommand(
		// Subcommands register here, one constructor each.
		newDemoCmd(env),
		newSweepCmd(env),
		newRunCmd(env),
		newSimCmd(env),
		newCalibrateCmd(env),
		newTokenizeCmd(env),
		newProxyCmd(env),
		newMetricsCmd(env),
		newMergeCmd(env),
		newCompareCmd(env),
		newPlanCmd(env),
		newReportCmd(env),
	)
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run", "demo", "sweep":
			c.SetHelpFunc(groupedHelp)
		}
	}
	return root
}

// Main runs llmbench with args and returns the process exit code: 0 on
// success, 2 for bad input, 1 for any other failure.
func Main(ctx context.Context, version string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return mainEnv(ctx, &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv, Version: version}, args)
}

// mainEnv is Main with the environment given (tests replace Getenv).
func mainEnv(ctx context.Context, env *Env, args []string) int {
	stderr := env.Stderr
	root := NewRootCmd(env)
	root.SetArgs(flagset.ExpandNargs(args)) // vLLM's "--goodput a b" for pflag
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		if exit.Msg != "" {
			fmt.Fprintln(stderr, "llmbench:", exit.Msg)
		}
		return exit.Code
	}
	fmt.Fprintln(stderr, "llmbench:", oneLine(err.Error()))
	var usage *UsageError
	if errors.As(err, &usage) || isCobraUsageError(err) {
		return 2
	}
	return 1
}

// isCobraUsageError recognises cobra's own input errors, which it does not
// route through the flag error func. (Argument counts are checked by
// argsBetween, which returns a *UsageError.)
func isCobraUsageError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") ||
		strings.HasPrefix(msg, "unknown flag") ||
		strings.HasPrefix(msg, "unknown shorthand flag")
}

// oneLine folds a multi-line error into one line so a shell user sees it whole.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

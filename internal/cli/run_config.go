package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
	"github.com/llmbench/llmbench/internal/config/flagset"
)

// The project-configuration path of "llmbench run" and "sweep": built-in
// defaults < config.yaml < flags < flags after "--", resolved once by
// config.Resolve (which says why each layer wins, what --course implies
// and when a configured cap leaves a closed loop) and written on the flags
// once by flagset.Apply, before the Spec is built. A plain "llmbench run"
// without a file or --course keeps vLLM's defaults.

// Sources of a flag's value that count as the user's (userSet).
const (
	srcFlag = config.SourceFlag
	srcDash = config.SourceDash
)

// configFlags are the project-configuration flags of "llmbench run" and
// what resolving them found.
type configFlags struct {
	path         string
	noConfig     bool
	course       string
	printCommand bool

	// sources maps each flag a layer set or the course derived to its
	// source (nil until resolveConfig ran).
	sources map[string]config.Source

	// schema, when set, holds the flags the file's keys are checked
	// against (run's, for sweep: one file means the same for both); nil =
	// the command's own. runOnly are the flags whose keys the command
	// leaves to run (sweep has its own ladder of users and time bounds).
	schema  *pflag.FlagSet
	runOnly map[string]bool
}

// configOnlyFlags steer the configuration itself: they have no config key,
// cannot follow "--" and are left out of the resolved command.
var configOnlyFlags = map[string]bool{"config": true, "no-config": true, "course": true, "print-command": true, "help": true}

// bindConfigFlags declares --config, --no-config, --course and
// --print-command.
func bindConfigFlags(fs *pflag.FlagSet, o *runOptions) {
	c := &o.cfg
	fs.StringVar(&c.path, "config", "", "project configuration file; its benchmark: section sets run flags (default: ./"+config.DefaultFile+" if present)")
	fs.BoolVar(&c.noConfig, "no-config", false, "ignore ./"+config.DefaultFile+": vLLM's defaults and the flags only")
	fs.StringVar(&c.course, "course", "", "course NAME: benchmark the endpoint recorded in courses/NAME/data/state.json and save results in courses/NAME/data/")
	fs.BoolVar(&c.printCommand, "print-command", false, "print the fully resolved llmbench run command (secrets redacted) and exit without sending anything")
}

// expandNargs rewrites vLLM's "--goodput a b" for pflag (flagset.ExpandNargs).
func expandNargs(args []string) []string { return flagset.ExpandNargs(args) }

// resolveConfig resolves config.yaml, --course and the arguments after
// "--" over the command line and writes the outcome on the flags. done is
// true when nothing more should happen (--print-command printed).
func (o *runOptions) resolveConfig(cmd *cobra.Command, args []string, env *Env) (done bool, err error) {
	fs, c := cmd.Flags(), &o.cfg
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		dash = len(args)
	}
	if dash > 0 {
		return false, usageErrorf("unexpected argument %q: run takes flags only (pass-through flags go after --)", args[0])
	}
	in := config.Input{Command: cmd.Name(), Flags: flagset.Describe(fs, configOnlyFlags), Skip: c.runOnly, LoopFlag: "users", Loop: o.sweepLoop}
	if in.Dash, err = flagset.ParseDash(fs, configOnlyFlags, expandNargs(args)); err != nil {
		return false, &UsageError{Err: err}
	}
	if in.File, err = c.loadFile(fs, env); err != nil {
		return false, err
	}
	if c.course != "" || fs.Changed("course") {
		cr, err := config.CourseFor(in.File, c.course)
		if err != nil {
			return false, &UsageError{Err: err}
		}
		in.Course = &cr
	}
	// Values are checked on a fresh copy of the command's flags.
	fresh := newRunCmd
	if o.sweepMode {
		fresh, in.LoopFlag = newSweepCmd, "" // sweep's --users is its ladder
	}
	in.Check = flagset.Checker(fresh(env).Flags())
	res, err := config.Resolve(in)
	if err != nil {
		return false, &UsageError{Err: err}
	}
	if err := flagset.Apply(fs, res.Assign); err != nil {
		return false, err
	}
	c.sources = res.Sources
	for _, n := range res.Notes {
		fmt.Fprintln(env.Stderr, n)
	}
	if !c.printCommand {
		return false, nil
	}
	if err := o.validate(cmd); err != nil {
		return false, err
	}
	if redacted := config.WriteCommand(env.Stdout, "llmbench "+cmd.Name(), res.Command); redacted > 0 {
		fmt.Fprintf(env.Stderr, "Note: %d secret value(s) shown as [redacted].\n", redacted)
	}
	return true, nil
}

// loadFile reads --config, else ./config.yaml when present; nil without a
// file (or with --no-config). It notes on stderr a file it picked up
// without being asked, since that changes run's defaults.
func (c *configFlags) loadFile(fs *pflag.FlagSet, env *Env) (*config.File, error) {
	path, given := c.path, fs.Changed("config")
	switch {
	case c.noConfig && given:
		return nil, usageErrorf("--config and --no-config: choose one")
	case c.noConfig:
		return nil, nil
	case given && path == "":
		return nil, usageErrorf("--config needs a file (use --no-config for none)")
	case !given:
		found, err := config.Locate()
		if found == "" || err != nil {
			return nil, err
		}
		path = found
		fmt.Fprintf(env.Stderr, "Using %s (--no-config ignores it)\n", path)
	}
	if c.schema != nil {
		fs = c.schema
	}
	f, err := config.Load(path, flagset.Schema(fs, configOnlyFlags))
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return f, nil
}

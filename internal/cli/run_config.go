package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
	"github.com/llmbench/llmbench/internal/config/flagset"
)

// The project configuration of "llmbench run" and "sweep": built-in
// defaults < config.yaml < flags < flags after "--", with what --course
// implies, resolved once by config.Resolve (which says why) and written on
// the flags once, before the Spec is built. Without a file or --course a
// run keeps vLLM's defaults.

// configFlags are the project-configuration flags and what resolving
// them found.
type configFlags struct {
	path         string
	noConfig     bool
	course       string
	printCommand bool
	// sources maps each flag a layer set or the course derived to its
	// source; nil until resolveConfig ran.
	sources map[string]config.Source
	// schema, when set, holds the flags the file's keys are checked
	// against (sweep: run's, one file for both); runOnly are the flags
	// whose keys the command leaves to run (sweep's ladder and bounds).
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

// resolveConfig resolves the configuration over the command line and the
// arguments after "--" and writes it on the flags. done is true when
// nothing more should happen (--print-command printed).
func (o *runOptions) resolveConfig(cmd *cobra.Command, args []string, env *Env) (done bool, err error) {
	fs, c := cmd.Flags(), &o.cfg
	if dash := cmd.ArgsLenAtDash(); dash > 0 || dash < 0 && len(args) > 0 {
		return false, usageErrorf("unexpected argument %q: run takes flags only (pass-through flags go after --)", args[0])
	}
	in := config.Input{Command: cmd.Name(), Skip: c.runOnly, LoopFlag: "users", Loop: o.sweepLoop}
	if in.Dash, err = flagset.ParseDash(fs, configOnlyFlags, flagset.ExpandNargs(args)); err != nil {
		return false, &UsageError{Err: err}
	}
	if in.File, in.Course, err = c.load(fs, env); err != nil {
		return false, err
	}
	fresh := newRunCmd // values are checked on a fresh copy of the flags
	if o.sweepMode {
		fresh, in.LoopFlag = newSweepCmd, "" // sweep's --users is its ladder
	}
	res, err := flagset.Resolve(fs, fresh(env).Flags(), configOnlyFlags, in)
	if err != nil {
		return false, &UsageError{Err: err}
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
	flags := config.CommandOf(flagset.Describe(fs, configOnlyFlags), c.sources) // as written on them
	if redacted := config.WriteCommand(env.Stdout, "llmbench "+cmd.Name(), flags); redacted > 0 {
		fmt.Fprintf(env.Stderr, "Note: %d secret value(s) shown as [redacted].\n", redacted)
	}
	return true, nil
}

// load reads the configuration file that applies (config.Choose: --config,
// else ./config.yaml when present, noted on stderr: it changes run's
// defaults) and finds --course; nil for none.
func (c *configFlags) load(fs *pflag.FlagSet, env *Env) (file *config.File, course *config.Course, err error) {
	path, note, err := config.Choose(config.Choice{Path: c.path, Given: fs.Changed("config"), NoConfig: c.noConfig})
	if errors.As(err, new(*config.ChoiceError)) {
		return nil, nil, &UsageError{Err: err}
	} else if err != nil {
		return nil, nil, err
	}
	if note != "" {
		fmt.Fprintln(env.Stderr, note)
	}
	schema := fs
	if c.schema != nil {
		schema = c.schema
	}
	file, course, err = config.Open(path, flagset.Schema(schema, configOnlyFlags), c.course != "" || fs.Changed("course"), c.course)
	if err != nil {
		return nil, nil, &UsageError{Err: err}
	}
	return file, course, nil
}

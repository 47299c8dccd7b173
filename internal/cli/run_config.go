package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
)

// The project-configuration path of "llmbench run".
//
// Precedence, lowest first: run's own (vLLM's) defaults < the config's
// built-in defaults < config.yaml < flags < flags after "--". Every level is
// applied to the same pflag.FlagSet, so the run reads one set of values
// whatever their source:
//
//   - The config's built-in defaults (config.Defaults: 20 prompts, at most 4
//     in flight, ...) apply only when a configuration is in play: --config,
//     ./config.yaml, or --course. A plain "llmbench run" keeps vLLM's
//     defaults (1000 prompts, no concurrency cap) so vLLM command lines mean
//     the same here. A key written as null in the file ("max_concurrency:
//     null") keeps run's own default instead.
//   - Config values are set only on flags the user did not set, with
//     Value.Set (pflag.SliceValue.Replace for lists).
//   - Flags after "--" are parsed as run flags into a recording FlagSet and
//     then applied over everything; vLLM's nargs flags ("--goodput a b")
//     work there too.
//   - A generic length (input_len, output_len) is not applied from a lower
//     level when a higher level set a dataset-specific one it would
//     override ("-- --random-input-len 1024" wins over input_len: 256).
//
// With --course NAME the endpoint name comes from the course's deployment
// state file, the backend defaults to sagemaker, and saved results go to
// the course's data/ folder. --course runs nothing else.

// Sources of a flag's value, for the resolved command and tests.
const (
	srcDefault = "config default" // config.SourceDefault: config.Defaults
	srcFile    = "config file"    // config.SourceFile
	srcFlag    = "flag"           // config.SourceFlag
	srcDash    = "after --"       // config.SourceDash
	srcCourse  = "course"         // derived from --course or the endpoint name
)

// configFlags are the project-configuration flags of "llmbench run" and
// what resolving them found.
type configFlags struct {
	path         string
	noConfig     bool
	course       string
	printCommand bool

	// sources maps each flag resolved by resolveConfig, a user flag or
	// one after "--" to where its value came from.
	sources map[string]string

	// schema, when set, holds the flags the file's keys are checked
	// against (run's, for sweep: one file means the same for both); nil =
	// the command's own. runOnly are the flags whose keys the command
	// leaves to run (sweep has its own ladder of users and time bounds):
	// skipped and named once in a note.
	schema  *pflag.FlagSet
	runOnly map[string]bool
	skipped []string
	// loaded is the file resolveConfig read ("" = none).
	loaded string
}

// configOnlyFlags steer the configuration itself: they have no config key,
// cannot follow "--" and are left out of the resolved command.
var configOnlyFlags = map[string]bool{
	"config":        true,
	"no-config":     true,
	"course":        true,
	"print-command": true,
	"help":          true,
}

// bindConfigFlags declares --config, --no-config, --course and
// --print-command.
func bindConfigFlags(fs *pflag.FlagSet, o *runOptions) {
	c := &o.cfg
	fs.StringVar(&c.path, "config", "", "project configuration file; its benchmark: section sets run flags (default: ./"+config.DefaultFile+" if present)")
	fs.BoolVar(&c.noConfig, "no-config", false, "ignore ./"+config.DefaultFile+": vLLM's defaults and the flags only")
	fs.StringVar(&c.course, "course", "", "course NAME: benchmark the endpoint recorded in courses/NAME/data/state.json and save results in courses/NAME/data/")
	fs.BoolVar(&c.printCommand, "print-command", false, "print the fully resolved llmbench run command (secrets redacted) and exit without sending anything")
}

// resolveConfig applies config.yaml, --course and the arguments after "--"
// to o's flags (defaults < config file < flags < args after --). done is
// true when nothing more should happen (--print-command printed).
func (o *runOptions) resolveConfig(cmd *cobra.Command, args []string, env *Env) (done bool, err error) {
	fs := cmd.Flags()
	c := &o.cfg
	ops, err := c.noteSources(cmd, args)
	if err != nil {
		return false, err
	}
	file, err := c.loadFile(fs, env)
	if err != nil {
		return false, err
	}
	course, err := c.findCourse(fs, file)
	if err != nil {
		return false, err
	}
	inPlay := file != nil || course != nil
	if inPlay {
		if err := c.applyConfig(fs, file); err != nil {
			return false, err
		}
	}
	if err := applyAfterDash(ops); err != nil {
		return false, err
	}
	if err := c.resolveEndpoint(fs, course, env); err != nil {
		return false, err
	}
	o.dropClosedLoopCap(cmd, o.closedLoop(), env.Stderr)
	if inPlay {
		c.resolveResults(fs, file, course, config.SaveResults(file))
	}
	if len(c.skipped) > 0 {
		fmt.Fprintf(env.Stderr, "Note: %s in %s: %s settings; llmbench %s leaves them out.\n", strings.Join(c.skipped, ", "), c.loaded, "llmbench run", cmd.Name())
	}
	if !c.printCommand {
		return false, nil
	}
	if err := o.validate(cmd); err != nil {
		return false, err
	}
	if redacted := writeCommand(env.Stdout, "llmbench "+cmd.Name(), fs, c.sources); redacted > 0 {
		fmt.Fprintf(env.Stderr, "Note: %d secret value(s) shown as [redacted].\n", redacted)
	}
	return true, nil
}

// dropClosedLoopCap unsets a max_concurrency that came from a config
// file, the configuration's built-in defaults or demo's defaults when the
// run is a closed loop (loop names it, e.g. "--users 16"; "" = not a
// closed loop): the loop's concurrency is its own, and a smaller cap would
// hold it lower on the client (the connection pool is sized by the cap)
// while the report named the loop's (issue 29). A cap the user gave is
// refused instead (checkClosedLoop, checkSweep). The note is written once,
// for a value from a configuration.
func (o *runOptions) dropClosedLoopCap(cmd *cobra.Command, loop string, notes io.Writer) {
	f := &o.f
	if loop == "" || !f.maxConcurrency.set || o.userSet(cmd, "max-concurrency") {
		return
	}
	switch src := o.cfg.sources["max-concurrency"]; src {
	case srcFile, srcDefault:
		where := "the configuration's built-in default"
		if src == srcFile {
			where = "the config file"
		}
		fmt.Fprintf(notes, "Note: max_concurrency %d from %s does not apply to %s: a closed loop keeps its own requests in flight.\n", f.maxConcurrency.v, where, loop)
	}
	f.maxConcurrency = optInt{}
	delete(o.cfg.sources, "max-concurrency")
	if fl := cmd.Flags().Lookup("max-concurrency"); fl != nil {
		fl.Changed = false
	}
}

// closedLoop names the run's closed loop for messages ("--users 16",
// "sweep --concurrency"); "" for an open loop.
func (o *runOptions) closedLoop() string {
	if o.sweepMode {
		return o.sweepLoop
	}
	if o.f.users > 0 {
		return fmt.Sprintf("--users %d", o.f.users)
	}
	return ""
}

// noteSources parses the arguments after "--" and records which flags
// were set above the configuration: on the command line, then after --.
func (c *configFlags) noteSources(cmd *cobra.Command, args []string) ([]dashOp, error) {
	fs := cmd.Flags()
	c.sources = map[string]string{}
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		dash = len(args)
	}
	if dash > 0 {
		return nil, usageErrorf("unexpected argument %q: run takes flags only (pass-through flags go after --)", args[0])
	}
	ops, err := parseAfterDash(fs, expandNargs(args[dash:]))
	if err != nil {
		return nil, err
	}
	fs.Visit(func(fl *pflag.Flag) {
		if !configOnlyFlags[fl.Name] {
			c.sources[fl.Name] = srcFlag
		}
	})
	for _, op := range ops {
		c.sources[op.flag.Name] = srcDash
	}
	return ops, nil
}

// findCourse finds --course's folder (nil without --course).
func (c *configFlags) findCourse(fs *pflag.FlagSet, file *config.File) (*config.Course, error) {
	if c.course == "" && !fs.Changed("course") {
		return nil, nil
	}
	template, base := config.DefaultCoursesDir, "."
	if file != nil {
		template, base = file.CoursesDir, file.Dir
	}
	cr, err := config.FindCourse(template, base, c.course)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return &cr, nil
}

// loadFile reads --config, else ./config.yaml when present; nil without a
// file (or with --no-config). It notes on stderr a file it picked up
// without being asked, since that changes run's defaults.
func (c *configFlags) loadFile(flags *pflag.FlagSet, env *Env) (*config.File, error) {
	path := c.path
	switch {
	case c.noConfig && flags.Changed("config"):
		return nil, usageErrorf("--config and --no-config: choose one")
	case c.noConfig:
		return nil, nil
	case flags.Changed("config"):
		if path == "" {
			return nil, usageErrorf("--config needs a file (use --no-config for none)")
		}
	default:
		if _, err := os.Stat(config.DefaultFile); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, fmt.Errorf("looking for %s: %w", config.DefaultFile, err)
		}
		path = config.DefaultFile
		fmt.Fprintf(env.Stderr, "Using %s (--no-config ignores it)\n", path)
	}
	c.loaded = path
	schemaFlags := flags
	if c.schema != nil {
		schemaFlags = c.schema
	}
	f, err := config.Load(path, configSchema(schemaFlags))
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return f, nil
}

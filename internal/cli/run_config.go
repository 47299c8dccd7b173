package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
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

// saveResultsKey is the config's save switch; it sets --save-result and,
// when true, --save-detailed and the project's result folder.
const saveResultsKey = "save_results"

// keyFlags are the config keys whose names differ from their flag's: the
// names the SageMaker project's config.yaml used.
var keyFlags = map[string]string{
	"percentiles":  "metric-percentiles",
	saveResultsKey: "save-result",
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

// flagOfKey is the flag a config key sets.
func flagOfKey(key string) string {
	if f, ok := keyFlags[key]; ok {
		return f
	}
	return strings.ReplaceAll(key, "_", "-")
}

// keyOfFlag is the config key of a flag.
func keyOfFlag(name string) string {
	for k, f := range keyFlags {
		if f == name {
			return k
		}
	}
	return strings.ReplaceAll(name, "-", "_")
}

// configSchema derives the benchmark: section's keys from the run flags
// on fs, so every run setting has a key of the same (snake_case) name.
func configSchema(fs *pflag.FlagSet) config.Schema {
	s := config.Schema{
		Keys: map[string]config.Key{},
		Renamed: map[string]string{
			"metric_percentiles": "percentiles",
			"save_result":        saveResultsKey,
		},
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		if configOnlyFlags[fl.Name] {
			return
		}
		var k config.Key
		switch {
		case fl.Value.Type() == "bool":
			k.Bool = true
		case isSlice(fl):
			k.Many = true
			switch fl.Name {
			case "header", "metadata":
				k.PairSep = "=" // values may hold spaces: one item each
			case "goodput":
				k.PairSep, k.Fields = ":", true
			default:
				k.Fields = nargsFlags[fl.Name]
			}
		case fl.Name == "metric-percentiles" || fl.Name == "percentile-metrics":
			k.Join = ","
		}
		s.Keys[keyOfFlag(fl.Name)] = k
	})
	return s
}

func isSlice(fl *pflag.Flag) bool {
	_, ok := fl.Value.(pflag.SliceValue)
	return ok
}

// setFlag gives a flag its values: a list replaces a slice flag's items,
// anything else takes one value.
func setFlag(fl *pflag.Flag, values []string) error {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.Replace(append([]string(nil), values...))
	}
	if len(values) != 1 {
		return fmt.Errorf("want one value, got %d", len(values))
	}
	return fl.Value.Set(values[0])
}

// dashOp is one flag occurrence after "--".
type dashOp struct {
	flag  *pflag.Flag // the real flag on run's FlagSet
	value string
}

// recorder stands in for a run flag while the arguments after "--" are
// parsed; it only notes the values, which are applied later over the
// configuration.
type recorder struct {
	fl  *pflag.Flag
	ops *[]dashOp
}

func (r *recorder) Set(s string) error {
	*r.ops = append(*r.ops, dashOp{flag: r.fl, value: s})
	return nil
}
func (r *recorder) String() string { return "" }
func (r *recorder) Type() string   { return r.fl.Value.Type() }

// parseAfterDash parses the arguments after "--" as run flags.
func parseAfterDash(fs *pflag.FlagSet, args []string) ([]dashOp, error) {
	var ops []dashOp
	rec := pflag.NewFlagSet("after --", pflag.ContinueOnError)
	rec.SetOutput(io.Discard)
	rec.Usage = func() {}
	rec.SetNormalizeFunc(fs.GetNormalizeFunc())
	fs.VisitAll(func(fl *pflag.Flag) {
		if configOnlyFlags[fl.Name] {
			return
		}
		r := rec.VarPF(&recorder{fl: fl, ops: &ops}, fl.Name, fl.Shorthand, fl.Usage)
		r.NoOptDefVal = fl.NoOptDefVal // bool flags take no value
	})
	if err := rec.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, usageErrorf("after --: only run's benchmark flags; put --help before --")
		}
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
			if n := string(fs.GetNormalizeFunc()(fs, name)); configOnlyFlags[n] {
				return nil, usageErrorf("after --: --%s is not a benchmark flag; put it before --", n)
			}
		}
		return nil, usageErrorf("after --: %v", err)
	}
	if rest := rec.Args(); len(rest) > 0 {
		return nil, usageErrorf("after --: unexpected argument %q (only run flags may follow --)", rest[0])
	}
	return ops, nil
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
		c.resolveResults(fs, file, course, saveResults(file))
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

// applyConfig sets the values of the built-in defaults and the file that
// survive config.Merge under the flags given on the command line and after
// "--" (already on fs): the file's in file order after the defaults.
func (c *configFlags) applyConfig(fs *pflag.FlagSet, file *config.File) error {
	var defaults, fromFile, flags, dash config.Layer
	defaults.Source, fromFile.Source = config.SourceDefault, config.SourceFile
	flags.Source, dash.Source = config.SourceFlag, config.SourceDash
	keys := map[string]string{} // flag name -> its key, for errors
	for _, d := range config.Defaults {
		keys[flagOfKey(d.Key)] = d.Key
		defaults.Entries = append(defaults.Entries, config.Entry{Name: flagOfKey(d.Key), Values: []string{d.Value}})
	}
	if file != nil {
		for _, s := range file.Benchmark {
			name := flagOfKey(s.Key)
			keys[name] = s.Key
			if !s.Null && c.runOnly[name] {
				c.skipped = append(c.skipped, s.Key)
			}
			fromFile.Entries = append(fromFile.Entries, config.Entry{Name: name, Values: s.Values, Null: s.Null, Pos: s.Pos})
		}
	}
	for name, src := range c.sources {
		l := &flags
		if src == srcDash {
			l = &dash
		}
		l.Entries = append(l.Entries, config.Entry{Name: name})
	}
	for _, w := range config.Merge(defaults, fromFile, flags, dash) {
		if w.Source > config.SourceFile || c.runOnly[w.Name] {
			continue
		}
		if err := c.apply(fs, w, keys[w.Name]); err != nil {
			if w.Source == config.SourceDefault {
				return err // a programming error: the defaults must parse
			}
			return &UsageError{Err: err}
		}
	}
	return nil
}

// applyAfterDash sets the flags given after "--", over everything. Slice
// flags take all their values from there; other flags take the last.
func applyAfterDash(ops []dashOp) error {
	lists := map[*pflag.Flag][]string{}
	var order []*pflag.Flag
	for _, op := range ops {
		if isSlice(op.flag) {
			if _, ok := lists[op.flag]; !ok {
				order = append(order, op.flag)
			}
			lists[op.flag] = append(lists[op.flag], op.value)
			continue
		}
		if err := op.flag.Value.Set(op.value); err != nil {
			return usageErrorf("after --: invalid argument %q for --%s: %v", op.value, op.flag.Name, err)
		}
		op.flag.Changed = true
	}
	for _, fl := range order {
		if err := setFlag(fl, lists[fl]); err != nil {
			return usageErrorf("after --: --%s: %v", fl.Name, err)
		}
		fl.Changed = true
	}
	return nil
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

// apply sets a default's or the file's value on its flag (key names it
// in errors).
func (c *configFlags) apply(fs *pflag.FlagSet, w config.Winner, key string) error {
	fl := fs.Lookup(w.Name)
	if fl == nil {
		return w.Pos.Errorf("benchmark.%s: no such run flag --%s", key, w.Name)
	}
	if err := setFlag(fl, w.Values); err != nil {
		return w.Pos.Errorf("benchmark.%s: invalid value %s: %v", key, quoteValues(w.Values), err)
	}
	if w.Source == config.SourceFile {
		fl.Changed = true
	}
	c.sources[w.Name] = w.Source.String()
	return nil
}

func quoteValues(vs []string) string {
	if len(vs) == 1 {
		return strconv.Quote(vs[0])
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// setDerived sets a flag from the course or endpoint when nothing else
// did.
func (c *configFlags) setDerived(fs *pflag.FlagSet, name, value string) {
	if c.sources[name] != "" {
		return
	}
	fl := fs.Lookup(name)
	if fl == nil || fl.Value.Set(value) != nil {
		panic("run_config: cannot set --" + name) // a programming error, caught by tests
	}
	c.sources[name] = srcCourse
}

// resolveEndpoint takes the endpoint name from the course's state file
// (unless one was given) and makes sagemaker the backend for a named
// endpoint (unless one was chosen).
func (c *configFlags) resolveEndpoint(fs *pflag.FlagSet, course *config.Course, env *Env) error {
	// A backend chosen other than sagemaker uses --course for the result
	// folder only.
	otherBackend := c.sources["backend"] != "" && fs.Lookup("backend").Value.String() != "sagemaker"
	if course != nil && !otherBackend && c.sources["endpoint-name"] != srcFlag && c.sources["endpoint-name"] != srcDash {
		name, err := course.EndpointName()
		if err != nil {
			return &UsageError{Err: err}
		}
		delete(c.sources, "endpoint-name") // --course beats the file's endpoint_name
		c.setDerived(fs, "endpoint-name", name)
		region := course.Region()
		if region != "" && c.sources["region"] == "" {
			c.setDerived(fs, "region", region)
			fmt.Fprintf(env.Stderr, "Course %s: endpoint %s in %s (from %s)\n", course.Name, name, region, course.StatePath())
		} else {
			fmt.Fprintf(env.Stderr, "Course %s: endpoint %s (from %s)\n", course.Name, name, course.StatePath())
		}
	}
	if course != nil || fs.Lookup("endpoint-name").Value.String() != "" {
		c.setDerived(fs, "backend", "sagemaker")
	}
	return nil
}

// resolveResults points saved results at the project's folders: the
// course's data/ with --course, else bench_results/ beside the config
// file; with save_results true the per-request details are kept too, and
// the file name carries the endpoint name.
func (c *configFlags) resolveResults(fs *pflag.FlagSet, file *config.File, course *config.Course, detailed bool) {
	if fs.Lookup("save-result").Value.String() != "true" {
		return
	}
	if detailed {
		c.setDerived(fs, "save-detailed", "true")
	}
	if c.sources["result-dir"] == "" {
		dir := config.ResultsDir
		if course != nil {
			dir = course.DataDir()
		} else if file != nil {
			dir = filepath.Join(file.Dir, config.ResultsDir)
		}
		c.setDerived(fs, "result-dir", dir)
	}
	// vLLM's automatic file name carries the model id and a timestamp. For
	// a SageMaker endpoint without --model the model id is the endpoint
	// name; with --model, the label (the name's first part) carries it.
	endpoint := fs.Lookup("endpoint-name").Value.String()
	if endpoint != "" && fs.Lookup("model").Value.String() != "" && fs.Lookup("result-filename").Value.String() == "" {
		c.setDerived(fs, "label", fs.Lookup("backend").Value.String()+"-"+endpoint)
	}
}

// saveResults is the configuration's save_results: the file's, else the
// built-in default; null is false (run's own default).
func saveResults(file *config.File) bool {
	if file != nil {
		if s, ok := file.Lookup(saveResultsKey); ok {
			return !s.Null && len(s.Values) == 1 && s.Values[0] == "true"
		}
	}
	for _, d := range config.Defaults {
		if d.Key == saveResultsKey {
			return d.Value == "true"
		}
	}
	return false
}

// writeCommand prints the resolved command (name: "llmbench run"): one flag per
// setting that was set anywhere or differs from its default, in the order
// run declares them, shell-quoted, with secrets redacted. It returns how
// many values it redacted.
func writeCommand(w io.Writer, name string, fs *pflag.FlagSet, sources map[string]string) int {
	var parts [][]string
	redacted := 0
	sorted := fs.SortFlags
	fs.SortFlags = false // declaration order groups related flags
	fs.VisitAll(func(fl *pflag.Flag) {
		if configOnlyFlags[fl.Name] {
			return
		}
		if sources[fl.Name] == "" && !fl.Changed && fl.Value.String() == fl.DefValue {
			return
		}
		flagName := "--" + fl.Name
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals := sv.GetSlice()
			if len(vals) == 0 {
				return // an emptied list is run's default
			}
			// vLLM's nargs style "--goodput a b" unless a value looks like
			// a flag; then "--x=a --x=b".
			nargs := nargsFlags[fl.Name]
			for _, v := range vals {
				nargs = nargs && !strings.HasPrefix(v, "-")
			}
			var part []string
			if nargs {
				part = append(part, flagName)
			}
			for _, v := range vals {
				v, n := redactValue(fl.Name, v)
				redacted += n
				if nargs {
					part = append(part, shellQuote(v))
				} else {
					part = append(part, shellQuote(flagName+"="+v))
				}
			}
			parts = append(parts, part)
			return
		}
		v := fl.Value.String()
		if fl.Value.Type() == "bool" {
			if v == "true" {
				parts = append(parts, []string{flagName})
			} else {
				parts = append(parts, []string{flagName + "=" + v})
			}
			return
		}
		v, n := redactValue(fl.Name, v)
		redacted += n
		if strings.HasPrefix(v, "-") {
			parts = append(parts, []string{shellQuote(flagName + "=" + v)})
		} else {
			parts = append(parts, []string{flagName, shellQuote(v)})
		}
	})
	fs.SortFlags = sorted

	var b strings.Builder
	b.WriteString(name)
	for _, p := range parts {
		b.WriteString(" \\\n  ")
		b.WriteString(strings.Join(p, " "))
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
	return redacted
}

// secretWords mark a header or metadata key whose value is a credential.
var secretWords = []string{"auth", "key", "token", "secret", "password", "passwd", "cookie", "credential", "signature", "session"}

// redactValue hides the secret part of a flag value, returning how many
// values it hid: --custom-attributes whole, every --header value (headers
// are how credentials reach a server, and no list of key words knows every
// vendor's header name), the value of a --metadata KEY=VALUE whose key
// looks like a credential, and a password in a URL.
func redactValue(flag, v string) (string, int) {
	switch flag {
	case "custom-attributes":
		if v == "" {
			return v, 0
		}
		return "[redacted]", 1
	case "header", "metadata":
		k, val, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(val) == "" {
			return v, 0
		}
		if flag == "header" {
			return k + "=[redacted]", 1
		}
		lk := strings.ToLower(k)
		for _, w := range secretWords {
			if strings.Contains(lk, w) {
				return k + "=[redacted]", 1
			}
		}
	case "base-url", "endpoint-url":
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if _, hasPass := u.User.Password(); hasPass {
				u.User = url.UserPassword(u.User.Username(), "[redacted]")
				return strings.Replace(u.String(), "%5Bredacted%5D", "[redacted]", 1), 1
			}
		}
	}
	return v, 0
}

// shellQuote quotes s for a POSIX shell when it needs it, like Python's
// shlex.quote.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

package cli

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/config"
	"github.com/llmbench/llmbench/internal/config/flagset"
	"github.com/llmbench/llmbench/internal/sim"
)

// csUpdate rewrites the golden outputs inside the txtar scripts
// (go test ./internal/cli -run TestConfigScripts -update).
var csUpdate = flag.Bool("update", false, "rewrite golden files and the expected output in testdata/config/*.txtar")

// TestMain lets the scripts run "llmbench": testscript re-executes this
// test binary as the command, which calls Main like cmd/llmbench does.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"llmbench": func() {
			// Ctrl-C (SIGINT) ends the command gracefully, as in
			// cmd/llmbench: calibrate stops its simulator so.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			code := Main(ctx, "test", os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
			stop()
			os.Exit(code)
		},
	})
}

// TestConfigScripts runs testdata/config/*.txtar: the project
// configuration path of "llmbench run" (config file, --course, precedence,
// --print-command, errors) and real runs through the simulator's SageMaker
// Runtime API. Each script works in its own $WORK; the sample course
// testdata/courses/demo is copied to $WORK/sample/courses/demo and the
// simulator's URL is $SIM_URL.
func TestConfigScripts(t *testing.T) {
	t.Parallel()
	p, err := sim.LookupPreset("fast")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sim.Start(ctx, sim.DefaultConfig().WithPreset(p), "")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Stop(context.Background())
	})
	sample, err := filepath.Abs(filepath.Join("..", "..", "testdata", "courses"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "config"),
		UpdateScripts: *csUpdate,
		Setup: func(e *testscript.Env) error {
			e.Setenv("SIM_URL", srv.URL)
			// Tokenizers are never downloaded in tests.
			e.Setenv("HF_HUB_OFFLINE", "1")
			e.Setenv("HF_HOME", filepath.Join(e.WorkDir, ".hf"))
			return os.CopyFS(filepath.Join(e.WorkDir, "sample", "courses"), os.DirFS(sample))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"globmatch": cmdGlobMatch,
		},
	})
}

// cmdGlobMatch is "globmatch GLOB [REGEXP]": some file matches GLOB (and
// its contents REGEXP). With !, no file does.
func cmdGlobMatch(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: globmatch GLOB [REGEXP]")
	}
	matches, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	var re *regexp.Regexp
	if len(args) == 2 {
		re, err = regexp.Compile(args[1])
		ts.Check(err)
	}
	found := ""
	for _, m := range matches {
		if re == nil || re.MatchString(ts.ReadFile(m)) {
			found = m
			break
		}
	}
	switch {
	case neg && found != "":
		ts.Fatalf("%s matches %s", found, strings.Join(args, " "))
	case !neg && found == "":
		ts.Fatalf("no file matches %s (glob matched %d files)", strings.Join(args, " "), len(matches))
	}
}

// newTestRunCmd builds the run command the way root does.
func newTestRunCmd() *cobra.Command {
	cmd := newRunCmd(&Env{Getenv: func(string) string { return "" }})
	cmd.Flags().SetNormalizeFunc(flagset.Normalize)
	return cmd
}

// TestExampleConfig checks the example docs/examples/config.yaml:
// it parses with run's schema, documents every key (commented out or
// not), and its active values are the built-in defaults.
func TestExampleConfig(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "docs", "examples", "config.yaml")
	schema := flagset.Schema(newTestRunCmd().Flags(), configOnlyFlags)
	f, err := config.Load(path, schema)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range append(schema.KnownKeys(), "courses_dir") {
		re := regexp.MustCompile(`(?m)^\s*#?\s*` + regexp.QuoteMeta(key) + `:`)
		if !re.Match(data) {
			t.Errorf("config.yaml does not mention key %s", key)
		}
	}
	defaults := map[string]string{}
	for _, d := range config.Defaults {
		defaults[d.Key] = d.Value
	}
	for _, s := range f.Benchmark {
		want, ok := defaults[s.Key]
		if !ok || len(s.Values) != 1 || s.Values[0] != want {
			t.Errorf("%s: active %s = %q; active keys must carry the built-in default (%q)", s.Pos, s.Key, s.Values, want)
		}
		delete(defaults, s.Key)
	}
	for k := range defaults {
		t.Errorf("config.yaml does not show the built-in default of %s", k)
	}
}

// TestConfigSchemaCoversRunFlags: every run flag has a config key and each
// key maps back to a flag, so config and flags cannot drift apart.
func TestConfigSchemaCoversRunFlags(t *testing.T) {
	t.Parallel()
	fs := newTestRunCmd().Flags()
	schema := flagset.Schema(fs, configOnlyFlags)
	for key := range schema.Keys {
		name := config.FlagOfKey(key)
		if fs.Lookup(name) == nil {
			t.Errorf("key %s maps to no flag --%s", key, name)
		} else if back := config.KeyOfFlag(name); back != key {
			t.Errorf("key %s -> --%s -> key %s", key, name, back)
		}
	}
	runFlags := 0
	fs.VisitAll(func(fl *pflag.Flag) {
		if !configOnlyFlags[fl.Name] {
			runFlags++
		}
	})
	if got, want := len(schema.Keys), runFlags; got != want {
		t.Errorf("%d config keys for %d run flags", got, want)
	}
	for _, d := range config.Defaults {
		if _, ok := schema.Keys[d.Key]; !ok {
			t.Errorf("built-in default %s is not a key", d.Key)
		}
	}
}

// TestConfigErrorExitCodes: configuration mistakes are bad input (exit 2)
// with a one-line message, in-process.
func TestConfigErrorExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("benchmark:\n  num_prompt: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "courses", "c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("benchmark:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--config", cfg, "--print-command"}, cfg + ":2: unknown key benchmark.num_prompt (did you mean num_prompts?)"},
		{[]string{"run", "--config", good, "--course", "nope", "--print-command"}, `course "nope" not found`},
		{[]string{"run", "--config", good, "--course", "c1", "--print-command"}, `course "c1" has no state file`},
		{[]string{"run", "--print-command", "--", "--num-prompts", "x"}, `after --: invalid argument "x" for --num-prompts`},
		{[]string{"run", "extra"}, `unexpected argument "extra"`},
		{[]string{"run", "--config=", "--print-command"}, "--config needs a file (use --no-config for none)"},
		{[]string{"run", "--config", good, "--print-command", "--", "--self-timed=maybe"}, `after --: invalid argument "maybe" for --self-timed`},
	} {
		var out, errb strings.Builder
		code := Main(t.Context(), "test", tc.args, strings.NewReader(""), &out, &errb)
		msg := strings.TrimSpace(errb.String())
		if code != 2 || !strings.Contains(msg, tc.want) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out.String(), msg, tc.want)
		}
		if lines := strings.Count(msg, "\n"); lines != 0 {
			t.Errorf("%q: %d-line error %q", tc.args, lines+1, msg)
		}
	}
}

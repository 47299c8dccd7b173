package cli

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/worker"
)

// resolvedWorker parses run's flags from args with environment env and
// resolves the worker flags.
func resolvedWorker(t *testing.T, env map[string]string, args ...string) (*runOptions, error) {
	o, _, err := resolvedWorkerCmd(t, env, args...)
	return o, err
}

// resolvedWorkerCmd is resolvedWorker with the command, for its Spec.
func resolvedWorkerCmd(t *testing.T, env map[string]string, args ...string) (*runOptions, *cobra.Command, error) {
	t.Helper()
	o := &runOptions{}
	cmd := &cobra.Command{Use: "run"}
	fs := cmd.Flags()
	bindRunFlags(fs, &o.f)
	bindClosedLoopFlags(fs, &o.f)
	bindMetricsFlags(fs, &o.m)
	o.sm = bindSageMakerFlags(fs)
	bindConfigFlags(fs, o)
	bindWorkerFlags(fs, &o.w)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o, cmd, o.resolveWorker(cmd, &Env{Getenv: func(k string) string { return env[k] }})
}

// specIDPrefix is the request-id prefix of the Spec of run's flags args
// with environment env.
func specIDPrefix(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	o, cmd, err := resolvedWorkerCmd(t, env, args...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := o.spec(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.IDPrefix
}

// TestResolveWorker: the index and count come from the flags, else the
// environment; workers of one workload share the run id and config hash
// whatever their output flags, and another workload or start differs
// (the resolution's own cases: internal/worker).
func TestResolveWorker(t *testing.T) {
	t.Parallel()
	k8s := map[string]string{worker.EnvIndex: "2", worker.EnvCount: "4"}
	at := "--start-at=2026-12-01T15:00:00Z"
	o, err := resolvedWorker(t, k8s, at, "--result-dir", "a")
	if err != nil || o.w.info == nil || o.w.info.Index != 2 || o.w.info.Count != 4 {
		t.Fatalf("from the environment: %+v, %v", o.w.info, err)
	}
	if o.w.index != 2 || o.w.count != 4 {
		// checkRepeat, run again when the plan is built, refuses --runs
		// for an environment's worker count too.
		t.Errorf("index %d count %d after resolution, want the environment's 2 and 4", o.w.index, o.w.count)
	}
	if p := specIDPrefix(t, k8s, at, "--result-dir", "a"); o.resultFilename() != o.w.info.RunID+"-worker-2.json" || p != o.w.r.IDPrefix || p == "" {
		t.Errorf("result file %q, request id prefix %q, want the worker's %q", o.resultFilename(), p, o.w.r.IDPrefix)
	}
	if o.f.resultFilename != "" || o.f.requestIDPrefix != "" {
		t.Errorf("resolveWorker wrote its flags: --result-filename %q --request-id-prefix %q", o.f.resultFilename, o.f.requestIDPrefix)
	}
	given := []string{at, "--result-filename", "mine.json", "--request-id-prefix", "p-"}
	if o, _ := resolvedWorker(t, k8s, given...); o.resultFilename() != "mine.json" || specIDPrefix(t, k8s, given...) != "p-" {
		t.Errorf("flags given: result file %q, request id prefix %q", o.resultFilename(), specIDPrefix(t, k8s, given...))
	}
	other, err := resolvedWorker(t, k8s, at, "--worker-index", "0", "--result-dir", "b", "--save-detailed", "--disable-tqdm")
	if err != nil || other.w.info.Index != 0 {
		t.Fatalf("flag over environment: %+v, %v", other.w.info, err)
	}
	if other.w.info.RunID != o.w.info.RunID || other.w.info.ConfigHash != o.w.info.ConfigHash || other.w.r.IDPrefix != o.w.r.IDPrefix {
		t.Errorf("output flags changed the run: %+v vs %+v", other.w.info, o.w.info)
	}
	for _, args := range [][]string{{at, "--num-prompts", "7"}, {at, "--seed", "1"}, {at, "--request-rate", "3"}} {
		d, err := resolvedWorker(t, k8s, args...)
		if err != nil || d.w.info.ConfigHash == o.w.info.ConfigHash || d.w.info.RunID == o.w.info.RunID {
			t.Errorf("%v: config %s run %s, same as the default workload's (%v)", args, d.w.info.ConfigHash, d.w.info.RunID, err)
		}
	}
	later, _ := resolvedWorker(t, k8s, "--start-at=2026-12-01T16:00:00Z")
	if later.w.info.ConfigHash != o.w.info.ConfigHash || later.w.info.RunID == o.w.info.RunID {
		t.Errorf("another start: config %s run %s", later.w.info.ConfigHash, later.w.info.RunID)
	}
	if single, err := resolvedWorker(t, map[string]string{worker.EnvIndex: "3"}); err != nil || single.w.info != nil {
		t.Errorf("JOB_COMPLETION_INDEX without a count: %+v, %v", single.w.info, err)
	}
}

package k8s

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/llmbench/llmbench/internal/cli"
)

// TestWorkerJobs: the distributed run's manifests (docs/distributed.md)
// fit together: an Indexed Job with completions = parallelism = the
// worker count it passes to llmbench, no retries, the shared volume and
// the run's ConfigMap in both Jobs; and the containers' arguments, with
// Kubernetes' $(VAR) expansion done as the kubelet would, parse as
// llmbench's own command lines (run for the workers, merge for the merge
// step, reading the folder the workers write to).
func TestWorkerJobs(t *testing.T) {
	t.Parallel()
	jobs, pvc, run := manifests(t)
	workers, merge := jobs["llmbench-workers"], jobs["llmbench-merge"]
	if workers == nil || merge == nil {
		t.Fatalf("want the Jobs llmbench-workers and llmbench-merge; got %v", slices.Collect(maps.Keys(jobs)))
	}
	wcmd := workerJob(t, workers, pvc, run, "run", "start-at", "save-detailed", "result-dir")
	mergeJob(t, merge, pvc, run, wcmd)
}

// TestSweepWorkerJobs: the distributed sweep's manifests fit together in
// the same way: an Indexed Job of sweep workers on the clock schedule
// (--start-at and --step-duration given, no --refine), and a merge Job
// reading the folder they write to.
func TestSweepWorkerJobs(t *testing.T) {
	t.Parallel()
	jobs, pvc, run := manifests(t)
	workers, merge := jobs["llmbench-sweep-workers"], jobs["llmbench-sweep-merge"]
	if workers == nil || merge == nil {
		t.Fatalf("want the Jobs llmbench-sweep-workers and llmbench-sweep-merge; got %v", slices.Collect(maps.Keys(jobs)))
	}
	wcmd := workerJob(t, workers, pvc, run, "sweep", "start-at", "step-duration", "result-dir")
	for _, name := range []string{"refine", "stop-when-saturated"} {
		if wcmd.Flags().Changed(name) {
			t.Errorf("sweep workers: --%s is refused in worker mode", name)
		}
	}
	mergeJob(t, merge, pvc, run, wcmd)
}

// manifests decodes every manifest and returns the Jobs by name, the
// results volume claim and the run's ConfigMap.
func manifests(t *testing.T) (map[string]*batchv1.Job, *corev1.PersistentVolumeClaim, *corev1.ConfigMap) {
	t.Helper()
	jobs := map[string]*batchv1.Job{}
	var pvc *corev1.PersistentVolumeClaim
	var run *corev1.ConfigMap
	for _, o := range objects(t) {
		switch o := o.(type) {
		case *batchv1.Job:
			jobs[o.Name] = o
		case *corev1.PersistentVolumeClaim:
			pvc = o
		case *corev1.ConfigMap:
			if o.Name == "llmbench-run" {
				run = o
			}
		}
	}
	if pvc == nil || run == nil {
		t.Fatal("want a PersistentVolumeClaim and the ConfigMap llmbench-run")
	}
	if _, err := time.Parse(time.RFC3339, run.Data["START_AT"]); err != nil || run.Data["RUN_NAME"] == "" {
		t.Errorf("ConfigMap llmbench-run: %v (%v)", run.Data, err)
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("volume %s: access modes %v; worker pods on several nodes need ReadWriteMany", pvc.Name, pvc.Spec.AccessModes)
	}
	return jobs, pvc, run
}

// workerJob checks an Indexed Job of workers (completions = parallelism =
// the worker count it passes to llmbench) whose arguments parse as
// llmbench command with the flags want, and returns the parsed command.
func workerJob(t *testing.T, workers *batchv1.Job, pvc *corev1.PersistentVolumeClaim, run *corev1.ConfigMap, command string, want ...string) *cobra.Command {
	t.Helper()
	s := &workers.Spec
	c := container(t, workers, pvc.Name)
	count, err := strconv.Atoi(envValue(c, "LLMBENCH_WORKER_COUNT"))
	if err != nil || s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion ||
		s.Completions == nil || s.Parallelism == nil || *s.Completions != int32(count) || *s.Parallelism != int32(count) {
		t.Errorf("%s: mode %v, completions %v, parallelism %v, LLMBENCH_WORKER_COUNT %d (%v): want Indexed with all three equal",
			workers.Name, s.CompletionMode, s.Completions, s.Parallelism, count, err)
	}
	wargs := expand(t, c, run)
	wcmd := parse(t, wargs, command)
	for _, name := range want {
		if !wcmd.Flags().Changed(name) {
			t.Errorf("%s: --%s not given (args %v)", workers.Name, name, wargs)
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, wcmd.Flags().Lookup("start-at").Value.String()); err != nil {
		t.Errorf("%s: --start-at: %v", workers.Name, err)
	}
	return wcmd
}

// mergeJob checks that the merge Job reads the folder the workers write
// to and writes -o.
func mergeJob(t *testing.T, merge *batchv1.Job, pvc *corev1.PersistentVolumeClaim, run *corev1.ConfigMap, workers *cobra.Command) {
	t.Helper()
	margs := expand(t, container(t, merge, pvc.Name), run)
	mcmd := parse(t, margs, "merge")
	dir := workers.Flags().Lookup("result-dir").Value.String()
	if len(mcmd.Flags().Args()) != 1 || mcmd.Flags().Args()[0] != dir || !mcmd.Flags().Changed("output") {
		t.Errorf("%s reads %v and writes -o %v; the workers write to %s", merge.Name, mcmd.Flags().Args(), mcmd.Flags().Changed("output"), dir)
	}
}

// container checks the pod template's retry policy and volume and
// returns its one container.
func container(t *testing.T, j *batchv1.Job, claim string) *corev1.Container {
	t.Helper()
	p := &j.Spec.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever || j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
		t.Errorf("%s: restart policy %s, backoff limit %v: a retried pod would run late or twice", j.Name, p.RestartPolicy, j.Spec.BackoffLimit)
	}
	if len(p.Containers) != 1 || len(p.Volumes) != 1 || p.Volumes[0].PersistentVolumeClaim == nil ||
		p.Volumes[0].PersistentVolumeClaim.ClaimName != claim {
		t.Fatalf("%s: want one container and the volume claim %s", j.Name, claim)
	}
	return &p.Containers[0]
}

// envValue is the literal value of a container's variable.
func envValue(c *corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces $(VAR) in the container's arguments with the variable's
// value (literal, or from the run's ConfigMap), as the kubelet does.
func expand(t *testing.T, c *corev1.Container, run *corev1.ConfigMap) []string {
	t.Helper()
	vals := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			vals[e.Name] = e.Value
		case e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name == run.Name:
			v, ok := run.Data[e.ValueFrom.ConfigMapKeyRef.Key]
			if !ok {
				t.Errorf("%s: %s reads key %s, which ConfigMap %s lacks", c.Name, e.Name, e.ValueFrom.ConfigMapKeyRef.Key, run.Name)
			}
			vals[e.Name] = v
		}
	}
	args := slices.Clone(c.Args)
	for i, a := range args {
		args[i] = varRef.ReplaceAllStringFunc(a, func(ref string) string {
			name := varRef.FindStringSubmatch(ref)[1]
			v, ok := vals[name]
			if !ok {
				t.Errorf("%s: argument %q uses $(%s), which the container does not define", c.Name, a, name)
			}
			return v
		})
	}
	return args
}

// parse parses args with llmbench's own command tree and checks they
// name the subcommand want.
func parse(t *testing.T, args []string, want string) *cobra.Command {
	t.Helper()
	root := cli.NewRootCmd(&cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: func(string) string { return "" }})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != want {
		t.Fatalf("%v: command %v (%v), want llmbench %s", args, cmd.Name(), err, want)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("llmbench %s %s: %v", want, strings.Join(rest, " "), err)
	}
	return cmd
}

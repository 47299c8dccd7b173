// Package k8s holds example Kubernetes manifests; its test decodes every
// document strictly into the Kubernetes API types, offline.
package k8s

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/llmbench/llmbench/internal/promexport/querynames"
	"github.com/llmbench/llmbench/internal/sim"
)

// decodeStrict turns one YAML document into JSON (duplicate keys are an
// error) and decodes it into v, rejecting unknown fields.
func decodeStrict(doc []byte, v any) error {
	j, err := sigsyaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// docSep splits a YAML stream into documents.
var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// objects decodes every document of every manifest in this directory
// into its typed Kubernetes object.
func objects(t *testing.T) []any {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests (%v)", err)
	}
	var out []any
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSep.Split(string(b), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var tm struct{ APIVersion, Kind string }
			if err := sigsyaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			var obj any
			switch tm.APIVersion + " " + tm.Kind {
			case "autoscaling/v2 HorizontalPodAutoscaler":
				obj = &autoscalingv2.HorizontalPodAutoscaler{}
			case "v1 ConfigMap":
				obj = &corev1.ConfigMap{}
			case "v1 PersistentVolumeClaim":
				obj = &corev1.PersistentVolumeClaim{}
			case "batch/v1 Job":
				obj = &batchv1.Job{}
			default:
				t.Fatalf("%s #%d: %s %s: add its type to this test", f, i, tm.APIVersion, tm.Kind)
			}
			if err := decodeStrict([]byte(doc), obj); err != nil {
				t.Fatalf("%s #%d (%s): %v", f, i, tm.Kind, err)
			}
			out = append(out, obj)
		}
	}
	return out
}

func stripComments(doc string) string {
	var b strings.Builder
	for line := range strings.Lines(doc) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// adapterConfig is prometheus-adapter's configuration file (the part
// used here), decoded with unknown fields rejected.
type adapterConfig struct {
	Rules []struct {
		SeriesQuery string `yaml:"seriesQuery"`
		Resources   struct {
			Overrides map[string]struct {
				Resource string `yaml:"resource"`
			} `yaml:"overrides"`
		} `yaml:"resources"`
		Name struct {
			Matches string `yaml:"matches"`
			As      string `yaml:"as"`
		} `yaml:"name"`
		MetricsQuery string `yaml:"metricsQuery"`
	} `yaml:"rules"`
}

// simMetricNames are the metric names the simulator exposes (vLLM's).
func simMetricNames(t *testing.T) []string {
	t.Helper()
	s, err := sim.New(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := httptest.NewRecorder()
	s.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var names []string
	for line := range strings.Lines(rec.Body.String()) {
		if name, _, ok := strings.Cut(line, "{"); ok && !strings.HasPrefix(line, "#") {
			names = append(names, name)
		}
	}
	return names
}

// TestManifests: every document decodes strictly; the autoscaler scales
// a Deployment on exactly the metric the adapter rule defines; the rule
// reads metrics a vLLM server (and the simulator) exposes, per pod.
func TestManifests(t *testing.T) {
	t.Parallel()
	var hpas []*autoscalingv2.HorizontalPodAutoscaler
	var adapter *adapterConfig
	for _, o := range objects(t) {
		switch o := o.(type) {
		case *autoscalingv2.HorizontalPodAutoscaler:
			hpas = append(hpas, o)
		case *corev1.ConfigMap:
			if _, ok := o.Data["config.yaml"]; !ok {
				continue // not prometheus-adapter's (llmbench-run: TestWorkerJobs)
			}
			var c adapterConfig
			dec := yaml.NewDecoder(strings.NewReader(o.Data["config.yaml"]))
			dec.KnownFields(true)
			if err := dec.Decode(&c); err != nil {
				t.Fatalf("ConfigMap %s config.yaml: %v", o.Name, err)
			}
			adapter = &c
		}
	}
	if len(hpas) != 1 || adapter == nil || len(adapter.Rules) == 0 {
		t.Fatalf("%d autoscalers and adapter %v; want one of each", len(hpas), adapter != nil)
	}
	hpa := hpas[0]
	if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" {
		t.Errorf("scale target %+v, want an apps/v1 Deployment", ref)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 1 || *hpa.Spec.MinReplicas > hpa.Spec.MaxReplicas {
		t.Errorf("replicas %v..%d", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	var defined []string
	sims := simMetricNames(t)
	for _, r := range adapter.Rules {
		defined = append(defined, r.Name.As)
		if r.Resources.Overrides["pod"].Resource != "pod" {
			t.Errorf("rule %s is not per pod", r.Name.As)
		}
		q := strings.NewReplacer("<<.GroupBy>>", "pod", "<<.LabelMatchers>>", `pod="x"`).Replace(r.MetricsQuery)
		for _, expr := range []string{r.SeriesQuery, q} {
			names := querynames.Metrics(expr)
			if len(names) == 0 {
				t.Errorf("rule %s: no metric in %q", r.Name.As, expr)
			}
			for _, n := range names {
				if !slices.Contains(sims, n) {
					t.Errorf("rule %s reads %s, which neither vLLM's names in the simulator nor %v have", r.Name.As, n, sims)
				}
			}
		}
	}
	for _, m := range hpa.Spec.Metrics {
		if m.Type != autoscalingv2.PodsMetricSourceType || m.Pods == nil {
			t.Errorf("metric %+v: want a Pods metric", m)
			continue
		}
		if !slices.Contains(defined, m.Pods.Metric.Name) {
			t.Errorf("autoscaler scales on %s; the adapter defines %v", m.Pods.Metric.Name, defined)
		}
		if v := m.Pods.Target.AverageValue; v == nil || v.Sign() <= 0 {
			t.Errorf("target %v, want a positive averageValue", v)
		}
	}
}

// TestStrictDecodeRejectsTypos: the check above would catch a misspelt
// field (the reason to decode strictly).
func TestStrictDecodeRejectsTypos(t *testing.T) {
	t.Parallel()
	doc := "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nspec:\n  maxReplica: 3\n"
	if err := decodeStrict([]byte(doc), &autoscalingv2.HorizontalPodAutoscaler{}); err == nil || !strings.Contains(err.Error(), "maxReplica") {
		t.Errorf("typo accepted (err %v)", err)
	}
}

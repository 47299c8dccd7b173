package servermetrics

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
)

// conformance is the shared folder of the families real servers expose.
const conformance = "../../../shared/conformance/server-metrics"

// readFamilies reads a "name type" list, skipping comments.
func readFamilies(t *testing.T, file string) [][2]string {
	t.Helper()
	f, err := os.Open(filepath.Join(conformance, file))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("conformance data not available (CI runs with ../shared beside the clone): %v", err)
		}
		t.Skipf("NOT TESTED: conformance data not available (../shared beside the clone): %v", err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, typ, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: bad line %q", file, line)
		}
		out = append(out, [2]string{name, typ})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// exposition synthesises a scrape with one series of every family, in
// the Prometheus text format or in OpenMetrics 1.0 (where a counter's
// TYPE line drops the _total its samples carry).
func exposition(fams [][2]string, openMetrics bool) string {
	var b strings.Builder
	for _, f := range fams {
		name, typ := f[0], f[1]
		declared := name
		if openMetrics && typ == TypeCounter {
			declared = strings.TrimSuffix(name, "_total")
			if declared == name { // TGI-style counter without _total
				name += "_total"
			}
		}
		fmt.Fprintf(&b, "# HELP %s Something.\n# TYPE %s %s\n", declared, declared, typ)
		switch typ {
		case TypeHistogram:
			for _, le := range []string{"0.1", "1", "+Inf"} {
				fmt.Fprintf(&b, "%s_bucket{model_name=\"m\",le=\"%s\"} 3\n", name, le)
			}
			fmt.Fprintf(&b, "%s_count{model_name=\"m\"} 3\n%s_sum{model_name=\"m\"} 0.5\n", name, name)
		default:
			fmt.Fprintf(&b, "%s{model_name=\"m\"} 7\n", name)
			if openMetrics && typ == TypeCounter {
				fmt.Fprintf(&b, "%s_created{model_name=\"m\"} 1.7e9\n", strings.TrimSuffix(name, "_total"))
			}
		}
	}
	if openMetrics {
		b.WriteString("# EOF\n")
	}
	return b.String()
}

// TestConformanceFamilies parses a synthesised exposition of every family
// vLLM v0.26.0, SGLang v0.5.17 and TGI v3.3.7 expose (text format and
// OpenMetrics) and checks each is kept, with its type.
func TestConformanceFamilies(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"vllm-v0.26.0.families.txt", "sglang-v0.5.17.families.txt", "tgi-v3.3.7.families.txt"} {
		fams := readFamilies(t, file)
		for _, om := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/openmetrics=%v", file, om), func(t *testing.T) {
				format := expfmt.NewFormat(expfmt.TypeTextPlain)
				if om {
					format = expfmt.NewFormat(expfmt.TypeOpenMetrics)
				}
				got, err := parse(strings.NewReader(exposition(fams, om)), format, func(n string) bool { _, ok := Known[n]; return ok })
				if err != nil {
					t.Fatal(err)
				}
				types := map[string]string{}
				for _, s := range got.series {
					types[s.family] = s.typ
				}
				for _, f := range fams {
					name := f[0] // OpenMetrics' TGI counters (tgi_request_count_total) come back under their text-format names
					if want, ok := Known[f[0]]; !ok || want != f[1] {
						t.Errorf("%s: Known says %q, the server declares %q", f[0], want, f[1])
					}
					if types[name] != f[1] {
						t.Errorf("%s: parsed as %q, want %q", name, types[name], f[1])
					}
				}
			})
		}
	}
}

// TestRenamedFamilies: vLLM's old and new names land on one family and
// one summary key.
func TestRenamedFamilies(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"},
		{"vllm:time_per_output_token_seconds", "vllm:inter_token_latency_seconds"},
		{"vllm:gpu_prefix_cache_hits_total", "vllm:prefix_cache_hits_total"},
		{"vllm:gpu_prefix_cache_queries_total", "vllm:prefix_cache_queries_total"},
	}
	for _, p := range pairs {
		if Canonical(p[0]) != p[1] || Canonical(p[1]) != p[1] {
			t.Errorf("Canonical(%s) = %s, Canonical(%s) = %s; want both %s", p[0], Canonical(p[0]), p[1], Canonical(p[1]), p[1])
		}
		if Known[p[0]] != Known[p[1]] {
			t.Errorf("%s is %s but %s is %s", p[0], Known[p[0]], p[1], Known[p[1]])
		}
	}
	for _, old := range []bool{false, true} {
		kv, hits, queries, itl := "vllm:kv_cache_usage_perc", "vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total", "vllm:inter_token_latency_seconds"
		if old {
			kv, hits, queries, itl = "vllm:gpu_cache_usage_perc", "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_queries_total", "vllm:time_per_output_token_seconds"
		}
		scrape := func(u, h, q float64) string {
			return fmt.Sprintf("# TYPE %s gauge\n%s %v\n# TYPE %s counter\n%s %v\n# TYPE %s counter\n%s %v\n# TYPE %s histogram\n%s_bucket{le=\"0.05\"} %v\n%s_bucket{le=\"+Inf\"} %v\n%s_count %v\n%s_sum %v\n",
				kv, kv, u, hits, hits, h, queries, queries, q, itl, itl, q, itl, q, itl, q, itl, q/100)
		}
		res := feed(t, []string{"u"}, map[string][]timed{"u": {{sec(0), scrape(0.1, 0, 0)}, {sec(1), scrape(0.7, 30, 120)}}}, sec(0), sec(1))
		if v := res.Summary.KVCacheUsageMax; v == nil || *v != 0.7 {
			t.Errorf("old=%v: kv_cache_usage_max = %v, want 0.7", old, v)
		}
		if v := res.Summary.PrefixCacheHitRate; v == nil || *v != 0.25 {
			t.Errorf("old=%v: prefix_cache_hit_rate = %v, want 0.25", old, v)
		}
		f, ok := res.Families["vllm:inter_token_latency_seconds"]
		if !ok || f.Series[0].Count == nil || *f.Series[0].Count != 120 {
			t.Errorf("old=%v: ITL family %+v", old, f)
		}
		if old && f.ExposedAs != itl || !old && f.ExposedAs != "" {
			t.Errorf("old=%v: exposed_as %q", old, f.ExposedAs)
		}
	}
}

// FuzzParse: whatever a server answers, parse returns an error or series
// whose histograms have as many values as bounds plus count and sum, and
// never panics (the OpenMetrics counter repair rewrites expfmt's output).
func FuzzParse(f *testing.F) {
	f.Add("# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 3\n", false)
	f.Add("# TYPE vllm:num_preemptions counter\nvllm:num_preemptions_total 2\nvllm:num_preemptions_created 1\n# EOF\n", true)
	f.Add("# TYPE tgi_request_count counter\ntgi_request_count_total 2\n# EOF\n", true)
	f.Add("# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"1\"} 1\nvllm:e2e_request_latency_seconds_count 1\nvllm:e2e_request_latency_seconds_sum 0.5\n", false)
	f.Add("{\"not\": \"metrics\"}", false)
	f.Fuzz(func(t *testing.T, body string, om bool) {
		format := expfmt.NewFormat(expfmt.TypeTextPlain)
		if om {
			format = expfmt.NewFormat(expfmt.TypeOpenMetrics)
		}
		got, err := parse(strings.NewReader(body), format, func(string) bool { return true })
		if err != nil {
			return
		}
		for _, s := range got.series {
			if s.typ == TypeHistogram && len(s.p.vals) != len(s.les)+2 {
				t.Fatalf("%s: %d values for %d bounds", s.family, len(s.p.vals), len(s.les))
			}
			if s.typ != TypeHistogram && len(s.p.vals) != 1 {
				t.Fatalf("%s: %d values", s.family, len(s.p.vals))
			}
		}
	})
}

// TestExtraFamilies: --server-metric NAME keeps a family the collector
// does not know (an untyped one is summarised as a gauge); unknown
// families are dropped.
func TestExtraFamilies(t *testing.T) {
	t.Parallel()
	c := &Collector{keep: map[string]bool{"my_queue_depth": true}}
	ep := &endpoint{shown: "u", series: map[string]*series{}}
	c.eps = []*endpoint{ep}
	for i, v := range []int{3, 5} {
		got, err := parse(strings.NewReader(fmt.Sprintf("my_queue_depth %d\nother_thing 1\n", v)), expfmt.NewFormat(expfmt.TypeTextPlain), c.keeps)
		if err != nil {
			t.Fatal(err)
		}
		c.record(ep, sec(float64(i)), got)
	}
	c.mark, c.end = sec(0), sec(1)
	res := c.summarize()
	f, ok := res.Families["my_queue_depth"]
	if !ok || f.Type != TypeUntyped || *f.Series[0].Mean != 4 || len(f.Series[0].Samples) != 2 {
		t.Errorf("my_queue_depth: %+v", f)
	}
	if _, ok := res.Families["other_thing"]; ok || len(res.Families) != 1 {
		t.Errorf("families %v: want only my_queue_depth", res.Families)
	}
}

package htmlreport

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/llmbench/llmbench/internal/golden"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// conformanceDir holds vLLM's conformance vectors: records (input) and
// what vLLM saved for them (expected).
const conformanceDir = "../../testdata/conformance/metrics"

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got, *update)
}

// vllmResult writes what vLLM saved for a conformance vector into dir
// and returns its path; summary drops the per-request arrays (as vLLM's
// newer versions do without --save-detailed).
func vllmResult(t *testing.T, dir, vector string, summary bool) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformanceDir, vector+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp struct {
		SaveResult json.RawMessage `json:"save_result"`
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	out := exp.SaveResult
	name := vector + ".vllm.json"
	if summary {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"input_lens", "output_lens", "ttfts", "itls", "start_times", "generated_texts", "errors"} {
			delete(m, k)
		}
		if out, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		name = vector + ".vllm-summary.json"
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// detailedResult writes llmbench's result JSON with the per-request
// arrays (--save-detailed) for a conformance vector, and no records file
// beside it, so the arrays are what the page reads.
func detailedResult(t *testing.T, dir, vector string) string {
	t.Helper()
	p, recs, _, err := record.ReadFile(filepath.Join(conformanceDir, vector+".input.json"))
	if err != nil {
		t.Fatal(err)
	}
	mp, err := metrics.ParamsFrom(&p, metrics.Whitespace{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.WriteResult(&buf, s, &p, recs, report.ResultOptions{Detailed: true, Extras: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, vector+".detailed.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPageGolden checks the data behind every chart and table of each
// page kind (not pixels).
func TestPageGolden(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := func(v string) string { return filepath.Join(conformanceDir, v+".input.json") }
	bound, err := report.ParseBound("p99_ttft_ms>+10%")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		paths []string
		opt   Options
	}{
		{"run-records", []string{in("failures_concurrency")}, Options{}},                    // failures by class, queue times
		{"run-slo", []string{in("goodput_slos")}, Options{}},                                // SLO lines
		{"run-vllm", []string{vllmResult(t, dir, "basic_stream", false)}, Options{}},        // vLLM's arrays
		{"run-vllm-summary", []string{vllmResult(t, dir, "goodput_slos", true)}, Options{}}, // no per-request data: percentile profile
		{"run-arrays", []string{detailedResult(t, dir, "skewed_itl")}, Options{}},
		{"compare", []string{in("basic_stream"), in("skewed_itl"), vllmResult(t, dir, "bursts_peak", true)}, Options{Bounds: []report.Bound{bound}}},
		{"sweep", []string{filepath.Join("testdata", "sweep-synthetic.json")}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Build(tt.paths, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := pageData(t, p)
			got = bytes.ReplaceAll(got, []byte(dir+string(filepath.Separator)), nil)
			golden(t, tt.name+".golden", got)
		})
	}
}

// pageData is a page's golden form: the text report (notes, tables,
// text histograms), then each chart's data as one JSON line.
func pageData(t *testing.T, p *Page) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteText(&buf, p); err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Sections {
		for _, c := range s.Charts {
			line, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			buf.WriteString("\n--- chart " + c.ID + "\n")
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes()
}

// TestChartDataMatchesMetrics: the chart data derived from per-request
// data agrees with the figures vLLM's rules give (the result's peaks and
// medians), whether it comes from records or from the result's arrays.
func TestChartDataMatchesMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, v := range []string{"basic_stream", "bursts_peak", "failures_concurrency", "goodput_slos", "skewed_itl"} {
		for _, path := range []string{filepath.Join(conformanceDir, v+".input.json"), detailedResult(t, dir, v)} {
			in, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			run := in.Run
			tok, fl := Buckets(run.Requests)
			maxOf := func(xs []int) float64 {
				m := 0
				for _, x := range xs {
					m = max(m, x)
				}
				return float64(m)
			}
			for key, got := range map[string]float64{"max_output_tokens_per_s": maxOf(tok), "max_concurrent_requests": maxOf(fl)} {
				if want, _ := run.Result.Number(key); got != want {
					t.Errorf("%s: peak bucket %s = %v, result says %v", path, key, got, want)
				}
			}
			ms := []string{"ttft", "itl", "e2el", "tpot"}
			if strings.HasSuffix(path, ".detailed.json") {
				// The arrays carry no latency: E2EL is TTFT + the ITLs,
				// which the synthetic vectors do not keep equal to their
				// latency (a real stream does).
				ms = ms[:2]
			}
			for _, m := range ms {
				want, ok := run.Result.Number("median_" + m + "_ms")
				if !ok {
					continue
				}
				if got := median(MetricValues(run.Requests, m)); math.Abs(got-want) > 1e-6*math.Max(1, want) {
					t.Errorf("%s: median %s from the chart data %v, result %v", path, m, got, want)
				}
			}
		}
	}
}

// TestHistogramAndCDF checks the binning and CDF sampling rules.
func TestHistogramAndCDF(t *testing.T) {
	t.Parallel()
	bars := Histogram([]float64{0, 1, 2, 3, 30})
	if len(bars) != histBins || bars[0].Count != 1 || bars[histBins-1].Count != 1 || bars[histBins-1].Max != 30 {
		t.Errorf("bars = %+v", bars)
	}
	total := 0
	for _, b := range bars {
		total += b.Count
	}
	if total != 5 {
		t.Errorf("bars hold %d values, want 5", total)
	}
	if b := Histogram([]float64{7, 7}); len(b) != 1 || b[0].Count != 2 || !(b[0].Min < 7 && b[0].Max > 7) {
		t.Errorf("equal values: %+v", b)
	}
	vals := make([]float64, 1000)
	for i := range vals {
		vals[len(vals)-1-i] = float64(i)
	}
	c := CDF(vals)
	if len(c) != cdfPoints || c[0] != [2]float64{0, 0.1} || c[len(c)-1] != [2]float64{999, 100} {
		t.Errorf("CDF has %d points, first %v, last %v", len(c), c[0], c[len(c)-1])
	}
}

// TestHTMLSelfContained: the page is one HTML document that fetches
// nothing: no src or href attribute, no url(), no http(s) address except
// the SVG namespace names, a CSP that forbids loading, and one inline SVG
// with data per chart.
func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths := [][]string{
		{filepath.Join(conformanceDir, "failures_concurrency.input.json")},
		{filepath.Join(conformanceDir, "basic_stream.input.json"), vllmResult(t, dir, "skewed_itl", true)},
		{filepath.Join("testdata", "sweep-synthetic.json")},
	}
	for _, ps := range paths {
		p, err := Build(ps, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteHTML(&buf, p); err != nil {
			t.Fatal(err)
		}
		checkSelfContained(t, buf.String(), p)
	}
}

var (
	fetchRE     = regexp.MustCompile(`(?i)\b(src|href|srcset|action|poster|data)\s*=|url\(|@import|<script|<link|<iframe|<object|<embed`)
	httpRE      = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}[^\s"'<]*`)
	namespaceOK = map[string]bool{"http://www.w3.org/2000/svg": true, "http://www.w3.org/1999/xlink": true}
	pointsRE    = regexp.MustCompile(`data-points="(\d+)"`)
)

// checkSelfContained fails t when html could load anything or lacks a
// chart of p.
func checkSelfContained(t *testing.T, html string, p *Page) {
	t.Helper()
	if n := strings.Count(html, "<html"); n != 1 {
		t.Errorf("%d <html> elements", n)
	}
	if !strings.Contains(html, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
		t.Error("no Content-Security-Policy forbidding loads")
	}
	if m := fetchRE.FindString(html); m != "" {
		t.Errorf("the page can fetch something: %q", m)
	}
	for _, u := range httpRE.FindAllString(html, -1) {
		if !namespaceOK[u] && !strings.HasPrefix(u, "//gonum.org") {
			t.Errorf("the page names an address: %q", u)
		}
	}
	charts := 0
	for _, s := range p.Sections {
		charts += len(s.Charts)
	}
	if got := strings.Count(html, "<svg"); got != charts {
		t.Errorf("%d <svg> elements, want one per chart (%d)", got, charts)
	}
	for _, m := range pointsRE.FindAllStringSubmatch(html, -1) {
		if n, _ := strconv.Atoi(m[1]); n == 0 {
			t.Errorf("a chart without data: %s", m[0])
		}
	}
}

// TestSLOWithin: a SLO near the values is drawn; one far beyond them is
// named in a note instead of squeezing the histogram.
func TestSLOWithin(t *testing.T) {
	t.Parallel()
	slo := map[string]float64{"ttft": 500}
	if m, note := sloWithin(slo, "ttft", []float64{100, 300}); len(m) != 1 || m[0].At != 500 || note != "" {
		t.Errorf("near SLO: %v %q", m, note)
	}
	if m, note := sloWithin(slo, "ttft", []float64{10, 120}); len(m) != 0 || !strings.Contains(note, "500 ms") {
		t.Errorf("far SLO: %v %q", m, note)
	}
	if m, note := sloWithin(slo, "tpot", []float64{10}); len(m) != 0 || note != "" {
		t.Errorf("no SLO for tpot: %v %q", m, note)
	}
}

// TestWriteRun: the in-memory entry point gives the page a records file
// gives, plus the extra sections passed in.
func TestWriteRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(conformanceDir, "goodput_slos.input.json")
	p, recs, _, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := metrics.ParamsFrom(&p, metrics.Whitespace{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]any{
		"cost":      map[string]any{"instance_type": "ml.g5.xlarge", "usd_per_1m_output_tokens": 2.5},
		"sagemaker": map[string]any{"endpoint_name": "demo"},
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, path, s, &p, recs, extra, Options{}); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"<h3>Cost</h3>", "usd_per_1m_output_tokens", "<h3>SageMaker</h3>", "SLO TTFT"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	fromFile, err := Build([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := NewRun(path, s, &p, recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	inMemory := runSection(run)
	if d := cmp.Diff(fromFile.Sections[0].Tables, inMemory.Tables); d != "" {
		t.Errorf("tables differ between the records file and the run in memory:\n%s", d)
	}
	if d := cmp.Diff(fromFile.Sections[0].Charts, inMemory.Charts); d != "" {
		t.Errorf("charts differ between the records file and the run in memory:\n%s", d)
	}
	checkSelfContained(t, html, &Page{Sections: []Section{inMemory}})
}

// TestDegenerateInputs: odd but valid files give a page, not an error or
// a panic: every request failed, a single request, a result with only
// the counts.
func TestDegenerateInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	one := 1
	params := record.Params{DurationS: 2, RequestRate: record.Inf, Burstiness: 1, Tokenizer: record.TokenizerWhitespace}
	write := func(name string, recs []record.Record) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := record.WriteJSONLines(f, params, recs); err != nil {
			t.Fatal(err)
		}
		return path
	}
	failed := write("failed.records.jsonl", []record.Record{
		{Index: 0, StartTime: 0, Error: "refused", ErrorClass: record.ErrConnection},
		{Index: 1, StartTime: 0.5, Error: "404", ErrorClass: record.ErrHTTP4xx, HTTPStatus: 404},
	})
	single := write("single.records.jsonl", []record.Record{
		{Index: 0, Success: true, PromptLen: 3, OutputTokens: &one, TTFT: 0.1, Latency: 0.1, StartTime: 0, GeneratedText: "x"},
	})
	counts := filepath.Join(dir, "counts.json")
	if err := os.WriteFile(counts, []byte(`{"duration": 1.0, "completed": 3, "failed": 0, "std_ttft_ms": NaN}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{failed}, {single}, {counts}, {failed, single, counts}} {
		p, err := Build(paths, Options{})
		if err != nil {
			t.Fatalf("%v: %v", paths, err)
		}
		var html, text bytes.Buffer
		if err := WriteHTML(&html, p); err != nil {
			t.Fatalf("%v: %v", paths, err)
		}
		if err := WriteText(&text, p); err != nil {
			t.Fatalf("%v: %v", paths, err)
		}
		checkSelfContained(t, html.String(), p)
	}
	p, err := Build([]string{failed}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl := p.Sections[0].Charts
	if len(tl) != 1 || tl[0].ID != "timeline" || len(tl[0].Points) != 2 || tl[0].Points[1].Label != record.ErrHTTP4xx {
		t.Errorf("all-failed run: want only the timeline with two failures, got %+v", tl)
	}
}

// TestPerUserTPSMarksNumPyExact: the P10/P50/P90 marks use metrics'
// percentile, NumPy's arithmetic: np.percentile([2, 15], 90) = 13.7,
// where the chart's own a+(b-a)g copy gave 13.700000000000001.
func TestPerUserTPSMarksNumPyExact(t *testing.T) {
	run := &Run{Requests: []Request{
		{OK: true, TTFT: 0, E2EL: 1, OutputLen: 2},
		{OK: true, TTFT: 0, E2EL: 1, OutputLen: 15},
	}}
	c := PerUserTPSChart(run)
	if c == nil {
		t.Fatal("no chart")
	}
	want := []float64{3.3, 8.5, 13.7}
	for i, m := range c.VMarks {
		if i < len(want) && m.At != want[i] {
			t.Errorf("mark %s at %v, want %v", m.Label, m.At, want[i])
		}
	}
	if len(c.VMarks) != len(want) {
		t.Errorf("%d marks, want %d", len(c.VMarks), len(want))
	}
}

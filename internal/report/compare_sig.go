package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/stats"
)

// Significance in compare (docs/confidence.md, "compare"): a change is
// called only when it is unlikely to be noise. Per-request figures (mean,
// median and percentiles of TTFT, TPOT, ITL and E2EL) of two files that
// both carry per-request data are judged by a seeded bootstrap of the
// requests; figures with one value per run by a Mann–Whitney U test over
// the runs each file holds (llmbench.runs), never with fewer than
// stats.MinRuns a side. A figure neither test can reach keeps its plain
// Δ%, as before.

// DefaultAlpha is compare's --alpha: a change is significant when its
// p-value is under it.
const DefaultAlpha = 0.05

// RunsKey is the key, inside the ExtrasKey object, of a result's per-run
// figures when it stands for K repeated runs: an array of K objects with
// the result's numeric keys (request_throughput, p99_ttft_ms, ...).
const RunsKey = "runs"

// Test methods a Significance names.
const (
	MethodBootstrap   = "bootstrap"
	MethodMannWhitney = "mann-whitney"
)

// Significance is the verdict on one figure's change from the first file
// to another.
type Significance struct {
	// Method is MethodBootstrap or MethodMannWhitney.
	Method string
	// P is the two-sided p-value; NaN when Refused.
	P float64
	// Significant is P < alpha.
	Significant bool
	// Refused is set when the runs are too few to call a change (fewer
	// than stats.MinRuns a side): the change is shown as not significant.
	Refused string
	// RelLow and RelHigh bound the bootstrap interval of the relative
	// change (0.03 = +3 %); NaN when there is none (Mann–Whitney).
	RelLow, RelHigh float64
}

// Mark is the Δ cell's suffix: " (p=0.003)" for a significant change,
// " ~" for one that is not.
func (s Significance) Mark() string {
	if s.Significant {
		return fmt.Sprintf(" (p=%.3f)", s.P)
	}
	return " ~"
}

// CompareOptions configure the significance tests of a comparison.
type CompareOptions struct {
	// Alpha is the significance level; 0 = DefaultAlpha; 1 or more turns
	// the tests off (plain thresholds, plain Δ%).
	Alpha float64
	// Bootstrap configures the resampling (seed, resamples); zero values
	// take stats' defaults.
	Bootstrap stats.BootstrapOptions
}

// Comparison is a set of result files with the significance of each
// figure's change against the first.
type Comparison struct {
	Files []*CompareFile
	// Alpha is the level the changes were judged at; ≥ 1 = not judged.
	Alpha float64
	// Resamples is the bootstrap's resample count.
	Resamples int
	sig       map[string]Significance // "i key"
}

// NewComparison judges the change of every present figure of files[1:]
// against files[0]. Files without per-request data or runs leave their
// figures unjudged; so does o.Alpha ≥ 1.
func NewComparison(files []*CompareFile, o CompareOptions) *Comparison {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Bootstrap.Resamples <= 0 {
		o.Bootstrap.Resamples = stats.DefaultResamples
	}
	c := &Comparison{Files: files, Alpha: o.Alpha, Resamples: o.Bootstrap.Resamples, sig: map[string]Significance{}}
	if o.Alpha >= 1 || len(files) < 2 {
		return c
	}
	rows := PresentRows(files)
	// Per metric, the percentiles shown (median as 0.5); the mean comes
	// first in every Sample.Stats output.
	type metricStats struct {
		m    string
		keys []string
		qs   []float64
	}
	var wanted []metricStats
	for _, m := range latencyMetrics {
		ms := metricStats{m: m}
		for _, row := range rows {
			if mm, q, ok := rowStat(row.Key); ok && mm == m && !math.IsNaN(q) {
				ms.keys = append(ms.keys, row.Key)
				ms.qs = append(ms.qs, q)
			}
		}
		wanted = append(wanted, ms)
	}
	base := files[0].samples()
	for i := 1; i < len(files); i++ {
		f := files[i]
		other := f.samples()
		if base != nil && other != nil {
			// One resample of the requests serves every metric: the units
			// are requests throughout (a one-token request has no TPOT, so
			// its TPOT group is empty), so draws are shared.
			var use []metricStats
			var statsA, statsB []stats.WeightedStat
			k := 0
			for _, ms := range wanted {
				a, b := base.of(ms.m), other.of(ms.m)
				if a.Len() == 0 || b.Len() == 0 {
					continue
				}
				use = append(use, ms)
				statsA = append(statsA, a.Stats(ms.qs))
				statsB = append(statsB, b.Stats(ms.qs))
				k += 1 + len(ms.qs)
			}
			joined := func(parts []stats.WeightedStat) stats.WeightedStat {
				return func(w []int, out []float64) {
					off := 0
					for j, ms := range use {
						n := 1 + len(ms.qs)
						parts[j](w, out[off:off+n])
						off += n
					}
				}
			}
			if k > 0 {
				diffs, ok := stats.BootstrapDiff(base.units, other.units, k, joined(statsA), joined(statsB), o.Bootstrap)
				off := 0
				for _, ms := range use {
					if !ok {
						break
					}
					put := func(key string, d stats.Diff) {
						if math.IsNaN(d.P) {
							return
						}
						c.sig[sigKey(i, key)] = Significance{Method: MethodBootstrap, P: d.P, Significant: d.P < o.Alpha, RelLow: d.RelLow, RelHigh: d.RelHigh}
					}
					put("mean_"+ms.m+"_ms", diffs[off])
					for j, key := range ms.keys {
						put(key, diffs[off+1+j])
					}
					off += 1 + len(ms.qs)
				}
			}
		}
		ra, rb := files[0].runs(), f.runs()
		if ra == nil || rb == nil {
			continue
		}
		for _, row := range rows {
			if _, done := c.sig[sigKey(i, row.Key)]; done {
				continue
			}
			va, vb := runValues(ra, row.Key), runValues(rb, row.Key)
			if len(va) < 2 && len(vb) < 2 {
				continue
			}
			s := Significance{Method: MethodMannWhitney, P: math.NaN(), RelLow: math.NaN(), RelHigh: math.NaN()}
			if t, ok := stats.MannWhitney(va, vb); ok {
				s.P, s.Significant = t.P, t.P < o.Alpha
			} else {
				s.Refused = fmt.Sprintf("%d and %d runs: %d a side needed", len(va), len(vb), stats.MinRuns)
			}
			c.sig[sigKey(i, row.Key)] = s
		}
	}
	return c
}

func sigKey(i int, key string) string { return strconv.Itoa(i) + " " + key }

// Significance returns the verdict on files[i]'s change of key; ok is
// false when it was not judged.
func (c *Comparison) Significance(i int, key string) (Significance, bool) {
	if c == nil || c.sig == nil {
		return Significance{}, false
	}
	s, ok := c.sig[sigKey(i, key)]
	return s, ok
}

// Judged reports whether any figure was judged.
func (c *Comparison) Judged() bool { return c != nil && len(c.sig) > 0 }

// DeltaText is the Δ cell of files[i] for key: Delta's text, followed by
// the significance mark when the change was judged.
func (c *Comparison) DeltaText(i int, key string) string {
	d, _, ok := Delta(c.Files, i, key)
	if !ok {
		return d
	}
	if s, judged := c.Significance(i, key); judged {
		return d + s.Mark()
	}
	return d
}

// Notes are the lines under the table that say how changes were judged;
// none when nothing was.
func (c *Comparison) Notes() []string {
	if !c.Judged() {
		return nil
	}
	var boot, mw, refused bool
	for _, s := range c.sig {
		switch {
		case s.Refused != "":
			refused = true
		case s.Method == MethodBootstrap:
			boot = true
		default:
			mw = true
		}
	}
	out := []string{fmt.Sprintf("~: not significant at alpha %g; (p=...): significant.", c.Alpha)}
	if boot {
		out = append(out, fmt.Sprintf("Latency figures: bootstrap of the requests (%d resamples, seeded).", c.Resamples))
	}
	if mw {
		out = append(out, "Per-run figures: Mann-Whitney U over the runs.")
	}
	if refused {
		out = append(out, fmt.Sprintf("Fewer than %d runs a side: no change is called (~).", stats.MinRuns))
	}
	return out
}

// latencyMetrics are the per-request metrics the bootstrap judges.
var latencyMetrics = []string{metrics.TTFT, metrics.TPOT, metrics.ITL, metrics.E2EL}

// rowStat maps a row key to its metric and quantile: mean_ttft_ms →
// ("ttft", NaN), median_ttft_ms → 0.5, p99.9_itl_ms → 0.999.
func rowStat(key string) (metric string, q float64, ok bool) {
	rest, isMS := strings.CutSuffix(key, "_ms")
	if !isMS {
		return "", 0, false
	}
	for _, m := range latencyMetrics {
		head, isM := strings.CutSuffix(rest, "_"+m)
		if !isM {
			continue
		}
		switch {
		case head == "mean":
			return m, math.NaN(), true
		case head == "median":
			return m, 0.5, true
		case strings.HasPrefix(head, "p"):
			v, err := strconv.ParseFloat(head[1:], 64)
			if err == nil && v >= 0 && v <= 100 {
				return m, v / 100, true
			}
		}
	}
	return "", 0, false
}

// fileSamples is one file's per-request data, in milliseconds, grouped by
// request so that a resample keeps a request's gaps together.
type fileSamples struct {
	// units is the number of successful requests: every Sample below has
	// one unit per request, in the same order.
	units                 int
	ttft, tpot, itl, e2el *stats.Sample
}

func (s *fileSamples) of(metric string) *stats.Sample {
	switch metric {
	case metrics.TTFT:
		return s.ttft
	case metrics.TPOT:
		return s.tpot
	case metrics.ITL:
		return s.itl
	}
	return s.e2el
}

// request is one successful request's figures in milliseconds; tpot is
// NaN for a one-token output (vLLM gives it no TPOT).
type request struct {
	ttft, tpot, e2el float64
	itl              []float64
}

func buildSamples(reqs []request) *fileSamples {
	ttft, e2el := make([]float64, len(reqs)), make([]float64, len(reqs))
	tpot, itl := make([][]float64, len(reqs)), make([][]float64, len(reqs))
	for i, r := range reqs {
		ttft[i], e2el[i], itl[i] = r.ttft, r.e2el, r.itl
		if !math.IsNaN(r.tpot) {
			tpot[i] = []float64{r.tpot}
		}
	}
	return &fileSamples{units: len(reqs), ttft: stats.NewSampleOf(ttft), tpot: stats.NewSample(tpot), itl: stats.NewSample(itl), e2el: stats.NewSampleOf(e2el)}
}

// samples returns the file's per-request data, read once: from the
// records file saved beside it (name.records.jsonl) when there is one,
// else from its --save-detailed arrays (ttfts, itls, output_lens, errors,
// latencies); nil when it has neither.
func (f *CompareFile) samples() *fileSamples {
	if f.samplesRead {
		return f.samplesCache
	}
	f.samplesRead = true
	if reqs := recordsBeside(f.Path); reqs != nil {
		f.SamplesFrom = "records file " + strings.TrimSuffix(f.Path, ".json") + ".records.jsonl"
		f.samplesCache = buildSamples(reqs)
		return f.samplesCache
	}
	if reqs := detailedArrays(f.Values); reqs != nil {
		f.SamplesFrom = "per-request arrays"
		f.samplesCache = buildSamples(reqs)
	}
	return f.samplesCache
}

// UseRequests gives the file per-request data held in memory (a run's
// records, as the HTML report has them), in seconds: each successful
// request's TTFT, latency, inter-token gaps and output length. from says
// where they came from. It replaces whatever the file would have read.
func (f *CompareFile) UseRequests(ttfts, latencies []float64, itls [][]float64, outLens []int, from string) {
	reqs := make([]request, len(ttfts))
	for i := range ttfts {
		reqs[i] = newRequest(ttfts[i], latencies[i], itls[i], outLens[i])
	}
	f.samplesRead, f.SamplesFrom, f.samplesCache = true, from, nil
	if len(reqs) > 0 {
		f.samplesCache = buildSamples(reqs)
	}
}

// recordsBeside reads the successful requests of path's records file,
// nil when there is none or it cannot be read (the detailed arrays, if
// any, are used then).
func recordsBeside(path string) []request {
	beside := strings.TrimSuffix(path, ".json") + ".records.jsonl"
	if beside == path || path == "" {
		return nil
	}
	if _, err := os.Stat(beside); err != nil {
		return nil
	}
	p, recs, _, err := record.ReadFile(beside)
	if err != nil {
		return nil
	}
	var counter metrics.TokenCounter
	if p.Tokenizer == record.TokenizerWhitespace {
		counter = metrics.Whitespace{}
	}
	mp, err := metrics.ParamsFrom(&p, counter)
	if err != nil {
		return nil
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		return nil
	}
	var out []request
	for i := range recs {
		r := &recs[i]
		if !r.Success {
			continue
		}
		out = append(out, newRequest(r.TTFT, r.Latency, r.ITL, s.OutputLens[i]))
	}
	return out
}

// newRequest converts seconds to a request in ms; TPOT is vLLM's
// (latency − ttft)/(output_len − 1).
func newRequest(ttft, latency float64, itl []float64, outLen int) request {
	q := request{ttft: ttft * 1000, e2el: latency * 1000, tpot: math.NaN(), itl: make([]float64, len(itl))}
	for j, g := range itl {
		q.itl[j] = g * 1000
	}
	if tpot, ok := metrics.RequestTPOT(latency, ttft, outLen); ok {
		q.tpot = tpot * 1000
	}
	return q
}

// detailedArrays reads the successful requests from a result's
// --save-detailed arrays; nil without ttfts and itls. A request counts as
// successful without an error text and with a TTFT; its E2EL is the
// saved latency, or TTFT plus its gaps when latencies are absent (older
// vLLM files).
func detailedArrays(v map[string]any) []request {
	ttfts, okT := NumberList(v["ttfts"])
	itls, okI := v["itls"].([]any)
	if !okT || !okI || len(itls) != len(ttfts) {
		return nil
	}
	outLens, _ := NumberList(v["output_lens"])
	lats, _ := NumberList(v["latencies"])
	errs, _ := v["errors"].([]any)
	var out []request
	for i, ttft := range ttfts {
		gaps, _ := NumberList(itls[i])
		msg := ""
		if i < len(errs) {
			msg, _ = errs[i].(string)
		}
		if msg != "" || ttft <= 0 {
			continue
		}
		lat := ttft
		for _, g := range gaps {
			lat += g
		}
		if i < len(lats) && lats[i] > 0 {
			lat = lats[i]
		}
		n := len(gaps) + 1
		if i < len(outLens) {
			n = int(outLens[i])
		}
		out = append(out, newRequest(ttft, lat, gaps, n))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// NumberList converts a JSON array of numbers decoded with UseNumber
// (json.Number; null as 0), as a result's per-request arrays are read:
// ttfts, itls, latencies, output_lens, start_times.
func NumberList(v any) ([]float64, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(arr))
	for i, x := range arr {
		if n, ok := x.(json.Number); ok {
			out[i], _ = n.Float64()
		}
	}
	return out, true
}

// runs returns the per-run objects of a result that stands for repeated
// runs (ExtrasKey.RunsKey), nil otherwise.
func (f *CompareFile) runs() []map[string]any {
	x, ok := f.Values[ExtrasKey].(map[string]any)
	if !ok {
		return nil
	}
	arr, ok := x[RunsKey].([]any)
	if !ok || len(arr) == 0 {
		return nil
	}
	var out []map[string]any
	for _, r := range arr {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// runValues is key's value in each run that has it as a number.
func runValues(runs []map[string]any, key string) []float64 {
	var out []float64
	for _, r := range runs {
		if n, ok := r[key].(json.Number); ok {
			if v, err := n.Float64(); err == nil {
				out = append(out, v)
			}
		}
	}
	return out
}

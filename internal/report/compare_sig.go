package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
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

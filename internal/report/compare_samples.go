package report

import (
	"encoding/json"
	"math"
	"os"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/stats"
)

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
	beside := record.BesideResult(f.Path)
	if reqs := recordsBeside(beside); reqs != nil {
		f.SamplesFrom = "records file " + beside
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

// recordsBeside reads the successful requests of the records file beside
// a result (record.BesideResult), nil when there is none or it cannot be
// read (the detailed arrays, if any, are used then).
func recordsBeside(beside string) []request {
	if beside == "" {
		return nil
	}
	if _, err := os.Stat(beside); err != nil {
		return nil
	}
	p, recs, _, err := record.ReadFile(beside)
	if err != nil {
		return nil
	}
	s, err := metrics.SummarizeRecords(&p, recs)
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

// Package htmlreport draws saved benchmark results as one self-contained
// HTML page (charts as inline SVG made with gonum.org/v1/plot, no script,
// font, image or stylesheet fetched from anywhere) or as plain text with
// small histograms: a run page, a compare page for two or more results
// and a sweep page.
//
// It reads llmbench result JSON (with or without --save-detailed), records
// files (*.records.jsonl and conformance input), vLLM's own --save-result
// files, sweep files and plan files, told apart by content
// (savedfile.Sniff). It never computes the reported metrics itself:
// headline figures come from the result object (for a records file, from
// metrics.Summarize, as "llmbench metrics" does). What it derives from
// per-request data — histograms, CDFs, per-second buckets, per-user TPS —
// is chart data, built by pure functions (see chartdata.go) that the
// tests check instead of pixels.
package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/plan"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/savedfile"
)

// Kind is what a file holds.
type Kind int

// File kinds Load recognises.
const (
	// KindRun is one benchmark: a result JSON (ours or vLLM's) or a
	// records file.
	KindRun Kind = iota + 1
	// KindSweep is a sweep file (a ladder of loads).
	KindSweep
	// KindPlan is a plan file (llmbench plan).
	KindPlan
)

// Input is one loaded file: a run, a sweep or a plan.
type Input struct {
	Path  string
	Kind  Kind
	Run   *Run
	Sweep *Sweep
	Plan  *plan.Plan
}

// Run is one benchmark as the pages need it.
type Run struct {
	// Path is the file the headline figures came from.
	Path string
	// Result is the result object (numbers as json.Number), for the
	// headline table, the percentile marks and the extra sections.
	Result *report.CompareFile
	// Requests is the per-request data, in dispatch order; nil when the
	// file has none (a result saved without --save-detailed).
	Requests []Request
	// RequestsFrom says where Requests came from ("" when nil).
	RequestsFrom string
	// SLOms are the goodput SLOs in milliseconds (ttft, tpot, e2el), when
	// known (records files carry them; result JSON does not).
	SLOms map[string]float64
	// Missing lists what the file lacks for a full page, one sentence
	// each.
	Missing []string
}

// Request is one request's timing, in seconds on the run's clock.
type Request struct {
	// Start is when the request was sent; Queue how long it waited for a
	// concurrency slot before that (0 when unknown).
	Start, Queue float64
	// TTFT and E2EL are from Start; E2EL is 0 for a failure.
	TTFT, E2EL float64
	// ITL are the gaps between token chunks.
	ITL []float64
	// OutputLen is the output token count (0 for a failure).
	OutputLen int
	// OK is true for a successful request.
	OK bool
	// ErrorClass files a failure ("unclassified" when the file has only a
	// message).
	ErrorClass string
}

// Load reads one file of any kind savedfile.Sniff tells apart (by
// content): records files and conformance input are summarized as
// "llmbench metrics" does, a sweep is read as the one sweep type, a plan
// file as the plan, and anything else as a result JSON, which says why
// when it is not one.
func Load(path string) (*Input, error) {
	k, err := savedfile.Sniff(path)
	if err != nil {
		return nil, err
	}
	switch k {
	case savedfile.Plan:
		pl, err := savedfile.ReadPlan(path)
		return &Input{Path: path, Kind: KindPlan, Plan: pl}, err
	case savedfile.Sweep:
		sw, err := readSweep(path)
		return &Input{Path: path, Kind: KindSweep, Sweep: sw}, err
	}
	r, err := savedfile.ReadRun(path, k)
	if err != nil {
		return nil, err
	}
	var run *Run
	if r.Result != nil {
		run, err = resultRun(r.Result)
	} else {
		run, err = recordsRun(path, &r.Params, r.Records)
	}
	if err != nil {
		return nil, err
	}
	return &Input{Path: path, Kind: KindRun, Run: run}, nil
}

// recordsRun summarizes the records read from path as "llmbench
// metrics" does, keeping the records as the per-request data.
func recordsRun(path string, p *record.Params, recs []record.Record) (*Run, error) {
	s, err := metrics.SummarizeRecords(p, recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	run, err := NewRun(path, s, p, recs, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	run.RequestsFrom = "records file"
	addRecordsServerMetrics(run, path) // chartdata_server.go
	return run, nil
}

// NewRun builds a Run from a run held in memory: its Summary, params and
// records (as saved: output lengths resolved, see metrics.Summarize), plus
// the result's extra top-level objects (e.g. "sagemaker", "cloudwatch",
// "cost"; "llmbench/self_check" goes inside the llmbench object, as the
// saved result has it; nil for none). name labels the run on the page.
func NewRun(name string, s *metrics.Summary, p *record.Params, recs []record.Record, extra map[string]any) (*Run, error) {
	obj, err := report.Result(s, p, recs, report.ResultOptions{Extras: true})
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(extra) {
		setExtra(obj, k, extra[k])
	}
	values, err := objectValues(obj)
	if err != nil {
		return nil, err
	}
	return &Run{
		Path:         name,
		Result:       &report.CompareFile{Path: name, Values: values},
		Requests:     fromRecords(recs, s.OutputLens),
		RequestsFrom: "the run's records",
		SLOms:        p.Goodput,
	}, nil
}

// objectValues turns a result object into the map form ReadCompareFile
// gives (numbers as json.Number).
func objectValues(o *report.Object) (map[string]any, error) {
	var buf bytes.Buffer
	if err := o.WriteJSON(&buf); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(report.PythonJSONCompat(buf.Bytes())))
	dec.UseNumber()
	var m map[string]any
	return m, dec.Decode(&m)
}

// fromRecords converts records (and the output lengths metrics resolved
// for them) into Requests.
func fromRecords(recs []record.Record, outLens []int) []Request {
	out := make([]Request, len(recs))
	for i := range recs {
		r := &recs[i]
		q := Request{Start: r.StartTime, Queue: r.QueueTime, TTFT: r.TTFT, E2EL: r.Latency,
			ITL: r.ITL, OK: r.Success, ErrorClass: r.ErrorClass}
		if i < len(outLens) {
			q.OutputLen = outLens[i]
		}
		if !r.Success && q.ErrorClass == "" {
			q.ErrorClass = "unclassified"
		}
		out[i] = q
	}
	return out
}

// resultRun is the run of a result JSON (the last object of an appended
// file); its per-request data comes from the records file saved beside it
// when there is one (name.records.jsonl, richer: queue times, error
// classes, SLOs), else from the --save-detailed arrays.
func resultRun(f *report.CompareFile) (*Run, error) {
	path := f.Path
	run := &Run{Path: path, Result: f}
	if beside := record.BesideResult(path); beside != "" {
		if r, err := savedfile.ReadRun(beside, savedfile.Records); err == nil {
			if rr, err := recordsRun(beside, &r.Params, r.Records); err == nil {
				run.Requests, run.SLOms = rr.Requests, rr.SLOms
				run.RequestsFrom = "records file " + beside
				return run, nil
			}
		}
	}
	reqs, err := fromArrays(f.Values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if reqs == nil {
		run.Missing = append(run.Missing, "No per-request data (the result was saved without --save-detailed): distributions, timeline and per-user TPS need it; the percentile profile below comes from the saved figures.")
	} else {
		run.Requests = reqs
		run.RequestsFrom = "per-request arrays of the result"
	}
	if _, goodput := f.Number(metrics.KeyRequestGoodput); goodput && run.SLOms == nil {
		run.Missing = append(run.Missing, "The goodput SLOs are not saved in a result JSON: no SLO lines (a records file carries them).")
	}
	return run, nil
}

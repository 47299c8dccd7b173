package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
)

// conformanceDir holds the vLLM conformance vectors (copied from
// shared/conformance/metrics; the tests must not depend on ../shared).
const conformanceDir = "../../testdata/conformance/metrics"

var conformanceCases = []string{
	"basic_stream",         // plain streams, default metrics and p99
	"single_token_outputs", // 1-token outputs leave TPOT/ITL lists
	"failures_concurrency", // failures, max concurrency and rate lines, label
	"goodput_slos",         // goodput equality, 1-token TPOT = 0
	"skewed_itl",           // ITL vs TPOT percentiles, P99.9
	"bursts_peak",          // 1-second peak buckets, boundary end
}

type expectedFile struct {
	Case           string          `json:"case"`
	ResultFilename string          `json:"result_filename"`
	ConsoleTable   []string        `json:"console_table"`
	SaveResult     json.RawMessage `json:"save_result"`
}

func loadCase(t *testing.T, name string) (record.Params, []record.Record, expectedFile) {
	t.Helper()
	p, recs, format, err := record.ReadFile(filepath.Join(conformanceDir, name+".input.json"))
	if err != nil {
		t.Fatal(err)
	}
	if format != record.FormatConformance {
		t.Fatalf("format = %v, want conformance", format)
	}
	data, err := os.ReadFile(filepath.Join(conformanceDir, name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp expectedFile
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	p.Date = "20260101-000000"
	return p, recs, exp
}

func summarize(t *testing.T, p *record.Params, recs []record.Record) *metrics.Summary {
	t.Helper()
	mp, err := metrics.ParamsFrom(p, metrics.Whitespace{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.Summarize(recs, mp)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, name := range conformanceCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, recs, exp := loadCase(t, name)
			s := summarize(t, &p, recs)

			if diff := cmp.Diff(exp.ConsoleTable, report.TableLines(s, &p)); diff != "" {
				t.Errorf("console table (-want +got):\n%s", diff)
			}
			if got := report.ResultFilename(&p); got != exp.ResultFilename {
				t.Errorf("result filename = %q, want %q", got, exp.ResultFilename)
			}
			var buf bytes.Buffer
			if err := report.WriteResult(&buf, s, &p, recs, report.ResultOptions{Detailed: true}); err != nil {
				t.Fatal(err)
			}
			exact, total := CompareResult(t, exp.SaveResult, buf.Bytes())
			t.Logf("%d of %d numbers identical in Python repr", exact, total)
		})
	}
}

// CompareResult checks got against want the way the conformance README
// asks: key order and key sets exact, strings/ints/bools/nulls exact,
// floats within 1e-9 relative (absolute near zero). It returns how many
// numbers were textually identical (same Python repr) out of all numbers.
func CompareResult(t *testing.T, want, got []byte) (exact, total int) {
	t.Helper()
	w, err := decodeOrdered(want)
	if err != nil {
		t.Fatalf("expected save_result: %v", err)
	}
	g, err := decodeOrdered(got)
	if err != nil {
		t.Fatalf("our result JSON does not parse: %v\n%s", err, got)
	}
	var walk func(path string, w, g any)
	walk = func(path string, w, g any) {
		switch wv := w.(type) {
		case *orderedObject:
			gv, ok := g.(*orderedObject)
			if !ok {
				t.Errorf("%s: got %T, want object", path, g)
				return
			}
			if diff := cmp.Diff(wv.keys, gv.keys); diff != "" {
				t.Errorf("%s: keys (order included) differ (-want +got):\n%s", path, diff)
				return
			}
			for _, k := range wv.keys {
				walk(path+"."+k, wv.vals[k], gv.vals[k])
			}
		case []any:
			gv, ok := g.([]any)
			if !ok || len(gv) != len(wv) {
				t.Errorf("%s: got %v, want %d-element list", path, g, len(wv))
				return
			}
			for i := range wv {
				walk(fmt.Sprintf("%s[%d]", path, i), wv[i], gv[i])
			}
		case json.Number:
			gv, ok := g.(json.Number)
			if !ok {
				t.Errorf("%s: got %v (%T), want number %s", path, g, g, wv)
				return
			}
			total++
			if gv == wv {
				exact++
				return
			}
			if isInt(wv) || isInt(gv) {
				t.Errorf("%s: got %s, want %s (integers and floats must keep their form)", path, gv, wv)
				return
			}
			a, _ := wv.Float64()
			b, _ := gv.Float64()
			if d := math.Abs(a - b); d > 1e-9*math.Max(math.Abs(a), math.Abs(b)) && d > 1e-9 {
				t.Errorf("%s: got %s, want %s (relative difference %.3g)", path, gv, wv, d/math.Abs(a))
			}
		default:
			if !cmp.Equal(w, g) {
				t.Errorf("%s: got %#v, want %#v", path, g, w)
			}
		}
	}
	walk("save_result", w, g)
	return exact, total
}

func isInt(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

type orderedObject struct {
	keys []string
	vals map[string]any
}

// decodeOrdered decodes JSON keeping object key order and number text.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := &orderedObject{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", k)
				}
				o.keys = append(o.keys, k)
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
	}
	return tok, nil
}

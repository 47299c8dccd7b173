package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
)

// CompareFile is one result JSON read for comparison: llmbench's result
// or vLLM's own --save-result file.
type CompareFile struct {
	// Path is the path as given.
	Path string
	// Name is the file's base name, or Path when base names repeat (see
	// LabelCompareFiles); --fail-if reasons name files by it.
	Name string
	// Label is the file's short column label: the result's own "label"
	// when every file has a distinct short one, else A, B, C, ...
	Label string
	// Note says which object was taken from a file with several.
	Note string
	// Values is the result object, numbers as json.Number.
	Values map[string]any
	// SamplesFrom says where the per-request data the significance tests
	// used came from ("" = none; set once they were read).
	SamplesFrom string

	samplesRead  bool
	samplesCache *fileSamples
}

// Number returns key's value as a float64 when it is a JSON number.
func (f *CompareFile) Number(key string) (float64, bool) {
	n, ok := f.Values[key].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := n.Float64()
	return v, err == nil
}

// Text formats key's value like vLLM's table: integers (JSON numbers
// without a fraction or exponent) as integers, other numbers with 2
// decimals; "-" when absent.
func (f *CompareFile) Text(key string) string {
	n, ok := f.Values[key].(json.Number)
	if !ok {
		return "-"
	}
	if !strings.ContainsAny(string(n), ".eE") {
		return string(n)
	}
	v, err := n.Float64()
	if err != nil {
		return string(n)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Interrupted reports whether the result says the run was stopped early
// (Ctrl-C): "interrupted": true at the top level or in the llmbench
// object.
func (f *CompareFile) Interrupted() bool {
	if b, ok := f.Values["interrupted"].(bool); ok && b {
		return true
	}
	x, ok := f.Values[ExtrasKey].(map[string]any)
	if !ok {
		return false
	}
	b, ok := x["interrupted"].(bool)
	return ok && b
}

// ReadCompareFile reads a result JSON: one object, or several (one per
// line, vLLM's --append-result), of which the last is used. Python's bare
// NaN and Infinity read as null.
func ReadCompareFile(path string) (*CompareFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(PythonJSONCompat(data)))
	dec.UseNumber()
	var last map[string]any
	n := 0
	for {
		var obj map[string]any
		err := dec.Decode(&obj)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var syn *json.SyntaxError
			var typ *json.UnmarshalTypeError
			switch {
			case errors.As(err, &syn):
				return nil, fmt.Errorf("%s: invalid JSON at byte %d: %v", path, syn.Offset, syn)
			case errors.As(err, &typ):
				return nil, fmt.Errorf("%s: invalid JSON at byte %d: want a result object, found %s", path, typ.Offset, typ.Value)
			}
			return nil, fmt.Errorf("%s: invalid JSON: %v", path, err)
		}
		last = obj
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no result object in the file", path)
	}
	if _, ok := last[metrics.KeyDuration]; !ok {
		if _, ok := last[metrics.KeyCompleted]; !ok {
			return nil, fmt.Errorf("%s: not a benchmark result (no duration or completed key)", path)
		}
	}
	f := &CompareFile{Path: path, Values: last}
	if n > 1 {
		f.Note = fmt.Sprintf("last of %d results", n)
	}
	return f, nil
}

// PythonJSONCompat replaces Python's bare NaN, Infinity and -Infinity
// (which json.dump writes and encoding/json rejects) with null, outside
// strings.
func PythonJSONCompat(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data))
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		}
		replaced := false
		for _, bare := range []string{"NaN", "-Infinity", "Infinity"} {
			if bytes.HasPrefix(data[i:], []byte(bare)) {
				out = append(out, "null"...)
				i += len(bare) - 1
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, c)
		}
	}
	return out
}

// maxLabelLen is the longest result label used as a column label.
const maxLabelLen = 12

// LabelCompareFiles sets each file's Name (its base name, or the path as
// given when base names repeat) and Label: the results' own "label" values
// when every file has a distinct one of at most 12 characters, else A, B,
// C, ... (F27, F28, ... after Z).
func LabelCompareFiles(files []*CompareFile) {
	seen := map[string]int{}
	for _, f := range files {
		seen[filepath.Base(f.Path)]++
	}
	labels := map[string]bool{}
	own := true
	for _, f := range files {
		f.Name = filepath.Base(f.Path)
		if seen[f.Name] > 1 {
			f.Name = f.Path
		}
		l, _ := f.Values["label"].(string)
		l = strings.TrimSpace(l)
		if l == "" || len([]rune(l)) > maxLabelLen || labels[l] || strings.ContainsAny(l, " \t") {
			own = false
		}
		labels[l] = true
	}
	for i, f := range files {
		switch {
		case own:
			f.Label = strings.TrimSpace(f.Values["label"].(string))
		case i < 26:
			f.Label = string(rune('A' + i))
		default:
			f.Label = fmt.Sprintf("F%d", i+1)
		}
	}
}

// CompareRow is one headline figure of a comparison: a result JSON key
// (vLLM's name) and its label (vLLM's table wording).
type CompareRow struct {
	Key, Label string
}

// CompareRows are the headline figures of files in table order: the
// counts and throughputs, then for TTFT, TPOT, ITL and E2EL the mean, the
// median and every percentile any file saved (p50, p99.9, ...), lowest
// first.
func CompareRows(files []*CompareFile) []CompareRow {
	rows := []CompareRow{
		{metrics.KeyCompleted, "Successful requests"},
		{metrics.KeyFailed, "Failed requests"},
		{metrics.KeyTotalInputTokens, "Total input tokens"},
		{metrics.KeyTotalOutputTokens, "Total generated tokens"},
		{metrics.KeyRequestThroughput, "Request throughput (req/s)"},
		{metrics.KeyRequestGoodput, "Request goodput (req/s)"},
		{metrics.KeyOutputThroughput, "Output token throughput (tok/s)"},
		{metrics.KeyMaxOutputTokensPerS, "Peak output token throughput (tok/s)"},
		{metrics.KeyMaxConcurrentRequests, "Peak concurrent requests"},
		{metrics.KeyTotalTokenThroughput, "Total token throughput (tok/s)"},
	}
	for _, m := range []struct{ key, short string }{{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"itl", "ITL"}, {"e2el", "E2EL"}} {
		rows = append(rows,
			CompareRow{"mean_" + m.key + "_ms", "Mean " + m.short + " (ms)"},
			CompareRow{"median_" + m.key + "_ms", "Median " + m.short + " (ms)"},
		)
		suffix := "_" + m.key + "_ms"
		pcts := map[string]float64{} // label ("99.9") -> value, for sorting
		for _, f := range files {
			for k := range f.Values {
				rest, isP := strings.CutPrefix(k, "p")
				label, isM := strings.CutSuffix(rest, suffix)
				if v, err := strconv.ParseFloat(label, 64); isP && isM && err == nil {
					pcts[label] = v
				}
			}
		}
		labels := slices.SortedFunc(maps.Keys(pcts), func(a, b string) int { return cmp.Compare(pcts[a], pcts[b]) })
		for _, l := range labels {
			rows = append(rows, CompareRow{"p" + l + suffix, "P" + l + " " + m.short + " (ms)"})
		}
	}
	return rows
}

// PresentRows are the CompareRows that at least one file has a number for.
func PresentRows(files []*CompareFile) []CompareRow {
	var out []CompareRow
	for _, row := range CompareRows(files) {
		for _, f := range files {
			if _, ok := f.Number(row.Key); ok {
				out = append(out, row)
				break
			}
		}
	}
	return out
}

// DeltaPct is the change of x against base in percent: 0 when both are 0,
// ±Inf when only base is 0 (FormatDelta prints that as n/a).
func DeltaPct(base, x float64) float64 {
	if base == 0 && x == 0 {
		return 0
	}
	return (x - base) / math.Abs(base) * 100
}

// FormatDelta formats a DeltaPct as "+1.23%", or "n/a" when it cannot be
// computed.
func FormatDelta(d float64) string {
	switch {
	case math.IsNaN(d):
		return "n/a"
	case math.IsInf(d, 0):
		return "n/a (base 0)"
	}
	return fmt.Sprintf("%+.2f%%", d)
}

// Delta is the change of files[i] against files[0] for key, as FormatDelta
// text ("-" when either lacks the key) and as a number (ok false then).
func Delta(files []*CompareFile, i int, key string) (text string, d float64, ok bool) {
	bv, baseOK := files[0].Number(key)
	v, vOK := files[i].Number(key)
	if !baseOK || !vOK {
		return "-", 0, false
	}
	d = DeltaPct(bv, v)
	return FormatDelta(d), d, !math.IsNaN(d) && !math.IsInf(d, 0)
}

package cli

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

	"github.com/spf13/cobra"
)

// compareRow is one headline figure of "llmbench compare": a result JSON
// key (vLLM's name) and its label (vLLM's table wording).
type compareRow struct {
	key, label string
}

// compareRows are the headline figures of files in table order: the
// counts and throughputs, then for TTFT, TPOT, ITL and E2EL the mean, the
// median and every percentile any file saved (p50, p99.9, ...), lowest
// first.
func compareRows(files []*resultFile) []compareRow {
	rows := []compareRow{
		{"completed", "Successful requests"},
		{"failed", "Failed requests"},
		{"total_input_tokens", "Total input tokens"},
		{"total_output_tokens", "Total generated tokens"},
		{"request_throughput", "Request throughput (req/s)"},
		{"request_goodput", "Request goodput (req/s)"},
		{"output_throughput", "Output token throughput (tok/s)"},
		{"max_output_tokens_per_s", "Peak output token throughput (tok/s)"},
		{"max_concurrent_requests", "Peak concurrent requests"},
		{"total_token_throughput", "Total token throughput (tok/s)"},
	}
	for _, m := range []struct{ key, short string }{{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"itl", "ITL"}, {"e2el", "E2EL"}} {
		rows = append(rows,
			compareRow{"mean_" + m.key + "_ms", "Mean " + m.short + " (ms)"},
			compareRow{"median_" + m.key + "_ms", "Median " + m.short + " (ms)"},
		)
		suffix := "_" + m.key + "_ms"
		pcts := map[string]float64{} // label ("99.9") -> value, for sorting
		for _, f := range files {
			for k := range f.values {
				rest, isP := strings.CutPrefix(k, "p")
				label, isM := strings.CutSuffix(rest, suffix)
				if v, err := strconv.ParseFloat(label, 64); isP && isM && err == nil {
					pcts[label] = v
				}
			}
		}
		labels := slices.SortedFunc(maps.Keys(pcts), func(a, b string) int { return cmp.Compare(pcts[a], pcts[b]) })
		for _, l := range labels {
			rows = append(rows, compareRow{"p" + l + suffix, "P" + l + " " + m.short + " (ms)"})
		}
	}
	return rows
}

// resultFile is one result JSON read for comparison.
type resultFile struct {
	path string
	name string
	// note says which object was taken from a file with several.
	note   string
	values map[string]any
}

// number returns key's value as a float64 when it is a JSON number.
func (r *resultFile) number(key string) (float64, bool) {
	n, ok := r.values[key].(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// failBound is one parsed --fail-if expression: KEY OP BOUND, with BOUND
// either a percentage change against the first file or an absolute value.
type failBound struct {
	text     string
	key      string
	op       string
	value    float64
	relative bool
}

// parseFailBound parses "p99_ttft_ms>+10%", "request_throughput<-5%",
// "p99_ttft_ms>=250".
func parseFailBound(s string) (failBound, error) {
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return failBound{}, fmt.Errorf("--fail-if %q: want KEY>BOUND or KEY<BOUND, e.g. p99_ttft_ms>+10%% or p99_ttft_ms>250", s)
	}
	b := failBound{text: s, key: strings.TrimSpace(s[:i]), op: s[i : i+1]}
	rest := s[i+1:]
	if strings.HasPrefix(rest, "=") {
		b.op += "="
		rest = rest[1:]
	}
	rest = strings.TrimSpace(rest)
	if strings.HasSuffix(rest, "%") {
		b.relative = true
		rest = strings.TrimSuffix(rest, "%")
	}
	v, err := strconv.ParseFloat(rest, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || rest == "" {
		return failBound{}, fmt.Errorf("--fail-if %q: bound %q is not a number or a percentage", s, rest)
	}
	b.value = v
	return b, nil
}

// crossed reports whether x is beyond the bound.
func (b *failBound) crossed(x float64) bool {
	switch b.op {
	case ">":
		return x > b.value
	case ">=":
		return x >= b.value
	case "<":
		return x < b.value
	default:
		return x <= b.value
	}
}

// newCompareCmd builds "llmbench compare A.json B.json [C.json...]".
func newCompareCmd(env *Env) *cobra.Command {
	var (
		format string
		bounds []string
	)
	cmd := &cobra.Command{
		Use:   "compare BASE.json OTHER.json [MORE.json...]",
		Short: "Compare result files side by side with the change against the first",
		Long: `Compare the headline figures of two or more result files side by side: token
totals, request/output/total throughput, peak concurrency, goodput and the
mean, median and every saved percentile (P50, P99, ...) of TTFT, TPOT, ITL
and E2EL, each with its change (Δ%) against the first file.

Both llmbench's result JSON and vllm bench serve's own --save-result files
are read. A file written with --append-result holds one object per line;
the last one is compared (the table says so).

--fail-if KEY>BOUND (or <, >=, <=), repeatable, makes the command exit 1 when
a file after the first crosses the bound; BOUND is a change against the
first file in percent ("p99_ttft_ms>+10%", "request_throughput<-5%") or an
absolute value ("p99_ttft_ms>250"). KEY is any numeric key of the result
JSON. Each crossed bound is reported on its own line on stderr.`,
		Example: `  llmbench compare baseline.json candidate.json
  llmbench compare a.json b.json --fail-if 'p99_ttft_ms>+10%' --fail-if 'output_throughput<-5%'`,
		Args: argsBetween(2, -1, "want two or more result files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "table" && format != "json" {
				return usageErrorf("--format %q: want table or json", format)
			}
			parsed := make([]failBound, len(bounds))
			for i, s := range bounds {
				b, err := parseFailBound(s)
				if err != nil {
					return &UsageError{Err: err}
				}
				parsed[i] = b
			}
			files := make([]*resultFile, len(args))
			for i, path := range args {
				rf, err := readResultFile(path)
				if err != nil {
					return &UsageError{Err: err}
				}
				files[i] = rf
			}
			nameFiles(files)
			reasons, err := checkBounds(files, parsed)
			if err != nil {
				return &UsageError{Err: err}
			}
			if format == "json" {
				err = writeCompareJSON(env.Stdout, files, reasons)
			} else {
				err = writeCompareTable(env.Stdout, files)
			}
			if err != nil {
				return err
			}
			for _, r := range reasons {
				fmt.Fprintln(env.Stderr, "fail-if:", r)
			}
			if len(reasons) > 0 {
				return &ExitError{Code: 1, Msg: fmt.Sprintf("%d --fail-if bound(s) crossed", len(reasons))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output: table or json")
	cmd.Flags().StringArrayVar(&bounds, "fail-if", nil, "exit 1 if a file after the first crosses KEY>BOUND / KEY<BOUND (BOUND: +10% relative to the first file, or an absolute value); repeatable")
	return cmd
}

// readResultFile reads a result JSON: one object, or several (one per line,
// vLLM's --append-result), of which the last is used.
func readResultFile(path string) (*resultFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(pythonJSONCompat(data)))
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
	if _, ok := last["duration"]; !ok {
		if _, ok := last["completed"]; !ok {
			return nil, fmt.Errorf("%s: not a benchmark result (no duration or completed key)", path)
		}
	}
	rf := &resultFile{path: path, values: last}
	if n > 1 {
		rf.note = fmt.Sprintf("last of %d results", n)
	}
	return rf, nil
}

// pythonJSONCompat replaces Python's bare NaN, Infinity and -Infinity
// (which json.dump writes and encoding/json rejects) with null, outside
// strings.
func pythonJSONCompat(data []byte) []byte {
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
		switch {
		case c == '"':
			inStr = true
		case bytes.HasPrefix(data[i:], []byte("NaN")):
			out = append(out, "null"...)
			i += len("NaN") - 1
			continue
		case bytes.HasPrefix(data[i:], []byte("-Infinity")):
			out = append(out, "null"...)
			i += len("-Infinity") - 1
			continue
		case bytes.HasPrefix(data[i:], []byte("Infinity")):
			out = append(out, "null"...)
			i += len("Infinity") - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

// nameFiles gives each file a short column name: its base name, or the
// path as given when base names repeat.
func nameFiles(files []*resultFile) {
	seen := map[string]int{}
	for _, f := range files {
		seen[filepath.Base(f.path)]++
	}
	for _, f := range files {
		f.name = filepath.Base(f.path)
		if seen[f.name] > 1 {
			f.name = f.path
		}
	}
}

// deltaPct is the change of x against base in percent: 0 when both are 0,
// ±Inf when only base is 0 (callers print that as n/a).
func deltaPct(base, x float64) float64 {
	if base == 0 && x == 0 {
		return 0
	}
	return (x - base) / math.Abs(base) * 100
}

// checkBounds evaluates every --fail-if bound on every file after the
// first and returns one line per crossed bound.
func checkBounds(files []*resultFile, bounds []failBound) ([]string, error) {
	var reasons []string
	base := files[0]
	for _, b := range bounds {
		bv, baseOK := base.number(b.key)
		if b.relative && !baseOK {
			return nil, fmt.Errorf("--fail-if %q: %s has no numeric %s to compare against", b.text, base.name, b.key)
		}
		for _, f := range files[1:] {
			v, ok := f.number(b.key)
			if !ok {
				return nil, fmt.Errorf("--fail-if %q: %s has no numeric %s", b.text, f.name, b.key)
			}
			if b.relative {
				d := deltaPct(bv, v)
				if !math.IsNaN(d) && b.crossed(d) {
					reasons = append(reasons, fmt.Sprintf("%s: %s %s is %s vs %s %s (bound %s)",
						f.name, b.key, f.text(b.key), fmtDelta(d), base.name, base.text(b.key), b.text))
				}
			} else if b.crossed(v) {
				reasons = append(reasons, fmt.Sprintf("%s: %s %s crosses the bound %s", f.name, b.key, f.text(b.key), b.text))
			}
		}
	}
	return reasons, nil
}

// text formats key's value like vLLM's table: integers (JSON numbers
// without a fraction or exponent) as integers, other numbers with 2
// decimals; "-" when absent.
func (r *resultFile) text(key string) string {
	n, ok := r.values[key].(json.Number)
	if !ok {
		return "-"
	}
	if !strings.ContainsAny(string(n), ".eE") {
		return string(n)
	}
	f, err := n.Float64()
	if err != nil {
		return string(n)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

func fmtDelta(d float64) string {
	switch {
	case math.IsNaN(d):
		return "n/a"
	case math.IsInf(d, 0):
		return "n/a (base 0)"
	}
	return fmt.Sprintf("%+.2f%%", d)
}

// writeCompareTable prints the side-by-side table: one column per file and,
// after each file but the first, its Δ% against the first.
func writeCompareTable(w io.Writer, files []*resultFile) error {
	header := []string{"Metric"}
	for i, f := range files {
		header = append(header, f.name)
		if i > 0 {
			header = append(header, "Δ%")
		}
	}
	table := [][]string{header}
	for _, row := range compareRows(files) {
		present := false
		for _, f := range files {
			if _, ok := f.number(row.key); ok {
				present = true
			}
		}
		if !present {
			continue
		}
		line := []string{row.label}
		bv, baseOK := files[0].number(row.key)
		for i, f := range files {
			v, ok := f.number(row.key)
			line = append(line, f.text(row.key))
			if i > 0 {
				d := "-"
				if ok && baseOK {
					d = fmtDelta(deltaPct(bv, v))
				}
				line = append(line, d)
			}
		}
		table = append(table, line)
	}
	widths := make([]int, len(header))
	for _, line := range table {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var buf bytes.Buffer
	for _, f := range files {
		if f.note != "" {
			fmt.Fprintf(&buf, "%s: %s\n", f.name, f.note)
		}
	}
	for _, line := range table {
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				buf.WriteString(c + pad)
			} else {
				buf.WriteString("  " + pad + c)
			}
		}
		buf.WriteByte('\n')
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// compareJSON is --format json's output.
type compareJSON struct {
	Files   []compareJSONFile `json:"files"`
	Rows    []compareJSONRow  `json:"rows"`
	Crossed []string          `json:"fail_if_crossed"`
}

type compareJSONFile struct {
	Path string `json:"path"`
	Note string `json:"note,omitempty"`
}

type compareJSONRow struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	// Values has one entry per file, null when the file lacks the key.
	Values []*float64 `json:"values"`
	// DeltaPct is the change against the first file in percent, null for
	// the first file and when it cannot be computed.
	DeltaPct []*float64 `json:"delta_pct"`
}

func writeCompareJSON(w io.Writer, files []*resultFile, crossed []string) error {
	out := compareJSON{Crossed: crossed}
	if out.Crossed == nil {
		out.Crossed = []string{}
	}
	for _, f := range files {
		out.Files = append(out.Files, compareJSONFile{Path: f.path, Note: f.note})
	}
	for _, row := range compareRows(files) {
		r := compareJSONRow{Key: row.key, Label: row.label}
		present := false
		bv, baseOK := files[0].number(row.key)
		for i, f := range files {
			v, ok := f.number(row.key)
			var vp, dp *float64
			if ok {
				present = true
				vv := v
				vp = &vv
				if i > 0 && baseOK {
					if d := deltaPct(bv, v); !math.IsNaN(d) && !math.IsInf(d, 0) {
						dp = &d
					}
				}
			}
			r.Values = append(r.Values, vp)
			r.DeltaPct = append(r.DeltaPct, dp)
		}
		if present {
			out.Rows = append(out.Rows, r)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A comparison is only readable as "this knob made that change" when the
// runs differ in one knob. compare therefore shows what each run was
// (issue 29, item 11) and warns when the first file and another differ in
// more than one knob.

// knob is one configuration figure of a result.
type knob struct {
	label string
	// short names the knob in the warning.
	short string
	// get returns the knob's text, or "" when the file lacks it.
	get func(f *CompareFile) string
	// same says whether two present values count as one setting.
	same func(a, b string) bool
}

func sameText(a, b string) bool { return a == b }

// within10 treats two means as one setting when they differ by at most
// 10 % (mean token counts move with the data set's sampling and early
// stops; a changed --random-input-len moves them further).
func within10(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return math.Abs(x-y) <= 0.1*math.Max(math.Abs(x), math.Abs(y))
}

// valueText is a top-level (or llmbench-object) key's value as text.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func topKey(key string) func(f *CompareFile) string {
	return func(f *CompareFile) string { return valueText(f.Values[key]) }
}

func extrasKey(key string) func(f *CompareFile) string {
	return func(f *CompareFile) string {
		x, _ := f.Values[ExtrasKey].(map[string]any)
		return valueText(x[key])
	}
}

// perRequest is total/completed with one decimal: the mean tokens a
// request carried, the only record of the input and output lengths a
// result keeps.
func perRequest(total string) func(f *CompareFile) string {
	return func(f *CompareFile) string {
		t, ok1 := f.Number(total)
		n, ok2 := f.Number("completed")
		if !ok1 || !ok2 || n <= 0 {
			return ""
		}
		return strconv.FormatFloat(t/n, 'f', 1, 64)
	}
}

var knobs = []knob{
	{"Model", "model", topKey("model_id"), sameText},
	{"Backend", "backend", topKey("backend"), sameText},
	{"Request rate", "rate", topKey("request_rate"), sameText},
	{"Burstiness", "burstiness", topKey("burstiness"), sameText},
	{"Max concurrency", "concurrency", topKey("max_concurrency"), sameText},
	{"Users", "users", extrasKey("users"), sameText},
	{"Think time", "think time", extrasKey("think_time"), sameText},
	{"Num prompts", "prompts", topKey("num_prompts"), sameText},
	{"Input tokens/request (mean)", "input len", perRequest("total_input_tokens"), within10},
	{"Output tokens/request (mean)", "output len", perRequest("total_output_tokens"), within10},
}

// ConfigTable returns the configuration table of files: a header (the
// files' column labels after "Configuration"), one row per knob any file
// has ("-" where a file lacks it), and one warning per file that differs
// from the first in more than one knob. rows is nil when no file has any
// knob.
func ConfigTable(files []*CompareFile) (header []string, rows [][]string, warnings []string) {
	header = []string{"Configuration"}
	for _, f := range files {
		header = append(header, columnLabel(f))
	}
	var present []knob
	for _, k := range knobs {
		row := []string{k.label}
		seen := false
		for _, f := range files {
			v := k.get(f)
			seen = seen || v != ""
			if v == "" {
				v = "-"
			}
			row = append(row, v)
		}
		if seen {
			rows = append(rows, row)
			present = append(present, k)
		}
	}
	for i := 1; i < len(files); i++ {
		var differ []string
		for _, k := range present {
			a, b := k.get(files[0]), k.get(files[i])
			if a == "" && b == "" {
				continue
			}
			if a == "" || b == "" || !k.same(a, b) {
				differ = append(differ, k.short)
			}
		}
		if len(differ) > 1 {
			warnings = append(warnings, fmt.Sprintf("Warning: %s and %s differ in %d knobs (%s).",
				files[0].Label, files[i].Label, len(differ), strings.Join(differ, ", ")))
		}
	}
	return header, rows, warnings
}

// ConfigLines returns ConfigTable laid out as text, the warnings after
// it; nil when no file has any knob.
func ConfigLines(files []*CompareFile) []string {
	header, rows, warnings := ConfigTable(files)
	if rows == nil {
		return nil
	}
	return append(alignColumns(append([][]string{header}, rows...)), warnings...)
}

// alignColumns lays out a table: the first column left-aligned, the
// others right-aligned, two spaces apart.
func alignColumns(table [][]string) []string {
	widths := make([]int, len(table[0]))
	for _, line := range table {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var out []string
	for _, line := range table {
		var b strings.Builder
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		out = append(out, b.String())
	}
	return out
}

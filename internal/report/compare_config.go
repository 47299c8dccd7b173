package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/table"
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
		n, ok2 := f.Number(metrics.KeyCompleted)
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
	{"Max concurrency", "concurrency", topKey(metrics.KeyMaxConcurrency), sameText},
	{"Users", "users", extrasKey("users"), sameText},
	{"Think time", "think time", extrasKey("think_time"), sameText},
	{"Num prompts", "prompts", topKey("num_prompts"), sameText},
	{"Input tokens/request (mean)", "input len", perRequest(metrics.KeyTotalInputTokens), within10},
	{"Output tokens/request (mean)", "output len", perRequest(metrics.KeyTotalOutputTokens), within10},
}

// ConfigTable returns the configuration table of files: a column per
// file (its column label) after "Configuration", one row per knob any
// file has ("-" where a file lacks it), and one warning per file that
// differs from the first in more than one knob. t is nil when no file
// has any knob.
func ConfigTable(files []*CompareFile) (t *table.Table, warnings []string) {
	t = &table.Table{Title: "Configuration"}
	t.AddColumn("knob", "Configuration", table.Left)
	for _, f := range files {
		t.AddColumn(f.Label, columnLabel(f), table.Right)
	}
	var present []knob
	for _, k := range knobs {
		row := []table.Cell{table.Words(k.label)}
		seen := false
		for _, f := range files {
			v := k.get(f)
			seen = seen || v != ""
			if v == "" {
				v = "-"
			}
			row = append(row, table.Figure(v))
		}
		if seen {
			t.Rows = append(t.Rows, row)
			present = append(present, k)
		}
	}
	if t.Rows == nil {
		return nil, nil
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
	return t, warnings
}

// ConfigLines returns ConfigTable laid out as text, the warnings after
// it; nil when no file has any knob.
func ConfigLines(files []*CompareFile) []string {
	t, warnings := ConfigTable(files)
	if t == nil {
		return nil
	}
	return append(table.Lines(t, table.Style{}), warnings...)
}

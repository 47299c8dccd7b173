package report

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
)

// TestComparisonCSV: compare --format csv is the Δ% table with a column
// per result key, and every value and Δ% a plain number equal to the
// file's figure and Delta's.
func TestComparisonCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []*CompareFile
	for _, v := range []string{"basic_stream", "skewed_itl"} {
		f, err := ReadCompareFile(conformanceResult(t, dir, v, v+".json", nil))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	LabelCompareFiles(files)
	var buf bytes.Buffer
	if err := WriteComparisonCSV(&buf, NewComparison(files, CompareOptions{Alpha: 1})); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	a, b := files[0].Label, files[1].Label
	if got, want := strings.Join(recs[0], ","), "key,metric,"+a+","+b+","+b+" delta_pct"; got != want {
		t.Fatalf("header %s, want %s", got, want)
	}
	rows := PresentRows(files)
	if len(recs)-1 != len(rows) {
		t.Fatalf("%d rows, want %d", len(recs)-1, len(rows))
	}
	for i, r := range recs[1:] {
		key := rows[i].Key
		if r[0] != key || r[1] != rows[i].Label {
			t.Errorf("row %d: %q %q, want %q %q", i, r[0], r[1], key, rows[i].Label)
		}
		for j, f := range files {
			want, ok := f.Number(key)
			if got, err := strconv.ParseFloat(r[2+j], 64); ok && (err != nil || got != want) {
				t.Errorf("%s in %s: %q, want %v", key, f.Label, r[2+j], want)
			}
		}
		if _, d, ok := Delta(files, 1, key); ok {
			if got, err := strconv.ParseFloat(r[4], 64); err != nil || got != d {
				t.Errorf("%s Δ%%: %q, want %v", key, r[4], d)
			}
		}
	}
}

// TestChoiceCSV: compare --format csv over sweeps is the candidates'
// table with plain numbers, the verdict last.
func TestChoiceCSV(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []*SweepFile
	for _, p := range []string{writeSweep(t, dir, "small", 4, 1, false), writeSweep(t, dir, "large", 8, 1.5, true)} {
		f, err := ReadSweepFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Path = filepath.Base(p)
		files = append(files, f)
	}
	ch := capacity.Choose(SweepCandidates(files), capacity.Need{Users: 20})
	var buf bytes.Buffer
	if err := WriteChoiceCSV(&buf, ch); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, k := range recs[0] {
		col[k] = i
	}
	for _, k := range []string{"label", "instances", "cost_per_hour", "verdict"} {
		if _, ok := col[k]; !ok {
			t.Fatalf("no %s column in %v", k, recs[0])
		}
	}
	for _, r := range recs[1:] {
		if r[col["label"]] != "large" {
			continue
		}
		if r[col["instances"]] != "3" || r[col["cost_per_hour"]] != "4.5" || r[col["verdict"]] != "RECOMMENDED" {
			t.Errorf("large: %v", r)
		}
		return
	}
	t.Errorf("no row for large: %v", recs)
}

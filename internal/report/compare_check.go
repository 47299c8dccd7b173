package report

import "fmt"

// CheckCompareOptions checks compare's --format (table, json or csv, the
// forms WriteComparison and WriteChoice write) and --alpha (a
// significance level in (0, 1]; 1 turns the tests off, see
// docs/confidence.md).
func CheckCompareOptions(format string, alpha float64) error {
	if format != "table" && format != "json" && format != "csv" {
		return fmt.Errorf("--format %q: want table, json or csv", format)
	}
	if !(alpha > 0 && alpha <= 1) {
		return fmt.Errorf("--alpha %g: want a level in (0, 1], e.g. 0.05 (1 turns the tests off)", alpha)
	}
	return nil
}

// Package querynames finds the metric names a PromQL expression reads, so
// tests can prove that dashboards and alert rules query only metrics that
// exist. It is a careful scanner, not a parser: it drops string literals,
// label matchers, range and subquery brackets, grouping lists (by,
// without, on, ignoring, group_left, group_right), numbers, durations and
// Grafana variables, then keeps every identifier that is neither a
// keyword nor followed by "(" (a function or aggregation). It accepts
// valid PromQL and does not promise to reject invalid PromQL: promtool
// and Prometheus do that.
package querynames

import (
	"regexp"
	"slices"
	"strings"
)

var (
	// strs matches PromQL string literals ("...", '...', `...`).
	strs = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`")
	// grouping matches a grouping modifier and its label list.
	grouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	// braces and brackets: label matchers, ranges, subqueries (not
	// nested in valid PromQL once strings are gone).
	braces   = regexp.MustCompile(`\{[^}]*\}`)
	brackets = regexp.MustCompile(`\[[^\]]*\]`)
	// token: a Grafana variable, a number (with a duration unit or
	// exponent), or an identifier and whether "(" follows it.
	token = regexp.MustCompile(`\$\{[^}]*\}|\$\w+|(?:0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)(?:ms|[smhdwy])*|([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?`)
)

// keywords are PromQL words that are not metric names.
var keywords = []string{"and", "or", "unless", "bool", "offset", "inf", "nan", "atan2",
	"by", "without", "on", "ignoring", "group_left", "group_right"}

// Metrics returns the metric names expr reads, sorted, without repeats.
func Metrics(expr string) []string {
	s := strs.ReplaceAllString(expr, " ")
	s = grouping.ReplaceAllString(s, " ")
	s = braces.ReplaceAllString(s, " ")
	s = brackets.ReplaceAllString(s, " ")
	var names []string
	for _, m := range token.FindAllStringSubmatch(s, -1) {
		name, call := m[1], m[2]
		if name == "" || call != "" || slices.Contains(keywords, strings.ToLower(name)) {
			continue
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

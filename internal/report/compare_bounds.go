package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Bound is one parsed --fail-if expression: KEY OP BOUND, with BOUND
// either a percentage change against the first file or an absolute value.
type Bound struct {
	// Text is the expression as given.
	Text string
	// Key is a numeric key of the result JSON (e.g. p99_ttft_ms).
	Key string
	// Op is one of >, >=, <, <=.
	Op string
	// Value is the bound: percent when Relative, else in Key's unit.
	Value float64
	// Relative is true for a change against the first file ("+10%").
	Relative bool
}

// ParseBound parses "p99_ttft_ms>+10%", "request_throughput<-5%",
// "p99_ttft_ms>=250".
func ParseBound(s string) (Bound, error) {
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return Bound{}, fmt.Errorf("--fail-if %q: want KEY>BOUND or KEY<BOUND, e.g. p99_ttft_ms>+10%% or p99_ttft_ms>250", s)
	}
	b := Bound{Text: s, Key: strings.TrimSpace(s[:i]), Op: s[i : i+1]}
	rest := s[i+1:]
	if strings.HasPrefix(rest, "=") {
		b.Op += "="
		rest = rest[1:]
	}
	rest = strings.TrimSpace(rest)
	if strings.HasSuffix(rest, "%") {
		b.Relative = true
		rest = strings.TrimSuffix(rest, "%")
	}
	v, err := strconv.ParseFloat(rest, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || rest == "" {
		return Bound{}, fmt.Errorf("--fail-if %q: bound %q is not a number or a percentage", s, rest)
	}
	b.Value = v
	return b, nil
}

// ParseBounds parses --fail-if expressions (ParseBound), in order; nil
// for none.
func ParseBounds(exprs []string) ([]Bound, error) {
	var out []Bound
	for _, s := range exprs {
		b, err := ParseBound(s)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// LoadComparison is compare over result files: it reads and labels the
// files at paths, judges their changes at alpha and evaluates bounds
// (Comparison.CheckBounds): crossed must fail the command, noise are
// crossings too small to be told from noise. Every error is in the input.
func LoadComparison(paths []string, bounds []Bound, alpha float64) (c *Comparison, crossed, noise []Crossing, err error) {
	files := make([]*CompareFile, len(paths))
	for i, path := range paths {
		if files[i], err = ReadCompareFile(path); err != nil {
			return nil, nil, nil, err
		}
	}
	LabelCompareFiles(files)
	c = NewComparison(files, CompareOptions{Alpha: alpha})
	if crossed, noise, err = c.CheckBounds(bounds); err != nil {
		return nil, nil, nil, err
	}
	return c, crossed, noise, nil
}

// WriteCrossings writes compare's --fail-if lines, one a bound crossed:
// first those too small to be told from noise ("fail-if (ignored): "),
// then those that fail the command ("fail-if: ").
func WriteCrossings(w io.Writer, crossed, noise []Crossing) {
	for _, c := range noise {
		fmt.Fprintln(w, "fail-if (ignored):", c.Reason)
	}
	for _, c := range crossed {
		fmt.Fprintln(w, "fail-if:", c.Reason)
	}
}

// Crossed reports whether x (a percentage when the bound is relative) is
// beyond the bound.
func (b *Bound) Crossed(x float64) bool {
	switch b.Op {
	case ">":
		return x > b.Value
	case ">=":
		return x >= b.Value
	case "<":
		return x < b.Value
	default:
		return x <= b.Value
	}
}

// Crossing is one bound crossed by one file.
type Crossing struct {
	// File is the index of the file that crossed (never 0, the base).
	File int
	// Key is the bound's key.
	Key string
	// Reason is the line printed for it, naming the file, the value and
	// the bound.
	Reason string
}

// CheckBounds evaluates every bound on every file after the first and
// returns the crossings, bound by bound, on plain thresholds (no
// significance tests). A key that a file lacks is an error (a misspelt
// key must not pass silently).
func CheckBounds(files []*CompareFile, bounds []Bound) ([]Crossing, error) {
	crossed, _, err := (&Comparison{Files: files}).CheckBounds(bounds)
	return crossed, err
}

// CheckBounds evaluates every bound on every file after the first. A
// relative bound ("+10%") crossed by a change the comparison judged not
// significant is not a crossing: it is returned in noise, its reason
// saying so, and must not fail the command. An unjudged change (no
// per-request data, no runs, --alpha 1) and an absolute bound (one
// file's own figure, no second sample to test against) are judged on
// the plain threshold. A key that a file lacks is an error.
func (c *Comparison) CheckBounds(bounds []Bound) (crossed, noise []Crossing, err error) {
	files := c.Files
	base := files[0]
	for _, b := range bounds {
		bv, baseOK := base.Number(b.Key)
		if b.Relative && !baseOK {
			return nil, nil, fmt.Errorf("--fail-if %q: %s has no numeric %s to compare against", b.Text, base.Name, b.Key)
		}
		for i, f := range files[1:] {
			v, ok := f.Number(b.Key)
			if !ok {
				return nil, nil, fmt.Errorf("--fail-if %q: %s has no numeric %s", b.Text, f.Name, b.Key)
			}
			cr := Crossing{File: i + 1, Key: b.Key}
			if b.Relative {
				d := DeltaPct(bv, v)
				if math.IsNaN(d) || !b.Crossed(d) {
					continue
				}
				cr.Reason = fmt.Sprintf("%s: %s %s is %s vs %s %s (bound %s)",
					f.Name, b.Key, f.Text(b.Key), FormatDelta(d), base.Name, base.Text(b.Key), b.Text)
				if s, judged := c.Significance(i+1, b.Key); judged {
					if !s.Significant {
						why := fmt.Sprintf("p=%.3f, alpha %g", s.P, c.Alpha)
						if s.Refused != "" {
							why = s.Refused
						}
						cr.Reason += fmt.Sprintf(": not significant (%s), not failing", why)
						noise = append(noise, cr)
						continue
					}
					cr.Reason += fmt.Sprintf(", significant (p=%.3f)", s.P)
				}
			} else {
				if !b.Crossed(v) {
					continue
				}
				cr.Reason = fmt.Sprintf("%s: %s %s crosses the bound %s", f.Name, b.Key, f.Text(b.Key), b.Text)
			}
			crossed = append(crossed, cr)
		}
	}
	return crossed, noise, nil
}

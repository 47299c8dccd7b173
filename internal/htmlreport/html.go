package htmlreport

import (
	"bytes"
	_ "embed"
	"html/template"
	"io"

	"github.com/llmbench/llmbench/internal/atomicfile"
	"github.com/llmbench/llmbench/internal/metrics"
	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/table"
)

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{"table": tableHTML}).Parse(pageTemplate))

// tableHTML is a section's table as HTML.
func tableHTML(t table.Table) (template.HTML, error) { return table.HTML(&t) }

// htmlSection is a Section with its charts drawn.
type htmlSection struct {
	Section
	Views []chartView
}

// WriteHTML writes the page as one self-contained HTML document: inline
// CSS and SVG only, and a Content-Security-Policy that forbids loading
// anything, so it opens the same from file://, a CI artifact or offline.
func WriteHTML(w io.Writer, p *Page) error {
	data := struct {
		Title    string
		Sections []htmlSection
	}{Title: p.Title}
	for _, s := range p.Sections {
		hs := htmlSection{Section: s}
		for i := range s.Charts {
			c := &s.Charts[i]
			svg, err := RenderSVG(c)
			if err != nil {
				return err
			}
			hs.Views = append(hs.Views, chartView{Chart: *c, SVG: svg, Points: chartPoints(c)})
		}
		data.Sections = append(data.Sections, hs)
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFiles reads the files (result JSON, records, vLLM results, sweep
// files; see Load) and writes their HTML report to w: a run page for one
// run, a compare page for several (the first is the base), a sweep page
// per sweep file. It is what "llmbench report" and --html call.
func WriteFiles(w io.Writer, paths []string, opt Options) error {
	p, err := Build(paths, opt)
	if err != nil {
		return err
	}
	return WriteHTML(w, p)
}

// WriteFile writes the HTML report of paths (as WriteFiles) to the file
// at path through atomicfile (issue 30): a failed or interrupted write
// never leaves a half page where an old report was, and a page that
// cannot be built leaves the path untouched. Mode report.FileMode, as
// every result and report file (README.md, "How the numbers are made"):
// a page shows the results' error messages, which may echo what the
// requests carried.
func WriteFile(path string, paths []string, opt Options) error {
	p, err := Build(paths, opt)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, report.FileMode, func(w io.Writer) error { return WriteHTML(w, p) })
}

// WriteRun writes the run page of a run held in memory (see NewRun), for
// "run --html" when nothing was saved to disk.
func WriteRun(w io.Writer, name string, s *metrics.Summary, p *record.Params, recs []record.Record, extra map[string]any, opt Options) error {
	run, err := NewRun(name, s, p, recs, extra)
	if err != nil {
		return err
	}
	title := opt.Title
	if title == "" {
		title = "llmbench report"
	}
	return WriteHTML(w, &Page{Title: title, Sections: []Section{runSection(run)}})
}

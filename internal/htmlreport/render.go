package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart size in points: wide enough for axis labels, small enough for two
// side by side on a laptop screen.
const (
	chartWidth  = 5.6 * vg.Inch
	chartHeight = 3.2 * vg.Inch
)

// palette is Okabe and Ito's colour-blind safe palette; a run keeps its
// colour (Series.Color) on every chart.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // green
	{0xCC, 0x79, 0xA7, 0xff}, // purple
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x56, 0xB4, 0xE9, 0xff}, // sky
	{0x00, 0x00, 0x00, 0xff}, // black
}

var (
	grey    = color.RGBA{0x99, 0x99, 0x99, 0xff}
	dark    = color.RGBA{0x44, 0x44, 0x44, 0xff}
	red     = color.RGBA{0xCC, 0x00, 0x00, 0xff}
	green   = color.RGBA{0x00, 0x88, 0x44, 0xff}
	barFill = color.RGBA{0x56, 0x9C, 0xD0, 0xff}
)

// phaseColor colours the timeline phases.
var phaseColor = map[string]color.Color{
	PhaseQueue:  grey,
	PhaseTTFT:   palette[1],
	PhaseDecode: palette[0],
	PhaseSlow:   palette[3],
}

// markColor colours the reference lines by kind.
var markColor = map[string]color.Color{
	MarkPercentile: dark,
	MarkSLO:        red,
	MarkSaturation: dark,
	MarkMaxLoad:    green,
	MarkCap:        grey,
}

var fontOnce sync.Once

// useSansFont makes gonum's text Liberation Sans (drawn as SVG text with
// a font-family name only: nothing is embedded or fetched, the browser
// uses a local sans-serif face).
func useSansFont() {
	fontOnce.Do(func() {
		plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	})
}

// Margins of the drawing: the plot ends this far from the right edge, so
// that the last tick label is not cut in half.
const rightMargin = 14 * vg.Length(1)

// RenderSVG draws a chart as an SVG document fragment (no XML prolog),
// ready to inline in HTML. The title and the legend sit above the plot
// area, never over the data; mark labels that name a value (SLOs, the
// SLA, saturation, max load) are legend entries, so only percentile marks
// and labelled points write inside the plot.
func RenderSVG(c *Chart) (template.HTML, error) {
	useSansFont()
	p := plot.New()
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Add(plotter.NewGrid())
	var lg legend
	if err := addData(p, &lg, c); err != nil {
		return "", fmt.Errorf("chart %s: %w", c.ID, err)
	}
	p.X.Tick.Marker = niceTicks{}
	if len(c.XTicks) > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Min, p.X.Max = math.Min(p.X.Min, c.XTicks[0]*0.9), math.Max(p.X.Max, c.XTicks[len(c.XTicks)-1]*1.1)
		p.X.Tick.Marker = logTicker{ticks: c.XTicks, style: p.X.Tick.Label, width: chartWidth - rightMargin - vg.Points(60)}
	}
	if len(c.Spans) > 0 {
		p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
		p.Y.Tick.Marker = intTicks{}
	} else {
		// Heights are read against zero: an axis that starts near the
		// smallest value makes a 2 % spread look like a cliff.
		if p.Y.Min > 0 {
			p.Y.Min = 0
		}
		if p.Y.Max <= p.Y.Min {
			p.Y.Max = p.Y.Min + 1 // all zero (no errors): 0 at the bottom
		}
		p.Y.Tick.Marker = niceTicks{}
		if hasPercentileMarks(c) {
			// Headroom for the percentile labels at the top of their lines.
			p.Y.Max += (p.Y.Max - p.Y.Min) * 0.18
		}
	}
	canvas := vgsvg.NewWith(vgsvg.UseWH(chartWidth, chartHeight))
	dc := draw.New(canvas)
	top := drawHeader(dc, c.Title, &lg)
	p.Draw(draw.Crop(dc, 0, -rightMargin, 0, -top))
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	// html/template: the SVG is our own output, made from numbers and
	// escaped labels by the library.
	return template.HTML(s), nil
}

// hasPercentileMarks reports whether c has marks labelled on the plot.
func hasPercentileMarks(c *Chart) bool {
	for _, m := range append(append([]Mark{}, c.VMarks...), c.HMarks...) {
		if m.Kind == MarkPercentile {
			return true
		}
	}
	return false
}

// addData adds the chart's bars, lines, spans, marks and points to p,
// and their legend entries to lg.
func addData(p *plot.Plot, lg *legend, c *Chart) error {
	if len(c.Bars) > 0 {
		h := &plotter.Histogram{FillColor: barFill, LineStyle: draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}}
		for _, b := range c.Bars {
			h.Bins = append(h.Bins, plotter.HistogramBin{Min: b.Min, Max: b.Max, Weight: float64(b.Count)})
		}
		h.Width = c.Bars[0].Max - c.Bars[0].Min
		p.Add(h)
	}
	if len(c.Spans) > 0 {
		p.Add(&spans{c.Spans})
		for _, ph := range []string{PhaseQueue, PhaseTTFT, PhaseDecode, PhaseSlow} {
			lg.add(ph, swatch{phaseColor[ph]})
		}
	}
	for _, s := range c.Series {
		if len(c.Series) == 1 {
			s.Name = "" // the title names a lone line
		}
		if err := addSeries(p, lg, s); err != nil {
			return err
		}
	}
	if err := addPoints(p, c.Points); err != nil {
		return err
	}
	if len(c.VMarks) > 0 {
		m := &marks{marks: c.VMarks, vertical: true}
		p.Add(m)
		m.legend(lg)
	}
	if len(c.HMarks) > 0 {
		m := &marks{marks: c.HMarks}
		p.Add(m)
		m.legend(lg)
	}
	return nil
}

// addSeries adds one line (and its dots) to p, with a legend entry when
// the chart has several lines or the line has a name worth showing. The
// entry shows the line only: every filled circle in a chart is a data
// point (the browser test counts them).
func addSeries(p *plot.Plot, lg *legend, s Series) error {
	if len(s.XY) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(s.XY))
	for i, v := range s.XY {
		xys[i] = plotter.XY{X: v[0], Y: v[1]}
	}
	col := palette[s.Color%len(palette)]
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width = col, vg.Points(1.5)
	if s.Dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(l)
	if s.Dots {
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	if s.Name != "" {
		lg.add(s.Name, lineThumb{l.LineStyle})
	}
	return nil
}

// addPoints adds labelled points: failures and client-limited steps as
// red crosses, plain points (step labels) as their label only.
func addPoints(p *plot.Plot, pts []Point) error {
	if len(pts) == 0 {
		return nil
	}
	var crosses plotter.XYs
	for _, pt := range pts {
		if !pt.Plain {
			crosses = append(crosses, plotter.XY{X: pt.X, Y: pt.Y})
		}
	}
	if len(crosses) > 0 {
		sc, err := plotter.NewScatter(crosses)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: red, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
		p.Add(sc)
	}
	p.Add(&pointLabels{pts: pts})
	return nil
}

// pointLabels writes the points' labels beside them inside the plot area:
// right of the point, or left when that would leave the area, and a label
// that would cover one already written is left out. Unlike gonum's
// Labels it makes no room for its text around the plot, which squeezed
// the axis of a chart with a long label at its last point to nothing.
type pointLabels struct{ pts []Point }

// Plot implements plot.Plotter.
func (pl *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Color: dark, Font: p.X.Tick.Label.Font, Handler: p.X.Tick.Label.Handler}
	sty.Font.Size = vg.Points(7)
	gap := vg.Points(4)
	var placed []vg.Rectangle
	for _, pt := range pl.pts {
		if pt.Label == "" {
			continue
		}
		x, y := trX(pt.X), trY(pt.Y)
		w, h := sty.Width(pt.Label), sty.Height(pt.Label)
		x0, y0 := x+gap, y+vg.Points(1)
		if x0+w > c.Max.X {
			x0 = x - gap - w
		}
		if y0+h > c.Max.Y {
			y0 = y - vg.Points(1) - h
		}
		box := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + w, Y: y0 + h}}
		if x0 < c.Min.X || y0 < c.Min.Y || overlapsAny(box, placed) {
			continue
		}
		placed = append(placed, box)
		c.FillText(sty, box.Min, pt.Label)
	}
}

// overlapsAny reports whether r overlaps any of rs.
func overlapsAny(r vg.Rectangle, rs []vg.Rectangle) bool {
	for _, o := range rs {
		if r.Min.X < o.Max.X && o.Min.X < r.Max.X && r.Min.Y < o.Max.Y && o.Min.Y < r.Max.Y {
			return true
		}
	}
	return false
}

// spans draws timeline bars with the library's canvas (filled polygons in
// data coordinates), one row per request.
type spans struct{ s []Span }

// Plot implements plot.Plotter.
func (sp *spans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range sp.s {
		x0, x1 := trX(s.From), trX(math.Max(s.To, s.From))
		y0, y1 := trY(float64(s.Row)-0.4), trY(float64(s.Row)+0.4)
		pts := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
		c.FillPolygon(phaseColor[s.Phase], c.ClipPolygonXY(pts))
	}
}

// DataRange implements plot.DataRanger.
func (sp *spans) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), -0.5, 0.5
	for _, s := range sp.s {
		xmin, xmax = math.Min(xmin, s.From), math.Max(xmax, s.To)
		ymax = math.Max(ymax, float64(s.Row)+0.5)
	}
	return xmin, xmax, ymin, ymax
}

// swatch is a legend thumbnail: a filled square.
type swatch struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(s.c, pts)
}

// intTicks are whole-number ticks (request rows), at most about 10.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/10))
	var t []plot.Tick
	for v := math.Max(0, math.Ceil(lo/step)*step); v <= hi; v += step {
		t = append(t, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return t
}

package htmlreport

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// marks draws reference lines across the whole data area, vertical at an
// X value or horizontal at a Y value. Percentile marks are labelled at
// their end (several to a chart, told apart only there); the others are
// named in the legend, where their labels cannot cover data, each other
// or the axis. Their values count in the data range, so a SLO beyond
// every value still shows.
type marks struct {
	marks    []Mark
	vertical bool
}

// style is a mark's line: solid for SLOs and load marks, dashed for
// percentiles.
func (m *marks) style(mk Mark) draw.LineStyle {
	ls := draw.LineStyle{Color: markColor[mk.Kind], Width: vg.Points(1.2)}
	if mk.Kind == MarkMaxLoad {
		// Often at the saturation load: dashed, so both stay visible.
		ls.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	}
	if mk.Kind == MarkCap {
		ls.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	if mk.Kind == MarkPercentile {
		ls.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		ls.Width = vg.Points(0.8)
	}
	return ls
}

// Plot implements plot.Plotter.
func (m *marks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Color: dark, Font: p.X.Tick.Label.Font, Handler: p.X.Tick.Label.Handler, Rotation: 0}
	sty.Font.Size = vg.Points(7)
	for i, mk := range m.marks {
		ls := m.style(mk)
		labelled := mk.Kind == MarkPercentile
		if m.vertical {
			x := trX(mk.At)
			c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
			if !labelled {
				continue
			}
			s := sty
			s.Rotation = math.Pi / 2
			// Stagger labels so neighbouring marks stay legible.
			y := c.Max.Y - vg.Points(4) - vg.Length(i%3)*vg.Points(34)
			s.XAlign, s.YAlign = draw.XRight, draw.YTop
			c.FillText(s, vg.Point{X: x - vg.Points(1), Y: y}, mk.Label)
			continue
		}
		y := trY(mk.At)
		c.StrokeLine2(ls, c.Min.X, y, c.Max.X, y)
		if !labelled {
			continue
		}
		s := sty
		s.XAlign, s.YAlign = draw.XLeft, draw.YBottom
		c.FillText(s, vg.Point{X: c.Min.X + vg.Points(3), Y: y + vg.Points(1)}, mk.Label)
	}
}

// DataRange implements plot.DataRanger: the marks' values on their axis.
func (m *marks) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, mk := range m.marks {
		if m.vertical {
			xmin, xmax = math.Min(xmin, mk.At), math.Max(xmax, mk.At)
		} else {
			ymin, ymax = math.Min(ymin, mk.At), math.Max(ymax, mk.At)
		}
	}
	return xmin, xmax, ymin, ymax
}

// legend adds one entry per labelled mark other than percentiles (those
// are labelled on the chart itself).
func (m *marks) legend(lg *legend) {
	for _, mk := range m.marks {
		if mk.Kind != MarkPercentile {
			lg.add(mk.Label, lineThumb{m.style(mk)})
		}
	}
}

// lineThumb is a legend thumbnail: a horizontal line.
type lineThumb struct{ ls draw.LineStyle }

// Thumbnail implements plot.Thumbnailer.
func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.ls, c.Min.X, y, c.Max.X, y)
}

package htmlreport

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legend is a chart's key, drawn in rows under the title instead of over
// the plot (gonum's legend sits inside the plot area, where it covered
// data and the labels of marks near the top).
type legend struct {
	entries []legendEntry
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// add appends an entry, once per name.
func (l *legend) add(name string, thumb plot.Thumbnailer) {
	for _, e := range l.entries {
		if e.name == name {
			return
		}
	}
	l.entries = append(l.entries, legendEntry{name, thumb})
}

// Header layout, in points.
const (
	titleSize   = 12
	legendSize  = 9
	thumbWidth  = 16
	entryGap    = 12
	headerSpace = 4
)

// headerStyle is the style of the title (size titleSize) or the legend.
func headerStyle(size float64) text.Style {
	return text.Style{Color: dark, Font: font.From(plot.DefaultFont, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

// drawHeader writes the title centred at the top of c and the legend
// under it, in as many centred rows as the width needs, and returns the
// height they take.
func drawHeader(c draw.Canvas, title string, lg *legend) vg.Length {
	ts := headerStyle(titleSize)
	ts.Color = nil
	y := c.Max.Y - vg.Points(headerSpace)
	if title != "" {
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: c.Center().X, Y: y}, title)
		y -= ts.Height(title)
	}
	ls := headerStyle(legendSize)
	ls.YAlign = draw.YCenter
	rowH := vg.Points(legendSize * 1.5)
	width := func(e legendEntry) vg.Length { return vg.Points(thumbWidth+3) + ls.Width(e.name) }
	maxW := c.Max.X - c.Min.X - vg.Points(2*entryGap)
	for i := 0; i < len(lg.entries); {
		// One row: as many entries as fit (at least one).
		j, w := i+1, width(lg.entries[i])
		for j < len(lg.entries) && w+vg.Points(entryGap)+width(lg.entries[j]) <= maxW {
			w += vg.Points(entryGap) + width(lg.entries[j])
			j++
		}
		cy := y - rowH/2
		x := c.Center().X - w/2
		for _, e := range lg.entries[i:j] {
			tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: cy - vg.Points(3)}, Max: vg.Point{X: x + vg.Points(thumbWidth), Y: cy + vg.Points(3)}}}
			e.thumb.Thumbnail(&tc)
			c.FillText(ls, vg.Point{X: x + vg.Points(thumbWidth+3), Y: cy}, e.name)
			x += width(e) + vg.Points(entryGap)
		}
		y -= rowH
		i = j
	}
	return c.Max.Y - y + vg.Points(headerSpace)
}

// logTicker marks each given load on a log axis and labels those that
// fit: a label closer to the previous labelled one than their half
// widths and a gap is left out (its tick stays), so a refined ladder
// (16, 20, 24, 32) does not print its loads over one another.
type logTicker struct {
	ticks []float64
	style text.Style
	// width is the plot area's width (an estimate: the Y axis takes the
	// rest of the chart).
	width vg.Length
}

// Ticks implements plot.Ticker.
func (lt logTicker) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	span := math.Log(hi) - math.Log(lo)
	lastX, lastW := math.Inf(-1), 0.0
	for _, v := range lt.ticks {
		if v < lo || v > hi {
			continue
		}
		label := strconv.FormatFloat(v, 'g', -1, 64)
		x := float64(lt.width) * (math.Log(v) - math.Log(lo)) / span
		w := float64(lt.style.Width(label))
		if x-lastX < (w+lastW)/2+6 {
			out = append(out, plot.Tick{Value: v})
			continue
		}
		out = append(out, plot.Tick{Value: v, Label: label})
		lastX, lastW = x, w
	}
	return out
}

// niceTicks are about five labelled ticks at 1, 2 or 5 times a power of
// ten, with as many decimals as the step needs (500, 1000, 1500 rather
// than gonum's 500.00 when an axis is pinned to zero).
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = m * mag
	}
	dec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var out []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
	}
	return out
}

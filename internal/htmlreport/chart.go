package htmlreport

// Chart is the data of one chart, independent of how it is drawn: the
// pure step between loaded files and pixels, and what the golden tests
// check. Units are in the axis labels; X and Y values are in those units.
type Chart struct {
	// ID is unique within a page (used as the HTML anchor and in tests).
	ID      string `json:"id"`
	Title   string `json:"title"`
	XLabel  string `json:"x_label"`
	YLabel  string `json:"y_label"`
	Caption string `json:"caption"`
	// Series are lines, one per run or statistic.
	Series []Series `json:"series,omitempty"`
	// Bars are histogram bins (one set per chart).
	Bars []Bar `json:"bars,omitempty"`
	// Spans are horizontal timeline bars, one row per request.
	Spans []Span `json:"spans,omitempty"`
	// VMarks are vertical lines at an X value (percentiles, SLOs,
	// saturation, the max load under the SLA).
	VMarks []Mark `json:"v_marks,omitempty"`
	// HMarks are horizontal lines at a Y value (SLA thresholds).
	HMarks []Mark `json:"h_marks,omitempty"`
	// Points are labelled single points (failures, the saturation point).
	Points []Point `json:"points,omitempty"`
	// XTicks, when set, are the only X ticks, and the X axis is
	// logarithmic (a geometric ladder of loads: 1, 2, 4, ... 64).
	XTicks []float64 `json:"x_ticks,omitempty"`
	// Note says what the chart leaves out (e.g. rows beyond the limit).
	Note string `json:"note,omitempty"`
}

// Series is one line of (X, Y) points; Dots draws a marker at each point.
type Series struct {
	Name string       `json:"name"`
	XY   [][2]float64 `json:"xy"`
	Dots bool         `json:"dots,omitempty"`
	// Dashed draws the line dashed (a second statistic of the same run).
	Dashed bool `json:"dashed,omitempty"`
	// Color is an index into the palette (runs keep their colour across
	// charts).
	Color int `json:"color"`
}

// Bar is one histogram bin [Min, Max) holding Count values.
type Bar struct {
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Count int     `json:"count"`
}

// Span phases of a timeline bar.
const (
	PhaseQueue  = "queue"
	PhaseTTFT   = "ttft"
	PhaseDecode = "decode"
	// PhaseSlow is decode whose largest ITL crossed the slow threshold.
	PhaseSlow = "decode-slow-itl"
)

// Span is one phase of one request on a timeline: Row is the request's
// row (0 at the top), From and To in seconds since the run's first send.
type Span struct {
	Row   int     `json:"row"`
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Phase string  `json:"phase"`
}

// Mark kinds.
const (
	MarkPercentile = "percentile"
	MarkSLO        = "slo"
	MarkSaturation = "saturation"
	MarkMaxLoad    = "max-load"
	// MarkCap is a run's --max-concurrency on the in-flight chart.
	MarkCap = "cap"
)

// Mark is a reference line at a value with its label.
type Mark struct {
	At    float64 `json:"at"`
	Label string  `json:"label"`
	Kind  string  `json:"kind"`
}

// Point is one labelled point: a red cross (a failure, a client-limited
// step) unless Plain, which writes the label only (a step's load beside
// its marker).
type Point struct {
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Label string  `json:"label"`
	Plain bool    `json:"plain,omitempty"`
}

// empty reports whether the chart has nothing to draw.
func (c *Chart) empty() bool {
	for _, s := range c.Series {
		if len(s.XY) > 0 {
			return false
		}
	}
	return len(c.Bars) == 0 && len(c.Spans) == 0 && len(c.Points) == 0
}

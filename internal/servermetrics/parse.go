package servermetrics

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// point is one series' value in one scrape. A counter or gauge has one
// value; a histogram has its cumulative bucket counts (in les order), then
// its count, then its sum.
type point struct {
	vals []float64
}

// parsedSeries is one series of one scrape.
type parsedSeries struct {
	family string // canonical name
	typ    string
	labels map[string]string
	les    []float64 // histogram upper bounds, +Inf last
	p      point
}

// exposed is one scrape's kept series, plus the names the server used
// for renamed families (canonical name -> wire name).
type exposed struct {
	series    []parsedSeries
	exposedAs map[string]string
}

// parse decodes one exposition (the Prometheus text format, or
// OpenMetrics 1.0, which expfmt's text decoder reads) and keeps the
// families in keep (by wire name). expfmt, not a hand-written parser,
// reads the bytes.
//
// OpenMetrics declares a counter without its _total suffix ("# TYPE foo
// counter", then "foo_total 1"), which expfmt's text decoder reads as an
// untyped family foo_total (dropping the empty counter foo); parse makes
// such a family a counter again, named as the text format names it (TGI's
// counters carry no _total there), so both formats give the same keys.
func parse(r io.Reader, format expfmt.Format, keep func(string) bool) (exposed, error) {
	dec := expfmt.NewDecoder(r, format)
	fams := map[string]*dto.MetricFamily{}
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return exposed{}, err
		}
		fams[mf.GetName()] = mf
	}
	if len(fams) == 0 {
		return exposed{}, errors.New("no metric families in the answer")
	}
	om := format.FormatType() == expfmt.TypeOpenMetrics
	for name, mf := range fams {
		base, ok := strings.CutSuffix(name, "_total")
		if !ok || mf.GetType() != dto.MetricType_UNTYPED || !om && Known[name] != TypeCounter {
			continue
		}
		for _, m := range mf.Metric {
			v := m.GetUntyped().GetValue()
			m.Counter = &dto.Counter{Value: &v}
			m.Untyped = nil
		}
		mf.Type = dto.MetricType_COUNTER.Enum()
		if _, known := Known[name]; !known && Known[base] == TypeCounter {
			// TGI's counters have no _total in the text format.
			delete(fams, name)
			mf.Name = &base
			fams[base] = mf
		}
	}
	names := make([]string, 0, len(fams))
	for name := range fams {
		names = append(names, name)
	}
	sort.Strings(names)
	out := exposed{exposedAs: map[string]string{}}
	for _, name := range names {
		if !keep(name) {
			continue
		}
		mf := fams[name]
		canon := Canonical(name)
		if canon != name {
			out.exposedAs[canon] = name
		}
		typ := typeName(mf.GetType())
		for _, m := range mf.Metric {
			ps := parsedSeries{family: canon, typ: typ, labels: labelMap(m)}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				ps.p.vals = []float64{m.GetCounter().GetValue()}
			case dto.MetricType_GAUGE:
				ps.p.vals = []float64{m.GetGauge().GetValue()}
			case dto.MetricType_UNTYPED:
				ps.p.vals = []float64{m.GetUntyped().GetValue()}
			case dto.MetricType_HISTOGRAM:
				ps.les, ps.p.vals = histogramVals(m.GetHistogram())
			default: // summaries and gauge histograms: not read
				continue
			}
			out.series = append(out.series, ps)
		}
	}
	return out, nil
}

// typeName is the result's name for a family type.
func typeName(t dto.MetricType) string {
	switch t {
	case dto.MetricType_COUNTER:
		return TypeCounter
	case dto.MetricType_GAUGE:
		return TypeGauge
	case dto.MetricType_HISTOGRAM:
		return TypeHistogram
	case dto.MetricType_SUMMARY:
		return "summary"
	case dto.MetricType_GAUGE_HISTOGRAM:
		return "gaugehistogram"
	}
	return TypeUntyped
}

func labelMap(m *dto.Metric) map[string]string {
	if len(m.Label) == 0 {
		return nil
	}
	l := make(map[string]string, len(m.Label))
	for _, lp := range m.Label {
		l[lp.GetName()] = lp.GetValue()
	}
	return l
}

// histogramVals returns a classic histogram's upper bounds (with +Inf
// last, added when the exposition left it implicit) and its cumulative
// counts, count and sum.
func histogramVals(h *dto.Histogram) ([]float64, []float64) {
	les := make([]float64, 0, len(h.Bucket)+1)
	vals := make([]float64, 0, len(h.Bucket)+3)
	for _, b := range h.Bucket {
		les = append(les, b.GetUpperBound())
		vals = append(vals, float64(b.GetCumulativeCount()))
	}
	if len(les) == 0 || !math.IsInf(les[len(les)-1], 1) {
		les = append(les, math.Inf(1))
		vals = append(vals, float64(h.GetSampleCount()))
	}
	vals = append(vals, float64(h.GetSampleCount()), h.GetSampleSum())
	return les, vals
}

// seriesKey identifies a series across scrapes: family and sorted labels.
func seriesKey(family string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(family)
	for _, k := range keys {
		fmt.Fprintf(&b, "\xff%s=%s", k, labels[k])
	}
	return b.String()
}

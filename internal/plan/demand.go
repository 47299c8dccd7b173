package plan

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Unit is what a demand curve counts.
type Unit string

// Demand units, named like the CSV's second column.
const (
	// Users: concurrent users (requests in flight, or closed-loop users
	// with their think time), compared with a sweep's max load directly.
	Users Unit = "users"
	// RequestsPerS: arrivals per second, turned into concurrent users by
	// Little's law (see LittlesLaw).
	RequestsPerS Unit = "requests_per_s"
)

// MinutesPerDay is the period of a demand curve: a day that repeats.
const MinutesPerDay = 24 * 60

// DemandSlot is one slot of a demand curve: from Minute (minutes after
// midnight) until the next slot's minute, or, for the last slot, until
// the first slot's minute on the next day (the curve repeats daily).
type DemandSlot struct {
	Minute int
	Value  float64
}

// Demand is a day's demand, slot by slot, in one Unit.
type Demand struct {
	Unit Unit
	// Source says where the curve came from, for the output ("demand.csv",
	// "--peak-users 40 --profile diurnal").
	Source string
	// Slots are in increasing Minute order, at least one.
	Slots []DemandSlot
}

// Length is slot i's length in minutes (the last wraps to the first on
// the next day; a single slot lasts the whole day).
func (d *Demand) Length(i int) int {
	if i+1 < len(d.Slots) {
		return d.Slots[i+1].Minute - d.Slots[i].Minute
	}
	return d.Slots[0].Minute + MinutesPerDay - d.Slots[i].Minute
}

// Peak is the index of the highest slot (the first of equals).
func (d *Demand) Peak() int {
	p := 0
	for i, s := range d.Slots {
		if s.Value > d.Slots[p].Value {
			p = i
		}
	}
	return p
}

// clock is a minute of the day as HH:MM.
func clock(minute int) string { return fmt.Sprintf("%02d:%02d", minute/60, minute%60) }

// parseClock reads HH:MM (or H:MM), 00:00 to 23:59.
func parseClock(s string) (int, bool) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || len(m) != 2 || len(h) < 1 || len(h) > 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, false
	}
	return hh*60 + mm, true
}

// ReadDemandCSV reads a demand curve: a header "time,users" or
// "time,requests_per_s", then one line per slot with its start time of
// day (HH:MM, increasing) and the demand from then until the next line
// (the last line's lasts until the first line's time next day). Lines
// starting with # are comments. Errors name the line: "demand.csv line 4:
// ...". name labels errors and the Demand's Source.
func ReadDemandCSV(r io.Reader, name string) (Demand, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = 2
	cr.TrimLeadingSpace = true
	d := Demand{Source: name}
	fail := func(line int, format string, a ...any) (Demand, error) {
		return Demand{}, fmt.Errorf("%s line %d: %s", name, line, fmt.Sprintf(format, a...))
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return fail(pe.Line, "%v (want two columns: time,users or time,requests_per_s)", pe.Err)
			}
			return Demand{}, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if d.Unit == "" {
			unit := Unit(strings.TrimSpace(rec[1]))
			// Spreadsheets often save UTF-8 with a byte-order mark.
			if strings.TrimSpace(strings.TrimPrefix(rec[0], "\ufeff")) != "time" || (unit != Users && unit != RequestsPerS) {
				return fail(line, "header %q: want time,users or time,requests_per_s", strings.Join(rec, ","))
			}
			d.Unit = unit
			continue
		}
		minute, ok := parseClock(rec[0])
		if !ok {
			return fail(line, "time %q is not a time of day HH:MM (00:00 to 23:59)", rec[0])
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fail(line, "%s %q is not a number >= 0", d.Unit, rec[1])
		}
		if n := len(d.Slots); n > 0 && minute <= d.Slots[n-1].Minute {
			return fail(line, "time %s does not come after %s (times must increase within one day)", clock(minute), clock(d.Slots[n-1].Minute))
		}
		d.Slots = append(d.Slots, DemandSlot{Minute: minute, Value: v})
	}
	if d.Unit == "" {
		return Demand{}, fmt.Errorf("%s: empty (want a header time,users or time,requests_per_s and one line per slot)", name)
	}
	if len(d.Slots) == 0 {
		return Demand{}, fmt.Errorf("%s: no slots after the header", name)
	}
	return d, nil
}

// Profiles --profile knows.
const (
	// Diurnal is a day of 24 hourly slots rising from the off-peak at
	// 02:00 to the peak at 14:00 and back, along half a cosine each way.
	Diurnal = "diurnal"
	// Flat is the peak all day.
	Flat = "flat"
)

// Profile is a made-up day of 24 hourly slots in users: Flat holds peak
// all day; Diurnal follows users(h) = off + (peak - off) × (1 - cos(2π(h
// - 2)/24)) / 2, rounded to whole users: off at 02:00, peak at 14:00.
// Example: peak 40, off-peak 4 gives 4 at 02:00, 22 at 08:00, 40 at
// 14:00, 22 at 20:00.
func Profile(kind string, peak, offPeak float64) (Demand, error) {
	if !(peak > 0) || math.IsInf(peak, 0) {
		return Demand{}, fmt.Errorf("--peak-users %v: want a number > 0", peak)
	}
	if offPeak < 0 || offPeak > peak || math.IsNaN(offPeak) {
		return Demand{}, fmt.Errorf("--off-peak-users %v: want 0 to the peak (%v)", offPeak, peak)
	}
	d := Demand{Unit: Users, Source: fmt.Sprintf("--peak-users %s --profile %s", fnum(peak), kind)}
	switch kind {
	case Flat:
	case Diurnal:
		d.Source += " --off-peak-users " + fnum(offPeak)
	default:
		return Demand{}, fmt.Errorf("--profile %q: want diurnal or flat", kind)
	}
	for h := range 24 {
		v := peak
		if kind == Diurnal {
			v = math.Round(offPeak + (peak-offPeak)*(1-math.Cos(2*math.Pi*float64(h-2)/24))/2)
		}
		d.Slots = append(d.Slots, DemandSlot{Minute: h * 60, Value: v})
	}
	return d, nil
}

// fnum is a number in Go's shortest form: 40, 6.4.
func fnum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

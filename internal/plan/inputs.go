package plan

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
)

// Prices are the prices per instance-hour given for the sweeps (llmbench
// plan --price-per-hour): none (each sweep keeps its own), one for every
// sweep, or one per sweep in order.
type Prices []float64

// ParsePrices reads comma-separated prices > 0 in USD per instance-hour
// ("" = none).
func ParsePrices(s string) (Prices, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out Prices
	for item := range strings.SplitSeq(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("--price-per-hour %q: want a price > 0 in USD per instance-hour", strings.TrimSpace(item))
		}
		out = append(out, v)
	}
	return out, nil
}

// Check refuses a list of several prices that is not one per sweep.
func (ps Prices) Check(sweeps int) error {
	if len(ps) > 1 && len(ps) != sweeps {
		return fmt.Errorf("--price-per-hour: %d values for %d sweeps (give one for all, or one per sweep)", len(ps), sweeps)
	}
	return nil
}

// For is the price of sweep i, if one was given: the only one, or the
// i-th.
func (ps Prices) For(i int) (float64, bool) {
	switch len(ps) {
	case 0:
		return 0, false
	case 1:
		return ps[0], true
	}
	return ps[i], true
}

// Apply prices sweep i at its given price, if any, keeping the sweep's
// instance count (1 when it was unpriced).
func (ps Prices) Apply(i int, s *capacity.Sweep) {
	price, ok := ps.For(i)
	if !ok {
		return
	}
	count := 1
	if s.Pricing != nil {
		count = s.Pricing.InstanceCount
	}
	s.Price(&capacity.Pricing{InstanceCount: count, USDPerInstanceHour: price, Source: "--price-per-hour (llmbench plan)"})
}

// DemandSource is where the day's demand comes from: a CSV file, or a
// peak for a Profile. The Given fields say which settings were given at
// all (a zero peak is a peak).
type DemandSource struct {
	// CSV is the demand file's path ("" = none).
	CSV string
	// Peak and OffPeak are the users at the peak and at 02:00; OffPeak
	// defaults to a tenth of the peak, rounded.
	Peak, OffPeak           float64
	PeakGiven, OffPeakGiven bool
	// Profile is Diurnal or Flat.
	Profile      string
	ProfileGiven bool
}

// Demand reads the CSV or makes the profile; giving both, neither, or a
// setting that belongs to the other is an error.
func (s *DemandSource) Demand() (Demand, error) {
	switch {
	case s.CSV != "" && s.PeakGiven:
		return Demand{}, fmt.Errorf("give --demand or --peak-users, not both")
	case s.CSV == "" && !s.PeakGiven:
		return Demand{}, fmt.Errorf("give the demand: --demand FILE (time,users or time,requests_per_s) or --peak-users N")
	case s.PeakGiven:
		if s.OffPeakGiven && s.Profile != Diurnal {
			return Demand{}, fmt.Errorf("--off-peak-users goes with --profile diurnal")
		}
		off := s.OffPeak
		if !s.OffPeakGiven {
			off = math.Round(s.Peak / 10)
		}
		return Profile(s.Profile, s.Peak, off)
	}
	if s.ProfileGiven || s.OffPeakGiven {
		return Demand{}, fmt.Errorf("--profile and --off-peak-users go with --peak-users, not --demand")
	}
	f, err := os.Open(s.CSV)
	if err != nil {
		return Demand{}, err
	}
	defer f.Close()
	return ReadDemandCSV(f, s.CSV)
}

// NotPlanned is the error of a plan without a recommendation: no
// candidate could be planned and priced, each for its reason; nil when
// there is a recommendation.
func NotPlanned(p *Plan) error {
	if p.Recommendation != nil {
		return nil
	}
	var why []string
	for _, c := range p.Candidates {
		why = append(why, fmt.Sprintf("%s: %s", c.File, c.Reason))
	}
	return fmt.Errorf("no sweep can be planned and priced (%s)", strings.Join(why, "; "))
}

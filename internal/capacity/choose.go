package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Need is the load a deployment must carry within the SLA: Users
// concurrent users (compared with concurrency and users sweeps) or RPS
// requests per second (compared with any sweep). At most one is set;
// neither means no recommendation, only the candidates' figures.
type Need struct {
	Users float64 `json:"users,omitempty"`
	RPS   float64 `json:"rps,omitempty"`
}

// Valid reports whether n is a need Choose takes: at most one of Users
// and RPS set, neither negative, infinite or NaN (none set: no need).
func (n Need) Valid() bool {
	sum := n.Users + n.RPS
	return n.Users >= 0 && n.RPS >= 0 && !(n.Users > 0 && n.RPS > 0) && !math.IsInf(sum, 0) && !math.IsNaN(sum)
}

// set reports whether a need was given.
func (n Need) set() bool { return n.Users > 0 || n.RPS > 0 }

// String is the need in words: "40 users", "12.5 req/s".
func (n Need) String() string {
	if n.RPS > 0 {
		return strconv.FormatFloat(n.RPS, 'f', -1, 64) + " req/s"
	}
	return strconv.FormatFloat(n.Users, 'f', -1, 64) + " users"
}

// Candidate is one swept endpoint or instance type, as compare shows it:
// its capacity under the SLA, the figures at that load and, with a Need,
// how many of it the need takes and what they cost.
type Candidate struct {
	Label    string `json:"label"`
	File     string `json:"file,omitempty"`
	LoadKind Kind   `json:"load_kind"`
	// SLA is the sweep's SLA as text ("" = none).
	SLA string `json:"sla"`
	// MeetsSLA is true when some load met the SLA (MaxLoadUnderSLA set).
	MeetsSLA bool `json:"meets_sla"`
	// MaxLoad is the largest load under the SLA, with the figures there
	// (null when the SLA was never met).
	MaxLoad                 *float64     `json:"max_load_under_sla"`
	MaxInvocationsPerMinute *float64     `json:"max_invocations_per_minute"`
	OutputThroughput        *float64     `json:"output_throughput"`
	MeanPerUserTPS          *float64     `json:"mean_per_user_tps"`
	P10PerUserTPS           *float64     `json:"p10_per_user_tps"`
	USDPer1MOutputTokens    *float64     `json:"usd_per_1m_output_tokens"`
	Utilization             *Utilization `json:"utilization"`
	// Pricing is the sweep's (null = not priced); USDPerHour is what one
	// swept endpoint (Pricing.InstanceCount instances) costs an hour.
	Pricing    *Pricing `json:"pricing"`
	USDPerHour *float64 `json:"usd_per_hour"`
	// Capacity is one swept endpoint's capacity in the need's unit (users,
	// or req/s); null without a need or when not comparable.
	Capacity *float64 `json:"capacity"`
	// Instances is how many instances carry the need: ceil(need ÷
	// Capacity) swept endpoints × Pricing.InstanceCount (1 unpriced).
	Instances *int `json:"instances"`
	// CostPerHour and CostPerMonth (HoursPerMonth) are what those
	// instances cost; null when unpriced.
	CostPerHour  *float64 `json:"cost_per_hour"`
	CostPerMonth *float64 `json:"cost_per_month"`
	// Eligible is true when the candidate can be recommended; otherwise
	// Reason says why not.
	Eligible bool   `json:"eligible"`
	Reason   string `json:"reason,omitempty"`
}

// Recommendation is the cheapest candidate that meets the SLA at the
// needed load.
type Recommendation struct {
	Label        string  `json:"label"`
	Instances    int     `json:"instances"`
	CostPerHour  float64 `json:"cost_per_hour"`
	CostPerMonth float64 `json:"cost_per_month"`
}

// Choice is compare's answer over sweeps: every candidate, the
// recommendation (null without a need or an eligible candidate), the
// answer in plain words and the caveats.
type Choice struct {
	Need           *Need           `json:"need"`
	Recommendation *Recommendation `json:"recommendation"`
	Candidates     []Candidate     `json:"candidates"`
	Summary        string          `json:"summary"`
	Notes          []string        `json:"notes"`
}

// CandidateOf reads a sweep's figures at its largest load under the SLA.
// They are taken from the steps, not from AtSLA, so sweep files written
// before AtSLA existed compare too; cost figures need the sweep's Pricing.
func CandidateOf(label, file string, s *Sweep) Candidate {
	c := Candidate{Label: label, File: file, LoadKind: s.LoadKind, SLA: s.SLA.String(), Pricing: s.Pricing}
	if s.Pricing != nil {
		h := s.Pricing.USDPerHour()
		c.USDPerHour = &h
	}
	ml := s.MaxLoadUnderSLA.Load
	if ml == nil {
		return c
	}
	for i := range s.Steps {
		r := &s.Steps[i]
		if r.Load != *ml {
			continue
		}
		c.MeetsSLA = true
		load, rpm, out, mean, p10 := r.Load, 60*r.RequestThroughput, r.OutputThroughput, r.MeanPerUserTPS, r.P10PerUserTPS
		c.MaxLoad, c.MaxInvocationsPerMinute, c.OutputThroughput, c.MeanPerUserTPS, c.P10PerUserTPS = &load, &rpm, &out, &mean, &p10
		c.Utilization = r.Utilization
		if c.USDPerHour != nil {
			c.USDPer1MOutputTokens = perHourOf(*c.USDPerHour, r.OutputThroughput, 1e6)
		}
	}
	return c
}

// slaReason says why c has no capacity under an SLA ("" when it has).
func slaReason(c *Candidate) string {
	switch {
	case c.SLA == "":
		return "the sweep has no SLA (--sla)"
	case !c.MeetsSLA:
		return "never meets the SLA at any load tested"
	}
	return ""
}

// capacityFor is one swept endpoint's capacity in the need's unit, or
// why there is none. Users: the max load of a concurrency or users sweep
// (a request-rate sweep does not say how many users it served). RPS: the
// max load of a request-rate sweep, else the completed req/s at the max
// load of a closed-loop sweep.
func capacityFor(c *Candidate, need Need) (float64, string) {
	if why := slaReason(c); why != "" {
		return 0, why
	}
	switch {
	case need.Users > 0 && c.LoadKind == RequestRate:
		return 0, "swept request rates; --need-users needs a --concurrency or --users sweep (use --need-rps)"
	case need.RPS > 0 && c.LoadKind != RequestRate:
		return *c.MaxInvocationsPerMinute / 60, ""
	}
	return *c.MaxLoad, ""
}

// size fills c's instance count and costs for need; false with c.Reason
// set when c cannot carry it.
func size(c *Candidate, need Need) bool {
	capa, why := capacityFor(c, need)
	if why == "" && !(capa > 0) {
		why = "its capacity under the SLA is zero"
	}
	if why != "" {
		c.Reason = why
		return false
	}
	c.Capacity = &capa
	want := need.Users
	if need.RPS > 0 {
		want = need.RPS
	}
	// The tolerance keeps 12 ÷ 6 from rounding up to 3 on a float error.
	units := int(math.Ceil(want/capa - 1e-9))
	per := 1
	if c.Pricing != nil {
		per = max(c.Pricing.InstanceCount, 1)
	}
	n := units * per
	c.Instances = &n
	if c.USDPerHour == nil {
		c.Reason = "not priced (sweep without --price-per-hour or --instance-type)"
		return false
	}
	h := float64(units) * *c.USDPerHour
	m := h * HoursPerMonth
	c.CostPerHour, c.CostPerMonth = &h, &m
	return true
}

// Choose sizes every candidate for need and recommends the cheapest per
// hour among those that meet the SLA and are priced; ties go to fewer
// instances, then to the earlier candidate. A candidate that never met
// the SLA, has no SLA, no price, or a load kind the need cannot use is
// listed with its reason and never recommended. Without a need there is
// no recommendation.
func Choose(cands []Candidate, need Need) *Choice {
	ch := &Choice{Candidates: append([]Candidate(nil), cands...), Notes: []string{}}
	if need.set() {
		ch.Need = &need
	}
	var best *Candidate
	for i := range ch.Candidates {
		c := &ch.Candidates[i]
		if !need.set() {
			c.Reason = slaReason(c)
			continue
		}
		c.Eligible = size(c, need)
		if c.Eligible && (best == nil || *c.CostPerHour < *best.CostPerHour ||
			(*c.CostPerHour == *best.CostPerHour && *c.Instances < *best.Instances)) {
			best = c
		}
	}
	if best != nil {
		ch.Recommendation = &Recommendation{Label: best.Label, Instances: *best.Instances, CostPerHour: *best.CostPerHour, CostPerMonth: *best.CostPerMonth}
	}
	ch.Notes = choiceNotes(ch.Candidates)
	ch.Summary = choiceWords(ch, best)
	return ch
}

// choiceNotes are the caveats of setting these candidates side by side.
func choiceNotes(cands []Candidate) []string {
	notes := []string{}
	slas, kinds := map[string]bool{}, map[Kind]bool{}
	for i := range cands {
		slas[cands[i].SLA] = true
		kinds[cands[i].LoadKind] = true
	}
	if len(slas) > 1 {
		notes = append(notes, "the sweeps were judged against different SLAs: their capacities are not comparable")
	}
	if len(kinds) > 1 {
		notes = append(notes, "the sweeps count load differently (concurrency, users with think time, request rate): compare like with like")
	}
	return notes
}

// choiceWords is the answer in plain words.
func choiceWords(ch *Choice, best *Candidate) string {
	var parts []string
	if ch.Need == nil {
		parts = append(parts, "no need given (--need-users or --need-rps): no recommendation")
	} else if best == nil {
		parts = append(parts, fmt.Sprintf("no candidate can be recommended for %s", ch.Need))
	} else {
		parts = append(parts, fmt.Sprintf("recommended: %s, %s for %s within the SLA (%s), $%s/hour ($%s/month)",
			best.Label, instancesWords(*best.Instances), ch.Need, best.SLA, USD(*best.CostPerHour), USD(*best.CostPerMonth)))
	}
	for i := range ch.Candidates {
		c := &ch.Candidates[i]
		switch {
		case c == best:
		case c.Eligible:
			parts = append(parts, fmt.Sprintf("%s would take %s at $%s/hour", c.Label, instancesWords(*c.Instances), USD(*c.CostPerHour)))
		case c.Reason != "":
			parts = append(parts, fmt.Sprintf("%s: %s", c.Label, c.Reason))
		}
	}
	return strings.Join(parts, "; ") + "."
}

func instancesWords(n int) string {
	if n == 1 {
		return "1 instance"
	}
	return strconv.Itoa(n) + " instances"
}

// USD is a dollar amount with two decimals and thousands separators:
// 1234.5 is "1,234.50" (compare --need-users and plan print money so).
func USD(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	whole, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	whole = strings.TrimPrefix(whole, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}

package capacity

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// cand is a candidate swept at kind with max load ml (0 = never met the
// SLA), rps completed req/s there, and one endpoint of count instances
// at price per instance-hour (0 = unpriced).
func cand(label string, kind Kind, ml, rps, price float64, count int) Candidate {
	s := &Sweep{Label: label, LoadKind: kind, SLA: SLA{{Key: "p99_ttft_ms", Op: "<", Value: 500}}}
	loads := []float64{1, 2, 4, 8, 16, 32}
	if ml > 0 && !slices.Contains(loads, ml) {
		loads = append(loads, ml)
		slices.Sort(loads)
	}
	for _, l := range loads {
		pass := ml > 0 && l <= ml
		s.Steps = append(s.Steps, Row{Load: l, LoadKind: kind, RequestThroughput: rps * l / max(ml, 1), OutputThroughput: 100 * l, SLAPass: &pass})
	}
	if ml > 0 {
		s.MaxLoadUnderSLA.Load = &ml
	}
	if price > 0 {
		s.Price(&Pricing{InstanceCount: count, USDPerInstanceHour: price, Source: SourceTest})
	}
	return CandidateOf(label, label+".json", s)
}

// SourceTest labels the tests' prices.
const SourceTest = "test"

func TestChoose(t *testing.T) {
	t.Parallel()
	small := cand("small", Concurrency, 4, 2, 1, 1)   // 4 users for $1/h
	big := cand("big", Concurrency, 16, 8, 3, 1)      // 16 users for $3/h: cheaper per user
	never := cand("never", Concurrency, 0, 0, 0.5, 1) // cheapest, never meets the SLA
	free := cand("free", Concurrency, 8, 4, 0, 1)     // not priced
	pair := cand("pair", Concurrency, 10, 5, 1, 2)    // an endpoint of 2 instances: 10 users for $2/h
	rate := cand("rate", RequestRate, 8, 7.9, 1, 1)   // 8 req/s for $1/h
	tests := []struct {
		name      string
		cands     []Candidate
		need      Need
		want      string // recommended label, "" = none
		instances int
		perHour   float64
		words     []string
	}{
		// 40 users: small needs ceil(40/4) = 10 × $1, big ceil(40/16) = 3 × $3.
		{"cheaper per user wins", []Candidate{small, big, never}, Need{Users: 40}, "big", 3, 9,
			[]string{"recommended: big, 3 instances for 40 users", "small would take 10 instances at $10.00/hour", "never: never meets the SLA"}},
		// 4 users: one small ($1) beats one big ($3).
		{"small need, small instance", []Candidate{small, big}, Need{Users: 4}, "small", 1, 1, nil},
		// exactly divisible: 32/16 = 2, not 3
		{"exact multiple", []Candidate{big}, Need{Users: 32}, "big", 2, 6, nil},
		{"never meets the SLA, never recommended", []Candidate{never}, Need{Users: 1}, "", 0, 0,
			[]string{"no candidate can be recommended for 1 users", "never: never meets the SLA at any load tested"}},
		{"unpriced is listed, not recommended", []Candidate{free, small}, Need{Users: 8}, "small", 2, 2,
			[]string{"free: not priced"}},
		// 25 users: ceil(25/10) = 3 endpoints of 2 = 6 instances, $6/h;
		// small: 7 × $1 = $7.
		{"instance count multiplies", []Candidate{small, pair}, Need{Users: 25}, "pair", 6, 6, nil},
		// 20 req/s: rate ceil(20/8) = 3 × $1; big serves 8 req/s at its
		// max load: 3 × $3.
		{"need rps uses req/s of closed-loop sweeps", []Candidate{big, rate}, Need{RPS: 20}, "rate", 3, 3,
			[]string{"big would take 3 instances at $9.00/hour"}},
		{"need users refuses a rate sweep", []Candidate{rate}, Need{Users: 10}, "", 0, 0, []string{"use --need-rps"}},
		{"tie goes to fewer instances", []Candidate{cand("a", Users, 2, 1, 1, 1), cand("b", Users, 4, 2, 2, 1)}, Need{Users: 4}, "b", 1, 2, nil},
		{"no need, no recommendation", []Candidate{small, never}, Need{}, "", 0, 0,
			[]string{"no need given", "never: never meets the SLA"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch := Choose(tt.cands, tt.need)
			r := ch.Recommendation
			switch {
			case tt.want == "" && r != nil:
				t.Errorf("recommended %+v, want none", r)
			case tt.want != "" && (r == nil || r.Label != tt.want || r.Instances != tt.instances || !near(r.CostPerHour, tt.perHour) ||
				!near(r.CostPerMonth, 730*tt.perHour)):
				t.Errorf("recommended %+v, want %s × %d at $%v/h", r, tt.want, tt.instances, tt.perHour)
			}
			for _, w := range tt.words {
				if !strings.Contains(ch.Summary, w) {
					t.Errorf("summary %q lacks %q", ch.Summary, w)
				}
			}
			for _, c := range ch.Candidates {
				if !c.MeetsSLA && c.Eligible {
					t.Errorf("%s never met the SLA yet is eligible", c.Label)
				}
			}
		})
	}
}

func TestChooseNotes(t *testing.T) {
	t.Parallel()
	a := cand("a", Concurrency, 4, 2, 1, 1)
	b := cand("b", RequestRate, 4, 2, 1, 1)
	b.SLA = "p99_ttft_ms<200"
	ch := Choose([]Candidate{a, b}, Need{RPS: 1})
	if len(ch.Notes) != 2 {
		t.Errorf("notes %q: want different SLAs and different load kinds", ch.Notes)
	}
}

func TestMoney2(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0.00", 9.999: "10.00", 1234.5: "1,234.50", 1234567.891: "1,234,567.89", -1500: "-1,500.00"} {
		if got := USD(in); got != want {
			t.Errorf("USD(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestNeedValid(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		need Need
		want bool
	}{
		{Need{}, true}, // no need: the candidates alone
		{Need{Users: 40}, true},
		{Need{RPS: 12.5}, true},
		{Need{Users: 40, RPS: 1}, false},
		{Need{Users: -1}, false},
		{Need{RPS: -0.5}, false},
		{Need{Users: inf}, false},
		{Need{RPS: nan}, false},
		{Need{Users: -inf}, false},
	} {
		if got := tc.need.Valid(); got != tc.want {
			t.Errorf("%+v.Valid() = %v, want %v", tc.need, got, tc.want)
		}
	}
}

package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
)

// TestPrices: one price for all, one per sweep, none; bad values and a
// count that fits neither are refused; Apply keeps the instance count.
func TestPrices(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want Prices
		err  string
	}{
		{"", nil, ""},
		{" 2 ", Prices{2}, ""},
		{"1.5, 7", Prices{1.5, 7}, ""},
		{"0", nil, `--price-per-hour "0": want a price > 0`},
		{"1,x", nil, `--price-per-hour "x"`},
		{"Inf", nil, `--price-per-hour "Inf"`},
	} {
		got, err := ParsePrices(tt.in)
		if !slices.Equal(got, tt.want) || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParsePrices(%q) = %v, %v; want %v, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
	if err := (Prices{1, 2}).Check(3); err == nil || !strings.Contains(err.Error(), "2 values for 3 sweeps") {
		t.Errorf("Check: %v", err)
	}
	if (Prices{1}).Check(3) != nil || (Prices{}).Check(3) != nil {
		t.Error("one price or none: refused")
	}
	if p, ok := (Prices{1, 2}).For(1); !ok || p != 2 {
		t.Errorf("For(1) = %v, %v", p, ok)
	}
	s := &capacity.Sweep{Pricing: &capacity.Pricing{InstanceCount: 4, USDPerInstanceHour: 1}}
	Prices{3}.Apply(0, s)
	if s.Pricing.InstanceCount != 4 || s.Pricing.USDPerInstanceHour != 3 || !strings.Contains(s.Pricing.Source, "llmbench plan") {
		t.Errorf("Apply: %+v", s.Pricing)
	}
	unpriced := &capacity.Sweep{}
	Prices{}.Apply(0, unpriced)
	if unpriced.Pricing != nil {
		t.Errorf("no price given: %+v", unpriced.Pricing)
	}
}

// TestDemandSource: the CSV or the profile, with the off-peak default,
// and the combinations refused.
func TestDemandSource(t *testing.T) {
	t.Parallel()
	csv := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(csv, []byte("time,users\n00:00,5\n12:00,20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := (&DemandSource{CSV: csv, Profile: Diurnal}).Demand()
	if err != nil || len(d.Slots) != 2 || d.Slots[d.Peak()].Value != 20 {
		t.Errorf("CSV: %+v, %v", d, err)
	}
	got, err := (&DemandSource{Peak: 40, PeakGiven: true, Profile: Diurnal}).Demand()
	want, _ := Profile(Diurnal, 40, 4)
	if err != nil || !slices.Equal(got.Slots, want.Slots) {
		t.Errorf("profile with the default off-peak: %+v, %v", got, err)
	}
	for _, tt := range []struct {
		src  DemandSource
		want string
	}{
		{DemandSource{CSV: csv, PeakGiven: true}, "not both"},
		{DemandSource{}, "give the demand"},
		{DemandSource{PeakGiven: true, Peak: 10, OffPeakGiven: true, Profile: Flat}, "goes with --profile diurnal"},
		{DemandSource{CSV: csv, ProfileGiven: true}, "go with --peak-users, not --demand"},
		{DemandSource{CSV: filepath.Join(t.TempDir(), "none.csv")}, "no such file"},
	} {
		if _, err := tt.src.Demand(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.src, err, tt.want)
		}
	}
}

// TestNotPlanned lists each candidate's reason, and is nil with a
// recommendation.
func TestNotPlanned(t *testing.T) {
	t.Parallel()
	p := &Plan{Candidates: []Candidate{{File: "a.json", Reason: "no SLA"}, {File: "b.json", Reason: "unpriced"}}}
	if err := NotPlanned(p); err == nil || err.Error() != "no sweep can be planned and priced (a.json: no SLA; b.json: unpriced)" {
		t.Errorf("NotPlanned = %v", err)
	}
	p.Recommendation = &Recommendation{}
	if err := NotPlanned(p); err != nil {
		t.Errorf("with a recommendation: %v", err)
	}
}

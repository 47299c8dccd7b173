package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
)

// readTestSweep reads testdata's sweeps as savedfile.ReadSweep would;
// "unpriced.json" is sweep-sim-batch8.json without its price.
func readTestSweep(path string) (*capacity.Sweep, error) {
	if path == "unpriced.json" {
		s, err := capacity.ReadSweep(filepath.Join("testdata", "sweep-sim-batch8.json"))
		if err == nil {
			s.Pricing = nil
		}
		return s, err
	}
	return capacity.ReadSweep(filepath.Join("testdata", path))
}

func TestRequestPlan(t *testing.T) {
	t.Parallel()
	peak := DemandSource{Peak: 40, PeakGiven: true, OffPeak: 4, OffPeakGiven: true, Profile: Diurnal}
	ok := Request{Sweeps: []string{"sweep-sim-batch8.json"}, Demand: peak, Config: defaults}
	with := func(f func(*Request)) Request { r := ok; f(&r); return r }
	tests := []struct {
		name string
		r    Request
		rec  string // the recommendation's label, when err is ""
		err  string
	}{
		{"one sweep", ok, "sim-batch8", ""},
		{"two sweeps, cheaper at 8", with(func(r *Request) { r.Sweeps = []string{"sweep-sim-batch8.json", "sweep-sim-batch32.json"} }), "", ""},
		{"a price for the unpriced", with(func(r *Request) { r.Sweeps, r.Prices = []string{"unpriced.json"}, "2" }), "sim-batch8", ""},
		{"unpriced", with(func(r *Request) { r.Sweeps = []string{"unpriced.json"} }), "", "not priced (sweep without --price-per-hour or --instance-type)"},
		{"utilisation 0", with(func(r *Request) { r.Config.TargetUtilisation = 0 }), "", "--target-utilisation 0: want more than 0, at most 1"},
		{"utilisation over 1", with(func(r *Request) { r.Config.TargetUtilisation = 1.5 }), "", "--target-utilisation 1.5: want more than 0, at most 1"},
		{"no demand", with(func(r *Request) { r.Demand = DemandSource{Profile: Diurnal} }), "", "give the demand"},
		{"prices before files", with(func(r *Request) { r.Sweeps, r.Prices = []string{"none.json"}, "1,2" }), "", "--price-per-hour: 2 values for 1 sweeps"},
		{"missing sweep", with(func(r *Request) { r.Sweeps = []string{"none.json"} }), "", "sweep file none.json does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.r.Plan(readTestSweep)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Candidates) != len(tc.r.Sweeps) || (tc.rec != "" && p.Recommendation.Label != tc.rec) {
				t.Errorf("%d candidates, recommendation %+v; want %d, %q", len(p.Candidates), p.Recommendation, len(tc.r.Sweeps), tc.rec)
			}
		})
	}
	bad := errors.New("unreadable")
	if _, err := ok.Plan(func(string) (*capacity.Sweep, error) { return nil, bad }); !errors.Is(err, bad) {
		t.Errorf("reader's error: %v", err)
	}
}

// TestSave: the plan file is WriteJSON's, mode 0600, in a folder made
// when missing.
func TestSave(t *testing.T) {
	t.Parallel()
	r := Request{Sweeps: []string{"sweep-sim-batch8.json"}, Demand: DemandSource{Peak: 40, PeakGiven: true, Profile: Flat}, Config: defaults}
	p, err := r.Plan(readTestSweep)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "new", "plans")
	path, err := Save(dir, "20260101-000000", p)
	if err != nil || path != filepath.Join(dir, "plan-20260101-000000.json") {
		t.Fatalf("Save = %q, %v", path, err)
	}
	var want bytes.Buffer
	if err := WriteJSON(&want, p); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) || !json.Valid(got) {
		t.Errorf("saved %d bytes (%v), want WriteJSON's %d", len(got), err, want.Len())
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v (%v), want 0600", st.Mode(), err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Save(filepath.Join(file, "sub"), "d", p); err == nil {
		t.Error("Save under a file succeeded")
	}
}

package metrics

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseSettings: the goodput SLOs come back; a bad item, percentile
// or metric name is refused; an empty metric list means the default.
func TestParseSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		goodput      []string
		pcts, metric string
		want         map[string]float64
		err          string
	}{
		{nil, "99", "", map[string]float64{}, ""},
		{[]string{"ttft:200", "tpot:30"}, "50,99.9", "ttft,tpot", map[string]float64{"ttft": 200, "tpot": 30}, ""},
		{[]string{"ttft"}, "99", "", nil, `goodput item "ttft" is not KEY:VALUE`},
		{nil, "101", "", nil, "metric percentile 101 is outside [0, 100]"},
		{nil, "99", "ttft, tpot", nil, `unknown percentile metric " tpot"`},
	} {
		got, err := ParseSettings(tc.goodput, tc.pcts, tc.metric)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%v %q %q: %v, want %q", tc.goodput, tc.pcts, tc.metric, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v %q %q: %v, %v; want %v", tc.goodput, tc.pcts, tc.metric, got, err, tc.want)
		}
	}
}

package plan

import (
	"math"
	"strings"
	"testing"
)

// FuzzReadDemandCSV: any input either fails with one line or gives slots
// in increasing time of day with finite demand >= 0, each lasting at
// least a minute and all together a day.
func FuzzReadDemandCSV(f *testing.F) {
	for _, seed := range []string{
		"time,users\n00:00,6\n06:00,13\n",
		"time,requests_per_s\n# peak\n9:30,2.5\n23:59,0\n",
		"\ufefftime,users\r\n12:00,1\r\n",
		"time,users\n25:00,1\n",
		"time,users\n\"00:00\",\"1\"\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d, err := ReadDemandCSV(strings.NewReader(in), "d.csv")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		total := 0
		for i, s := range d.Slots {
			if s.Value < 0 || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Minute < 0 || s.Minute >= MinutesPerDay {
				t.Fatalf("slot %d: %+v", i, s)
			}
			if d.Length(i) < 1 {
				t.Fatalf("slot %d lasts %d minutes", i, d.Length(i))
			}
			total += d.Length(i)
		}
		if total != MinutesPerDay {
			t.Fatalf("slots last %d minutes, want a day", total)
		}
	})
}

package plan

import (
	"math"
	"time"
)

// fleet is what the autoscaled fleet did over one day.
type fleet struct {
	// unitHours is the swept endpoints billed over the day, in hours.
	unitHours float64
	// overrun is, per demand slot, the user-minutes beyond the serving
	// endpoints' max load under the SLA.
	overrun []float64
}

// simulate runs an autoscaler over the demand, second by second, for two
// days and measures the second (the first only brings the fleet into the
// state the repeating day leaves it in). demand[i] is slot i's demand in
// the capacity's unit (users, or requests per second for a request-rate
// sweep) and units[i] the swept endpoints it needs; capa is one swept
// endpoint's max load under the SLA in that unit; toUsers turns an excess
// in that unit into users.
//
// The autoscaler (docs/plan.md, "Autoscaling"):
//   - it wants, at time t, the most any slot needed over the last
//     ScaleDownDelay (HPA's scale-down stabilisation window; scaling up
//     is immediate): target(t) = max D(t') for t' in [t - down, t];
//   - endpoints it adds are billed at once and serve ScaleUpDelay later;
//   - endpoints it removes stop billing at once, the newest (not yet
//     serving) first.
//
// Example: 1 endpoint until 08:00, 3 from 08:00 to 09:00, 1 after, with
// delays of 5 and 15 minutes: 3 are billed from 08:00 to 09:15, 2 of them
// serve from 08:05; from 08:00 to 08:05 one endpoint carries 08:00's
// demand, and whatever exceeds its max load under the SLA is overrun.
func simulate(d *Demand, demand []float64, units []int, capa, toUsers float64, cfg Config) fleet {
	const day = MinutesPerDay * 60
	up := int(math.Ceil(cfg.ScaleUpDelay.Seconds()))
	down := int(math.Ceil(cfg.ScaleDownDelay.Seconds()))
	slotOf := make([]int, MinutesPerDay) // minute of the day -> slot
	for m := range slotOf {
		slotOf[m] = len(d.Slots) - 1 // before the first slot: the last, wrapped
		for i, s := range d.Slots {
			if s.Minute <= m {
				slotOf[m] = i
			}
		}
	}
	f := fleet{overrun: make([]float64, len(d.Slots))}
	type level struct{ t, v int }
	var window []level // monotonic: decreasing v, increasing t
	serving := units[slotOf[0]]
	var pending []int // when each ordered endpoint serves, ascending
	unitSeconds := 0
	for t := range 2 * day {
		slot := slotOf[(t/60)%MinutesPerDay]
		want := units[slot]
		for len(window) > 0 && window[len(window)-1].v <= want {
			window = window[:len(window)-1]
		}
		window = append(window, level{t, want})
		for window[0].t < t-down {
			window = window[1:]
		}
		target := window[0].v
		switch billed := serving + len(pending); {
		case target > billed:
			for range target - billed {
				pending = append(pending, t+up)
			}
		case target < billed:
			drop := billed - target
			k := min(drop, len(pending))
			pending = pending[:len(pending)-k]
			serving -= drop - k
		}
		for len(pending) > 0 && pending[0] <= t {
			serving++
			pending = pending[1:]
		}
		if t < day {
			continue
		}
		unitSeconds += serving + len(pending)
		if excess := demand[slot] - float64(serving)*capa; excess > 0 {
			f.overrun[slot] += excess * toUsers / 60
		}
	}
	f.unitHours = float64(unitSeconds) / 3600
	return f
}

// delaySeconds is a delay in whole seconds, as the settings print it.
func delaySeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

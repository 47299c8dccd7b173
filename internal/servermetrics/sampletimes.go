package servermetrics

import "slices"

// RunningSampleTimes returns the instants, in seconds after Start, at
// which the running-requests gauge (the first family of its role that
// was read) was sampled, sorted and without repeats; nil when none was.
// A caller comparing its own requests in flight with the server's
// running + waiting means (CrossCheck) evaluates its count at these
// instants: the server's means are over samples, and a window's first
// and last samples fall before the first request and after the last.
func (r *Result) RunningSampleTimes() []float64 {
	for _, name := range roleRunning {
		f, ok := r.Families[name]
		if !ok {
			continue
		}
		var ts []float64
		for _, s := range f.Series {
			for _, p := range s.Samples {
				ts = append(ts, p[0])
			}
		}
		slices.Sort(ts)
		return slices.Compact(ts)
	}
	return nil
}

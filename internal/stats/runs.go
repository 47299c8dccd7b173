package stats

import "math"

// Interval is a two-sided confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// MeanCI is the Student-t interval of the mean of values at confidence
// conf: mean ± t(conf, n−1)·s/√n with s the sample standard deviation.
// It assumes independent values whose mean is near-normal (many values,
// or normal ones). ok is false with fewer than two values.
func MeanCI(values []float64, conf float64) (mean float64, ci Interval, ok bool) {
	r, ok := Runs(values, conf)
	if !ok {
		return Mean(values), Interval{}, false
	}
	return r.Mean, Interval{Low: r.Low, High: r.High}, true
}

// RunStats describes one figure over K repeated runs, as AIPerf reports
// it: mean, sample standard deviation, standard error, the t critical
// value, the t interval of the mean and the coefficient of variation.
type RunStats struct {
	// N is the number of runs.
	N int `json:"n"`
	// Mean is the mean over the runs.
	Mean float64 `json:"mean"`
	// Std is the sample standard deviation (n − 1).
	Std float64 `json:"std"`
	// SE is the standard error of the mean, Std/√N.
	SE float64 `json:"se"`
	// TCrit is the two-sided t critical value at the confidence with
	// N − 1 degrees of freedom.
	TCrit float64 `json:"t_critical"`
	// Low and High bound the interval Mean ± TCrit·SE.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// CV is Std/|Mean|; 0 when the mean is 0.
	CV float64 `json:"cv"`
}

// Runs computes RunStats of values (one per run) at confidence conf. ok
// is false with fewer than two runs (no spread to judge) or a bad conf.
func Runs(values []float64, conf float64) (RunStats, bool) {
	n := len(values)
	if n < 2 || !validConf(conf) {
		return RunStats{N: n, Mean: Mean(values)}, false
	}
	r := RunStats{N: n, Mean: Mean(values), Std: StdDev(values)}
	r.SE = r.Std / math.Sqrt(float64(n))
	r.TCrit = TCritical(conf, n-1)
	r.Low, r.High = r.Mean-r.TCrit*r.SE, r.Mean+r.TCrit*r.SE
	if r.Mean != 0 {
		r.CV = r.Std / math.Abs(r.Mean)
	}
	return r, true
}

// RelativeWidth is the interval's full width over |mean|: the figure
// "--runs auto --ci-width 0.10" stops on. +Inf when the mean is 0.
func (r RunStats) RelativeWidth() float64 {
	if r.Mean == 0 {
		return math.Inf(1)
	}
	return (r.High - r.Low) / math.Abs(r.Mean)
}

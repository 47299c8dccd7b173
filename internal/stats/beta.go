package stats

import "math"

// regIncBeta is the regularized incomplete beta function I_x(a, b) for
// a, b > 0 and x in [0, 1], by the continued fraction of Numerical
// Recipes §6.4 (modified Lentz), evaluated on the side where it converges
// fast (x < (a+1)/(a+b+2)), the other side by I_x(a,b) = 1 − I_{1−x}(b,a).
// Relative accuracy is about 1e-14, enough for the tail areas near 0.025
// that decide an interval's ranks.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

// betaCF evaluates the continued fraction of regIncBeta.
func betaCF(x, a, b float64) float64 {
	const (
		maxIter = 10000
		eps     = 1e-16
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// BinomialCDF is P(B ≤ k) for B ~ Binomial(n, p): 0 for k < 0, 1 for
// k ≥ n. It uses P(B ≤ k) = I_{1−p}(n−k, k+1), exact to about 1e-14.
func BinomialCDF(k, n int, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	case p <= 0:
		return 1
	case p >= 1:
		return 0
	}
	return regIncBeta(1-p, float64(n-k), float64(k+1))
}

// binomialSF is P(B > k) = I_p(k+1, n−k), computed directly so that an
// upper tail near 0.025 keeps its relative accuracy (1 − CDF would not).
func binomialSF(k, n int, p float64) float64 {
	switch {
	case k < 0:
		return 1
	case k >= n:
		return 0
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	return regIncBeta(p, float64(k+1), float64(n-k))
}

// StudentTCDF is the cumulative distribution function of Student's t with
// df > 0 degrees of freedom: for t ≥ 0, 1 − ½·I_{df/(df+t²)}(df/2, ½).
func StudentTCDF(t, df float64) float64 {
	if math.IsNaN(t) || df <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := 0.5 * regIncBeta(df/(df+t*t), df/2, 0.5)
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// StudentTQuantile is the p-quantile of Student's t with df > 0 degrees of
// freedom, p in (0, 1), found by bisection on StudentTCDF to the last bit
// (about 1100 evaluations at most; callers ask for a handful). E.g.
// StudentTQuantile(0.975, 9) = 2.2622, (0.975, 1) = 12.706.
func StudentTQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1 || df <= 0 || math.IsNaN(df):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentTQuantile(1-p, df)
	}
	// The quantile is positive; grow the bracket until it holds it.
	lo, hi := 0.0, 1.0
	for StudentTCDF(hi, df) < p {
		lo, hi = hi, hi*2
		if math.IsInf(hi, 0) {
			return math.Inf(1)
		}
	}
	for range 2000 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if StudentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// TCritical is the two-sided critical value of Student's t at confidence
// conf with df degrees of freedom: the (1 − (1−conf)/2)-quantile, e.g.
// 2.776 at 0.95 with 4 degrees of freedom (5 runs).
func TCritical(conf float64, df int) float64 {
	if !validConf(conf) || df < 1 {
		return math.NaN()
	}
	return StudentTQuantile(1-(1-conf)/2, float64(df))
}

package stats

import "math"

// PlateauZ is the one-sided 95 % normal quantile inference-perf's plateau
// test uses.
const PlateauZ = 1.64

// PlateauTolerance is the share of the lower load's throughput a step
// must add to count as growth in the plateau test.
const PlateauTolerance = 0.05

// Plateau is inference-perf's test that throughput has stopped growing
// between two loads: with X₁, X₂ the mean throughputs at the lower and the
// higher load and SE₁, SE₂ their standard errors,
//
//	(X₂ − X₁) + 1.64·√(SE₁² + SE₂²) < 0.05·X₁
//
// i.e. even the optimistic end of the gain's one-sided 95 % bound is under
// 5 % of X₁. With one run per load pass SE = 0 and the test is the plain
// "grew by less than 5 %".
func Plateau(x1, se1, x2, se2 float64) bool {
	return (x2-x1)+PlateauZ*math.Sqrt(se1*se1+se2*se2) < PlateauTolerance*x1
}

package dataset

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// RangeRatio is --random-range-ratio resolved into its input and output
// parts, each in [0, 1).
type RangeRatio struct {
	Input, Output float64
}

// ParseRangeRatio parses --random-range-ratio the way vLLM does: a float
// applies to both input and output; a JSON object {"input": a, "output": b}
// sets them apart. "" means 0.
func ParseRangeRatio(s string) (RangeRatio, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return RangeRatio{}, nil
	}
	var rr RangeRatio
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		rr = RangeRatio{f, f}
	} else {
		var m map[string]json.Number
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return rr, configErrorf("--random-range-ratio %q is neither a number nor a JSON object like {\"input\": 0.3, \"output\": 0.5}", s)
		}
		in, okIn := m["input"]
		out, okOut := m["output"]
		if !okIn || !okOut {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			return rr, configErrorf("--random-range-ratio: a JSON object must contain 'input' and 'output' keys, got %v", keys)
		}
		var e1, e2 error
		rr.Input, e1 = in.Float64()
		rr.Output, e2 = out.Float64()
		if e1 != nil || e2 != nil {
			return rr, configErrorf("--random-range-ratio %q: input and output must be numbers", s)
		}
	}
	if !(rr.Input >= 0 && rr.Input < 1) {
		return rr, configErrorf("--random-range-ratio: input range ratio must be in [0, 1), got %g", rr.Input)
	}
	if !(rr.Output >= 0 && rr.Output < 1) {
		return rr, configErrorf("--random-range-ratio: output range ratio must be in [0, 1), got %g", rr.Output)
	}
	return rr, nil
}

// maxLength bounds every token length llmbench will generate (1Mi tokens),
// so a typo cannot ask for a multi-gigabyte prompt.
const maxLength = 1 << 20

// LengthDist is a distribution of token lengths (ours, beyond vLLM):
//
//	fixed:N                 every length is N (also fixed:value=N)
//	uniform:min=A,max=B     integers uniform in [A, B]
//	normal:mean=M,std=S     rounded normal draws
//	lognormal:mean=M,std=S  log-normal with that mean and standard deviation
//	                        of the length itself (or mu=,sigma= of its log)
//
// normal and lognormal accept min= and max= (default 1 and maxLength);
// draws are rounded to the nearest integer and clamped to [min, max].
type LengthDist struct {
	// Kind is fixed, uniform, normal or lognormal.
	Kind string
	// Mean and Std parameterise normal (of the length) and lognormal (Mu,
	// Sigma of log-length derived from them when not given directly).
	Mean, Std float64
	Mu, Sigma float64
	// Min and Max bound every draw (inclusive).
	Min, Max int
}

// ParseLengthDist parses and validates a distribution spec.
func ParseLengthDist(spec string) (LengthDist, error) {
	d := LengthDist{Min: 1, Max: maxLength}
	kind, params, _ := strings.Cut(strings.TrimSpace(spec), ":")
	d.Kind = strings.ToLower(strings.TrimSpace(kind))
	vals := map[string]float64{}
	if strings.TrimSpace(params) != "" {
		for _, kv := range strings.Split(params, ",") {
			k, v, ok := strings.Cut(kv, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok {
				if d.Kind == "fixed" && len(vals) == 0 {
					k, v = "value", kv
				} else {
					return d, configErrorf("length distribution %q: %q is not key=value", spec, kv)
				}
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return d, configErrorf("length distribution %q: %s=%q is not a number", spec, k, v)
			}
			if _, dup := vals[k]; dup {
				return d, configErrorf("length distribution %q: %s given twice", spec, k)
			}
			vals[k] = f
		}
	}
	allowed := map[string][]string{
		"fixed":     {"value"},
		"uniform":   {"min", "max"},
		"normal":    {"mean", "std", "min", "max"},
		"lognormal": {"mean", "std", "mu", "sigma", "min", "max"},
	}
	keys, ok := allowed[d.Kind]
	if !ok {
		return d, configErrorf("length distribution %q: unknown kind %q (use fixed, uniform, normal or lognormal)", spec, d.Kind)
	}
	for k := range vals {
		if !slices.Contains(keys, k) {
			return d, configErrorf("length distribution %q: %s does not take %q (takes %s)", spec, d.Kind, k, strings.Join(keys, ", "))
		}
	}
	intVal := func(k string) (int, error) {
		f := vals[k]
		if f != math.Trunc(f) || f < 1 || f > maxLength {
			return 0, configErrorf("length distribution %q: %s must be an integer in [1, %d], got %g", spec, k, maxLength, f)
		}
		return int(f), nil
	}
	var err error
	if _, ok := vals["min"]; ok {
		if d.Min, err = intVal("min"); err != nil {
			return d, err
		}
	}
	if _, ok := vals["max"]; ok {
		if d.Max, err = intVal("max"); err != nil {
			return d, err
		}
	}
	need := func(ks ...string) error {
		for _, k := range ks {
			if _, ok := vals[k]; !ok {
				return configErrorf("length distribution %q: %s needs %s", spec, d.Kind, k)
			}
		}
		return nil
	}
	switch d.Kind {
	case "fixed":
		if err := need("value"); err != nil {
			return d, err
		}
		v, err := intVal("value")
		if err != nil {
			return d, err
		}
		d.Min, d.Max, d.Mean = v, v, float64(v)
	case "uniform":
		if err := need("min", "max"); err != nil {
			return d, err
		}
	case "normal":
		if err := need("mean", "std"); err != nil {
			return d, err
		}
		d.Mean, d.Std = vals["mean"], vals["std"]
		if d.Std < 0 {
			return d, configErrorf("length distribution %q: std must be >= 0", spec)
		}
	case "lognormal":
		_, hasMu := vals["mu"]
		_, hasSigma := vals["sigma"]
		_, hasMean := vals["mean"]
		_, hasStd := vals["std"]
		switch {
		case hasMu && hasSigma && !hasMean && !hasStd:
			d.Mu, d.Sigma = vals["mu"], vals["sigma"]
		case hasMean && hasStd && !hasMu && !hasSigma:
			d.Mean, d.Std = vals["mean"], vals["std"]
			if d.Mean <= 0 || d.Std < 0 {
				return d, configErrorf("length distribution %q: lognormal needs mean > 0 and std >= 0", spec)
			}
			// Moments of a log-normal: mean = exp(mu + sigma²/2),
			// var = (exp(sigma²) - 1)·mean². Example: mean 512, std 128
			// gives sigma² = ln(1.0625) ≈ 0.0606, mu ≈ ln 512 - 0.0303.
			s2 := math.Log1p(d.Std * d.Std / (d.Mean * d.Mean))
			d.Sigma = math.Sqrt(s2)
			d.Mu = math.Log(d.Mean) - s2/2
		default:
			return d, configErrorf("length distribution %q: lognormal takes mean= and std= (of the length) or mu= and sigma= (of its log)", spec)
		}
		if d.Sigma < 0 {
			return d, configErrorf("length distribution %q: sigma must be >= 0", spec)
		}
	}
	if d.Min > d.Max {
		return d, configErrorf("length distribution %q: min %d > max %d", spec, d.Min, d.Max)
	}
	return d, nil
}

// Sample draws n lengths. The stream is a PCG seeded by (seed, stream), so
// input and output lengths (different streams) are independent and the
// same seed gives the same lengths run after run.
func (d LengthDist) Sample(seed int64, stream uint64, n int) []int {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6c6c6d62656e6368^stream))
	out := make([]int, n)
	for i := range out {
		var x float64
		switch d.Kind {
		case "fixed":
			x = d.Mean
		case "uniform":
			x = float64(d.Min + r.IntN(d.Max-d.Min+1))
		case "normal":
			x = d.Mean + d.Std*r.NormFloat64()
		case "lognormal":
			x = math.Exp(d.Mu + d.Sigma*r.NormFloat64())
		}
		out[i] = clampRound(x, d.Min, d.Max)
	}
	return out
}

func clampRound(x float64, lo, hi int) int {
	x = math.Round(x)
	if x < float64(lo) {
		return lo
	}
	if x > float64(hi) {
		return hi
	}
	return int(x)
}

package metrics

// ParseSettings checks a run's report settings as given — vLLM's
// --goodput items, --metric-percentiles and --percentile-metrics ("" =
// the default) — before anything is sent, and returns the goodput SLOs
// (an empty map without items). ParamsFrom parses them again from the
// saved params, for the records of any run.
func ParseSettings(goodput []string, percentiles, percentileMetrics string) (map[string]float64, error) {
	slos, err := ParseGoodput(goodput)
	if err != nil {
		return nil, err
	}
	if _, err := ParsePercentiles(percentiles); err != nil {
		return nil, err
	}
	if percentileMetrics != "" {
		if _, err := ParsePercentileMetrics(percentileMetrics); err != nil {
			return nil, err
		}
	}
	return slos, nil
}

// Package servermetrics reads an LLM server's own Prometheus metrics
// (vLLM, SGLang, TGI, and the NVIDIA DCGM exporter's GPU figures) while a
// benchmark runs, summarises them over the timed window, checks them
// against the client's figures, and names the cause of a sweep's knee
// (batch limit, KV cache, compute).
//
// A Collector scrapes each URL once at Start, every Config.Interval, at
// Mark (the timed window's start) and at Stop (its end), on goroutines of
// its own: a /metrics that hangs, refuses, answers 404, JSON, garbage or
// 50 MB costs at most one Timeout per scrape, one warning and a count in
// scrape_errors, and never slows or stops the benchmark. Bodies are read
// through github.com/prometheus/common/expfmt (the Prometheus text format
// and OpenMetrics 1.0), never parsed by hand, and only Known families and
// Config.Extra names are kept, which bounds memory.
//
// Summaries (docs/server-metrics.md has the definitions and vectors):
// counters give their increase and rate with Prometheus' reset handling,
// interpolated at the window's edges; gauges give mean, min, max, p50, p99
// and the samples; histograms give bucket increases, count, sum, mean and
// histogram_quantile estimates named _estimate.
//
// Use (what run and sweep do around each timed run or step):
//
//	urls, err := servermetrics.ResolveURLs("auto", baseURL)
//	c := servermetrics.Start(ctx, servermetrics.Config{URLs: urls, Interval: time.Second})
//	...warm-ups...
//	c.Mark()
//	...the timed run...
//	res := c.Stop()
//	notes := res.CrossCheck(servermetrics.Client{OutputTokens: n, MeanInFlight: m})
//	// res marshals to llmbench.server_metrics; res.Warnings and notes go
//	// to the result's warnings and self-check line.
//
// and, over a sweep's steps, servermetrics.Cause(steps) for the
// saturation's cause and cause_detail, PrefixCacheWarning(steps, shared)
// for the sweep's notes. Run and sweep do the above through Options
// (the flags' values: Check before the run, Start for each timed run or
// step) and the Window Start returns, which writes its warnings to the
// writer it is given.
//
// What the package does not do: it never decides an SLA verdict (server
// histograms have coarse buckets and measure inside the server; the
// client's own measurements decide), it does not query a Prometheus
// server (it reads /metrics directly), it keeps no native histograms or
// summaries, and it does not print: warnings travel in Result.Warnings.
package servermetrics

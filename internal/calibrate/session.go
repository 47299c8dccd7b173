package calibrate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Config is one calibration: the simulator's fixed timing, the loads
// and how long each repetition of a load runs.
type Config struct {
	// Streams are the loads, in concurrent streams.
	Streams []int
	// TTFT and ITL are the simulator's fixed time to first token and
	// inter-token latency; Tokens the output tokens of every request.
	TTFT, ITL time.Duration
	Tokens    int
	// Rule is how much one repetition runs; Repeat how many run per load.
	Rule   Rule
	Repeat int
	// Preconnect opens the connections before each repetition.
	Preconnect bool
}

// Nominal is how long one fixed-mode request takes on the simulator's
// clock: TTFT, then a gap before each token after the first.
func (c *Config) Nominal() time.Duration {
	return c.TTFT + time.Duration(c.Tokens-1)*c.ITL
}

// RepetitionFunc runs one repetition: requests requests holding streams
// in flight, tagged row and rep so that request ids are unique; it
// returns the figures and the cores the client used. Process is the
// real one; tests substitute one that starts nothing.
type RepetitionFunc func(ctx context.Context, streams, requests, row, rep int) (Repetition, int, error)

// SavedRule is the saved form of the rule each row ran under.
type SavedRule struct {
	MinRequests int     `json:"min_requests_per_repetition"`
	MinSeconds  float64 `json:"min_nominal_seconds_per_repetition"`
	Repetitions int     `json:"repetitions"`
}

// Calibration is a calibration's outcome, as `llmbench calibrate --save`
// writes it.
type Calibration struct {
	TTFTMs     float64   `json:"sim_ttft_ms"`
	ITLMs      float64   `json:"sim_itl_ms"`
	Tokens     int       `json:"tokens"`
	Preconnect bool      `json:"preconnect"`
	Cores      int       `json:"cores"`
	Rule       SavedRule `json:"rule"`
	Rows       []Row     `json:"rows"`
	Within1Ms  Headline  `json:"within_1ms_ttft_error"`
	Within5Ms  Headline  `json:"within_5ms_ttft_error"`
	// TimedSeconds sums the repetitions' timed runs.
	TimedSeconds float64 `json:"timed_seconds"`
}

// WriteJSON writes the calibration indented by two spaces, with a
// trailing newline.
func WriteJSON(w io.Writer, c *Calibration) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Run runs every load of c, Repeat times each, perRep[i] requests per
// repetition of load i (Rule.RequestsPerRepetition), and prints the
// table to out as each load finishes, then the headlines at 1 and 5 ms.
// An error stops it, naming the load and repetition; after ctx is
// cancelled it says so instead of what cancelling did to the simulator.
func Run(ctx context.Context, c *Config, perRep []int, run RepetitionFunc, out io.Writer) (*Calibration, error) {
	res := &Calibration{TTFTMs: durMs(c.TTFT), ITLMs: durMs(c.ITL), Tokens: c.Tokens, Preconnect: c.Preconnect,
		Rule: SavedRule{MinRequests: c.Rule.Requests, MinSeconds: c.Rule.MinTime.Seconds(), Repetitions: c.Repeat}}
	var estimate time.Duration
	for i, n := range c.Streams {
		estimate += time.Duration(c.Repeat*perRep[i]/n) * c.Nominal()
	}
	fmt.Fprintf(out, "Simulator: fixed, TTFT %v, ITL %v, %d tokens. Each load %d times, each against a fresh simulator, held for at least %d requests and %v of nominal request time (%.0f s of requests in all, at least)\n",
		c.TTFT, c.ITL, c.Tokens, c.Repeat, c.Rule.Requests, c.Rule.MinTime, estimate.Seconds())
	fmt.Fprintf(out, "Errors = client − server (ms), least to greatest over the repetitions; cpu/chunk, sched-p99, lag-p99 and verdict: the worst repetition\n")
	fmt.Fprintf(out, "%8s %9s %6s %17s %17s %17s %17s %12s %10s %10s %10s  %s\n", "streams", "requests", "failed", "ttft-mean", "ttft-p99", "itl-mean", "itl-p99",
		"cpu/chunk-us", "sched-p99", "lag-p99", "events/s", "verdict")
	for i, n := range c.Streams {
		reps := make([]Repetition, 0, c.Repeat)
		for r := range c.Repeat {
			rep, cores, err := run(ctx, n, perRep[i], i, r)
			if err != nil {
				if ctx.Err() != nil { // Ctrl-C: what cancelling did to the simulator is noise
					return nil, fmt.Errorf("calibrate: interrupted at %s, repetition %d of %d", streamsOrNone(n), r+1, c.Repeat)
				}
				return nil, fmt.Errorf("calibrate: %s, repetition %d: %w", streamsOrNone(n), r+1, err)
			}
			res.Cores = cores
			res.TimedSeconds += rep.WallSeconds
			reps = append(reps, rep)
		}
		row := NewRow(n, reps)
		res.Rows = append(res.Rows, row)
		writeRow(out, row, reps, fmt.Sprintf("%dx%d", c.Repeat, perRep[i]))
	}
	res.Within1Ms, res.Within5Ms = HeadlineWithin(res.Rows, 1), HeadlineWithin(res.Rows, 5)
	for _, h := range []struct {
		ms int
		h  Headline
	}{{1, res.Within1Ms}, {5, res.Within5Ms}} {
		fmt.Fprintf(out, "Largest load measured within %d ms of mean TTFT error in every repetition: %s\n", h.ms, headlineText(h.h))
	}
	fmt.Fprintf(out, "(of the loads tried, on %d cores; the timed runs took %.1f s)\n", res.Cores, res.TimedSeconds)
	return res, nil
}

// writeRow prints a load's row: each error's spread over the
// repetitions, and the worst repetition's client figures.
func writeRow(out io.Writer, row Row, reps []Repetition, requests string) {
	var cpu, sched, lag, events float64
	for _, r := range reps {
		cpu, sched, lag = max(cpu, r.CPUPerChunkUs), max(sched, r.SchedP99Ms), max(lag, r.DispatchLagP99Ms)
		events += r.EventsPerSecond / float64(len(reps))
	}
	fmt.Fprintf(out, "%8d %9s %6d %17s %17s %17s %17s %12.2f %10.3f %10.3f %10.0f  %s\n", row.Streams, requests, row.Failed,
		spread(row.TTFTMeanMs), spread(row.TTFTP99Ms), spread(row.ITLMeanMs), spread(row.ITLP99Ms), cpu, sched, lag, events, row.Verdict)
}

// spread prints a figure's least and greatest over the repetitions.
func spread(r Range) string {
	return fmt.Sprintf("%.3f..%.3f", r.Min, r.Max)
}

// headlineText says the answer, or that there is none yet and why.
func headlineText(h Headline) string {
	if h.Resolved {
		return streamsOrNone(h.Streams)
	}
	if h.Streams == 0 {
		return "not resolved: " + h.Reason
	}
	return fmt.Sprintf("not resolved, at least %s: %s", streamsOrNone(h.Streams), h.Reason)
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// streamsOrNone names a load as loadName does, and 0 as "none".
func streamsOrNone(n int) string {
	if n == 0 {
		return "none"
	}
	return loadName(n)
}

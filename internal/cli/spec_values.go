package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/backend/openai"
	"github.com/llmbench/llmbench/internal/load"
	"github.com/llmbench/llmbench/internal/record"
)

// The values spec reads from the flags, one function each.

// checkClosedLoop checks --users and its companions and returns the
// closed loop (nil without --users).
func (o *runOptions) checkClosedLoop(cmd *cobra.Command) (*load.Users, error) {
	if o.sweepMode {
		return nil, nil // sweep checks its ladder (checkSweep)
	}
	f := &o.f
	changed := func(name string) bool { return o.userSet(cmd, name) }
	if f.users < 0 || f.spawnRate < 0 || f.duration < 0 || f.warmupDuration < 0 {
		return nil, usageErrorf("--users, --spawn-rate, --duration and --warmup-duration must not be negative")
	}
	if f.users == 0 {
		for _, name := range []string{"think-time", "spawn-rate", "warmup-duration"} {
			if changed(name) {
				return nil, usageErrorf("--%s needs --users", name)
			}
		}
		return nil, nil
	}
	for _, name := range []string{"request-rate", "max-concurrency", "ramp-up-strategy", "burstiness"} {
		if changed(name) {
			return nil, usageErrorf("--users runs a closed loop: it replaces --%s (leave it out)", name)
		}
	}
	think, err := load.ParseThink(f.thinkTime)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("--think-time: %w", err)}
	}
	if f.warmupDuration > 0 && (f.duration == 0 || f.warmupDuration >= f.duration) {
		return nil, usageErrorf("--warmup-duration needs a longer --duration")
	}
	return &load.Users{Users: f.users, Think: think, SpawnRate: f.spawnRate, Warmup: f.warmupDuration, Seed: uint64(f.ds.Seed)}, nil
}

// userSet reports whether the user gave flag name (on the command line or
// after "--"), as opposed to config.yaml or a default. Once the
// configuration's layers are merged (resolveConfig) the merged set
// answers; a command without a configuration (demo) asks pflag.
func (o *runOptions) userSet(cmd *cobra.Command, name string) bool {
	if o.cfg.sources != nil {
		src := o.cfg.sources[name]
		return src == srcFlag || src == srcDash
	}
	return cmd.Flags().Lookup(name) != nil && cmd.Flags().Changed(name)
}

// parseHeaders splits --header KEY=VALUE items at the first "=", trimming
// both sides, as vLLM does.
func parseHeaders(items []string) ([]openai.Header, error) {
	var hs []openai.Header
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("--header %s: want KEY=VALUE, e.g. --header 'Authorization=Bearer ...'", redactHeader(it))
		}
		hs = append(hs, openai.Header{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return hs, nil
}

// redactHeader names a malformed header item without its value, which
// may be a credential: the text before the first ":", "=" or blank (the
// header name in "Authorization: Bearer sk-..." or "Authorization=..."),
// else nothing at all (a bare item may be the token itself).
func redactHeader(item string) string {
	if i := strings.IndexAny(item, ":= \t"); i > 0 {
		return strconv.Quote(item[:i]+" ...") + " (value hidden)"
	}
	return "item (value hidden)"
}

// parseMetadata checks --metadata KEY=VALUE items.
func parseMetadata(items []string) ([]string, error) {
	for _, it := range items {
		if k, _, ok := strings.Cut(it, "="); !ok || strings.TrimSpace(k) == "" {
			return nil, usageErrorf("--metadata %q: want KEY=VALUE", it)
		}
	}
	return items, nil
}

// extraBody merges the sampling flags (only those given) and --extra-body
// (whose keys win), as vLLM builds its extra body.
func (o *runOptions) extraBody() (map[string]any, error) {
	f := &o.f
	m := map[string]any{}
	put := func(k string, v optFloat) {
		if v.set {
			m[k] = v.v
		}
	}
	put("top_p", f.topP)
	if f.topK.set {
		m["top_k"] = f.topK.v
	}
	put("min_p", f.minP)
	put("temperature", f.temperature)
	put("frequency_penalty", f.frequencyPen)
	put("presence_penalty", f.presencePen)
	put("repetition_penalty", f.repetitionPen)
	if f.extraBody != "" {
		// UseNumber keeps numbers as typed ({"seed": 42} stays 42, not 42.0),
		// as Python's json round trip does in vLLM.
		var extra map[string]any
		dec := json.NewDecoder(strings.NewReader(f.extraBody))
		dec.UseNumber()
		if err := dec.Decode(&extra); err != nil || extra == nil {
			return nil, usageErrorf("--extra-body: want a JSON object (%v)", errOr(err, "got null"))
		}
		// dec.More is false for a stray "]" or "}": only the end may follow.
		if _, err := dec.Token(); err != io.EOF {
			return nil, usageErrorf("--extra-body: want one JSON object, found more after it")
		}
		for k, v := range extra {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

// arrivals is the arrival process the flags describe.
func (o *runOptions) arrivals() load.Arrivals {
	f := &o.f
	a := load.Arrivals{
		Rate:       float64(f.requestRate),
		Burstiness: float64(f.burstiness),
		Seed:       f.ds.Seed,
	}
	if f.rampUpStrategy != "" {
		a.RampStrategy = f.rampUpStrategy
		a.RampStartRPS = f.rampUpStartRPS.v
		a.RampEndRPS = f.rampUpEndRPS.v
	}
	return a
}

// concurrency is the most requests that can be in flight.
func (o *runOptions) concurrency() int {
	if o.f.users > 0 {
		return o.f.users
	}
	if o.f.maxConcurrency.set {
		return o.f.maxConcurrency.v
	}
	return o.f.ds.NumPrompts
}

func (o *runOptions) maxConcurrencyOrZero() int {
	if o.f.maxConcurrency.set {
		return o.f.maxConcurrency.v
	}
	return 0
}

// baseURL is demo's simulator, else --base-url, else http://HOST:PORT.
func (o *runOptions) baseURL() string {
	if o.f.simURL != "" {
		return strings.TrimRight(o.f.simURL, "/")
	}
	if o.f.baseURL != "" {
		return strings.TrimRight(o.f.baseURL, "/")
	}
	return "http://" + net.JoinHostPort(o.f.host, strconv.Itoa(o.f.port))
}

// requestIDPrefix is --request-id-prefix, else a worker's shared prefix
// (resolveWorker), else vLLM's random "bench-XXXXXXXX-".
func (o *runOptions) requestIDPrefix() string {
	if p := o.f.requestIDPrefix; p != "" {
		return p
	}
	if p := o.w.r.IDPrefix; p != "" {
		return p
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "bench-" + hex.EncodeToString(b[:]) + "-"
}

// params describe the run for metrics and reports as far as the flags
// know it (prepare.Build adds the model and the tokenizer,
// bench.FinalParams the rest).
func (o *runOptions) params(goodput map[string]float64) record.Params {
	f := &o.f
	p := record.Params{
		RequestRate:       record.Rate(float64(f.requestRate)),
		Burstiness:        record.Rate(float64(f.burstiness)),
		MaxConcurrency:    f.maxConcurrency.ptr(),
		PercentileMetrics: f.percentileMetrics,
		MetricPercentiles: f.metricPercentiles,
		Backend:           f.backend,
		Metadata:          f.metadata,
	}
	n := f.ds.NumPrompts
	p.NumPrompts = &n
	if f.users > 0 {
		u := f.users // at most this many in flight, sent as fast as they come back
		p.MaxConcurrency, p.RequestRate = &u, record.Inf
	}
	if len(goodput) > 0 {
		p.Goodput = goodput
	}
	if f.label != "" {
		l := f.label
		p.Label = &l
	}
	if f.rampUpStrategy != "" {
		p.RampUpStrategy = f.rampUpStrategy
		p.RampUpStartRPS = f.rampUpStartRPS.ptr()
		p.RampUpEndRPS = f.rampUpEndRPS.ptr()
	}
	if f.backend == "sagemaker" {
		p.EndpointName = o.sm.endpointName
	}
	return p
}

package servermetrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
)

// Config configures a Collector. The zero value of every field but URLs
// has a documented default.
type Config struct {
	// URLs are the /metrics addresses to read, one per replica (and the
	// DCGM exporter's, if any). Userinfo and query strings are never
	// shown in results or warnings.
	URLs []string
	// Interval is the time between scrapes (default 1 s).
	Interval time.Duration
	// Timeout bounds one scrape, connection to last byte (default and
	// maximum: Interval), so a /metrics that hangs costs one goroutine for
	// at most that long.
	Timeout time.Duration
	// Extra names more families to keep (--server-metric NAME), as they
	// appear on the wire; Known families are always kept.
	Extra []string
	// Client sends the scrapes; nil = a client of its own (its own
	// connections, never the benchmark's), proxies from the environment.
	Client *http.Client
	// MaxBytes caps one answer's size (default 8 MiB; vLLM's /metrics is
	// about 100 KB): a larger answer is a scrape error, read no further.
	MaxBytes int64
	// OnWarning, when set, is called with each warning as it happens (off
	// the request path, from a scrape goroutine); Result.Warnings has them
	// all anyway.
	OnWarning func(string)
	// now is the clock (tests).
	now func() time.Time
}

// Defaults.
const (
	DefaultInterval = time.Second
	DefaultMaxBytes = 8 << 20
)

// acceptHeader asks for the Prometheus text format first (every server
// here speaks it) and takes OpenMetrics 1.0, which expfmt also reads.
const acceptHeader = "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1"

// Collector reads servers' Prometheus metrics during a benchmark. Create
// it with Start, call Mark when the timed run begins and Stop when it
// ends. Scrapes run on goroutines of their own, each bounded by Timeout;
// nothing the benchmark does waits for them except Mark's scrape before
// the timed run and Stop's after it (each at most Timeout).
type Collector struct {
	cfg       Config
	ownClient bool // cfg.Client was made here: Stop closes its connections
	keep      map[string]bool
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	wg        sync.WaitGroup

	mu       sync.Mutex
	eps      []*endpoint
	mark     time.Time
	end      time.Time
	warnings []string
	stopped  bool
	ending   bool // Stop has stamped the end: no periodic round starts
	stopOnce sync.Once
	result   Result
}

// endpoint is one URL's scrapes and series.
type endpoint struct {
	url     *url.URL
	shown   string    // url without userinfo and query, for results
	altUsed bool      // /prometheus/metrics was tried after a JSON answer
	busy    int       // scrapes in flight
	lastT   time.Time // the latest scrape recorded
	scrapes int
	errs    int
	warned  bool
	series  map[string]*series
	order   []string // series keys in first-seen order
	// exposedAs maps canonical names to the old vLLM names this server used.
	exposedAs map[string]string
}

// series is one series' data across scrapes.
type series struct {
	family, typ string
	labels      map[string]string
	les         []float64
	gauge       []tpoint // gauges and untyped: every sample
	cum         cumulative
}

// Start begins scraping cfg.URLs: once at once, then every Interval until
// Stop. A URL that does not parse is a scrape error with a warning, like
// any other failure; Start itself never fails, so a benchmark never stops
// for its server's metrics.
func Start(ctx context.Context, cfg Config) *Collector {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Timeout <= 0 || cfg.Timeout > cfg.Interval {
		cfg.Timeout = cfg.Interval
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	own := cfg.Client == nil
	if own {
		cfg.Client = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: cfg.Timeout}).DialContext,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	c := &Collector{cfg: cfg, ownClient: own, keep: map[string]bool{}, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for _, n := range cfg.Extra {
		c.keep[n] = true
	}
	for _, raw := range cfg.URLs {
		ep := &endpoint{series: map[string]*series{}}
		u, err := url.Parse(raw)
		if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			err = errors.New("want an http:// or https:// URL")
		}
		if err != nil {
			ep.shown = redact(raw)
		} else {
			ep.url, ep.shown = u, shownURL(u)
		}
		c.eps = append(c.eps, ep)
	}
	// The first scrape is stamped and sent before Start returns, so it
	// comes before Mark's.
	c.round(cfg.now(), nil, false)
	go c.loop(ctx)
	return c
}

// shownURL is u without userinfo, query or fragment: what results and
// warnings may print.
func shownURL(u *url.URL) string {
	v := *u
	v.User, v.RawQuery, v.ForceQuery, v.Fragment, v.RawFragment = nil, "", false, "", ""
	return v.String()
}

// redact makes an unparsable URL printable without what might be a
// password in it.
func redact(raw string) string {
	if i := strings.LastIndex(raw, "@"); i >= 0 {
		raw = raw[i+1:]
	}
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	return raw
}

func (c *Collector) keeps(name string) bool {
	if _, ok := Known[name]; ok {
		return true
	}
	return c.keep[name]
}

// loop scrapes at once and then every Interval (Mark and Stop start their
// own rounds). The caller's ctx ending stops it like Stop (without the
// final scrape).
func (c *Collector) loop(ctx context.Context) {
	defer close(c.done)
	tick := time.NewTicker(c.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			c.round(c.cfg.now(), nil, false)
		case <-ctx.Done():
			c.cancel()
			return
		case <-c.ctx.Done():
			return
		}
	}
}

// round starts one scrape of every endpoint, all stamped t (so replicas'
// gauges add up scrape by scrape). A periodic round (force false) skips an
// endpoint still busy with its last scrape, so a hanging server holds one
// goroutine at a time; Mark's and Stop's rounds (force) scrape anyway, as
// the window's edges. ack, when non-nil, is closed when the round's
// scrapes have ended.
func (c *Collector) round(t time.Time, ack chan struct{}, force bool) {
	var wg sync.WaitGroup
	c.mu.Lock()
	if c.stopped || c.ending && !force {
		c.mu.Unlock()
		if ack != nil {
			close(ack)
		}
		return
	}
	for _, ep := range c.eps {
		if ep.busy > 0 && !force {
			continue
		}
		ep.busy++
		wg.Add(1)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer wg.Done()
			c.scrape(ep, t)
		}()
	}
	c.mu.Unlock()
	if ack != nil {
		go func() { wg.Wait(); close(ack) }()
	}
}

// scrape reads ep once and records what it got at time t.
func (c *Collector) scrape(ep *endpoint, t time.Time) {
	var got exposed
	var err error
	c.mu.Lock()
	u, altUsed := ep.url, ep.altUsed
	c.mu.Unlock()
	if u == nil {
		err = errors.New("not a usable URL: want http://host:port/metrics")
	} else {
		got, err = c.fetch(u)
		if errors.Is(err, errJSON) && !altUsed && strings.TrimSuffix(u.Path, "/") == "/metrics" {
			// TensorRT-LLM's /metrics is JSON iteration stats; its
			// Prometheus metrics are at /prometheus/metrics. Tried once.
			alt := *u
			alt.Path = "/prometheus/metrics"
			c.mu.Lock()
			ep.altUsed = true
			c.mu.Unlock()
			var err2 error
			if got, err2 = c.fetch(&alt); err2 == nil {
				c.mu.Lock()
				ep.url, ep.shown, err = &alt, shownURL(&alt), nil
				c.mu.Unlock()
			} else {
				err = fmt.Errorf("%v, and %s: %v", err, shownURL(&alt), err2)
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ep.busy--
	if err != nil && c.ctx.Err() != nil {
		return // stopping: not the server's failure
	}
	if err != nil {
		ep.errs++
		if !ep.warned {
			ep.warned = true
			w := fmt.Sprintf("server metrics: %s: %v (later scrape errors are counted in scrape_errors, not shown)", ep.shown, err)
			c.warnings = append(c.warnings, w)
			if c.cfg.OnWarning != nil {
				// Off c.mu (the callback writes to the run's stderr), but
				// inside c.wg, so Stop returns only after it: a warning
				// printed after the run ended raced with its output.
				c.wg.Add(1)
				go func() {
					defer c.wg.Done()
					c.cfg.OnWarning(w)
				}()
			}
		}
		return
	}
	c.record(ep, t, got)
}

// record adds one parsed scrape of ep, sent at t (c.mu held). A scrape
// that ends after a later one (a slow periodic scrape overtaken by Mark's
// or Stop's) is counted but its samples are dropped: series stay in time
// order.
func (c *Collector) record(ep *endpoint, t time.Time, got exposed) {
	ep.scrapes++
	if !t.After(ep.lastT) {
		return
	}
	ep.lastT = t
	for canon, wire := range got.exposedAs {
		if ep.exposedAs == nil {
			ep.exposedAs = map[string]string{}
		}
		ep.exposedAs[canon] = wire
	}
	for _, ps := range got.series {
		k := seriesKey(ps.family, ps.labels)
		s := ep.series[k]
		if s == nil {
			s = &series{family: ps.family, typ: ps.typ, labels: ps.labels, les: ps.les}
			ep.series[k] = s
			ep.order = append(ep.order, k)
		}
		switch s.typ {
		case TypeCounter, TypeHistogram:
			if s.typ == TypeHistogram && !sameFloats(s.les, ps.les) {
				s.les, s.cum = ps.les, cumulative{}
			}
			s.cum.add(t, ps.p.vals)
			s.cum.prune(c.mark)
		default:
			s.gauge = append(s.gauge, tpoint{t: t, vals: ps.p.vals})
		}
	}
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// errJSON marks an answer in JSON rather than the Prometheus format.
var errJSON = errors.New("answered JSON, not the Prometheus text format")

// fetch GETs u within Timeout, reading at most MaxBytes, and parses it.
func (c *Collector) fetch(u *url.URL) (exposed, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return exposed{}, err
	}
	req.Header.Set("Accept", acceptHeader)
	resp, err := c.cfg.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil && c.ctx.Err() == nil {
			return exposed{}, fmt.Errorf("no answer within %v", c.cfg.Timeout)
		}
		return exposed{}, errors.New(scrubURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return exposed{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil && c.ctx.Err() == nil {
			return exposed{}, fmt.Errorf("answer not complete within %v", c.cfg.Timeout)
		}
		return exposed{}, fmt.Errorf("reading the answer: %v", err)
	}
	if int64(len(body)) > c.cfg.MaxBytes {
		return exposed{}, fmt.Errorf("answer larger than %d bytes", c.cfg.MaxBytes)
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
		len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return exposed{}, errJSON
	}
	got, err := parse(bytes.NewReader(body), expfmt.ResponseFormat(resp.Header), c.keeps)
	if err != nil {
		return exposed{}, fmt.Errorf("not the Prometheus text format: %v", firstLine(err.Error()))
	}
	return got, nil
}

// scrubURLError drops the URL (which may carry userinfo) from a client
// error: *url.Error's text repeats it.
func scrubURLError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// Mark starts the timed window: one scrape, stamped now and waited for
// (at most Timeout, so a hanging server delays the run's start by that
// much at worst and its figures not at all). Call it after warm-ups, just
// before the first timed request: what the scrape reads is then the
// server's state at the window's start, however long the answer took.
// Without Mark the window starts at the first scrape.
func (c *Collector) Mark() {
	t := c.cfg.now()
	ack := make(chan struct{})
	c.round(t, ack, true)
	<-ack
	c.mu.Lock()
	c.mark = t
	c.mu.Unlock()
}

// Stop ends the window: one last scrape stamped now (waited for, at most
// Timeout), then no more. It returns the window's Result; later calls
// return the same Result.
func (c *Collector) Stop() Result {
	c.stopOnce.Do(func() {
		c.mu.Lock()
		c.end = c.cfg.now()
		c.ending = true
		end := c.end
		c.mu.Unlock()
		ack := make(chan struct{})
		c.round(end, ack, true)
		<-ack
		c.mu.Lock()
		c.stopped = true // no round starts after this
		c.mu.Unlock()
		c.cancel()
		<-c.done
		c.wg.Wait()
		if c.ownClient {
			c.cfg.Client.CloseIdleConnections()
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.result = c.summarize()
	})
	return c.result
}

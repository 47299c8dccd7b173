package cli_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/htmlreport"
	"github.com/llmbench/llmbench/internal/sim"
)

// chromiumPath finds Debian's chromium (or another Chrome); without one
// the browser test is skipped loudly, and fails under CI=true.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "chromium not installed (apt-get install chromium; .ci/run does it): the HTML report was not opened in a browser"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("NOT TESTED: " + msg)
	return ""
}

// artifactDir is where screenshots go: $TEST_ARTIFACTS when set (kept
// after the test), else a temporary folder.
func artifactDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("TEST_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// demoResult runs "llmbench demo" (the simulator over real loopback HTTP)
// and returns the saved result's path (its records file lies beside it).
func demoResult(t *testing.T, dir, name string, extra ...string) string {
	t.Helper()
	args := append([]string{"demo", "--sim-preset", "fast", "--num-prompts", "16", "--save-result", "--save-detailed",
		"--result-dir", dir, "--result-filename", name}, extra...)
	if code, _, errOut := mcRun(t, args...); code != 0 {
		t.Fatalf("demo exit %d: %s", code, errOut)
	}
	return filepath.Join(dir, name)
}

// TestReportInBrowser opens a run page (a real simulator run), a compare
// page and a sweep page in headless Chromium: no console error, no
// request besides the page itself, every chart drawn with data, and a
// screenshot of each (light and dark) in the artifact folder.
func TestReportInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	run1 := demoResult(t, dir, "run1.json", "--goodput", "ttft:100", "tpot:20")
	run2 := demoResult(t, dir, "run2.json", "--max-concurrency", "8")
	sweep := filepath.Join("..", "htmlreport", "testdata", "sweep-synthetic.json")
	pages := []struct {
		name  string
		paths []string
		extra []string
	}{
		{"run", []string{run1}, nil},
		{"compare", []string{run1, run2}, []string{"--fail-if", "p99_ttft_ms>+10%"}},
		{"sweep", []string{sweep}, nil},
	}
	art := artifactDir(t)
	actx := browser(t, exe)
	for _, pg := range pages {
		out := filepath.Join(dir, pg.name+".html")
		args := append(append([]string{"report"}, pg.paths...), append(pg.extra, "-o", out)...)
		if code, _, errOut := mcRun(t, args...); code != 0 {
			t.Fatalf("report exit %d: %s", code, errOut)
		}
		checkInBrowser(t, actx, out, pageCharts(t, pg.paths), filepath.Join(art, "report-"+pg.name))
	}
}

// pageCharts are the charts of the page report makes of paths.
func pageCharts(t *testing.T, paths []string) []htmlreport.Chart {
	t.Helper()
	page, err := htmlreport.Build(paths, htmlreport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var charts []htmlreport.Chart
	for _, s := range page.Sections {
		charts = append(charts, s.Charts...)
	}
	return charts
}

// browser starts headless Chromium (no sandbox: tests may run as root)
// for at most two minutes and returns its allocator context.
func browser(t *testing.T, exe string) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 900))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	return actx
}

// TestBrowserCheckSeesFetches: the browser check itself notices a page
// that loads something (from a loopback server) and logs an error, so a
// passing TestReportInBrowser means something.
func TestBrowserCheckSeesFetches(t *testing.T) {
	exe := chromiumPath(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg"/>`)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "bad.html")
	page := `<!DOCTYPE html><html><body><img src="` + srv.URL + `/x.svg"><script>console.error("boom")</script><footer></footer></body></html>`
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	pc := openInBrowser(t, browser(t, exe), path)
	all := strings.Join(pc.problems, "\n")
	for _, want := range []string{"request: " + srv.URL + "/x.svg", "console error"} {
		if !strings.Contains(all, want) {
			t.Errorf("the check missed %q; it saw:\n%s", want, all)
		}
	}
}

// browserEvents collects what a page did that it must not.
type browserEvents struct {
	mu       sync.Mutex
	problems []string
}

func (b *browserEvents) add(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, s)
}

// snapshot returns the problems seen so far.
func (b *browserEvents) snapshot() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// listen records console errors and warnings, uncaught exceptions, log
// errors (CSP violations among them) and every request other than
// pageURL.
func (b *browserEvents) listen(ctx context.Context, pageURL string) error {
	return chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				b.add("console " + string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			b.add("exception: " + e.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				b.add("log " + string(e.Entry.Level) + ": " + e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != pageURL {
				b.add("request: " + e.Request.URL)
			}
		}
	})
}

// pageCheck is what a browser saw of a page.
type pageCheck struct {
	// svgs, withData and drawn count the charts' <svg> elements, the
	// charts with data points and a drawn path, and the SVGs rendered
	// taller than 100 px.
	svgs, withData, drawn int
	// problems are console errors, exceptions and requests (see listen).
	problems []string
	// light and dark are full-page screenshots (PNG) in each colour scheme.
	light, dark []byte
	// charts are the charts' geometry as drawn, in page order.
	charts []chartGeom
}

// chartGeom is one chart as the browser drew it, in the SVG's own units
// (gonum's, y up): the plot area between the axis lines, the centres of
// the filled circles (a step's or a sample's marker) and the text labels
// that overlap one another.
type chartGeom struct {
	ID string `json:"id"`
	// Width and Height are the SVG's viewBox size.
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// X0, X1, Y0, Y1 bound the plot area: the X axis line's extent and
	// the Y axis line's.
	X0 float64 `json:"x0"`
	X1 float64 `json:"x1"`
	Y0 float64 `json:"y0"`
	Y1 float64 `json:"y1"`
	// Dots are the filled circles' centres.
	Dots [][2]float64 `json:"dots"`
	// Overlaps name pairs of text labels whose boxes overlap on screen.
	Overlaps []string `json:"overlaps"`
}

// chartGeomJS reads every chart's geometry from the DOM: axis lines are
// gonum's black 0.5-wide straight paths (the longest horizontal one is
// the X axis, the longest vertical one the Y axis); markers are paths
// drawn with arcs and a fill; labels are <text> elements, compared by
// their on-screen boxes (rotation included) with a 1 px tolerance.
const chartGeomJS = `[...document.querySelectorAll('figure.chart')].map(f => {
  const svg = f.querySelector('svg');
  const vb = svg.viewBox.baseVal;
  const g = {id: f.dataset.chart, width: vb.width, height: vb.height, x0: NaN, x1: NaN, y0: NaN, y1: NaN, dots: [], overlaps: []};
  let bestX = -1, bestY = -1;
  for (const p of svg.querySelectorAll('path')) {
    const st = p.getAttribute('style') || '';
    const d = p.getAttribute('d') || '';
    const b = p.getBBox();
    if (/stroke:#000000;stroke-width:0.5(;|$)/.test(st) && /^M[^A-Z]*L[^A-Z]*$/.test(d)) {
      if (b.height < 0.01 && b.width > bestX) { bestX = b.width; g.x0 = b.x; g.x1 = b.x + b.width; }
      if (b.width < 0.01 && b.height > bestY) { bestY = b.height; g.y0 = b.y; g.y1 = b.y + b.height; }
    }
    if (d.includes('A') && /fill:#[0-9A-Fa-f]{6}/.test(st)) g.dots.push([b.x + b.width / 2, b.y + b.height / 2]);
  }
  const texts = [...svg.querySelectorAll('text')].map(t => ({s: t.textContent, r: t.getBoundingClientRect()}));
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
    const a = texts[i].r, b = texts[j].r;
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 1 && h > 1) g.overlaps.push(JSON.stringify(texts[i].s) + ' and ' + JSON.stringify(texts[j].s));
  }
  return g;
})`

// openInBrowser opens path in a new tab of the browser of actx.
func openInBrowser(t *testing.T, actx context.Context, path string) pageCheck {
	t.Helper()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + abs
	var ev browserEvents
	if err := ev.listen(ctx, url); err != nil {
		t.Fatal(err)
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	must(chromedp.Call(ctx, network.Enable, network.EnableParams{}))
	must(chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}))
	must(chromedp.Call(ctx, runtime.Enable, cdp.Empty{}))
	must(nil, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer"))))
	count := func(js string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		must(nil, err)
		return n
	}
	var pc pageCheck
	pc.svgs = count(`document.querySelectorAll('figure.chart svg').length`)
	pc.withData = count(`[...document.querySelectorAll('figure.chart')].filter(f => +f.dataset.points > 0 && f.querySelector('svg path')).length`)
	pc.drawn = count(`[...document.querySelectorAll('figure.chart svg')].filter(s => s.getBoundingClientRect().height > 100).length`)
	pc.charts, err = chromedp.Run(ctx, chromedp.Evaluate[[]chartGeom](chartGeomJS))
	must(nil, err)
	pc.light, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(nil, err)
	must(chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}))
	pc.dark, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(nil, err)
	pc.problems = ev.snapshot()
	return pc
}

// checkInBrowser opens path and checks it (see TestReportInBrowser)
// against the charts the page was built from; shot is the screenshot
// path without extension.
func checkInBrowser(t *testing.T, actx context.Context, path string, charts []htmlreport.Chart, shot string) {
	t.Helper()
	pc := openInBrowser(t, actx, path)
	if n := len(charts); pc.svgs != n || pc.withData != n || pc.drawn != n {
		t.Errorf("%s: %d charts expected; %d <svg>, %d with data, %d drawn taller than 100px", path, n, pc.svgs, pc.withData, pc.drawn)
	}
	if len(pc.problems) > 0 {
		t.Errorf("%s: the page did what it must not:\n%s", path, strings.Join(pc.problems, "\n"))
	}
	if len(pc.charts) != len(charts) {
		t.Errorf("%s: %d charts drawn, %d built", path, len(pc.charts), len(charts))
	} else {
		for i := range charts {
			for _, p := range checkGeometry(&charts[i], &pc.charts[i]) {
				t.Errorf("%s: chart %q: %s", filepath.Base(path), charts[i].ID, p)
			}
		}
	}
	for name, img := range map[string][]byte{shot + ".png": pc.light, shot + "-dark.png": pc.dark} {
		if err := os.WriteFile(name, img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s: %d charts; screenshots %s.png and %s-dark.png", filepath.Base(path), len(charts), shot, shot)
}

// checkGeometry compares a chart as drawn with its data: the plot area
// lies inside the picture, every point of every dotted series has its
// marker inside the plot area (and no marker lies outside it: legends
// draw none), and no two labels overlap.
func checkGeometry(c *htmlreport.Chart, g *chartGeom) []string {
	var out []string
	if !(0 <= g.X0 && g.X0 < g.X1 && g.X1 <= g.Width && 0 <= g.Y0 && g.Y0 < g.Y1 && g.Y1 <= g.Height) {
		out = append(out, fmt.Sprintf("plot area x %.1f..%.1f, y %.1f..%.1f is not inside the %.1f x %.1f picture", g.X0, g.X1, g.Y0, g.Y1, g.Width, g.Height))
	}
	want := 0
	for _, s := range c.Series {
		if s.Dots {
			want += len(s.XY)
		}
	}
	const tol = 0.5
	inside, outside := 0, 0
	for _, d := range g.Dots {
		if d[0] >= g.X0-tol && d[0] <= g.X1+tol && d[1] >= g.Y0-tol && d[1] <= g.Y1+tol {
			inside++
		} else {
			outside++
		}
	}
	if inside != want || outside != 0 {
		out = append(out, fmt.Sprintf("%d data points, %d markers drawn inside the plot area and %d outside", want, inside, outside))
	}
	for _, o := range g.Overlaps {
		out = append(out, "labels overlap: "+o)
	}
	return out
}

// fastSim serves the simulator's "fast" preset (16 sequences per batch,
// 2 ms steps: it saturates at low concurrency) on loopback, in process,
// until the test ends.
func fastSim(t *testing.T) string {
	t.Helper()
	p, err := sim.LookupPreset("fast")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sim.Start(ctx, sim.DefaultConfig().WithPreset(p), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = srv.Stop(context.Background())
	})
	return srv.URL
}

// realSweep runs "llmbench sweep" against url with args (short requests,
// files in dir/name) and returns the sweep file's path.
func realSweep(t *testing.T, url, dir, name string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	base := []string{"sweep", "--base-url", url, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--ready-check-timeout-sec", "0", "--random-input-len", "16", "--random-output-len", "32", "--result-dir", out}
	code, stdout, errOut := mcRun(t, append(base, args...)...)
	if code != 0 {
		t.Fatalf("sweep %s: exit %d\n%s\n%s", name, code, stdout, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(out, "sweep-*.json"))
	if len(files) != 1 {
		t.Fatalf("sweep %s: sweep files %v", name, files)
	}
	return files[0]
}

// TestSweepPagesInBrowser renders the pages of sweeps made by real
// "llmbench sweep" runs against the simulator — closed loop saturated
// (with --refine, whose steps crowd the load axis) and not, open loop,
// users — in headless Chromium, and checks every chart as drawn: the
// plot area inside the picture, one marker per step of every line inside
// it, no label over another (checkGeometry). A synthetic file once drew
// fine while every real sweep that found a saturation point drew its
// headline chart blank.
func TestSweepPagesInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	url := fastSim(t)
	dir := t.TempDir()
	sweeps := []struct {
		name      string
		args      []string
		saturated bool
	}{
		{"saturated", []string{"--concurrency", "1,2,4,8,16,32,64", "--refine", "2", "--prompts-per-step", "48",
			"--sla", "p99_ttft_ms<40,p99_itl_ms<50"}, true},
		{"unsaturated", []string{"--concurrency", "1,2", "--prompts-per-step", "24", "--sla", "p99_ttft_ms<500"}, false},
		{"open-loop", []string{"--request-rates", "10,20,40", "--prompts-per-step", "24", "--sla", "p99_ttft_ms<500"}, false},
		{"users", []string{"--users", "2,4,8", "--step-duration", "2s", "--think-time", "20ms-50ms"}, false},
	}
	art := artifactDir(t)
	actx := browser(t, exe)
	for _, sw := range sweeps {
		path := realSweep(t, url, dir, sw.name, sw.args...)
		s, err := capacity.ReadSweep(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Saturation != nil; got != sw.saturated {
			t.Errorf("%s: saturation found %v, want %v (the sweep does not cover the case it stands for): %+v", sw.name, got, sw.saturated, s.Saturation)
		}
		page := filepath.Join(dir, sw.name+".html")
		if code, _, errOut := mcRun(t, "report", path, "-o", page); code != 0 {
			t.Fatalf("report exit %d: %s", code, errOut)
		}
		charts := pageCharts(t, []string{path})
		if len(charts) == 0 || charts[0].ID != "sweep-throughput" {
			t.Fatalf("%s: the page does not open with the throughput chart: %d charts", sw.name, len(charts))
		}
		// Every line over the steps has every step: a marker is then
		// expected for each (checkGeometry).
		for _, c := range charts {
			for _, se := range c.Series {
				if se.Dots && len(se.XY) != len(s.Steps) {
					t.Errorf("%s: chart %q, line %q: %d points for %d steps", sw.name, c.ID, se.Name, len(se.XY), len(s.Steps))
				}
			}
		}
		checkInBrowser(t, actx, page, charts, filepath.Join(art, "sweep-"+sw.name))
	}
}

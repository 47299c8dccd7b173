package cli_test

import (
	"context"
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

	"github.com/llmbench/llmbench/internal/htmlreport"
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
		page, err := htmlreport.Build(pg.paths, htmlreport.Options{})
		if err != nil {
			t.Fatal(err)
		}
		charts := 0
		for _, s := range page.Sections {
			charts += len(s.Charts)
		}
		checkInBrowser(t, actx, out, charts, filepath.Join(art, "report-"+pg.name))
	}
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
}

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
	pc.light, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(nil, err)
	must(chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}))
	pc.dark, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must(nil, err)
	pc.problems = ev.snapshot()
	return pc
}

// checkInBrowser opens path and checks it (see TestReportInBrowser); shot
// is the screenshot path without extension.
func checkInBrowser(t *testing.T, actx context.Context, path string, charts int, shot string) {
	t.Helper()
	pc := openInBrowser(t, actx, path)
	if pc.svgs != charts || pc.withData != charts || pc.drawn != charts {
		t.Errorf("%s: %d charts expected; %d <svg>, %d with data, %d drawn taller than 100px", path, charts, pc.svgs, pc.withData, pc.drawn)
	}
	if len(pc.problems) > 0 {
		t.Errorf("%s: the page did what it must not:\n%s", path, strings.Join(pc.problems, "\n"))
	}
	for name, img := range map[string][]byte{shot + ".png": pc.light, shot + "-dark.png": pc.dark} {
		if err := os.WriteFile(name, img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s: %d charts; screenshots %s.png and %s-dark.png", filepath.Base(path), charts, shot, shot)
}

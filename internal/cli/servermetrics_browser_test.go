package cli_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/llmbench/llmbench/internal/sim"
)

// TestServerMetricsPagesInBrowser draws the server's view from real runs
// against the simulator (its /metrics and its DCGM exporter) in headless
// Chromium: the run page's running/waiting and KV-usage charts over
// time, and the sweep page's running/waiting, KV, preemptions and energy
// per token against load, each checked as drawn (every point inside the
// plot area, checkGeometry), with screenshots in the artifact folder.
func TestServerMetricsPagesInBrowser(t *testing.T) {
	exe := chromiumPath(t)
	p, err := sim.LookupPreset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sim.DefaultConfig().WithPreset(p)
	cfg.Batching.MaxNumSeqs = 8
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sim.Start(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	dcgm := httptest.NewServer(srv.Server.DCGMHandler(sim.DefaultDCGM))
	t.Cleanup(func() {
		dcgm.Close()
		cancel()
		_ = srv.Stop(context.Background())
	})
	metrics := srv.URL + "/metrics," + dcgm.URL + "/metrics"
	dir := t.TempDir()
	runPage := filepath.Join(dir, "run.html")
	if code, out, errs := mcRun(t, "run", "--base-url", srv.URL, "--model", "llmbench-sim", "--tokenizer", "builtin:gpt2",
		"--max-concurrency", "16", "--num-prompts", "64", "--random-input-len", "16", "--random-output-len", "64",
		"--server-metrics", metrics, "--server-metrics-interval", "250ms", "--disable-tqdm",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "run.json", "--html", runPage); code != 0 {
		t.Fatalf("run exit %d\n%s\n%s", code, out, errs)
	}
	sweep := realSweep(t, srv.URL, dir, "server", "--concurrency", "1,2,4,8,16,32", "--prompts-per-step", "32",
		"--server-metrics", metrics, "--server-metrics-interval", "250ms")
	sweepPage := filepath.Join(dir, "sweep.html")
	if code, _, errs := mcRun(t, "report", sweep, "-o", sweepPage); code != 0 {
		t.Fatalf("report exit %d: %s", code, errs)
	}
	art := artifactDir(t)
	actx := browser(t, exe)
	for _, pg := range []struct {
		page, from string
		want       []string
	}{
		{runPage, filepath.Join(dir, "run.json"), []string{"server-batch-time", "server-kv-time"}},
		{sweepPage, sweep, []string{"sweep-server-batch", "sweep-server-kv", "sweep-server-preemptions", "sweep-energy"}},
	} {
		charts := pageCharts(t, []string{pg.from})
		var ids []string
		for _, c := range charts {
			ids = append(ids, c.ID)
		}
		for _, id := range pg.want {
			if !slices.Contains(ids, id) {
				t.Errorf("%s: no chart %q among %q", filepath.Base(pg.page), id, ids)
			}
		}
		checkInBrowser(t, actx, pg.page, charts, filepath.Join(art, "server-"+filepath.Base(pg.page)))
	}
}

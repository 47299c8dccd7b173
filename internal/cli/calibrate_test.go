package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/calibrate"
)

// TestCalibrate runs calibrate at two small loads against a simulator
// process (this test binary as "llmbench sim", through testscript's
// PATH entry) and checks that every load ran the rule's requests in
// every repetition, the output's structure, and that the errors have the
// right sign and scale: generous bounds that a busy machine does not
// break (the figures belong to docs/fidelity.md).
func TestCalibrate(t *testing.T) {
	save := filepath.Join(t.TempDir(), "cal.json")
	code, out, errs := runCLI(t, "calibrate", "--sim-bin", "llmbench", "--streams", "1,20", "--tokens", "5",
		"--ttft", "2ms", "--itl", "1ms", "--repeat", "2", "--min-time", "0", "--save", save)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"ttft-mean", "itl-p99", "cpu/chunk-us", "sched-p99", "lag-p99", "events/s", "verdict", " 2x100 ",
		"Largest load measured within 1 ms of mean TTFT error in every repetition:", "Calibration saved to"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	var res calibrate.Calibration
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || res.Cores < 1 || res.Rule != (calibrate.SavedRule{MinRequests: 100, Repetitions: 2}) {
		t.Fatalf("saved %s", b)
	}
	for i, want := range []int{1, 20} {
		row := res.Rows[i]
		if row.Streams != want || len(row.Repetitions) != 2 || row.Failed != 0 || row.Verdict == "" {
			t.Errorf("row %d: %+v", i, row)
		}
		for k, rep := range row.Repetitions {
			// The defect this guards: a row rested on one wave of
			// requests, a single request at one stream.
			if rep.Requests != 100 || rep.Matched != 100 || rep.Gaps != 400 || rep.EventsPerSecond <= 0 || rep.WallSeconds <= 0 {
				t.Errorf("row %d repetition %d: %+v", i, k, rep)
			}
			// The server's own TTFT is the nominal 2 ms, give or take its timer.
			if rep.ServerTTFTMeanMs < 1.9 || rep.ServerTTFTMeanMs > 500 {
				t.Errorf("row %d repetition %d: server TTFT %.3f ms, want about 2", i, k, rep.ServerTTFTMeanMs)
			}
			// Stamps come after the writes: the errors are never (much)
			// negative; the upper bounds only catch a unit slip (seconds
			// for ms), as a busy machine under -race adds tens of ms.
			if rep.TTFTMeanMs < -1 || rep.TTFTMeanMs > 2000 || rep.ITLMeanMs < -5 || rep.ITLMeanMs > 1000 {
				t.Errorf("row %d repetition %d: TTFT error %.3f ms, ITL error %.3f ms: not small", i, k, rep.TTFTMeanMs, rep.ITLMeanMs)
			}
		}
	}
}

// fakeRepetitions answers each repetition from a table of mean TTFT
// errors by load, recording the requests each was asked for.
type fakeRepetitions struct {
	means map[int][]float64
	asked map[int][]int
}

func (f *fakeRepetitions) run(_ context.Context, streams, requests, _, rep int) (calibrate.Repetition, int, error) {
	f.asked[streams] = append(f.asked[streams], requests)
	m := f.means[streams][rep]
	return calibrate.Repetition{Requests: requests, Errors: calibrate.Errors{Matched: requests, Gaps: 9 * requests,
		TTFTMeanMs: m, TTFTP99Ms: 3 * m, ITLMeanMs: 0.01 * float64(rep), ITLP99Ms: 0.2, ServerTTFTMeanMs: 50},
		CPUPerChunkUs: 10 + float64(rep), SchedP99Ms: 0.5 * float64(rep+1), DispatchLagP99Ms: 0.1, EventsPerSecond: 1000 * float64(streams),
		Verdict: map[bool]string{true: "degraded", false: "valid"}[m > 4], WallSeconds: 2.5}, 2, nil
}

// TestCalibrateHeadline drives calibrate with fake repetitions: every
// load is asked for the rule's requests in every repetition, the table
// shows each figure's spread, and the 1 ms headline is withheld because
// the 100-stream load's repetitions straddle 1 ms, while the 5 ms one is
// resolved (golden output, byte for byte).
func TestCalibrateHeadline(t *testing.T) {
	save := filepath.Join(t.TempDir(), "cal.json")
	fake := &fakeRepetitions{asked: map[int][]int{}, means: map[int][]float64{
		1: {0.3, 0.25, 0.35}, 100: {0.8, 1.3, 0.9}, 500: {3, 4.5, 4.9}, 1000: {20, 30, 25}}}
	c := &calibrate.Config{Streams: []int{1, 100, 500, 1000}, TTFT: 50e6, ITL: 10e6, Tokens: 10, Rule: calibrate.Rule{Requests: 100, MinTime: 2e9}, Repeat: 3}
	var out bytes.Buffer
	if err := runCalibrate(t.Context(), &Env{Stdout: &out}, c, save, fake.run); err != nil {
		t.Fatal(err)
	}
	// 140 ms per request: 2 s is 15 waves, past the 100 requests' count
	// from 100 streams up.
	for n, want := range map[int]int{1: 100, 100: 1500, 500: 7500, 1000: 15000} {
		if got := fake.asked[n]; len(got) != 3 || got[0] != want || got[1] != want || got[2] != want {
			t.Errorf("%d streams: repetitions asked for %v requests, want 3 of %d", n, got, want)
		}
	}
	golden := filepath.Join("testdata", "calibrate", "headline.golden")
	got := strings.ReplaceAll(out.String(), save, "CAL.json")
	if *csUpdate {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	b, err := os.ReadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	var res calibrate.Calibration
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Within1Ms.Resolved || res.Within1Ms.Streams != 1 || !strings.Contains(res.Within1Ms.Reason, "0.800 to 1.300 ms") ||
		!res.Within5Ms.Resolved || res.Within5Ms.Streams != 500 || res.Rows[1].TTFTMeanMs != (calibrate.Range{Min: 0.8, Max: 1.3}) {
		t.Errorf("saved headlines %+v %+v, row %+v", res.Within1Ms, res.Within5Ms, res.Rows[1].TTFTMeanMs)
	}
}

// TestCalibrateRefusesTooManyRequests: a rule that would need more
// requests per repetition than a run may send is refused before anything
// starts.
func TestCalibrateRefusesTooManyRequests(t *testing.T) {
	code, _, errs := runCLI(t, "calibrate", "--streams", "1000", "--ttft", "0", "--itl", "1us", "--tokens", "2", "--min-time", "1h")
	if code != 2 || !strings.Contains(errs, "needs 3600000000000 requests per repetition, more than 1000000; lower --min-time") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

// TestCalibrateRefusesWhatGivesNoFigure: one token has no gap to time,
// and a repetition in which every request failed has no error to
// measure; each stops calibrate with one line instead of a table of NaN
// that --save then cannot write.
func TestCalibrateRefusesWhatGivesNoFigure(t *testing.T) {
	save := filepath.Join(t.TempDir(), "cal.json")
	code, _, errs := runCLI(t, "calibrate", "--sim-bin", "llmbench", "--streams", "1", "--tokens", "1",
		"--ttft", "1ms", "--repeat", "2", "--requests", "2", "--save", save)
	if code != 2 || !strings.Contains(errs, "--tokens 1: want at least 2") {
		t.Errorf("--tokens 1: exit %d: %s", code, errs)
	}
	// A simulator that ends every stream with an error object.
	failing := filepath.Join(t.TempDir(), "failing-sim")
	if err := os.WriteFile(failing, []byte("#!/bin/sh\nexec llmbench \"$@\" --fault-error-event 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "calibrate", "--sim-bin", failing, "--streams", "1", "--tokens", "2",
		"--ttft", "1ms", "--itl", "1ms", "--repeat", "2", "--requests", "2", "--min-time", "0", "--save", save)
	if code != 1 || !strings.Contains(errs, "calibrate: 1 stream, repetition 1: no request succeeded (the first failed with:") || strings.Contains(out, "NaN") {
		t.Errorf("every request failed: exit %d\n%s\n%s", code, out, errs)
	}
}

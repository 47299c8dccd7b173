package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/llmbench/llmbench/internal/record"
	"github.com/llmbench/llmbench/internal/report/reporttest"
)

// conformanceDir holds the vLLM conformance vectors (copied from
// shared/conformance/metrics; the tests must not depend on ../shared).
const conformanceDir = "../../testdata/conformance/metrics"

var conformanceCases = []string{
	"basic_stream",         // plain streams, default metrics and p99
	"single_token_outputs", // 1-token outputs leave TPOT/ITL lists
	"failures_concurrency", // failures, max concurrency and rate lines, label
	"goodput_slos",         // goodput equality, 1-token TPOT = 0
	"skewed_itl",           // ITL vs TPOT percentiles, P99.9
	"bursts_peak",          // 1-second peak buckets, boundary end
	"client_queue",         // latencies/queue_times, client-queue metrics (successes only)
}

type expectedFile struct {
	Case           string          `json:"case"`
	ResultFilename string          `json:"result_filename"`
	ConsoleTable   []string        `json:"console_table"`
	SaveResult     json.RawMessage `json:"save_result"`
}

func loadCase(t *testing.T, name string) (record.Params, []record.Record, expectedFile) {
	t.Helper()
	p, recs, format, err := record.ReadFile(filepath.Join(conformanceDir, name+".input.json"))
	if err != nil {
		t.Fatal(err)
	}
	if format != record.FormatConformance {
		t.Fatalf("format = %v, want conformance", format)
	}
	data, err := os.ReadFile(filepath.Join(conformanceDir, name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp expectedFile
	if err := json.Unmarshal(data, &exp); err != nil {
		t.Fatal(err)
	}
	p.Date = "20260101-000000"
	return p, recs, exp
}

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, name := range conformanceCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, recs, exp := loadCase(t, name)
			s := summaryFor(t, &p, recs)

			if diff := cmp.Diff(exp.ConsoleTable, TableLines(s, &p)); diff != "" {
				t.Errorf("console table (-want +got):\n%s", diff)
			}
			if got := ResultFilename(&p); got != exp.ResultFilename {
				t.Errorf("result filename = %q, want %q", got, exp.ResultFilename)
			}
			// Vectors older than vLLM's latencies/queue_times keys are
			// compared without them (reporttest.CompareResult).
			var buf bytes.Buffer
			if err := WriteResult(&buf, s, &p, recs, ResultOptions{Detailed: true}); err != nil {
				t.Fatal(err)
			}
			exact, total := reporttest.CompareResult(t, exp.SaveResult, buf.Bytes())
			t.Logf("%d of %d numbers identical in Python repr", exact, total)
		})
	}
}

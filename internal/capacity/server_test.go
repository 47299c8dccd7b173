package capacity

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/servermetrics"
)

func sp(v float64) *float64 { return &v }

// serverRows are a concurrency ladder over 8 batch slots: throughput
// stops growing at 8, p99 TTFT jumps at 16, the queue grows after 8.
func serverRows(hits ...float64) []Row {
	type st struct{ load, tput, ttft, run, runMean, wait, waitMean float64 }
	var rows []Row
	for i, s := range []st{{1, 400, 3, 1, 1, 0, 0}, {2, 790, 5, 2, 1.9, 0, 0}, {4, 1300, 5, 4, 3.2, 0, 0},
		{8, 1990, 7, 8, 5.3, 0, 0}, {16, 2000, 260, 8, 6.4, 8, 5.6}, {32, 2000, 770, 8, 6.5, 24, 18}} {
		r := Row{Load: s.load, LoadKind: Concurrency, Runs: 1, Completed: 32, OutputThroughput: s.tput, P99TTFTMs: s.ttft,
			Metrics: map[string]float64{"output_throughput": s.tput, "p99_ttft_ms": s.ttft},
			Server: &servermetrics.Summary{RunningMax: sp(s.run), RunningMean: sp(s.runMean), WaitingMax: sp(s.wait), WaitingMean: sp(s.waitMean),
				KVCacheUsageMax: sp(0.013), Preemptions: sp(0)}}
		if i < len(hits) {
			r.Server.PrefixCacheHitRate = sp(hits[i])
		}
		rows = append(rows, r)
	}
	return rows
}

// TestExplainKnee: the cause at the knee goes in the saturation and the
// verdict (and the text table); a hit rate rising across the steps is a
// note unless the dataset shares prefixes; without a knee nothing but
// the note is added.
func TestExplainKnee(t *testing.T) {
	t.Parallel()
	s, err := Analyze(Concurrency, nil, serverRows(0, 0.9, 0.9, 0.9, 0.9, 0.9))
	if err != nil {
		t.Fatal(err)
	}
	before := s.Verdict
	s.ExplainKnee(false)
	sat := s.Saturation
	if sat == nil || sat.Load != 8 || sat.Cause != servermetrics.CauseBatchLimit ||
		sat.CauseDetail != "the batch is full at 8 running requests from 16 concurrent users on (up to 24 waiting): raise --max-num-seqs or add replicas" {
		t.Fatalf("saturation %+v", sat)
	}
	if s.Verdict != before+" Why it saturates (the server's metrics): "+sat.CauseDetail+"." {
		t.Errorf("verdict %q", s.Verdict)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "prefix-cache hit rate rose from 0 % at 1 concurrent users to 90 %") {
		t.Errorf("notes %q", s.Notes)
	}
	var text, js bytes.Buffer
	if err := WriteText(&text, s); err != nil || !strings.Contains(text.String(), "\nCause: batch_limit (the batch is full at 8") {
		t.Errorf("text table (%v):\n%s", err, text.String())
	}
	if err := WriteJSON(&js, s); err != nil || !strings.Contains(js.String(), `"cause": "batch_limit"`) || !strings.Contains(js.String(), `"server": {`) {
		t.Errorf("sweep file (%v):\n%s", err, js.String())
	}

	shared, _ := Analyze(Concurrency, nil, serverRows(0, 0.9))
	shared.ExplainKnee(true)
	if len(shared.Notes) != 0 {
		t.Errorf("shared prefixes: notes %q", shared.Notes)
	}

	// No knee (one step): no cause, the verdict as it was.
	one, _ := Analyze(Concurrency, nil, serverRows()[:1])
	v := one.Verdict
	one.ExplainKnee(false)
	if one.Saturation != nil || one.Verdict != v {
		t.Errorf("one step: %+v, %q", one.Saturation, one.Verdict)
	}
}

// TestNoServerNoKeys: a sweep without server metrics writes no server,
// cause or cause_detail key (its file stays as before).
func TestNoServerNoKeys(t *testing.T) {
	t.Parallel()
	rows := serverRows()
	for i := range rows {
		rows[i].Server = nil
	}
	s, _ := Analyze(Concurrency, nil, rows)
	b, _ := json.Marshal(s)
	for _, k := range []string{`"server"`, `"cause"`, `"cause_detail"`} {
		if bytes.Contains(b, []byte(k)) {
			t.Errorf("%s in %s", k, b)
		}
	}
}

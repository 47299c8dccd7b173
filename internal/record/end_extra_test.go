package record

import (
	"bytes"
	"strings"
	"testing"
)

// TestEndExtras: what SetEndExtra adds goes in the closing line, Read
// still reads the file, and ReadEndExtras gives it back; a file without
// extras (or without its closing line) gives nil.
func TestEndExtras(t *testing.T) {
	t.Parallel()
	p := ConformanceDefaults()
	n := 1
	p.NumPrompts, p.DurationS = &n, 1
	var buf bytes.Buffer
	s, err := NewStream(&buf, Header{Params: p})
	if err != nil {
		t.Fatal(err)
	}
	out := 3
	if err := s.Add(&Record{Index: 0, Success: true, OutputTokens: &out, TTFT: 0.1, Latency: 0.2, ITL: []float64{0.05, 0.05}, GeneratedText: "a b c"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEndExtra("server_metrics", map[string]any{"summary": map[string]int{"scrapes": 3}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(&p, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"extras":{"server_metrics":{"summary":{"scrapes":3}}}`) {
		t.Errorf("closing line: %s", buf.String())
	}
	if _, recs, _, err := Read(bytes.NewReader(buf.Bytes())); err != nil || len(recs) != 1 {
		t.Errorf("Read: %d records, %v", len(recs), err)
	}
	ex, err := ReadEndExtras(bytes.NewReader(buf.Bytes()))
	if err != nil || string(ex["server_metrics"]) != `{"summary":{"scrapes":3}}` {
		t.Errorf("ReadEndExtras: %s, %v", ex["server_metrics"], err)
	}
	header, _, _ := strings.Cut(buf.String(), "\n")
	for _, in := range []string{header + "\n", ""} {
		if ex, err := ReadEndExtras(strings.NewReader(in)); ex != nil || err != nil {
			t.Errorf("%q: %v, %v; want nil, nil", in, ex, err)
		}
	}
}

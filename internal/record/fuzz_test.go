package record

import (
	"bytes"
	"testing"
)

// FuzzRead: any input either fails with an error or yields records that
// validate and survive a JSON-lines round trip; it never panics.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"llmbench_records":1,"params":{"duration_s":1}}` + "\n" + `{"index":0,"success":true,"ttft":0.1,"itl":[0.1],"latency":0.2}` + "\n"))
	f.Add([]byte(`{"params":{"duration_s":2,"request_rate":"inf"},"requests":[{"success":true,"output_tokens":null,"itl":[]}]}`))
	f.Add([]byte(`{"params":{"duration_s":1},"requests":[{"ttft":-1}]}`))
	f.Add([]byte("\n\n"))
	// Sparse indices without num_prompts: what is written back must read.
	f.Add([]byte(`{"llmbench_records":1,"params":{"duration_s":1}}` + "\n" + `{"index":5,"success":true}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, recs, _, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		for i := range recs {
			if err := recs[i].Validate(); err != nil {
				t.Fatalf("record %d accepted but invalid: %v", i, err)
			}
		}
		var buf bytes.Buffer
		if err := WriteJSONLines(&buf, p, recs); err != nil {
			t.Fatalf("accepted input does not write back: %v", err)
		}
		if _, got, _, err := Read(&buf); err != nil || len(got) != len(recs) {
			t.Fatalf("round trip: %d records, err %v; want %d", len(got), err, len(recs))
		}
	})
}

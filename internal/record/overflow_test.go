package record

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadRejectsImpossibleCounts: a records file with token counts no
// request can have (4e18, which overflowed the totals into negative
// figures) is refused, naming the line.
func TestReadRejectsImpossibleCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, rec, want string }{
		{"output tokens near MaxInt64 overflow any sum", `"output_tokens":4000000000000000000`, "line 3: record 1: output_tokens is 4000000000000000000"},
		{"prompt length", `"prompt_len":4000000000000000000`, "line 3: record 1: prompt_len is 4000000000000000000"},
		{"tokenizer count", `"tokenizer_count":1000000000001`, "line 3: record 1: tokenizer_count is 1000000000001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteJSONLines(&buf, Params{DurationS: 1}, []Record{{Index: 0, Success: true, PromptLen: 1}}); err != nil {
				t.Fatal(err)
			}
			buf.WriteString(`{"index":1,"success":true,"ttft":0.1,"latency":0.2,"start_time":0,"itl":[],` + tc.rec + "}\n")
			_, _, _, err := Read(&buf)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestValidateAcceptsLargeRealCounts: the bound leaves room for any real
// request.
func TestValidateAcceptsLargeRealCounts(t *testing.T) {
	t.Parallel()
	n := MaxTokenCount
	r := Record{PromptLen: MaxTokenCount, OutputTokens: &n, TokenizerCount: 2_000_000}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

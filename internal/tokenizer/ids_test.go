package tokenizer

import (
	"bytes"
	"testing"
)

func TestWriteIDs(t *testing.T) {
	tests := []struct {
		ids  []int
		want string
	}{
		{nil, "[]\n0 tokens\n"},
		{[]int{0}, "[0]\n1 tokens\n"},
		{[]int{15496, 995, 198}, "[15496,995,198]\n3 tokens\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := WriteIDs(&b, tc.ids); err != nil || b.String() != tc.want {
			t.Errorf("WriteIDs(%v) = %q, %v; want %q", tc.ids, b.String(), err, tc.want)
		}
	}
}

func TestWriteBatch(t *testing.T) {
	tok, err := Load(t.Context(), BuiltinGPT2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		texts []string
		want  string
	}{
		{nil, "[]\n"},
		{[]string{""}, "[[]]\n"},
		{[]string{"Hello world", "", "<|endoftext|>!"}, "[[15496,995],[],[50256,0]]\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := tok.WriteBatch(&b, tc.texts, false); err != nil || b.String() != tc.want {
			t.Errorf("WriteBatch(%q) = %q, %v; want %q", tc.texts, b.String(), err, tc.want)
		}
	}
}

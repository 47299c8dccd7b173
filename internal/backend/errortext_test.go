package backend

import (
	"strings"
	"testing"
)

// TestErrorText: one line, valid UTF-8, cut at ErrorBodyBytes without
// splitting a character.
func TestErrorText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", ErrorBodyBytes-1) + "é" + "tail"
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{"  two\n lines\t here ", "two lines here"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{strings.Repeat("x", ErrorBodyBytes), strings.Repeat("x", ErrorBodyBytes)},
		{strings.Repeat("x", ErrorBodyBytes+1), strings.Repeat("x", ErrorBodyBytes) + "..."},
		{long, strings.Repeat("a", ErrorBodyBytes-1) + "..."},
	} {
		if got := ErrorText(tc.in); got != tc.want {
			t.Errorf("ErrorText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

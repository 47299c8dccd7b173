package bench

import (
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestFirstError: the first failure's text, folded onto one line, or
// "none".
func TestFirstError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		recs []record.Record
		want string
	}{
		{nil, "none"},
		{[]record.Record{{Success: true}}, "none"},
		{[]record.Record{{Success: true}, {Error: "HTTP 500:\n  boom\tnow"}, {Error: "later"}}, "HTTP 500: boom now"},
	}
	for _, tt := range tests {
		if got := (&Outcome{Records: tt.recs}).FirstError(); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.recs, got, tt.want)
		}
	}
}

package stream

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// splitAll feeds in to a fresh LineSplitter in pieces of size n and returns
// the lines, the flushed remainder marked with a "EOF:" prefix.
func splitAll(t *testing.T, in string, n int) []string {
	t.Helper()
	var s LineSplitter
	var got []string
	collect := func(line []byte) error { got = append(got, string(line)); return nil }
	b := []byte(in)
	for len(b) > 0 {
		k := min(n, len(b))
		if err := s.Feed(b[:k], collect); err != nil {
			t.Fatalf("Feed: %v", err)
		}
		b = b[k:]
	}
	var rest []string
	if err := s.Flush(func(line []byte) error { rest = append(rest, "EOF:"+string(line)); return nil }); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return append(got, rest...)
}

func TestLineSplitter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string
	}{
		{"plain lines", "a\nbc\n", []string{"a", "bc"}},
		{"CRLF endings lose the CR", "a\r\nb\r\n", []string{"a", "b"}},
		{"blank lines are reported", "a\n\nb\n\n", []string{"a", "", "b", ""}},
		{"lone CR is not a line end", "a\rb\n", []string{"a\rb"}},
		{"only one CR is removed", "a\r\r\n", []string{"a\r"}},
		{"final line without newline comes from Flush", "a\nlast", []string{"a", "EOF:last"}},
		{"final CR without LF is dropped by Flush", "a\nlast\r", []string{"a", "EOF:last"}},
		{"multi-byte UTF-8 survives any split", "世界🚀\nü\n", []string{"世界🚀", "ü"}},
		{"empty input", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for n := 1; n <= len(tt.in)+1; n++ {
				if got := splitAll(t, tt.in, n); !slices.Equal(got, tt.want) {
					t.Fatalf("piece size %d: got %q, want %q", n, got, tt.want)
				}
			}
		})
	}
}

func TestLineSplitterLimit(t *testing.T) {
	t.Parallel()
	s := LineSplitter{MaxLineBytes: 8}
	nop := func([]byte) error { return nil }
	if err := s.Feed([]byte("12345678\n"), nop); err != nil {
		t.Fatalf("8-byte line within the limit: %v", err)
	}
	if err := s.Feed([]byte("12345"), nop); err != nil {
		t.Fatal(err)
	}
	err := s.Feed([]byte("6789"), nop)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("9 bytes held: got %v, want ErrLineTooLong", err)
	}
}

func TestLineSplitterCallbackError(t *testing.T) {
	t.Parallel()
	var s LineSplitter
	stop := errors.New("stop")
	var seen []string
	err := s.Feed([]byte("a\nb\nc\n"), func(l []byte) error {
		seen = append(seen, string(l))
		if string(l) == "b" {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || strings.Join(seen, ",") != "a,b" {
		t.Fatalf("got err %v after %q; want stop after a,b", err, seen)
	}
}

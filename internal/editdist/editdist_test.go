package editdist

import "testing"

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"num_promts", "num_prompts", 1}, {"abc", "abc", 0},
		{"request-rate", "request_rate", 1}, {"flaw", "lawn", 2},
	} {
		if got := Levenshtein(tc.a, tc.b); got != tc.d {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
		if got := Levenshtein(tc.b, tc.a); got != tc.d {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.d)
		}
	}
}

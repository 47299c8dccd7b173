package sagemaker

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidInferenceID checks the loop against the regexp it replaced,
// ^\PC{1,64}$, on edge cases and on every string built from a set of
// awkward pieces.
func TestValidInferenceID(t *testing.T) {
	re := regexp.MustCompile(`^\PC{1,64}$`)
	pieces := []string{"", "a", "-", " ", "é", "🚀", "\x00", "\t", "\u200b", "\ufeff", "\ue000", "\xff", "\xe2\x82", "\U0010ffff"}
	cases := []string{"", strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("é", 64), strings.Repeat("é", 65),
		strings.Repeat("\xff", 64), strings.Repeat("\xff", 65), "run-1/req-00042", "a\nb"}
	for _, a := range pieces {
		for _, b := range pieces {
			for _, c := range pieces {
				cases = append(cases, a+b+c, strings.Repeat(a+b, 21)+c)
			}
		}
	}
	for _, id := range cases {
		if got, want := validInferenceID(id), re.MatchString(id); got != want {
			t.Errorf("validInferenceID(%q) = %v, the regexp says %v", id, got, want)
		}
	}
}

package record

import (
	"os"
	"strings"
	"testing"
)

// TestREADMENamesEveryClass keeps the README's list of error classes
// complete: a user reading a records file must find every class there.
func TestREADMENamesEveryClass(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Classes {
		if !strings.Contains(string(data), "`"+c+"`") {
			t.Errorf("README.md does not name the error class `%s`", c)
		}
	}
	if !strings.Contains(string(data), "Redirects are reported") {
		t.Error("README.md does not say that redirects are not followed")
	}
}

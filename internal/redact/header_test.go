package redact

import "testing"

// TestHeaderItem: a malformed header item is named by the text before
// its first ":", "=" or blank, never with its value.
func TestHeaderItem(t *testing.T) {
	t.Parallel()
	for item, want := range map[string]string{
		"Authorization: Bearer sk-1": `"Authorization ..." (value hidden)`,
		"X-Key=sk-1":                 `"X-Key ..." (value hidden)`,
		"Bearer\tsk-1":               `"Bearer ..." (value hidden)`,
		"sk-1":                       "item (value hidden)",
		":sk-1":                      "item (value hidden)",
	} {
		if got := HeaderItem(item); got != want {
			t.Errorf("%q: %s, want %s", item, got, want)
		}
	}
}

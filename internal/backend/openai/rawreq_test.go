package openai

import "testing"

// TestRawPathOnlyDirect: https, a proxy or user info in the URL go through
// net/http; a plain http:// URL through the h1 Poster.
func TestRawPathOnlyDirect(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:8000/v1/completions":     true,
		"https://127.0.0.1:8000/v1/completions":    false,
		"http://u:p@127.0.0.1:8000/v1/completions": false,
	} {
		c, err := New(Config{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.poster.Direct(); got != want {
			t.Errorf("%s: raw path %v, want %v", url, got, want)
		}
	}
}

package redact

import "testing"

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000":         "http://127.0.0.1:8000",
		"https://u:secret@host:8443/v1": "https://u:xxxxx@host:8443/v1",
		"http://u@host":                 "http://u@host",
		"http://[::1":                   "the server",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

package redact

import "net/url"

// URL drops a password from a URL for messages; a URL that does not parse
// is named "the server" (its text may hold the password).
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "the server"
	}
	return u.Redacted()
}

package backend

import "strings"

// ErrorBodyRead is how much of a non-2xx body a backend reads: secrets are
// redacted in all of it before it is cut to ErrorBodyBytes, so a secret
// that straddles the cut cannot leave its first half in the message; and a
// server that answers an error with gigabytes holds no more than this per
// request (README, "memory per request").
const ErrorBodyRead = 16 << 10

// ErrorBodyBytes is how much of a server's error text goes into a
// request's error.
const ErrorBodyBytes = 200

// ErrorText is a server's error text as a request's error shows it, both
// transports alike: valid UTF-8, on one line, cut to ErrorBodyBytes and
// marked "...". Redact it before.
func ErrorText(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) > ErrorBodyBytes {
		s = strings.ToValidUTF8(s[:ErrorBodyBytes], "") + "..."
	}
	return s
}

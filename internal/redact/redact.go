// Package redact removes the secrets a run knows (API keys, header values,
// AWS credentials, SageMaker custom attributes) from text a server sent
// back — error messages, error bodies, generated text of failures — before
// that text is printed or saved. A server that echoes the request headers
// in an error body would otherwise put the Bearer token into the console,
// the result JSON and the records file.
//
// It matches each secret literally and in the encodings an echo commonly
// uses (JSON string escaping, URL query and path escaping), and for a header
// value of the form "Scheme credential" (Bearer, Basic, ...) the credential
// alone too, and the start of a secret that an ellipsis cut off. It does
// not find secrets transformed otherwise (base64 of a
// Basic pair, case changes, cut in two), and ignores values shorter than
// MinLen, which would mangle every message while hiding next to nothing.
package redact

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Mask replaces each secret found.
const Mask = "[REDACTED]"

// MinLen is the shortest secret redacted, in bytes.
const MinLen = 4

// Redactor replaces known secrets in text. The zero value knows none; it is
// safe for concurrent use, Add included.
type Redactor struct {
	mu      sync.Mutex
	secrets []string
	rep     atomic.Pointer[strings.Replacer]
}

// New returns a Redactor that knows secrets (see Add).
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add teaches r more secrets. Each is also known JSON-escaped and
// URL-escaped, and when it looks like "Scheme credential" (one space, a
// scheme word first), by its credential alone.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.secrets)
	for _, s := range secrets {
		for _, f := range forms(s) {
			if len(f) >= MinLen && !slices.Contains(r.secrets, f) {
				r.secrets = append(r.secrets, f)
			}
		}
	}
	if len(r.secrets) == n {
		return
	}
	// Longest first: a secret that contains another is replaced whole.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.rep.Store(strings.NewReplacer(pairs...))
}

// forms lists the ways s may appear in an echo.
func forms(s string) []string {
	out := []string{s}
	if scheme, cred, ok := strings.Cut(s, " "); ok && isWord(scheme) {
		out = append(out, cred)
	}
	for _, v := range out[:len(out):len(out)] {
		if b, err := json.Marshal(v); err == nil {
			out = append(out, string(b[1:len(b)-1]))
		}
		out = append(out, url.QueryEscape(v), url.PathEscape(v))
	}
	return out
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// String returns s with every known secret replaced by Mask, and the
// start of a secret cut off by an ellipsis ("...", as error messages cut
// long server text) too.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	rep := r.rep.Load()
	if rep == nil || s == "" {
		return s
	}
	s = rep.Replace(s)
	if strings.Contains(s, "...") {
		r.mu.Lock()
		secrets := r.secrets
		r.mu.Unlock()
		s = cutSecrets(s, secrets)
	}
	return s
}

// cutSecrets masks, before each "..." (or `"...`), a tail of at least
// MinLen bytes that begins a secret.
func cutSecrets(s string, secrets []string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "...")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		head := s[:i]
		quote := strings.HasSuffix(head, `"`)
		if quote {
			head = head[:len(head)-1]
		}
		head = maskTail(head, secrets)
		b.WriteString(head)
		if quote {
			b.WriteByte('"')
		}
		b.WriteString("...")
		s = s[i+3:]
	}
}

// maskTail replaces the longest tail of head that is a proper prefix of a
// secret, if it is at least MinLen bytes long.
func maskTail(head string, secrets []string) string {
	best := 0
	for _, sec := range secrets {
		for k := min(len(sec)-1, len(head)); k >= MinLen && k > best; k-- {
			if strings.HasSuffix(head, sec[:k]) {
				best = k
				break
			}
		}
	}
	if best == 0 {
		return head
	}
	return head[:len(head)-best] + Mask
}

// Error returns err with its message redacted: err itself when no secret
// occurs in it, else an error whose Error() is the redacted message and
// which unwraps to err (so errors.Is and errors.As still see the cause;
// print the returned error, never what it unwraps to).
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	return &redacted{msg: red, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

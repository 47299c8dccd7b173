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
	mu    sync.Mutex // serialises Add
	known atomic.Pointer[known]
}

// known is what String reads: never changed once stored, so String needs
// no lock while Add builds the next one.
type known struct {
	secrets []string // every form, longest first
	rep     *strings.Replacer
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
	var all []string
	if k := r.known.Load(); k != nil {
		all = slices.Clone(k.secrets)
	}
	n := len(all)
	for _, s := range secrets {
		for _, f := range forms(s) {
			if len(f) >= MinLen && !slices.Contains(all, f) {
				all = append(all, f)
			}
		}
	}
	if len(all) == n {
		return
	}
	// Longest first: a secret that contains another is replaced whole.
	slices.SortFunc(all, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Mask)
	}
	r.known.Store(&known{secrets: all, rep: strings.NewReplacer(pairs...)})
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
// long server text) too. Text without any secret costs a scan per secret
// form and is returned as is: a run cleans every answer it keeps.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	k := r.known.Load()
	if k == nil {
		return s
	}
	// strings.Replacer walks its trie at every byte; a search per secret
	// is many times faster, and most text holds none
	// (BenchmarkStringAnswer).
	for _, sec := range k.secrets {
		if strings.Contains(s, sec) {
			s = k.rep.Replace(s)
			break
		}
	}
	if strings.Contains(s, "...") {
		s = cutSecrets(s, k.secrets)
	}
	return s
}

// cutSecrets masks, before each "..." (or `"...`), a tail of at least
// MinLen bytes that begins a secret. It returns s itself when there is
// none.
func cutSecrets(s string, secrets []string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for from := 0; ; {
		i := strings.Index(s[from:], "...")
		if i < 0 {
			break
		}
		i += from
		start := max(from, done) // the text since the last "..." or mask
		from = i + 3
		end := i
		if end > start && s[end-1] == '"' {
			end--
		}
		head := s[start:end]
		k := secretTail(head, secrets)
		if k == 0 {
			continue
		}
		b.Grow(len(s))
		b.WriteString(s[done : end-k])
		b.WriteString(Mask)
		done = end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// secretTail is the length of the longest tail of head that is a proper
// prefix of a secret, if it is at least MinLen bytes long; else 0.
func secretTail(head string, secrets []string) int {
	best := 0
	for _, sec := range secrets {
		// A tail of k bytes (MinLen <= k < len(sec)) starts with
		// sec[:MinLen] within the last len(sec)-1 bytes; the leftmost
		// such start that runs to the end as a prefix of sec is the
		// longest.
		w := head[max(0, len(head)-(len(sec)-1)):]
		for off := 0; len(w)-off > best && len(w)-off >= MinLen; {
			j := strings.Index(w[off:], sec[:MinLen])
			if j < 0 {
				break
			}
			off += j
			if strings.HasPrefix(sec, w[off:]) {
				best = len(w) - off
				break
			}
			off++
		}
	}
	return best
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

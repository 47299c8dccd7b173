package config

import (
	"io"
	"net/url"
	"strconv"
	"strings"
)

// The resolved command that "llmbench run --print-command" prints: the
// merged settings written back as one command line a shell can run,
// secrets redacted.

// CommandFlag is one flag of a resolved command, already resolved.
type CommandFlag struct {
	// Name is the flag's name without dashes.
	Name string
	// Values are the flag's values: one for a scalar, the items of a list.
	Values []string
	// List marks a list flag: each value is written, an empty list not at
	// all.
	List bool
	// Bool marks a boolean flag: "--x" when true, "--x=false" otherwise.
	Bool bool
	// Nargs writes a list vLLM's way, "--goodput a b", unless a value
	// looks like a flag; otherwise "--x=a --x=b".
	Nargs bool
}

// WriteCommand writes name and the flags, one per line with shell line
// continuations, each value shell-quoted and secrets redacted (Redact). It
// returns how many values it redacted.
func WriteCommand(w io.Writer, name string, flags []CommandFlag) int {
	var b strings.Builder
	b.WriteString(name)
	redacted := 0
	for _, fl := range flags {
		part, n := commandPart(fl)
		redacted += n
		if part == nil {
			continue
		}
		b.WriteString(" \\\n  ")
		b.WriteString(strings.Join(part, " "))
	}
	b.WriteString("\n")
	io.WriteString(w, b.String())
	return redacted
}

// commandPart is one flag's words (nil: left out) and its redactions.
func commandPart(fl CommandFlag) ([]string, int) {
	flagName := "--" + fl.Name
	redacted := 0
	if fl.List {
		if len(fl.Values) == 0 {
			return nil, 0 // an emptied list is run's default
		}
		nargs := fl.Nargs
		for _, v := range fl.Values {
			nargs = nargs && !strings.HasPrefix(v, "-")
		}
		var part []string
		if nargs {
			part = append(part, flagName)
		}
		for _, v := range fl.Values {
			v, n := Redact(fl.Name, v)
			redacted += n
			if nargs {
				part = append(part, ShellQuote(v))
			} else {
				part = append(part, ShellQuote(flagName+"="+v))
			}
		}
		return part, redacted
	}
	v := ""
	if len(fl.Values) > 0 {
		v = fl.Values[0]
	}
	if fl.Bool {
		if v == "true" {
			return []string{flagName}, 0
		}
		return []string{flagName + "=" + v}, 0
	}
	v, redacted = Redact(fl.Name, v)
	if strings.HasPrefix(v, "-") {
		return []string{ShellQuote(flagName + "=" + v)}, redacted
	}
	return []string{flagName, ShellQuote(v)}, redacted
}

// secretWords mark a header or metadata key whose value is a credential.
var secretWords = []string{"auth", "key", "token", "secret", "password", "passwd", "cookie", "credential", "signature", "session"}

// Redact hides the secret part of a flag value, returning how many values
// it hid: --custom-attributes whole, every --header value (headers are how
// credentials reach a server, and no list of key words knows every
// vendor's header name), the value of a --metadata KEY=VALUE whose key
// looks like a credential, and a password in a URL.
func Redact(flag, v string) (string, int) {
	switch flag {
	case "custom-attributes":
		if v == "" {
			return v, 0
		}
		return "[redacted]", 1
	case "header", "metadata":
		k, val, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(val) == "" {
			return v, 0
		}
		if flag == "header" {
			return k + "=[redacted]", 1
		}
		lk := strings.ToLower(k)
		for _, w := range secretWords {
			if strings.Contains(lk, w) {
				return k + "=[redacted]", 1
			}
		}
	case "base-url", "endpoint-url":
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if _, hasPass := u.User.Password(); hasPass {
				u.User = url.UserPassword(u.User.Username(), "[redacted]")
				return strings.Replace(u.String(), "%5Bredacted%5D", "[redacted]", 1), 1
			}
		}
	}
	return v, 0
}

// ShellQuote quotes s for a POSIX shell when it needs it, like Python's
// shlex.quote.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// QuoteValues writes a setting's values for an error message: one quoted
// value, or a bracketed list.
func QuoteValues(vs []string) string {
	if len(vs) == 1 {
		return strconv.Quote(vs[0])
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

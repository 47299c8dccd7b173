package redact

import (
	"strconv"
	"strings"
)

// HeaderItem names a malformed header item without its value, which may
// be a credential: the text before the first ":", "=" or blank (the
// header name in "Authorization: Bearer sk-..." or "Authorization=..."),
// else nothing at all (a bare item may be the token itself).
func HeaderItem(item string) string {
	if i := strings.IndexAny(item, ":= \t"); i > 0 {
		return strconv.Quote(item[:i]+" ...") + " (value hidden)"
	}
	return "item (value hidden)"
}

package openai

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/redact"
)

// ParseHeaders splits --header KEY=VALUE items at the first "=",
// trimming both sides, as vLLM does. A malformed item is named without
// its value, which may be a credential (redact.HeaderItem).
func ParseHeaders(items []string) ([]Header, error) {
	var hs []Header
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--header %s: want KEY=VALUE, e.g. --header 'Authorization=Bearer ...'", redact.HeaderItem(it))
		}
		hs = append(hs, Header{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return hs, nil
}

// ExtraBody merges the sampling settings given (name to value) and
// --extra-body's JSON object extra, whose keys win, as vLLM builds its
// extra body; nil when both are empty.
func ExtraBody(sampling map[string]any, extra string) (map[string]any, error) {
	m := map[string]any{}
	for k, v := range sampling {
		m[k] = v
	}
	if extra != "" {
		// UseNumber keeps numbers as typed ({"seed": 42} stays 42, not 42.0),
		// as Python's json round trip does in vLLM.
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(extra))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil || obj == nil {
			return nil, fmt.Errorf("--extra-body: want a JSON object (%v)", errOr(err, "got null"))
		}
		// dec.More is false for a stray "]" or "}": only the end may follow.
		if _, err := dec.Token(); err != io.EOF {
			return nil, fmt.Errorf("--extra-body: want one JSON object, found more after it")
		}
		for k, v := range obj {
			m[k] = v
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

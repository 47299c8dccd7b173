package openai

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestParseHeaders: items split at the first "=" and trimmed, as vLLM
// does; a malformed item is refused without its value.
func TestParseHeaders(t *testing.T) {
	t.Parallel()
	got, err := ParseHeaders([]string{" Authorization = Bearer a=b ", "X-Empty="})
	want := []Header{{"Authorization", "Bearer a=b"}, {"X-Empty", ""}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("headers %+v, %v; want %+v", got, err, want)
	}
	if got, err := ParseHeaders(nil); got != nil || err != nil {
		t.Errorf("no items: %+v, %v", got, err)
	}
	for item, want := range map[string]string{
		"Authorization: Bearer sk-1": `--header "Authorization ..." (value hidden): want KEY=VALUE, e.g. --header 'Authorization=Bearer ...'`,
		"=sk-1":                      `--header item (value hidden): want KEY=VALUE`,
	} {
		_, err := ParseHeaders([]string{item})
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "sk-1") {
			t.Errorf("%q: %v, want %q", item, err, want)
		}
	}
}

// TestExtraBody: --extra-body's keys win over the sampling settings,
// numbers keep their type, nothing given is nil, and anything but one
// JSON object is refused.
func TestExtraBody(t *testing.T) {
	t.Parallel()
	got, err := ExtraBody(map[string]any{"top_p": 0.9, "temperature": 0.5}, `{"temperature": 0, "seed": 42}`)
	want := map[string]any{"top_p": 0.9, "temperature": json.Number("0"), "seed": json.Number("42")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("merged %v, %v; want %v", got, err, want)
	}
	if got, err := ExtraBody(map[string]any{}, ""); got != nil || err != nil {
		t.Errorf("nothing given: %v, %v", got, err)
	}
	for extra, want := range map[string]string{
		"null":      "--extra-body: want a JSON object (got null)",
		"[1]":       "--extra-body: want a JSON object (json: cannot unmarshal",
		`{"a":1}]`:  "--extra-body: want one JSON object, found more after it",
		`{"a":1}{}`: "--extra-body: want one JSON object, found more after it",
	} {
		if _, err := ExtraBody(nil, extra); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", extra, err, want)
		}
	}
}

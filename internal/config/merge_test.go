package config

import (
	"reflect"
	"testing"
)

func set(name string, values ...string) Entry { return Entry{Name: name, Values: values} }
func null(name string) Entry                  { return Entry{Name: name, Null: true} }

func TestMerge(t *testing.T) {
	t.Parallel()
	defaults := Layer{SourceDefault, []Entry{set("num-prompts", "20"), set("max-concurrency", "4"), set("input-len", "256"), set("output-len", "128")}}
	for _, tc := range []struct {
		name   string
		layers []Layer
		want   []Winner
	}{
		{"nothing", nil, nil},
		{"defaults alone", []Layer{defaults}, []Winner{
			{set("num-prompts", "20"), SourceDefault}, {set("max-concurrency", "4"), SourceDefault},
			{set("input-len", "256"), SourceDefault}, {set("output-len", "128"), SourceDefault},
		}},
		{"file over defaults, flag over file", []Layer{
			defaults,
			{SourceFile, []Entry{set("num-prompts", "50"), set("model", "m")}},
			{SourceFlag, []Entry{set("num-prompts", "7")}},
		}, []Winner{
			{set("max-concurrency", "4"), SourceDefault}, {set("input-len", "256"), SourceDefault},
			{set("output-len", "128"), SourceDefault}, {set("model", "m"), SourceFile},
			{set("num-prompts", "7"), SourceFlag},
		}},
		{"null hides the default and sets nothing", []Layer{
			{SourceDefault, []Entry{set("max-concurrency", "4")}},
			{SourceFile, []Entry{null("max-concurrency")}},
		}, nil},
		{"a specific length above drops the generic one", []Layer{
			{SourceDefault, []Entry{set("input-len", "256"), set("output-len", "128")}},
			{SourceFile, []Entry{set("sharegpt-output-len", "64")}},
			{SourceDash, []Entry{set("random-input-len", "1024")}},
		}, []Winner{
			{set("sharegpt-output-len", "64"), SourceFile}, {set("random-input-len", "1024"), SourceDash},
		}},
		{"a null specific length does not drop the generic one", []Layer{
			{SourceDefault, []Entry{set("input-len", "256")}},
			{SourceFile, []Entry{null("random-input-len")}},
		}, []Winner{{set("input-len", "256"), SourceDefault}}},
		{"generic and specific in one layer both stay", []Layer{
			{SourceFile, []Entry{set("input-len", "1"), set("random-input-len", "2")}},
		}, []Winner{{set("input-len", "1"), SourceFile}, {set("random-input-len", "2"), SourceFile}}},
		{"a list above replaces, not appends", []Layer{
			{SourceFile, []Entry{set("goodput", "ttft:1", "tpot:2")}},
			{SourceDash, []Entry{set("goodput", "e2el:3")}},
		}, []Winner{{set("goodput", "e2el:3"), SourceDash}}},
		{"after -- beats the command line", []Layer{
			{SourceFlag, []Entry{set("model", "a")}},
			{SourceDash, []Entry{set("model", "b")}},
		}, []Winner{{set("model", "b"), SourceDash}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Merge(tc.layers...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestSources(t *testing.T) {
	t.Parallel()
	got := Sources(Merge(
		Layer{SourceDefault, []Entry{set("a", "1"), set("b", "1")}},
		Layer{SourceFile, []Entry{set("b", "2")}},
		Layer{SourceDash, []Entry{set("c", "3")}},
	))
	want := map[string]Source{"a": SourceDefault, "b": SourceFile, "c": SourceDash}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sources = %v, want %v", got, want)
	}
	if s := got["missing"]; s != SourceNone || s.String() != "unset" {
		t.Errorf("unset name: %v", s)
	}
}

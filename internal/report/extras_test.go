package report

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/record"
)

// TestSetExtras: "parent/child" keys go inside an existing parent object,
// else to the top under child; keys are set in sorted order whatever the
// map's order.
func TestSetExtras(t *testing.T) {
	t.Parallel()
	obj := NewObject()
	obj.Set("llmbench", NewObject())
	SetExtras(obj, map[string]any{"z": 1, "llmbench/b": 2, "llmbench/a": 3, "none/c": 4, "cost": 5})
	var b strings.Builder
	if err := obj.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want := `{"llmbench": {"a": 3, "b": 2}, "cost": 5, "c": 4, "z": 1}` // "cost" < "llmbench/…" < "none/c" < "z"
	if got := strings.Join(strings.Fields(b.String()), " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestUsersFilename: --label or the backend, the users, the model after
// its last "/", the date.
func TestUsersFilename(t *testing.T) {
	t.Parallel()
	label := "mine"
	for _, tt := range []struct {
		p    record.Params
		want string
	}{
		{record.Params{Backend: "openai", ModelID: "org/m-7b", Date: "20261202-010203"}, "openai-users16-m-7b-20261202-010203.json"},
		{record.Params{Backend: "openai", ModelID: "m", Date: "d", Label: &label}, "mine-users16-m-d.json"},
	} {
		if got := UsersFilename(&tt.p, 16); got != tt.want {
			t.Errorf("UsersFilename = %q, want %q", got, tt.want)
		}
	}
}

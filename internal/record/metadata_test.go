package record

import "testing"

// TestCheckMetadata: every item is KEY=VALUE with a key.
func TestCheckMetadata(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"a=1", "b=", "c=x=y"}, ""},
		{[]string{"a=1", "b"}, `--metadata "b": want KEY=VALUE`},
		{[]string{" =1"}, `--metadata " =1": want KEY=VALUE`},
	} {
		err := CheckMetadata(tc.items)
		if (tc.want == "") != (err == nil) || (err != nil && err.Error() != tc.want) {
			t.Errorf("%q: %v, want %q", tc.items, err, tc.want)
		}
	}
}

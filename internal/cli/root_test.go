package cli

import (
	"strings"
	"testing"
)

// TestBadCommandInput: a wrong number of arguments is bad input (exit 2)
// with one line that names the command and what it takes, for every
// command (cobra's own "unknown command" for demo foo misled).
func TestBadCommandInput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "foo"}, "demo: takes flags only, got 1"},
		{[]string{"sim", "foo"}, "sim: takes flags only, got 1"},
		{[]string{"proxy", "foo"}, "proxy: takes flags only, got 1"},
		{[]string{"tokenize", "a", "b"}, "tokenize: want at most one TEXT"},
		{[]string{"metrics", "a", "b"}, "metrics: want one records file"},
		{[]string{"compare"}, "compare: want two or more result files, got 0"},
		// demo never silently drops the server a user named.
		{[]string{"demo", "--base-url", "http://127.0.0.1:8000"}, "use llmbench run --base-url"},
		{[]string{"demo", "--port", "8000"}, "ignores --port"},
	} {
		code, out, errs := runCLI(t, tt.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line containing %q", tt.args, code, errs, tt.want)
		}
	}
}

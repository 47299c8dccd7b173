package config

import (
	"strings"
	"testing"
)

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", "''"},
		{"plain-1.0/x_y:z,w=v@%+", "plain-1.0/x_y:z,w=v@%+"},
		{"a b", "'a b'"},
		{`{"a": 1}`, `'{"a": 1}'`},
		{"it's", `'it'"'"'s'`},
		{"$HOME", "'$HOME'"},
		{"[redacted]", "'[redacted]'"},
	} {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestRedactValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag, in, want string
		n              int
	}{
		{"header", "Authorization=Bearer sk-123", "Authorization=[redacted]", 1},
		{"header", "x-api-key=abc", "x-api-key=[redacted]", 1},
		{"header", "X-Amz-Security-Token=abc", "X-Amz-Security-Token=[redacted]", 1},
		{"header", "X-Team=blue", "X-Team=[redacted]", 1}, // any header value may be a credential (X-Portkey-Virtual-Id, ...)
		{"metadata", "hf_token=abc", "hf_token=[redacted]", 1},
		{"metadata", "team=blue", "team=blue", 0},
		{"custom-attributes", "trace=1;secret=2", "[redacted]", 1},
		{"base-url", "http://u:pw@127.0.0.1:8000", "http://u:[redacted]@127.0.0.1:8000", 1},
		{"base-url", "http://127.0.0.1:8000", "http://127.0.0.1:8000", 0},
		{"model", "token-model", "token-model", 0}, // only the flags that carry secrets
	} {
		got, n := Redact(tc.flag, tc.in)
		if got != tc.want || n != tc.n {
			t.Errorf("Redact(%s, %q) = %q, %d; want %q, %d", tc.flag, tc.in, got, n, tc.want, tc.n)
		}
	}
}

func TestWriteCommand(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	n := WriteCommand(&b, "llmbench run", []CommandFlag{
		{Name: "model", Values: []string{"m 1"}},
		{Name: "save-result", Values: []string{"true"}, Bool: true},
		{Name: "ignore-eos", Values: []string{"false"}, Bool: true},
		{Name: "goodput", Values: []string{"ttft:200", "tpot:50"}, List: true, Nargs: true},
		{Name: "metric-percentiles", Values: []string{"-1"}, List: true, Nargs: true},
		{Name: "header", Values: []string{"Authorization=Bearer x", "X-Team=a b"}, List: true},
		{Name: "metadata", List: true},
		{Name: "request-rate", Values: []string{"-5"}},
		{Name: "base-url", Values: []string{"http://u:pw@h:1"}},
	})
	want := "llmbench run \\\n" +
		"  --model 'm 1' \\\n" +
		"  --save-result \\\n" +
		"  --ignore-eos=false \\\n" +
		"  --goodput ttft:200 tpot:50 \\\n" +
		"  --metric-percentiles=-1 \\\n" +
		"  '--header=Authorization=[redacted]' '--header=X-Team=[redacted]' \\\n" +
		"  --request-rate=-5 \\\n" +
		"  --base-url 'http://u:[redacted]@h:1'\n"
	if got := b.String(); got != want || n != 3 {
		t.Errorf("WriteCommand = %d,\n%s\nwant 3,\n%s", n, got, want)
	}
}

package tokenizer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBatch: a JSON array of strings is the batch, in order; no path
// is no batch; a missing file or another JSON shape is an error naming
// --batch.
func TestReadBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	texts := write("texts.json", `["Hello world", "", "<|endoftext|>!"]`)
	empty := write("empty.json", `[]`)
	object := write("object.json", `{"text": "x"}`)
	numbers := write("numbers.json", `[1, 2]`)
	missing := filepath.Join(dir, "none.json")
	for _, tc := range []struct {
		name    string
		path    string
		want    []string
		wantErr string // the error's start; "" for none
	}{
		{"no batch", "", nil, ""}, // --batch not given
		{"texts", texts, []string{"Hello world", "", "<|endoftext|>!"}, ""},                  // order and empty strings kept
		{"empty array", empty, []string{}, ""},                                               // a batch of none
		{"object", object, nil, "--batch " + object + ": want a JSON array of strings: "},    // not an array
		{"numbers", numbers, nil, "--batch " + numbers + ": want a JSON array of strings: "}, // not strings
		{"missing", missing, nil, "--batch: open " + missing + ": "},                         // the file system's error
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadBatch(tc.path)
			if tc.wantErr == "" {
				if err != nil || !reflect.DeepEqual(got, tc.want) {
					t.Errorf("ReadBatch(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("ReadBatch(%q) error = %v, want it to start %q", tc.path, err, tc.wantErr)
			}
		})
	}
	if _, err := ReadBatch(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadBatch(missing) = %v, want it to wrap fs.ErrNotExist", err)
	}
}

// TestReadText: arguments win over standard input and are joined as
// they are; standard input is taken byte for byte.
func TestReadText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"argument", []string{"Hello world"}, "ignored", "Hello world"}, // stdin not read
		{"arguments joined", []string{"a", "b"}, "", "ab"},              // no separator added
		{"stdin", nil, "Hello\n", "Hello\n"},                            // trailing newline kept
		{"empty stdin", nil, "", ""},                                    // zero tokens, not an error
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadText(tc.args, strings.NewReader(tc.stdin))
			if err != nil || got != tc.want {
				t.Errorf("ReadText(%q, %q) = %q, %v; want %q", tc.args, tc.stdin, got, err, tc.want)
			}
		})
	}
	_, err := ReadText(nil, iotest.ErrReader(errors.New("boom")))
	if err == nil || err.Error() != "reading standard input: boom" {
		t.Errorf("ReadText(failing stdin) error = %v, want %q", err, "reading standard input: boom")
	}
}

package tokenizer

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// What "llmbench tokenize" encodes: a batch file's texts (--batch), else
// its TEXT argument, else standard input, byte for byte.

// ReadBatch reads a batch file (--batch): a JSON array of strings, the
// texts to encode in order. "" is no batch (nil). Its errors name --batch
// and, for a file that is not such an array, the file.
func ReadBatch(path string) ([]string, error) {
	var texts []string
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	if err := json.Unmarshal(b, &texts); err != nil {
		return nil, fmt.Errorf("--batch %s: want a JSON array of strings: %w", path, err)
	}
	return texts, nil
}

// ReadText returns the text to encode: args joined when there are any,
// else all of stdin, trailing newline included (a tokenizer counts it).
func ReadText(args []string, stdin io.Reader) (string, error) {
	if len(args) > 0 {
		return strings.Join(args, ""), nil
	}
	b, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("reading standard input: %w", err)
	}
	return string(b), nil
}

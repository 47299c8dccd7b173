package tokenizer

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"sort"
	"strings"
)

// BuiltinPrefix names tokenizers compiled into the binary, so that the demo
// and offline runs have an exact tokenizer without a download.
const BuiltinPrefix = "builtin:"

// BuiltinGPT2 is GPT-2's tokenizer (MIT; see testdata/tokenizer/NOTICE.md),
// the same file as testdata/tokenizer/gpt2 (a test keeps them equal).
const BuiltinGPT2 = BuiltinPrefix + "gpt2"

//go:embed builtin/*
var builtinFS embed.FS

// builtins maps a builtin name to its files in builtinFS.
var builtins = map[string]string{BuiltinGPT2: "builtin/gpt2"}

// loadBuiltin returns the builtin tokenizer called name.
func loadBuiltin(name string) (*Tokenizer, error) {
	base, ok := builtins[name]
	if !ok {
		names := make([]string, 0, len(builtins))
		for n := range builtins {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("tokenizer %q: no such builtin tokenizer (have %s)", name, strings.Join(names, ", "))
	}
	gz, err := builtinFS.ReadFile(base + ".tokenizer.json.gz")
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	config, err := builtinFS.ReadFile(base + ".tokenizer_config.json")
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	return Parse(name, data, config)
}

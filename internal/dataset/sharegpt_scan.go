package dataset

import (
	"encoding/json"
	"errors"

	"github.com/llmbench/llmbench/internal/jsonscan"
)

// scanShareGPT is the fast path of parseShareGPT: one pass over the bytes
// with the shared validating scanner, keeping the raw first two turns and
// the raw turn list (both aliasing data) of each entry with at least
// minTurns turns. encoding/json decodes a 100k-entry file (~170 MB) at under
// 100 MB/s because every entry is scanned three times (Decoder, RawMessage,
// turns). The result is the same as parseShareGPTSlow's for any file it
// accepts (ok); on anything unexpected it declines and the caller reruns
// encoding/json, whose error messages name the line and column.
func scanShareGPT(data []byte, minTurns int) (kept []shareGPTEntry, total int, ok bool) {
	var s jsonscan.Scanner
	s.Reset(data)
	if s.Peek() != '[' {
		return nil, 0, false // not an array (or a BOM): the careful path explains
	}
	lc := newLineCounter(data)
	err := s.Array(func(idx int) error {
		if s.Null() {
			total++ // encoding/json decodes null as an empty entry
			return nil
		}
		if s.Peek() != '{' {
			return errDecline // not an object: the careful path explains
		}
		line := lc.at(int64(s.Offset()))
		total++
		var (
			turns   [2]json.RawMessage
			conv    json.RawMessage
			nTurns  int
			hasConv bool
		)
		err := s.Object(func(key []byte) error {
			if string(key) != "conversations" {
				return s.Skip()
			}
			// encoding/json keeps the last of duplicate keys; so do we.
			turns, nTurns, hasConv = [2]json.RawMessage{}, 0, s.Peek() == '['
			if !hasConv {
				return s.Skip() // null, a string...: vLLM's filter drops it
			}
			start := s.Offset() // Peek skipped the whitespace: at '['
			err := s.Array(func(i int) error {
				raw, err := s.Raw()
				if i < 2 {
					turns[i] = raw
				}
				nTurns = i + 1
				return err
			})
			conv = data[start:s.Offset()]
			return err
		})
		if err == nil && hasConv && nTurns >= max(1, minTurns) {
			kept = append(kept, shareGPTEntry{turns: turns, conv: conv, index: idx, line: line})
		}
		return err
	})
	if err != nil || s.End() != nil {
		return nil, 0, false
	}
	return kept, total, true
}

// errDecline stops the fast scan at a valid file it does not handle.
var errDecline = errors.New("not the ShareGPT layout")

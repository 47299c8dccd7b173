package tokenizer

import (
	"fmt"

	"github.com/llmbench/llmbench/internal/jsonscan"
)

// The two big parts of tokenizer.json, the vocab object and the merges
// array (Gemma-3: 262k entries and 515k merges in 33 MB), are read with
// jsonscan: encoding/json's reflection takes seconds there (tens of seconds
// under the race detector). Everything else in the file is small and goes
// through encoding/json.

// topLevel splits a JSON object into its members' raw values (the last of
// duplicate keys wins, as in encoding/json).
func topLevel(b []byte) (map[string][]byte, error) {
	var s jsonscan.Scanner
	s.Reset(b)
	out := map[string][]byte{}
	err := s.Object(func(k []byte) error {
		key := string(k)
		v, err := s.Raw()
		out[key] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	return out, nil
}

// scanVocab reads {"token": id, ...}.
func scanVocab(b []byte) (map[string]int, error) {
	var s jsonscan.Scanner
	s.Reset(b)
	if c := s.Peek(); c == 0 || c == 'n' {
		return map[string]int{}, s.Skip()
	}
	vocab := make(map[string]int, len(b)/16)
	err := s.Object(func(k []byte) error {
		id, err := s.Int()
		vocab[string(k)] = id
		return err
	})
	return vocab, err
}

// scanMerges reads ["a b", ...] or [["a", "b"], ...].
func scanMerges(b []byte) ([][2]string, error) {
	var s jsonscan.Scanner
	s.Reset(b)
	if c := s.Peek(); c == 0 || c == 'n' {
		return nil, s.Skip()
	}
	merges := make([][2]string, 0, len(b)/16)
	var buf []byte
	str := func() (string, error) {
		v, err := s.String(&buf)
		return string(v), err
	}
	err := s.Array(func(int) error {
		if s.Peek() == '[' {
			var pair [2]string
			n := 0
			err := s.Array(func(int) error {
				x, err := str()
				if n < 2 {
					pair[n] = x
				}
				n++
				return err
			})
			if err != nil {
				return err
			}
			if n != 2 {
				return fmt.Errorf("merge %d has %d parts, want 2", len(merges), n)
			}
			merges = append(merges, pair)
			return nil
		}
		line, err := str()
		if err != nil {
			return err
		}
		a, bb, ok := cutSpace(line)
		if !ok {
			return fmt.Errorf("merge %d %q is not \"left right\"", len(merges), line)
		}
		merges = append(merges, [2]string{a, bb})
		return nil
	})
	return merges, err
}

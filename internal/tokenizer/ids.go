package tokenizer

import (
	"io"
	"strconv"
)

// The printed form of token ids, as "llmbench tokenize" writes them: a
// compact JSON array ("[15496,995]"), the shape Python's
// json.dumps(ids, separators=(",", ":")) gives, so a line compares
// byte for byte with the Rust library's ids.

// AppendIDs appends ids to b as a compact JSON array.
func AppendIDs(b []byte, ids []int) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, ']')
}

// WriteIDs writes ids on one line, then their count ("2 tokens").
func WriteIDs(w io.Writer, ids []int) error {
	b := AppendIDs(nil, ids)
	b = append(b, '\n')
	b = strconv.AppendInt(b, int64(len(ids)), 10)
	b = append(b, " tokens\n"...)
	_, err := w.Write(b)
	return err
}

// WriteBatch writes, on one line, a JSON array holding the ids of each
// text in order.
func (t *Tokenizer) WriteBatch(w io.Writer, texts []string, addSpecialTokens bool) error {
	b := []byte{'['}
	for i, s := range texts {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendIDs(b, t.Encode(s, addSpecialTokens))
	}
	b = append(b, "]\n"...)
	_, err := w.Write(b)
	return err
}

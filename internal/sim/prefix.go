package sim

import (
	"encoding/binary"
	"hash/fnv"
	"strings"
)

// blockHashes returns the chained hashes of the prompt's full KV blocks,
// the prefix cache's keys: block k's hash covers its blockSize tokens and,
// through the previous hash, every token before them, so two prompts
// share block k only if they agree on all tokens up to its end (vLLM
// hashes blocks the same way). A partial last block has no hash: it is
// never shared.
func (r *Request) blockHashes(tok Tokenizer) []uint64 {
	var ids []int
	var words []string
	switch {
	case r.Kind != KindChat && r.PromptIDs != nil:
		ids = r.PromptIDs
	default:
		text := r.Prompt
		if r.Kind == KindChat {
			text = renderChat(r.Messages)
		}
		if _, ok := tok.(WordTokenizer); ok {
			// The stand-in tokenizer's tokens are the words (after BOS):
			// hashing them skips building the id slice.
			words = strings.Fields(text)
		} else {
			ids = tok.Encode(text, true)
		}
	}
	n := len(ids)
	if words != nil {
		n = len(words) + 1 // BOS
	}
	out := make([]uint64, 0, n/blockSize)
	var prev uint64
	var buf [8]byte
	for b := 0; (b+1)*blockSize <= n; b++ {
		h := fnv.New64a()
		binary.LittleEndian.PutUint64(buf[:], prev)
		h.Write(buf[:])
		for i := b * blockSize; i < (b+1)*blockSize; i++ {
			switch {
			case words == nil:
				binary.LittleEndian.PutUint64(buf[:], uint64(ids[i]))
				h.Write(buf[:])
			case i == 0:
				h.Write([]byte{0xff, 0})
			default:
				h.Write([]byte(words[i-1]))
				h.Write([]byte{0})
			}
		}
		prev = h.Sum64()
		out = append(out, prev)
	}
	return out
}

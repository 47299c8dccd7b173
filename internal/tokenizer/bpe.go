package tokenizer

import (
	"fmt"
	"strings"
	"sync"
)

// bpe is the byte-pair-encoding model: a vocabulary plus ranked merges.
type bpe struct {
	vocab    map[string]int
	vocabR   []string       // id -> token for dense vocabularies ("" = unused id)
	vocabRM  map[int]string // id -> token when ids are sparse
	merges   map[uint64]mergeInfo
	unkID    int // -1 when there is no unk token
	fuseUnk  bool
	byteFall bool
	// byteIDs[b] is the id of "<0xHH>" for byte_fallback, -1 if missing.
	byteIDs      [256]int
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	ignoreMerges bool

	cacheMu sync.Mutex
	cache   map[string][]int
}

// mergeInfo is a merge's rank (lower merges first) and the id it yields.
type mergeInfo struct {
	rank  int32
	newID int32
}

// cacheLimit bounds the per-tokenizer word cache (tokenizers uses 10,000).
const cacheLimit = 10000

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// newBPE builds the model; merges are [left, right] token pairs by rank.
func newBPE(vocab map[string]int, merges [][2]string, unk string, fuseUnk, byteFallback bool, prefix, suffix string, ignoreMerges bool) (*bpe, error) {
	m := &bpe{
		vocab: vocab, unkID: -1, fuseUnk: fuseUnk, byteFall: byteFallback,
		prefix: prefix, suffix: suffix, ignoreMerges: ignoreMerges,
		cache: make(map[string][]int),
	}
	maxID := -1
	for tok, id := range vocab {
		if id < 0 {
			return nil, fmt.Errorf("BPE vocab: token %q has negative id %d", tok, id)
		}
		if id > maxID {
			maxID = id
		}
	}
	if maxID <= 2*len(vocab)+1024 {
		m.vocabR = make([]string, maxID+1)
		for tok, id := range vocab {
			m.vocabR[id] = tok
		}
	} else {
		m.vocabRM = make(map[int]string, len(vocab))
		for tok, id := range vocab {
			m.vocabRM[id] = tok
		}
	}
	if unk != "" {
		// tokenizers only fails when an unknown character actually needs
		// the missing unk token; we then drop the character instead.
		if id, ok := vocab[unk]; ok {
			m.unkID = id
		}
	}
	for b := 0; b < 256; b++ {
		m.byteIDs[b] = -1
		if id, ok := vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			m.byteIDs[b] = id
		}
	}
	m.merges = make(map[uint64]mergeInfo, len(merges))
	for rank, mg := range merges {
		a, ok1 := vocab[mg[0]]
		b, ok2 := vocab[mg[1]]
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("BPE merge %d (%q %q): token not in vocab", rank, mg[0], mg[1])
		}
		right := mg[1]
		if prefix != "" {
			right = strings.TrimPrefix(right, prefix)
		}
		n, ok := vocab[mg[0]+right]
		if !ok {
			return nil, fmt.Errorf("BPE merge %d (%q %q): merged token %q not in vocab", rank, mg[0], mg[1], mg[0]+right)
		}
		// A later duplicate replaces an earlier one, as in tokenizers.
		m.merges[pairKey(a, b)] = mergeInfo{rank: int32(rank), newID: int32(n)}
	}
	return m, nil
}

// tokenize appends the ids of one pre-token to dst.
func (m *bpe) tokenize(w string, dst []int) []int {
	if w == "" {
		return dst
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[w]; ok {
			return append(dst, id)
		}
	}
	m.cacheMu.Lock()
	ids, ok := m.cache[w]
	m.cacheMu.Unlock()
	if ok {
		return append(dst, ids...)
	}
	ids = m.mergeWord(w)
	if len(w) < 256 {
		m.cacheMu.Lock()
		if len(m.cache) >= cacheLimit {
			clear(m.cache)
		}
		m.cache[w] = ids
		m.cacheMu.Unlock()
	}
	return append(dst, ids...)
}

// symbol is one node of the doubly linked list a word is merged in.
type symbol struct {
	id         int
	prev, next int
	gone       bool
}

// mergeWord splits w into initial symbols (chars, byte fallback, unk) and
// applies merges lowest rank first with a heap: O(n log n) in the word's
// length, as tokenizers' Word::merge_all.
func (m *bpe) mergeWord(w string) []int {
	syms := make([]symbol, 0, len(w))
	add := func(id int) {
		syms = append(syms, symbol{id: id, prev: len(syms) - 1, next: len(syms) + 1})
	}
	unk := -1 // pending unk id, flushed before the next known symbol
	for i, r := range w {
		s := string(r)
		size := len(s)
		if i > 0 && m.prefix != "" {
			s = m.prefix + s
		}
		if i+size == len(w) && m.suffix != "" {
			s += m.suffix
		}
		if id, ok := m.vocab[s]; ok {
			if unk >= 0 {
				add(unk)
				unk = -1
			}
			add(id)
			continue
		}
		if m.byteFall {
			all := true
			for j := 0; j < len(s); j++ {
				if m.byteIDs[s[j]] < 0 {
					all = false
					break
				}
			}
			if all {
				// tokenizers does not flush a pending unk here; neither do we.
				for j := 0; j < len(s); j++ {
					add(m.byteIDs[s[j]])
				}
				continue
			}
		}
		if m.unkID >= 0 {
			if unk >= 0 && !m.fuseUnk {
				add(unk)
			}
			unk = m.unkID
		}
	}
	if unk >= 0 {
		add(unk)
	}
	if len(syms) == 0 {
		return nil
	}
	syms[len(syms)-1].next = -1

	h := mergeHeap{}
	for i := 0; i+1 < len(syms); i++ {
		if mi, ok := m.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			h.push(heapItem{pos: int32(i), rank: mi.rank, newID: mi.newID})
		}
	}
	for len(h) > 0 {
		top := h.pop()
		cur := &syms[top.pos]
		if cur.gone || cur.next < 0 {
			continue
		}
		nextPos := cur.next
		right := syms[nextPos]
		if mi, ok := m.merges[pairKey(cur.id, right.id)]; !ok || mi.newID != top.newID {
			continue // stale entry
		}
		cur.id = int(top.newID)
		cur.next = right.next
		syms[nextPos].gone = true
		if right.next >= 0 {
			syms[right.next].prev = int(top.pos)
		}
		if cur.prev >= 0 {
			if mi, ok := m.merges[pairKey(syms[cur.prev].id, cur.id)]; ok {
				h.push(heapItem{pos: int32(cur.prev), rank: mi.rank, newID: mi.newID})
			}
		}
		if cur.next >= 0 {
			if mi, ok := m.merges[pairKey(cur.id, syms[cur.next].id)]; ok {
				h.push(heapItem{pos: top.pos, rank: mi.rank, newID: mi.newID})
			}
		}
	}
	out := make([]int, 0, len(syms))
	for i := range syms {
		if !syms[i].gone {
			out = append(out, syms[i].id)
		}
	}
	return out
}

// heapItem is a candidate merge at symbol pos.
type heapItem struct {
	pos   int32
	rank  int32
	newID int32
}

// less orders by rank, then by leftmost position (tokenizers' Merge Ord).
func (a heapItem) less(b heapItem) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// mergeHeap is a binary min-heap; hand-rolled to avoid container/heap's
// interface boxing on the hot path.
type mergeHeap []heapItem

func (h *mergeHeap) push(x heapItem) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *mergeHeap) pop() heapItem {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		c := l
		if r := l + 1; r < len(s) && s[r].less(s[l]) {
			c = r
		}
		if !s[c].less(s[i]) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// idToToken returns the model's token for id.
func (m *bpe) idToToken(id int) (string, bool) {
	if m.vocabRM != nil {
		t, ok := m.vocabRM[id]
		return t, ok
	}
	if id < 0 || id >= len(m.vocabR) {
		return "", false
	}
	t := m.vocabR[id]
	if t == "" {
		eid, ok := m.vocab[""]
		return "", ok && eid == id
	}
	return t, true
}

package tokenizer

// addedToken is an entry of tokenizer.json's "added_tokens".
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// trie finds added tokens in text with leftmost-longest semantics, like the
// Aho-Corasick automaton tokenizers builds (MatchKind::LeftmostLongest).
type trie struct {
	nodes []trieNode
	first [256]bool // bytes that can start a match
}

type trieNode struct {
	next  map[byte]int32
	token int32 // index into the token list + 1; 0 = not terminal
}

func newTrie(words []string) *trie {
	t := &trie{nodes: []trieNode{{}}}
	for i, w := range words {
		if w == "" {
			continue
		}
		t.first[w[0]] = true
		n := 0
		for j := 0; j < len(w); j++ {
			nx, ok := t.nodes[n].next[w[j]]
			if !ok {
				if t.nodes[n].next == nil {
					t.nodes[n].next = make(map[byte]int32, 1)
				}
				t.nodes = append(t.nodes, trieNode{})
				nx = int32(len(t.nodes) - 1)
				t.nodes[n].next[w[j]] = nx
			}
			n = int(nx)
		}
		if t.nodes[n].token == 0 {
			t.nodes[n].token = int32(i + 1)
		}
	}
	return t
}

// match is one added-token occurrence: byte range and token index.
type match struct {
	start, end, token int
}

// findAll returns successive non-overlapping leftmost-longest matches.
func (t *trie) findAll(s string) []match {
	var out []match
	for i := 0; i < len(s); {
		if !t.first[s[i]] {
			i++
			continue
		}
		n, best, bestEnd := 0, 0, 0
		for j := i; j < len(s); j++ {
			nx, ok := t.nodes[n].next[s[j]]
			if !ok {
				break
			}
			n = int(nx)
			if tok := t.nodes[n].token; tok != 0 {
				best, bestEnd = int(tok), j+1
			}
		}
		if best == 0 {
			i++
			continue
		}
		out = append(out, match{i, bestEnd, best - 1})
		i = bestEnd
	}
	return out
}

// addedVocab holds the added tokens and the two matchers tokenizers keeps:
// one for tokens matched on raw text, one for tokens matched after
// normalization.
type addedVocab struct {
	byID      map[int]addedToken
	byContent map[string]int
	raw       *trie
	rawTok    []addedToken
	norm      *trie
	normTok   []addedToken
}

// newAddedVocab registers tokens as tokenizers does when it loads
// tokenizer.json (AddedVocabulary::add_tokens): the "id" written in the
// file is not trusted; a token already in the model vocabulary keeps its
// model id, a new one gets the next id after the vocabulary (or after the
// largest added id). The matchers list special tokens first, then the
// others, each in file order; normalize is the tokenizer's normalizer,
// applied to the content of "normalized" tokens.
func newAddedVocab(tokens []addedToken, modelVocab map[string]int, normalize func(string) string) *addedVocab {
	a := &addedVocab{byID: map[int]addedToken{}, byContent: map[string]int{}}
	var specials, classic []addedToken
	specialSet := map[string]bool{}
	for _, t := range tokens {
		if t.Special && t.Content != "" && !specialSet[t.Content] {
			specialSet[t.Content] = true
			specials = append(specials, t)
		}
	}
	maxAdded := -1
	for _, t := range tokens {
		if t.Content == "" {
			continue
		}
		if dup, ok := a.byID[a.byContent[t.Content]]; ok && dup == t {
			continue // an identical token is ignored
		}
		id, ok := a.byContent[t.Content]
		if !ok {
			id, ok = modelVocab[t.Content]
		}
		if !ok {
			id = len(modelVocab)
			if maxAdded >= 0 && (maxAdded >= len(modelVocab) || len(modelVocab) == 0) {
				id = maxAdded + 1
			}
		}
		t.ID = id
		a.byContent[t.Content] = id
		a.byID[id] = t
		maxAdded = max(maxAdded, id)
		if !specialSet[t.Content] {
			classic = append(classic, t)
		}
	}
	var rawWords, normWords []string
	for _, t := range append(specials, classic...) {
		flags := a.byID[a.byContent[t.Content]] // the last definition's flags
		if t.Normalized {
			c := t.Content
			if normalize != nil {
				c = normalize(c)
			}
			normWords = append(normWords, c)
			a.normTok = append(a.normTok, flags)
		} else {
			rawWords = append(rawWords, t.Content)
			a.rawTok = append(a.rawTok, flags)
		}
	}
	a.raw = newTrie(rawWords)
	a.norm = newTrie(normWords)
	return a
}

// split is a stretch of text, either plain (id < 0) or one added token.
type split struct {
	s     string
	id    int
	first bool
}

// findSplits cuts s at added-token matches, honouring single_word, lstrip
// and rstrip exactly as tokenizers' AddedVocabulary::find_matches.
func findSplits(s string, t *trie, toks []addedToken, first bool, out []split) []split {
	if s == "" {
		return append(out, split{s: "", id: -1, first: first})
	}
	startOffset := 0
	for _, m := range t.findAll(s) {
		start, stop := m.start, m.end
		tok := toks[m.token]
		if start < startOffset {
			// An earlier rstrip swallowed the start of this match.
			continue
		}
		if tok.SingleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				continue
			}
		}
		if tok.LStrip {
			start = max(spaceStartAtEnd(s[:start]), startOffset)
		}
		if tok.RStrip {
			stop += spaceEndAtStart(s[stop:])
		}
		if startOffset < start {
			out = append(out, split{s: s[startOffset:start], id: -1, first: first && startOffset == 0})
		}
		out = append(out, split{s: s[start:stop], id: tok.ID, first: first && start == 0})
		startOffset = stop
	}
	if startOffset != len(s) {
		out = append(out, split{s: s[startOffset:], id: -1, first: first && startOffset == 0})
	}
	return out
}

package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// fileJSON is the part of tokenizer.json that encoding and decoding need.
// truncation and padding are ignored on purpose: transformers turns them off
// for plain encode() calls, which is what vLLM's datasets make.
type fileJSON struct {
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
}

// splitFile cuts tokenizer.json into its sections without decoding the
// big model section.
func splitFile(b []byte) (fileJSON, error) {
	var f fileJSON
	top, err := topLevel(b)
	if err != nil {
		return f, err
	}
	if raw := top["added_tokens"]; !isNull(raw) {
		if err := json.Unmarshal(raw, &f.AddedTokens); err != nil {
			return f, fmt.Errorf("added_tokens: %w", err)
		}
	}
	f.Normalizer = top["normalizer"]
	f.PreTokenizer = top["pre_tokenizer"]
	f.Model = top["model"]
	f.PostProcessor = top["post_processor"]
	f.Decoder = top["decoder"]
	return f, nil
}

// component is the common head of every pipeline component.
type component struct {
	Type string `json:"type"`
}

// patternJSON is {"String": "..."} or {"Regex": "..."}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func (p patternJSON) compile(where string) (pattern, error) {
	switch {
	case p.String != nil:
		return literalPattern(*p.String), nil
	case p.Regex != nil:
		re, err := compileRegex(*p.Regex)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		return re, nil
	}
	return nil, fmt.Errorf("%s: pattern needs a String or a Regex", where)
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

func typeOf(raw json.RawMessage, where string) (string, error) {
	var c component
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	return c.Type, nil
}

func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw, "normalizer")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Sequence":
		var v struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Sequence: %w", err)
		}
		var seq seqNormalizer
		for _, r := range v.Normalizers {
			n, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	case "Prepend":
		var v struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Prepend: %w", err)
		}
		return prependNormalizer(v.Prepend), nil
	case "Replace":
		var v struct {
			Pattern patternJSON `json:"pattern"`
			Content string      `json:"content"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Replace: %w", err)
		}
		p, err := v.Pattern.compile("normalizer Replace")
		if err != nil {
			return nil, err
		}
		return replaceNormalizer{pat: p, content: v.Content}, nil
	case "NFC":
		return unicodeNormalizer{norm.NFC}, nil
	case "NFD":
		return unicodeNormalizer{norm.NFD}, nil
	case "NFKC":
		return unicodeNormalizer{norm.NFKC}, nil
	case "NFKD":
		return unicodeNormalizer{norm.NFKD}, nil
	case "Lowercase":
		return lowercaseNormalizer{}, nil
	case "Strip":
		v := struct {
			Left  bool `json:"strip_left"`
			Right bool `json:"strip_right"`
		}{true, true}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("normalizer Strip: %w", err)
		}
		return stripNormalizer{left: v.Left, right: v.Right}, nil
	}
	return nil, unsupported("normalizer", typ)
}

func unsupported(kind, typ string) error {
	if typ == "" {
		return fmt.Errorf("%s without a \"type\" is not supported", kind)
	}
	return fmt.Errorf("%s %q is not supported (llmbench's tokenizer handles the BPE pipelines of current LLMs)", kind, typ)
}

func parseBehavior(s, where string) (behavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("%s: unknown split behavior %q", where, s)
}

func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw, "pre_tokenizer")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Sequence":
		var v struct {
			PreTokenizers []json.RawMessage `json:"pretokenizers"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Sequence: %w", err)
		}
		var seq seqPreTokenizer
		for _, r := range v.PreTokenizers {
			p, err := parsePreTokenizer(r)
			if err != nil {
				return nil, err
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	case "Split":
		var v struct {
			Pattern  patternJSON `json:"pattern"`
			Behavior string      `json:"behavior"`
			Invert   bool        `json:"invert"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Split: %w", err)
		}
		p, err := v.Pattern.compile("pre_tokenizer Split")
		if err != nil {
			return nil, err
		}
		b, err := parseBehavior(v.Behavior, "pre_tokenizer Split")
		if err != nil {
			return nil, err
		}
		return splitPreTokenizer{pat: p, behavior: b, invert: v.Invert}, nil
	case "ByteLevel":
		v := struct {
			AddPrefixSpace bool `json:"add_prefix_space"`
			UseRegex       bool `json:"use_regex"`
		}{true, true}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer ByteLevel: %w", err)
		}
		bl := byteLevelPreTokenizer{addPrefixSpace: v.AddPrefixSpace}
		if v.UseRegex {
			re, err := compileRegex(byteLevelRegex)
			if err != nil {
				return nil, err
			}
			bl.split = &splitPreTokenizer{pat: re, behavior: isolated}
		}
		return bl, nil
	case "Metaspace":
		var v struct {
			Replacement    string  `json:"replacement"`
			PrependScheme  *string `json:"prepend_scheme"`
			AddPrefixSpace *bool   `json:"add_prefix_space"`
			Split          *bool   `json:"split"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Metaspace: %w", err)
		}
		rep, scheme, err := metaspaceParams(v.Replacement, v.PrependScheme, v.AddPrefixSpace, "pre_tokenizer Metaspace")
		if err != nil {
			return nil, err
		}
		split := true
		if v.Split != nil {
			split = *v.Split
		}
		return metaspacePreTokenizer{replacement: rep, scheme: scheme, split: split}, nil
	case "Digits":
		var v struct {
			IndividualDigits bool `json:"individual_digits"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Digits: %w", err)
		}
		b := contiguous
		if v.IndividualDigits {
			b = isolated
		}
		return splitPreTokenizer{pat: funcPattern(isNumeric), behavior: b}, nil
	case "Punctuation":
		v := struct {
			Behavior string `json:"behavior"`
		}{"Isolated"}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("pre_tokenizer Punctuation: %w", err)
		}
		b, err := parseBehavior(v.Behavior, "pre_tokenizer Punctuation")
		if err != nil {
			return nil, err
		}
		return splitPreTokenizer{pat: funcPattern(isRustPunctuation), behavior: b}, nil
	case "Whitespace":
		return whitespacePreTokenizer()
	case "WhitespaceSplit":
		return whitespaceSplitPreTokenizer(), nil
	}
	return nil, unsupported("pre_tokenizer", typ)
}

// metaspaceParams reads Metaspace's replacement and prepend scheme, in both
// the current (prepend_scheme) and the older (add_prefix_space) shape.
func metaspaceParams(replacement string, scheme *string, addPrefix *bool, where string) (rune, prependScheme, error) {
	if utf8.RuneCountInString(replacement) != 1 {
		return 0, 0, fmt.Errorf("%s: replacement %q must be one character", where, replacement)
	}
	rep, _ := utf8.DecodeRuneInString(replacement)
	ps := prependAlways
	switch {
	case scheme != nil:
		switch *scheme {
		case "always":
			ps = prependAlways
		case "first":
			ps = prependFirst
		case "never":
			ps = prependNever
		default:
			return 0, 0, fmt.Errorf("%s: unknown prepend_scheme %q", where, *scheme)
		}
	case addPrefix != nil && !*addPrefix:
		ps = prependNever
	}
	return rep, ps, nil
}

// modelJSON is the BPE model section.
type modelJSON struct {
	Type                    string         `json:"type"`
	Vocab                   map[string]int `json:"-"` // read by scanVocab
	UnkToken                *string        `json:"unk_token"`
	ContinuingSubwordPrefix *string        `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string        `json:"end_of_word_suffix"`
	FuseUnk                 bool           `json:"fuse_unk"`
	ByteFallback            bool           `json:"byte_fallback"`
	IgnoreMerges            bool           `json:"ignore_merges"`
	Dropout                 *float64       `json:"dropout"`
}

func parseModel(raw json.RawMessage) (*bpe, error) {
	if isNull(raw) {
		return nil, errors.New("tokenizer.json has no model")
	}
	fields, err := topLevel(raw)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var m modelJSON
	// Decode the small fields with encoding/json, the vocab and merges
	// with the scanner (jsonscan.go).
	small := map[string]json.RawMessage{}
	for k, v := range fields {
		if k != "vocab" && k != "merges" {
			small[k] = v
		}
	}
	smallJSON, err := json.Marshal(small)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if err := json.Unmarshal(smallJSON, &m); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if m.Type == "" && !isNull(fields["merges"]) {
		m.Type = "BPE" // files from before the "type" tag
	}
	if m.Type != "BPE" {
		return nil, unsupported("model", m.Type)
	}
	if raw := fields["vocab"]; raw != nil {
		if m.Vocab, err = scanVocab(raw); err != nil {
			return nil, fmt.Errorf("model BPE vocab: %w", err)
		}
	}
	if m.Dropout != nil && *m.Dropout > 0 && *m.Dropout < 1 {
		return nil, errors.New("model BPE with dropout is not supported: it makes encodings random")
	}
	merges, err := scanMerges(fields["merges"])
	if err != nil {
		return nil, fmt.Errorf("model merges: %w", err)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return newBPE(m.Vocab, merges, str(m.UnkToken), m.FuseUnk, m.ByteFallback,
		str(m.ContinuingSubwordPrefix), str(m.EndOfWordSuffix), m.IgnoreMerges)
}

// cutSpace splits a legacy "left right" merge at its first space.
func cutSpace(s string) (string, string, bool) {
	i := bytes.IndexByte([]byte(s), ' ')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

func parsePostProcessor(raw json.RawMessage, tokenID func(string) (int, bool)) (postProcessor, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw, "post_processor")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "ByteLevel":
		return noopProcessor{}, nil
	case "Sequence":
		var v struct {
			Processors []json.RawMessage `json:"processors"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("post_processor Sequence: %w", err)
		}
		var seq seqProcessor
		for _, r := range v.Processors {
			p, err := parsePostProcessor(r, tokenID)
			if err != nil {
				return nil, err
			}
			if p != nil {
				seq = append(seq, p)
			}
		}
		return seq, nil
	case "TemplateProcessing":
		var v struct {
			Single []struct {
				SpecialToken *struct {
					ID string `json:"id"`
				} `json:"SpecialToken"`
				Sequence *struct {
					ID string `json:"id"`
				} `json:"Sequence"`
			} `json:"single"`
			SpecialTokens map[string]struct {
				IDs []int `json:"ids"`
			} `json:"special_tokens"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("post_processor TemplateProcessing: %w", err)
		}
		var t templateProcessor
		for _, it := range v.Single {
			switch {
			case it.Sequence != nil:
				t = append(t, templateItem{sequence: true})
			case it.SpecialToken != nil:
				st, ok := v.SpecialTokens[it.SpecialToken.ID]
				if !ok {
					return nil, fmt.Errorf("post_processor TemplateProcessing: special token %q has no entry in special_tokens", it.SpecialToken.ID)
				}
				t = append(t, templateItem{ids: st.IDs})
			default:
				return nil, errors.New("post_processor TemplateProcessing: template item is neither Sequence nor SpecialToken")
			}
		}
		return t, nil
	case "BertProcessing", "RobertaProcessing":
		var v struct {
			Sep []json.RawMessage `json:"sep"`
			Cls []json.RawMessage `json:"cls"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("post_processor %s: %w", typ, err)
		}
		cls, err1 := pairID(v.Cls)
		sep, err2 := pairID(v.Sep)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("post_processor %s: %w", typ, err)
		}
		return templateProcessor{{ids: []int{cls}}, {sequence: true}, {ids: []int{sep}}}, nil
	}
	return nil, unsupported("post_processor", typ)
}

// pairID reads the id from a ["token", id] pair.
func pairID(p []json.RawMessage) (int, error) {
	if len(p) != 2 {
		return 0, errors.New("want a [token, id] pair")
	}
	var id int
	if err := json.Unmarshal(p[1], &id); err != nil {
		return 0, err
	}
	return id, nil
}

func parseDecoder(raw json.RawMessage) (decoder, error) {
	if isNull(raw) {
		return nil, nil
	}
	typ, err := typeOf(raw, "decoder")
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Sequence":
		var v struct {
			Decoders []json.RawMessage `json:"decoders"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("decoder Sequence: %w", err)
		}
		var seq seqDecoder
		for _, r := range v.Decoders {
			d, err := parseDecoder(r)
			if err != nil {
				return nil, err
			}
			if d != nil {
				seq = append(seq, d)
			}
		}
		return seq, nil
	case "ByteLevel":
		return byteLevelDecoder{}, nil
	case "ByteFallback":
		return byteFallbackDecoder{}, nil
	case "Fuse":
		return fuseDecoder{}, nil
	case "Strip":
		var v struct {
			Content string `json:"content"`
			Start   int    `json:"start"`
			Stop    int    `json:"stop"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("decoder Strip: %w", err)
		}
		if utf8.RuneCountInString(v.Content) != 1 {
			return nil, fmt.Errorf("decoder Strip: content %q must be one character", v.Content)
		}
		r, _ := utf8.DecodeRuneInString(v.Content)
		return stripDecoder{content: r, start: max(v.Start, 0), stop: max(v.Stop, 0)}, nil
	case "Replace":
		var v struct {
			Pattern patternJSON `json:"pattern"`
			Content string      `json:"content"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("decoder Replace: %w", err)
		}
		p, err := v.Pattern.compile("decoder Replace")
		if err != nil {
			return nil, err
		}
		return replaceDecoder{pat: p, content: v.Content}, nil
	case "Metaspace":
		var v struct {
			Replacement    string  `json:"replacement"`
			PrependScheme  *string `json:"prepend_scheme"`
			AddPrefixSpace *bool   `json:"add_prefix_space"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("decoder Metaspace: %w", err)
		}
		rep, scheme, err := metaspaceParams(v.Replacement, v.PrependScheme, v.AddPrefixSpace, "decoder Metaspace")
		if err != nil {
			return nil, err
		}
		return metaspaceDecoder{replacement: rep, scheme: scheme}, nil
	}
	return nil, unsupported("decoder", typ)
}

// specialTokenNames are transformers' SPECIAL_TOKENS_ATTRIBUTES, whose values
// in tokenizer_config.json make up all_special_ids.
var specialTokenNames = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// parseSpecialIDs reads the named special tokens of tokenizer_config.json
// (plus additional_special_tokens and extra_special_tokens) and maps them to
// ids, sorted and without duplicates. Names that are null or unknown to the
// vocabulary are skipped.
func parseSpecialIDs(config []byte, tokenID func(string) (int, bool)) ([]int, error) {
	if len(bytes.TrimSpace(config)) == 0 {
		return nil, nil
	}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(config, &cfg); err != nil {
		return nil, fmt.Errorf("tokenizer_config.json: %w", err)
	}
	var names []string
	for _, k := range specialTokenNames {
		if s, ok := tokenContent(cfg[k]); ok {
			names = append(names, s)
		}
	}
	for _, k := range []string{"additional_special_tokens", "extra_special_tokens"} {
		raw := cfg[k]
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) == nil {
				keys := make([]string, 0, len(m))
				for key := range m {
					keys = append(keys, key)
				}
				sort.Strings(keys)
				for _, key := range keys {
					list = append(list, m[key])
				}
			}
		}
		for _, r := range list {
			if s, ok := tokenContent(r); ok {
				names = append(names, s)
			}
		}
	}
	seen := map[int]bool{}
	var ids []int
	for _, n := range names {
		if id, ok := tokenID(n); ok && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids, nil
}

// tokenContent reads a token given as "text" or as an AddedToken object.
func tokenContent(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var obj struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != "" {
		return obj.Content, true
	}
	return "", false
}

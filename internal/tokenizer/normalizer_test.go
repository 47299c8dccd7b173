package tokenizer

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Each want below was read from Hugging Face tokenizers 0.22.2 (its
// normalizers and pre-tokenizers called one at a time), where it differs
// from what Go's own tables would give.
func TestUnicodeQuirksOfTheReference(t *testing.T) {
	nfkc := unicodeNormalizer{norm.NFKC}
	nfc := unicodeNormalizer{norm.NFC}
	nfd := unicodeNormalizer{norm.NFD}
	tests := []struct {
		name string
		n    normalizer
		in   string
		want string
	}{
		{"NFKC keeps U+A7F4 (compat decomposition of Unicode 14)", nfkc, "xꟴy", "xꟴy"},
		{"NFKC keeps U+1F16C (Unicode 12)", nfkc, "🅬", "🅬"},
		{"NFKC keeps U+32FF (Unicode 12.1)", nfkc, "㋿", "㋿"},
		{"NFKC still folds old compatibility characters", nfkc, "ﬁ①Ａ", "fi1A"},
		{"NFKC around a kept character", nfkc, "ﬁꟴ①", "fiꟴ1"},
		{"NFC does not compose Dives Akuru (Unicode 13)", nfc, "\U00011935\U00011930", "\U00011935\U00011930"},
		{"NFD does not decompose U+11938", nfd, "\U00011938", "\U00011938"},
		{"NFC still composes Latin", nfc, "e\u0301", "é"},
		{"Lowercase İ to i + combining dot", lowercaseNormalizer{}, "İ", "i\u0307"},
		{"Lowercase final sigma stays σ", lowercaseNormalizer{}, "ΣΑΣ", "σασ"},
		{"Lowercase Unicode 17 (Beria Erfe)", lowercaseNormalizer{}, "\U00016EA0", "\U00016EBB"},
		{"Lowercase Unicode 16 (Garay)", lowercaseNormalizer{}, "\U00010D50", "\U00010D70"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.normalize(tc.in); got != tc.want {
				t.Errorf("normalize(%q) = %q (%+q), want %q", tc.in, got, got, tc.want)
			}
		})
	}
}

func TestPunctuationIsUnicode8(t *testing.T) {
	for r, want := range map[rune]bool{
		'!': true, '$': true, '+': true, '~': true, // ASCII punctuation includes symbols
		'a': false, '€': false,
		0x2E42:  true,  // Unicode 8.0
		0xA8FC:  true,  // Unicode 8.0
		0x2E43:  false, // Unicode 9.0: not punctuation to tokenizers
		0x11668: false,
		0x1E95E: false,
	} {
		if got := isRustPunctuation(r); got != want {
			t.Errorf("isRustPunctuation(%U) = %v, want %v", r, got, want)
		}
	}
}

func TestRegexTranslation(t *testing.T) {
	tests := []struct {
		pattern, in string
		want        [][2]int
	}{
		// Oniguruma folds U+017F (ſ) to s and U+212A (Kelvin) to k.
		{`(?i:'s|'k)`, "a'ſ b'\u212a c'S", [][2]int{{1, 4}, {6, 10}, {12, 14}}},
		// Its \w takes Mc, Me, Nl, No; not U+200D.
		{`\w+`, "aःb⃝Ⅰ²_ c\u200dd", [][2]int{{0, 14}, {15, 16}, {19, 20}}},
		// \s is White_Space: U+0085 yes, U+FEFF and U+180E no.
		{`\s+`, "a\u0085b\ufeffc\u180ed", [][2]int{{1, 3}}},
		// \p{L} includes Unicode 16.0 letters (Egyptian Hieroglyphs Ext-A).
		{`\p{L}+`, "a\U00013460b", [][2]int{{0, 6}}},
		{`[^\p{L}]+`, "a\U00013460b-", [][2]int{{6, 7}}},
	}
	for _, tc := range tests {
		p, err := compileRegex(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		got := p.findAll(tc.in)
		if len(got) != len(tc.want) {
			t.Errorf("%s on %q: %v, want %v", tc.pattern, tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s on %q: %v, want %v", tc.pattern, tc.in, got, tc.want)
				break
			}
		}
	}
}

#!/usr/bin/env node
// gen-reference.js writes the expected token ids that internal/tokenizer's
// tests compare against. The reference is Hugging Face's Rust tokenizers
// library itself (0.22.2), as npm ships it prebuilt for linux-x64 in
// @anush008/tokenizers@0.6.0. The pure-JS ports are not references: their
// regex engine's \s differs from the Rust library's on U+FEFF and U+0085.
//
// Run once by a developer (not in CI):
//   mkdir /tmp/ref && cd /tmp/ref && npm install @anush008/tokenizers@0.6.0
//   NODE_PATH=/tmp/ref/node_modules node scripts/tokenizer/gen-reference.js \
//       testdata/tokenizer NAME=DIR [NAME=DIR ...]
// where DIR holds NAME's tokenizer.json. It writes
//   testdata/tokenizer/corpus.json            (our hand-written corpus)
//   testdata/tokenizer/random-strings.json.gz (seeded random strings)
//   testdata/tokenizer/expected/NAME.json.gz  (ids, decodes, sizes)
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { Tokenizer } = require('@anush008/tokenizers');

// The committed vectors use the defaults; a developer can check more
// strings ad hoc with RANDOM_COUNT=20000 SEED=7 and another OUT_DIR.
const RANDOM_COUNT = Number(process.env.RANDOM_COUNT || 3000);
const DECODE_COUNT = Number(process.env.DECODE_COUNT || 300);
const SEED = Number(process.env.SEED || 20261129);

// mulberry32: a tiny seeded PRNG so the strings are reproducible.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus() {
  const long1 = 'The quick brown fox jumps over the lazy dog. '.repeat(300);
  const long2 = Array.from({ length: 2000 }, (_, i) => String(i * 7919)).join(' ');
  const long3 = '漢字かなカナ한국어 '.repeat(500);
  const long4 = ' '.repeat(5000) + 'x' + '\n'.repeat(3000) + '\t'.repeat(1000);
  const long5 = 'a'.repeat(20000);
  return [
    '', ' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n ', '\n \n', '  \n\n  x',
    'Hello', 'Hello world', ' Hello world', 'Hello  world', 'Hello   world  ', 'hello\tworld\n',
    'Hello, world! How are you?', "It's a dog's life; they're sure we'll go, I'd've",
    "IT'S DON'T I'M YOU'LL HE'D WE'VE", "it'ſ it'K", "don't 'S 's' ''", '"quoted" (paren) [br] {cu}',
    '1', '12', '123', '1234', '12345', '3.14159', '1,000,000', '2026-11-29T08:03:30Z', '٣٤٥ ४५६ ๕๖๗',
    'x = 42; y = x ** 2 // comment', 'def f(a, b):\n    return a + b\n', 'for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}',
    '<html><body class="x">Hi</body></html>', 'SELECT * FROM t WHERE a=1;', '$ ls -la | grep .go',
    'https://example.com/path?q=1&r=2#frag', 'user@example.com', '#!/bin/bash\necho "$HOME"',
    '日本語のテキストです。', '中文文本，包含标点。', '한국어 텍스트입니다', 'Ελληνικά κείμενα', 'Русский текст',
    'العربية نص', 'עברית טקסט', 'हिन्दी पाठ', 'ไทยข้อความ', 'Tiếng Việt có dấu',
    'café naïve résumé Zoë', 'cafe\u0301 nai\u0308ve', 'e\u0301\u0302\u0303', 'Å Å Å', 'ﬁ ﬀ ℌ ① ㎏ ｶ Ａ',
    '\u1100\u1161\u11a8', 'ß ẞ İ ı Ǆ ǅ ǆ', 'ΣΑΣ σας', 'ǰ̌',
    '😀', '😀😃😄', '👨‍👩‍👧‍👦', '👍🏽', '🇺🇸🇯🇵', '❤️', '🙂 smile', 'a😀b', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '𠀀𠀁',
    '\u00a0', 'a\u00a0b', 'a\u00a0 b', 'a \u00a0b', 'a\u0085b', 'a\u0085 b', 'a \u0085b', 'a\ufeffb',
    'a\ufeff b', 'a \ufeffb', '\ufeff', ' \ufeff ', 'a\u2028b', 'a\u2029 b', 'a\u3000b', 'a \u3000 b',
    'a\u200bb', 'a\u200d b', 'a\u000bb', 'a\u000cb', 'a\u001cb', 'a\u180e b', 'a\u2000\u200a b',
    '\u0000', 'a\u0000b', '\u0001\u0002\u001f', '\u007f', '\ufffd', '\ufffd\ufffd x',
    '<s>', '</s>', '<unk>', '<s>Hello</s>', ' <s> ', 'a<s>b', '<<s>>', '<s><s></s>',
    '<|endoftext|>', 'a<|endoftext|>b', ' <|endoftext|> ', '<|endoftext|><|endoftext|>',
    '<|begin_of_text|>Hello<|eot_id|>', '<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>',
    '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>',
    '<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n', '<pad><eos><unk><mask>',
    '<start_of_image>', '<image_soft_token>', '<|endofprompt|>', '<think>\n</think>',
    '▁', '▁▁x', 'a▁b', '<0x41>', '<0xFF>', 'Ġ', 'Ċ',
    '    indented\n        more', 'trailing   ', '   leading', 'mixed \t \n \r\n end',
    'CamelCaseWord snake_case_word kebab-case-word', 'ALLCAPS lowercase MiXeD', "O'Neil's",
    '...', '!!!???', '---', '***', '~~~', '«quotes» “curly” ‘single’', '— – -', '…',
    '∑∫√∞≠≈', '₿ € £ ¥ ₹', '©®™', '½ ¾ ²³', '\\n literal', '\\\\', 'tab\\there',
    long1, long2, long3, long4, long5,
  ];
}

function pick(r, arr) { return arr[Math.floor(r() * arr.length)]; }

// Atoms that random strings are built from: the kinds of text the corpus
// covers, plus arbitrary assigned code points.
function randomString(r, assigned) {
  const pools = [
    () => pick(r, [' ', ' ', ' ', '  ', '\t', '\n', '\n\n', '\r\n', '\r', '\u00a0', '\u0085', '\ufeff', '\u2028', '\u3000', '\u000b', '\u000c', '\u200b', '\u2009']),
    () => { let s = ''; const n = 1 + Math.floor(r() * 8); for (let i = 0; i < n; i++) s += String.fromCharCode(97 + Math.floor(r() * 26)); return s; },
    () => { let s = ''; const n = 1 + Math.floor(r() * 6); for (let i = 0; i < n; i++) s += String.fromCharCode(65 + Math.floor(r() * 26)); return s; },
    () => pick(r, ['the', 'The', ' the', 'and', ' of', 'ing', 'tion', 'Hello', ' world', 'token', 'izer', 'benchmark', 'é', 'ü', 'ñ']),
    () => { let s = ''; const n = 1 + Math.floor(r() * 7); for (let i = 0; i < n; i++) s += String(Math.floor(r() * 10)); return s; },
    () => pick(r, ['.', ',', '!', '?', ';', ':', '"', "'", "'s", "'S", "'t", "'re", "'ve", "'m", "'ll", "'d", "'ſ", '(', ')', '[', ']', '{', '}', '<', '>', '/', '\\', '-', '_', '=', '+', '*', '&', '^', '%', '$', '#', '@', '`', '~', '|']),
    () => pick(r, ['日本', '語', 'の', 'テキスト', '中文', '文本', '한국어', '텍스트', 'Ελλ', 'Рус', 'عرب', 'עבר', 'हिन्', 'ไทย', 'Việt', 'e\u0301', 'a\u0308', '\u1100\u1161', 'ﬁ', 'Å', 'ß', 'İ']),
    () => pick(r, ['😀', '👍🏽', '👨‍👩‍👧', '🇺🇸', '❤️', '🙂', '𝔘', '𠀀', '✓', '★']),
    () => pick(r, ['<s>', '</s>', '<unk>', '<|endoftext|>', '<|begin_of_text|>', '<|eot_id|>', '<|im_start|>', '<|im_end|>', '<bos>', '<eos>', '<start_of_turn>', '<end_of_turn>', '<pad>', '<mask>', '<|endofprompt|>', '<0x41>', '▁', 'Ġ']),
    () => { const n = 1 + Math.floor(r() * 4); let s = ''; for (let i = 0; i < n; i++) s += String.fromCodePoint(pick(r, assigned)); return s; },
    () => pick(r, ['\u0000', '\u0001', '\u001f', '\u007f', '\ufffd', '\u00ad', '\u200d', '\u2060', '\u202e']),
  ];
  const weights = [18, 20, 6, 10, 8, 12, 6, 4, 3, 10, 2];
  const total = weights.reduce((a, b) => a + b, 0);
  const atoms = Math.floor(r() * 40);
  let s = '';
  for (let i = 0; i < atoms; i++) {
    let x = r() * total;
    let k = 0;
    while (x >= weights[k]) { x -= weights[k]; k++; }
    s += pools[k]();
  }
  return s;
}

// assignedCodePoints lists code points that were assigned before Unicode
// 15.1, are not surrogates or private use, so the Rust library (newer Unicode
// tables) and Go 1.26 (Unicode 15.0) classify them alike.
function assignedCodePoints() {
  const re = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u;
  const out = [];
  for (let cp = 0x20; cp < 0x32000; cp++) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    if (cp >= 0x2ebf0 && cp <= 0x2ee5d) continue; // CJK Extension I (Unicode 15.1)
    if (cp >= 0x2fff0) continue;
    const ch = String.fromCodePoint(cp);
    if (re.test(ch)) out.push(cp);
  }
  return out;
}

function gz(file, obj) {
  fs.writeFileSync(file, zlib.gzipSync(Buffer.from(JSON.stringify(obj)), { level: 9 }));
}

async function main() {
  const [outDir, ...specs] = process.argv.slice(2);
  if (!outDir) {
    console.error('usage: gen-reference.js OUT_DIR NAME=DIR ...');
    process.exit(2);
  }
  const texts = corpus();
  fs.writeFileSync(path.join(outDir, 'corpus.json'), JSON.stringify(texts, null, 1) + '\n');
  const r = rng(SEED);
  const assigned = assignedCodePoints();
  const randoms = [];
  for (let i = 0; i < RANDOM_COUNT; i++) randoms.push(randomString(r, assigned));
  gz(path.join(outDir, 'random-strings.json.gz'), randoms);
  fs.mkdirSync(path.join(outDir, 'expected'), { recursive: true });

  for (const spec of specs) {
    const [name, dir] = spec.split('=');
    const tok = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
    const enc = async (s, special) => (await tok.encode(s, null, { addSpecialTokens: special })).getIds();
    const exp = {
      reference: 'huggingface tokenizers 0.22.2 (@anush008/tokenizers@0.6.0, linux-x64-gnu)',
      vocab_size: tok.getVocabSize(false),
      vocab_size_with_added: tok.getVocabSize(true),
      corpus: [], corpus_special: [], corpus_decoded: [], random: [], decode: [],
    };
    for (const s of texts) {
      const ids = await enc(s, false);
      exp.corpus.push(ids);
      exp.corpus_special.push(await enc(s, true));
      exp.corpus_decoded.push(await tok.decode(ids, false));
    }
    for (const s of randoms) exp.random.push(await enc(s, false));
    // Decoding arbitrary id lists is what vLLM's random dataset does; draw
    // them over the full vocabulary, byte tokens and specials included.
    const dr = rng(SEED + 1);
    const full = exp.vocab_size_with_added;
    for (let i = 0; i < DECODE_COUNT; i++) {
      const n = Math.floor(dr() * 64);
      const ids = [];
      for (let k = 0; k < n; k++) {
        const x = dr();
        // Bias a third of the draws to low ids, where byte tokens live.
        ids.push(x < 0.33 ? Math.floor(dr() * 600) : Math.floor(dr() * full));
      }
      const valid = ids.filter((id) => tok.idToToken(id) !== null);
      exp.decode.push({ ids: valid, text: await tok.decode(valid, false) });
    }
    gz(path.join(outDir, 'expected', name + '.json.gz'), exp);
    console.log(`${name}: vocab ${exp.vocab_size} (+added ${exp.vocab_size_with_added})`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });

#!/usr/bin/env node
// gen-variants.js covers the pipeline components the six real tokenizers do
// not use (Metaspace, Digits, Punctuation, Whitespace, every Split behaviour,
// Lowercase/NFKD/Strip normalizers, unk without byte fallback, added-token
// lstrip/rstrip/single_word/normalized, Bert/Template post-processors, Strip
// and Metaspace decoders). (tokenizers' Strip decoder panics when stop > 0
// meets a token of fewer than start+stop characters, so stop stays 0 here.) Each variant is GPT-2's or Mistral-7B's committed
// tokenizer.json with some sections replaced; the reference ids come from
// Hugging Face's Rust tokenizers 0.22.2 (@anush008/tokenizers@0.6.0).
//
// Run once by a developer, after gen-reference.js:
//   NODE_PATH=/tmp/ref/node_modules node scripts/tokenizer/gen-variants.js testdata/tokenizer
// Writes testdata/tokenizer/variants.json and expected/variants.json.gz.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { Tokenizer } = require('@anush008/tokenizers');

const RANDOM_COUNT = 200;
const MAX_LEN = 2000; // the corpus's long strings are covered by the real tokenizers
const ms = (scheme, split) => ({ type: 'Metaspace', replacement: '▁', prepend_scheme: scheme, split });
const mistralDecoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] };
const bl = (prefix, regex) => ({ type: 'ByteLevel', add_prefix_space: prefix, trim_offsets: true, use_regex: regex });
const tok = (id, content, o) => Object.assign({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: false }, o);

// A small synthetic BPE with a continuing-subword prefix or an end-of-word
// suffix (no real LLM file uses them).
function affixModel(prefix, suffix) {
  const vocab = { '[UNK]': 0 };
  const add = (t) => { if (!(t in vocab)) vocab[t] = Object.keys(vocab).length; };
  const letters = 'abcdeghilnorst'.split('');
  for (const l of letters) { add(l); add(prefix + l); add(l + suffix); add(prefix + l + suffix); }
  const merges = [];
  const merge = (a, b) => {
    merges.push([a, b]);
    add(a + (prefix && b.startsWith(prefix) ? b.slice(prefix.length) : b));
  };
  merge('t', prefix + 'h'); merge('th', prefix + 'e' + suffix); merge('th', prefix + 'e');
  merge(prefix + 'e', prefix + 'r'); merge('a', prefix + 'n'); merge('an', prefix + 'd' + suffix);
  merge(prefix + 'i', prefix + 'n'); merge(prefix + 'in', prefix + 'g' + suffix); merge('s', prefix + 't');
  merge(prefix + 'o', prefix + 'n' + suffix); merge('t', prefix + 'i'); merge('ti', prefix + 'on' + suffix);
  return { type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: prefix, end_of_word_suffix: suffix, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges };
}

const variants = [
  { name: 'metaspace-first', base: 'mistral7b', set: { normalizer: null, pre_tokenizer: ms('first', true), decoder: { type: 'Sequence', decoders: [ms('first', true), { type: 'ByteFallback' }, { type: 'Fuse' }] } } },
  { name: 'metaspace-always-nosplit', base: 'mistral7b', set: { normalizer: null, pre_tokenizer: ms('always', false), decoder: mistralDecoder } },
  { name: 'metaspace-never', base: 'mistral7b', set: { normalizer: null, pre_tokenizer: ms('never', true), decoder: { type: 'Sequence', decoders: [ms('never', true), { type: 'ByteFallback' }, { type: 'Fuse' }] } } },
  { name: 'metaspace-legacy-add-prefix', base: 'mistral7b', set: { normalizer: null, pre_tokenizer: { type: 'Metaspace', replacement: '▁', add_prefix_space: true }, decoder: { type: 'Metaspace', replacement: '▁', add_prefix_space: true } } },
  {
    name: 'nfkd-lowercase-strip', base: 'mistral7b', set: {
      normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'Lowercase' }, { type: 'Replace', pattern: { Regex: '\\s+' }, content: ' ' }, { type: 'Strip', strip_left: true, strip_right: true }, { type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] },
      decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { Regex: '▁+' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 2, stop: 0 }] },
    },
  },
  { name: 'nfd-nfkc', base: 'mistral7b', set: { normalizer: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'NFKC' }, { type: 'Prepend', prepend: '▁' }, { type: 'Replace', pattern: { String: ' ' }, content: '▁' }] } } },
  { name: 'unk-fused', base: 'mistral7b', model: { byte_fallback: false, fuse_unk: true } },
  { name: 'unk-unfused', base: 'mistral7b', model: { byte_fallback: false, fuse_unk: false } },
  { name: 'digits-punct-isolated', base: 'mistral7b', set: { normalizer: null, pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true }, { type: 'Punctuation', behavior: 'Isolated' }, ms('always', true)] } } },
  { name: 'digits-contiguous-punct-merged', base: 'mistral7b', set: { normalizer: null, pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: false }, { type: 'Punctuation', behavior: 'MergedWithPrevious' }, ms('first', true)] } } },
  { name: 'punct-next-contiguous', base: 'gpt2', set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Punctuation', behavior: 'MergedWithNext' }, { type: 'Punctuation', behavior: 'Contiguous' }, bl(false, true)] } } },
  { name: 'bytelevel-prefix-template', base: 'gpt2', set: { pre_tokenizer: bl(true, true), post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<|endoftext|>', type_id: 0 } }], pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [50256], tokens: ['<|endoftext|>'] } } } } },
  {
    name: 'split-behaviours', base: 'gpt2', set: {
      pre_tokenizer: { type: 'Sequence', pretokenizers: [
        { type: 'Split', pattern: { Regex: '\\d+' }, behavior: 'Removed', invert: false },
        { type: 'Split', pattern: { String: ' ' }, behavior: 'MergedWithPrevious', invert: false },
        { type: 'Split', pattern: { Regex: '[aeiou]' }, behavior: 'MergedWithNext', invert: false },
        { type: 'Split', pattern: { Regex: '\\p{Lu}+' }, behavior: 'Contiguous', invert: true },
        { type: 'Split', pattern: { Regex: '(?i:the|ing)' }, behavior: 'Isolated', invert: false },
        bl(false, false)] },
    },
  },
  { name: 'split-removed-invert', base: 'gpt2', set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\w+|[^\\w\\s]+' }, behavior: 'Removed', invert: true }, bl(false, false)] } } },
  { name: 'whitespace', base: 'gpt2', set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Whitespace' }, bl(false, false)] } } },
  { name: 'whitespace-split', base: 'gpt2', set: { pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'WhitespaceSplit' }, bl(false, false)] } } },
  {
    name: 'added-flags', base: 'gpt2', set: { normalizer: { type: 'Lowercase' }, post_processor: { type: 'BertProcessing', sep: ['<|endoftext|>', 50256], cls: ['<|endoftext|>', 50256] } },
    add: [
      tok(50257, '<tag>', { lstrip: true, special: true }),
      tok(50258, '[X]', { rstrip: true, special: true }),
      tok(50259, 'word', { single_word: true, normalized: true }),
      tok(50260, 'Hello', { normalized: true }),
      tok(50261, '<both>', { lstrip: true, rstrip: true }),
      tok(50262, 'ing', { single_word: true }),
      tok(50263, 'the', { normalized: false }),
    ],
  },
  { name: 'ignore-merges', base: 'gpt2', model: { ignore_merges: true } },
  { name: 'subword-prefix', base: 'gpt2', set: { added_tokens: [], normalizer: { type: 'Lowercase' }, pre_tokenizer: { type: 'WhitespaceSplit' }, post_processor: null, decoder: null, model: affixModel('##', '') } },
  { name: 'word-suffix', base: 'gpt2', set: { added_tokens: [], normalizer: null, pre_tokenizer: { type: 'Whitespace' }, post_processor: null, decoder: null, model: affixModel('', '</w>') } },
  {
    // Llama-3.1's shape: ByteLevel then a BOS template.
    name: 'post-sequence', base: 'gpt2', set: { post_processor: { type: 'Sequence', processors: [
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
      { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '<|endoftext|>': { id: '<|endoftext|>', ids: [50256], tokens: ['<|endoftext|>'] } } }] } },
  },
];

function apply(base, v) {
  const j = JSON.parse(JSON.stringify(base));
  Object.assign(j, v.set || {});
  Object.assign(j.model, v.model || {});
  if (v.add) j.added_tokens = j.added_tokens.concat(v.add);
  return j;
}

async function main() {
  const [outDir] = process.argv.slice(2);
  if (!outDir) {
    console.error('usage: gen-variants.js OUT_DIR');
    process.exit(2);
  }
  const texts = JSON.parse(fs.readFileSync(path.join(outDir, 'corpus.json'), 'utf8'));
  const randoms = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(outDir, 'random-strings.json.gz')))).slice(0, RANDOM_COUNT);
  const extra = ['HELLO Hello hello', 'a word, words, sword word', 'x <tag> y  <tag>z', '[X]   next', 'a  <both>  b', 'singing ing the THE',
    'Straße İstanbul ΣΑΣ ΌΣΟΣ σ', 'ﬁ ① ㎏ Ａ', 'e\u0301\u0323 \u1100\u1161', '123abc456 7.8,9', "He said: 'hi'!!! (ok?) ...", 'x\u3000\u00a0\u0085 y'];
  const all = texts.filter((s) => s.length <= MAX_LEN).concat(extra, randoms);
  const bases = {};
  for (const b of ['gpt2', 'mistral7b']) {
    bases[b] = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(outDir, b, 'tokenizer.json.gz'))));
  }
  fs.writeFileSync(path.join(outDir, 'variants.json'), JSON.stringify({ extra, random_count: RANDOM_COUNT, max_len: MAX_LEN, variants }, null, 1) + '\n');
  const out = {};
  for (const v of variants) {
    const t = Tokenizer.fromString(JSON.stringify(apply(bases[v.base], v)));
    const e = { ids: [], ids_special: [], decoded: [] };
    for (const s of all) {
      const ids = (await t.encode(s, null, { addSpecialTokens: false })).getIds();
      e.ids.push(ids);
      const special = (await t.encode(s, null, { addSpecialTokens: true })).getIds();
      // null: the same as ids (keeps the file small)
      e.ids_special.push(JSON.stringify(special) === JSON.stringify(ids) ? null : special);
      e.decoded.push(await t.decode(ids, false));
    }
    out[v.name] = e;
    console.log(v.name);
  }
  fs.writeFileSync(path.join(outDir, 'expected', 'variants.json.gz'), zlib.gzipSync(Buffer.from(JSON.stringify(out)), { level: 9 }));
}

main().catch((e) => { console.error(e); process.exit(1); });

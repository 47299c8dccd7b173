#!/usr/bin/env node
// gen-normalization.js finds the characters whose compatibility
// decomposition Hugging Face tokenizers 0.22.2 does not apply although
// Unicode (node's ICU) has one: its NFKC/NFKD tables predate Unicode 12, so
// e.g. U+1F16C, U+A7F4 and U+1FBF0 stay as they are. It also reports any
// other per-character difference between the reference and node's
// String.prototype.normalize (expected: none).
//
// Run once by a developer:
//   NODE_PATH=/tmp/ref/node_modules node scripts/tokenizer/gen-normalization.js > /tmp/nokd.txt
// and paste the printed Go ranges into unicode_tables.go's noCompatDecomposition
// (gen-unicode.mjs reads them from the file named by NOKD, see there).
'use strict';
const t = require('@anush008/tokenizers');

const nfkd = t.nfkdNormalizer();
const nfd = t.nfdNormalizer();
const assigned = /\p{Assigned}/u;
const inert = [];
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
  } else if (refK !== icuK || refD !== icuD) {
    otherDiffs++;
    console.error(`U+${cp.toString(16)}: ref NFKD ${JSON.stringify(refK)} NFD ${JSON.stringify(refD)}; ICU ${JSON.stringify(icuK)} ${JSON.stringify(icuD)}`);
  }
}
console.error(`${inert.length} characters without compatibility decomposition in the reference; ${otherDiffs} other differences`);
console.log(inert.map((cp) => cp.toString(16)).join('\n'));

// Writes js-tiktoken's BPE ranks in the plain `.tiktoken` format plugline reads (and OpenAI
// publishes): one "<base64 of the token's bytes> <rank>" line per token, by rank.
//
//   node scripts/tiktoken-ranks.mjs <node_modules/js-tiktoken> <out-dir> o200k_base cl100k_base
//
// js-tiktoken stores each vocabulary as {"pat_str", "special_tokens", "bpe_ranks"}, where
// bpe_ranks is lines of "<ignored> <first rank> <base64> <base64> ..." with consecutive ranks.
import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkg, out, ...encodings] = process.argv.slice(2);
if (!pkg || !out || encodings.length === 0) {
  console.error('usage: tiktoken-ranks.mjs <js-tiktoken dir> <out dir> <encoding>...');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
for (const name of encodings) {
  const module = await import(pathToFileURL(join(pkg, 'dist', 'ranks', `${name}.js`)).href);
  const ranks = module.default;
  const lines = [];
  for (const line of ranks.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, first, ...tokens] = line.split(' ');
    const offset = Number.parseInt(first, 10);
    tokens.forEach((token, i) => lines.push([offset + i, token]));
  }
  lines.sort((a, b) => a[0] - b[0]);
  const text = lines.map(([rank, token]) => `${token} ${rank}\n`).join('');
  const file = join(out, `${name}.tiktoken`);
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
  console.log(`${file}: ${lines.length} tokens`);
}

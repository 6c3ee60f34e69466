// plugline's token counts against js-tiktoken's, on every fixture: the counts shaping results
// report are the real o200k_base / cl100k_base counts, not an estimate.
//
//   PLUGLINE_BINARY=build/bin/plugline PLUGLINE_TIKTOKEN_MODULES=<dir>/node_modules \
//     node --test tests/tokens/
//
// PLUGLINE_TIKTOKEN_MODULES holds js-tiktoken 1.0.21 (scripts/bootstrap-debian.sh installs it
// in /var/cache/plugline/npm/js-tiktoken-1.0.21).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const binary = process.env.PLUGLINE_BINARY;
const modules = process.env.PLUGLINE_TIKTOKEN_MODULES;
assert.ok(binary, 'PLUGLINE_BINARY names the plugline to test');
assert.ok(modules, 'PLUGLINE_TIKTOKEN_MODULES names the node_modules holding js-tiktoken');
const { getEncoding } = createRequire(join(modules, 'x.js'))('js-tiktoken');
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

function outputs(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return outputs(path);
    return name.endsWith('.out') ? [path] : [];
  });
}

const files = outputs(fixtures).sort();
const home = mkdtempSync(join(tmpdir(), 'plugline-tokens-'));

for (const encoding of ['o200k_base', 'cl100k_base']) {
  test(`${encoding}: plugline counts every fixture as js-tiktoken does`, () => {
    assert.ok(files.length >= 100, `${files.length} fixtures`);
    const counted = JSON.parse(execFileSync(binary, ['tokens', '--json', '--tokenizer', encoding, ...files], {
      env: { ...process.env, PLUGLINE_HOME: home }, maxBuffer: 1 << 26,
    }).toString());
    const enc = getEncoding(encoding);
    const wrong = [];
    let compared = 0;
    for (let i = 0; i < files.length; i++) {
      assert.equal(counted[i].tokenizer, encoding);
      const bytes = readFileSync(files[i]);
      const text = bytes.toString('utf8');
      // js-tiktoken counts a JS string: bytes that are not UTF-8 become U+FFFD there, and
      // plugline counts the bytes themselves. Every fixture is UTF-8 today; say so if not.
      if (!Buffer.from(text, 'utf8').equals(bytes)) continue;
      compared++;
      const expected = enc.encode(text, [], []).length;
      if (counted[i].tokens !== expected) wrong.push(`${files[i]}: ${counted[i].tokens} != ${expected}`);
    }
    assert.deepEqual(wrong, []);
    assert.equal(compared, files.length, 'every fixture is UTF-8 and was compared');
  });
}

test('a text of several MiB, counted in parts on as many threads as there are cores, counts as js-tiktoken does', () => {
  // Fixtures one after another up to 4 MiB: past 2 MiB, plugline counts in parts (one a core),
  // split after newlines; the whole must count as one pass of js-tiktoken does.
  const parts = [];
  let size = 0;
  for (const file of files) {
    if (size >= 4 << 20) break;
    const text = readFileSync(file, 'utf8');
    parts.push(text);
    size += Buffer.byteLength(text);
  }
  const text = parts.join('');
  assert.ok(Buffer.byteLength(text) >= 4 << 20);
  const path = join(home, 'several-mib.txt');
  writeFileSync(path, text);
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    const [counted] = JSON.parse(execFileSync(binary, ['tokens', '--json', '--tokenizer', encoding, path], {
      env: { ...process.env, PLUGLINE_HOME: home },
    }).toString());
    assert.equal(counted.tokens, getEncoding(encoding).encode(text, [], []).length, encoding);
  }
});

test('shaping results name the counter and count with it', () => {
  const file = files.find((f) => f.endsWith('test/pytest_failing_verbose.out'));
  assert.ok(file, 'the pytest fixture exists');
  const text = readFileSync(file, 'utf8');
  const result = JSON.parse(execFileSync(binary, ['shape', '--command', 'pytest', '--exit-code', '1', '--json'], {
    input: text, env: { ...process.env, PLUGLINE_HOME: home, PLUGLINE_SERVER: '0' }, maxBuffer: 1 << 26,
  }).toString());
  assert.equal(result.token_counter, 'o200k_base');
  assert.equal(result.tokens_raw, getEncoding('o200k_base').encode(text, [], []).length);
  assert.equal(result.tokens_summary, getEncoding('o200k_base').encode(result.summary, [], []).length);
  assert.equal(result.tokens_saved, result.tokens_raw - result.tokens_summary);
});

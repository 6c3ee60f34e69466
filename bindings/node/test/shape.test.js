'use strict';
// Host and shaping through the addon, with a fresh temporary home per test.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Host, PluglineError } = require('..');

const homes = [];
test.after(() => homes.forEach((home) => fs.rmSync(home, { recursive: true, force: true })));

function tempHome() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-'));
  homes.push(home);
  return home;
}

function numberedLines(count) {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}: compiling unit ${i}`).join('\n') + '\n';
}

function lastLine(text) {
  const lines = text.replace(/\n+$/, '').split('\n');
  return lines[lines.length - 1];
}

test('500 lines are summarised; the raw output is stored byte for byte', (t) => {
  const home = tempHome();
  const host = new Host({ home });
  t.after(() => host.close());
  const output = numberedLines(500);

  const result = host.shape('seq 500', output, 2);

  assert.equal(result.render_mode, 'summary');
  assert.equal(result.shaper, 'builtin-generic');
  assert.equal(result.fallback, null);
  // Lines alike but for their numbers: the first and the last shown, the others counted.
  assert.ok(result.summary.includes('… 498 lines like the ones around, but for their numbers, omitted'), result.summary);
  assert.equal(result.raw_lines, 500);
  assert.equal(result.raw_bytes, Buffer.byteLength(output));
  assert.ok(result.tokens_summary < result.tokens_raw);
  assert.ok(result.raw_path.startsWith(path.join(home, 'outputs') + path.sep), result.raw_path);
  assert.equal(lastLine(result.summary), `full output: ${result.raw_path}`);
  assert.deepEqual(fs.readFileSync(result.raw_path), Buffer.from(output));
});

test('a secret in the output is masked in the summary and in the raw file', (t) => {
  const home = tempHome();
  const host = new Host({ home });
  t.after(() => host.close());
  const output = numberedLines(300) + 'remote: https://ci:glpat-a1B2c3D4e5F6g7H8i9J0@gitlab.example/x.git\n';

  const result = host.shape('git push', output, 1);

  assert.equal(result.secrets_masked, true);
  assert.ok(!result.summary.includes('a1B2c3D4'), result.summary);
  assert.ok(result.summary.includes('https://ci:[redacted]@gitlab.example/x.git'), result.summary);
  const stored = fs.readFileSync(result.raw_path, 'utf8');
  assert.equal(stored, output.replace('glpat-a1B2c3D4e5F6g7H8i9J0', '[redacted]'));
  assert.equal(result.raw_bytes, Buffer.byteLength(output));
  assert.equal(host.shape('ls', 'one\ntwo\n', 0).secrets_masked, false);
});

test('a Buffer with NUL and 0xff bytes is passed with its length and stored exactly', (t) => {
  const host = new Host({ home: tempHome() });
  t.after(() => host.close());
  const lines = [];
  for (let i = 0; i < 500; i++) {
    lines.push(Buffer.from(`row ${i} `), Buffer.from([0x00, 0xff, 0xfe, 0x00, 0x80]), Buffer.from('\n'));
  }
  const output = Buffer.concat(lines);
  assert.ok(output.includes(0) && output.includes(0xff));

  const result = host.shape('dump --binary', output, 0);

  assert.equal(result.render_mode, 'summary');
  assert.equal(result.raw_bytes, output.length);
  assert.equal(result.raw_lines, 500);
  assert.equal(lastLine(result.summary), `full output: ${result.raw_path}`);
  assert.ok(fs.readFileSync(result.raw_path).equals(output), 'raw file differs from the Buffer');
});

test('a view into a larger buffer passes only its own bytes', (t) => {
  const host = new Host({ home: tempHome() });
  t.after(() => host.close());
  const backing = Buffer.from('XXXX' + numberedLines(100) + 'YYYY');
  const view = new Uint8Array(backing.buffer, backing.byteOffset + 4, backing.length - 8);

  const result = host.shape('cat log', view);

  assert.equal(result.raw_bytes, view.byteLength);
  assert.ok(fs.readFileSync(result.raw_path).equals(Buffer.from(numberedLines(100))));
});

test('a short output comes back raw', (t) => {
  const host = new Host({ home: tempHome() });
  t.after(() => host.close());
  const result = host.shape('ls', 'a.txt\nb.txt\n', 0);
  assert.equal(result.render_mode, 'raw');
  assert.equal(result.summary, 'a.txt\nb.txt\n');
  assert.equal(result.raw_lines, 2);
});

test('exitCode may be omitted, undefined or null (PLUGLINE_EXIT_CODE_UNKNOWN)', (t) => {
  const host = new Host({ home: tempHome() });
  t.after(() => host.close());
  for (const exitCode of [undefined, null]) {
    assert.equal(host.shape('sleep 100', 'killed\n', exitCode).render_mode, 'raw');
  }
  assert.equal(host.shape('sleep 100', 'killed\n').render_mode, 'raw');
  assert.throws(() => host.shape('x', 'y', 1.5), TypeError);
  assert.throws(() => host.shape('x', 'y', 2 ** 31), TypeError);
  assert.throws(() => host.shape('x', 42), TypeError);
});

test('a forced shaper is used; an unknown one throws PluglineError PLUGLINE_EINVALID', (t) => {
  const host = new Host({ home: tempHome() });
  t.after(() => host.close());
  assert.equal(host.shape('x', 'y\n', 0, { shaper: 'builtin-generic' }).shaper, 'builtin-generic');
  assert.throws(() => host.shape('npm test', 'ok\n', 0, { shaper: 'no-such-shaper' }), (error) => {
    assert.ok(error instanceof PluglineError);
    assert.ok(error instanceof Error);
    assert.equal(error.code, 'PLUGLINE_EINVALID');
    assert.equal(error.status, -1);
    assert.match(error.message, /no-such-shaper/);
    return true;
  });
  assert.throws(() => host.shape('x', 'y', 0, { shapr: 'typo' }), TypeError);
});

test('storeOutputs: false writes no file and names none', (t) => {
  const home = tempHome();
  const host = new Host({ home, storeOutputs: false });
  t.after(() => host.close());
  const result = host.shape('seq 500', numberedLines(500), 0);
  assert.equal(result.raw_path, null);
  assert.ok(!result.summary.includes('full output:'));
  assert.ok(!fs.existsSync(path.join(home, 'outputs')) ||
            fs.readdirSync(path.join(home, 'outputs')).length === 0);
});

test('diagnostics() names a malformed config file; a clean home has none', (t) => {
  const clean = new Host({ home: tempHome() });
  t.after(() => clean.close());
  assert.deepEqual(clean.diagnostics(), []);

  const home = tempHome();
  fs.writeFileSync(path.join(home, 'config.yaml'), 'plugins: [unclosed\n');
  const host = new Host({ home });
  t.after(() => host.close());
  const diagnostics = host.diagnostics();
  assert.equal(diagnostics.length, 1);
  assert.ok(diagnostics[0].includes(path.join(home, 'config.yaml')), diagnostics[0]);
});

test('close() is idempotent; a closed host throws PLUGLINE_ESTATE', () => {
  const host = new Host({ home: tempHome() });
  assert.equal(host.closed, false);
  host.close();
  host.close();
  assert.equal(host.closed, true);
  assert.throws(() => host.shape('ls', 'a\n'), { name: 'PluglineError', code: 'PLUGLINE_ESTATE' });
  assert.throws(() => host.diagnostics(), { code: 'PLUGLINE_ESTATE' });
});

test('bad Host options are TypeErrors', () => {
  assert.throws(() => new Host({ home: 42 }), TypeError);
  assert.throws(() => new Host({ storeOutputs: 'yes' }), TypeError);
  assert.throws(() => new Host({ hom: '/tmp' }), TypeError);
  assert.throws(() => new Host('/tmp'), TypeError);
});

test('a path with a NUL character is refused, not truncated', () => {
  assert.throws(() => new Host({ home: `${tempHome()}\0/etc` }),
                { name: 'PluglineError', code: 'PLUGLINE_EINVALID' });
});

test('stats() counts shapings per shaper', (t) => {
  const home = tempHome();
  const host = new Host({ home });
  t.after(() => host.close());
  host.shape('seq 500', numberedLines(500), 0);
  host.shape('seq 500', numberedLines(500), 0);
  const stats = host.stats();
  assert.equal(stats.shapers['builtin-generic'].shape_count, 2);
  assert.ok(stats.shapers['builtin-generic'].tokens_saved > 0);
  assert.ok(stats.shapers['builtin-generic'].average_shape_ms >= 0);
});

test('maxTokens cuts the summary to the budget and says so; 0 is no budget', (t) => {
  const home = tempHome();
  const host = new Host({ home });
  t.after(() => host.close());
  const lines = [];
  for (let i = 0; i < 300; i++) {
    lines.push(`tests/test_${i}.py::test_case_${i} FAILED`, `E   assert ${i} == ${i + 1}`);
    for (let j = 0; j < 8; j++) lines.push(`    context ${i}.${j} of the failure, printed by the runner`);
  }
  const output = lines.join('\n') + '\n';
  const free = host.shape('./run-tests', output, 1, { maxTokens: 0 });
  assert.equal(free.max_tokens, 0);
  const cut = host.shape('./run-tests', output, 1, { maxTokens: 400 });
  assert.equal(cut.max_tokens, 400);
  assert.ok(cut.tokens_summary <= 400 && free.tokens_summary > 400, `${cut.tokens_summary} ${free.tokens_summary}`);
  assert.ok(cut.budget_lines_left_out > 0);
  assert.ok(cut.summary.includes('-token budget: '), cut.summary);
  assert.equal(cut.token_counter, 'o200k_base');
  assert.equal(host.shape('./run-tests', output, 1).max_tokens, 8000);
  assert.throws(() => host.shape('./run-tests', output, 1, { maxTokens: -1 }), TypeError);
  // 1 to 199 tokens leave no room for a summary: refused, as config.yaml refuses them.
  assert.throws(() => host.shape('./run-tests', output, 1, { maxTokens: 199 }),
    (e) => e.code === 'PLUGLINE_EINVALID' && /max_tokens 199: expected 0/.test(e.message));
  assert.equal(host.shape('./run-tests', output, 1, { maxTokens: 200 }).max_tokens, 200);
});

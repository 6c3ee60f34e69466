'use strict';
// plugline's own V8 (10, from libnode108) running ES modules inside this Node.js process
// (whose V8 is 11): libplugline loads its V8 backend with RTLD_DEEPBIND, so each V8 binds to
// its own symbols. The last test checks that Node's own JavaScript is unharmed afterwards.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { Worker } = require('node:worker_threads');

const { Host, jsCall, PluglineError } = require('..');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-js-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name, text) => {
  fs.writeFileSync(path.join(dir, name), text);
  return path.join(dir, name);
};

write('words.mjs', `export const greeting = 'hello';
export function shout(text) { return text.toUpperCase() + '!'; }
`);
const main = write('main.mjs', `import { greeting, shout } from './words.mjs';
export default {
  greet(name) { return shout(\`\${greeting} \${name}\`); },
  async stats(values) {
    await null;
    const sum = values.reduce((a, b) => a + b, 0);
    return { sum, mean: sum / values.length, engine: typeof process };
  },
  nothing() {},
};
`);
const callable = write('callable.mjs', 'export default (a, b) => ({ product: a * b });\n');
const throws = write('throws.mjs', `export default {
  fail() {
    throw new TypeError('the plugin gave up');
  },
};
`);
const broken = write('broken.mjs', 'export default {\n  oops(: 1,\n};\n');
const spins = write('spins.mjs', 'export default { spin() { for (;;) {} } };\n');

test('an ES module with a relative import runs in plugline\'s V8 inside Node', () => {
  assert.equal(jsCall(main, 'greet', ['node']), 'HELLO NODE!');
});

test('a returned promise is awaited; JSON-able results come back', () => {
  // plugline's isolate is not Node's: `process` does not exist there.
  assert.deepEqual(jsCall(main, 'stats', [[1, 2, 3, 6]]), { sum: 12, mean: 3, engine: 'undefined' });
  assert.equal(jsCall(main, 'nothing'), null);
});

test('the default export itself is called when fn is null, undefined or ""', () => {
  for (const fn of [null, undefined, '']) {
    assert.deepEqual(jsCall(callable, fn, [6, 7]), { product: 42 });
  }
});

test('a relative module path is taken from process.cwd()', () => {
  assert.deepEqual(jsCall(path.relative(process.cwd(), callable), null, [2, 3]), { product: 6 });
});

test('a JS throw is PluglineError PLUGLINE_EPLUGIN with file:line', () => {
  assert.throws(() => jsCall(throws, 'fail'), (error) => {
    assert.ok(error instanceof PluglineError);
    assert.equal(error.code, 'PLUGLINE_EPLUGIN');
    assert.equal(error.status, -12);
    assert.ok(error.message.includes(`${throws}:3`), error.message);
    assert.match(error.message, /TypeError: the plugin gave up/);
    return true;
  });
});

test('a syntax error is PLUGLINE_EPLUGIN with file:line', () => {
  assert.throws(() => jsCall(broken, 'oops'), (error) => {
    assert.equal(error.code, 'PLUGLINE_EPLUGIN');
    assert.ok(error.message.includes(`${broken}:2`), error.message);
    return true;
  });
});

test('a missing module or function is PLUGLINE_ENOTFOUND', () => {
  assert.throws(() => jsCall(path.join(dir, 'absent.mjs'), 'f'), { code: 'PLUGLINE_ENOTFOUND' });
  assert.throws(() => jsCall(main, 'absent'), { code: 'PLUGLINE_ENOTFOUND' });
});

test('for(;;){} with timeoutMs 200 is PLUGLINE_ETIMEOUT, promptly', () => {
  const started = process.hrtime.bigint();
  assert.throws(() => jsCall(spins, 'spin', [], 200), (error) => {
    assert.ok(error instanceof PluglineError);
    assert.equal(error.code, 'PLUGLINE_ETIMEOUT');
    assert.equal(error.status, -5);
    return true;
  });
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  assert.ok(elapsedMs >= 190 && elapsedMs < 2000, `took ${elapsedMs} ms`);
  // The module that was terminated works again.
  assert.equal(jsCall(main, 'greet', ['again']), 'HELLO AGAIN!');
});

test('bad jsCall arguments are TypeErrors', () => {
  assert.throws(() => jsCall(42), TypeError);
  assert.throws(() => jsCall(main, 'greet', 'not an array'), TypeError);
  assert.throws(() => jsCall(main, 'greet', [], -1), TypeError);
  assert.throws(() => jsCall(main, 'greet', [], 1.5), TypeError);
});

test('a shaper allocation V8 cannot stop does not end the Node process', () => {
  // new Array(1e8).fill(1.5) ignores termination and allocates past the heap limit: V8
  // reports a fatal out-of-memory, and plugline abandons that plugin's isolate instead.
  const home = path.join(dir, 'oom-home');
  fs.mkdirSync(path.join(home, 'plugins'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config.yaml'), 'plugins:\n  js:\n    heap_limit_mb: 32\n');
  fs.writeFileSync(path.join(home, 'plugins', 'fill.js'), `export default {
  meta: { name: 'fill', version: '1.0.0', description: 'd', tier: 'community' },
  match() { return { matched: new Array(1e8).fill(1.5).length > 0, confidence: 1 }; },
  shape() { return { summary: 'never' }; },
};
`);
  const host = new Host({ home });
  const result = host.shape('make', 'built\n', 0);
  assert.equal(result.summary, 'built\n');
  const skipped = result.skipped.find((s) => s.plugin === 'fill');
  assert.match(skipped.detail, /^call to match\(\) ran out of memory in a way V8 cannot stop in process/);
  assert.equal(host.shape('make', 'again\n', 0).summary, 'again\n');
  host.close();
});

test('after all that, Node\'s own JavaScript still works in this process', async () => {
  assert.equal(await new Promise((resolve) => setTimeout(() => resolve('timer'), 5)), 'timer');
  assert.equal(await Promise.all([1, 2].map(async (n) => n * 2)).then((v) => v.join()), '2,4');
  assert.deepEqual(JSON.parse(JSON.stringify({ a: [1, { b: 'ü' }] })), { a: [1, { b: 'ü' }] });
  assert.equal(execFileSync(process.execPath, ['-p', '6 * 7'], { encoding: 'utf8' }).trim(), '42');
  assert.equal(execFileSync('sh', ['-c', 'echo child'], { encoding: 'utf8' }), 'child\n');
  // A new isolate of Node's own V8, in a worker thread.
  const fromWorker = await new Promise((resolve, reject) => {
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage([1, 2, 3].map((x) => x ** 2))',
                              { eval: true });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  assert.deepEqual(fromWorker, [1, 4, 9]);
  // Lots of garbage in Node's heap, then plugline once more: both V8s keep working.
  let total = 0;
  for (let i = 0; i < 200000; i++) total += JSON.stringify({ i }).length;
  assert.ok(total > 0);
  const host = new Host({ home: path.join(dir, 'home') });
  assert.equal(host.shape('ls', 'x\n', 0).render_mode, 'raw');
  host.close();
  assert.equal(jsCall(main, 'greet', ['end']), 'HELLO END!');
});

test('the addon works inside a worker thread too', async () => {
  const packageDir = path.resolve(__dirname, '..');
  const code = `
    const { parentPort } = require('node:worker_threads');
    const plugline = require(${JSON.stringify(packageDir)});
    let code = null;
    try { plugline.jsCall(${JSON.stringify(throws)}, 'fail'); } catch (e) {
      code = e instanceof plugline.PluglineError ? e.code : 'not a PluglineError';
    }
    parentPort.postMessage({ greeting: plugline.jsCall(${JSON.stringify(main)}, 'greet', ['worker']), code });
  `;
  const answer = await new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  assert.deepEqual(answer, { greeting: 'HELLO WORKER!', code: 'PLUGLINE_EPLUGIN' });
});

'use strict';
// Loading the addon: versions agree with the C header, and a missing addon is reported with
// the path that was tried.
//
// Run from the repository root:
//   PLUGLINE_NODE_ADDON=$PWD/build-node/lib/plugline.node node --test bindings/node/test/
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const packageDir = path.resolve(__dirname, '..');
const header = path.resolve(packageDir, '../../capi/include/plugline/plugline.h');
const plugline = require(packageDir);

function headerMacro(name) {
  const match = fs.readFileSync(header, 'utf8').match(new RegExp(`^#define ${name} +(\\d+)$`, 'm'));
  assert.ok(match, `${name} is defined in ${header}`);
  return Number(match[1]);
}

test('version() is the PLUGLINE_VERSION_* of plugline.h', () => {
  const expected = ['MAJOR', 'MINOR', 'PATCH'].map((part) => headerMacro(`PLUGLINE_VERSION_${part}`));
  assert.equal(plugline.version(), expected.join('.'));
});

test('abiVersion() is PLUGLINE_ABI_VERSION, and that is 1', () => {
  assert.equal(plugline.abiVersion(), headerMacro('PLUGLINE_ABI_VERSION'));
  assert.equal(plugline.abiVersion(), 1);
});

test('EXIT_CODE_UNKNOWN is PLUGLINE_EXIT_CODE_UNKNOWN (INT32_MIN)', () => {
  assert.equal(plugline.EXIT_CODE_UNKNOWN, -2147483648);
});

test('PluglineError is an Error with status and code', () => {
  const error = new plugline.PluglineError('bad', -1, 'PLUGLINE_EINVALID');
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'PluglineError');
  assert.equal(error.message, 'bad');
  assert.equal(error.status, -1);
  assert.equal(error.code, 'PLUGLINE_EINVALID');
});

test('the addon was loaded from $PLUGLINE_NODE_ADDON when it is set', () => {
  if (!process.env.PLUGLINE_NODE_ADDON) return;
  assert.equal(plugline.addonPath, path.resolve(process.env.PLUGLINE_NODE_ADDON));
});

function loadInChild(env) {
  return spawnSync(process.execPath, ['-e', `require(${JSON.stringify(packageDir)})`], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

test('a missing addon is a clear error naming the path from $PLUGLINE_NODE_ADDON', () => {
  const missing = path.join(require('node:os').tmpdir(), `plugline-missing-${process.pid}`,
                            'plugline.node');
  const child = loadInChild({ PLUGLINE_NODE_ADDON: missing });
  assert.notEqual(child.status, 0);
  assert.match(child.stderr, /plugline: cannot find the native addon/);
  assert.ok(child.stderr.includes(`tried ${missing} (from $PLUGLINE_NODE_ADDON)`), child.stderr);
});

test('without $PLUGLINE_NODE_ADDON the package looks in its build/ directory', (t) => {
  const fallback = path.join(packageDir, 'build', 'plugline.node');
  if (fs.existsSync(fallback)) {
    t.skip(`${fallback} exists`);
    return;
  }
  const child = loadInChild({ PLUGLINE_NODE_ADDON: '' });
  assert.notEqual(child.status, 0);
  assert.ok(child.stderr.includes(`tried ${fallback}`), child.stderr);
});

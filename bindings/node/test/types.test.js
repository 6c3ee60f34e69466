'use strict';
// The type declarations (index.d.ts) checked with the TypeScript compiler (a pinned
// devDependency): test/types/usage.ts uses every method as the docs show, under --strict, and
// its misuses must fail to compile.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

test('index.d.ts: typed use compiles under --strict, and misuse does not', () => {
  const tsc = path.join(__dirname, '..', 'node_modules', 'typescript', 'bin', 'tsc');
  assert.ok(fs.existsSync(tsc), `${tsc} is missing: run npm ci in bindings/node`);
  const checked = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types')],
                            { encoding: 'utf8', timeout: 120000 });
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
});

// The ES module entry gives the same Host as the CommonJS one, and a Host is disposable.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import plugline, { Host, PluglineError, version } from 'plugline';

const require = createRequire(import.meta.url);

test('import and require give the same binding', () => {
  assert.equal(Host, require('plugline').Host);
  assert.equal(plugline.Host, Host);
  assert.equal(typeof version(), 'string');
  assert.equal(typeof PluglineError, 'function');
});

test('Symbol.dispose closes a host once', (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-esm-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const host = new Host({ home });
  assert.equal(host.closed, false);
  host[Symbol.dispose]();
  assert.equal(host.closed, true);
  host[Symbol.dispose]();  // a second time does nothing
  assert.throws(() => host.plugins(), (e) => e.code === 'PLUGLINE_ESTATE');
});

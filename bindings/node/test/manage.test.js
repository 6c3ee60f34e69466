'use strict';
// Managing plugins from Node: turning them on and off, and a real catalog on file:// — sync
// with progress, available, install with its checksum checked, info, remove.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Host } = require('..');

const SHAPER = `export default {
  meta: { name: "terra", version: "1.0.0", description: "terraform plans", tier: "community" },
  match(c) { return { matched: c.startsWith("terraform"), confidence: 0.9 }; },
  shape() { return { summary: "planned" }; },
};
`;

function catalogHome(t, sha256 = null) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-manage-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const www = path.join(home, 'www');
  fs.mkdirSync(www);
  fs.writeFileSync(path.join(www, 'terra.js'), SHAPER);
  const digest = sha256 || crypto.createHash('sha256').update(SHAPER).digest('hex');
  fs.writeFileSync(path.join(www, 'index.json'), JSON.stringify({
    catalog: 1,
    plugins: [{ id: 'terra', version: '1.0.0', kind: 'js-shaper', url: 'terra.js', sha256: digest,
                size: Buffer.byteLength(SHAPER) }],
  }));
  fs.writeFileSync(path.join(home, 'config.yaml'), `catalog:\n  url: file://${www}/index.json\n`);
  return home;
}

test('setPluginEnabled turns a built-in shaper off and on; pluginInfo shows it', (t) => {
  const home = catalogHome(t);
  const host = new Host({ home });
  t.after(() => host.close());
  host.setPluginEnabled('builtin-git-diff', false);
  assert.equal(host.pluginInfo('builtin-git-diff')[0].state, 'disabled');
  const diff = 'diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
  assert.notEqual(host.shape('git diff', diff, 0).shaper, 'builtin-git-diff');
  host.setPluginEnabled('builtin-git-diff', true);
  assert.equal(host.pluginInfo('builtin-git-diff')[0].state, 'enabled');
  assert.throws(() => host.pluginInfo('builtin-git-dif'),
    (e) => e.code === 'PLUGLINE_ENOTFOUND' && /builtin-git-diff/.test(e.message));
  assert.throws(() => host.setPluginEnabled('nothing', false), (e) => e.code === 'PLUGLINE_ENOTFOUND');
});

test('a catalog plugin: sync with progress, available, install verified, info, remove', (t) => {
  const home = catalogHome(t);
  const host = new Host({ home });
  t.after(() => host.close());
  const seen = [];
  const reports = host.syncCatalogs((url, received) => seen.push([url, received]));
  assert.equal(reports.length, 1);
  assert.equal(reports[0].ok, true, reports[0].error);
  assert.equal(reports[0].plugins, 1);
  assert.ok(seen.length > 0 && seen[0][0].startsWith('file://'));
  const offer = host.availablePlugins();
  assert.equal(offer.plugins[0].id, 'terra');
  assert.equal(offer.plugins[0].installed_version, null);

  const record = host.installPlugin('terra');
  assert.equal(record.verified, true);
  assert.equal(record.version, '1.0.0');
  assert.equal(record.isolation, 'process');
  assert.equal(fs.readFileSync(path.join(home, 'plugins', 'terra.js'), 'utf8'), SHAPER);
  const info = host.pluginInfo('terra')[0];
  assert.equal(info.state, 'enabled');
  assert.equal(info.install.verified, true);
  assert.equal(host.availablePlugins().plugins[0].installed_version, '1.0.0');

  assert.throws(() => host.removePlugin('builtin-test'), (e) => e.code === 'PLUGLINE_ESTATE');
  const removed = host.removePlugin('terra');
  assert.equal(removed.id, 'terra');
  assert.equal(fs.existsSync(path.join(home, 'plugins', 'terra.js')), false);
  assert.equal(host.plugins().some((p) => p.id === 'terra'), false);
});

test('a checksum that does not match installs nothing and names both digests', (t) => {
  const home = catalogHome(t, 'a'.repeat(64));
  const host = new Host({ home });
  t.after(() => host.close());
  assert.throws(() => host.installPlugin('terra', null),
    (e) => e.code === 'PLUGLINE_EIO' && /checksum mismatch: expected sha256 a{64}, got [0-9a-f]{64}/.test(e.message));
  assert.equal(fs.existsSync(path.join(home, 'plugins', 'terra.js')), false);
  // A progress callback that throws: the error reaches the caller.
  assert.throws(() => host.syncCatalogs(() => { throw new Error('stop'); }), /stop/);
});

test('syncCatalogsAsync and installPluginAsync: the same on the thread pool, progress on this thread', async (t) => {
  const home = catalogHome(t);
  const host = new Host({ home });
  t.after(() => host.closeAsync());
  const seen = [];
  const pending = host.syncCatalogsAsync((url, received, total) => seen.push([url, received, total]));
  assert.equal(seen.length, 0);  // nothing reported before the call returned
  const reports = await pending;
  assert.equal(reports.length, 1);
  assert.equal(reports[0].ok, true, reports[0].error);
  assert.equal(reports[0].plugins, 1);
  assert.ok(seen.length > 0 && seen[0][0].startsWith('file://'), JSON.stringify(seen));
  assert.ok(seen.every(([, received, total]) => Number.isInteger(received) && Number.isInteger(total)));

  const progress = [];
  const record = await host.installPluginAsync('terra', null,
                                               (url, received) => progress.push(received));
  assert.equal(record.verified, true);
  assert.equal(record.version, '1.0.0');
  assert.ok(progress.length > 0);
  assert.equal(fs.readFileSync(path.join(home, 'plugins', 'terra.js'), 'utf8'), SHAPER);
  assert.equal((await host.pluginsAsync()).find((p) => p.id === 'terra').state, 'enabled');
  await assert.rejects(host.installPluginAsync('nope'), { code: 'PLUGLINE_ENOTFOUND' });
});

test('syncCatalogsAsync: a progress callback that throws rejects the call with what it threw', async (t) => {
  const home = catalogHome(t, 'a'.repeat(64));
  const host = new Host({ home });
  t.after(() => host.closeAsync());
  let calls = 0;
  const stop = new Error('stop');
  await assert.rejects(host.syncCatalogsAsync(() => { ++calls; throw stop; }), (e) => e === stop);
  assert.equal(calls, 1);  // the reports after the throw were dropped
  await assert.rejects(host.installPluginAsync('terra', null),
    (e) => e.code === 'PLUGLINE_EIO' && /checksum mismatch/.test(e.message));
  assert.equal(fs.existsSync(path.join(home, 'plugins', 'terra.js')), false);
});

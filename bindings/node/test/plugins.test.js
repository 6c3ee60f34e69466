'use strict';
// JS shaper plugins run by plugline's own V8 (libnode108) inside this Node 20 process.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Host } = require('..');

const SHAPER = `export default {
  meta: { name: "deploys", version: "2.0.0", description: "deploy logs", tier: "community" },
  match(command) {
    return command.startsWith("deploy") ? { matched: true, confidence: 0.9 } : { matched: false };
  },
  shape(output, ctx) {
    const failed = output.split("\\n").filter((l) => l.includes("FAILED"));
    return { summary: \`deploy: \${failed.length} failed of \${ctx.outputLines}\\n\${failed.join("\\n")}\` };
  },
};
`;

function deployOutput() {
  return Array.from({ length: 100 }, (_, i) => `service-${i + 1} ${(i + 1) % 25 === 0 ? 'FAILED' : 'ok'}`)
    .join('\n') + '\n';
}

test('a dropped-in JS shaper is listed and shapes; a broken one says why', (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-plugins-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  fs.mkdirSync(path.join(home, 'plugins'));
  fs.writeFileSync(path.join(home, 'plugins', 'deploys.js'), SHAPER);
  fs.writeFileSync(path.join(home, 'plugins', 'broken.js'), 'export default {\n  meta: ,\n};\n');
  const host = new Host({ home });
  t.after(() => host.close());
  const plugins = Object.fromEntries(host.plugins().map((p) => [p.id, p]));
  assert.equal(plugins['builtin-test'].kind, 'builtin-shaper');
  if ((plugins.broken.reason || '').includes('without V8')) {
    t.skip('plugline was built with PLUGLINE_WITH_V8=OFF');
    return;
  }
  assert.equal(plugins.broken.state, 'broken');
  assert.match(plugins.broken.reason, /broken\.js:2/);
  assert.equal(plugins.deploys.state, 'enabled');
  assert.equal(plugins.deploys.tier, 'community');
  const result = host.shape('deploy --all', deployOutput(), 1);
  assert.equal(result.shaper, 'deploys');
  assert.ok(result.summary.startsWith('deploy: 4 failed of 100\nservice-25 FAILED\n'), result.summary);
  assert.deepEqual(result.skipped, []);

  fs.writeFileSync(path.join(home, 'plugins', 'later.js'), SHAPER.replace('"deploys"', '"later"'));
  host.reload();
  assert.equal(host.plugins().find((p) => p.id === 'later').state, 'enabled');
});

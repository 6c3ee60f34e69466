'use strict';
// The package an app depends on: `npm pack` of this directory, installed offline into a fresh
// app, then required (CommonJS) and imported (ESM) from there, with the addon named by
// $PLUGLINE_NODE_ADDON as the README says.
const test = require('node:test');
const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const packageDir = path.join(__dirname, '..');

function run(command, args, options) {
  const result = childProcess.spawnSync(command, args, { encoding: 'utf8', timeout: 120000,
                                                        ...options });
  assert.equal(result.status, 0,
               `${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

test('npm pack gives a package an app installs offline, then requires and imports', (t) => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-pack-'));
  t.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
  const env = { ...process.env, npm_config_cache: path.join(scratch, 'npm-cache'),
                npm_config_update_notifier: 'false' };

  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch],
                                { cwd: packageDir, env }));
  const files = packed[0].files.map((file) => file.path).sort();
  assert.deepEqual(files, ['README.md', 'index.d.ts', 'index.js', 'index.mjs', 'lib/opencode_common.mjs',
                         'lib/shell.mjs', 'opencode.js', 'package.json']);
  const tarball = path.join(scratch, packed[0].filename);

  const app = path.join(scratch, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'),
                   JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
      { cwd: app, env });
  const manifest = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8'));
  assert.match(manifest.dependencies.plugline, /plugline-0\.1\.0\.tgz$/);

  const home = path.join(scratch, 'home');
  const commonjs = `
const plugline = require('plugline');
if (!require.resolve('plugline').startsWith(${JSON.stringify(app)})) throw new Error('not the installed copy');
const host = new plugline.Host({ home: ${JSON.stringify(home)} });
host.addHook('guard', ['pre_tool_call'], () => ({ deny: true, reason: 'from the package' }));
const decision = host.dispatch('pre_tool_call', { tool: 't', arguments: '{}' });
host.close();
console.log(JSON.stringify({ reason: decision.reason, version: plugline.version() }));
`;
  const fromRequire = JSON.parse(run(process.execPath, ['-e', commonjs], { cwd: app, env }));
  assert.deepEqual(fromRequire, { reason: 'from the package', version: '0.1.0' });

  const esm = `
import plugline, { Host, PluglineError } from 'plugline';
const host = new Host({ home: ${JSON.stringify(home)} });
const shaped = await host.shapeAsync('seq 1 300', Array.from({ length: 300 }, (_, i) => i + 1).join('\\n') + '\\n', 0);
let error = null;
try { await host.dispatchAsync('', {}); } catch (e) { error = e; }
// What \`await using\` calls on leaving its block (Node 20 has the symbol, not the syntax).
// A plugin of the app's own code, whose \`$\` comes from the package's copy of the shell module.
await host.addPlugin(async function echo({ $ }) {
  const greeting = (await $\`printf %s \${'from $'}\`.text());
  return { 'shell.env': async (input, output) => { output.env.GREETING = greeting; } };
});
const env = (await host.triggerAsync('shell.env', {}, { env: {} })).output.env.GREETING;
await host[Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]();
console.log(JSON.stringify({ shaper: shaped.shaper, same: plugline.Host === Host,
                             code: error instanceof PluglineError ? error.code : String(error),
                             closed: host.closed, env }));
`;
  const fromImport = JSON.parse(run(process.execPath, ['--input-type=module', '-e', esm],
                                    { cwd: app, env }));
  assert.deepEqual(fromImport, { shaper: 'builtin-generic', same: true,
                                 code: 'PLUGLINE_EINVALID', closed: true, env: 'from $' });
});

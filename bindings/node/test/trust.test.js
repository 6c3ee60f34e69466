'use strict';
// Broken fail-closed plugins and project trust through the addon: real exec plugins in a
// temporary home and project, real processes.
const test = require('node:test');
const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Host } = require('..');

const dirs = [];
test.after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-trust-'));
  dirs.push(dir);
  return dir;
}

function execPlugin(dir, name, body, { extra = '', mode = 0o755 } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'plugin.yaml'),
                   `name: ${name}\ncommand: ./run.sh\nhooks: [pre_tool_call]\n${extra}`);
  fs.writeFileSync(path.join(dir, 'run.sh'), `#!/bin/sh\ncat >/dev/null\n${body}\n`);
  fs.chmodSync(path.join(dir, 'run.sh'), mode);
}

function open(t, options) {
  const host = new Host(options);
  t.after(() => host.close());
  return host;
}

const RM = { tool: 'terminal', arguments: JSON.stringify({ command: 'rm -rf /' }) };

test('a broken fail-closed guard denies and every result lists the broken plugins', (t) => {
  const home = tempDir();
  execPlugin(path.join(home, 'plugins', 'guard'), 'guard', "echo '{}'",
             { extra: 'on_error: closed\n', mode: 0o644 });
  execPlugin(path.join(home, 'plugins', 'lenient'), 'lenient', "echo '{}'", { mode: 0o644 });
  const host = open(t, { home });
  const result = host.dispatch('pre_tool_call', RM);
  assert.equal(result.denied, true);
  assert.equal(result.denied_by, 'guard');
  assert.match(result.reason, /plugin guard is broken and fails closed: .*not executable/);
  assert.deepEqual(result.broken.map((b) => b.plugin), ['guard', 'lenient']);
  const observed = host.dispatch('session_start', { session_id: 's' });
  assert.equal(observed.denied, false);
  assert.equal(observed.broken.length, 2);
});

test('a project is inert until trusted; projectTrusted lets the host decide', (t) => {
  const home = tempDir();
  const project = tempDir();
  const marker = path.join(project, 'ran');
  execPlugin(path.join(project, '.plugline', 'plugins', 'p'), 'p', `touch '${marker}'\necho '{}'`);

  const untrusted = open(t, { home, projectDir: project });
  assert.deepEqual(untrusted.dispatch('pre_tool_call', RM).plugins, []);
  const entry = untrusted.plugins().find((p) => p.id === 'p');
  assert.equal(entry.state, 'untrusted');
  assert.ok(entry.reason.includes(`plugline trust ${fs.realpathSync(project)}`), entry.reason);
  assert.equal(untrusted.diagnostics().length, 1);
  assert.match(untrusted.diagnostics()[0], /is not trusted/);
  assert.equal(fs.existsSync(marker), false);

  const refused = open(t, { home, projectDir: project, projectTrusted: false });
  assert.deepEqual(refused.dispatch('pre_tool_call', RM).plugins, []);
  assert.equal(fs.existsSync(marker), false);

  const trusted = open(t, { home, projectDir: project, projectTrusted: true });
  assert.deepEqual(trusted.dispatch('pre_tool_call', RM).plugins.map((p) => p.plugin), ['p']);
  assert.equal(fs.existsSync(marker), true);

  assert.throws(() => new Host({ home, projectTrusted: 'yes' }), TypeError);
});

test('the trust store applies by default (trusted with the plugline command line)', (t) => {
  const cli = path.join(path.dirname(process.env.PLUGLINE_NODE_ADDON || ''), '..', 'bin',
                        'plugline');
  if (!process.env.PLUGLINE_NODE_ADDON || !fs.existsSync(cli)) {
    t.skip(`no plugline command line at ${cli}`);
    return;
  }
  const home = tempDir();
  const project = tempDir();
  const marker = path.join(project, 'ran');
  execPlugin(path.join(project, '.plugline', 'plugins', 'p'), 'p', `touch '${marker}'\necho '{}'`);
  childProcess.execFileSync(cli, ['trust', project], { env: { ...process.env, PLUGLINE_HOME: home } });
  const host = open(t, { home, projectDir: project });
  assert.deepEqual(host.dispatch('pre_tool_call', RM).plugins.map((p) => p.plugin), ['p']);
  assert.equal(fs.existsSync(marker), true);
});

test('a trusted project cannot switch off a protected global guard', (t) => {
  const home = tempDir();
  const project = tempDir();
  execPlugin(path.join(home, 'plugins', 'guard'), 'guard',
             `echo '{"deny":true,"reason":"no"}'`, { extra: 'on_error: closed\n' });
  fs.mkdirSync(path.join(project, '.plugline'));
  fs.writeFileSync(path.join(project, '.plugline', 'config.yaml'),
                   'plugins:\n  enabled: false\n  overrides:\n    guard: {enabled: false}\n');
  const host = open(t, { home, projectDir: project, projectTrusted: true });
  assert.equal(host.dispatch('pre_tool_call', RM).denied_by, 'guard');
  const guard = host.plugins().find((p) => p.id === 'guard');
  assert.equal(guard.protected, true);
  assert.ok(guard.warnings.some((w) => w.includes('a project cannot change a protected global plugin')));
});

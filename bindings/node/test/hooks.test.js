'use strict';
// Hook dispatch through the addon: exec plugins in a temporary home (real processes), native
// hooks written in JS (called synchronously during dispatch), and how the two compose.
const test = require('node:test');
const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const { once } = require('node:events');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');
const v8 = require('node:v8');
const vm = require('node:vm');
const { Worker } = require('node:worker_threads');

const { Host, PluglineError } = require('..');

const execFileAsync = util.promisify(childProcess.execFile);

const homes = [];
test.after(() => homes.forEach((home) => fs.rmSync(home, { recursive: true, force: true })));

function tempHome() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-hooks-'));
  homes.push(home);
  return home;
}

function openHost(t, home = tempHome()) {
  const host = new Host({ home });
  t.after(() => host.close());
  return host;
}

// A /bin/sh exec plugin in <home>/plugins/<name>/: reads the payload into $PAYLOAD, then runs
// `body`, whose stdout is the answer.
function execPlugin(home, name, body, hooks = '[pre_tool_call]') {
  const dir = path.join(home, 'plugins', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'plugin.yaml'),
                   `name: ${name}\ncommand: ./run.sh\nhooks: ${hooks}\n`);
  fs.writeFileSync(path.join(dir, 'run.sh'), `#!/bin/sh\nPAYLOAD=$(cat)\n${body}\n`,
                   { mode: 0o755 });
  return dir;
}

function toolCall(command) {
  return { session_id: 'ses_1', tool: 'terminal', arguments: JSON.stringify({ command }) };
}

function commandOf(result) {
  return JSON.parse(result.arguments).command;
}

// An exec plugin that denies `rm -rf` and has no opinion on anything else.
const NO_RM = `case "$PAYLOAD" in
  *'rm -rf'*) echo '{"deny":true,"reason":"no rm -rf here"}' ;;
  *) echo '{}' ;;
esac`;

test('an exec plugin in the home\'s plugins directory denies', (t) => {
  const home = tempHome();
  execPlugin(home, 'no-rm', NO_RM);
  const host = openHost(t, home);
  const denied = host.dispatch('pre_tool_call', toolCall('rm -rf /'));
  assert.equal(denied.event, 'pre_tool_call');
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'no-rm');
  assert.equal(denied.reason, 'no rm -rf here');
  assert.deepEqual(denied.plugins.map((p) => [p.plugin, p.action]), [['no-rm', 'deny']]);
  assert.ok(denied.plugins[0].ms > 0);

  const allowed = host.dispatch('pre_tool_call', JSON.stringify(toolCall('ls')));
  assert.equal(allowed.denied, false);
  assert.equal(allowed.denied_by, null);
  assert.equal(commandOf(allowed), 'ls');
  assert.deepEqual(allowed.skipped, []);
});

test('a native hook rewrites the arguments', (t) => {
  const host = openHost(t);
  const calls = [];
  host.addHook('no-color', ['pre_tool_call'], (event, payload) => {
    calls.push([event, payload]);
    const args = JSON.parse(payload.arguments);
    args.command += ' --color=never';
    return { arguments: JSON.stringify(args) };
  });
  const result = host.dispatch('pre_tool_call', toolCall('git log'));
  assert.equal(result.denied, false);
  assert.equal(commandOf(result), 'git log --color=never');
  assert.deepEqual(result.plugins.map((p) => [p.plugin, p.action]), [['no-color', 'rewrite']]);
  assert.equal(calls.length, 1);
  const [event, payload] = calls[0];
  assert.equal(event, 'pre_tool_call');
  assert.equal(payload.event, 'pre_tool_call');
  assert.equal(payload.session_id, 'ses_1'); // other fields pass through
});

test('the exec plugin runs first, then the native hook, which sees its rewrite', (t) => {
  const home = tempHome();
  execPlugin(home, 'tagger',
             `echo '{"arguments":"{\\"command\\":\\"make --from-exec\\"}","notice":"exec ran"}'`);
  const host = openHost(t, home);
  const seen = [];
  host.addHook('native', '*', (event, payload) => {
    const { command } = JSON.parse(payload.arguments);
    seen.push(command);
    return { arguments: JSON.stringify({ command: `${command} --native` }), notice: 'native ran' };
  });
  const result = host.dispatch('pre_tool_call', toolCall('make'));
  assert.deepEqual(seen, ['make --from-exec']);
  assert.equal(commandOf(result), 'make --from-exec --native');
  assert.deepEqual(result.plugins.map((p) => p.plugin), ['tagger', 'native']);
  assert.deepEqual(result.notices, [{ plugin: 'tagger', text: 'exec ran' },
                                    { plugin: 'native', text: 'native ran' }]);
});

test('an exec plugin\'s deny ends the chain before the native hooks', (t) => {
  const home = tempHome();
  execPlugin(home, 'no-rm', NO_RM);
  const host = openHost(t, home);
  let called = false;
  host.addHook('audit', '*', () => { called = true; });
  assert.equal(host.dispatch('pre_tool_call', toolCall('rm -rf /tmp/x')).denied_by, 'no-rm');
  assert.equal(called, false);
});

test('a hook that throws is skipped with its message; the chain goes on', (t) => {
  const host = openHost(t);
  host.addHook('a-broken', ['pre_tool_call'], () => {
    throw new Error('policy service unreachable');
  });
  host.addHook('b-after', ['pre_tool_call'], () => ({ notice: 'b ran' }));
  const result = host.dispatch('pre_tool_call', toolCall('ls'));
  assert.equal(result.denied, false);
  assert.deepEqual(result.skipped.map((s) => [s.plugin, s.detail]),
                   [['a-broken', 'Error: policy service unreachable']]);
  assert.deepEqual(result.plugins.map((p) => p.action), ['skipped', 'notice']);
  assert.deepEqual(result.notices, [{ plugin: 'b-after', text: 'b ran' }]);
  assert.deepEqual(host.dispatch('turn_end', {}).skipped, []); // the host is fine afterwards
});

test('failClosed turns a throwing hook into a deny', (t) => {
  const host = openHost(t);
  host.addHook('guard', ['pre_tool_call'], () => { throw new TypeError('cannot decide'); },
               { failClosed: true });
  host.addHook('never', ['pre_tool_call'], () => ({ notice: 'ran' }));
  const result = host.dispatch('pre_tool_call', toolCall('ls'));
  assert.equal(result.denied, true);
  assert.equal(result.denied_by, 'guard');
  assert.match(result.reason, /TypeError: cannot decide/);
  assert.deepEqual(result.notices, []);
});

test('an async hook is never read as "no opinion": it fails, and a fail-closed one denies', async (t) => {
  const host = openHost(t);
  host.addHook('g', ['pre_tool_call'], async () => ({ deny: true }), { failClosed: true });
  const denied = host.dispatch('pre_tool_call', toolCall('rm -rf /'));
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'g');
  assert.match(denied.reason, /returned a Promise/);
  host.removeHook('g');
  let rejected = false;
  host.addHook('open', ['pre_tool_call'], () => Promise.reject(new Error('late')).finally(() => { rejected = true; }));
  const open = host.dispatch('pre_tool_call', toolCall('ls'));
  assert.equal(open.denied, false);
  assert.equal(open.skipped[0].plugin, 'open');
  assert.match(open.skipped[0].detail, /returned a Promise/);
  await new Promise((resolve) => setImmediate(resolve));  // its rejection is handled: no crash
  assert.equal(rejected, true);
});

test('odd answers and odd throws fail the hook, never the process', (t) => {
  const host = openHost(t);
  const cases = [
    [() => 42, /^TypeError: hook "odd" returned number/],
    [() => [{ deny: true }], /^TypeError: hook "odd" returned an array/],
    [() => ({ deny: 'yes please' }), /deny/], // refused by plugline itself
    [() => ({ big: 1n }), /^TypeError: .*BigInt/],
    [() => { throw 'a plain string'; }, /^a plain string$/],
    [() => { throw Symbol('sym'); }, /cannot be converted to a string/],
    [() => { throw { toString() { throw new Error('nope'); } }; }, /cannot be converted/],
    [() => { const f = () => f(); return f(); }, /^RangeError: Maximum call stack/],
  ];
  for (const [fn, detail] of cases) {
    host.addHook('odd', '*', fn);
    const result = host.dispatch('pre_tool_call', toolCall('ls'));
    assert.equal(result.denied, false);
    assert.equal(result.skipped.length, 1, fn.toString());
    assert.equal(result.skipped[0].plugin, 'odd');
    assert.match(result.skipped[0].detail, detail);
    host.removeHook('odd');
  }
});

test('unknown answer keys and near-miss event names are warnings', (t) => {
  const host = openHost(t);
  host.addHook('typo', '*', () => ({ denied: true, notice: 'checked' }));
  const result = host.dispatch('pre_tool_call', { tool: 'terminal', arguments: '{}' });
  assert.equal(result.denied, false);
  assert.deepEqual(result.warnings,
    [{ plugin: 'typo', text: 'unknown answer key "denied" ignored (did you mean "deny"?)' }]);
  const misspelt = host.dispatch('pre_tool_cal', {});
  assert.equal(misspelt.warnings[0].plugin, null);
  assert.match(misspelt.warnings[0].text, /did you mean "pre_tool_call"\?/);
});

test('events choose what a hook sees', (t) => {
  const host = openHost(t);
  const seen = [];
  host.addHook('pre-only', ['pre_tool_call'], (e) => { seen.push(['pre-only', e]); });
  host.addHook('two', ['session_start', 'turn_end'], (e) => { seen.push(['two', e]); });
  host.addHook('all', '*', (e) => { seen.push(['all', e]); });
  host.addHook('none', [], (e) => { seen.push(['none', e]); });
  host.dispatch('pre_tool_call', toolCall('ls'));
  host.dispatch('turn_end', { session_id: 'ses_1' });
  host.dispatch('my_custom_event', {});
  assert.deepEqual(seen, [['pre-only', 'pre_tool_call'], ['all', 'pre_tool_call'],
                          ['two', 'turn_end'], ['all', 'turn_end'], ['all', 'my_custom_event']]);
});

test('removeHook', (t) => {
  const host = openHost(t);
  const calls = [];
  host.addHook('counter', '*', (event) => { calls.push(event); });
  assert.throws(() => host.addHook('counter', '*', () => null),
                (e) => e instanceof PluglineError && e.code === 'PLUGLINE_EEXISTS');
  host.dispatch('turn_end', {});
  host.removeHook('counter');
  assert.deepEqual(host.dispatch('turn_end', {}).plugins, []);
  assert.deepEqual(calls, ['turn_end']);
  assert.throws(() => host.removeHook('counter'),
                (e) => e instanceof PluglineError && e.code === 'PLUGLINE_ENOTFOUND');
  host.addHook('counter', '*', () => null); // the id is free again
  assert.deepEqual(host.dispatch('turn_end', {}).plugins.map((p) => p.plugin), ['counter']);
});

test('bad payloads and arguments throw', (t) => {
  const host = openHost(t);
  const invalid = (e) => e instanceof PluglineError && e.code === 'PLUGLINE_EINVALID' &&
                         e.status === -1;
  for (const payload of ['[1, 2]', '{oops', '', '"a string"', [1, 2], Buffer.from([0xff])]) {
    assert.throws(() => host.dispatch('pre_tool_call', payload), invalid, String(payload));
  }
  assert.throws(() => host.dispatch('', {}), invalid);
  assert.throws(() => host.dispatch('pre_tool_call', null), TypeError);
  assert.throws(() => host.dispatch('pre_tool_call', 5), TypeError);
  assert.throws(() => host.dispatch(5, {}), TypeError);
  assert.throws(() => host.dispatch('pre\0tool_call', {}), invalid);
  assert.throws(() => host.addHook('', '*', () => null), invalid);
  assert.throws(() => host.addHook('x', '*', 'not a function'), TypeError);
  assert.throws(() => host.addHook('x', ['pre_tool_call,post_tool_call'], () => null), TypeError);
  assert.throws(() => host.addHook('x', 7, () => null), TypeError);
  assert.throws(() => host.addHook('x', '*', () => null, { failClosed: 'yes' }), TypeError);
  assert.throws(() => host.addHook('x', '*', () => null, { failclosed: true }), TypeError);
  assert.deepEqual(host.plugins().filter((p) => p.kind === 'native-hook'), []);
});

test('plugins() lists exec and native hooks', (t) => {
  const home = tempHome();
  const dir = execPlugin(home, 'no-rm', NO_RM, '[pre_tool_call, post_tool_call]');
  const host = openHost(t, home);
  host.addHook('guard', ['pre_tool_call', 'turn_end'], () => null);
  const plugins = Object.fromEntries(host.plugins().map((p) => [p.id, p]));
  assert.equal(plugins.guard.kind, 'native-hook');
  assert.equal(plugins.guard.state, 'enabled');
  assert.equal(plugins.guard.source, 'host');
  assert.deepEqual(plugins.guard.events, ['pre_tool_call', 'turn_end']);
  assert.equal(plugins['no-rm'].kind, 'exec-hook');
  assert.equal(plugins['no-rm'].state, 'enabled');
  assert.equal(plugins['no-rm'].path, dir);
  assert.deepEqual(plugins['no-rm'].events, ['pre_tool_call', 'post_tool_call']);
  host.removeHook('guard');
  assert.ok(!host.plugins().some((p) => p.id === 'guard'));
});

test('a hook may not call back into its own host, but may use another one', (t) => {
  const host = openHost(t);
  const other = openHost(t);
  host.addHook('reentrant', '*', (event) => {
    if (event === 'turn_end') host.plugins();
    if (event === 'session_end') host.close();
    return { notice: String(other.plugins().length) };
  });
  let result = host.dispatch('turn_end', {});
  assert.match(
    result.skipped[0].detail,
    /^PluglineError: plugline: a native hook or the client called back into its own host$/);
  result = host.dispatch('session_end', {});
  assert.match(result.skipped[0].detail, /close\(\) called from inside one of its native hooks/);
  assert.equal(host.closed, false);
  assert.equal(host.dispatch('user_prompt', {}).notices[0].text, String(other.plugins().length));
});

function exposeGc() {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

// Lets the current synchronous frame end (handles from it are gone), then collects.
async function collect(gc) {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    gc();
  }
}

test('the hook function is kept while registered, even when nothing else holds it', async (t) => {
  const gc = exposeGc();
  const host = openHost(t);
  host.addHook('kept', '*', (() => { const tag = 'kept ran'; return () => ({ notice: tag }); })());
  await collect(gc);
  assert.equal(host.dispatch('turn_end', {}).notices[0].text, 'kept ran');
});

test('a host whose hook refers back to it can still be garbage-collected', async () => {
  const gc = exposeGc();
  let collected = false;
  const registry = new FinalizationRegistry(() => { collected = true; });
  (() => {
    const host = new Host({ home: tempHome() });
    host.addHook('self', '*', () => ({ notice: String(host.closed) }));
    assert.equal(host.dispatch('turn_end', {}).notices[0].text, 'false');
    registry.register(host, 'host');
  })();
  for (let i = 0; i < 20 && !collected; i++) await collect(gc);
  assert.equal(collected, true);
});

test('exec plugins run in-process beside Node\'s own child processes', async (t) => {
  const home = tempHome();
  execPlugin(home, 'no-rm', NO_RM);
  const host = openHost(t, home);
  // A Node child process that is still running while plugline spawns and reaps its plugins.
  const sleeping = execFileAsync('/bin/sh', ['-c', 'sleep 0.3; echo node-child']);
  for (let i = 0; i < 5; i++) {
    assert.equal(host.dispatch('pre_tool_call', toolCall('rm -rf /')).denied_by, 'no-rm');
  }
  assert.equal((await sleeping).stdout, 'node-child\n');
  assert.equal(childProcess.execFileSync('/bin/echo', ['sync']).toString(), 'sync\n');
  assert.equal((await execFileAsync('/bin/sh', ['-c', 'exit 0'])).stderr, '');
  await assert.rejects(execFileAsync('/bin/sh', ['-c', 'exit 3']), (e) => e.code === 3);
  assert.equal(host.dispatch('pre_tool_call', toolCall('ls')).denied, false);

  // A Node child that exits while plugline waits for a slow plugin: its SIGCHLD arrives in
  // the middle of the dispatch, and Node still sees the exit afterwards.
  const slowHome = tempHome();
  execPlugin(slowHome, 'slow', `sleep 0.4; echo '{"notice":"slow done"}'`);
  const slowHost = openHost(t, slowHome);
  const quick = execFileAsync('/bin/sh', ['-c', 'sleep 0.05; echo quick']);
  assert.deepEqual(slowHost.dispatch('pre_tool_call', toolCall('ls')).notices,
                   [{ plugin: 'slow', text: 'slow done' }]);
  assert.equal((await quick).stdout, 'quick\n');
});

test('a worker thread dispatches with its own host and hooks, and exits cleanly', async () => {
  const home = tempHome();
  execPlugin(home, 'n', `echo '{"notice":"exec"}'`);
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const { Host } = require(workerData.pkg);
    const host = new Host({ home: workerData.home });
    host.addHook('w', '*', (event) => ({ notice: 'worker saw ' + event }));
    parentPort.postMessage(host.dispatch('pre_tool_call', { arguments: '{}' }).notices);
    // not closed: the host (and its hook) go with the worker's environment
  `, { eval: true, workerData: { pkg: path.join(__dirname, '..'), home } });
  const [notices] = await once(worker, 'message');
  assert.deepEqual(notices, [{ plugin: 'n', text: 'exec' },
                             { plugin: 'w', text: 'worker saw pre_tool_call' }]);
  const [code] = await once(worker, 'exit');
  assert.equal(code, 0);
});

test('closing a host with hooks, and hooks after close', (t) => {
  const host = new Host({ home: tempHome() });
  host.addHook('h', '*', () => ({ notice: 'x' }));
  host.close();
  host.close();
  const closed = (e) => e instanceof PluglineError && e.code === 'PLUGLINE_ESTATE';
  assert.throws(() => host.dispatch('turn_end', {}), closed);
  assert.throws(() => host.addHook('g', '*', () => null), closed);
  assert.throws(() => host.removeHook('h'), closed);
});

'use strict';
// The *Async methods: the same calls on libuv's thread pool, settling Promises. Real exec
// plugins (processes) and real OpenCode plugins in temporary homes; native hooks and clients
// that are async functions, awaited from the pool thread through the JS thread.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');

const { Host, PluglineError } = require('..');

const homes = [];
test.after(() => homes.forEach((home) => fs.rmSync(home, { recursive: true, force: true })));

function tempHome() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-async-'));
  homes.push(home);
  return home;
}

function openHost(t, options = {}) {
  const host = new Host({ home: tempHome(), ...options });
  t.after(() => host.closeAsync());
  return host;
}

// A /bin/sh exec plugin in <home>/plugins/<name>/ whose stdout is the answer.
function execPlugin(home, name, body) {
  const dir = path.join(home, 'plugins', name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'plugin.yaml'),
                   `name: ${name}\ncommand: ./run.sh\nhooks: [pre_tool_call]\n`);
  fs.writeFileSync(path.join(dir, 'run.sh'), `#!/bin/sh\ncat >/dev/null\n${body}\n`,
                   { mode: 0o755 });
}

function toolCall(command) {
  return { session_id: 'ses_1', tool: 'terminal', arguments: JSON.stringify({ command }) };
}

test('an async native hook is awaited by dispatchAsync: deny, rewrite, redaction', async (t) => {
  const host = openHost(t);
  host.addHook('guard', ['pre_tool_call'], async (event, payload) => {
    await sleep(20);
    const { command } = JSON.parse(payload.arguments);
    if (command.includes('rm -rf')) return { deny: true, reason: 'no rm -rf (async)' };
    return { arguments: JSON.stringify({ command: `${command} --dry-run` }) };
  }, { failClosed: true });
  host.addHook('redact', ['post_tool_call'], async (event, payload) => {
    await sleep(5);
    return { result: payload.result.replaceAll('hunter2', '[redacted]') };
  });

  const denied = await host.dispatchAsync('pre_tool_call', toolCall('rm -rf /'));
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'guard');
  assert.equal(denied.reason, 'no rm -rf (async)');

  const rewritten = await host.dispatchAsync('pre_tool_call', toolCall('make'));
  assert.equal(rewritten.denied, false);
  assert.equal(JSON.parse(rewritten.arguments).command, 'make --dry-run');

  const redacted = await host.dispatchAsync('post_tool_call',
                                            { ...toolCall('env'), result: 'PASSWORD=hunter2' });
  assert.equal(redacted.result, 'PASSWORD=[redacted]');
});

test('the synchronous dispatch() cannot await: an async hook fails there, naming dispatchAsync', (t) => {
  const host = openHost(t);
  host.addHook('guard', ['pre_tool_call'], async () => ({ deny: true }), { failClosed: true });
  const result = host.dispatch('pre_tool_call', toolCall('ls'));
  assert.equal(result.denied, true);  // fails closed: the failure is a deny, never no opinion
  assert.match(result.reason, /returned a Promise .*dispatchAsync\(\)/);
});

test('an async hook that rejects or never answers fails: skipped, or a deny when closed', async (t) => {
  const host = openHost(t);
  host.addHook('rejects', ['pre_tool_call'], async () => { throw new Error('lookup failed'); });
  host.addHook('hangs', ['pre_tool_call'], () => new Promise(() => {}), { timeoutMs: 100 });
  const open = await host.dispatchAsync('pre_tool_call', toolCall('ls'));
  assert.equal(open.denied, false);
  assert.deepEqual(open.skipped.map((s) => [s.plugin, s.detail]), [
    ['rejects', 'Error: lookup failed'],
    ['hangs', 'hook "hangs" did not answer within 100 ms'],
  ]);

  const strict = openHost(t);
  strict.addHook('hangs', ['pre_tool_call'], () => new Promise(() => {}),
                 { timeoutMs: 50, failClosed: true });
  const denied = await strict.dispatchAsync('pre_tool_call', toolCall('ls'));
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'hangs');
  assert.match(denied.reason, /did not answer within 50 ms/);
});

test('dispatchAsync leaves the event loop free while an exec plugin runs', async (t) => {
  const home = tempHome();
  execPlugin(home, 'slow', 'sleep 0.3\necho \'{"notice":"slept"}\'');
  const host = new Host({ home });
  t.after(() => host.closeAsync());
  let ticks = 0;
  const timer = setInterval(() => { ++ticks; }, 10);
  try {
    const result = await host.dispatchAsync('pre_tool_call', toolCall('ls'));
    assert.deepEqual(result.notices, [{ plugin: 'slow', text: 'slept' }]);
    assert.ok(ticks > 0, 'no timer ran while the plugin slept');
    // The synchronous call blocks the same loop: no tick in between.
    const before = ticks;
    host.dispatch('pre_tool_call', toolCall('ls'));
    assert.equal(ticks, before);
  } finally {
    clearInterval(timer);
  }
});

test('shapeAsync gives what shape() gives, and copies the caller\'s buffer first', async (t) => {
  const host = openHost(t);
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const buffer = Buffer.from(lines);
  const pending = host.shapeAsync('seq 1 400', buffer, 0);
  buffer.fill(0x41);  // the call already owns a copy
  const shaped = await pending;
  const direct = host.shape('seq 1 400', lines, 0);
  // The same summary but for its last line, which names each call's own stored raw file.
  assert.equal(shaped.render_mode, 'summary');
  assert.deepEqual(shaped.summary.split('\n').slice(0, -1), direct.summary.split('\n').slice(0, -1));
  assert.match(shaped.summary.split('\n').at(-1), /^full output: /);
  assert.equal(shaped.tokens_raw, direct.tokens_raw);
  assert.equal(shaped.shaper, direct.shaper);
});

test('async methods reject with PluglineError, and TypeError for bad arguments', async (t) => {
  const host = openHost(t);
  await assert.rejects(host.dispatchAsync('', {}),
                       (e) => e instanceof PluglineError && e.code === 'PLUGLINE_EINVALID');
  await assert.rejects(host.shapeAsync('x', 'y', 0, { shaper: 'no-such-shaper' }),
                       { code: 'PLUGLINE_EINVALID' });
  await assert.rejects(host.dispatchAsync(42, {}), TypeError);
  await assert.rejects(host.executeToolAsync('nope', {}), { code: 'PLUGLINE_ENOTFOUND' });
  assert.throws(() => host.addHook('h', '*', () => null, { timeoutMs: 0 }), TypeError);
  host.close();
  await assert.rejects(host.dispatchAsync('pre_tool_call', toolCall('ls')),
                       { code: 'PLUGLINE_ESTATE' });
});

test('a hook run for dispatchAsync may not call its host synchronously', async (t) => {
  const host = openHost(t);
  host.addHook('nosy', ['pre_tool_call'], () => { host.plugins(); return null; });
  const result = await host.dispatchAsync('pre_tool_call', toolCall('ls'));
  assert.equal(result.skipped.length, 1);
  assert.match(result.skipped[0].detail, /called back into its own host/);
});

test('close() while calls run: closed at once to new calls, freed when they end', async (t) => {
  const home = tempHome();
  execPlugin(home, 'slow', 'sleep 0.2\necho \'{"notice":"done"}\'');
  const host = new Host({ home });
  const running = host.dispatchAsync('pre_tool_call', toolCall('ls'));
  host.close();
  assert.equal(host.closed, true);
  assert.throws(() => host.plugins(), { code: 'PLUGLINE_ESTATE' });
  const result = await running;
  assert.deepEqual(result.notices, [{ plugin: 'slow', text: 'done' }]);

  const other = new Host({ home });
  const first = other.dispatchAsync('pre_tool_call', toolCall('ls'));
  await other.closeAsync();  // waits for `first`
  assert.equal(other.closed, true);
  assert.deepEqual((await first).notices, [{ plugin: 'slow', text: 'done' }]);
  assert.equal(typeof Host.prototype[Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')],
               'function');
});

// An OpenCode plugin that awaits the client while loading and inside its hook and tool.
const CLIENT_PLUGIN = `import { tool } from "@opencode-ai/plugin";
export default async ({ client }) => {
  const greeting = await client.app.log({ body: { service: "p", level: "info", message: "loading" } });
  return {
    "chat.params": async (input, output) => {
      output.greeting = greeting;
      output.agents = await client.app.agents();
      try { await client.session.abort(); } catch (e) { output.failure = e.message; }
    },
    tool: {
      whoami: tool({
        description: "Asks the host",
        args: {},
        async execute() { return JSON.stringify(await client.app.agents()); },
      }),
    },
  };
};
`;

test('an async client answers OpenCode plugins under the *Async methods', async (t) => {
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'plugins'));
  fs.writeFileSync(path.join(home, 'plugins', 'asks.js'), CLIENT_PLUGIN);
  const calls = [];
  const client = async (clientPath) => {
    calls.push(clientPath);
    await sleep(5);
    if (clientPath === 'session.abort') throw new Error('not now');
    return clientPath === 'app.agents' ? [{ name: 'build' }] : true;
  };
  const host = new Host({ home, client, clientTimeoutMs: 2000 });
  t.after(() => host.closeAsync());
  const plugins = await host.pluginsAsync();
  const asks = plugins.find((p) => p.id === 'asks');
  if ((asks.reason || '').includes('without V8')) {
    t.skip('plugline was built with PLUGLINE_WITH_V8=OFF: no OpenCode plugins');
    return;
  }
  assert.equal(asks.state, 'enabled', JSON.stringify(asks));
  const { output, errors } = await host.triggerAsync('chat.params', {}, {});
  assert.deepEqual(errors, []);
  assert.deepEqual(output, {
    greeting: true,
    agents: [{ name: 'build' }],
    failure: 'client.session.abort() failed: Error: not now',
  });
  const { tools } = await host.toolsAsync(['bash']);
  assert.deepEqual(tools.map((tool) => tool.name), ['whoami']);
  const ran = await host.executeToolAsync('whoami', {});
  assert.equal(ran.ok, true, ran.error);
  assert.deepEqual(JSON.parse(ran.output), [{ name: 'build' }]);
  assert.deepEqual(calls, ['app.log', 'app.agents', 'session.abort', 'app.agents']);

  // Synchronously, the same client's Promise cannot be awaited: the call rejects, saying so.
  const sync = host.trigger('chat.params', {}, {});
  assert.equal(sync.errors.length, 1);
  assert.match(sync.errors[0].message, /the client must answer synchronously inside a synchronous call/);
});

test('reloadAsync picks up a new exec plugin', async (t) => {
  const home = tempHome();
  const host = new Host({ home });
  t.after(() => host.closeAsync());
  assert.equal((await host.dispatchAsync('pre_tool_call', toolCall('ls'))).notices.length, 0);
  execPlugin(home, 'late', 'echo \'{"notice":"here"}\'');
  await host.reloadAsync();
  const result = await host.dispatchAsync('pre_tool_call', toolCall('ls'));
  assert.deepEqual(result.notices, [{ plugin: 'late', text: 'here' }]);
});

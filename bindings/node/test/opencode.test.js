'use strict';
// OpenCode plugins through the addon: real JS files in a temporary home, run by plugline's own
// V8 inside this Node process — hooks by name, custom tools, `client` answered by JS on this
// thread, `$` commands, and canonical events mapped onto OpenCode hooks.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const v8 = require('node:v8');
const vm = require('node:vm');

const { Host, PluglineError } = require('..');

// Two plugins that mutate chat.params' output in turn (files load in name order).
const PREFIX = `export default async () => ({
  "chat.params": async (input, output) => {
    output.order.push("a");
    output.temperature = input.temperature ?? 0.1;
  },
});
`;
const SUFFIX = `export default {
  id: "suffix",
  server: async () => ({
    "chat.params": async (input, output) => { output.order.push("b"); output.topP = 0.5; },
  }),
};
`;
const THROWS = `export default async () => ({
  "chat.params": async () => { throw new Error("params broke"); },
});
`;
const TOOLS = `import { tool } from "@opencode-ai/plugin";
export default async () => ({
  tool: {
    add: tool({
      description: "Add two numbers",
      args: { a: tool.schema.number().describe("first"), b: tool.schema.number().default(1) },
      async execute(args, context) { return \`\${args.a + args.b} in \${context.directory}\`; },
    }),
    read: tool({
      description: "Reads, better",
      args: { path: tool.schema.string() },
      async execute(args) { throw new Error(\`cannot read \${args.path}\`); },
    }),
  },
});
`;
const CLIENT = `export default async ({ client }) => ({
  "experimental.text.complete": async (input, output) => {
    output.answer = await client.app.log({ body: { service: "p", level: "info", message: "hi" } });
    try { await client.session.abort(); } catch (e) { output.failure = e.message; }
  },
});
`;
const SHELL = `export default async ({ $ }) => ({
  "experimental.text.complete": async (input, output) => {
    output.echoed = await $\`printf %s \${input.x}\`.text();
  },
});
`;
const NO_ENV = `export const EnvProtection = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "read" && output.args.filePath.includes(".env")) {
      throw new Error("Do not read .env files");
    }
  },
});
`;
const CONTEXT = `let seen = null;
export default async ({ serverUrl }) => ({
  config: async (config) => { seen = config; },
  "experimental.text.complete": async (input, output) => {
    output.serverUrl = serverUrl ?? null;
    output.config = seen;
  },
});
`;

// A plugin whose dispose hook asks the client for a line and appends it to `logFile`.
function disposeLogger(logFile) {
  return `export default async ({ client, $ }) => ({
  dispose: async () => {
    let line;
    try { line = await client.app.agents(); } catch (e) { line = e.message; }
    await $\`printf '%s\\n' \${line} >> \${${JSON.stringify(logFile)}}\`;
  },
});
`;
}

const homes = [];
test.after(() => homes.forEach((home) => fs.rmSync(home, { recursive: true, force: true })));

function tempHome() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-opencode-'));
  homes.push(home);
  return home;
}

// A home with <home>/plugins/<name>.js for each name: source.
function homeWith(plugins) {
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'plugins'));
  for (const [name, source] of Object.entries(plugins)) {
    fs.writeFileSync(path.join(home, 'plugins', `${name}.js`), source);
  }
  return home;
}

// Opens a host on `home`, closed after the test. Returns null (the test is skipped) when the
// library was built without V8: every JS plugin is then broken with that reason. Otherwise
// checks that every OpenCode plugin loaded.
function openHost(t, home, options = {}) {
  const host = new Host({ home, ...options });
  t.after(() => host.close());
  const plugins = host.plugins().filter((p) => (p.path || '').endsWith('.js'));
  assert.ok(plugins.length > 0, 'the test wrote no plugin');
  if (plugins.some((p) => (p.reason || '').includes('without V8'))) {
    t.skip('plugline was built with PLUGLINE_WITH_V8=OFF: no OpenCode plugins');
    return null;
  }
  for (const plugin of plugins) {
    assert.equal(plugin.kind, 'opencode', JSON.stringify(plugin));
    assert.equal(plugin.state, 'enabled', JSON.stringify(plugin));
  }
  return host;
}

test('trigger mutates the output across plugins, in order', (t) => {
  const host = openHost(t, homeWith({ 'a-prefix': PREFIX, 'b-suffix': SUFFIX }));
  if (host === null) return;
  const result = host.trigger('chat.params', { temperature: 0.7 },
                              { order: ['host'], temperature: 1, topP: 1 });
  assert.equal(result.name, 'chat.params');
  assert.deepEqual(result.output, { order: ['host', 'a', 'b'], temperature: 0.7, topP: 0.5 });
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.plugins.map((p) => p.plugin), ['a-prefix', 'b-suffix']);
  // JSON text is taken as it is; a hook nobody has leaves the output alone.
  assert.deepEqual(host.trigger('chat.params', '{}', '{"order":[]}').output.order, ['a', 'b']);
  assert.deepEqual(host.trigger('chat.headers', {}, { headers: { x: '1' } }).output,
                   { headers: { x: '1' } });
});

test('a throwing hook lands in errors; the other plugins still run', (t) => {
  const host = openHost(t, homeWith({ 'a-prefix': PREFIX, 'b-throws': THROWS,
                                      'c-suffix': SUFFIX }));
  if (host === null) return;
  const result = host.trigger('chat.params', {}, { order: [] });
  assert.deepEqual(result.output.order, ['a', 'b']);
  assert.equal(result.errors.length, 1);
  assert.equal(result.errors[0].plugin, 'b-throws');
  assert.match(result.errors[0].message, /params broke/);
});

test('trigger refuses what is not a JSON object', (t) => {
  const host = openHost(t, homeWith({ 'a-prefix': PREFIX }));
  if (host === null) return;
  assert.throws(() => host.trigger('chat.params', '[]', {}),
                (e) => e instanceof PluglineError && e.code === 'PLUGLINE_EINVALID');
  assert.throws(() => host.trigger('', {}, {}), { code: 'PLUGLINE_EINVALID' });
  assert.throws(() => host.trigger('chat.params', {}, 42), TypeError);
  assert.throws(() => host.trigger(1, {}, {}), TypeError);
});

test('tools are listed with JSON Schema and overrides_builtin', (t) => {
  const host = openHost(t, homeWith({ math: TOOLS }));
  if (host === null) return;
  const tools = Object.fromEntries(host.tools(['read', 'bash']).tools.map((x) => [x.name, x]));
  assert.deepEqual(Object.keys(tools).sort(), ['add', 'read']);
  assert.equal(tools.add.description, 'Add two numbers');
  assert.equal(tools.add.plugin, 'math');
  assert.equal(tools.add.overrides_builtin, false);
  assert.equal(tools.add.parameters.type, 'object');
  assert.deepEqual(tools.add.parameters.properties.a, { type: 'number', description: 'first' });
  assert.equal(tools.read.overrides_builtin, true);
  assert.ok(host.tools().tools.every((x) => !x.overrides_builtin));
  assert.throws(() => host.tools(['read,bash']), TypeError);
  assert.throws(() => host.tools('read'), TypeError);
});

test('executeTool: ok, bad arguments and a throwing execute', (t) => {
  const host = openHost(t, homeWith({ math: TOOLS }));
  if (host === null) return;
  const added = host.executeTool('add', { a: 2 }, { directory: '/w', sessionID: 's' });
  assert.equal(added.ok, true);
  assert.equal(added.output, '3 in /w');
  assert.equal(added.plugin, 'math');
  const bad = host.executeTool('add', { a: 'two' });
  assert.equal(bad.ok, false);
  assert.match(bad.error, /invalid arguments for add/);
  const thrown = host.executeTool('read', '{"path":"x"}');
  assert.equal(thrown.ok, false);
  assert.equal(thrown.error, 'cannot read x');
  assert.throws(() => host.executeTool('nope', {}), { code: 'PLUGLINE_ENOTFOUND' });
  assert.throws(() => host.executeTool('add', '[1]'), { code: 'PLUGLINE_EINVALID' });
});

test('client: a round trip, and a client that throws rejects the plugin\'s promise', (t) => {
  const calls = [];
  const client = (clientPath, args) => {
    calls.push([clientPath, args]);
    if (clientPath === 'session.abort') throw new Error('the server is down');
    return { data: { ok: true, echo: args[0].body.message } };
  };
  const host = openHost(t, homeWith({ client: CLIENT }), { client });
  if (host === null) return;
  const { output } = host.trigger('experimental.text.complete', {}, {});
  assert.deepEqual(output.answer, { data: { ok: true, echo: 'hi' } });
  assert.equal(output.failure, 'client.session.abort() failed: Error: the server is down');
  assert.deepEqual(calls, [
    ['app.log', [{ body: { service: 'p', level: 'info', message: 'hi' } }]],
    ['session.abort', []],
  ]);
});

test('client: plugins that await the client while loading all load, on this thread (5 runs)', (t) => {
  const loading = (name) => `export default async ({ client }) => {
  const answer = await client.app.log({ body: { service: "${name}", level: "info", message: "loading" } });
  return { "chat.params": async (input, output) => { output.${name} = answer; } };
};
`;
  for (let run = 0; run < 5; ++run) {
    const calls = [];
    const client = (clientPath, args) => {
      calls.push(args[0].body.service);
      return true;
    };
    const host = openHost(t, homeWith({ a: loading('a'), b: loading('b') }), { client });
    if (host === null) return;
    const listed = host.plugins().filter((p) => ["a", "b"].includes(p.id));
    assert.deepEqual(listed.map((p) => [p.id, p.state, p.kind]),
                     [['a', 'enabled', 'opencode'], ['b', 'enabled', 'opencode']]);
    assert.deepEqual(calls.sort(), ['a', 'b']);
    const { output } = host.trigger('chat.params', {}, {});
    assert.deepEqual(output, { a: true, b: true });
  }
});

test('client: an async client, or one calling back into its host, rejects', (t) => {
  let host = null;
  const client = (clientPath) => {
    if (clientPath === 'session.abort') return host.tools();
    return Promise.resolve('later');
  };
  host = openHost(t, homeWith({ client: CLIENT }), { client });
  if (host === null) return;
  const result = host.trigger('experimental.text.complete', {}, {});
  // client.app.log is not caught by the plugin: its rejection fails the hook.
  assert.equal(result.errors.length, 1);
  assert.match(result.errors[0].message,
               /returned a Promise: the client must answer synchronously/);

  const refusing = openHost(t, homeWith({ client: CLIENT }), {
    client: (clientPath) => (clientPath === 'session.abort' ? refusing.tools() : 'logged'),
  });
  const { output } = refusing.trigger('experimental.text.complete', {}, {});
  assert.equal(output.answer, 'logged');
  assert.match(output.failure, /^client\.session\.abort\(\) failed: PluglineError: .*own host/);
  assert.deepEqual(refusing.trigger('experimental.text.complete', {}, {}).errors, []);
});

test('without a client, client calls reject with "no client callback"', (t) => {
  const host = openHost(t, homeWith({ client: CLIENT }));
  if (host === null) return;
  const result = host.trigger('experimental.text.complete', {}, {});
  assert.equal(result.errors.length, 1);
  assert.match(result.errors[0].message, /no client callback/);
});

test('serverUrl and pluginConfig reach the plugins', (t) => {
  const host = openHost(t, homeWith({ context: CONTEXT }),
                        { serverUrl: 'http://127.0.0.1:4096', pluginConfig: { model: 'x' } });
  if (host === null) return;
  assert.deepEqual(host.trigger('experimental.text.complete', {}, {}).output,
                   { serverUrl: 'http://127.0.0.1:4096/', config: { model: 'x' } });
});

test('bad OpenCode options are refused', () => {
  const home = tempHome();
  assert.throws(() => new Host({ home, client: 'nope' }), TypeError);
  assert.throws(() => new Host({ home, pluginConfig: [1] }), TypeError);
  assert.throws(() => new Host({ home, pluginConfig: '[1]' }), { code: 'PLUGLINE_EINVALID' });
  assert.throws(() => new Host({ home, serverUrl: 4096 }), TypeError);
});

test('a $ command from a plugin passes a hostile value as one argument', (t) => {
  const pwned = path.join(tempHome(), 'pwned');
  const hostile = `$(touch ${pwned}); \`touch ${pwned}\` ; rm -rf / "q"`;
  const host = openHost(t, homeWith({ shell: SHELL }));
  if (host === null) return;
  const result = host.trigger('experimental.text.complete', { x: hostile }, {});
  assert.deepEqual(result.errors, []);
  assert.equal(result.output.echoed, hostile);
  assert.equal(fs.existsSync(pwned), false);
});

test('dispatch of pre_tool_call to a throwing OpenCode plugin denies with its message', (t) => {
  const host = openHost(t, homeWith({ 'env-protection': NO_ENV }));
  if (host === null) return;
  const denied = host.dispatch('pre_tool_call', {
    session_id: 'ses_1', call_id: 'c1', tool: 'read',
    arguments: JSON.stringify({ filePath: '/work/.env' }),
  });
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'env-protection');
  assert.equal(denied.reason, 'Do not read .env files');
  const allowed = host.dispatch('pre_tool_call', {
    session_id: 'ses_1', tool: 'read', arguments: JSON.stringify({ filePath: '/work/main.c' }),
  });
  assert.equal(allowed.denied, false);
});

test('trigger, tools and executeTool on a closed host throw PLUGLINE_ESTATE', () => {
  const host = new Host({ home: tempHome() });
  host.close();
  assert.throws(() => host.trigger('chat.params', {}, {}), { code: 'PLUGLINE_ESTATE' });
  assert.throws(() => host.tools(), { code: 'PLUGLINE_ESTATE' });
  assert.throws(() => host.executeTool('add', {}), { code: 'PLUGLINE_ESTATE' });
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

test('the client is kept while the host lives; close() runs dispose hooks with it', async (t) => {
  const gc = exposeGc();
  const home = tempHome();
  const logFile = path.join(home, 'dispose.log');
  fs.mkdirSync(path.join(home, 'plugins'));
  fs.writeFileSync(path.join(home, 'plugins', 'bye.js'), disposeLogger(logFile));
  const host = openHost(t, home, {
    client: (() => { const line = 'bye from the host'; return () => line; })(),
  });
  if (host === null) return;
  await collect(gc);
  host.close();
  assert.equal(fs.readFileSync(logFile, 'utf8'), 'bye from the host\n');
});

test('a host collected by the GC runs dispose hooks without calling JS', async (t) => {
  const gc = exposeGc();
  const home = tempHome();
  const logFile = path.join(home, 'dispose.log');
  fs.mkdirSync(path.join(home, 'plugins'));
  fs.writeFileSync(path.join(home, 'plugins', 'bye.js'), disposeLogger(logFile));
  let called = 0;
  let skipped = false;
  (() => {
    const host = new Host({ home, client: () => { called += 1; return 'from JS'; } });
    const plugins = host.plugins();  // loads the plugin
    skipped = plugins.some((p) => (p.reason || '').includes('without V8'));
  })();
  if (skipped) {
    t.skip('plugline was built with PLUGLINE_WITH_V8=OFF: no OpenCode plugins');
    return;
  }
  for (let i = 0; i < 40 && !fs.existsSync(logFile); i++) await collect(gc);
  assert.equal(called, 0);
  assert.match(fs.readFileSync(logFile, 'utf8'),
               /^client\.app\.agents\(\) failed: plugline addon: the Host is being garbage-collected/);
});

// What published OpenCode plugins do: Node's built-in modules, process, Buffer. Inside this
// Node 20 process the plugin runs in its own Node.js (plugline-node-worker).
const NODE_PLUGIN = `import fs from "node:fs";
import os from "os";
import { execFileSync } from "child_process";
export default async () => ({
  "experimental.text.complete": async (input, output) => {
    output.pid = process.pid;
    output.version = process.version;
    output.platform = os.platform();
    output.b64 = Buffer.from("hi").toString("base64");
    output.exists = fs.existsSync(input.path);
    output.child = execFileSync("echo", ["child"]).toString().trim();
  },
});
`;

test('a plugin that needs Node runs in its own Node.js, beside this one', (t) => {
  const home = homeWith({ 'needs-node': NODE_PLUGIN });
  const host = openHost(t, home);
  if (host === null) return;
  const entry = host.plugins().find((p) => p.id === 'needs-node');
  assert.equal(entry.runtime, 'node');
  const { output } = host.trigger('experimental.text.complete', { path: home }, {});
  assert.equal(output.platform, 'linux');
  assert.equal(output.b64, 'aGk=');
  assert.equal(output.exists, true);
  assert.equal(output.child, 'child');
  assert.notEqual(output.pid, process.pid);
  assert.match(output.version, /^v18\./);  // libnode's Node, not this process's
});

test('runtime: sandboxed keeps Node modules out', (t) => {
  const home = homeWith({ 'needs-node': NODE_PLUGIN });
  fs.writeFileSync(path.join(home, 'config.yaml'), 'plugins:\n  js: {runtime: sandboxed}\n');
  const host = new Host({ home });
  t.after(() => host.close());
  const entry = host.plugins().find((p) => p.id === 'needs-node');
  if ((entry.reason || '').includes('without V8')) return t.skip('built without V8');
  assert.equal(entry.state, 'broken');
  assert.match(entry.reason, /cannot import 'node:fs'/);
});

test('a V2 plugin (define({ id, setup })) transforms the commands by name, in registration order', (t) => {
  const V2 = `import { define } from "@opencode-ai/plugin/v2/promise";
export default define({
  id: "commands",
  setup: async (ctx) => {
    await ctx.command.transform((d) => d.update("review", (c) => { c.template = "Review"; }));
    await ctx.command.transform((d) => d.update("review", (c) => { c.template += " $ARGUMENTS"; }));
  },
});
`;
  const host = openHost(t, homeWith({ commands: V2 }));
  if (host === null) return;
  const result = host.trigger('command.transform', { commands: {} }, {});
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.output, { commands: { review: { name: 'review', template: 'Review $ARGUMENTS' } } });
});

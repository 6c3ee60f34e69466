'use strict';
// OpenCode plugins a Node host ships in its own code (Host#addPlugin): plugin functions run in
// this process, and plugline reaches their hooks and tools through the addon, with the same
// meaning as for plugin files — a throw in tool.execute.before denies, new args rewrite, a new
// output replaces the result, session events reach `event`.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Host, PluglineError } = require('..');

function scratch(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-addplugin-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const project = path.join(dir, 'project');
  fs.mkdirSync(path.join(project, '.git'), { recursive: true });
  return { home: path.join(dir, 'home'), project };
}

const call = (command) => ({ session_id: 's1', call_id: 'c1', tool: 'terminal',
                             arguments: JSON.stringify({ command }) });

// A guard as OpenCode plugins are written: async hooks, a tool, and what it saw.
function guardPlugin(seen) {
  return async function guard(ctx, options) {
    seen.push({ directory: ctx.directory, worktree: ctx.worktree, project: ctx.project, options });
    return {
      'tool.execute.before': async (input, output) => {
        seen.push({ before: input });
        if (output.args.command.startsWith('rm -rf')) throw new Error('rm -rf is not for agents');
        if (output.args.command.startsWith('python ')) {
          output.args.command = `python3 ${output.args.command.slice(7)}`;
        }
      },
      'tool.execute.after': async (input, output) => {
        output.output = output.output.replace(/sk-[a-z0-9]+/g, 'sk-***');
      },
      event: async ({ event }) => { seen.push({ event: event.type }); },
      'shell.env': (input, output) => { output.env.GUARDED = '1'; },  // synchronous
      tool: {
        word_count: {
          description: 'Counts words',
          args: { text: { safeParse: (v) => (typeof v === 'string' ? { success: true, data: v } : { success: false, error: { message: 'expected a string' } }) } },
          execute: async ({ text }, context) => ({ output: String(text.split(/\s+/).length), title: context.sessionID }),
        },
      },
    };
  };
}

test('addPlugin: a guard denies, rewrites, masks, sees events and runs its tool (async methods)', async (t) => {
  const { home, project } = scratch(t);
  const host = new Host({ home, projectDir: project });
  t.after(() => host.close());
  const seen = [];
  const added = await host.addPlugin(guardPlugin(seen), { options: { strict: true } });
  assert.deepEqual(added, { id: 'guard', hooks: ['tool.execute.before', 'tool.execute.after', 'event', 'shell.env', 'tool'],
                            unknown: [], tools: ['word_count'] });
  assert.deepEqual(seen[0], { directory: project, worktree: project,
                              project: { id: project, worktree: project, vcs: 'git' }, options: { strict: true } });

  const denied = await host.dispatchAsync('pre_tool_call', call('rm -rf /'));
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'guard');
  assert.equal(denied.reason, 'rm -rf is not for agents');
  assert.deepEqual(seen.at(-1), { before: { tool: 'bash', sessionID: 's1', callID: 'c1' } });

  const rewritten = await host.dispatchAsync('pre_tool_call', call('python app.py'));
  assert.equal(rewritten.denied, false);
  assert.equal(rewritten.arguments, JSON.stringify({ command: 'python3 app.py' }));
  assert.equal(rewritten.plugins[0].action, 'rewrite');

  const masked = await host.dispatchAsync('post_tool_call',
                                          { tool: 'read', arguments: '{}', result: 'key=sk-abc123' });
  assert.equal(masked.result, 'key=sk-***');

  await host.dispatchAsync('session_start', { session_id: 's1' });
  assert.deepEqual(seen.at(-1), { event: 'session.created' });

  const tools = host.tools(['bash']).tools;
  assert.deepEqual(tools.map((tool) => [tool.name, tool.plugin]), [['word_count', 'guard']]);
  assert.deepEqual(tools[0].parameters.required, ['text']);
  const counted = await host.executeToolAsync('word_count', { text: 'one two three' }, { sessionID: 's9' });
  assert.deepEqual([counted.ok, counted.output, counted.title, counted.plugin], [true, '3', 's9', 'guard']);
  const refused = await host.executeToolAsync('word_count', { text: 7 });
  assert.equal(refused.ok, false);
  assert.equal(refused.error, 'invalid arguments for word_count: args.text: expected a string');

  const listed = host.plugins().find((p) => p.id === 'guard');
  assert.deepEqual([listed.kind, listed.source, listed.state], ['opencode', 'host', 'enabled']);
});

test('addPlugin: synchronous hooks run under the synchronous methods; async ones fail there, naming the async methods', async (t) => {
  const { home } = scratch(t);
  const host = new Host({ home });
  t.after(() => host.close());
  await host.addPlugin(guardPlugin([]));
  assert.deepEqual(host.trigger('shell.env', {}, { env: {} }).output, { env: { GUARDED: '1' } });
  const skipped = host.dispatch('pre_tool_call', call('rm -rf /'));
  assert.equal(skipped.denied, false);  // not fail-closed: skipped, with the reason
  assert.equal(skipped.skipped[0].plugin, 'guard');
  assert.match(skipped.skipped[0].detail, /returned a Promise .* call dispatchAsync\(\), triggerAsync\(\) or executeToolAsync\(\)/);

  // Failing closed, the same failure denies.
  await host.addPlugin(guardPlugin([]), { id: 'strict-guard', failClosed: true });
  const denied = host.dispatch('pre_tool_call', call('ls'));
  assert.equal(denied.denied, true);
  assert.equal(denied.denied_by, 'strict-guard');
});

test('addPlugin: a module object, config with the host\'s pluginConfig, client and $ from the context', async (t) => {
  const { home, project } = scratch(t);
  const calls = [];
  const host = new Host({ home, projectDir: project, pluginConfig: { theme: 'dark' },
                          client: (clientPath, args) => { calls.push([clientPath, args]); return { data: true }; } });
  t.after(() => host.close());
  const seen = {};
  const helper = async ({ client, $ }) => {
    seen.logged = await client.app.log({ body: { message: 'loaded' } });
    seen.echo = await $`printf '%s' ${'a; rm -rf /'}`.text();  // one argument, never shell text
    seen.pwd = (await $`pwd`.text()).trim();
    return {
      config: async (config) => { config.seen = config.theme; },
      'chat.params': async (input, output) => { output.temperature = 0.2; },
    };
  };
  // As `await import('some-plugin')` gives it: named exports, the same function twice.
  const added = await host.addPlugin({ default: helper, helper, version: '1.0.0' }, { id: 'helper' });
  assert.deepEqual(added.hooks, ['config', 'chat.params']);
  assert.deepEqual(seen, { logged: { data: true }, echo: 'a; rm -rf /', pwd: project });
  assert.deepEqual(calls, [['app.log', [{ body: { message: 'loaded' } }]]]);
  const params = await host.triggerAsync('chat.params', {}, {});
  assert.deepEqual(params.output, { temperature: 0.2 });

  // A V1 module object; its id names it.
  const v1 = await host.addPlugin({ id: 'v1-plugin', server: async () => ({ event: async () => {} }) });
  assert.equal(v1.id, 'v1-plugin');
});

test('addPlugin: what is not a plugin, a throwing plugin function or config, and a taken id are refused before anything is added', async (t) => {
  const { home } = scratch(t);
  const host = new Host({ home });
  t.after(() => host.close());
  await assert.rejects(host.addPlugin(42), { name: 'TypeError', message: /plugin must be a plugin function/ });
  await assert.rejects(host.addPlugin({ version: 1 }), { message: 'the module exports no plugin function' });
  await assert.rejects(host.addPlugin({ plugin: { id: 'x', setup() {} } }), { message: /V2 API/ });
  await assert.rejects(host.addPlugin(async () => { throw new Error('no config file'); }, { id: 'broken' }),
                       { message: 'no config file' });
  await assert.rejects(host.addPlugin(async () => null, { id: 'nothing' }),
                       { message: /returned null, not an object of hooks/ });
  await assert.rejects(host.addPlugin(async () => ({ config: async () => { throw new Error('bad config'); } }), { id: 'cfg' }),
                       { message: 'config hook threw: bad config' });
  assert.deepEqual(host.plugins().filter((p) => p.source === 'host'), []);

  host.addHook('taken', ['pre_tool_call'], () => null);
  let ran = false;
  await assert.rejects(host.addPlugin(async () => { ran = true; return {}; }, { id: 'taken' }),
                       (error) => error instanceof PluglineError && error.code === 'PLUGLINE_EEXISTS');
  assert.equal(ran, false);
});

test('removeAddedPlugin runs dispose hooks; closeAsync disposes the rest', async (t) => {
  const { home } = scratch(t);
  const host = new Host({ home });
  const disposed = [];
  const plugin = (name) => async () => ({
    'tool.execute.before': async () => { throw new Error(`${name} denies`); },
    dispose: async () => { disposed.push(name); },
  });
  await host.addPlugin(plugin('first'), { id: 'first' });
  await host.addPlugin(plugin('second'), { id: 'second' });
  await host.removeAddedPlugin('first');
  assert.deepEqual(disposed, ['first']);
  const decision = await host.dispatchAsync('pre_tool_call', call('ls'));
  assert.equal(decision.denied_by, 'second');
  await assert.rejects(host.removeAddedPlugin('first'),
                       (error) => error instanceof PluglineError && error.code === 'PLUGLINE_ENOTFOUND');
  await host.closeAsync();
  assert.deepEqual(disposed, ['first', 'second']);
});

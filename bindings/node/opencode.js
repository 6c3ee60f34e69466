'use strict';
// OpenCode plugins a Node host runs in its own process (Host#addPlugin): the plugin functions
// are called here with an OpenCode context, and plugline reaches the hooks and tools they
// return through the addon (plugline_host_add_opencode_plugin). plugline decides what each
// canonical event means for them (pre_tool_call runs "tool.execute.before", ...), exactly as
// for an OpenCode plugin file; this file only runs hooks by name and tools by name.

const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

// Output of a `$` command kept; past it the command is killed (as for plugin files).
const SHELL_MAX_OUTPUT_BYTES = 16 << 20;

const isThenable = (value) =>
  value !== null && (typeof value === 'object' || typeof value === 'function') &&
  typeof value.then === 'function';

// The plugin functions of what addPlugin() was given, as OpenCode finds them in a module: a
// function; a V1 module object ({id?, server}); or a module's exports (a namespace from
// import(), or CommonJS exports), where every function export is a plugin, once each, in
// name order, `default` included.
function pluginFunctions(plugin) {
  if (typeof plugin === 'function') return [plugin];
  if (plugin === null || typeof plugin !== 'object') {
    throw new TypeError('plugin must be a plugin function, a module object or { id, server }');
  }
  const v1 = (value) => value !== null && typeof value === 'object' && 'server' in value &&
    typeof value.setup !== 'function';
  const module = v1(plugin) ? plugin : v1(plugin.default) ? plugin.default : null;
  if (module !== null) {
    if (typeof module.server !== 'function') {
      throw new TypeError(`Plugin export is not a function (server is ${module.server === null ? 'null' : typeof module.server})`);
    }
    return [module.server];
  }
  const found = [];
  for (const name of Object.keys(plugin).sort()) {
    const value = plugin[name];
    if (typeof value === 'function' && !found.includes(value)) found.push(value);
    if (value !== null && typeof value === 'object' && typeof value.setup === 'function') {
      throw new TypeError(`export '${name}' is a plugin of OpenCode's V2 API (define({ id, setup })): ` +
                          'load it from a plugin file; addPlugin() takes V1 plugin functions');
    }
  }
  if (found.length === 0) throw new TypeError('the module exports no plugin function');
  return found;
}

// The git work tree holding `directory` (the nearest parent with .git), else `directory`.
function worktreeOf(directory) {
  for (let dir = directory; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return directory;
  }
}

// `client.<path>(...args)`: the host's client function, as for plugin files; a path the
// plugin builds is any chain of names.
function makeClient(client, prefix) {
  const call = (...args) => Promise.resolve().then(() => {
    if (typeof client !== 'function') {
      throw new Error(`client.${prefix}() failed: the host gave no client callback`);
    }
    return client(prefix, args);
  }).catch((error) => {
    if (error instanceof Error && error.message.startsWith(`client.${prefix}() failed: `)) throw error;
    throw new Error(`client.${prefix}() failed: ${String(error)}`);
  });
  return new Proxy(call, {
    get(target, key) {
      if (typeof key !== 'string' || key === 'then') return undefined;
      return makeClient(client, prefix ? `${prefix}.${key}` : key);
    },
  });
}

// One of plugline's own JS modules (src/js/modules/): next to this file in the package (put
// there when it is packed), else in the source tree this binding is built from.
function ownModuleUrl(name) {
  const packed = path.join(__dirname, 'lib', name);
  const file = fs.existsSync(packed) ? packed
    : path.join(__dirname, '..', '..', 'src', 'js', 'modules', name);
  return pathToFileURL(file).href;
}

// Runs one `$` command ({script, args, cwd, env, stdin}) as plugline runs a plugin file's:
// `sh -c script sh args...`, its own process group, bounded in time and output.
function runShell(request, directory, timeoutMs) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    for (const [name, value] of Object.entries(request.env ?? {})) {
      if (value !== null && value !== undefined) env[name] = String(value);
    }
    const child = childProcess.spawn('/bin/sh', ['-c', String(request.script), 'sh', ...(request.args ?? [])],
                                     { cwd: request.cwd ?? directory, env, detached: true,
                                       stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    let size = 0;
    let failure = null;
    const kill = (why) => {
      failure = failure ?? why;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    };
    const timer = setTimeout(() => kill(`$\`${request.script}\` timed out after ${timeoutMs} ms`), timeoutMs);
    const collect = (chunks) => (chunk) => {
      size += chunk.length;
      if (size > SHELL_MAX_OUTPUT_BYTES) kill(`$\`${request.script}\` printed more than 16 MiB`);
      else chunks.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    child.stdin.on('error', () => {});
    child.stdin.end(request.stdin === undefined ? undefined : String(request.stdin));
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure !== null) return reject(new Error(failure));
      resolve({ exitCode: code ?? 128 + (os.constants.signals[signal] ?? 0),
                stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

// Calls the plugin functions with an OpenCode context and returns what plugline needs to run
// them: { hooks, tools, call, dispose }. `settings`: { directory, serverUrl, client, options,
// timeoutMs }.
async function loadHostPlugin(plugin, settings) {
  const functions = pluginFunctions(plugin);
  const directory = path.resolve(settings.directory);
  const worktree = worktreeOf(directory);
  const { makeShell } = await import(ownModuleUrl('shell.mjs'));
  const { KNOWN_HOOKS, argsJsonSchema, errorMessage, parseArgs } =
    await import(ownModuleUrl('opencode_common.mjs'));
  const ctx = {
    project: { id: worktree, worktree, ...(fs.existsSync(path.join(worktree, '.git')) ? { vcs: 'git' } : {}) },
    directory,
    worktree,
    ...(settings.serverUrl ? { serverUrl: new URL(settings.serverUrl) } : {}),
    client: makeClient(settings.client, ''),
    $: makeShell({ cwd: directory, env: undefined, nothrow: false },
                 (request) => runShell(request, directory, settings.timeoutMs)),
    experimental_workspace: { register() {} },
  };
  const loaded = [];
  for (const fn of functions) {
    const hooks = await fn(ctx, settings.options);
    if (hooks === null || typeof hooks !== 'object') {
      throw new TypeError(`plugin function ${fn.name || '(anonymous)'} returned ${hooks === null ? 'null' : typeof hooks}, not an object of hooks`);
    }
    loaded.push(hooks);
  }
  const names = new Set();
  const unknown = [];
  for (const hooks of loaded) {
    for (const name of Object.keys(hooks)) {
      if (KNOWN_HOOKS.has(name)) names.add(name);
      else if (!unknown.includes(name)) unknown.push(name);
    }
  }
  // Later plugin functions win a tool's name, as later plugins do.
  const toolDefs = new Map();
  for (const hooks of loaded) {
    for (const [name, def] of Object.entries(hooks.tool ?? {})) {
      if (def === null || typeof def !== 'object' || typeof def.execute !== 'function') {
        throw new TypeError(`tool '${name}' has no execute function`);
      }
      toolDefs.set(name, def);
    }
  }
  const tools = [...toolDefs].map(([name, def]) => ({
    name, description: String(def.description ?? ''), parameters: argsJsonSchema(def.args),
  }));

  // Runs `name` on every hooks object that has it, in order, until one throws: synchronously
  // while the hooks answer synchronously; a hook's Promise is awaited only when `mayAwait`.
  const runHook = (name, input, output, mayAwait) => {
    let i = 0;
    const step = () => {
      for (; i < loaded.length; i++) {
        const hooks = loaded[i];
        const fn = hooks[name];
        if (typeof fn !== 'function') continue;
        let result;
        try {
          // `config` takes one argument, the configuration it edits: the output.
          result = name === 'config' ? fn.call(hooks, output) : fn.call(hooks, input, output);
        } catch (error) {
          return { output, error: errorMessage(error) };
        }
        if (isThenable(result)) {
          i += 1;
          if (!mayAwait) return mustAwait(result, name);
          return Promise.resolve(result).then(step, (error) => ({ output, error: errorMessage(error) }));
        }
      }
      return { output };
    };
    return step();
  };
  const mustAwait = (promise, what) => {
    promise.then(() => {}, () => {});
    throw new TypeError(`${what} returned a Promise (an async hook or tool): a synchronous call ` +
                        'cannot wait for it; call dispatchAsync(), triggerAsync() or ' +
                        'executeToolAsync(), which await it');
  };
  const runTool = (name, args, context, mayAwait) => {
    const def = toolDefs.get(name);
    if (def === undefined) return { ok: false, error: `no tool '${name}'` };
    let parsed;
    try {
      parsed = parseArgs(def.args, args);
    } catch (error) {
      return { ok: false, error: `invalid arguments for ${name}: ${errorMessage(error)}` };
    }
    let title;
    let metadata;
    const toolContext = {
      directory, worktree, ...context,
      abort: new AbortController().signal,
      metadata(input) { title = input?.title ?? title; metadata = input?.metadata ?? metadata; },
      async ask() {},
    };
    const settle = (result) => {
      if (typeof result === 'string') return { ok: true, output: result, title, metadata };
      if (result !== null && typeof result === 'object' && typeof result.output === 'string') {
        return { ok: true, output: result.output, title: result.title ?? title,
                 metadata: result.metadata ?? metadata };
      }
      return { ok: true, output: result === undefined ? '' : JSON.stringify(result), title, metadata };
    };
    let result;
    try {
      result = def.execute(parsed, toolContext);
    } catch (error) {
      return { ok: false, error: errorMessage(error) };
    }
    if (!isThenable(result)) return settle(result);
    if (!mayAwait) return mustAwait(result, `tool '${name}'`);
    return Promise.resolve(result).then(settle, (error) => ({ ok: false, error: errorMessage(error) }));
  };

  // `config` runs once, now, with the host's plugin configuration (as plugin files' do once
  // they are loaded); what it throws fails addPlugin().
  if (names.has('config')) {
    const ran = await runHook('config', {}, settings.config ?? {}, true);
    if (ran.error !== undefined) throw new Error(`config hook threw: ${ran.error}`);
  }

  // What the addon calls: (kind, bodyJson, mayAwait) -> JSON text, or a Promise of it.
  const call = (kind, bodyJson, mayAwait) => {
    const body = JSON.parse(bodyJson);
    const answer = kind === 'tool'
      ? runTool(body.name, body.args, body.context, mayAwait)
      : runHook(body.name, body.input, body.output, mayAwait);
    return isThenable(answer) ? answer.then((value) => JSON.stringify(value)) : JSON.stringify(answer);
  };
  const dispose = async () => {
    const ran = await runHook('dispose', {}, {}, true);
    if (ran.error !== undefined) throw new Error(`dispose hook threw: ${ran.error}`);
  };
  return { hooks: [...names], unknown, tools, call, dispose };
}

module.exports = { loadHostPlugin };

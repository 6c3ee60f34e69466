'use strict';
// plugline for Node.js: the JS face of the N-API addon plugline.node (src/addon.cc), which
// speaks only plugline's stable C ABI.
//
// Two ways to call. The synchronous methods (shape(), dispatch(), trigger(), ...) run on the
// calling thread: right for scripts, and for shaping, which takes microseconds to a few
// milliseconds. Their *Async twins (shapeAsync(), dispatchAsync(), triggerAsync(),
// toolsAsync(), executeToolAsync(), pluginsAsync(), reloadAsync()) run the same call on
// libuv's thread pool and return a Promise, so a server's event loop never waits for a plugin:
// dispatch() blocks while exec plugins run (each bounded by its own timeout), trigger() and
// executeTool() while OpenCode plugins run. Native hooks and the client run on this thread
// either way; only under the *Async methods may they be async functions (awaited, bounded by
// their timeoutMs / clientTimeoutMs). jsCall() blocks for as long as the plugin runs, bounded
// by its timeoutMs (default 5000 ms).
//
// Errors from plugline are PluglineError (a subclass of Error) with .status (the negative
// plugline_status number), .code ("PLUGLINE_EINVALID", ...) and plugline's message. Arguments
// of the wrong type are TypeError, as in Node's own APIs.

const fs = require('node:fs');
const path = require('node:path');
const { loadHostPlugin } = require('./opencode.js');

/** The plugline_abi_version() this wrapper was written for. */
const EXPECTED_ABI_VERSION = 1;

class PluglineError extends Error {
  /**
   * @param {string} message  plugline_last_error_message() of the failed call
   * @param {number} status   the plugline_status (negative)
   * @param {string} code     plugline_status_str(status), e.g. "PLUGLINE_EINVALID"
   */
  constructor(message, status, code) {
    super(message);
    this.name = 'PluglineError';
    this.status = status;
    this.code = code;
  }
}

// Where the addon is: $PLUGLINE_NODE_ADDON when set (then the only candidate), else
// ./build/plugline.node inside this package.
function loadAddon() {
  const fromEnv = process.env.PLUGLINE_NODE_ADDON;
  const candidate = fromEnv
    ? path.resolve(fromEnv)
    : path.join(__dirname, 'build', 'plugline.node');
  const origin = fromEnv ? '$PLUGLINE_NODE_ADDON' : 'the package\'s build/ directory';
  if (!fs.existsSync(candidate)) {
    throw new Error(
      `plugline: cannot find the native addon: tried ${candidate} (from ${origin}): ` +
        'no such file. Build it with CMake (see bindings/node/README.md) and set ' +
        'PLUGLINE_NODE_ADDON to <build>/lib/plugline.node, or make build/ in this package ' +
        'point at <build>/lib.');
  }
  let addon;
  try {
    addon = require(candidate);
  } catch (cause) {
    throw new Error(
      `plugline: cannot load the native addon ${candidate} (from ${origin}): ${cause.message}`,
      { cause });
  }
  if (typeof addon.abiVersion !== 'function' || addon.abiVersion() !== EXPECTED_ABI_VERSION) {
    const found = typeof addon.abiVersion === 'function' ? addon.abiVersion() : 'none';
    throw new Error(
      `plugline: ${candidate} reports ABI version ${found}, but this package needs ` +
        `${EXPECTED_ABI_VERSION}: rebuild the addon and libplugline from the same source`);
  }
  addon.setErrorClass(PluglineError);
  addon.path = candidate;
  return addon;
}

const addon = loadAddon();

/** The exit code meaning "not known" (killed by a signal, still running). */
const EXIT_CODE_UNKNOWN = addon.EXIT_CODE_UNKNOWN;

function checkOptions(options, allowed, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${what} must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`${what}: unknown option "${key}" (known: ${allowed.join(', ')})`);
    }
  }
  return options;
}

function checkTimeout(value, name) {
  if (value !== undefined && value !== null &&
      !(Number.isInteger(value) && value >= 1 && value <= 0xffffffff)) {
    throw new TypeError(`${name} must be a whole number of milliseconds (1 or more)`);
  }
}

function checkOptionalString(value, name) {
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new TypeError(`${name} must be a string`);
  }
  return value ?? null;
}

// A JSON object argument as the addon takes it: an object through JSON.stringify; a string or
// bytes as they are (plugline checks that they hold a JSON object).
function toJsonObject(value, name) {
  if (typeof value === 'string' || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return value;
  }
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${name} must be an object, a JSON string, a Buffer, a TypedArray or ` +
                        'an ArrayBuffer');
  }
  return JSON.stringify(value);
}

/** plugline's version, "0.1.0" (plugline_version_string()). */
function version() {
  return addon.version();
}

/** The ABI version of the loaded libplugline (plugline_abi_version()). */
function abiVersion() {
  return addon.abiVersion();
}

// The progress callback of an *Async download as the addon calls it — (url, "[received,total]")
// — around the caller's function, which it keeps alive for the call (the addon holds it
// weakly). What the function throws is kept, further reports are dropped, and rethrow() throws
// it once the call has ended.
function asyncProgress(progress) {
  if (progress !== undefined && progress !== null && typeof progress !== 'function') {
    throw new TypeError('progress must be a function');
  }
  let thrown = null;
  let threw = false;
  const callback = typeof progress === 'function'
    ? (url, counts) => {
        if (threw) return null;
        const [received, total] = JSON.parse(counts);
        try {
          progress(url, received, total);
        } catch (error) {
          threw = true;
          thrown = error;
        }
        return null;
      }
    : null;
  return {
    callback,
    rethrow() {
      if (threw) throw thrown;
      void progress;  // alive until here
    },
  };
}

// shape()'s arguments checked, as the addon takes them.
function shapeArguments(command, output, exitCode, options) {
  const { shaper, maxTokens } = checkOptions(options, ['shaper', 'maxTokens'], 'shape options');
  if (maxTokens !== undefined && maxTokens !== null &&
      !(Number.isSafeInteger(maxTokens) && maxTokens >= 0)) {
    throw new TypeError('maxTokens must be a whole number of tokens (0: no budget), null or undefined');
  }
  if (typeof command !== 'string') throw new TypeError('command must be a string');
  if (typeof output !== 'string' && !ArrayBuffer.isView(output) &&
      !(output instanceof ArrayBuffer)) {
    throw new TypeError('output must be a string, a Buffer, a TypedArray or an ArrayBuffer');
  }
  if (exitCode !== undefined && exitCode !== null &&
      !(Number.isInteger(exitCode) && exitCode >= -2147483648 && exitCode <= 2147483647)) {
    throw new TypeError('exitCode must be a 32-bit integer, null or undefined');
  }
  return [command, output, exitCode ?? null, checkOptionalString(shaper, 'shaper'),
          maxTokens ?? null];
}

// dispatch()'s arguments checked, as the addon takes them.
function dispatchArguments(event, payload) {
  if (typeof event !== 'string') throw new TypeError('event must be a string');
  let json = payload;
  if (typeof payload !== 'string' && !ArrayBuffer.isView(payload) &&
      !(payload instanceof ArrayBuffer)) {
    if (payload === null || typeof payload !== 'object') {
      throw new TypeError('payload must be an object, a JSON string, a Buffer, a TypedArray ' +
                          'or an ArrayBuffer');
    }
    json = JSON.stringify(payload);
  }
  return [event, json];
}

// trigger()'s arguments checked, as the addon takes them.
function triggerArguments(name, input, output) {
  if (typeof name !== 'string') throw new TypeError('name must be a string');
  return [name, toJsonObject(input, 'input'), toJsonObject(output, 'output')];
}

// tools()'s host tool names, a JSON array as the addon takes them (null: none).
function toolNames(builtinTools) {
  let names = null;
  if (builtinTools !== undefined && builtinTools !== null) {
    if (!Array.isArray(builtinTools) ||
        !builtinTools.every((name) => typeof name === 'string')) {
      throw new TypeError('builtinTools must be an array of tool names');
    }
    for (const name of builtinTools) {
      if (name.includes(',') || name.trim() === '') {
        throw new TypeError(`builtinTools: ${JSON.stringify(name)} is not a tool name`);
      }
    }
    if (builtinTools.length > 0) names = JSON.stringify(builtinTools);
  }
  return names;
}

// executeTool()'s arguments checked, as the addon takes them.
function executeToolArguments(name, args, context) {
  if (typeof name !== 'string') throw new TypeError('name must be a string');
  const contextJson = context === undefined || context === null
    ? null
    : toJsonObject(context, 'context');
  return [name, toJsonObject(args, 'args'), contextJson];
}

/**
 * A plugline host: configuration, plugins, the shaping pipeline, hooks and the raw-output
 * store. Release it with close() when done (otherwise it is released when garbage-collected).
 */
class Host {
  #native;
  // Native hooks: id -> the function the addon calls. The addon holds it weakly, so this map
  // is what keeps it alive while the hook is registered.
  #hooks = new Map();
  // The client function the addon calls, held here for the same reason.
  #client = null;
  // The promises of *Async calls still running (closeAsync() waits for them).
  #pending = new Set();
  // OpenCode plugins added with addPlugin(): id -> { call (held here for the addon, which
  // holds it weakly), dispose }.
  #plugins = new Map();
  // What addPlugin() gives plugin functions: { directory, serverUrl, client, config }.
  #pluginSettings;

  #track(promise) {
    this.#pending.add(promise);
    const untrack = () => { this.#pending.delete(promise); };
    promise.then(untrack, untrack);
    return promise;
  }

  /**
   * @param {object} [options]
   * @param {string} [options.home]          state directory; default $PLUGLINE_HOME, else ~/.plugline
   * @param {string} [options.projectDir]    a project whose .plugline/ adds config and plugins
   * @param {boolean|null} [options.projectTrusted]  who decides whether that project's .plugline/
   *        may load (docs/security.md): null or absent, the user's trust store (written by
   *        `plugline trust`) for the project as it is now; true, the host vouches for it, having
   *        asked the user itself (an editor's workspace trust); false, nothing of it loads.
   *        Until it may load, its plugins are listed as "untrusted" and nothing of it runs;
   *        diagnostics() says what to run. Even a trusted project cannot disable, reconfigure or
   *        replace a protected global plugin.
   * @param {boolean} [options.storeOutputs] keep raw outputs under <home>/outputs (default true)
   * @param {(path: string, args: unknown[]) => unknown} [options.client]  what OpenCode
   *        plugins' `client` reaches: `await client.app.log({...})` in a plugin calls
   *        `client("app.log", [{...}])` synchronously, on this thread, inside the call that runs
   *        the plugin's hook (trigger(), dispatch(), executeTool(), or plugins(), reload() and
   *        close() for `config` and `dispose` hooks); its JSON-able answer (undefined: null)
   *        resolves the plugin's promise. If it throws — or returns a Promise, which cannot be
   *        awaited there, or something JSON.stringify refuses — the plugin's promise rejects
   *        with "client.<path>() failed: " and String(error). Under the *Async methods the
   *        client may be an async function: its Promise is awaited, for at most
   *        clientTimeoutMs. It must not call into this host synchronously (that throws
   *        PLUGLINE_ESTATE). Without a client, every client call rejects with a message saying
   *        the host gave "no client callback".
   * @param {number} [options.clientTimeoutMs]  how long a client call made under an *Async
   *        method may take to answer (default 5000)
   * @param {string} [options.serverUrl]   ctx.serverUrl of OpenCode plugins
   * @param {object|string} [options.pluginConfig]  the JSON object (or its JSON text) OpenCode
   *        plugins' `config` hooks receive after loading; default {}
   * @throws {PluglineError} e.g. PLUGLINE_ESTATE when no home directory can be found,
   *   PLUGLINE_EINVALID when pluginConfig is not a JSON object
   */
  constructor(options) {
    const { home, projectDir, storeOutputs, client, serverUrl, pluginConfig, projectTrusted,
            clientTimeoutMs } =
      checkOptions(options,
                   ['home', 'projectDir', 'storeOutputs', 'client', 'serverUrl', 'pluginConfig',
                    'projectTrusted', 'clientTimeoutMs'],
                   'Host options');
    checkTimeout(clientTimeoutMs, 'clientTimeoutMs');
    if (projectTrusted !== undefined && projectTrusted !== null &&
        typeof projectTrusted !== 'boolean') {
      throw new TypeError('projectTrusted must be a boolean or null');
    }
    if (storeOutputs !== undefined && typeof storeOutputs !== 'boolean') {
      throw new TypeError('storeOutputs must be a boolean');
    }
    if (client !== undefined && client !== null && typeof client !== 'function') {
      throw new TypeError('client must be a function');
    }
    let pluginConfigJson = null;
    if (pluginConfig !== undefined && pluginConfig !== null) {
      if (typeof pluginConfig === 'string') {
        pluginConfigJson = pluginConfig;
      } else if (typeof pluginConfig === 'object' && !Array.isArray(pluginConfig)) {
        pluginConfigJson = JSON.stringify(pluginConfig);
      } else {
        throw new TypeError('pluginConfig must be an object or a JSON string');
      }
    }
    // The addon speaks JSON text. Whatever this throws (client, or the answer check) the addon
    // catches and turns into a rejection of the plugin's promise, described as String(error).
    // `mayAwait`: the call comes from an *Async method, which can await a Promise.
    const encode = (answer) => (answer === undefined ? null : JSON.stringify(answer));
    const call = typeof client === 'function'
      ? (clientPath, argsJson, mayAwait) => {
          const answer = client(clientPath, JSON.parse(argsJson));
          if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
            if (mayAwait) return Promise.resolve(answer).then(encode);
            answer.then(() => {}, () => {});
            throw new TypeError(`client("${clientPath}") returned a Promise: the client must ` +
                                'answer synchronously inside a synchronous call (the *Async ' +
                                'methods await it)');
          }
          return encode(answer);
        }
      : null;
    this.#native = new addon.Host(
      checkOptionalString(home, 'home'),
      checkOptionalString(projectDir, 'projectDir'),
      storeOutputs,
      call,
      checkOptionalString(serverUrl, 'serverUrl'),
      pluginConfigJson,
      projectTrusted === undefined ? null : projectTrusted,
      clientTimeoutMs ?? null);
    this.#client = call;
    this.#pluginSettings = {
      directory: projectDir ?? process.cwd(), serverUrl, client: client ?? null,
      config: pluginConfigJson === null ? {} : JSON.parse(pluginConfigJson),
    };
  }

  /**
   * Shapes one command's output (plugline_host_shape).
   *
   * @param {string} command   the command line as the agent ran it
   * @param {string|Buffer|Uint8Array|ArrayBuffer} output  what it printed; bytes are passed
   *        as they are (any bytes, NUL included), a string as UTF-8
   * @param {number|null} [exitCode]  its exit code; undefined or null: not known
   * @param {object} [options]
   * @param {string} [options.shaper]  force this shaper ("builtin-generic") instead of match()
   * @returns {{summary: string, render_mode: 'summary'|'raw', shaper: string,
   *   confidence: number, raw_path: string|null, raw_bytes: number, raw_lines: number,
   *   raw_stored_bytes: number, shaped_bytes: number, tokens_raw: number,
   *   tokens_summary: number, secrets_masked: boolean, fallback: string|null}}
   * @throws {PluglineError} PLUGLINE_EINVALID (e.g. unknown shaper), PLUGLINE_ERESOURCE,
   *   PLUGLINE_ESTATE (closed host)
   */
  shape(command, output, exitCode, options) {
    return JSON.parse(this.#native.shape(...shapeArguments(command, output, exitCode, options)));
  }

  /**
   * shape() on libuv's thread pool: the same arguments, result and errors, as a Promise. The
   * output's bytes are copied first, so the caller may reuse its buffer at once.
   * @returns {Promise<ShapeResult>}
   */
  async shapeAsync(command, output, exitCode, options) {
    const args = shapeArguments(command, output, exitCode, options);
    return JSON.parse(await this.#track(this.#native.shapeAsync(...args)));
  }

  /**
   * Problems found while opening the host (malformed config files, unknown keys, a project
   * that is not trusted with the command that trusts it, a project's attempt to change a
   * protected plugin), each naming its file or project.
   * @returns {string[]}
   */
  diagnostics() {
    return JSON.parse(this.#native.diagnostics());
  }

  /**
   * Per-shaper statistics of the host's home (docs/stats.md): for each shaper match_count,
   * shape_count, fail_count, tokens_saved (negative when its summaries were larger than the
   * raw output), shape_ms_total, average_shape_ms; and a daily time series.
   * @returns {object}
   */
  stats() {
    return JSON.parse(this.#native.stats());
  }

  /**
   * Every plugin this host can use — built-in shapers, plugins from its plugin directories,
   * its native hooks — with id, kind ("builtin-shaper" | "js-shaper" | "exec-hook" |
   * "opencode" | "native-hook"), tier, state ("enabled" | "disabled" | "broken" | "shadowed" |
   * "untrusted"), reason (why it is not enabled; for "untrusted", the command that trusts the
   * project), path, source, version, description, events (a hook's events), warnings and
   * protected (a global plugin a project cannot disable or replace). Loads plugins not loaded
   * yet.
   * @returns {object[]}
   */
  plugins() {
    return JSON.parse(this.#native.plugins()).plugins;
  }

  /**
   * plugins() on libuv's thread pool (loading plugins may run their `config` hooks).
   * @returns {Promise<PluginInfo[]>}
   */
  async pluginsAsync() {
    return JSON.parse(await this.#track(this.#native.pluginsAsync())).plugins;
  }

  /**
   * The listing entries of one plugin (several when one shadows another), each with its
   * stats and, for a plugin installed from a catalog, `install` (where it came from, its
   * sha256, whether it was verified). Throws PLUGLINE_ENOTFOUND when no plugin has the id.
   * @param {string} id
   * @returns {object[]}
   */
  pluginInfo(id) {
    return JSON.parse(this.#native.pluginInfo(id)).plugins;
  }

  /**
   * Turns a plugin or built-in shaper on or off for every host of this home (recorded in
   * <home>/plugins.json, over config.yaml; docs/managing-plugins.md). This host reloads.
   * @param {string} id
   * @param {boolean} enabled
   */
  setPluginEnabled(id, enabled) {
    this.#native.setPluginEnabled(id, enabled);
  }

  /**
   * Fetches the configured catalogs' indexes (docs/catalog.md). A catalog that fails is
   * reported in its entry.
   * @param {(url: string, received: number, total: number) => void} [progress]
   * @returns {{url: string, ok: boolean, error: string|null, not_modified: boolean,
   *   plugins: number, signature_verified: boolean, skipped: string[]}[]}
   */
  syncCatalogs(progress) {
    return JSON.parse(this.#native.syncCatalogs(progress)).catalogs;
  }

  /**
   * syncCatalogs() on libuv's thread pool. `progress` is called on this thread, each report
   * before the promise settles; if it throws, the rest of its reports are dropped and the
   * promise rejects with what it threw once the sync has ended.
   * @param {(url: string, received: number, total: number) => void} [progress]
   * @returns {Promise<CatalogSyncReport[]>}
   */
  async syncCatalogsAsync(progress) {
    const reports = asyncProgress(progress);
    const json = await this.#track(this.#native.syncCatalogsAsync(reports.callback));
    reports.rethrow();
    return JSON.parse(json).catalogs;
  }

  /**
   * What the catalogs offer, from their last synced copies.
   * @returns {{catalogs: object[], plugins: object[]}}
   */
  availablePlugins() {
    return JSON.parse(this.#native.availablePlugins());
  }

  /**
   * Installs (or upgrades) a plugin from a catalog: size and SHA-256 checked before it is put
   * in place; this host reloads. Throws PLUGLINE_EIO on a size or checksum mismatch (nothing
   * is installed), PLUGLINE_ENOTFOUND when no catalog lists it.
   * @param {string} id
   * @param {string|null} [version]  null or absent: the newest
   * @param {(url: string, received: number, total: number) => void} [progress]
   * @returns {object} the install record
   */
  installPlugin(id, version = null, progress = undefined) {
    return JSON.parse(this.#native.installPlugin(id, version, progress));
  }

  /**
   * installPlugin() on libuv's thread pool, its progress reported as syncCatalogsAsync() does.
   * @returns {Promise<object>} the install record
   */
  async installPluginAsync(id, version = null, progress = undefined) {
    const reports = asyncProgress(progress);
    const json = await this.#track(this.#native.installPluginAsync(id, version, reports.callback));
    reports.rethrow();
    return JSON.parse(json);
  }

  /**
   * Removes a plugin that was installed from a catalog. Throws PLUGLINE_ESTATE for a
   * built-in or a plugin that was not installed so.
   * @param {string} id
   * @returns {object} the record of what was removed
   */
  removePlugin(id) {
    return JSON.parse(this.#native.removePlugin(id));
  }

  /** Re-reads configuration and rescans plugin directories (unchanged plugins stay loaded). */
  reload() {
    this.#native.reload();
  }

  /** reload() on libuv's thread pool. @returns {Promise<void>} */
  async reloadAsync() {
    await this.#track(this.#native.reloadAsync());
  }

  /**
   * Dispatches one event to the host's hooks (plugline_host_dispatch): the exec plugins of its
   * plugin directories first, in their order, then the native hooks (addHook) in the order
   * they were added; a deny ends the chain. A hook that crashes, times out, throws or answers
   * wrongly does not fail the call: it is listed under `skipped` (or denies, when it fails
   * closed). Native hooks run synchronously, on this thread, inside the call. OpenCode plugins
   * take part through the hook each canonical event maps to (docs/plugins-opencode.md): a
   * `tool.execute.before` that throws denies pre_tool_call with the error's message as reason.
   *
   * @param {string} event  "pre_tool_call", "post_tool_call", "session_start", "session_end",
   *        "turn_end", "user_prompt", "tool_definition", "shell_env", "pre_compact", or any
   *        other name (dispatched as observe-only)
   * @param {object|string|Buffer|Uint8Array|ArrayBuffer} payload  the event's JSON object:
   *        an object is passed through JSON.stringify, a string or bytes as they are.
   *        "arguments" and "result", when present, are strings (the tool's arguments
   *        JSON-encoded); other fields pass through to the hooks.
   * @returns {{event: string, denied: boolean, denied_by: string|null, reason: string|null,
   *   arguments: string|null, result: string|null, notices: {plugin: string, text: string}[],
   *   skipped: {plugin: string, why: string, detail: string}[],
   *   plugins: {plugin: string, action: string, ms: number}[],
   *   warnings: {plugin: string|null, text: string}[],
   *   broken: {plugin: string, reason: string}[]}}  broken: every plugin that could not load;
   *   one that fails closed denies the deny-capable events it subscribed to
   * @throws {PluglineError} PLUGLINE_EINVALID (empty event, payload not a JSON object),
   *   PLUGLINE_ESTATE (closed host, or called from inside one of its own native hooks)
   */
  dispatch(event, payload) {
    return JSON.parse(this.#native.dispatch(...dispatchArguments(event, payload)));
  }

  /**
   * dispatch() on libuv's thread pool: exec plugins and OpenCode plugins run without blocking
   * this thread. Native hooks still run on this thread (queued to it), and may be async
   * functions: each answer is awaited for at most the hook's timeoutMs, after which the hook
   * has failed ("did not answer within N ms": skipped, or a deny when it fails closed).
   * @returns {Promise<DispatchResult>}
   */
  async dispatchAsync(event, payload) {
    const args = dispatchArguments(event, payload);
    return JSON.parse(await this.#track(this.#native.dispatchAsync(...args)));
  }

  /**
   * Adds a native hook (plugline_host_add_hook): a JS function in the host's hook chain, after
   * every plugin and every native hook added before it.
   *
   * `fn(event, payload)` is called on this thread during dispatch() or dispatchAsync(), with
   * the event name and the payload object ("event" set; "arguments" as rewritten by the hooks
   * before it). It returns its answer — an object with any of deny (boolean), reason,
   * arguments (a JSON-encoded string), result, notice — or null/undefined for no opinion.
   * Under dispatchAsync() it may return a Promise of that (an async function), awaited for
   * at most `timeoutMs`; under dispatch(), which cannot wait, a Promise is the hook's failure.
   * If it throws, rejects, times out or answers anything else, the hook fails: the dispatch
   * lists it under `skipped` with String(error) ("Error: message") as detail and goes on, or
   * denies when the hook fails closed. It must not call into this host synchronously (that
   * throws PLUGLINE_ESTATE); an async hook may await another host's or this host's *Async
   * methods.
   *
   * @param {string} id  unique among the host's native hooks; shown in results and plugins()
   * @param {string[]|string} events  event names, or "*" for every event
   * @param {(event: string, payload: object) => object|null|undefined} fn
   * @param {object} [options]
   * @param {boolean} [options.failClosed]  a failure counts as a deny on pre_tool_call
   * @param {number} [options.timeoutMs]  how long dispatchAsync() waits for the hook's answer
   *        (default 5000)
   * @throws {PluglineError} PLUGLINE_EEXISTS (the id is taken), PLUGLINE_EINVALID (empty id),
   *   PLUGLINE_ESTATE
   */
  addHook(id, events, fn, options) {
    const { failClosed, timeoutMs } =
      checkOptions(options, ['failClosed', 'timeoutMs'], 'addHook options');
    checkTimeout(timeoutMs, 'timeoutMs');
    if (typeof id !== 'string') throw new TypeError('id must be a string');
    const names = typeof events === 'string' ? [events] : events;
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) {
      throw new TypeError('events must be an array of event names, or "*"');
    }
    for (const name of names) {
      if (name.includes(',') || name.trim() === '') {
        throw new TypeError(`events: ${JSON.stringify(name)} is not an event name`);
      }
    }
    if (typeof fn !== 'function') throw new TypeError('fn must be a function');
    if (failClosed !== undefined && typeof failClosed !== 'boolean') {
      throw new TypeError('failClosed must be a boolean');
    }
    // The addon speaks JSON text. Whatever this throws (fn, or the answer check) the addon
    // catches and turns into the hook's failure, described as String(error).
    const encode = (answer) => {
      if (answer === undefined || answer === null) return null;
      if (typeof answer !== 'object' || Array.isArray(answer)) {
        const what = Array.isArray(answer) ? 'an array' : typeof answer;
        throw new TypeError(`hook "${id}" returned ${what}, not an object, null or undefined`);
      }
      return JSON.stringify(answer);
    };
    // `mayAwait`: the call comes from dispatchAsync(), which awaits a Promise.
    const call = (hookEvent, payloadJson, mayAwait) => {
      const answer = fn(hookEvent, JSON.parse(payloadJson));
      if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
        if (mayAwait) return Promise.resolve(answer).then(encode);
        // dispatch() is synchronous: a Promise's answer would come too late, and serialising
        // it would read as "no opinion". It is the hook's failure instead (a fail-closed hook
        // denies), and its rejection is handled here so it cannot end the process.
        answer.then(() => {}, () => {});
        throw new TypeError(`hook "${id}" returned a Promise (an async function?): dispatch() ` +
                            'runs hooks synchronously, so return the answer itself, or call ' +
                            'dispatchAsync(), which awaits it');
      }
      return encode(answer);
    };
    this.#native.addHook(id, JSON.stringify(names), call, failClosed ?? false, timeoutMs ?? null);
    this.#hooks.set(id, call);
  }

  /**
   * Removes the native hook `id` (plugline_host_remove_hook); later dispatches do not call it.
   * @param {string} id
   * @throws {PluglineError} PLUGLINE_ENOTFOUND (no native hook has this id), PLUGLINE_ESTATE
   */
  removeHook(id) {
    if (typeof id !== 'string') throw new TypeError('id must be a string');
    this.#native.removeHook(id);
    this.#hooks.delete(id);
  }

  /**
   * Adds an OpenCode plugin that runs here, in this process, from the host's own code
   * (plugline_host_add_opencode_plugin): `plugin` is a plugin function
   * `async (ctx, options) => hooks`, a V1 module object `{ id, server }`, or a module's exports
   * (`await import('some-plugin')`, `require(...)`), whose function exports are its plugin
   * functions. They are called now with OpenCode's context — project, directory, worktree,
   * serverUrl, `client` (the host's client option: `client.app.log(x)` calls
   * `client("app.log", [x])`) and `$` (Bun's shell: `sh -c`, bounded by timeoutMs) — and its
   * `config` hook runs with the host's pluginConfig. Then the plugin joins the chain after the
   * plugins of plugin directories and before the native hooks, as an OpenCode plugin file does:
   * dispatch runs "tool.execute.before" for pre_tool_call (a throw denies, new `args` rewrite
   * the call), "tool.execute.after" for post_tool_call (a new `output` replaces the result),
   * "event" for session and turn events; trigger() runs any hook it has; tools() lists its
   * tools and executeTool() runs them (arguments checked by each argument's safeParse).
   *
   * Hooks and tools that return a Promise (async functions, as OpenCode's are) run under
   * dispatchAsync(), triggerAsync() and executeToolAsync(), awaited for at most timeoutMs;
   * under the synchronous methods, which cannot wait, such a hook fails (skipped, or a deny
   * when failClosed) and the message names the async methods. Synchronous hooks run under both.
   *
   * @param {Function|object} plugin
   * @param {object} [options]
   * @param {string} [options.id]  unique among the host's native hooks and plugins it added;
   *        default: the plugin function's name, else the module's `id`, else "host-plugin"
   * @param {unknown} [options.options]  the second argument of the plugin functions
   * @param {boolean} [options.failClosed]  a failure counts as a deny on pre_tool_call
   * @param {number} [options.timeoutMs]  how long an async hook or tool may take (default 5000)
   * @param {string} [options.directory]  ctx.directory (default: projectDir, else the cwd)
   * @returns {Promise<{id: string, hooks: string[], unknown: string[], tools: string[]}>}
   *   the hooks it has, the keys of its hooks object that are no OpenCode hook, and its tools
   * @throws {TypeError} plugin is not a plugin; {Error} a plugin function or `config` threw;
   *   {PluglineError} PLUGLINE_EEXISTS (the id is taken), PLUGLINE_ESTATE
   */
  async addPlugin(plugin, options) {
    const { id, options: pluginOptions, failClosed, timeoutMs, directory } =
      checkOptions(options, ['id', 'options', 'failClosed', 'timeoutMs', 'directory'],
                   'addPlugin options');
    checkTimeout(timeoutMs, 'timeoutMs');
    if (id !== undefined && (typeof id !== 'string' || id === '')) {
      throw new TypeError('id must be a non-empty string');
    }
    if (failClosed !== undefined && typeof failClosed !== 'boolean') {
      throw new TypeError('failClosed must be a boolean');
    }
    const named = (value) => (typeof value === 'string' && value !== '' ? value : undefined);
    const pluginId = id ?? (typeof plugin === 'function' ? named(plugin.name) : undefined) ??
      named(plugin?.id) ?? named(plugin?.default?.id) ?? 'host-plugin';
    // Checked before the plugin functions run (every hook and plugin of this host is added
    // through this object); plugline checks again when it is added.
    if (this.#plugins.has(pluginId) || this.#hooks.has(pluginId)) {
      const EEXISTS = -3;  // plugline_status codes never change
      throw new PluglineError(`a native hook or host OpenCode plugin with id ${pluginId} exists`,
                              EEXISTS, addon.statusString(EEXISTS));
    }
    const loaded = await loadHostPlugin(plugin, {
      ...this.#pluginSettings,
      directory: checkOptionalString(directory, 'directory') ?? this.#pluginSettings.directory,
      options: pluginOptions,
      timeoutMs: timeoutMs ?? 5000,
    });
    this.#native.addOpenCodePlugin(pluginId, JSON.stringify(loaded.hooks),
                                   JSON.stringify(loaded.tools), loaded.call, failClosed ?? false,
                                   timeoutMs ?? null);
    this.#plugins.set(pluginId, loaded);
    return { id: pluginId, hooks: loaded.hooks, unknown: loaded.unknown,
             tools: loaded.tools.map((tool) => tool.name) };
  }

  /**
   * Removes a plugin addPlugin() added (plugline_host_remove_opencode_plugin), then runs its
   * `dispose` hooks. Rejects with what a dispose hook threw (the plugin is removed all the same).
   * @param {string} id
   * @returns {Promise<void>}
   * @throws {PluglineError} PLUGLINE_ENOTFOUND (no plugin added with this id), PLUGLINE_ESTATE
   */
  async removeAddedPlugin(id) {
    if (typeof id !== 'string') throw new TypeError('id must be a string');
    this.#native.removeOpenCodePlugin(id);
    const loaded = this.#plugins.get(id);
    this.#plugins.delete(id);
    if (loaded !== undefined) await loaded.dispose();
  }

  // Runs the dispose hooks of the plugins addPlugin() added; what they throw is a warning.
  #disposeAdded() {
    const all = [...this.#plugins];
    this.#plugins.clear();
    return Promise.all(all.map(([id, loaded]) => loaded.dispose().catch((error) => {
      process.emitWarning(`plugline: plugin "${id}": ${error.message}`);
    })));
  }

  /**
   * Runs the OpenCode hook `name` of every plugin that has it (plugline_host_trigger), in
   * dispatch order: each plugin mutates the output the previous one left. A hook that throws
   * is listed under `errors` with its plugin, and the others still run. The client runs
   * synchronously, on this thread, inside the call.
   *
   * @param {string} name  "chat.params", "shell.env", "tool.execute.before", ...
   * @param {object|string|Buffer|Uint8Array|ArrayBuffer} input   the hook's input, a JSON
   *        object (an object is passed through JSON.stringify, a string or bytes as they are)
   * @param {object|string|Buffer|Uint8Array|ArrayBuffer} output  the output to start from
   * @returns {{name: string, output: object, errors: {plugin: string, message: string}[],
   *   plugins: {plugin: string, ms: number}[]}}
   * @throws {PluglineError} PLUGLINE_EINVALID (empty name, input or output not a JSON
   *   object), PLUGLINE_ESTATE (closed host, or called from inside one of its own callbacks)
   */
  trigger(name, input, output) {
    return JSON.parse(this.#native.trigger(...triggerArguments(name, input, output)));
  }

  /**
   * trigger() on libuv's thread pool; the client may then be an async function.
   * @returns {Promise<TriggerResult>}
   */
  async triggerAsync(name, input, output) {
    const args = triggerArguments(name, input, output);
    return JSON.parse(await this.#track(this.#native.triggerAsync(...args)));
  }

  /**
   * The tools OpenCode plugins add (plugline_host_tools), each with its name, description,
   * parameters (JSON Schema), plugin, and overrides_builtin: whether it has the name of one
   * of `builtinTools` (the host's own tools), which it then takes precedence over.
   *
   * @param {string[]} [builtinTools]  the host's own tool names, e.g. ["read", "bash"]
   * @returns {{tools: {name: string, description: string, parameters: object, plugin: string,
   *   overrides_builtin: boolean}[]}}
   * @throws {PluglineError} PLUGLINE_ESTATE
   */
  tools(builtinTools) {
    return JSON.parse(this.#native.tools(toolNames(builtinTools)));
  }

  /**
   * tools() on libuv's thread pool (listing tools loads plugins not loaded yet).
   * @returns {Promise<{tools: ToolInfo[]}>}
   */
  async toolsAsync(builtinTools) {
    const names = toolNames(builtinTools);
    return JSON.parse(await this.#track(this.#native.toolsAsync(names)));
  }

  /**
   * Runs a plugin tool (plugline_host_execute_tool): `args` are validated against its schema
   * and defaults applied. A tool that throws, or gets bad arguments, does not throw here: the
   * result is `ok: false` with the error.
   *
   * @param {string} name  a tool tools() lists
   * @param {object|string} args  its arguments, a JSON object (or its JSON text)
   * @param {object|string} [context]  what its execute() gets: any of sessionID, messageID,
   *        agent, directory, worktree
   * @returns {{ok: boolean, output: string, error: string|null, title: string,
   *   metadata: object|null, plugin: string}}
   * @throws {PluglineError} PLUGLINE_ENOTFOUND (no plugin has the tool), PLUGLINE_EINVALID
   *   (args or context not a JSON object), PLUGLINE_ESTATE
   */
  executeTool(name, args, context) {
    return JSON.parse(this.#native.executeTool(...executeToolArguments(name, args, context)));
  }

  /**
   * executeTool() on libuv's thread pool; the client may then be an async function.
   * @returns {Promise<ToolResult>}
   */
  async executeToolAsync(name, args, context) {
    const callArgs = executeToolArguments(name, args, context);
    return JSON.parse(await this.#track(this.#native.executeToolAsync(...callArgs)));
  }

  /**
   * Releases the host: now, or — while *Async calls still run — as soon as the last of them
   * ends (use closeAsync() to wait for that). The plugins' `dispose` hooks run then (and may
   * call the client). Idempotent; any later call throws PluglineError PLUGLINE_ESTATE.
   */
  close() {
    this.#native.close();
    if (this.#native.pending === 0) {
      this.#hooks.clear();
      this.#client = null;
    }
    // The dispose hooks of plugins addPlugin() added run; close() does not wait for them.
    this.#disposeAdded();
    // Otherwise the running calls may still reach the hooks and the client: the addon holds
    // them weakly, so they stay referenced here until this Host is collected.
  }

  /**
   * Waits for the *Async calls still running (whatever their outcome), then close().
   * @returns {Promise<void>}
   */
  async closeAsync() {
    while (this.#pending.size > 0) {
      await Promise.allSettled([...this.#pending]);
    }
    const disposed = this.#disposeAdded();
    this.close();
    await disposed;
  }

  /** close(), for `using host = new Host(...)` (explicit resource management). */
  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    if (!this.closed) this.close();
  }

  /** closeAsync(), for `await using host = new Host(...)`. */
  [Symbol.asyncDispose ?? Symbol.for('Symbol.asyncDispose')]() {
    return this.closeAsync();
  }

  /** True after close(). */
  get closed() {
    return this.#native.closed;
  }
}

if (typeof Symbol.dispose === 'symbol') {
  Host.prototype[Symbol.dispose] = Host.prototype.close;
}
if (typeof Symbol.asyncDispose === 'symbol') {
  Host.prototype[Symbol.asyncDispose] = Host.prototype.closeAsync;
}

/**
 * EXPERIMENTAL (plugline_js_call): loads the ES module at `modulePath` into one of
 * plugline's own V8 isolates (not this Node.js process's), calls `fn` of its default export
 * (the default export itself when `fn` is null, undefined or "") with `args`, awaits a
 * returned promise and returns the result. Blocks the calling thread until the call ends.
 *
 * @param {string} modulePath  path of the module (relative: to process.cwd())
 * @param {string|null} [fn]   name of the function of the default export
 * @param {Array} [args]       JSON-able arguments
 * @param {number} [timeoutMs] time budget in milliseconds; 0 or undefined: 5000
 * @returns {*} the JSON-able result (null for undefined)
 * @throws {PluglineError} PLUGLINE_ENOTFOUND, PLUGLINE_ETIMEOUT, PLUGLINE_ERESOURCE,
 *   PLUGLINE_EUNAVAILABLE, PLUGLINE_EPLUGIN (the module threw: the message has file:line)
 */
function jsCall(modulePath, fn, args, timeoutMs) {
  if (typeof modulePath !== 'string') throw new TypeError('modulePath must be a string');
  if (args === undefined || args === null) args = [];
  if (!Array.isArray(args)) throw new TypeError('args must be an array');
  if (timeoutMs !== undefined && timeoutMs !== null &&
      !(Number.isInteger(timeoutMs) && timeoutMs >= 0 && timeoutMs <= 0xffffffff)) {
    throw new TypeError('timeoutMs must be an integer between 0 and 4294967295');
  }
  const json = addon.jsCall(path.resolve(modulePath), checkOptionalString(fn, 'fn'),
                            JSON.stringify(args), timeoutMs ?? 0);
  return JSON.parse(json);
}

module.exports = {
  version,
  abiVersion,
  Host,
  jsCall,
  PluglineError,
  EXIT_CODE_UNKNOWN,
  /** The file the native addon was loaded from. */
  addonPath: addon.path,
};

// plugline's side of every JS plugin module: the wrapper entry (ModuleOptions::wrapper_source)
// that imports the plugin file as "plugline:plugin" and decides what it is.
//
// - A module whose default export is an object with `meta`, `match` or `shape` is an AgentOps
//   shaper: the wrapper re-exports that object, and plugline calls match()/shape() on it
//   directly (src/js/js_shaper.cc).
// - Anything else is an OpenCode plugin (docs/plugins-opencode.md): `export default async
//   (ctx, options) => hooks`, named function exports (each a plugin; the same function exported
//   twice runs once), or a `{ id, server }` default export. The wrapper's default export is then
//   the API below, which src/js/opencode_plugin.cc calls; the hooks objects stay here, in the
//   plugin's isolate, between calls.
//
// Everything that touches the machine goes through the host-call function ("plugline:host"'s
// hostCall: the host answers with JSON, at once or as a promise): `client.*` calls
// ({kind:"client"}) and `$` ({kind:"shell"}). URL and URLSearchParams as globals, before the
// plugin's own code runs (imports evaluate in order); then the host-call function, which
// "plugline:host" takes off the global object so that only plugline's modules hold it: a plugin
// reaches the machine only through the `$` and `client` it is given (a shaper gets neither), and
// in the node runtime through Node itself and Bun's global.
import "plugline:url";
import { hostCall } from "plugline:host";
import clientTree from "plugline:client-tree";
import { createV2, isV2Plugin } from "plugline:opencode-v2";
import { makeShell } from "plugline:shell";
import { KNOWN_HOOKS, argsJsonSchema, errorMessage, parseArgs } from "plugline:opencode-common";
// Bun's global, in the node runtime (bun.mjs), before the plugin's own code runs.
import "plugline:bun";
import * as plugin from "plugline:plugin";

const exported = plugin.default;
const isShaper = exported !== null && typeof exported === "object" &&
    ("match" in exported || "shape" in exported || "meta" in exported);

// Tool schemas: the converters of "@opencode-ai/plugin", which a plugin with tools imports (it
// registers them as globalThis.__plugline_tool_support). Not imported statically: shapers and
// tool-less plugins do not pay for compiling it. A plugin with its own copy of the real package
// (and so Zod's schemas) does not import plugline's: where modules can be imported on demand (the
// node runtime), the converters are imported then, as "plugline:tool-support". Without them,
// schemas that convert themselves (toJSONSchema / safeParse) still work.
async function loadToolSupport() {
  if (!globalThis.__plugline_tool_support) {
    try {
      await import("plugline:tool-support");
    } catch {
      // The sandboxed runtime imports nothing on demand.
    }
  }
}

function toolJsonSchema(args) {
  const support = globalThis.__plugline_tool_support;
  return support ? support.jsonSchema(args) : argsJsonSchema(args);
}

function parseToolArgs(args, value) {
  const support = globalThis.__plugline_tool_support;
  return support ? support.parseArgs(args, value) : parseArgs(args, value);
}

// A V1 plugin module: a default export object with `id`, `server` or `tui` (and no V2 `setup`).
// Only its `server` runs here (a `tui` is for OpenCode's terminal UI); one without `server` has
// nothing to run.
const isV1Module = exported !== null && typeof exported === "object" && !isV2Plugin(exported) &&
    ("id" in exported || "server" in exported || "tui" in exported);

// The plugins of the module, in OpenCode's order: a V1 module's `server`, else every export
// (sorted by name, as a module namespace is): a function is a V1 plugin (the same function
// once), an object with `setup` a V2 plugin (`define({ id, setup })`, opencode_v2.mjs).
function findPlugins() {
  if (isV1Module) {
    if (exported.server === undefined) return { servers: [], v2: [] };
    if (typeof exported.server !== "function") {
      throw new TypeError(`Plugin export is not a function (the default export's server is ${exported.server === null ? "null" : typeof exported.server})`);
    }
    return { servers: [{ id: typeof exported.id === "string" ? exported.id : "default", server: exported.server }], v2: [] };
  }
  const servers = [];
  const v2 = [];
  const seen = new Set();
  for (const [name, value] of Object.entries(plugin)) {
    if (seen.has(value)) continue;
    seen.add(value);
    if (isV2Plugin(value)) {
      v2.push({ id: typeof value.id === "string" ? value.id : name, plugin: value });
      continue;
    }
    if (value !== null && typeof value === "object" && typeof value.effect === "function") {
      throw new TypeError(`export '${name}' is a plugin of OpenCode's V2 Effect API (\`effect\`), which plugline does not run: define it with "@opencode-ai/plugin/v2/promise" (\`setup\`)`);
    }
    if (typeof value !== "function") {
      throw new TypeError(`Plugin export is not a function (export '${name}' is ${value === null ? "null" : typeof value})`);
    }
    servers.push({ id: name, server: value });
  }
  if (servers.length === 0 && v2.length === 0) {
    throw new TypeError("the module exports nothing: a shaper plugin must `export default { meta, match, shape }`, an OpenCode plugin must export a plugin function");
  }
  return { servers, v2 };
}

const v2 = createV2((error) => errorMessage(error));

// A custom tool file of OpenCode's tools/ folder (`stem` is its name without extension): the
// default export is the tool `stem`, a named export `x` the tool `stem_x`, as OpenCode names
// them. Served as one plugin whose only hook is `tool`.
function toolFile(stem) {
  const tools = {};
  for (const [name, value] of Object.entries(plugin)) {
    if (value === null || typeof value !== "object" || typeof value.execute !== "function") {
      throw new TypeError(`export '${name}' of tool file '${stem}' is not a tool (an object with execute(), as tool({...}) returns)`);
    }
    tools[name === "default" ? stem : `${stem}_${name}`] = value;
  }
  if (Object.keys(tools).length === 0) throw new TypeError(`tool file '${stem}' exports no tool`);
  return { servers: [{ id: stem, server: async () => ({ tool: tools }) }], v2: [] };
}

// ---- `client`: the SDK's methods, forwarded to the host ---------------------------------------

// The same tree of namespaces and methods as OpenCode's `createOpencodeClient()` (generated from
// @opencode-ai/sdk's types): a method the SDK has forwards its path ("session.messages") and
// arguments to the host; anything else is undefined, as on the real client, so that
// `client.nope.call()` fails the way it would in OpenCode.
function makeClient(tree, path) {
  const node = {};
  for (const [key, value] of Object.entries(tree)) {
    const name = path === "" ? key : `${path}.${key}`;
    node[key] = value === 1
      ? { [key]: (...args) => Promise.resolve().then(() => hostCall("client", { path: name, args })) }[key]
      : makeClient(value, name);
  }
  return node;
}

// ---- the plugin API plugline calls -------------------------------------------------------------

const loaded = [];  // [{ id, hooks }] in order

function makeContext(context) {
  const workspaces = new Map();
  return {
    project: context.project,
    directory: context.directory,
    worktree: context.worktree,
    ...(context.serverUrl ? { serverUrl: typeof URL === "function" ? new URL(context.serverUrl) : context.serverUrl } : {}),
    client: makeClient(clientTree, ""),
    $: makeShell({ cwd: context.directory, env: undefined, nothrow: false },
                 (request) => hostCall("shell", request)),
    experimental_workspace: {
      register(type, adapter) { workspaces.set(String(type), adapter); },
    },
  };
}

function toolEntries() {
  const tools = new Map();  // later plugins override earlier ones with the same name
  for (const { id, hooks } of loaded) {
    const defs = hooks.tool;
    if (defs === null || typeof defs !== "object") continue;
    for (const [name, def] of Object.entries(defs)) tools.set(name, { plugin: id, def });
  }
  return tools;
}

// Runs `name` on every plugin of the module that has it, in order, until one throws.
async function runHook(name, input, output) {
  for (const { id, hooks } of loaded) {
    const fn = hooks[name];
    if (typeof fn !== "function") continue;
    try {
      // `config` takes one argument, the configuration it edits: triggered by name, that is
      // the output (what it leaves there comes back).
      await (name === "config" ? fn.call(hooks, output) : fn.call(hooks, input, output));
    } catch (error) {
      return { output, error: { plugin: id, message: errorMessage(error) } };
    }
  }
  return { output };
}

// Runs a lifecycle hook on every plugin; an error is recorded and the others still run.
async function runEach(name, ...args) {
  const errors = [];
  for (const { id, hooks } of loaded) {
    const fn = hooks[name];
    if (typeof fn !== "function") continue;
    try {
      await fn.apply(hooks, args);
    } catch (error) {
      errors.push({ plugin: id, message: errorMessage(error) });
    }
  }
  return { errors };
}

// ---- `auth` and `provider`: objects, driven by name like the other hooks ----------------------
//
// OpenCode keeps these two hooks as objects (AuthHook, ProviderHook) and calls into them while
// it logs a user in and lists models. A host does the same through trigger(name, input, output):
//   auth            {provider?}                  output.providers += [{provider, plugin, loader,
//                                                methods: [{type, label, prompts}]}]
//   auth.loader     {provider, auth, info?}      output.options = await loader(() => auth, info)
//   auth.authorize  {provider, method, inputs?}  output = the method's authorize() result; an
//                                                OAuth callback becomes output.callback, a handle
//   auth.callback   {callback, code?}            output = the callback's result
//   auth.validate   {provider, method, key, value}  output.error = the prompt's validate() answer
//   auth.condition  {provider, method, key, inputs}  output.show = whether the prompt applies
//                                                (its `when` rule, else its condition(inputs))
//   provider        {provider, auth?}            output.models = await models(provider, {auth})
// For one provider the first plugin (in load order) with an auth hook for it answers, and says
// so in output.plugin; every plugin whose provider hook has the provider's id runs, in order,
// each seeing the models of the one before.
const AUTH_OPERATIONS = new Set(["auth", "auth.loader", "auth.authorize", "auth.callback", "auth.validate",
  "auth.condition"]);
const oauthCallbacks = new Map();  // handle -> callback(code?), oldest first
const MAX_PENDING_CALLBACKS = 32;
let initDirectories = {};           // the init context's directory and worktree
let moduleTag = "";                 // the plugin id plugline lists this module under
let nextHandle = 1;

function providerIdOf(value) {
  return typeof value === "string" ? value : (value !== null && typeof value === "object" ? value.id : undefined);
}

function jsonSafe(value) {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function describePrompt(prompt) {
  const described = {};
  for (const [key, value] of Object.entries(prompt ?? {})) {
    if (typeof value === "function") {
      described[key] = true;  // validate / condition: the host asks through auth.validate
    } else {
      described[key] = jsonSafe(value);
    }
  }
  return described;
}

function findMethod(auth, wanted) {
  const methods = Array.isArray(auth.methods) ? auth.methods : [];
  if (typeof wanted === "number") return methods[wanted];
  return methods.find((method) => method?.label === wanted) ?? methods[Number(wanted)];
}

async function runAuth(name, input, output) {
  input = input ?? {};
  if (name === "auth.callback") {
    const handle = String(input.callback ?? "");
    const callback = oauthCallbacks.get(handle);
    if (callback === undefined) return { output };
    oauthCallbacks.delete(handle);
    try {
      Object.assign(output, jsonSafe(await callback(input.code)));
      output.plugin = moduleTag;
    } catch (error) {
      return { output, error: { plugin: moduleTag, message: errorMessage(error) } };
    }
    return { output };
  }
  const provider = providerIdOf(input.provider);
  for (const { id, hooks } of loaded) {
    const auth = hooks.auth;
    if (auth === null || typeof auth !== "object") continue;
    if (provider !== undefined && auth.provider !== provider) continue;
    try {
      if (name === "auth") {
        output.providers = Array.isArray(output.providers) ? output.providers : [];
        if (output.providers.some((entry) => entry?.provider === auth.provider)) continue;
        output.providers.push({
          provider: auth.provider, plugin: moduleTag, loader: typeof auth.loader === "function",
          methods: (Array.isArray(auth.methods) ? auth.methods : []).map((method) => ({
            type: method?.type, label: method?.label,
            prompts: (Array.isArray(method?.prompts) ? method.prompts : []).map(describePrompt),
          })),
        });
        continue;
      }
      if (output.plugin !== undefined) return { output };  // an earlier plugin answered
      if (name === "auth.loader") {
        if (typeof auth.loader !== "function") continue;
        const info = input.info ?? (typeof input.provider === "object" ? input.provider : { id: provider });
        const options = await auth.loader(async () => input.auth, info);
        output.options = { ...(output.options ?? {}), ...jsonSafe(options ?? {}) };
      } else {
        const method = findMethod(auth, input.method);
        if (method === undefined) {
          throw new Error(`provider '${auth.provider}' has no auth method ${JSON.stringify(input.method)}`);
        }
        const prompt = (method.prompts ?? []).find((p) => p?.key === input.key);
        if ((name === "auth.validate" || name === "auth.condition") && prompt === undefined) {
          throw new Error(`auth method '${method.label}' has no prompt '${input.key}'`);
        }
        if (name === "auth.validate") {
          const answer = typeof prompt.validate === "function" ? prompt.validate(String(input.value ?? "")) : undefined;
          if (answer !== undefined) output.error = String(answer);
        } else if (name === "auth.condition") {
          const inputs = input.inputs ?? {};
          const rule = prompt.when;
          if (rule !== null && typeof rule === "object" && typeof rule.key === "string") {
            const equal = String(inputs[rule.key] ?? "") === String(rule.value);
            output.show = rule.op === "neq" ? !equal : equal;
          } else {
            output.show = typeof prompt.condition === "function" ? Boolean(prompt.condition(inputs)) : true;
          }
        } else {  // auth.authorize
          if (typeof method.authorize !== "function") {
            throw new Error(`auth method '${method.label}' of provider '${auth.provider}' has no authorize()`);
          }
          const result = await method.authorize(input.inputs ?? {});
          for (const [key, value] of Object.entries(result ?? {})) {
            if (key === "callback" && typeof value === "function") {
              const handle = `${moduleTag}#${nextHandle++}`;
              oauthCallbacks.set(handle, value.bind(result));
              // Abandoned flows do not pile up: the oldest pending handle goes first.
              if (oauthCallbacks.size > MAX_PENDING_CALLBACKS) {
                oauthCallbacks.delete(oauthCallbacks.keys().next().value);
              }
              output.callback = handle;
            } else if (typeof value !== "function") {
              output[key] = jsonSafe(value);
            }
          }
        }
      }
      output.plugin = moduleTag;
      return { output };
    } catch (error) {
      if (name !== "auth") output.plugin = moduleTag;  // it answered, with an error
      return { output, error: { plugin: id, message: errorMessage(error) } };
    }
  }
  return { output };
}

async function runProvider(input, output) {
  const wanted = providerIdOf(input?.provider);
  for (const { id, hooks } of loaded) {
    const hook = hooks.provider;
    if (hook === null || typeof hook !== "object") continue;
    if (wanted === undefined) {  // which providers plugins serve
      output.providers = Array.isArray(output.providers) ? output.providers : [];
      output.providers.push({ id: hook.id, plugin: moduleTag, models: typeof hook.models === "function" });
      continue;
    }
    if (hook.id !== wanted || typeof hook.models !== "function") continue;
    try {
      const provider = typeof input.provider === "object"
        ? { ...input.provider, ...(output.models ? { models: output.models } : {}) }
        : { id: wanted, ...(output.models ? { models: output.models } : {}) };
      output.models = jsonSafe(await hook.models(provider, { auth: input.auth })) ?? {};
    } catch (error) {
      return { output, error: { plugin: id, message: errorMessage(error) } };
    }
  }
  return { output };
}

// Set by init(). A worker process that was replaced (a crash, a kill after a loop) loads the
// module again without running init: every call then throws NOT_INITIALISED, and plugline runs
// init again before retrying (src/js/opencode_plugin.cc).
let initReport = null;
const NOT_INITIALISED = "plugline: the plugin is not initialised";
function initialised() {
  if (initReport === null) throw new Error(NOT_INITIALISED);
}

const api = {
  __plugline_opencode: true,

  // Calls every plugin function with the context; reports hooks, unknown hook names and tools.
  // Once only: a second call (two threads that both saw NOT_INITIALISED) answers the same.
  async init(context, options) {
    if (initReport !== null) return initReport;
    initReport = await initOnce(context, options);
    return initReport;
  },

  // (input, output) hooks: mutate output; returns the output and the first error, if any.
  async trigger(name, input, output) {
    initialised();
    const fromV2 = await v2.trigger(name, input, output);
    if (fromV2 !== undefined) return fromV2;
    if (AUTH_OPERATIONS.has(name)) return runAuth(name, input, output);
    if (name === "provider") return runProvider(input, output);
    return runHook(name, input, output);
  },

  // trigger() for the hot path of canonical events: null when no hook threw and the output is
  // unchanged (so the host parses nothing back), else what trigger() answers.
  async triggerChanged(name, input, output) {
    initialised();
    const before = JSON.stringify(output);
    const result = await runHook(name, input, output);
    if (result.error === undefined && JSON.stringify(result.output) === before) return null;
    return result;
  },

  event(event) { initialised(); return runEach("event", { event }); },
  config(config) { initialised(); return runEach("config", config); },
  dispose() { return initReport === null ? { errors: [] } : runEach("dispose"); },

  async executeTool(name, args, context) {
    initialised();
    return executeTool(name, args, context);
  },
};

async function initOnce(context, options) {
  moduleTag = String(context.plugin ?? "");
  initDirectories = { directory: context.directory, worktree: context.worktree };
  const { servers, v2: v2Plugins } = typeof context.toolFile === "string" ? toolFile(context.toolFile) : findPlugins();
  const ctx = makeContext(context);
  const hooks = new Set();
  const unknown = [];
  const notes = servers.length === 0 && v2Plugins.length === 0 ? ["a V1 plugin module without `server` (a TUI plugin): nothing of it runs in plugline"] : [];
  for (const { id, server } of servers) {
    const result = await server(ctx, options ?? undefined);
    if (result === null || typeof result !== "object") {
      throw new TypeError(`plugin '${id}' returned ${result === null ? "null" : typeof result}, not an object of hooks`);
    }
    loaded.push({ id, hooks: result });
    for (const name of Object.keys(result)) {
      if (KNOWN_HOOKS.has(name)) {
        hooks.add(name);
      } else if (!unknown.includes(name)) {
        unknown.push(name);
      }
    }
  }
  for (const name of await v2.setup(v2Plugins, options)) hooks.add(name);
  const tools = [];
  if (toolEntries().size > 0) await loadToolSupport();
  for (const [name, { plugin: id, def }] of toolEntries()) {
    if (def === null || typeof def !== "object" || typeof def.execute !== "function") {
      throw new TypeError(`tool '${name}' of plugin '${id}' has no execute function`);
    }
    tools.push({
      name, plugin: id, description: String(def.description ?? ""),
      parameters: toolJsonSchema(def.args),
    });
  }
  return { plugins: [...servers, ...v2Plugins].map((s) => s.id), hooks: [...hooks], unknown, tools, notes };
}

async function executeTool(name, args, context) {
  const entry = toolEntries().get(name);
  if (entry === undefined) return { ok: false, error: `no tool '${name}'` };
  let parsed;
  try {
    parsed = parseToolArgs(entry.def.args, args);
  } catch (error) {
    return { ok: false, error: `invalid arguments for ${name}: ${errorMessage(error)}` };
  }
  let title;
  let metadata;
  const toolContext = {
    // The host's project when the call does not say (OpenCode always says).
    directory: initDirectories.directory, worktree: initDirectories.worktree,
    ...context,
    abort: { aborted: false, reason: undefined, onabort: null, addEventListener() {},
             removeEventListener() {}, throwIfAborted() {} },
    metadata(input) { title = input?.title ?? title; metadata = input?.metadata ?? metadata; },
    async ask() {},
  };
  try {
    const result = await entry.def.execute(parsed, toolContext);
    if (typeof result === "string") return { ok: true, output: result, title, metadata };
    if (result !== null && typeof result === "object" && typeof result.output === "string") {
      return { ok: true, output: result.output, title: result.title ?? title,
               metadata: result.metadata ?? metadata };
    }
    return { ok: true, output: result === undefined ? "" : JSON.stringify(result), title, metadata };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

export default isShaper ? exported : api;

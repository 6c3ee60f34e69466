// plugline-node-worker's program: Node.js (libnode's Node 18) running one plugin module for
// plugline's process runtime (src/js/process_runtime.cc), with the protocol plugline-js-worker
// speaks (src/js/README.md "Process isolation"): newline-delimited JSON, one request at a time,
// log lines and host calls in between, one reply per request.
//
// The module runs as an ordinary Node program: built-in modules, `process`, `Buffer`, `fetch`,
// CommonJS, JSON imports, N-API addons. What plugline adds:
// - the protocol's own file descriptors (PLUGLINE_NODE_WORKER_FDS), so that nothing a plugin
//   prints reaches it: fd 0 is /dev/null, fd 1 is the worker's stderr;
// - console.* goes to plugline's log as {"log":...} lines;
// - uncaught exceptions and unhandled rejections are logged, never fatal;
// - module resolution hooks (`module.register`): "plugline:*" modules and the wrapper entry,
//   modules plugline serves when Node finds no package of that name ("@opencode-ai/plugin"),
//   and Bun's built-in modules refused by name;
// - a host call (client, `$`) is a {"host_call":...} line answered by a {"host_reply":...}
//   line, read like any other: the event loop keeps running while the host works.
// - Node's modules handed to "plugline:bun" (src/js/modules/bun.mjs), which makes Bun's global.
import childProcess from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { createRequire, register } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "node:util";
import { MessageChannel } from "node:worker_threads";

// Node's modules for Bun's global, which plugline's "plugline:bun" takes (and removes) before
// the plugin's code runs (src/js/modules/bun.mjs).
globalThis.__plugline_node = { childProcess, fs, fsp, os, path, Readable, fileURLToPath, pathToFileURL };

// The sucrase bundle (TypeScript), put here by plugline-node-worker's main; "" without it.
const SUCRASE = globalThis.__plugline_sucrase_bundle ?? "";
delete globalThis.__plugline_sucrase_bundle;

const [inFd, outFd] = String(process.env.PLUGLINE_NODE_WORKER_FDS ?? "").split(",").map(Number);
delete process.env.PLUGLINE_NODE_WORKER_FDS;
// The user's NODE_OPTIONS, kept aside so that they did not configure this worker, go back into
// the environment the plugin and its child processes see.
if (process.env.PLUGLINE_NODE_WORKER_NODE_OPTIONS !== undefined) {
  process.env.NODE_OPTIONS = process.env.PLUGLINE_NODE_WORKER_NODE_OPTIONS;
  delete process.env.PLUGLINE_NODE_WORKER_NODE_OPTIONS;
}
// Child processes started with process.execPath (fork) get a plain Node.js, not this program.
process.execArgv = process.execArgv.filter((arg) => arg.startsWith("--max-old-space-size"));
process.argv = [process.execPath];

// absl::StatusCode values.
const Code = { kUnknown: 2, kInvalidArgument: 3, kDeadlineExceeded: 4, kNotFound: 5,
               kFailedPrecondition: 9, kInternal: 13 };
const MAX_STACK_LINES = 8;

function send(message) {
  const bytes = Buffer.from(`${JSON.stringify(message)}\n`);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += fs.writeSync(outFd, bytes, offset);
    } catch (error) {
      if (error.code === "EAGAIN") continue;
      process.exit(1);  // the parent is gone
    }
  }
}

// ---- what the plugin prints ---------------------------------------------------------------------

let logEnabled = true;
function log(level, args) {
  if (logEnabled) send({ log: { level, message: format(...args) } });
}
for (const level of ["log", "info", "warn", "error", "debug"]) {
  console[level] = (...args) => log(level, args);
}
console.trace = (...args) => log("debug", [...args, new Error("trace").stack.replace(/^Error: trace\n/, "\n")]);
console.dir = (value) => log("log", [value]);

function describe(error) {
  if (error instanceof Error || (error !== null && typeof error === "object" && "stack" in error)) {
    const text = String(error);
    const stack = typeof error.stack === "string" ? error.stack.split("\n") : [];
    // The plugin's frames: not Node's own (node:*), nor plugline's resolution hooks (a data: URL).
    const frames = stack.filter((line) => /^\s+at /.test(line) && !/[( ](node:|data:)/.test(line))
        .slice(0, MAX_STACK_LINES);
    return frames.length ? `${text}\n${frames.join("\n")}` : text;
  }
  try {
    return typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

process.on("uncaughtException", (error) => log("error", [`uncaught exception: ${describe(error)}`]));
process.on("unhandledRejection", (reason) => log("error", [`unhandled rejection: ${describe(reason)}`]));

// ---- host calls -----------------------------------------------------------------------------------

const pendingHostCalls = [];  // answered in order: the host handles one line at a time
globalThis.__plugline_host_call = (request) => new Promise((resolve, reject) => {
  pendingHostCalls.push({ resolve, reject });
  send({ host_call: { request: String(request) } });
});

function answerHostCall(reply) {
  const pending = pendingHostCalls.shift();
  if (pending === undefined) return;
  if (reply.ok) {
    pending.resolve(String(reply.answer ?? ""));
  } else {
    pending.reject(new Error(String(reply.message ?? "the host call failed")));
  }
}

// ---- module resolution ------------------------------------------------------------------------------

// Runs on Node's loader thread: serves plugline's modules and reports each file the module graph
// loads (for the reload fingerprint).
const HOOKS = `
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { compileFunction } from "node:vm";
let state = { served: {}, fallback: {} };
let port;
export function initialize(data) { state = data; port = data.port; port.on("message", (m) => port.postMessage(m)); port.unref(); }
const BUN = /^bun(:|$)/;
let entryServed = false;
export async function resolve(specifier, context, next) {
  if (specifier.startsWith("plugline:")) {
    // plugline's modules are for the wrapper entry and each other, never for a plugin.
    const internal = String(context.parentURL ?? "").startsWith("plugline-served:") ||
                     (specifier === "plugline:wrapper" && !entryServed);
    if (!internal) {
      throw new Error("cannot import '" + specifier + "': plugline's internal modules cannot be imported by a plugin");
    }
    if (specifier === "plugline:wrapper") entryServed = true;
    if (specifier === "plugline:plugin") return { url: state.plugin, shortCircuit: true };
  }
  if (Object.hasOwn(state.served, specifier)) return { url: "plugline-served:" + specifier, shortCircuit: true };
  if (BUN.test(specifier)) {
    throw new Error("'" + specifier + "' is one of Bun's built-in modules, which plugline does not provide (it runs plugins in Node.js)");
  }
  try {
    return await next(specifier, context);
  } catch (error) {
    if (Object.hasOwn(state.fallback, specifier)) return { url: "plugline-fallback:" + specifier, shortCircuit: true };
    const found = bunStyle(specifier, context.parentURL);
    if (found !== null) return { url: found, shortCircuit: true };
    throw error;
  }
}
// Bun's resolution of a relative or absolute import that Node's does not find: no extension,
// a folder's index file, and "./x.js" meaning "./x.ts" (TypeScript's convention).
function bunStyle(specifier, parentURL) {
  const relative = ["./", "../", "/", "file:"].some((prefix) => specifier.startsWith(prefix));
  if (!relative || parentURL === undefined) return null;
  let base;
  try {
    base = new URL(specifier, parentURL);
  } catch {
    return null;
  }
  const path = fileURLToPath(base);
  const candidates = [".ts", ".tsx", ".mts", ".js", ".mjs", ".cjs", "/index.ts", "/index.tsx",
                      "/index.js", "/index.mjs"].map((suffix) => path + suffix);
  if ([".js", ".mjs", ".cjs"].some((ext) => path.endsWith(ext))) candidates.unshift(path.slice(0, -2) + "ts");
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) return pathToFileURL(candidate).href + base.search;
    } catch {}
  }
  return null;
}
// TypeScript: types stripped by sucrase (the same transform as the sandboxed runtime's).
let sucrase = null;
function stripTypes(source, path) {
  if (sucrase === null) {
    if (!state.sucrase) throw new Error("TypeScript support was not built into plugline");
    const scope = {};
    new Function("globalThis", state.sucrase)(scope);
    sucrase = scope.sucrase;
  }
  const transforms = path.endsWith(".tsx") ? ["typescript", "jsx"] : ["typescript"];
  return sucrase.transform(source, { transforms, disableESTransforms: true, keepUnusedImports: false,
                                     preserveDynamicImport: true, filePath: path }).code;
}
// What a CommonJS compile says about syntax only an ES module may use.
const ESM_ONLY = [
  "Cannot use import statement outside a module",
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
  "await is only valid in async functions and the top level bodies of modules",
];
const CJS_NAMES = /(^|[^.A-Za-z0-9_$])(require|module|exports|__dirname|__filename)([^A-Za-z0-9_$]|$)/;
export async function load(url, context, next) {
  if (url.startsWith("plugline-served:")) return { format: "module", source: state.served[url.slice(16)], shortCircuit: true };
  if (url.startsWith("plugline-fallback:")) return { format: "module", source: state.fallback[url.slice(18)], shortCircuit: true };
  if (url.startsWith("file:")) port.postMessage({ file: url });
  if (url.startsWith("file:") && [".ts", ".mts", ".tsx"].some((ext) => new URL(url).pathname.endsWith(ext))) {
    const path = fileURLToPath(url);
    return { format: "module", source: stripTypes(String(await readFile(path)), path), shortCircuit: true };
  }
  const result = await next(url, context);
  // A .js file outside a "type": "module" package is CommonJS to Node, but Bun (and so OpenCode)
  // runs it as an ES module unless it uses CommonJS: so does plugline. ES module syntax is found
  // as Node's own --experimental-detect-module finds it (compiled as CommonJS, ES-only syntax
  // fails); a file with neither that syntax nor CommonJS's names is an ES module too.
  if (result.format === "commonjs" && new URL(url).pathname.endsWith(".js") && !context.importAttributes?.type) {
    const source = String(await readFile(new URL(url)));
    let esm = !CJS_NAMES.test(source);
    try {
      compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"]);
    } catch (error) {
      esm = esm || (error instanceof SyntaxError && ESM_ONLY.some((m) => error.message.includes(m)));
    }
    if (esm) return { format: "module", source, shortCircuit: true };
  }
  return result;
}
`;

const loadedFiles = new Set();
let hooksPort = null;
let flushed = null;

function registerHooks(path, options) {
  const served = {};
  const fallback = {};
  if (options.wrapper_source) served["plugline:wrapper"] = options.wrapper_source;
  for (const { specifier, source } of options.builtin_modules ?? []) {
    // plugline's own modules always; the others only where Node finds nothing (a plugin's
    // own "@opencode-ai/plugin" wins, and "path" is Node's).
    if (specifier.startsWith("plugline:")) served[specifier] = source;
    else fallback[specifier] = source;
  }
  // In Node, URL and the host-call function are already where the wrapper expects them.
  served["plugline:url"] = "export {};\n";
  const { port1, port2 } = new MessageChannel();
  hooksPort = port1;
  hooksPort.on("message", (message) => {
    if (message.file) loadedFiles.add(message.file);
    if (message.flush && flushed) flushed();
  });
  hooksPort.unref();
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, {
    data: { served, fallback, plugin: pathToFileURL(path).href, port: port2, sucrase: SUCRASE },
    transferList: [port2],
  });
}

// Every file message the loader thread sent before this call has arrived once it resolves
// (messages on one port arrive in order).
function flushFiles() {
  return new Promise((resolve) => {
    flushed = resolve;
    hooksPort.postMessage({ flush: true });
  });
}

function files(path) {
  const list = [path];
  const seen = new Set(list);
  const add = (file) => {
    if (!seen.has(file)) {
      seen.add(file);
      list.push(file);
    }
  };
  for (const url of loadedFiles) {
    try {
      add(fs.realpathSync(new URL(url)));
    } catch {}
  }
  for (const file of Object.keys(createRequire(path).cache)) {
    if (file.startsWith("/")) add(file);
  }
  return list;
}

// ---- requests -------------------------------------------------------------------------------------------

let target;         // the default export of the entry (the wrapper's API, or the module's)
let modulePath = "";

class Failure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function budget(ns) {
  const ms = Number(ns) / 1e6;
  if (ms < 1000) return `${Number(ms.toFixed(3))}ms`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}

// Settles `promise`, or fails with DeadlineExceeded after `timeoutNs` (absent: no limit). A
// loop that never yields is stopped by the parent's kill timer instead.
function withDeadline(promise, timeoutNs, what) {
  if (timeoutNs === undefined || timeoutNs === null) return promise;
  let timer;
  const deadline = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Failure(Code.kDeadlineExceeded,
        `${what} exceeded its time budget of ${budget(timeoutNs)}`)), Number(timeoutNs) / 1e6);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function decodeArgs(request) {
  if (request.args_json !== undefined) return JSON.parse(request.args_json);
  return (request.args ?? []).map((arg) => {
    if (arg === null || typeof arg !== "object") return arg;
    if (arg.undefined) return undefined;
    if (arg.number !== undefined) return Number(arg.number);
    if (arg.json !== undefined) return JSON.parse(arg.json);
    return arg;
  });
}

const toJson = (value) => JSON.stringify(value) ?? "null";

async function load(request) {
  if (target !== undefined) throw new Failure(Code.kFailedPrecondition, "this worker has loaded a module already");
  const options = request.options ?? {};
  modulePath = String(request.path);
  logEnabled = options.log !== false;
  // The plugin's working directory is the host's project directory, as OpenCode's is.
  if (options.working_directory) process.chdir(options.working_directory);
  registerHooks(modulePath, options);
  const entry = options.wrapper_source ? "plugline:wrapper" : pathToFileURL(modulePath).href;
  let namespace;
  try {
    namespace = await withDeadline(import(entry), options.load_timeout_ns, "loading the module");
  } catch (error) {
    if (error instanceof Failure) throw error;
    throw new Failure(error?.code === "ERR_MODULE_NOT_FOUND" ? Code.kNotFound : Code.kUnknown,
                      `${modulePath}: ${describe(error)}`);
  }
  target = namespace.default;
  await flushFiles();
  return { files: files(modulePath) };
}

async function call(request) {
  const name = String(request.function ?? "");
  const what = name ? `call to ${name}()` : "call to the default export";
  let fn = target;
  if (name) {
    if (target === null || (typeof target !== "object" && typeof target !== "function")) {
      throw new Failure(Code.kNotFound, `${modulePath}: the default export is not an object with ${name}()`);
    }
    fn = target[name];
  }
  if (typeof fn !== "function") {
    throw new Failure(Code.kNotFound, `${modulePath}: ${name || "the default export"} is not a function`);
  }
  let result;
  try {
    result = await withDeadline(Promise.resolve().then(() => fn.apply(target, decodeArgs(request))),
                                request.timeout_ns, what);
  } catch (error) {
    if (error instanceof Failure) throw error;
    throw new Failure(Code.kUnknown, `${what} rejected: ${describe(error)}`);
  }
  return { result: toJson(result) };
}

function get(request) {
  const value = target === null || target === undefined ? undefined : target[String(request.property)];
  return { result: toJson(value) };
}

function describeDefault(request) {
  const names = JSON.parse(request.names_json ?? "[]");
  const type = target === null ? "null" : typeof target;
  const functions = type === "object" || type === "function"
    ? names.filter((name) => typeof target[name] === "function") : [];
  return { result: JSON.stringify({ type, functions }) };
}

const OPS = {
  load,
  call,
  get,
  describe: describeDefault,
  files: () => ({ files: files(modulePath) }),
};

let queue = Promise.resolve();
function handle(message) {
  if (message.host_reply !== undefined) {
    answerHostCall(message.host_reply);
    return;
  }
  const { id } = message;
  queue = queue.then(async () => {
    try {
      const op = OPS[message.op];
      if (op === undefined) throw new Failure(Code.kInvalidArgument, `unknown operation '${message.op}'`);
      if (message.op !== "load" && target === undefined) {
        throw new Failure(Code.kFailedPrecondition, "no module is loaded");
      }
      send({ id, ok: true, ...(await op(message)) });
    } catch (error) {
      const code = error instanceof Failure ? error.code : Code.kInternal;
      send({ id, ok: false, code, message: error instanceof Failure ? error.message : describe(error) });
    }
  });
}

// Requests arrive on the protocol's input, a pipe read by the event loop.
const input = new net.Socket({ fd: inFd, readable: true, writable: false });
let pending = "";
input.setEncoding("utf8");
input.on("data", (chunk) => {
  pending += chunk;
  let newline;
  while ((newline = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (line === "") continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      send({ id: 0, ok: false, code: Code.kInvalidArgument, message: `not JSON: ${error.message}` });
      continue;
    }
    handle(message);
  }
});
// The parent closed the pipe: it is done with this worker.
input.on("end", () => process.exit(0));
input.on("error", () => process.exit(0));

send({ hello: { ok: true, engine: `Node.js ${process.version} (V8 ${process.versions.v8})`, pid: process.pid } });

// Bun's global for OpenCode plugins in the node runtime ("plugline:bun", imported by the wrapper
// before the plugin): OpenCode runs plugins in Bun, and plugins written for it use `Bun.$`,
// `Bun.file`, `Bun.write`, `Bun.spawn`, `Bun.which`… What is here behaves as Bun's does; what is
// not (Bun.hash, Bun.serve, Bun.Glob, Bun.password, bun:sqlite…) is absent, never a stand-in that
// half works. docs/plugins-opencode.md "Bun" lists both.
//
// The node worker (src/js/node/node_worker.mjs) hands over Node's modules as
// globalThis.__plugline_node; the sandboxed runtime has none, and gets no Bun.
import { hostCall } from "plugline:host";
import { makeShell } from "plugline:shell";

const node = globalThis.__plugline_node;
delete globalThis.__plugline_node;

if (node && globalThis.Bun === undefined) {
  const { fs, fsp, path, childProcess, Readable } = node;

  const pathOf = (target) => {
    if (target instanceof URL) return node.fileURLToPath(target);
    if (target !== null && typeof target === "object" && typeof target.name === "string") return target.name;
    return String(target);
  };

  // Bun.file's MIME types for common extensions; anything else is application/octet-stream.
  const TYPES = {
    ".json": "application/json;charset=utf-8", ".txt": "text/plain;charset=utf-8",
    ".md": "text/markdown;charset=utf-8", ".html": "text/html;charset=utf-8",
    ".css": "text/css;charset=utf-8", ".js": "text/javascript;charset=utf-8",
    ".mjs": "text/javascript;charset=utf-8", ".ts": "text/javascript;charset=utf-8",
    ".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
    ".gif": "image/gif", ".wasm": "application/wasm", ".xml": "text/xml;charset=utf-8",
  };

  // Bun's FileSink over a Node writable stream: write(), flush(), end().
  const fileSink = (stream) => ({
    write: (chunk) => { stream.write(typeof chunk === "string" ? chunk : Buffer.from(chunk)); return chunk.length ?? 0; },
    flush: () => 0,
    end: () => new Promise((resolve) => stream.end(resolve)),
  });

  // Bun.file(path): a lazy reference; reading a missing file rejects with ENOENT, as in Bun.
  class BunFile {
    constructor(name, options) {
      this.name = name;
      this.type = options?.type ?? TYPES[path.extname(name).toLowerCase()] ?? "application/octet-stream";
    }
    get size() {
      try { return fs.statSync(this.name).size; } catch { return 0; }
    }
    get lastModified() {
      try { return fs.statSync(this.name).mtimeMs; } catch { return 0; }
    }
    async exists() {
      try { return fs.statSync(this.name).isFile(); } catch { return false; }
    }
    async text() { return fsp.readFile(this.name, "utf8"); }
    async json() { return JSON.parse(await this.text()); }
    async bytes() { return new Uint8Array(await fsp.readFile(this.name)); }
    async arrayBuffer() {
      const data = await fsp.readFile(this.name);
      return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
    }
    stream() { return Readable.toWeb(fs.createReadStream(this.name)); }
    async stat() { return fsp.stat(this.name); }
    async delete() { await fsp.unlink(this.name); }
    async unlink() { await fsp.unlink(this.name); }
    async write(data) { return write(this, data); }
    writer() { return fileSink(fs.createWriteStream(this.name)); }
  }

  async function bytesOf(data) {
    if (typeof data === "string") return Buffer.from(data);
    if (data instanceof BunFile) return fsp.readFile(data.name);
    if (data instanceof ArrayBuffer) return Buffer.from(data);
    if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (data !== null && typeof data === "object" && typeof data.arrayBuffer === "function") {
      return Buffer.from(await data.arrayBuffer());  // Blob, Response
    }
    throw new TypeError("Bun.write: data must be a string, a Blob, a BunFile, a Response, an ArrayBuffer or a TypedArray");
  }

  // Bun.write(destination, data): the number of bytes written; missing folders are made.
  async function write(destination, data) {
    const file = pathOf(destination);
    const bytes = await bytesOf(data);
    await fsp.mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await fsp.writeFile(file, bytes);
    return bytes.length;
  }

  function which(command, options = {}) {
    const name = String(command);
    const search = options.PATH ?? process.env.PATH ?? "";
    const executable = (candidate) => {
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return fs.statSync(candidate).isFile();
      } catch {
        return false;
      }
    };
    if (name.includes("/")) {
      const candidate = path.resolve(options.cwd ?? process.cwd(), name);
      return executable(candidate) ? candidate : null;
    }
    for (const dir of search.split(":")) {
      if (dir === "") continue;
      const candidate = path.join(path.resolve(options.cwd ?? process.cwd(), dir), name);
      if (executable(candidate)) return candidate;
    }
    return null;
  }

  // Bun's stdio values ("pipe", "inherit", "ignore", null, a number) as Node's. "inherit"
  // reaches the worker's stderr (plugline's log), never plugline's own channel.
  const stdio = (value, fallback) => {
    const v = value === undefined ? fallback : value;
    if (v === null || v === "ignore") return "ignore";
    if (v === "inherit") return "inherit";
    if (typeof v === "number") return v;
    return "pipe";
  };
  const spawnArgs = (command, options) => {
    const spec = Array.isArray(command) ? { ...(options ?? {}), cmd: command } : { ...(command ?? {}) };
    if (!Array.isArray(spec.cmd) || spec.cmd.length === 0) throw new TypeError("Bun.spawn: cmd must be a non-empty array");
    return spec;
  };
  // Data for stdin, as Bun takes it: a typed array, an ArrayBuffer, a Blob, a Response or a
  // BunFile (a string is one of the stdio keywords, never data).
  const stdinInput = (value) =>
    (value instanceof ArrayBuffer || ArrayBuffer.isView(value) || value instanceof BunFile ||
     (value !== null && typeof value === "object" && typeof value.arrayBuffer === "function"))
      ? value : undefined;

  function spawn(command, options) {
    const spec = spawnArgs(command, options);
    const input = stdinInput(spec.stdin);
    const child = childProcess.spawn(spec.cmd[0], spec.cmd.slice(1).map(String), {
      cwd: spec.cwd, env: spec.env ?? process.env,
      stdio: [input !== undefined ? "pipe" : stdio(spec.stdin, "ignore"), stdio(spec.stdout, "pipe"),
              stdio(spec.stderr, "inherit")],
    });
    let exitCode = null;
    let signalCode = null;
    const exited = new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("exit", (code, signal) => {
        exitCode = code;
        signalCode = signal;
        resolve(code ?? 128 + (node.os.constants.signals[signal] ?? 0));
      });
    });
    const subprocess = {
      pid: child.pid,
      stdin: null,
      stdout: child.stdout ? Readable.toWeb(child.stdout) : null,
      stderr: child.stderr ? Readable.toWeb(child.stderr) : null,
      exited,
      get exitCode() { return exitCode; },
      get signalCode() { return signalCode; },
      get killed() { return child.killed; },
      kill(signal) { child.kill(signal); },
      ref() { child.ref(); },
      unref() { child.unref(); },
    };
    if (child.stdin) {
      if (input !== undefined) {
        bytesOf(input).then((bytes) => child.stdin.end(bytes), () => child.stdin.end());
      } else {
        subprocess.stdin = fileSink(child.stdin);
      }
    }
    if (typeof spec.onExit === "function") {
      exited.then((code) => spec.onExit(subprocess, code, signalCode), (error) => spec.onExit(subprocess, null, null, error));
    }
    return subprocess;
  }

  function spawnSync(command, options) {
    const spec = spawnArgs(command, options);
    // Synchronously, only data already in memory can be written (a typed array or ArrayBuffer).
    const data = spec.stdin instanceof ArrayBuffer ? Buffer.from(spec.stdin) : spec.stdin;
    const input = ArrayBuffer.isView(data) ? data : undefined;
    const result = childProcess.spawnSync(spec.cmd[0], spec.cmd.slice(1).map(String), {
      cwd: spec.cwd, env: spec.env ?? process.env, input, maxBuffer: 64 * 1024 * 1024,
      stdio: [input !== undefined ? "pipe" : stdio(spec.stdin, "ignore"), stdio(spec.stdout, "pipe"),
              stdio(spec.stderr, "pipe")],
    });
    if (result.error && result.error.code === "ENOENT") throw result.error;
    return {
      pid: result.pid,
      exitCode: result.status,
      signalCode: result.signal,
      success: result.status === 0,
      stdout: result.stdout ?? undefined,
      stderr: result.stderr ?? undefined,
    };
  }

  globalThis.Bun = Object.freeze({
    $: makeShell({ cwd: process.cwd(), env: undefined, nothrow: false },
                 (request) => hostCall("shell", request)),
    env: process.env,
    file: (target, options) => new BunFile(pathOf(target), options),
    write,
    which,
    spawn,
    spawnSync,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms instanceof Date ? ms - Date.now() : Number(ms))),
    sleepSync: (ms) => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(ms)); },
    nanoseconds: () => Number(process.hrtime.bigint()),
    fileURLToPath: node.fileURLToPath,
    pathToFileURL: node.pathToFileURL,
  });
}

// Bun's shell (`$`), for OpenCode plugins' context (opencode_host.mjs) and Bun.$ (bun.mjs):
// "plugline:shell". The template's text is shell syntax; each interpolation is one argument.
// `execute(request)` runs {script, args, cwd, env, stdin} and answers (or promises)
// {exitCode, stdout, stderr}: plugline runs it in the host, under the plugin's limits.

// As in Bun, `stdout` and `stderr` are Buffers where there are Buffers (the node runtime);
// the sandbox has none, and gives strings. text(), json() and lines() read them the same way.
const bytes = (text) => (typeof globalThis.Buffer === "function" ? globalThis.Buffer.from(text) : text);

class ShellError extends Error {
  constructor(output, command) {
    super(`Failed with exit code ${output.exitCode}: ${command}${output._stderr ? `\n${output._stderr.trimEnd()}` : ""}`);
    this.name = "ShellError";
    this.exitCode = output.exitCode;
    this.stdout = output.stdout;
    this.stderr = output.stderr;
    Object.defineProperty(this, "_text", { value: output._stdout });
  }
  text() { return this._text; }
  json() { return JSON.parse(this._text); }
}

class ShellOutput {
  constructor(answer) {
    this.exitCode = answer.exitCode;
    this.stdout = bytes(answer.stdout);
    this.stderr = bytes(answer.stderr);
    Object.defineProperty(this, "_stdout", { value: answer.stdout });
    Object.defineProperty(this, "_stderr", { value: answer.stderr });
  }
  text() { return this._stdout; }
  json() { return JSON.parse(this._stdout); }
  lines() { return splitLines(this._stdout); }
}

function splitLines(text) {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

// The template's literal parts are shell text; every interpolation becomes one argument
// ("$1", "$2", …) of `sh -c`, so a value is never parsed by the shell: `${"; rm -rf /"}` is one
// argument. An array interpolates as several arguments; `{ raw: "..." }` is inserted as shell
// text, as in Bun.
function buildCommand(strings, values) {
  let script = "";
  const args = [];
  const word = (value) => {
    if (value === null || value === undefined) return "";
    if (typeof value === "object" && typeof value.raw === "string") return value.raw;
    args.push(value instanceof ShellOutput ? value._stdout : String(value));
    return `"\${${args.length}}"`;
  };
  for (let i = 0; i < strings.raw.length; i++) {
    script += strings.raw[i];
    if (i < values.length) {
      const value = values[i];
      script += Array.isArray(value) ? value.map(word).filter((w) => w !== "").join(" ") : word(value);
    }
  }
  return { script, args };
}

class ShellPromise {
  constructor(command, defaults, execute) {
    this._command = command;
    this._execute = execute;
    this._options = { cwd: defaults.cwd, env: defaults.env, nothrow: defaults.nothrow, stdin: undefined };
    this._promise = null;
  }
  cwd(directory) { this._options.cwd = String(directory); return this; }
  env(variables) { this._options.env = { ...(variables ?? {}) }; return this; }
  quiet() { return this; }  // plugline never prints a command's output
  nothrow() { this._options.nothrow = true; return this; }
  throws(enabled) { this._options.nothrow = !enabled; return this; }
  _run() {
    if (this._promise === null) {
      this._promise = Promise.resolve().then(() => this._execute({
        script: this._command.script, args: this._command.args, cwd: this._options.cwd,
        env: this._options.env, stdin: this._options.stdin,
      })).then((answer) => {
        const output = new ShellOutput(answer);
        if (output.exitCode !== 0 && !this._options.nothrow) {
          throw new ShellError(output, this._command.script);
        }
        return output;
      });
    }
    return this._promise;
  }
  then(onFulfilled, onRejected) { return this._run().then(onFulfilled, onRejected); }
  catch(onRejected) { return this._run().catch(onRejected); }
  finally(onFinally) { return this._run().finally(onFinally); }
  text() { return this._run().then((o) => o._stdout); }
  json() { return this._run().then((o) => JSON.parse(o._stdout)); }
  // Bun's lines() is an async iterable; this one is also awaitable as an array.
  lines() {
    const run = () => this._run().then((o) => splitLines(o._stdout));
    return {
      then: (a, b) => run().then(a, b),
      async *[Symbol.asyncIterator]() { yield* await run(); },
    };
  }
}

export function makeShell(defaults, execute) {
  const $ = (strings, ...values) => {
    if (!Array.isArray(strings) || !strings.raw) {
      throw new TypeError("$ is a tagged template: $`command ${arg}`");
    }
    return new ShellPromise(buildCommand(strings, values), defaults, execute);
  };
  $.cwd = (directory) => { defaults.cwd = String(directory); return $; };
  $.env = (variables) => { defaults.env = { ...(variables ?? {}) }; return $; };
  $.nothrow = () => { defaults.nothrow = true; return $; };
  $.throws = (enabled) => { defaults.nothrow = !enabled; return $; };
  $.escape = (text) => `'${String(text).replaceAll("'", "'\\''")}'`;
  return $;
}


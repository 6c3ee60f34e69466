// plugline-opencode-bridge
// plugline inside OpenCode: an OpenCode plugin that hands OpenCode's hooks to plugline, so that
// plugline's plugins (exec hooks, shapers, native hooks, OpenCode JS plugins loaded by
// plugline) apply inside OpenCode, and a shell command's output is plugline's summary of it.
//
// Each hook call runs `plugline hook --agent opencode` (plugline's warm server answers it in a
// few milliseconds) with {hook, input, output, directory} on stdin and applies the answer:
//   tool.execute.before  {"deny": reason} → throws (OpenCode refuses the call with the reason);
//                        {"args": {...}} → the call's arguments, replaced as a whole
//   tool.execute.after   {"output": text} → what the model reads instead of the tool's output
//   chat.message, event  observed (a plugin's notice is logged)
//   "notice"             added to the tool's output on tool.execute.after, logged elsewhere
// shell.env, chat.params and chat.headers run OpenCode plugins' hooks of that name inside
// plugline (`plugline trigger`) and apply what they changed.
//
// When plugline fails (not installed, a crash, no answer within the time limit), the call goes
// on as if plugline had no opinion and the reason is logged; with PLUGLINE_FAIL_CLOSED=1 in
// OpenCode's environment a tool call is refused instead. PLUGLINE_BINARY names the plugline to
// run (default: the one `plugline install --agent opencode` wrote below, else `plugline` on
// PATH).
//
// It needs only Node's built-ins (child_process), which Bun has: one file, no dependencies.
// docs/agents.md says how it is installed and what it does not do.
import { spawn, spawnSync } from "node:child_process";

const DEFAULT_BINARY = "plugline";
const TIMEOUT_MS = 60_000;
// OpenCode's bus events that reach plugline (message.* streams one per token: not those).
const FORWARDED_EVENTS = new Set([
  "session.created", "session.idle", "session.deleted", "session.compacted",
  "session.error", "file.edited", "command.executed", "permission.asked",
]);
// Events after which OpenCode may exit at once (`opencode run` does on session.idle): plugline
// gets these synchronously, before the hook returns, so that the call is not lost.
const LAST_EVENTS = new Set(["session.idle", "session.deleted"]);
// A hook answer bigger than this is not an answer plugline gives.
const MAX_ANSWER_BYTES = 64 << 20;

function runSync(binary, args, stdin, cwd) {
  const result = spawnSync(binary, args, {
    cwd, input: stdin, timeout: TIMEOUT_MS, maxBuffer: MAX_ANSWER_BYTES, killSignal: "SIGKILL",
  });
  if (result.error) {
    return { code: -1, stdout: "", stderr: `cannot run ${binary}: ${result.error.message}` };
  }
  return {
    code: result.status ?? -1,
    stdout: result.stdout ? result.stdout.toString("utf8") : "",
    stderr: (result.stderr ? result.stderr.toString("utf8") : "") +
            (result.signal ? `killed by ${result.signal}` : ""),
  };
}

function run(binary, args, stdin, cwd) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(binary, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      resolve({ code: -1, stdout: "", stderr: `cannot run ${binary}: ${error.message}` });
      return;
    }
    const out = [];
    const err = [];
    let size = 0;
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: -1, stdout: "", stderr: `${binary} did not answer within ${TIMEOUT_MS} ms` });
    }, TIMEOUT_MS);
    child.stdout.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) child.kill("SIGKILL");
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk) => {
      if (err.length < 64) err.push(chunk);
    });
    child.on("error", (error) => {
      finish({ code: -1, stdout: "", stderr: `cannot run ${binary}: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      finish({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8") + (signal ? `killed by ${signal}` : ""),
      });
    });
    child.stdin.on("error", () => {});  // it may exit before reading everything
    child.stdin.end(stdin);
  });
}

export const PluglineBridge = async ({ client, directory }) => {
  const binary = process.env.PLUGLINE_BINARY || DEFAULT_BINARY;
  const failClosed = process.env.PLUGLINE_FAIL_CLOSED === "1";

  const log = (level, message) => {
    try {
      const sent = client?.app?.log?.({ body: { service: "plugline", level, message } });
      if (sent && typeof sent.catch === "function") sent.catch(() => {});
    } catch {
      // a client without a log: nothing to do
    }
  };

  // plugline's answer to one hook call: an object (empty for no opinion), or
  // {failed: message, deny: bool} when plugline could not answer.
  const ask = async (hook, input, output, { sync = false } = {}) => {
    const args = ["hook", "--agent", "opencode"];
    if (failClosed) args.push("--fail-closed");
    const request = JSON.stringify({ hook, input, output, directory });
    const result = sync ? runSync(binary, args, request, directory)
                        : await run(binary, args, request, directory);
    if (result.code === 0) {
      const text = result.stdout.trim();
      if (text === "") return {};
      try {
        const answer = JSON.parse(text);
        if (answer && typeof answer === "object" && !Array.isArray(answer)) return answer;
      } catch {
        // below
      }
      return { failed: `plugline answered what is not a JSON object: ${text.slice(0, 200)}`, deny: failClosed };
    }
    const why = result.stderr.trim() || `plugline exited with ${result.code}`;
    // Exit 2 is plugline's (or a fail-closed plugin's) refusal.
    return { failed: why, deny: result.code === 2 || failClosed };
  };

  // A named hook of the OpenCode plugins plugline loaded; `output` is changed in place.
  const trigger = async (hook, input, output) => {
    // The input (a model's whole description, for chat.params) on stdin: it can be larger
    // than one command-line argument may be.
    const args = ["trigger", hook, "--input", "-", "--output", JSON.stringify(output ?? {})];
    const result = await run(binary, args, JSON.stringify(input ?? {}), directory);
    if (result.code !== 0) {
      log("warn", `plugline trigger ${hook}: ${result.stderr.trim() || `exit ${result.code}`}`);
      return;
    }
    try {
      const answer = JSON.parse(result.stdout);
      for (const error of answer.errors ?? []) log("warn", `${hook} of ${error.plugin}: ${error.message}`);
      const changed = answer.output;
      if (changed && typeof changed === "object" && output && typeof output === "object") {
        for (const [key, value] of Object.entries(changed)) {
          if (value && typeof value === "object" && !Array.isArray(value) &&
              output[key] && typeof output[key] === "object") {
            Object.assign(output[key], value);
          } else {
            output[key] = value;
          }
        }
      }
    } catch (error) {
      log("warn", `plugline trigger ${hook}: not JSON: ${error.message}`);
    }
  };

  const observe = async (hook, input, output, options) => {
    const answer = await ask(hook, input, output, options);
    if (answer.failed) log("warn", answer.failed);
    if (typeof answer.notice === "string") log("info", answer.notice);
  };

  return {
    "tool.execute.before": async (input, output) => {
      const answer = await ask("tool.execute.before", input, output);
      if (answer.failed) {
        log("warn", answer.failed);
        if (answer.deny) throw new Error(answer.failed);
        return;
      }
      if (typeof answer.deny === "string") throw new Error(answer.deny);
      if (answer.args && typeof answer.args === "object" && output.args && typeof output.args === "object") {
        for (const key of Object.keys(output.args)) delete output.args[key];
        Object.assign(output.args, answer.args);
      }
      if (typeof answer.notice === "string") log("info", answer.notice);
    },
    "tool.execute.after": async (input, output) => {
      const answer = await ask("tool.execute.after", input, output);
      if (answer.failed) {
        log("warn", answer.failed);
        return;
      }
      if (typeof answer.output === "string") output.output = answer.output;
      if (typeof answer.notice === "string") {
        output.output = `${output.output ?? ""}${output.output ? "\n\n" : ""}${answer.notice}`;
      }
    },
    "chat.message": async (input, output) => observe("chat.message", input, output),
    "chat.params": async (input, output) => trigger("chat.params", input, output),
    "chat.headers": async (input, output) => trigger("chat.headers", input, output),
    "shell.env": async (input, output) => trigger("shell.env", input, output),
    event: async ({ event }) => {
      if (event && FORWARDED_EVENTS.has(event.type)) {
        await observe("event", { event }, {}, { sync: LAST_EVENTS.has(event.type) });
      }
    },
  };
};

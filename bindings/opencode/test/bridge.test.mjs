// plugline's OpenCode plugin (../plugline.js) run as OpenCode runs it — its exported function
// called with a context, its hooks with OpenCode's (input, output) — against the real plugline
// (PLUGLINE_BINARY, default build/bin/plugline) and real plugins in a scratch PLUGLINE_HOME.
// tests/agents/test_real_agents.py runs it inside the real OpenCode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const PLUGLINE = process.env.PLUGLINE_BINARY || join(here, "../../../build/bin/plugline");

// A scratch PLUGLINE_HOME with `plugins` (name → [file, text, mode]) and the bridge's hooks,
// made with the environment the bridge reads at load; `logs` collects its client.app.log calls.
async function bridge(plugins = {}, env = {}) {
  const home = mkdtempSync(join(tmpdir(), "plugline-bridge-"));
  for (const [name, text] of Object.entries(plugins)) {
    const path = join(home, "plugins", name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (name.endsWith(".sh")) chmodSync(path, 0o755);
  }
  const saved = { ...process.env };
  Object.assign(process.env, { PLUGLINE_HOME: home, PLUGLINE_BINARY: PLUGLINE, PLUGLINE_SERVER: "0" }, env);
  const logs = [];
  const client = { app: { log: async ({ body }) => { logs.push(body); } } };
  // A fresh module each time: the bridge reads PLUGLINE_BINARY when OpenCode calls it.
  const { PluglineBridge } = await import(`../plugline.js?${home}`);
  const hooks = await PluglineBridge({ client, directory: home, worktree: home, $: undefined });
  process.env = saved;
  Object.assign(process.env, { PLUGLINE_HOME: home, PLUGLINE_SERVER: "0" });
  return { home, hooks, logs, done: () => { process.env = saved; rmSync(home, { recursive: true, force: true }); } };
}

const GUARD_YAML = "name: no-rm\ncommand: ./run.sh\nhooks: [pre_tool_call]\n";
const GUARD_SH = `#!/bin/sh
case "$(cat)" in
  *'rm -rf'*) echo '{"deny":true,"reason":"no rm -rf, use trash"}' ;;
  *) echo '{}' ;;
esac
`;

test("an exec guard's deny is a throw with its reason; an allowed call is left as it was", async () => {
  const b = await bridge({ "no-rm/plugin.yaml": GUARD_YAML, "no-rm/run.sh": GUARD_SH });
  try {
    const input = { tool: "bash", sessionID: "s1", callID: "c1" };
    await assert.rejects(b.hooks["tool.execute.before"](input, { args: { command: "rm -rf build" } }),
                         { message: "no rm -rf, use trash" });
    const output = { args: { command: "ls -la", description: "list" } };
    await b.hooks["tool.execute.before"](input, output);
    assert.deepEqual(output.args, { command: "ls -la", description: "list" });
  } finally {
    b.done();
  }
});

test("a plugin's rewrite replaces the call's arguments, and a long output becomes plugline's summary", async () => {
  const b = await bridge({
    "rewrite.js": `export default async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash" && output.args.command === "seq 1 3") output.args = { command: "seq 1 5000" };
  },
});
`,
  });
  try {
    const input = { tool: "bash", sessionID: "s1", callID: "c1" };
    const before = { args: { command: "seq 1 3", description: "count" } };
    await b.hooks["tool.execute.before"](input, before);
    assert.deepEqual(before.args, { command: "seq 1 5000" });
    const raw = execFileSync("seq", ["1", "5000"], { encoding: "utf8" });
    const after = { title: "seq 1 5000", output: raw, metadata: { output: raw, exit: 0, truncated: false } };
    await b.hooks["tool.execute.after"]({ ...input, args: before.args }, after);
    assert.ok(after.output.length < raw.length / 5, after.output.slice(0, 300));
    assert.match(after.output, /5000/);
    assert.match(after.output, /omitted/);
    assert.equal(after.metadata.output, raw);  // what OpenCode shows the user stays the real output
  } finally {
    b.done();
  }
});

test("shell.env and chat.params run the OpenCode hooks of that name inside plugline", async () => {
  const b = await bridge({
    "env.js": `export default async () => ({
  "shell.env": async (input, output) => { output.env.FROM_PLUGLINE = "yes:" + input.cwd; },
  "chat.params": async (input, output) => { output.temperature = input.model.id === "m1" ? 0.1 : 1; },
});
`,
  });
  try {
    const env = { env: { KEEP: "1" } };
    await b.hooks["shell.env"]({ cwd: "/work" }, env);
    assert.deepEqual(env.env, { KEEP: "1", FROM_PLUGLINE: "yes:/work" });
    const params = { temperature: 0.7, topP: 1, options: {} };
    // A model's description can be long: it travels on stdin.
    const model = { id: "m1", providerID: "p", description: "x".repeat(300_000) };
    await b.hooks["chat.params"]({ sessionID: "s1", agent: "build", model, provider: {}, message: {} }, params);
    assert.equal(params.temperature, 0.1);
    assert.equal(params.topP, 1);
  } finally {
    b.done();
  }
});

test("the prompt and session events reach plugins, the last of a turn before the hook returns", async () => {
  const b = await bridge({
    "recorder/plugin.yaml": "name: recorder\ncommand: ./run.sh\nhooks: [session_start, user_prompt, turn_end]\n",
    "recorder/run.sh": `#!/bin/sh
cat >> "$PLUGLINE_HOME/events.jsonl"; echo >> "$PLUGLINE_HOME/events.jsonl"; echo '{}'
`,
  });
  try {
    await b.hooks.event({ event: { type: "session.created", properties: { sessionID: "s1", info: { id: "s1" } } } });
    await b.hooks["chat.message"]({ sessionID: "s1" }, {
      message: { id: "m1", role: "user", sessionID: "s1" },
      parts: [{ type: "text", text: "fix the build" }, { type: "text", text: "(hint)", synthetic: true }],
    });
    await b.hooks.event({ event: { type: "message.part.updated", properties: {} } });  // not forwarded
    b.hooks.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } });  // not awaited
    const events = readFileSync(join(b.home, "events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => e.event), ["session_start", "user_prompt", "turn_end"]);
    assert.ok(events.every((e) => e.session_id === "s1" && e.agent === "opencode"));
    assert.equal(events[1].prompt, "fix the build");
  } finally {
    b.done();
  }
});

test("plugline failing fails open with the reason logged, or closed with PLUGLINE_FAIL_CLOSED=1", async () => {
  const open = await bridge({}, { PLUGLINE_BINARY: "/nonexistent/plugline" });
  try {
    const output = { args: { command: "ls" } };
    await open.hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, output);
    assert.deepEqual(output.args, { command: "ls" });
    const after = { title: "ls", output: "a\nb\n", metadata: { exit: 0 } };
    await open.hooks["tool.execute.after"]({ tool: "bash", sessionID: "s1", callID: "c1", args: output.args }, after);
    assert.equal(after.output, "a\nb\n");
    assert.ok(open.logs.some((l) => l.level === "warn" && /cannot run \/nonexistent\/plugline/.test(l.message)), JSON.stringify(open.logs));
  } finally {
    open.done();
  }
  const closed = await bridge({}, { PLUGLINE_BINARY: "/nonexistent/plugline", PLUGLINE_FAIL_CLOSED: "1" });
  try {
    await assert.rejects(closed.hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" },
                                                             { args: { command: "ls" } }),
                         /cannot run \/nonexistent\/plugline/);
  } finally {
    closed.done();
  }
  // A broken plugin that fails closed: plugline exits 2, the call is refused with its reason.
  const broken = await bridge({
    "strict/plugin.yaml": "name: strict\ncommand: ./run.sh\nhooks: [pre_tool_call]\non_error: closed\n",
    "strict/run.sh": "#!/bin/sh\nexit 3\n",
  });
  try {
    await assert.rejects(broken.hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" },
                                                             { args: { command: "ls" } }),
                         /strict/);
  } finally {
    broken.done();
  }
});

// Real OpenCode plugins, as published on npm, run unchanged by the real `plugline`: each one is
// configured under `plugins.packages` in a scratch PLUGLINE_HOME, as a user would, and driven
// through `plugline hook`, `trigger`, `tools` and `tool` (through the per-user server, so that a
// plugin's state carries from one command to the next, as it does in OpenCode's process). Each
// scenario checks the plugin's own documented effect. What each plugin is, what it needs and
// which runtime it gets: tests/fixtures/opencode-npm/README.md.
//
//   PLUGLINE_BINARY=build/bin/plugline \
//   PLUGLINE_OPENCODE_NPM_MODULES=<npm ci of tests/fixtures/opencode-npm>/node_modules \
//   node --test tests/opencode-npm/
//
// scripts/test-all.sh installs the packages (pinned by the fixture's package-lock.json) once,
// outside the clone, and runs this inside a network namespace with only loopback: several of
// these plugins reach for the network (an update check, a download), and must cope without it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:http";
import {
  chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const PLUGLINE = process.env.PLUGLINE_BINARY || join(here, "../../build/bin/plugline");
const MODULES = process.env.PLUGLINE_OPENCODE_NPM_MODULES;
// Not a skip: without the packages, this file tests nothing, and says so by failing.
assert.ok(MODULES && existsSync(join(MODULES, "cc-safety-net/package.json")),
          "PLUGLINE_OPENCODE_NPM_MODULES must name the node_modules of an `npm ci` of " +
          "tests/fixtures/opencode-npm (scripts/test-all.sh makes one)");

const scratch = [];
after(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

// A user with these packages configured: a scratch HOME (plugins that write under ~ write
// there), PLUGLINE_HOME with node_modules linked to the installed packages, a project folder
// (a git work tree), and a bin/ folder first on PATH for stand-ins of the tools a plugin runs.
function user(packages, { config = "", env = {} } = {}) {
  const root = mkdtempSync(join(tmpdir(), "plugline-npm-"));
  scratch.push(root);
  const home = join(root, "home");
  const pluglineHome = join(home, ".plugline");
  const project = join(root, "project");
  const bin = join(root, "bin");
  for (const dir of [pluglineHome, project, bin]) mkdirSync(dir, { recursive: true });
  mkdirSync(join(project, ".git"));
  symlinkSync(MODULES, join(pluglineHome, "node_modules"));
  writeFileSync(join(pluglineHome, "config.yaml"),
                `plugins:\n  packages:\n${packages.map((p) => `    - "${p}"\n`).join("")}${config}`);
  const environment = {
    ...process.env, HOME: home, PLUGLINE_HOME: pluglineHome, XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"), XDG_DATA_HOME: join(home, ".local/share"),
    PATH: `${bin}:${process.env.PATH}`, ...env,
  };
  delete environment.PLUGLINE_SERVER;  // the default: the per-user server, started on demand
  const run = (args, input) => {
    const result = spawnSync(PLUGLINE, args, { cwd: project, env: environment, input, encoding: "utf8", timeout: 60_000 });
    assert.equal(result.error, undefined, `plugline ${args.join(" ")}: ${result.error}`);
    return result;
  };
  const json = (args, input) => {
    const result = run(args, input);
    assert.equal(result.status, 0, `plugline ${args.join(" ")} exited ${result.status}:\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  after(() => run(["server", "stop"]));
  return {
    home, project, bin, run, json,
    trigger: (name, input, output) => json(["trigger", name, "--input", JSON.stringify(input ?? {}),
                                            "--output", JSON.stringify(output ?? {})]),
    // `plugline tool` answers {ok, output, error, ...}, and exits 1 when the tool failed.
    tool: (name, args, context) => {
      const result = run(["tool", name, "--args", JSON.stringify(args),
                          ...(context ? ["--context", JSON.stringify(context)] : [])]);
      assert.ok(result.status === 0 || result.status === 1, `plugline tool ${name}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    // The same as trigger(), without blocking this process (for a server it runs itself).
    triggerAsync: (name, input, output) => new Promise((resolve, reject) => {
      const child = spawn(PLUGLINE, ["trigger", name, "--input", JSON.stringify(input ?? {}),
                                     "--output", JSON.stringify(output ?? {})], { cwd: project, env: environment });
      let stdout = "";
      child.stdout.on("data", (chunk) => { stdout += chunk; });
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`exit ${code}`))));
    }),
    // A stand-in for a program a plugin runs: records its arguments, one line per call.
    fake: (name, script = "") => {
      const log = join(root, `${name}.calls`);
      writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n${script}`);
      chmodSync(join(bin, name), 0o755);
      return () => (existsSync(log) ? readFileSync(log, "utf8") : "");
    },
    plugin: (id) => json(["plugins", "--json"]).plugins.find((p) => p.id === id),
  };
}

// Claude Code's PreToolUse call, as the agent sends it to `plugline hook --agent claude-code`.
function preToolUse(u, tool, toolInput) {
  return u.json(["hook", "--agent", "claude-code", "PreToolUse"], JSON.stringify({
    session_id: "s1", hook_event_name: "PreToolUse", tool_name: tool, tool_input: toolInput,
    cwd: u.project, tool_use_id: "t1", transcript_path: join(u.project, "t.jsonl"),
  }));
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f)));
}

test("cc-safety-net: a guard that throws blocks git reset --hard and reading .env, lets ls run, and adds its command", () => {
  const u = user(["cc-safety-net"]);
  assert.equal(u.plugin("cc-safety-net").state, "enabled");
  // Through Claude Code's dialect: Read → read, file_path → filePath, a throw → a deny.
  const denied = preToolUse(u, "Read", { file_path: join(u.project, ".env") });
  assert.equal(denied.hookSpecificOutput.permissionDecision, "deny");
  assert.match(denied.hookSpecificOutput.permissionDecisionReason, /^BLOCKED by CC Safety Net[\s\S]*Rule: secret\.basename\.env/);
  const reset = preToolUse(u, "Bash", { command: "git reset --hard" });
  assert.equal(reset.hookSpecificOutput.permissionDecision, "deny");
  assert.match(reset.hookSpecificOutput.permissionDecisionReason, /Rule: git\.reset-hard/);
  const allowed = u.run(["hook", "--agent", "claude-code", "PreToolUse"], JSON.stringify({
    session_id: "s1", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls -la" },
    cwd: u.project, tool_use_id: "t2",
  }));
  assert.equal(allowed.status, 0);
  assert.doesNotMatch(allowed.stdout, /deny/);
  // Its own audit log, under the user's home: the deny, with its rule.
  const audit = filesUnder(join(u.home, ".cc-safety-net/logs")).filter((f) => f.endsWith("-s1.jsonl"));
  assert.equal(audit.length, 1, "one audit log for session s1");
  assert.match(readFileSync(audit[0], "utf8"), /"ruleId":"git\.reset-hard"/);
  // Its config hook adds its slash command.
  const config = u.trigger("config", {}, {});
  assert.match(config.output.command["cc-safety-net"].description, /^Operate CC Safety Net/);
});

test("cc-safety-net, imported by a Node host and added with addPlugin(): the published module runs unchanged in the host's own process", async (t) => {
  const u = user([]);
  const { Host } = createRequire(import.meta.url)(join(here, "../../bindings/node"));
  const saved = process.env.HOME;
  process.env.HOME = u.home;  // its audit log goes under the user's home
  t.after(() => { process.env.HOME = saved; });
  const host = new Host({ home: join(u.home, ".plugline"), projectDir: u.project });
  t.after(() => host.close());
  const added = await host.addPlugin(await import(join(MODULES, "cc-safety-net/dist/index.js")));
  assert.equal(added.id, "cc-safety-net");
  assert.ok(added.hooks.includes("tool.execute.before"));
  const call = (command) => ({ session_id: "s2", call_id: "c1", tool: "terminal", arguments: JSON.stringify({ command }) });
  const reset = await host.dispatchAsync("pre_tool_call", call("git reset --hard"));
  assert.equal(reset.denied, true);
  assert.equal(reset.denied_by, "cc-safety-net");
  assert.match(reset.reason, /^BLOCKED by CC Safety Net[\s\S]*Rule: git\.reset-hard/);
  const ls = await host.dispatchAsync("pre_tool_call", call("ls -la"));
  assert.equal(ls.denied, false);
  assert.deepEqual(ls.skipped, []);
});

test("opencode-vibeguard: secrets masked in the messages come back in the tool's arguments", () => {
  const u = user(["opencode-vibeguard"]);
  writeFileSync(join(u.project, "vibeguard.config.json"), JSON.stringify({
    enabled: true, patterns: { keywords: [{ value: "my-api-key-123", category: "API_KEY" }] },
  }));
  const masked = u.trigger("experimental.chat.messages.transform", {}, {
    messages: [{ info: { sessionID: "s1" }, parts: [{ type: "text", text: "use my-api-key-123 please" }] }],
  });
  const text = masked.output.messages[0].parts[0].text;
  const placeholder = /__VG_API_KEY_[0-9a-f]{12}__/.exec(text)?.[0];
  assert.ok(placeholder, `a placeholder in ${JSON.stringify(text)}`);
  assert.ok(!text.includes("my-api-key-123"));
  // The model answers with the placeholder; the tool call gets the real value back.
  const restored = u.trigger("tool.execute.before", { tool: "bash", sessionID: "s1", callID: "c1" },
                             { args: { command: `curl -H "X-Key: ${placeholder}" http://127.0.0.1/` } });
  assert.equal(restored.output.args.command, 'curl -H "X-Key: my-api-key-123" http://127.0.0.1/');
  // The same through an agent's hook: the rewritten arguments are what the agent runs.
  const hook = preToolUse(u, "Bash", { command: `echo ${placeholder}` });
  assert.equal(hook.hookSpecificOutput.updatedInput.command, "echo my-api-key-123");
});

test("heartbeat-opencode-plugin: a TypeScript package's tools, with schemas from its own Zod", () => {
  const u = user(["heartbeat-opencode-plugin"]);
  const info = u.plugin("heartbeat-opencode-plugin");
  assert.equal(info.state, "enabled");
  assert.equal(info.runtime, "node");
  assert.match(info.path, /index\.ts$/);
  const tools = u.json(["tools", "--json"]).tools;
  const create = tools.find((t) => t.name === "task_create");
  assert.ok(create, `task_create among ${tools.map((t) => t.name).join(", ")}`);
  assert.equal(create.parameters.properties.program.type, "string");
  assert.ok(create.parameters.required.includes("taskId"));
  assert.ok(!create.parameters.required.includes("status"), "status is optional");
  const made = u.tool("task_create", { program: "demo", taskId: "t1", description: "first task" });
  assert.equal(made.ok, true, made.error);
  assert.match(made.output, /Created task \[demo\]\[t1\] status=pending priority=normal/);
  assert.match(readFileSync(join(u.project, ".heartbeat/tasks.json"), "utf8"), /"taskId": "t1"/);
  assert.match(readFileSync(join(u.project, ".heartbeat/logs/heartbeat.log"), "utf8"),
               /\[demo\]\[t1\] Task created with status=pending/);
  const bogus = u.tool("task_update", { program: "demo", taskId: "t1", status: "bogus" });
  assert.match(bogus.output + (bogus.error ?? ""), /Invalid status: bogus/);
  // Zod's own validation: a missing required argument never reaches the tool.
  const missing = u.tool("task_create", { program: "demo" });
  assert.equal(missing.ok, false);
  assert.match(missing.error, /^invalid arguments for task_create: args\.taskId/);
});

test("hivemind-context-governance: system prompt and compaction transforms, its tools and its event log", () => {
  const u = user(["hivemind-context-governance"]);
  mkdirSync(join(u.project, ".opencode/planning"), { recursive: true });
  const declared = u.tool("declare_intent", { mode: "quick_fix", focus: "fix login bug" });
  assert.equal(declared.ok, true, declared.error);
  assert.equal(declared.output, 'Session: "fix login bug". Mode: quick_fix. Status: OPEN.');
  const system = u.trigger("experimental.chat.system.transform", { sessionID: "s1" }, { system: [] });
  assert.equal(system.output.system.length, 1);
  assert.match(system.output.system[0], /^<hivemind-governance>/);
  assert.match(system.output.system[0], /Trajectory: fix login bug/);
  const compacting = u.trigger("experimental.session.compacting", { sessionID: "s1" }, { context: [] });
  assert.match(compacting.output.context.join("\n"), /=== HiveMind Context \(post-compaction\) ===/);
  u.trigger("event", { event: { type: "session.idle", properties: { sessionID: "s1" } } }, {});
  assert.match(readFileSync(join(u.project, ".opencode/planning/logs/hivemind-core.log"), "utf8"),
               /\[INFO\] event: session\.idle/);
});

test("opencode-prompt-recorder: the user's prompts recorded to files, offline", () => {
  const u = user(["opencode-prompt-recorder"]);
  const event = (type, properties) => u.trigger("event", { event: { type, properties } }, {});
  event("message.updated", { info: { id: "m1", role: "user", sessionID: "s1" } });
  event("message.part.updated", { part: { type: "text", text: "hello recorder world", sessionID: "s1", messageID: "m1" } });
  const files = filesUnder(join(u.project, ".prompts")).filter((f) => f.endsWith(".txt"));
  assert.equal(files.length, 1, `one prompt file: ${files}`);
  assert.match(files[0], /\/\d{4}\/\d{2}\/\d{2}\/\d{12}-hello recorder world\.txt$/);
  const text = readFileSync(files[0], "utf8");
  assert.match(text, /SessionID: s1/);
  assert.match(text, /hello recorder world/);
});

test("opencode-ghostty-notify: a notifier that rings through $ when the session goes idle", () => {
  const u = user(["opencode-ghostty-notify"]);
  const afplay = u.fake("afplay");
  const idle = u.trigger("event", { event: { type: "session.idle", properties: { sessionID: "s1" } } }, {});
  assert.deepEqual(idle.errors, []);
  assert.equal(afplay(), "/System/Library/Sounds/Glass.aiff\n");
  // Other events ring nothing.
  u.trigger("event", { event: { type: "session.created", properties: {} } }, {});
  assert.equal(afplay(), "/System/Library/Sounds/Glass.aiff\n");
});

test("opencode-beads: a config hook that adds commands and an agent, TypeScript source read by import.meta.url", () => {
  const u = user(["opencode-beads"]);
  assert.match(u.plugin("opencode-beads").path, /src\/plugin\.ts$/);
  const config = u.trigger("config", {}, { command: { mine: { template: "x" } } });
  assert.equal(config.output.command["bd-ready"].description, "Find ready-to-work tasks with no blockers");
  assert.ok(Object.keys(config.output.command).length >= 20);
  assert.equal(config.output.command.mine.template, "x", "the user's own commands stay");
  assert.equal(config.output.agent["beads-task-agent"].mode, "subagent");
});

test("opencode-lmstudio: a config hook that adds a provider for the models a local server serves", async () => {
  const server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(request.url === "/v1/models" ? JSON.stringify({ data: [{ id: "qwen2.5-7b-instruct", object: "model" }] }) : "{}");
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(1234, "127.0.0.1", resolve));
  try {
    const u = user(["opencode-lmstudio"]);
    const config = await u.triggerAsync("config", {}, {});
    const provider = config.output.provider?.lmstudio;
    assert.ok(provider, JSON.stringify(config));
    assert.equal(provider.options.baseURL, "http://127.0.0.1:1234/v1");
    assert.equal(provider.npm, "@ai-sdk/openai-compatible");
    assert.ok(Object.values(provider.models).some((m) => m.id === "qwen2.5-7b-instruct"));
  } finally {
    server.close();
  }
});

test("opencode-destructive-check: a TypeScript default export asks before a forced push, and its status tool counts", () => {
  const id = "@sureshsankaran/opencode-destructive-check";
  const u = user([id]);
  assert.match(u.plugin(id).path, /src\/index\.ts$/);
  const ask = u.trigger("permission.ask", { id: "p1", type: "bash", pattern: "git push --force origin main", sessionID: "s1", metadata: {} }, { status: "allow" });
  assert.equal(ask.output.status, "ask");
  const fine = u.trigger("permission.ask", { id: "p2", type: "bash", pattern: "ls -la", sessionID: "s1", metadata: {} }, { status: "allow" });
  assert.equal(fine.output.status, "allow");
  const status = u.tool("destructive-check-status", {}, { sessionID: "s1" });
  assert.equal(status.ok, true, status.error);
  const report = JSON.parse(status.output);
  assert.equal(report.enabled, true);
  assert.equal(report.session.permissionsRequested, 1);
  assert.equal(report.session.lastMatch.command, "git push --force origin main");
});

test("opencode-image-proxy: a pasted image becomes the vision model's text, through a host's client (the Node binding)", (t) => {
  // A host that has OpenCode's API: the Node binding, whose client callback plays OpenCode's
  // server. The plugin asks it for a vision session, a prompt, and the session's deletion.
  const id = "@sami7786/opencode-image-proxy";
  const u = user([id]);
  const { Host } = createRequire(import.meta.url)(join(here, "../../bindings/node"));
  const calls = [];
  const client = (path, args) => {
    calls.push(path);
    if (path === "session.create") return { data: { id: "vision-1" } };
    if (path === "session.prompt") return { data: { parts: [{ type: "text", text: "A cat on a keyboard." }] } };
    if (path === "session.delete") return { data: true };
    throw new Error(`unexpected client call ${path}`);
  };
  const saved = process.env.HOME;
  process.env.HOME = u.home;  // the plugin reads its settings under the user's home
  t.after(() => { process.env.HOME = saved; });
  const host = new Host({ home: join(u.home, ".plugline"), projectDir: u.project, client });
  t.after(() => host.close());
  assert.equal(host.plugins().find((p) => p.id === id).state, "enabled");
  const part = { id: "pt1", type: "file", mime: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", filename: "shot.png" };
  const message = host.trigger("chat.message", { sessionID: "s1", messageID: "m1", model: { providerID: "zai-coding-plan", modelID: "glm-4.6" } }, { parts: [part] });
  assert.deepEqual(message.errors, []);
  const transformed = host.trigger("experimental.chat.messages.transform", {}, { messages: [{ info: { sessionID: "s1", id: "m1" }, parts: [part] }] });
  assert.deepEqual(transformed.errors, []);
  const replaced = transformed.output.messages[0].parts[0];
  assert.equal(replaced.type, "text");
  assert.equal(replaced.text, "[User pasted image: shot.png]\nA cat on a keyboard.");
  assert.equal(replaced.url, undefined);
  assert.deepEqual(calls, ["session.create", "session.prompt", "session.delete"]);
});

test("opencode-wakatime: file edits reported to wakatime-cli when the session goes idle", () => {
  const u = user(["opencode-wakatime"]);
  const wakatime = u.fake("wakatime-cli");
  const file = join(u.project, "a.ts");
  writeFileSync(file, "export {};\n");
  u.trigger("event", { event: { type: "message.part.updated", properties: { part: {
    type: "tool", tool: "edit", callID: "c1", sessionID: "s1",
    state: { status: "completed", metadata: { filediff: { file, additions: 3, deletions: 1 } }, title: "a.ts", output: "" },
  } } } }, {});
  u.trigger("event", { event: { type: "session.idle", properties: { sessionID: "s1" } } }, {});
  const calls = wakatime();
  assert.match(calls, new RegExp(`--entity ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  assert.match(calls, /--category ai coding/);
  assert.match(calls, /--ai-line-changes 2/);
});

test("opencode-copilot-auth: an auth hook whose loader rewrites costs and points at the enterprise host", () => {
  const u = user(["opencode-copilot-auth"]);
  const listed = u.trigger("auth", {}, {});
  const copilot = listed.output.providers.find((p) => p.provider === "github-copilot");
  assert.ok(copilot, JSON.stringify(listed));
  assert.ok(copilot.methods.some((m) => m.label === "Login with GitHub Copilot"));
  const loaded = u.trigger("auth.loader", {
    provider: "github-copilot",
    auth: { type: "oauth", refresh: "r", access: "a", expires: 0, enterpriseUrl: "https://company.ghe.com/" },
    info: { id: "github-copilot", models: { "gpt-4o": { cost: { input: 5, output: 15 } } } },
  }, {});
  assert.equal(loaded.output.options.baseURL, "https://copilot-api.company.ghe.com");
});

test("opencode-skills: a plugin that imports Bun's own module is broken, and says so by name", () => {
  const u = user(["opencode-skills", "opencode-ghostty-notify"]);
  const skills = u.plugin("opencode-skills");
  assert.equal(skills.state, "broken");
  assert.match(skills.reason, /'bun' is one of Bun's built-in modules, which plugline does not provide/);
  assert.doesNotMatch(skills.reason, /data:text\/javascript|node:internal/);
  assert.equal(u.plugin("opencode-ghostty-notify").state, "enabled", "the others load");
});

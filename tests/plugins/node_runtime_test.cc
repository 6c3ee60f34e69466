// The node runtime: OpenCode plugins that need Node.js (built-in modules, process, Buffer,
// CommonJS, N-API) run in plugline-node-worker — real files, real Node (libnode), real
// processes. How each plugin gets its runtime, and that a loop, a crash, a hang or a runaway
// allocation in a plugin is skipped with its reason while the host and the plugin carry on.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "catalog/loopback_server.h"
#include "core/strings.h"
#include "core/json.h"
#include "plugline/host.h"
#include "plugins/host_helpers.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

#if PLUGLINE_TEST_WITH_V8

struct NodeFixture {
  TempDir home;
  TempDir project;
  std::unique_ptr<Host> host;
  std::vector<std::string> client_calls;

  void Open() {
    HostOptions options;
    options.home = home.path();
    options.project_dir = project.path();
    options.client = [this](std::string_view path,
                            std::string_view args) -> absl::StatusOr<std::string> {
      client_calls.push_back(StrCat(path, " ", args));
      return std::string(R"({"data":{"ok":true}})");
    };
    auto created = Host::Create(options);
    REQUIRE_MESSAGE(created.ok(), created.status().ToString());
    host = *std::move(created);
  }
  DispatchResult Bash(std::string_view command) {
    std::string args = core::ToJson(core::Value(StrCat(R"({"command":")", command, R"("})")));
    auto result = host->Dispatch(
        "pre_tool_call",
        StrCat(R"({"session_id":"s","call_id":"c","tool":"terminal","arguments":)", args, "}"));
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    return *std::move(result);
  }
  core::Value Trigger(std::string_view name, std::string_view input, std::string_view output) {
    return plugline::testing::TriggerValue(*host, name, input, output);
  }
  core::Value Entry(std::string_view id) { return plugline::testing::PluginEntry(*host, id); }
  std::string Log() const { return ReadFileOrEmpty(home.Sub("logs/plugline.log")); }
};

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

// What the published OpenCode plugins import, in one guard: Node's built-ins by both names,
// process.env, Buffer, createRequire and a JSON file through it, a child process, crypto, and a
// file read at load time. A plain .js file with ES syntax and no package.json, as OpenCode
// users drop them into their plugin folder.
constexpr std::string_view kNodeGuard = R"(import fs from "node:fs";
import { readFile } from "fs/promises";
import path from "path";
import os from "os";
import { execFileSync } from "child_process";
import crypto from "node:crypto";
import { createRequire } from "module";
import { fileURLToPath } from "url";

const require = createRequire(import.meta.url);
const settings = require("./guard-settings.json");
const here = path.dirname(fileURLToPath(import.meta.url));

export const Guard = async ({ directory }) => {
  const banned = (await readFile(path.join(here, "banned.txt"), "utf8")).trim().split("\n");
  return {
    "tool.execute.before": async (input, output) => {
      const command = String(output.args.command ?? "");
      if (banned.some((b) => command.includes(b))) {
        throw new Error(`${settings.name}: '${command}' is not allowed`);
      }
    },
    "shell.env": async (input, output) => {
      output.env.SHA = crypto.createHash("sha256").update("abc").digest("hex");
      output.env.B64 = Buffer.from("hi").toString("base64");
      output.env.PLATFORM = os.platform();
      output.env.CHILD = execFileSync("echo", ["from a child"]).toString().trim();
      output.env.CWD = process.cwd();
      output.env.HOME_SET = String(typeof process.env.HOME === "string");
      output.env.DIRECTORY = directory;
      output.env.EXISTS = String(fs.existsSync(path.join(here, "banned.txt")));
    },
  };
};
)";

TEST_CASE("node runtime: an OpenCode plugin gets Node's built-ins, process, Buffer and require") {
  NodeFixture f;
  WriteFile(f.home.Sub("plugins/guard.js"), kNodeGuard);
  WriteFile(f.home.Sub("plugins/banned.txt"), "rm -rf /\ncurl evil\n");
  WriteFile(f.home.Sub("plugins/guard-settings.json"), R"({"name":"node-guard"})");
  f.Open();

  core::Value entry = f.Entry("guard");
  INFO(Str(entry, "reason"));
  CHECK(Str(entry, "state") == "enabled");
  CHECK(Str(entry, "kind") == "opencode");
  CHECK(Str(entry, "runtime") == "node");

  DispatchResult denied = f.Bash("rm -rf / --no-preserve-root");
  CHECK(denied.denied);
  CHECK(denied.denied_by == "guard");
  CHECK(denied.reason == "node-guard: 'rm -rf / --no-preserve-root' is not allowed");
  CHECK_FALSE(f.Bash("ls -la").denied);

  core::Value env = f.Trigger("shell.env", R"({"cwd":"/"})", R"({"env":{}})");
  const core::Value* out = env.Find("output")->Find("env");
  REQUIRE(out != nullptr);
  CHECK(Str(*out, "SHA") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(Str(*out, "B64") == "aGk=");
  CHECK(Str(*out, "PLATFORM") == "linux");
  CHECK(Str(*out, "CHILD") == "from a child");
  CHECK(Str(*out, "HOME_SET") == "true");
  CHECK(Str(*out, "EXISTS") == "true");
  // process.cwd() is the project directory, as in OpenCode.
  CHECK(std::filesystem::equivalent(Str(*out, "CWD"), f.project.path()));
  CHECK(Str(*out, "DIRECTORY") == f.project.path());
}

TEST_CASE("node runtime: Bun's global does what Bun does, and what it lacks is absent") {
  NodeFixture f;
  // OpenCode's documented tool: a Python script run with Bun.$ from context.worktree.
  WriteFile(f.project.Sub(".opencode/tools/add.py"),
            "import sys\nprint(int(sys.argv[1]) + int(sys.argv[2]))\n");
  WriteFile(f.home.Sub("plugins/bunny.js"), R"js(import { tool } from "@opencode-ai/plugin";
import path from "path";
export default async () => ({
  tool: {
    add: tool({
      description: "Add two numbers using Python",
      args: { a: tool.schema.number(), b: tool.schema.number() },
      async execute(args, context) {
        const script = path.join(context.worktree, ".opencode/tools/add.py")
        const result = await Bun.$`python3 ${script} ${args.a} ${args.b}`.text()
        return result.trim()
      },
    }),
  },
  "chat.params": async (input, output) => {
    const file = Bun.file("notes/out.json");
    output.missing = await file.exists();
    output.written = await Bun.write("notes/out.json", JSON.stringify({ n: 7 }));
    output.read = await Bun.file("notes/out.json").json();
    output.type = Bun.file("notes/out.json").type;
    output.size = Bun.file("notes/out.json").size;
    output.sh = Bun.which("sh");
    output.nothing = Bun.which("no-such-command-here");
    const sync = Bun.spawnSync(["sh", "-c", "echo out; echo err >&2; exit 3"]);
    output.sync = { code: sync.exitCode, ok: sync.success, out: sync.stdout.toString(), err: sync.stderr.toString() };
    const proc = Bun.spawn(["sh", "-c", "cat; echo done"], { stdin: new Response("piped input\n") });
    output.spawned = { text: await new Response(proc.stdout).text(), code: await proc.exited };
    const piped = Bun.spawn({ cmd: ["tr", "a-z", "A-Z"], stdin: "pipe" });
    piped.stdin.write("shout");
    await piped.stdin.end();
    output.piped = await new Response(piped.stdout).text();
    output.fed = Bun.spawnSync(["cat"], { stdin: Buffer.from("bytes") }).stdout.toString();
    const started = Date.now();
    await Bun.sleep(20);
    output.slept = Date.now() - started >= 15;
    output.env = Bun.env.HOME === process.env.HOME;
    const failed = await Bun.$`sh -c 'exit 4'`.nothrow();
    output.shell = { code: failed.exitCode, buffer: Buffer.isBuffer(failed.stdout) };
    output.absent = ["hash", "serve", "Glob", "password", "sql"].filter((k) => k in Bun);
  },
});
)js");
  f.Open();
  core::Value entry = f.Entry("bunny");
  INFO(Str(entry, "reason"));
  REQUIRE(Str(entry, "state") == "enabled");
  auto added = f.host->ExecuteTool("add", R"({"a":2,"b":3})", "{}");
  REQUIRE(added.ok());
  CHECK(added->output == "5");

  core::Value r = f.Trigger("chat.params", "{}", "{}");
  const core::Value* o = r.Find("output");
  INFO(core::ToJson(r));
  REQUIRE(o != nullptr);
  CHECK_FALSE(o->Find("missing")->as_bool());
  CHECK(o->Find("written")->as_number() == 7);
  CHECK(core::ToJson(*o->Find("read")) == R"({"n":7})");
  CHECK(Str(*o, "type") == "application/json;charset=utf-8");
  CHECK(o->Find("size")->as_number() == 7);
  CHECK(ReadFileOrEmpty(f.project.Sub("notes/out.json")) == R"({"n":7})");  // the project's folder
  CHECK(Contains(Str(*o, "sh"), "/sh"));
  CHECK(o->Find("nothing")->is_null());
  CHECK(core::ToJson(*o->Find("sync")) == R"({"code":3,"ok":false,"out":"out\n","err":"err\n"})");
  CHECK(core::ToJson(*o->Find("spawned")) == R"({"text":"piped input\ndone\n","code":0})");
  CHECK(Str(*o, "piped") == "SHOUT");
  CHECK(Str(*o, "fed") == "bytes");
  CHECK(o->Find("slept")->as_bool());
  CHECK(o->Find("env")->as_bool());
  CHECK(core::ToJson(*o->Find("shell")) == R"({"code":4,"buffer":true})");
  CHECK(core::ToJson(*o->Find("absent")) == "[]");
}

TEST_CASE("node runtime: the sandboxed runtime has no Bun") {
  NodeFixture f;
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  js: {runtime: sandboxed}\n");
  WriteFile(f.home.Sub("plugins/plain.js"), R"js(export default async () => ({
  "chat.params": async (input, output) => { output.bun = typeof Bun; },
});
)js");
  f.Open();
  CHECK(Str(*f.Trigger("chat.params", "{}", "{}").Find("output"), "bun") == "undefined");
}

TEST_CASE("node runtime: a plugin loads a real N-API addon") {
  NodeFixture f;
  WriteFile(f.home.Sub("plugins/native.js"),
            StrCat(R"js(import { createRequire } from "node:module";
const probe = createRequire(import.meta.url)()js", core::ToJson(core::Value(PLUGLINE_TEST_NAPI_PROBE)), R"js();
export default async () => ({
  "chat.params": async (input, output) => {
    output.sum = probe.add(input.a, input.b);
    output.napi = probe.napiVersion;
  },
});
)js"));
  f.Open();
  core::Value entry = f.Entry("native");
  INFO(Str(entry, "reason"));
  REQUIRE(Str(entry, "state") == "enabled");
  CHECK(Str(entry, "runtime") == "node");
  core::Value r = f.Trigger("chat.params", R"({"a":2,"b":40})", "{}");
  CHECK(r.Find("output")->Find("sum")->as_number() == 42);
  CHECK(r.Find("output")->Find("napi")->as_number() >= 8);  // Node 18's N-API
}

TEST_CASE("node runtime: CommonJS packages, TypeScript entries and Bun's import extras load") {
  NodeFixture f;
  std::string nm = f.home.Sub("node_modules");
  // A CommonJS package (no "type"): module.exports, require() of a built-in and of a file.
  WriteFile(nm + "/cjs-guard/package.json",
            R"({"name":"cjs-guard","version":"1.0.0","main":"lib/index.js"})");
  WriteFile(nm + "/cjs-guard/lib/index.js",
            "const path = require('path');\nconst { word } = require('./word');\n"
            "module.exports = async () => ({\n"
            "  'tool.execute.before': async (input, output) => {\n"
            "    if (String(output.args.command).includes(word)) throw new Error(path.basename('/x/' + word));\n"
            "  },\n});\n");
  WriteFile(nm + "/cjs-guard/lib/word.js", "exports.word = 'shutdown';\n");
  // A package whose entry is TypeScript source, importing without extensions, a folder's
  // index, and "./x.js" for x.ts.
  WriteFile(nm + "/ts-tagger/package.json",
            R"({"name":"ts-tagger","version":"0.2.0","type":"module","main":"src/index.ts"})");
  WriteFile(nm + "/ts-tagger/src/index.ts",
            "import { a } from './a';\nimport { b } from './b.js';\nimport { c } from './c';\n"
            "type Out = { headers: Record<string, string> };\n"
            "export default async () => ({ 'chat.headers': async (_i: unknown, o: Out) => {\n"
            "  o.headers.tag = a + b + c;\n} });\n");
  WriteFile(nm + "/ts-tagger/src/a.ts", "export const a: string = 'A';\n");
  WriteFile(nm + "/ts-tagger/src/b.ts", "export const b: string = 'B';\n");
  WriteFile(nm + "/ts-tagger/src/c/index.ts", "export const c: string = 'C';\n");
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  packages: [cjs-guard, ts-tagger]\n");
  f.Open();

  INFO(f.host->PluginsJson());
  CHECK(Str(f.Entry("cjs-guard"), "runtime") == "node");
  DispatchResult denied = f.Bash("sudo shutdown now");
  CHECK(denied.denied);
  CHECK(denied.reason == "shutdown");
  core::Value r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  CHECK(Str(*r.Find("output")->Find("headers"), "tag") == "ABC");
  // Every file of the module graph is watched: changing one reloads the plugin.
  WriteFile(nm + "/ts-tagger/src/c/index.ts", "export const c: string = 'Z';\n");
  f.host->Reload();
  r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  CHECK(Str(*r.Find("output")->Find("headers"), "tag") == "ABZ");
}

// A plugin that misbehaves on demand; `rm -rf` is always denied, so that each test can show
// the plugin still guards after the misbehaviour.
constexpr std::string_view kUnruly = R"(let calls = 0;
export default async () => ({
  "tool.execute.before": async (input, output) => {
    calls++;
    const command = String(output.args.command);
    if (command === "loop") while (true) {}
    if (command === "exit") process.exit(3);
    if (command === "hang") await new Promise(() => {});
    if (command === "grow") { const keep = []; for (;;) keep.push(new Array(1e5).fill(calls)); }
    if (command === "late") {
      setTimeout(() => { throw new Error("late boom"); }, 0);
      Promise.reject(new Error("nobody awaits this"));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (command.includes("rm -rf")) throw new Error(`no (call ${calls})`);
  },
});
)";

TEST_CASE("node runtime: a loop, a crash, a hang or an allocation is skipped, and the plugin comes back") {
  NodeFixture f;
  WriteFile(f.home.Sub("plugins/unruly.js"), kUnruly);
  WriteFile(f.home.Sub("config.yaml"),
            "plugins:\n  overrides:\n    unruly: {hook_timeout_ms: 400, heap_limit_mb: 32}\n");
  f.Open();
  REQUIRE(f.Bash("rm -rf x").denied);
  CHECK(f.Bash("rm -rf x").reason == "no (call 2)");

  auto skipped = [&](std::string_view command, std::string_view why, std::string_view detail) {
    DispatchResult r = f.Bash(command);
    CAPTURE(command);
    CHECK_FALSE(r.denied);
    REQUIRE(r.skipped.size() == 1);
    CHECK(r.skipped[0].plugin == "unruly");
    CHECK(r.skipped[0].why == why);
    CHECK(Contains(r.skipped[0].detail, detail));
    // The worker is replaced and the plugin function runs again: it guards as before, with
    // its module state starting over.
    DispatchResult again = f.Bash("rm -rf y");
    CHECK(again.denied);
    CHECK(again.reason == "no (call 1)");
  };
  // A loop that never yields: the worker is killed at the time budget (plus a grace).
  skipped("loop", "deadline_exceeded", "exceeded its time budget of 400ms");
  skipped("exit", "unknown", "exited (status 3)");
  skipped("grow", "resource_exhausted", "memory");
  // A promise that never settles: the call fails at the budget, the worker lives on.
  DispatchResult hang = f.Bash("hang");
  REQUIRE(hang.skipped.size() == 1);
  CHECK(hang.skipped[0].why == "deadline_exceeded");
  CHECK(f.Bash("rm -rf z").reason == "no (call 3)");

  // An exception thrown in a timer and a rejection nobody handles are logged, never fatal.
  CHECK_FALSE(f.Bash("late").denied);
  CHECK(f.Bash("rm -rf w").reason == "no (call 5)");
  std::string log = f.Log();
  CHECK(Contains(log, "uncaught exception: Error: late boom"));
  CHECK(Contains(log, "unhandled rejection: Error: nobody awaits this"));
}

TEST_CASE("node runtime: console goes to plugline's log, and what a plugin prints cannot disturb it") {
  NodeFixture f;
  WriteFile(f.home.Sub("plugins/chatty.js"), R"js(export default async ({ $, client }) => {
  console.log("loaded with", { answer: 42 });
  process.stdout.write("not a protocol line\n");
  process.stderr.write("{\"id\":1,\"ok\":true}\n");
  return {
    "tool.execute.before": async (input, output) => {
      console.warn("checking", output.args.command);
      const who = await $`echo ${"a b; $(id)"}`.text();
      const answer = await client.app.log({ body: { service: "chatty", level: "info", message: "hi" } });
      output.args.command = `${output.args.command} # ${who.trim()} ${answer.data.ok}`;
    },
  };
};
)js");
  f.Open();
  DispatchResult r = f.Bash("make");
  CHECK_FALSE(r.denied);
  REQUIRE(r.arguments.has_value());
  CHECK(Contains(*r.arguments, R"js(make # a b; $(id) true)js"));
  REQUIRE(f.client_calls.size() == 1);
  CHECK(Contains(f.client_calls[0], "app.log"));
  std::string log = f.Log();
  CHECK(Contains(log, "loaded with { answer: 42 }"));
  CHECK(Contains(log, "checking make"));
}

TEST_CASE("node runtime: who gets it — OpenCode plugins by default, shapers and overrides sandboxed") {
  NodeFixture f;
  // A shaper stays in the sandbox; an OpenCode plugin without a Node import still gets Node.
  WriteFile(f.home.Sub("plugins/shaper.js"), R"(export default {
  meta: { name: "shaper", version: "1.0.0", description: "d", tier: "community" },
  match: () => ({ matched: false, confidence: 0 }),
  shape: () => ({ summary: typeof process }),
};
)");
  WriteFile(f.home.Sub("plugins/plain.js"),
            "export default async () => ({ 'chat.headers': async (i, o) => { o.headers.p = typeof process; } });\n");
  // A shaper that needs Node is refused unless the user says so; an OpenCode plugin the user
  // puts in the sandbox cannot import Node's modules there.
  WriteFile(f.home.Sub("plugins/fs-shaper.js"), R"(import fs from "node:fs";
export default {
  meta: { name: "fs-shaper", version: "1.0.0", description: "d", tier: "community" },
  match: () => ({ matched: true, confidence: 0.99 }),
  shape: () => ({ summary: `root exists: ${fs.existsSync("/")}` }),
};
)");
  WriteFile(f.home.Sub("plugins/boxed.js"),
            "import os from \"os\";\nexport default async () => ({ 'chat.headers': async (i, o) => { o.headers.os = os.platform(); } });\n");
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  overrides:\n    boxed: {runtime: sandboxed}\n");
  f.Open();
  CHECK(Str(f.Entry("shaper"), "runtime") == "sandboxed");
  CHECK(Str(f.Entry("plain"), "runtime") == "node");
  core::Value fs_shaper = f.Entry("fs-shaper");
  CHECK(Str(fs_shaper, "state") == "broken");
  CHECK(Contains(Str(fs_shaper, "reason"), "cannot import 'node:fs'"));
  CHECK(Contains(Str(fs_shaper, "reason"), "plugins.overrides.fs-shaper.runtime: node"));
  core::Value boxed = f.Entry("boxed");
  CHECK(Str(boxed, "state") == "broken");
  CHECK(Contains(Str(boxed, "reason"), "cannot import 'os'"));
  core::Value r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  CHECK(Str(*r.Find("output")->Find("headers"), "p") == "object");

  // The user's word puts the shaper in Node.
  WriteFile(f.home.Sub("config.yaml"),
            "plugins:\n  overrides:\n    boxed: {runtime: sandboxed}\n    fs-shaper: {runtime: node}\n");
  f.host->Reload();
  fs_shaper = f.Entry("fs-shaper");
  INFO(Str(fs_shaper, "reason"));
  CHECK(Str(fs_shaper, "state") == "enabled");
  CHECK(Str(fs_shaper, "runtime") == "node");
  std::string output;
  for (int i = 0; i < 300; ++i) output += StrCat("line ", i, " of a long output\n");
  ShapeRequest request;
  request.command = "anything";
  request.output = output;
  request.shaper = "fs-shaper";
  auto shaped = f.host->Shape(request);
  REQUIRE_MESSAGE(shaped.ok(), shaped.status().ToString());
  INFO(shaped->ToJson());
  CHECK(Contains(shaped->summary, "root exists: true"));
}

TEST_CASE("node runtime: a bad runtime name in config is reported and the default kept") {
  NodeFixture f;
  WriteFile(f.home.Sub("plugins/plain.js"),
            "export default async () => ({ 'chat.headers': async (i, o) => { o.headers.p = 1; } });\n");
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  js: {runtime: bun}\n");
  f.Open();
  CHECK(Str(f.Entry("plain"), "runtime") == "node");
  bool reported = false;
  for (const std::string& d : f.host->diagnostics()) {
    reported = reported || (Contains(d, "plugins.js.runtime") && Contains(d, "\"node\""));
  }
  CHECK(reported);
}

TEST_CASE("node runtime: fetch on loopback, a plain Node at process.execPath, the user's NODE_OPTIONS, no stray descriptors") {
  NodeFixture f;
  plugline::testing::TempDir site;
  WriteFile(site.Sub("data.json"), R"({"value":"from loopback"})");
  catalog::LoopbackServer server(site.path());
  WriteFile(f.home.Sub("plugins/node-env.js"), R"js(import { execFileSync } from "node:child_process";
import fs from "node:fs";
export default async () => ({
  "chat.headers": async (input, output) => {
    const response = await fetch(input.url);
    output.headers.fetched = (await response.json()).value;
    output.headers.execPath = execFileSync(process.execPath, ["-p", "process.version"]).toString().trim();
    output.headers.nodeOptions = process.env.NODE_OPTIONS ?? "(none)";
    // The worker's sockets (its pipes to plugline among them) that a child process holds too.
    const links = (dir) => fs.readdirSync(dir).map((fd) => { try { return fs.readlinkSync(`${dir}/${fd}`); } catch { return ""; } });
    const mine = new Set(links("/proc/self/fd").filter((l) => l.startsWith("socket:")));
    const child = execFileSync("sh", ["-c", "for f in /proc/$$/fd/*; do readlink $f; done; true"]).toString().split(/\s+/);
    output.headers.leaked = child.filter((l) => mine.has(l)).join(",") || "none";
    output.headers.sockets = String(mine.size);
    output.headers.stdin = String(require_free());
  },
});
function require_free() { return typeof require; }
)js");
  ::setenv("NODE_OPTIONS", "--no-deprecation", 1);
  f.Open();
  core::Value r = f.Trigger(
      "chat.headers", StrCat(R"({"url":")", server.Url("/data.json"), R"("})"), R"({"headers":{}})");
  ::unsetenv("NODE_OPTIONS");
  INFO(core::ToJson(r));
  INFO(f.host->PluginsJson());
  const core::Value* headers = r.Find("output")->Find("headers");
  REQUIRE(headers != nullptr);
  CHECK(Str(*headers, "fetched") == "from loopback");
  // A plugin that runs process.execPath gets Node.js itself (the worker without its flag).
  CHECK(Str(*headers, "execPath").rfind("v18.", 0) == 0);
  // The user's NODE_OPTIONS reach the plugin (the worker started without them).
  CHECK(Str(*headers, "nodeOptions") == "--no-deprecation");
  // The plugin's child processes hold none of the worker's connections to plugline.
  CHECK(Str(*headers, "sockets") != "0");
  CHECK(Str(*headers, "leaked") == "none");
  // An ES module: no CommonJS `require` in scope.
  CHECK(Str(*headers, "stdin") == "undefined");
}

TEST_CASE("node runtime: OpenCode's loader rules — V1 modules, exports once each, the server entry") {
  NodeFixture f;
  // A V1 module: only default.server runs; its other exports are not plugins.
  WriteFile(f.home.Sub("plugins/v1.js"), R"(export const VERSION = "1.0";
export default { id: "v1", server: async () => ({
  "chat.headers": async (input, output) => { output.headers.v1 = "yes"; },
}) };
)");
  // A V1 module for OpenCode's terminal UI only: nothing to run, said so.
  WriteFile(f.home.Sub("plugins/tui-only.js"),
            "export default { id: \"t\", tui: async () => ({}) };\n");
  WriteFile(f.home.Sub("plugins/bad-server.js"), "export default { id: \"b\", server: 5 };\n");
  // The same function exported three times initialises once.
  WriteFile(f.home.Sub("plugins/thrice.js"), R"(let inits = 0;
const plugin = async () => { inits++; return {
  "chat.headers": async (input, output) => { output.headers.inits = String(inits); },
}; };
export { plugin as a, plugin as b };
export default plugin;
)");
  // A package's "./server" export is its plugin entry, not ".".
  std::string nm = f.home.Sub("node_modules");
  WriteFile(nm + "/two-sided/package.json",
            R"({"name":"two-sided","version":"1.0.0","type":"module",)"
            R"("exports":{".":"./index.js","./server":{"import":"./server.js"},"./tui":"./tui.js"}})");
  WriteFile(nm + "/two-sided/index.js", "throw new Error('the library entry, not the plugin');\n");
  WriteFile(nm + "/two-sided/server.js",
            "export default async () => ({ 'chat.headers': async (i, o) => { o.headers.side = 'server'; } });\n");
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  packages: [two-sided]\n");
  f.Open();

  INFO(f.host->PluginsJson());
  core::Value r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  const core::Value* headers = r.Find("output")->Find("headers");
  CHECK(Str(*headers, "v1") == "yes");
  CHECK(Str(*headers, "inits") == "1");
  CHECK(Str(*headers, "side") == "server");
  core::Value tui = f.Entry("tui-only");
  CHECK(Str(tui, "state") == "enabled");
  REQUIRE(tui.Find("warnings")->as_array().size() == 1);
  CHECK(Contains(tui.Find("warnings")->as_array()[0].as_string(), "TUI plugin"));
  core::Value bad = f.Entry("bad-server");
  CHECK(Str(bad, "state") == "broken");
  CHECK(Contains(Str(bad, "reason"), "Plugin export is not a function"));
  CHECK(Contains(Str(f.Entry("two-sided"), "path"), "two-sided/server.js"));
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline

// OpenCode-style JS plugins through the Host: module forms, canonical events mapped onto their
// hooks, hooks by name, custom tools, `$` and `client` — real files, real V8.
#include "js/opencode_plugin.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/json.h"
#include "core/strings.h"
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

constexpr std::string_view kReadEnv =
    R"({"event":"pre_tool_call","session_id":"ses_1","call_id":"c1","tool":"read",)"
    R"("arguments":"{\"filePath\":\"/work/.env\"}"})";
constexpr std::string_view kReadMain =
    R"({"session_id":"ses_1","tool":"read","arguments":"{\"filePath\":\"/work/main.c\"}"})";

struct Fixture {
  TempDir home;
  TempDir project;
  std::unique_ptr<Host> host;
  std::vector<std::string> client_calls;

  void Open(bool process_isolation = false, bool with_client = true) {
    if (process_isolation) {
      WriteFile(home.Sub("config.yaml"), "plugins:\n  js:\n    isolation: process\n");
    }
    HostOptions options;
    options.home = home.path();
    options.project_dir = project.path();
    // The project's plugins are part of what these tests test: trusted as `plugline trust` does.
    plugline::testing::TrustProject(home.path(), project.path());
    if (with_client) {
      options.client = [this](std::string_view path,
                              std::string_view args) -> absl::StatusOr<std::string> {
        client_calls.push_back(StrCat(path, " ", args));
        if (path == "session.abort") return absl::UnavailableError("the server is down");
        return std::string(R"({"data":{"ok":true}})");
      };
    }
    auto created = Host::Create(options);
    REQUIRE_MESSAGE(created.ok(), created.status().ToString());
    host = *std::move(created);
  }
  DispatchResult Dispatch(std::string_view event, std::string_view payload) {
    auto result = host->Dispatch(event, payload);
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    return *std::move(result);
  }
  core::Value Trigger(std::string_view name, std::string_view input, std::string_view output) {
    return plugline::testing::TriggerValue(*host, name, input, output);
  }
  core::Value Entry(std::string_view id) { return plugline::testing::PluginEntry(*host, id); }
};

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

// OpenCode's documented example: block reading .env files.
constexpr std::string_view kEnvProtection = R"(export const EnvProtection = async ({ project, client, $, directory, worktree }) => {
  return {
    "tool.execute.before": async (input, output) => {
      if (input.tool === "read" && output.args.filePath.includes(".env")) {
        throw new Error("Do not read .env files");
      }
    },
  };
};
)";

void SeedExamplesWork(bool process_isolation) {
  Fixture f;
  WriteFile(f.home.Sub("plugins/env-protection.js"), kEnvProtection);
  WriteFile(f.project.Sub(".plugline/plugins/inject-env.js"), R"(export const InjectEnvPlugin = async () => {
  return {
    "shell.env": async (input, output) => {
      output.env.MY_API_KEY = "secret";
      output.env.PROJECT_ROOT = input.cwd;
    },
  };
};
)");
  f.Open(process_isolation);
  DispatchResult denied = f.Dispatch("pre_tool_call", kReadEnv);
  CHECK(denied.denied);
  CHECK(denied.denied_by == "env-protection");
  CHECK(denied.reason == "Do not read .env files");
  CHECK(!f.Dispatch("pre_tool_call", kReadMain).denied);

  core::Value env = f.Trigger("shell.env", R"({"cwd":"/work"})", R"({"env":{"A":"1"}})");
  const core::Value* output = env.Find("output");
  REQUIRE(output != nullptr);
  CHECK(Str(*output->Find("env"), "A") == "1");
  CHECK(Str(*output->Find("env"), "MY_API_KEY") == "secret");
  CHECK(Str(*output->Find("env"), "PROJECT_ROOT") == "/work");
  CHECK(env.Find("errors")->as_array().empty());
  CHECK(Str(f.Entry("env-protection"), "kind") == "opencode");
  CHECK(f.Entry("inject-env").Find("events")->as_array()[0].as_string() == "shell.env");
}

TEST_CASE("opencode: OpenCode's documented .env blocker and shell.env injector (in process)") {
  SeedExamplesWork(false);
}

TEST_CASE("opencode: OpenCode's documented .env blocker and shell.env injector (process isolation)") {
  SeedExamplesWork(true);
}

TEST_CASE("opencode: mutations compose in order across plugins, a rewrite and a replacement") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/a-prefix.js"), R"(export default async () => ({
  "tool.execute.before": async (input, output) => { output.args.command = "nice " + output.args.command; },
  "tool.execute.after": async (input, output) => { output.output = output.output.toUpperCase(); },
});
)");
  WriteFile(f.home.Sub("plugins/b-suffix.js"), R"(export default {
  id: "suffix",
  server: async () => ({
    "tool.execute.before": async (input, output) => { output.args.command += " --quiet"; },
    "tool.execute.after": async (input, output) => { output.output += " [checked]"; },
  }),
};
)");
  f.Open();
  DispatchResult r = f.Dispatch(
      "pre_tool_call", R"({"tool":"bash","arguments":"{\"command\":\"make\",\"timeout\":5}"})");
  INFO(f.host->PluginsJson());
  INFO(r.ToJson());
  REQUIRE(r.arguments.has_value());
  auto args = core::ParseJson(*r.arguments, "args");
  REQUIRE(args.ok());
  CHECK(Str(*args, "command") == "nice make --quiet");
  CHECK(args->Find("timeout")->as_number() == 5);
  REQUIRE(r.plugins.size() == 2);
  CHECK(r.plugins[0].action == "rewrite");
  CHECK(r.plugins[1].action == "rewrite");
  DispatchResult after = f.Dispatch(
      "post_tool_call", R"({"tool":"bash","arguments":"{}","result":"built ok"})");
  REQUIRE(after.result.has_value());
  CHECK(*after.result == "BUILT OK [checked]");
  // A plugin that changes nothing is no opinion.
  DispatchResult same = f.Dispatch("user_prompt", R"({"session_id":"s","prompt":"hi"})");
  CHECK(same.plugins.empty());
}

// Every (input, output) hook of the V1 Hooks interface, triggered by name with inputs and outputs
// shaped as @opencode-ai/plugin's types: each of two plugins sees the input and the output the
// one before left, and its mutation is in the final output.
TEST_CASE("opencode: every V1 (input, output) hook runs by name, in order, mutating the output") {
  Fixture f;
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> hooks = {
      {"chat.message", {R"({"sessionID":"s","agent":"build","model":{"providerID":"p","modelID":"m"},"messageID":"m1"})",
                        R"({"message":{"id":"m1","role":"user"},"parts":[{"type":"text","text":"hi"}]})"}},
      {"chat.params", {R"({"sessionID":"s","agent":"build","model":{"id":"m"},"provider":{"id":"p"},"message":{"id":"m1"}})",
                       R"({"temperature":1,"topP":1,"topK":40,"maxOutputTokens":null,"options":{}})"}},
      {"chat.headers", {R"({"sessionID":"s","agent":"build"})", R"({"headers":{"x-a":"1"}})"}},
      {"permission.ask", {R"({"id":"p1","type":"bash","pattern":"rm *","sessionID":"s","messageID":"m1","title":"rm","metadata":{}})",
                          R"({"status":"ask"})"}},
      {"command.execute.before", {R"({"command":"review","sessionID":"s","arguments":"HEAD~1"})", R"({"parts":[]})"}},
      {"tool.execute.before", {R"({"tool":"bash","sessionID":"s","callID":"c1"})", R"({"args":{"command":"ls"}})"}},
      {"shell.env", {R"({"cwd":"/srv","sessionID":"s","callID":"c1"})", R"({"env":{}})"}},
      {"tool.execute.after", {R"({"tool":"bash","sessionID":"s","callID":"c1","args":{}})",
                              R"({"title":"ls","output":"a b","metadata":{}})"}},
      {"experimental.chat.messages.transform", {"{}", R"({"messages":[{"info":{"id":"m1"},"parts":[]}]})"}},
      {"experimental.chat.system.transform", {R"({"sessionID":"s","model":{"id":"m"}})", R"({"system":["be brief"]})"}},
      {"experimental.provider.small_model", {R"({"provider":{"id":"p"}})", R"({"model":null})"}},
      {"experimental.session.compacting", {R"({"sessionID":"s"})", R"({"context":[]})"}},
      {"experimental.compaction.autocontinue", {R"({"sessionID":"s","agent":"build","overflow":false})", R"({"enabled":true})"}},
      {"experimental.text.complete", {R"({"sessionID":"s","messageID":"m1","partID":"p1"})", R"({"text":"draft"})"}},
      {"tool.definition", {R"({"toolID":"bash"})", R"({"description":"Run a command","parameters":{}})"}},
  };
  // Each hook of plugin <tag> appends "<tag>:<hook>:<a field of the input>" to output.seen.
  auto plugin = [&](std::string_view tag) {
    std::string body = "export default async () => ({\n";
    for (const auto& [name, io] : hooks) {
      body += StrCat("  \"", name, "\": async (input, output) => { output.seen = [...(output.seen ?? []), `",
                      tag, ":", name, ":${input.sessionID ?? input.toolID ?? input.id ?? input.provider?.id ?? '-'}`]; },\n");
    }
    return StrCat(body, "});\n");
  };
  WriteFile(f.home.Sub("plugins/first.js"), plugin("1"));
  WriteFile(f.project.Sub(".plugline/plugins/second.js"), plugin("2"));
  f.Open();
  const core::Value first = f.Entry("first");  // `events` points into it
  const core::Value* events = first.Find("events");
  REQUIRE(events != nullptr);
  CHECK(events->as_array().size() == hooks.size());
  for (const auto& [name, io] : hooks) {
    CAPTURE(name);
    core::Value r = f.Trigger(name, io.first, io.second);
    CHECK(r.Find("errors")->as_array().empty());
    const core::Value* output = r.Find("output");
    REQUIRE(output != nullptr);
    // What the host passed is still there.
    auto given = core::ParseJson(io.second, "output");
    REQUIRE(given.ok());
    for (const auto& [key, value] : given->as_object()) {
      CAPTURE(key);
      REQUIRE(output->Find(key) != nullptr);
      CHECK(core::ToJson(*output->Find(key)) == core::ToJson(value));
    }
    auto input = core::ParseJson(io.first, "input");
    REQUIRE(input.ok());
    std::string field = "-";
    for (const char* key : {"sessionID", "toolID", "id"}) {
      if (const core::Value* v = input->Find(key); v != nullptr && field == "-") field = v->as_string();
    }
    if (field == "-" && input->Find("provider") != nullptr) field = Str(*input->Find("provider"), "id");
    const core::Value* seen = output->Find("seen");
    REQUIRE(seen != nullptr);
    REQUIRE(seen->as_array().size() == 2);
    CHECK(seen->as_array()[0].as_string() == StrCat("1:", name, ":", field));
    CHECK(seen->as_array()[1].as_string() == StrCat("2:", name, ":", field));
  }
}

TEST_CASE("opencode: order across sources is global config dirs, project config dirs, global, project") {
  Fixture f;
  auto tagger = [](std::string_view tag) {
    return StrCat("export default async (ctx, options) => ({\n"
                  "  \"chat.headers\": async (input, output) => {\n"
                  "    output.headers.order = (output.headers.order ?? \"\") + \"",
                  tag, "\" + (options?.suffix ?? \"\");\n  },\n});\n");
  };
  WriteFile(f.home.Sub("config.yaml"),
            "plugins:\n  dirs: [extra]\n  overrides:\n    p4: {options: {suffix: '!'}}\n");
  WriteFile(f.project.Sub(".plugline/config.yaml"), "plugins:\n  dirs: [tools]\n");
  // Names run against the order, so name order alone would get it wrong.
  WriteFile(f.home.Sub("extra/p4.js"), tagger("1"));
  WriteFile(f.project.Sub("tools/p3.js"), tagger("2"));
  WriteFile(f.home.Sub("plugins/p2.js"), tagger("3"));
  WriteFile(f.project.Sub(".plugline/plugins/p1.js"), tagger("4"));
  f.Open();
  core::Value r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  CHECK(Str(*r.Find("output")->Find("headers"), "order") == "1!234");
  REQUIRE(r.Find("plugins")->as_array().size() == 4);
  CHECK(Str(r.Find("plugins")->as_array()[0], "plugin") == "p4");
  CHECK(Str(r.Find("plugins")->as_array()[3], "plugin") == "p1");
}

TEST_CASE("opencode: named exports are plugins, the same function twice runs once") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/multi.js"), R"(let runs = 0;
const counted = async () => { runs += 1; return { "experimental.text.complete": async (i, o) => { o.text += `+${runs}`; } }; };
export const First = counted;
export const Again = counted;
export const Second = async () => ({ "experimental.text.complete": async (i, o) => { o.text += "+second"; } });
)");
  f.Open();
  core::Value r = f.Trigger("experimental.text.complete", R"({"sessionID":"s","messageID":"m","partID":"p"})",
                            R"({"text":"t"})");
  // Exports run in name order (Again, First → one function, once; Second).
  CHECK(Str(*r.Find("output"), "text") == "t+1+second");
}

TEST_CASE("opencode: broken plugins and throwing hooks never stop the others") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/a-good.js"), R"(export default async () => ({
  event: async ({ event }) => { globalThis.seen = (globalThis.seen ?? 0) + 1; },
  "chat.params": async (input, output) => { output.temperature = 0.1; },
});
)");
  WriteFile(f.home.Sub("plugins/b-loadthrow.js"),
            "export default async () => { throw new Error('cannot start: no token'); };\n");
  WriteFile(f.home.Sub("plugins/c-notfn.js"), "export const name = 'x';\n");
  WriteFile(f.home.Sub("plugins/d-eventthrow.js"), R"(export default async () => ({
  event: async () => { throw new Error('event handler broke'); },
  "chat.params": async () => { throw new Error('params broke'); },
  "tui.prompt.append": async () => {},
});
)");
  WriteFile(f.home.Sub("plugins/e-good.js"), R"(export default async () => ({
  event: async () => {},
  "chat.params": async (input, output) => { output.topP = 0.5; },
});
)");
  f.Open();
  CHECK(Str(f.Entry("b-loadthrow"), "state") == "broken");
  CHECK(Contains(Str(f.Entry("b-loadthrow"), "reason"), "cannot start: no token"));
  CHECK(Contains(Str(f.Entry("c-notfn"), "reason"), "Plugin export is not a function"));
  core::Value d = f.Entry("d-eventthrow");
  CHECK(Str(d, "state") == "enabled");
  REQUIRE(d.Find("warnings")->as_array().size() == 1);
  CHECK(d.Find("warnings")->as_array()[0].as_string() == "unknown hook 'tui.prompt.append'");

  DispatchResult r = f.Dispatch("session_start", R"({"session_id":"ses_9"})");
  REQUIRE(r.plugins.size() == 3);
  CHECK(r.plugins[0].action == "none");
  CHECK(r.plugins[1].action == "skipped");
  CHECK(r.plugins[2].action == "none");
  REQUIRE(r.skipped.size() == 1);
  CHECK(Contains(r.skipped[0].detail, "event handler broke"));

  core::Value params = f.Trigger("chat.params", "{}", R"({"temperature":1,"topP":1})");
  CHECK(params.Find("output")->Find("temperature")->as_number() == doctest::Approx(0.1));
  CHECK(params.Find("output")->Find("topP")->as_number() == doctest::Approx(0.5));
  REQUIRE(params.Find("errors")->as_array().size() == 1);
  CHECK(Str(params.Find("errors")->as_array()[0], "plugin") == "d-eventthrow");
  CHECK(Contains(Str(params.Find("errors")->as_array()[0], "message"), "params broke"));
}

TEST_CASE("opencode: custom tools are listed with JSON Schema and executed, a throw is an error") {
  Fixture f;
  WriteFile(f.project.Sub(".plugline/plugins/math.js"), R"(import { tool } from "@opencode-ai/plugin";
export default async ({ directory }) => ({
  tool: {
    add: tool({
      description: "Add two numbers",
      args: { a: tool.schema.number().describe("first"), b: tool.schema.number().default(1) },
      async execute(args, context) { return `${args.a + args.b} in ${context.directory}`; },
    }),
    read: tool({
      description: "Reads, better",
      args: { path: tool.schema.string() },
      async execute(args) { throw new Error(`cannot read ${args.path}`); },
    }),
  },
});
)");
  f.Open();
  auto tools = core::ParseJson(f.host->ToolsJson({"read", "bash"}), "tools");
  REQUIRE(tools.ok());
  const core::ValueArray& list = tools->Find("tools")->as_array();
  REQUIRE(list.size() == 2);
  CHECK(Str(list[0], "name") == "add");
  CHECK(Str(list[0], "description") == "Add two numbers");
  CHECK(!list[0].Find("overrides_builtin")->as_bool());
  const core::Value* schema = list[0].Find("parameters");
  CHECK(Str(*schema, "type") == "object");
  CHECK(Str(*schema->Find("properties")->Find("a"), "type") == "number");
  CHECK(Str(*schema->Find("properties")->Find("a"), "description") == "first");
  CHECK(list[1].Find("overrides_builtin")->as_bool());  // "read" replaces the host's tool
  // The same, typed.
  const ToolList typed = f.host->Tools({"read", "bash"});
  REQUIRE(typed.tools.size() == 2);
  CHECK(typed.tools[0].name == "add");
  CHECK(typed.tools[0].plugin == "math");
  CHECK_FALSE(typed.tools[0].overrides_builtin);
  CHECK(typed.tools[1].overrides_builtin);
  CHECK(core::ParseJson(typed.tools[0].parameters_json, "parameters")->is_object());
  CHECK(typed.ToJson() == f.host->ToolsJson({"read", "bash"}));

  auto added = f.host->ExecuteTool("add", R"({"a":2})", R"({"directory":"/w","sessionID":"s"})");
  REQUIRE(added.ok());
  CHECK(added->ok);
  CHECK(added->output == "3 in /w");
  CHECK(added->plugin == "math");
  CHECK(Contains(added->ToJson(), R"({"ok":true,"output":"3 in /w","error":null,)"));
  auto bad = f.host->ExecuteTool("add", R"({"a":"two"})", "{}");
  REQUIRE(bad.ok());
  CHECK_FALSE(bad->ok);
  CHECK(Contains(bad->error, "invalid arguments for add"));
  CHECK(Contains(bad->ToJson(), R"("ok":false)"));
  auto thrown = f.host->ExecuteTool("read", R"({"path":"x"})", "{}");
  REQUIRE(thrown.ok());
  CHECK(thrown->error == "cannot read x");
  CHECK(Contains(thrown->ToJson(), R"("error":"cannot read x")"));
  CHECK(absl::IsNotFound(f.host->ExecuteTool("nope", "{}", "{}").status()));
}

TEST_CASE("opencode: $ runs real commands, interpolations are arguments, never shell text") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/shell.js"), R"(export default async ({ $, directory }) => ({
  "experimental.text.complete": async (input, output) => {
    const hostile = input.text;
    const echoed = await $`printf '%s' ${hostile}`.text();
    const many = await $`printf '[%s]' ${["a b", "c;d"]}`.text();
    const failed = await $`sh -c 'echo oops >&2; exit 3'`.nothrow();
    let thrown = "";
    try { await $`false`; } catch (e) { thrown = `${e.name}:${e.exitCode}`; }
    const json = await $`printf '{"n":%s}' ${7}`.json();
    const lines = await $`printf 'x\ny\n'`.lines();
    const where = (await $`pwd`.cwd("/tmp").text()).trim();
    const env = await $`printf '%s' "$GREETING"`.env({ GREETING: "hello" }).text();
    // As in Bun: stdout and stderr are Buffers in the node runtime (strings in the sandbox).
    const kind = typeof failed.stderr === "string" ? "string" : failed.stderr.constructor.name;
    output.result = { echoed, many, code: failed.exitCode, err: failed.stderr.toString().trim(), kind, thrown,
                      json, lines, where, env, dir: (await $`pwd`.text()).trim() === directory };
  },
});
)");
  f.Open();
  core::Value r = f.Trigger("experimental.text.complete",
                            R"({"text":"$(touch /tmp/plugline-pwned); `id` ; rm -rf / \"q\""})",
                            R"({"text":""})");
  const core::Value* result = r.Find("output")->Find("result");
  const std::string errors = core::ToJson(*r.Find("errors"));
  REQUIRE_MESSAGE(result != nullptr, errors);
  CHECK(Str(*result, "echoed") == "$(touch /tmp/plugline-pwned); `id` ; rm -rf / \"q\"");
  CHECK(Str(*result, "many") == "[a b][c;d]");
  CHECK(result->Find("code")->as_number() == 3);
  CHECK(Str(*result, "err") == "oops");
  CHECK(Str(*result, "kind") == "Buffer");  // a folder plugin: the node runtime
  CHECK(Str(*result, "thrown") == "ShellError:1");
  CHECK(result->Find("json")->Find("n")->as_number() == 7);
  CHECK(result->Find("lines")->as_array().size() == 2);
  CHECK(Str(*result, "where") == "/tmp");
  CHECK(Str(*result, "env") == "hello");
  CHECK(result->Find("dir")->as_bool());
  CHECK(::access("/tmp/plugline-pwned", F_OK) != 0);
}

TEST_CASE("opencode: plugins cannot reach the host except through the $ and client they get") {
  Fixture f;
  // A shaper that looks for a way out: the host-call global is gone before plugin code runs.
  WriteFile(f.home.Sub("plugins/sneaky.js"), R"(const found = typeof globalThis.__plugline_host_call;
export default {
  meta: { name: "sneaky", version: "1.0.0", description: `host call: ${found}`, tier: "community" },
  match() { return { matched: false, confidence: 0 }; },
  shape() { return { summary: "" }; },
};
)");
  WriteFile(f.home.Sub("plugins/importer.js"),
            "import call from \"plugline:host\";\nexport default async () => ({});\n");
  WriteFile(f.home.Sub("plugins/wrapped.js"),
            "import * as p from \"plugline:plugin\";\nexport default async () => ({});\n");
  f.Open();
  CHECK(Str(f.Entry("sneaky"), "description") == "host call: undefined");
  CHECK(Contains(Str(f.Entry("importer"), "reason"), "internal modules cannot be imported"));
  CHECK(Str(f.Entry("wrapped"), "state") == "broken");
}

TEST_CASE("opencode: client calls reach the host and its answer resolves them") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/client.js"), R"(export default async ({ client }) => ({
  "experimental.text.complete": async (input, output) => {
    const answer = await client.app.log({ body: { service: "p", level: "info", message: "hi" } });
    let failure = "";
    try { await client.session.abort(); } catch (e) { failure = e.message; }
    output.answer = answer;
    output.failure = failure;
  },
});
)");
  f.Open();
  core::Value r = f.Trigger("experimental.text.complete", "{}", "{}");
  const core::Value* output = r.Find("output");
  CHECK(output->Find("answer")->Find("data")->Find("ok")->as_bool());
  CHECK(Contains(Str(*output, "failure"), "client.session.abort() failed: the server is down"));
  REQUIRE(f.client_calls.size() == 2);
  CHECK(f.client_calls[0] ==
        R"(app.log [{"body":{"service":"p","level":"info","message":"hi"}}])");
}

TEST_CASE("opencode: without a client callback, client calls reject with a clear message") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/client.js"), R"(export default async ({ client }) => ({
  "experimental.text.complete": async (input, output) => {
    try { await client.session.prompt({}); } catch (e) { output.failure = e.message; }
  },
});
)");
  f.Open(false, /*with_client=*/false);
  core::Value r = f.Trigger("experimental.text.complete", "{}", "{}");
  CHECK(Contains(Str(*r.Find("output"), "failure"), "no client callback"));
}

TEST_CASE("opencode: config after load, dispose on reload and close, in order") {
  Fixture f;
  std::string log_file = f.home.Sub("lifecycle.txt");
  for (const char* name : {"a", "b"}) {
    WriteFile(f.home.Sub(StrCat("plugins/", name, ".js")),
              StrCat(R"(export default async ({ $ }) => ({
  config: async (config) => { await $`sh -c 'echo config-)", name, R"( >> )", log_file, R"('`; },
  dispose: async () => { await $`sh -c 'echo dispose-)", name, R"( >> )", log_file, R"('`; },
});
)"));
  }
  f.Open();
  CHECK(f.host->PluginsJson().find("\"a\"") != std::string::npos);  // loads them
  CHECK(ReadFileOrEmpty(log_file) == "config-a\nconfig-b\n");
  f.host->Reload();  // unchanged: kept, not disposed
  CHECK(ReadFileOrEmpty(log_file) == "config-a\nconfig-b\n");
  f.host.reset();
  CHECK(ReadFileOrEmpty(log_file) == "config-a\nconfig-b\ndispose-a\ndispose-b\n");
}

// npm packages: named in config (with options), found in node_modules, their own bare and
// relative imports resolved as Node does; local plugins import packages too.
void NpmPackagesWork(bool process_isolation) {
  Fixture f;
  auto tagger = [](std::string_view tag, std::string_view imports, std::string_view expr) {
    return StrCat(imports, "export default async (ctx, options) => ({\n"
                  "  \"chat.headers\": async (input, output) => {\n"
                  "    output.headers.order = (output.headers.order ?? \"\") + ", expr, " + \"",
                  tag, "\" + (options?.suffix ?? \"\");\n  },\n});\n");
  };
  std::string home_nm = f.home.Sub("node_modules");
  std::string project_nm = f.project.Sub(".plugline/node_modules");
  // A global package: conditional exports, a relative import and a dependency ("tiny-dep",
  // CommonJS `main` beside an ES `module`).
  WriteFile(home_nm + "/opencode-demo/package.json",
            R"({"name":"opencode-demo","version":"1.2.0","type":"module",)"
            R"("exports":{".":{"require":"./dist/index.cjs","import":"./dist/index.js"}}})");
  WriteFile(home_nm + "/opencode-demo/dist/index.js",
            tagger("1", "import { shout } from \"tiny-dep\";\nimport { mark } from \"./mark.js\";\n",
                   "shout(mark(\"a\"))"));
  WriteFile(home_nm + "/opencode-demo/dist/mark.js", "export const mark = (s) => `<${s}>`;\n");
  WriteFile(home_nm + "/tiny-dep/package.json",
            R"({"name":"tiny-dep","version":"0.1.0","main":"index.js","module":"esm.js"})");
  WriteFile(home_nm + "/tiny-dep/index.js", "module.exports = { shout: (s) => s };\n");
  WriteFile(home_nm + "/tiny-dep/esm.js", "export const shout = (s) => s.toUpperCase();\n");
  // A scoped project package, and a local plugin that imports a project dependency.
  WriteFile(project_nm + "/@acme/guard/package.json",
            R"({"name":"@acme/guard","version":"0.3.0","type":"module","main":"index.js"})");
  WriteFile(project_nm + "/@acme/guard/index.js", tagger("2", "", "\"\""));
  WriteFile(project_nm + "/left-pad/package.json", R"({"name":"left-pad","exports":"./index.mjs"})");
  WriteFile(project_nm + "/left-pad/index.mjs", "export default (s, n) => s.padStart(n, '.');\n");
  WriteFile(f.home.Sub("plugins/p3.js"), tagger("3", "", "\"\""));
  WriteFile(f.project.Sub(".plugline/plugins/p4.js"),
            tagger("4", "import pad from \"left-pad\";\n", "pad(\"\", 2)"));
  // plugline's resolver (Node's rules, read from disk) in the sandboxed runtime.
  WriteFile(f.home.Sub("config.yaml"),
            StrCat(process_isolation ? "plugins:\n  js: {isolation: process, runtime: sandboxed}\n"
                                     : "plugins:\n  js: {runtime: sandboxed}\n",
                   "  packages:\n    - [\"opencode-demo@1.2.0\", {suffix: \"!\"}]\n"
                   "    - not-installed\n    - ../escape\n"));
  // A JS project's own node_modules serves the project's file too.
  WriteFile(f.project.Sub("node_modules/dev-plugin/package.json"),
            R"({"name":"dev-plugin","version":"0.0.1","type":"module"})");
  WriteFile(f.project.Sub("node_modules/dev-plugin/index.js"), tagger("D", "", "\"\""));
  WriteFile(f.project.Sub(".plugline/config.yaml"),
            "plugins:\n  packages: [\"@acme/guard\", dev-plugin]\n");
  f.Open(false);
  core::Value r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  INFO(f.host->PluginsJson());
  CHECK(Str(*r.Find("output")->Find("headers"), "order") == "<A>1!2D3..4");
  REQUIRE(r.Find("plugins")->as_array().size() == 5);
  CHECK(Str(r.Find("plugins")->as_array()[0], "plugin") == "opencode-demo");
  CHECK(Str(r.Find("plugins")->as_array()[1], "plugin") == "@acme/guard");

  core::Value demo = f.Entry("opencode-demo");
  CHECK(Str(demo, "state") == "enabled");
  CHECK(Str(demo, "kind") == "opencode");
  CHECK(Str(demo, "version") == "1.2.0");
  CHECK(Str(demo, "source") == "global-config");
  CHECK(Contains(Str(demo, "path"), "opencode-demo/dist/index.js"));
  CHECK(demo.Find("warnings")->as_array().empty());
  core::Value missing = f.Entry("not-installed");
  CHECK(Str(missing, "state") == "broken");
  CHECK(Contains(Str(missing, "reason"), "package 'not-installed' is not installed"));
  CHECK(Contains(Str(missing, "reason"),
                 StrCat("npm install --prefix ", f.home.path(), " not-installed")));
  CHECK(Contains(Str(f.Entry("../escape"), "reason"), "is not an npm package name"));

  // Installing the missing package is picked up on reload.
  WriteFile(home_nm + "/not-installed/package.json",
            R"({"name":"not-installed","version":"2.0.0","type":"module"})");
  WriteFile(home_nm + "/not-installed/index.js", tagger("0", "", "\"\""));
  f.host->Reload();
  core::Value again = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
  CHECK(Str(*again.Find("output")->Find("headers"), "order") == "<A>1!02D3..4");
  CHECK(Str(f.Entry("not-installed"), "state") == "enabled");
}

TEST_CASE("opencode: npm packages and their imports load from node_modules (in process)") {
  NpmPackagesWork(false);
}

TEST_CASE("opencode: npm packages and their imports load from node_modules (process isolation)") {
  NpmPackagesWork(true);
}

TEST_CASE("opencode: package imports stay in their package, built-ins and the V2 Effect API are refused") {
  Fixture f;
  std::string nm = f.home.Sub("node_modules");
  WriteFile(f.home.Sub("secret.js"), "export const secret = 42;\n");
  WriteFile(nm + "/sneaky/package.json", R"({"name":"sneaky","type":"module"})");
  WriteFile(nm + "/sneaky/index.js",
            "import { secret } from \"../../secret.js\";\nexport default async () => ({});\n");
  WriteFile(nm + "/cjs-only/package.json", R"({"name":"cjs-only","main":"index.js"})");
  WriteFile(nm + "/cjs-only/index.js", "module.exports = async () => ({});\n");
  // The sandboxed runtime's rules (the node runtime's: "node runtime" tests below).
  WriteFile(f.home.Sub("config.yaml"),
            "plugins:\n  js: {runtime: sandboxed}\n"
            "  packages: [sneaky, cjs-only, \"x@1.0.0\", opencode-long-plugin-name]\n");
  WriteFile(nm + "/x/package.json", R"({"name":"x","version":"1.1.0","type":"module"})");
  WriteFile(nm + "/x/index.js", "export default async () => ({});\n");
  WriteFile(f.home.Sub("plugins/uses-fs.js"),
            "import { readFileSync } from \"node:fs\";\nexport default async () => ({});\n");
  WriteFile(f.home.Sub("plugins/v2.js"),
            "import { define } from \"@opencode-ai/plugin/v2/effect\";\n"
            "export default define({ id: \"v2\", effect: () => {} });\n");
  // Even with the real package installed (for its types), plugline's own module is used.
  WriteFile(nm + "/@opencode-ai/plugin/package.json",
            R"({"name":"@opencode-ai/plugin","type":"module","exports":{".":"./index.js","./v2/effect":"./v2.js"}})");
  WriteFile(nm + "/@opencode-ai/plugin/index.js", "throw new Error('not plugline\'s');\n");
  WriteFile(nm + "/@opencode-ai/plugin/v2.js", "export const define = (x) => x;\n");
  // A dependency whose folder is not inside the package's (and shorter) imports its own files;
  // TypeScript sources import without extensions or as ".js".
  WriteFile(nm + "/opencode-long-plugin-name/package.json",
            R"({"name":"opencode-long-plugin-name","type":"module","main":"index.ts"})");
  WriteFile(nm + "/opencode-long-plugin-name/index.ts",
            "import { two } from \"./src/two\";\nimport { three } from \"./src/three.js\";\n"
            "import { one } from \"ab\";\n"
            "export default async () => ({ \"chat.headers\": async (i: unknown, o: any) => "
            "{ o.headers.n = one + two + three; } });\n");
  WriteFile(nm + "/opencode-long-plugin-name/src/two.ts", "export const two: number = 2;\n");
  WriteFile(nm + "/opencode-long-plugin-name/src/three.ts", "export const three: number = 3;\n");
  WriteFile(nm + "/ab/package.json", R"({"name":"ab","type":"module","exports":"./lib/index.js"})");
  WriteFile(nm + "/ab/lib/index.js", "export { one } from \"./one.js\";\n");
  WriteFile(nm + "/ab/lib/one.js", "export const one = 1;\n");
  // A shaper imports packages the same way.
  WriteFile(f.home.Sub("plugins/pkg-shaper.js"),
            "import { one } from \"ab\";\nexport default {\n"
            "  meta: { name: \"pkg-shaper\", version: \"1\", description: \"d\", tier: \"community\" },\n"
            "  match: () => ({ confidence: one / 10 }),\n"
            "  shape: (input) => ({ summary: `one is ${one}` }),\n};\n");
  WriteFile(f.home.Sub("plugins/uses-tool.js"),
            "import { tool } from \"@opencode-ai/plugin\";\n"
            "export default async () => ({ tool: { hi: tool({ description: \"hi\", args: {}, "
            "execute: async () => \"hi\" }) } });\n");
  f.Open();
  CHECK(Contains(Str(f.Entry("v2"), "reason"),
                 "'@opencode-ai/plugin/v2/effect' is not provided: plugline runs OpenCode's V1 "
                 "plugin API and the V2 Promise API"));
  CHECK(Str(f.Entry("uses-tool"), "state") == "enabled");
  INFO(Str(f.Entry("pkg-shaper"), "reason"));
  CHECK(Str(f.Entry("pkg-shaper"), "state") == "enabled");
  CHECK(Str(f.Entry("pkg-shaper"), "kind") == "js-shaper");
  core::Value ts = f.Entry("opencode-long-plugin-name");
  INFO(Str(ts, "reason"));
  if (!Contains(Str(ts, "reason"), "TypeScript support was not built")) {
    CHECK(Str(ts, "state") == "enabled");
    core::Value r = f.Trigger("chat.headers", "{}", R"({"headers":{}})");
    const core::Value* n = r.Find("output")->Find("headers")->Find("n");
    REQUIRE(n != nullptr);
    CHECK(n->as_number() == 6);
  }
  core::Value sneaky = f.Entry("sneaky");
  CHECK(Str(sneaky, "state") == "broken");
  CHECK(Contains(Str(sneaky, "reason"), "cannot import '../../secret.js'"));
  CHECK(Contains(Str(sneaky, "reason"), "it resolves outside"));
  core::Value cjs = f.Entry("cjs-only");
  CHECK(Str(cjs, "state") == "broken");
  CHECK(Contains(Str(cjs, "reason"), "a CommonJS module"));
  core::Value fs = f.Entry("uses-fs");
  CHECK(Str(fs, "state") == "broken");
  CHECK(Contains(Str(fs, "reason"), "'node:fs' is a built-in module of Node.js or Bun"));
  core::Value x = f.Entry("x");
  CHECK(Str(x, "state") == "enabled");
  REQUIRE(x.Find("warnings")->as_array().size() == 1);
  CHECK(x.Find("warnings")->as_array()[0].as_string() ==
        "config asks for x@1.0.0, the installed version is 1.1.0");
}

TEST_CASE("opencode: auth and provider hooks are driven by name, OAuth callbacks included") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/acme.js"), R"(export const Acme = async () => ({
  auth: {
    provider: "acme",
    loader: async (getAuth, provider) => {
      const auth = await getAuth();
      return { apiKey: auth.key, baseURL: `https://${provider.id}.example` };
    },
    methods: [
      { type: "api", label: "API key",
        prompts: [{ type: "text", key: "key", message: "Your key",
                    validate: (v) => v.startsWith("sk-") ? undefined : "must start with sk-" },
                  { type: "text", key: "org", message: "Org", when: { key: "kind", op: "eq", value: "team" } },
                  { type: "text", key: "old", message: "Old", condition: (inputs) => inputs.kind === "legacy" }],
        authorize: async (inputs) => inputs.key ? { type: "success", key: inputs.key } : { type: "failed" } },
      { type: "oauth", label: "Browser",
        authorize: async () => ({ url: "https://acme.example/login", instructions: "Paste the code",
          method: "code",
          callback: async (code) => code === "good"
            ? { type: "success", refresh: "r1", access: "a1", expires: 7 } : { type: "failed" } }) },
    ],
  },
  provider: { id: "acme", models: async (provider, ctx) => ({
    ...(provider.models ?? {}), "acme-1": { id: "acme-1", name: `Acme 1 for ${ctx.auth?.type}` } }) },
});
)");
  // A second plugin for the same provider: the first in load order answers auth; its
  // provider hook runs after, on the models so far.
  WriteFile(f.project.Sub(".plugline/plugins/acme2.js"), R"(export default async () => ({
  auth: { provider: "acme", methods: [{ type: "api", label: "Other" }] },
  provider: { id: "acme", models: async (provider) => ({ ...provider.models, "acme-2": { id: "acme-2" } }) },
});
)");
  f.Open();
  for (const char* id : {"acme", "acme2"}) {
    INFO(Str(f.Entry(id), "reason"));
    REQUIRE(Str(f.Entry(id), "state") == "enabled");
  }
  core::Value list = f.Trigger("auth", "{}", "{}");
  REQUIRE(list.Find("output")->Find("providers") != nullptr);
  const auto& providers = list.Find("output")->Find("providers")->as_array();
  REQUIRE(providers.size() == 1);
  CHECK(Str(providers[0], "plugin") == "acme");
  CHECK(providers[0].Find("loader")->as_bool());
  const auto& methods = providers[0].Find("methods")->as_array();
  REQUIRE(methods.size() == 2);
  CHECK(Str(methods[1], "type") == "oauth");
  const core::Value& prompt = methods[0].Find("prompts")->as_array()[0];
  CHECK(Str(prompt, "message") == "Your key");
  CHECK(prompt.Find("validate")->as_bool());

  core::Value loader = f.Trigger("auth.loader", R"({"provider":"acme","auth":{"type":"api","key":"sk-9"}})", "{}");
  CHECK(Str(*loader.Find("output")->Find("options"), "apiKey") == "sk-9");
  CHECK(Str(*loader.Find("output")->Find("options"), "baseURL") == "https://acme.example");
  CHECK(Str(*loader.Find("output"), "plugin") == "acme");

  core::Value invalid = f.Trigger("auth.validate", R"({"provider":"acme","method":0,"key":"key","value":"xx"})", "{}");
  CHECK(Str(*invalid.Find("output"), "error") == "must start with sk-");
  core::Value valid = f.Trigger("auth.validate", R"({"provider":"acme","method":"API key","key":"key","value":"sk-1"})", "{}");
  CHECK(valid.Find("output")->Find("error") == nullptr);
  auto show = [&](std::string_view key, std::string_view kind) {
    core::Value r = f.Trigger("auth.condition",
                              StrCat(R"({"provider":"acme","method":0,"key":")", key,
                                     R"(","inputs":{"kind":")", kind, R"("}})"),
                              "{}");
    const core::Value* shown = r.Find("output")->Find("show");
    return shown != nullptr && shown->is_bool() && shown->as_bool();
  };
  CHECK(show("org", "team"));
  CHECK_FALSE(show("org", "solo"));
  CHECK(show("old", "legacy"));
  CHECK_FALSE(show("old", "team"));
  CHECK(show("key", "team"));  // neither: always
  core::Value api = f.Trigger("auth.authorize", R"({"provider":"acme","method":0,"inputs":{"key":"sk-2"}})", "{}");
  CHECK(Str(*api.Find("output"), "type") == "success");
  CHECK(Str(*api.Find("output"), "key") == "sk-2");

  core::Value oauth = f.Trigger("auth.authorize", R"({"provider":"acme","method":"Browser"})", "{}");
  CHECK(Str(*oauth.Find("output"), "url") == "https://acme.example/login");
  CHECK(Str(*oauth.Find("output"), "method") == "code");
  std::string handle = Str(*oauth.Find("output"), "callback");
  REQUIRE(handle != "<null>");
  core::Value done = f.Trigger("auth.callback", StrCat(R"({"callback":")", handle, R"(","code":"good"})"), "{}");
  CHECK(Str(*done.Find("output"), "type") == "success");
  CHECK(Str(*done.Find("output"), "access") == "a1");
  // A handle answers once.
  core::Value twice = f.Trigger("auth.callback", StrCat(R"({"callback":")", handle, R"(","code":"good"})"), "{}");
  CHECK(twice.Find("output")->Find("type") == nullptr);

  // Abandoned flows: a plugin keeps its 32 newest unanswered handles.
  std::vector<std::string> handles;
  for (int i = 0; i < 33; ++i) {
    core::Value started = f.Trigger("auth.authorize", R"({"provider":"acme","method":"Browser"})", "{}");
    handles.push_back(Str(*started.Find("output"), "callback"));
  }
  auto answer = [&](const std::string& h) {
    core::Value r = f.Trigger("auth.callback", StrCat(R"({"callback":")", h, R"(","code":"good"})"), "{}");
    return Str(*r.Find("output"), "type");
  };
  CHECK(answer(handles.front()) == "<null>");
  CHECK(answer(handles[1]) == "success");
  CHECK(answer(handles.back()) == "success");

  core::Value bad = f.Trigger("auth.authorize", R"({"provider":"acme","method":7})", "{}");
  REQUIRE(bad.Find("errors")->as_array().size() == 1);
  CHECK(Contains(Str(bad.Find("errors")->as_array()[0], "message"), "has no auth method 7"));

  core::Value models = f.Trigger("provider", R"({"provider":{"id":"acme","models":{"old":{}}},"auth":{"type":"oauth"}})", "{}");
  const core::Value* table = models.Find("output")->Find("models");
  REQUIRE(table != nullptr);
  CHECK(table->Find("old") != nullptr);
  CHECK(Str(*table->Find("acme-1"), "name") == "Acme 1 for oauth");
  CHECK(table->Find("acme-2") != nullptr);
  core::Value other = f.Trigger("provider", R"({"provider":{"id":"other"}})", "{}");
  CHECK(other.Find("output")->Find("models") == nullptr);
}

TEST_CASE("opencode: the plugline command line runs dispose hooks when a command ends") {
  TempDir home;
  TempDir project;
  std::string marker = home.Sub("disposed.txt");
  WriteFile(home.Sub("plugins/d.js"), StrCat(R"(export default async ({ $ }) => ({
  "tool.execute.before": async () => {},
  dispose: async () => { await $`echo disposed >> )", marker, R"(`; },
});
)"));
  WriteFile(home.Sub("payload.json"), R"({"tool":"bash","arguments":"{}"})");
  // In-process (no server): the command is the plugins' whole session.
  std::string command = StrCat("cd '", project.path(), "' && PLUGLINE_SERVER=0 PLUGLINE_HOME='", home.path(), "' '",
                               PLUGLINE_TEST_BIN_DIR, "/plugline' hook pre_tool_call --payload '",
                               home.Sub("payload.json"), "' > /dev/null");
  CHECK(std::system(command.c_str()) == 0);
  CHECK(ReadFileOrEmpty(marker) == "disposed\n");
}

// Node's path and url helpers are served (pure functions); path.resolve() resolves against the
// host's directory, import.meta.url is the plugin file.
void PathAndUrlWork(bool process_isolation) {
  Fixture f;
  WriteFile(f.home.Sub("plugins/paths.js"), R"(import path, { join, resolve } from "node:path";
import posix from "path/posix";
import { fileURLToPath, pathToFileURL } from "url";
const here = path.dirname(fileURLToPath(import.meta.url));
export default async ({ directory }) => ({
  "chat.headers": async (input, output) => {
    output.headers = {
      here, resolved: resolve("src/../lib"), joined: join(directory, ".env"),
      file: pathToFileURL("/tmp/a b#c").href, base: posix.basename("/x/y.ts", ".ts"),
      same: String(path.resolve() === directory),
    };
  },
});
)");
  f.Open(process_isolation);
  core::Value r = f.Trigger("chat.headers", "{}", "{}");
  INFO(f.host->PluginsJson());
  const core::Value* headers = r.Find("output")->Find("headers");
  REQUIRE(headers != nullptr);
  CHECK(Str(*headers, "here") == std::filesystem::canonical(f.home.Sub("plugins")).string());
  CHECK(Str(*headers, "resolved") == StrCat(f.project.path(), "/lib"));
  CHECK(Str(*headers, "joined") == StrCat(f.project.path(), "/.env"));
  CHECK(Str(*headers, "file") == "file:///tmp/a%20b%23c");
  CHECK(Str(*headers, "base") == "y");
  CHECK(Str(*headers, "same") == "true");
}

TEST_CASE("opencode: Node's path and url helpers are served (in process)") {
  PathAndUrlWork(false);
}

TEST_CASE("opencode: Node's path and url helpers are served (process isolation)") {
  PathAndUrlWork(true);
}

TEST_CASE("opencode: plugline plugins lists a package's warnings and a missing package's fix") {
  TempDir home;
  TempDir project;
  WriteFile(home.Sub("node_modules/pinned/package.json"),
            R"({"name":"pinned","version":"1.0.1","type":"module"})");
  WriteFile(home.Sub("node_modules/pinned/index.js"),
            "export default async () => ({ \"shell.env\": async () => {}, \"tui.prompt.append\": async () => {} });\n");
  WriteFile(home.Sub("config.yaml"), "plugins:\n  packages: [\"pinned@1.0.0\", absent]\n");
  std::string out_file = home.Sub("out.txt");
  std::string command = StrCat("cd '", project.path(), "' && PLUGLINE_HOME='", home.path(), "' '",
                               PLUGLINE_TEST_BIN_DIR, "/plugline' plugins > '", out_file, "'");
  CHECK(std::system(command.c_str()) == 0);
  std::string out = ReadFileOrEmpty(out_file);
  INFO(out);
  CHECK(Contains(out, "pinned (warning): config asks for pinned@1.0.0, the installed version is 1.0.1"));
  CHECK(Contains(out, "pinned (warning): unknown hook 'tui.prompt.append'"));
  CHECK(Contains(out, "absent (broken)"));
  CHECK(Contains(out, StrCat("npm install --prefix ", home.path(), " absent")));
}

TEST_CASE("opencode: a TypeScript plugin loads with its types stripped") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/typed.ts"), R"(import type { Plugin } from "@opencode-ai/plugin";
interface Args { command: string }
export const Typed: Plugin = async ({ directory }) => {
  return {
    "tool.execute.before": async (input: { tool: string }, output: { args: Args }) => {
      if (input.tool === "bash" && output.args.command.startsWith("sudo ")) {
        throw new Error(`no sudo in ${directory as string}`);
      }
    },
  };
};
)");
  f.Open();
  auto entry = f.Entry("typed");
  INFO(Str(entry, "reason"));
  if (Str(entry, "state") == "broken" && Contains(Str(entry, "reason"), "TypeScript support was not built")) {
    MESSAGE("TypeScript support was not built: skipped");
    return;
  }
  DispatchResult r =
      f.Dispatch("pre_tool_call", R"({"tool":"bash","arguments":"{\"command\":\"sudo rm x\"}"})");
  CHECK(r.denied);
  CHECK(Contains(r.reason, "no sudo in "));
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline

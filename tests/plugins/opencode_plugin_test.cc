// OpenCode-style JS plugins through the Host: module forms, canonical events mapped onto their
// hooks, hooks by name, custom tools, `$` and `client` — real files, real V8.
#include "js/opencode_plugin.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include "absl/strings/match.h"
#include "core/json.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

#if PLUGLINE_TEST_WITH_V8

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

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
    if (with_client) {
      options.client = [this](std::string_view path,
                              std::string_view args) -> absl::StatusOr<std::string> {
        client_calls.push_back(StrCat(path, " ", args));
        if (path == "app.fail") return absl::UnavailableError("the server is down");
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
    auto result = host->Trigger(name, input, output);
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    auto value = core::ParseJson(result->ToJson(), "trigger");
    REQUIRE(value.ok());
    return *std::move(value);
  }
  core::Value Entry(std::string_view id) {
    auto all = core::ParseJson(host->PluginsJson(), "plugins");
    REQUIRE(all.ok());
    for (const core::Value& p : all->Find("plugins")->as_array()) {
      if (p.Find("id")->as_string() == id) return p;
    }
    FAIL("no plugin " << id);
    return core::Value();
  }
};

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

// The seed's example: block reading .env files.
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

TEST_CASE("opencode: the seed's .env blocker and shell.env injector (in process)") {
  SeedExamplesWork(false);
}

TEST_CASE("opencode: the seed's .env blocker and shell.env injector (process isolation)") {
  SeedExamplesWork(true);
}

TEST_CASE("opencode: mutations compose in order across plugins; a rewrite and a replacement") {
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

TEST_CASE("opencode: named exports are plugins; the same function twice runs once") {
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

TEST_CASE("opencode: custom tools are listed with JSON Schema and executed; a throw is an error") {
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

  auto added = f.host->ExecuteTool("add", R"({"a":2})", R"({"directory":"/w","sessionID":"s"})");
  REQUIRE(added.ok());
  CHECK(Contains(*added, R"("ok":true,"output":"3 in /w")"));
  auto bad = f.host->ExecuteTool("add", R"({"a":"two"})", "{}");
  REQUIRE(bad.ok());
  CHECK(Contains(*bad, R"("ok":false)"));
  CHECK(Contains(*bad, "invalid arguments for add"));
  auto thrown = f.host->ExecuteTool("read", R"({"path":"x"})", "{}");
  REQUIRE(thrown.ok());
  CHECK(Contains(*thrown, R"("error":"cannot read x")"));
  CHECK(absl::IsNotFound(f.host->ExecuteTool("nope", "{}", "{}").status()));
}

TEST_CASE("opencode: $ runs real commands; interpolations are arguments, never shell text") {
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
    output.result = { echoed, many, code: failed.exitCode, err: failed.stderr.trim(), thrown,
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
    try { await client.app.fail(); } catch (e) { failure = e.message; }
    output.answer = answer;
    output.failure = failure;
  },
});
)");
  f.Open();
  core::Value r = f.Trigger("experimental.text.complete", "{}", "{}");
  const core::Value* output = r.Find("output");
  CHECK(output->Find("answer")->Find("data")->Find("ok")->as_bool());
  CHECK(Contains(Str(*output, "failure"), "client.app.fail() failed: the server is down"));
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

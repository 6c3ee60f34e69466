// OpenCode plugins the host runs itself (Host::AddOpenCodePlugin): the canonical events reach
// their hooks as OpenCode passes them, named triggers and tools reach the host's functions,
// and a failure is skipped or, failing closed, denies.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::TempDir;

std::unique_ptr<Host> MakeHost(const TempDir& home) {
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  return std::move(*host);
}

std::string Get(std::string_view json, std::string_view key) {
  absl::StatusOr<core::Value> value = core::ParseJson(json, "test");
  REQUIRE(value.ok());
  const core::Value* v = value->Find(key);
  return v == nullptr ? "" : v->is_string() ? v->as_string() : core::ToJson(*v);
}

// A guard written as an OpenCode plugin: refuses `rm -rf` by throwing, turns `python` into
// `python3`, masks a key in results, and records every call it gets.
struct Guard {
  std::vector<std::string> calls;
  OpenCodePluginOptions Options() {
    OpenCodePluginOptions options;
    options.id = "guard";
    options.hooks = {"tool.execute.before", "tool.execute.after", "event", "shell.env", "tool"};
    options.tools = {{"word_count", "Counts words", R"({"type":"object","properties":{"text":{"type":"string"}}})", "", false}};
    options.trigger = [this](std::string_view name, std::string_view input,
                             std::string_view output) -> absl::StatusOr<NamedHookRun> {
      calls.push_back(StrCat(name, " ", input));
      if (name == "tool.execute.before") {
        const std::string command = Get(Get(output, "args"), "command");
        if (command.starts_with("rm -rf")) return NamedHookRun{std::string(output), "no rm -rf"};
        if (command.starts_with("python ")) {
          return NamedHookRun{
              StrCat(R"({"args":{"command":"python3 )", command.substr(7), R"("}})"), ""};
        }
      }
      if (name == "tool.execute.after") {
        std::string text = Get(output, "output");
        if (size_t at = text.find("sk-"); at != std::string::npos) text.replace(at, 6, "sk-***");
        return NamedHookRun{StrCat(R"({"output":)", core::ToJson(core::Value(text)), "}"), ""};
      }
      if (name == "shell.env") return NamedHookRun{R"({"env":{"GUARDED":"1"}})", ""};
      return NamedHookRun{std::string(output), ""};
    };
    options.execute_tool = [](std::string_view name, std::string_view args,
                              std::string_view context) -> absl::StatusOr<ToolResult> {
      ToolResult result;
      result.ok = true;
      const std::string text = Get(args, "text");
      result.output = std::to_string(text.empty() ? 0 : 1 + std::count(text.begin(), text.end(), ' '));
      result.title = std::string(name);
      return result;
    };
    return options;
  }
};

TEST_CASE("host OpenCode plugin: tool.execute.before denies by throwing and rewrites args") {
  TempDir home;
  auto host = MakeHost(home);
  Guard guard;
  REQUIRE(host->AddOpenCodePlugin(guard.Options()).ok());

  auto denied = host->Dispatch(
      "pre_tool_call",
      R"({"session_id":"s1","call_id":"c1","tool":"terminal","arguments":"{\"command\":\"rm -rf /\"}"})");
  REQUIRE(denied.ok());
  CHECK(denied->denied);
  CHECK(denied->denied_by == "guard");
  CHECK(denied->reason == "no rm -rf");
  REQUIRE_FALSE(guard.calls.empty());
  CHECK(guard.calls.back() == R"(tool.execute.before {"tool":"bash","sessionID":"s1","callID":"c1"})");

  auto rewritten = host->Dispatch(
      "pre_tool_call", R"({"tool":"terminal","arguments":"{\"command\":\"python x.py\"}"})");
  REQUIRE(rewritten.ok());
  CHECK_FALSE(rewritten->denied);
  CHECK(rewritten->arguments == R"({"command":"python3 x.py"})");

  auto same = host->Dispatch("pre_tool_call", R"({"tool":"terminal","arguments":"{\"command\":\"ls\"}"})");
  REQUIRE(same.ok());
  REQUIRE(same->plugins.size() == 1);
  CHECK(same->plugins[0].action == "none");  // the same arguments given back are no rewrite
}

TEST_CASE("host OpenCode plugin: tool.execute.after replaces the result, events reach `event`") {
  TempDir home;
  auto host = MakeHost(home);
  Guard guard;
  REQUIRE(host->AddOpenCodePlugin(guard.Options()).ok());
  auto after = host->Dispatch(
      "post_tool_call", R"({"tool":"read","arguments":"{}","result":"key sk-123456 here"})");
  REQUIRE(after.ok());
  CHECK(after->result == "key sk-***456 here");

  REQUIRE(host->Dispatch("session_start", R"({"session_id":"s7"})").ok());
  CHECK(guard.calls.back() ==
        R"(event {"event":{"type":"session.created","properties":{"info":{"id":"s7"}}}})");
  // An event it has no hook for does not reach it.
  const size_t before = guard.calls.size();
  REQUIRE(host->Dispatch("user_prompt", R"({"prompt":"hi"})").ok());
  CHECK(guard.calls.size() == before);
}

TEST_CASE("host OpenCode plugin: named triggers, tools, listing and removal") {
  TempDir home;
  auto host = MakeHost(home);
  Guard guard;
  REQUIRE(host->AddOpenCodePlugin(guard.Options()).ok());

  auto env = host->Trigger("shell.env", R"({"cwd":"/"})", R"({"env":{}})");
  REQUIRE(env.ok());
  CHECK(env->output_json == R"({"env":{"GUARDED":"1"}})");
  REQUIRE(env->plugins.size() == 1);
  CHECK(env->plugins[0].plugin == "guard");

  ToolList tools = host->Tools({"bash"});
  REQUIRE(tools.tools.size() == 1);
  CHECK(tools.tools[0].name == "word_count");
  CHECK(tools.tools[0].plugin == "guard");
  auto counted = host->ExecuteTool("word_count", R"({"text":"one two three"})", "");
  REQUIRE(counted.ok());
  CHECK(counted->ok);
  CHECK(counted->output == "3");
  CHECK(counted->plugin == "guard");

  PluginList list = host->Plugins();
  auto it = std::find_if(list.plugins.begin(), list.plugins.end(),
                         [](const PluginInfo& p) { return p.id == "guard"; });
  REQUIRE(it != list.plugins.end());
  CHECK(it->kind == "opencode");
  CHECK(it->source == "host");
  CHECK(it->events == std::vector<std::string>{"tool.execute.before", "tool.execute.after", "event", "shell.env"});
  CHECK(host->SetPluginEnabled("guard", false).code() == absl::StatusCode::kInvalidArgument);

  // Ids are unique among the host's own hooks and plugins.
  CHECK(host->AddOpenCodePlugin(guard.Options()).code() == absl::StatusCode::kAlreadyExists);
  NativeHookOptions hook;
  hook.id = "guard";
  hook.function = [](std::string_view, std::string_view) { return HookAnswer{}; };
  CHECK(host->AddHook(hook).code() == absl::StatusCode::kAlreadyExists);

  REQUIRE(host->RemoveOpenCodePlugin("guard").ok());
  CHECK(host->RemoveOpenCodePlugin("guard").code() == absl::StatusCode::kNotFound);
  auto after = host->Dispatch("pre_tool_call", R"({"tool":"terminal","arguments":"{\"command\":\"rm -rf /\"}"})");
  REQUIRE(after.ok());
  CHECK_FALSE(after->denied);
  CHECK(host->Tools().tools.empty());
}

TEST_CASE("host OpenCode plugin: a failure is skipped, or denies when it fails closed") {
  TempDir home;
  auto host = MakeHost(home);
  OpenCodePluginOptions options;
  options.id = "flaky";
  options.hooks = {"tool.execute.before", "tool.execute.after"};
  options.trigger = [](std::string_view name, std::string_view, std::string_view) -> absl::StatusOr<NamedHookRun> {
    if (name == "tool.execute.after") return NamedHookRun{"not json", ""};
    throw std::runtime_error("engine gone");
  };
  REQUIRE(host->AddOpenCodePlugin(options).ok());
  auto skipped = host->Dispatch("pre_tool_call", R"({"tool":"read","arguments":"{}"})");
  REQUIRE(skipped.ok());
  CHECK_FALSE(skipped->denied);
  REQUIRE(skipped->skipped.size() == 1);
  CHECK(skipped->skipped[0].plugin == "flaky");
  CHECK(skipped->skipped[0].detail.find("engine gone") != std::string::npos);
  auto bad_output = host->Dispatch("post_tool_call", R"({"tool":"read","arguments":"{}","result":"x"})");
  REQUIRE(bad_output.ok());
  REQUIRE(bad_output->skipped.size() == 1);
  CHECK(bad_output->skipped[0].detail.find("not a JSON object") != std::string::npos);

  options.id = "strict";
  options.fail_closed = true;
  REQUIRE(host->AddOpenCodePlugin(options).ok());
  auto denied = host->Dispatch("pre_tool_call", R"({"tool":"read","arguments":"{}"})");
  REQUIRE(denied.ok());
  CHECK(denied->denied);
  CHECK(denied->denied_by == "strict");
}

TEST_CASE("host OpenCode plugin: options the host got wrong are refused with the reason") {
  TempDir home;
  auto host = MakeHost(home);
  OpenCodePluginOptions options;
  CHECK(host->AddOpenCodePlugin(options).message() == "an OpenCode plugin needs an id");
  options.id = "p";
  CHECK(host->AddOpenCodePlugin(options).message() == "OpenCode plugin p has no function to run its hooks");
  options.trigger = [](std::string_view, std::string_view, std::string_view output) -> absl::StatusOr<NamedHookRun> {
    return NamedHookRun{std::string(output), ""};
  };
  options.tools = {{"t", "", "", "", false}};
  CHECK(host->AddOpenCodePlugin(options).message() == "OpenCode plugin p has tools but no function to run them");
  options.execute_tool = [](std::string_view, std::string_view, std::string_view) -> absl::StatusOr<ToolResult> {
    return ToolResult{};
  };
  options.tools[0].parameters_json = "[1]";
  CHECK(host->AddOpenCodePlugin(options).message() == "OpenCode plugin p: the parameters of tool t are not a JSON Schema object");
  options.tools[0].parameters_json = "";
  REQUIRE(host->AddOpenCodePlugin(options).ok());
  CHECK(host->Tools().tools[0].parameters_json == R"({"type":"object","properties":{}})");
}

}  // namespace
}  // namespace plugline

// The canonical events as OpenCode's hooks see them, and back: what every OpenCode plugin, a
// JS module plugline loads or one a host runs in its own engine, is called with.
#include <doctest/doctest.h>

#include "core/json.h"
#include "core/opencode_events.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

Value Parse(std::string_view json) {
  absl::StatusOr<Value> value = ParseJson(json, "test");
  REQUIRE(value.ok());
  return *value;
}

TEST_CASE("opencode events: pre_tool_call is tool.execute.before with the arguments as output.args") {
  const Value payload = Parse(
      R"({"session_id":"s1","call_id":"c1","tool":"terminal","arguments":"{\"command\":\"ls\"}"})");
  const OpenCodeHookCall call = ToOpenCodeHook("pre_tool_call", payload);
  CHECK(call.hook == "tool.execute.before");
  CHECK(call.input_json == R"({"tool":"bash","sessionID":"s1","callID":"c1"})");
  CHECK(call.output_json == R"({"args":{"command":"ls"}})");

  // The same arguments given back (reformatted) are no rewrite; others are.
  auto same = FromOpenCodeHook(call, payload, {R"({"args":{ "command" : "ls" }})", ""});
  REQUIRE(same.ok());
  CHECK_FALSE(same->arguments.has_value());
  CHECK_FALSE(same->deny);
  auto rewritten = FromOpenCodeHook(call, payload, {R"({"args":{"command":"ls -a"}})", ""});
  REQUIRE(rewritten.ok());
  CHECK(rewritten->arguments == R"({"command":"ls -a"})");
  // A throw refuses the call, its message the reason.
  auto thrown = FromOpenCodeHook(call, payload, {"{}", "no rm here"});
  REQUIRE(thrown.ok());
  CHECK(thrown->deny);
  CHECK(thrown->reason == "no rm here");
}

TEST_CASE("opencode events: arguments that are not a JSON object are {} to the hook") {
  const Value payload = Parse(R"({"tool":"read","arguments":"[1,2]"})");
  CHECK(ToOpenCodeHook("pre_tool_call", payload).output_json == R"({"args":{}})");
}

TEST_CASE("opencode events: post_tool_call's output replaces the result only when it changed") {
  const Value payload = Parse(
      R"({"session_id":"s1","tool":"read","arguments":"{\"path\":\"a\"}","result":"secret=1"})");
  const OpenCodeHookCall call = ToOpenCodeHook("post_tool_call", payload);
  CHECK(call.hook == "tool.execute.after");
  CHECK(call.input_json == R"({"tool":"read","sessionID":"s1","callID":"","args":{"path":"a"}})");
  CHECK(call.output_json == R"({"title":"","output":"secret=1","metadata":{}})");
  auto same = FromOpenCodeHook(call, payload, {call.output_json, ""});
  REQUIRE(same.ok());
  CHECK_FALSE(same->result.has_value());
  auto masked = FromOpenCodeHook(call, payload, {R"({"output":"secret=***"})", ""});
  REQUIRE(masked.ok());
  CHECK(masked->result == "secret=***");
  // A throw after the call is the plugin's failure, not a deny.
  auto thrown = FromOpenCodeHook(call, payload, {"{}", "boom"});
  CHECK(thrown.status().code() == absl::StatusCode::kUnknown);
  CHECK(thrown.status().message() == "tool.execute.after threw: boom");
}

TEST_CASE("opencode events: session and turn events are OpenCode's bus events") {
  const Value payload = Parse(R"({"session_id":"s9"})");
  OpenCodeHookCall start = ToOpenCodeHook("session_start", payload);
  CHECK(start.hook == "event");
  CHECK(start.event_json == R"({"type":"session.created","properties":{"info":{"id":"s9"}}})");
  CHECK(start.input_json == StrCat(R"({"event":)", start.event_json, "}"));
  CHECK(ToOpenCodeHook("session_end", payload).event_json ==
        R"({"type":"session.deleted","properties":{"info":{"id":"s9"}}})");
  CHECK(ToOpenCodeHook("turn_end", payload).event_json ==
        R"({"type":"session.idle","properties":{"sessionID":"s9"}})");
  CHECK(ToOpenCodeHook("deploy_done", payload).event_json ==
        R"({"type":"deploy_done","properties":{"session_id":"s9"}})");
}

TEST_CASE("opencode events: user_prompt is chat.message, shell_env passes the payload's output") {
  const Value prompt = Parse(R"({"session_id":"s1","prompt":"hi"})");
  OpenCodeHookCall chat = ToOpenCodeHook("user_prompt", prompt);
  CHECK(chat.hook == "chat.message");
  CHECK(chat.output_json ==
        R"({"message":{"role":"user","sessionID":"s1"},"parts":[{"type":"text","text":"hi"}]})");
  const Value env = Parse(R"({"cwd":"/w","output":{"env":{"A":"1"}}})");
  OpenCodeHookCall shell = ToOpenCodeHook("shell_env", env);
  CHECK(shell.hook == "shell.env");
  CHECK(shell.input_json == R"({"cwd":"/w","output":{"env":{"A":"1"}}})");
  CHECK(shell.output_json == R"({"env":{"A":"1"}})");
  CHECK(ToOpenCodeHook("pre_compact", env).hook == "experimental.session.compacting");
  CHECK(ToOpenCodeHook("tool_definition", env).hook == "tool.definition");
}

}  // namespace
}  // namespace plugline::core

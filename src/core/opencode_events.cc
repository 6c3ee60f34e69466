#include "core/opencode_events.h"

#include <utility>

#include "core/strings.h"

namespace plugline::core {
namespace {

// {type, properties}: what OpenCode's bus would have published for the event.
Value OpenCodeEvent(std::string_view event, const Value& payload) {
  const std::string session = payload.StringMember("session_id");
  Value body;
  Value properties;
  if (event == "session_start" || event == "session_end") {
    Value info;
    info.Set("id", Value(session));
    body.Set("type", Value(event == "session_start" ? "session.created" : "session.deleted"));
    properties.Set("info", std::move(info));
  } else if (event == "turn_end") {
    body.Set("type", Value("session.idle"));
    properties.Set("sessionID", Value(session));
  } else {
    body.Set("type", Value(event));
    properties = payload;
  }
  body.Set("properties", std::move(properties));
  return body;
}

}  // namespace

std::string_view OpenCodeHookFor(std::string_view event) {
  if (event == "pre_tool_call") return "tool.execute.before";
  if (event == "post_tool_call") return "tool.execute.after";
  if (event == "user_prompt") return "chat.message";
  if (event == "tool_definition") return "tool.definition";
  if (event == "shell_env") return "shell.env";
  if (event == "pre_compact") return "experimental.session.compacting";
  return "event";
}

OpenCodeHookCall ToOpenCodeHook(std::string_view event, const Value& payload) {
  OpenCodeHookCall call;
  call.hook = std::string(OpenCodeHookFor(event));
  if (call.hook == "event") {
    call.event_json = ToJson(OpenCodeEvent(event, payload));
    call.input_json = StrCat(R"({"event":)", call.event_json, "}");
    call.output_json = "{}";
    return call;
  }
  const std::string session = payload.StringMember("session_id");
  std::string tool = payload.StringMember("tool");
  if (tool == "terminal") tool = "bash";
  // The arguments stay JSON text; anything but a JSON object counts as {}.
  std::string args = payload.StringMember("arguments");
  {
    size_t first = args.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || args[first] != '{') args = "{}";
  }
  JsonWriter in;
  in.BeginObject();
  if (call.hook == "tool.execute.before" || call.hook == "tool.execute.after") {
    in.Key("tool").String(tool).Key("sessionID").String(session);
    in.Key("callID").String(payload.StringMember("call_id"));
    if (call.hook == "tool.execute.before") {
      call.output_json = StrCat(R"({"args":)", args, "}");
      call.arguments_json = args;
    } else {
      in.Key("args").Raw(args);
      JsonWriter out;
      out.BeginObject().Key("title").String(payload.StringMember("title"));
      out.Key("output").String(payload.StringMember("result"));
      out.Key("metadata").BeginObject().EndObject().EndObject();
      call.output_json = out.Take();
    }
    in.EndObject();
    call.input_json = in.Take();
  } else if (call.hook == "chat.message") {
    in.Key("sessionID").String(session).EndObject();
    call.input_json = in.Take();
    JsonWriter out;
    out.BeginObject().Key("message").BeginObject().Key("role").String("user");
    out.Key("sessionID").String(session).EndObject();
    out.Key("parts").BeginArray().BeginObject().Key("type").String("text");
    out.Key("text").String(payload.StringMember("prompt")).EndObject().EndArray().EndObject();
    call.output_json = out.Take();
  } else {
    // tool_definition, shell_env, pre_compact: the host's payload is the input; the output
    // the hook may change is in its "output" member (the dispatch result cannot carry it: a
    // host that needs it triggers the hook by name).
    call.input_json = ToJson(payload);
    const Value* given = payload.Find("output");
    call.output_json = given != nullptr && given->is_object() ? ToJson(*given) : "{}";
  }
  return call;
}

absl::StatusOr<HookAnswer> FromOpenCodeHook(const OpenCodeHookCall& call, const Value& payload,
                                            const NamedHookResult& ran) {
  HookAnswer result;
  if (!ran.error.empty()) {
    if (call.hook == "tool.execute.before") {  // OpenCode: a throw here refuses the tool call
      result.deny = true;
      result.reason = ran.error;
      return result;
    }
    return absl::UnknownError(StrCat(call.hook, " threw: ", ran.error));
  }
  if (call.hook != "tool.execute.before" && call.hook != "tool.execute.after") return result;
  absl::StatusOr<Value> after = ParseJson(ran.output_json, "hook output");
  if (!after.ok()) return after.status();
  if (call.hook == "tool.execute.before") {
    if (const Value* new_args = after->Find("args"); new_args != nullptr) {
      std::string text = ToJson(*new_args);
      absl::StatusOr<Value> old_args = ParseJson(call.arguments_json, "arguments");
      if (!old_args.ok() || ToJson(*old_args) != text) result.arguments = std::move(text);
    }
  } else {
    std::string text = after->StringMember("output");
    if (text != payload.StringMember("result")) result.result = std::move(text);
  }
  return result;
}

}  // namespace plugline::core

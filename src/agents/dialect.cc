#include "agents/dialect.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "agents/wrap.h"
#include "core/hooks.h"
#include "core/plugin_id.h"
#include "core/strings.h"

namespace plugline::agents {
namespace {

using core::Value;

struct Named {
  std::string_view agent;
  std::string_view canonical;
};

// Each agent's events that plugline knows by another name. The rest keep their own name,
// in snake_case, and are observe-only.
constexpr Named kClaudeEvents[] = {
    {"PreToolUse", "pre_tool_call"},     {"PostToolUse", "post_tool_call"},
    {"PostToolUseFailure", "post_tool_call"}, {"UserPromptSubmit", "user_prompt"},
    {"SessionStart", "session_start"},   {"SessionEnd", "session_end"},
    {"Stop", "turn_end"},                {"PreCompact", "pre_compact"},
    {"SubagentStop", "subagent_end"},    {"Notification", "notification"},
};
constexpr Named kGeminiEvents[] = {
    {"BeforeTool", "pre_tool_call"},   {"AfterTool", "post_tool_call"},
    {"BeforeAgent", "user_prompt"},    {"AfterAgent", "turn_end"},
    {"SessionStart", "session_start"}, {"SessionEnd", "session_end"},
    {"PreCompress", "pre_compact"},    {"Notification", "notification"},
};
constexpr Named kCursorEvents[] = {
    {"preToolUse", "pre_tool_call"},          {"postToolUse", "post_tool_call"},
    {"postToolUseFailure", "post_tool_call"}, {"beforeShellExecution", "pre_tool_call"},
    {"afterShellExecution", "post_tool_call"}, {"beforeMCPExecution", "pre_tool_call"},
    {"afterMCPExecution", "post_tool_call"},  {"beforeReadFile", "pre_tool_call"},
    {"beforeSubmitPrompt", "user_prompt"},    {"stop", "turn_end"},
    {"sessionStart", "session_start"},        {"sessionEnd", "session_end"},
    {"preCompact", "pre_compact"},            {"subagentStop", "subagent_end"},
};
constexpr Named kCopilotEvents[] = {
    {"preToolUse", "pre_tool_call"},          {"postToolUse", "post_tool_call"},
    {"postToolUseFailure", "post_tool_call"}, {"userPromptSubmitted", "user_prompt"},
    {"sessionStart", "session_start"},        {"sessionEnd", "session_end"},
    {"agentStop", "turn_end"},                {"preCompact", "pre_compact"},
    {"subagentStop", "subagent_end"},         {"notification", "notification"},
};

// OpenCode's hooks, and the bus events its plugin forwards (`event`, by the event's type).
constexpr Named kOpenCodeEvents[] = {
    {"tool.execute.before", "pre_tool_call"},
    {"tool.execute.after", "post_tool_call"},
    {"chat.message", "user_prompt"},
    {"experimental.session.compacting", "pre_compact"},
    {"session.created", "session_start"},
    {"session.deleted", "session_end"},
    {"session.idle", "turn_end"},
};

template <size_t N>
std::optional<std::string_view> Lookup(const Named (&table)[N], std::string_view name) {
  for (const Named& entry : table) {
    if (entry.agent == name) return entry.canonical;
  }
  return std::nullopt;
}

// `PermissionRequest` → `permission_request`. A name that would come out as one of the
// canonical events (an agent's event plugline does not know, spelled like one it does) keeps
// its own spelling: only the events above may deny or rewrite.
std::string SnakeCase(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      const bool after_lower = i > 0 && (std::islower(static_cast<unsigned char>(name[i - 1])) ||
                                         std::isdigit(static_cast<unsigned char>(name[i - 1])));
      const bool before_lower = i > 0 && i + 1 < name.size() &&
                                std::isupper(static_cast<unsigned char>(name[i - 1])) &&
                                std::islower(static_cast<unsigned char>(name[i + 1]));
      if (!out.empty() && (after_lower || before_lower)) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c == '-' || c == ' ' ? '_' : c;
    }
  }
  for (std::string_view canonical : core::kCanonicalEvents) {
    if (out == canonical) return std::string(name);
  }
  return out;
}

std::string CanonicalEvent(Agent agent, std::string_view name) {
  std::optional<std::string_view> known;
  switch (agent) {
    case Agent::kClaudeCode:
    case Agent::kCodex:
      known = Lookup(kClaudeEvents, name);
      break;
    case Agent::kGemini:
      known = Lookup(kGeminiEvents, name);
      break;
    case Agent::kCursor:
      known = Lookup(kCursorEvents, name);
      break;
    case Agent::kCopilot:
      // Its camelCase events, or its Claude-compatible dialect's PascalCase ones.
      known = Lookup(kCopilotEvents, name);
      if (!known) known = Lookup(kClaudeEvents, name);
      break;
    case Agent::kOpenCode: {
      known = Lookup(kOpenCodeEvents, name);
      if (known) break;
      // "file.edited" → "file_edited"
      std::string dotted(name);
      std::replace(dotted.begin(), dotted.end(), '.', '_');
      return SnakeCase(dotted);
    }
  }
  return known ? std::string(*known) : SnakeCase(name);
}

// The agents' shell tools.
bool IsShellTool(Agent agent, std::string_view tool) {
  switch (agent) {
    case Agent::kClaudeCode:
      return tool == "Bash" || tool == "Execute";  // Execute: Factory's droid
    case Agent::kCodex:
      return tool == "Bash" || tool == "exec_command" || tool == "shell" ||
             tool == "shell_command" || tool == "local_shell";
    case Agent::kGemini:
      return tool == "run_shell_command";
    case Agent::kCursor:
      return tool == "Shell";
    case Agent::kCopilot:
      return tool == "bash" || tool == "Bash" || tool == "powershell";
    case Agent::kOpenCode:
      return tool == "bash";
  }
  return false;
}

// The other tools every agent has, by plugline's (OpenCode's) names; the rest keep theirs.
std::string CanonicalTool(std::string_view tool) {
  const std::string lower = absl::AsciiStrToLower(ToAbsl(tool));
  static constexpr Named kTools[] = {
      {"read", "read"},       {"read_file", "read"},          {"view", "read"},
      {"write", "write"},     {"write_file", "write"},        {"create", "write"},
      {"edit", "edit"},       {"multiedit", "edit"},          {"replace", "edit"},
      {"grep", "grep"},       {"search_file_content", "grep"}, {"glob", "glob"},
      {"webfetch", "webfetch"}, {"web_fetch", "webfetch"},    {"websearch", "websearch"},
      {"google_web_search", "websearch"}, {"task", "task"},   {"todowrite", "todowrite"},
  };
  for (const Named& entry : kTools) {
    if (entry.agent == lower) return std::string(entry.canonical);
  }
  return std::string(tool);
}

std::string TextOr(const Value& object, std::string_view key, std::string_view fallback = "") {
  const Value* v = object.Find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string(fallback);
}

// "Exit code 2" (Claude Code's PostToolUseFailure), "Exit Code: 2" (Gemini CLI's output).
std::optional<int> ExitCodeIn(std::string_view text) {
  for (std::string_view marker : {"Exit code ", "Exit Code: "}) {
    const size_t at = text.find(marker);
    if (at == std::string_view::npos) continue;
    std::string_view rest = text.substr(at + marker.size());
    size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    int code = 0;
    if (digits > 0 && absl::SimpleAtoi(ToAbsl(rest.substr(0, digits)), &code)) return code;
  }
  return std::nullopt;
}

// A stdout and a stderr as one output, stdout first.
std::string Joined(std::string_view out, std::string_view err) {
  if (err.empty()) return std::string(out);
  if (out.empty()) return std::string(err);
  return StrCat(out, out.back() == '\n' ? "" : "\n", err);
}

// Copilot CLI ends its shell tool's output with "<shellId: 0 completed with exit code 2>" (the
// call's resultType is "success" whatever the code): the exit code is read from it, and the line
// is kept apart so that a summary replaces the output above it only.
void TakeShellTrailer(HookCall* call) {
  std::string& text = call->output;
  const size_t line = text.rfind("<shellId: ");
  if (line == std::string::npos || (line > 0 && text[line - 1] != '\n')) return;
  std::string_view rest = std::string_view(text).substr(line);
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  if (rest.find('\n') != std::string_view::npos || !rest.ends_with(">")) return;
  constexpr std::string_view kMarker = " with exit code ";
  const size_t at = rest.find(kMarker);
  int code = 0;
  if (at != std::string_view::npos &&
      absl::SimpleAtoi(ToAbsl(rest.substr(at + kMarker.size(), rest.size() - 1 - at - kMarker.size())),
                       &code)) {
    call->exit_code = code;
    call->failed = call->failed || code != 0;
  }
  call->output_trailer = std::string(rest);
  text.resize(line > 0 ? line - 1 : 0);
  if (!text.empty()) text += '\n';
}

// The tool's output of a post-tool event, as the model reads it.
void ReadOutput(Agent agent, const Value& payload, HookCall* call) {
  if (agent == Agent::kCopilot && call->copilot_camel) {
    const Value* r = payload.Find("toolResult");
    if (r != nullptr && r->is_object()) {
      call->output = TextOr(*r, "textResultForLlm");
      call->failed = TextOr(*r, "resultType") == "failure";
      if (call->shell) TakeShellTrailer(call);
      call->output_is_preview = call->output.starts_with("Output too large to read at once") &&
                                call->output.find("Saved to: ") != std::string::npos;
    }
    return;
  }
  if (agent == Agent::kCopilot) {
    const Value* r = payload.Find("tool_result");
    if (r != nullptr && r->is_object()) {
      call->output = TextOr(*r, "text_result_for_llm");
      call->failed = TextOr(*r, "result_type") == "failure";
    }
    return;
  }
  if (agent == Agent::kCursor) {
    if (call->agent_event == "afterShellExecution") {
      call->output = TextOr(payload, "output");
      return;
    }
    if (call->agent_event == "postToolUseFailure") {
      call->failed = true;
      call->output = TextOr(payload, "error_message");
      return;
    }
    // `tool_output` is the result as JSON text: {"exitCode":0,"stdout":"…"} for Shell.
    const std::string text = TextOr(payload, "tool_output");
    absl::StatusOr<Value> parsed = core::ParseJson(text, "tool_output");
    if (parsed.ok() && parsed->is_object() && parsed->Find("stdout") != nullptr) {
      call->output = Joined(TextOr(*parsed, "stdout"), TextOr(*parsed, "stderr"));
      if (const Value* code = parsed->Find("exitCode"); code != nullptr && code->as_integer()) {
        call->exit_code = static_cast<int>(*code->as_integer());
        call->failed = *call->exit_code != 0;
      }
    } else {
      call->output = text;
    }
    return;
  }
  if (agent == Agent::kClaudeCode && call->agent_event == "PostToolUseFailure") {
    // "Exit code 1\n<output>" for Bash.
    const std::string error = TextOr(payload, "error");
    call->failed = true;
    call->exit_code = ExitCodeIn(error.substr(0, error.find('\n')));
    call->output = call->exit_code && error.find('\n') != std::string::npos
                       ? error.substr(error.find('\n') + 1)
                       : error;
    return;
  }
  const Value* response = payload.Find("tool_response");
  if (response == nullptr) return;
  if (response->is_string()) {
    call->output = response->as_string();  // Codex: the command's output
    call->output_is_string = true;
    return;
  }
  if (!response->is_object()) {
    call->output = core::ToJson(*response);
    return;
  }
  if (agent == Agent::kGemini) {
    // {llmContent, returnDisplay, error?}: llmContent is what the model reads.
    const Value* content = response->Find("llmContent");
    call->output = content != nullptr && content->is_string() ? content->as_string()
                   : content != nullptr                       ? core::ToJson(*content)
                                                              : TextOr(*response, "returnDisplay");
    if (call->shell) call->exit_code = ExitCodeIn(call->output);
    const Value* error = response->Find("error");
    call->failed = (error != nullptr && !error->is_null()) ||
                   (call->exit_code.has_value() && *call->exit_code != 0);
    return;
  }
  if (response->Find("stdout") != nullptr) {
    // Claude Code's Bash: {stdout, stderr, interrupted, isImage}; it ran and exited 0.
    call->output = Joined(TextOr(*response, "stdout"), TextOr(*response, "stderr"));
    call->output_is_bash = true;
    call->exit_code = 0;
    return;
  }
  call->output = core::ToJson(*response);
}

// Members of the agent's payload that the canonical payload carries in its own fields (the
// tool's input and output can be large: they are not sent twice).
constexpr std::string_view kCarried[] = {
    "tool_input", "tool_response", "toolArgs", "toolResult", "tool_output", "tool_result",
};

// The tool's input as plugins see it: a command plugline wrapped is the command the model
// asked for (`call` then says it was wrapped).
Value OriginalInput(const Value& tool_input, HookCall* call) {
  Value payload_input = tool_input;
  if (std::optional<std::string> original = call->shell ? Unwrap(call->command) : std::nullopt) {
    call->wrapped = true;
    call->command = *original;
    payload_input.Set("command", Value(*original));
  }
  return payload_input;
}

// plugline's own members of the canonical payload, after the agent's.
void AddCanonicalFields(const HookCall& call, const Value& payload_input, std::string_view session,
                        std::string_view call_id, Value* canonical) {
  canonical->Set("event", Value(call.event));
  canonical->Set("platform", Value(AgentName(call.agent)));
  canonical->Set("agent", Value(AgentName(call.agent)));
  canonical->Set("agent_event", Value(call.agent_event));
  if (!session.empty()) canonical->Set("session_id", Value(session));
  if (!call.agent_tool.empty()) {
    canonical->Set("tool", Value(call.tool));
    canonical->Set("agent_tool", Value(call.agent_tool));
  }
  if (call.event == "pre_tool_call" || call.event == "post_tool_call") {
    canonical->Set("arguments", Value(core::ToJson(payload_input)));
  }
  if (call.wrapped) canonical->Set("wrapped", Value(true));
  if (!call_id.empty()) canonical->Set("call_id", Value(call_id));
  if (call.event == "post_tool_call") {
    canonical->Set("result", Value(call.output));
    if (call.exit_code) canonical->Set("exit_code", Value(*call.exit_code));
    if (call.failed) canonical->Set("failed", Value(true));
  }
}

// plugline's OpenCode plugin's call: {hook, input, output, directory}, OpenCode's own
// (input, output) of the hook; `event` hooks carry the bus event as input.event.
absl::StatusOr<HookCall> ReadOpenCodeCall(const Value& call_doc,
                                          const std::vector<std::string>& shell_tools) {
  HookCall call;
  call.agent = Agent::kOpenCode;
  const std::string hook = TextOr(call_doc, "hook");
  if (hook.empty()) {
    return absl::InvalidArgumentError(
        "the hook input names no hook (no `hook`): it is written by plugline's OpenCode plugin");
  }
  static const Value kEmpty{core::ValueObject{}};
  const Value* input = call_doc.Find("input");
  const Value* output = call_doc.Find("output");
  if (input == nullptr || !input->is_object()) input = &kEmpty;
  if (output == nullptr || !output->is_object()) output = &kEmpty;
  const Value* properties = nullptr;
  if (hook == "event") {
    const Value* event = input->Find("event");
    call.agent_event = event != nullptr && event->is_object() ? TextOr(*event, "type") : "";
    if (call.agent_event.empty()) {
      return absl::InvalidArgumentError("the event hook's input has no event.type");
    }
    properties = event->Find("properties");
    if (properties != nullptr && !properties->is_object()) properties = nullptr;
  } else {
    call.agent_event = hook;
  }
  call.event = CanonicalEvent(Agent::kOpenCode, call.agent_event);
  const bool tool_event = call.event == "pre_tool_call" || call.event == "post_tool_call";
  Value tool_input(core::ValueObject{});
  if (tool_event) {
    call.agent_tool = TextOr(*input, "tool");
    const Value* args = call.event == "pre_tool_call" ? output->Find("args") : input->Find("args");
    if (args != nullptr && args->is_object()) tool_input = *args;
    call.shell = IsShellTool(Agent::kOpenCode, call.agent_tool) ||
                 std::find(shell_tools.begin(), shell_tools.end(), call.agent_tool) !=
                     shell_tools.end();
    call.tool = call.shell ? "terminal" : CanonicalTool(call.agent_tool);
    if (call.shell) call.command = TextOr(tool_input, "command");
  }
  call.cwd = TextOr(call_doc, "directory");
  if (call.event == "post_tool_call") {
    call.output = TextOr(*output, "output");
    if (const Value* metadata = output->Find("metadata"); metadata != nullptr && metadata->is_object()) {
      if (const Value* exit = metadata->Find("exit"); exit != nullptr && exit->as_integer()) {
        call.exit_code = static_cast<int>(*exit->as_integer());
        call.failed = *call.exit_code != 0;
      }
    }
  }
  const Value payload_input = OriginalInput(tool_input, &call);

  // The canonical payload: OpenCode's input members (but what is carried below), then plugline's.
  Value canonical(core::ValueObject{});
  for (const auto& [key, value] : input->as_object()) {
    if (key == "args" || key == "event" || key == "arguments" || key == "result") continue;
    canonical.as_object().emplace_back(key, value);
  }
  if (properties != nullptr) canonical.Set("properties", *properties);
  if (!call.cwd.empty()) canonical.Set("cwd", Value(call.cwd));
  std::string session = TextOr(*input, "sessionID");
  if (session.empty() && properties != nullptr) {
    session = TextOr(*properties, "sessionID");
    const Value* info = properties->Find("info");
    if (session.empty() && info != nullptr && info->is_object()) session = TextOr(*info, "id");
  }
  AddCanonicalFields(call, payload_input, session, TextOr(*input, "callID"), &canonical);
  if (call.event == "post_tool_call") canonical.Set("title", Value(TextOr(*output, "title")));
  if (call.event == "user_prompt") {
    // The prompt: the message's text parts (what the user typed; not files or synthetic text).
    std::vector<std::string> texts;
    if (const Value* parts = output->Find("parts"); parts != nullptr && parts->is_array()) {
      for (const Value& part : parts->as_array()) {
        if (!part.is_object() || TextOr(part, "type") != "text") continue;
        if (const Value* synthetic = part.Find("synthetic");
            synthetic != nullptr && synthetic->is_bool() && synthetic->as_bool()) {
          continue;
        }
        texts.push_back(TextOr(part, "text"));
      }
    }
    canonical.Set("prompt", Value(absl::StrJoin(texts, "\n")));
  }
  call.tool_input = std::move(tool_input);
  call.payload_json = core::ToJson(canonical);
  return call;
}

}  // namespace

absl::StatusOr<Agent> AgentNamed(std::string_view name) {
  static constexpr std::pair<std::string_view, Agent> kNames[] = {
      {"claude-code", Agent::kClaudeCode}, {"claude", Agent::kClaudeCode},
      {"factory", Agent::kClaudeCode},     {"droid", Agent::kClaudeCode},
      {"codex", Agent::kCodex},            {"gemini", Agent::kGemini},
      {"gemini-cli", Agent::kGemini},      {"qwen", Agent::kGemini},
      {"qwen-code", Agent::kGemini},       {"cursor", Agent::kCursor},
      {"copilot", Agent::kCopilot},        {"copilot-cli", Agent::kCopilot},
      {"opencode", Agent::kOpenCode},
  };
  for (const auto& [known, agent] : kNames) {
    if (known == name) return agent;
  }
  return absl::InvalidArgumentError(
      StrCat("unknown agent \"", core::EscapeControl(name), "\" (known: ", AgentNames(), ")"));
}

std::string_view AgentName(Agent agent) {
  switch (agent) {
    case Agent::kClaudeCode:
      return "claude-code";
    case Agent::kCodex:
      return "codex";
    case Agent::kGemini:
      return "gemini";
    case Agent::kCursor:
      return "cursor";
    case Agent::kCopilot:
      return "copilot";
    case Agent::kOpenCode:
      return "opencode";
  }
  return "";
}

std::string_view AgentNames() { return "claude-code, codex, gemini, cursor, copilot, opencode"; }

absl::StatusOr<HookCall> ReadHookCall(Agent agent, std::string_view input,
                                      std::string_view event_arg,
                                      const std::vector<std::string>& shell_tools) {
  absl::StatusOr<Value> parsed = core::ParseJson(input, "the hook input");
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError(StrCat("the hook input is ",
                                             Value::KindName(parsed->kind()), ", not an object"));
  }
  const Value& payload = *parsed;
  if (agent == Agent::kOpenCode) return ReadOpenCodeCall(payload, shell_tools);
  HookCall call;
  call.agent = agent;
  call.agent_event = TextOr(payload, "hook_event_name", event_arg);
  if (call.agent_event.empty()) {
    return absl::InvalidArgumentError(
        "the hook input names no event (no hook_event_name): name it after --agent "
        "(`plugline hook --agent copilot preToolUse`)");
  }
  call.event = CanonicalEvent(agent, call.agent_event);
  call.copilot_camel = agent == Agent::kCopilot && payload.Find("hook_event_name") == nullptr;

  // The tool and its input.
  Value tool_input;
  if (agent == Agent::kCursor && call.agent_event == "beforeShellExecution") {
    call.agent_tool = "Shell";
    tool_input.Set("command", Value(TextOr(payload, "command")));
    if (const Value* cwd = payload.Find("cwd")) tool_input.Set("cwd", *cwd);
  } else if (agent == Agent::kCursor && call.agent_event == "afterShellExecution") {
    call.agent_tool = "Shell";
    tool_input.Set("command", Value(TextOr(payload, "command")));
  } else if (agent == Agent::kCursor && call.agent_event == "beforeReadFile") {
    call.agent_tool = "Read";
    tool_input.Set("file_path", Value(TextOr(payload, "file_path")));
  } else if (call.copilot_camel) {
    call.agent_tool = TextOr(payload, "toolName");
    if (const Value* args = payload.Find("toolArgs")) {
      // Usually the arguments as JSON text.
      if (args->is_string()) {
        absl::StatusOr<Value> inner = core::ParseJson(args->as_string(), "toolArgs");
        if (inner.ok() && inner->is_object()) tool_input = *std::move(inner);
      } else if (args->is_object()) {
        tool_input = *args;
      }
    }
  } else {
    call.agent_tool = TextOr(payload, "tool_name");
    if (const Value* given = payload.Find("tool_input"); given != nullptr && given->is_object()) {
      tool_input = *given;
    }
  }
  const bool tool_event = call.event == "pre_tool_call" || call.event == "post_tool_call";
  if (tool_event && !tool_input.is_object()) tool_input = Value(core::ValueObject{});
  if (!call.agent_tool.empty()) {
    call.shell = IsShellTool(agent, call.agent_tool) ||
                 std::find(shell_tools.begin(), shell_tools.end(), call.agent_tool) !=
                     shell_tools.end();
    call.tool = call.shell ? "terminal" : CanonicalTool(call.agent_tool);
  }
  if (call.shell) call.command = TextOr(tool_input, "command");
  call.cwd = TextOr(payload, "cwd");
  call.permission_mode = TextOr(payload, "permission_mode");
  if (call.event == "post_tool_call") ReadOutput(agent, payload, &call);
  const Value payload_input = OriginalInput(tool_input, &call);

  // The canonical payload: the agent's own members (but those carried below), then plugline's.
  Value canonical(core::ValueObject{});
  for (const auto& [key, value] : payload.as_object()) {
    if (std::find(std::begin(kCarried), std::end(kCarried), key) != std::end(kCarried)) continue;
    // plugline's own `arguments` and `result` are strings: an agent's member of that name and
    // another kind is kept under another name.
    if ((key == "arguments" || key == "result") && !value.is_string() && !value.is_null()) {
      canonical.as_object().emplace_back(StrCat("agent_", key), value);
      continue;
    }
    canonical.as_object().emplace_back(key, value);
  }
  AddCanonicalFields(
      call, payload_input,
      TextOr(payload, "session_id", TextOr(payload, "sessionId", TextOr(payload, "conversation_id"))),
      TextOr(payload, "tool_use_id", TextOr(payload, "toolUseId")), &canonical);
  call.tool_input = std::move(tool_input);
  call.payload_json = core::ToJson(canonical);
  return call;
}

namespace {

// What the plugins decided, as the answers need it.
struct Decision {
  bool deny = false;
  std::string reason;
  std::optional<Value> rewritten;  // the new tool input, when a plugin changed it
  std::string context;             // the notices, one per line
};

Decision Decide(const HookCall& call, const DispatchResult& result) {
  Decision d;
  d.deny = result.denied;
  d.reason = result.reason;
  std::vector<std::string> notices;
  for (const DispatchResult::Notice& notice : result.notices) notices.push_back(notice.text);
  d.context = absl::StrJoin(notices, "\n");
  const bool rewrote = std::any_of(result.plugins.begin(), result.plugins.end(),
                                   [](const auto& p) { return p.action == "rewrite"; });
  if (rewrote && result.arguments) {
    absl::StatusOr<Value> args = core::ParseJson(*result.arguments, "the rewritten arguments");
    if (args.ok() && args->is_object() && core::ToJson(*args) != core::ToJson(call.tool_input)) {
      d.rewritten = *std::move(args);
    }
  }
  return d;
}

// {"hookSpecificOutput": {"hookEventName": <event>, ...members}} plus top-level members.
std::string SpecificOutput(std::string_view event, const core::ValueObject& members,
                           const core::ValueObject& top = {}) {
  core::JsonWriter w;
  w.BeginObject();
  for (const auto& [key, value] : top) w.Key(key).Value(value);
  w.Key("hookSpecificOutput").BeginObject().Key("hookEventName").String(event);
  for (const auto& [key, value] : members) w.Key(key).Value(value);
  w.EndObject().EndObject();
  return StrCat(w.Take(), "\n");
}

std::string Flat(const core::ValueObject& members) {
  if (members.empty()) return "";
  return StrCat(core::ToJson(Value(members)), "\n");
}

Value BashOutput(std::string_view text) {
  core::ValueObject out;
  out.emplace_back("stdout", Value(text));
  out.emplace_back("stderr", Value(""));
  out.emplace_back("interrupted", Value(false));
  out.emplace_back("isImage", Value(false));
  return Value(std::move(out));
}

// A rewrite that this event cannot apply: refused, saying what the plugins wanted to run, so
// that the model can run that instead (running the original would undo the plugin).
std::string UnappliedRewrite(const Decision& d) {
  return StrCat("a plugline plugin rewrote this call to ", core::ToJson(*d.rewritten),
                ", which this hook event cannot apply: make that call instead");
}

std::string ContextWith(const Decision& d, std::string_view more) {
  if (d.context.empty()) return std::string(more);
  if (more.empty()) return d.context;
  return StrCat(d.context, "\n", more);
}

constexpr std::string_view kUnreplaceable =
    "the agent cannot replace this tool's output on this event; it was added as context instead";

Answer RespondClaude(const HookCall& call, const Decision& d,
                     const std::optional<std::string>& replacement) {
  Answer a;
  const std::string& ev = call.agent_event;
  if (call.event == "pre_tool_call" && ev == "PreToolUse") {
    if (d.deny) {
      a.out = SpecificOutput(ev, {{"permissionDecision", Value("deny")},
                                  {"permissionDecisionReason", Value(d.reason)}});
      return a;
    }
    core::ValueObject members;
    if (d.rewritten) {
      members.emplace_back("permissionDecision", Value("allow"));
      members.emplace_back("updatedInput", *d.rewritten);
    }
    if (!d.context.empty()) members.emplace_back("additionalContext", Value(d.context));
    if (!members.empty()) a.out = SpecificOutput(ev, members);
    return a;
  }
  if (call.event == "post_tool_call" && ev == "PostToolUse") {
    core::ValueObject members;
    std::string context = d.context;
    if (replacement) {
      if (call.output_is_bash) {
        members.emplace_back("updatedToolOutput", BashOutput(*replacement));
      } else if (call.output_is_string) {
        members.emplace_back("updatedToolOutput", Value(*replacement));
      } else {
        context = ContextWith(d, *replacement);
        a.err = StrCat("plugline: ", kUnreplaceable, "\n");
      }
    }
    if (!context.empty()) members.emplace_back("additionalContext", Value(context));
    if (!members.empty()) a.out = SpecificOutput(ev, members);
    return a;
  }
  if (call.event == "post_tool_call") {  // PostToolUseFailure: no replacement there
    const std::string context = replacement ? ContextWith(d, *replacement) : d.context;
    if (replacement) a.err = StrCat("plugline: ", kUnreplaceable, "\n");
    if (!context.empty()) a.out = SpecificOutput(ev, {{"additionalContext", Value(context)}});
    return a;
  }
  if (d.context.empty()) return a;
  if (ev == "UserPromptSubmit" || ev == "SessionStart") {
    a.out = SpecificOutput(ev, {{"additionalContext", Value(d.context)}});
  } else {
    a.out = Flat({{"systemMessage", Value(d.context)}});
  }
  return a;
}

Answer RespondCodex(const HookCall& call, const Decision& d,
                    const std::optional<std::string>& replacement) {
  Answer a;
  const std::string& ev = call.agent_event;
  if (call.event == "pre_tool_call") {
    if (d.deny) {
      a.out = SpecificOutput(ev, {{"permissionDecision", Value("deny")},
                                  {"permissionDecisionReason", Value(d.reason)}});
      return a;
    }
    core::ValueObject members;
    if (d.rewritten) {
      // Codex takes a shell rewrite only with a string `command`.
      const Value* command = d.rewritten->Find("command");
      if (call.shell && (command == nullptr || !command->is_string())) {
        a.out = SpecificOutput(ev, {{"permissionDecision", Value("deny")},
                                    {"permissionDecisionReason", Value(UnappliedRewrite(d))}});
        return a;
      }
      members.emplace_back("permissionDecision", Value("allow"));
      members.emplace_back("updatedInput", *d.rewritten);
    }
    if (!d.context.empty()) members.emplace_back("additionalContext", Value(d.context));
    if (!members.empty()) a.out = SpecificOutput(ev, members);
    return a;
  }
  if (call.event == "post_tool_call") {
    core::ValueObject top;
    if (replacement) {
      // Codex shows the reason of a block in place of the tool's output.
      top.emplace_back("decision", Value("block"));
      top.emplace_back("reason", Value(*replacement));
    }
    if (!d.context.empty()) {
      a.out = SpecificOutput(ev, {{"additionalContext", Value(d.context)}}, top);
    } else {
      a.out = Flat(top);
    }
    return a;
  }
  if (d.context.empty()) return a;
  if (ev == "SessionStart" || ev == "UserPromptSubmit" || ev == "SubagentStart") {
    a.out = SpecificOutput(ev, {{"additionalContext", Value(d.context)}});
  } else {
    a.err = StrCat(d.context, "\n");  // no field for it on this event
  }
  return a;
}

Answer RespondGemini(const HookCall& call, const Decision& d,
                     const std::optional<std::string>& replacement) {
  Answer a;
  const std::string& ev = call.agent_event;
  if (call.event == "pre_tool_call") {
    if (d.deny) {
      a.out = Flat({{"decision", Value("deny")}, {"reason", Value(d.reason)}});
      return a;
    }
    core::ValueObject top;
    if (!d.context.empty()) top.emplace_back("systemMessage", Value(d.context));
    if (d.rewritten) {
      // Gemini CLI merges these members into the tool's arguments.
      a.out = SpecificOutput(ev, {{"tool_input", *d.rewritten}}, top);
    } else {
      a.out = Flat(top);
    }
    return a;
  }
  if (call.event == "post_tool_call") {
    if (replacement) {
      // The only way Gemini CLI hides a tool's output: the model reads the reason as the
      // tool's error.
      a.out = Flat({{"decision", Value("deny")}, {"reason", Value(*replacement)}});
      if (!d.context.empty()) {
        a.out = SpecificOutput(ev, {{"additionalContext", Value(d.context)}},
                               {{"decision", Value("deny")}, {"reason", Value(*replacement)}});
      }
      return a;
    }
    if (!d.context.empty()) a.out = SpecificOutput(ev, {{"additionalContext", Value(d.context)}});
    return a;
  }
  if (d.context.empty()) return a;
  if (ev == "BeforeAgent" || ev == "SessionStart") {
    a.out = SpecificOutput(ev, {{"additionalContext", Value(d.context)}});
  } else {
    a.out = Flat({{"systemMessage", Value(d.context)}});
  }
  return a;
}

Answer RespondCursor(const HookCall& call, const Decision& d,
                     const std::optional<std::string>& replacement) {
  Answer a;
  const std::string& ev = call.agent_event;
  if (call.event == "pre_tool_call") {
    if (d.deny || (d.rewritten && ev != "preToolUse")) {
      const std::string reason = d.deny ? d.reason : UnappliedRewrite(d);
      a.out = Flat({{"permission", Value("deny")},
                    {"user_message", Value(reason)},
                    {"agent_message", Value(reason)}});
      return a;
    }
    if (d.rewritten) {
      a.out = Flat({{"permission", Value("allow")}, {"updated_input", *d.rewritten}});
    }
    if (!d.context.empty()) a.err = StrCat(d.context, "\n");
    return a;
  }
  if (call.event == "post_tool_call") {
    core::ValueObject out;
    std::string context = d.context;
    if (replacement) {
      if (absl::StartsWith(call.agent_tool, "MCP:") || ev == "afterMCPExecution") {
        out.emplace_back("updated_mcp_tool_output", Value(*replacement));
      } else {
        context = ContextWith(d, *replacement);
        a.err = StrCat("plugline: ", kUnreplaceable, "\n");
      }
    }
    if (!context.empty() && ev == "postToolUse") {
      out.emplace_back("additional_context", Value(context));
    }
    a.out = Flat(out);
    return a;
  }
  if (!d.context.empty() && ev == "sessionStart") {
    a.out = Flat({{"additional_context", Value(d.context)}});
  }
  return a;
}

Answer RespondCopilot(const HookCall& call, const Decision& d,
                      const std::optional<std::string>& replacement) {
  Answer a;
  const std::string ev = absl::AsciiStrToLower(ToAbsl(call.agent_event));
  if (call.event == "pre_tool_call") {
    if (d.deny) {
      a.out = Flat({{"permissionDecision", Value("deny")},
                    {"permissionDecisionReason", Value(d.reason)}});
      return a;
    }
    if (d.rewritten) {
      a.out = Flat({{"permissionDecision", Value("allow")}, {"modifiedArgs", *d.rewritten}});
    }
    return a;
  }
  core::ValueObject out;
  if (call.event == "post_tool_call" && replacement) {
    if (ev == "posttooluse") {
      core::ValueObject result;
      result.emplace_back("resultType", Value("success"));
      std::string text = *replacement;
      if (!call.output_trailer.empty()) {
        StrAppend(&text, text.empty() || text.back() == '\n' ? "" : "\n", call.output_trailer);
      }
      result.emplace_back("textResultForLlm", Value(std::move(text)));
      out.emplace_back("modifiedResult", Value(std::move(result)));
    } else {
      a.err = StrCat("plugline: ", kUnreplaceable, "\n");
    }
  }
  std::string context = d.context;
  if (call.event == "post_tool_call" && replacement && ev != "posttooluse") {
    context = ContextWith(d, *replacement);
  }
  if (!context.empty()) {
    if (ev == "posttooluse" || ev == "posttoolusefailure" || ev == "sessionstart" ||
        ev == "subagentstart" || ev == "notification") {
      out.emplace_back("additionalContext", Value(context));
    } else {
      a.err += StrCat(context, "\n");
    }
  }
  a.out = Flat(out);
  return a;
}

// plugline's OpenCode plugin applies these members (bindings/opencode/plugline.js): `deny`
// (a reason: it throws), `args` (the whole new arguments), `output` (the tool's output the
// model reads), `notice`.
Answer RespondOpenCode(const HookCall& call, const Decision& d,
                       const std::optional<std::string>& replacement) {
  Answer a;
  core::ValueObject out;
  if (d.deny) {
    out.emplace_back("deny", Value(d.reason.empty() ? std::string("denied by a plugline plugin")
                                                    : d.reason));
    a.out = Flat(out);
    return a;
  }
  if (call.event == "pre_tool_call" && d.rewritten) out.emplace_back("args", *d.rewritten);
  if (call.event == "post_tool_call" && replacement) out.emplace_back("output", Value(*replacement));
  if (!d.context.empty()) out.emplace_back("notice", Value(d.context));
  a.out = Flat(out);
  return a;
}

}  // namespace

Answer Respond(const HookCall& call, const DispatchResult& result,
               const std::optional<std::string>& replacement) {
  const Decision d = Decide(call, result);
  switch (call.agent) {
    case Agent::kClaudeCode:
      return RespondClaude(call, d, replacement);
    case Agent::kCodex:
      return RespondCodex(call, d, replacement);
    case Agent::kGemini:
      return RespondGemini(call, d, replacement);
    case Agent::kCursor:
      return RespondCursor(call, d, replacement);
    case Agent::kCopilot:
      return RespondCopilot(call, d, replacement);
    case Agent::kOpenCode:
      return RespondOpenCode(call, d, replacement);
  }
  return Answer{};
}

Answer FailureAnswer(Agent agent, std::string_view why, bool fail_closed) {
  Answer a;
  a.err = StrCat("plugline: ", why, "\n");
  if (fail_closed) {
    a.exit_code = 2;
  } else {
    // Copilot CLI denies a preToolUse whose hook exits non-zero: only 0 lets the call go on.
    a.exit_code = agent == Agent::kCopilot ? 0 : 1;
  }
  return a;
}

}  // namespace plugline::agents

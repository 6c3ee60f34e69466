#include "agents/install.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/match.h"
#include "agents/embedded.h"
#include "core/fs.h"
#include "core/strings.h"

namespace plugline::agents {
namespace {

using core::Value;
using core::ValueArray;

// The events plugline's hook goes on, per agent: every one it maps (dialect.cc), but Cursor's
// beforeShellExecution and afterShellExecution, which would run the plugins a second time for
// every shell command preToolUse and postToolUse already cover.
std::vector<std::string_view> HookEvents(Agent agent) {
  switch (agent) {
    case Agent::kClaudeCode:
      return {"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit",
              "SessionStart", "SessionEnd", "Stop", "PreCompact"};
    case Agent::kCodex:
      return {"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop"};
    case Agent::kGemini:
      return {"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart",
              "SessionEnd", "PreCompress"};
    case Agent::kCursor:
      return {"preToolUse", "postToolUse", "postToolUseFailure", "beforeSubmitPrompt", "stop",
              "sessionStart", "sessionEnd", "preCompact"};
    case Agent::kCopilot:
      return {"preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted",
              "sessionStart", "sessionEnd", "agentStop", "preCompact"};
    case Agent::kOpenCode:  // the hooks plugline's OpenCode plugin has
      return {"tool.execute.before", "tool.execute.after", "chat.message", "chat.params",
              "chat.headers", "shell.env", "event"};
  }
  return {};
}

// plugline's OpenCode plugin, as `plugline install --agent opencode` writes it: its first line
// marks it, and DEFAULT_BINARY is the plugline that installed it.
constexpr std::string_view kBridgeMarker = "// plugline-opencode-bridge\n";
constexpr std::string_view kBridgeDefault = "const DEFAULT_BINARY = \"plugline\";";

bool IsBridge(std::string_view text) { return text.starts_with(kBridgeMarker); }

std::string BridgeSource(std::string_view plugline) {
  std::string source(embedded::kOpenCodeBridge);
  const size_t at = source.find(kBridgeDefault);
  if (at != std::string::npos) {
    source.replace(at, kBridgeDefault.size(),
                   StrCat("const DEFAULT_BINARY = ", core::ToJson(core::Value(plugline)), ";"));
  }
  return source;
}

std::vector<std::string> EventNames(Agent agent) {
  std::vector<std::string> names;
  for (std::string_view event : HookEvents(agent)) names.emplace_back(event);
  return names;
}

// Cursor's and Copilot's event lists hold handlers; the others' hold matcher groups.
bool FlatHandlers(Agent agent) { return agent == Agent::kCursor || agent == Agent::kCopilot; }

// The member of a handler that holds its command line.
std::string_view CommandKey(Agent agent) { return agent == Agent::kCopilot ? "bash" : "command"; }

// Whether `command` is plugline's hook command for `agent`, wherever plugline is installed.
bool IsOurs(Agent agent, std::string_view command) {
  const std::string marker = StrCat(" hook --agent ", AgentName(agent));
  const size_t at = command.find(marker);
  if (at == std::string_view::npos) return false;
  const size_t after = at + marker.size();
  if (after < command.size() && command[after] != ' ') return false;  // another agent's name
  std::string_view program = command.substr(0, at);
  if (!program.empty() && program.back() == '\'') program.remove_suffix(1);
  return absl::EndsWith(ToAbsl(program), "plugline");
}

Value Handler(Agent agent, std::string_view command) {
  // Built as JSON text: GCC 12 warns falsely on a number Value moved into a member list.
  core::JsonWriter w;
  w.BeginObject();
  if (agent != Agent::kCursor) w.Key("type").String("command");
  w.Key(CommandKey(agent)).String(command);
  if (agent == Agent::kCopilot) w.Key("timeoutSec").Int(30);
  if (agent == Agent::kGemini) w.Key("name").String("plugline");
  w.EndObject();
  return core::ParseJson(w.Take(), "handler").value();
}

absl::StatusOr<Value> ReadSettings(std::string_view existing, std::string_view path) {
  if (existing.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Value(core::ValueObject{});
  }
  absl::StatusOr<Value> doc = core::ParseJson(existing, path);
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) {
    return absl::InvalidArgumentError(StrCat(path, ": not a JSON object; nothing was changed"));
  }
  return doc;
}

// The settings' `hooks` object (made when absent), or an error naming what is in its way.
absl::StatusOr<Value*> HooksOf(Value& doc, std::string_view path) {
  Value* hooks = nullptr;
  for (auto& [key, value] : doc.as_object()) {
    if (key == "hooks") hooks = &value;
  }
  if (hooks == nullptr) {
    doc.Set("hooks", Value(core::ValueObject{}));
    return HooksOf(doc, path);
  }
  if (!hooks->is_object()) {
    return absl::InvalidArgumentError(
        StrCat(path, ": `hooks` is ", Value::KindName(hooks->kind()), ", not an object; nothing was changed"));
  }
  return hooks;
}

Value* Member(Value& object, std::string_view key) {
  for (auto& [k, v] : object.as_object()) {
    if (k == key) return &v;
  }
  return nullptr;
}

// The handlers of one entry of an event's list: the entry itself (flat lists) or its `hooks`.
ValueArray* HandlersOf(Agent agent, Value& entry) {
  if (FlatHandlers(agent)) return nullptr;
  if (!entry.is_object()) return nullptr;
  Value* hooks = Member(entry, "hooks");
  return hooks != nullptr && hooks->is_array() ? &hooks->as_array() : nullptr;
}

bool HandlerIsOurs(Agent agent, const Value& handler) {
  if (!handler.is_object()) return false;
  const Value* command = handler.Find(CommandKey(agent));
  return command != nullptr && command->is_string() && IsOurs(agent, command->as_string());
}

void AppendPretty(const Value& value, int depth, std::string& out) {
  const std::string indent(static_cast<size_t>(depth + 1) * 2, ' ');
  const std::string close(static_cast<size_t>(depth) * 2, ' ');
  if (value.is_object()) {
    const core::ValueObject& members = value.as_object();
    if (members.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    for (size_t i = 0; i < members.size(); ++i) {
      out += indent;
      core::AppendJsonString(out, members[i].first);
      out += ": ";
      AppendPretty(members[i].second, depth + 1, out);
      out += i + 1 < members.size() ? ",\n" : "\n";
    }
    out += close + "}";
  } else if (value.is_array()) {
    const core::ValueArray& items = value.as_array();
    if (items.empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (size_t i = 0; i < items.size(); ++i) {
      out += indent;
      AppendPretty(items[i], depth + 1, out);
      out += i + 1 < items.size() ? ",\n" : "\n";
    }
    out += close + "]";
  } else {
    out += core::ToJson(value);
  }
}

SettingsChange Finish(const Value& doc, std::string_view existing, std::vector<std::string> events) {
  SettingsChange change;
  change.text = PrettyJson(doc);
  change.changed = change.text != existing;
  change.events = std::move(events);
  return change;
}

}  // namespace

std::string HookSettingsPath(Agent agent, bool project, const std::string& home,
                             const std::string& project_dir, const std::string& codex_home,
                             const std::string& config_home) {
  const std::string& base = project ? project_dir : home;
  switch (agent) {
    case Agent::kClaudeCode:
      return core::JoinPath(base, ".claude/settings.json");
    case Agent::kCodex:
      if (!project && !codex_home.empty()) return core::JoinPath(codex_home, "hooks.json");
      return core::JoinPath(base, ".codex/hooks.json");
    case Agent::kGemini:
      return core::JoinPath(base, ".gemini/settings.json");
    case Agent::kCursor:
      return core::JoinPath(base, ".cursor/hooks.json");
    case Agent::kCopilot:
      // A file of plugline's own: Copilot CLI runs every file in these folders.
      return core::JoinPath(base, project ? ".github/hooks/plugline.json"
                                          : ".copilot/hooks/plugline.json");
    case Agent::kOpenCode:
      if (project) return core::JoinPath(project_dir, ".opencode/plugins/plugline.js");
      return core::JoinPath(config_home.empty() ? core::JoinPath(home, ".config") : config_home,
                            "opencode/plugins/plugline.js");
  }
  return "";
}

std::string HookCommand(Agent agent, std::string_view plugline, std::string_view event) {
  const bool plain = std::all_of(plugline.begin(), plugline.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' ||
           c == '-' || c == '+';
  });
  std::string program;
  if (plain) {
    program = std::string(plugline);
  } else {
    program = "'";
    for (char c : plugline) program += c == '\'' ? std::string("'\\''") : std::string(1, c);
    program += "'";
  }
  std::string command = StrCat(program, " hook --agent ", AgentName(agent));
  if (!event.empty()) command += StrCat(" ", event);
  return command;
}

absl::StatusOr<SettingsChange> InstallHooks(Agent agent, std::string_view plugline,
                                            std::string_view existing, std::string_view path) {
  if (agent == Agent::kOpenCode) {
    if (!existing.empty() && !IsBridge(existing)) {
      return absl::InvalidArgumentError(
          StrCat(path, ": holds another plugin, not plugline's; nothing was changed"));
    }
    SettingsChange change;
    change.text = BridgeSource(plugline);
    change.changed = change.text != existing;
    change.events = EventNames(agent);
    return change;
  }
  absl::StatusOr<Value> doc = ReadSettings(existing, path);
  if (!doc.ok()) return doc.status();
  if (FlatHandlers(agent) && doc->Find("version") == nullptr) {
    core::ValueObject with_version;
    with_version.emplace_back("version", Value(1));
    for (auto& member : doc->as_object()) with_version.push_back(std::move(member));
    *doc = Value(std::move(with_version));
  }
  absl::StatusOr<Value*> hooks = HooksOf(*doc, path);
  if (!hooks.ok()) return hooks.status();
  std::vector<std::string> added;
  for (std::string_view event : HookEvents(agent)) {
    const std::string command =
        HookCommand(agent, plugline, agent == Agent::kCopilot ? event : std::string_view());
    Value* list = Member(**hooks, event);
    if (list == nullptr) {
      (*hooks)->Set(event, Value(core::ValueArray{}));
      list = Member(**hooks, event);
    }
    if (!list->is_array()) {
      return absl::InvalidArgumentError(StrCat(path, ": hooks.", event, " is ",
                                               Value::KindName(list->kind()),
                                               ", not a list; nothing was changed"));
    }
    // Already there (perhaps for a plugline elsewhere: then it is pointed at this one).
    bool present = false;
    for (Value& entry : list->as_array()) {
      std::vector<Value*> handlers;
      if (ValueArray* inner = HandlersOf(agent, entry)) {
        for (Value& h : *inner) handlers.push_back(&h);
      } else if (FlatHandlers(agent)) {
        handlers.push_back(&entry);
      }
      for (Value* handler : handlers) {
        if (!HandlerIsOurs(agent, *handler)) continue;
        present = true;
        handler->Set(CommandKey(agent), Value(command));
      }
    }
    if (present) continue;
    if (FlatHandlers(agent)) {
      list->as_array().push_back(Handler(agent, command));
    } else {
      core::ValueArray handlers;
      handlers.push_back(Handler(agent, command));
      core::ValueObject group;
      group.emplace_back("hooks", Value(std::move(handlers)));
      list->as_array().push_back(Value(std::move(group)));
    }
    added.emplace_back(event);
  }
  return Finish(*doc, existing, std::move(added));
}

absl::StatusOr<SettingsChange> UninstallHooks(Agent agent, std::string_view existing,
                                              std::string_view path) {
  if (agent == Agent::kOpenCode) {
    SettingsChange change;
    if (IsBridge(existing)) {
      change.changed = true;
      change.remove_file = true;
      change.events = EventNames(agent);
    }
    return change;
  }
  absl::StatusOr<Value> doc = ReadSettings(existing, path);
  if (!doc.ok()) return doc.status();
  Value* hooks = Member(*doc, "hooks");
  std::vector<std::string> removed;
  if (hooks == nullptr || !hooks->is_object()) return Finish(*doc, existing, removed);
  core::ValueObject& events = hooks->as_object();
  for (auto event = events.begin(); event != events.end();) {
    if (!event->second.is_array()) {
      ++event;
      continue;
    }
    ValueArray& list = event->second.as_array();
    bool took = false;
    for (auto entry = list.begin(); entry != list.end();) {
      if (FlatHandlers(agent)) {
        if (HandlerIsOurs(agent, *entry)) {
          entry = list.erase(entry);
          took = true;
          continue;
        }
      } else if (ValueArray* handlers = HandlersOf(agent, *entry)) {
        const size_t before = handlers->size();
        handlers->erase(std::remove_if(handlers->begin(), handlers->end(),
                                       [&](const Value& h) { return HandlerIsOurs(agent, h); }),
                        handlers->end());
        if (handlers->size() != before) {
          took = true;
          if (handlers->empty()) {
            entry = list.erase(entry);
            continue;
          }
        }
      }
      ++entry;
    }
    if (took) removed.push_back(event->first);
    if (took && list.empty()) {
      event = events.erase(event);
    } else {
      ++event;
    }
  }
  if (events.empty() && !removed.empty()) {
    core::ValueObject& root = doc->as_object();
    root.erase(std::remove_if(root.begin(), root.end(),
                              [](const auto& m) { return m.first == "hooks"; }),
               root.end());
  }
  return Finish(*doc, existing, std::move(removed));
}

std::string_view AfterInstall(Agent agent) {
  switch (agent) {
    case Agent::kCodex:
      return "Codex runs a hook only once you have trusted it: open /hooks in Codex and trust "
             "the plugline entries (`codex exec` skips untrusted hooks silently; "
             "--dangerously-bypass-hook-trust runs them anyway)";
    case Agent::kCursor:
      return "Cursor runs a project's hooks only in a trusted workspace";
    default:
      return "";
  }
}

std::string PrettyJson(const Value& value) {
  std::string out;
  AppendPretty(value, 0, out);
  out += "\n";
  return out;
}

}  // namespace plugline::agents

// Hook plugins: the interface every kind of hook plugin implements (exec programs, JS modules,
// native callbacks), and the answer a plugin gives. The dispatcher (dispatcher.h) runs them in
// a fixed order (docs/hooks.md "Order and rules").
#ifndef PLUGLINE_CORE_HOOKS_H_
#define PLUGLINE_CORE_HOOKS_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/json.h"
#include "plugline/hooks.h"
#include "plugline/plugins.h"

namespace plugline::core {

// The canonical events (docs/hooks.md "Events and payloads"). Any other name is dispatched as observe-only.
inline constexpr std::string_view kCanonicalEvents[] = {
    "session_start", "session_end",     "turn_end",   "user_prompt", "pre_tool_call",
    "post_tool_call", "tool_definition", "shell_env", "pre_compact"};

// A plugin's answer (the public struct of <plugline/hooks.h>).
using HookAnswer = plugline::HookAnswer;

// The keys of an answer object (docs/plugins-exec.md).
inline constexpr std::string_view kAnswerKeys[] = {"deny", "reason", "arguments", "result",
                                                   "notice"};
// At most this many unknown keys of one answer are named in its warnings; the rest are counted.
inline constexpr size_t kMaxUnknownKeyWarnings = 8;

// A plugin's answer from its JSON object (the exec protocol's answer, a native hook's answer
// from the C ABI): every field optional, null and "" count as absent, `arguments` must be
// valid JSON text. InvalidArgument otherwise, the message starting with `source` ("stdout:
// `deny` must be true or false, not a string"). A key that is neither one of kAnswerKeys nor in
// `also_known` (the persistent protocol's "id") is ignored — a newer protocol may add some —
// and named in the answer's warnings, with the key meant when it is one edit away from one or a
// known alias (`denied`, `block` for `deny`; `args` for `arguments`; `message` for `notice`).
absl::StatusOr<HookAnswer> HookAnswerFromValue(const Value& doc, std::string_view source,
                                               std::span<const std::string_view> also_known = {});
// The same from text; empty or whitespace-only text is no opinion.
absl::StatusOr<HookAnswer> ParseHookAnswer(std::string_view text, std::string_view source);

class HookPlugin {
 public:
  virtual ~HookPlugin() = default;
  // Unique in a registry: the manifest's name, the JS plugin's id, a native hook's name.
  virtual const std::string& id() const = 0;
  // Whether this plugin runs for `event`.
  virtual bool Handles(std::string_view event) const = 0;
  // `on_error: closed`: a failure of this plugin counts as a deny.
  virtual bool fail_closed() const { return false; }
  // Runs the plugin on one event. `payload_json` is a JSON object (docs/hooks.md "Events and payloads"). A
  // failure (crash, timeout, not JSON, wrong field types) is an error whose message says
  // what happened; the dispatcher skips the plugin with that reason.
  virtual absl::StatusOr<HookAnswer> Call(std::string_view event,
                                          std::string_view payload_json) = 0;
  // Called once after the plugin loaded, when every plugin of that loading pass has loaded, in
  // dispatch order (loading itself runs on several threads): an OpenCode plugin's `config`
  // hooks run here.
  virtual void AfterLoad() {}
  // Called once before the plugin is dropped (host closing, plugin reloaded or removed), in
  // dispatch order; an OpenCode plugin's `dispose` hooks run here. Errors are the plugin's to
  // log.
  virtual void Dispose() {}
};

// What one plugin's named hook did (TriggerNamed).
using NamedHookResult = plugline::NamedHookRun;

// Plugins with a hook vocabulary of their own, called as (input, output) with the output
// mutated in place: OpenCode's "tool.execute.before", "shell.env", ... (docs/plugins-opencode.md).
class NamedHookPlugin {
 public:
  virtual ~NamedHookPlugin() = default;
  virtual const std::string& named_hooks_id() const = 0;
  virtual bool HasNamedHook(std::string_view name) const = 0;
  // Runs hook `name` with `input_json` and `output_json` (JSON objects). An error is a failure
  // of the plugin itself (crash, time budget); a hook that throws is NamedHookResult::error.
  virtual absl::StatusOr<NamedHookResult> TriggerNamed(std::string_view name,
                                                       std::string_view input_json,
                                                       std::string_view output_json) = 0;
};

// A tool a plugin adds to the agent, and what running it gave (include/plugline/plugins.h).
using ToolInfo = plugline::ToolInfo;
using ToolResult = plugline::ToolResult;

class ToolProvider {
 public:
  virtual ~ToolProvider() = default;
  virtual std::vector<ToolInfo> Tools() = 0;
  // Runs tool `name` with `args_json` and the call's `context_json` ({sessionID, messageID,
  // agent, directory, worktree}). A tool that throws is a ToolResult with ok = false; an error
  // is a failure of the plugin itself.
  virtual absl::StatusOr<ToolResult> ExecuteTool(std::string_view name, std::string_view args_json,
                                                 std::string_view context_json) = 0;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_HOOKS_H_

// Hook plugins: the interface every kind of hook plugin implements (exec programs, JS modules,
// native callbacks), and the answer a plugin gives. The dispatcher (dispatcher.h) runs them in
// a fixed order (DESIGN.md "Dispatch rules").
#ifndef PLUGLINE_CORE_HOOKS_H_
#define PLUGLINE_CORE_HOOKS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace plugline::core {

// The canonical events (DESIGN.md "Events"). Any other name is dispatched as observe-only.
inline constexpr std::string_view kCanonicalEvents[] = {
    "session_start", "session_end",     "turn_end",   "user_prompt", "pre_tool_call",
    "post_tool_call", "tool_definition", "shell_env", "pre_compact"};

// A plugin's answer; every field optional; all absent ({} or no output) = no opinion.
struct HookAnswer {
  bool deny = false;
  std::string reason;                     // why it denied
  std::optional<std::string> arguments;   // new arguments (a JSON-encoded string), pre_tool_call
  std::optional<std::string> result;      // a replacement result, post_tool_call
  std::optional<std::string> notice;      // a message for the agent or user, any event
};

class HookPlugin {
 public:
  virtual ~HookPlugin() = default;
  // Unique in a registry: the manifest's name, the JS plugin's id, a native hook's name.
  virtual const std::string& id() const = 0;
  // Whether this plugin runs for `event`.
  virtual bool Handles(std::string_view event) const = 0;
  // `on_error: closed`: a failure of this plugin counts as a deny.
  virtual bool fail_closed() const { return false; }
  // Runs the plugin on one event. `payload_json` is a JSON object (DESIGN.md "Payload"). A
  // failure (crash, timeout, not JSON, wrong field types) is an error whose message says
  // what happened; the dispatcher skips the plugin with that reason.
  virtual absl::StatusOr<HookAnswer> Call(std::string_view event,
                                          std::string_view payload_json) = 0;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_HOOKS_H_

// The canonical events as OpenCode's hooks see them (docs/plugins-opencode.md "Events"): which
// hook an event runs, the (input, output) pair the hook is called with, and what the output it
// left means for the event. Shared by every kind of OpenCode plugin: the JS modules plugline
// loads and the plugins a host runs in its own JavaScript engine (Host::AddOpenCodePlugin).
#ifndef PLUGLINE_CORE_OPENCODE_EVENTS_H_
#define PLUGLINE_CORE_OPENCODE_EVENTS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/hooks.h"
#include "core/json.h"

namespace plugline::core {

// The OpenCode hook a canonical event maps to: "tool.execute.before", "tool.execute.after",
// "chat.message", "tool.definition", "shell.env", "experimental.session.compacting", else
// "event".
std::string_view OpenCodeHookFor(std::string_view event);

// One event, as the hook it maps to is called.
struct OpenCodeHookCall {
  std::string hook;         // OpenCodeHookFor(event)
  std::string input_json;   // the hook's input (JSON object)
  std::string output_json;  // the output the hook may change (JSON object)
  // "event": the OpenCode event, {type, properties} ("session.created", "session.idle", ...;
  // other events keep their name and have the payload as properties). The input is
  // {"event": <it>}.
  std::string event_json;
  // tool.execute.before: the call's arguments as the hook sees them (a JSON object; anything
  // else counts as {}), to tell a rewrite from the same arguments given back.
  std::string arguments_json;
};

// `payload` is the event's payload (docs/hooks.md "Events and payloads"). plugline's shell tool,
// "terminal", is OpenCode's "bash"; the other canonical tool names are OpenCode's.
OpenCodeHookCall ToOpenCodeHook(std::string_view event, const Value& payload);

// What the hook's run means for the event: on tool.execute.before a throw denies, with its
// message as the reason, and `args` other than the ones given rewrite the arguments; on
// tool.execute.after an `output` other than the result replaces it; any other throw is an
// error (UnknownError "<hook> threw: <message>"), so the plugin is skipped or, failing closed,
// denies. Other outputs change nothing the event carries. InvalidArgument when the output is
// not JSON.
absl::StatusOr<HookAnswer> FromOpenCodeHook(const OpenCodeHookCall& call, const Value& payload,
                                            const NamedHookResult& ran);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_OPENCODE_EVENTS_H_

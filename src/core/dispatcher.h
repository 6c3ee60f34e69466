// The hook dispatcher: runs hook plugins on one event, one after another in the caller's order,
// and tells the host what they decided (docs/hooks.md "Order and rules", "What the host gets back").
//
// Rules, in the order they apply:
// - Only plugins whose Handles(event) is true run; the others leave no trace in the result.
// - Each plugin gets the payload as the previous plugin left it: an `arguments` rewrite (on
//   pre_tool_call) or a `result` replacement (on post_tool_call) is written into the payload the
//   next plugin sees, so two rewrites compose. Every other payload field passes through.
// - What an event lets a plugin do (docs/hooks.md "Events and payloads"):
//     pre_tool_call   deny, rewrite arguments, notice
//     post_tool_call  replace result, notice
//     anything else   notice only (observe-only, including every non-canonical name)
//   A deny, rewrite or replacement the event does not allow is ignored, and the plugin's record
//   says what it tried.
// - A deny on pre_tool_call ends the chain at once: no later plugin runs.
// - A plugin whose Call fails, or whose answer is unusable (an `arguments` rewrite that is not
//   valid JSON), is skipped with the reason and the chain goes on; if the plugin is
//   fail_closed(), the failure is a deny naming the plugin and the failure instead — on
//   pre_tool_call, the only event a deny means anything on; elsewhere it is skipped like any
//   other failure.
// - An empty `arguments`, `result` or `notice` string in an answer means "no opinion", as in the
//   Antares protocol where `{"arguments":"","result":"","notice":""}` is the empty answer.
// - A skipped plugin's detail (and so a fail-closed plugin's deny reason) and the warnings pass
//   through RedactSecrets (redact.h): they quote what a plugin printed, and go to the agent.
// - An answer's warnings (unknown keys) go to the result's `warnings` under the plugin's id. An
//   event name one edit away from a canonical one (NearCanonicalEvent) is dispatched as the
//   observe-only event it is, with a warning first: a host that misspells pre_tool_call would
//   otherwise see every deny "ignored" without being told why.
//
// Thread safety: Dispatch itself keeps no state; it calls the plugins from the calling thread,
// so whether two dispatches may run at once depends on the plugins.
#ifndef PLUGLINE_CORE_DISPATCHER_H_
#define PLUGLINE_CORE_DISPATCHER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hooks.h"

namespace plugline::core {

// What each event lets a plugin do, from the table in docs/hooks.md "Events and payloads". Any name that is not
// canonical gets {} (observe-only); a notice is allowed everywhere.
struct EventCapabilities {
  bool can_deny = false;               // pre_tool_call
  bool can_rewrite_arguments = false;  // pre_tool_call
  bool can_replace_result = false;     // post_tool_call
};
EventCapabilities CapabilitiesOf(std::string_view event);
bool IsCanonicalEvent(std::string_view event);

// The canonical event a name that is not one was probably meant to be: one edit away
// (pre_tool_cal, pre_tool_calls, pre_tool_clal), or the same once case and the separators
// '_', '-', '.' and ' ' are set aside (PreToolCall, pre-tool-call), or one edit away from that.
// nullopt for a canonical name and for names far from all of them (a host's own events).
std::optional<std::string_view> NearCanonicalEvent(std::string_view event);

// The warning for an event name NearCanonicalEvent matches, for the dispatch result and for
// listings of plugins subscribed to it; nullopt when it matches none.
std::optional<std::string> NearCanonicalEventWarning(std::string_view event);

// The per-plugin `action` vocabulary of DispatchResult::PluginRecord, one per plugin that ran:
//   "none"     answered with no opinion
//   "notice"   only added a notice
//   "rewrite"  rewrote the arguments (perhaps with a notice)
//   "replace"  replaced the result (perhaps with a notice)
//   "deny"     denied; the chain ended here (also a fail_closed plugin's failure)
//   "skipped"  failed or gave an unusable answer; see `skipped` for why
//   "ignored: <what> on <event kind>"  tried something the event does not allow, e.g.
//              "ignored: deny on observe-only event session_start" or
//              "ignored: result on pre_tool_call (only post_tool_call replaces the result)";
//              whatever the event allows from the same answer (a notice, a rewrite) still applied
inline constexpr std::string_view kActionNone = "none";
inline constexpr std::string_view kActionNotice = "notice";
inline constexpr std::string_view kActionRewrite = "rewrite";
inline constexpr std::string_view kActionReplace = "replace";
inline constexpr std::string_view kActionDeny = "deny";
inline constexpr std::string_view kActionSkipped = "skipped";
inline constexpr std::string_view kActionIgnored = "ignored";  // followed by ": <what> on ..."

// The `why` of a skipped plugin whose answer the dispatcher rejected (arguments not JSON). A
// plugin whose Call failed has the snake_case name of the status code instead: "internal",
// "deadline_exceeded", "resource_exhausted", "invalid_argument", ...
inline constexpr std::string_view kWhyBadAnswer = "bad_answer";

// The public struct of <plugline/hooks.h>.
using DispatchResult = plugline::DispatchResult;

// Dispatches `event` with `payload_json` (a JSON object, docs/hooks.md "Events and payloads") to `plugins`, in
// the given order (the caller orders by source, then name). The payload's "event" field is set to
// `event` for the plugins. "arguments" and "result", when present, must be strings (or null,
// which counts as absent).
// Errors: InvalidArgument when the payload is not valid JSON, not an object, has an "arguments"
// or "result" that is not a string, or when `event` is empty or a plugin pointer is null;
// nothing runs then. A plugin's failure is never an error of the dispatch.
absl::StatusOr<DispatchResult> Dispatch(std::string_view event, std::string_view payload_json,
                                        const std::vector<std::shared_ptr<HookPlugin>>& plugins);

// A hook implemented by a C++ function, so a C++ host (and later the C ABI) joins the same chain
// as exec and JS plugins. The function gets the event and the payload JSON and returns its answer
// or an error (a failure, skipped or — if fail_closed — a deny, like any plugin's).
class NativeHook : public HookPlugin {
 public:
  using Function = std::function<absl::StatusOr<HookAnswer>(std::string_view event,
                                                            std::string_view payload_json)>;

  // `events`: the events it handles; "*" handles every event; empty handles none (as the Antares protocol's
  // `hooks: []`). A function that throws is reported as an Internal failure of this plugin.
  NativeHook(std::string id, std::vector<std::string> events, Function function,
             bool fail_closed = false);

  const std::string& id() const override { return id_; }
  const std::vector<std::string>& events() const { return events_; }
  bool Handles(std::string_view event) const override;
  bool fail_closed() const override { return fail_closed_; }
  absl::StatusOr<HookAnswer> Call(std::string_view event, std::string_view payload_json) override;

 private:
  std::string id_;
  std::vector<std::string> events_;
  Function function_;
  bool fail_closed_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_DISPATCHER_H_

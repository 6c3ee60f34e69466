#include "core/host_opencode_plugin.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "core/opencode_events.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

// The host's function, with what it throws as the plugin's failure.
template <typename Fn>
auto Guarded(std::string_view what, const Fn& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return absl::InternalError(StrCat(what, " threw an exception: ", e.what()));
  } catch (...) {
    return absl::InternalError(StrCat(what, " threw an exception"));
  }
}

}  // namespace

HostOpenCodePlugin::HostOpenCodePlugin(OpenCodePluginOptions options)
    : options_(std::move(options)) {
  for (ToolInfo& tool : options_.tools) {
    tool.plugin = options_.id;
    if (tool.parameters_json.empty()) tool.parameters_json = R"({"type":"object","properties":{}})";
  }
}

bool HostOpenCodePlugin::HasNamedHook(std::string_view name) const {
  return std::find(options_.hooks.begin(), options_.hooks.end(), name) != options_.hooks.end();
}

bool HostOpenCodePlugin::Handles(std::string_view event) const {
  return HasNamedHook(OpenCodeHookFor(event));
}

absl::StatusOr<HookAnswer> HostOpenCodePlugin::Call(std::string_view event,
                                                    std::string_view payload_json) {
  absl::StatusOr<Value> payload = ParseJson(payload_json, "payload");
  if (!payload.ok()) return payload.status();
  const OpenCodeHookCall call = ToOpenCodeHook(event, *payload);
  absl::StatusOr<NamedHookResult> ran = TriggerNamed(call.hook, call.input_json, call.output_json);
  if (!ran.ok()) return ran.status();
  return FromOpenCodeHook(call, *payload, *ran);
}

absl::StatusOr<NamedHookResult> HostOpenCodePlugin::TriggerNamed(std::string_view name,
                                                                 std::string_view input_json,
                                                                 std::string_view output_json) {
  absl::StatusOr<NamedHookResult> ran = Guarded(
      name, [&]() -> absl::StatusOr<NamedHookResult> {
        return options_.trigger(name, input_json, output_json);
      });
  if (!ran.ok()) return ran;
  absl::StatusOr<Value> output = ParseJson(ran->output_json, StrCat(name, " output"));
  if (!output.ok() || !output->is_object()) {
    return absl::InvalidArgumentError(
        StrCat(name, ": the output the hook left is not a JSON object",
               output.ok() ? "" : StrCat(" (", output.status().message(), ")")));
  }
  return ran;
}

absl::StatusOr<ToolResult> HostOpenCodePlugin::ExecuteTool(std::string_view name,
                                                           std::string_view args_json,
                                                           std::string_view context_json) {
  return Guarded(StrCat("tool ", name), [&]() -> absl::StatusOr<ToolResult> {
    return options_.execute_tool(name, args_json.empty() ? "{}" : args_json,
                                 context_json.empty() ? "{}" : context_json);
  });
}

}  // namespace plugline::core

// An OpenCode plugin the host runs itself (plugline::OpenCodePluginOptions): the canonical
// events go to its hooks through opencode_events.h, named triggers and tools straight to the
// host's functions.
#ifndef PLUGLINE_CORE_HOST_OPENCODE_PLUGIN_H_
#define PLUGLINE_CORE_HOST_OPENCODE_PLUGIN_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/hooks.h"
#include "plugline/host.h"

namespace plugline::core {

class HostOpenCodePlugin final : public HookPlugin, public NamedHookPlugin, public ToolProvider {
 public:
  // `options` has been checked: an id, a trigger, and execute_tool when it has tools.
  explicit HostOpenCodePlugin(OpenCodePluginOptions options);

  const std::string& id() const override { return options_.id; }
  const std::string& named_hooks_id() const override { return options_.id; }
  const std::vector<std::string>& hooks() const { return options_.hooks; }
  bool fail_closed() const override { return options_.fail_closed; }
  bool Handles(std::string_view event) const override;
  // A hook that throws an exception out of the host's function fails the plugin (Internal).
  absl::StatusOr<HookAnswer> Call(std::string_view event, std::string_view payload_json) override;

  bool HasNamedHook(std::string_view name) const override;
  absl::StatusOr<NamedHookResult> TriggerNamed(std::string_view name, std::string_view input_json,
                                               std::string_view output_json) override;

  std::vector<ToolInfo> Tools() override { return options_.tools; }
  absl::StatusOr<ToolResult> ExecuteTool(std::string_view name, std::string_view args_json,
                                         std::string_view context_json) override;

 private:
  OpenCodePluginOptions options_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_HOST_OPENCODE_PLUGIN_H_

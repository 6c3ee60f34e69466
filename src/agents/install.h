// What `plugline install --agent X` writes: the agent's hook settings with plugline's hook
// command on every event plugline maps (docs/agents.md), merged into what the file holds, and
// what `--uninstall` takes out again. Pure functions over the file's text; the command line
// reads and writes the files (src/cli/install_command.cc).
#ifndef PLUGLINE_AGENTS_INSTALL_H_
#define PLUGLINE_AGENTS_INSTALL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "agents/dialect.h"

namespace plugline::agents {

// Where the agent reads hooks from: its user settings under `home` (the user's home; Codex's
// under `codex_home` when set), or the project's under `project`. OpenCode has no hook
// commands: its "settings" are plugline's OpenCode plugin (bindings/opencode/plugline.js), a
// file in OpenCode's plugin folder — `config_home` ($XDG_CONFIG_HOME, else ~/.config)
// /opencode/plugins/plugline.js, or the project's .opencode/plugins/plugline.js.
std::string HookSettingsPath(Agent agent, bool project, const std::string& home,
                             const std::string& project_dir, const std::string& codex_home,
                             const std::string& config_home = "");

// The hook command for `agent` and, for Copilot's camelCase events, `event`: `plugline` is the
// executable's absolute path (shell-quoted when it needs it).
std::string HookCommand(Agent agent, std::string_view plugline, std::string_view event = "");

struct SettingsChange {
  std::string text;                    // the file's new content (pretty JSON, newline-ended)
  bool changed = false;                // differs from what the file held
  bool remove_file = false;            // the file goes (OpenCode's plugin, uninstalled)
  std::vector<std::string> events;     // the events plugline's hook was added to / removed from
};

// `existing`: the file's content ("" when there is none). InvalidArgument naming `path` when it
// is not a JSON object (nothing is written then). Installing twice changes nothing; another
// tool's hooks are kept as they are, in their order. For OpenCode: the plugin's source with
// `plugline` as the plugline it runs; a file there that is not plugline's plugin is
// InvalidArgument (nothing is written).
absl::StatusOr<SettingsChange> InstallHooks(Agent agent, std::string_view plugline,
                                            std::string_view existing, std::string_view path);
// Takes out exactly the hooks InstallHooks added (any plugline path), and the groups and event
// lists that are left empty by it; everything else stays. OpenCode's plugin file goes whole
// (remove_file) when it is plugline's.
absl::StatusOr<SettingsChange> UninstallHooks(Agent agent, std::string_view existing,
                                              std::string_view path);

// What the user must still do by hand after installing, or "".
std::string_view AfterInstall(Agent agent);

// JSON text indented by two spaces, members in their order: how settings files are written.
std::string PrettyJson(const core::Value& value);

}  // namespace plugline::agents

#endif  // PLUGLINE_AGENTS_INSTALL_H_

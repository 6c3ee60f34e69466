// `plugline install --agent X`: writes (or with --uninstall takes out) plugline's hook command
// in a coding agent's hook settings (src/agents/install.h, docs/agents.md).
#ifndef PLUGLINE_CLI_INSTALL_COMMAND_H_
#define PLUGLINE_CLI_INSTALL_COMMAND_H_

#include <string>
#include <vector>

namespace plugline::cli {

// args: what follows `install`. Returns the exit status.
int InstallCommand(const std::vector<std::string>& args);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_INSTALL_COMMAND_H_

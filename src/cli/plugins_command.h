// `plugline plugins`: every plugin with its state and statistics (--tier, --json), one plugin
// in full (--info ID), and turning plugins on and off (--enable ID, --disable ID), built-in
// shapers included (docs/managing-plugins.md).
#ifndef PLUGLINE_CLI_PLUGINS_COMMAND_H_
#define PLUGLINE_CLI_PLUGINS_COMMAND_H_

#include <string>
#include <vector>

#include "cli/commands.h"

namespace plugline::cli {

// `args`: what follows `plugins`. Returns the exit status: 0, 1 (the plugin or the state file
// could not be changed, or --info of an unknown id) or 2 (usage).
int PluginsCommand(const std::vector<std::string>& args, CommandEnv& env);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_PLUGINS_COMMAND_H_

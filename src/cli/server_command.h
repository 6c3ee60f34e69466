// `plugline server`: run, start, query and stop the per-user server of $PLUGLINE_HOME.
#ifndef PLUGLINE_CLI_SERVER_COMMAND_H_
#define PLUGLINE_CLI_SERVER_COMMAND_H_

#include <string>
#include <vector>

namespace plugline::cli {

// args: what follows `server`. Returns the exit status.
int ServerCommand(const std::vector<std::string>& args);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_SERVER_COMMAND_H_

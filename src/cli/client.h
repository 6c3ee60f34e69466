// The `client` the command line gives OpenCode plugins (HostOptions::client): it has no
// OpenCode server behind it, so it answers what it can on its own and refuses the rest by name.
#ifndef PLUGLINE_CLI_CLIENT_H_
#define PLUGLINE_CLI_CLIENT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace plugline::cli {

// Answers one `client.<path>(...args)` call of a plugin (`args_json` is the arguments as a JSON
// array), as the SDK's methods resolve: {"data": ...}.
// - app.log({ body: { service, level, message, extra } }): a line in <home>/logs, at that level,
//   naming the service (secrets masked, as every log line).
// - tui.showToast({ body: { title, message, variant } }): one line on stderr,
//   "plugline: [variant] title: message" (secrets masked, control characters escaped).
// Every other method is Unimplemented, naming the method.
absl::StatusOr<std::string> CommandLineClient(std::string_view path, std::string_view args_json);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_CLIENT_H_

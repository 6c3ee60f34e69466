// What `plugline server` serves: the commands of commands.h and the shaping of outputs that
// clients captured, each with the host of the client's directory from the server's pool.
#ifndef PLUGLINE_CLI_SERVE_H_
#define PLUGLINE_CLI_SERVE_H_

#include <string>

#include "core/json.h"
#include "server/host_pool.h"

namespace plugline::cli {

// The reply to a `command`, `capture` or `shape` request (docs/server.md). Thread-safe.
std::string HandleRequest(server::HostPool& pool, const core::Value& request);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_SERVE_H_

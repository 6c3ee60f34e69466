// Pieces shared by process.cc (one-shot runs) and child.cc (long-lived children). Internal to
// src/exec; no libuv type appears here either.
#ifndef PLUGLINE_EXEC_SPAWN_INTERNAL_H_
#define PLUGLINE_EXEC_SPAWN_INTERNAL_H_

#include <signal.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

namespace plugline::exec::internal {

// The caller's environment with `extra_env` added or replacing entries of the same name, as
// "KEY=value" strings.
std::vector<std::string> BuildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra_env);

// The Status for a failed uv_spawn of `name` (a libuv error code): NotFound "command not found:
// x", PermissionDenied "permission denied: x", Internal otherwise.
absl::Status SpawnError(int uv_error, const std::string& name);

// Keeps a SIGPIPE raised by writing to a child that closed its stdin from killing the
// process: blocked for this thread while the guard lives, and consumed if it became pending.
class SigpipeGuard {
 public:
  SigpipeGuard();
  ~SigpipeGuard();
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

}  // namespace plugline::exec::internal

#endif  // PLUGLINE_EXEC_SPAWN_INTERNAL_H_

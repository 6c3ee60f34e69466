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

// While it lives, children forked by this thread get PR_SET_PDEATHSIG(SIGKILL) between fork
// and exec. libuv's uv_spawn offers no hook there, but it starts children with fork(), which
// runs pthread_atfork handlers in the child: the handler sets the signal when the forking
// thread is the one that armed it, and kills the child at once when the parent already died
// (getppid() changed) before the signal was set. Guards are serialized process-wide.
class ParentDeathSignalGuard {
 public:
  ParentDeathSignalGuard();
  ~ParentDeathSignalGuard();
  ParentDeathSignalGuard(const ParentDeathSignalGuard&) = delete;
  ParentDeathSignalGuard& operator=(const ParentDeathSignalGuard&) = delete;
};

}  // namespace plugline::exec::internal

#endif  // PLUGLINE_EXEC_SPAWN_INTERNAL_H_

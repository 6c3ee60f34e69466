#include "exec/spawn_internal.h"

#include <pthread.h>
#include <uv.h>

#include <string_view>

#include "core/strings.h"

extern char** environ;

namespace plugline::exec::internal {

std::vector<std::string> BuildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : extra_env) replaced = replaced || k == key;
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [k, v] : extra_env) env.push_back(StrCat(k, "=", v));
  return env;
}

absl::Status SpawnError(int uv_error, const std::string& name) {
  if (uv_error == UV_ENOENT) return absl::NotFoundError(StrCat("command not found: ", name));
  if (uv_error == UV_EACCES || uv_error == UV_EPERM) {
    return absl::PermissionDeniedError(StrCat("permission denied: ", name));
  }
  return absl::InternalError(StrCat("cannot start ", name, ": ", uv_strerror(uv_error)));
}

SigpipeGuard::SigpipeGuard() {
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &block, &old_);
}

SigpipeGuard::~SigpipeGuard() {
  sigset_t pending;
  sigpending(&pending);
  if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, SIGPIPE);
    struct timespec zero = {0, 0};
    sigtimedwait(&only, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

}  // namespace plugline::exec::internal

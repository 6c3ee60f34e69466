#include "exec/spawn_internal.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <uv.h>

#include <atomic>
#include <string_view>

#include "absl/base/call_once.h"
#include "absl/synchronization/mutex.h"
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

namespace {

// Which thread armed the parent-death signal, and the pid its children must see as parent.
// Read in a freshly forked child, which is a copy of the forking thread: only async-signal-safe
// work there (atomics, prctl, getppid, kill).
std::atomic<bool> g_pdeathsig_armed{false};
std::atomic<pthread_t> g_pdeathsig_thread{};
std::atomic<pid_t> g_pdeathsig_parent{0};

absl::Mutex& PdeathsigMutex() {
  static absl::Mutex* mutex = new absl::Mutex();
  return *mutex;
}

void SetParentDeathSignalInChild() {
  if (!g_pdeathsig_armed.load(std::memory_order_relaxed)) return;
  if (!pthread_equal(g_pdeathsig_thread.load(std::memory_order_relaxed), pthread_self())) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between fork and prctl: then no signal will ever come.
  if (::getppid() != g_pdeathsig_parent.load(std::memory_order_relaxed)) {
    ::kill(::getpid(), SIGKILL);
  }
}

}  // namespace

ParentDeathSignalGuard::ParentDeathSignalGuard() {
  static absl::once_flag registered;
  absl::call_once(registered,
                  [] { pthread_atfork(nullptr, nullptr, SetParentDeathSignalInChild); });
  PdeathsigMutex().Lock();
  g_pdeathsig_thread.store(pthread_self(), std::memory_order_relaxed);
  g_pdeathsig_parent.store(::getpid(), std::memory_order_relaxed);
  g_pdeathsig_armed.store(true, std::memory_order_release);
}

ParentDeathSignalGuard::~ParentDeathSignalGuard() {
  g_pdeathsig_armed.store(false, std::memory_order_release);
  PdeathsigMutex().Unlock();
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

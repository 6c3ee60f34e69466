// Tells ThreadSanitizer what the uninstrumented libraries plugline uses do, in builds with
// PLUGLINE_SANITIZE=thread. This file is linked into every executable of such a build
// (cmake/PluglineSanitizers.cmake). It defines a few functions of those libraries itself, so they
// interpose on the shared libraries' (the executable's definitions win, also for calls from
// libplugline.so, the dlopen'ed V8 backend and the libraries themselves), and each one brackets
// the real function, found with dlsym(RTLD_NEXT), with the annotations the library makes when it
// is itself built with TSan. Nothing else changes: the real functions do the work.
//
// absl::Mutex and absl::CondVar: Debian's Abseil is not built with -fsanitize=thread, so its
// Mutex is a spin and futex protocol TSan cannot see, and every field plugline guards with one
// would be reported as a data race (a counter incremented under a MutexLock on two threads is).
// The annotations are those of Abseil's own mutex.cc under TSan (__tsan_mutex_pre_lock/...).
//
// syscall(SYS_close): Debian's libuv, not built with TSan either, closes descriptors with
// syscall(SYS_close, fd), which TSan does not see; a descriptor number it freed and another
// thread then got from open() looked like one descriptor written by two threads. libuv built
// with TSan calls the sanitizer's syscall hooks around it, as this does.
#include <dlfcn.h>
#include <sanitizer/linux_syscall_hooks.h>
#include <sanitizer/tsan_interface.h>
#include <sys/syscall.h>

#include <cstdarg>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#define PLUGLINE_TSAN_STR2(x) #x
#define PLUGLINE_TSAN_STR(x) PLUGLINE_TSAN_STR2(x)

namespace {

// The real function `absl::<inline namespace>::<nested>`, e.g. nested = "5Mutex4LockEv" for
// absl::Mutex::Lock(). Aborts when the shared library has no such symbol (another Abseil).
void* Next(const char* nested) {
  const std::string inline_namespace = PLUGLINE_TSAN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  const std::string mangled =
      "_ZN4absl" + std::to_string(inline_namespace.size()) + inline_namespace + nested;
  void* symbol = ::dlsym(RTLD_NEXT, mangled.c_str());
  if (symbol == nullptr) {
    std::fprintf(stderr, "tsan_annotations: %s not found after the executable: %s\n",
                 mangled.c_str(), ::dlerror());
    std::abort();
  }
  return symbol;
}

template <typename Fn>
Fn Real(const char* nested) {
  return reinterpret_cast<Fn>(Next(nested));
}

// Member functions are called as functions taking `this` first (the Itanium C++ ABI).
using VoidFn = void (*)(absl::Mutex*);
using BoolFn = bool (*)(absl::Mutex*);
using CondFn = void (*)(absl::Mutex*, const absl::Condition&);
using CondTimeoutFn = bool (*)(absl::Mutex*, const absl::Condition&, absl::Duration);
using CondDeadlineFn = bool (*)(absl::Mutex*, const absl::Condition&, absl::Time);
using WaitFn = void (*)(absl::CondVar*, absl::Mutex*);
using WaitTimeoutFn = bool (*)(absl::CondVar*, absl::Mutex*, absl::Duration);
using WaitDeadlineFn = bool (*)(absl::CondVar*, absl::Mutex*, absl::Time);

// Abseil's entry points call each other (CondVar::WaitWithTimeout calls WaitWithDeadline
// through the PLT, so into the definition below): only the outermost call on a thread annotates.
thread_local int t_depth = 0;
class Outermost {
 public:
  Outermost() : outer_(t_depth++ == 0) {}
  ~Outermost() { --t_depth; }
  Outermost(const Outermost&) = delete;
  Outermost& operator=(const Outermost&) = delete;
  explicit operator bool() const { return outer_; }

 private:
  const bool outer_;
};

void Locked(void* mu, unsigned flags) {
  __tsan_mutex_post_lock(mu, flags, 0);
}

// The mutex is released while waiting and held again on return.
void Released(void* mu) {
  __tsan_mutex_pre_unlock(mu, 0);
  __tsan_mutex_post_unlock(mu, 0);
}
void Reacquired(void* mu) {
  __tsan_mutex_pre_lock(mu, 0);
  __tsan_mutex_post_lock(mu, 0, 0);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

Mutex::~Mutex() {
  static const auto real = Real<VoidFn>("5MutexD1Ev");
  const Outermost outer;
  real(this);
  if (outer) __tsan_mutex_destroy(this, __tsan_mutex_not_static);
}

void Mutex::Lock() {
  static const auto real = Real<VoidFn>("5Mutex4LockEv");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, 0);
  real(this);
  if (outer) Locked(this, 0);
}

void Mutex::Unlock() {
  static const auto real = Real<VoidFn>("5Mutex6UnlockEv");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_unlock(this, 0);
  real(this);
  if (outer) __tsan_mutex_post_unlock(this, 0);
}

bool Mutex::TryLock() {
  static const auto real = Real<BoolFn>("5Mutex7TryLockEv");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  if (outer) {
    Locked(this, locked ? __tsan_mutex_try_lock
                        : __tsan_mutex_try_lock | __tsan_mutex_try_lock_failed);
  }
  return locked;
}

void Mutex::ReaderLock() {
  static const auto real = Real<VoidFn>("5Mutex10ReaderLockEv");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this);
  if (outer) Locked(this, __tsan_mutex_read_lock);
}

void Mutex::ReaderUnlock() {
  static const auto real = Real<VoidFn>("5Mutex12ReaderUnlockEv");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  real(this);
  if (outer) __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

bool Mutex::ReaderTryLock() {
  static const auto real = Real<BoolFn>("5Mutex13ReaderTryLockEv");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, __tsan_mutex_try_read_lock);
  const bool locked = real(this);
  if (outer) {
    Locked(this, locked ? __tsan_mutex_try_read_lock : __tsan_mutex_try_read_lock_failed);
  }
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const auto real = Real<CondFn>("5Mutex8LockWhenERKNS0_9ConditionE");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, 0);
  real(this, cond);
  if (outer) Locked(this, 0);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const auto real = Real<CondFn>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this, cond);
  if (outer) Locked(this, __tsan_mutex_read_lock);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real =
      Real<CondTimeoutFn>("5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, 0);
  const bool result = real(this, cond, timeout);
  if (outer) Locked(this, 0);
  return result;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      Real<CondDeadlineFn>("5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const Outermost outer;
  if (outer) __tsan_mutex_pre_lock(this, 0);
  const bool result = real(this, cond, deadline);
  if (outer) Locked(this, 0);
  return result;
}

void Mutex::Await(const Condition& cond) {
  static const auto real = Real<CondFn>("5Mutex5AwaitERKNS0_9ConditionE");
  const Outermost outer;
  if (outer) Released(this);
  real(this, cond);
  if (outer) Reacquired(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real =
      Real<CondTimeoutFn>("5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  const Outermost outer;
  if (outer) Released(this);
  const bool result = real(this, cond, timeout);
  if (outer) Reacquired(this);
  return result;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      Real<CondDeadlineFn>("5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  const Outermost outer;
  if (outer) Released(this);
  const bool result = real(this, cond, deadline);
  if (outer) Reacquired(this);
  return result;
}

void CondVar::Wait(Mutex* mu) {
  static const auto real = Real<WaitFn>("7CondVar4WaitEPNS0_5MutexE");
  const Outermost outer;
  if (outer) Released(mu);
  real(this, mu);
  if (outer) Reacquired(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const auto real =
      Real<WaitTimeoutFn>("7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  const Outermost outer;
  if (outer) Released(mu);
  const bool result = real(this, mu, timeout);
  if (outer) Reacquired(mu);
  return result;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const auto real =
      Real<WaitDeadlineFn>("7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  const Outermost outer;
  if (outer) Released(mu);
  const bool result = real(this, mu, deadline);
  if (outer) Reacquired(mu);
  return result;
}

ABSL_NAMESPACE_END
}  // namespace absl

// libuv's uv__close_nocancel (and anything else) calls syscall(2) through the PLT.
extern "C" long syscall(long number, ...) {
  using SyscallFn = long (*)(long, ...);
  static const auto real = reinterpret_cast<SyscallFn>(::dlsym(RTLD_NEXT, "syscall"));
  va_list list;
  va_start(list, number);
  long args[6];
  for (long& arg : args) arg = va_arg(list, long);  // every syscall argument is a register
  va_end(list);
  if (number == SYS_close) {
    __sanitizer_syscall_pre_close(args[0]);
    const long result = real(number, args[0]);
    __sanitizer_syscall_post_close(result, args[0]);
    return result;
  }
  return real(number, args[0], args[1], args[2], args[3], args[4], args[5]);
}

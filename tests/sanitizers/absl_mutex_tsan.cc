// Tells ThreadSanitizer what absl::Mutex and absl::CondVar do, in builds with
// PLUGLINE_SANITIZE=thread.
//
// Debian's Abseil is a shared library built without -fsanitize=thread, so its Mutex is a spin
// and futex protocol TSan cannot see: every field plugline guards with an absl::Mutex would be
// reported as a data race (a counter incremented under a MutexLock on two threads is reported).
// This file is linked into every executable of a TSan build (cmake/PluglineSanitizers.cmake).
// It defines the Mutex and CondVar entry points itself, so they interpose on the shared
// library's (the executable's definitions win, also for calls from libplugline.so, the
// dlopen'ed V8 backend and Abseil's own Notification), and each one brackets the real function,
// found with dlsym(RTLD_NEXT), with the annotations Abseil's own mutex.cc makes when it is
// built with TSan (__tsan_mutex_pre_lock/post_lock/pre_unlock/post_unlock). Nothing else
// changes: the real Mutex does the locking.
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

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
    std::fprintf(stderr, "absl_mutex_tsan: %s not found after the executable: %s\n",
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
  real(this);
  __tsan_mutex_destroy(this, __tsan_mutex_not_static);
}

void Mutex::Lock() {
  static const auto real = Real<VoidFn>("5Mutex4LockEv");
  __tsan_mutex_pre_lock(this, 0);
  real(this);
  Locked(this, 0);
}

void Mutex::Unlock() {
  static const auto real = Real<VoidFn>("5Mutex6UnlockEv");
  __tsan_mutex_pre_unlock(this, 0);
  real(this);
  __tsan_mutex_post_unlock(this, 0);
}

bool Mutex::TryLock() {
  static const auto real = Real<BoolFn>("5Mutex7TryLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  Locked(this, locked ? __tsan_mutex_try_lock
                      : __tsan_mutex_try_lock | __tsan_mutex_try_lock_failed);
  return locked;
}

void Mutex::ReaderLock() {
  static const auto real = Real<VoidFn>("5Mutex10ReaderLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this);
  Locked(this, __tsan_mutex_read_lock);
}

void Mutex::ReaderUnlock() {
  static const auto real = Real<VoidFn>("5Mutex12ReaderUnlockEv");
  __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

bool Mutex::ReaderTryLock() {
  static const auto real = Real<BoolFn>("5Mutex13ReaderTryLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_read_lock);
  const bool locked = real(this);
  Locked(this, locked ? __tsan_mutex_try_read_lock : __tsan_mutex_try_read_lock_failed);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const auto real = Real<CondFn>("5Mutex8LockWhenERKNS0_9ConditionE");
  __tsan_mutex_pre_lock(this, 0);
  real(this, cond);
  Locked(this, 0);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const auto real = Real<CondFn>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this, cond);
  Locked(this, __tsan_mutex_read_lock);
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real =
      Real<CondTimeoutFn>("5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  __tsan_mutex_pre_lock(this, 0);
  const bool result = real(this, cond, timeout);
  Locked(this, 0);
  return result;
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      Real<CondDeadlineFn>("5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  __tsan_mutex_pre_lock(this, 0);
  const bool result = real(this, cond, deadline);
  Locked(this, 0);
  return result;
}

void Mutex::Await(const Condition& cond) {
  static const auto real = Real<CondFn>("5Mutex5AwaitERKNS0_9ConditionE");
  Released(this);
  real(this, cond);
  Reacquired(this);
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static const auto real =
      Real<CondTimeoutFn>("5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  Released(this);
  const bool result = real(this, cond, timeout);
  Reacquired(this);
  return result;
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static const auto real =
      Real<CondDeadlineFn>("5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  Released(this);
  const bool result = real(this, cond, deadline);
  Reacquired(this);
  return result;
}

void CondVar::Wait(Mutex* mu) {
  static const auto real = Real<WaitFn>("7CondVar4WaitEPNS0_5MutexE");
  Released(mu);
  real(this, mu);
  Reacquired(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const auto real =
      Real<WaitTimeoutFn>("7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  Released(mu);
  const bool result = real(this, mu, timeout);
  Reacquired(mu);
  return result;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const auto real =
      Real<WaitDeadlineFn>("7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  Released(mu);
  const bool result = real(this, mu, deadline);
  Reacquired(mu);
  return result;
}

ABSL_NAMESPACE_END
}  // namespace absl

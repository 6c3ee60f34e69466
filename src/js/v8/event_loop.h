// The event loop of one isolate: setTimeout, setInterval, clearTimeout, clearInterval and
// queueMicrotask, with timers on a libuv loop of the isolate's own (the system libuv.so.1,
// the copy libnode itself uses).
//
// The loop does not run by itself. The backend runs it only while it waits for a promise to
// settle (a call that returned a pending promise, or a module whose top level awaits), under
// that call's deadline. A timer still pending when a call returns stays queued and fires the
// next time the loop runs, which may be during a later call, or never.
//
// The loop is created on the first setTimeout/setInterval: a plugin that uses no timer costs
// no file descriptor. Every method must be called with the isolate locked and entered; the
// callbacks run inside RunOnce().
#ifndef PLUGLINE_JS_V8_EVENT_LOOP_H_
#define PLUGLINE_JS_V8_EVENT_LOOP_H_

#include <uv.h>
#include <v8.h>

#include <cstdint>
#include <functional>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace plugline::js::v8backend {

class EventLoop {
 public:
  // `report_error` receives a description of an exception thrown by a timer callback.
  EventLoop(v8::Isolate* isolate, std::function<void(std::string_view)> report_error);
  // Closes every timer and the loop; the isolate must be locked.
  ~EventLoop();

  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Defines setTimeout, setInterval, clearTimeout, clearInterval and queueMicrotask on the
  // global object of `context`, whose callbacks then run in `context`.
  void Install(v8::Local<v8::Context> context);

  // Timers scheduled and neither fired (one-shot) nor cleared: what could still settle a
  // pending promise.
  size_t pending_timers() const { return timers_.size(); }

  // Milliseconds until the earliest pending timer is due (0: due now); -1 when none is.
  int64_t NextDueMs();

  // Waits until the earliest timer is due, then runs every due timer callback, each followed
  // by a microtask checkpoint. Returns false when a callback was terminated (deadline or heap
  // limit): the loop stopped and the caller must not run JS again.
  bool RunOnce();

 private:
  struct Timer;

  static void SetTimer(const v8::FunctionCallbackInfo<v8::Value>& info, bool repeat);
  static void SetTimeout(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void SetInterval(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void ClearTimer(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void QueueMicrotask(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void OnTimer(uv_timer_t* handle);

  bool EnsureLoop();
  // Forgets a timer: stops it and frees it once libuv has closed its handle.
  void Remove(Timer* timer);

  v8::Isolate* const isolate_;
  const std::function<void(std::string_view)> report_error_;
  v8::Global<v8::Context> context_;
  uv_loop_t loop_;
  bool loop_ready_ = false;
  bool terminated_ = false;
  uint32_t next_id_ = 0;
  absl::flat_hash_map<uint32_t, Timer*> timers_;
};

}  // namespace plugline::js::v8backend

#endif  // PLUGLINE_JS_V8_EVENT_LOOP_H_

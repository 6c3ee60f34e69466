#include "js/v8/event_loop.h"

#include <cmath>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/strings.h"
#include "js/v8/v8_util.h"

namespace plugline::js::v8backend {

// Node's TIMEOUT_MAX: larger delays are clamped to it.
constexpr double kMaxDelayMs = 2147483647.0;

struct EventLoop::Timer {
  uv_timer_t handle;
  EventLoop* owner;
  uint32_t id;
  bool repeat;
  v8::Global<v8::Function> callback;
  std::vector<v8::Global<v8::Value>> args;
};

EventLoop::EventLoop(v8::Isolate* isolate, std::function<void(std::string_view)> report_error)
    : isolate_(isolate), report_error_(std::move(report_error)) {}

EventLoop::~EventLoop() {
  if (!loop_ready_) return;
  for (auto& [id, timer] : timers_) {
    uv_timer_stop(&timer->handle);
    uv_close(reinterpret_cast<uv_handle_t*>(&timer->handle),
             [](uv_handle_t* handle) { delete static_cast<Timer*>(handle->data); });
  }
  timers_.clear();
  // Anything else still open (nothing should be) is closed too, so uv_loop_close succeeds.
  uv_walk(
      &loop_,
      [](uv_handle_t* handle, void*) {
        if (!uv_is_closing(handle)) uv_close(handle, nullptr);
      },
      nullptr);
  while (uv_run(&loop_, UV_RUN_DEFAULT) != 0) {
  }
  uv_loop_close(&loop_);
}

void EventLoop::Install(v8::Local<v8::Context> context) {
  context_.Reset(isolate_, context);
  v8::Local<v8::External> self = v8::External::New(isolate_, this);
  v8::Local<v8::Object> global = context->Global();
  struct Entry {
    const char* name;
    v8::FunctionCallback callback;
    int length;
  };
  for (const Entry& entry : {Entry{"setTimeout", &EventLoop::SetTimeout, 1},
                             Entry{"setInterval", &EventLoop::SetInterval, 1},
                             Entry{"clearTimeout", &EventLoop::ClearTimer, 1},
                             Entry{"clearInterval", &EventLoop::ClearTimer, 1},
                             Entry{"queueMicrotask", &EventLoop::QueueMicrotask, 1}}) {
    v8::Local<v8::String> name = V8Name(isolate_, entry.name);
    v8::Local<v8::Function> fn = v8::Function::New(context, entry.callback, self, entry.length,
                                                   v8::ConstructorBehavior::kThrow)
                                     .ToLocalChecked();
    fn->SetName(name);
    global->CreateDataProperty(context, name, fn).Check();
  }
}

bool EventLoop::EnsureLoop() {
  if (loop_ready_) return true;
  int error = uv_loop_init(&loop_);
  if (error != 0) {
    ThrowRangeError(isolate_, StrCat("timers are unavailable: ", uv_strerror(error)));
    return false;
  }
  loop_ready_ = true;
  return true;
}

void EventLoop::SetTimeout(const v8::FunctionCallbackInfo<v8::Value>& info) {
  SetTimer(info, /*repeat=*/false);
}

void EventLoop::SetInterval(const v8::FunctionCallbackInfo<v8::Value>& info) {
  SetTimer(info, /*repeat=*/true);
}

void EventLoop::SetTimer(const v8::FunctionCallbackInfo<v8::Value>& info, bool repeat) {
  auto* self = static_cast<EventLoop*>(info.Data().As<v8::External>()->Value());
  v8::Isolate* isolate = info.GetIsolate();
  if (info.Length() < 1 || !info[0]->IsFunction()) {
    ThrowTypeError(isolate, StrCat(repeat ? "setInterval" : "setTimeout",
                                   ": the callback must be a function"));
    return;
  }
  double delay = 0;
  if (info.Length() > 1 && !info[1]->IsUndefined()) {
    if (!info[1]->NumberValue(isolate->GetCurrentContext()).To(&delay)) return;  // threw
  }
  if (!(delay >= 0)) delay = 0;  // NaN and negative delays run as soon as possible
  delay = std::min(std::floor(delay), kMaxDelayMs);
  // libuv treats a repeat of 0 as "no repeat"; an interval is at least 1 ms, as in Node.
  if (repeat && delay < 1) delay = 1;
  if (!self->EnsureLoop()) return;

  auto* timer = new Timer;
  timer->owner = self;
  timer->repeat = repeat;
  do {
    timer->id = ++self->next_id_;
  } while (timer->id == 0 || self->timers_.contains(timer->id));
  timer->callback.Reset(isolate, info[0].As<v8::Function>());
  for (int i = 2; i < info.Length(); ++i) timer->args.emplace_back(isolate, info[i]);
  uv_timer_init(&self->loop_, &timer->handle);
  timer->handle.data = timer;
  uv_update_time(&self->loop_);  // the delay counts from now, not from the loop's last pass
  auto ms = static_cast<uint64_t>(delay);
  uv_timer_start(&timer->handle, &EventLoop::OnTimer, ms, repeat ? ms : 0);
  self->timers_[timer->id] = timer;
  info.GetReturnValue().Set(v8::Integer::NewFromUnsigned(isolate, timer->id));
}

void EventLoop::ClearTimer(const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* self = static_cast<EventLoop*>(info.Data().As<v8::External>()->Value());
  if (info.Length() < 1 || !info[0]->IsNumber()) return;  // like the web: anything else is a no-op
  double id = info[0].As<v8::Number>()->Value();
  if (!(id >= 1 && id <= 4294967295.0)) return;
  auto it = self->timers_.find(static_cast<uint32_t>(id));
  if (it == self->timers_.end()) return;
  self->Remove(it->second);
}

void EventLoop::QueueMicrotask(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (info.Length() < 1 || !info[0]->IsFunction()) {
    ThrowTypeError(isolate, "queueMicrotask: the callback must be a function");
    return;
  }
  // An exception thrown by the callback goes to the isolate's message listener (the log).
  isolate->EnqueueMicrotask(info[0].As<v8::Function>());
}

void EventLoop::Remove(Timer* timer) {
  timers_.erase(timer->id);
  uv_timer_stop(&timer->handle);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer->handle),
           [](uv_handle_t* handle) { delete static_cast<Timer*>(handle->data); });
}

void EventLoop::OnTimer(uv_timer_t* handle) {
  auto* timer = static_cast<Timer*>(handle->data);
  EventLoop* self = timer->owner;
  // After a termination the rest of this loop pass must not run JS: V8 has already cleared
  // the termination (no JS frame was below the callback), so nothing else would stop it.
  if (self->terminated_) return;
  v8::Isolate* isolate = self->isolate_;
  v8::HandleScope handles(isolate);
  v8::Local<v8::Context> context = self->context_.Get(isolate);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Function> callback = timer->callback.Get(isolate);
  absl::InlinedVector<v8::Local<v8::Value>, 4> args;
  for (const v8::Global<v8::Value>& arg : timer->args) args.push_back(arg.Get(isolate));
  // A one-shot timer is forgotten before it runs, so clearTimeout of its own id is a no-op.
  if (!timer->repeat) self->Remove(timer);

  v8::TryCatch try_catch(isolate);
  v8::MaybeLocal<v8::Value> result =
      callback->Call(context, context->Global(), static_cast<int>(args.size()), args.data());
  if (!try_catch.HasTerminated() && result.IsEmpty() && try_catch.HasCaught()) {
    self->report_error_(
        StrCat("uncaught exception in a timer callback: ",
               DescribeException(isolate, context, try_catch.Exception(), try_catch.Message())));
    try_catch.Reset();
  }
  if (!try_catch.HasTerminated()) isolate->PerformMicrotaskCheckpoint();
  if (try_catch.HasTerminated()) {
    self->terminated_ = true;
    uv_stop(&self->loop_);
  }
}

int64_t EventLoop::NextDueMs() {
  if (!loop_ready_ || timers_.empty()) return -1;
  // Ask the timers themselves: uv_backend_timeout() answers 0 whenever the loop has anything
  // pending (a handle being closed, say), and a UV_RUN_ONCE on that answer would then block
  // until the timer is really due — possibly long after the call's deadline.
  uv_update_time(&loop_);
  int64_t next = -1;
  for (const auto& [id, timer] : timers_) {
    if (!uv_is_active(reinterpret_cast<const uv_handle_t*>(&timer->handle))) continue;
    int64_t due = static_cast<int64_t>(uv_timer_get_due_in(&timer->handle));
    if (next < 0 || due < next) next = due;
  }
  return next;
}

bool EventLoop::RunOnce() {
  if (!loop_ready_) return true;
  terminated_ = false;
  uv_run(&loop_, UV_RUN_ONCE);
  return !terminated_;
}

}  // namespace plugline::js::v8backend

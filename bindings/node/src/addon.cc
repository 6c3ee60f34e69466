// plugline.node: the N-API addon under bindings/node/index.js.
//
// It speaks only plugline's stable C ABI (plugline/plugline.h) and does the marshalling:
// JS strings and byte buffers in, JSON text out (index.js parses it). Argument checking that
// reads better in JS (option objects, defaults) lives in index.js; this file still checks every
// type it reads, because the native functions can be called directly.
//
// Errors. Built with NODE_ADDON_API_DISABLE_CPP_EXCEPTIONS: a failure becomes a pending JS
// exception and the callback returns. A failed plugline call becomes a PluglineError (the
// class index.js registers through setErrorClass) with .status, .code and the message of
// plugline_last_error_message(). No C++ exception may unwind into Node's C code: every
// callback that allocates C++ memory (std::string) runs its body through Guard(), which turns
// an exception into a PluglineError; the others cannot throw.
//
// Threads. The synchronous methods run on the calling JS thread. Their *Async twins
// (shapeAsync, dispatchAsync, triggerAsync, toolsAsync, executeToolAsync, pluginsAsync,
// reloadAsync) copy their arguments, run the same C call on libuv's thread pool (AsyncCall)
// and settle a Promise on the JS thread. plugline's last-error message is per thread, so it is
// read right after the failed call, on the thread that made it.
//
// Native hooks and the client of OpenCode plugins. plugline calls them on the thread running
// the call (JS callbacks, below): inside a synchronous method that is the JS thread, and the
// function runs right there; inside an *Async one it is a pool thread, which queues the call to
// the JS thread through the host's thread-safe function and waits — for a returned Promise
// too — for at most the callback's timeout. A JS or C++ exception never escapes into
// plugline: it is the hook's failure (plugline_hook_answer_fail) or rejects the plugin's
// client call. Functions are held weakly; index.js keeps them alive (in a Map on its Host),
// so that a hook whose function refers back to its host does not keep the host alive
// forever. A callback is never called from a garbage-collection finalizer (a host released by
// GC runs its plugins' `dispose` hooks without a client: their client calls reject).
#include <napi.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <utility>

#include "plugline/plugline.h"

namespace {

// Per-environment state (one per main thread or worker_thread that loads the addon).
struct AddonData {
  // PluglineError from index.js; empty until setErrorClass() is called.
  Napi::FunctionReference error_class;
};

// A PluglineError(message, status, code): `code` is plugline_status_str(status). Returns an
// empty value with a pending exception when making it threw. Allocates no C++ memory, so it is
// safe inside a catch handler.
Napi::Value MakePluglineError(Napi::Env env, int status, const char* code, const char* message) {
  Napi::String js_message = Napi::String::New(env, message);
  if (env.IsExceptionPending()) return Napi::Value();
  AddonData* data = env.GetInstanceData<AddonData>();
  if (data != nullptr && !data->error_class.IsEmpty()) {
    Napi::Object error = data->error_class.New(
        {js_message, Napi::Number::New(env, status), Napi::String::New(env, code)});
    if (env.IsExceptionPending()) return Napi::Value();  // the constructor threw
    return error;
  }
  // Before index.js registered its class (or when the addon is used bare): an Error with
  // the same fields.
  Napi::Object error = Napi::Error::New(env, message).Value();
  error.Set("name", Napi::String::New(env, "PluglineError"));
  error.Set("status", Napi::Number::New(env, status));
  error.Set("code", Napi::String::New(env, code));
  if (env.IsExceptionPending()) return Napi::Value();
  return error;
}

// Throws a PluglineError(message, status, code) as a JS exception.
void ThrowPluglineError(Napi::Env env, int status, const char* code, const char* message) {
  Napi::Value error = MakePluglineError(env, status, code, message);
  if (error.IsEmpty()) return;  // its exception is pending
  Napi::Error(env, error).ThrowAsJavaScriptException();
}

// A PluglineError raised by the addon itself (a closed host, a NUL in a path).
void ThrowPluglineError(Napi::Env env, plugline_status status, const char* message) {
  ThrowPluglineError(env, status, plugline_status_str(status), message);
}

// Throws the error of the plugline call that just returned `status`, on this thread.
void ThrowLastError(Napi::Env env, plugline_status status) {
  // The message is valid until the next plugline call on this thread: take the code first,
  // then the message, and make no plugline call until it is copied into a JS string.
  const char* code = plugline_status_str(status);
  const char* message = plugline_last_error_message();
  ThrowPluglineError(env, status, code, *message != '\0' ? message : code);
}

// Reads an integer in [min, max]; false for anything else (NaN, a fraction, a non-number).
bool ReadInteger(const Napi::Value& value, double min, double max, double* out) {
  if (!value.IsNumber()) return false;
  double number = value.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(number) || std::trunc(number) != number || number < min || number > max) {
    return false;
  }
  *out = number;
  return true;
}

void ThrowTypeError(Napi::Env env, const char* message) {
  Napi::TypeError::New(env, message).ThrowAsJavaScriptException();
}

// Runs a callback body; turns a C++ exception (in practice std::bad_alloc from a string copy)
// into a PluglineError so that it never unwinds into Node.
template <typename Body>
Napi::Value Guard(Napi::Env env, Body&& body) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    ThrowPluglineError(env, PLUGLINE_ERESOURCE, "plugline addon: out of memory");
  } catch (const std::exception& e) {
    ThrowPluglineError(env, PLUGLINE_EINTERNAL, e.what());
  } catch (...) {
    ThrowPluglineError(env, PLUGLINE_EINTERNAL, "plugline addon: unknown C++ exception");
  }
  return env.Undefined();
}

// Owns a buffer returned by the library.
class PluglineBuffer {
 public:
  PluglineBuffer() = default;
  PluglineBuffer(const PluglineBuffer&) = delete;
  PluglineBuffer& operator=(const PluglineBuffer&) = delete;
  ~PluglineBuffer() { plugline_free(data_); }
  char** out() { return &data_; }
  size_t* out_len() { return &len_; }
  Napi::String ToJs(Napi::Env env) const { return Napi::String::New(env, data_, len_); }

 private:
  char* data_ = nullptr;
  size_t len_ = 0;
};

// Reads a string argument that plugline takes NUL-terminated. Null/undefined give
// *is_null = true when `nullable`. Returns false with a pending exception otherwise.
bool ReadCString(Napi::Env env, const Napi::Value& value, const char* what, bool nullable,
                 std::string* out, bool* is_null) {
  if (is_null != nullptr) *is_null = false;
  if (nullable && (value.IsUndefined() || value.IsNull())) {
    if (is_null != nullptr) *is_null = true;
    return true;
  }
  if (!value.IsString()) {
    std::string message =
        std::string(what) + (nullable ? " must be a string or null" : " must be a string");
    ThrowTypeError(env, message.c_str());
    return false;
  }
  *out = value.As<Napi::String>().Utf8Value();
  if (out->find('\0') != std::string::npos) {
    std::string message = std::string(what) + " must not contain a NUL character";
    ThrowPluglineError(env, PLUGLINE_EINVALID, message.c_str());
    return false;
  }
  return true;
}

// Bytes of an argument: borrowed from a JS buffer (a synchronous call: the memory cannot
// move while it runs) or owned (a string's UTF-8, and every buffer of an *Async call).
struct Bytes {
  std::string storage;
  const char* borrowed = nullptr;
  size_t size = 0;
  bool owned = true;
  // Never NULL: plugline wants non-NULL even for no bytes (an empty ArrayBuffer).
  const char* data() const { return owned ? storage.c_str() : (borrowed ? borrowed : ""); }
};

// Reads a string (as UTF-8), ArrayBuffer, TypedArray (a Buffer) or DataView; `copy` copies a
// buffer's bytes instead of borrowing them.
bool ReadBytes(Napi::Env env, const Napi::Value& value, const char* what, bool copy, Bytes* out) {
  if (value.IsString()) {
    out->storage = value.As<Napi::String>().Utf8Value();
    out->size = out->storage.size();
    out->owned = true;
    return true;
  }
  const char* data = nullptr;
  size_t len = 0;
  if (value.IsTypedArray()) {
    Napi::TypedArray array = value.As<Napi::TypedArray>();
    Napi::ArrayBuffer buffer = array.ArrayBuffer();
    data = static_cast<const char*>(buffer.Data()) + array.ByteOffset();
    len = array.ByteLength();
  } else if (value.IsDataView()) {
    Napi::DataView view = value.As<Napi::DataView>();
    data = static_cast<const char*>(view.Data());
    len = view.ByteLength();
  } else if (value.IsArrayBuffer()) {
    Napi::ArrayBuffer buffer = value.As<Napi::ArrayBuffer>();
    data = static_cast<const char*>(buffer.Data());
    len = buffer.ByteLength();
  } else {
    std::string message =
        std::string(what) + " must be a string, a Buffer, a TypedArray or an ArrayBuffer";
    ThrowTypeError(env, message.c_str());
    return false;
  }
  out->size = len;
  out->owned = copy;
  if (copy) {
    if (len > 0) out->storage.assign(data, len);
  } else {
    out->borrowed = data;
  }
  return true;
}

// ---- JS callbacks: native hooks and the client ---------------------------------------------
//
// plugline calls a hook or the client on the thread that runs the call. For the synchronous
// methods that is the JS thread: the function is called right there, and a Promise it returns
// cannot be awaited (index.js turns that into the callback's failure, with a hint). For the
// *Async methods it is a thread of libuv's pool: the call is queued to the JS thread through
// the host's thread-safe function, and the pool thread waits for its answer — awaited when
// the function returns a Promise — for at most the callback's timeout.

// What a callback answered: JSON text (`has_value`), nothing (no opinion, or null), or a
// failure with its message.
struct CallbackOutcome {
  bool ok = false;
  bool has_value = false;
  std::string text;  // the answer's JSON, or the failure's message
};

CallbackOutcome Failed(std::string message) { return {false, false, std::move(message)}; }

// The host's way to the JS thread, shared by the HostWrap and its callbacks (one per host).
struct JsThread {
  napi_threadsafe_function tsfn = nullptr;
  bool finalized = false;  // Node tore the thread-safe function down (the env is ending)
  // Calls running JS callbacks of this host on the JS thread, or calls into plugline made
  // from the JS thread (see HostWrap::CallScope): while one runs, a call back into the host
  // is refused.
  int call_depth = 0;
};

// The user_data of a JS native hook or of the client.
struct JsCallback {
  napi_env env;
  Napi::FunctionReference function;  // weak: index.js holds the function
  std::thread::id thread;            // the JS thread of `env`
  std::shared_ptr<JsThread> js_thread;
  uint32_t timeout_ms;  // bound on an answer awaited from a pool thread
  std::string label;    // `hook "guard"` or `the client`, for messages
  bool js_allowed = true;  // false while the owning host is freed by the GC
};

// A call queued from a pool thread, and the answer it waits for.
struct PendingCall {
  std::mutex mutex;
  std::condition_variable answered;
  bool done = false;
  bool abandoned = false;  // the pool thread stopped waiting (timeout): do not call
  CallbackOutcome outcome;
  JsCallback* callback = nullptr;
  std::string first, second;  // the arguments: (event, payload JSON) or (path, args JSON)
};

// An item of a host's thread-safe function's queue: a call, or a callback to delete on the
// JS thread (its FunctionReference must be released there).
struct QueueItem {
  std::shared_ptr<PendingCall> call;
  JsCallback* to_delete = nullptr;
};

void Finish(PendingCall& call, CallbackOutcome outcome) {
  std::lock_guard<std::mutex> lock(call.mutex);
  if (call.done) return;
  call.outcome = std::move(outcome);
  call.done = true;
  call.answered.notify_all();
}

// What a thrown value says, as String(value) would ("Error: message", "TypeError: ..."), for
// a callback's failure. Clears a second exception thrown while converting it.
std::string DescribeThrown(napi_env env, napi_value thrown) {
  napi_value text = nullptr;
  size_t length = 0;
  if (napi_coerce_to_string(env, thrown, &text) == napi_ok &&
      napi_get_value_string_utf8(env, text, nullptr, 0, &length) == napi_ok) {
    std::string message(length + 1, '\0');
    if (napi_get_value_string_utf8(env, text, message.data(), message.size(), &length) == napi_ok) {
      message.resize(length);
      return message;
    }
  }
  bool pending = false;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
    napi_value ignored = nullptr;
    napi_get_and_clear_last_exception(env, &ignored);
  }
  return "the callback threw a value that cannot be converted to a string";
}

// A callback's answer as an outcome: a JSON string, or null/undefined for none.
CallbackOutcome ReadAnswer(const std::string& label, const Napi::Value& value) {
  if (value.IsUndefined() || value.IsNull()) return {true, false, {}};
  if (!value.IsString()) {
    return Failed("plugline addon: the answer of " + label + " is not a JSON string");
  }
  return {true, true, value.As<Napi::String>().Utf8Value()};
}

// Calls the callback's function on the JS thread with (first, second, mayAwait). Without
// `pending` (a synchronous call) the outcome is returned; with it, a Promise the function
// returns is awaited and settles `pending`, and the returned outcome is only meaningful when
// `*settled` comes back true.
CallbackOutcome InvokeOnJsThread(JsCallback& callback, const std::string& first,
                                 const std::string& second,
                                 const std::shared_ptr<PendingCall>& pending, bool* settled) {
  *settled = true;
  Napi::Env env(callback.env);
  Napi::HandleScope scope(env);
  Napi::Function function = callback.function.Value();
  if (function.IsEmpty()) {
    return Failed("plugline addon: the function of " + callback.label + " was collected");
  }
  Napi::Value result =
      function.Call({Napi::String::New(env, first), Napi::String::New(env, second),
                     Napi::Boolean::New(env, pending != nullptr)});
  bool exception = false;
  if (napi_is_exception_pending(env, &exception) == napi_ok && exception) {
    napi_value thrown = nullptr;
    if (napi_get_and_clear_last_exception(env, &thrown) != napi_ok) {
      return Failed("plugline addon: " + callback.label + " threw");
    }
    return Failed(DescribeThrown(env, thrown));
  }
  if (result.IsEmpty()) {  // no exception, yet no value: JS cannot run (the env is ending)
    return Failed("plugline addon: " + callback.label + " could not run");
  }
  if (pending == nullptr || !result.IsPromise()) return ReadAnswer(callback.label, result);

  // Await it: settle `pending` from the promise's reactions (which may run after plugline
  // dropped the callback, so they keep a copy of its label, not the callback).
  Napi::Function on_fulfilled = Napi::Function::New(
      env, [pending, label = callback.label](const Napi::CallbackInfo& info) -> Napi::Value {
        try {
          Finish(*pending, ReadAnswer(label, info[0]));
        } catch (...) {
          Finish(*pending, CallbackOutcome{});
        }
        return info.Env().Undefined();
      });
  Napi::Function on_rejected =
      Napi::Function::New(env, [pending](const Napi::CallbackInfo& info) -> Napi::Value {
        try {
          Finish(*pending, Failed(DescribeThrown(info.Env(), info[0])));
        } catch (...) {
          Finish(*pending, CallbackOutcome{});
        }
        return info.Env().Undefined();
      });
  Napi::Value then = result.As<Napi::Object>().Get("then");
  if (!env.IsExceptionPending() && then.IsFunction()) {
    then.As<Napi::Function>().Call(result, {on_fulfilled, on_rejected});
  }
  if (env.IsExceptionPending()) {
    napi_value thrown = env.GetAndClearPendingException().Value();
    return Failed(DescribeThrown(env, thrown));
  }
  *settled = false;
  return {};
}

// The host's thread-safe function's call_js_cb: runs a queued call (or deletes a callback) on
// the JS thread. `env` is NULL when Node tears the function down: the call then fails.
void RunQueued(napi_env env, napi_value /*js_callback*/, void* /*context*/, void* data) {
  std::unique_ptr<QueueItem> item(static_cast<QueueItem*>(data));
  if (item->to_delete != nullptr) {
    if (env == nullptr) item->to_delete->function.SuppressDestruct();
    delete item->to_delete;
    return;
  }
  PendingCall& call = *item->call;
  try {
    {
      // An abandoned call's callback may be gone already: touch nothing of it.
      std::lock_guard<std::mutex> lock(call.mutex);
      if (call.abandoned) return;
    }
    if (env == nullptr) {
      Finish(call, Failed("plugline addon: Node.js is shutting down; " + call.callback->label +
                              " cannot run"));
      return;
    }
    JsCallback& callback = *call.callback;
    if (!callback.js_allowed) {
      Finish(call, Failed("plugline addon: the Host is being garbage-collected; JS cannot run"));
      return;
    }
    ++callback.js_thread->call_depth;
    bool settled = true;
    CallbackOutcome outcome = InvokeOnJsThread(callback, call.first, call.second, item->call,
                                               &settled);
    --callback.js_thread->call_depth;
    if (settled) Finish(call, std::move(outcome));
  } catch (const std::bad_alloc&) {
    Finish(call, CallbackOutcome{});
  }
}

// Deletes the host's JsThread reference held by its thread-safe function, on the JS thread.
void FinalizeJsThread(napi_env /*env*/, void* data, void* /*hint*/) {
  auto* holder = static_cast<std::shared_ptr<JsThread>*>(data);
  (*holder)->finalized = true;
  delete holder;
}

// Calls the callback: right here on its JS thread, else through the host's queue, waiting for
// the answer for at most its timeout.
CallbackOutcome CallJs(JsCallback& callback, const char* first, const char* second,
                       size_t second_len) {
  if (std::this_thread::get_id() == callback.thread) {
    if (!callback.js_allowed) {
      return Failed("plugline addon: the Host is being garbage-collected; JS cannot run now");
    }
    bool settled = true;
    return InvokeOnJsThread(callback, first, std::string(second, second_len), nullptr, &settled);
  }
  auto call = std::make_shared<PendingCall>();
  call->callback = &callback;
  call->first = first;
  call->second.assign(second, second_len);
  napi_threadsafe_function tsfn = callback.js_thread->tsfn;
  auto* item = new QueueItem{call, nullptr};
  if (tsfn == nullptr || napi_call_threadsafe_function(tsfn, item, napi_tsfn_blocking) != napi_ok) {
    delete item;
    return Failed("plugline addon: the JS thread no longer takes calls; " + callback.label +
                  " cannot run");
  }
  std::unique_lock<std::mutex> lock(call->mutex);
  if (!call->answered.wait_for(lock, std::chrono::milliseconds(callback.timeout_ms),
                               [&] { return call->done; })) {
    call->abandoned = true;
    return Failed(callback.label + " did not answer within " +
                  std::to_string(callback.timeout_ms) + " ms");
  }
  return call->outcome;
}

// Frees a callback when plugline no longer uses it: here on its JS thread, else on that thread
// through the host's queue (its FunctionReference must be released there).
void FreeJsCallback(void* user_data) {
  auto* callback = static_cast<JsCallback*>(user_data);
  if (std::this_thread::get_id() == callback->thread) {
    delete callback;
    return;
  }
  napi_threadsafe_function tsfn = callback->js_thread->tsfn;
  auto* item = new QueueItem{nullptr, callback};
  if (tsfn == nullptr || napi_call_threadsafe_function(tsfn, item, napi_tsfn_blocking) != napi_ok) {
    // The env is ending: the reference goes with it; only the C++ memory is freed.
    delete item;
    callback->function.SuppressDestruct();
    delete callback;
  }
}

// plugline_hook_fn for a JS function(event, payloadJson, mayAwait) -> string|null|undefined
// (or a Promise of one when mayAwait; index.js wraps the user's function to speak JSON).
// Never lets a JS or C++ exception escape into plugline: either is the hook's failure.
int CallJsHook(const char* event, const char* payload_json, size_t payload_len,
               plugline_hook_answer* answer, void* user_data) noexcept {
  auto* hook = static_cast<JsCallback*>(user_data);
  try {
    CallbackOutcome outcome = CallJs(*hook, event, payload_json, payload_len);
    if (!outcome.ok) {
      plugline_hook_answer_fail(answer, outcome.text.c_str());
      return 1;
    }
    // An answer plugline refuses makes it skip the hook with its own reason.
    if (outcome.has_value) plugline_hook_answer_set(answer, outcome.text.data(), outcome.text.size());
    return 0;
  } catch (const std::bad_alloc&) {
    plugline_hook_answer_fail(answer, "plugline addon: out of memory");
  } catch (...) {
    plugline_hook_answer_fail(answer, "plugline addon: unexpected C++ exception in a hook");
  }
  return 1;
}

// `text` as a JSON string literal. `text` is UTF-8 (from V8 or a literal); only the
// characters JSON requires are escaped.
std::string JsonQuote(const std::string& text) {
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted += '"';
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (byte < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", byte);
      quoted += escape;
    } else {
      quoted += c;
    }
  }
  quoted += '"';
  return quoted;
}

// Rejects the plugin's promise with `message`: replies it as a JSON string and returns 1. If
// even that fails (out of memory), plugline rejects with its own message.
int RejectClientCall(plugline_reply* reply, const char* message) noexcept {
  try {
    const std::string quoted = JsonQuote(message);
    plugline_reply_set(reply, quoted.data(), quoted.size());
  } catch (...) {
  }
  return 1;
}

// plugline_client_fn for a JS function(path, argsJson, mayAwait) -> string|null|undefined (or
// a Promise of one when mayAwait). Whatever it throws rejects the plugin's promise.
int CallJsClient(const char* path, const char* args_json, size_t args_len, plugline_reply* reply,
                 void* user_data) noexcept {
  auto* client = static_cast<JsCallback*>(user_data);
  try {
    CallbackOutcome outcome = CallJs(*client, path, args_json, args_len);
    if (!outcome.ok) return RejectClientCall(reply, outcome.text.c_str());
    if (!outcome.has_value) return 0;  // resolves to null
    if (plugline_reply_set(reply, outcome.text.data(), outcome.text.size()) != PLUGLINE_OK) {
      return RejectClientCall(reply, "plugline addon: the client's answer is not valid JSON");
    }
    return 0;
  } catch (const std::bad_alloc&) {
    return RejectClientCall(reply, "plugline addon: out of memory");
  } catch (...) {
    return RejectClientCall(reply, "plugline addon: unexpected C++ exception in the client");
  }
}

// Calls a host OpenCode plugin's JS function(kind, bodyJson, mayAwait), kind "hook" or "tool",
// and replies its JSON answer; a failure (a throw, a timeout) is the plugin's failure.
int CallJsOpenCodePlugin(JsCallback& plugin, const char* kind, const std::string& body,
                         plugline_reply* reply) noexcept {
  try {
    CallbackOutcome outcome = CallJs(plugin, kind, body.data(), body.size());
    if (!outcome.ok) return RejectClientCall(reply, outcome.text.c_str());
    if (!outcome.has_value) return 0;
    if (plugline_reply_set(reply, outcome.text.data(), outcome.text.size()) != PLUGLINE_OK) {
      return RejectClientCall(reply, "plugline addon: the plugin's answer is not valid JSON");
    }
    return 0;
  } catch (const std::bad_alloc&) {
    return RejectClientCall(reply, "plugline addon: out of memory");
  } catch (...) {
    return RejectClientCall(reply, "plugline addon: unexpected C++ exception in a plugin");
  }
}

// plugline_named_hook_fn: body {"name", "input", "output"}.
int CallJsOpenCodeHook(const char* name, const char* input_json, size_t input_len,
                       const char* output_json, size_t output_len, plugline_reply* reply,
                       void* user_data) noexcept {
  try {
    std::string body = "{\"name\":" + JsonQuote(name) + ",\"input\":";
    body.append(input_json, input_len).append(",\"output\":").append(output_json, output_len);
    body += '}';
    return CallJsOpenCodePlugin(*static_cast<JsCallback*>(user_data), "hook", body, reply);
  } catch (...) {
    return RejectClientCall(reply, "plugline addon: out of memory");
  }
}

// plugline_tool_fn: body {"name", "args", "context"}.
int CallJsOpenCodeTool(const char* name, const char* args_json, size_t args_len,
                       const char* context_json, size_t context_len, plugline_reply* reply,
                       void* user_data) noexcept {
  try {
    std::string body = "{\"name\":" + JsonQuote(name) + ",\"args\":";
    body.append(args_json, args_len).append(",\"context\":").append(context_json, context_len);
    body += '}';
    return CallJsOpenCodePlugin(*static_cast<JsCallback*>(user_data), "tool", body, reply);
  } catch (...) {
    return RejectClientCall(reply, "plugline addon: out of memory");
  }
}

// ---- Host ---------------------------------------------------------------------------------

// new Host(home: string|null, projectDir: string|null, storeOutputs: boolean|null,
//          client: ((path, argsJson, mayAwait) => string|null|undefined|Promise)|null,
//          serverUrl: string|null, pluginConfigJson: string|null,
//          projectTrusted: boolean|null, clientTimeoutMs: uint32|null)
// `client` is held weakly (see the top of this file).
class HostWrap : public Napi::ObjectWrap<HostWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(
        env, "Host",
        {InstanceMethod<&HostWrap::Shape>("shape"),
         InstanceMethod<&HostWrap::ShapeAsync>("shapeAsync"),
         InstanceMethod<&HostWrap::Diagnostics>("diagnostics"),
         InstanceMethod<&HostWrap::Stats>("stats"), InstanceMethod<&HostWrap::Plugins>("plugins"),
         InstanceMethod<&HostWrap::PluginsAsync>("pluginsAsync"),
         InstanceMethod<&HostWrap::PluginInfo>("pluginInfo"),
         InstanceMethod<&HostWrap::SetPluginEnabled>("setPluginEnabled"),
         InstanceMethod<&HostWrap::SyncCatalogs>("syncCatalogs"),
         InstanceMethod<&HostWrap::SyncCatalogsAsync>("syncCatalogsAsync"),
         InstanceMethod<&HostWrap::AvailablePlugins>("availablePlugins"),
         InstanceMethod<&HostWrap::InstallPlugin>("installPlugin"),
         InstanceMethod<&HostWrap::InstallPluginAsync>("installPluginAsync"),
         InstanceMethod<&HostWrap::RemovePlugin>("removePlugin"),
         InstanceMethod<&HostWrap::Reload>("reload"),
         InstanceMethod<&HostWrap::ReloadAsync>("reloadAsync"),
         InstanceMethod<&HostWrap::Dispatch>("dispatch"),
         InstanceMethod<&HostWrap::DispatchAsync>("dispatchAsync"),
         InstanceMethod<&HostWrap::AddHook>("addHook"),
         InstanceMethod<&HostWrap::RemoveHook>("removeHook"),
         InstanceMethod<&HostWrap::AddOpenCodePlugin>("addOpenCodePlugin"),
         InstanceMethod<&HostWrap::RemoveOpenCodePlugin>("removeOpenCodePlugin"),
         InstanceMethod<&HostWrap::Trigger>("trigger"),
         InstanceMethod<&HostWrap::TriggerAsync>("triggerAsync"),
         InstanceMethod<&HostWrap::Tools>("tools"),
         InstanceMethod<&HostWrap::ToolsAsync>("toolsAsync"),
         InstanceMethod<&HostWrap::ExecuteTool>("executeTool"),
         InstanceMethod<&HostWrap::ExecuteToolAsync>("executeToolAsync"),
         InstanceMethod<&HostWrap::Close>("close"), InstanceAccessor<&HostWrap::Closed>("closed"),
         InstanceAccessor<&HostWrap::Pending>("pending")});
  }

  explicit HostWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostWrap>(info) {
    // A pending exception on return makes node-addon-api discard the half-built object.
    Guard(info.Env(), [&] { return Construct(info); });
  }

  ~HostWrap() override {
    // A finalizer may not call into JS: the plugins' `dispose` hooks run without a client.
    if (client_ != nullptr) client_->js_allowed = false;
    plugline_host_free(host_);
    ReleaseJsThread();
  }

 private:
  // Reads an optional timeout in milliseconds (null/undefined: `fallback`).
  static bool ReadTimeout(Napi::Env env, const Napi::Value& value, const char* what,
                          uint32_t fallback, uint32_t* out) {
    *out = fallback;
    if (value.IsUndefined() || value.IsNull()) return true;
    double number = 0;
    if (!ReadInteger(value, 1, std::numeric_limits<uint32_t>::max(), &number)) {
      std::string message = std::string(what) + " must be a whole number of milliseconds (1 or more)";
      ThrowTypeError(env, message.c_str());
      return false;
    }
    *out = static_cast<uint32_t>(number);
    return true;
  }

  // The host's thread-safe function, through which pool threads reach the JS thread. It is
  // unreferenced: an idle host does not keep the process alive (a running *Async call does).
  bool CreateJsThread(Napi::Env env) {
    js_thread_ = std::make_shared<JsThread>();
    auto* holder = new std::shared_ptr<JsThread>(js_thread_);
    napi_value name = Napi::String::New(env, "plugline callback");
    if (napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, holder,
                                        FinalizeJsThread, nullptr, RunQueued,
                                        &js_thread_->tsfn) != napi_ok) {
      delete holder;
      js_thread_->tsfn = nullptr;
      ThrowPluglineError(env, PLUGLINE_ERESOURCE, "plugline addon: cannot create a thread-safe function");
      return false;
    }
    napi_unref_threadsafe_function(env, js_thread_->tsfn);
    return true;
  }

  void ReleaseJsThread() {
    if (js_thread_ != nullptr && js_thread_->tsfn != nullptr && !js_thread_->finalized) {
      napi_release_threadsafe_function(js_thread_->tsfn, napi_tsfn_release);
    }
    if (js_thread_ != nullptr) js_thread_->tsfn = nullptr;
  }

  Napi::Value Construct(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::string home, project_dir;
    bool home_null = true, project_dir_null = true;
    if (!ReadCString(env, info[0], "home", true, &home, &home_null)) return env.Undefined();
    if (!ReadCString(env, info[1], "projectDir", true, &project_dir, &project_dir_null)) {
      return env.Undefined();
    }
    bool store_outputs = true;
    if (!info[2].IsUndefined() && !info[2].IsNull()) {
      if (!info[2].IsBoolean()) {
        ThrowTypeError(env, "storeOutputs must be a boolean");
        return env.Undefined();
      }
      store_outputs = info[2].As<Napi::Boolean>().Value();
    }
    if (!info[3].IsUndefined() && !info[3].IsNull() && !info[3].IsFunction()) {
      ThrowTypeError(env, "client must be a function or null");
      return env.Undefined();
    }
    std::string server_url, plugin_config;
    bool server_url_null = true, plugin_config_null = true;
    if (!ReadCString(env, info[4], "serverUrl", true, &server_url, &server_url_null)) {
      return env.Undefined();
    }
    if (!ReadCString(env, info[5], "pluginConfigJson", true, &plugin_config, &plugin_config_null)) {
      return env.Undefined();
    }
    int project_trust = PLUGLINE_PROJECT_TRUST_STORE;
    if (!info[6].IsUndefined() && !info[6].IsNull()) {
      if (!info[6].IsBoolean()) {
        ThrowTypeError(env, "projectTrusted must be a boolean or null");
        return env.Undefined();
      }
      project_trust = info[6].As<Napi::Boolean>().Value() ? PLUGLINE_PROJECT_TRUST_TRUSTED
                                                          : PLUGLINE_PROJECT_TRUST_UNTRUSTED;
    }
    uint32_t client_timeout_ms = 0;
    if (!ReadTimeout(env, info[7], "clientTimeoutMs", kDefaultCallbackTimeoutMs,
                     &client_timeout_ms)) {
      return env.Undefined();
    }
    if (!CreateJsThread(env)) return env.Undefined();

    plugline_config* config = nullptr;
    plugline_status status = plugline_config_new(&config);
    if (status == PLUGLINE_OK && !home_null)
      status = plugline_config_set_home(config, home.c_str());
    if (status == PLUGLINE_OK && !project_dir_null) {
      status = plugline_config_set_project_dir(config, project_dir.c_str());
    }
    if (status == PLUGLINE_OK) status = plugline_config_set_project_trust(config, project_trust);
    if (status == PLUGLINE_OK) status = plugline_config_set_store_outputs(config, store_outputs);
    JsCallback* client = nullptr;
    if (status == PLUGLINE_OK && info[3].IsFunction()) {
      client = new JsCallback{env,        Napi::Weak(info[3].As<Napi::Function>()),
                              std::this_thread::get_id(), js_thread_,
                              client_timeout_ms, "the client"};
      // From here the config owns `client`: plugline frees it with the config and the
      // hosts made from it (it fails only for a NULL config, or when out of memory, and
      // then has already released it or never will; a leak beats a double free).
      status = plugline_config_set_client(config, CallJsClient, client, FreeJsCallback);
    }
    if (status == PLUGLINE_OK && !server_url_null) {
      status = plugline_config_set_server_url(config, server_url.c_str());
    }
    if (status == PLUGLINE_OK && !plugin_config_null) {
      status = plugline_config_set_plugin_config(config, plugin_config.c_str());
    }
    if (status == PLUGLINE_OK) status = plugline_host_new(&host_, config);
    if (status != PLUGLINE_OK) {
      ThrowLastError(env, status);  // before plugline_config_free, which could reset it
      plugline_config_free(config);
      ReleaseJsThread();
      return env.Undefined();
    }
    plugline_config_free(config);  // the host keeps `client` alive
    client_ = client;
    return env.Undefined();
  }

  // Counts the calls into plugline made from the JS thread, and the JS callbacks of this host
  // running on it: while one runs, a native hook or the client may call back, which CheckOpen
  // refuses.
  class CallScope {
   public:
    explicit CallScope(HostWrap* host) : js_thread_(*host->js_thread_) { ++js_thread_.call_depth; }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;
    ~CallScope() { --js_thread_.call_depth; }

   private:
    JsThread& js_thread_;
  };

  // A PluglineError(PLUGLINE_ESTATE) after close(), and from inside one of the host's own
  // native hooks or its client (they must not call back into the host that calls them;
  // close() there would free it under the call).
  bool CheckOpen(Napi::Env env) {
    if (js_thread_->call_depth > 0) {
      ThrowPluglineError(env, PLUGLINE_ESTATE,
                         "plugline: a native hook or the client called back into its own host");
      return false;
    }
    if (!closed_) return true;
    ThrowPluglineError(env, PLUGLINE_ESTATE, "plugline: the Host is closed");
    return false;
  }

  // One plugline call with its arguments captured: it writes its JSON into the buffer.
  using Body = std::function<plugline_status(plugline_host*, PluglineBuffer*)>;

  // An *Async call: runs its Body on libuv's thread pool, then settles its promise on the JS
  // thread — with the JSON text, or a PluglineError made from the status and the message read
  // on the pool thread right after the call. It keeps the JS Host alive while it runs, and
  // the host's close() waits for it (Settled).
  class AsyncCall : public Napi::AsyncWorker {
   public:
    AsyncCall(Napi::Env env, HostWrap* owner, Napi::Object self, Body body, bool returns_json)
        : Napi::AsyncWorker(env, "plugline"),
          deferred_(Napi::Promise::Deferred::New(env)),
          owner_(owner),
          host_(owner->host_),
          self_(Napi::Persistent(self)),
          body_(std::move(body)),
          returns_json_(returns_json) {}

    Napi::Promise Promise() const { return deferred_.Promise(); }

   protected:
    void Execute() override {
      try {
        status_ = body_(host_, &result_);
        if (status_ != PLUGLINE_OK) message_ = plugline_last_error_message();
      } catch (const std::bad_alloc&) {
        status_ = PLUGLINE_ERESOURCE;
        message_.clear();
      }
    }

    void OnOK() override {
      Napi::Env env = Env();
      Napi::HandleScope scope(env);
      owner_->Settled();
      if (status_ == PLUGLINE_OK) {
        deferred_.Resolve(returns_json_ ? Napi::Value(result_.ToJs(env)) : env.Undefined());
        return;
      }
      const char* code = plugline_status_str(status_);
      Napi::Value error =
          MakePluglineError(env, status_, code, message_.empty() ? code : message_.c_str());
      if (error.IsEmpty()) error = env.GetAndClearPendingException().Value();
      deferred_.Reject(error);
    }

    void OnError(const Napi::Error& error) override {  // not used: Execute never SetError()s
      owner_->Settled();
      deferred_.Reject(error.Value());
    }

   private:
    Napi::Promise::Deferred deferred_;
    HostWrap* owner_;
    plugline_host* host_;
    Napi::ObjectReference self_;  // keeps owner_ alive
    Body body_;
    bool returns_json_;
    PluglineBuffer result_;
    plugline_status status_ = PLUGLINE_OK;
    std::string message_;
  };

  // Runs `body` now on this thread (its JSON, or undefined unless `returns_json`), or with
  // `async` on the thread pool (a Promise of the same).
  Napi::Value Run(const Napi::CallbackInfo& info, bool async, bool returns_json, Body body) {
    Napi::Env env = info.Env();
    if (async) {
      auto* call = new AsyncCall(env, this, info.This().As<Napi::Object>(), std::move(body),
                                 returns_json);
      Napi::Promise promise = call->Promise();
      ++pending_;
      call->Queue();
      return promise;
    }
    PluglineBuffer result;
    plugline_status status;
    {
      CallScope call(this);
      status = body(host_, &result);
    }
    if (status != PLUGLINE_OK) {
      ThrowLastError(env, status);
      return env.Undefined();
    }
    return returns_json ? Napi::Value(result.ToJs(env)) : env.Undefined();
  }

  // An *Async call ended (on the JS thread): a close() that waited for it frees the host now.
  void Settled() {
    if (--pending_ == 0 && closed_ && host_ != nullptr) FreeHost();
  }

  void FreeHost() {
    {
      CallScope call(this);
      plugline_host_free(host_);
    }
    host_ = nullptr;
    client_ = nullptr;  // freed with the host
  }

  static constexpr uint32_t kDefaultCallbackTimeoutMs = 5000;

  // shape(command: string, output: string|Buffer|TypedArray|ArrayBuffer,
  //       exitCode: int32|null|undefined, shaper: string|null|undefined,
  //       maxTokens: number|null|undefined (0: no budget)) -> JSON string
  Napi::Value Shape(const Napi::CallbackInfo& info) { return ShapeCall(info, false); }
  Napi::Value ShapeAsync(const Napi::CallbackInfo& info) { return ShapeCall(info, true); }
  Napi::Value ShapeCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      if (!info[0].IsString()) {
        ThrowTypeError(env, "command must be a string");
        return env.Undefined();
      }
      std::string command = info[0].As<Napi::String>().Utf8Value();
      Bytes output;
      if (!ReadBytes(env, info[1], "output", async, &output)) return env.Undefined();
      int exit_code = PLUGLINE_EXIT_CODE_UNKNOWN;
      if (!info[2].IsUndefined() && !info[2].IsNull()) {
        double number = 0;
        if (!ReadInteger(info[2], std::numeric_limits<int32_t>::min(),
                         std::numeric_limits<int32_t>::max(), &number)) {
          ThrowTypeError(env, "exitCode must be a 32-bit integer, null or undefined");
          return env.Undefined();
        }
        exit_code = static_cast<int>(number);
      }
      std::string shaper;
      bool shaper_null = true;
      if (!ReadCString(env, info[3], "shaper", true, &shaper, &shaper_null)) return env.Undefined();
      uint64_t max_tokens = 0;  // unset: the configured budget
      if (!info[4].IsUndefined() && !info[4].IsNull()) {
        double budget = 0;
        if (!ReadInteger(info[4], 0, 9007199254740991.0, &budget)) {
          ThrowTypeError(env, "maxTokens must be a whole number of tokens, null or undefined");
          return env.Undefined();
        }
        max_tokens = budget == 0 ? PLUGLINE_NO_TOKEN_BUDGET : static_cast<uint64_t>(budget);
      }
      return Run(info, async, true,
                 [command = std::move(command), output = std::move(output),
                  shaper = std::move(shaper), shaper_null, exit_code,
                  max_tokens](plugline_host* host, PluglineBuffer* result) {
                   plugline_shape_options options{};
                   options.struct_size = sizeof options;
                   options.shaper = shaper_null ? nullptr : shaper.c_str();
                   options.max_tokens = max_tokens;
                   return plugline_host_shape(result->out(), result->out_len(), host,
                                              command.data(), command.size(), output.data(),
                                              output.size, exit_code, &options);
                 });
    });
  }

  // plugins() -> JSON string ({"plugins": [...]}: built-ins and plugins with their state).
  // Loading plugins runs their `config` hooks, which may call the client.
  Napi::Value Plugins(const Napi::CallbackInfo& info) { return PluginsCall(info, false); }
  Napi::Value PluginsAsync(const Napi::CallbackInfo& info) { return PluginsCall(info, true); }
  Napi::Value PluginsCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      return Run(info, async, true, [](plugline_host* host, PluglineBuffer* result) {
        return plugline_host_plugins(result->out(), result->out_len(), host);
      });
    });
  }

  // diagnostics() -> JSON string (an array of strings)
  Napi::Value Diagnostics(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      PluglineBuffer result;
      plugline_status status = plugline_host_diagnostics(result.out(), result.out_len(), host_);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // stats() -> JSON string (the per-shaper statistics of the host's home)
  Napi::Value Stats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      PluglineBuffer result;
      plugline_status status = plugline_host_stats(result.out(), result.out_len(), host_);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // pluginInfo(id) -> JSON string ({"plugins": [...]}: the entries with that id)
  Napi::Value PluginInfo(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      PluglineBuffer result;
      CallScope call(this);
      plugline_status status = plugline_plugins_info(result.out(), result.out_len(), host_, id.c_str());
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // setPluginEnabled(id, enabled)
  Napi::Value SetPluginEnabled(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      if (!info[1].IsBoolean()) {
        Napi::TypeError::New(env, "enabled must be a boolean").ThrowAsJavaScriptException();
        return env.Undefined();
      }
      CallScope call(this);  // the host reloads: a plugin dropped runs its `dispose` hook
      plugline_status status = info[1].As<Napi::Boolean>().Value()
                                   ? plugline_plugins_enable(host_, id.c_str())
                                   : plugline_plugins_disable(host_, id.c_str());
      if (status != PLUGLINE_OK) ThrowLastError(env, status);
      return env.Undefined();
    });
  }

  // installPlugin's and installPluginAsync's (id: string, version: string|null).
  struct InstallArgs {
    std::string id, version;
    bool no_version = false;
    const char* version_or_null() const { return no_version ? nullptr : version.c_str(); }
  };
  static bool ReadInstallArgs(Napi::Env env, const Napi::CallbackInfo& info, InstallArgs* args) {
    return ReadCString(env, info[0], "id", false, &args->id, nullptr) &&
           ReadCString(env, info[1], "version", true, &args->version, &args->no_version);
  }

  // The progress callback of install and sync: calls the JS function (or nothing) on this
  // thread, which is running the call. An exception it throws is kept and rethrown after.
  struct Progress {
    Napi::Env env;
    Napi::Function fn;
    bool threw = false;
    Napi::Error error;
    static void Call(void* user_data, const char* url, uint64_t received, uint64_t total) {
      auto* self = static_cast<Progress*>(user_data);
      if (self->fn.IsEmpty() || self->threw) return;
      Napi::Env env = self->env;
      self->fn.Call({Napi::String::New(env, url), Napi::Number::New(env, static_cast<double>(received)),
                     Napi::Number::New(env, static_cast<double>(total))});
      if (env.IsExceptionPending()) {
        self->threw = true;
        self->error = env.GetAndClearPendingException();
      }
    }
  };

  // syncCatalogs(progress?) -> JSON string ({"catalogs": [...]})
  Napi::Value SyncCatalogs(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      Progress progress{env, info[0].IsFunction() ? info[0].As<Napi::Function>() : Napi::Function(), false, Napi::Error()};
      PluglineBuffer result;
      plugline_status status = plugline_plugins_sync(result.out(), result.out_len(), host_,
                                                     &Progress::Call, &progress);
      if (progress.threw) {
        progress.error.ThrowAsJavaScriptException();
        return env.Undefined();
      }
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // The progress callback of an *Async install or sync: a JS function(url, countsJson) that
  // index.js wraps (it keeps the caller's function alive, and any exception it throws, to
  // reject with once the call ends). Called from the pool thread through the host's queue, and
  // waited for, so every report reaches JS before the promise settles.
  static void CallAsyncProgress(void* user_data, const char* url, uint64_t received,
                                uint64_t total) {
    auto* callback = static_cast<JsCallback*>(user_data);
    try {
      const std::string counts = "[" + std::to_string(received) + "," + std::to_string(total) + "]";
      CallJs(*callback, url, counts.data(), counts.size());  // its failure stops nothing
    } catch (...) {
    }
  }

  // A JsCallback for `value` when it is a function (else null), freed on the JS thread.
  std::shared_ptr<JsCallback> AsyncProgressCallback(Napi::Env env, const Napi::Value& value) {
    if (!value.IsFunction()) return nullptr;
    return std::shared_ptr<JsCallback>(
        new JsCallback{env, Napi::Weak(value.As<Napi::Function>()), std::this_thread::get_id(),
                       js_thread_, kDefaultCallbackTimeoutMs, "the progress callback"},
        FreeJsCallback);
  }

  // syncCatalogsAsync(progress: ((url, countsJson) => void)|null) -> Promise of a JSON string
  Napi::Value SyncCatalogsAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::shared_ptr<JsCallback> progress = AsyncProgressCallback(env, info[0]);
      return Run(info, true, true, [progress](plugline_host* host, PluglineBuffer* result) {
        return plugline_plugins_sync(result->out(), result->out_len(), host,
                                     progress ? &CallAsyncProgress : nullptr, progress.get());
      });
    });
  }

  // installPluginAsync(id, version|null, progress|null) -> Promise of a JSON string
  Napi::Value InstallPluginAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      InstallArgs args;
      if (!ReadInstallArgs(env, info, &args)) return env.Undefined();
      std::shared_ptr<JsCallback> progress = AsyncProgressCallback(env, info[2]);
      return Run(info, true, true,
                 [progress, args = std::move(args)](plugline_host* host, PluglineBuffer* result) {
                   return plugline_plugins_install(
                       result->out(), result->out_len(), host, args.id.c_str(),
                       args.version_or_null(), progress ? &CallAsyncProgress : nullptr,
                       progress.get());
                 });
    });
  }

  // availablePlugins() -> JSON string ({"catalogs": [...], "plugins": [...]})
  Napi::Value AvailablePlugins(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      PluglineBuffer result;
      plugline_status status = plugline_plugins_available(result.out(), result.out_len(), host_);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // installPlugin(id, version|null, progress?) -> JSON string (the install record)
  Napi::Value InstallPlugin(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      InstallArgs args;
      if (!ReadInstallArgs(env, info, &args)) return env.Undefined();
      Progress progress{env, info[2].IsFunction() ? info[2].As<Napi::Function>() : Napi::Function(), false, Napi::Error()};
      PluglineBuffer result;
      CallScope call(this);  // the host reloads
      plugline_status status =
          plugline_plugins_install(result.out(), result.out_len(), host_, args.id.c_str(),
                                   args.version_or_null(), &Progress::Call, &progress);
      if (progress.threw) {
        progress.error.ThrowAsJavaScriptException();
        return env.Undefined();
      }
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // removePlugin(id) -> JSON string (the record of what was removed)
  Napi::Value RemovePlugin(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      PluglineBuffer result;
      CallScope call(this);  // the host reloads: the plugin's `dispose` hook runs
      plugline_status status = plugline_plugins_remove(result.out(), result.out_len(), host_, id.c_str());
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // reload(): re-reads configuration and rescans plugin directories; a plugin dropped or
  // replaced runs its `dispose` hook.
  Napi::Value Reload(const Napi::CallbackInfo& info) { return ReloadCall(info, false); }
  Napi::Value ReloadAsync(const Napi::CallbackInfo& info) { return ReloadCall(info, true); }
  Napi::Value ReloadCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      return Run(info, async, false, [](plugline_host* host, PluglineBuffer*) {
        return plugline_host_reload(host);
      });
    });
  }

  // dispatch(event: string, payload: string|Buffer|TypedArray|ArrayBuffer) -> JSON string.
  // Native hooks run inside: on this thread, or (dispatchAsync) queued to it from the pool.
  Napi::Value Dispatch(const Napi::CallbackInfo& info) { return DispatchCall(info, false); }
  Napi::Value DispatchAsync(const Napi::CallbackInfo& info) { return DispatchCall(info, true); }
  Napi::Value DispatchCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string event;
      if (!ReadCString(env, info[0], "event", false, &event, nullptr)) return env.Undefined();
      Bytes payload;
      if (!ReadBytes(env, info[1], "payload", async, &payload)) return env.Undefined();
      return Run(info, async, true,
                 [event = std::move(event), payload = std::move(payload)](
                     plugline_host* host, PluglineBuffer* result) {
                   return plugline_host_dispatch(result->out(), result->out_len(), host,
                                                 event.c_str(), payload.data(), payload.size);
                 });
    });
  }

  // addHook(id: string, events: string (a JSON array of names, ["*"] = all),
  //         fn: (event, payloadJson, mayAwait) => string|null|undefined|Promise,
  //         failClosed: boolean, timeoutMs: uint32|null). `fn` is held weakly (see the top of
  //         this file); timeoutMs bounds an answer awaited for dispatchAsync (default 5000).
  Napi::Value AddHook(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id, events;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      if (!ReadCString(env, info[1], "events", false, &events, nullptr)) return env.Undefined();
      if (!info[2].IsFunction()) {
        ThrowTypeError(env, "fn must be a function");
        return env.Undefined();
      }
      bool fail_closed = false;
      uint32_t timeout_ms = 0;
      if (!ReadHookFlags(env, info[3], info[4], &fail_closed, &timeout_ms)) return env.Undefined();
      auto* hook = new JsCallback{env,        Napi::Weak(info[2].As<Napi::Function>()),
                                  std::this_thread::get_id(), js_thread_,
                                  timeout_ms, "hook \"" + id + "\""};
      plugline_hook_options options = PLUGLINE_HOOK_OPTIONS_INIT;
      options.id = id.c_str();
      options.events = events.c_str();
      options.fail_closed = fail_closed ? 1 : 0;
      plugline_status status =
          plugline_host_add_hook(host_, &options, CallJsHook, hook, FreeJsCallback);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);  // before deleting the hook, which makes no plugline call
        delete hook;                  // on failure plugline does not call FreeJsCallback
      }
      return env.Undefined();
    });
  }

  // failClosed (a boolean, or null/undefined for false) and timeoutMs (uint32, or null for the
  // default): false with a TypeError thrown when either is wrong.
  static bool ReadHookFlags(Napi::Env env, const Napi::Value& fail_closed_value,
                            const Napi::Value& timeout_value, bool* fail_closed,
                            uint32_t* timeout_ms) {
    *fail_closed = false;
    if (!fail_closed_value.IsUndefined() && !fail_closed_value.IsNull()) {
      if (!fail_closed_value.IsBoolean()) {
        ThrowTypeError(env, "failClosed must be a boolean");
        return false;
      }
      *fail_closed = fail_closed_value.As<Napi::Boolean>().Value();
    }
    return ReadTimeout(env, timeout_value, "timeoutMs", kDefaultCallbackTimeoutMs, timeout_ms);
  }

  // addOpenCodePlugin(id: string, hooks: string (a JSON array of hook names),
  //                   tools: string (a JSON array of {name, description, parameters}),
  //                   fn: (kind, bodyJson, mayAwait) => string|null|undefined|Promise,
  //                   failClosed: boolean, timeoutMs: uint32|null). `fn` is held weakly; kind
  //                   "hook" gets {name, input, output} and answers {output, error?}, kind
  //                   "tool" gets {name, args, context} and answers {ok, output, ...}.
  Napi::Value AddOpenCodePlugin(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id, hooks, tools;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      if (!ReadCString(env, info[1], "hooks", false, &hooks, nullptr)) return env.Undefined();
      if (!ReadCString(env, info[2], "tools", false, &tools, nullptr)) return env.Undefined();
      if (!info[3].IsFunction()) {
        ThrowTypeError(env, "fn must be a function");
        return env.Undefined();
      }
      bool fail_closed = false;
      uint32_t timeout_ms = 0;
      if (!ReadHookFlags(env, info[4], info[5], &fail_closed, &timeout_ms)) return env.Undefined();
      auto* plugin = new JsCallback{env,        Napi::Weak(info[3].As<Napi::Function>()),
                                    std::this_thread::get_id(), js_thread_,
                                    timeout_ms, "plugin \"" + id + "\""};
      plugline_opencode_plugin_options options = PLUGLINE_OPENCODE_PLUGIN_OPTIONS_INIT;
      options.id = id.c_str();
      options.hooks = hooks.c_str();
      options.tools = tools.c_str();
      options.fail_closed = fail_closed ? 1 : 0;
      plugline_status status = plugline_host_add_opencode_plugin(
          host_, &options, CallJsOpenCodeHook, CallJsOpenCodeTool, plugin, FreeJsCallback);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        delete plugin;  // on failure plugline does not call FreeJsCallback
      }
      return env.Undefined();
    });
  }

  // removeOpenCodePlugin(id: string)
  Napi::Value RemoveOpenCodePlugin(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      plugline_status status = plugline_host_remove_opencode_plugin(host_, id.c_str());
      if (status != PLUGLINE_OK) ThrowLastError(env, status);
      return env.Undefined();
    });
  }

  // removeHook(id: string)
  Napi::Value RemoveHook(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string id;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      plugline_status status = plugline_host_remove_hook(host_, id.c_str());
      if (status != PLUGLINE_OK) ThrowLastError(env, status);
      return env.Undefined();
    });
  }

  // trigger(name: string, input: string|Buffer|..., output: string|Buffer|...) -> JSON string.
  // The client runs inside: on this thread, or (triggerAsync) queued to it from the pool.
  Napi::Value Trigger(const Napi::CallbackInfo& info) { return TriggerCall(info, false); }
  Napi::Value TriggerAsync(const Napi::CallbackInfo& info) { return TriggerCall(info, true); }
  Napi::Value TriggerCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string name;
      if (!ReadCString(env, info[0], "name", false, &name, nullptr)) return env.Undefined();
      Bytes input, output;
      if (!ReadBytes(env, info[1], "input", async, &input) ||
          !ReadBytes(env, info[2], "output", async, &output)) {
        return env.Undefined();
      }
      return Run(info, async, true,
                 [name = std::move(name), input = std::move(input), output = std::move(output)](
                     plugline_host* host, PluglineBuffer* result) {
                   return plugline_host_trigger(result->out(), result->out_len(), host,
                                                name.c_str(), input.data(), input.size,
                                                output.data(), output.size);
                 });
    });
  }

  // tools(builtinTools: string|null (a JSON array of names)) -> JSON string ({"tools": [...]})
  Napi::Value Tools(const Napi::CallbackInfo& info) { return ToolsCall(info, false); }
  Napi::Value ToolsAsync(const Napi::CallbackInfo& info) { return ToolsCall(info, true); }
  Napi::Value ToolsCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string builtin_tools;
      bool builtin_tools_null = true;
      if (!ReadCString(env, info[0], "builtinTools", true, &builtin_tools, &builtin_tools_null)) {
        return env.Undefined();
      }
      return Run(info, async, true,
                 [builtin_tools = std::move(builtin_tools), builtin_tools_null](
                     plugline_host* host, PluglineBuffer* result) {
                   return plugline_host_tools(
                       result->out(), result->out_len(), host,
                       builtin_tools_null ? nullptr : builtin_tools.c_str());
                 });
    });
  }

  // executeTool(name: string, argsJson: string, contextJson: string|null) -> JSON string
  Napi::Value ExecuteTool(const Napi::CallbackInfo& info) { return ExecuteToolCall(info, false); }
  Napi::Value ExecuteToolAsync(const Napi::CallbackInfo& info) {
    return ExecuteToolCall(info, true);
  }
  Napi::Value ExecuteToolCall(const Napi::CallbackInfo& info, bool async) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string name;
      if (!ReadCString(env, info[0], "name", false, &name, nullptr)) return env.Undefined();
      Bytes args, context;
      // An empty ArrayBuffer is invalid JSON, not "{}".
      if (!ReadBytes(env, info[1], "args", async, &args)) return env.Undefined();
      bool has_context = !info[2].IsUndefined() && !info[2].IsNull();
      if (has_context && !ReadBytes(env, info[2], "context", async, &context)) {
        return env.Undefined();
      }
      return Run(info, async, true,
                 [name = std::move(name), args = std::move(args), context = std::move(context),
                  has_context](plugline_host* host, PluglineBuffer* result) {
                   return plugline_host_execute_tool(
                       result->out(), result->out_len(), host, name.c_str(), args.data(),
                       args.size, has_context ? context.data() : nullptr,
                       has_context ? context.size : 0);
                 });
    });
  }

  // close(): releases the host instead of at garbage collection — now, or when the last
  // *Async call still running ends (it is closed to new calls from here). Idempotent; refused
  // from inside one of the host's native hooks or its client. The plugins' `dispose` hooks
  // run inside, and may call the client.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    if (js_thread_->call_depth > 0) {
      ThrowPluglineError(
          info.Env(), PLUGLINE_ESTATE,
          "plugline: Host.close() called from inside one of its native hooks or its client");
      return info.Env().Undefined();
    }
    closed_ = true;
    if (pending_ == 0 && host_ != nullptr) FreeHost();
    return info.Env().Undefined();
  }

  Napi::Value Closed(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), closed_);
  }

  // The *Async calls still running.
  Napi::Value Pending(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), pending_);
  }

  plugline_host* host_ = nullptr;
  JsCallback* client_ = nullptr;  // owned by plugline; valid while host_ is
  std::shared_ptr<JsThread> js_thread_;
  bool closed_ = false;
  int pending_ = 0;  // *Async calls running (see AsyncCall)
};

// ---- Module functions ---------------------------------------------------------------------

Napi::Value Version(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), plugline_version_string());
}

Napi::Value AbiVersion(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), plugline_abi_version());
}

Napi::Value StatusString(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) {
    ThrowTypeError(env, "status must be a number");
    return env.Undefined();
  }
  return Napi::String::New(env, plugline_status_str(info[0].As<Napi::Number>().Int32Value()));
}

// setErrorClass(PluglineError): the constructor, called as new C(message, status, code), of
// the errors this addon throws.
Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsFunction()) {
    ThrowTypeError(env, "setErrorClass expects a constructor");
    return env.Undefined();
  }
  env.GetInstanceData<AddonData>()->error_class = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

// jsCall(modulePath: string, function: string|null, argsJson: string, timeoutMs: uint32)
//   -> JSON string. Experimental, like plugline_js_call.
Napi::Value JsCall(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guard(env, [&]() -> Napi::Value {
    std::string module_path, function;
    bool function_null = true;
    if (!ReadCString(env, info[0], "modulePath", false, &module_path, nullptr)) {
      return env.Undefined();
    }
    if (!ReadCString(env, info[1], "fn", true, &function, &function_null)) return env.Undefined();
    if (!info[2].IsString()) {
      ThrowTypeError(env, "argsJson must be a string");
      return env.Undefined();
    }
    std::string args_json = info[2].As<Napi::String>().Utf8Value();
    uint32_t timeout_ms = 0;
    if (!info[3].IsUndefined() && !info[3].IsNull()) {
      double number = 0;
      if (!ReadInteger(info[3], 0, std::numeric_limits<uint32_t>::max(), &number)) {
        ThrowTypeError(env, "timeoutMs must be an integer between 0 and 4294967295");
        return env.Undefined();
      }
      timeout_ms = static_cast<uint32_t>(number);
    }
    PluglineBuffer result;
    plugline_status status = plugline_js_call(result.out(), result.out_len(), module_path.c_str(),
                                              function_null ? nullptr : function.c_str(),
                                              args_json.data(), args_json.size(), timeout_ms);
    if (status != PLUGLINE_OK) {
      ThrowLastError(env, status);
      return env.Undefined();
    }
    return result.ToJs(env);
  });
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  Guard(env, [&]() -> Napi::Value {
    // The header this addon was compiled with must describe the library it loaded.
    if (plugline_abi_version() != PLUGLINE_ABI_VERSION) {
      char message[160];
      std::snprintf(message, sizeof message,
                    "plugline: libplugline has ABI version %d, but this addon was built for %d",
                    plugline_abi_version(), PLUGLINE_ABI_VERSION);
      Napi::Error::New(env, message).ThrowAsJavaScriptException();
      return env.Undefined();
    }
    env.SetInstanceData(new AddonData());
    exports.Set("version", Napi::Function::New<Version>(env, "version"));
    exports.Set("abiVersion", Napi::Function::New<AbiVersion>(env, "abiVersion"));
    exports.Set("statusString", Napi::Function::New<StatusString>(env, "statusString"));
    exports.Set("setErrorClass", Napi::Function::New<SetErrorClass>(env, "setErrorClass"));
    exports.Set("jsCall", Napi::Function::New<JsCall>(env, "jsCall"));
    exports.Set("Host", HostWrap::Define(env));
    exports.Set("EXIT_CODE_UNKNOWN", Napi::Number::New(env, PLUGLINE_EXIT_CODE_UNKNOWN));
    exports.Set("ABI_VERSION", Napi::Number::New(env, PLUGLINE_ABI_VERSION));
    return env.Undefined();
  });
  return exports;
}

}  // namespace

NODE_API_MODULE(plugline, Init)

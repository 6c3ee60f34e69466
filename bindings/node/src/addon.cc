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
// Threads. Every call is synchronous on the calling JS thread; plugline's last-error message
// is per thread, so it is read right after the failed call, on the same thread.
//
// Native hooks. plugline calls a hook on the thread that dispatches, inside
// plugline_host_dispatch, so a JS hook runs synchronously on the JS thread, in the middle of
// the addon's dispatch() callback. CallJsHook never lets a JS exception or a C++ exception
// escape into plugline: either becomes the hook's failure (plugline_hook_answer_fail). The
// hook holds its function weakly; index.js keeps it alive (in a Map on its Host), so that a
// hook whose function refers back to its host does not keep the host alive forever.
//
// The client of OpenCode plugins. plugline calls it on the thread running the plugin's hook,
// which for this addon is the JS thread, inside whichever call runs plugins (trigger(),
// dispatch(), executeTool(), and plugins(), reload(), close() for `config` and `dispose`
// hooks). CallJsClient turns whatever the JS function throws into a rejection of the
// plugin's promise. It is held weakly, like a hook's function, and never called from a
// garbage-collection finalizer (a host released by GC runs its plugins' `dispose` hooks
// without a client: their client calls reject).
#include <napi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
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

// Throws a PluglineError(message, status, code) as a JS exception. `code` is
// plugline_status_str(status). Allocates no C++ memory, so it is safe inside a catch handler.
void ThrowPluglineError(Napi::Env env, int status, const char* code, const char* message) {
  Napi::String js_message = Napi::String::New(env, message);
  if (env.IsExceptionPending()) return;
  Napi::Object error;
  AddonData* data = env.GetInstanceData<AddonData>();
  if (data != nullptr && !data->error_class.IsEmpty()) {
    error = data->error_class.New(
        {js_message, Napi::Number::New(env, status), Napi::String::New(env, code)});
    if (env.IsExceptionPending()) return;  // the constructor threw: let that propagate
  } else {
    // Before index.js registered its class (or when the addon is used bare): an Error with
    // the same fields.
    error = Napi::Error::New(env, message).Value();
    error.Set("name", Napi::String::New(env, "PluglineError"));
    error.Set("status", Napi::Number::New(env, status));
    error.Set("code", Napi::String::New(env, code));
    if (env.IsExceptionPending()) return;
  }
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

// Bytes of a string (as UTF-8, copied into `storage`) or of an ArrayBuffer, TypedArray (a
// Buffer) or DataView (read in place: calls are synchronous, so the memory cannot move).
bool ReadBytes(Napi::Env env, const Napi::Value& value, const char* what, std::string* storage,
               const char** data, size_t* len) {
  if (value.IsString()) {
    *storage = value.As<Napi::String>().Utf8Value();
    *data = storage->data();
    *len = storage->size();
    return true;
  }
  if (value.IsTypedArray()) {
    Napi::TypedArray array = value.As<Napi::TypedArray>();
    Napi::ArrayBuffer buffer = array.ArrayBuffer();
    *data = static_cast<const char*>(buffer.Data()) + array.ByteOffset();
    *len = array.ByteLength();
    return true;
  }
  if (value.IsDataView()) {
    Napi::DataView view = value.As<Napi::DataView>();
    *data = static_cast<const char*>(view.Data());
    *len = view.ByteLength();
    return true;
  }
  if (value.IsArrayBuffer()) {
    Napi::ArrayBuffer buffer = value.As<Napi::ArrayBuffer>();
    *data = static_cast<const char*>(buffer.Data());
    *len = buffer.ByteLength();
    return true;
  }
  std::string message =
      std::string(what) + " must be a string, a Buffer, a TypedArray or an ArrayBuffer";
  ThrowTypeError(env, message.c_str());
  return false;
}

// ---- Native hooks -------------------------------------------------------------------------

// The user_data of a JS native hook.
struct JsHook {
  napi_env env;
  Napi::FunctionReference function;  // weak: index.js holds the function
  std::thread::id thread;            // the JS thread of `env`
};

void FreeJsHook(void* user_data) { delete static_cast<JsHook*>(user_data); }

// What a thrown value says, as String(value) would ("Error: message", "TypeError: ..."), for
// plugline_hook_answer_fail. Clears a second exception thrown while converting it.
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
  return "the hook threw a value that cannot be converted to a string";
}

// plugline_hook_fn for a JS function(event: string, payloadJson: string) -> string|null|undefined
// (the answer JSON; index.js wraps the user's function to speak JSON).
int CallJsHook(const char* event, const char* payload_json, size_t payload_len,
               plugline_hook_answer* answer, void* user_data) noexcept {
  auto* hook = static_cast<JsHook*>(user_data);
  try {
    if (std::this_thread::get_id() != hook->thread) {
      plugline_hook_answer_fail(answer,
                                "plugline addon: a JS hook was called off its JS thread; skipped");
      return 1;
    }
    Napi::Env env(hook->env);
    Napi::HandleScope scope(env);
    Napi::Function function = hook->function.Value();
    if (function.IsEmpty()) {
      plugline_hook_answer_fail(answer, "plugline addon: the hook's function was collected");
      return 1;
    }
    Napi::Value result = function.Call(
        {Napi::String::New(env, event), Napi::String::New(env, payload_json, payload_len)});
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_value thrown = nullptr;
      if (napi_get_and_clear_last_exception(env, &thrown) != napi_ok) {
        plugline_hook_answer_fail(answer, "plugline addon: the hook threw");
        return 1;
      }
      const std::string message = DescribeThrown(env, thrown);
      plugline_hook_answer_fail(answer, message.c_str());
      return 1;
    }
    if (result.IsEmpty()) {  // no exception, yet no value: JS cannot run (the env is ending)
      plugline_hook_answer_fail(answer, "plugline addon: the hook could not run");
      return 1;
    }
    if (result.IsUndefined() || result.IsNull()) return 0;  // no opinion
    if (!result.IsString()) {
      plugline_hook_answer_fail(answer, "plugline addon: the hook's answer is not a JSON string");
      return 1;
    }
    // An answer plugline refuses makes it skip the hook with its own reason.
    const std::string json = result.As<Napi::String>().Utf8Value();
    plugline_hook_answer_set(answer, json.data(), json.size());
    return 0;
  } catch (const std::bad_alloc&) {
    plugline_hook_answer_fail(answer, "plugline addon: out of memory");
  } catch (...) {
    plugline_hook_answer_fail(answer, "plugline addon: unexpected C++ exception in a hook");
  }
  return 1;
}

// ---- The client of OpenCode plugins --------------------------------------------------------

// The user_data of the client callback. plugline frees it (FreeJsClient) once no host uses it.
struct JsClient {
  napi_env env;
  Napi::FunctionReference function;  // weak: index.js holds the function
  std::thread::id thread;            // the JS thread of `env`
  bool js_allowed = true;            // false while the owning host is freed by the GC
};

void FreeJsClient(void* user_data) { delete static_cast<JsClient*>(user_data); }

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

// plugline_client_fn for a JS function(path: string, argsJson: string) -> string|null|undefined
// (the answer's JSON; index.js wraps the user's function to speak JSON).
int CallJsClient(const char* path, const char* args_json, size_t args_len, plugline_reply* reply,
                 void* user_data) noexcept {
  auto* client = static_cast<JsClient*>(user_data);
  try {
    if (!client->js_allowed) {
      return RejectClientCall(
          reply, "plugline addon: the Host is being garbage-collected; JS cannot run now");
    }
    if (std::this_thread::get_id() != client->thread) {
      return RejectClientCall(reply, "plugline addon: the client was called off its JS thread");
    }
    Napi::Env env(client->env);
    Napi::HandleScope scope(env);
    Napi::Function function = client->function.Value();
    if (function.IsEmpty()) {
      return RejectClientCall(reply, "plugline addon: the client function was collected");
    }
    Napi::Value result =
        function.Call({Napi::String::New(env, path), Napi::String::New(env, args_json, args_len)});
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_value thrown = nullptr;
      if (napi_get_and_clear_last_exception(env, &thrown) != napi_ok) {
        return RejectClientCall(reply, "plugline addon: the client threw");
      }
      const std::string message = DescribeThrown(env, thrown);
      return RejectClientCall(reply, message.c_str());
    }
    if (result.IsEmpty()) {  // no exception, yet no value: JS cannot run (the env is ending)
      return RejectClientCall(reply, "plugline addon: the client could not run");
    }
    if (result.IsUndefined() || result.IsNull()) return 0;  // resolves to null
    if (!result.IsString()) {
      return RejectClientCall(reply, "plugline addon: the client's answer is not a JSON string");
    }
    const std::string json = result.As<Napi::String>().Utf8Value();
    if (plugline_reply_set(reply, json.data(), json.size()) != PLUGLINE_OK) {
      return RejectClientCall(reply, "plugline addon: the client's answer is not valid JSON");
    }
    return 0;
  } catch (const std::bad_alloc&) {
    return RejectClientCall(reply, "plugline addon: out of memory");
  } catch (...) {
    return RejectClientCall(reply, "plugline addon: unexpected C++ exception in the client");
  }
}

// ---- Host ---------------------------------------------------------------------------------

// new Host(home: string|null, projectDir: string|null, storeOutputs: boolean|null,
//          client: ((path: string, argsJson: string) => string|null|undefined)|null,
//          serverUrl: string|null, pluginConfigJson: string|null,
//          projectTrusted: boolean|null)
// `client` is held weakly (see the top of this file).
class HostWrap : public Napi::ObjectWrap<HostWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(
        env, "Host",
        {InstanceMethod<&HostWrap::Shape>("shape"),
         InstanceMethod<&HostWrap::Diagnostics>("diagnostics"),
         InstanceMethod<&HostWrap::Stats>("stats"), InstanceMethod<&HostWrap::Plugins>("plugins"),
         InstanceMethod<&HostWrap::PluginInfo>("pluginInfo"),
         InstanceMethod<&HostWrap::SetPluginEnabled>("setPluginEnabled"),
         InstanceMethod<&HostWrap::SyncCatalogs>("syncCatalogs"),
         InstanceMethod<&HostWrap::AvailablePlugins>("availablePlugins"),
         InstanceMethod<&HostWrap::InstallPlugin>("installPlugin"),
         InstanceMethod<&HostWrap::RemovePlugin>("removePlugin"),
         InstanceMethod<&HostWrap::Reload>("reload"),
         InstanceMethod<&HostWrap::Dispatch>("dispatch"),
         InstanceMethod<&HostWrap::AddHook>("addHook"),
         InstanceMethod<&HostWrap::RemoveHook>("removeHook"),
         InstanceMethod<&HostWrap::Trigger>("trigger"), InstanceMethod<&HostWrap::Tools>("tools"),
         InstanceMethod<&HostWrap::ExecuteTool>("executeTool"),
         InstanceMethod<&HostWrap::Close>("close"), InstanceAccessor<&HostWrap::Closed>("closed")});
  }

  explicit HostWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<HostWrap>(info) {
    // A pending exception on return makes node-addon-api discard the half-built object.
    Guard(info.Env(), [&] { return Construct(info); });
  }

  ~HostWrap() override {
    // A finalizer may not call into JS: the plugins' `dispose` hooks run without a client.
    if (client_ != nullptr) client_->js_allowed = false;
    plugline_host_free(host_);
  }

 private:
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

    plugline_config* config = nullptr;
    plugline_status status = plugline_config_new(&config);
    if (status == PLUGLINE_OK && !home_null)
      status = plugline_config_set_home(config, home.c_str());
    if (status == PLUGLINE_OK && !project_dir_null) {
      status = plugline_config_set_project_dir(config, project_dir.c_str());
    }
    if (status == PLUGLINE_OK) status = plugline_config_set_project_trust(config, project_trust);
    if (status == PLUGLINE_OK) status = plugline_config_set_store_outputs(config, store_outputs);
    JsClient* client = nullptr;
    if (status == PLUGLINE_OK && info[3].IsFunction()) {
      client =
          new JsClient{env, Napi::Weak(info[3].As<Napi::Function>()), std::this_thread::get_id()};
      // From here the config owns `client`: plugline frees it with the config and the
      // hosts made from it (it fails only for a NULL config, or when out of memory, and
      // then has already released it or never will; a leak beats a double free).
      status = plugline_config_set_client(config, CallJsClient, client, FreeJsClient);
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
      return env.Undefined();
    }
    plugline_config_free(config);  // the host keeps `client` alive
    client_ = client;
    return env.Undefined();
  }

  // Counts the calls into plugline running on this host (all on the JS thread): while one
  // runs, a native hook or the client may call back, which CheckOpen refuses.
  class CallScope {
   public:
    explicit CallScope(HostWrap* host) : host_(host) { ++host_->call_depth_; }
    CallScope(const CallScope&) = delete;
    CallScope& operator=(const CallScope&) = delete;
    ~CallScope() { --host_->call_depth_; }

   private:
    HostWrap* host_;
  };

  // A PluglineError(PLUGLINE_ESTATE) after close(), and from inside one of the host's own
  // native hooks or its client (they must not call back into the host that calls them;
  // close() there would free it under the call).
  bool CheckOpen(Napi::Env env) {
    if (call_depth_ > 0) {
      ThrowPluglineError(env, PLUGLINE_ESTATE,
                         "plugline: a native hook or the client called back into its own host");
      return false;
    }
    if (host_ != nullptr) return true;
    ThrowPluglineError(env, PLUGLINE_ESTATE, "plugline: the Host is closed");
    return false;
  }

  // shape(command: string, output: string|Buffer|TypedArray|ArrayBuffer,
  //       exitCode: int32|null|undefined, shaper: string|null|undefined,
  //       maxTokens: number|null|undefined (0: no budget)) -> JSON string
  Napi::Value Shape(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      if (!info[0].IsString()) {
        ThrowTypeError(env, "command must be a string");
        return env.Undefined();
      }
      std::string command = info[0].As<Napi::String>().Utf8Value();
      std::string output_storage;
      const char* output = nullptr;
      size_t output_len = 0;
      if (!ReadBytes(env, info[1], "output", &output_storage, &output, &output_len)) {
        return env.Undefined();
      }
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

      plugline_shape_options options{};
      options.struct_size = sizeof options;
      options.shaper = shaper_null ? nullptr : shaper.c_str();
      if (!info[4].IsUndefined() && !info[4].IsNull()) {
        double budget = 0;
        if (!ReadInteger(info[4], 0, 9007199254740991.0, &budget)) {
          ThrowTypeError(env, "maxTokens must be a whole number of tokens, null or undefined");
          return env.Undefined();
        }
        options.max_tokens = budget == 0 ? PLUGLINE_NO_TOKEN_BUDGET : static_cast<uint64_t>(budget);
      }
      PluglineBuffer result;
      CallScope call(this);
      plugline_status status =
          plugline_host_shape(result.out(), result.out_len(), host_, command.data(), command.size(),
                              output, output_len, exit_code, &options);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
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

  // plugins() -> JSON string ({"plugins": [...]}: built-ins and plugins with their state)
  Napi::Value Plugins(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      PluglineBuffer result;
      CallScope call(this);  // loading plugins runs their `config` hooks
      plugline_status status = plugline_host_plugins(result.out(), result.out_len(), host_);
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
      std::string id, version;
      bool no_version = false;
      if (!ReadCString(env, info[0], "id", false, &id, nullptr)) return env.Undefined();
      if (!ReadCString(env, info[1], "version", true, &version, &no_version)) return env.Undefined();
      Progress progress{env, info[2].IsFunction() ? info[2].As<Napi::Function>() : Napi::Function(), false, Napi::Error()};
      PluglineBuffer result;
      CallScope call(this);  // the host reloads
      plugline_status status =
          plugline_plugins_install(result.out(), result.out_len(), host_, id.c_str(),
                                   no_version ? nullptr : version.c_str(), &Progress::Call, &progress);
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

  // reload(): re-reads configuration and rescans plugin directories.
  Napi::Value Reload(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      CallScope call(this);  // a plugin dropped or replaced runs its `dispose` hook
      plugline_status status = plugline_host_reload(host_);
      if (status != PLUGLINE_OK) ThrowLastError(env, status);
      return env.Undefined();
    });
  }

  // dispatch(event: string, payload: string|Buffer|TypedArray|ArrayBuffer) -> JSON string.
  // Native hooks run inside, on this thread.
  Napi::Value Dispatch(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string event;
      if (!ReadCString(env, info[0], "event", false, &event, nullptr)) return env.Undefined();
      std::string payload_storage;
      const char* payload = nullptr;
      size_t payload_len = 0;
      if (!ReadBytes(env, info[1], "payload", &payload_storage, &payload, &payload_len)) {
        return env.Undefined();
      }
      if (payload == nullptr) payload = "";  // an empty ArrayBuffer; plugline wants non-NULL
      PluglineBuffer result;
      plugline_status status;
      {
        CallScope call(this);
        status = plugline_host_dispatch(result.out(), result.out_len(), host_, event.c_str(),
                                        payload, payload_len);
      }
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // addHook(id: string, events: string (comma-separated, "*" = all),
  //         fn: (event: string, payloadJson: string) => string|null|undefined,
  //         failClosed: boolean). `fn` is held weakly (see the top of this file).
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
      if (!info[3].IsUndefined() && !info[3].IsNull()) {
        if (!info[3].IsBoolean()) {
          ThrowTypeError(env, "failClosed must be a boolean");
          return env.Undefined();
        }
        fail_closed = info[3].As<Napi::Boolean>().Value();
      }
      auto* hook =
          new JsHook{env, Napi::Weak(info[2].As<Napi::Function>()), std::this_thread::get_id()};
      plugline_hook_options options{};
      options.struct_size = sizeof options;
      options.id = id.c_str();
      options.events = events.c_str();
      options.fail_closed = fail_closed ? 1 : 0;
      plugline_status status =
          plugline_host_add_hook(host_, &options, CallJsHook, hook, FreeJsHook);
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);  // before deleting the hook, which makes no plugline call
        delete hook;                  // on failure plugline does not call FreeJsHook
      }
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
  // The client runs inside, on this thread.
  Napi::Value Trigger(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string name;
      if (!ReadCString(env, info[0], "name", false, &name, nullptr)) return env.Undefined();
      std::string input_storage, output_storage;
      const char* input = nullptr;
      const char* output = nullptr;
      size_t input_len = 0, output_len = 0;
      if (!ReadBytes(env, info[1], "input", &input_storage, &input, &input_len) ||
          !ReadBytes(env, info[2], "output", &output_storage, &output, &output_len)) {
        return env.Undefined();
      }
      if (input == nullptr) input = "";  // an empty ArrayBuffer; plugline wants non-NULL
      if (output == nullptr) output = "";
      PluglineBuffer result;
      plugline_status status;
      {
        CallScope call(this);
        status = plugline_host_trigger(result.out(), result.out_len(), host_, name.c_str(), input,
                                       input_len, output, output_len);
      }
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // tools(builtinTools: string|null (comma-separated)) -> JSON string ({"tools": [...]})
  Napi::Value Tools(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string builtin_tools;
      bool builtin_tools_null = true;
      if (!ReadCString(env, info[0], "builtinTools", true, &builtin_tools, &builtin_tools_null)) {
        return env.Undefined();
      }
      PluglineBuffer result;
      plugline_status status;
      {
        CallScope call(this);
        status = plugline_host_tools(result.out(), result.out_len(), host_,
                                     builtin_tools_null ? nullptr : builtin_tools.c_str());
      }
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // executeTool(name: string, argsJson: string, contextJson: string|null) -> JSON string
  Napi::Value ExecuteTool(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guard(env, [&]() -> Napi::Value {
      if (!CheckOpen(env)) return env.Undefined();
      std::string name;
      if (!ReadCString(env, info[0], "name", false, &name, nullptr)) return env.Undefined();
      std::string args_storage, context_storage;
      const char* args = nullptr;
      const char* context = nullptr;
      size_t args_len = 0, context_len = 0;
      if (!ReadBytes(env, info[1], "args", &args_storage, &args, &args_len)) {
        return env.Undefined();
      }
      if (args == nullptr) args = "";  // an empty ArrayBuffer: invalid JSON, not "{}"
      if (!info[2].IsUndefined() && !info[2].IsNull()) {
        if (!ReadBytes(env, info[2], "context", &context_storage, &context, &context_len)) {
          return env.Undefined();
        }
        if (context == nullptr) context = "";
      }
      PluglineBuffer result;
      plugline_status status;
      {
        CallScope call(this);
        status = plugline_host_execute_tool(result.out(), result.out_len(), host_, name.c_str(),
                                            args, args_len, context, context_len);
      }
      if (status != PLUGLINE_OK) {
        ThrowLastError(env, status);
        return env.Undefined();
      }
      return result.ToJs(env);
    });
  }

  // close(): releases the host now instead of at garbage collection. Idempotent; refused
  // from inside one of the host's native hooks or its client. The plugins' `dispose` hooks
  // run inside, and may call the client.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    if (call_depth_ > 0) {
      ThrowPluglineError(
          info.Env(), PLUGLINE_ESTATE,
          "plugline: Host.close() called from inside one of its native hooks or its client");
      return info.Env().Undefined();
    }
    {
      CallScope call(this);
      plugline_host_free(host_);
    }
    host_ = nullptr;
    client_ = nullptr;  // freed with the host
    return info.Env().Undefined();
  }

  Napi::Value Closed(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), host_ == nullptr);
  }

  plugline_host* host_ = nullptr;
  JsClient* client_ = nullptr;  // owned by plugline; valid while host_ is
  int call_depth_ = 0;          // calls into plugline running on this host (see CallScope)
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

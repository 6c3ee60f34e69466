// plugline-js-worker: runs one JS module in its own process for Isolation::kProcess.
//
//   plugline-js-worker [--memory-limit-bytes=N]
//
// Started by src/js/process_runtime.cc, which speaks newline-delimited JSON with it over stdin
// and stdout (see README.md here). The worker applies its limits first (RLIMIT_DATA,
// RLIMIT_CORE), then loads V8 through the ordinary in-process runtime (js::GetRuntime(), which
// finds libplugline-v8.so beside this executable), says hello, and serves requests one at a
// time until stdin closes. Everything V8 can stop (loops, heap, ArrayBuffers) is stopped here
// exactly as in process; what it cannot stop ends this process, and the parent reports it.
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/json.h"
#include "core/strings.h"
#include "js/node_imports.h"
#include "js/runtime.h"

namespace plugline::js::worker {
namespace {

using core::JsonWriter;
using core::Value;

// The protocol's output: the original stdout, kept on a private descriptor. fd 1 itself is
// pointed at stderr so that nothing else that prints (V8's diagnostics, a stray printf) can
// corrupt the message stream.
int g_protocol_fd = -1;

void WriteAll(std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(g_protocol_fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      std::_Exit(0);  // the parent is gone: nobody is left to answer
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

void SendMessage(std::string message) {
  message.push_back('\n');
  WriteAll(message);
}

// Reads '\n'-terminated lines from stdin.
class LineReader {
 public:
  // False at end of input.
  bool Next(std::string* line) {
    for (;;) {
      size_t newline = buffer_.find('\n', scan_);
      if (newline != std::string::npos) {
        if (newline + 1 == buffer_.size()) {  // the usual case: exactly one whole line
          buffer_.pop_back();
          line->swap(buffer_);
          buffer_.clear();
        } else {
          line->assign(buffer_, 0, newline);
          buffer_.erase(0, newline + 1);
        }
        scan_ = 0;
        return true;
      }
      scan_ = buffer_.size();
      char chunk[64 * 1024];
      ssize_t n = ::read(0, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  std::string buffer_;
  size_t scan_ = 0;
};

// The reader of stdin, shared by the request loop and host calls made during a request.
LineReader* g_reader = nullptr;

// A host call from the module while a request runs: {"host_call":{"request":"..."}} goes to
// the parent, which answers {"host_reply":{"ok":true,"answer":"..."}} or
// {"host_reply":{"ok":false,"code":N,"message":"..."}} before anything else.
absl::StatusOr<std::string> ForwardHostCall(std::string_view request) {
  JsonWriter w;
  w.BeginObject().Key("host_call").BeginObject().Key("request").String(request);
  w.EndObject().EndObject();
  SendMessage(w.Take());
  std::string line;
  if (g_reader == nullptr || !g_reader->Next(&line)) std::_Exit(0);  // the parent is gone
  absl::StatusOr<Value> message = core::ParseJson(line, "the host's reply");
  const Value* reply = message.ok() ? message->Find("host_reply") : nullptr;
  if (reply == nullptr || !reply->is_object()) {
    return absl::InternalError("the host answered a host call with something else");
  }
  const Value* ok = reply->Find("ok");
  if (ok != nullptr && ok->is_bool() && ok->as_bool()) {
    return reply->StringMember("answer");
  }
  const Value* code = reply->Find("code");
  const Value* text = reply->Find("message");
  int64_t number = code != nullptr ? code->as_integer().value_or(0) : 0;
  return absl::Status(number > 0 && number <= 16 ? static_cast<absl::StatusCode>(number)
                                                 : absl::StatusCode::kUnknown,
                      ToAbsl(text != nullptr && text->is_string() ? text->as_string()
                                                                  : std::string("host call failed")));
}

std::string Reply(int64_t id, const absl::Status& status) {
  JsonWriter w;
  w.BeginObject().Key("id").Int(id).Key("ok").Bool(false);
  w.Key("code").Int(static_cast<int>(status.code()));
  w.Key("message").String(ToStd(status.message()));
  w.EndObject();
  return w.Take();
}

std::string ReplyResult(int64_t id, std::string_view result) {
  JsonWriter w;
  w.BeginObject().Key("id").Int(id).Key("ok").Bool(true).Key("result").String(result);
  w.EndObject();
  return w.Take();
}

std::string ReplyFiles(int64_t id, const std::vector<std::string>& files) {
  JsonWriter w;
  w.BeginObject().Key("id").Int(id).Key("ok").Bool(true).Key("files").BeginArray();
  for (const std::string& file : files) w.String(file);
  w.EndArray().EndObject();
  return w.Take();
}

std::string_view StringField(const Value& request, std::string_view key) {
  const Value* field = request.Find(key);
  return field != nullptr && field->is_string() ? std::string_view(field->as_string())
                                                : std::string_view();
}

std::optional<double> NumberField(const Value& object, std::string_view key) {
  const Value* field = object.Find(key);
  if (field == nullptr || !field->is_number()) return std::nullopt;
  return field->as_number();
}

absl::Duration DurationField(const Value& object, std::string_view key, absl::Duration fallback) {
  std::optional<double> ns = NumberField(object, key);
  return ns.has_value() ? absl::Nanoseconds(static_cast<int64_t>(*ns)) : fallback;
}

// Typed arguments, encoded by process_runtime.cc: JSON scalars stand for themselves;
// {"undefined":true}, {"json":"<text>"} and {"number":"NaN"|"Infinity"|"-Infinity"|"-0"} for
// what a JSON scalar cannot say.
absl::StatusOr<std::vector<Arg>> DecodeArgs(const Value& encoded) {
  if (!encoded.is_array()) return absl::InvalidArgumentError("args must be an array");
  std::vector<Arg> args;
  for (const Value& item : encoded.as_array()) {
    switch (item.kind()) {
      case Value::Kind::kNull:
        args.push_back(Arg::Null());
        break;
      case Value::Kind::kBool:
        args.push_back(Arg::Bool(item.as_bool()));
        break;
      case Value::Kind::kNumber:
        args.push_back(Arg::Number(item.as_number()));
        break;
      case Value::Kind::kString:
        args.push_back(Arg::String(item.as_string()));
        break;
      case Value::Kind::kObject: {
        if (const Value* json = item.Find("json"); json != nullptr && json->is_string()) {
          args.push_back(Arg::Json(json->as_string()));
        } else if (const Value* number = item.Find("number");
                   number != nullptr && number->is_string()) {
          const std::string& text = number->as_string();
          double value = text == "-0"          ? -0.0
                         : text == "Infinity"  ? std::numeric_limits<double>::infinity()
                         : text == "-Infinity" ? -std::numeric_limits<double>::infinity()
                                               : std::numeric_limits<double>::quiet_NaN();
          args.push_back(Arg::Number(value));
        } else {
          args.push_back(Arg{});  // {"undefined":true}
        }
        break;
      }
      case Value::Kind::kArray:
        return absl::InvalidArgumentError("an encoded argument cannot be an array");
    }
  }
  return args;
}

ModuleOptions DecodeOptions(const Value* encoded) {
  ModuleOptions options;
  // A fatal out-of-memory ends this worker (RLIMIT_DATA or V8's own): the parent reports it
  // and starts a fresh one, so the plugin goes on working, which an abandoned isolate would
  // not.
  options.abandon_isolate_on_fatal_oom = false;
  if (encoded == nullptr || !encoded->is_object()) return options;
  options.root_dir = std::string(StringField(*encoded, "root_dir"));
  options.code_cache_dir = std::string(StringField(*encoded, "code_cache_dir"));
  if (auto v = NumberField(*encoded, "heap_limit_bytes")) {
    options.heap_limit_bytes = static_cast<size_t>(*v);
  }
  if (auto v = NumberField(*encoded, "array_buffer_limit_bytes")) {
    options.array_buffer_limit_bytes = static_cast<size_t>(*v);
  }
  options.load_timeout = DurationField(*encoded, "load_timeout_ns", absl::InfiniteDuration());
  options.wrapper_source = std::string(StringField(*encoded, "wrapper_source"));
  if (const Value* modules = encoded->Find("builtin_modules");
      modules != nullptr && modules->is_array()) {
    for (const Value& module : modules->as_array()) {
      if (!module.is_object()) continue;
      options.builtin_modules.push_back({std::string(StringField(module, "specifier")),
                                         std::string(StringField(module, "source"))});
    }
  }
  if (const Value* dirs = encoded->Find("node_modules_dirs"); dirs != nullptr && dirs->is_array()) {
    std::vector<std::string> list;
    for (const Value& dir : dirs->as_array()) {
      if (dir.is_string()) list.push_back(dir.as_string());
    }
    AddNodeImports(&options, std::move(list));
  }
  if (const Value* host_call = encoded->Find("host_call");
      host_call != nullptr && host_call->is_bool() && host_call->as_bool()) {
    options.host_call = &ForwardHostCall;
  }
  const Value* log = encoded->Find("log");
  if (log != nullptr && log->is_bool() && log->as_bool()) {
    options.log = [](std::string_view level, std::string_view message) {
      JsonWriter w;
      w.BeginObject().Key("log").BeginObject();
      w.Key("level").String(level).Key("message").String(message);
      w.EndObject().EndObject();
      SendMessage(w.Take());
    };
  }
  return options;
}

class Server {
 public:
  explicit Server(Runtime* runtime) : runtime_(runtime) {}

  std::string Handle(const Value& request) {
    int64_t id = request.Find("id") != nullptr && request.Find("id")->as_integer().has_value()
                     ? *request.Find("id")->as_integer()
                     : 0;
    std::string_view op = StringField(request, "op");
    if (op == "load") return Load(id, request);
    if (module_ == nullptr) {
      return Reply(id, absl::FailedPreconditionError("the worker has no module loaded"));
    }
    if (op == "call") return Call(id, request);
    if (op == "get") return Result(id, module_->Get(StringField(request, "property")));
    if (op == "describe") {
      return Result(id, module_->DescribeDefault(StringField(request, "names_json")));
    }
    if (op == "files") return ReplyFiles(id, module_->files());
    return Reply(id, absl::InvalidArgumentError(StrCat("unknown op '", op, "'")));
  }

 private:
  std::string Load(int64_t id, const Value& request) {
    if (module_ != nullptr) {
      return Reply(id, absl::FailedPreconditionError("the worker already has a module"));
    }
    absl::StatusOr<std::unique_ptr<Module>> module = runtime_->Load(
        std::string(StringField(request, "path")), DecodeOptions(request.Find("options")));
    if (!module.ok()) return Reply(id, module.status());
    module_ = *std::move(module);
    return ReplyFiles(id, module_->files());
  }

  std::string Call(int64_t id, const Value& request) {
    std::string_view function = StringField(request, "function");
    CallLimits limits;
    limits.timeout = DurationField(request, "timeout_ns", absl::InfiniteDuration());
    if (const Value* args = request.Find("args"); args != nullptr) {
      absl::StatusOr<std::vector<Arg>> decoded = DecodeArgs(*args);
      if (!decoded.ok()) return Reply(id, decoded.status());
      return Result(id, module_->CallArgs(function, *decoded, limits));
    }
    return Result(id, module_->Call(function, StringField(request, "args_json"), limits));
  }

  static std::string Result(int64_t id, const absl::StatusOr<std::string>& result) {
    return result.ok() ? ReplyResult(id, *result) : Reply(id, result.status());
  }

  Runtime* runtime_;
  std::unique_ptr<Module> module_;
};

// AddressSanitizer and ThreadSanitizer map terabytes of shadow memory at startup, and
// RLIMIT_DATA counts it: under either, any limit makes the next allocation fail, so a worker of
// such a build (PLUGLINE_SANITIZE, for plugline's own tests) runs without RLIMIT_DATA.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kShadowMemory = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kShadowMemory = true;
#else
constexpr bool kShadowMemory = false;
#endif
#else
constexpr bool kShadowMemory = false;
#endif

void ApplyLimits(size_t memory_limit_bytes) {
  struct rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  if (memory_limit_bytes != 0 && !kShadowMemory) {
    struct rlimit data = {memory_limit_bytes, memory_limit_bytes};
    if (::setrlimit(RLIMIT_DATA, &data) != 0) {
      std::fprintf(stderr, "plugline-js-worker: setrlimit(RLIMIT_DATA): %s\n",
                   std::strerror(errno));
    }
  }
}

int Main(int argc, char** argv) {
  size_t memory_limit_bytes = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    constexpr std::string_view kMemory = "--memory-limit-bytes=";
    if (arg.substr(0, kMemory.size()) == kMemory) {
      memory_limit_bytes = std::strtoull(argv[i] + kMemory.size(), nullptr, 10);
    } else {
      std::fprintf(stderr,
                   "usage: plugline-js-worker [--memory-limit-bytes=N]\n"
                   "Runs one JS module for plugline; speaks JSON lines on stdin/stdout.\n");
      return 2;
    }
  }
  g_protocol_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (g_protocol_fd < 0 || ::dup2(2, 1) < 0) return 3;

  ApplyLimits(memory_limit_bytes);

  absl::StatusOr<Runtime*> runtime = GetRuntime();
  {
    JsonWriter w;
    w.BeginObject().Key("hello").BeginObject();
    if (runtime.ok()) {
      w.Key("ok").Bool(true).Key("engine").String((*runtime)->engine());
    } else {
      w.Key("ok").Bool(false).Key("code").Int(static_cast<int>(runtime.status().code()));
      w.Key("message").String(ToStd(runtime.status().message()));
    }
    w.Key("pid").Int(::getpid());
    w.EndObject().EndObject();
    SendMessage(w.Take());
  }
  if (!runtime.ok()) return 1;

  Server server(*runtime);
  LineReader reader;
  g_reader = &reader;
  std::string line;
  while (reader.Next(&line)) {
    if (line.empty()) continue;
    absl::StatusOr<Value> request = core::ParseJson(line, "plugline-js-worker request");
    if (!request.ok()) {
      SendMessage(Reply(0, request.status()));
      continue;
    }
    SendMessage(server.Handle(*request));
  }
  // stdin closed: the parent is done with this module. Skip V8's teardown.
  std::fflush(stderr);
  std::_Exit(0);
}

}  // namespace
}  // namespace plugline::js::worker

int main(int argc, char** argv) { return plugline::js::worker::Main(argc, argv); }

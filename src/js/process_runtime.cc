#include "js/process_runtime.h"

#include <signal.h>
#include <string.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/json.h"
#include "core/status_macros.h"
#include "core/strings.h"
#include "exec/child.h"

namespace plugline::js {
namespace {

using core::JsonWriter;
using core::Value;

// What the worker may send in one line: a result of up to this many bytes (as JSON text).
constexpr size_t kMaxMessageBytes = 256u << 20;
// Added to heap + ArrayBuffer limits for the default RLIMIT_DATA: V8's own heaps outside the
// JS heap (code, compiler zones), libnode's data, malloc arenas.
constexpr size_t kV8OverheadBytes = 256u << 20;
// How long a worker that closed its output is given to finish dying before it is killed.
constexpr absl::Duration kExitWait = absl::Seconds(2);
// Durations are sent in nanoseconds as JSON numbers, exact up to 2^53 ns (≈ 104 days).
constexpr int64_t kMaxExactNanoseconds = int64_t{1} << 53;

void WriteDuration(JsonWriter& w, std::string_view key, absl::Duration duration) {
  if (duration == absl::InfiniteDuration()) return;  // absent: no limit
  int64_t ns = absl::ToInt64Nanoseconds(duration);
  if (ns >= kMaxExactNanoseconds) return;
  w.Key(key).Int(ns);
}

// The typed arguments of CallArgs; plugline-js-worker decodes them (DecodeArgs there).
void WriteArgs(JsonWriter& w, std::span<const Arg> args) {
  w.Key("args").BeginArray();
  for (const Arg& arg : args) {
    switch (arg.kind) {
      case Arg::Kind::kUndefined:
        w.BeginObject().Key("undefined").Bool(true).EndObject();
        break;
      case Arg::Kind::kNull:
        w.Null();
        break;
      case Arg::Kind::kBool:
        w.Bool(arg.boolean);
        break;
      case Arg::Kind::kNumber:
        if (std::isnan(arg.number)) {
          w.BeginObject().Key("number").String("NaN").EndObject();
        } else if (std::isinf(arg.number)) {
          w.BeginObject().Key("number").String(arg.number > 0 ? "Infinity" : "-Infinity");
          w.EndObject();
        } else if (arg.number == 0 && std::signbit(arg.number)) {
          w.BeginObject().Key("number").String("-0").EndObject();
        } else {
          w.Double(arg.number);
        }
        break;
      case Arg::Kind::kString:
        w.String(arg.text);
        break;
      case Arg::Kind::kJson:
        w.BeginObject().Key("json").String(arg.text).EndObject();
        break;
    }
  }
  w.EndArray();
}

// The status a worker reported: {"code":N,"message":"..."}.
absl::Status StatusFrom(const Value& message) {
  const Value* code = message.Find("code");
  const Value* text = message.Find("message");
  std::optional<int64_t> number = code != nullptr ? code->as_integer() : std::nullopt;
  absl::StatusCode status_code =
      number.has_value() && *number > 0 &&
              *number <= static_cast<int64_t>(absl::StatusCode::kUnauthenticated)
          ? static_cast<absl::StatusCode>(*number)
          : absl::StatusCode::kUnknown;
  return absl::Status(status_code, ToAbsl(text != nullptr && text->is_string()
                                              ? std::string_view(text->as_string())
                                              : std::string_view("the JS worker failed")));
}

// "died (signal 6, Aborted)" / "exited (status 1)".
std::string DescribeExit(const std::optional<exec::ChildExit>& exit) {
  if (!exit.has_value()) return "stopped answering";
  if (exit->term_signal != 0) {
    const char* name = ::strsignal(exit->term_signal);
    return StrCat("died (signal ", exit->term_signal, ", ", name != nullptr ? name : "?", ")");
  }
  return StrCat("exited (status ", exit->exit_status, ")");
}

// The line of the worker's stderr that says why it died (V8's fatal error, an uncaught C++
// exception), without decoration; empty when there is none.
std::string LastWords(std::string_view stderr_tail) {
  std::string found;
  for (absl::string_view line : absl::StrSplit(ToAbsl(stderr_tail), '\n')) {
    std::string_view text = ToStd(absl::StripAsciiWhitespace(line));
    while (!text.empty() && (text.front() == '#' || text.front() == ' ')) text.remove_prefix(1);
    if (text.empty()) continue;
    // A frame of Node's native backtrace ("4: 0x7f12… v8::internal::V8::FatalProcessOutOfMemory…")
    // follows the message it explains.
    size_t digits = text.find_first_not_of("0123456789");
    if (digits != 0 && digits != std::string_view::npos && text.substr(digits).starts_with(": 0x")) {
      continue;
    }
    std::string lower = absl::AsciiStrToLower(ToAbsl(text));
    if (absl::StrContains(lower, "fatal") || absl::StrContains(lower, "out of memory") ||
        absl::StrContains(lower, "bad_alloc") || absl::StrContains(lower, "terminate called") ||
        absl::StrContains(lower, "check failed") || absl::StrContains(lower, "allocation failed") ||
        absl::StrContains(lower, "invalid size") || absl::StrContains(lower, "oom")) {
      found = std::string(text);
    }
  }
  return found;
}

bool LooksLikeOutOfMemory(std::string_view last_words) {
  std::string lower = absl::AsciiStrToLower(ToAbsl(last_words));
  for (const char* sign : {"out of memory", "oom", "bad_alloc", "allocation failed", "invalid size",
                           "cannot allocate"}) {
    if (absl::StrContains(lower, sign)) return true;
  }
  return false;
}

std::string Mebibytes(size_t bytes) { return StrCat(bytes >> 20, " MiB"); }

class ProcessRuntime;

class ProcessModule final : public Module {
 public:
  ProcessModule(ProcessRuntime* runtime, std::string path, ModuleOptions options)
      : runtime_(runtime), path_(std::move(path)), options_(std::move(options)) {}

  absl::Status Start() {
    absl::MutexLock lock(&mu_);
    return EnsureWorker();
  }

  absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                   const CallLimits& limits) override {
    absl::MutexLock lock(&mu_);
    PLUGLINE_RETURN_IF_ERROR(EnsureWorker());
    int64_t id = next_id_++;
    JsonWriter w;
    w.BeginObject().Key("id").Int(id).Key("op").String("call").Key("function").String(function);
    w.Key("args_json").String(args_json.empty() ? std::string_view("[]") : args_json);
    WriteDuration(w, "timeout_ns", limits.timeout);
    w.EndObject();
    return Result(Exchange(w.Take(), id, limits.timeout, CallName(function)));
  }

  absl::StatusOr<std::string> CallArgs(std::string_view function, std::span<const Arg> args,
                                       const CallLimits& limits) override {
    absl::MutexLock lock(&mu_);
    PLUGLINE_RETURN_IF_ERROR(EnsureWorker());
    int64_t id = next_id_++;
    JsonWriter w;
    w.BeginObject().Key("id").Int(id).Key("op").String("call").Key("function").String(function);
    WriteArgs(w, args);
    WriteDuration(w, "timeout_ns", limits.timeout);
    w.EndObject();
    return Result(Exchange(w.Take(), id, limits.timeout, CallName(function)));
  }

  absl::StatusOr<std::string> Get(std::string_view property) override {
    absl::MutexLock lock(&mu_);
    PLUGLINE_RETURN_IF_ERROR(EnsureWorker());
    int64_t id = next_id_++;
    JsonWriter w;
    w.BeginObject().Key("id").Int(id).Key("op").String("get").Key("property").String(property);
    w.EndObject();
    return Result(Exchange(w.Take(), id, options_.load_timeout, StrCat("reading ", property)));
  }

  absl::StatusOr<std::string> DescribeDefault(std::string_view names_json) override {
    absl::MutexLock lock(&mu_);
    PLUGLINE_RETURN_IF_ERROR(EnsureWorker());
    int64_t id = next_id_++;
    JsonWriter w;
    w.BeginObject().Key("id").Int(id).Key("op").String("describe");
    w.Key("names_json").String(names_json).EndObject();
    return Result(Exchange(w.Take(), id, options_.load_timeout, "describing the default export"));
  }

  // The module graph cannot change after loading (no dynamic import), so the list the worker
  // sent with its load reply stays right until the next load; no round trip needed.
  std::vector<std::string> files() override {
    absl::MutexLock lock(&mu_);
    if (files_.empty()) return {path_};
    return files_;
  }

 private:
  static std::string CallName(std::string_view function) {
    return function.empty() ? std::string("call to the default export")
                            : StrCat("call to ", function, "()");
  }

  size_t MemoryLimit() const {
    if (options_.process_memory_limit_bytes != 0) return options_.process_memory_limit_bytes;
    return options_.heap_limit_bytes + options_.array_buffer_limit_bytes + kV8OverheadBytes;
  }

  absl::Status EnsureWorker() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Value> Exchange(const std::string& request, int64_t id, absl::Duration budget,
                                 std::string_view what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The Status for a worker that failed `what` (the Child reported `transport`); the worker is
  // gone afterwards.
  absl::Status WorkerFailed(const absl::Status& transport, std::string_view what,
                            absl::Duration budget) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status WorkerDied(std::string_view what, bool idle) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ForwardLog(const Value& log);
  // Runs a host call the module made and returns the worker's reply line.
  std::string HostReply(const Value& call);
  static absl::StatusOr<std::string> Result(absl::StatusOr<Value> reply);

  ProcessRuntime* const runtime_;
  const std::string path_;
  const ModuleOptions options_;
  absl::Mutex mu_;
  std::unique_ptr<exec::Child> worker_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<std::string> files_ ABSL_GUARDED_BY(mu_);
  // The worker reported a limit: its module is rebuilt (reloaded) on the next call, which
  // therefore gets load_timeout more before the kill timer fires.
  bool reload_pending_ ABSL_GUARDED_BY(mu_) = false;
};

class ProcessRuntime final : public Runtime {
 public:
  ProcessRuntime(std::string worker_path, WorkerKind kind)
      : worker_path_(std::move(worker_path)), kind_(kind) {}

  WorkerKind kind() const { return kind_; }
  // How messages name the worker: "JS worker" or "Node.js worker".
  std::string_view label() const { return kind_ == WorkerKind::kNode ? "Node.js worker" : "JS worker"; }
  // The worker's arguments before the limits.
  std::vector<std::string> Argv() const {
    if (kind_ == WorkerKind::kNode) return {worker_path_, "--plugline-worker"};
    return {worker_path_};
  }

  std::string engine() const override {
    {
      absl::MutexLock lock(&mu_);
      if (!engine_.empty()) return engine_;
    }
    // Nobody has started a worker yet: ask one.
    std::string engine = StrCat("unknown (the ", label(), " did not start)");
    exec::ChildSpec spec;
    spec.argv = Argv();
    if (absl::StatusOr<std::unique_ptr<exec::Child>> child = exec::Child::Start(spec); child.ok()) {
      absl::StatusOr<std::string> line = (*child)->ReadLine(absl::Now() + kWorkerStartBudget);
      absl::StatusOr<Value> hello =
          line.ok() ? core::ParseJson(*line, "the JS worker's hello") : line.status();
      const Value* body = hello.ok() ? hello->Find("hello") : nullptr;
      const Value* name = body != nullptr ? body->Find("engine") : nullptr;
      if (name != nullptr && name->is_string()) engine = name->as_string();
    }
    NoteEngine(engine);
    return engine;
  }

  absl::StatusOr<std::unique_ptr<Module>> Load(const std::string& path,
                                               const ModuleOptions& options) override {
    auto module = std::make_unique<ProcessModule>(this, path, options);
    PLUGLINE_RETURN_IF_ERROR(module->Start());
    return std::unique_ptr<Module>(std::move(module));
  }

  const std::string& worker_path() const { return worker_path_; }

  void NoteEngine(std::string_view engine) const {
    absl::MutexLock lock(&mu_);
    if (engine_.empty() || absl::StartsWith(engine_, "unknown")) engine_ = std::string(engine);
  }

 private:
  const std::string worker_path_;
  const WorkerKind kind_;
  mutable absl::Mutex mu_;
  mutable std::string engine_ ABSL_GUARDED_BY(mu_);
};

absl::Status ProcessModule::EnsureWorker() {
  if (worker_ != nullptr) return absl::OkStatus();
  exec::ChildSpec spec;
  spec.argv = runtime_->Argv();
  spec.argv.push_back(StrCat("--memory-limit-bytes=", MemoryLimit()));
  // Node.js sets its heap limit when it starts; plugline-js-worker per module, at load.
  if (runtime_->kind() == WorkerKind::kNode) {
    spec.argv.push_back(StrCat("--heap-limit-bytes=", options_.heap_limit_bytes));
  }
  spec.own_process_group = true;
  spec.stderr_mode = exec::ChildSpec::Stderr::kCapture;
  spec.max_line_bytes = kMaxMessageBytes;
  absl::StatusOr<std::unique_ptr<exec::Child>> child = exec::Child::Start(spec);
  if (!child.ok()) {
    return absl::UnavailableError(StrCat("cannot start the ", runtime_->label(), " ",
                                         runtime_->worker_path(), ": ",
                                         ToStd(child.status().message())));
  }
  worker_ = *std::move(child);

  // The worker applies its limits, loads V8 and says hello: {"hello":{"ok":true,...}}.
  absl::StatusOr<std::string> line = worker_->ReadLine(absl::Now() + kWorkerStartBudget);
  if (!line.ok()) {
    return WorkerFailed(line.status(), StrCat("starting the ", runtime_->label()),
                                       kWorkerStartBudget);
  }
  absl::StatusOr<Value> hello = core::ParseJson(*line, StrCat("the ", runtime_->label(), "'s hello"));
  const Value* body = hello.ok() ? hello->Find("hello") : nullptr;
  if (body == nullptr) {
    worker_.reset();
    return absl::InternalError(StrCat("the ", runtime_->label(), " ", runtime_->worker_path(),
                                      " did not say hello; it said: ", line->substr(0, 200)));
  }
  const Value* ok = body->Find("ok");
  if (ok == nullptr || !ok->is_bool() || !ok->as_bool()) {
    worker_.reset();
    return StatusFrom(*body);
  }
  if (const Value* engine = body->Find("engine"); engine != nullptr && engine->is_string()) {
    runtime_->NoteEngine(engine->as_string());
  }

  int64_t id = next_id_++;
  JsonWriter w;
  w.BeginObject().Key("id").Int(id).Key("op").String("load").Key("path").String(path_);
  w.Key("options").BeginObject();
  w.Key("root_dir").String(options_.root_dir);
  w.Key("heap_limit_bytes").Int(static_cast<int64_t>(options_.heap_limit_bytes));
  w.Key("array_buffer_limit_bytes").Int(static_cast<int64_t>(options_.array_buffer_limit_bytes));
  WriteDuration(w, "load_timeout_ns", options_.load_timeout);
  w.Key("code_cache_dir").String(options_.code_cache_dir);
  w.Key("log").Bool(static_cast<bool>(options_.log));
  w.Key("host_call").Bool(static_cast<bool>(options_.host_call));
  if (!options_.working_directory.empty()) {
    w.Key("working_directory").String(options_.working_directory);
  }
  if (!options_.wrapper_source.empty()) w.Key("wrapper_source").String(options_.wrapper_source);
  if (options_.resolve_import) {  // the worker makes its own resolver from the folders
    w.Key("node_modules_dirs").BeginArray();
    for (const std::string& dir : options_.node_modules_dirs) w.String(dir);
    w.EndArray();
  }
  if (!options_.builtin_modules.empty()) {
    w.Key("builtin_modules").BeginArray();
    for (const BuiltinModule& module : options_.builtin_modules) {
      w.BeginObject().Key("specifier").String(module.specifier);
      w.Key("source").String(module.source).EndObject();
    }
    w.EndArray();
  }
  w.EndObject().EndObject();
  reload_pending_ = false;
  absl::StatusOr<Value> reply = Exchange(w.Take(), id, options_.load_timeout, "loading the module");
  if (!reply.ok()) {
    worker_.reset();  // a worker without its module is of no use
    return reply.status();
  }
  std::vector<std::string> files;
  if (const Value* list = reply->Find("files"); list != nullptr && list->is_array()) {
    for (const Value& file : list->as_array()) {
      if (file.is_string()) files.push_back(file.as_string());
    }
  }
  files_ = std::move(files);
  return absl::OkStatus();
}

absl::StatusOr<Value> ProcessModule::Exchange(const std::string& request, int64_t id,
                                              absl::Duration budget, std::string_view what) {
  // A worker that died between calls (killed from outside) is noticed before anything is sent.
  if (worker_->Wait(absl::Now()).has_value()) return WorkerDied(what, /*idle=*/true);
  absl::Duration allowance = budget + kKillGrace;
  if (reload_pending_) allowance += options_.load_timeout;
  absl::Time deadline =
      budget == absl::InfiniteDuration() ? absl::InfiniteFuture() : absl::Now() + allowance;
  if (absl::Status written = worker_->WriteLine(request, deadline); !written.ok()) {
    return WorkerFailed(written, what, budget);
  }
  for (;;) {
    absl::StatusOr<std::string> line = worker_->ReadLine(deadline);
    if (!line.ok()) return WorkerFailed(line.status(), what, budget);
    absl::StatusOr<Value> message = core::ParseJson(*line, StrCat("the ", runtime_->label(), "'s message"));
    if (!message.ok()) {
      worker_.reset();
      return absl::InternalError(StrCat(ToStd(message.status().message()), " during ", what));
    }
    if (const Value* log = message->Find("log"); log != nullptr) {
      ForwardLog(*log);
      continue;
    }
    if (const Value* call = message->Find("host_call"); call != nullptr) {
      // The module calls the host (ModuleOptions::host_call); the worker waits for the reply.
      if (absl::Status written = worker_->WriteLine(HostReply(*call), deadline); !written.ok()) {
        return WorkerFailed(written, what, budget);
      }
      continue;
    }
    const Value* reply_id = message->Find("id");
    if (reply_id == nullptr || reply_id->as_integer() != id) {
      worker_.reset();
      return absl::InternalError(
          StrCat("the ", runtime_->label(), " answered another request than ", what, ": ", line->substr(0, 200)));
    }
    const Value* ok = message->Find("ok");
    if (ok != nullptr && ok->is_bool() && ok->as_bool()) {
      reload_pending_ = false;
      return message;
    }
    absl::Status status = StatusFrom(*message);
    // After a limit the worker's isolate is discarded and rebuilt on the next call.
    reload_pending_ = status.code() == absl::StatusCode::kDeadlineExceeded ||
                      status.code() == absl::StatusCode::kResourceExhausted;
    return status;
  }
}

absl::Status ProcessModule::WorkerFailed(const absl::Status& transport, std::string_view what,
                                         absl::Duration budget) {
  if (transport.code() == absl::StatusCode::kDeadlineExceeded) {
    // The kill timer: JavaScript is stuck where the worker's watchdog cannot reach it.
    worker_->Kill(SIGKILL);
    worker_->Wait(absl::Now() + kExitWait);
    worker_.reset();
    return absl::DeadlineExceededError(
        StrCat(what, " exceeded its time budget of ", absl::FormatDuration(budget)));
  }
  if (transport.code() == absl::StatusCode::kResourceExhausted) {  // an oversized message
    worker_.reset();
    return absl::ResourceExhaustedError(StrCat(what, " of ", path_, " produced more than ",
                                               Mebibytes(kMaxMessageBytes), " of JSON"));
  }
  return WorkerDied(what, /*idle=*/false);
}

absl::Status ProcessModule::WorkerDied(std::string_view what, bool idle) {
  std::optional<exec::ChildExit> exit = worker_->Wait(absl::Now() + kExitWait);
  if (!exit.has_value()) {
    worker_->Kill(SIGKILL);  // closed its output but lives on: of no further use
    exit = worker_->Wait(absl::Now() + kExitWait);
  }
  std::string last_words = LastWords(worker_->stderr_tail());
  worker_.reset();
  constexpr std::string_view kAfter = "; the next call starts a new worker";
  if (!idle && LooksLikeOutOfMemory(last_words) &&
      absl::StrContains(absl::AsciiStrToLower(ToAbsl(last_words)), "javascript heap")) {
    // Node.js stops at its own heap limit (--max-old-space-size) before RLIMIT_DATA.
    return absl::ResourceExhaustedError(StrCat(
        what, " exceeded the heap limit of ", Mebibytes(options_.heap_limit_bytes), ": the ",
        runtime_->label(), " process of ", path_, " ", DescribeExit(exit), ": ", last_words, kAfter));
  }
  if (!idle && LooksLikeOutOfMemory(last_words)) {
    return absl::ResourceExhaustedError(StrCat(
        what, " exceeded the worker's memory limit of ", Mebibytes(MemoryLimit()),
        ": the ", runtime_->label(), " process of ", path_, " ", DescribeExit(exit), ": ", last_words, kAfter));
  }
  std::string message =
      StrCat("the ", runtime_->label(), " process of ", path_, " (memory limit ", Mebibytes(MemoryLimit()), ") ",
             DescribeExit(exit), idle ? " between calls, before " : " during ", what);
  if (!last_words.empty()) StrAppend(&message, ": ", last_words);
  StrAppend(&message, kAfter);
  return absl::UnknownError(message);
}

std::string ProcessModule::HostReply(const Value& call) {
  const Value* request = call.Find("request");
  absl::StatusOr<std::string> answer =
      !options_.host_call ? absl::FailedPreconditionError("this plugin has no host callback")
      : request == nullptr || !request->is_string()
          ? absl::InvalidArgumentError("a host call without a request")
          : options_.host_call(request->as_string());
  JsonWriter w;
  w.BeginObject().Key("host_reply").BeginObject();
  if (answer.ok()) {
    w.Key("ok").Bool(true).Key("answer").String(*answer);
  } else {
    w.Key("ok").Bool(false).Key("code").Int(static_cast<int>(answer.status().code()));
    w.Key("message").String(ToStd(answer.status().message()));
  }
  w.EndObject().EndObject();
  return w.Take();
}

void ProcessModule::ForwardLog(const Value& log) {
  if (!options_.log) return;
  const Value* level = log.Find("level");
  const Value* message = log.Find("message");
  options_.log(
      level != nullptr && level->is_string() ? std::string_view(level->as_string()) : "log",
      message != nullptr && message->is_string() ? std::string_view(message->as_string()) : "");
}

absl::StatusOr<std::string> ProcessModule::Result(absl::StatusOr<Value> reply) {
  if (!reply.ok()) return reply.status();
  const Value* result = reply->Find("result");
  if (result == nullptr || !result->is_string()) {
    return absl::InternalError("the JS worker's reply has no result");
  }
  return result->as_string();
}

}  // namespace

std::unique_ptr<Runtime> NewProcessRuntime(std::string worker_path, WorkerKind kind) {
  return std::make_unique<ProcessRuntime>(std::move(worker_path), kind);
}

}  // namespace plugline::js

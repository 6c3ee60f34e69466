// The V8 implementation of src/js/runtime.h, built as the module libplugline-v8.so.
//
// Rules this file keeps (see README.md here):
//  - One isolate per module: a plugin that loops, leaks or is terminated touches nothing else.
//  - Every entry into JS goes through one RAII scope (Entered) that takes the isolate's lock.
//  - Every call runs under a deadline enforced by one watchdog thread calling
//    TerminateExecution; after every call CancelTerminateExecution clears a termination that
//    landed just as the call returned, so it cannot kill the next call.
//  - A near-heap-limit callback terminates and grants 64 MiB of headroom so the stack can
//    unwind; an isolate that hit a limit is discarded and rebuilt on the next call.
//  - No v8::Local is stored in a member; only v8::Global.
//  - Built with -fno-rtti -fno-exceptions, like libnode itself.
#include <libplatform/libplatform.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <v8.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "js/runtime.h"

namespace plugline::js::v8backend {
namespace {

constexpr size_t kHeapHeadroom = 64u << 20;
constexpr int kMaxStackLines = 8;

// ---- process-wide V8 ----------------------------------------------------------------------

std::unique_ptr<v8::Platform>* g_platform = nullptr;

void InitializeV8Once() {
  static absl::once_flag once;
  absl::call_once(once, [] {
    g_platform = new std::unique_ptr<v8::Platform>(v8::platform::NewDefaultPlatform(2));
    v8::V8::InitializePlatform(g_platform->get());
    v8::V8::Initialize();
  });
}

// ---- ArrayBuffer memory with a cap --------------------------------------------------------

class CappedAllocator final : public v8::ArrayBuffer::Allocator {
 public:
  explicit CappedAllocator(size_t cap) : cap_(cap) {}

  void* Allocate(size_t length) override {
    if (!Reserve(length)) return nullptr;
    void* data = calloc(length == 0 ? 1 : length, 1);
    if (data == nullptr) Release(length);
    return data;
  }
  void* AllocateUninitialized(size_t length) override {
    if (!Reserve(length)) return nullptr;
    void* data = malloc(length == 0 ? 1 : length);
    if (data == nullptr) Release(length);
    return data;
  }
  void Free(void* data, size_t length) override {
    free(data);
    Release(length);
  }
  bool exceeded() const { return exceeded_.load(); }

 private:
  bool Reserve(size_t length) {
    size_t used = used_.load();
    do {
      if (length > cap_ || used > cap_ - length) {
        exceeded_.store(true);
        return false;
      }
    } while (!used_.compare_exchange_weak(used, used + length));
    return true;
  }
  void Release(size_t length) { used_.fetch_sub(length); }

  const size_t cap_;
  std::atomic<size_t> used_{0};
  std::atomic<bool> exceeded_{false};
};

// ---- the watchdog -------------------------------------------------------------------------

// One thread for the whole process. Arm() only wakes it when the new deadline is earlier than
// the one it sleeps towards, so a stream of short calls costs a mutex each, not a wake-up.
class Watchdog {
 public:
  Watchdog() {
    pthread_t thread;
    pthread_create(
        &thread, nullptr,
        [](void* self) -> void* {
          static_cast<Watchdog*>(self)->Run();
          return nullptr;
        },
        this);
    pthread_detach(thread);
  }

  uint64_t Arm(v8::Isolate* isolate, absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    uint64_t id = ++next_id_;
    entries_[id] = Entry{isolate, deadline, false};
    if (deadline < wake_at_) cv_.Signal();
    return id;
  }

  // Returns true when the deadline had passed and the isolate was terminated.
  bool Disarm(uint64_t id) {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(id);
    bool fired = it != entries_.end() && it->second.fired;
    if (it != entries_.end()) entries_.erase(it);
    return fired;
  }

 private:
  struct Entry {
    v8::Isolate* isolate;
    absl::Time deadline;
    bool fired;
  };

  void Run() {
    absl::MutexLock lock(&mu_);
    for (;;) {
      absl::Time now = absl::Now();
      absl::Time next = absl::InfiniteFuture();
      for (auto& [id, entry] : entries_) {
        if (entry.fired) continue;
        if (entry.deadline <= now) {
          entry.isolate->TerminateExecution();  // thread-safe by V8's contract
          entry.fired = true;
        } else if (entry.deadline < next) {
          next = entry.deadline;
        }
      }
      wake_at_ = next;
      cv_.WaitWithDeadline(&mu_, next);
    }
  }

  absl::Mutex mu_;
  absl::CondVar cv_;
  absl::flat_hash_map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time wake_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
};

Watchdog& GetWatchdog() {
  static Watchdog* watchdog = new Watchdog();
  return *watchdog;
}

// ---- helpers ------------------------------------------------------------------------------

std::string ToStdString(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 == nullptr ? std::string("<unprintable>") : std::string(*utf8, utf8.length());
}

v8::Local<v8::String> V8String(v8::Isolate* isolate, std::string_view s) {
  return v8::String::NewFromUtf8(isolate, s.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(s.size()))
      .ToLocalChecked();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) {
    std::string what = StrCat("cannot read ", path, ": ", strerror(errno));
    return errno == ENOENT ? absl::NotFoundError(what) : absl::PermissionDeniedError(what);
  }
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  bool failed = ferror(f);
  fclose(f);
  if (failed) return absl::InternalError(StrCat("cannot read ", path));
  return data;
}

std::string RealPath(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// "file:line:col: Uncaught TypeError: x is not a function" plus the first stack frames.
std::string DescribeException(v8::Isolate* isolate, v8::Local<v8::Context> context,
                              v8::Local<v8::Value> exception, v8::Local<v8::Message> message) {
  std::string where;
  if (!message.IsEmpty()) {
    std::string file = ToStdString(isolate, message->GetScriptResourceName());
    int line = message->GetLineNumber(context).FromMaybe(0);
    int column = message->GetStartColumn(context).FromMaybe(-1) + 1;
    where = StrCat(file, ":", line, ":", column, ": ");
  }
  std::string text = ToStdString(isolate, exception);
  if (exception->IsObject()) {
    v8::Local<v8::Value> stack;
    if (exception.As<v8::Object>()->Get(context, V8String(isolate, "stack")).ToLocal(&stack) &&
        stack->IsString()) {
      // The stack's first line repeats the message; keep the frames, a few of them.
      std::string frames = ToStdString(isolate, stack);
      size_t nl = frames.find('\n');
      if (nl != std::string::npos) {
        std::string kept;
        int count = 0;
        size_t pos = nl + 1;
        while (pos < frames.size() && count < kMaxStackLines) {
          size_t end = frames.find('\n', pos);
          if (end == std::string::npos) end = frames.size();
          StrAppend(&kept, "\n", frames.substr(pos, end - pos));
          pos = end + 1;
          ++count;
        }
        text += kept;
      }
    }
  }
  return StrCat(where, text);
}

class V8Runtime;

// ---- one isolate with one module graph ----------------------------------------------------

class Instance {
 public:
  static absl::StatusOr<std::unique_ptr<Instance>> Create(const std::string& path,
                                                          const ModuleOptions& options);
  ~Instance();

  absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                   absl::Duration timeout);
  absl::StatusOr<std::string> Get(std::string_view property);
  absl::StatusOr<std::string> DescribeDefault(std::string_view names_json);

  // True once a limit was hit: the isolate must not run again.
  bool poisoned() const { return poisoned_; }

 private:
  Instance(std::string path, const ModuleOptions& options);

  // Everything needed to run JS in this instance, for the duration of one entry.
  class Entered {
   public:
    explicit Entered(Instance* instance)
        : locker_(instance->isolate_),
          isolate_scope_(instance->isolate_),
          handles_(instance->isolate_),
          context_(instance->context_.Get(instance->isolate_)),
          context_scope_(context_) {}
    v8::Local<v8::Context> context() const { return context_; }

   private:
    v8::Locker locker_;
    v8::Isolate::Scope isolate_scope_;
    v8::HandleScope handles_;
    v8::Local<v8::Context> context_;
    v8::Context::Scope context_scope_;
  };

  absl::Status Load();
  absl::StatusOr<v8::Local<v8::Module>> CompileFile(const std::string& path);
  static v8::MaybeLocal<v8::Module> ResolveModule(v8::Local<v8::Context> context,
                                                  v8::Local<v8::String> specifier,
                                                  v8::Local<v8::FixedArray> assertions,
                                                  v8::Local<v8::Module> referrer);
  static void InitializeImportMeta(v8::Local<v8::Context> context, v8::Local<v8::Module> module,
                                   v8::Local<v8::Object> meta);
  static size_t NearHeapLimit(void* data, size_t current, size_t initial);
  static void ConsoleCallback(const v8::FunctionCallbackInfo<v8::Value>& info);
  void InstallGlobals(v8::Local<v8::Context> context);

  // Runs `body` under the deadline; turns termination, limits and exceptions into a Status.
  // `what` names the operation in messages ("call to shape()").
  template <typename Body>
  absl::StatusOr<v8::Local<v8::Value>> Guarded(v8::Local<v8::Context> context,
                                               std::string_view what, absl::Duration timeout,
                                               Body body);
  // Settles a promise by running microtasks.
  absl::StatusOr<v8::Local<v8::Value>> Settle(v8::Local<v8::Context> context,
                                              v8::Local<v8::Value> value, std::string_view what);
  absl::StatusOr<v8::Local<v8::Value>> DefaultExport(v8::Local<v8::Context> context);

  const std::string path_;
  const ModuleOptions options_;
  std::string root_;  // canonical root directory for imports
  std::unique_ptr<CappedAllocator> allocator_;
  v8::Isolate* isolate_ = nullptr;
  v8::Global<v8::Context> context_;
  v8::Global<v8::Module> module_;
  // Every module of the graph, for resolving a referrer's relative imports.
  struct LoadedModule {
    std::string path;
    v8::Global<v8::Module> module;
  };
  std::vector<LoadedModule> modules_;
  std::atomic<bool> heap_limit_hit_{false};
  bool poisoned_ = false;
};

Instance::Instance(std::string path, const ModuleOptions& options)
    : path_(std::move(path)), options_(options) {}

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(const std::string& path,
                                                           const ModuleOptions& options) {
  InitializeV8Once();
  std::unique_ptr<Instance> instance(new Instance(path, options));
  v8::Isolate::CreateParams params;
  instance->allocator_ = std::make_unique<CappedAllocator>(options.array_buffer_limit_bytes);
  params.array_buffer_allocator = instance->allocator_.get();
  params.constraints.ConfigureDefaultsFromHeapSize(0, options.heap_limit_bytes);
  instance->isolate_ = v8::Isolate::New(params);
  instance->isolate_->SetData(0, instance.get());
  instance->isolate_->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  instance->isolate_->AddNearHeapLimitCallback(&Instance::NearHeapLimit, instance.get());
  instance->isolate_->SetHostInitializeImportMetaObjectCallback(&Instance::InitializeImportMeta);
  {
    v8::Locker locker(instance->isolate_);
    v8::Isolate::Scope isolate_scope(instance->isolate_);
    v8::HandleScope handles(instance->isolate_);
    v8::Local<v8::Context> context = v8::Context::New(instance->isolate_);
    instance->context_.Reset(instance->isolate_, context);
    v8::Context::Scope context_scope(context);
    instance->InstallGlobals(context);
  }
  absl::Status status = instance->Load();
  if (!status.ok()) return status;
  return instance;
}

Instance::~Instance() {
  if (isolate_ == nullptr) return;
  {
    v8::Locker locker(isolate_);
    v8::Isolate::Scope isolate_scope(isolate_);
    modules_.clear();
    module_.Reset();
    context_.Reset();
  }
  isolate_->Dispose();
}

size_t Instance::NearHeapLimit(void* data, size_t current, size_t /*initial*/) {
  auto* self = static_cast<Instance*>(data);
  self->heap_limit_hit_.store(true);
  self->isolate_->TerminateExecution();
  return current + kHeapHeadroom;  // room for the stack to unwind; the isolate is discarded
}

void Instance::ConsoleCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  auto* self = static_cast<Instance*>(isolate->GetData(0));
  if (!self->options_.log) return;
  std::string level = ToStdString(isolate, info.Data());
  std::string message;
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  for (int i = 0; i < info.Length(); ++i) {
    if (i > 0) message += ' ';
    v8::Local<v8::Value> arg = info[i];
    if (arg->IsObject() && !arg->IsFunction() && !arg->IsNativeError()) {
      v8::Local<v8::String> json;
      v8::TryCatch try_catch(isolate);
      if (v8::JSON::Stringify(context, arg).ToLocal(&json)) {
        message += ToStdString(isolate, json);
        continue;
      }
    }
    message += ToStdString(isolate, arg);
  }
  self->options_.log(level, message);
}

void Instance::InstallGlobals(v8::Local<v8::Context> context) {
  v8::Local<v8::Object> console = v8::Object::New(isolate_);
  for (const char* level : {"log", "info", "warn", "error", "debug"}) {
    v8::Local<v8::Function> fn =
        v8::Function::New(context, &Instance::ConsoleCallback, V8String(isolate_, level))
            .ToLocalChecked();
    console->Set(context, V8String(isolate_, level), fn).Check();
  }
  context->Global()->Set(context, V8String(isolate_, "console"), console).Check();
}

void Instance::InitializeImportMeta(v8::Local<v8::Context> context, v8::Local<v8::Module> module,
                                    v8::Local<v8::Object> meta) {
  v8::Isolate* isolate = context->GetIsolate();
  auto* self = static_cast<Instance*>(isolate->GetData(0));
  for (const LoadedModule& loaded : self->modules_) {
    if (loaded.module.Get(isolate) == module) {
      meta->CreateDataProperty(context, V8String(isolate, "url"),
                               V8String(isolate, StrCat("file://", loaded.path)))
          .Check();
      return;
    }
  }
}

absl::StatusOr<v8::Local<v8::Module>> Instance::CompileFile(const std::string& path) {
  absl::StatusOr<std::string> code = ReadWholeFile(path);
  if (!code.ok()) return code.status();
  v8::Local<v8::String> source_text;
  if (!v8::String::NewFromUtf8(isolate_, code->data(), v8::NewStringType::kNormal,
                               static_cast<int>(code->size()))
           .ToLocal(&source_text)) {
    return absl::ResourceExhaustedError(StrCat(path, ": file too large"));
  }
  v8::ScriptOrigin origin(isolate_, V8String(isolate_, path), 0, 0, false, -1,
                          v8::Local<v8::Value>(), false, false, /*is_module=*/true);
  v8::ScriptCompiler::Source source(source_text, origin);
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Module> module;
  if (!v8::ScriptCompiler::CompileModule(isolate_, &source).ToLocal(&module)) {
    return absl::UnknownError(DescribeException(isolate_, isolate_->GetCurrentContext(),
                                                try_catch.Exception(), try_catch.Message()));
  }
  modules_.push_back(LoadedModule{path, v8::Global<v8::Module>(isolate_, module)});
  return module;
}

v8::MaybeLocal<v8::Module> Instance::ResolveModule(v8::Local<v8::Context> context,
                                                   v8::Local<v8::String> specifier,
                                                   v8::Local<v8::FixedArray> /*assertions*/,
                                                   v8::Local<v8::Module> referrer) {
  v8::Isolate* isolate = context->GetIsolate();
  auto* self = static_cast<Instance*>(isolate->GetData(0));
  std::string spec = ToStdString(isolate, specifier);
  std::string referrer_path = self->path_;
  for (const LoadedModule& loaded : self->modules_) {
    if (loaded.module.Get(isolate) == referrer) referrer_path = loaded.path;
  }
  auto fail = [&](std::string message) -> v8::MaybeLocal<v8::Module> {
    isolate->ThrowException(v8::Exception::Error(V8String(
        isolate, StrCat("cannot import '", spec, "' from ", referrer_path, ": ", message))));
    return {};
  };
  if (!absl::StartsWith(spec, "./") && !absl::StartsWith(spec, "../") &&
      !absl::StartsWith(spec, "/") && !absl::StartsWith(spec, "file://")) {
    return fail("only relative imports of files inside the plugin's folder are supported");
  }
  if (absl::StartsWith(spec, "file://")) spec = spec.substr(7);
  std::string candidate = spec[0] == '/' ? spec : StrCat(DirOf(referrer_path), "/", spec);
  std::string resolved;
  for (const char* suffix : {"", ".js", ".mjs", "/index.js"}) {
    resolved = RealPath(candidate + suffix);
    if (!resolved.empty()) {
      struct stat st;
      if (stat(resolved.c_str(), &st) == 0 && S_ISREG(st.st_mode)) break;
      resolved.clear();
    }
  }
  if (resolved.empty()) return fail("no such file");
  if (!absl::StartsWith(resolved, self->root_ + "/")) {
    return fail(StrCat("it resolves outside the plugin's folder ", self->root_));
  }
  for (const LoadedModule& loaded : self->modules_) {
    if (loaded.path == resolved) return loaded.module.Get(isolate);
  }
  absl::StatusOr<v8::Local<v8::Module>> module = self->CompileFile(resolved);
  if (!module.ok()) return fail(std::string(module.status().message()));
  return *module;
}

template <typename Body>
absl::StatusOr<v8::Local<v8::Value>> Instance::Guarded(v8::Local<v8::Context> context,
                                                       std::string_view what,
                                                       absl::Duration timeout, Body body) {
  v8::EscapableHandleScope scope(isolate_);
  v8::TryCatch try_catch(isolate_);
  Watchdog& watchdog = GetWatchdog();
  uint64_t alarm = watchdog.Arm(isolate_, absl::Now() + timeout);
  v8::MaybeLocal<v8::Value> maybe = body();
  v8::Local<v8::Value> value;
  bool ok = maybe.ToLocal(&value);
  absl::Status status;
  if (ok) {
    absl::StatusOr<v8::Local<v8::Value>> settled = Settle(context, value, what);
    if (settled.ok()) {
      value = *settled;
    } else {
      status = settled.status();
      ok = false;
    }
  }
  bool fired = watchdog.Disarm(alarm);
  // A termination that landed as the call returned must not kill the next call.
  isolate_->CancelTerminateExecution();
  if (heap_limit_hit_.load()) {
    poisoned_ = true;
    return absl::ResourceExhaustedError(
        StrCat(what, " exceeded the heap limit of ", options_.heap_limit_bytes >> 20,
                     " MiB"));
  }
  if (fired || try_catch.HasTerminated()) {
    poisoned_ = true;
    return absl::DeadlineExceededError(
        StrCat(what, " exceeded its time budget of ", absl::FormatDuration(timeout)));
  }
  if (allocator_->exceeded() && !ok) {
    return absl::ResourceExhaustedError(StrCat(
        what, " exceeded the ArrayBuffer limit of ", options_.array_buffer_limit_bytes >> 20,
        " MiB"));
  }
  if (!status.ok()) return status;
  if (!ok) {
    if (try_catch.HasCaught()) {
      return absl::UnknownError(
          DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message()));
    }
    return absl::UnknownError(StrCat(what, " failed"));
  }
  return scope.Escape(value);
}

absl::StatusOr<v8::Local<v8::Value>> Instance::Settle(v8::Local<v8::Context> context,
                                                      v8::Local<v8::Value> value,
                                                      std::string_view what) {
  isolate_->PerformMicrotaskCheckpoint();
  if (!value->IsPromise()) return value;
  v8::Local<v8::Promise> promise = value.As<v8::Promise>();
  // No timers or I/O can settle a promise here, so one checkpoint decides it.
  switch (promise->State()) {
    case v8::Promise::kFulfilled: return promise->Result();
    case v8::Promise::kRejected: {
      v8::Local<v8::Value> reason = promise->Result();
      v8::Local<v8::Message> message = v8::Exception::CreateMessage(isolate_, reason);
      return absl::UnknownError(StrCat(
          what, " rejected: ", DescribeException(isolate_, context, reason, message)));
    }
    case v8::Promise::kPending: break;
  }
  if (isolate_->IsExecutionTerminating()) return value;  // reported by the caller
  return absl::DeadlineExceededError(
      StrCat(what, " returned a promise that never settled"));
}

absl::Status Instance::Load() {
  v8::Locker locker(isolate_);
  v8::Isolate::Scope isolate_scope(isolate_);
  v8::HandleScope handles(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  v8::Context::Scope context_scope(context);

  std::string canonical = RealPath(path_);
  if (canonical.empty()) {
    return absl::NotFoundError(StrCat("cannot load ", path_, ": ", strerror(errno)));
  }
  root_ = RealPath(options_.root_dir.empty() ? DirOf(canonical) : options_.root_dir);
  if (root_.empty()) {
    return absl::NotFoundError(StrCat("plugin root ", options_.root_dir, " does not exist"));
  }
  v8::Local<v8::Module> module;
  {
    absl::StatusOr<v8::Local<v8::Module>> compiled = CompileFile(canonical);
    if (!compiled.ok()) return compiled.status();
    module = *compiled;
  }
  module_.Reset(isolate_, module);
  absl::StatusOr<v8::Local<v8::Value>> evaluated =
      Guarded(context, "loading the module", options_.load_timeout,
              [&]() -> v8::MaybeLocal<v8::Value> {
                if (module->InstantiateModule(context, &Instance::ResolveModule).IsNothing()) {
                  return {};
                }
                return module->Evaluate(context);
              });
  if (!evaluated.ok()) {
    // Compile errors of imported files carry their own location; keep the message as is.
    return evaluated.status();
  }
  if (module->GetStatus() == v8::Module::kErrored) {
    v8::Local<v8::Value> exception = module->GetException();
    return absl::UnknownError(DescribeException(
        isolate_, context, exception, v8::Exception::CreateMessage(isolate_, exception)));
  }
  return absl::OkStatus();
}

absl::StatusOr<v8::Local<v8::Value>> Instance::DefaultExport(v8::Local<v8::Context> context) {
  v8::Local<v8::Module> module = module_.Get(isolate_);
  v8::Local<v8::Object> ns = module->GetModuleNamespace().As<v8::Object>();
  v8::Local<v8::Value> value;
  if (!ns->Get(context, V8String(isolate_, "default")).ToLocal(&value)) {
    return absl::UnknownError(StrCat(path_, ": cannot read the default export"));
  }
  return value;
}

absl::StatusOr<std::string> Instance::Call(std::string_view function, std::string_view args_json,
                                           absl::Duration timeout) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  absl::StatusOr<v8::Local<v8::Value>> target = DefaultExport(context);
  if (!target.ok()) return target.status();
  v8::Local<v8::Value> receiver = *target;
  v8::Local<v8::Value> callee = *target;
  std::string what = function.empty() ? std::string("call to the default export")
                                      : StrCat("call to ", function, "()");
  if (!function.empty()) {
    if (!receiver->IsObject()) {
      return absl::NotFoundError(
          StrCat(path_, ": the default export is not an object with ", function, "()"));
    }
    v8::TryCatch try_catch(isolate_);
    if (!receiver.As<v8::Object>()->Get(context, V8String(isolate_, function)).ToLocal(&callee)) {
      return absl::UnknownError(
          DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message()));
    }
  }
  if (!callee->IsFunction()) {
    return absl::NotFoundError(StrCat(
        path_, ": ", function.empty() ? std::string("the default export") : std::string(function),
        " is not a function"));
  }
  std::vector<v8::Local<v8::Value>> args;
  {
    v8::TryCatch try_catch(isolate_);
    v8::Local<v8::Value> parsed;
    if (!v8::JSON::Parse(context, V8String(isolate_, args_json.empty() ? "[]" : args_json))
             .ToLocal(&parsed) ||
        !parsed->IsArray()) {
      return absl::InvalidArgumentError("arguments must be a JSON array");
    }
    v8::Local<v8::Array> array = parsed.As<v8::Array>();
    for (uint32_t i = 0; i < array->Length(); ++i) {
      args.push_back(array->Get(context, i).ToLocalChecked());
    }
  }
  absl::StatusOr<v8::Local<v8::Value>> result =
      Guarded(context, what, timeout, [&]() -> v8::MaybeLocal<v8::Value> {
        return callee.As<v8::Function>()->Call(context, receiver, static_cast<int>(args.size()),
                                               args.data());
      });
  if (!result.ok()) return result.status();
  if ((*result)->IsUndefined()) return std::string("null");
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::String> json;
  if (!v8::JSON::Stringify(context, *result).ToLocal(&json)) {
    return absl::UnknownError(StrCat(
        what, " returned a value that is not JSON-serializable: ",
        try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
  }
  std::string text = ToStdString(isolate_, json);
  if (text == "undefined") return std::string("null");  // functions, symbols
  return text;
}

absl::StatusOr<std::string> Instance::Get(std::string_view property) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  absl::StatusOr<v8::Local<v8::Value>> target = DefaultExport(context);
  if (!target.ok()) return target.status();
  if (!(*target)->IsObject()) return std::string("null");
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Value> value;
  v8::Local<v8::String> json;
  if (!(*target).As<v8::Object>()->Get(context, V8String(isolate_, property)).ToLocal(&value) ||
      (!value->IsUndefined() && !v8::JSON::Stringify(context, value).ToLocal(&json))) {
    return absl::UnknownError(StrCat(
        path_, ": cannot read ", property, " of the default export: ",
        try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
  }
  if (value->IsUndefined()) return std::string("null");
  std::string text = ToStdString(isolate_, json);
  return text == "undefined" ? std::string("null") : text;
}

absl::StatusOr<std::string> Instance::DescribeDefault(std::string_view names_json) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  absl::StatusOr<v8::Local<v8::Value>> target = DefaultExport(context);
  if (!target.ok()) return target.status();
  v8::Local<v8::Value> value = *target;
  std::string type = ToStdString(isolate_, value->TypeOf(isolate_));
  if (value->IsNull()) type = "null";
  std::string out = StrCat("{\"type\":\"", type, "\",\"functions\":[");
  if (value->IsObject()) {
    v8::TryCatch try_catch(isolate_);
    v8::Local<v8::Value> names;
    if (v8::JSON::Parse(context, V8String(isolate_, names_json)).ToLocal(&names) &&
        names->IsArray()) {
      v8::Local<v8::Array> array = names.As<v8::Array>();
      bool first = true;
      for (uint32_t i = 0; i < array->Length(); ++i) {
        v8::Local<v8::Value> name = array->Get(context, i).ToLocalChecked();
        v8::Local<v8::Value> member;
        if (name->IsString() && value.As<v8::Object>()->Get(context, name).ToLocal(&member) &&
            member->IsFunction()) {
          v8::Local<v8::String> quoted;
          if (v8::JSON::Stringify(context, name).ToLocal(&quoted)) {
            StrAppend(&out, first ? "" : ",", ToStdString(isolate_, quoted));
            first = false;
          }
        }
      }
    }
  }
  out += "]}";
  return out;
}

// ---- the Module and Runtime the interface sees ---------------------------------------------

class V8Module final : public Module {
 public:
  V8Module(std::string path, ModuleOptions options, std::unique_ptr<Instance> instance)
      : path_(std::move(path)), options_(std::move(options)), instance_(std::move(instance)) {}

  absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                   const CallLimits& limits) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    absl::StatusOr<std::string> result = instance_->Call(function, args_json, limits.timeout);
    Recycle();
    return result;
  }

  absl::StatusOr<std::string> Get(std::string_view property) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    return instance_->Get(property);
  }

  absl::StatusOr<std::string> DescribeDefault(std::string_view names_json) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    return instance_->DescribeDefault(names_json);
  }

 private:
  absl::Status EnsureInstance() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (instance_ != nullptr) return absl::OkStatus();
    absl::StatusOr<std::unique_ptr<Instance>> fresh = Instance::Create(path_, options_);
    if (!fresh.ok()) return fresh.status();
    instance_ = *std::move(fresh);
    return absl::OkStatus();
  }
  // An isolate that hit a limit is discarded; the next call builds a new one.
  void Recycle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (instance_ != nullptr && instance_->poisoned()) instance_.reset();
  }

  const std::string path_;
  const ModuleOptions options_;
  absl::Mutex mu_;
  std::unique_ptr<Instance> instance_ ABSL_GUARDED_BY(mu_);
};

class V8Runtime final : public Runtime {
 public:
  std::string engine() const override { return StrCat("V8 ", v8::V8::GetVersion()); }

  absl::StatusOr<std::unique_ptr<Module>> Load(const std::string& path,
                                               const ModuleOptions& options) override {
    absl::StatusOr<std::unique_ptr<Instance>> instance = Instance::Create(path, options);
    if (!instance.ok()) return instance.status();
    return std::unique_ptr<Module>(new V8Module(path, options, *std::move(instance)));
  }
};

}  // namespace
}  // namespace plugline::js::v8backend

extern "C" __attribute__((visibility("default"))) plugline::js::Runtime*
plugline_js_backend_create(int interface_version, const char** error) {
  if (interface_version != plugline::js::kBackendInterfaceVersion) {
    if (error) *error = "the V8 backend was built for another plugline version";
    return nullptr;
  }
  static plugline::js::Runtime* runtime = new plugline::js::v8backend::V8Runtime();
  return runtime;
}

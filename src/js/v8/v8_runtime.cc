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
//  - Built with -fno-rtti -fno-exceptions, like libnode itself: no C++ exception may pass
//    through a V8 callback (nothing here throws).
#include <libplatform/libplatform.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <v8.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/strings.h"
#include "js/runtime.h"
#include "js/v8/code_cache.h"
#include "js/v8/event_loop.h"
#include "js/v8/text_coding.h"
#include "js/v8/typescript.h"
#include "js/v8/v8_util.h"

namespace plugline::js::v8backend {
namespace {

constexpr size_t kHeapHeadroom = 64u << 20;
// What a wrapper entry (ModuleOptions::wrapper_source) imports to get the plugin file.
constexpr std::string_view kWrappedPluginSpecifier = "plugline:plugin";

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

// Deadlines are monotonic nanoseconds; two values are reserved.
constexpr int64_t kDisarmed = INT64_MAX;
constexpr int64_t kFired = INT64_MIN;

// One per isolate, registered with the watchdog for the isolate's lifetime.
struct Alarm {
  v8::Isolate* isolate = nullptr;
  std::atomic<int64_t> deadline_ns{kDisarmed};
  bool fired() const { return deadline_ns.load(std::memory_order_relaxed) == kFired; }
};

// One thread for the whole process. Arming and disarming are lock-free: Arm() stores the
// deadline in the isolate's Alarm and takes the mutex only to wake the thread when the new
// deadline is earlier than the one it sleeps towards; Disarm() exchanges the deadline back.
//
// The thread claims an expired alarm with a compare-exchange (deadline → kFired) and calls
// TerminateExecution while holding the mutex; a Disarm() that finds kFired takes the mutex
// once, so when it returns the termination has landed and CancelTerminateExecution after it
// is final. A Disarm() that wins the exchange means the thread never terminates that call.
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

  void Register(Alarm* alarm) {
    absl::MutexLock lock(&mu_);
    alarms_.push_back(alarm);
  }
  // After this returns the thread no longer touches `alarm` or its isolate.
  void Unregister(Alarm* alarm) {
    absl::MutexLock lock(&mu_);
    std::erase(alarms_, alarm);
  }

  void Arm(Alarm* alarm, int64_t deadline_ns) {
    alarm->deadline_ns.store(deadline_ns);
    // Sequentially consistent with the thread's store of wake_at_ before and after its scan:
    // either the scan sees this deadline, or this load sees the wake-up time computed without
    // it (or kDisarmed while scanning) and signals.
    if (deadline_ns < wake_at_ns_.load()) {
      absl::MutexLock lock(&mu_);
      cv_.Signal();
    }
  }

  // Returns true when the deadline had passed and the isolate was terminated.
  bool Disarm(Alarm* alarm) {
    if (alarm->deadline_ns.exchange(kDisarmed) != kFired) return false;
    absl::MutexLock lock(&mu_);  // the thread terminates under mu_: wait until it is done
    return true;
  }

 private:
  void Run() {
    absl::MutexLock lock(&mu_);
    for (;;) {
      wake_at_ns_.store(kDisarmed);  // scanning: every Arm() signals
      int64_t now = MonotonicNowNs();
      int64_t next = kDisarmed;
      for (Alarm* alarm : alarms_) {
        int64_t deadline = alarm->deadline_ns.load();
        if (deadline == kDisarmed || deadline == kFired) continue;
        if (deadline <= now) {
          if (alarm->deadline_ns.compare_exchange_strong(deadline, kFired)) {
            alarm->isolate->TerminateExecution();  // thread-safe by V8's contract
          }
        } else if (deadline < next) {
          next = deadline;
        }
      }
      wake_at_ns_.store(next);
      if (next == kDisarmed) {
        cv_.Wait(&mu_);
      } else {
        cv_.WaitWithTimeout(&mu_, absl::Nanoseconds(next - now));
      }
    }
  }

  absl::Mutex mu_;
  absl::CondVar cv_;
  std::vector<Alarm*> alarms_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> wake_at_ns_{kDisarmed};
};

Watchdog& GetWatchdog() {
  static Watchdog* watchdog = new Watchdog();
  return *watchdog;
}

int64_t DeadlineAfter(absl::Duration timeout) {
  int64_t now = MonotonicNowNs();
  if (timeout == absl::InfiniteDuration()) return kDisarmed - 1;
  int64_t ns = absl::ToInt64Nanoseconds(timeout);  // saturates
  return ns > kDisarmed - 1 - now ? kDisarmed - 1 : now + ns;
}

// ---- files --------------------------------------------------------------------------------

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

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// ---- large string arguments ---------------------------------------------------------------

// A string argument of this size or more that is pure ASCII becomes an external one-byte
// string over a copy in a reusable buffer. V8 would otherwise put it on a large-object page
// of its own, mapped afresh for every call, and on these VMs the page faults of fresh memory
// cost 5-15 ms per MiB against ≈ 0.2 ms for a copy into memory already mapped.
constexpr size_t kExternalStringMinBytes = 64u << 10;

// The buffers of those strings, for the whole process. V8 hands a buffer back when it
// disposes of the string: at the scavenge after the string died young, at a full collection
// when it was promoted (it is live during its call, and a shaper that splits a large output
// allocates enough to be scavenged twice meanwhile; measured with such a shaper, a third of
// the buffers come back between calls), or when its isolate is disposed. Never destroyed, so
// no isolate can outlive it.
class StringBufferPool {
 public:
  // A buffer of at least `size` bytes, or null.
  char* Acquire(size_t size, size_t* capacity) {
    {
      absl::MutexLock lock(&mu_);
      for (size_t i = 0; i < free_.size(); ++i) {
        // Reuse only a buffer that fits without wasting more than half of it.
        if (free_[i].capacity >= size && free_[i].capacity / 2 <= size) {
          Buffer buffer = free_[i];
          free_[i] = free_.back();
          free_.pop_back();
          pooled_bytes_ -= buffer.capacity;
          *capacity = buffer.capacity;
          return buffer.data;
        }
      }
    }
    // Mapped with its pages populated: one system call instead of a page fault per 4 KiB
    // (measured here: ≈ 2.4 ms per MiB against ≈ 4.4 ms).
    *capacity = (size + kGranule - 1) / kGranule * kGranule;
    void* data = mmap(nullptr, *capacity, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return data == MAP_FAILED ? nullptr : static_cast<char*>(data);
  }

  void Release(char* data, size_t capacity) {
    {
      absl::MutexLock lock(&mu_);
      if (pooled_bytes_ + capacity <= kMaxPooledBytes) {
        free_.push_back(Buffer{data, capacity});
        pooled_bytes_ += capacity;
        return;
      }
    }
    munmap(data, capacity);
  }

 private:
  static constexpr size_t kGranule = 64u << 10;
  static constexpr size_t kMaxPooledBytes = 16u << 20;
  struct Buffer {
    char* data;
    size_t capacity;
  };
  absl::Mutex mu_;  // V8 disposes of strings on the thread running GC; be safe regardless
  std::vector<Buffer> free_ ABSL_GUARDED_BY(mu_);
  size_t pooled_bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

StringBufferPool* GetStringBufferPool() {
  static StringBufferPool* pool = new StringBufferPool();
  return pool;
}

class PooledAsciiString final : public v8::String::ExternalOneByteStringResource {
 public:
  // data() is null when no buffer could be allocated.
  PooledAsciiString(StringBufferPool* pool, std::string_view text)
      : pool_(pool), size_(text.size()) {
    data_ = pool_->Acquire(size_, &capacity_);
    if (data_ != nullptr) memcpy(data_, text.data(), text.size());
  }
  ~PooledAsciiString() override {
    if (data_ != nullptr) pool_->Release(data_, capacity_);
  }
  const char* data() const override { return data_; }
  size_t length() const override { return size_; }

 private:
  StringBufferPool* const pool_;
  const size_t size_;
  char* data_ = nullptr;
  size_t capacity_ = 0;
};

bool IsAscii(std::string_view text) {
  const char* p = text.data();
  size_t n = text.size();
  constexpr uint64_t kHighBits = 0x8080808080808080ull;
  uint64_t any = 0;
  for (; n >= 32; p += 32, n -= 32) {
    uint64_t words[4];
    memcpy(words, p, 32);
    any |= words[0] | words[1] | words[2] | words[3];
    if ((n & 4095) == 0 && (any & kHighBits) != 0) return false;  // stop early, now and then
  }
  for (; n > 0; ++p, --n) any |= static_cast<unsigned char>(*p);
  return (any & kHighBits) == 0;
}

// A JS string of UTF-8 text (invalid sequences become U+FFFD). Empty when it is too long.
v8::MaybeLocal<v8::String> NewArgumentString(v8::Isolate* isolate, StringBufferPool* pool,
                                             std::string_view text) {
  if (text.size() > static_cast<size_t>(v8::String::kMaxLength)) return {};
  if (text.size() >= kExternalStringMinBytes && IsAscii(text)) {
    auto* resource = new PooledAsciiString(pool, text);
    v8::Local<v8::String> string;
    if (resource->data() != nullptr &&
        v8::String::NewExternalOneByte(isolate, resource).ToLocal(&string)) {
      return string;  // V8 owns the resource now and disposes of it with the string
    }
    delete resource;
  }
  return v8::String::NewFromUtf8(isolate, text.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(text.size()));
}

// ---- one isolate with one module graph ----------------------------------------------------

// What a guarded entry into JS is, for messages; built into text only when one is needed.
struct Operation {
  std::string_view function;  // empty: the default export itself
  bool load = false;

  std::string Describe() const {
    if (load) return "loading the module";
    if (function.empty()) return "call to the default export";
    return StrCat("call to ", function, "()");
  }
};

class Instance {
 public:
  static absl::StatusOr<std::unique_ptr<Instance>> Create(const std::string& path,
                                                          const ModuleOptions& options);
  ~Instance();

  absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                   absl::Duration timeout);
  absl::StatusOr<std::string> CallArgs(std::string_view function, std::span<const Arg> args,
                                       absl::Duration timeout);
  absl::StatusOr<std::string> Get(std::string_view property);
  absl::StatusOr<std::string> DescribeDefault(std::string_view names_json);

  // True once a limit was hit: the isolate must not run again.
  bool poisoned() const { return poisoned_; }

  // The files of the module graph in the order they were compiled: the entry first, then
  // each import as instantiation reached it.
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    out.reserve(modules_.size());
    // The entry file first, even behind a wrapper; built-in and wrapper sources are no files.
    if (!entry_path_.empty()) out.push_back(entry_path_);
    for (const LoadedModule& loaded : modules_) {
      if (loaded.path.starts_with("plugline:") || loaded.path == entry_path_) continue;
      out.push_back(loaded.path);
    }
    return out;
  }

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

  // Most calls pass a handful of arguments: no allocation for those.
  using ArgVector = absl::InlinedVector<v8::Local<v8::Value>, 8>;

  // A function of the default export and the `this` it is called with.
  struct Target {
    v8::Local<v8::Value> receiver;
    v8::Local<v8::Function> function;
  };

  // Every module of the graph, for resolving a referrer's relative imports and for the code
  // cache.
  struct LoadedModule {
    std::string path;
    v8::Global<v8::Module> module;
    std::string cache_path;                        // empty: no code cache
    v8::Global<v8::UnboundModuleScript> to_cache;  // set: write its cache after evaluation
  };

  struct LoadStats {
    int64_t isolate_ns = 0, context_ns = 0, globals_ns = 0, compile_ns = 0, evaluate_ns = 0,
            cache_write_ns = 0;
    int cache_hits = 0, cache_misses = 0, cache_rejected = 0, cache_written = 0;
  };

  absl::Status Load();
  // Reads a module file and compiles it (CompileSource).
  absl::StatusOr<v8::Local<v8::Module>> CompileFile(const std::string& path);
  // Compiles module source named `path` (a file's canonical path, or "plugline:<specifier>"
  // for a built-in module) and records it in modules_.
  absl::StatusOr<v8::Local<v8::Module>> CompileSource(const std::string& path,
                                                      const std::string& source_code);
  void WriteCodeCaches();
  static v8::MaybeLocal<v8::Module> ResolveModule(v8::Local<v8::Context> context,
                                                  v8::Local<v8::String> specifier,
                                                  v8::Local<v8::FixedArray> assertions,
                                                  v8::Local<v8::Module> referrer);
  static void InitializeImportMeta(v8::Local<v8::Context> context, v8::Local<v8::Module> module,
                                   v8::Local<v8::Object> meta);
  static size_t NearHeapLimit(void* data, size_t current, size_t initial);
  static void ConsoleCallback(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void HostCallCallback(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void OnUncaughtMessage(v8::Local<v8::Message> message, v8::Local<v8::Value> error);
  void InstallGlobals(v8::Local<v8::Context> context);
  void Log(std::string_view level, std::string_view message) const {
    if (options_.log) options_.log(level, message);
  }

  // The default export's `function` (or the default export itself when it is empty).
  absl::StatusOr<Target> FindFunction(v8::Local<v8::Context> context, std::string_view function);
  // Calls the target under the deadline and returns the result as JSON.
  absl::StatusOr<std::string> Invoke(v8::Local<v8::Context> context, const Operation& operation,
                                     const Target& target, ArgVector& args, absl::Duration timeout);
  // An internalized JS string for a property name, cached: the same few names every call.
  v8::Local<v8::String> Key(std::string_view name);

  // Runs `body` under the deadline, awaits a returned promise (running timers), and, when
  // `json` is set, serializes the result into it while still under the deadline (toJSON may
  // loop). Turns termination, limits and exceptions into a Status.
  template <typename Body>
  absl::Status Guarded(v8::Local<v8::Context> context, const Operation& operation,
                       absl::Duration timeout, std::string* json, Body body);
  // Waits for a promise to settle: microtasks, then timers while any is pending and the
  // deadline allows. Returns the fulfilled value, or the value itself when it is no promise.
  absl::StatusOr<v8::Local<v8::Value>> Settle(v8::Local<v8::Context> context,
                                              v8::Local<v8::Value> value,
                                              const Operation& operation, int64_t deadline_ns);
  absl::StatusOr<std::string> ToJson(v8::Local<v8::Context> context, v8::Local<v8::Value> value,
                                     const Operation& operation);
  // The watchdog or the heap limit stopped this isolate's JS.
  bool Stopped() const { return alarm_.fired() || heap_limit_hit_.load(); }

  const std::string path_;
  const ModuleOptions options_;
  std::string root_;  // canonical root directory for imports
  // The folders of the npm packages imported so far: a package file's relative imports stay
  // inside its package.
  std::vector<std::string> package_roots_;
  std::string entry_path_;  // the module file, canonical (imported by a wrapper entry)
  // Outlives the isolate (disposed of in ~Instance's body), which uses it to the end.
  std::unique_ptr<CappedAllocator> allocator_;
  std::optional<CodeCacheStore> code_cache_;
  v8::Isolate* isolate_ = nullptr;
  Alarm alarm_;
  v8::Global<v8::Context> context_;
  v8::Global<v8::Module> module_;
  v8::Global<v8::Value> default_export_;  // read once, after the module evaluated
  std::unique_ptr<EventLoop> event_loop_;
  std::vector<LoadedModule> modules_;
  struct CachedKey {
    std::string name;
    v8::Global<v8::String> key;
  };
  std::vector<CachedKey> keys_;
  LoadStats stats_;
  std::atomic<bool> heap_limit_hit_{false};
  bool deadline_passed_ = false;  // Settle() found the deadline too close for the next timer
  bool poisoned_ = false;
};

Instance::Instance(std::string path, const ModuleOptions& options)
    : path_(std::move(path)), options_(options) {}

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(const std::string& path,
                                                           const ModuleOptions& options) {
  InitializeV8Once();
  int64_t start = MonotonicNowNs();
  std::unique_ptr<Instance> instance(new Instance(path, options));
  if (!options.code_cache_dir.empty()) {
    instance->code_cache_.emplace(options.code_cache_dir,
                                  v8::ScriptCompiler::CachedDataVersionTag());
  }
  v8::Isolate::CreateParams params;
  instance->allocator_ = std::make_unique<CappedAllocator>(options.array_buffer_limit_bytes);
  params.array_buffer_allocator = instance->allocator_.get();
  params.constraints.ConfigureDefaultsFromHeapSize(0, options.heap_limit_bytes);
  // A young generation of up to 1/8 of the heap, 16 MiB at most. V8's default for a 128 MiB
  // heap is 3 MiB: a shaper splitting a 1 MiB output into lines then scavenges four times per
  // call and promotes the output string, which only a full collection frees. The young
  // generation grows to this only in isolates that allocate that much.
  size_t young = std::min<size_t>(16u << 20, options.heap_limit_bytes / 8);
  params.constraints.set_max_young_generation_size_in_bytes(young);
  params.constraints.set_max_old_generation_size_in_bytes(options.heap_limit_bytes - young);
  v8::Isolate* isolate = v8::Isolate::New(params);
  instance->isolate_ = isolate;
  instance->alarm_.isolate = isolate;
  GetWatchdog().Register(&instance->alarm_);
  isolate->SetData(0, instance.get());
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  isolate->AddNearHeapLimitCallback(&Instance::NearHeapLimit, instance.get());
  isolate->SetHostInitializeImportMetaObjectCallback(&Instance::InitializeImportMeta);
  // Exceptions nobody catches (a throwing queueMicrotask callback) go to the log; without a
  // listener V8 would print them to the host's stdout.
  isolate->AddMessageListenerWithErrorLevel(&Instance::OnUncaughtMessage,
                                            v8::Isolate::kMessageError);
  int64_t isolate_done = MonotonicNowNs();
  instance->stats_.isolate_ns = isolate_done - start;
  {
    v8::Locker locker(isolate);
    v8::Isolate::Scope isolate_scope(isolate);
    v8::HandleScope handles(isolate);
    v8::Local<v8::Context> context = v8::Context::New(isolate);
    instance->context_.Reset(isolate, context);
    v8::Context::Scope context_scope(context);
    int64_t context_done = MonotonicNowNs();
    instance->stats_.context_ns = context_done - isolate_done;
    instance->InstallGlobals(context);
    instance->stats_.globals_ns = MonotonicNowNs() - context_done;
  }
  absl::Status status = instance->Load();
  if (!status.ok()) return status;
  const LoadStats& s = instance->stats_;
  if (options.log) {
    std::string cache = "off";
    if (instance->code_cache_) {
      cache = StrCat(s.cache_hits, " hit, ", s.cache_misses, " missed, ", s.cache_rejected,
                     " rejected, ", s.cache_written, " written in ", Ms(s.cache_write_ns), " ms");
    }
    options.log("debug", StrCat("loaded ", path, " in ", Ms(MonotonicNowNs() - start),
                                " ms: isolate ", Ms(s.isolate_ns), ", context ", Ms(s.context_ns),
                                ", globals ", Ms(s.globals_ns), ", compile ", Ms(s.compile_ns),
                                ", evaluate ", Ms(s.evaluate_ns), "; code cache: ", cache));
  }
  return instance;
}

Instance::~Instance() {
  if (isolate_ == nullptr) return;
  GetWatchdog().Unregister(&alarm_);
  {
    v8::Locker locker(isolate_);
    v8::Isolate::Scope isolate_scope(isolate_);
    v8::HandleScope handles(isolate_);
    event_loop_.reset();  // closes the timers and the libuv loop
    keys_.clear();
    default_export_.Reset();
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

void Instance::HostCallCallback(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  auto* self = static_cast<Instance*>(isolate->GetData(0));
  if (!self->options_.host_call) {
    isolate->ThrowException(
        v8::Exception::Error(V8String(isolate, "this plugin has no host callback")));
    return;
  }
  if (info.Length() < 1 || !info[0]->IsString()) {
    isolate->ThrowException(v8::Exception::TypeError(
        V8String(isolate, "__plugline_host_call(request) takes a string")));
    return;
  }
  std::string request = StringToUtf8(isolate, info[0].As<v8::String>());
  absl::StatusOr<std::string> answer = self->options_.host_call(request);
  if (!answer.ok()) {
    isolate->ThrowException(
        v8::Exception::Error(V8String(isolate, ToStd(answer.status().message()))));
    return;
  }
  info.GetReturnValue().Set(V8String(isolate, *answer));
}

void Instance::OnUncaughtMessage(v8::Local<v8::Message> message, v8::Local<v8::Value> error) {
  v8::Isolate* isolate = message->GetIsolate();
  auto* self = static_cast<Instance*>(isolate->GetData(0));
  if (!self->options_.log) return;
  v8::HandleScope handles(isolate);
  v8::Local<v8::Context> context = self->context_.Get(isolate);
  self->options_.log(
      "error", StrCat("uncaught exception: ", DescribeException(isolate, context, error, message)));
}

void Instance::InstallGlobals(v8::Local<v8::Context> context) {
  v8::Local<v8::Object> console = v8::Object::New(isolate_);
  for (const char* level : {"log", "info", "warn", "error", "debug"}) {
    v8::Local<v8::String> name = V8Name(isolate_, level);
    v8::Local<v8::Function> fn = v8::Function::New(context, &Instance::ConsoleCallback, name, 0,
                                                   v8::ConstructorBehavior::kThrow)
                                     .ToLocalChecked();
    console->Set(context, name, fn).Check();
  }
  context->Global()->Set(context, V8Name(isolate_, "console"), console).Check();
  v8::Local<v8::String> host_call = V8Name(isolate_, "__plugline_host_call");
  context->Global()
      ->Set(context, host_call,
            v8::Function::New(context, &Instance::HostCallCallback, host_call, 1,
                              v8::ConstructorBehavior::kThrow)
                .ToLocalChecked())
      .Check();
  event_loop_ = std::make_unique<EventLoop>(
      isolate_, [this](std::string_view message) { Log("error", message); });
  event_loop_->Install(context);
  InstallTextCoding(isolate_, context);
}

void Instance::InitializeImportMeta(v8::Local<v8::Context> context, v8::Local<v8::Module> module,
                                    v8::Local<v8::Object> meta) {
  v8::Isolate* isolate = context->GetIsolate();
  auto* self = static_cast<Instance*>(isolate->GetData(0));
  for (const LoadedModule& loaded : self->modules_) {
    if (loaded.module.Get(isolate) == module) {
      meta->CreateDataProperty(context, V8Name(isolate, "url"),
                               V8String(isolate, StrCat("file://", loaded.path)))
          .Check();
      return;
    }
  }
}

absl::StatusOr<v8::Local<v8::Module>> Instance::CompileFile(const std::string& path) {
  absl::StatusOr<std::string> code = ReadWholeFile(path);
  if (!code.ok()) return code.status();
  // A TypeScript file (.ts, .mts) is compiled from its type-stripped JavaScript (typescript.h).
  code = PrepareModuleSource(path, *std::move(code), options_.code_cache_dir,
                             [this](std::string_view message) { Log("debug", message); });
  if (!code.ok()) return code.status();
  return CompileSource(path, *code);
}

absl::StatusOr<v8::Local<v8::Module>> Instance::CompileSource(const std::string& path,
                                                              const std::string& source_code) {
  int64_t start = MonotonicNowNs();
  const std::string* code = &source_code;
  v8::Local<v8::String> source_text;
  if (code->size() > static_cast<size_t>(v8::String::kMaxLength) ||
      !v8::String::NewFromUtf8(isolate_, code->data(), v8::NewStringType::kNormal,
                               static_cast<int>(code->size()))
           .ToLocal(&source_text)) {
    return absl::ResourceExhaustedError(StrCat(path, ": file too large"));
  }
  v8::ScriptOrigin origin(isolate_, V8String(isolate_, path), 0, 0, false, -1,
                          v8::Local<v8::Value>(), false, false, /*is_module=*/true);
  LoadedModule loaded{path, {}, {}, {}};
  std::optional<std::string> cached;  // must outlive CompileModule, which reads it in place
  if (code_cache_) {
    // Keyed by name and content: V8 keeps the script name of the source it cached, so two
    // files with the same content (or two plugins' wrappers) must not share a cache, or errors
    // in one would name the other.
    loaded.cache_path = code_cache_->PathFor(StrCat(path, std::string_view("\0", 1), *code));
    std::string why;
    cached = code_cache_->Read(loaded.cache_path, &why);
    if (!why.empty()) {
      Log("debug", StrCat("code cache ", loaded.cache_path, " for ", path, " ignored: ", why));
    }
  }
  std::optional<v8::ScriptCompiler::Source> source;
  v8::ScriptCompiler::CompileOptions compile_options = v8::ScriptCompiler::kNoCompileOptions;
  if (cached && cached->size() <= static_cast<size_t>(INT_MAX)) {
    // The Source owns the CachedData object, not the bytes (BufferNotOwned).
    source.emplace(
        source_text, origin,
        new v8::ScriptCompiler::CachedData(reinterpret_cast<const uint8_t*>(cached->data()),
                                           static_cast<int>(cached->size()),
                                           v8::ScriptCompiler::CachedData::BufferNotOwned));
    compile_options = v8::ScriptCompiler::kConsumeCodeCache;
  } else {
    source.emplace(source_text, origin);
  }
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Module> module;
  if (!v8::ScriptCompiler::CompileModule(isolate_, &*source, compile_options).ToLocal(&module)) {
    return absl::UnknownError(DescribeException(isolate_, isolate_->GetCurrentContext(),
                                                try_catch.Exception(), try_catch.Message()));
  }
  bool write_cache = false;
  if (compile_options == v8::ScriptCompiler::kConsumeCodeCache) {
    if (source->GetCachedData()->rejected) {
      ++stats_.cache_rejected;
      write_cache = true;
      Log("debug", StrCat("code cache for ", path, " rejected by V8; rewriting it"));
    } else {
      ++stats_.cache_hits;
    }
  } else if (code_cache_) {
    ++stats_.cache_misses;
    write_cache = true;
  }
  loaded.module.Reset(isolate_, module);
  // Taken now: a module's unbound script is only available before it is instantiated.
  if (write_cache) loaded.to_cache.Reset(isolate_, module->GetUnboundModuleScript());
  modules_.push_back(std::move(loaded));
  stats_.compile_ns += MonotonicNowNs() - start;
  return module;
}

// After evaluation, so the functions the top level ran are compiled and cached too; functions
// first called later (match, shape) are compiled lazily on their first call in each process.
void Instance::WriteCodeCaches() {
  if (!code_cache_) return;
  int64_t start = MonotonicNowNs();
  for (LoadedModule& loaded : modules_) {
    if (loaded.to_cache.IsEmpty()) continue;
    std::unique_ptr<v8::ScriptCompiler::CachedData> data(
        v8::ScriptCompiler::CreateCodeCache(loaded.to_cache.Get(isolate_)));
    loaded.to_cache.Reset();
    if (data == nullptr || data->length <= 0) continue;
    absl::Status written = code_cache_->Write(
        loaded.cache_path, std::string_view(reinterpret_cast<const char*>(data->data),
                                            static_cast<size_t>(data->length)));
    if (written.ok()) {
      ++stats_.cache_written;
    } else {
      Log("debug", StrCat("code cache for ", loaded.path, " not written: ", written.message()));
    }
  }
  stats_.cache_write_ns += MonotonicNowNs() - start;
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
  // The plugin file behind a wrapper entry (ModuleOptions::wrapper_source), for the wrapper.
  if (spec == kWrappedPluginSpecifier && !self->options_.wrapper_source.empty() &&
      absl::StartsWith(referrer_path, "plugline:")) {
    for (const LoadedModule& loaded : self->modules_) {
      if (loaded.path == self->entry_path_) return loaded.module.Get(isolate);
    }
    absl::StatusOr<v8::Local<v8::Module>> module = self->CompileFile(self->entry_path_);
    if (!module.ok()) return fail(std::string(module.status().message()));
    return *module;
  }
  for (const BuiltinModule& builtin : self->options_.builtin_modules) {
    if (builtin.specifier != spec) continue;
    // plugline's internal modules ("plugline:…") are for the wrapper and each other only.
    if (absl::StartsWith(spec, "plugline:") && !absl::StartsWith(referrer_path, "plugline:")) {
      return fail("plugline's internal modules cannot be imported by a plugin");
    }
    std::string name = StrCat("plugline:", spec);
    for (const LoadedModule& loaded : self->modules_) {
      if (loaded.path == name) return loaded.module.Get(isolate);
    }
    absl::StatusOr<v8::Local<v8::Module>> module = self->CompileSource(name, builtin.source);
    if (!module.ok()) return fail(std::string(module.status().message()));
    return *module;
  }
  std::string resolved;
  if (!absl::StartsWith(spec, "./") && !absl::StartsWith(spec, "../") &&
      !absl::StartsWith(spec, "/") && !absl::StartsWith(spec, "file://")) {
    // A bare import: an npm package (or a package's "#import").
    if (!self->options_.resolve_import) {
      return fail("only relative imports of files inside the plugin's folder are supported");
    }
    absl::StatusOr<ResolvedImport> found = self->options_.resolve_import(spec, referrer_path);
    if (!found.ok()) return fail(std::string(found.status().message()));
    resolved = std::move(found->path);
    if (!found->root.empty() && found->root != self->root_ &&
        std::find(self->package_roots_.begin(), self->package_roots_.end(), found->root) ==
            self->package_roots_.end()) {
      self->package_roots_.push_back(std::move(found->root));
    }
  } else {
    if (absl::StartsWith(spec, "file://")) spec = spec.substr(7);
    std::string candidate = spec[0] == '/' ? spec : StrCat(DirOf(referrer_path), "/", spec);
    // As Node, then as TypeScript's bundler resolution: no extension, and "./x.js" for x.ts.
    std::vector<std::string> candidates;
    for (const char* suffix : {"", ".js", ".mjs", ".ts", ".mts", "/index.js", "/index.mjs",
                               "/index.ts"}) {
      candidates.push_back(candidate + suffix);
    }
    if (absl::EndsWith(candidate, ".js")) {
      candidates.push_back(StrCat(candidate.substr(0, candidate.size() - 3), ".ts"));
    }
    for (const std::string& path : candidates) {
      resolved = RealPath(path);
      if (!resolved.empty()) {
        struct stat st;
        if (stat(resolved.c_str(), &st) == 0 && S_ISREG(st.st_mode)) break;
        resolved.clear();
      }
    }
    if (resolved.empty()) return fail("no such file");
    // Inside the folder of the importing file: the innermost of the plugin's and its packages'.
    std::string root;
    if (absl::StartsWith(referrer_path, self->root_ + "/")) root = self->root_;
    for (const std::string& package : self->package_roots_) {
      if (absl::StartsWith(referrer_path, package + "/") && package.size() > root.size()) {
        root = package;
      }
    }
    if (root.empty()) root = self->root_;
    if (!absl::StartsWith(resolved, root + "/")) {
      return fail(root == self->root_
                      ? StrCat("it resolves outside the plugin's folder ", root)
                      : StrCat("it resolves outside its package ", root));
    }
  }
  for (const LoadedModule& loaded : self->modules_) {
    if (loaded.path == resolved) return loaded.module.Get(isolate);
  }
  absl::StatusOr<v8::Local<v8::Module>> module = self->CompileFile(resolved);
  if (!module.ok()) return fail(std::string(module.status().message()));
  return *module;
}

template <typename Body>
absl::Status Instance::Guarded(v8::Local<v8::Context> context, const Operation& operation,
                               absl::Duration timeout, std::string* json, Body body) {
  v8::HandleScope scope(isolate_);
  v8::TryCatch try_catch(isolate_);
  Watchdog& watchdog = GetWatchdog();
  int64_t deadline = DeadlineAfter(timeout);
  deadline_passed_ = false;
  watchdog.Arm(&alarm_, deadline);
  v8::MaybeLocal<v8::Value> maybe = body();
  v8::Local<v8::Value> value;
  bool ok = maybe.ToLocal(&value);
  absl::Status status;
  if (ok) {
    absl::StatusOr<v8::Local<v8::Value>> settled = Settle(context, value, operation, deadline);
    if (!settled.ok()) {
      status = settled.status();
      ok = false;
    } else if (json != nullptr && !Stopped() && !deadline_passed_) {
      absl::StatusOr<std::string> text = ToJson(context, *settled, operation);
      if (text.ok()) {
        *json = *std::move(text);
      } else {
        status = text.status();
        ok = false;
      }
    }
  }
  bool fired = watchdog.Disarm(&alarm_);
  // A termination that landed as the call returned must not kill the next call.
  isolate_->CancelTerminateExecution();
  if (heap_limit_hit_.load()) {
    poisoned_ = true;
    return absl::ResourceExhaustedError(StrCat(operation.Describe(), " exceeded the heap limit of ",
                                               options_.heap_limit_bytes >> 20, " MiB"));
  }
  if (fired || deadline_passed_ || try_catch.HasTerminated()) {
    poisoned_ = true;
    return absl::DeadlineExceededError(StrCat(operation.Describe(), " exceeded its time budget of ",
                                              absl::FormatDuration(timeout)));
  }
  if (allocator_->exceeded() && !ok) {
    return absl::ResourceExhaustedError(StrCat(operation.Describe(),
                                               " exceeded the ArrayBuffer limit of ",
                                               options_.array_buffer_limit_bytes >> 20, " MiB"));
  }
  if (!status.ok()) return status;
  if (!ok) {
    if (try_catch.HasCaught()) {
      return absl::UnknownError(
          DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message()));
    }
    return absl::UnknownError(StrCat(operation.Describe(), " failed"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v8::Local<v8::Value>> Instance::Settle(v8::Local<v8::Context> context,
                                                      v8::Local<v8::Value> value,
                                                      const Operation& operation,
                                                      int64_t deadline_ns) {
  isolate_->PerformMicrotaskCheckpoint();
  if (!value->IsPromise()) return value;
  v8::Local<v8::Promise> promise = value.As<v8::Promise>();
  for (;;) {
    switch (promise->State()) {
      case v8::Promise::kFulfilled:
        return promise->Result();
      case v8::Promise::kRejected: {
        v8::Local<v8::Value> reason = promise->Result();
        std::string description = DescribeException(isolate_, context, reason,
                                                    v8::Exception::CreateMessage(isolate_, reason));
        if (operation.load) return absl::UnknownError(description);
        return absl::UnknownError(StrCat(operation.Describe(), " rejected: ", description));
      }
      case v8::Promise::kPending:
        break;
    }
    if (Stopped()) return value;  // the caller reports the deadline or the heap limit
    // Only a timer can settle it now; with none pending, waiting is pointless.
    if (event_loop_->pending_timers() == 0) {
      return absl::DeadlineExceededError(
          operation.load ? std::string("the module's top level awaits a promise that never settles")
                         : StrCat(operation.Describe(), " returned a promise that never settled"));
    }
    int64_t due_ms = event_loop_->NextDueMs();
    if (due_ms < 0) {  // a timer of a terminated pass: nothing is really scheduled
      return absl::DeadlineExceededError(
          StrCat(operation.Describe(), " returned a promise that never settled"));
    }
    if (due_ms > 0 && MonotonicNowNs() + due_ms * 1000000 > deadline_ns) {
      deadline_passed_ = true;  // the next timer is due after the deadline: stop now
      return value;
    }
    if (!event_loop_->RunOnce()) return value;  // a timer callback was terminated
    isolate_->PerformMicrotaskCheckpoint();
  }
}

absl::StatusOr<std::string> Instance::ToJson(v8::Local<v8::Context> context,
                                             v8::Local<v8::Value> value,
                                             const Operation& operation) {
  if (value->IsUndefined()) return std::string("null");
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::String> json;
  if (!v8::JSON::Stringify(context, value).ToLocal(&json)) {
    if (try_catch.HasTerminated()) return absl::UnknownError("terminated");  // reported by caller
    return absl::UnknownError(
        StrCat(operation.Describe(), " returned a value that is not JSON-serializable: ",
               try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
  }
  std::string text = StringToUtf8(isolate_, json);
  if (text == "undefined") return std::string("null");  // functions, symbols
  return text;
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
  entry_path_ = canonical;
  v8::Local<v8::Module> module;
  {
    // With a wrapper, the wrapper is the entry and imports the file as "plugline:plugin". The
    // file is compiled first all the same, so that its syntax errors read as they would
    // without a wrapper (file:line:col), not as a failed import of the wrapper's.
    absl::StatusOr<v8::Local<v8::Module>> compiled = CompileFile(canonical);
    if (!compiled.ok()) return compiled.status();
    if (!options_.wrapper_source.empty()) {
      compiled = CompileSource(StrCat("plugline:wrapper:", canonical), options_.wrapper_source);
      if (!compiled.ok()) return compiled.status();
    }
    module = *compiled;
  }
  module_.Reset(isolate_, module);
  int64_t start = MonotonicNowNs();
  int64_t compile_before = stats_.compile_ns;
  Operation load{{}, /*load=*/true};
  // With top-level await, Evaluate returns a promise: Guarded settles it like a call's.
  absl::Status evaluated =
      Guarded(context, load, options_.load_timeout, nullptr, [&]() -> v8::MaybeLocal<v8::Value> {
        if (module->InstantiateModule(context, &Instance::ResolveModule).IsNothing()) return {};
        return module->Evaluate(context);
      });
  // Imports are compiled during instantiation; count them as compile time.
  stats_.evaluate_ns = MonotonicNowNs() - start - (stats_.compile_ns - compile_before);
  if (!evaluated.ok()) return evaluated;  // compile errors of imports carry their location
  if (module->GetStatus() == v8::Module::kErrored) {
    v8::Local<v8::Value> exception = module->GetException();
    return absl::UnknownError(DescribeException(isolate_, context, exception,
                                                v8::Exception::CreateMessage(isolate_, exception)));
  }
  v8::Local<v8::Object> ns = module->GetModuleNamespace().As<v8::Object>();
  v8::Local<v8::Value> value;
  {
    v8::TryCatch try_catch(isolate_);
    if (!ns->Get(context, V8Name(isolate_, "default")).ToLocal(&value)) {
      return absl::UnknownError(StrCat(path_, ": cannot read the default export"));
    }
  }
  default_export_.Reset(isolate_, value);
  WriteCodeCaches();
  return absl::OkStatus();
}

v8::Local<v8::String> Instance::Key(std::string_view name) {
  for (const CachedKey& cached : keys_) {
    if (cached.name == name) return cached.key.Get(isolate_);
  }
  v8::Local<v8::String> key = V8Name(isolate_, name);
  if (keys_.size() < 64) keys_.push_back(CachedKey{std::string(name), {isolate_, key}});
  return key;
}

absl::StatusOr<Instance::Target> Instance::FindFunction(v8::Local<v8::Context> context,
                                                        std::string_view function) {
  v8::Local<v8::Value> receiver = default_export_.Get(isolate_);
  v8::Local<v8::Value> callee = receiver;
  if (!function.empty()) {
    if (!receiver->IsObject()) {
      return absl::NotFoundError(
          StrCat(path_, ": the default export is not an object with ", function, "()"));
    }
    // Looked up on every call (a property read with a cached key), so a plugin may replace
    // its own methods.
    v8::TryCatch try_catch(isolate_);
    if (!receiver.As<v8::Object>()->Get(context, Key(function)).ToLocal(&callee)) {
      return absl::UnknownError(
          DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message()));
    }
  }
  if (!callee->IsFunction()) {
    return absl::NotFoundError(StrCat(
        path_, ": ", function.empty() ? std::string("the default export") : std::string(function),
        " is not a function"));
  }
  return Target{receiver, callee.As<v8::Function>()};
}

absl::StatusOr<std::string> Instance::Invoke(v8::Local<v8::Context> context,
                                             const Operation& operation, const Target& target,
                                             ArgVector& args, absl::Duration timeout) {
  std::string json;
  absl::Status status =
      Guarded(context, operation, timeout, &json, [&]() -> v8::MaybeLocal<v8::Value> {
        return target.function->Call(context, target.receiver, static_cast<int>(args.size()),
                                     args.data());
      });
  if (!status.ok()) return status;
  return json;
}

absl::StatusOr<std::string> Instance::Call(std::string_view function, std::string_view args_json,
                                           absl::Duration timeout) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  absl::StatusOr<Target> target = FindFunction(context, function);
  if (!target.ok()) return target.status();
  ArgVector args;
  {
    v8::TryCatch try_catch(isolate_);
    v8::Local<v8::String> text;
    v8::Local<v8::Value> parsed;
    if (args_json.empty()) args_json = "[]";
    if (args_json.size() > static_cast<size_t>(v8::String::kMaxLength) ||
        !v8::String::NewFromUtf8(isolate_, args_json.data(), v8::NewStringType::kNormal,
                                 static_cast<int>(args_json.size()))
             .ToLocal(&text) ||
        !v8::JSON::Parse(context, text).ToLocal(&parsed) || !parsed->IsArray()) {
      return absl::InvalidArgumentError("arguments must be a JSON array");
    }
    v8::Local<v8::Array> array = parsed.As<v8::Array>();
    for (uint32_t i = 0; i < array->Length(); ++i) {
      args.push_back(array->Get(context, i).ToLocalChecked());
    }
  }
  return Invoke(context, Operation{function}, *target, args, timeout);
}

absl::StatusOr<std::string> Instance::CallArgs(std::string_view function,
                                               std::span<const Arg> args_in,
                                               absl::Duration timeout) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  absl::StatusOr<Target> target = FindFunction(context, function);
  if (!target.ok()) return target.status();
  ArgVector args;
  for (size_t i = 0; i < args_in.size(); ++i) {
    const Arg& arg = args_in[i];
    switch (arg.kind) {
      case Arg::Kind::kUndefined:
        args.push_back(v8::Undefined(isolate_));
        break;
      case Arg::Kind::kNull:
        args.push_back(v8::Null(isolate_));
        break;
      case Arg::Kind::kBool:
        args.push_back(v8::Boolean::New(isolate_, arg.boolean));
        break;
      case Arg::Kind::kNumber:
        args.push_back(v8::Number::New(isolate_, arg.number));
        break;
      case Arg::Kind::kString:
      case Arg::Kind::kJson: {
        v8::Local<v8::String> text;
        if (!NewArgumentString(isolate_, GetStringBufferPool(), arg.text).ToLocal(&text)) {
          return absl::InvalidArgumentError(StrCat("argument ", i + 1, " of ", function,
                                                   "() is too long for a JS string (",
                                                   arg.text.size(), " bytes)"));
        }
        if (arg.kind == Arg::Kind::kString) {
          args.push_back(text);
          break;
        }
        v8::TryCatch try_catch(isolate_);
        v8::Local<v8::Value> parsed;
        if (!v8::JSON::Parse(context, text).ToLocal(&parsed)) {
          return absl::InvalidArgumentError(StrCat(
              "argument ", i + 1, " of ", function, "() is not valid JSON: ",
              try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
        }
        args.push_back(parsed);
        break;
      }
    }
  }
  return Invoke(context, Operation{function}, *target, args, timeout);
}

absl::StatusOr<std::string> Instance::Get(std::string_view property) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  v8::Local<v8::Value> target = default_export_.Get(isolate_);
  if (!target->IsObject()) return std::string("null");
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Value> value;
  v8::Local<v8::String> json;
  if (!target.As<v8::Object>()->Get(context, V8String(isolate_, property)).ToLocal(&value) ||
      (!value->IsUndefined() && !v8::JSON::Stringify(context, value).ToLocal(&json))) {
    return absl::UnknownError(
        StrCat(path_, ": cannot read ", property, " of the default export: ",
               try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
  }
  if (value->IsUndefined()) return std::string("null");
  std::string text = StringToUtf8(isolate_, json);
  return text == "undefined" ? std::string("null") : text;
}

absl::StatusOr<std::string> Instance::DescribeDefault(std::string_view names_json) {
  Entered entered(this);
  v8::Local<v8::Context> context = entered.context();
  v8::Local<v8::Value> value = default_export_.Get(isolate_);
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

  absl::StatusOr<std::string> CallArgs(std::string_view function, std::span<const Arg> args,
                                       const CallLimits& limits) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    absl::StatusOr<std::string> result = instance_->CallArgs(function, args, limits.timeout);
    Recycle();
    return result;
  }

  std::vector<std::string> files() override {
    absl::MutexLock lock(&mu_);
    if (!EnsureInstance().ok()) return {path_};
    return instance_->files();
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

extern "C" __attribute__((visibility("default"))) plugline::js::Runtime* plugline_js_backend_create(
    int interface_version, const char** error) {
  if (interface_version != plugline::js::kBackendInterfaceVersion) {
    if (error) *error = "the V8 backend was built for another plugline version";
    return nullptr;
  }
  static plugline::js::Runtime* runtime = new plugline::js::v8backend::V8Runtime();
  return runtime;
}

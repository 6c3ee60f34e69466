// The V8 implementation of src/js/runtime.h, built as the module libplugline-v8.so.
//
// Rules this file keeps (see README.md here):
//  - One isolate per module: a plugin that loops, leaks or is terminated touches nothing else.
//  - Every entry into JS goes through Instance::Enter and its RAII scope (JsScope): the
//    isolate's lock and scopes *and* the deadline. Nothing touches a plugin's values outside
//    it: reading exports and `meta` getters, toJSON, describing a thrown value (toString,
//    `message` and `stack` getters) all run under the deadline, so no plugin code can hang the
//    host.
//  - The deadline is enforced by one watchdog thread calling TerminateExecution; after every
//    entry CancelTerminateExecution clears a termination that landed just as it returned, so
//    it cannot kill the next one.
//  - A near-heap-limit callback terminates and grants 64 MiB of headroom once so the stack can
//    unwind; an isolate that hit a limit is discarded and rebuilt on the next call. When a C++
//    built-in keeps allocating past that (terminations only land in JS), V8 reports a fatal
//    out-of-memory; Instance::Enter catches that report (OnFatalOom) and abandons the isolate
//    instead of letting V8 end the process (see Enter for what that costs).
//  - No v8::Local is stored in a member; only v8::Global.
//  - Built with -fno-rtti -fno-exceptions, like libnode itself: no C++ exception may pass
//    through a V8 callback (nothing here throws).
#include <libplatform/libplatform.h>
#include <setjmp.h>
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
// The largest one WebAssembly memory may be, in any isolate of the process (a V8 flag).
constexpr size_t kWasmMaxMemoryBytes = 256u << 20;
// What a wrapper entry (ModuleOptions::wrapper_source) imports to get the plugin file.
constexpr std::string_view kWrappedPluginSpecifier = "plugline:plugin";

// ---- process-wide V8 ----------------------------------------------------------------------

std::unique_ptr<v8::Platform>* g_platform = nullptr;

void InitializeV8Once() {
  static absl::once_flag once;
  absl::call_once(once, [] {
    g_platform = new std::unique_ptr<v8::Platform>(v8::platform::NewDefaultPlatform(2));
    v8::V8::InitializePlatform(g_platform->get());
    // A WebAssembly memory is not allocated through the ArrayBuffer allocator: without this
    // one `new WebAssembly.Memory({initial: 65536})` reserves 4 GiB. Larger memories fail
    // with a RangeError; what all of an isolate's memories add up to is checked against its
    // ArrayBuffer limit (Instance::ExternalMemoryOverBudget).
    std::string flags = StrCat("--wasm-max-mem-pages=", kWasmMaxMemoryBytes >> 16);
    v8::V8::SetFlagsFromString(flags.c_str(), flags.size());
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
  // Whether an allocation was refused since the last ResetExceeded() (each entry into JS).
  bool exceeded() const { return exceeded_.load(); }
  void ResetExceeded() { exceeded_.store(false); }

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

// How often a call that runs longer is asked to check the memory limits that no V8 callback
// reports as they are crossed (Instance::PollLimits).
constexpr int64_t kLimitPollNs = 5'000'000;

// One per isolate, registered with the watchdog for the isolate's lifetime.
struct Alarm {
  v8::Isolate* isolate = nullptr;
  std::atomic<int64_t> deadline_ns{kDisarmed};
  std::atomic<int64_t> armed_at_ns{0};
  // Requested as an interrupt every kLimitPollNs while a call has run that long.
  v8::InterruptCallback poll = nullptr;
  void* poll_data = nullptr;
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

  // `now_ns`: the monotonic time the deadline was computed from.
  void Arm(Alarm* alarm, int64_t deadline_ns, int64_t now_ns) {
    alarm->armed_at_ns.store(now_ns, std::memory_order_relaxed);
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
        if (deadline == kDisarmed) continue;
        if (deadline == kFired) {
          // Still armed after firing: V8 forgets a termination once it unwinds to the embedder
          // (no JS frame left), and plugline may call JS again before the entry ends (to
          // describe what was thrown, whose `stack` getter is plugin code). Terminate again
          // until the entry disarms.
          alarm->isolate->TerminateExecution();
          next = std::min(next, now + kLimitPollNs);
          continue;
        }
        if (deadline <= now) {
          if (alarm->deadline_ns.compare_exchange_strong(deadline, kFired)) {
            alarm->isolate->TerminateExecution();  // thread-safe by V8's contract
            next = std::min(next, now + kLimitPollNs);  // and again, until disarmed
          }
          continue;
        }
        next = std::min(next, deadline);
        if (alarm->poll != nullptr) {
          // A call already running that long is asked to check its limits; a short one is
          // left alone (it is usually over before this thread even looks). The alarm may have
          // been re-armed meanwhile: an extra check is harmless.
          int64_t poll_at = alarm->armed_at_ns.load(std::memory_order_relaxed) + kLimitPollNs;
          if (poll_at <= now) {
            alarm->isolate->RequestInterrupt(alarm->poll, alarm->poll_data);  // thread-safe
            poll_at = now + kLimitPollNs;
          }
          next = std::min(next, poll_at);
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

int64_t DeadlineAfter(int64_t now, absl::Duration timeout) {
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
  enum class Kind { kCall, kLoad, kGet, kDescribe };
  Kind kind = Kind::kCall;
  std::string_view name;  // kCall: the function (empty: the default export); kGet: the property

  static Operation Call(std::string_view function) { return {Kind::kCall, function}; }
  static Operation Load() { return {Kind::kLoad, {}}; }
  static Operation Get(std::string_view property) { return {Kind::kGet, property}; }
  static Operation Describe() { return {Kind::kDescribe, {}}; }

  std::string Text() const {
    switch (kind) {
      case Kind::kLoad:
        return "loading the module";
      case Kind::kGet:
        return StrCat("reading ", name, " of the default export");
      case Kind::kDescribe:
        return "reading the default export";
      case Kind::kCall:
        break;
    }
    if (name.empty()) return "call to the default export";
    return StrCat("call to ", name, "()");
  }
};

class Instance;
// The instance whose JS this thread runs (JsScope), for the fatal out-of-memory report, which
// V8 delivers without a data pointer. Entries can nest (a host callback that calls into
// another plugin), so each scope restores the one it replaced.
thread_local Instance* t_entered = nullptr;

class Instance {
 public:
  // `*abandoned` (when given) is set when loading failed because V8 could not recover the
  // isolate (Abandon): that module must not be loaded again in this process.
  static absl::StatusOr<std::unique_ptr<Instance>> Create(const std::string& path,
                                                          const ModuleOptions& options,
                                                          bool* abandoned = nullptr);
  ~Instance();

  absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                   absl::Duration timeout);
  absl::StatusOr<std::string> CallArgs(std::string_view function, std::span<const Arg> args,
                                       absl::Duration timeout);
  absl::StatusOr<std::string> Get(std::string_view property);
  absl::StatusOr<std::string> DescribeDefault(std::string_view names_json);

  // True once a limit was hit: the isolate must not run again.
  bool poisoned() const { return poisoned_ || abandoned_; }
  // True once V8 reported a fatal out-of-memory in this isolate: it was abandoned (never
  // entered or disposed of again, its memory is not returned), and its owner must not be
  // destroyed (release it instead).
  bool abandoned() const { return abandoned_; }

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

  // One entry into this instance's JS: the isolate's lock and scopes, and the deadline, armed
  // for as long as the scope lives. Made only by Enter(). Finish() disarms it and says what
  // stopped the JS, if anything did.
  class JsScope {
   public:
    JsScope(Instance* instance, absl::Duration timeout);
    ~JsScope();
    JsScope(const JsScope&) = delete;
    JsScope& operator=(const JsScope&) = delete;

    v8::Local<v8::Context> context() const { return context_; }
    int64_t deadline_ns() const { return deadline_ns_; }
    // Disarms the deadline and returns `result`, unless a limit stopped the JS: then the
    // limit's error (DeadlineExceeded, ResourceExhausted), and the isolate is poisoned.
    absl::StatusOr<std::string> Finish(const Operation& operation, absl::Duration timeout,
                                       absl::StatusOr<std::string> result);

   private:
    Instance* const instance_;
    Instance* const previous_entered_;
    const int64_t start_ns_;
    const int64_t deadline_ns_;
    bool armed_ = true;
    v8::Locker locker_;
    v8::Isolate::Scope isolate_scope_;
    v8::HandleScope handles_;
    v8::Local<v8::Context> context_;
    v8::Context::Scope context_scope_;
  };

  // Runs `body(scope)`, which returns the entry's result, inside a JsScope: the only way into
  // this instance's JS. Also the place where a fatal out-of-memory report lands (OnFatalOom
  // jumps back here): the isolate is then abandoned and the result is ResourceExhausted.
  template <typename Body>
  absl::StatusOr<std::string> Enter(const Operation& operation, absl::Duration timeout,
                                    Body&& body);
  template <typename Body>
  __attribute__((noinline)) void RunScoped(const Operation& operation, absl::Duration timeout,
                                           Body& body, absl::StatusOr<std::string>* result);
  static void OnFatalOom(const char* location, bool is_heap_oom);
  // After OnFatalOom: forget the isolate without touching it.
  absl::Status Abandon(const Operation& operation);

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
  absl::Status LoadEntered(JsScope& scope);
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
  // An interrupt the watchdog requests during long calls: stops the JS when the isolate holds
  // more ArrayBuffer and WebAssembly memory than its limit.
  static void PollLimits(v8::Isolate* isolate, void* data);
  // Whether ArrayBuffer and WebAssembly memory (V8's external memory: the allocator caps only
  // the former) exceed options_.array_buffer_limit_bytes, after a full collection when the
  // first look says so (buffers nobody holds count until they are swept).
  bool ExternalMemoryOverBudget();
  static void ConsoleCallback(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void HostCallCallback(const v8::FunctionCallbackInfo<v8::Value>& info);
  static void OnUncaughtMessage(v8::Local<v8::Message> message, v8::Local<v8::Value> error);
  void InstallGlobals(v8::Local<v8::Context> context);
  void Log(std::string_view level, std::string_view message) const {
    if (options_.log) options_.log(level, message);
  }

  // The default export's `function` (or the default export itself when it is empty).
  absl::StatusOr<Target> FindFunction(v8::Local<v8::Context> context, std::string_view function);
  // Calls the target and returns the result as JSON.
  absl::StatusOr<std::string> Invoke(JsScope& scope, const Operation& operation,
                                     const Target& target, ArgVector& args);
  // An internalized JS string for a property name, cached: the same few names every call.
  v8::Local<v8::String> Key(std::string_view name);

  // Runs `body`, awaits a returned promise (running timers), and, when `json` is set,
  // serializes the result into it (toJSON may loop: the scope's deadline covers it). Turns
  // exceptions into a Status whose message describes them — also under the deadline, since a
  // thrown value's toString and `stack` getter are plugin code.
  template <typename Body>
  absl::Status RunJs(JsScope& scope, const Operation& operation, std::string* json, Body body);
  // Waits for a promise to settle: microtasks, then timers while any is pending and the
  // deadline allows. Returns the fulfilled value, or the value itself when it is no promise.
  absl::StatusOr<v8::Local<v8::Value>> Settle(v8::Local<v8::Context> context,
                                              v8::Local<v8::Value> value,
                                              const Operation& operation, int64_t deadline_ns);
  absl::StatusOr<std::string> ToJson(v8::Local<v8::Context> context, v8::Local<v8::Value> value,
                                     const Operation& operation);
  // The watchdog or the heap limit stopped this isolate's JS.
  bool Stopped() const { return alarm_.fired() || heap_limit_hit_.load() || external_limit_hit_; }

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
  bool external_limit_hit_ = false;  // PollLimits stopped the JS
  int near_heap_limit_calls_ = 0;
  bool deadline_passed_ = false;  // Settle() found the deadline too close for the next timer
  bool terminated_ = false;       // a TryCatch of the current entry saw the termination
  bool poisoned_ = false;
  // Where OnFatalOom returns to: the innermost Enter() of this instance on this thread.
  sigjmp_buf oom_jump_;
  bool oom_jump_set_ = false;
  Instance* oom_previous_entered_ = nullptr;  // t_entered to restore after the jump
  const char* oom_location_ = nullptr;        // V8's name for where the allocation failed
  bool abandoned_ = false;
};

Instance::Instance(std::string path, const ModuleOptions& options)
    : path_(std::move(path)), options_(options) {}

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(const std::string& path,
                                                           const ModuleOptions& options,
                                                           bool* abandoned) {
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
  instance->alarm_.poll = &Instance::PollLimits;
  instance->alarm_.poll_data = instance.get();
  GetWatchdog().Register(&instance->alarm_);
  isolate->SetData(0, instance.get());
  isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  isolate->AddNearHeapLimitCallback(&Instance::NearHeapLimit, instance.get());
  if (options.abandon_isolate_on_fatal_oom) isolate->SetOOMErrorHandler(&Instance::OnFatalOom);
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
  if (!status.ok()) {
    if (instance->abandoned()) {
      (void)instance.release();  // never touched again
      if (abandoned != nullptr) *abandoned = true;
    }
    return status;
  }
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
  // An abandoned isolate is never touched again: its owner releases the Instance instead of
  // destroying it (V8Module), so this is not reached for one.
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
  // Room for the stack to unwind, once. Called again, something termination does not stop (a
  // C++ built-in such as Array.prototype.fill over a huge array) keeps allocating: more room
  // would let it take the machine's memory, so V8 is left to report the out-of-memory, which
  // Enter() turns into an abandoned isolate.
  if (self->near_heap_limit_calls_++ > 0) return current;
  return current + kHeapHeadroom;
}

void Instance::PollLimits(v8::Isolate* isolate, void* data) {
  auto* self = static_cast<Instance*>(data);
  // One object V8 let past the heap limit (a string flattened to hundreds of MiB): the
  // near-heap-limit callback only runs when a collection finds the heap full, which may not
  // happen before the call ends.
  v8::HeapStatistics heap;
  isolate->GetHeapStatistics(&heap);
  if (heap.used_heap_size() > self->options_.heap_limit_bytes + kHeapHeadroom) {
    self->heap_limit_hit_.store(true);
    isolate->TerminateExecution();
    return;
  }
  // Once over, stay stopped: a termination does not outlive the JS it unwound.
  if (!self->external_limit_hit_ && !self->ExternalMemoryOverBudget()) return;
  self->external_limit_hit_ = true;
  isolate->TerminateExecution();
}

bool Instance::ExternalMemoryOverBudget() {
  const int64_t budget = static_cast<int64_t>(options_.array_buffer_limit_bytes);
  if (isolate_->AdjustAmountOfExternalAllocatedMemory(0) <= budget) return false;
  isolate_->LowMemoryNotification();
  return isolate_->AdjustAmountOfExternalAllocatedMemory(0) > budget;
}

void Instance::OnFatalOom(const char* location, bool /*is_heap_oom*/) {
  Instance* self = t_entered;
  // Only an out-of-memory of an isolate this thread entered through Enter() can be survived.
  // Anything else (a background thread of V8's, another isolate) ends the process, as V8
  // intends when this returns.
  if (self == nullptr || !self->oom_jump_set_ || v8::Isolate::TryGetCurrent() != self->isolate_) {
    return;
  }
  self->oom_location_ = location;
  siglongjmp(self->oom_jump_, 1);
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

Instance::JsScope::JsScope(Instance* instance, absl::Duration timeout)
    : instance_(instance),
      previous_entered_(t_entered),
      start_ns_(MonotonicNowNs()),
      deadline_ns_(DeadlineAfter(start_ns_, timeout)),
      locker_(instance->isolate_),
      isolate_scope_(instance->isolate_),
      handles_(instance->isolate_),
      context_(instance->context_.Get(instance->isolate_)),
      context_scope_(context_) {
  t_entered = instance;
  instance->deadline_passed_ = false;
  instance->terminated_ = false;
  instance->external_limit_hit_ = false;
  instance->allocator_->ResetExceeded();
  GetWatchdog().Arm(&instance->alarm_, deadline_ns_, start_ns_);
}

Instance::JsScope::~JsScope() {
  if (armed_) GetWatchdog().Disarm(&instance_->alarm_);
  // A termination that landed as the entry returned must not kill the next one.
  instance_->isolate_->CancelTerminateExecution();
  t_entered = previous_entered_;
}

absl::StatusOr<std::string> Instance::JsScope::Finish(const Operation& operation,
                                                      absl::Duration timeout,
                                                      absl::StatusOr<std::string> result) {
  Instance* self = instance_;
  bool fired = GetWatchdog().Disarm(&self->alarm_);
  armed_ = false;
  self->isolate_->CancelTerminateExecution();
  if (self->heap_limit_hit_.load()) {
    self->poisoned_ = true;
    return absl::ResourceExhaustedError(StrCat(operation.Text(), " exceeded the heap limit of ",
                                               self->options_.heap_limit_bytes >> 20, " MiB"));
  }
  // Memory a call leaves behind counts too: the next call would start over the limit.
  if (self->external_limit_hit_ || self->ExternalMemoryOverBudget()) {
    self->poisoned_ = true;
    return absl::ResourceExhaustedError(
        StrCat(operation.Text(), " exceeded the ArrayBuffer and WebAssembly memory limit of ",
               self->options_.array_buffer_limit_bytes >> 20, " MiB"));
  }
  if (fired || self->deadline_passed_ || self->terminated_) {
    self->poisoned_ = true;
    return absl::DeadlineExceededError(
        StrCat(operation.Text(), " exceeded its time budget of ", absl::FormatDuration(timeout)));
  }
  if (self->allocator_->exceeded() && !result.ok()) {
    return absl::ResourceExhaustedError(
        StrCat(operation.Text(), " exceeded the ArrayBuffer limit of ",
               self->options_.array_buffer_limit_bytes >> 20, " MiB"));
  }
  return result;
}

// sigsetjmp/siglongjmp rather than anything gentler because V8 offers nothing gentler: its
// fatal out-of-memory report (OnFatalOom) must not return. The jump lands here, above every
// frame of the entry (RunScoped and V8's own), none of which is resumed: the isolate's lock,
// its scopes, its heap, its libuv loop and whatever V8 was doing are left as they were and
// the isolate is never touched again (Abandon). Nothing of plugline's is held in the frames
// skipped but allocations (leaked with the isolate); the lock callers hold (V8Module's mutex)
// is taken above this frame.
template <typename Body>
absl::StatusOr<std::string> Instance::Enter(const Operation& operation, absl::Duration timeout,
                                            Body&& body) {
  if (abandoned_) return absl::FailedPreconditionError("the isolate was abandoned");
  absl::StatusOr<std::string> result = absl::UnknownError("not run");
  oom_previous_entered_ = t_entered;
  if (sigsetjmp(oom_jump_, 0) != 0) return Abandon(operation);
  oom_jump_set_ = true;
  RunScoped(operation, timeout, body, &result);
  oom_jump_set_ = false;
  return result;
}

template <typename Body>
void Instance::RunScoped(const Operation& operation, absl::Duration timeout, Body& body,
                         absl::StatusOr<std::string>* result) {
  JsScope scope(this, timeout);
  *result = scope.Finish(operation, timeout, body(scope));
}

absl::Status Instance::Abandon(const Operation& operation) {
  oom_jump_set_ = false;
  abandoned_ = true;
  t_entered = oom_previous_entered_;
  // The watchdog must let go of the isolate before it is forgotten.
  GetWatchdog().Disarm(&alarm_);
  GetWatchdog().Unregister(&alarm_);
  std::string message = StrCat(
      operation.Text(), " ran out of memory in a way V8 cannot stop in process (",
      oom_location_ != nullptr ? oom_location_ : "out of memory",
      "; heap limit ", options_.heap_limit_bytes >> 20,
      " MiB): its isolate was abandoned and its memory stays allocated until the process ends; "
      "the plugin does not run again in this process (isolation: process contains this)");
  Log("error", message);
  return absl::ResourceExhaustedError(message);
}

template <typename Body>
absl::Status Instance::RunJs(JsScope& scope, const Operation& operation, std::string* json,
                             Body body) {
  v8::Local<v8::Context> context = scope.context();
  v8::HandleScope handles(isolate_);
  v8::TryCatch try_catch(isolate_);
  v8::MaybeLocal<v8::Value> maybe = body();
  v8::Local<v8::Value> value;
  absl::Status status;
  bool ok = maybe.ToLocal(&value);
  if (ok) {
    absl::StatusOr<v8::Local<v8::Value>> settled =
        Settle(context, value, operation, scope.deadline_ns());
    if (!settled.ok()) {
      status = settled.status();
    } else if (json != nullptr && !Stopped() && !deadline_passed_) {
      absl::StatusOr<std::string> text = ToJson(context, *settled, operation);
      if (text.ok()) {
        *json = *std::move(text);
      } else {
        status = text.status();
      }
    }
  }
  if (try_catch.HasTerminated()) terminated_ = true;
  // Stopped: JsScope::Finish reports the limit; describing the exception would be pointless.
  if (Stopped() || terminated_) return absl::AbortedError("stopped");
  if (!status.ok()) return status;
  if (!ok) {
    if (try_catch.HasCaught()) {
      return absl::UnknownError(
          DescribeException(isolate_, context, try_catch.Exception(), try_catch.Message()));
    }
    return absl::UnknownError(StrCat(operation.Text(), " failed"));
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
        if (operation.kind == Operation::Kind::kLoad) return absl::UnknownError(description);
        return absl::UnknownError(StrCat(operation.Text(), " rejected: ", description));
      }
      case v8::Promise::kPending:
        break;
    }
    if (Stopped()) return value;  // the caller reports the deadline or the heap limit
    // Only a timer can settle it now; with none pending, waiting is pointless.
    if (event_loop_->pending_timers() == 0) {
      return absl::DeadlineExceededError(
          operation.kind == Operation::Kind::kLoad
              ? std::string("the module's top level awaits a promise that never settles")
                         : StrCat(operation.Text(), " returned a promise that never settled"));
    }
    int64_t due_ms = event_loop_->NextDueMs();
    if (due_ms < 0) {  // a timer of a terminated pass: nothing is really scheduled
      return absl::DeadlineExceededError(
          StrCat(operation.Text(), " returned a promise that never settled"));
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
        StrCat(operation.Text(), " returned a value that is not JSON-serializable: ",
               try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
  }
  std::string text = StringToUtf8(isolate_, json);
  if (text == "undefined") return std::string("null");  // functions, symbols
  return text;
}

absl::Status Instance::Load() {
  std::string canonical = RealPath(path_);
  if (canonical.empty()) {
    return absl::NotFoundError(StrCat("cannot load ", path_, ": ", strerror(errno)));
  }
  root_ = RealPath(options_.root_dir.empty() ? DirOf(canonical) : options_.root_dir);
  if (root_.empty()) {
    return absl::NotFoundError(StrCat("plugin root ", options_.root_dir, " does not exist"));
  }
  entry_path_ = canonical;
  absl::StatusOr<std::string> loaded =
      Enter(Operation::Load(), options_.load_timeout,
            [&](JsScope& scope) -> absl::StatusOr<std::string> {
              absl::Status status = LoadEntered(scope);
              if (!status.ok()) return status;
              return std::string();
            });
  return loaded.status();
}

absl::Status Instance::LoadEntered(JsScope& scope) {
  v8::Local<v8::Context> context = scope.context();
  v8::Local<v8::Module> module;
  {
    // With a wrapper, the wrapper is the entry and imports the file as "plugline:plugin". The
    // file is compiled first all the same, so that its syntax errors read as they would
    // without a wrapper (file:line:col), not as a failed import of the wrapper's.
    absl::StatusOr<v8::Local<v8::Module>> compiled = CompileFile(entry_path_);
    if (!compiled.ok()) return compiled.status();
    if (!options_.wrapper_source.empty()) {
      compiled = CompileSource(StrCat("plugline:wrapper:", entry_path_), options_.wrapper_source);
      if (!compiled.ok()) return compiled.status();
    }
    module = *compiled;
  }
  module_.Reset(isolate_, module);
  int64_t start = MonotonicNowNs();
  int64_t compile_before = stats_.compile_ns;
  const Operation load = Operation::Load();
  // With top-level await, Evaluate returns a promise: RunJs settles it like a call's.
  absl::Status evaluated = RunJs(scope, load, nullptr, [&]() -> v8::MaybeLocal<v8::Value> {
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

absl::StatusOr<std::string> Instance::Invoke(JsScope& scope, const Operation& operation,
                                             const Target& target, ArgVector& args) {
  std::string json;
  absl::Status status = RunJs(scope, operation, &json, [&]() -> v8::MaybeLocal<v8::Value> {
    return target.function->Call(scope.context(), target.receiver, static_cast<int>(args.size()),
                                 args.data());
  });
  if (!status.ok()) return status;
  return json;
}

absl::StatusOr<std::string> Instance::Call(std::string_view function, std::string_view args_json,
                                           absl::Duration timeout) {
  const Operation operation = Operation::Call(function);
  return Enter(operation, timeout, [&](JsScope& scope) -> absl::StatusOr<std::string> {
    v8::Local<v8::Context> context = scope.context();
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
    return Invoke(scope, operation, *target, args);
  });
}

absl::StatusOr<std::string> Instance::CallArgs(std::string_view function,
                                               std::span<const Arg> args_in,
                                               absl::Duration timeout) {
  const Operation operation = Operation::Call(function);
  return Enter(operation, timeout, [&](JsScope& scope) -> absl::StatusOr<std::string> {
    v8::Local<v8::Context> context = scope.context();
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
    return Invoke(scope, operation, *target, args);
  });
}

// Get and DescribeDefault read the plugin's own values (a `meta` getter, toJSON): they run
// under the load budget, as a worker process bounds them (process_runtime.cc).
absl::StatusOr<std::string> Instance::Get(std::string_view property) {
  const Operation operation = Operation::Get(property);
  return Enter(operation, options_.load_timeout, [&](JsScope& scope) -> absl::StatusOr<std::string> {
    v8::Local<v8::Context> context = scope.context();
    v8::Local<v8::Value> target = default_export_.Get(isolate_);
    if (!target->IsObject()) return std::string("null");
    v8::TryCatch try_catch(isolate_);
    v8::Local<v8::Value> value;
    v8::Local<v8::String> json;
    if (!target.As<v8::Object>()->Get(context, V8String(isolate_, property)).ToLocal(&value) ||
        (!value->IsUndefined() && !v8::JSON::Stringify(context, value).ToLocal(&json))) {
      if (try_catch.HasTerminated()) terminated_ = true;
      if (Stopped() || terminated_) return absl::AbortedError("stopped");  // Finish says why
      return absl::UnknownError(StrCat(
          path_, ": cannot read ", property, " of the default export: ",
          try_catch.HasCaught() ? ToStdString(isolate_, try_catch.Exception()) : "unknown"));
    }
    if (value->IsUndefined()) return std::string("null");
    std::string text = StringToUtf8(isolate_, json);
    return text == "undefined" ? std::string("null") : text;
  });
}

absl::StatusOr<std::string> Instance::DescribeDefault(std::string_view names_json) {
  const Operation operation = Operation::Describe();
  return Enter(operation, options_.load_timeout, [&](JsScope& scope) -> absl::StatusOr<std::string> {
    v8::Local<v8::Context> context = scope.context();
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
          // A getter runs here: plugin code, under this entry's deadline.
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
      if (try_catch.HasTerminated()) terminated_ = true;
    }
    out += "]}";
    return out;
  });
}

// ---- the Module and Runtime the interface sees ---------------------------------------------

class V8Module final : public Module {
 public:
  V8Module(std::string path, ModuleOptions options, std::unique_ptr<Instance> instance)
      : path_(std::move(path)), options_(std::move(options)), instance_(std::move(instance)) {}
  ~V8Module() override {
    absl::MutexLock lock(&mu_);
    if (instance_ != nullptr && instance_->abandoned()) (void)instance_.release();
  }

  absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                   const CallLimits& limits) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    return Recycle(instance_->Call(function, args_json, limits.timeout));
  }

  absl::StatusOr<std::string> CallArgs(std::string_view function, std::span<const Arg> args,
                                       const CallLimits& limits) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    return Recycle(instance_->CallArgs(function, args, limits.timeout));
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
    return Recycle(instance_->Get(property));
  }

  absl::StatusOr<std::string> DescribeDefault(std::string_view names_json) override {
    absl::MutexLock lock(&mu_);
    absl::Status ready = EnsureInstance();
    if (!ready.ok()) return ready;
    return Recycle(instance_->DescribeDefault(names_json));
  }

 private:
  absl::Status EnsureInstance() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!abandoned_.ok()) return abandoned_;
    if (instance_ != nullptr) return absl::OkStatus();
    bool abandoned = false;
    absl::StatusOr<std::unique_ptr<Instance>> fresh =
        Instance::Create(path_, options_, &abandoned);
    if (!fresh.ok()) {
      // Create() already forgot an abandoned isolate; it must not be rebuilt either.
      if (abandoned) abandoned_ = fresh.status();
      return fresh.status();
    }
    instance_ = *std::move(fresh);
    return absl::OkStatus();
  }
  // An isolate that hit a limit is discarded; the next call builds a new one. One that V8
  // could not recover (abandoned) is forgotten and the module answers every later call with
  // the error that abandoned it: each abandoned isolate keeps its heap until the process
  // ends, so a module gets one.
  absl::StatusOr<std::string> Recycle(absl::StatusOr<std::string> result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (instance_ != nullptr && instance_->abandoned()) {
      (void)instance_.release();
      abandoned_ = result.status();
    } else if (instance_ != nullptr && instance_->poisoned()) {
      instance_.reset();
    }
    return result;
  }

  const std::string path_;
  const ModuleOptions options_;
  absl::Mutex mu_;
  std::unique_ptr<Instance> instance_ ABSL_GUARDED_BY(mu_);
  absl::Status abandoned_ ABSL_GUARDED_BY(mu_);
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

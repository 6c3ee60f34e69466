// The JS runtime interface: everything core knows about running JavaScript.
//
// One implementation exists, V8 (src/js/v8/), built as a separate shared module
// (libplugline-v8.so) that GetRuntime() loads the first time a JS plugin must run: loading V8
// costs ≈ 57 ms per process, so a process that runs no JS plugin never pays it. A build with
// PLUGLINE_WITH_V8=OFF has no backend; GetRuntime() then returns Unavailable with that reason.
//
// Errors: NotFound (no such file, no such export), DeadlineExceeded (time budget),
// ResourceExhausted (heap or ArrayBuffer limit), Unknown (the JS code threw, or failed to
// compile: the message has file:line and the exception), Unavailable (no backend).
#ifndef PLUGLINE_JS_RUNTIME_H_
#define PLUGLINE_JS_RUNTIME_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace plugline::js {

// Bumped whenever this header changes in a way the backend module must match.
inline constexpr int kBackendInterfaceVersion = 5;

// Where console.* output of a module goes. `level` is "log", "info", "warn", "error" or
// "debug". Called on the thread that runs the module.
using LogFunction = std::function<void(std::string_view level, std::string_view message)>;

// A call from JS into the host: JS `__plugline_host_call(request)` (a string, by convention
// JSON) returns the function's answer as a string, or throws an Error with the status message.
// Called synchronously on the thread that runs the module, during a Call or a load.
using HostCallFunction = std::function<absl::StatusOr<std::string>(std::string_view request)>;

// Where a bare import goes (ModuleOptions::resolve_import): the file to load, and the folder
// that file's own relative imports must stay inside (its package).
struct ResolvedImport {
  std::string path;
  std::string root;
};
using ImportResolver = std::function<absl::StatusOr<ResolvedImport>(std::string_view specifier,
                                                                    std::string_view referrer)>;

// An ES module served by plugline under a bare specifier (`import { tool } from
// "@opencode-ai/plugin"`), from source text.
struct BuiltinModule {
  std::string specifier;
  std::string source;
};

struct ModuleOptions {
  // Imports must resolve inside this directory. Empty: the module file's own directory.
  std::string root_dir;
  // V8 heap limit of the module's isolate.
  size_t heap_limit_bytes = 128u << 20;
  // Total ArrayBuffer memory the module may hold.
  size_t array_buffer_limit_bytes = 64u << 20;
  // Budget for loading: compiling and evaluating the module's top level.
  absl::Duration load_timeout = absl::Seconds(5);
  // Receives console.* output; empty: discarded.
  LogFunction log;
  // Where V8 code caches are kept, one file per source file named by the SHA-256 of its
  // content and V8's cache version tag, so unchanged plugins compile from cache in a new
  // process. Written atomically. Empty: no code cache.
  std::string code_cache_dir;
  // Process isolation only: the worker's address-space budget (RLIMIT_DATA). 0: heap limit +
  // ArrayBuffer limit + 256 MiB for V8 itself.
  size_t process_memory_limit_bytes = 0;
  // Modules importable by bare specifier. Other bare specifiers fail to import.
  std::vector<BuiltinModule> builtin_modules;
  // Non-empty: this ES module source is the entry instead of the file, and the file is what it
  // imports as "plugline:plugin" (the file's own imports are still confined to root_dir). The
  // default export of the wrapper is what Call/Get/DescribeDefault address. Lets plugline hold
  // per-plugin state (an OpenCode plugin's hooks object) in JS between calls.
  std::string wrapper_source;
  // Receives __plugline_host_call() requests; empty: the call throws "no host callback".
  HostCallFunction host_call;
  // Resolves bare imports that are not builtin modules ("zod", "@scope/pkg/sub", "#internal")
  // of the file `referrer`. Empty: they fail to import.
  ImportResolver resolve_import;
  // What resolve_import was made from (js/opencode_plugin.h AddNodeImports): a worker process
  // makes its own resolver from them.
  std::vector<std::string> node_modules_dirs;
  // The node runtime only: the module's working directory (process.cwd()); empty: the
  // caller's.
  std::string working_directory;
  // When V8 reports a fatal out-of-memory it cannot recover from (a C++ built-in allocating
  // past the heap limit), abandon the module's isolate and fail the call with
  // ResourceExhausted, instead of letting V8 end the process. The abandoned isolate's memory
  // stays allocated, and the module fails every later call. A worker process sets this to
  // false: it may die, and its parent starts a fresh one.
  bool abandon_isolate_on_fatal_oom = true;
};

// One argument of Module::CallArgs, passed to JS without a JSON round trip.
struct Arg {
  enum class Kind { kUndefined, kNull, kBool, kNumber, kString, kJson };
  Kind kind = Kind::kUndefined;
  bool boolean = false;
  double number = 0;
  std::string_view text;  // kString: the string (UTF-8); kJson: JSON text, parsed in JS

  static Arg Null() { return Arg{Kind::kNull, false, 0, {}}; }
  static Arg Bool(bool b) { return Arg{Kind::kBool, b, 0, {}}; }
  static Arg Number(double n) { return Arg{Kind::kNumber, false, n, {}}; }
  static Arg String(std::string_view s) { return Arg{Kind::kString, false, 0, s}; }
  static Arg Json(std::string_view json) { return Arg{Kind::kJson, false, 0, json}; }
};

// How a module is isolated from the host process.
enum class Isolation {
  kInProcess,  // an isolate in this process: fast; stops loops, heap and ArrayBuffer blow-ups
  kProcess,    // an isolate in a worker process under setrlimit and a kill timer: also stops
               // what V8 cannot interrupt (one huge allocation, long built-ins)
};

struct CallLimits {
  absl::Duration timeout = absl::Seconds(5);
};

// A loaded ES module with its own isolate. Calls are serialized; a Module may be used from
// any thread. A module that hit a limit is discarded and loaded again on the next call.
class Module {
 public:
  virtual ~Module() = default;

  // Calls `function` of the module's default export (the default export itself when
  // `function` is empty) with the elements of `args_json` (a JSON array) as arguments, with
  // the default export as `this`. A returned promise is awaited. Returns the result as JSON
  // ("null" for undefined).
  virtual absl::StatusOr<std::string> Call(std::string_view function, std::string_view args_json,
                                           const CallLimits& limits) = 0;

  // Call() with typed arguments: no JSON parse on the way in. Same result and errors.
  virtual absl::StatusOr<std::string> CallArgs(std::string_view function,
                                               std::span<const Arg> args,
                                               const CallLimits& limits) = 0;

  // The JSON of a property of the default export ("null" when it is undefined).
  virtual absl::StatusOr<std::string> Get(std::string_view property) = 0;

  // The type of the default export ("object", "function", "undefined", ...) and, for an
  // object, which of `names` are functions: {"type":"object","functions":["match"]}.
  virtual absl::StatusOr<std::string> DescribeDefault(std::string_view names_json) = 0;

  // Every file of the module graph (canonical absolute paths), the entry file first: what a
  // cache of this module's metadata must be keyed on.
  virtual std::vector<std::string> files() = 0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  // "V8 10.2.154.26-node.37".
  virtual std::string engine() const = 0;
  // Loads and evaluates the module at `path` (absolute).
  virtual absl::StatusOr<std::unique_ptr<Module>> Load(const std::string& path,
                                                       const ModuleOptions& options) = 0;
};

// The process-wide runtime, loading the backend module on first use. Thread-safe. The result
// is cached, failures included.
absl::StatusOr<Runtime*> GetRuntime();

// The runtime for an isolation mode: kInProcess is GetRuntime(); kProcess runs each module in
// its own worker process (plugline-js-worker, installed next to the backend module) and never
// loads V8 into this process.
absl::StatusOr<Runtime*> GetRuntime(Isolation isolation);

// The `node` runtime: each module in its own Node.js worker process (plugline-node-worker,
// installed next to the backend), an ordinary Node program with built-in modules, `process`,
// CommonJS and N-API addons. Same interface, results and status codes; what differs is what a
// module can reach (everything Node can) and that a loop is stopped by killing the worker.
absl::StatusOr<Runtime*> GetNodeRuntime();

// True once the backend module is loaded into this process.
bool RuntimeLoaded();

}  // namespace plugline::js

// The one symbol the backend module exports. Returns nullptr and sets *error (a static
// string) on failure.
extern "C" typedef plugline::js::Runtime* (*plugline_js_backend_create_fn)(int interface_version,
                                                                        const char** error);

#endif  // PLUGLINE_JS_RUNTIME_H_

// Isolation::kProcess: js::Runtime over worker processes. Each loaded module gets its own
// plugline-js-worker (src/js/worker/), which runs the module in an ordinary in-process isolate
// under setrlimit; this side speaks newline-delimited JSON with it through exec::Child and
// enforces a kill timer. V8 is never loaded into this process.
//
// Results and errors are those of the in-process runtime (the worker sends the status code
// and message across). On top of them:
//  - a call that outlives its timeout by kKillGrace (a long built-in V8 cannot interrupt) has
//    the worker's process group SIGKILLed: DeadlineExceeded "call to f() exceeded its time
//    budget of 100ms";
//  - a worker that dies (RLIMIT_DATA hit by one huge allocation, a crash, a kill from outside)
//    fails the operation that noticed it: ResourceExhausted when the worker ran out of memory,
//    Unknown otherwise, with the signal or exit status and V8's last words;
//  - after a worker died or was killed, the next operation starts a fresh worker and loads
//    the module again (module state starts over, as after a limit hit in process).
//
// Costs (measured in src/js/README.md): starting a worker and loading a module ≈ 95 ms against
// ≈ 7 ms in process; a call adds a pipe round trip and JSON framing (≈ 30 µs), and ≈ 3–6 ms per
// MiB of arguments and result.
#ifndef PLUGLINE_JS_PROCESS_RUNTIME_H_
#define PLUGLINE_JS_PROCESS_RUNTIME_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "js/runtime.h"

namespace plugline::js {

// How long after a call's timeout the worker is killed: the worker's own watchdog stops
// JavaScript at the timeout and answers; only what V8 cannot interrupt is still running then.
inline constexpr absl::Duration kKillGrace = absl::Milliseconds(500);

// How long a worker may take to start and load V8 before it is given up on.
inline constexpr absl::Duration kWorkerStartBudget = absl::Seconds(10);

// Which program a process runtime starts.
enum class WorkerKind {
  kV8,    // plugline-js-worker: plugline's sandboxed V8 runtime, in a process of its own
  kNode,  // plugline-node-worker: Node.js (libnode), for plugins of the `node` runtime
};

// The runtime that starts `worker_path` once per loaded module. GetRuntime(Isolation::kProcess)
// and GetNodeRuntime() create one with the worker they find; tests and tools may create their
// own. Thread-safe; each Module serializes its own calls.
std::unique_ptr<Runtime> NewProcessRuntime(std::string worker_path,
                                           WorkerKind kind = WorkerKind::kV8);

// Where a file of plugline's backend directory (libplugline-v8.so, plugline-js-worker) may be,
// most specific first: `$<override_env>` alone when set; else <dir of the binary containing
// plugline>/plugline/<file>, <that dir>/<file> when the binary itself is in the backend
// directory, <that dir>/../lib/plugline/<file>, <that dir>/../<libdir>/plugline/<file>, and
// <install libdir>/plugline/<file>. Empty without V8. Implemented in runtime_loader.cc.
std::vector<std::string> BackendDirCandidates(std::string_view file_name, const char* override_env);

}  // namespace plugline::js

#endif  // PLUGLINE_JS_PROCESS_RUNTIME_H_

// Running a child process with libuv: the one way plugline starts programs, for
// `plugline run` and for exec plugins. No libuv type appears in this header.
#ifndef PLUGLINE_EXEC_PROCESS_H_
#define PLUGLINE_EXEC_PROCESS_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace plugline::exec {

struct ProcessSpec {
  // argv[0] is looked up on PATH when it contains no '/'.
  std::vector<std::string> argv;
  // Working directory; empty: the caller's.
  std::string cwd;
  // Added to (or replacing in) the caller's environment.
  std::vector<std::pair<std::string, std::string>> extra_env;

  // stdin: inherit the caller's, or feed `stdin_data` and close, or (neither) /dev/null.
  bool inherit_stdin = false;
  std::optional<std::string> stdin_data;

  // true: stdout and stderr share one pipe, so `output` holds both in exactly the order the
  // child wrote them (like 2>&1). false: stderr goes to `error_output`.
  bool merge_output = true;

  // Start the child in its own process group; signals on timeout go to the whole group.
  bool own_process_group = false;

  // Past this many bytes of output the child (group) is killed; 0 = no bound.
  size_t max_output_bytes = 0;

  // After this long the child gets SIGTERM, and SIGKILL `kill_grace` later. It also bounds
  // the drain: once the child exited, its output is read to EOF, but a grandchild that keeps
  // the pipe open is waited for at most 2 s and not past this deadline (a floor of 50 ms still
  // reads what the child wrote just before exiting).
  absl::Duration timeout = absl::InfiniteDuration();
  absl::Duration kill_grace = absl::Seconds(2);

  // Forward SIGINT, SIGTERM, SIGHUP and SIGQUIT received by this process to the child while
  // it runs (this process then survives them and reports the child's exit). SIGINT/SIGQUIT
  // are not forwarded when they came from the terminal, which already sent them to the child.
  bool forward_signals = false;

  // Called once with the child's pid right after it started (on the calling thread).
  std::function<void(int pid)> on_spawn;

  // Called with each chunk of output (stdout, or stdout+stderr when merged) as it arrives (on
  // the calling thread).
  std::function<void(std::string_view chunk)> on_output;
  // false: the output is only given to `on_output`, never collected in ProcessResult::output
  // (and error_output), so a command that prints without end costs no memory.
  bool collect_output = true;

  // The child gets SIGKILL when the thread that called RunProcess ends — with the process,
  // when that thread is the main thread: a `plugline run` that is SIGKILLed (or crashes)
  // does not leave its command running (PR_SET_PDEATHSIG, set between fork and exec; a parent
  // that died before that is noticed too). Only for a caller whose thread outlives the child:
  // the kernel ties the signal to the thread that forked, so a child started from a worker
  // thread that ends (a plugin loader) would be killed with it. Reaches the child only, not
  // what it starts, and is cleared by the kernel when the child runs a set-user-ID program.
  bool kill_with_parent = false;
  // Called about every `tick_interval` while the child runs (e.g. a progress line).
  std::function<void(absl::Duration elapsed)> on_tick;
  absl::Duration tick_interval = absl::Seconds(1);
};

struct ProcessResult {
  int exit_status = 0;     // valid when term_signal == 0
  int term_signal = 0;     // the signal that ended the child, or 0
  bool timed_out = false;
  bool output_limit_hit = false;
  std::string output;        // stdout, or stdout+stderr when merged
  std::string error_output;  // stderr when not merged
  absl::Duration elapsed;

  // The exit code a shell would report: the status, or 128 + signal.
  int ShellExitCode() const { return term_signal != 0 ? 128 + term_signal : exit_status; }
};

// Runs the process to completion. Fails only when it cannot be started: NotFound ("command
// not found: x"), PermissionDenied ("permission denied: x"), InvalidArgument (empty argv).
// Every outcome after a successful start — exit code, signal, timeout, output bound — is in
// the result. Each call uses its own libuv loop: safe to call from several threads. It returns
// when the child exited and its output reached EOF, or when the drain after the exit ended
// (2 s, or the timeout deadline when that is sooner; see `timeout`).
absl::StatusOr<ProcessResult> RunProcess(const ProcessSpec& spec);

}  // namespace plugline::exec

#endif  // PLUGLINE_EXEC_PROCESS_H_

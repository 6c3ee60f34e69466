// A long-lived child process spoken to in lines over its stdin and stdout, with libuv: the
// transport of the JS worker process (src/js/process_runtime.cc) and of persistent exec
// plugins. No libuv type appears in this header.
//
// One Child is one run of one process. It never restarts itself: a caller that wants a fresh
// process after a crash starts a new Child (the caller knows what state must be rebuilt).
// Framing is one '\n'-terminated line per message in each direction; what a line means (ids,
// replies, notifications) is the caller's protocol.
#ifndef PLUGLINE_EXEC_CHILD_H_
#define PLUGLINE_EXEC_CHILD_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace plugline::exec {

struct ChildSpec {
  // argv[0] is looked up on PATH when it contains no '/'.
  std::vector<std::string> argv;
  // Working directory; empty: the caller's.
  std::string cwd;
  // Added to (or replacing in) the caller's environment.
  std::vector<std::pair<std::string, std::string>> extra_env;

  // Start the child as the leader of its own session and process group; Kill() then signals
  // the whole group, so nothing the child started outlives it.
  bool own_process_group = true;

  // Where the child's stderr goes. kCapture keeps the last `stderr_tail_bytes` bytes, for
  // error messages (stderr_tail()). Captured stderr is read only while a call of this object
  // runs: a child that writes more than a pipe's worth (64 KiB) of stderr between calls blocks
  // until the next call.
  enum class Stderr { kInherit, kDiscard, kCapture };
  Stderr stderr_mode = Stderr::kCapture;
  size_t stderr_tail_bytes = 16 * 1024;
  // With Stderr::kCapture, also called with each chunk of stderr as it is read (besides the
  // tail), on the thread running the Child call that read it (the destructor included). May
  // be null.
  std::function<void(std::string_view chunk)> on_stderr;

  // A stdout line longer than this kills the child (ReadLine() then fails with
  // ResourceExhausted). 0: no bound.
  size_t max_line_bytes = 256u << 20;
};

// How a child ended.
struct ChildExit {
  int exit_status = 0;  // valid when term_signal == 0
  int term_signal = 0;  // the signal that ended the child, or 0

  // "exited with status 3", "was killed by signal 9 (Killed)".
  std::string Describe() const;
};

// Not thread-safe: one thread at a time may call a Child (any thread; calls must be ordered,
// e.g. by a mutex). Between calls nothing happens on the caller's side: output the child
// writes waits in the pipe, and its exit is noticed by the next call.
class Child {
 public:
  // Starts the process. Fails only when it cannot be started: NotFound ("command not found:
  // x"), PermissionDenied, InvalidArgument (empty argv), Internal.
  static absl::StatusOr<std::unique_ptr<Child>> Start(const ChildSpec& spec);

  // Kills the child (SIGKILL, to its group when it has one) if it still runs, and reaps it.
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  int pid() const;

  // Writes `line` and a '\n' to the child's stdin, reading its stdout and stderr meanwhile
  // (so a child that answers while a large line is still being written cannot deadlock with
  // us). `line` must not contain '\n'. DeadlineExceeded when the child has not taken the whole
  // line by `deadline`; Unavailable when the child closed its stdin or exited. A SIGPIPE this
  // raises is blocked and consumed on the calling thread.
  absl::Status WriteLine(std::string_view line, absl::Time deadline);

  // The next line of the child's stdout, without its '\n'. DeadlineExceeded when no whole line
  // arrived by `deadline` (the child keeps running: Kill() it if it must not); Unavailable when
  // the child closed its stdout (usually: it exited; Wait() says how); ResourceExhausted when
  // the line passed max_line_bytes (the child was killed).
  absl::StatusOr<std::string> ReadLine(absl::Time deadline);

  // Closes the child's stdin (it reads EOF: a polite request to exit). Later WriteLine calls
  // fail with Unavailable.
  void CloseInput();

  // Sends `signal` to the child (its group when own_process_group). A no-op once it exited.
  void Kill(int signal);

  // Waits for the child to exit, up to `deadline`; nullopt when it still runs then. With
  // Stderr::kCapture it also waits (up to `deadline`) until stderr is read to its end, so that
  // stderr_tail() holds a crashed child's last words.
  std::optional<ChildExit> Wait(absl::Time deadline);

  // The child's exit, when it has been noticed (by ReadLine, WriteLine or Wait).
  std::optional<ChildExit> exit() const;

  // The last bytes of the child's stderr (Stderr::kCapture), as read so far.
  std::string stderr_tail() const;

  struct State;  // the libuv side, in child.cc

 private:
  explicit Child(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace plugline::exec

#endif  // PLUGLINE_EXEC_CHILD_H_

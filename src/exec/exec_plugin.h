// Exec hook plugins (the Antares protocol, docs/plugins-exec.md): a directory with `plugin.yaml`
// and a program, spoken to in one of two protocols (`protocol:` in the manifest):
//
// - oneshot (the default; ExecPlugin): each call runs the program once, writes the payload (one
//   JSON object) to its stdin and closes it, and reads one JSON object — the plugin's answer —
//   from its stdout. Processes are run with RunProcess (process.h).
//
// - persistent (PersistentExecPlugin): one long-lived process per plugin, started at the first
//   call, spoken to in newline-delimited JSON over its stdin and stdout (Child, child.h).
//   For each call plugline writes one line
//       {"id":<n>,"event":"<event>","payload":<payload>}\n
//   where <n> counts 1, 2, 3, … for each process (a restarted process starts again at 1),
//   <event> is a JSON string, and <payload> is the payload object as given (any newline in it,
//   which JSON only allows as whitespace between tokens, becomes a space; an empty payload is
//   written as {}). The plugin answers with one line holding one JSON object: `"id":<n>` plus
//   the oneshot answer fields (`deny`, `reason`, `arguments`, `result`, `notice`, same rules).
//   An empty line is ignored; an answer whose id is smaller than <n> (a late answer to an
//   earlier request) is discarded; a line that is not JSON, not an object, has no integer `id`
//   or a larger one, or is longer than 4 MiB is a protocol failure: the process is killed and
//   the call fails. A valid id with a mistyped field fails only that call.
//
// No libuv type appears in this header.
#ifndef PLUGLINE_EXEC_EXEC_PLUGIN_H_
#define PLUGLINE_EXEC_EXEC_PLUGIN_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/hooks.h"

namespace plugline::exec {

// Past this many bytes on stdout the plugin's process group is killed and the call fails.
inline constexpr size_t kExecPluginMaxStdoutBytes = size_t{4} << 20;
// stderr is kept for the log up to this many bytes; past it the call fails the same way.
inline constexpr size_t kExecPluginMaxStderrBytes = size_t{1} << 20;
// After the timeout the group gets SIGTERM, and SIGKILL this much later if the program still
// runs (what else is left in the group is SIGKILLed as soon as the program exited).
inline constexpr absl::Duration kExecPluginKillGrace = absl::Seconds(1);
// A persistent plugin's process gets this much time to start on top of `timeout_ms`, in the
// first call it serves (the protocol has no separate handshake; an interpreter's startup alone
// can exceed a hook's budget).
inline constexpr absl::Duration kExecPluginStartupAllowance = absl::Seconds(5);
// `timeout_ms` when the manifest has none.
inline constexpr int64_t kExecPluginDefaultTimeoutMs = 5000;

// A parsed `plugin.yaml`.
struct ExecPluginManifest {
  std::string dir;            // the plugin directory, absolute, symlinks resolved
  std::string manifest_path;  // dir + "/plugin.yaml"
  std::string name;           // `name`: the plugin's id
  std::string description;
  std::string version;
  // `command` as written, and what is executed: a bare name stays bare (looked up on PATH at
  // each call); a relative path becomes the absolute, symlink-free path inside `dir`; an
  // absolute path stays as written.
  std::string command;
  std::string resolved_command;
  std::vector<std::string> args;
  std::vector<std::string> hooks;  // canonical event names (core::kCanonicalEvents)
  int64_t timeout_ms = kExecPluginDefaultTimeoutMs;
  std::vector<std::pair<std::string, std::string>> env;  // in manifest order
  bool fail_closed = false;                              // `on_error: closed`
  // `protected: true`: a project cannot disable, reconfigure or replace it (docs/security.md).
  bool protect = false;
  enum class Protocol { kOneshot, kPersistent };
  Protocol protocol = Protocol::kOneshot;
};

// Receives what a plugin wrote to stderr during one call (when it wrote anything), for the
// host's log; called on the thread that made the call, after the process ended. stderr never
// becomes part of the answer; a failed call's error message also ends with its last line.
using ExecPluginStderrSink =
    std::function<void(const std::string& plugin_id, std::string_view stderr_text)>;

// Reads and checks `<dir>/plugin.yaml`. Unknown keys are appended to `warnings` (may be null)
// as "<file>: unknown key `x` (ignored)". A broken manifest is an error whose message starts
// with the manifest's path and names the problem: unreadable (NotFound), invalid YAML (with
// line and column), a missing or mistyped field, an unknown hook name, `on_error`/`protocol`
// values (InvalidArgument); a command given as a path that does not exist (NotFound), is not
// an executable file (PermissionDenied) or, when relative, resolves outside the plugin
// directory (InvalidArgument).
absl::StatusOr<ExecPluginManifest> LoadExecPluginManifest(const std::string& dir,
                                                          std::vector<std::string>* warnings);

// The text of `<dir>/plugin.yaml`, checked as LoadExecPluginManifest checks it (same errors and
// warnings) except for what needs the file system: `command` is not resolved (resolved_command
// stays empty). `dir` is the plugin directory as LoadExecPluginManifest passes it (absolute,
// symlinks resolved); it only names the file in messages. LoadExecPluginManifest reads the file
// and calls this.
absl::StatusOr<ExecPluginManifest> ParseExecPluginManifest(std::string_view text, std::string dir,
                                                           std::vector<std::string>* warnings);

// One exec plugin. Immutable after construction: Call() may run on several threads at once
// (each call is its own process and its own libuv loop).
class ExecPlugin : public core::HookPlugin {
 public:
  explicit ExecPlugin(ExecPluginManifest manifest, ExecPluginStderrSink stderr_sink = nullptr);

  const std::string& id() const override { return manifest_.name; }
  // True for the events listed under `hooks` (none when the list is empty or absent).
  bool Handles(std::string_view event) const override;
  bool fail_closed() const override { return manifest_.fail_closed; }

  // Runs the program once in its own process group, cwd = the plugin directory, `env` added
  // to the environment, `payload_json` on stdin. Empty stdout or `{}` is no opinion. Errors
  // (the message says what happened): the command cannot start (NotFound, PermissionDenied);
  // "timed out after N ms" (DeadlineExceeded); "stdout exceeded 4 MiB" (ResourceExhausted);
  // "exited with status N", "killed by signal SIGSEGV (11)" (Unknown); stdout that is not
  // JSON, not an object, or has a field of the wrong type (InvalidArgument). Whatever the
  // outcome, the process group is killed before Call returns, so nothing the call started
  // outlives it unless it left the group (setsid). A grandchild that keeps stdout open after
  // the program exited is waited for until the call's deadline (`timeout_ms` after the start)
  // and at most 2 s (RunProcess's drain); the call then ends with the program's answer.
  absl::StatusOr<core::HookAnswer> Call(std::string_view event,
                                        std::string_view payload_json) override;

  const ExecPluginManifest& manifest() const { return manifest_; }

 private:
  ExecPluginManifest manifest_;
  ExecPluginStderrSink stderr_sink_;
};

// A `protocol: persistent` exec plugin: one long-lived process (the wire protocol is at the
// top of this file). Thread-safe: Call() may run on several threads; calls on one plugin are
// serialized (one request in flight per process).
//
// Lifecycle of the process:
// - Started at the first call, not at load: own process group (session), cwd = the plugin
//   directory, `env` added, argv = resolved command + `args`, stdin/stdout/stderr pipes.
// - Each call has `timeout_ms` for writing the request and reading the answer; the first call
//   a new process serves has kExecPluginStartupAllowance more (its startup). Past it: SIGTERM
//   to the group, SIGKILL when it has not exited within kExecPluginKillGrace, the call fails
//   with DeadlineExceeded "timed out after N ms" (first call of a process: "timed out after N
//   ms (plus 5000 ms for a new process to start)"), and the next call starts a new process.
// - The process exits or is killed during a call: the call fails (Unknown) with "exited with
//   status N" or "killed by signal SIGSEGV (11)", plus "; stderr: <last line>" when the
//   process wrote stderr during the call. The next call starts a new process.
// - A protocol failure (see the top of this file) or "answer line exceeded 4 MiB"
//   (ResourceExhausted) kills the group; the call fails with that reason; the next call starts
//   a new process.
// - The process died between calls (killed from outside, crashed while idle): noticed before
//   the request is sent; the call starts a new process and proceeds transparently (the dead
//   one never saw the request). Only the fresh process's failure fails the call.
// - When the process group is discarded, whatever it still holds is SIGKILLed with it.
// - Destruction: stdin is closed (EOF asks the program to exit), it gets up to 100 ms, then
//   the group is SIGKILLed.
// stderr: what the process writes to stderr is read while a call runs (output written between
// calls is read by the next one) and handed to the sink after each call that read some, on the
// calling thread, outside the plugin's lock; at most kExecPluginMaxStderrBytes per call (the
// oldest bytes beyond that are dropped, marked with a line "[… N bytes of stderr dropped]").
class PersistentExecPlugin : public core::HookPlugin {
 public:
  // Starts nothing; the process is started by the first Call().
  explicit PersistentExecPlugin(ExecPluginManifest manifest,
                                ExecPluginStderrSink stderr_sink = nullptr);
  // Closes the process's stdin, waits up to 100 ms for it to exit, then SIGKILLs its group.
  ~PersistentExecPlugin() override;
  PersistentExecPlugin(const PersistentExecPlugin&) = delete;
  PersistentExecPlugin& operator=(const PersistentExecPlugin&) = delete;

  const std::string& id() const override { return manifest_.name; }
  bool Handles(std::string_view event) const override;
  bool fail_closed() const override { return manifest_.fail_closed; }

  // Sends one request and waits for its answer (see the class comment for the failures). The
  // command cannot start: NotFound ("command not found: x") or PermissionDenied, and the
  // next call tries again.
  absl::StatusOr<core::HookAnswer> Call(std::string_view event,
                                        std::string_view payload_json) override;

  const ExecPluginManifest& manifest() const { return manifest_; }
  // The running process's pid, 0 when none runs (before the first call, after a failure).
  int pid() const;
  // How many processes were started after the first one (each discarded process — crash,
  // timeout, protocol failure, death between calls — is followed by one restart).
  int64_t restarts() const;

 private:
  struct Process;  // the running Child, its next request id, its group id

  absl::StatusOr<core::HookAnswer> CallLocked(std::string_view event, std::string_view payload_json)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status EnsureProcess() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends the process: SIGTERM first when `term_grace` is non-zero, SIGKILL to the group.
  void Discard(absl::Duration term_grace) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The call failed because the process exited or closed its stdout: waits (up to `deadline`)
  // for the exit, discards the process, and says what happened.
  absl::Status Died(absl::Time deadline) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void TakeStderr(std::string_view chunk) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ExecPluginManifest manifest_;
  const ExecPluginStderrSink stderr_sink_;
  mutable absl::Mutex mu_;
  std::unique_ptr<Process> process_ ABSL_GUARDED_BY(mu_);
  int64_t processes_started_ ABSL_GUARDED_BY(mu_) = 0;
  // stderr read during the current call; bytes dropped from its front past the bound.
  std::string call_stderr_ ABSL_GUARDED_BY(mu_);
  size_t call_stderr_dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

// LoadExecPluginManifest, then an ExecPlugin or, for `protocol: persistent`, a
// PersistentExecPlugin (which starts its process at the first call). `stderr_sink` may be null
// (stderr is then only quoted in error messages).
absl::StatusOr<std::shared_ptr<core::HookPlugin>> LoadExecPlugin(
    const std::string& dir, std::vector<std::string>* warnings,
    ExecPluginStderrSink stderr_sink = nullptr);

// Turns a oneshot plugin's stdout into an answer (the parsing half of ExecPlugin::Call,
// exposed for tests). Empty or whitespace-only text is no opinion. The persistent protocol
// reads the same fields with the same rules from each answer line.
absl::StatusOr<core::HookAnswer> ParseExecPluginAnswer(std::string_view stdout_text);

}  // namespace plugline::exec

#endif  // PLUGLINE_EXEC_EXEC_PLUGIN_H_

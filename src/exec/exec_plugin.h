// Exec hook plugins (the Antares protocol, DESIGN.md "Events"): a directory with `plugin.yaml`
// and a program. Each call runs the program once, writes the payload (one JSON object) to its
// stdin and closes it, and reads one JSON object — the plugin's answer — from its stdout.
// No libuv type appears in this header; processes are run with RunProcess (process.h).
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

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/hooks.h"

namespace plugline::exec {

// Past this many bytes on stdout the plugin's process group is killed and the call fails.
inline constexpr size_t kExecPluginMaxStdoutBytes = size_t{4} << 20;
// stderr is kept for the log up to this many bytes; past it the call fails the same way.
inline constexpr size_t kExecPluginMaxStderrBytes = size_t{1} << 20;
// After the timeout the group gets SIGTERM, and SIGKILL this much later.
inline constexpr absl::Duration kExecPluginKillGrace = absl::Seconds(1);
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
// directory (InvalidArgument). `protocol: persistent` parses but is Unimplemented for now.
absl::StatusOr<ExecPluginManifest> LoadExecPluginManifest(const std::string& dir,
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
  // the program exited is waited for at most 2 s (RunProcess's drain).
  absl::StatusOr<core::HookAnswer> Call(std::string_view event,
                                        std::string_view payload_json) override;

  const ExecPluginManifest& manifest() const { return manifest_; }

 private:
  ExecPluginManifest manifest_;
  ExecPluginStderrSink stderr_sink_;
};

// LoadExecPluginManifest, then an ExecPlugin. `stderr_sink` may be null (stderr is then only
// quoted in error messages).
absl::StatusOr<std::shared_ptr<core::HookPlugin>> LoadExecPlugin(
    const std::string& dir, std::vector<std::string>* warnings,
    ExecPluginStderrSink stderr_sink = nullptr);

// Turns a plugin's stdout into an answer (the parsing half of Call, exposed for tests and
// for the persistent protocol). Empty or whitespace-only text is no opinion.
absl::StatusOr<core::HookAnswer> ParseExecPluginAnswer(std::string_view stdout_text);

}  // namespace plugline::exec

#endif  // PLUGLINE_EXEC_EXEC_PLUGIN_H_

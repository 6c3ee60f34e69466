#include "exec/exec_plugin.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "core/dispatcher.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "exec/child.h"
#include "exec/process.h"

namespace plugline::exec {
namespace {

using core::Value;

constexpr std::string_view kKnownKeys[] = {"name",     "description", "version",    "command",
                                           "args",     "hooks",       "timeout_ms", "env",
                                           "on_error", "protocol",    "protected"};

// realpath(3) as a string; nullopt when the path does not exist (errno set).
std::optional<std::string> RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) return std::nullopt;
  return std::string(buffer);
}

// A scalar as the text a user meant: strings as they are, integers in decimal, booleans as
// true/false (YAML resolves `8080` and `true` before we see them). Others: nullopt.
std::optional<std::string> ScalarText(const Value& value) {
  if (value.is_string()) return value.as_string();
  if (value.is_bool()) return std::string(value.as_bool() ? "true" : "false");
  if (value.is_number()) {
    if (std::optional<int64_t> i = value.as_integer()) return std::to_string(*i);
  }
  return std::nullopt;
}

std::string KindOf(const Value& value) { return std::string(Value::KindName(value.kind())); }

absl::Status FieldError(const std::string& file, std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(StrCat(file, ": `", field, "` ", what));
}


// Resolves `command` (given as a path) and checks that it is an executable regular file.
absl::StatusOr<std::string> ResolveCommandPath(const ExecPluginManifest& m) {
  const std::string& file = m.manifest_path;
  const bool relative = m.command.front() != '/';
  std::string joined = relative ? StrCat(m.dir, "/", m.command) : m.command;
  std::optional<std::string> real = RealPath(joined);
  if (!real.has_value()) {
    return absl::NotFoundError(
        StrCat(file, ": command not found: ", m.command, " (", ::strerror(errno), ")"));
  }
  if (relative && !absl::StartsWith(*real, StrCat(m.dir, "/"))) {
    return absl::InvalidArgumentError(StrCat(file, ": command ", m.command, " resolves to ", *real,
                                             ", outside the plugin directory ", m.dir));
  }
  struct stat st;
  if (::stat(real->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::PermissionDeniedError(
        StrCat(file, ": command ", m.command, " is not a regular file"));
  }
  if (::access(real->c_str(), X_OK) != 0) {
    return absl::PermissionDeniedError(StrCat(file, ": command ", m.command, " is not executable"));
  }
  // A relative command runs by its resolved path, so what was checked is what runs; an
  // absolute one runs as written (argv[0] stays what the author chose).
  return relative ? *real : m.command;
}

absl::Status ReadManifest(const Value& doc, ExecPluginManifest& m,
                          std::vector<std::string>* warnings) {
  const std::string& file = m.manifest_path;
  if (doc.is_null()) return absl::InvalidArgumentError(StrCat(file, ": the manifest is empty"));
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        StrCat(file, ": the manifest must be a mapping, not ", KindOf(doc)));
  }
  for (const auto& [key, value] : doc.as_object()) {
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key) == std::end(kKnownKeys) &&
        warnings != nullptr) {
      warnings->push_back(StrCat(file, ": unknown key `", core::EscapeControl(key), "` (ignored)"));
    }
  }
  // A key present with no value (`hooks:`) counts as absent.
  auto find = [&](std::string_view key) -> const Value* {
    const Value* v = doc.Find(key);
    return v != nullptr && !v->is_null() ? v : nullptr;
  };
  auto scalar = [&](std::string_view key, std::string& out) -> absl::Status {
    const Value* v = find(key);
    if (v == nullptr) return absl::OkStatus();
    std::optional<std::string> text = ScalarText(*v);
    if (!text.has_value()) {
      return FieldError(file, key, StrCat("must be a string, not ", KindOf(*v), " (quote it)"));
    }
    out = std::move(*text);
    return absl::OkStatus();
  };

  if (absl::Status s = scalar("name", m.name); !s.ok()) return s;
  if (m.name.empty()) return FieldError(file, "name", "is required");
  // The id reaches results, listings, the log and terminals: a newline in it would forge a log
  // record, an escape sequence would reach the user's terminal.
  if (!core::IsValidPluginId(m.name)) {
    return absl::InvalidArgumentError(
        StrCat(file, ": ", core::InvalidPluginIdMessage("`name`", m.name)));
  }
  if (absl::Status s = scalar("description", m.description); !s.ok()) return s;
  if (absl::Status s = scalar("version", m.version); !s.ok()) return s;
  if (absl::Status s = scalar("command", m.command); !s.ok()) return s;
  if (m.command.empty()) return FieldError(file, "command", "is required");

  if (const Value* args = find("args")) {
    if (!args->is_array()) {
      return FieldError(file, "args", StrCat("must be a list of strings, not ", KindOf(*args)));
    }
    for (size_t i = 0; i < args->as_array().size(); ++i) {
      std::optional<std::string> text = ScalarText(args->as_array()[i]);
      if (!text.has_value()) {
        return FieldError(file, StrCat("args[", i, "]"),
                          StrCat("must be a string, not ", KindOf(args->as_array()[i])));
      }
      m.args.push_back(std::move(*text));
    }
  }

  if (const Value* hooks = find("hooks")) {
    if (!hooks->is_array()) {
      return FieldError(file, "hooks",
                        StrCat("must be a list of event names, not ", KindOf(*hooks)));
    }
    for (size_t i = 0; i < hooks->as_array().size(); ++i) {
      const Value& hook = hooks->as_array()[i];
      if (!hook.is_string()) {
        return FieldError(file, StrCat("hooks[", i, "]"),
                          StrCat("must be an event name, not ", KindOf(hook)));
      }
      if (!core::IsCanonicalEvent(hook.as_string())) {
        std::string known;
        for (std::string_view e : core::kCanonicalEvents) {
          StrAppend(&known, known.empty() ? "" : ", ", e);
        }
        std::string meant;
        if (std::optional<std::string_view> near = core::NearCanonicalEvent(hook.as_string())) {
          meant = StrCat("did you mean `", *near, "`? ");
        }
        return absl::InvalidArgumentError(StrCat(file, ": unknown hook name `",
                                                 core::EscapeControl(hook.as_string()), "` (",
                                                 meant, "known: ", known, ")"));
      }
      if (std::find(m.hooks.begin(), m.hooks.end(), hook.as_string()) == m.hooks.end()) {
        m.hooks.push_back(hook.as_string());
      }
    }
  }

  if (const Value* timeout = find("timeout_ms")) {
    std::optional<int64_t> ms = timeout->is_number() ? timeout->as_integer() : std::nullopt;
    if (!ms.has_value() || *ms <= 0 || *ms > int64_t{24} * 3600 * 1000) {
      return FieldError(file, "timeout_ms", "must be a positive whole number of milliseconds");
    }
    m.timeout_ms = *ms;
  }

  if (const Value* env = find("env")) {
    if (!env->is_object()) {
      return FieldError(file, "env",
                        StrCat("must be a mapping of names to strings, not ", KindOf(*env)));
    }
    for (const auto& [key, value] : env->as_object()) {
      if (key.empty() || key.find('=') != std::string::npos) {
        return FieldError(file, StrCat("env.", key), "is not a valid variable name");
      }
      std::optional<std::string> text = ScalarText(value);
      if (!text.has_value()) {
        return FieldError(file, StrCat("env.", key),
                          StrCat("must be a string, not ", KindOf(value)));
      }
      m.env.emplace_back(key, std::move(*text));
    }
  }

  std::string on_error = "open";
  if (absl::Status s = scalar("on_error", on_error); !s.ok()) return s;
  if (on_error != "open" && on_error != "closed") {
    return FieldError(file, "on_error", StrCat("must be open or closed, not ", on_error));
  }
  m.fail_closed = on_error == "closed";

  if (const Value* protect = find("protected")) {
    if (!protect->is_bool()) {
      return FieldError(file, "protected", StrCat("must be true or false, not ", KindOf(*protect)));
    }
    m.protect = protect->as_bool();
  }

  std::string protocol = "oneshot";
  if (absl::Status s = scalar("protocol", protocol); !s.ok()) return s;
  if (protocol == "oneshot") {
    m.protocol = ExecPluginManifest::Protocol::kOneshot;
  } else if (protocol == "persistent") {
    m.protocol = ExecPluginManifest::Protocol::kPersistent;
  } else {
    return FieldError(file, "protocol", StrCat("must be oneshot or persistent, not ", protocol));
  }
  return absl::OkStatus();
}

// The last non-empty line of a process's stderr, shortened, for an error message.
std::string StderrTail(std::string_view err) {
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r' || err.back() == ' ')) {
    err.remove_suffix(1);
  }
  size_t newline = err.rfind('\n');
  if (newline != std::string_view::npos) err.remove_prefix(newline + 1);
  constexpr size_t kMax = 200;
  if (err.size() > kMax) return StrCat("…", err.substr(err.size() - kMax));
  return std::string(err);
}

std::string SignalName(int signum) {
  const char* abbrev = ::sigabbrev_np(signum);
  if (abbrev == nullptr) return StrCat("signal ", signum);
  return StrCat("SIG", abbrev);
}

bool HandlesEvent(const ExecPluginManifest& m, std::string_view event) {
  return std::find(m.hooks.begin(), m.hooks.end(), event) != m.hooks.end();
}

// The program and its manifest `args`, as both protocols start it.
std::vector<std::string> CommandLine(const ExecPluginManifest& m) {
  std::vector<std::string> argv;
  argv.reserve(m.args.size() + 1);
  argv.push_back(m.resolved_command);
  argv.insert(argv.end(), m.args.begin(), m.args.end());
  return argv;
}

// "exited with status N" / "killed by signal SIGSEGV (11)", the wording of both protocols.
absl::Status ExitError(int exit_status, int term_signal) {
  if (term_signal != 0) {
    return absl::UnknownError(
        StrCat("killed by signal ", SignalName(term_signal), " (", term_signal, ")"));
  }
  return absl::UnknownError(StrCat("exited with status ", exit_status));
}

absl::Status WithStderr(absl::Status status, std::string_view err) {
  std::string tail = StderrTail(err);
  if (tail.empty()) return status;
  return absl::Status(status.code(), StrCat(status.message(), "; stderr: ", tail));
}

}  // namespace

absl::StatusOr<ExecPluginManifest> ParseExecPluginManifest(std::string_view text,
                                                           std::string dir,
                                                           std::vector<std::string>* warnings) {
  ExecPluginManifest m;
  m.dir = std::move(dir);
  m.manifest_path = StrCat(m.dir, "/plugin.yaml");
  absl::StatusOr<Value> doc = core::ParseYaml(text, m.manifest_path);
  if (!doc.ok()) return doc.status();  // names the file, line and column
  if (absl::Status s = ReadManifest(*doc, m, warnings); !s.ok()) return s;
  return m;
}

absl::StatusOr<ExecPluginManifest> LoadExecPluginManifest(const std::string& dir,
                                                          std::vector<std::string>* warnings) {
  std::optional<std::string> real_dir = RealPath(dir);
  if (!real_dir.has_value()) {
    return absl::NotFoundError(
        StrCat(dir, ": plugin directory not found (", ::strerror(errno), ")"));
  }
  const std::string manifest_path = StrCat(*real_dir, "/plugin.yaml");
  std::ifstream in(manifest_path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(StrCat(manifest_path, ": cannot read (", ::strerror(errno), ")"));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ExecPluginManifest> parsed =
      ParseExecPluginManifest(text.str(), *real_dir, warnings);
  if (!parsed.ok()) return parsed.status();
  ExecPluginManifest m = *std::move(parsed);

  if (m.command.find('/') == std::string::npos) {
    m.resolved_command = m.command;  // looked up on PATH at each call
  } else {
    absl::StatusOr<std::string> resolved = ResolveCommandPath(m);
    if (!resolved.ok()) return resolved.status();
    m.resolved_command = *std::move(resolved);
  }
  return m;
}

ExecPlugin::ExecPlugin(ExecPluginManifest manifest, ExecPluginStderrSink stderr_sink)
    : manifest_(std::move(manifest)), stderr_sink_(std::move(stderr_sink)) {}

bool ExecPlugin::Handles(std::string_view event) const { return HandlesEvent(manifest_, event); }

absl::StatusOr<core::HookAnswer> ExecPlugin::Call(std::string_view /*event*/,
                                                  std::string_view payload_json) {
  ProcessSpec spec;
  spec.argv = CommandLine(manifest_);
  spec.cwd = manifest_.dir;
  spec.extra_env = manifest_.env;
  spec.stdin_data = std::string(payload_json);
  spec.merge_output = false;
  spec.own_process_group = true;
  // RunProcess bounds stdout and stderr together; the stdout bound alone is enforced below.
  spec.max_output_bytes = kExecPluginMaxStdoutBytes + kExecPluginMaxStderrBytes;
  spec.timeout = absl::Milliseconds(manifest_.timeout_ms);
  spec.kill_grace = kExecPluginKillGrace;

  int pid = 0;
  size_t stdout_bytes = 0;
  bool stdout_limit_hit = false;
  spec.on_spawn = [&pid](int child_pid) { pid = child_pid; };
  spec.on_output = [&](std::string_view chunk) {
    stdout_bytes += chunk.size();
    if (stdout_bytes > kExecPluginMaxStdoutBytes && !stdout_limit_hit) {
      stdout_limit_hit = true;
      if (pid > 0) ::kill(-pid, SIGKILL);  // the child leads its own group
    }
  };

  absl::StatusOr<ProcessResult> run = RunProcess(spec);
  // Whatever the program left behind in its group (a backgrounded grandchild) goes with it.
  // The group id cannot be reused while any member lives.
  if (pid > 0) ::kill(-pid, SIGKILL);
  if (!run.ok()) return run.status();  // "command not found: x", "permission denied: x"
  const ProcessResult& result = *run;

  if (stderr_sink_ && !result.error_output.empty()) {
    stderr_sink_(manifest_.name, result.error_output);
  }
  const std::string& err = result.error_output;
  if (stdout_limit_hit || result.output.size() > kExecPluginMaxStdoutBytes) {
    return WithStderr(absl::ResourceExhaustedError("stdout exceeded 4 MiB"), err);
  }
  if (result.output_limit_hit) {
    return absl::ResourceExhaustedError("stderr exceeded 1 MiB");
  }
  if (result.timed_out) {
    return WithStderr(
        absl::DeadlineExceededError(StrCat("timed out after ", manifest_.timeout_ms, " ms")), err);
  }
  if (result.term_signal != 0 || result.exit_status != 0) {
    return WithStderr(ExitError(result.exit_status, result.term_signal), err);
  }
  absl::StatusOr<core::HookAnswer> answer = ParseExecPluginAnswer(result.output);
  if (!answer.ok()) return WithStderr(answer.status(), err);
  return answer;
}

absl::StatusOr<core::HookAnswer> ParseExecPluginAnswer(std::string_view stdout_text) {
  return core::ParseHookAnswer(stdout_text, "stdout");
}

// --- protocol: persistent ---------------------------------------------------------------

namespace {

// The first wait for the exit of a process that closed its stdout (SIGCHLD arrives a moment
// after the EOF); past it, the wait goes on until the call's deadline.
constexpr absl::Duration kExitNoticeWait = absl::Milliseconds(100);
// How long the destructor lets the process exit by itself after closing its stdin.
constexpr absl::Duration kShutdownWait = absl::Milliseconds(100);

// One request line (without its '\n'): {"id":<id>,"event":<event>,"payload":<payload>}.
std::string RequestLine(int64_t id, std::string_view event, std::string_view payload) {
  std::string line;
  line.reserve(payload.size() + event.size() + 48);
  StrAppend(&line, "{\"id\":", id, ",\"event\":");
  core::AppendJsonString(line, event);
  line += ",\"payload\":";
  if (payload.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    line += "{}";
  } else {
    const size_t start = line.size();
    line.append(payload);
    // JSON allows a raw newline only as whitespace between tokens: a space means the same, and
    // keeps the request on one line.
    for (size_t i = start; i < line.size(); ++i) {
      if (line[i] == '\n' || line[i] == '\r') line[i] = ' ';
    }
  }
  line += '}';
  return line;
}

}  // namespace

struct PersistentExecPlugin::Process {
  std::unique_ptr<Child> child;
  int pid = 0;  // also the process group's id
  int64_t next_id = 1;
};

PersistentExecPlugin::PersistentExecPlugin(ExecPluginManifest manifest,
                                           ExecPluginStderrSink stderr_sink)
    : manifest_(std::move(manifest)), stderr_sink_(std::move(stderr_sink)) {}

PersistentExecPlugin::~PersistentExecPlugin() {
  absl::MutexLock lock(&mu_);
  if (process_ == nullptr) return;
  process_->child->CloseInput();  // EOF: the program's cue to exit
  process_->child->Wait(absl::Now() + kShutdownWait);
  Discard(absl::ZeroDuration());
}

bool PersistentExecPlugin::Handles(std::string_view event) const {
  return HandlesEvent(manifest_, event);
}

int PersistentExecPlugin::pid() const {
  absl::MutexLock lock(&mu_);
  return process_ != nullptr ? process_->pid : 0;
}

int64_t PersistentExecPlugin::restarts() const {
  absl::MutexLock lock(&mu_);
  return processes_started_ > 0 ? processes_started_ - 1 : 0;
}

absl::StatusOr<core::HookAnswer> PersistentExecPlugin::Call(std::string_view event,
                                                            std::string_view payload_json) {
  absl::StatusOr<core::HookAnswer> answer;
  std::string err;
  {
    absl::MutexLock lock(&mu_);
    answer = CallLocked(event, payload_json);
    if (call_stderr_dropped_ > 0) {
      err = StrCat("[… ", call_stderr_dropped_, " bytes of stderr dropped]\n");
    }
    err += call_stderr_;
    call_stderr_.clear();
    call_stderr_dropped_ = 0;
  }
  // Outside the lock: a sink that logs slowly does not hold up other threads' calls.
  if (stderr_sink_ && !err.empty()) stderr_sink_(manifest_.name, err);
  return answer;
}

void PersistentExecPlugin::TakeStderr(std::string_view chunk) {
  call_stderr_.append(chunk);
  if (call_stderr_.size() > kExecPluginMaxStderrBytes) {
    const size_t drop = call_stderr_.size() - kExecPluginMaxStderrBytes;
    call_stderr_.erase(0, drop);
    call_stderr_dropped_ += drop;
  }
}

absl::Status PersistentExecPlugin::EnsureProcess() {
  if (process_ != nullptr) {
    // Died between calls (killed from outside, crashed while idle): it never saw a request of
    // this call, so a new process takes over without failing the call.
    if (!process_->child->Wait(absl::Now()).has_value()) return absl::OkStatus();
    Discard(absl::ZeroDuration());
  }
  ChildSpec spec;
  spec.argv = CommandLine(manifest_);
  spec.cwd = manifest_.dir;
  spec.extra_env = manifest_.env;
  spec.own_process_group = true;
  spec.stderr_mode = ChildSpec::Stderr::kCapture;
  spec.stderr_tail_bytes = 4 * 1024;
  // Runs inside the Child calls made by this object's methods, which hold mu_.
  spec.on_stderr = [this](std::string_view chunk)
                       ABSL_NO_THREAD_SAFETY_ANALYSIS { TakeStderr(chunk); };
  spec.max_line_bytes = kExecPluginMaxStdoutBytes;
  absl::StatusOr<std::unique_ptr<Child>> child = Child::Start(spec);
  if (!child.ok()) return child.status();  // "command not found: x", "permission denied: x"
  process_ = std::make_unique<Process>();
  process_->child = *std::move(child);
  process_->pid = process_->child->pid();
  ++processes_started_;
  return absl::OkStatus();
}

void PersistentExecPlugin::Discard(absl::Duration term_grace) {
  if (process_ == nullptr) return;
  Child& child = *process_->child;
  if (term_grace > absl::ZeroDuration() && !child.exit().has_value()) {
    child.Kill(SIGTERM);
    child.Wait(absl::Now() + term_grace);
  }
  const int pid = process_->pid;
  process_.reset();  // SIGKILLs the group if the program still runs, and reaps it
  // Whatever the program left behind in its group goes with it (the group id cannot be reused
  // while any member lives).
  if (pid > 0) ::kill(-pid, SIGKILL);
}

absl::Status PersistentExecPlugin::Died(absl::Time deadline) {
  Child& child = *process_->child;
  // Wait() also waits for stderr's EOF, which a grandchild may hold: once the exit is known,
  // that is not waited for further.
  std::optional<ChildExit> exit = child.Wait(absl::Now() + kExitNoticeWait);
  if (!exit.has_value()) exit = child.Wait(deadline);
  absl::Status status =
      exit.has_value()
          ? ExitError(exit->exit_status, exit->term_signal)
          : absl::UnknownError("closed its stdout without answering (the process was killed)");
  Discard(absl::ZeroDuration());
  return WithStderr(std::move(status), call_stderr_);
}

absl::StatusOr<core::HookAnswer> PersistentExecPlugin::CallLocked(std::string_view event,
                                                                  std::string_view payload_json) {
  const absl::Duration timeout = absl::Milliseconds(manifest_.timeout_ms);
  bool startup_allowed = false;  // this call started the process and has its startup allowance
  auto timed_out = [&] {
    Discard(kExecPluginKillGrace);
    std::string message = StrCat("timed out after ", manifest_.timeout_ms, " ms");
    if (startup_allowed) {
      StrAppend(&message, " (plus ", absl::ToInt64Milliseconds(kExecPluginStartupAllowance),
                " ms for a new process to start)");
    }
    return WithStderr(absl::DeadlineExceededError(message), call_stderr_);
  };
  auto protocol_failure = [&](absl::Status status) {
    Discard(absl::ZeroDuration());
    return WithStderr(std::move(status), call_stderr_);
  };

  absl::Time deadline;
  int64_t id = 0;
  for (int attempt = 0;; ++attempt) {
    const bool reusing = process_ != nullptr;
    const int64_t started_before = processes_started_;
    if (absl::Status started = EnsureProcess(); !started.ok()) return started;
    if (attempt == 0) deadline = absl::Now() + timeout;
    // The program's startup (an interpreter, imports) is not part of a call's work.
    if (processes_started_ != started_before && !startup_allowed) {
      deadline += kExecPluginStartupAllowance;
      startup_allowed = true;
    }
    id = process_->next_id++;
    absl::Status written =
        process_->child->WriteLine(RequestLine(id, event, payload_json), deadline);
    if (written.ok()) break;
    if (written.code() == absl::StatusCode::kDeadlineExceeded) return timed_out();
    // Unavailable: the program closed its stdin or died. One that was started by an earlier
    // call and died unnoticed never saw this request: a new process gets it, once.
    if (attempt == 0 && reusing && processes_started_ == started_before) {
      Discard(absl::ZeroDuration());
      continue;
    }
    return Died(deadline);
  }

  for (;;) {
    absl::StatusOr<std::string> line = process_->child->ReadLine(deadline);
    if (!line.ok()) {
      switch (line.status().code()) {
        case absl::StatusCode::kDeadlineExceeded:
          return timed_out();
        case absl::StatusCode::kResourceExhausted:  // the Child killed it already
          return protocol_failure(absl::ResourceExhaustedError(
              StrCat("answer line exceeded ", kExecPluginMaxStdoutBytes >> 20, " MiB")));
        default:  // Unavailable: stdout closed, the program exited
          return Died(deadline);
      }
    }
    if (line->find_first_not_of(" \t\r") == std::string::npos) continue;  // an empty line
    absl::StatusOr<Value> doc = core::ParseJson(*line, "stdout");
    if (!doc.ok()) return protocol_failure(doc.status());  // "stdout: invalid JSON: ..."
    // Not an object: the same message a oneshot answer gets.
    if (!doc->is_object()) return protocol_failure(core::HookAnswerFromValue(*doc, "stdout").status());
    const Value* answer_id = doc->Find("id");
    std::optional<int64_t> number =
        answer_id != nullptr && answer_id->is_number() ? answer_id->as_integer() : std::nullopt;
    if (!number.has_value()) {
      return protocol_failure(
          absl::InvalidArgumentError("stdout: the answer line has no integer `id`"));
    }
    if (*number < id) continue;  // a late answer to an earlier request
    if (*number > id) {
      return protocol_failure(absl::InvalidArgumentError(
          StrCat("stdout: the answer's `id` ", *number, " is not the request's (", id, ")")));
    }
    // In step with the program: a mistyped field fails this call only.
    static constexpr std::string_view kLineKeys[] = {"id"};
    absl::StatusOr<core::HookAnswer> answer = core::HookAnswerFromValue(*doc, "stdout", kLineKeys);
    if (!answer.ok()) return WithStderr(answer.status(), call_stderr_);
    return answer;
  }
}

absl::StatusOr<std::shared_ptr<core::HookPlugin>> LoadExecPlugin(const std::string& dir,
                                                                 std::vector<std::string>* warnings,
                                                                 ExecPluginStderrSink stderr_sink) {
  absl::StatusOr<ExecPluginManifest> manifest = LoadExecPluginManifest(dir, warnings);
  if (!manifest.ok()) return manifest.status();
  if (manifest->protocol == ExecPluginManifest::Protocol::kPersistent) {
    return std::shared_ptr<core::HookPlugin>(
        std::make_shared<PersistentExecPlugin>(*std::move(manifest), std::move(stderr_sink)));
  }
  return std::shared_ptr<core::HookPlugin>(
      std::make_shared<ExecPlugin>(*std::move(manifest), std::move(stderr_sink)));
}

}  // namespace plugline::exec

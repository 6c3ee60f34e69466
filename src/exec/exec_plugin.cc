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
#include "core/json.h"
#include "core/strings.h"
#include "exec/process.h"

namespace plugline::exec {
namespace {

using core::Value;

constexpr std::string_view kKnownKeys[] = {"name",     "description", "version",    "command",
                                           "args",     "hooks",       "timeout_ms", "env",
                                           "on_error", "protocol"};

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

bool IsCanonicalEvent(std::string_view name) {
  return std::find(std::begin(core::kCanonicalEvents), std::end(core::kCanonicalEvents), name) !=
         std::end(core::kCanonicalEvents);
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
      warnings->push_back(StrCat(file, ": unknown key `", key, "` (ignored)"));
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
      if (!IsCanonicalEvent(hook.as_string())) {
        std::string known;
        for (std::string_view e : core::kCanonicalEvents) {
          StrAppend(&known, known.empty() ? "" : ", ", e);
        }
        return absl::InvalidArgumentError(
            StrCat(file, ": unknown hook name `", hook.as_string(), "` (known: ", known, ")"));
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

absl::Status WithStderr(absl::Status status, std::string_view err) {
  std::string tail = StderrTail(err);
  if (tail.empty()) return status;
  return absl::Status(status.code(), StrCat(status.message(), "; stderr: ", tail));
}

}  // namespace

absl::StatusOr<ExecPluginManifest> LoadExecPluginManifest(const std::string& dir,
                                                          std::vector<std::string>* warnings) {
  ExecPluginManifest m;
  std::optional<std::string> real_dir = RealPath(dir);
  if (!real_dir.has_value()) {
    return absl::NotFoundError(
        StrCat(dir, ": plugin directory not found (", ::strerror(errno), ")"));
  }
  m.dir = *real_dir;
  m.manifest_path = StrCat(m.dir, "/plugin.yaml");
  std::ifstream in(m.manifest_path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(StrCat(m.manifest_path, ": cannot read (", ::strerror(errno), ")"));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Value> doc = core::ParseYaml(text.str(), m.manifest_path);
  if (!doc.ok()) return doc.status();  // names the file, line and column
  if (absl::Status s = ReadManifest(*doc, m, warnings); !s.ok()) return s;

  if (m.protocol == ExecPluginManifest::Protocol::kPersistent) {
    return absl::UnimplementedError(
        StrCat(m.manifest_path, ": `protocol: persistent` is not supported yet"));
  }
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

bool ExecPlugin::Handles(std::string_view event) const {
  return std::find(manifest_.hooks.begin(), manifest_.hooks.end(), event) != manifest_.hooks.end();
}

absl::StatusOr<core::HookAnswer> ExecPlugin::Call(std::string_view /*event*/,
                                                  std::string_view payload_json) {
  ProcessSpec spec;
  spec.argv.reserve(manifest_.args.size() + 1);
  spec.argv.push_back(manifest_.resolved_command);
  spec.argv.insert(spec.argv.end(), manifest_.args.begin(), manifest_.args.end());
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
  if (result.term_signal != 0) {
    return WithStderr(absl::UnknownError(StrCat("killed by signal ", SignalName(result.term_signal),
                                                " (", result.term_signal, ")")),
                      err);
  }
  if (result.exit_status != 0) {
    return WithStderr(absl::UnknownError(StrCat("exited with status ", result.exit_status)), err);
  }
  absl::StatusOr<core::HookAnswer> answer = ParseExecPluginAnswer(result.output);
  if (!answer.ok()) return WithStderr(answer.status(), err);
  return answer;
}

absl::StatusOr<core::HookAnswer> ParseExecPluginAnswer(std::string_view stdout_text) {
  core::HookAnswer answer;
  if (stdout_text.find_first_not_of(" \t\r\n") == std::string_view::npos) return answer;
  absl::StatusOr<Value> doc = core::ParseJson(stdout_text, "stdout");
  if (!doc.ok()) return doc.status();  // "stdout: invalid JSON: ..."
  if (!doc->is_object()) {
    return absl::InvalidArgumentError(
        StrCat("stdout: the answer must be a JSON object, not ", KindOf(*doc)));
  }
  // Unknown fields are ignored (newer protocol versions may add some); null = absent. An
  // empty string is absent too: the seed's template answer lists every field empty.
  if (const Value* deny = doc->Find("deny"); deny != nullptr && !deny->is_null()) {
    if (!deny->is_bool()) {
      return absl::InvalidArgumentError(
          StrCat("stdout: `deny` must be true or false, not ", KindOf(*deny)));
    }
    answer.deny = deny->as_bool();
  }
  struct StringField {
    std::string_view key;
    std::optional<std::string>* out;
  };
  std::optional<std::string> reason;
  const StringField fields[] = {{"reason", &reason},
                                {"arguments", &answer.arguments},
                                {"result", &answer.result},
                                {"notice", &answer.notice}};
  for (const StringField& field : fields) {
    const Value* v = doc->Find(field.key);
    if (v == nullptr || v->is_null()) continue;
    if (!v->is_string()) {
      return absl::InvalidArgumentError(
          StrCat("stdout: `", field.key, "` must be a string, not ", KindOf(*v)));
    }
    if (!v->as_string().empty()) *field.out = v->as_string();
  }
  answer.reason = reason.value_or("");
  if (answer.arguments.has_value()) {
    absl::StatusOr<Value> args = core::ParseJson(*answer.arguments, "`arguments`");
    if (!args.ok()) {
      return absl::InvalidArgumentError(
          StrCat("stdout: `arguments` must be a JSON-encoded string: ", args.status().message()));
    }
  }
  return answer;
}

absl::StatusOr<std::shared_ptr<core::HookPlugin>> LoadExecPlugin(const std::string& dir,
                                                                 std::vector<std::string>* warnings,
                                                                 ExecPluginStderrSink stderr_sink) {
  absl::StatusOr<ExecPluginManifest> manifest = LoadExecPluginManifest(dir, warnings);
  if (!manifest.ok()) return manifest.status();
  return std::shared_ptr<core::HookPlugin>(
      std::make_shared<ExecPlugin>(*std::move(manifest), std::move(stderr_sink)));
}

}  // namespace plugline::exec

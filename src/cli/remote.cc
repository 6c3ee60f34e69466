#include "cli/remote.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "cli/wire.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/host_internal.h"
#include "core/json.h"
#include "core/log.h"
#include "core/strings.h"
#include "server/server.h"
#include "server/socket.h"

namespace plugline::cli {
namespace {

constexpr absl::Duration kConnectTimeout = absl::Seconds(2);
constexpr absl::Duration kHelloTimeout = absl::Seconds(5);
// How long a command waits for a server it started for itself.
constexpr absl::Duration kStartWait = absl::Seconds(10);
// How long a request may take before the client gives up on the server and runs it itself;
// PLUGLINE_SERVER_TIMEOUT_MS sets another.
constexpr absl::Duration kDefaultRequestTimeout = absl::Seconds(60);
// The descriptor a server started here says "listening" on (PLUGLINE_SERVER_READY_FD).
constexpr int kReadyFd = 3;

absl::Duration RequestTimeout() {
  const char* env = std::getenv("PLUGLINE_SERVER_TIMEOUT_MS");
  int64_t ms = 0;
  if (env != nullptr && absl::SimpleAtoi(env, &ms) && ms > 0) return absl::Milliseconds(ms);
  return kDefaultRequestTimeout;
}

// The server's identity from `hello`, or why there is none to talk to.
struct Hello {
  int64_t pid = 0;
  std::string build_id;
};

absl::StatusOr<Hello> SayHello(server::Client& client) {
  absl::StatusOr<std::string> reply = client.Call("{\"type\":\"hello\"}", kHelloTimeout);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<core::Value> value = core::ParseJson(*reply, "the server's hello");
  if (!value.ok()) return value.status();
  absl::StatusOr<std::string> build = wire::Text(*value, "build_id");
  absl::StatusOr<int64_t> pid = wire::Integer(*value, "pid");
  if (!build.ok() || !pid.ok() || !wire::Flag(*value, "ok")) {
    return absl::DataLossError(StrCat("the server's hello is not one: ", *reply));
  }
  return Hello{*pid, *build};
}

}  // namespace

absl::StatusOr<int64_t> StartServerProcess(const std::string& home,
                                           std::optional<absl::Duration> idle_timeout,
                                           absl::Duration wait) {
  const std::string logs = home + "/logs";
  if (absl::Status made = core::MakeDirs(logs); !made.ok()) return made;
  const std::string idle =
      idle_timeout ? StrCat(absl::ToDoubleSeconds(*idle_timeout)) : std::string();
  // The server says on this pipe when it listens; if it ends first (it could not start, or
  // another server holds the home), the pipe closes with nothing on it.
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    return absl::UnavailableError(StrCat("cannot start the server: ", std::strerror(errno)));
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(ready[0]);
    ::close(ready[1]);
    return absl::UnavailableError(StrCat("cannot start the server: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // The server: its own session, no terminal, its stray output in logs/server.out, and no
    // descriptor of the command that started it (an agent waits for its pipes to close).
    ::setsid();
    // Nor the folder it was started in (a project that may be removed).
    if (::chdir("/") != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out = ::open((logs + "/server.out").c_str(),
                           O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    if (out >= 0) {
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
    }
    ::dup2(ready[1], kReadyFd);  // without O_CLOEXEC: the server gets it
    ::close_range(kReadyFd + 1, ~0U, 0);
    // A grandchild: the server is nobody's child, so no command waits for it or reaps it.
    if (::fork() != 0) ::_exit(0);
    ::setenv("PLUGLINE_SERVER_READY_FD", StrCat(kReadyFd).c_str(), 1);
    if (idle.empty()) {
      ::execl("/proc/self/exe", "plugline", "server", static_cast<char*>(nullptr));
    } else {
      ::execl("/proc/self/exe", "plugline", "server", "--idle-timeout", idle.c_str(),
              static_cast<char*>(nullptr));
    }
    ::_exit(127);
  }
  ::close(ready[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  struct pollfd poll_fd = {ready[0], POLLIN, 0};
  int polled;
  do {
    polled = ::poll(&poll_fd, 1, static_cast<int>(absl::ToInt64Milliseconds(wait)));
  } while (polled < 0 && errno == EINTR);
  char byte = 0;
  const bool listening = polled > 0 && ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  // Listening, or gone (maybe because another command's server won the home): either way the
  // one that answers now is the one to use.
  absl::StatusOr<server::Client> client = server::Client::Connect(home, kConnectTimeout);
  if (client.ok()) {
    if (absl::StatusOr<Hello> hello = SayHello(*client); hello.ok()) return hello->pid;
  }
  if (polled == 0) {
    return absl::DeadlineExceededError(
        StrCat("the server did not start within ", absl::FormatDuration(wait), "; see ", logs,
               "/server.out and ", logs, "/plugline.log"));
  }
  return absl::UnavailableError(
      StrCat(listening ? "the server started but does not answer" : "the server could not start",
             "; see ", logs, "/server.out and ", logs, "/plugline.log"));
}

std::optional<Remote> Remote::Choose(const std::string& home, const std::string& cwd,
                                     std::unique_ptr<Host>* host) {
  if (const char* env = std::getenv("PLUGLINE_SERVER"); env != nullptr && std::string_view(env) == "0") {
    return std::nullopt;
  }
  if (cwd.empty()) return std::nullopt;
  // A server that listens is used: its build and the configuration's `server: never` are
  // checked with the first request (Call), so that a command pays one round trip, not two.
  absl::StatusOr<server::Client> client = server::Client::Connect(home, kConnectTimeout);
  if (client.ok()) return Remote(*std::move(client), home, cwd);
  // Only the global file decides (a project's `server:` is refused where it is read).
  const core::ServerConfig config = core::LoadConfig(home, "", nullptr).server;
  if (config.mode == core::ServerMode::kNever) return std::nullopt;
  if (config.mode == core::ServerMode::kAuto) {
    // A server is worth starting when this command would load V8.
    absl::StatusOr<std::unique_ptr<Host>> opened = OpenHostFor(cwd);
    if (!opened.ok()) return std::nullopt;  // the in-process path reports it
    if (!internal::HostAccess::HasJsPlugins(**opened)) {
      *host = *std::move(opened);
      return std::nullopt;
    }
  }
  absl::StatusOr<server::Client> started = StartAndConnect(home);
  if (!started.ok()) {
    NoteFallback(home, started.status());
    return std::nullopt;
  }
  return Remote(*std::move(started), home, cwd);
}

absl::StatusOr<server::Client> Remote::StartAndConnect(const std::string& home) {
  absl::StatusOr<int64_t> pid = StartServerProcess(home, std::nullopt, kStartWait);
  // Another command may have started one at the same moment: that one is as good.
  absl::StatusOr<server::Client> client = server::Client::Connect(home, kConnectTimeout);
  if (!client.ok() && !pid.ok()) return pid.status();
  return client;
}

absl::StatusOr<core::Value> Remote::Call(const std::string& request, bool sent) {
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<std::string> reply = attempt == 0 && sent
                                            ? client_.Receive(absl::Now() + RequestTimeout())
                                            : client_.Call(request, RequestTimeout());
    if (!reply.ok()) return reply.status();
    absl::StatusOr<core::Value> value = core::ParseJson(*reply, "the server's reply");
    if (!value.ok()) return absl::DataLossError(std::string(value.status().message()));
    if (!value->is_object()) return absl::DataLossError("the server's reply is not an object");
    if (wire::Flag(*value, "ok")) return value;
    const core::Value* error = value->Find("error");
    absl::StatusOr<std::string> code =
        error != nullptr ? wire::Text(*error, "code") : absl::NotFoundError("");
    absl::StatusOr<std::string> message =
        error != nullptr ? wire::Text(*error, "message") : absl::NotFoundError("");
    if (code.ok() && *code == "in_process") {
      // The configuration says `server: never` (changed since the server started).
      return absl::CancelledError(message.ok() ? *message : "server: never");
    }
    if (code.ok() && *code == "other_build" && attempt == 0) {
      // Another build serves this home (plugline was upgraded or rebuilt): it hands over, and
      // this command starts one of its own build. Its open requests finish first.
      core::JsonWriter retire;
      retire.BeginObject().Key("type").String("retire");
      retire.Key("reason").String(StrCat("a client of build ", server::BuildId())).EndObject();
      (void)client_.Call(retire.Take(), kHelloTimeout);
      absl::StatusOr<server::Client> fresh = StartAndConnect(home_);
      if (!fresh.ok()) return fresh.status();
      client_ = *std::move(fresh);
      continue;
    }
    return absl::UnavailableError(
        StrCat("the server refused the request: ", message.ok() ? *message : *reply));
  }
}

absl::StatusOr<int> Remote::CallAndPrint(const std::string& request) {
  absl::StatusOr<core::Value> reply = Call(request);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<int64_t> exit_code = wire::Integer(*reply, "exit");
  if (!exit_code.ok()) return absl::DataLossError(StrCat("the server's reply: ", exit_code.status().message()));
  const core::Value* output = reply->Find("output");
  absl::StatusOr<wire::Chunks> chunks =
      output != nullptr ? wire::ReadChunks(*output) : absl::DataLossError("output: missing");
  if (!chunks.ok()) return absl::DataLossError(StrCat("the server's reply: ", chunks.status().message()));
  for (const auto& [fd, text] : *chunks) WriteAll(fd, text);
  return static_cast<int>(*exit_code);
}

absl::StatusOr<int> Remote::Command(std::string_view name, const std::vector<std::string>& args,
                                    const std::string* stdin_data) {
  core::JsonWriter w;
  w.BeginObject().Key("type").String("command").Key("build_id").String(server::BuildId());
  w.Key("cwd").String(cwd_);
  w.Key("name").String(name).Key("args").BeginArray();
  for (const std::string& arg : args) w.String(arg);
  w.EndArray();
  if (stdin_data != nullptr) w.Key("stdin").String(absl::Base64Escape(*stdin_data));
  w.EndObject();
  return CallAndPrint(w.Take());
}

std::string Remote::CaptureRequest() const {
  core::JsonWriter w;
  w.BeginObject().Key("type").String("capture").Key("build_id").String(server::BuildId());
  w.Key("cwd").String(cwd_).EndObject();
  return w.Take();
}

absl::Status Remote::RequestCaptureSettings() {
  absl::Status sent = client_.Send(CaptureRequest(), absl::Now() + RequestTimeout());
  capture_requested_ = sent.ok();
  return sent;
}

absl::StatusOr<core::CaptureSettings> Remote::CaptureSettings() {
  const bool sent = capture_requested_;
  capture_requested_ = false;
  absl::StatusOr<core::Value> reply = Call(CaptureRequest(), sent);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<core::CaptureSettings> settings = wire::ReadSettings(*reply);
  if (!settings.ok()) {
    return absl::DataLossError(StrCat("the server's reply: ", settings.status().message()));
  }
  return settings;
}

absl::StatusOr<int> Remote::Shape(bool run, std::string_view command,
                                  std::optional<int> exit_code, const ShapeFlags& flags,
                                  const core::CapturedOutput& captured) {
  core::JsonWriter w;
  w.BeginObject().Key("type").String("shape").Key("build_id").String(server::BuildId());
  w.Key("cwd").String(cwd_);
  w.Key("run").Bool(run).Key("command").String(command).Key("exit_code");
  if (exit_code) {
    w.Int(*exit_code);
  } else {
    w.Null();
  }
  w.Key("shaper").String(flags.shaper).Key("json").Bool(flags.json);
  w.Key("max_tokens");
  if (flags.max_tokens) {
    w.Int(static_cast<int64_t>(*flags.max_tokens));
  } else {
    w.Null();
  }
  w.Key("captured").BeginObject();
  wire::WriteCaptured(captured, w);
  w.EndObject().EndObject();
  return CallAndPrint(w.Take());
}

void NoteFallback(const std::string& home, const absl::Status& why) {
  const std::string message = StrCat("the server did not serve this command (", why.message(),
                                     "); running it in this process");
  core::Log(home + "/logs").Write("warn", "client", message);
  WriteAll(STDERR_FILENO, StrCat("plugline: note: ", message, "\n"));
}

}  // namespace plugline::cli

#include "cli/server_command.h"

#include "cli/cli_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"
#include "cli/remote.h"
#include "cli/serve.h"
#include "server/client.h"
#include "server/host_pool.h"
#include "server/server.h"
#include "server/socket.h"

namespace plugline::cli {
namespace {

// `server status` when no server runs.
constexpr int kExitNotRunning = 3;
constexpr absl::Duration kCallTimeout = absl::Seconds(5);
constexpr absl::Duration kStartTimeout = absl::Seconds(10);
constexpr absl::Duration kStopTimeout = absl::Seconds(10);

constexpr std::string_view kServerUsage =
    "usage: plugline server [--idle-timeout SECONDS]   run the server in the foreground\n"
    "       plugline server start [--idle-timeout SECONDS]\n"
    "                                                 start it in the background\n"
    "       plugline server status [--json]           is it running: pid, version, uptime,\n"
    "                                                 requests, memory (exit 3: not running)\n"
    "       plugline server stop                      stop it (and clear what a killed one\n"
    "                                                 left behind)\n";

// A reply's fields, or the error it carries as a Status.
absl::StatusOr<core::Value> Ask(const std::string& home, std::string_view type) {
  absl::StatusOr<server::Client> client = server::Client::Connect(home, kCallTimeout);
  if (!client.ok()) return client.status();
  absl::StatusOr<std::string> reply =
      client->Call(StrCat("{\"type\":\"", type, "\"}"), kCallTimeout);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<core::Value> value = core::ParseJson(*reply, "the server's reply");
  if (!value.ok()) return value.status();
  const core::Value* ok = value->is_object() ? value->Find("ok") : nullptr;
  if (ok == nullptr || !ok->is_bool() || !ok->as_bool()) {
    const core::Value* error = value->is_object() ? value->Find("error") : nullptr;
    const core::Value* message = error != nullptr ? error->Find("message") : nullptr;
    return absl::UnknownError(message != nullptr && message->is_string() ? message->as_string()
                                                                         : *reply);
  }
  return value;
}

double Number(const core::Value& value, std::string_view key) {
  const core::Value* v = value.Find(key);
  return v != nullptr && v->is_number() ? v->as_number() : 0;
}

bool ParseIdleTimeout(const std::vector<std::string>& args, size_t from,
                      std::optional<absl::Duration>* idle) {
  for (size_t i = from; i < args.size(); ++i) {
    double seconds = 0;
    if (args[i] == "--idle-timeout" && i + 1 < args.size() &&
        absl::SimpleAtod(args[i + 1], &seconds) && seconds > 0) {
      *idle = absl::Seconds(seconds);
      ++i;
    } else {
      Error(StrCat("server: unexpected argument ", args[i], "\n\n", kServerUsage));
      return false;
    }
  }
  return true;
}

int Foreground(const std::string& home, server::ServerOptions options) {
  // Started by a command (remote.cc): it waits on this descriptor to hear that we listen.
  int ready_fd = -1;
  if (const char* env = std::getenv("PLUGLINE_SERVER_READY_FD"); env != nullptr) {
    if (!absl::SimpleAtoi(env, &ready_fd) || ready_fd < 3) ready_fd = -1;
    ::unsetenv("PLUGLINE_SERVER_READY_FD");  // not for the plugins' processes
    if (ready_fd >= 0) ::fcntl(ready_fd, F_SETFD, FD_CLOEXEC);
  }
  options.on_listening = [&home, &ready_fd] {
    WriteAll(STDERR_FILENO, StrCat("plugline: server for ", home, " listening on ",
                                server::SocketPath(home), " (pid ", ::getpid(), ")\n"));
    if (ready_fd >= 0) {
      WriteAll(ready_fd, "1");
      ::close(ready_fd);
      ready_fd = -1;
    }
  };
  // The hosts, one per project directory, live as long as the server (or until unused).
  server::HostPool::Options pool_options;
  pool_options.home = home;
  if (const char* env = std::getenv("PLUGLINE_SERVER_HOST_IDLE_S"); env != nullptr) {
    double seconds = 0;
    if (absl::SimpleAtod(env, &seconds) && seconds > 0) {
      pool_options.unused_after = absl::Seconds(seconds);
      options.maintenance_interval = std::min(options.maintenance_interval, absl::Seconds(seconds));
    }
  }
  Service service(pool_options);
  options.handle = [&service](const core::Value& request,
                              std::vector<std::function<void()>>* later) {
    return service.Handle(request, later);
  };
  options.describe = [&service] { return service.pool().Describe(); };
  options.maintain = [&service] { service.pool().DropUnused(); };
  // Before the lock is released: the statistics still queued are written then, not after.
  options.on_stop = [&service] {
    service.pool().DropAll();
    service.Stop();
  };
  absl::Status run = server::RunServer(options);
  if (!run.ok()) {
    Error(ToStd(run.message()));
    return 1;
  }
  return 0;
}

int Start(const std::string& home, std::optional<absl::Duration> idle_timeout) {
  if (absl::StatusOr<core::Value> hello = Ask(home, "hello"); hello.ok()) {
    WriteAll(STDOUT_FILENO, StrCat("a server already runs for ", home, " (pid ",
                                static_cast<int64_t>(Number(*hello, "pid")), ")\n"));
    return 0;
  }
  absl::StatusOr<int64_t> pid = StartServerProcess(home, idle_timeout, kStartTimeout);
  if (!pid.ok()) {
    Error(ToStd(pid.status().message()));
    return 1;
  }
  WriteAll(STDOUT_FILENO, StrCat("server started for ", home, " (pid ", *pid, ")\n"));
  return 0;
}

int Status(const std::string& home, bool json) {
  absl::StatusOr<core::Value> status = Ask(home, "status");
  if (!status.ok()) {
    if (json) {
      WriteAll(STDOUT_FILENO, "{\"running\":false}\n");
    } else {
      WriteAll(STDOUT_FILENO, StrCat("no server is running for ", home, "\n"));
    }
    return kExitNotRunning;
  }
  if (json) {
    core::ValueObject fields = {{"running", core::Value(true)}};
    for (const auto& [key, value] : status->as_object()) {
      if (key != "ok") fields.emplace_back(key, value);
    }
    WriteAll(STDOUT_FILENO, StrCat(core::ToJson(core::Value(std::move(fields))), "\n"));
    return 0;
  }
  const auto uptime_s = static_cast<int64_t>(Number(*status, "uptime_ms") / 1000);
  std::string out =
      StrCat("server for ", home, ": pid ", static_cast<int64_t>(Number(*status, "pid")),
             ", plugline ", status->StringMember("version"), ", up ", uptime_s, "s, ",
             core::FormatCount(static_cast<uint64_t>(Number(*status, "requests"))), " requests, ",
             core::FormatBytes(static_cast<uint64_t>(Number(*status, "rss_bytes"))), " resident\n");
  // One line per host: its project directory, its plugins, what it served.
  if (const core::Value* hosts = status->Find("hosts"); hosts != nullptr && hosts->is_array()) {
    for (const core::Value& host : hosts->as_array()) {
      const auto plugins = static_cast<uint64_t>(Number(host, "plugins"));
      StrAppend(&out, "  ", core::EscapeControl(host.StringMember("project_dir")), ": ", plugins,
                plugins == 1 ? " plugin, " : " plugins, ",
                core::FormatCount(static_cast<uint64_t>(Number(host, "requests"))),
                " requests, idle ", static_cast<int64_t>(Number(host, "idle_ms") / 1000), "s\n");
    }
  }
  WriteAll(STDOUT_FILENO, out);
  return 0;
}

// Waits for the server's lock to be free (it writes nothing into the home after that).
bool AwaitStop(const std::string& home) {
  const absl::Time deadline = absl::Now() + kStopTimeout;
  while (absl::Now() < deadline) {
    if (!server::ServerAlive(home)) return true;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return false;
}

int Stop(const std::string& home) {
  absl::StatusOr<core::Value> stopped = Ask(home, "stop");
  if (!stopped.ok()) {
    // None answers. One may live all the same (its socket removed, or too busy to answer in
    // time; the lock tells): it is asked by SIGTERM, the pid its lock file holds, and waited
    // for, so that its caller may remove the home once this returns.
    if (server::ServerAlive(home)) {
      int64_t pid = 0;
      absl::StatusOr<std::string> text = core::ReadFile(server::LockPath(home), 64);
      // (A server that went in the meantime is no longer there to signal: ESRCH.)
      if (!text.ok() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid) || pid <= 1 ||
          (::kill(static_cast<pid_t>(pid), SIGTERM) != 0 && errno != ESRCH)) {
        Error(StrCat("a server holds ", server::LockPath(home), " but does not answer (",
                     stopped.status().message(), ")"));
        return 1;
      }
      if (!AwaitStop(home)) {
        Error(StrCat("the server (pid ", pid, ") did not stop within ",
                     absl::FormatDuration(kStopTimeout)));
        return 1;
      }
      WriteAll(STDOUT_FILENO, StrCat("server stopped (pid ", pid, ", by SIGTERM: it did not "
                                     "answer)\n"));
      return 0;
    }
    // Clear a socket a killed server left.
    const std::string socket = server::SocketPath(home);
    struct stat st;
    if (::lstat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) {
      ::unlink(socket.c_str());
      WriteAll(STDOUT_FILENO, StrCat("no server was running; removed the stale ", socket, "\n"));
      return 0;
    }
    WriteAll(STDOUT_FILENO, StrCat("no server was running for ", home, "\n"));
    return 0;
  }
  const int64_t pid = static_cast<int64_t>(Number(*stopped, "pid"));
  // Stopped when its lock is free (the socket is removed just before).
  if (AwaitStop(home)) {
    WriteAll(STDOUT_FILENO, StrCat("server stopped (pid ", pid, ")\n"));
    return 0;
  }
  Error(StrCat("the server (pid ", pid, ") did not stop within ",
               absl::FormatDuration(kStopTimeout)));
  return 1;
}

}  // namespace

int ServerCommand(const std::vector<std::string>& args) {
  absl::StatusOr<std::string> home = core::ResolveHome("");
  if (!home.ok()) {
    Error(ToStd(home.status().message()));
    return 1;
  }
  // The global config's server settings; --idle-timeout wins.
  const core::ServerConfig config = core::LoadConfig(*home, "", nullptr).server;
  server::ServerOptions options;
  options.home = *home;
  options.idle_timeout = absl::Minutes(config.idle_timeout_minutes);
  options.max_rss_bytes = config.max_rss_bytes;
  std::optional<absl::Duration> idle;
  const std::string action = args.empty() ? "" : args[0];
  if (action.empty() || action.starts_with("--")) {
    if (!ParseIdleTimeout(args, 0, &idle)) return kExitUsage;
    if (idle) options.idle_timeout = *idle;
    return Foreground(*home, options);
  }
  if (action == "start") {
    if (!ParseIdleTimeout(args, 1, &idle)) return kExitUsage;
    return Start(*home, idle);
  }
  if (action == "status") {
    const bool json = args.size() == 2 && args[1] == "--json";
    if (args.size() > (json ? 2 : 1)) {
      Error(StrCat("server status: unexpected argument ", args.back(), "\n\n", kServerUsage));
      return kExitUsage;
    }
    return Status(*home, json);
  }
  if (action == "stop" && args.size() == 1) return Stop(*home);
  Error(StrCat("server: unknown action ", action, "\n\n", kServerUsage));
  return kExitUsage;
}

}  // namespace plugline::cli

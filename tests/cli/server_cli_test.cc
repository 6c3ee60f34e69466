// `plugline server` through the real binary: start in the background, status, stop; a server
// killed with SIGKILL leaves a stale socket that status, start and stop handle.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "cli/cli_runner.h"
#include "core/json.h"
#include "core/strings.h"

namespace plugline::cli {
namespace {

using plugline::testing::Alive;
using plugline::testing::Cli;
using plugline::testing::Contains;

int64_t ServerPid(Cli& cli) {
  auto status = cli.Run({"server", "status", "--json"});
  REQUIRE(status.exit_status == 0);
  auto json = core::ParseJson(status.output, "server status --json");
  REQUIRE_MESSAGE(json.ok(), status.output);
  CHECK(json->Find("running")->as_bool());
  return static_cast<int64_t>(json->Find("pid")->as_number());
}

TEST_CASE("plugline server start, status and stop") {
  Cli cli;
  auto none = cli.Run({"server", "status"});
  CHECK(none.exit_status == 3);
  CHECK(none.output == StrCat("no server is running for ", cli.home.path(), "\n"));
  auto none_json = cli.Run({"server", "status", "--json"});
  CHECK(none_json.exit_status == 3);
  CHECK(none_json.output == "{\"running\":false}\n");

  auto started = cli.Run({"server", "start"});
  REQUIRE_MESSAGE(started.exit_status == 0, started.error_output);
  CHECK(absl::StartsWith(started.output, StrCat("server started for ", cli.home.path(), " (pid ")));
  const int64_t pid = ServerPid(cli);
  CHECK(pid > 0);
  CHECK(Alive(pid));

  auto status = cli.Run({"server", "status", "--json"});
  auto json = core::ParseJson(status.output, "status");
  REQUIRE(json.ok());
  CHECK(json->Find("version")->as_string() == cli.Run({"version"}).output.substr(9, 5));
  CHECK(json->Find("idle_timeout_ms")->as_number() == 15 * 60 * 1000);
  CHECK(json->Find("requests")->as_number() >= 2);
  auto human = cli.Run({"server", "status"});
  CHECK(human.exit_status == 0);
  CHECK(absl::StartsWith(human.output, StrCat("server for ", cli.home.path(), ": pid ", pid,
                                              ", plugline ")));
  CHECK(Contains(human.output, " resident\n"));

  auto again = cli.Run({"server", "start"});
  CHECK(again.exit_status == 0);
  CHECK(again.output == StrCat("a server already runs for ", cli.home.path(), " (pid ", pid, ")\n"));
  auto foreground = cli.Run({"server"});
  CHECK(foreground.exit_status == 1);
  CHECK(foreground.error_output ==
        StrCat("plugline: a server already serves ", cli.home.path(), " (pid ", pid, ")\n"));

  auto stopped = cli.Run({"server", "stop"});
  CHECK(stopped.exit_status == 0);
  CHECK(stopped.output == StrCat("server stopped (pid ", pid, ")\n"));
  CHECK(cli.Run({"server", "status"}).exit_status == 3);
  struct stat st;
  CHECK(::lstat(cli.home.Sub("run/server.sock").c_str(), &st) != 0);
  CHECK(cli.Run({"server", "stop"}).output ==
        StrCat("no server was running for ", cli.home.path(), "\n"));
  // The server said where it ran and why it stopped in the log.
  const std::string log = plugline::testing::ReadFileOrEmpty(cli.home.Sub("logs/plugline.log"));
  CHECK(Contains(log, StrCat("server: serving ", cli.home.path())));
  CHECK(Contains(log, "server: stopping: a stop request"));
}

TEST_CASE("plugline server: stop stops a live server that does not answer, and returns once it is gone") {
  Cli cli;
  REQUIRE(cli.Run({"server", "start"}).exit_status == 0);
  const int64_t pid = ServerPid(cli);
  REQUIRE(pid > 0);
  // Its socket gone, no request reaches it; its lock says it lives. Before, stop answered
  // "no server was running" at once, and a caller that then removed the home raced the
  // server's last writes into it.
  REQUIRE(::unlink(cli.home.Sub("run/server.sock").c_str()) == 0);
  auto stopped = cli.Run({"server", "stop"});
  CHECK(stopped.exit_status == 0);
  CHECK(stopped.output ==
        StrCat("server stopped (pid ", pid, ", by SIGTERM: it did not answer)\n"));
  CHECK(cli.Run({"server", "status"}).exit_status == 3);
  // It said so last (by SIGTERM, or on its own when it noticed its socket gone).
  const std::string log = plugline::testing::ReadFileOrEmpty(cli.home.Sub("logs/plugline.log"));
  CHECK(absl::EndsWith(log, "server: stopped\n"));
  for (int i = 0; i < 500 && Alive(pid); ++i) absl::SleepFor(absl::Milliseconds(10));
  CHECK(!Alive(pid));
}

TEST_CASE("plugline server: after a SIGKILL the stale socket is detected and replaced") {
  Cli cli;
  REQUIRE(cli.Run({"server", "start"}).exit_status == 0);
  const int64_t pid = ServerPid(cli);
  REQUIRE(::kill(static_cast<pid_t>(pid), SIGKILL) == 0);
  // The server was started detached (its own session): it is not our child; wait for it to go.
  for (int i = 0; i < 500 && Alive(pid); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  struct stat st;
  REQUIRE(::lstat(cli.home.Sub("run/server.sock").c_str(), &st) == 0);  // left behind
  CHECK(cli.Run({"server", "status"}).exit_status == 3);
  SUBCASE("stop clears it") {
    auto stopped = cli.Run({"server", "stop"});
    CHECK(stopped.exit_status == 0);
    CHECK(stopped.output == StrCat("no server was running; removed the stale ",
                                   cli.home.Sub("run/server.sock"), "\n"));
    CHECK(::lstat(cli.home.Sub("run/server.sock").c_str(), &st) != 0);
  }
  SUBCASE("start replaces it") {
    auto started = cli.Run({"server", "start"});
    CHECK(started.exit_status == 0);
    const int64_t fresh = ServerPid(cli);
    CHECK(fresh != pid);
    CHECK(cli.Run({"server", "stop"}).exit_status == 0);
  }
}

TEST_CASE("plugline server: an idle server exits by itself") {
  Cli cli;
  REQUIRE(cli.Run({"server", "start", "--idle-timeout", "0.5"}).exit_status == 0);
  const int64_t pid = ServerPid(cli);
  bool gone = false;
  for (int i = 0; i < 1000 && !gone; ++i) {
    gone = !Alive(pid);
    if (!gone) absl::SleepFor(absl::Milliseconds(20));
  }
  CHECK(gone);
  CHECK(cli.Run({"server", "status"}).exit_status == 3);
  auto bad = cli.Run({"server", "start", "--idle-timeout", "soon"});
  CHECK(bad.exit_status == 2);
  CHECK(Contains(bad.error_output, "server: unexpected argument --idle-timeout"));
}

}  // namespace
}  // namespace plugline::cli

// Runs the real `plugline` binary as a user would, with a fresh PLUGLINE_HOME per runner.
#ifndef PLUGLINE_TESTS_CLI_CLI_RUNNER_H_
#define PLUGLINE_TESTS_CLI_CLI_RUNNER_H_

#include <doctest/doctest.h>

#include <signal.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "exec/process.h"
#include "test_util.h"

namespace plugline::testing {

// Commands run in-process (PLUGLINE_SERVER=0), each one the plugins' whole session, unless
// `server` is set: then they use (and start) the home's server as a user's commands do, and
// the server is stopped when the runner goes.
struct Cli {
  TempDir home;
  bool server = false;
  std::string binary = BinDir() + "/plugline";
  std::string cwd;  // empty: the test's
  std::vector<std::pair<std::string, std::string>> env;  // more environment

  ~Cli() {
    cwd.clear();  // a test's directory may be gone by now
    if (server) Run({"server", "stop"});
  }

  // Runs `plugline args...` with PLUGLINE_HOME set to home (or `home_override`); stdout and
  // stderr apart. Fails the test when the binary cannot be started.
  exec::ProcessResult Run(std::vector<std::string> args, std::string home_override = "",
                          std::optional<std::string> stdin_data = std::nullopt) {
    exec::ProcessSpec spec;
    spec.stdin_data = std::move(stdin_data);
    spec.argv = {binary};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.extra_env = {{"PLUGLINE_HOME", home_override.empty() ? home.path() : home_override}};
    if (!server) spec.extra_env.emplace_back("PLUGLINE_SERVER", "0");
    spec.extra_env.insert(spec.extra_env.end(), env.begin(), env.end());
    if (!cwd.empty()) spec.cwd = cwd;
    spec.merge_output = false;
    spec.timeout = absl::Seconds(60);
    auto result = exec::RunProcess(spec);
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    return *result;
  }
};

// A process that still runs (a zombie nobody has reaped yet does not count: a server is
// detached, so whoever adopted it reaps it).
inline bool Alive(int64_t pid) {
  if (::kill(static_cast<pid_t>(pid), 0) != 0) return false;
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

}  // namespace plugline::testing

#endif  // PLUGLINE_TESTS_CLI_CLI_RUNNER_H_

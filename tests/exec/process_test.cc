#include "exec/process.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include "absl/time/clock.h"
#include "test_util.h"

namespace plugline::exec {
namespace {

ProcessSpec Shell(std::string script) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", std::move(script)};
  return spec;
}

TEST_CASE("stdout and stderr are captured in the order they were written") {
  std::string script;
  std::string expected;
  for (int i = 0; i < 200; ++i) {
    script += "echo out" + std::to_string(i) + "; echo err" + std::to_string(i) + " >&2; ";
    expected += "out" + std::to_string(i) + "\nerr" + std::to_string(i) + "\n";
  }
  auto result = RunProcess(Shell(script));
  REQUIRE(result.ok());
  CHECK(result->output == expected);
  CHECK(result->exit_status == 0);
}

TEST_CASE("exit codes and signals are reported as a shell would") {
  auto exited = RunProcess(Shell("exit 42"));
  REQUIRE(exited.ok());
  CHECK(exited->exit_status == 42);
  CHECK(exited->ShellExitCode() == 42);
  auto killed = RunProcess(Shell("kill -TERM $$"));
  REQUIRE(killed.ok());
  CHECK(killed->term_signal == SIGTERM);
  CHECK(killed->ShellExitCode() == 128 + SIGTERM);
}

TEST_CASE("a missing command is NotFound naming it, a non-executable is PermissionDenied") {
  ProcessSpec spec;
  spec.argv = {"plugline-no-such-command-xyz"};
  auto missing = RunProcess(spec);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message()) ==
        "command not found: plugline-no-such-command-xyz");

  plugline::testing::TempDir dir;
  plugline::testing::WriteFile(dir.Sub("script.sh"), "#!/bin/sh\necho hi\n");
  spec.argv = {dir.Sub("script.sh")};
  auto denied = RunProcess(spec);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.status().code() == absl::StatusCode::kPermissionDenied);
}

TEST_CASE("stdin data is delivered and closed, a child that ignores stdin does not hurt") {
  ProcessSpec spec;
  spec.argv = {"cat"};
  spec.stdin_data = std::string("{\"event\":\"pre_tool_call\"}\n");
  auto echoed = RunProcess(spec);
  REQUIRE(echoed.ok());
  CHECK(echoed->output == *spec.stdin_data);

  // 4 MiB into a process that never reads: EPIPE, no SIGPIPE death of this process.
  ProcessSpec ignoring = Shell("exit 0");
  ignoring.stdin_data = std::string(4 << 20, 'x');
  auto ignored = RunProcess(ignoring);
  REQUIRE(ignored.ok());
  CHECK(ignored->exit_status == 0);
}

TEST_CASE("stderr can be kept apart") {
  ProcessSpec spec = Shell("echo to-out; echo to-err >&2");
  spec.merge_output = false;
  auto result = RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->output == "to-out\n");
  CHECK(result->error_output == "to-err\n");
}

TEST_CASE("a timeout sends SIGTERM, then SIGKILL to one that ignores it") {
  ProcessSpec spec = Shell("sleep 30");
  spec.timeout = absl::Milliseconds(200);
  absl::Time start = absl::Now();
  auto result = RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->timed_out);
  CHECK(result->term_signal == SIGTERM);
  CHECK(absl::Now() - start < absl::Seconds(10));

  ProcessSpec stubborn = Shell("trap '' TERM; while :; do sleep 0.05; done");
  stubborn.timeout = absl::Milliseconds(200);
  stubborn.kill_grace = absl::Milliseconds(200);
  stubborn.own_process_group = true;
  auto killed = RunProcess(stubborn);
  REQUIRE(killed.ok());
  CHECK(killed->timed_out);
  CHECK(killed->term_signal == SIGKILL);
}

TEST_CASE("output past the bound kills the child and keeps exactly the bound") {
  ProcessSpec spec = Shell("yes line");
  spec.max_output_bytes = 100000;
  auto result = RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->output_limit_hit);
  CHECK(result->output.size() == 100000);
  CHECK(result->term_signal == SIGKILL);
}

TEST_CASE("extra environment and working directory reach the child") {
  plugline::testing::TempDir dir;
  ProcessSpec spec = Shell("echo \"$PLUGLINE_TEST_VAR\"; pwd");
  spec.extra_env = {{"PLUGLINE_TEST_VAR", "value with spaces"}};
  spec.cwd = dir.path();
  auto result = RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->output == "value with spaces\n" + dir.path() + "\n");
}

TEST_CASE("a daemon holding the pipe open does not hang the caller") {
  absl::Time start = absl::Now();
  auto result = RunProcess(Shell("echo started; (sleep 20 &) ; exit 0"));
  REQUIRE(result.ok());
  CHECK(result->output == "started\n");
  CHECK(absl::Now() - start < absl::Seconds(8));
}

TEST_CASE("collect_output=false: every byte reaches on_output and none is kept") {
  ProcessSpec spec = Shell("head -c 5000000 /dev/zero; echo tail >&2");
  spec.collect_output = false;
  uint64_t seen = 0;
  std::string last;
  spec.on_output = [&](std::string_view chunk) {
    seen += chunk.size();
    last = std::string(chunk.substr(chunk.size() > 5 ? chunk.size() - 5 : 0));
  };
  auto result = RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(seen == 5000005);
  CHECK(last == "tail\n");
  CHECK(result->output.empty());
  CHECK(result->exit_status == 0);
}

TEST_CASE("kill_with_parent leaves a normal run as it was") {
  ProcessSpec spec = Shell("echo $PPID; exit 4");
  spec.kill_with_parent = true;
  auto result = RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->exit_status == 4);
  CHECK(result->output == std::to_string(::getpid()) + "\n");
}

}  // namespace
}  // namespace plugline::exec

#include "exec/child.h"

#include <doctest/doctest.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <string>

#include "absl/time/clock.h"
#include "test_util.h"

namespace plugline::exec {
namespace {

constexpr absl::Duration kPatience = absl::Seconds(30);

std::unique_ptr<Child> StartShell(std::string script,
                                  ChildSpec::Stderr stderr_mode = ChildSpec::Stderr::kCapture) {
  ChildSpec spec;
  spec.argv = {"sh", "-c", std::move(script)};
  spec.stderr_mode = stderr_mode;
  auto child = Child::Start(spec);
  REQUIRE_MESSAGE(child.ok(), child.status().ToString());
  return *std::move(child);
}

// A line-echoing child: "got <line>" for every line, until stdin closes.
constexpr char kEcho[] = "while IFS= read -r line; do printf 'got %s\\n' \"$line\"; done";

TEST_CASE("a child answers line by line and keeps its state between requests") {
  auto child = StartShell("n=0; while IFS= read -r line; do n=$((n+1)); echo \"$n:$line\"; done");
  for (int i = 1; i <= 3; ++i) {
    REQUIRE(child->WriteLine("ping" + std::to_string(i), absl::Now() + kPatience).ok());
    auto reply = child->ReadLine(absl::Now() + kPatience);
    REQUIRE_MESSAGE(reply.ok(), reply.status().ToString());
    CHECK(*reply == std::to_string(i) + ":ping" + std::to_string(i));
  }
  CHECK(child->pid() > 0);
  CHECK_FALSE(child->exit().has_value());
}

TEST_CASE("several lines in one write come back as separate lines") {
  auto child = StartShell("printf 'a\\nb\\n\\nc\\n'; sleep 30");
  CHECK(*child->ReadLine(absl::Now() + kPatience) == "a");
  CHECK(*child->ReadLine(absl::Now() + kPatience) == "b");
  CHECK(*child->ReadLine(absl::Now() + kPatience) == "");
  CHECK(*child->ReadLine(absl::Now() + kPatience) == "c");
}

TEST_CASE("a 4 MiB line goes out and comes back while the child is still reading it") {
  // `cat` echoes as it reads: the parent must read while it writes, or both block.
  auto child = StartShell("exec cat");
  std::string big(4u << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4093) big[i] = static_cast<char>('a' + i % 26);
  REQUIRE(child->WriteLine(big, absl::Now() + kPatience).ok());
  auto reply = child->ReadLine(absl::Now() + kPatience);
  REQUIRE(reply.ok());
  CHECK(reply->size() == big.size());
  CHECK(*reply == big);
}

TEST_CASE("no answer by the deadline is DeadlineExceeded and the child keeps running") {
  auto child = StartShell(kEcho);
  auto silent = child->ReadLine(absl::Now() + absl::Milliseconds(50));
  REQUIRE_FALSE(silent.ok());
  CHECK(silent.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK_FALSE(child->exit().has_value());
  REQUIRE(child->WriteLine("still here", absl::Now() + kPatience).ok());
  CHECK(*child->ReadLine(absl::Now() + kPatience) == "got still here");
}

TEST_CASE("Kill ends the whole process group and Wait reports the signal") {
  // The shell starts a grandchild in the background and reports its pid.
  auto child = StartShell("sleep 300 & echo $!; wait");
  auto line = child->ReadLine(absl::Now() + kPatience);
  REQUIRE(line.ok());
  int grandchild = std::stoi(*line);
  CHECK(::kill(grandchild, 0) == 0);
  child->Kill(SIGKILL);
  auto exit = child->Wait(absl::Now() + kPatience);
  REQUIRE(exit.has_value());
  CHECK(exit->term_signal == SIGKILL);
  CHECK(exit->Describe() == "was killed by signal 9 (Killed)");
  // The grandchild got the SIGKILL too (it may linger as a zombie until init reaps it).
  bool gone = false;
  for (absl::Time until = absl::Now() + kPatience; !gone && absl::Now() < until;) {
    std::string stat =
        plugline::testing::ReadFileOrEmpty("/proc/" + std::to_string(grandchild) + "/stat");
    gone = stat.empty() || stat.find(") Z ") != std::string::npos;
    if (!gone) absl::SleepFor(absl::Milliseconds(10));
  }
  CHECK(gone);
  // Reading after the exit drains what is left and then reports the closed output.
  auto after = child->ReadLine(absl::Now() + kPatience);
  CHECK(after.status().code() == absl::StatusCode::kUnavailable);
}

TEST_CASE("a child that exits is reported with its status, and writing to it is an error") {
  auto child = StartShell("read -r line; echo \"bye $line\"; echo 'last words' >&2; exit 3");
  REQUIRE(child->WriteLine("now", absl::Now() + kPatience).ok());
  CHECK(*child->ReadLine(absl::Now() + kPatience) == "bye now");
  auto eof = child->ReadLine(absl::Now() + kPatience);
  REQUIRE_FALSE(eof.ok());
  CHECK(eof.status().code() == absl::StatusCode::kUnavailable);
  auto exit = child->Wait(absl::Now() + kPatience);
  REQUIRE(exit.has_value());
  CHECK(exit->exit_status == 3);
  CHECK(exit->term_signal == 0);
  CHECK(exit->Describe() == "exited with status 3");
  CHECK(child->stderr_tail() == "last words\n");
  // The child is gone: this raises SIGPIPE, which must not kill the test process.
  absl::Status written = child->WriteLine("anyone?", absl::Now() + kPatience);
  CHECK(written.code() == absl::StatusCode::kUnavailable);
}

TEST_CASE("stderr keeps only its tail") {
  ChildSpec spec;
  spec.argv = {"sh", "-c",
               "i=0; while [ $i -lt 500 ]; do echo \"line $i\" >&2; i=$((i+1)); done; "
               "echo done"};
  spec.stderr_tail_bytes = 64;
  auto child = Child::Start(spec);
  REQUIRE(child.ok());
  CHECK(*(*child)->ReadLine(absl::Now() + kPatience) == "done");
  // Wait() returns once stderr is read to its end too.
  REQUIRE((*child)->Wait(absl::Now() + kPatience).has_value());
  std::string tail = (*child)->stderr_tail();
  CHECK(tail.size() <= 64);
  CHECK(tail.find("line 499\n") != std::string::npos);
}

TEST_CASE("a line past max_line_bytes kills the child") {
  ChildSpec spec;
  spec.argv = {"sh", "-c", "head -c 300000 /dev/zero | tr '\\0' y; echo; sleep 300"};
  spec.max_line_bytes = 100000;
  auto child = Child::Start(spec);
  REQUIRE(child.ok());
  auto line = (*child)->ReadLine(absl::Now() + kPatience);
  REQUIRE_FALSE(line.ok());
  CHECK(line.status().code() == absl::StatusCode::kResourceExhausted);
  auto exit = (*child)->Wait(absl::Now() + kPatience);
  REQUIRE(exit.has_value());
  CHECK(exit->term_signal == SIGKILL);
}

TEST_CASE("a child that cannot start is a Status") {
  ChildSpec spec;
  spec.argv = {"plugline-no-such-command-xyz"};
  auto missing = Child::Start(spec);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message()) ==
        "command not found: plugline-no-such-command-xyz");
  spec.argv = {};
  CHECK(Child::Start(spec).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("destroying a running child kills and reaps it") {
  int pid = 0;
  {
    auto child = StartShell("exec sleep 300", ChildSpec::Stderr::kDiscard);
    pid = child->pid();
    CHECK(::kill(pid, 0) == 0);
  }
  // Reaped: the pid no longer names our child (kill fails with ESRCH).
  errno = 0;
  CHECK(::kill(pid, 0) == -1);
  CHECK(errno == ESRCH);
}

}  // namespace
}  // namespace plugline::exec

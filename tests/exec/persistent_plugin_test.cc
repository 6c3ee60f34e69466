// `protocol: persistent` exec plugins: one long-lived process, newline-delimited JSON with ids.
// Every test runs the real python3 fixture tests/exec/plugins/persistent/plugin.py.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "exec/exec_plugin.h"
#include "test_util.h"

namespace plugline::exec {
namespace {

using plugline::testing::TempDir;
using plugline::testing::WriteFile;

std::string Fixture(std::string_view name) {
  return plugline::testing::SourceDir() + "/exec/plugins/" + std::string(name);
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

// A pre_tool_call payload for the terminal tool running `command` (which picks the fixture's
// behaviour); `marker`, when given, is a file the fixture creates when it starts hanging.
std::string Terminal(std::string_view command, std::string_view marker = "") {
  std::string arguments = R"({\"command\":\")" + std::string(command) + R"(\")";
  if (!marker.empty()) arguments += R"(,\"marker\":\")" + std::string(marker) + R"(\")";
  arguments += "}";
  return R"({"event":"pre_tool_call","tool":"terminal","arguments":")" + arguments + R"("})";
}

constexpr std::string_view kSessionStart = R"({"event":"session_start","session_id":"ses_1"})";

// Collects what the sink receives.
struct StderrLog {
  absl::Mutex mu;
  std::map<std::string, std::string> by_plugin;
  ExecPluginStderrSink Sink() {
    return [this](const std::string& id, std::string_view text) {
      absl::MutexLock lock(&mu);
      by_plugin[id] += std::string(text);
    };
  }
  std::string Of(const std::string& id) {
    absl::MutexLock lock(&mu);
    return by_plugin[id];
  }
};

std::shared_ptr<PersistentExecPlugin> MustLoad(const std::string& dir,
                                               ExecPluginStderrSink sink = nullptr) {
  std::vector<std::string> warnings;
  auto plugin = LoadExecPlugin(dir, &warnings, std::move(sink));
  INFO(plugin.status().ToString());
  REQUIRE(plugin.ok());
  CHECK(warnings.empty());
  auto persistent = std::dynamic_pointer_cast<PersistentExecPlugin>(*plugin);
  REQUIRE(persistent != nullptr);
  return persistent;
}

// A manifest in `dir` running the fixture script with `timeout_ms`.
std::string FixtureWithTimeout(const TempDir& dir, int timeout_ms) {
  WriteFile(dir.Sub("plugin.yaml"),
            "name: persistent-short\ncommand: " + Fixture("persistent/plugin.py") +
                "\nhooks: [pre_tool_call]\nprotocol: persistent\ntimeout_ms: " +
                std::to_string(timeout_ms) + "\nenv: {SUFFIX: \" --dry-run\"}\n");
  return dir.path();
}

// The fixture's notice is "pid=P calls=N id=I event=E": one of its numbers.
int64_t NoticeNumber(const core::HookAnswer& answer, std::string_view key) {
  REQUIRE(answer.notice.has_value());
  const std::string& notice = *answer.notice;
  const std::string field = " " + std::string(key) + "=";
  size_t at = (" " + notice).find(field);
  REQUIRE(at != std::string::npos);
  return std::stoll(notice.substr(at + field.size() - 1));
}

bool ProcessGone(int pid) {
  // Gone, or a zombie waiting for its reaper: either way it no longer runs.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

// Polls for up to 10 s (a bound that only a broken implementation reaches).
template <typename Predicate>
bool Eventually(Predicate predicate) {
  for (int i = 0; i < 200; ++i) {
    if (predicate()) return true;
    ::usleep(50 * 1000);
  }
  return predicate();
}

TEST_CASE("persistent exec plugin: the manifest loads, and nothing starts before the first call") {
  std::vector<std::string> warnings;
  auto manifest = LoadExecPluginManifest(Fixture("persistent"), &warnings);
  INFO(manifest.status().ToString());
  REQUIRE(manifest.ok());
  CHECK(manifest->protocol == ExecPluginManifest::Protocol::kPersistent);
  auto plugin = MustLoad(Fixture("persistent"));
  CHECK(plugin->id() == "persistent");
  CHECK(plugin->Handles("pre_tool_call"));
  CHECK(plugin->Handles("session_start"));
  CHECK_FALSE(plugin->Handles("post_tool_call"));
  CHECK_FALSE(plugin->fail_closed());
  CHECK(plugin->pid() == 0);
  CHECK(plugin->restarts() == 0);
}

TEST_CASE("persistent exec plugin: one process answers many calls: notice, rewrite, deny") {
  auto plugin = MustLoad(Fixture("persistent"));
  int64_t pid = 0;
  for (int i = 1; i <= 20; ++i) {
    auto answer = plugin->Call("session_start", kSessionStart);
    INFO(answer.status().ToString());
    REQUIRE(answer.ok());
    if (i == 1) pid = NoticeNumber(*answer, "pid");
    CHECK(NoticeNumber(*answer, "pid") == pid);
    CHECK(NoticeNumber(*answer, "calls") == i);
    CHECK(NoticeNumber(*answer, "id") == i);  // ids count from 1 in each process
    CHECK(answer->notice->find("event=session_start") != std::string::npos);
  }
  CHECK(plugin->pid() == pid);

  auto rewritten = plugin->Call("pre_tool_call", Terminal("rm -rf build"));
  INFO(rewritten.status().ToString());
  REQUIRE(rewritten.ok());
  CHECK_FALSE(rewritten->deny);
  CHECK(rewritten->arguments ==
        std::optional<std::string>(R"({"command": "rm -rf build --dry-run"})"));

  auto denied = plugin->Call(
      "pre_tool_call",
      R"({"event":"pre_tool_call","tool":"write_file","arguments":"{\"path\":\"/etc/passwd\"}"})");
  REQUIRE(denied.ok());
  CHECK(denied->deny);
  CHECK(denied->reason == "writes are limited to /home/me/project");
  auto allowed = plugin->Call(
      "pre_tool_call",
      R"({"event":"pre_tool_call","tool":"write_file","arguments":"{\"path\":\"/home/me/project/a\"}"})");
  REQUIRE(allowed.ok());
  CHECK_FALSE(allowed->deny);
  CHECK_FALSE(allowed->notice.has_value());

  // A pretty-printed payload still travels as one line.
  auto pretty = plugin->Call("session_start", "{\n  \"event\": \"session_start\"\n}\n");
  REQUIRE(pretty.ok());
  CHECK(NoticeNumber(*pretty, "pid") == pid);
  CHECK(plugin->restarts() == 0);
}

TEST_CASE("persistent exec plugin: calls from several threads share the process, one at a time") {
  auto plugin = MustLoad(Fixture("persistent"));
  constexpr int kThreads = 4;
  constexpr int kCallsEach = 25;
  std::atomic<int> failures{0};
  absl::Mutex mu;
  std::vector<int64_t> pids, counts;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kCallsEach; ++i) {
        auto answer = plugin->Call("session_start", kSessionStart);
        if (!answer.ok() || !answer->notice.has_value()) {
          ++failures;
          continue;
        }
        const std::string& notice = *answer->notice;
        int64_t pid = std::stoll(notice.substr(notice.find("pid=") + 4));
        int64_t calls = std::stoll(notice.substr(notice.find("calls=") + 6));
        absl::MutexLock lock(&mu);
        pids.push_back(pid);
        counts.push_back(calls);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(failures.load() == 0);
  REQUIRE(pids.size() == kThreads * kCallsEach);
  for (int64_t pid : pids) CHECK(pid == pids.front());
  // Every call got its own answer: the counter took each value once.
  std::sort(counts.begin(), counts.end());
  for (size_t i = 0; i < counts.size(); ++i) CHECK(counts[i] == static_cast<int64_t>(i + 1));
  CHECK(plugin->restarts() == 0);
}

TEST_CASE("persistent exec plugin: a crash fails that call with status and stderr, then restarts") {
  StderrLog log;
  auto plugin = MustLoad(Fixture("persistent"), log.Sink());
  auto first = plugin->Call("session_start", kSessionStart);
  REQUIRE(first.ok());
  const int64_t first_pid = NoticeNumber(*first, "pid");

  auto crashed = plugin->Call("pre_tool_call", Terminal("crash"));
  CHECK(crashed.status().code() == absl::StatusCode::kUnknown);
  CHECK(Message(crashed.status()) == "exited with status 3; stderr: crashing on request 2");
  CHECK(plugin->pid() == 0);
  CHECK(log.Of("persistent") == "crashing on request 2\n");

  auto next = plugin->Call("session_start", kSessionStart);
  INFO(next.status().ToString());
  REQUIRE(next.ok());
  CHECK(NoticeNumber(*next, "pid") != first_pid);
  CHECK(NoticeNumber(*next, "calls") == 1);
  CHECK(NoticeNumber(*next, "id") == 1);
  CHECK(plugin->restarts() == 1);
}

TEST_CASE("persistent exec plugin: killed with SIGKILL between calls, the next call restarts") {
  auto plugin = MustLoad(Fixture("persistent"));
  auto first = plugin->Call("session_start", kSessionStart);
  REQUIRE(first.ok());
  const int first_pid = static_cast<int>(NoticeNumber(*first, "pid"));
  REQUIRE(::kill(first_pid, SIGKILL) == 0);
  REQUIRE(Eventually([&] { return ProcessGone(first_pid); }));

  // The dead process never saw a request of this call: a new one answers it, transparently.
  auto next = plugin->Call("session_start", kSessionStart);
  INFO(next.status().ToString());
  REQUIRE(next.ok());
  CHECK(NoticeNumber(*next, "pid") != first_pid);
  CHECK(NoticeNumber(*next, "calls") == 1);
  CHECK(plugin->restarts() == 1);
}

TEST_CASE("persistent exec plugin: killed with SIGKILL during a call, that call fails") {
  auto plugin = MustLoad(Fixture("persistent"));
  TempDir dir;
  const std::string marker = dir.Sub("hanging");
  std::thread killer([&] {
    // The fixture writes its pid to the marker when it starts hanging on the request.
    std::string pid;
    Eventually([&] {
      pid = plugline::testing::ReadFileOrEmpty(marker);
      return !pid.empty();
    });
    if (!pid.empty()) ::kill(std::stoi(pid), SIGKILL);
  });
  auto killed = plugin->Call("pre_tool_call", Terminal("hang", marker));
  killer.join();
  CHECK(killed.status().code() == absl::StatusCode::kUnknown);
  CHECK(Message(killed.status()) == "killed by signal SIGKILL (9)");

  auto next = plugin->Call("session_start", kSessionStart);
  REQUIRE(next.ok());
  CHECK(NoticeNumber(*next, "calls") == 1);
  CHECK(plugin->restarts() == 1);
}

TEST_CASE("persistent exec plugin: a hang times out, the group dies, a new process answers") {
  for (std::string_view mode : {"hang", "hang-ignore-term"}) {
    INFO(mode);
    TempDir dir;
    auto plugin = MustLoad(FixtureWithTimeout(dir, 300));
    auto first = plugin->Call("pre_tool_call", kSessionStart);
    INFO(first.status().ToString());
    REQUIRE(first.ok());
    const int first_pid = static_cast<int>(NoticeNumber(*first, "pid"));

    absl::Time start = absl::Now();
    auto hung = plugin->Call("pre_tool_call", Terminal(mode));
    // 300 ms, plus at most the 1 s grace before SIGKILL: far below this bound.
    CHECK(absl::Now() - start < absl::Seconds(5));
    CHECK(hung.status().code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(Message(hung.status()) == "timed out after 300 ms");
    CHECK(plugin->pid() == 0);
    CHECK(Eventually([&] { return ProcessGone(first_pid); }));

    auto next = plugin->Call("pre_tool_call", kSessionStart);
    INFO(next.status().ToString());
    REQUIRE(next.ok());
    CHECK(NoticeNumber(*next, "pid") != first_pid);
    CHECK(NoticeNumber(*next, "calls") == 1);
    CHECK(plugin->restarts() == 1);
  }
}

TEST_CASE("persistent exec plugin: protocol violations fail the call and restart the process") {
  struct Case {
    std::string_view command;
    absl::StatusCode code;
    std::string_view message_start;
  };
  const Case cases[] = {
      {"garbage", absl::StatusCode::kInvalidArgument, "stdout: invalid JSON"},
      {"array", absl::StatusCode::kInvalidArgument,
       "stdout: the answer must be a JSON object, not an array"},
      {"no-id", absl::StatusCode::kInvalidArgument, "stdout: the answer line has no integer `id`"},
      {"id-ahead", absl::StatusCode::kInvalidArgument,
       "stdout: the answer's `id` 3 is not the request's (2)"},
      {"huge", absl::StatusCode::kResourceExhausted, "answer line exceeded 4 MiB"},
  };
  for (const Case& c : cases) {
    INFO(c.command);
    auto plugin = MustLoad(Fixture("persistent"));
    auto first = plugin->Call("session_start", kSessionStart);
    REQUIRE(first.ok());
    const int first_pid = static_cast<int>(NoticeNumber(*first, "pid"));

    auto broken = plugin->Call("pre_tool_call", Terminal(c.command));
    INFO(broken.status().ToString());
    CHECK(broken.status().code() == c.code);
    CHECK(Message(broken.status()).rfind(c.message_start, 0) == 0);
    CHECK(plugin->pid() == 0);
    CHECK(Eventually([&] { return ProcessGone(first_pid); }));

    auto next = plugin->Call("session_start", kSessionStart);
    REQUIRE(next.ok());
    CHECK(NoticeNumber(*next, "pid") != first_pid);
    CHECK(plugin->restarts() == 1);
  }
}

TEST_CASE(
    "persistent exec plugin: stale ids and empty lines are skipped, a bad field fails 1 call") {
  auto plugin = MustLoad(Fixture("persistent"));
  auto first = plugin->Call("session_start", kSessionStart);
  REQUIRE(first.ok());
  const int64_t pid = NoticeNumber(*first, "pid");

  auto stale = plugin->Call("pre_tool_call", Terminal("stale"));
  INFO(stale.status().ToString());
  REQUIRE(stale.ok());
  CHECK_FALSE(stale->deny);  // the stale answer denied; it was discarded
  CHECK(NoticeNumber(*stale, "id") == 2);

  auto blank = plugin->Call("pre_tool_call", Terminal("blank"));
  REQUIRE(blank.ok());
  CHECK(NoticeNumber(*blank, "id") == 3);

  auto bad = plugin->Call("pre_tool_call", Terminal("bad-field"));
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(bad.status()) == "stdout: `deny` must be true or false, not a string");

  // Still in step with the same process.
  auto next = plugin->Call("session_start", kSessionStart);
  REQUIRE(next.ok());
  CHECK(NoticeNumber(*next, "pid") == pid);
  CHECK(NoticeNumber(*next, "id") == 5);
  CHECK(plugin->restarts() == 0);
}

TEST_CASE("persistent exec plugin: stderr written during a call reaches the sink after it") {
  StderrLog log;
  auto plugin = MustLoad(Fixture("persistent"), log.Sink());
  auto quiet = plugin->Call("session_start", kSessionStart);
  REQUIRE(quiet.ok());
  CHECK(log.Of("persistent").empty());
  auto noisy = plugin->Call("pre_tool_call", Terminal("stderr"));
  REQUIRE(noisy.ok());
  CHECK(log.Of("persistent") == "note from " + std::to_string(NoticeNumber(*noisy, "pid")) + "\n");
}

TEST_CASE("persistent exec plugin: destroying the plugin ends its process") {
  auto plugin = MustLoad(Fixture("persistent"));
  auto answer = plugin->Call("session_start", kSessionStart);
  REQUIRE(answer.ok());
  const int pid = plugin->pid();
  REQUIRE(pid > 0);
  plugin.reset();
  CHECK(Eventually([&] { return ProcessGone(pid); }));

  // A program that ignores EOF on stdin is killed, with its group, shortly after.
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), "name: x\ncommand: ./run.sh\nprotocol: persistent\n");
  WriteFile(dir.Sub("run.sh"), "#!/bin/sh\nread line\necho '{\"id\":1}'\nexec sleep 1000\n");
  ::chmod(dir.Sub("run.sh").c_str(), 0755);
  auto stubborn = MustLoad(dir.path());
  REQUIRE(stubborn->Call("pre_tool_call", kSessionStart).ok());
  const int stubborn_pid = stubborn->pid();
  absl::Time start = absl::Now();
  stubborn.reset();
  CHECK(absl::Now() - start < absl::Seconds(5));
  CHECK(Eventually([&] { return ProcessGone(stubborn_pid); }));
}

TEST_CASE("persistent exec plugin: a command that cannot start fails each call, nothing runs") {
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"),
            "name: x\ncommand: plugline-no-such-command-xyz\nprotocol: persistent\n");
  auto plugin = MustLoad(dir.path());
  for (int i = 0; i < 2; ++i) {
    auto answer = plugin->Call("pre_tool_call", kSessionStart);
    CHECK(answer.status().code() == absl::StatusCode::kNotFound);
    CHECK(Message(answer.status()) == "command not found: plugline-no-such-command-xyz");
  }
  CHECK(plugin->pid() == 0);
  CHECK(plugin->restarts() == 0);
}

TEST_CASE("persistent exec plugin: a program that exits cleanly mid-call is a failure") {
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), "name: x\ncommand: ./run.sh\nprotocol: persistent\n");
  WriteFile(dir.Sub("run.sh"), "#!/bin/sh\nread line\necho 'bye' >&2\nexit 0\n");
  ::chmod(dir.Sub("run.sh").c_str(), 0755);
  auto plugin = MustLoad(dir.path());
  auto answer = plugin->Call("pre_tool_call", kSessionStart);
  CHECK(answer.status().code() == absl::StatusCode::kUnknown);
  CHECK(Message(answer.status()) == "exited with status 0; stderr: bye");
  CHECK(plugin->restarts() == 0);
  answer = plugin->Call("pre_tool_call", kSessionStart);
  CHECK(Message(answer.status()) == "exited with status 0; stderr: bye");
  CHECK(plugin->restarts() == 1);
}

}  // namespace
}  // namespace plugline::exec

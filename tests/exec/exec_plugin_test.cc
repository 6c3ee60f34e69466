#include "exec/exec_plugin.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>

#include "absl/time/clock.h"
#include "test_util.h"

namespace plugline::exec {
namespace {

using plugline::testing::TempDir;
using plugline::testing::WriteFile;

constexpr std::string_view kPayload =
    R"({"event":"pre_tool_call","session_id":"ses_1","platform":"cli","tool":"terminal",)"
    R"("arguments":"{\"command\":\"rm -rf build\"}"})";

std::string Fixture(std::string_view name) {
  return plugline::testing::SourceDir() + "/exec/plugins/" + std::string(name);
}

std::shared_ptr<core::HookPlugin> MustLoad(const std::string& dir,
                                           ExecPluginStderrSink sink = nullptr) {
  std::vector<std::string> warnings;
  auto plugin = LoadExecPlugin(dir, &warnings, std::move(sink));
  INFO(plugin.status().ToString());
  REQUIRE(plugin.ok());
  CHECK(warnings.empty());
  return *plugin;
}

// A plugin in `dir` that runs tests/exec/plugins/faults/fault.sh in `mode`.
std::string FaultPlugin(const TempDir& dir, std::string_view mode, int timeout_ms = 10000,
                        std::string_view extra = "") {
  WriteFile(dir.Sub("plugin.yaml"),
            "name: fault-" + std::string(mode) + "\ncommand: " + Fixture("faults/fault.sh") +
                "\nargs: [" + std::string(mode) + "]\nhooks: [pre_tool_call]\ntimeout_ms: " +
                std::to_string(timeout_ms) + "\n" + std::string(extra));
  return dir.path();
}

// Runs fault.sh in `mode` once; the call's error (or OK).
absl::Status CallFault(std::string_view mode, int timeout_ms = 10000) {
  TempDir dir;
  auto plugin = MustLoad(FaultPlugin(dir, mode, timeout_ms));
  auto answer = plugin->Call("pre_tool_call", kPayload);
  return answer.status();
}

absl::Status LoadError(std::string_view manifest, std::vector<std::string>* warnings = nullptr) {
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), manifest);
  WriteFile(dir.Sub("run.sh"), "#!/bin/sh\necho '{}'\n");
  ::chmod(dir.Sub("run.sh").c_str(), 0755);
  return LoadExecPlugin(dir.path(), warnings).status();
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST_CASE("exec plugin: a python plugin rewrites arguments, with its env, stderr to the sink") {
  std::map<std::string, std::string> logged;
  auto plugin = MustLoad(Fixture("rewrite"), [&](const std::string& id, std::string_view err) {
    logged[id] += std::string(err);
  });
  CHECK(plugin->id() == "rewrite");
  auto answer = plugin->Call("pre_tool_call", kPayload);
  INFO(answer.status().ToString());
  REQUIRE(answer.ok());
  CHECK_FALSE(answer->deny);
  REQUIRE(answer->arguments.has_value());
  CHECK(*answer->arguments == R"({"command": "rm -rf build --dry-run"})");
  CHECK_FALSE(answer->result.has_value());
  CHECK_FALSE(answer->notice.has_value());
  CHECK(logged["rewrite"] == "rewrote rm -rf build --dry-run\n");
}

TEST_CASE("exec plugin: deny with a reason, and no opinion when the payload is fine") {
  auto plugin = MustLoad(Fixture("deny"));
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
  CHECK(allowed->reason.empty());
}

TEST_CASE("exec plugin: a notice, args and env from the manifest, cwd is the plugin dir") {
  auto plugin = MustLoad(Fixture("notice"));
  auto answer = plugin->Call("session_start", R"({"event":"session_start"})");
  INFO(answer.status().ToString());
  REQUIRE(answer.ok());
  REQUIRE(answer->notice.has_value());
  char real[PATH_MAX];
  REQUIRE(::realpath(Fixture("notice").c_str(), real) != nullptr);
  CHECK(*answer->notice == "hello 42 greeting=bonjour answer=42 cwd=" + std::string(real));
}

TEST_CASE("exec plugin: Handles follows the hooks list, fail_closed follows on_error") {
  auto rewrite = MustLoad(Fixture("rewrite"));
  CHECK(rewrite->Handles("pre_tool_call"));
  CHECK_FALSE(rewrite->Handles("post_tool_call"));
  CHECK_FALSE(rewrite->Handles("my_custom_event"));
  CHECK_FALSE(rewrite->fail_closed());
  auto deny = MustLoad(Fixture("deny"));
  CHECK(deny->Handles("pre_tool_call"));
  CHECK(deny->Handles("post_tool_call"));
  CHECK_FALSE(deny->Handles("session_start"));
  CHECK(deny->fail_closed());
  auto notice = MustLoad(Fixture("notice"));  // hooks: []
  for (std::string_view event : core::kCanonicalEvents) CHECK_FALSE(notice->Handles(event));

  TempDir dir;  // hooks absent
  WriteFile(dir.Sub("plugin.yaml"), "name: x\ncommand: true\non_error: open\n");
  auto none = MustLoad(dir.path());
  CHECK_FALSE(none->Handles("pre_tool_call"));
  CHECK_FALSE(none->fail_closed());
}

TEST_CASE("exec plugin: {} and empty output are no opinion") {
  for (std::string_view mode : {"empty-object", "silent"}) {
    TempDir dir;
    auto plugin = MustLoad(FaultPlugin(dir, mode));
    auto answer = plugin->Call("pre_tool_call", kPayload);
    INFO(mode);
    REQUIRE(answer.ok());
    CHECK_FALSE(answer->deny);
    CHECK(answer->reason.empty());
    CHECK_FALSE(answer->arguments.has_value());
    CHECK_FALSE(answer->result.has_value());
    CHECK_FALSE(answer->notice.has_value());
  }
}

TEST_CASE("exec plugin: a child that ignores SIGTERM is killed at the timeout") {
  absl::Time start = absl::Now();
  absl::Status status = CallFault("ignore-term", 300);
  CHECK(absl::Now() - start < absl::Seconds(15));
  CHECK(status.code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(Message(status) == "timed out after 300 ms");
}

TEST_CASE("exec plugin: a 100 MB stdout flood is killed at 4 MiB") {
  absl::Time start = absl::Now();
  absl::Status status = CallFault("flood");
  CHECK(absl::Now() - start < absl::Seconds(15));
  CHECK(status.code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(status) == "stdout exceeded 4 MiB");
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

TEST_CASE("exec plugin: a grandchild holding stdout does not hang the call, and is killed") {
  SUBCASE("the plugin exits: the call ends after the drain, the grandchild is killed") {
    std::string err;
    TempDir dir;
    auto plugin = MustLoad(FaultPlugin(dir, "grandchild-exits"),
                           [&](const std::string&, std::string_view text) { err = text; });
    absl::Time start = absl::Now();
    auto answer = plugin->Call("pre_tool_call", kPayload);
    CHECK(absl::Now() - start < absl::Seconds(15));
    REQUIRE(answer.ok());
    CHECK_FALSE(answer->deny);
    REQUIRE(err.rfind("grandchild ", 0) == 0);
    int pid = std::stoi(err.substr(11));
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      gone = ProcessGone(pid);
      if (!gone) ::usleep(50 * 1000);
    }
    CHECK(gone);
  }
  SUBCASE("the plugin exits, timeout_ms 300: the drain ends at the call's deadline, not 2 s") {
    TempDir dir;
    auto plugin = MustLoad(FaultPlugin(dir, "grandchild-exits", 300));
    absl::Time start = absl::Now();
    auto answer = plugin->Call("pre_tool_call", kPayload);
    // The deadline is 300 ms after the start; the old 2 s drain took at least 2 s.
    CHECK(absl::Now() - start < absl::Milliseconds(1500));
    INFO(answer.status().ToString());
    REQUIRE(answer.ok());
    CHECK_FALSE(answer->deny);
  }
  SUBCASE("the plugin waits for it: the call ends at the timeout") {
    absl::Time start = absl::Now();
    absl::Status status = CallFault("grandchild-waits", 300);
    CHECK(absl::Now() - start < absl::Seconds(15));
    CHECK(status.code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(Message(status) == "timed out after 300 ms");
  }
}

TEST_CASE("exec plugin: bad output is a failure with the reason") {
  absl::Status not_json = CallFault("not-json");
  CHECK(not_json.code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(not_json).rfind("stdout: invalid JSON", 0) == 0);

  absl::Status partial = CallFault("partial");
  CHECK(partial.code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(partial).rfind("stdout: invalid JSON", 0) == 0);

  CHECK(Message(CallFault("array")) == "stdout: the answer must be a JSON object, not an array");
  CHECK(Message(CallFault("deny-string")) == "stdout: `deny` must be true or false, not a string");
  CHECK(Message(CallFault("notice-number")) == "stdout: `notice` must be a string, not a number");
  CHECK(
      Message(CallFault("bad-arguments")).rfind("stdout: `arguments` must be a JSON-encoded", 0) ==
      0);
}

TEST_CASE("exec plugin: exit 1 and SIGSEGV are failures naming the status and the signal") {
  absl::Status exit1 = CallFault("exit1");
  CHECK(exit1.code() == absl::StatusCode::kUnknown);
  CHECK(Message(exit1) == "exited with status 1; stderr: something broke");
  absl::Status segv = CallFault("segv");
  CHECK(segv.code() == absl::StatusCode::kUnknown);
  CHECK(Message(segv) == "killed by signal SIGSEGV (11)");
}

TEST_CASE("exec plugin: a missing bare command fails at the call, a missing path at load") {
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), "name: x\ncommand: plugline-no-such-command-xyz\n");
  auto plugin = MustLoad(dir.path());
  auto answer = plugin->Call("pre_tool_call", kPayload);
  CHECK(answer.status().code() == absl::StatusCode::kNotFound);
  CHECK(Message(answer.status()) == "command not found: plugline-no-such-command-xyz");

  absl::Status missing = LoadError("name: x\ncommand: ./nope.sh\n");
  CHECK(missing.code() == absl::StatusCode::kNotFound);
  CHECK(Message(missing).find("/plugin.yaml: command not found: ./nope.sh") != std::string::npos);
}

TEST_CASE("exec plugin: a command that is not executable is rejected at load") {
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), "name: x\ncommand: ./run.sh\n");
  WriteFile(dir.Sub("run.sh"), "#!/bin/sh\necho '{}'\n");
  ::chmod(dir.Sub("run.sh").c_str(), 0644);
  absl::Status status = LoadExecPlugin(dir.path(), nullptr).status();
  CHECK(status.code() == absl::StatusCode::kPermissionDenied);
  CHECK(Message(status).find("plugin.yaml: command ./run.sh is not executable") !=
        std::string::npos);
}

TEST_CASE("exec plugin: a relative command that escapes the plugin dir is rejected") {
  TempDir outer;
  WriteFile(outer.Sub("evil.sh"), "#!/bin/sh\necho '{}'\n");
  ::chmod(outer.Sub("evil.sh").c_str(), 0755);
  WriteFile(outer.Sub("p/plugin.yaml"), "name: x\ncommand: ../evil.sh\n");
  absl::Status dotdot = LoadExecPlugin(outer.Sub("p"), nullptr).status();
  CHECK(dotdot.code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(dotdot).find("outside the plugin directory") != std::string::npos);

  WriteFile(outer.Sub("q/plugin.yaml"), "name: x\ncommand: ./link.sh\n");
  REQUIRE(::symlink(outer.Sub("evil.sh").c_str(), outer.Sub("q/link.sh").c_str()) == 0);
  absl::Status symlinked = LoadExecPlugin(outer.Sub("q"), nullptr).status();
  CHECK(symlinked.code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(symlinked).find("outside the plugin directory") != std::string::npos);

  // An absolute command may live anywhere.
  WriteFile(outer.Sub("r/plugin.yaml"), "name: x\ncommand: " + outer.Sub("evil.sh") + "\n");
  CHECK(LoadExecPlugin(outer.Sub("r"), nullptr).ok());
}

TEST_CASE("exec plugin: bad YAML names the file and the line") {
  absl::Status status = LoadError("name: x\ncommand: ./run.sh\nhooks: [pre_tool_call\n");
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  std::string message = Message(status);
  INFO(message);
  CHECK(message.find("/plugin.yaml:4:") != std::string::npos);
  CHECK(message.find("invalid YAML") != std::string::npos);
}

TEST_CASE("exec plugin: broken manifests name the file and the problem") {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"command: ./run.sh\n", "`name` is required"},
      {"name: x\n", "`command` is required"},
      {"name: x\ncommand: ./run.sh\nhooks: [pre_tool_call, before_everything]\n",
       "unknown hook name `before_everything`"},
      {"name: x\ncommand: ./run.sh\nhooks: pre_tool_call\n", "`hooks` must be a list"},
      {"name: x\ncommand: ./run.sh\ntimeout_ms: soon\n", "`timeout_ms` must be a positive"},
      {"name: x\ncommand: ./run.sh\ntimeout_ms: -5\n", "`timeout_ms` must be a positive"},
      {"name: x\ncommand: ./run.sh\nargs: [a, [b]]\n", "`args[1]` must be a string, not an array"},
      {"name: x\ncommand: ./run.sh\nenv: [A]\n", "`env` must be a mapping"},
      {"name: x\ncommand: ./run.sh\non_error: sometimes\n", "`on_error` must be open or closed"},
      {"name: x\ncommand: ./run.sh\nprotocol: carrier-pigeon\n", "`protocol` must be oneshot"},
      {"name: [x]\ncommand: ./run.sh\n", "`name` must be a string"},
      {"- just\n- a list\n", "the manifest must be a mapping"},
      {"", "the manifest is empty"},
  };
  for (const auto& [manifest, expected] : cases) {
    absl::Status status = LoadError(manifest);
    std::string message = Message(status);
    INFO(manifest, " -> ", message);
    CHECK_FALSE(status.ok());
    CHECK(message.find("/plugin.yaml: ") != std::string::npos);
    CHECK(message.find(expected) != std::string::npos);
  }
  CHECK(LoadError("name: x\ncommand: ./run.sh\nprotocol: persistent\n").ok());
  TempDir empty;
  CHECK(LoadExecPlugin(empty.path(), nullptr).status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("exec plugin: unknown keys are warnings, and every known field is read") {
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"),
            "name: full\ndescription: d\nversion: 2\ncommand: ./run.sh\nargs: [a, 8080, true]\n"
            "hooks: [post_tool_call]\ntimeout_ms: 1234\nenv: {A: x, B: 7}\non_error: closed\n"
            "protocol: oneshot\ncolour: blue\npriority: 3\n");
  WriteFile(dir.Sub("run.sh"), "#!/bin/sh\necho '{}'\n");
  ::chmod(dir.Sub("run.sh").c_str(), 0755);
  std::vector<std::string> warnings;
  auto manifest = LoadExecPluginManifest(dir.path(), &warnings);
  INFO(manifest.status().ToString());
  REQUIRE(manifest.ok());
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("/plugin.yaml: unknown key `colour` (ignored)") != std::string::npos);
  CHECK(warnings[1].find("unknown key `priority`") != std::string::npos);
  CHECK(manifest->name == "full");
  CHECK(manifest->description == "d");
  CHECK(manifest->version == "2");
  CHECK(manifest->args == std::vector<std::string>{"a", "8080", "true"});
  CHECK(manifest->hooks == std::vector<std::string>{"post_tool_call"});
  CHECK(manifest->timeout_ms == 1234);
  CHECK(manifest->env == std::vector<std::pair<std::string, std::string>>{{"A", "x"}, {"B", "7"}});
  CHECK(manifest->fail_closed);
  CHECK(manifest->resolved_command == manifest->dir + "/run.sh");
}

TEST_CASE("exec plugin: answers parse with every field, and empty strings are absent") {
  auto full = ParseExecPluginAnswer(
      R"({"deny":true,"reason":"no","arguments":"{\"a\":1}","result":"r","notice":"n","x":1})");
  REQUIRE(full.ok());
  CHECK(full->deny);
  CHECK(full->reason == "no");
  CHECK(full->arguments == std::optional<std::string>(R"({"a":1})"));
  CHECK(full->result == std::optional<std::string>("r"));
  CHECK(full->notice == std::optional<std::string>("n"));
  auto template_answer =
      ParseExecPluginAnswer(R"({"deny":false,"reason":"","arguments":"","result":"","notice":""})");
  REQUIRE(template_answer.ok());
  CHECK_FALSE(template_answer->deny);
  CHECK_FALSE(template_answer->arguments.has_value());
  CHECK_FALSE(template_answer->result.has_value());
  CHECK_FALSE(template_answer->notice.has_value());
  CHECK(ParseExecPluginAnswer(" \n").ok());
  CHECK(ParseExecPluginAnswer(R"({"reason":null})").ok());
}

TEST_CASE("exec plugin: a manifest's text parses as its file does, without the file system") {
  const std::string text = "name: x\ncommand: ./run.sh\nhooks: [pre_tool_call]\ntimeout_ms: 50\n";
  std::vector<std::string> warnings;
  auto parsed = ParseExecPluginManifest(text + "colour: red\n", "/nowhere/x", &warnings);
  REQUIRE_MESSAGE(parsed.ok(), parsed.status().ToString());
  CHECK(parsed->dir == "/nowhere/x");
  CHECK(parsed->manifest_path == "/nowhere/x/plugin.yaml");
  CHECK(parsed->name == "x");
  CHECK(parsed->command == "./run.sh");
  CHECK(parsed->resolved_command.empty());  // resolving needs the plugin directory
  CHECK(parsed->hooks == std::vector<std::string>{"pre_tool_call"});
  CHECK(parsed->timeout_ms == 50);
  CHECK(warnings == std::vector<std::string>{"/nowhere/x/plugin.yaml: unknown key `colour` (ignored)"});

  // The same problems as from the file, naming the same file.
  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), "name: x\ncommand: true\non_error: maybe\n");
  auto from_file = LoadExecPluginManifest(dir.path(), nullptr);
  auto from_text = ParseExecPluginManifest("name: x\ncommand: true\non_error: maybe\n",
                                           from_file.ok() ? "" : std::string(dir.path()), nullptr);
  REQUIRE_FALSE(from_file.ok());
  REQUIRE_FALSE(from_text.ok());
  CHECK(from_text.status() == from_file.status());
  auto bad_yaml = ParseExecPluginManifest("name: [x\n", "/nowhere/x", nullptr);
  REQUIRE_FALSE(bad_yaml.ok());
  CHECK(Message(bad_yaml.status()).rfind("/nowhere/x/plugin.yaml", 0) == 0);
}

}  // namespace
}  // namespace plugline::exec

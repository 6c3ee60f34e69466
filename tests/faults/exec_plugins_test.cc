// Exec hook plugins that crash, hang, flood, print garbage or cannot start, through the real
// `plugline hook` with real plugins in $PLUGLINE_HOME/plugins: the call always gets an answer,
// the failing plugin is skipped with the reason, and the plugins around it still run.
// Rows of docs/faults.md ("Exec plugins") name these test cases.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>

#include "cli/cli_runner.h"
#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline {
namespace {

using testing::Cli;
using testing::WriteFile;

constexpr std::string_view kPayload =
    R"({"tool":"terminal","arguments":"{\"command\":\"make\"}"})";

// A sh plugin in the home's plugin folder: `plugin.yaml` with `extra` after the usual keys,
// and `run.sh` running `body` (mode 0755 unless `mode` says otherwise).
void Plugin(const Cli& cli, std::string_view name, std::string_view body,
            std::string_view extra = "", mode_t mode = 0755) {
  const std::string dir = cli.home.Sub(StrCat("plugins/", name));
  WriteFile(dir + "/plugin.yaml", StrCat("name: ", name, "\ncommand: ./run.sh\nhooks: [pre_tool_call]\n",
                                         extra));
  WriteFile(dir + "/run.sh", StrCat("#!/bin/sh\n", body, "\n"));
  ::chmod((dir + "/run.sh").c_str(), mode);
}

// A plugin that only adds the notice "<name> ran": proof that it ran, and in which order.
void Marker(const Cli& cli, std::string_view name) {
  Plugin(cli, name, StrCat("cat >/dev/null\necho '{\"notice\":\"", name, " ran\"}'"));
}

core::Value Hook(Cli& cli, int expected_exit = 0) {
  auto hook = cli.Run({"hook", "pre_tool_call"}, "", std::string(kPayload));
  CHECK(hook.exit_status == expected_exit);
  auto value = core::ParseJson(hook.output, "plugline hook");
  REQUIRE_MESSAGE(value.ok(), hook.output, hook.error_output);
  return *std::move(value);
}

// The skipped entry of `plugin` as "why: detail", or "" when it was not skipped.
std::string Skipped(const core::Value& result, std::string_view plugin) {
  for (const core::Value& s : result.Find("skipped")->as_array()) {
    if (s.Find("plugin")->as_string() == plugin) {
      return StrCat(s.Find("why")->as_string(), ": ", s.Find("detail")->as_string());
    }
  }
  return "";
}

std::vector<std::string> Notices(const core::Value& result) {
  std::vector<std::string> out;
  for (const core::Value& n : result.Find("notices")->as_array()) {
    out.push_back(n.Find("text")->as_string());
  }
  return out;
}

TEST_CASE("plugline hook: a plugin that crashes is skipped with its status and stderr, the others run") {
  Cli cli;
  Marker(cli, "a-first");
  Plugin(cli, "b-exits", "cat >/dev/null; echo 'it broke' >&2; exit 1");
  Plugin(cli, "c-segv", "cat >/dev/null; kill -SEGV $$");
  Marker(cli, "d-last");
  core::Value result = Hook(cli);
  CHECK_FALSE(result.Find("denied")->as_bool());
  CHECK(Skipped(result, "b-exits") == "unknown: exited with status 1; stderr: it broke");
  CHECK(Skipped(result, "c-segv").find("killed by signal SIGSEGV (11)") != std::string::npos);
  CHECK(Notices(result) == std::vector<std::string>{"a-first ran", "d-last ran"});
}

TEST_CASE("plugline hook: a plugin that hangs is killed at its timeout, the call still answers") {
  Cli cli;
  Plugin(cli, "hangs", "trap '' TERM; cat >/dev/null; sleep 60", "timeout_ms: 300\n");
  Marker(cli, "z-after");
  core::Value result = Hook(cli);
  CHECK(Skipped(result, "hangs") == "deadline_exceeded: timed out after 300 ms");
  CHECK(Notices(result) == std::vector<std::string>{"z-after ran"});
}

TEST_CASE("plugline hook: a plugin that floods stdout is stopped at the bound") {
  Cli cli;
  Plugin(cli, "floods", "cat >/dev/null; yes '{\"notice\":\"x\"}'");
  core::Value result = Hook(cli);
  CHECK(Skipped(result, "floods") == "resource_exhausted: stdout exceeded 4 MiB");
}

TEST_CASE("plugline hook: a plugin that floods stderr is stopped at its bound") {
  Cli cli;
  Plugin(cli, "noisy", "cat >/dev/null; yes 'a line of noise on stderr' >&2");
  Marker(cli, "z-after");
  core::Value result = Hook(cli);
  CHECK(Skipped(result, "noisy") == "resource_exhausted: stderr exceeded 1 MiB");
  CHECK(Notices(result) == std::vector<std::string>{"z-after ran"});
}

TEST_CASE("plugline hook: garbage on stdout is a skipped plugin, or a deny when it fails closed") {
  Cli cli;
  Plugin(cli, "garbage", "cat >/dev/null; echo 'hello, world'");
  core::Value open = Hook(cli);
  CHECK(Skipped(open, "garbage").find("invalid_argument: stdout: invalid JSON") == 0);
  Plugin(cli, "garbage", "cat >/dev/null; echo 'hello, world'", "on_error: closed\n");
  core::Value closed = Hook(cli, 3);
  CHECK(closed.Find("denied_by")->as_string() == "garbage");
  CHECK(closed.Find("reason")->as_string().find("plugin garbage failed and fails closed") == 0);
}

TEST_CASE("plugline hook: a plugin whose program is missing or not executable is broken, not run") {
  Cli cli;
  Plugin(cli, "noexec", "cat >/dev/null; echo '{\"deny\":true}'", "", 0644);
  WriteFile(cli.home.Sub("plugins/missing/plugin.yaml"),
            "name: missing\ncommand: ./gone.sh\nhooks: [pre_tool_call]\n");
  Marker(cli, "z-after");
  core::Value result = Hook(cli);
  CHECK_FALSE(result.Find("denied")->as_bool());
  std::vector<std::string> broken;
  for (const core::Value& b : result.Find("broken")->as_array()) {
    broken.push_back(StrCat(b.Find("plugin")->as_string(), ": ", b.Find("reason")->as_string()));
  }
  REQUIRE(broken.size() == 2);
  CHECK(broken[0].find("command not found: ./gone.sh") != std::string::npos);
  CHECK(broken[1].find("command ./run.sh is not executable") != std::string::npos);
  CHECK(Notices(result) == std::vector<std::string>{"z-after ran"});
}

}  // namespace
}  // namespace plugline

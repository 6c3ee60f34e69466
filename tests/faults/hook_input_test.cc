// Hook input plugline must not read two ways, and plugin text it must not pass on raw, through
// the real `plugline` binary with real plugins in $PLUGLINE_HOME/plugins: duplicate keys in
// answers and payloads, unknown answer keys and misspelt events, plugin names with control
// characters, secrets in what failing plugins print or throw.
// Rows of docs/faults.md ("Hook input and plugin text") name these test cases.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <optional>

#include "absl/strings/match.h"
#include "core/json.h"
#include "core/strings.h"
#include "exec/process.h"
#include "cli/cli_runner.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;


void ShPlugin(const TempDir& home, std::string_view folder, std::string_view manifest,
              std::string_view body) {
  const std::string dir = home.Sub(StrCat("plugins/", folder));
  WriteFile(dir + "/plugin.yaml", manifest);
  WriteFile(dir + "/run.sh", StrCat("#!/bin/sh\nPAYLOAD=$(cat)\n", body, "\n"));
  ::chmod((dir + "/run.sh").c_str(), 0755);
}

constexpr std::string_view kPayload = R"({"tool":"terminal","arguments":"{\"command\":\"ls\"}"})";

core::Value Json(std::string_view text) {
  absl::StatusOr<core::Value> value = core::ParseJson(text, "plugline output");
  REQUIRE_MESSAGE(value.ok(), value.status().ToString());
  return *std::move(value);
}

TEST_CASE("plugline hook: an answer with a duplicate key fails the plugin, fail-closed denies") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  ShPlugin(home, "guard",
           "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\non_error: closed\n",
           R"(echo '{"deny":false,"deny":true}')");
  exec::ProcessResult hook = cli.Run({"hook", "pre_tool_call"}, "", std::string(kPayload));
  CHECK(hook.exit_status == 3);
  core::Value result = Json(hook.output);
  CHECK(result.Find("denied")->as_bool());
  CHECK(Contains(result.Find("reason")->as_string(), R"(duplicate key "deny")"));
}

TEST_CASE("plugline hook: a payload with a duplicate key is refused, naming it") {
  testing::Cli cli;
  exec::ProcessResult hook = cli.Run(
      {"hook", "pre_tool_call"}, "",
      R"({"tool":"terminal","arguments":"{\"command\":\"ls\"}","arguments":"{\"command\":\"rm\"}"})");
  CHECK(hook.exit_status == 2);
  CHECK(hook.output.empty());
  CHECK(Contains(hook.error_output,
                 R"(plugline: hook: the payload (standard input): dispatch pre_tool_call )"
                 R"(payload: duplicate key "arguments" in the top-level object)"));
}

TEST_CASE("plugline hook: unknown answer keys and a misspelt event are warnings on stderr") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  ShPlugin(home, "guard", "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\n",
           R"(echo '{"denied":true}')");
  exec::ProcessResult hook = cli.Run({"hook", "pre_tool_call"}, "", std::string(kPayload));
  CHECK(hook.exit_status == 0);
  core::Value result = Json(hook.output);
  REQUIRE(result.Find("warnings")->as_array().size() == 1);
  CHECK(Contains(hook.error_output,
                 "plugline: warning: plugin guard: unknown answer key \"denied\" ignored (did "
                 "you mean \"deny\"?)\n"));

  exec::ProcessResult typo = cli.Run({"hook", "pre_tool_cal"}, "", std::string(kPayload));
  CHECK(typo.exit_status == 0);
  core::Value typo_result = Json(typo.output);
  const core::Value& warning = typo_result.Find("warnings")->as_array()[0];
  CHECK(warning.Find("plugin")->is_null());
  CHECK(Contains(typo.error_output,
                 "plugline: warning: event \"pre_tool_cal\" is not a canonical event (did you "
                 "mean \"pre_tool_call\"?): it is observe-only, so no plugin can deny it or "
                 "rewrite its arguments\n"));
}

TEST_CASE("plugline plugins: a misspelt hook and a bad name are broken, nothing raw on the terminal") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  ShPlugin(home, "typo", "name: typo\ncommand: ./run.sh\nhooks: [pre_tool_cal]\n", "echo '{}'");
  ShPlugin(home, "osc", "name: \"x\\e]52;c;ZWNobyBoaQ==\\a\\e[2J\"\ncommand: ./run.sh\n", "echo '{}'");
  exec::ProcessResult plugins = cli.Run({"plugins"});
  CHECK(plugins.exit_status == 0);
  CHECK(Contains(plugins.output, "did you mean `pre_tool_call`?"));
  CHECK(Contains(plugins.output, R"(`name` "x\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J" is not a valid id)"));
  CHECK_FALSE(Contains(plugins.output, "\x1b"));
  CHECK_FALSE(Contains(plugins.error_output, "\x1b"));
  exec::ProcessResult json = cli.Run({"plugins", "--json"});
  CHECK_FALSE(Contains(json.output, "\x1b"));
  CHECK_FALSE(Contains(ReadFileOrEmpty(home.Sub("logs/plugline.log")), "\x1b"));
}

TEST_CASE("plugline hook: a failing plugin's secrets are masked in the JSON, on stderr, in the log") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  ShPlugin(home, "leaky", "name: leaky\ncommand: ./run.sh\nhooks: [pre_tool_call]\n",
           "echo 'password=hunter2hunter2 sk-proj0123456789abcdefghij "
           "ghp_0123456789abcdefghijABCDEFGHIJ012345 AKIAIOSFODNN7EXAMPLE' >&2\nexit 7");
  exec::ProcessResult hook = cli.Run({"hook", "pre_tool_call"}, "", std::string(kPayload));
  CHECK(hook.exit_status == 0);
  CHECK(Contains(hook.error_output,
                 "plugline: note: plugin leaky skipped: exited with status 7; stderr: "
                 "password=[redacted] sk-[redacted] ghp_[redacted] AKIA[redacted]\n"));
  const std::string log = ReadFileOrEmpty(home.Sub("logs/plugline.log"));
  REQUIRE(Contains(log, "leaky"));
  for (const std::string& text : {hook.output, hook.error_output, log}) {
    CAPTURE(text);
    for (std::string_view secret : {"hunter2hunter2", "sk-proj0123456789abcdefghij",
                                    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
                                    "AKIAIOSFODNN7EXAMPLE"}) {
      CHECK_FALSE(Contains(text, secret));
    }
  }
}

#if PLUGLINE_TEST_WITH_V8
// JS shapers: a thrown error quoting a secret reaches skipped[].detail (match), the fallback and
// the CLI's note (shape), and the listing (a module that throws while loading).
TEST_CASE("plugline run: a JS shaper's thrown secrets are masked in the note, JSON and listing") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  WriteFile(home.Sub("plugins/leaky-shape.js"), R"(export default {
  meta: { name: "leaky-shape", version: "1", description: "d", tier: "community", priority: 1000 },
  match() { return { matched: true, confidence: 1 }; },
  shape() { throw new Error("cannot shape: token=hunter2hunter2 sk-proj0123456789abcdefghij"); },
};
)");
  WriteFile(home.Sub("plugins/leaky-match.js"), R"(export default {
  meta: { name: "leaky-match", version: "1", description: "d", tier: "community" },
  match() { throw new Error("no match for AKIAIOSFODNN7EXAMPLE"); },
  shape() { return { summary: "" }; },
};
)");
  WriteFile(home.Sub("plugins/leaky-load.js"),
            "throw new Error('config has password=hunter2hunter2');\nexport default {};\n");
  exec::ProcessResult run = cli.Run({"run", "--", "echo", "hello"});
  CHECK(run.exit_status == 0);
  CHECK(Contains(run.error_output, "plugline: note: "));
  CHECK(Contains(run.error_output, "token=[redacted] sk-[redacted]"));
  exec::ProcessResult json = cli.Run({"run", "--json", "--", "echo", "hello"});
  core::Value result = Json(json.output);
  CHECK(Contains(result.Find("fallback")->as_string(), "sk-[redacted]"));
  bool match_skipped = false;
  for (const core::Value& s : result.Find("skipped")->as_array()) {
    if (s.Find("plugin")->as_string() == "leaky-match") {
      match_skipped = true;
      CHECK(Contains(s.Find("detail")->as_string(), "AKIA[redacted]"));
    }
  }
  CHECK(match_skipped);
  exec::ProcessResult plugins = cli.Run({"plugins", "--json"});
  CHECK(Contains(plugins.output, "password=[redacted]"));
  const std::string log = ReadFileOrEmpty(home.Sub("logs/plugline.log"));
  for (const std::string& text :
       {run.output, run.error_output, json.output, json.error_output, plugins.output, log}) {
    CAPTURE(text);
    for (std::string_view secret : {"hunter2hunter2", "sk-proj0123456789abcdefghij",
                                    "AKIAIOSFODNN7EXAMPLE"}) {
      CHECK_FALSE(Contains(text, secret));
    }
  }
}

TEST_CASE("plugline trigger and hook: an OpenCode hook's thrown secret is masked") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  WriteFile(home.Sub("plugins/leaky-env.js"), R"(export const Leaky = async () => ({
  "shell.env": async () => { throw new Error("refusing: api_key=hunter2hunter2"); },
  "tool.execute.before": async () => { throw new Error("blocked sk-proj0123456789abcdefghij"); },
});
)");
  exec::ProcessResult trigger =
      cli.Run({"trigger", "shell.env", "--input", "{}", "--output", R"({"env":{}})"});
  CHECK(trigger.exit_status == 0);
  CHECK(Contains(trigger.output, "api_key=[redacted]"));
  CHECK_FALSE(Contains(trigger.output, "hunter2hunter2"));
  exec::ProcessResult hook = cli.Run({"hook", "pre_tool_call"}, "", std::string(kPayload));
  // OpenCode: a throw in tool.execute.before is a deny, its message the reason the plugin
  // gives the model (as an exec plugin's `reason`, not masked); the log masks it.
  CHECK(hook.exit_status == 3);
  const std::string log = ReadFileOrEmpty(home.Sub("logs/plugline.log"));
  CHECK_FALSE(Contains(log, "hunter2hunter2"));
  CHECK_FALSE(Contains(log, "sk-proj0123456789abcdefghij"));
}
#endif

}  // namespace
}  // namespace plugline

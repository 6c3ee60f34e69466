// `plugline plugins`: the listing, --tier, --info, --enable and --disable, run as a user runs
// them, on real plugins (a built-in shaper, an exec guard, a JS shaper).
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "cli/cli_runner.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::cli {
namespace {

using plugline::testing::Cli;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::WriteFile;

core::Value Json(const std::string& text) {
  auto v = core::ParseJson(text, "plugins --json");
  REQUIRE_MESSAGE(v.ok(), text);
  return *v;
}

// The listing entry of `id` (--json), or null.
std::optional<core::Value> Entry(Cli& cli, std::string_view id) {
  auto run = cli.Run({"plugins", "--json"});
  REQUIRE_MESSAGE(run.exit_status == 0, run.error_output);
  core::Value listing = Json(run.output);
  for (const core::Value& p : listing.Find("plugins")->as_array()) {
    if (p.Find("id")->as_string() == id) return p;
  }
  return std::nullopt;
}

std::string State(Cli& cli, std::string_view id) {
  std::optional<core::Value> entry = Entry(cli, id);
  return entry.has_value() ? entry->Find("state")->as_string() : "(absent)";
}

const char kDiff[] =
    "diff --git a/src/app.py b/src/app.py\n"
    "index 3b18e51..a9c2f4d 100644\n"
    "--- a/src/app.py\n"
    "+++ b/src/app.py\n"
    "@@ -1,3 +1,3 @@\n"
    " import os\n"
    "-print('a')\n"
    "+print('b')\n";

std::string ShaperOf(Cli& cli, const std::string& command, const std::string& output) {
  auto run = cli.Run({"shape", "--command", command, "--json"}, "", output);
  REQUIRE_MESSAGE(run.exit_status == 0, run.error_output);
  return Json(run.output).Find("shaper")->as_string();
}

void InstallGuard(Cli& cli) {
  WriteFile(cli.home.Sub("plugins/no-rm/plugin.yaml"),
            "name: no-rm\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
  WriteFile(cli.home.Sub("plugins/no-rm/run.sh"), R"sh(#!/bin/sh
case "$(cat)" in
  *'rm -rf'*) echo '{"deny":true,"reason":"no rm -rf"}' ;;
  *) echo '{}' ;;
esac
)sh");
  ::chmod(cli.home.Sub("plugins/no-rm/run.sh").c_str(), 0755);
}

const char kRmPayload[] = R"({"tool":"terminal","arguments":"{\"command\":\"rm -rf /srv\"}"})";

TEST_CASE("plugins --disable turns a built-in shaper off for every later command, --enable back on") {
  for (bool server : {false, true}) {
    CAPTURE(server);
    Cli cli;
    cli.server = server;
    CHECK(ShaperOf(cli, "git diff", kDiff) == "builtin-git-diff");
    auto off = cli.Run({"plugins", "--disable", "builtin-git-diff"});
    REQUIRE_MESSAGE(off.exit_status == 0, off.error_output);
    CHECK(absl::StrContains(off.output, "builtin-git-diff: disabled"));
    CHECK(State(cli, "builtin-git-diff") == "disabled");
    CHECK(absl::StrContains(Entry(cli, "builtin-git-diff")->Find("reason")->as_string(),
                            "plugins.json"));
    // The choice is the user's file, read by every process of the home.
    core::Value state = Json(ReadFileOrEmpty(cli.home.Sub("plugins.json")));
    CHECK(state.Find("plugins")->Find("builtin-git-diff")->Find("enabled")->as_bool() == false);
    CHECK(ShaperOf(cli, "git diff", kDiff) != "builtin-git-diff");
    auto forced = cli.Run({"shape", "--command", "git diff", "--shaper", "builtin-git-diff"}, "",
                          std::string(kDiff));
    CHECK(forced.exit_status == 2);
    CHECK(absl::StrContains(forced.error_output, "plugline plugins --enable builtin-git-diff"));
    auto on = cli.Run({"plugins", "--enable", "builtin-git-diff"});
    REQUIRE_MESSAGE(on.exit_status == 0, on.error_output);
    CHECK(State(cli, "builtin-git-diff") == "enabled");
    CHECK(ShaperOf(cli, "git diff", kDiff) == "builtin-git-diff");
  }
}

TEST_CASE("plugins --enable wins over config.yaml, which disables a built-in on its own") {
  Cli cli;
  WriteFile(cli.home.Sub("config.yaml"),
            "plugins:\n  overrides:\n    builtin-git-diff:\n      enabled: false\n");
  CHECK(State(cli, "builtin-git-diff") == "disabled");
  CHECK(absl::StrContains(Entry(cli, "builtin-git-diff")->Find("reason")->as_string(),
                          "plugins.overrides.builtin-git-diff.enabled: false"));
  CHECK(ShaperOf(cli, "git diff", kDiff) != "builtin-git-diff");
  REQUIRE(cli.Run({"plugins", "--enable", "builtin-git-diff"}).exit_status == 0);
  CHECK(State(cli, "builtin-git-diff") == "enabled");
  CHECK(ShaperOf(cli, "git diff", kDiff) == "builtin-git-diff");
}

TEST_CASE("plugins --disable of an exec guard stops its denies, says so, and --enable restores them") {
  Cli cli;
  InstallGuard(cli);
  CHECK(cli.Run({"hook", "pre_tool_call"}, "", std::string(kRmPayload)).exit_status == 3);
  auto off = cli.Run({"plugins", "--disable", "no-rm"});
  REQUIRE_MESSAGE(off.exit_status == 0, off.error_output);
  CHECK(absl::StrContains(off.output, "no-rm: disabled"));
  CHECK(State(cli, "no-rm") == "disabled");
  CHECK(cli.Run({"hook", "pre_tool_call"}, "", std::string(kRmPayload)).exit_status == 0);
  REQUIRE(cli.Run({"plugins", "--enable", "no-rm"}).exit_status == 0);
  CHECK(State(cli, "no-rm") == "enabled");
  CHECK(cli.Run({"hook", "pre_tool_call"}, "", std::string(kRmPayload)).exit_status == 3);
}

TEST_CASE("plugins --disable warns that a protected guard no longer denies") {
  Cli cli;
  InstallGuard(cli);
  WriteFile(cli.home.Sub("config.yaml"),
            "plugins:\n  overrides:\n    no-rm:\n      protected: true\n");
  auto off = cli.Run({"plugins", "--disable", "no-rm"});
  REQUIRE_MESSAGE(off.exit_status == 0, off.error_output);
  CHECK(absl::StrContains(off.output, "no-rm is a protected guard"));
}

TEST_CASE("plugins --info: one plugin in full — an unknown id exits 1 naming a near one") {
  Cli cli;
  REQUIRE(cli.Run({"shape", "--command", "git diff"}, "", std::string(kDiff)).exit_status == 0);
  auto info = cli.Run({"plugins", "--info", "builtin-git-diff"});
  REQUIRE_MESSAGE(info.exit_status == 0, info.error_output);
  CHECK(absl::StartsWith(info.output, "builtin-git-diff\n"));
  CHECK(absl::StrContains(info.output, "  state        enabled\n"));
  CHECK(absl::StrContains(info.output, "  kind         builtin-shaper\n"));
  CHECK(absl::StrContains(info.output, "1 matches, 1 shapes"));
  auto json = cli.Run({"plugins", "--info", "builtin-git-diff", "--json"});
  REQUIRE(json.exit_status == 0);
  core::Value value = Json(json.output);
  REQUIRE(value.Find("plugins")->as_array().size() == 1);
  const core::Value& p = value.Find("plugins")->as_array()[0];
  CHECK(p.Find("stats")->Find("shape_count")->as_number() == 1);
  CHECK(p.Find("stats")->Find("average_shape_ms")->is_number());

  auto unknown = cli.Run({"plugins", "--info", "builtin-git-dif"});
  CHECK(unknown.exit_status == 1);
  CHECK(absl::StrContains(unknown.error_output, "did you mean 'builtin-git-diff'"));
  auto disable_unknown = cli.Run({"plugins", "--disable", "nothing-here"});
  CHECK(disable_unknown.exit_status == 1);
  CHECK(absl::StrContains(disable_unknown.error_output, "no plugin has the id 'nothing-here'"));
  CHECK(!core::PathExists(cli.home.Sub("plugins.json")));
  CHECK(cli.Run({"plugins", "--info"}).exit_status == 2);
  CHECK(cli.Run({"plugins", "--info", "a", "--disable", "b"}).exit_status == 2);
}

TEST_CASE("plugins --tier filters the listing — an unknown tier is a usage error") {
  Cli cli;
  InstallGuard(cli);
  auto builtins = cli.Run({"plugins", "--tier", "built-in", "--json"});
  REQUIRE(builtins.exit_status == 0);
  core::Value value = Json(builtins.output);
  CHECK(value.Find("plugins")->as_array().size() == 9);
  for (const core::Value& p : value.Find("plugins")->as_array()) {
    CHECK(p.Find("tier")->as_string() == "built-in");
  }
  auto text = cli.Run({"plugins", "--tier=built-in"});
  CHECK(absl::StrContains(text.output, "builtin-test"));
  CHECK(!absl::StrContains(text.output, "no-rm"));
  auto community = Json(cli.Run({"plugins", "--tier", "community", "--json"}).output);
  REQUIRE(community.Find("plugins")->as_array().size() == 1);
  CHECK(community.Find("plugins")->as_array()[0].Find("id")->as_string() == "no-rm");
  auto bad = cli.Run({"plugins", "--tier", "gold"});
  CHECK(bad.exit_status == 2);
  CHECK(absl::StrContains(bad.error_output, "built-in, community or premium"));
}

TEST_CASE("a malformed plugins.json is moved aside with a warning naming it, and nothing is lost") {
  Cli cli;
  WriteFile(cli.home.Sub("plugins.json"), "{\"version\": 1, \"plugins\": {\"builtin-logs\": ");
  auto listing = cli.Run({"plugins"});
  CHECK(listing.exit_status == 0);
  CHECK(absl::StrContains(listing.error_output, cli.home.Sub("plugins.json")));
  CHECK(absl::StrContains(listing.output, "builtin-logs"));
  bool aside = false;
  for (const auto& entry : std::filesystem::directory_iterator(cli.home.path())) {
    aside = aside || absl::StartsWith(entry.path().filename().string(), "plugins.json.corrupt-");
  }
  CHECK(aside);
  // The next toggle starts a new file.
  REQUIRE(cli.Run({"plugins", "--disable", "builtin-logs"}).exit_status == 0);
  CHECK(State(cli, "builtin-logs") == "disabled");
}

#if PLUGLINE_TEST_WITH_V8
TEST_CASE("plugins --disable of a JS shaper whose id is not its file name") {
  Cli cli;
  WriteFile(cli.home.Sub("plugins/shaper-file.js"), R"(export default {
  meta: { name: "terra", version: "2.1.0", description: "terraform plans", tier: "community" },
  match(c) { return { matched: c.startsWith("terraform"), confidence: 0.9 }; },
  shape() { return { summary: "planned" }; },
};)");
  CHECK(ShaperOf(cli, "terraform plan", "Plan: 1 to add\n") == "terra");
  std::optional<core::Value> entry = Entry(cli, "terra");
  REQUIRE(entry.has_value());
  CHECK(entry->Find("version")->as_string() == "2.1.0");
  CHECK(entry->Find("stats")->Find("shape_count")->as_number() == 1);
  auto community = Json(cli.Run({"plugins", "--tier", "community", "--json"}).output);
  REQUIRE(community.Find("plugins")->as_array().size() == 1);
  REQUIRE(cli.Run({"plugins", "--disable", "terra"}).exit_status == 0);
  CHECK(State(cli, "terra") == "disabled");
  CHECK(ShaperOf(cli, "terraform plan", "Plan: 1 to add\n") != "terra");
  REQUIRE(cli.Run({"plugins", "--enable", "terra"}).exit_status == 0);
  CHECK(ShaperOf(cli, "terraform plan", "Plan: 1 to add\n") == "terra");
}
#endif

}  // namespace
}  // namespace plugline::cli

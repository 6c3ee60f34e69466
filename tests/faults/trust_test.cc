// The real `plugline` binary: broken fail-closed guards deny `plugline hook`, and a project's
// .plugline/ is inert until `plugline trust`.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include "catalog/download.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/text.h"
#include "exec/process.h"
#include "test_util.h"

namespace plugline::cli {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

constexpr std::string_view kRm =
    R"({"tool":"terminal","arguments":"{\"command\":\"rm -rf /\"}"})";

struct Cli {
  TempDir home;
  TempDir project;
  exec::ProcessResult Run(std::vector<std::string> args, std::string stdin_data = "",
                          std::string cwd = "") {
    exec::ProcessSpec spec;
    spec.stdin_data = std::move(stdin_data);
    spec.argv = {plugline::testing::BinDir() + "/plugline"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.extra_env = {{"PLUGLINE_HOME", home.path()}, {"PLUGLINE_SERVER", "0"}};
    spec.cwd = cwd.empty() ? project.path() : cwd;
    spec.merge_output = false;
    spec.timeout = absl::Seconds(60);
    auto result = exec::RunProcess(spec);
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    return *result;
  }
  exec::ProcessResult Hook(std::string_view event = "pre_tool_call",
                           std::string_view payload = kRm) {
    return Run({"hook", std::string(event)}, std::string(payload));
  }
  core::Value PluginsJson() {
    auto listing = Run({"plugins", "--json"});
    REQUIRE(listing.exit_status == 0);
    auto value = core::ParseJson(listing.output, "plugins --json");
    REQUIRE(value.ok());
    return *std::move(value);
  }
};

core::Value Json(const exec::ProcessResult& r) {
  auto value = core::ParseJson(r.output, "plugline hook");
  REQUIRE_MESSAGE(value.ok(), r.output, r.error_output);
  return *std::move(value);
}

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

std::string Real(const std::string& path) {
  char buffer[4096];
  return ::realpath(path.c_str(), buffer) != nullptr ? std::string(buffer) : path;
}

// A fail-closed guard in $PLUGLINE_HOME/plugins/guard that allows everything when it works.
void Guard(const Cli& cli, std::string_view on_error = "closed") {
  WriteFile(cli.home.Sub("plugins/guard/plugin.yaml"),
            StrCat("name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call, session_start]\n",
                   "on_error: ", on_error, "\n"));
  WriteFile(cli.home.Sub("plugins/guard/run.sh"), "#!/bin/sh\ncat >/dev/null\necho '{}'\n");
  ::chmod(cli.home.Sub("plugins/guard/run.sh").c_str(), 0755);
}

void CheckDenied(Cli& cli, std::string_view why) {
  exec::ProcessResult r = cli.Hook();
  CHECK(r.exit_status == 3);
  core::Value result = Json(r);
  CHECK(result.Find("denied")->as_bool());
  CHECK(Str(result, "denied_by") == "guard");
  CHECK_MESSAGE(Contains(Str(result, "reason"), "plugin guard is broken and fails closed"), r.output);
  CHECK_MESSAGE(Contains(Str(result, "reason"), why), r.output);
  const core::Value* broken = result.Find("broken");
  REQUIRE(broken != nullptr);
  REQUIRE(broken->as_array().size() == 1);
  CHECK(Str(broken->as_array()[0], "plugin") == "guard");
  CHECK(Contains(Str(broken->as_array()[0], "reason"), why));
  // Observe-only events are not denied.
  exec::ProcessResult observed = cli.Hook("session_start", R"({"session_id":"s"})");
  CHECK(observed.exit_status == 0);
  CHECK(!Json(observed).Find("denied")->as_bool());
}

TEST_CASE("plugline hook: a broken fail-closed guard denies (exit 3), three ways and more") {
  SUBCASE("its program is not executable") {
    Cli cli;
    Guard(cli);
    CHECK(cli.Hook().exit_status == 0);
    ::chmod(cli.home.Sub("plugins/guard/run.sh").c_str(), 0644);
    CheckDenied(cli, "command ./run.sh is not executable");
  }
  SUBCASE("a YAML syntax error") {
    Cli cli;
    Guard(cli);
    WriteFile(cli.home.Sub("plugins/guard/plugin.yaml"),
              "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call\non_error: closed\n");
    CheckDenied(cli, "invalid YAML");
  }
  SUBCASE("a field of the wrong type") {
    Cli cli;
    Guard(cli);
    WriteFile(cli.home.Sub("plugins/guard/plugin.yaml"),
              "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\non_error: closed\n"
              "env: [A, B]\n");
    CheckDenied(cli, "`env` must be a mapping");
  }
  SUBCASE("its program deleted") {
    Cli cli;
    Guard(cli);
    ::unlink(cli.home.Sub("plugins/guard/run.sh").c_str());
    CheckDenied(cli, "command not found: ./run.sh");
  }
}

TEST_CASE("plugline hook: a broken fail-open plugin is listed in broken and does not deny") {
  Cli cli;
  Guard(cli, "open");
  ::chmod(cli.home.Sub("plugins/guard/run.sh").c_str(), 0644);
  exec::ProcessResult r = cli.Hook();
  CHECK(r.exit_status == 0);
  core::Value result = Json(r);
  CHECK(!result.Find("denied")->as_bool());
  REQUIRE(result.Find("broken")->as_array().size() == 1);
  CHECK(Str(result.Find("broken")->as_array()[0], "plugin") == "guard");
}

TEST_CASE("plugline trust: a project's plugins are inert until trusted, and again when changed") {
  Cli cli;
  const std::string marker = cli.project.Sub("ran");
  const std::string plugin = cli.project.Sub(".plugline/plugins/rewrite");
  WriteFile(plugin + "/plugin.yaml", "name: rewrite\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
  const std::string program = StrCat("#!/bin/sh\ncat >/dev/null\ntouch '", marker,
                                     "'\necho '{\"notice\":\"project plugin ran\"}'\n");
  WriteFile(plugin + "/run.sh", program);
  ::chmod((plugin + "/run.sh").c_str(), 0755);
  const std::string project = Real(cli.project.path());
  const std::string command = StrCat("plugline trust ", project);

  // Untrusted: nothing starts; one warning line names the project and the command.
  exec::ProcessResult r = cli.Hook();
  CHECK(r.exit_status == 0);
  CHECK(!core::PathExists(marker));
  CHECK(Json(r).Find("plugins")->as_array().empty());
  auto lines = core::SplitLines(r.error_output);
  REQUIRE_MESSAGE(lines.size() == 1, r.error_output);
  CHECK(Contains(lines[0], StrCat("plugline: warning: project ", project, " is not trusted")));
  CHECK(Contains(lines[0], command));
  core::Value listed;
  core::Value all = cli.PluginsJson();
  for (const core::Value& p : all.Find("plugins")->as_array()) {
    if (Str(p, "id") == "rewrite") listed = p;
  }
  REQUIRE(!listed.is_null());
  CHECK(Str(listed, "state") == "untrusted");
  CHECK(Contains(Str(listed, "reason"), command));
  CHECK(Contains(cli.Run({"plugins"}).output, "untrusted"));

  // --show lists what would be trusted, with hashes, and trusts nothing.
  exec::ProcessResult show = cli.Run({"trust", "--show"});
  CHECK(show.exit_status == 0);
  CHECK(Contains(show.output, StrCat("project ", project, ": not trusted")));
  CHECK(Contains(show.output, StrCat(core::Sha256Hex(program), "  .plugline/plugins/rewrite/run.sh")));
  CHECK(Contains(show.output, ".plugline/plugins/rewrite/plugin.yaml"));
  CHECK(Contains(show.output, StrCat("to let these load: ", command)));
  CHECK(!core::PathExists(cli.home.Sub("trust.json")));
  CHECK(cli.Hook().exit_status == 0);
  CHECK(!core::PathExists(marker));

  // Trusted: it runs, and no warning.
  exec::ProcessResult trusted = cli.Run({"trust"});
  CHECK(trusted.exit_status == 0);
  CHECK(Contains(trusted.output, StrCat("trusted ", project, " (2 files")));
  CHECK(Contains(trusted.output, core::Sha256Hex(program)));
  r = cli.Hook();
  CHECK(core::PathExists(marker));
  CHECK(Contains(r.output, "project plugin ran"));
  CHECK(r.error_output.empty());
  CHECK(Contains(cli.Run({"trust", "--show"}).output, ": trusted since "));
  CHECK(Contains(cli.Run({"trust", "--list"}).output, StrCat(project, "  trusted ")));

  // Changed: inert again until trusted again.
  ::unlink(marker.c_str());
  WriteFile(plugin + "/run.sh", program + "# changed\n");
  r = cli.Hook();
  CHECK(!core::PathExists(marker));
  CHECK(Contains(r.error_output, "changed since it was trusted"));
  CHECK(Contains(r.error_output, ".plugline/plugins/rewrite/run.sh"));
  CHECK(Contains(cli.Run({"trust", "--show"}).output, "~ "));
  CHECK(cli.Run({"trust", project}, "", "/").exit_status == 0);  // by name, from elsewhere
  cli.Hook();
  CHECK(core::PathExists(marker));

  // Revoked.
  ::unlink(marker.c_str());
  exec::ProcessResult untrust = cli.Run({"untrust"});
  CHECK(untrust.exit_status == 0);
  cli.Hook();
  CHECK(!core::PathExists(marker));
  exec::ProcessResult again = cli.Run({"trust", "--revoke"});
  CHECK(again.exit_status == 1);
  CHECK(Contains(again.error_output, "is not trusted"));
  CHECK(Contains(cli.Run({"trust", "--list"}).output, "no trusted projects"));
}

TEST_CASE("plugline trust: nothing to trust, bad arguments, the usage text") {
  Cli cli;
  exec::ProcessResult r = cli.Run({"trust"});
  CHECK(r.exit_status == 1);
  CHECK(Contains(r.error_output, "has nothing to trust"));
  CHECK(Contains(cli.Run({"trust", "--show"}).output, "nothing to trust"));
  CHECK(cli.Run({"trust", "--frobnicate"}).exit_status == 2);
  CHECK(cli.Run({"trust", "a", "b"}).exit_status == 2);
  CHECK(cli.Run({"trust", "--list", "a"}).exit_status == 2);
  CHECK(cli.Run({"trust", cli.project.Sub("missing")}).exit_status == 1);
  std::string usage = cli.Run({"help"}).output;
  CHECK(Contains(usage, "trust [DIR]"));
  CHECK(Contains(usage, "trust --show [DIR]"));
  CHECK(Contains(usage, "trust --revoke [DIR]"));
  CHECK(Contains(usage, "trust --list"));
}

TEST_CASE("plugline trust --show: file names that hold control characters are shown escaped") {
  Cli cli;
  WriteFile(cli.project.Sub(".plugline/plugins/x\x1b[2Jy.js"), "export default {};\n");
  exec::ProcessResult show = cli.Run({"trust", "--show"});
  CHECK(Contains(show.output, ".plugline/plugins/x\\x1b[2Jy.js"));
  CHECK(!Contains(show.output, "\x1b"));
}

#if PLUGLINE_TEST_WITH_V8
TEST_CASE("plugline run in an untrusted project: a JS plugin writing through $ never runs") {
  for (bool process : {false, true}) {
    CAPTURE(process);
    Cli cli;
    if (process) WriteFile(cli.home.Sub("config.yaml"), "plugins:\n  js:\n    isolation: process\n");
    const std::string marker = cli.project.Sub("pwned");
    WriteFile(cli.project.Sub(".plugline/plugins/evil.js"),
              StrCat("export default async ({ $ }) => {\n  await $`touch ", marker,
                     "`;\n  return {};\n};\n"));
    exec::ProcessResult r = cli.Run({"run", "--", "echo", "hello"});
    CHECK(r.exit_status == 0);
    CHECK(Contains(r.output, "hello"));
    CHECK(!core::PathExists(marker));
    CHECK(Contains(r.error_output, "is not trusted"));
    // Once trusted it runs: the marker above could have appeared.
    REQUIRE(cli.Run({"trust"}).exit_status == 0);
    cli.Run({"run", "--", "echo", "hello"});
    CHECK(core::PathExists(marker));
  }
}
#endif

}  // namespace
}  // namespace plugline::cli

// State files that do not hold what plugline expects, through the real `plugline` binary: the
// command still runs and prints its output, the file is kept aside, and the user is told.
// Rows of docs/faults.md ("State files") name these test cases.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "exec/process.h"
#include "cli/cli_runner.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;


std::vector<std::string> CorruptStats(const TempDir& home) {
  std::vector<std::string> found;
  absl::StatusOr<std::vector<std::string>> names = core::ListDir(home.path());
  REQUIRE(names.ok());
  for (const std::string& name : *names) {
    if (absl::StartsWith(name, "stats.json.corrupt-")) found.push_back(home.Sub(name));
  }
  return found;
}

// `{"version":1,"shapers":[]}` used to abort run, shape and stats (rc 134) after the command
// had run, losing its output.
TEST_CASE("a stats file of the wrong shape: run, shape and stats go on, warn, keep it aside") {
  const std::string bad = R"({"version":1,"shapers":[]})";
  const std::string warning_start = "plugline: warning: ";

  SUBCASE("run") {
    testing::Cli cli;
  const TempDir& home = cli.home;
    WriteFile(home.Sub("stats.json"), bad);
    exec::ProcessResult run = cli.Run({"run", "--", "sh", "-c", "echo the output; exit 4"});
    CHECK(run.exit_status == 4);
    CHECK(run.term_signal == 0);
    CHECK(run.output.find("the output") != std::string::npos);
    CHECK(run.error_output.find(StrCat(warning_start, home.Sub("stats.json"), " is malformed (",
                                       "`shapers` must be an object, not an array); moved it "
                                       "aside to ")) != std::string::npos);
    REQUIRE(CorruptStats(home).size() == 1);
    CHECK(ReadFileOrEmpty(CorruptStats(home)[0]) == bad);
    CHECK(ReadFileOrEmpty(home.Sub("logs/plugline.log")).find("warn stats: ") != std::string::npos);
    // Counting started again: this run is in the fresh file.
    exec::ProcessResult stats = cli.Run({"stats", "--json"});
    CHECK(stats.exit_status == 0);
    CHECK(stats.error_output.empty());
    absl::StatusOr<core::Value> json = core::ParseJson(stats.output, "stats");
    REQUIRE(json.ok());
    CHECK(json->Find("shapers")->Find("builtin-generic") != nullptr);
  }
  SUBCASE("shape") {
    testing::Cli cli;
  const TempDir& home = cli.home;
    WriteFile(home.Sub("stats.json"), bad);
    exec::ProcessResult shape =
        cli.Run({"shape", "--command", "make", "--exit-code", "0"}, "", "built\n");
    CHECK(shape.exit_status == 0);
    CHECK(shape.term_signal == 0);
    CHECK(shape.output.find("built") != std::string::npos);
    CHECK(shape.error_output.find(StrCat(warning_start, home.Sub("stats.json"),
                                         " is malformed")) != std::string::npos);
    CHECK(CorruptStats(home).size() == 1);
  }
  SUBCASE("stats") {
    testing::Cli cli;
  const TempDir& home = cli.home;
    WriteFile(home.Sub("stats.json"), bad);
    exec::ProcessResult stats = cli.Run({"stats"});
    CHECK(stats.exit_status == 0);
    CHECK(stats.term_signal == 0);
    CHECK(stats.output.find("no statistics yet") != std::string::npos);
    CHECK(stats.error_output.find(StrCat(warning_start, home.Sub("stats.json"),
                                         " is malformed")) != std::string::npos);
    CHECK(CorruptStats(home).size() == 1);
  }
  SUBCASE("plugins") {
    testing::Cli cli;
  const TempDir& home = cli.home;
    WriteFile(home.Sub("stats.json"), bad);
    exec::ProcessResult plugins = cli.Run({"plugins"});
    CHECK(plugins.exit_status == 0);
    CHECK(plugins.output.find("builtin-generic") != std::string::npos);
    CHECK(plugins.error_output.find("is malformed") != std::string::npos);
  }
}

TEST_CASE("a garbled stats file is kept as .corrupt-<time> and the user is told") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  WriteFile(home.Sub("stats.json"), "{\"version\":1,\"shapers\":{\"builtin-gen");
  exec::ProcessResult run = cli.Run({"run", "--", "seq", "1", "5"});
  CHECK(run.exit_status == 0);
  CHECK(run.error_output.find("is malformed (invalid JSON") != std::string::npos);
  REQUIRE(CorruptStats(home).size() == 1);
  CHECK(run.error_output.find(CorruptStats(home)[0]) != std::string::npos);
}

TEST_CASE("a stats file of a newer version is never overwritten: not recorded, and said why") {
  testing::Cli cli;
  const TempDir& home = cli.home;
  const std::string newer = R"({"version":7,"totals":{"everything":1}})";
  WriteFile(home.Sub("stats.json"), newer);
  exec::ProcessResult run = cli.Run({"run", "--", "seq", "1", "5"});
  CHECK(run.exit_status == 0);
  CHECK(run.output.find("5") != std::string::npos);
  CHECK(run.error_output.find(StrCat("plugline: warning: statistics not recorded: ",
                                     home.Sub("stats.json"), " has version 7, newer than this ",
                                     "plugline's (1): left untouched")) != std::string::npos);
  exec::ProcessResult stats = cli.Run({"stats"});
  CHECK(stats.exit_status == 1);
  CHECK(stats.error_output.find("has version 7") != std::string::npos);
  CHECK(ReadFileOrEmpty(home.Sub("stats.json")) == newer);
  CHECK(CorruptStats(home).empty());
}

}  // namespace
}  // namespace plugline

namespace plugline {
namespace {

// The modes of everything under `dir`, as "<octal mode> <path relative to dir>" lines.
std::vector<std::string> ModesUnder(const std::string& dir) {
  std::vector<std::string> out;
  auto names = core::ListDir(dir);
  REQUIRE(names.ok());
  for (const std::string& name : *names) {
    const std::string path = core::JoinPath(dir, name);
    struct stat st;
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    out.push_back(StrCat(absl::StrFormat("%o", st.st_mode & 07777), " ", name));
    if (S_ISDIR(st.st_mode)) {
      for (const std::string& inner : ModesUnder(path)) {
        out.push_back(StrCat(inner.substr(0, inner.find(' ')), " ", name, "/",
                             inner.substr(inner.find(' ') + 1)));
      }
    }
  }
  return out;
}

// Outputs quote what commands printed; the log quotes what plugins printed; trust.json and
// guards.json say what runs. None is for other users of the machine, whatever the umask.
TEST_CASE("what plugline writes under its home is private: files 0600, directories 0700") {
  testing::Cli cli;
  TempDir project;
  const std::string guard = cli.home.Sub("plugins/guard");
  WriteFile(guard + "/plugin.yaml",
            "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\non_error: closed\n");
  WriteFile(guard + "/run.sh", "#!/bin/sh\ncat >/dev/null\necho 'it failed' >&2\nexit 1\n");
  ::chmod((guard + "/run.sh").c_str(), 0755);
  WriteFile(project.Sub(".plugline/config.yaml"), "plugins:\n  enabled: true\n");
  const mode_t previous = ::umask(0);  // the children inherit it: the widest there is
  CHECK(cli.Run({"run", "--", "seq", "1", "100"}).exit_status == 0);
  CHECK(cli.Run({"hook", "pre_tool_call"}, "", R"({"tool":"t","arguments":"{}"})").exit_status ==
        3);
  CHECK(cli.Run({"trust", project.path()}).exit_status == 0);
  ::umask(previous);
  int checked = 0;
  for (const std::string& line : ModesUnder(cli.home.path())) {
    const std::string name = line.substr(line.find(' ') + 1);
    if (absl::StartsWith(name, "plugins")) continue;  // the user's own files
    CAPTURE(line);
    const bool directory = core::IsDirectory(cli.home.Sub(name));
    CHECK(line.substr(0, line.find(' ')) == (directory ? "700" : "600"));
    ++checked;
  }
  // The outputs folder and its file, the log folder and log, stats, trust and guard records.
  CHECK(checked >= 8);
}

}  // namespace
}  // namespace plugline

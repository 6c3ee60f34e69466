// `plugline stats` and `plugline stats --html`: real shapings through the real binary, and the
// page rendered by a real headless Chromium (Debian's chromium): no console errors, every chart
// drawn with its data, a screenshot kept under the build folder to look at.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cli/cli_runner.h"
#include "core/fs.h"
#include "core/strings.h"
#include "exec/process.h"
#include "test_util.h"

namespace plugline::cli {
namespace {

using plugline::testing::Cli;
using plugline::testing::ReadFileOrEmpty;

// Shapes a few real outputs (this repository's git history, a failing test run's fixture) so
// that several shapers and commands have figures.
void ShapeSome(Cli& cli) {
  const std::string src = plugline::testing::SourceDir();
  const std::string pytest = ReadFileOrEmpty(src + "/fixtures/test/pytest_failing.out");
  const std::string diff = ReadFileOrEmpty(src + "/fixtures/git-diff/diff-large.out");
  REQUIRE(!pytest.empty());
  REQUIRE(!diff.empty());
  for (int i = 0; i < 2; ++i) {
    REQUIRE(cli.Run({"shape", "--command", "python -m pytest tests/", "--exit-code", "1"}, "", pytest).exit_status == 0);
  }
  REQUIRE(cli.Run({"shape", "--command", "git diff HEAD~40"}, "", diff).exit_status == 0);
  REQUIRE(cli.Run({"shape", "--command", "echo hi"}, "", std::string("hi\n")).exit_status == 0);
}

int Count(std::string_view text, std::string_view needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_CASE("plugline stats: a table per plugin with the totals and the commands that saved the most") {
  Cli cli;
  CHECK(absl::StrContains(cli.Run({"stats"}).output, "no statistics yet"));
  ShapeSome(cli);
  auto table = cli.Run({"stats"});
  REQUIRE_MESSAGE(table.exit_status == 0, table.error_output);
  CHECK(absl::StartsWith(table.output, "plugin "));
  CHECK(absl::StrContains(table.output, "\nbuiltin-test "));
  CHECK(absl::StrContains(table.output, "\nbuiltin-git-diff "));
  CHECK(absl::StrContains(table.output, "\ntotal "));
  CHECK(absl::StrContains(table.output, "commands that saved the most:"));
  CHECK(absl::StrContains(table.output, "  pytest "));
  CHECK(absl::StrContains(table.output, "  git diff "));
  // No argument of a command is recorded: only the tool and its subcommand.
  CHECK(!absl::StrContains(ReadFileOrEmpty(cli.home.Sub("stats.json")), "HEAD~40"));
  CHECK(cli.Run({"stats", "--json", "--html", "x.html"}).exit_status == 2);
  // A script's output shaped in parts, by the commands it echoed, is counted under its parts'
  // shapers; the columns stay aligned under the longer name.
  const std::string src = plugline::testing::SourceDir();
  const std::string script =
      StrCat("+ flake8 .\n", ReadFileOrEmpty(src + "/fixtures/lint/flake8-large.out"),
             "+ python3 -m pytest tests/\n",
             ReadFileOrEmpty(src + "/fixtures/test/pytest_failing.out"));
  REQUIRE(cli.Run({"shape", "--command", "./ci.sh", "--exit-code", "1"}, "", script).exit_status ==
          0);
  table = cli.Run({"stats"});
  INFO(table.output);
  const std::vector<std::string> rows = absl::StrSplit(table.output, '\n');
  REQUIRE(rows.size() > 3);
  const size_t matches_end = rows[0].find("matches") + 7;
  bool parts_row = false;
  for (const std::string& row : rows) {
    if (row.empty() || row.starts_with("commands")) break;
    parts_row = parts_row || row.starts_with("builtin-lint+builtin-test ");
    // Every count ends under its heading.
    CHECK(row.size() > matches_end);
    CHECK(row[matches_end - 1] != ' ');
    CHECK(row[matches_end] == ' ');
  }
  CHECK(parts_row);
}

TEST_CASE("plugline stats --html: one self-contained page that Chromium renders with every chart") {
  Cli cli;
  ShapeSome(cli);
  plugline::testing::TempDir out;
  const std::string page = out.Sub("stats.html");
  auto wrote = cli.Run({"stats", "--html", page});
  REQUIRE_MESSAGE(wrote.exit_status == 0, wrote.error_output);
  const std::string html = ReadFileOrEmpty(page);
  // Self-contained: nothing to fetch.
  CHECK(!absl::StrContains(html, "src="));
  CHECK(!absl::StrContains(html, "href="));
  CHECK(!absl::StrContains(html, "@import"));

  const std::string chromium = "/usr/bin/chromium";
  REQUIRE_MESSAGE(core::PathExists(chromium),
                  "headless Chromium is needed: scripts/bootstrap-debian.sh installs Debian's chromium");
  const std::string screenshot = plugline::testing::BinDir() + "/../stats-html-screenshot.png";
  exec::ProcessSpec spec;
  spec.argv = {chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--enable-logging=stderr", "--v=0", "--window-size=900,1400",
               "--user-data-dir=" + out.Sub("profile"), "--dump-dom", "file://" + page};
  spec.merge_output = false;
  spec.timeout = absl::Seconds(60);
  auto dom = exec::RunProcess(spec);
  REQUIRE(dom.ok());
  REQUIRE_MESSAGE(dom->exit_status == 0, dom->error_output);
  // Console messages (errors included) appear in Chromium's log as CONSOLE lines.
  CHECK_MESSAGE(!absl::StrContains(dom->error_output, "CONSOLE"), dom->error_output);
  // Every chart drew, its bars carrying data: a bar per day, per plugin, two per plugin for
  // matches and shapes, one per plugin for time.
  for (std::string_view id : {"<svg id=\"daily\"", "<svg id=\"saved\"", "<svg id=\"matches\"",
                              "<svg id=\"time\"", "<table id=\"commands\""}) {
    CHECK_MESSAGE(dom->output.find(id) != std::string::npos, id);
  }
  const size_t saved_at = dom->output.find("<svg id=\"saved\"");
  const std::string saved_svg = dom->output.substr(saved_at, dom->output.find("</svg>", saved_at) - saved_at);
  const int plugins = Count(saved_svg, "class=\"bar\"");
  CHECK(plugins >= 3);  // builtin-test, builtin-git-diff, builtin-generic (matched "echo")
  CHECK(absl::StrContains(saved_svg, "data-label=\"builtin-git-diff\""));
  // The git diff saved tokens: its bar carries that figure, not 0.
  const std::string git_bar = "data-label=\"builtin-git-diff\" data-series=\"tokens saved\" data-value=\"";
  const size_t bar_at = saved_svg.find(git_bar);
  REQUIRE(bar_at != std::string::npos);
  CHECK(std::stod(saved_svg.substr(bar_at + git_bar.size())) > 1000);
  CHECK(Count(dom->output, "data-series=\"shapes\"") == plugins);
  CHECK(Count(dom->output, "data-series=\"matches\"") == plugins);
  CHECK(absl::StrContains(dom->output, "<td>git diff</td>"));
  CHECK(absl::StrContains(dom->output, "<td>echo</td>"));  // not "echo hi": "hi" is data

  spec.argv = {chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--window-size=900,1400", "--user-data-dir=" + out.Sub("profile2"),
               "--screenshot=" + screenshot, "file://" + page};
  auto shot = exec::RunProcess(spec);
  REQUIRE(shot.ok());
  CHECK(shot->exit_status == 0);
  CHECK(ReadFileOrEmpty(screenshot).starts_with("\x89PNG"));
  MESSAGE("screenshot of plugline stats --html: " << screenshot);
}

}  // namespace
}  // namespace plugline::cli

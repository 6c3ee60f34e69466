// Host with state files that do not hold what it expects: shaping and stats go on, the file
// is kept aside (or, when newer, left alone), and diagnostics() and the log say so.
#include <doctest/doctest.h>

#include "absl/strings/match.h"
#include "core/fs.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

bool AnyContains(const std::vector<std::string>& lines, std::string_view part) {
  for (const std::string& line : lines) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("Host: a stats file of the wrong shape is moved aside with a diagnostic, shaping goes on") {
  TempDir home;
  WriteFile(home.Sub("stats.json"), R"({"version":1,"shapers":[]})");
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  CHECK((*host)->diagnostics().empty());
  auto shaped = (*host)->Shape(ShapeRequest{"seq 3", "1\n2\n3\n", 0, ""});
  REQUIRE(shaped.ok());
  const std::string expected =
      StrCat(home.Sub("stats.json"), " is malformed (`shapers` must be an object, not an array)");
  CHECK(AnyContains((*host)->diagnostics(), expected));
  CHECK(ReadFileOrEmpty(home.Sub("logs/plugline.log")).find(expected) != std::string::npos);
  auto stats = (*host)->StatsJson();
  REQUIRE(stats.ok());
  CHECK(stats->find("builtin-generic") != std::string::npos);
  // The same problem again is not added again.
  WriteFile(home.Sub("stats.json"), R"({"version":1,"shapers":[]})");
  REQUIRE((*host)->StatsJson().ok());
  REQUIRE((*host)->StatsJson().ok());
  CHECK((*host)->diagnostics().size() == 2);  // two files moved aside, two names
}

TEST_CASE("Host: a newer stats file is left alone, shaping goes on and diagnostics say why") {
  TempDir home;
  const std::string newer = R"({"version":2})";
  WriteFile(home.Sub("stats.json"), newer);
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  for (int i = 0; i < 3; ++i) REQUIRE((*host)->Shape(ShapeRequest{"seq 3", "1\n2\n3\n", 0, ""}).ok());
  std::vector<std::string> diagnostics = (*host)->diagnostics();
  REQUIRE(diagnostics.size() == 1);  // once, not once per shaping
  CHECK(absl::StartsWith(diagnostics[0], "statistics not recorded: "));
  CHECK(diagnostics[0].find("has version 2, newer than this plugline's (1)") != std::string::npos);
  auto stats = (*host)->StatsJson();
  CHECK(stats.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(ReadFileOrEmpty(home.Sub("stats.json")) == newer);
}

}  // namespace
}  // namespace plugline

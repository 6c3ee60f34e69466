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

TEST_CASE("Host: Stats() types what stats.json holds: shapers, days oldest first, commands") {
  TempDir home;
  // Two days written by an earlier run, the later one first in the file, and a command.
  WriteFile(home.Sub("stats.json"), R"({"version":1,
    "shapers":{"builtin-test":{"match_count":3,"shape_count":2,"fail_count":1,
                               "match_fail_count":0,"tokens_saved":-7,"shape_ms_total":3.0}},
    "daily":{"2026-11-30":{"builtin-test":{"shapes":1,"tokens_raw":40,"tokens_saved":-3}},
             "2026-11-29":{"builtin-test":{"shapes":1,"tokens_raw":50,"tokens_saved":-4}}},
    "commands":{"pytest":{"shapes":2,"tokens_raw":90,"tokens_saved":-7,"shaper":"builtin-test"}},
    "later_member":{"kept":true}})");
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  REQUIRE((*host)->Shape(ShapeRequest{"seq 3", "1\n2\n3\n", 0, ""}).ok());
  absl::StatusOr<Stats> stats = (*host)->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->version == 1);
  REQUIRE(stats->shapers.size() == 2);
  const ShaperStats& test = stats->shapers[0];
  CHECK(test.id == "builtin-test");
  CHECK(test.match_count == 3);
  CHECK(test.shape_count == 2);
  CHECK(test.fail_count == 1);
  CHECK(test.tokens_saved == -7);  // negative stays negative
  CHECK(test.average_shape_ms == doctest::Approx(1.5));
  CHECK(stats->shapers[1].id == "builtin-generic");
  CHECK(stats->shapers[1].shape_count == 1);
  REQUIRE(stats->daily.size() == 3);  // the two days, and today's shaping
  CHECK(stats->daily[0].date == "2026-11-29");
  CHECK(stats->daily[1].date == "2026-11-30");
  REQUIRE(stats->daily[0].shapers.size() == 1);
  CHECK(stats->daily[0].shapers[0].tokens_raw == 50);
  CHECK(stats->daily[2].shapers[0].shaper == "builtin-generic");
  REQUIRE(stats->commands.size() == 2);
  CHECK(stats->commands[0].command == "pytest");
  CHECK(stats->commands[0].shaper == "builtin-test");
  CHECK(stats->commands[1].command == "seq");
  // The JSON form is the typed one's, and the file keeps the member it does not know.
  auto json = (*host)->StatsJson();
  REQUIRE(json.ok());
  CHECK(*json == stats->ToJson());
  CHECK(json->find(R"("2026-11-29":{"builtin-test":{"shapes":1,"tokens_raw":50,"tokens_saved":-4}})") <
        json->find(R"("2026-11-30")"));
  CHECK(ReadFileOrEmpty(home.Sub("stats.json")).find("later_member") != std::string::npos);
}

}  // namespace
}  // namespace plugline

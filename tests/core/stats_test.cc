#include "core/stats.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <thread>

#include "absl/time/clock.h"
#include "core/fs.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::TempDir;

double Number(const Value& stats, std::string_view shaper, std::string_view key) {
  const Value* s = stats.Find("shapers")->Find(shaper);
  REQUIRE(s != nullptr);
  const Value* v = s->Find(key);
  return v != nullptr ? v->as_number() : 0;
}

TEST_CASE("stats count matches, shapes, failures, savings and time per shaper") {
  TempDir home;
  StatsStore store(home.path());
  absl::Time day = absl::FromCivil(absl::CivilSecond(2026, 11, 29, 12, 0, 0), absl::UTCTimeZone());
  REQUIRE(store.Record(ShapeTrace{{"builtin-test", "builtin-generic"}, "builtin-test", false,
                                  1000, 100, 2.0, {}, ""},
                       day)
              .ok());
  REQUIRE(store.Record(ShapeTrace{{"builtin-test", "builtin-generic"}, "builtin-test", false,
                                  500, 800, 1.0, {}, ""},  // larger than raw: negative savings
                       day)
              .ok());
  REQUIRE(store.Record(ShapeTrace{{"builtin-test"}, "builtin-test", true, 300, 0, 4.0, {}, ""}, day).ok());
  auto stats = store.Load();
  REQUIRE(stats.ok());
  CHECK(Number(*stats, "builtin-test", "match_count") == 3);
  CHECK(Number(*stats, "builtin-test", "shape_count") == 2);
  CHECK(Number(*stats, "builtin-test", "fail_count") == 1);
  CHECK(Number(*stats, "builtin-test", "tokens_saved") == 900 - 300);
  CHECK(Number(*stats, "builtin-test", "shape_ms_total") == doctest::Approx(7.0));
  CHECK(Number(*stats, "builtin-test", "average_shape_ms") == doctest::Approx(3.5));
  CHECK(Number(*stats, "builtin-generic", "match_count") == 2);
  CHECK(Number(*stats, "builtin-generic", "shape_count") == 0);
  const Value* bucket = stats->Find("daily")->Find("2026-11-29")->Find("builtin-test");
  REQUIRE(bucket != nullptr);
  CHECK(bucket->Find("shapes")->as_number() == 3);
  CHECK(bucket->Find("tokens_raw")->as_number() == 1800);
  CHECK(bucket->Find("tokens_saved")->as_number() == 600);
}

TEST_CASE("queued shapings are written together in one update, and only when flushed") {
  TempDir home;
  StatsStore store(home.path());
  const absl::Time day =
      absl::FromCivil(absl::CivilSecond(2026, 11, 30, 12, 0, 0), absl::UTCTimeZone());
  REQUIRE(store.FlushQueued().ok());  // nothing queued: no file made
  CHECK_FALSE(PathExists(store.path()));
  for (int i = 0; i < 50; ++i) {
    store.Enqueue(ShapeTrace{{"builtin-test"}, "builtin-test", false, 100, 10, 1.0, {}, ""}, day);
  }
  store.Enqueue(ShapeTrace{}, day);  // matched nothing: not counted
  CHECK_FALSE(PathExists(store.path()));
  REQUIRE(store.FlushQueued().ok());
  struct stat first;
  REQUIRE(::stat(store.path().c_str(), &first) == 0);
  auto stats = store.Load();
  REQUIRE(stats.ok());
  CHECK(Number(*stats, "builtin-test", "shape_count") == 50);
  CHECK(Number(*stats, "builtin-test", "tokens_saved") == 50 * 90);
  CHECK(stats->Find("daily")->Find("2026-11-30")->Find("builtin-test")->Find("shapes")->as_number() ==
        50);
  // A second flush with nothing queued writes nothing (the file is the one written above).
  REQUIRE(store.FlushQueued().ok());
  struct stat second;
  REQUIRE(::stat(store.path().c_str(), &second) == 0);
  CHECK(second.st_ino == first.st_ino);
}

TEST_CASE("concurrent writers lose no counts") {
  TempDir home;
  constexpr int kThreads = 8, kEach = 40;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      StatsStore store(home.path());  // separate stores, as separate processes would have
      for (int i = 0; i < kEach; ++i) {
        CHECK(store.Record(ShapeTrace{{"s"}, "s", false, 10, 1, 0.1, {}, ""}, absl::Now()).ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto stats = StatsStore(home.path()).Load();
  REQUIRE(stats.ok());
  CHECK(Number(*stats, "s", "shape_count") == kThreads * kEach);
  CHECK(Number(*stats, "s", "tokens_saved") == kThreads * kEach * 9);
}

// The files in `home` moved aside by the stats store.
std::vector<std::string> Corrupt(const TempDir& home) {
  std::vector<std::string> found;
  absl::StatusOr<std::vector<std::string>> names = ListDir(home.path());
  REQUIRE(names.ok());
  for (const std::string& name : *names) {
    if (name.rfind("stats.json.corrupt-", 0) == 0) found.push_back(home.Sub(name));
  }
  return found;
}

TEST_CASE("a corrupt stats file is moved aside with a warning, not lost, and counting restarts") {
  TempDir home;
  plugline::testing::WriteFile(home.Sub("stats.json"), "{not json");
  StatsStore store(home.path());
  std::vector<std::string> warnings;
  auto empty = store.Load(&warnings);
  REQUIRE(empty.ok());
  CHECK(empty->Find("shapers")->as_object().empty());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find(StrCat(home.Sub("stats.json"), " is malformed (invalid JSON")) == 0);
  REQUIRE(Corrupt(home).size() == 1);
  CHECK(plugline::testing::ReadFileOrEmpty(Corrupt(home)[0]) == "{not json");
  REQUIRE(store.Record(ShapeTrace{{"s"}, "s", false, 10, 1, 0.1, {}, ""}, absl::Now()).ok());
  auto stats = store.Load();
  REQUIRE(stats.ok());
  CHECK(Number(*stats, "s", "shape_count") == 1);
}

// Documents that parse as JSON objects of this version but not as stats: wrong types at every
// level, numbers out of range. Each used to reach code that assumed the shape (the first one
// aborted every `plugline run`). Through Record and Load alike: moved aside, a warning naming the
// member, and the store goes on with fresh stats.
TEST_CASE("malformed stats documents at every level are moved aside, never trusted") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"version":1,"shapers":[]})", "`shapers` must be an object, not an array"},
      {R"({"version":1,"shapers":"x"})", "`shapers` must be an object, not a string"},
      {R"({"version":1,"shapers":null})", "`shapers` must be an object, not null"},
      {R"({"version":1,"shapers":{"s":[]}})", "`shapers.s` must be an object, not an array"},
      {R"({"version":1,"shapers":{"s":7}})", "`shapers.s` must be an object, not 7"},
      {R"({"version":1,"shapers":{"s":{"match_count":"3"}}})",
       "`shapers.s.match_count` must be a whole number >= 0, not a string"},
      {R"({"version":1,"shapers":{"s":{"shape_count":-1}}})",
       "`shapers.s.shape_count` must be a whole number >= 0, not -1"},
      {R"({"version":1,"shapers":{"s":{"fail_count":1.25}}})",
       "`shapers.s.fail_count` must be a whole number >= 0, not 1.25"},
      {R"({"version":1,"shapers":{"s":{"match_fail_count":true}}})",
       "`shapers.s.match_fail_count` must be a whole number >= 0, not a boolean"},
      {R"({"version":1,"shapers":{"s":{"match_count":1e20}}})",
       "`shapers.s.match_count` must be a whole number >= 0, not 1e+20"},
      {R"({"version":1,"shapers":{"s":{"tokens_saved":{}}}})",
       "`shapers.s.tokens_saved` must be a whole number, not an object"},
      {R"({"version":1,"shapers":{"s":{"tokens_saved":-1e300}}})",
       "`shapers.s.tokens_saved` must be a whole number, not -1e+300"},
      {R"({"version":1,"shapers":{"s":{"shape_ms_total":-0.5}}})",
       "`shapers.s.shape_ms_total` must be a number >= 0, not -0.5"},
      {R"({"version":1,"shapers":{"s":{"shape_ms_total":null}}})",
       "`shapers.s.shape_ms_total` must be a number >= 0, not null"},
      {R"({"version":1,"daily":[]})", "`daily` must be an object, not an array"},
      {R"({"version":1,"daily":{"yesterday":{}}})", "`daily` keys must be dates (YYYY-MM-DD)"},
      {R"({"version":1,"daily":{"2026-11-29":[]}})",
       "`daily.2026-11-29` must be an object, not an array"},
      {R"({"version":1,"daily":{"2026-11-29":{"s":1}}})",
       "`daily.2026-11-29.s` must be an object, not 1"},
      {R"({"version":1,"daily":{"2026-11-29":{"s":{"shapes":-2}}}})",
       "`daily.2026-11-29.s.shapes` must be a whole number >= 0, not -2"},
      {R"({"version":1,"daily":{"2026-11-29":{"s":{"tokens_raw":"9"}}}})",
       "`daily.2026-11-29.s.tokens_raw` must be a whole number >= 0, not a string"},
      {R"({"version":1,"daily":{"2026-11-29":{"s":{"tokens_saved":0.5}}}})",
       "`daily.2026-11-29.s.tokens_saved` must be a whole number, not 0.5"},
      {R"({"version":1,"shapers":{"s":{"match_count":1}},"shapers":{}})",
       "duplicate key \"shapers\" in the top-level object"},
      {R"({"version":1,"shapers":{"s":{"match_count":1,"match_count":2}}})",
       "duplicate key \"match_count\" in the object at shapers.s"},
      {R"({"version":1,"shapers":{"s":{"match_count":NaN}}})", "invalid JSON"},
      {R"({"version":"1","shapers":{}})", "`version` must be a whole number >= 1, not a string"},
      {R"({"shapers":{}})", "`version` is missing"},
      {R"([{"version":1}])", "must be a JSON object, not an array"},
  };
  for (const auto& [text, problem] : cases) {
    CAPTURE(text);
    for (bool through_record : {false, true}) {
      TempDir home;
      plugline::testing::WriteFile(home.Sub("stats.json"), text);
      StatsStore store(home.path());
      std::vector<std::string> warnings;
      if (through_record) {
        REQUIRE(store.Record(ShapeTrace{{"s"}, "s", false, 10, 4, 0.5, {}, ""}, absl::Now(), &warnings)
                    .ok());
      } else {
        auto stats = store.Load(&warnings);
        REQUIRE(stats.ok());
        CHECK(stats->Find("shapers")->as_object().empty());
      }
      REQUIRE(warnings.size() == 1);
      CHECK_MESSAGE(warnings[0].find(problem) != std::string::npos, warnings[0]);
      REQUIRE(Corrupt(home).size() == 1);
      CHECK(plugline::testing::ReadFileOrEmpty(Corrupt(home)[0]) == text);
      auto after = store.Load();
      REQUIRE(after.ok());
      if (through_record) CHECK(Number(*after, "s", "tokens_saved") == 6);
    }
  }
}

TEST_CASE("valid edge values in stats are kept: zero, 2^53, negative savings, unknown members") {
  TempDir home;
  const std::string text =
      R"({"version":1,"shapers":{"s":{"match_count":9007199254740992,"shape_count":0,)"
      R"("tokens_saved":-9007199254740992,"shape_ms_total":1e300,"note":"kept"}},)"
      R"("daily":{"2026-11-29":{}},"comment":{"any":"thing"}})";
  plugline::testing::WriteFile(home.Sub("stats.json"), text);
  StatsStore store(home.path());
  std::vector<std::string> warnings;
  REQUIRE(store.Record(ShapeTrace{{"s"}, "s", false, 10, 4, 0.5, {}, ""}, absl::Now(), &warnings).ok());
  CHECK(warnings.empty());
  CHECK(Corrupt(home).empty());
  auto stats = store.Load();
  REQUIRE(stats.ok());
  CHECK(Number(*stats, "s", "shape_count") == 1);
  CHECK(stats->Find("shapers")->Find("s")->Find("note")->as_string() == "kept");
  CHECK(stats->Find("comment") != nullptr);
}

TEST_CASE("a stats file of a newer version: nothing recorded, nothing overwritten, said why") {
  TempDir home;
  const std::string newer = R"({"version":2,"shapers":"a layout from the future"})";
  plugline::testing::WriteFile(home.Sub("stats.json"), newer);
  StatsStore store(home.path());
  absl::Status recorded = store.Record(ShapeTrace{{"s"}, "s", false, 10, 4, 0.5, {}, ""}, absl::Now());
  CHECK(recorded.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(recorded.message()).find("has version 2, newer than this plugline's (1)") !=
        std::string::npos);
  CHECK(store.Load().status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(plugline::testing::ReadFileOrEmpty(home.Sub("stats.json")) == newer);
  CHECK(Corrupt(home).empty());
}

TEST_CASE("a huge stats file is moved aside without being read whole") {
  TempDir home;
  // 65 MiB of whitespace around a valid document: over the 64 MiB bound.
  std::string huge(size_t{65} << 20, ' ');
  huge.append(R"({"version":1})");
  plugline::testing::WriteFile(home.Sub("stats.json"), huge);
  huge.clear();
  huge.shrink_to_fit();
  std::vector<std::string> warnings;
  REQUIRE(StatsStore(home.path()).Record(ShapeTrace{{"s"}, "s", false, 1, 1, 0.1, {}, ""},
                                         absl::Now(), &warnings)
              .ok());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("larger than 67108864 bytes") != std::string::npos);
  CHECK(Corrupt(home).size() == 1);
}

TEST_CASE("the time series keeps a bounded number of days") {
  TempDir home;
  StatsStore store(home.path());
  absl::Time start = absl::FromCivil(absl::CivilDay(2025, 1, 1), absl::UTCTimeZone());
  for (int d = 0; d < kStatsDaysKept + 5; ++d) {
    REQUIRE(store.Record(ShapeTrace{{"s"}, "s", false, 10, 1, 0.1, {}, ""}, start + absl::Hours(24 * d)).ok());
  }
  auto stats = store.Load();
  const Value* daily = stats->Find("daily");
  CHECK(daily->as_object().size() == static_cast<size_t>(kStatsDaysKept));
  CHECK(daily->Find("2025-01-01") == nullptr);
  CHECK(Number(*stats, "s", "shape_count") == kStatsDaysKept + 5);
}

}  // namespace
}  // namespace plugline::core

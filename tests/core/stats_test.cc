#include "core/stats.h"

#include <doctest/doctest.h>

#include <thread>

#include "absl/time/clock.h"
#include "core/fs.h"
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
                                  1000, 100, 2.0, {}},
                       day)
              .ok());
  REQUIRE(store.Record(ShapeTrace{{"builtin-test", "builtin-generic"}, "builtin-test", false,
                                  500, 800, 1.0, {}},  // larger than raw: negative savings
                       day)
              .ok());
  REQUIRE(store.Record(ShapeTrace{{"builtin-test"}, "builtin-test", true, 300, 0, 4.0, {}}, day).ok());
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

TEST_CASE("concurrent writers lose no counts") {
  TempDir home;
  constexpr int kThreads = 8, kEach = 40;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      StatsStore store(home.path());  // separate stores, as separate processes would have
      for (int i = 0; i < kEach; ++i) {
        CHECK(store.Record(ShapeTrace{{"s"}, "s", false, 10, 1, 0.1, {}}, absl::Now()).ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto stats = StatsStore(home.path()).Load();
  REQUIRE(stats.ok());
  CHECK(Number(*stats, "s", "shape_count") == kThreads * kEach);
  CHECK(Number(*stats, "s", "tokens_saved") == kThreads * kEach * 9);
}

TEST_CASE("a corrupt stats file is set aside, not lost, and counting restarts") {
  TempDir home;
  plugline::testing::WriteFile(home.Sub("stats.json"), "{not json");
  StatsStore store(home.path());
  auto broken = store.Load();
  REQUIRE_FALSE(broken.ok());
  CHECK(std::string(broken.status().message()).find(home.Sub("stats.json")) == 0);
  REQUIRE(store.Record(ShapeTrace{{"s"}, "s", false, 10, 1, 0.1, {}}, absl::Now()).ok());
  CHECK(store.Load().ok());
  auto names = ListDir(home.path());
  bool aside = false;
  for (const std::string& name : *names) aside = aside || name.rfind("stats.json.corrupt-", 0) == 0;
  CHECK(aside);
}

TEST_CASE("the time series keeps a bounded number of days") {
  TempDir home;
  StatsStore store(home.path());
  absl::Time start = absl::FromCivil(absl::CivilDay(2025, 1, 1), absl::UTCTimeZone());
  for (int d = 0; d < kStatsDaysKept + 5; ++d) {
    REQUIRE(store.Record(ShapeTrace{{"s"}, "s", false, 10, 1, 0.1, {}}, start + absl::Hours(24 * d)).ok());
  }
  auto stats = store.Load();
  const Value* daily = stats->Find("daily");
  CHECK(daily->as_object().size() == static_cast<size_t>(kStatsDaysKept));
  CHECK(daily->Find("2025-01-01") == nullptr);
  CHECK(Number(*stats, "s", "shape_count") == kStatsDaysKept + 5);
}

}  // namespace
}  // namespace plugline::core

// Per-shaper statistics in <home>/stats.json: counts, tokens saved, shape time, and a daily
// time series for charting savings. Safe with many plugline processes at once: every update
// is a read-modify-write under an exclusive flock on <home>/stats.lock, written atomically.
//
//   {"version": 1,
//    "shapers": {"builtin-test": {"match_count": 12, "shape_count": 9, "fail_count": 1,
//                                 "match_fail_count": 0,
//                                 "tokens_saved": 48210, "shape_ms_total": 3.4}},
//    "daily": {"2026-11-29": {"builtin-test": {"shapes": 9, "tokens_raw": 51000,
//                                              "tokens_saved": 48210}}}}
//
// tokens_saved is tokens_raw minus the tokens of the summary the shaper produced — negative
// when its summary was larger than the raw output (plugline then showed the raw output).
#ifndef PLUGLINE_CORE_STATS_H_
#define PLUGLINE_CORE_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/json.h"

namespace plugline::core {

// What one shaping did, for the stats.
struct ShapeTrace {
  std::vector<std::string> matched;  // ids of every shaper whose match() said matched
  std::string shaper;                // the id that shaped ("" when none did)
  bool failed = false;               // its shape() failed (the pipeline fell back)
  uint64_t tokens_raw = 0;
  uint64_t tokens_shaper_summary = 0;  // tokens of what the shaper returned
  double shape_ms = 0;
  std::vector<std::string> match_failed;  // ids of every shaper whose match() failed
};

// Days of time series kept.
inline constexpr int kStatsDaysKept = 400;

class StatsStore {
 public:
  explicit StatsStore(std::string home);

  // Adds one shaping to the stats. Errors (unwritable home) are returned, never fatal.
  absl::Status Record(const ShapeTrace& trace, absl::Time when);

  // The stats as stored, plus "average_shape_ms" per shaper. An absent file is empty stats;
  // a corrupt one is an error naming it.
  absl::StatusOr<Value> Load() const;

  const std::string& path() const { return path_; }

 private:
  std::string home_;
  std::string path_;
  std::string lock_path_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_STATS_H_

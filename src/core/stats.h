// Per-shaper statistics in <home>/stats.json: counts, tokens saved, shape time, and a daily
// time series for charting savings. Safe with many plugline processes at once: every update
// is a read-modify-write under an exclusive flock on <home>/stats.lock, written atomically
// (a StateFile, state_file.h, which also decides what happens to a malformed or newer file).
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
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/json.h"
#include "core/state_file.h"
#include "plugline/stats.h"

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
  std::string command;  // core::CommandKey of the command ("git diff"); "" when none
};

// Commands kept in `commands` (the ones that saved the most).
inline constexpr size_t kStatsCommandsKept = 200;

// Days of time series kept.
inline constexpr int kStatsDaysKept = 400;
// The stats.json format this build reads and writes.
inline constexpr int64_t kStatsVersion = 1;

// Whether `doc` (a JSON object whose version is kStatsVersion) has the shape above: `shapers`
// and `daily` absent or objects; every shaper an object whose counts are whole numbers >= 0,
// `tokens_saved` a whole number, `shape_ms_total` a number >= 0; every `daily` key a date
// (YYYY-MM-DD) holding an object of shaper buckets with `shapes` and `tokens_raw` whole numbers
// >= 0 and `tokens_saved` a whole number. Members not named here are kept and not checked.
// InvalidArgument naming the first wrong member otherwise.
absl::Status ValidateStats(const Value& doc);

// The typed view of a document ValidateStats accepted, as StatsStore::Load gives it: members
// absent are 0 (or ""), members not named there are left out; days oldest first.
plugline::Stats StatsFromValue(const Value& doc);

class StatsStore {
 public:
  explicit StatsStore(std::string home);

  // Adds one shaping to the stats. A malformed file is moved aside first (a warning is appended
  // to `warnings`, may be null) and counting starts again; a file of a newer version is left
  // alone and the shaping is not counted (FailedPrecondition). Errors (unwritable home, newer
  // file) are returned, never fatal.
  absl::Status Record(const ShapeTrace& trace, absl::Time when,
                      std::vector<std::string>* warnings = nullptr);

  // Queues one shaping for the next FlushQueued(), so that a process answering many shapings
  // (the server) writes the file once for many of them. Thread-safe.
  void Enqueue(ShapeTrace trace, absl::Time when);
  // Adds every queued shaping to the stats in one update of the file, as Record does; with
  // nothing queued, touches nothing. Thread-safe.
  absl::Status FlushQueued(std::vector<std::string>* warnings = nullptr);

  // The stats as stored, plus "average_shape_ms" per shaper. An absent file is empty stats;
  // a malformed one is moved aside (a warning in `warnings`) and gives empty stats; a newer one
  // is FailedPrecondition naming it.
  absl::StatusOr<Value> Load(std::vector<std::string>* warnings = nullptr) const;

  const std::string& path() const { return file_.path(); }

 private:
  struct Queued {
    ShapeTrace trace;
    absl::Time when;
  };
  absl::Status RecordAll(const std::vector<Queued>& shapings, std::vector<std::string>* warnings);

  std::string home_;
  StateFile file_;
  absl::Mutex queue_mu_;
  std::vector<Queued> queue_ ABSL_GUARDED_BY(queue_mu_);
  // Held while queued shapings are written, so that two flushes keep their order.
  absl::Mutex flush_mu_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_STATS_H_

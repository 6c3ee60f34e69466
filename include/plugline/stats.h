// The shaping statistics of a home as typed results: Host::Stats() (include/plugline/host.h).
// ToJson() is the JSON Host::StatsJson(), the C ABI and the bindings give (docs/stats.md).
#ifndef PLUGLINE_STATS_H_
#define PLUGLINE_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace plugline {

// One shaper's counts, over every process that used the home.
struct ShaperStats {
  std::string id;
  int64_t match_count = 0;       // its match() said it recognized an output (winner or not)
  int64_t shape_count = 0;       // it won and its shape() produced a result
  int64_t fail_count = 0;        // it won and its shape() failed: the pipeline fell back
  int64_t match_fail_count = 0;  // its match() failed: it was left out of that shaping
  // Raw tokens minus the tokens of its summaries: negative when its summaries were larger.
  int64_t tokens_saved = 0;
  double shape_ms_total = 0;
  double average_shape_ms = 0;  // shape_ms_total over shape_count (0 without shapes)
};

// What one shaper did on one UTC day.
struct DailyShaperStats {
  std::string shaper;
  int64_t shapes = 0;
  int64_t tokens_raw = 0;
  int64_t tokens_saved = 0;
};

struct DailyStats {
  std::string date;  // YYYY-MM-DD, UTC
  std::vector<DailyShaperStats> shapers;
};

// One command, recorded by its tool and subcommand ("git diff"): never its arguments.
struct CommandStats {
  std::string command;
  std::string shaper;  // the shaper that shaped it last
  int64_t shapes = 0;
  int64_t tokens_raw = 0;
  int64_t tokens_saved = 0;
};

struct Stats {
  int64_t version = 1;
  std::vector<ShaperStats> shapers;    // in the file's order (by id)
  std::vector<DailyStats> daily;       // oldest day first
  std::vector<CommandStats> commands;  // in the file's order (by command)
  // {"version", "shapers": {id: {"match_count", "shape_count", "fail_count",
  // "match_fail_count", "tokens_saved", "shape_ms_total", "average_shape_ms"}},
  // "daily": {date: {shaper: {"shapes", "tokens_raw", "tokens_saved"}}},
  // "commands": {command: {"shapes", "tokens_raw", "tokens_saved", "shaper"}}}.
  std::string ToJson() const;
};

}  // namespace plugline

#endif  // PLUGLINE_STATS_H_

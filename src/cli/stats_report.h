// What `plugline stats` prints: a table per plugin with the totals and the commands that saved
// the most, or (--html FILE) one self-contained page with charts drawn as inline SVG — no
// script, no network, nothing to fetch when it is opened.
#ifndef PLUGLINE_CLI_STATS_REPORT_H_
#define PLUGLINE_CLI_STATS_REPORT_H_

#include <string>

#include "absl/time/time.h"
#include "plugline/stats.h"

namespace plugline::cli {

// `stats`: the statistics of a home (docs/stats.md). The table, ending in a newline.
std::string StatsTable(const Stats& stats);

// The page: tokens saved per day, tokens saved per plugin, matches against shapes, average
// shape time, and the commands that saved the most. `home` is named in its heading; `now` is
// when it was made.
std::string StatsHtml(const Stats& stats, const std::string& home, absl::Time now);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_STATS_REPORT_H_

// The token budget of a summary (config's shaping.max_summary_tokens, a host's per-shaping
// option): what any shaper returned, cut to fit by priority, never mid-line, and the cut stated.
//
// Lines are ranked, whatever shaper wrote them:
//   1. the first line (the outcome and counts);
//   2. identifiers: test results that failed ("FAILED", "FAIL", "[  FAILED  ]", "not ok",
//      "✕"...), "error:" lines, the locations of errors ("path.ext:12: error ...",
//      "path.ext(3,5): error"), commit hashes and banners with a name ("____ test_x ____",
//      "=== 2 failed ===");
//   3. evidence: other locations (warnings, notes, stack frames), other error lines
//      (core/text.h LooksLikeErrorLine) and the three lines after an
//      identifier (the message, the values, a frame), the first line after every identifier
//      before the second after any;
//   4. the rest, context.
// Lines are taken in that order, each class from the top, while they fit; a line that does not
// fit is left out and smaller ones after it still get in. Each run of lines left out becomes
// one "… N lines cut (budget)" line (a run that is one short "… " line of the shaper's own
// stays as it is), and a last line says what the cut was. The last two lines of a summary
// rank with identifiers: tools end with their final status. When
// identifiers alone do not fit, those left out are counted by file ("… 1,204 more identifier
// lines left out: src/a.ts 800, src/b.ts 404").
#ifndef PLUGLINE_CORE_SUMMARY_BUDGET_H_
#define PLUGLINE_CORE_SUMMARY_BUDGET_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/tokens.h"

namespace plugline::core {

struct BudgetCut {
  std::string summary;        // what fits, in the original order, with the markers
  uint64_t lines_in = 0;      // lines of the summary given
  uint64_t lines_left_out = 0;
};

// `summary` cut to at most `max_tokens` tokens as `counter` counts them (`reserve` of them kept
// free for what the caller appends after, such as the raw file's path). A summary that fits is
// returned as it is (lines_left_out 0).
BudgetCut FitToBudget(std::string_view summary, uint64_t max_tokens, uint64_t reserve,
                      const TokenCounter& counter);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_SUMMARY_BUDGET_H_

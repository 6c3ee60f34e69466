// The token budget of a summary (config's shaping.max_summary_tokens, a host's per-shaping
// option): what any shaper returned, cut to fit by priority, never mid-line, and the cut stated.
//
// Lines are ranked, whatever shaper wrote them (docs/shaping.md "The budget"):
//   1. the first line (the outcome and counts), and the last two lines that are not the
//      shaper's notes when each is at most 100 tokens (tools end with their final status);
//   2. identifiers: test results that failed ("FAILED …", "… FAILED", "[  FAILED  ]",
//      "not ok", "✕"...), "error:" lines, a code with its severity in brackets ("TS2339
//      [ERROR]: …"), the locations of errors ("path.ext:12: error ...",
//      "path.ext(3,5): error"), commit hashes, banners with a name ("____ test_x ____",
//      "=== 2 failed ==="), and those last two lines when longer;
//   3. evidence: the three lines after an identifier (the message, the values, a frame; header
//      fields such as "Author: …" do not count), the first line after every identifier before
//      the second after any; other error lines (core/text.h LooksLikeErrorLine); locations that
//      report no error (warnings, notes, frames), in rounds: every file's first, then every
//      file's second…; a diff's file headers ("diff --git", renames, binary files, `diff -r`'s
//      "Only in a/x: y") after the first evidence;
//   4. the rest, context.
// A shaper's list of locations (below) ranks as identifiers (its first line; as a location when
// the problem it follows reports no error) and locations (its continuations from both ends
// in, in the rounds of the locations of warnings); its tally of problems by code (below) as an
// identifier.
// Lines are taken rank by rank, each from the top (identifiers from both ends in: the first,
// the last, the second…), while they fit; a line that does not fit is
// left out whole and smaller ones after it still get in. Each run of 4 or more left-out lines
// becomes one "… N lines cut (budget)" line, shorter runs are counted together after the
// summary ("… 65 lines cut (budget) in gaps of 1 to 3 lines between the lines shown above"),
// and a marker a kept line adds is part of its price; a run that is only the
// shaper's own "… " notes gets none (one
// short note stays as it is while the budget has room for it), and the last line says what was
// cut, notes included. When
// identifiers do not all fit, those left out are counted by file ("… 22 failures, errors or
// locations did not fit: src/a.ts 7, 15 naming no file").
#ifndef PLUGLINE_CORE_SUMMARY_BUDGET_H_
#define PLUGLINE_CORE_SUMMARY_BUDGET_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/tokens.h"

namespace plugline::core {

// A shaper's list of locations (builtin/diagnostic_groups.h): a note whose text, after its
// first " at: ", is entries separated by "; ", each starting with a location as printed —
//   "… 186 more TS2304, names differing, at: src/b.ts(9,12) 'taxRate3'; src/c.ts(14,2) 'rate'"
// and its continuation lines "… TS2304 also at: …"; or, positions in one file named before
// " at: ": "… 7 more in /w/a.js at: 11:15 eqeqeq; 15:10 no-undef 'x'" ("… /w/a.js also at: …";
// a position is "12:13" or "line 12, col 13").
// A first line ranks as an identifier (as the problem it follows when that is a location that
// reports no error), a continuation as a location (every list's first line before any list's
// second), and the entries of a list cut are counted by file like identifiers.
inline constexpr std::string_view kListAt = " at: ";
// A shaper's tally of many problems by their code, ranked as an identifier (its codes are what
// the problems left out are): "… 1,034 problems by code: Style/ClassAndModuleChildren 94, …".
// A summary the budget does not cut goes without it (WithoutTallies).
inline constexpr std::string_view kTallyBy = " by code: ";
inline constexpr std::string_view kListAlsoAt = " also at: ";
inline constexpr std::string_view kListSeparator = "; ";

// A shaper's run of lines alike but for one word (builtin/common.h WriteOneWordApart): its first
// line, then "… 38 more lines like the one above but for: asgiref, attrs, …" and its further
// lines "… more of such lines: …". Each line of words is kept with the line before it, or not at
// all: no words without the line they stand in for.
inline constexpr std::string_view kOneWordBut = " like the one above but for: ";
inline constexpr std::string_view kOneWordMore = "… more of such lines: ";

struct BudgetCut {
  std::string summary;        // what fits, in the original order, with the markers
  uint64_t lines_in = 0;      // lines of the summary given
  uint64_t lines_left_out = 0;
  bool cut = false;  // the summary was over the budget and `summary` is the cut one
};

// `summary` without its tallies of problems by code: what they are for, naming the codes of
// problems a budget left out, no summary that is not cut needs.
std::string WithoutTallies(std::string_view summary);

// `summary` cut to at most `max_tokens` tokens as `counter` counts them (`reserve` of them kept
// free for what the caller appends after, such as the raw file's path). A summary that fits is
// returned as it is (`cut` false).
BudgetCut FitToBudget(std::string_view summary, uint64_t max_tokens, uint64_t reserve,
                      const TokenCounter& counter);

// `text` (a file's, or data a command was run for: core/command_line.h PrintsSourceFile,
// FetchesData) cut to its first lines that fit `max_tokens` (`reserve` kept free), then a line
// saying which lines follow: "… lines 812–3,904 of 3,904 cut to the 8,000-token budget". Its
// lines are alike in worth, and what an agent reads on from is where it stopped: none is picked
// from the middle. A first line over the budget alone leaves it to FitToBudget.
BudgetCut FitHeadToBudget(std::string_view text, uint64_t max_tokens, uint64_t reserve,
                          const TokenCounter& counter);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_SUMMARY_BUDGET_H_

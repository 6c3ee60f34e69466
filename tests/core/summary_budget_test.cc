#include "core/summary_budget.h"

#include <doctest/doctest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using testing::Contains;

// One token per word-ish piece: the estimate, so the figures below do not depend on ranks.
const TokenCounter& Counter() {
  static auto* counter = MakeEstimateTokenCounter().release();
  return *counter;
}

TEST_CASE("a summary within its budget is left as it is") {
  const std::string summary = "pytest: FAILED — 1 failed\nFAILED a.py::test_x - assert 1 == 2\n";
  BudgetCut cut = FitToBudget(summary, 8000, 60, Counter());
  CHECK(cut.summary == summary);
  CHECK(cut.lines_left_out == 0);
  CHECK(FitToBudget(summary, 0, 0, Counter()).summary == summary);  // 0: no budget
}

TEST_CASE("over budget: outcome, identifiers, then evidence, then context, never mid-line") {
  std::string summary = "pytest: FAILED — 40 failed, 2 passed (exit 1)\n";
  for (int i = 0; i < 40; ++i) {
    absl::StrAppend(&summary, "context line number ", i, " with some words in it to pad\n");
    absl::StrAppend(&summary, "FAILED tests/test_", i, ".py::test_case_", i, "\n");
    absl::StrAppend(&summary, "E   assert ", i, " == ", i + 1, "\n");
  }
  absl::StrAppend(&summary, "======== 40 failed, 2 passed in 1.2s ========");
  const uint64_t budget = 1200;
  BudgetCut cut = FitToBudget(summary, budget, 60, Counter());
  INFO(cut.summary);
  CHECK(Counter().Count(cut.summary) + 60 <= budget);
  CHECK(cut.lines_left_out > 0);
  CHECK(cut.summary.starts_with("pytest: FAILED — 40 failed, 2 passed (exit 1)\n"));
  for (int i = 0; i < 40; ++i) {
    CHECK(Contains(cut.summary, absl::StrCat("FAILED tests/test_", i, ".py::test_case_", i, "\n")));
  }
  CHECK(Contains(cut.summary, "======== 40 failed, 2 passed in 1.2s ========"));  // the last line
  CHECK(Contains(cut.summary, "E   assert 0 == 1"));  // evidence before context
  CHECK_FALSE(Contains(cut.summary, "context line number 39"));
  // Every line is one of the summary's, or a marker; the statement says what was cut.
  std::string original = summary + "\n";
  for (std::string_view line : SplitLines(cut.summary)) {
    CHECK((line.starts_with("… ") || Contains(original, std::string(line) + "\n")));
  }
  CHECK(Contains(cut.summary, "lines cut (budget)"));
  CHECK(Contains(cut.summary, absl::StrCat("… cut to the 1,200-token budget: ", cut.lines_left_out,
                                           " of 122 summary lines left out")));
}

TEST_CASE("a file's text over its budget keeps its first lines, in order, and says which follow") {
  // A query's 2,000 rows, a quarter of them with "failed" in them: none is picked from the
  // middle for a word in it; the rows from the top that fit, then the numbers of the rest.
  std::string text;
  for (int i = 1; i <= 2000; ++i) {
    absl::StrAppend(&text, i, "|", i * 7 % 500, "|", i % 4 == 0 ? "failed" : "paid", "\n");
  }
  const BudgetCut cut = FitHeadToBudget(text, 1000, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Counter().Count(cut.summary) + 60 <= 1000);
  const std::vector<std::string_view> lines = SplitLines(cut.summary);
  const size_t kept = lines.size() - 1;
  CHECK(kept > 100);
  for (size_t i = 0; i < kept; ++i) {
    CHECK(lines[i] ==
          absl::StrCat(i + 1, "|", (i + 1) * 7 % 500, "|", (i + 1) % 4 == 0 ? "failed" : "paid"));
  }
  CHECK(lines.back() == absl::StrCat("… lines ", FormatCount(kept + 1),
                                     "–2,000 of 2,000 cut to "
                                     "the 1,000-token budget"));
  CHECK(cut.lines_left_out == 2000 - kept);
  // Within the budget: as it is.
  CHECK(FitHeadToBudget("a\nb\n", 1000, 60, Counter()).summary == "a\nb\n");
  CHECK_FALSE(FitHeadToBudget("a\nb\n", 1000, 60, Counter()).cut);
}

TEST_CASE("diff -r's lines of a file only one side has rank as a diff's file headers") {
  std::string summary = "diff: 40 files changed, +400 −400 (exit 1)\n";
  for (int i = 0; i < 40; ++i) {
    absl::StrAppend(&summary, "diff -r a/m", i, ".py b/m", i, ".py\n");
    for (int k = 0; k < 6; ++k)
      absl::StrAppend(&summary, "> changed line ", k, " of the file ", i, "\n");
    // Among the files, where diff -r names it: not last (the last two lines rank first).
    if (i == 20) summary += "Only in b/asyncio: taskgroups.py\nOnly in b/asyncio: timeouts.py\n";
  }
  BudgetCut cut = FitToBudget(summary, 1000, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Contains(cut.summary, "\nOnly in b/asyncio: taskgroups.py\n"));
  CHECK(Contains(cut.summary, "\nOnly in b/asyncio: timeouts.py\n"));
  CHECK_FALSE(Contains(cut.summary, "> changed line 3 of the file 20"));
}

TEST_CASE("lines cut one at a time between lines kept are counted once, not each marked") {
  // A trace whose error lines alternate with other lines (strace: every `ENOENT` line after a
  // `newfstatat` one): the errors are kept, the lines between them cut.
  std::string summary = "strace: exit 0, 3,659 lines\n";
  for (int i = 0; i < 200; ++i) {
    absl::StrAppend(&summary, "newfstatat(3, \"\", {st_mode=S_IFREG|0644, st_size=", 1000 + i,
                    ", ...}, AT_EMPTY_PATH) = 0\n");
    absl::StrAppend(&summary, "openat(AT_FDCWD, \"/usr/lib/locale/C.UTF-8/LC_", i,
                    "\", O_RDONLY) = -1 ENOENT (No such file or directory)\n");
  }
  summary += "+++ exited with 0 +++\n";
  BudgetCut cut = FitToBudget(summary, 4000, 60, Counter());
  INFO(cut.summary);
  CHECK(Counter().Count(cut.summary) + 60 <= 4000);
  CHECK_FALSE(Contains(cut.summary, "… 1 line cut (budget)\n"));
  const std::string folded = " in gaps of 1 to 3 lines between the lines shown above\n";
  REQUIRE(Contains(cut.summary, folded));
  // Every line left out is counted: in a marker where it was, or in the one for small gaps.
  uint64_t counted = 0;
  for (std::string_view line : SplitLines(cut.summary)) {
    if (!line.starts_with("… ") || !Contains(std::string(line), " cut (budget)")) continue;
    counted += std::stoull(std::string(line.substr(4, line.find(' ', 4) - 4)));
  }
  CHECK(counted == cut.lines_left_out);
}

TEST_CASE("an error shown once ranks above a warning shown with a list of its places") {
  // A linter's summary: an error reported once, then 150 warnings the shaper grouped with lists
  // of their other places; the budget holds a fraction of the warnings.
  std::string summary = "pylint: FAILED — 1 error, 450 warnings (exit 2)\n";
  summary += "pkg/late.py:73:53: E0602: Undefined variable 'undefined_steps' in the function that "
             "loads every step definition of the project (undefined-variable)\n";
  for (int w = 0; w < 150; ++w) {
    absl::StrAppend(&summary, "pkg/m", w, ".py:3:1: W", 1000 + w, ": w\n… 2 more W", 1000 + w,
                    " at: pkg/m", w, ".py:9:1; pkg/m", w, ".py:12:1\n");
  }
  summary += "-----------------------------------\nYour code has been rated at 6.33/10\n";
  BudgetCut cut = FitToBudget(summary, 900, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Contains(cut.summary, "pkg/late.py:73:53: E0602: Undefined variable"));
}

TEST_CASE("commits of a history that do not fit are said to be commits") {
  std::string summary = "git log: 3000 commits\n";
  for (int i = 0; i < 3000; ++i) {
    absl::StrAppend(&summary, absl::StrFormat("%010x", 0x1000000 + i * 7919),
                    " Fix the parser for case ", i, " of the grammar\n");
  }
  BudgetCut cut = FitToBudget(summary, 2000, 60, Counter());
  INFO(cut.summary);
  CHECK(Counter().Count(cut.summary) + 60 <= 2000);
  CHECK(Contains(cut.summary, " commits did not fit\n"));
  CHECK_FALSE(Contains(cut.summary, "failures, errors or locations"));
}

TEST_CASE("a commit's subject is kept with its hash, and a graph's commits are commits") {
  // git log --stat: "commit <hash>", its header fields, the subject, the body, the stat.
  std::string summary = "git log: 300 commits\n";
  for (int i = 0; i < 300; ++i) {
    absl::StrAppend(&summary, "commit ", absl::StrFormat("%040x", 0x1000000 + i * 7919), "\n",
                    "Author: Dev <dev@example.com>\nDate:   Mon Dec 1 10:00:00 2026 +0000\n\n",
                    "    parser: handle case ", i, " of the grammar\n\n",
                    "    A longer explanation of the change, which is context and can go first.\n\n",
                    " src/parser.cc | 12 ++++++------\n 1 file changed, 6 insertions(+), 6 deletions(-)\n");
  }
  BudgetCut cut = FitToBudget(summary, 3000, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  const auto lines = SplitLines(cut.summary);
  size_t commits = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("commit ")) continue;
    ++commits;
    // The subject follows its hash, past the header fields the budget left out.
    size_t j = i + 1;
    while (j < lines.size() && (lines[j].starts_with("… ") || lines[j].starts_with("Author: ") ||
                                lines[j].starts_with("Date: ") || lines[j].empty())) {
      ++j;
    }
    REQUIRE(j < lines.size());
    CHECK_MESSAGE(lines[j].starts_with("    parser: handle case "), lines[i]);
  }
  CHECK(commits > 20);
  CHECK_FALSE(Contains(cut.summary, "A longer explanation"));

  // --graph: "* | <hash> subject", the newest first; the graph's own lines are context.
  std::string graph = "git log: 600 commits\n";
  for (int i = 0; i < 600; ++i) {
    absl::StrAppend(&graph, i % 5 == 0 ? "|\\ \n" : "", "* | ", absl::StrFormat("%07x", 0x100000 + i * 7919),
                    i == 0 ? " (HEAD -> main, tag: v2.0.0)" : "", " parser: handle case ", i, " of the grammar\n");
  }
  BudgetCut g = FitToBudget(graph, 2000, 60, Counter());
  INFO(g.summary);
  REQUIRE(g.cut);
  CHECK(Contains(g.summary, "(HEAD -> main, tag: v2.0.0) parser: handle case 0 of the grammar\n"));
  CHECK(Contains(g.summary, " commits did not fit\n"));
}

TEST_CASE("a list of locations keeps the problem it is like, and a tally by code is kept") {
  // Conventions (locations, not errors), each group's first with its source and caret lines,
  // then the list of the others: the list's problem ranks with the list.
  std::string summary = "rubocop: FAILED — 400 conventions in 40 files (exit 1)\n";
  absl::StrAppend(&summary, "… 400 problems by code:");
  for (int g = 0; g < 40; ++g) absl::StrAppend(&summary, g > 0 ? "," : "", " Style/Cop", g, " 10");
  absl::StrAppend(&summary, "\n");
  for (int g = 0; g < 40; ++g) {
    absl::StrAppend(&summary, "lib/f", g, ".rb:", g + 1, ":3: C: Style/Cop", g,
                    ": Prefer the other form of this construct here.\n");
    absl::StrAppend(&summary, "  source line of the offense in this file ", g, "\n");
    absl::StrAppend(&summary, "  ^^^^^^^^^^\n");
    absl::StrAppend(&summary, "… 9 more Style/Cop", g, " at:");
    for (int k = 0; k < 9; ++k) absl::StrAppend(&summary, k > 0 ? ";" : "", " lib/g", k, ".rb:", g, ":5");
    absl::StrAppend(&summary, "\n");
  }
  BudgetCut cut = FitToBudget(summary, 1500, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Contains(cut.summary, "… 400 problems by code: Style/Cop0 10,"));
  // No list is shown without its problem above it.
  const auto lines = SplitLines(cut.summary);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("… 9 more Style/Cop")) continue;
    const size_t more = lines[i].find("more ") + 5;
    const std::string cop(lines[i].substr(more, lines[i].find(" at:") - more));
    bool above = false;
    for (size_t j = i; j-- > 0 && j + 4 > i;) above = above || Contains(lines[j], " C: " + cop + ":");
    CHECK_MESSAGE(above, lines[i]);
  }
}

TEST_CASE("commits that do not fit are counted once each, and not when a line of theirs is kept") {
  // git blame: a line per source line, led by its commit's hash; 4 commits, 3,000 lines.
  std::string summary = "git: exit 0, 3,000 lines\n";
  const char* hashes[] = {"1a2b3c4d", "5e6f7a8b", "9c0d1e2f", "3a4b5c6d"};
  for (int i = 0; i < 3000; ++i) {
    absl::StrAppend(&summary, hashes[i < 2990 ? i % 3 : 3], " (Dev 2026-01-0", 1 + i % 3, " ", i + 1,
                    ") int value_", i, " = compute(", i, ");\n");
  }
  BudgetCut cut = FitToBudget(summary, 2000, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  // Lines of each commit are kept; the fourth commit's 10 lines come last and are cut, or kept.
  const bool fourth_kept = Contains(cut.summary, "\n3a4b5c6d (");
  CHECK(Contains(cut.summary, "\n1a2b3c4d ("));
  CHECK(Contains(cut.summary, fourth_kept ? "" : "\n… 1 commit did not fit\n"));
  CHECK_FALSE(Contains(cut.summary, " commits did not fit"));
}

TEST_CASE("identifiers that do not fit are counted by file") {
  std::string summary = "tsc: FAILED — 3000 errors (exit 2)\n";
  for (int i = 0; i < 3000; ++i) {
    absl::StrAppend(&summary, "src/file", i % 3, ".ts(", i, ",5): error TS2339: Property 'p", i,
                    "' does not exist on type 'T'.\n");
  }
  BudgetCut cut = FitToBudget(summary, 2000, 60, Counter());
  INFO(cut.summary);
  CHECK(Counter().Count(cut.summary) + 60 <= 2000);
  CHECK(Contains(cut.summary, "src/file0.ts(0,5): error TS2339"));
  CHECK(Contains(cut.summary, " failures, errors or locations did not fit: src/file"));
  CHECK(Contains(cut.summary, "src/file0.ts "));
  CHECK(Contains(cut.summary, "src/file2.ts "));
}

TEST_CASE("a test's id that does not fit is counted by its file, after the verdict before it") {
  std::string summary = "pytest: FAILED — 400 failed (exit 1)\n";
  for (int i = 0; i < 400; ++i) {
    absl::StrAppend(&summary, "FAILED tests/test_h", i / 100, ".py::test_record[", i,
                    "] - AssertionError: assert {'id': ", i, "} == {'id': ", i + 1, "}\n");
  }
  BudgetCut cut = FitToBudget(summary, 2000, 60, Counter());
  INFO(cut.summary);
  CHECK(Contains(cut.summary, "FAILED tests/test_h0.py::test_record[0] - "));
  CHECK(Contains(cut.summary, " did not fit: tests/test_h1.py 100, tests/test_h2.py 100, "));
  CHECK_FALSE(Contains(cut.summary, "naming no file"));
}

TEST_CASE("a failure's heading outranks its evidence: jest's, a numbered one, a rerun command") {
  // 150 failures, each a heading and evidence that reads like an error: the evidence must not
  // take the place of the headings, which name the tests.
  using Heading = std::string (*)(int);
  const Heading headings[] = {
      [](int i) { return absl::StrCat("  ● billing ", i, " › invoice totals"); },
      [](int i) { return absl::StrCat("  ", i + 1, ") Cart adds up item ", i); },
      [](int i) { return absl::StrCat("rspec ./spec/w", i, "_spec.rb:2 # Widget renders ", i); },
  };
  for (Heading heading : headings) {
    std::string summary = "runner: FAILED — 150 failed (exit 1)\n";
    for (int i = 0; i < 150; ++i) {
      absl::StrAppend(&summary, heading(i), "\n", "     Failure/Error: expect(total(", i,
                      ")).to eq(", i + 1, ")\n", "       expected: ", i + 1, " got: ", i,
                      " in the invoice's lines\n");
    }
    BudgetCut cut = FitToBudget(summary, 3000, 60, Counter());
    INFO(cut.summary);
    for (int i = 0; i < 150; ++i) CHECK(Contains(cut.summary, absl::StrCat(heading(i), "\n")));
  }
}

TEST_CASE("a small budget keeps the first line whole and holds, the files it names cut first") {
  // Errors in 300 files of long paths: the count of what did not fit, naming 8 files, alone
  // was over a budget of 300. Before, the limit was lowered until it was 0, the first line cut
  // to nothing (" … (73 more bytes of this line)"), and the budget still not held.
  const std::string header =
      "eslint: FAILED — 2,400 problems (1,500 errors, 900 warnings) in 300 files (exit 1)";
  std::string summary = header + "\n";
  for (int i = 0; i < 300; ++i) {
    absl::StrAppend(&summary, "/tmp/plugline-fixtures/eslint/large/src/feature", i / 10, "/module",
                    i, ".js: line ", i + 1, ", col 5, Error - Unexpected var. (no-var)\n");
  }
  absl::StrAppend(&summary, "2400 problems\n");
  for (const uint64_t budget : {200, 300, 600}) {
    BudgetCut cut = FitToBudget(summary, budget, 40, Counter());
    INFO(budget, "\n", cut.summary);
    CHECK(Counter().Count(cut.summary) + 40 <= budget);
    CHECK(cut.summary.starts_with(header + "\n"));
    CHECK(Contains(cut.summary, " failures, errors or locations did not fit: "));
  }
}

TEST_CASE(
    "lists of locations: every list's first line, then continuations spread, entries counted") {
  // Three groups of 60: the first in full, then the others' locations, 12 a line.
  std::string summary = "tsc: FAILED — 180 errors in 3 files (exit 2)\n";
  for (int g = 0; g < 3; ++g) {
    absl::StrAppend(&summary, "src/g", g, ".ts(1,1): error TS", g, ": Cannot find name 'x'.\n");
    for (int line = 0; line < 5; ++line) {
      absl::StrAppend(
          &summary, "… ",
          line == 0 ? absl::StrCat("59 more TS", g, " at: ") : absl::StrCat("TS", g, " also at: "));
      for (int k = 0; k < 12 && line * 12 + k < 59; ++k) {
        absl::StrAppend(&summary, k == 0 ? "" : "; ", "src/g", g, ".ts(", line * 12 + k + 2, ",1)");
      }
      summary += "\n";
    }
    summary += "context line that ranks last of all, with some words\n";
  }
  const uint64_t full = Counter().Count(summary);
  // Room for about three quarters of the lists.
  const uint64_t budget = full * 3 / 4 + 60;
  BudgetCut cut = FitToBudget(summary, budget, 60, Counter());
  INFO(cut.summary);
  CHECK(Counter().Count(cut.summary) + 60 <= budget);
  for (int g = 0; g < 3; ++g) {
    // Every group's first line of locations, and its first and last continuations.
    CHECK(Contains(cut.summary, absl::StrCat("… 59 more TS", g, " at: src/g", g, ".ts(2,1); ")));
    CHECK(Contains(cut.summary, absl::StrCat("… TS", g, " also at: src/g", g, ".ts(14,1); ")));
    CHECK(Contains(cut.summary, absl::StrCat("… TS", g, " also at: src/g", g, ".ts(50,1); ")));
  }
  // Entries cut are counted one by one, by file (not as lines, not as notes).
  const size_t said = cut.summary.find(" failures, errors or locations did not fit: src/g");
  REQUIRE(said != std::string::npos);
  const size_t begin = cut.summary.rfind("… ", said) + std::string_view("… ").size();
  const uint64_t listed_cut = std::stoull(cut.summary.substr(begin, said - begin));
  CHECK(listed_cut % 12 == 0);  // middle lines, 12 entries each (the last lines hold 11)
  CHECK(listed_cut >= 12);
  CHECK(!Contains(cut.summary, "notes of what the shaper had left out"));
}

TEST_CASE(
    "locations of warnings and lists' continuations are taken in rounds, not a file's fifth last") {
  // A linter that prints no severity: its problems are locations that report no error. One file
  // with a message of 400 problems (its list of locations, 12 a line), then a small file with 8
  // problems of 8 messages, each shown once.
  std::string summary = "standard: FAILED — 408 problems in 2 files (exit 1)\n";
  summary += "  /w/lib/big.js:1:5: Extra semicolon. (semi)\n";
  for (int line = 0; line < 34; ++line) {
    summary += line == 0 ? "… 399 more semi at: " : "… semi also at: ";
    for (int k = 0; k < 12 && line * 12 + k < 399; ++k) {
      absl::StrAppend(&summary, k == 0 ? "" : "; ", "/w/lib/big.js:", line * 12 + k + 2, ":5");
    }
    summary += "\n";
  }
  for (int p = 1; p <= 8; ++p) {
    absl::StrAppend(&summary, "  /w/src/small.js:", p * 10, ":1: Problem number ", p,
                    " of its own kind. (rule-", p, ")\n");
  }
  const uint64_t full = Counter().Count(summary);
  const uint64_t budget = full / 2 + 60;
  BudgetCut cut = FitToBudget(summary, budget, 60, Counter());
  INFO(cut.summary);
  CHECK(Counter().Count(cut.summary) + 60 <= budget);
  // Every problem of the small file: its eighth is taken in the eighth round, before the long
  // list's inner lines; the list keeps its first line and its ends.
  for (int p = 1; p <= 8; ++p) {
    CHECK(Contains(cut.summary, absl::StrCat("  /w/src/small.js:", p * 10, ":1: Problem number ")));
  }
  CHECK(Contains(cut.summary, "… 399 more semi at: /w/lib/big.js:2:5; "));
  CHECK(Contains(cut.summary, "… semi also at: /w/lib/big.js:14:5; "));
  CHECK(Contains(cut.summary, "… semi also at: /w/lib/big.js:398:5; "));
  CHECK(Contains(cut.summary, " lines cut (budget)"));
}

TEST_CASE("identifiers are kept from both ends in, and a list of positions counts by its file") {
  // Positions as "1:2" and as "line 1, col 2" (ESLint's compact format).
  for (const bool compact : {false, true}) {
    CAPTURE(compact);
    auto at = [&](int line) {
      return compact ? absl::StrCat("line ", line, ", col 2") : absl::StrCat(line, ":2");
    };
    std::string summary = "eslint: FAILED — 900 problems (exit 1)\n";
    for (int f = 0; f < 150; ++f) {
      absl::StrAppend(&summary, "… 6 more in /w/src/m", f, ".js at: ", at(1), " no-undef 'a", f,
                      "'; ", at(2), " eqeqeq; ", at(3), " no-undef 'b", f, "'; ", at(4),
                      " eqeqeq; ", at(5), " curly; ", at(6), " curly\n");
    }
    summary += "✖ 900 problems (900 errors, 0 warnings)\n";
    BudgetCut cut = FitToBudget(summary, 1500, 60, Counter());
    INFO(cut.summary);
    CHECK(Counter().Count(cut.summary) + 60 <= 1500);
    // The first files and the last ones, and the tool's last line.
    CHECK(Contains(cut.summary, "… 6 more in /w/src/m0.js at: "));
    CHECK(Contains(cut.summary, "… 6 more in /w/src/m1.js at: "));
    CHECK(Contains(cut.summary, "… 6 more in /w/src/m149.js at: "));
    CHECK(Contains(cut.summary, "… 6 more in /w/src/m148.js at: "));
    CHECK(!Contains(cut.summary, "… 6 more in /w/src/m75.js at: "));
    CHECK(Contains(cut.summary, "✖ 900 problems (900 errors, 0 warnings)"));
    // Six positions a file, counted under the file the list names.
    CHECK(Contains(cut.summary, " failures, errors or locations did not fit: /w/src/m"));
    CHECK(Contains(cut.summary, ".js 6, /w/src/m"));
  }
}

TEST_CASE("a row under a file's path line ranks as a location, and keeps its path line") {
  // ESLint's stylish rows name no file: the path line above them does. Lists fill the budget.
  std::string summary = "eslint: FAILED — 902 problems (exit 1)\n";
  for (int f = 0; f < 150; ++f) {
    if (f == 3) {
      // Long messages: they do not fit in what the lists leave over.
      std::string message = "Unexpected thing";
      for (int w = 0; w < 60; ++w) absl::StrAppend(&message, " word", w);
      absl::StrAppend(&summary, "/w/src/a.js\n  3:5  error  ", message, "  no-undef\n",
                      "/w/src/b.js: line 4, col 2, Error - ", message, " (no-var)\n");
    }
    absl::StrAppend(&summary, "… 6 more in /w/src/m", f, ".js at: 1:2 no-undef 'a", f,
                    "'; 2:2 eqeqeq; 3:2 no-undef 'b", f, "'; 4:2 eqeqeq; 5:2 curly; 6:2 curly\n");
  }
  summary += "✖ 902 problems (902 errors, 0 warnings)\n";
  BudgetCut cut = FitToBudget(summary, 1500, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Contains(cut.summary, "\n/w/src/a.js\n  3:5  error  Unexpected thing word0 "));
  CHECK(Contains(cut.summary, "\n/w/src/b.js: line 4, col 2, Error - Unexpected thing word0 "));
}

TEST_CASE("a code with its severity in brackets is an identifier, its location after it kept") {
  // deno check's diagnostics: "TS7009 [ERROR]: message", where it is on the line under it
  // ("    at file:///w/src/a.ts:35:12"). Long lists of locations fill the budget: each group's
  // first diagnostic keeps its location before the lists' continuations.
  std::string summary = "deno check: FAILED — 4,000 errors in 2 files (exit 1)\n";
  for (int g = 0; g < 4; ++g) {
    absl::StrAppend(&summary, "TS700", g, " [ERROR]: Parameter 'p", g,
                    "' implicitly has an 'any' type.\n", "    at file:///w/src/g", g,
                    ".ts:", 10 + g, ":3\n", "… 999 more TS700", g,
                    ", names differing, at: /w/src/b.ts:1:1 'a'; /w/src/b.ts:2:1 'b'\n");
    for (int c = 0; c < 80; ++c) {
      absl::StrAppend(&summary, "… TS700", g, " also at: /w/src/b.ts:", 3 + c,
                      ":1 'c'; /w/src/b.ts:", 100 + c, ":1 'd'; /w/src/b.ts:", 200 + c, ":1 'e'\n");
    }
  }
  summary += "Found 4000 errors.\n";
  BudgetCut cut = FitToBudget(summary, 1500, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  for (int g = 0; g < 4; ++g) {
    CHECK(Contains(cut.summary, absl::StrCat("TS700", g, " [ERROR]: Parameter 'p", g, "'")));
    CHECK(Contains(cut.summary, absl::StrCat("    at file:///w/src/g", g, ".ts:", 10 + g, ":3\n")));
  }
}

TEST_CASE("a shaper's short notes between the lines kept stay only while the budget has room") {
  // A search's summary: each file's first match (a location), then a short note of the rest.
  std::string summary = "grep: 3,000 matches in 300 files\n";
  for (int f = 0; f < 300; ++f) {
    absl::StrAppend(&summary, "src/module_", f, "/file_", f, ".c:", f + 10, ":  total += value_", f, ";\n");
    absl::StrAppend(&summary, "… 9 more matches in this file omitted\n");
  }
  absl::StrAppend(&summary, "done");
  uint64_t locations_tokens = 0;
  for (std::string_view line : SplitLines(summary)) {
    if (!line.starts_with("… ")) locations_tokens += Counter().Count(line) + 1;
  }
  // Room for every location and some of the notes, not all.
  const uint64_t budget = locations_tokens + 60 + 120 + 200;
  BudgetCut cut = FitToBudget(summary, budget, 60, Counter());
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Counter().Count(cut.summary) + 60 <= budget);
  // No location is left out for a note to stay.
  for (int f = 0; f < 300; ++f) {
    CHECK_MESSAGE(Contains(cut.summary, absl::StrCat("src/module_", f, "/file_", f, ".c:", f + 10, ":")), f);
  }
  CHECK(Contains(cut.summary, "… 9 more matches in this file omitted\n"));
  CHECK(Contains(cut.summary, " notes of what the shaper had left out"));
}

TEST_CASE("a summary's few notes stay where they are, and a gap with one is marked in place") {
  // A head and a tail of plain lines around the shaper's note of the middle, too long for the
  // budget: the note still says where the 171 lines were.
  std::string summary = "log: 300 lines\n";
  for (int i = 0; i < 60; ++i)
    absl::StrAppend(&summary, "head line ", i, " of some plain words here\n");
  // The lines beside the note are errors, kept before the others.
  absl::StrAppend(&summary, "src/a.c:12:3: error: expected ';'\n");
  absl::StrAppend(&summary, "… 171 lines omitted (lines 61–231 of 300)\n");
  absl::StrAppend(&summary, "src/b.c:9:1: error: unknown type name 'sizet'\n");
  for (int i = 0; i < 60; ++i)
    absl::StrAppend(&summary, "tail line ", i, " of some plain words here\n");
  for (uint64_t budget : {uint64_t{700}, uint64_t{900}, uint64_t{1100}}) {
    CAPTURE(budget);
    BudgetCut cut = FitToBudget(summary, budget, 60, Counter());
    INFO(cut.summary);
    REQUIRE(cut.cut);
    CHECK(Counter().Count(cut.summary) + 60 <= budget);
    const std::vector<std::string_view> lines = SplitLines(cut.summary);
    // Between the two errors: the note, or a marker of ours that counts it with the lines cut
    // beside it; never nothing.
    size_t last_head = 0, first_tail = lines.size();
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].starts_with("src/a.c:12:3: ")) last_head = i;
      if (lines[i].starts_with("src/b.c:9:1: ")) first_tail = i;
    }
    REQUIRE(last_head > 0);
    REQUIRE(first_tail < lines.size());
    REQUIRE(first_tail > last_head + 1);
    bool said = false;
    for (size_t i = last_head + 1; i < first_tail; ++i) {
      said = said || lines[i] == "… 171 lines omitted (lines 61–231 of 300)" ||
             lines[i].ends_with(" lines cut (budget)");
    }
    CHECK(said);
  }
}

TEST_CASE("a run's words come with the line they stand in for, or not at all") {
  // builtin/common.h WriteOneWordApart: the run's first line, its first line of words (long),
  // then shorter lines of more words.
  std::string summary = "chown: FAILED (exit 1), 354 lines\n";
  absl::StrAppend(&summary, "chown: changing ownership of 'absl/a.h': Operation not permitted\n");
  absl::StrAppend(&summary, "… 80 more lines like the one above but for: ");
  for (int i = 0; i < 60; ++i)
    absl::StrAppend(&summary, i > 0 ? ", " : "", "'absl/internal/file_", i, ".h'");
  absl::StrAppend(&summary, "\n");
  for (int k = 0; k < 3; ++k)
    absl::StrAppend(&summary, "… more of such lines: 'absl/x", k, ".h', 'absl/y", k, ".h'\n");
  absl::StrAppend(&summary, "done\n");
  const uint64_t first_words = Counter().Count(SplitLines(summary)[2]);
  // Room for the short lines of words, not for the first one.
  for (uint64_t budget : {uint64_t{60 + 120 + 120}, 60 + 120 + first_words / 2}) {
    CAPTURE(budget);
    BudgetCut cut = FitToBudget(summary, budget, 60, Counter());
    INFO(cut.summary);
    REQUIRE(cut.cut);
    CHECK(Contains(cut.summary,
                   "chown: changing ownership of 'absl/a.h': Operation not permitted\n"));
    CHECK_FALSE(Contains(cut.summary, "more of such lines"));
    CHECK_FALSE(Contains(cut.summary, "like the one above"));
  }
  // With room for the first: the others follow it.
  BudgetCut roomy = FitToBudget(summary, 60 + 120 + first_words + 100, 60, Counter());
  INFO(roomy.summary);
  CHECK(Contains(roomy.summary,
                 "… 80 more lines like the one above but for: 'absl/internal/file_0.h'"));
  CHECK(Contains(roomy.summary, "… more of such lines: 'absl/x0.h'"));
}

TEST_CASE("a first line longer than the budget is cut at a character boundary, and says so") {
  std::string summary;
  for (int i = 0; i < 5000; ++i) absl::StrAppend(&summary, "wörd", i, " ");
  summary += "\nsecond line";
  BudgetCut cut = FitToBudget(summary, 500, 60, Counter());
  CHECK(Counter().Count(cut.summary) + 60 <= 500);
  CHECK(IsValidUtf8(cut.summary));
  CHECK(Contains(cut.summary, " more bytes of this line)"));
}

}  // namespace
}  // namespace plugline::core

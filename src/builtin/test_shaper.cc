// builtin-test: test runners (pytest, unittest, jest, vitest, mocha, node --test and any TAP
// producer, RSpec, Minitest, PHPUnit, cargo test, go test, ctest, GoogleTest, Catch2, prove).
//
// Failures stay verbose: each failing test's block is kept (its name, assertion with values,
// file:line, the stack frames in the user's code); library stack frames and very long blocks
// are trimmed with counted markers. Passing tests are counted, not listed. A run that passed
// collapses to one line with the runner's own counts and time. When the output has no test
// results the shaper says nothing about tests and keeps the head, the tail and the error lines.
#include <algorithm>
#include <cctype>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "builtin/test_report.h"
#include "core/json.h"
#include "core/shaping_pipeline.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

// Failures shown with their whole (trimmed) block; the rest show their key lines only.
constexpr size_t kFullFailures = 30;
constexpr size_t kMaxBlockLines = 40;
constexpr size_t kCompactKeyLines = 3;
// Values a case of an assertion shown before gives on its line (WriteCase).
constexpr size_t kCaseValues = 3;
constexpr size_t kMaxProblemLines = 200;

// A stack frame or traceback location inside a library, the runtime or the test runner:
// not the user's code.
bool IsLibraryFrame(std::string_view line) {
  std::string_view t = Trim(line);
  // A JVM trace's "... 33 more": the frames a cause shares with the trace above it.
  if (t.starts_with("... ") && t.ends_with(" more")) return true;
  // "at f (x.js:1:2)", "File \"x.py\", line 3", "f (x.js:1:2)" (TAP stacks), "❯ x.ts:1:2",
  // Go's "\t/usr/lib/go/src/x.go:12 +0x1d", Rust's "at /rustc/.../x.rs:5".
  bool frame = t.starts_with("at ") || t.starts_with("File \"") || t.starts_with("❯ ") ||
               (t.find(".go:") != std::string_view::npos && line.starts_with("\t")) ||
               t.starts_with("/") || t.starts_with("node:") ||
               t.find(": 0x") != std::string_view::npos ||
               (t.ends_with(")") && t.find(" (") != std::string_view::npos);
  // A sanitizer's or gdb's frame in the C library's start-up code or a system library.
  if (IsSystemNativeFrame(line)) return true;
  // Elixir's and Erlang's own applications: "(elixir 1.14.0) lib/kernel.ex:2336: Kernel.struct!/2".
  for (std::string_view app : {"(elixir ", "(ex_unit ", "(stdlib ", "(kernel ", "(mix ", "(iex ",
                               "(logger ", "(erts "}) {
    if (t.starts_with(app)) return true;
  }
  return frame && (InLibraryPath(t) || IsPlatformFrame(t));
}

// Lines that carry the substance of a failure: the assertion, the error, the location.
bool IsKeyLine(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.starts_with("E ") || t.starts_with(">")) return true;
  static constexpr std::string_view kWords[] = {"Error", "error", "assert", "Assert", "expected",
                                                "Expected", "received", "Received", "panicked",
                                                "Failure", "FAIL", "want", "got", "left", "right",
                                                "Actual", "actual",
                                                "Which is", "Exception"};
  for (std::string_view w : kWords) {
    if (t.find(w) != std::string_view::npos) return true;
  }
  return false;
}

bool IsLocationLine(std::string_view line) {
  // "path/file.ext:12" with a digit after the colon, outside libraries.
  for (size_t i = line.find(':'); i != std::string_view::npos && i + 1 < line.size();
       i = line.find(':', i + 1)) {
    if (line[i + 1] >= '0' && line[i + 1] <= '9' && i > 0 &&
        line.substr(0, i).find('.') != std::string_view::npos) {
      return !IsLibraryFrame(line);
    }
  }
  return line.find("line ") != std::string_view::npos && Trim(line).starts_with("File \"") &&
         !IsLibraryFrame(line);
}

// Leading spaces and tabs.
size_t Indent(std::string_view line) {
  const size_t text = line.find_first_not_of(" \t");
  return text == std::string_view::npos ? line.size() : text;
}

// A code frame line: "  16 |   code", ">  8 |   code" (jest, babel), "     23|   code" (vitest).
bool IsCodeFrameLine(std::string_view line) {
  std::string_view t = Trim(line);
  if (!t.empty() && t[0] == '>') t = Trim(t.substr(1));
  size_t i = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  if (i == 0) return false;
  while (i < t.size() && t[i] == ' ') ++i;
  return i < t.size() && t[i] == '|';
}

// The caret line under a code frame: "     |          ^".
bool IsCaretLine(std::string_view line) {
  std::string_view t = Trim(line);
  return t.starts_with("|") && t.find('^') != std::string_view::npos &&
         t.find_first_not_of("|^~ ") == std::string_view::npos;
}

// pytest's frame separator "_ _ _ _ ..." and its location lines "path.py:13: in f".
bool IsPytestFrameSeparator(std::string_view line) {
  return line.size() >= 7 && line.starts_with("_ _ ") &&
         line.find_first_not_of("_ ") == std::string_view::npos;
}
bool IsPytestLocation(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '>' || line.starts_with("E ")) return false;
  size_t colon = line.find(".py:");
  if (colon == std::string_view::npos) return false;
  size_t i = colon + 4;
  return i < line.size() && line[i] >= '0' && line[i] <= '9';
}

// Lines left out of a failure's block, up to this many, get no marker of their own.
constexpr uint64_t kMaxUnmarkedLines = 2;

struct BlockLines {
  std::vector<std::string_view> kept;
  uint64_t library = 0;  // lines of stack frames in libraries
  uint64_t context = 0;  // source lines around the failing one
  uint64_t framing = 0;  // a test binary's own banners, run under another runner
  uint64_t shadow_map = 0;  // a sanitizer's shadow memory map and its legend (ShadowMapLines)
  // Carets under a line ("    ^^^^"): counted with the summary's other lines, as a marker of
  // their own would cost more than they do.
  uint64_t marks = 0;
  uint64_t explanations = 0;  // pytest's nested explanations of a value (IsNestedExplanation)
  // Unchanged lines of a diff far from its changes, left out before kept[at]: (at, count).
  std::vector<std::pair<size_t, uint64_t>> diff_gaps;
  // Sibling subtests that failed alike (FoldAlikeSubtests): the lists of the others, written
  // before kept[at]: (at, the group's first subtest).
  std::optional<DiagnosticGroups> subtests;
  std::vector<std::pair<size_t, size_t>> subtest_lists;
};

// pytest's diff of two values ("E         - \"User 71\"", "E         + \"User 17\"", "E       ?
// +", and the unchanged lines between them, "E               \"User 16\","): of the unchanged
// lines, those within kDiffContext lines of a change are kept, the others left out where they
// were (BlockLines::diff_gaps). The diff's column is where its "- ", "+ " and "? " marks stand.
constexpr size_t kDiffContext = 2;
void TrimDiffContext(BlockLines& block) {
  std::vector<std::string_view>& kept = block.kept;
  // The column of a change mark after the "E" ("- ", "+ ", "? ", or a "?" that ends the
  // line), or npos.
  auto mark_at = [](std::string_view line) -> size_t {
    const size_t c = line.starts_with("E ") ? line.find_first_not_of(' ', 1) : std::string_view::npos;
    if (c == std::string_view::npos) return c;
    const bool last = c + 1 == line.size();
    const bool marked = (line[c] == '?' && last) ||
                        ((line[c] == '-' || line[c] == '+' || line[c] == '?') && !last &&
                         line[c + 1] == ' ');
    return marked ? c : std::string_view::npos;
  };
  std::vector<std::string_view> out;
  std::vector<std::pair<size_t, uint64_t>> gaps;
  for (size_t i = 0; i < kept.size();) {
    if (!kept[i].starts_with("E ")) {
      out.push_back(kept[i++]);
      continue;
    }
    size_t end = i;
    while (end < kept.size() && kept[end].starts_with("E ")) ++end;
    // The diff's column: that of its first change mark.
    size_t column = std::string_view::npos;
    for (size_t k = i; k < end && column == std::string_view::npos; ++k) column = mark_at(kept[k]);
    std::vector<bool> changed(end - i, false), unchanged(end - i, false);
    size_t unchanged_lines = 0;
    for (size_t k = i; column != std::string_view::npos && k < end; ++k) {
      const std::string_view line = kept[k];
      if (mark_at(line) == column) {
        changed[k - i] = true;
      } else if (line.size() > column + 2 && line.find_first_not_of(' ', 1) > column + 1) {
        unchanged[k - i] = true;
        ++unchanged_lines;
      }
    }
    std::vector<bool> keep(end - i, true);
    if (unchanged_lines > 4 * kDiffContext + 2) {
      for (size_t k = 0; k < keep.size(); ++k) {
        if (!unchanged[k]) continue;
        bool near = false;
        for (size_t d = 1; d <= kDiffContext && !near; ++d) {
          near = (k >= d && changed[k - d]) || (k + d < keep.size() && changed[k + d]);
        }
        keep[k] = near;
      }
      // A gap of one line costs what its marker would.
      for (size_t k = 0; k < keep.size(); ++k) {
        if (!keep[k] && (k == 0 || keep[k - 1]) && (k + 1 == keep.size() || keep[k + 1])) {
          keep[k] = true;
        }
      }
    }
    uint64_t gap = 0;
    for (size_t k = i; k < end; ++k) {
      if (keep[k - i]) {
        if (gap > 0) gaps.emplace_back(out.size(), gap);
        gap = 0;
        out.push_back(kept[k]);
      } else {
        ++gap;
      }
    }
    if (gap > 0) gaps.emplace_back(out.size(), gap);
    i = end;
  }
  kept = std::move(out);
  block.diff_gaps = std::move(gaps);
}

// pytest: per frame keep the failing source line (">"), the error lines ("E"), the location
// and captured-output headers; a frame in a library keeps only its "E" lines and location.
// pytest's explanation of a value that is its own expression: "E        +    where
// Decimal('100') = Decimal('100')", "E        +  and   5 = 5".
// pytest's explanation of where a value in the assertion came from: "E   +  where 3 = len('xxx')".
bool ExplainsValue(std::string_view line) {
  if (!line.starts_with("E ")) return false;
  std::string_view t = Trim(line.substr(1));
  if (!t.starts_with("+")) return false;
  t = Trim(t.substr(1));
  return t.starts_with("where ") || t.starts_with("and ");
}

// An explanation of a part of an explained value, nested under it (pytest indents each level
// two spaces more): "E        +    where Money(1.0, 'EUR') = <bound method Money.round of …>()".
// The first level says where the assertion's values came from; the deeper ones go on into
// the test's own expressions.
bool IsNestedExplanation(std::string_view line) {
  if (!ExplainsValue(line)) return false;
  std::string_view t = Trim(line.substr(1));
  const size_t word = t.find_first_not_of(' ', 1);
  return word != std::string_view::npos && word >= 5;  // "+" and four spaces, or more
}

bool IsIdentityExplanation(std::string_view line) {
  if (!line.starts_with("E ")) return false;
  std::string_view t = Trim(line.substr(1));
  if (!t.starts_with("+")) return false;
  t = Trim(t.substr(1));
  if (t.starts_with("where ")) {
    t = Trim(t.substr(6));
  } else if (t.starts_with("and ")) {
    t = Trim(t.substr(4));
  } else {
    return false;
  }
  const size_t eq = t.find(" = ");
  return eq != std::string_view::npos && eq > 0 && t.substr(0, eq) == t.substr(eq + 3);
}

// A line of the docstring pytest quotes above a failed doctest example: "029     >>> split(100,
// 3)", its line number first.
bool IsDoctestSourceLine(std::string_view line) {
  size_t digits = 0;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  return digits >= 3 && (digits == line.size() || line[digits] == ' ');
}

// pytest's block for a failed doctest ("[doctest] ledger.amounts.split"): the docstring's lines
// up to the failing example, which is the last of them; then what doctest reports of it
// ("Expected:" and "Got:" with the values, a diff, or "UNEXPECTED EXCEPTION:" and the
// traceback) and the location. With --doctest-continue-on-failure the pattern repeats.
BlockLines SelectPytestDoctest(const std::vector<std::string_view>& detail) {
  BlockLines out;
  out.kept.push_back(detail.front());
  for (size_t i = 1; i < detail.size(); ++i) {
    const std::string_view line = detail[i];
    if (IsDoctestSourceLine(line)) {
      const bool failing = i + 1 < detail.size() && !IsDoctestSourceLine(detail[i + 1]);
      if (failing) {
        out.kept.push_back(line);
      } else {
        ++out.context;
      }
      continue;
    }
    if (IsLibraryFrame(line)) {
      ++out.library;
      if (Trim(line).starts_with("File \"") && i + 1 < detail.size() &&
          !Trim(detail[i + 1]).starts_with("File \"") && !IsBlank(detail[i + 1]) &&
          Indent(detail[i + 1]) > Indent(line)) {
        ++i;
        ++out.library;
      }
      continue;
    }
    if (IsCaretLine(line) || IsCaretsOnly(line) || IsBlank(line)) {
      ++out.marks;
      continue;
    }
    out.kept.push_back(line);
  }
  return out;
}

BlockLines SelectGeneric(const std::vector<std::string_view>& detail);

BlockLines SelectPytest(const std::vector<std::string_view>& detail) {
  if (detail.front().find(" [doctest] ") != std::string_view::npos) {
    return SelectPytestDoctest(detail);
  }
  // --tb=native: Python's own traceback ("Traceback (most recent call last):", "  File …"
  // lines, the exception last), no ">" or "E" lines of pytest's; or a crash's dump of the
  // threads' stacks ("Fatal Python error: Segmentation fault", "  File …, line 6 in test_x").
  if (detail.front().find("Fatal Python error: ") != std::string_view::npos) return SelectGeneric(detail);
  if (std::any_of(detail.begin() + 1, detail.end(), [](std::string_view line) {
        return line == "Traceback (most recent call last):";
      }) &&
      std::none_of(detail.begin() + 1, detail.end(), [](std::string_view line) {
        return line.starts_with("E ") || line.starts_with("> ");
      })) {
    return SelectGeneric(detail);
  }
  BlockLines out;
  out.kept.push_back(detail.front());
  // Where the exception was finally raised: the block's last location line, kept even when
  // it is in a library; other library locations go.
  size_t last_location = 0;
  for (size_t i = 1; i < detail.size(); ++i) {
    if (IsPytestLocation(detail[i])) last_location = i;
  }
  size_t start = 1;
  while (start < detail.size()) {
    size_t end = start;
    while (end < detail.size() && !IsPytestFrameSeparator(detail[end])) ++end;
    bool library = false;
    for (size_t i = start; i < end; ++i) {
      if (IsPytestLocation(detail[i]) && IsLibraryFrame(StrCat("File \"", detail[i]))) {
        library = true;
      }
    }
    bool captured = false;
    size_t captured_lines = 0;
    for (size_t i = start; i < end; ++i) {
      std::string_view line = detail[i];
      if (line.starts_with("----") || line.starts_with("- Captured") ||
          (line.starts_with("---") && line.find("Captured") != std::string_view::npos)) {
        captured = true;
        captured_lines = 0;
        out.kept.push_back(line);
        continue;
      }
      if (captured) {
        if (captured_lines++ < 10) {
          out.kept.push_back(line);
        } else {
          ++out.context;
        }
        continue;
      }
      bool location = IsPytestLocation(line) &&
                      (i == last_location || !IsLibraryFrame(StrCat("File \"", line)));
      // --tb=short marks no failing line with ">": it is the source line under the last
      // location, right before the error's "E" lines (kept when that is the user's code).
      const bool short_failing = line.starts_with("    ") && !IsBlank(line) && i > start &&
                                 IsPytestLocation(detail[i - 1]) && i + 1 < end &&
                                 detail[i + 1].starts_with("E ") &&
                                 !IsLibraryFrame(StrCat("File \"", detail[i - 1]));
      bool essential = line.starts_with("E ") || location || short_failing ||
                       (!library && line.starts_with(">"));
      if (IsIdentityExplanation(line)) {
        ++out.marks;  // "E  +  where Decimal('100') = Decimal('100')": says nothing
      } else if (IsNestedExplanation(line)) {
        ++out.explanations;
      } else if (essential) {
        out.kept.push_back(line);
      } else if (library) {
        ++out.library;
      } else if (!IsBlank(line)) {
        ++out.context;
      } else {
        ++out.context;
      }
    }
    if (end < detail.size()) ++out.context;  // the separator
    start = end + 1;
  }
  // A block of pytest's own words, no code, error or location in it (a strict xfail that
  // passed: "[XPASS(strict)] should fail but passes"): those words are why it failed.
  if (out.kept.size() == 1) {
    constexpr size_t kOwnWords = 5;
    for (size_t i = 1; i < detail.size() && out.kept.size() <= kOwnWords; ++i) {
      if (IsBlank(detail[i])) continue;
      out.kept.push_back(detail[i]);
      if (out.context > 0) --out.context;
    }
  }
  TrimDiffContext(out);
  return out;
}

// A googletest binary's banners, which ctest --output-on-failure shows for each failing test:
// "Running main() from …", "Note: Google Test filter = …", "[==========] …", "[----------] …",
// "[ RUN      ] …", "[  PASSED  ] 0 tests.", "[  FAILED  ] 1 test, listed below:", " 1 FAILED
// TEST", and the lines of its tests that passed ("[       OK ] Suite.Name (0 ms)"). The failure
// itself ("[  FAILED  ] Suite.Name (0 ms)") is not one of them.
bool IsGtestFraming(std::string_view line) {
  const std::string_view t = Trim(line);
  if (t.starts_with("[==========] ") || t.starts_with("[----------] ") ||
      t.starts_with("[ RUN      ] ") || t.starts_with("[  PASSED  ] ") ||
      t.starts_with("Running main() from ") || t.starts_with("Note: Google Test filter = ") ||
      t.starts_with("Note: Randomizing tests' orders") ||
      t.starts_with("[       OK ] ")) {  // a test of the binary that passed
    return true;
  }
  if (t.starts_with("[  FAILED  ] ") && t.ends_with(", listed below:")) return true;
  return t.ends_with(" FAILED TEST") || t.ends_with(" FAILED TESTS");
}

// A line that only announces the frames after it, or says again what the line before said:
// "Traceback (most recent call last):", Go's "goroutine 19 [running]:", and Go's panic message
// printed a second time, indented, under "panic: … [recovered]"; and node --test's TAP keys
// "failureType", "operator" and its generic error codes.
bool SaysNothingNew(const std::vector<std::string_view>& detail, size_t i) {
  const std::string_view t = Trim(detail[i]);
  // node --test's TAP diagnostics that classify rather than describe: what kind of failure, the
  // comparison's name, and the error codes every test failure and assertion has.
  if (t.starts_with("failureType: '") || t.starts_with("operator: '") ||
      t == "code: 'ERR_TEST_FAILURE'" || t == "code: 'ERR_ASSERTION'") {
    return true;
  }
  if (t == "Traceback (most recent call last):") return true;
  if (t == "(compared using ==)") return true;  // RSpec's note under eq's expected/got
  if (t.starts_with("goroutine ") && t.ends_with(" [running]:")) return true;
  if (i > 0 && t.starts_with("panic: ") && detail[i].starts_with("\t")) {
    const std::string_view before = Trim(detail[i - 1]);
    return before.ends_with(" [recovered]") &&
           before.substr(0, before.size() - std::string_view(" [recovered]").size()) == t;
  }
  return false;
}

// Python's assertion message with both values in full ("AssertionError: Lists differ: [1, 2]
// != [2, 1]", "AssertionError: 'foo' != 'bar'"): unittest prints the values again after it, as
// the first differing elements and an ndiff ("- [1, 2]", "+ [2, 1]", "?  ^"). When every line of
// that detail is text the message line already has (or a diff hint, or the heading "First
// differing element 0:"), the detail says nothing new and is counted; when any line is more (a
// message that elides "[103 chars]", a custom message), the detail is kept whole.
// Where a chained Python exception's traceback begins.
bool IsTraceStart(std::string_view line) {
  const std::string_view t = Trim(line);
  return t == "Traceback (most recent call last):" || t.starts_with("During handling of the ") ||
         t.starts_with("The above exception was the direct cause");
}
bool RepeatsAssertion(std::string_view assertion, std::string_view line) {
  std::string_view t = Trim(line);
  if (t.starts_with("? ")) return t.find_first_not_of("?^+- ") == std::string_view::npos;
  if (t.starts_with("First differing element ") && t.ends_with(":")) return true;
  if (t.starts_with("- ") || t.starts_with("+ ")) t = t.substr(2);
  return !t.empty() && assertion.find(t) != std::string_view::npos;
}
std::vector<bool> RepeatedAssertionDetail(const std::vector<std::string_view>& detail) {
  std::vector<bool> repeats(detail.size(), false);
  for (size_t i = 0; i < detail.size(); ++i) {
    const std::string_view assertion = Trim(detail[i]);
    if (!assertion.starts_with("AssertionError: ") ||
        assertion.find(" != ") == std::string_view::npos) {
      continue;
    }
    size_t end = i + 1;
    bool all = true, any = false;
    for (; end < detail.size() && !IsTraceStart(detail[end]); ++end) {
      if (IsBlank(detail[end])) continue;
      any = true;
      if (!RepeatsAssertion(assertion, detail[end])) {
        all = false;
        break;
      }
    }
    if (!all || !any) continue;
    for (size_t k = i + 1; k < end; ++k) repeats[k] = !IsBlank(detail[k]);
    i = end - 1;
  }
  return repeats;
}

// Other runners: drop stack frames in libraries, code-frame context lines (the failing line,
// marked ">" or underlined by a caret, stays) and a test binary's banners under another runner,
// with the repeat of the failure's name in its closing list.
// "   3: core::panicking::assert_failed" (a frame of a Rust backtrace): where its function
// starts in the trimmed line, or npos.
size_t RustFrameFunction(std::string_view line) {
  if (!line.starts_with(" ")) return std::string_view::npos;
  const std::string_view t = Trim(line);
  size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0 || digits + 2 >= t.size() || t[digits] != ':' || t[digits + 1] != ' ') {
    return std::string_view::npos;
  }
  return digits + 2;
}

BlockLines SelectGeneric(const std::vector<std::string_view>& detail) {
  BlockLines out;
  std::vector<std::string_view> failed;  // "[  FAILED  ] Suite.Name" of the failures shown
  const std::vector<bool> repeats = RepeatedAssertionDetail(detail);
  const std::vector<bool> shadow_map = ShadowMapLines(detail);
  // A test the binary died in (a crash) has no verdict: its "[ RUN      ] Suite.Name", the last
  // with none after it, names it (under ctest too, after the binary's other tests).
  size_t died_in = detail.size();
  for (size_t i = 0; i < detail.size(); ++i) {
    const std::string_view t = Trim(detail[i]);
    if (t.starts_with("[ RUN      ] ")) died_in = i;
    if (t.starts_with("[  FAILED  ] ") || t.starts_with("[       OK ] ") ||
        t.starts_with("[  SKIPPED ] ")) {
      died_in = detail.size();
    }
  }
  for (size_t i = 0; i < detail.size(); ++i) {
    std::string_view line = detail[i];
    if (repeats[i]) {
      ++out.marks;
      continue;
    }
    if (shadow_map[i]) {
      ++out.shadow_map;
      continue;
    }
    if (IsGtestFraming(line) && i != died_in) {
      ++out.framing;
      // The blank lines around banners go with them.
      while (!out.kept.empty() && IsBlank(out.kept.back())) {
        out.kept.pop_back();
        ++out.framing;
      }
      while (i + 1 < detail.size() && IsBlank(detail[i + 1])) {
        ++i;
        ++out.framing;
      }
      continue;
    }
    if (std::string_view t = Trim(line); t.starts_with("[  FAILED  ] ")) {
      const std::string_view name = t.substr(0, t.find(" ("));
      if (std::find(failed.begin(), failed.end(), name) != failed.end()) {
        ++out.framing;  // the closing list's entry for a failure already shown
        continue;
      }
      failed.push_back(name);
    }
    // A Go frame is two lines, the function and then, further in, where it is (a tab in a
    // panic's trace, spaces in the race detector's report): a frame in the runtime or the
    // testing package goes whole.
    if (!line.empty() && line[0] != '\t' &&
        (Trim(line).ends_with(")") || Trim(line).starts_with("created by ")) && i + 1 < detail.size() &&
        Indent(detail[i + 1]) > Indent(line) && detail[i + 1].find(".go:") != std::string_view::npos &&
        line.find(".go:") == std::string_view::npos && IsLibraryFrame(detail[i + 1])) {
      out.library += 2;
      ++i;
      continue;
    }
    // A Rust backtrace's frame: "   3: core::panicking::assert_failed", then, further in, where
    // it is ("at /rustc/…/panicking.rs:394:5"), when known. A frame of the standard library (its
    // location under /rustc/, or its function in core, std, alloc or the panic runtime) goes
    // whole; the test's own frames stay.
    if (const size_t frame = RustFrameFunction(line); frame != std::string_view::npos) {
      const std::string_view function = Trim(line).substr(frame);
      const bool located = i + 1 < detail.size() && Trim(detail[i + 1]).starts_with("at ") &&
                           Indent(detail[i + 1]) > Indent(line);
      const bool library = located ? IsLibraryFrame(detail[i + 1])
                                   : (function.starts_with("core::") || function.starts_with("std::") ||
                                      function.starts_with("alloc::") || function.starts_with("__rustc::") ||
                                      function.starts_with("<fn() -> core::") || function.starts_with("<core::") ||
                                      function.starts_with("<alloc::") || function.starts_with("<std::"));
      if (library) {
        out.library += located ? 2 : 1;
        if (located) ++i;
        continue;
      }
    }
    if (IsLibraryFrame(line)) {
      ++out.library;
      // A Python frame's code line follows its "File ..." line.
      if (Trim(line).starts_with("File \"") && i + 1 < detail.size() &&
          !Trim(detail[i + 1]).starts_with("File \"") && !IsBlank(detail[i + 1])) {
        ++i;
        ++out.library;
      }
      continue;
    }
    if (IsCaretLine(line) || IsCaretsOnly(line) || SaysNothingNew(detail, i)) {
      ++out.marks;
      continue;
    }
    if (IsCodeFrameLine(line)) {
      bool failing_line =
          Trim(line).starts_with(">") ||
          (i + 1 < detail.size() && (IsCaretLine(detail[i + 1]) || IsCaretsOnly(detail[i + 1])));
      if (!failing_line) {
        ++out.context;
        continue;
      }
    }
    if (IsBlank(line) && !out.kept.empty() && IsBlank(out.kept.back())) {
      ++out.context;  // a blank line doubled by the lines left out between
      continue;
    }
    // A blank line between two that say nothing new, both left out (Go's panic message said
    // again under "panic: … [recovered]", then "goroutine 19 [running]:"), separates nothing.
    if (IsBlank(line) && i > 0 && i + 1 < detail.size() && SaysNothingNew(detail, i - 1) &&
        SaysNothingNew(detail, i + 1)) {
      ++out.marks;  // counted with them
      continue;
    }
    out.kept.push_back(line);
  }
  // Blank lines left at the end carry nothing.
  while (!out.kept.empty() && IsBlank(out.kept.back())) {
    out.kept.pop_back();
    ++out.context;
  }
  return out;
}

// A line that names a test that failed, inside another's block: go's subtests ("    --- FAIL:
// TestRoundTrip/base2/n=-1 (0.00s)"), TAP's subtests ("    not ok 3 - …"), googletest's list.
// An identifier: kept whatever the block's length.
bool NamesFailedTest(std::string_view line) {
  const std::string_view t = Trim(line);
  return t.starts_with("--- FAIL: ") || t.starts_with("not ok ") || t.starts_with("[  FAILED  ] ");
}

// Subtests of one test that failed alike: go's table-driven tests print a heading and one
// message per case ("    --- FAIL: TestRoundTrip/base2/n=-1 (0.00s)", then "codec_test.go:16:
// Decode(Encode(-1, 2)) = 0"), the message the same but for its values. Of kFoldSubtests or
// more siblings whose messages come from one place and differ only in names and numbers, the
// first stays as printed; the others are listed after it by their full names, each with the
// values it differs in (DiagnosticGroups): "… 35 more subtests failing like it, names
// differing, at: TestRoundTrip/base2/n=-42 42 2; …". A subtest with more than one line under
// its heading stays as printed.
constexpr size_t kFoldSubtests = 3;
// "    --- FAIL: TestRoundTrip/base2/n=-1 (0.00s)", "=== RUN   TestRoundTrip/base2/n=-1": the
// subtest's full name.
std::string_view SubtestName(std::string_view line) {
  std::string_view t = Trim(line);
  t = Trim(t.substr(t.starts_with("=== RUN ") ? 8 : 10));
  return t.substr(0, t.find(" ("));
}
void FoldAlikeSubtests(BlockLines& block) {
  std::vector<std::string_view>& kept = block.kept;
  struct Entry {
    size_t at;  // its heading in kept
    std::string kind;
  };
  std::vector<Entry> entries;
  for (size_t i = 0; i + 1 < kept.size(); ++i) {
    const std::string_view t = Trim(kept[i]);
    if (!t.starts_with("--- FAIL: ") && !t.starts_with("=== RUN ")) continue;
    const size_t indent = Indent(kept[i]);
    const std::string_view message = Trim(kept[i + 1]);
    // One line under it: the line after is not further in, or is the next result.
    auto result = [](std::string_view line) {
      return Trim(line).starts_with("--- ") || Trim(line).starts_with("=== ");
    };
    if (Indent(kept[i + 1]) <= indent || message.empty() || result(kept[i + 1]) ||
        (i + 2 < kept.size() && Indent(kept[i + 2]) > indent && !result(kept[i + 2]))) {
      continue;
    }
    // Where it failed ("codec_test.go:16:") is its first word, and part of its kind.
    const std::string_view place = message.substr(0, message.find(' '));
    if (!place.ends_with(":")) continue;
    entries.push_back({i, StrCat(indent, " ", place)});
  }
  if (entries.size() < kFoldSubtests) return;
  DiagnosticGroups groups;
  absl::flat_hash_set<std::string_view> named;
  for (const Entry& e : entries) {
    const std::string_view name = SubtestName(kept[e.at]);
    const std::string_view message = Trim(kept[e.at + 1]);
    groups.Add(e.kind, "subtests failing like it", message.substr(message.find(' ') + 1), name);
    if (Trim(kept[e.at]).starts_with("=== RUN ")) named.insert(name);
  }
  std::vector<bool> drop(kept.size(), false);
  // With -v, each subtest's messages come under its "=== RUN" line and its result later, in
  // its parent's list ("    --- FAIL: TestRoundTrip/base2/n=-1 (0.00s)", nothing under it):
  // a result naming a subtest shown or listed with its messages is counted.
  for (size_t i = 0; i < kept.size() && !named.empty(); ++i) {
    if (Trim(kept[i]).starts_with("--- FAIL: ") && named.contains(SubtestName(kept[i])) &&
        (i + 1 == kept.size() || Indent(kept[i + 1]) <= Indent(kept[i]))) {
      drop[i] = true;
      ++block.marks;
    }
  }
  std::vector<std::pair<size_t, size_t>> lists;  // (the leader's heading in kept, its index)
  for (size_t k = 0; k < entries.size(); ++k) {
    const size_t leader = groups.LeaderOf(k);
    if (groups.Followers(leader) + 1 < kFoldSubtests) continue;
    if (leader == k) {
      lists.emplace_back(entries[k].at + 2, k);
    } else {
      drop[entries[k].at] = drop[entries[k].at + 1] = true;
    }
  }
  if (lists.empty()) return;  // (a result under -v is named again only when others are listed)
  std::vector<std::string_view> folded;
  size_t list = 0;
  for (size_t i = 0; i <= kept.size(); ++i) {
    while (list < lists.size() && lists[list].first == i) {
      block.subtest_lists.emplace_back(folded.size(), lists[list++].second);
    }
    if (i < kept.size() && !drop[i]) folded.push_back(kept[i]);
  }
  kept = std::move(folded);
  block.subtests = std::move(groups);
}

// Lines the blocks left out, by kind, summed over the failures shown; whether a diff's legend
// was shown.
struct Dropped {
  uint64_t library = 0, context = 0, framing = 0, explanations = 0, diff_context = 0;
  uint64_t shadow_map = 0;
  bool legend_shown = false;
  absl::flat_hash_set<std::string_view> hints_shown;  // IsRunnerHint lines, as printed
};

// A hint the runner prints under failures, in the same words each time: pytest's "E   Use -v
// to get more diff", "Omitting 1 identical items, use -vv to show"; cargo's "note: run with
// `RUST_BACKTRACE=1` environment variable to display a backtrace" and "note: Some details are
// omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.".
bool IsRunnerHint(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.starts_with("E ")) t = Trim(t.substr(1));
  if (t.starts_with("note: ")) return t.find("run with ") != std::string_view::npos;
  return t.starts_with("Use -v") || t.find(", use -v") != std::string_view::npos;
}

// A diff's legend, the same words before every diff of a JavaScript runner: jest's and vitest's
// "- Expected  - 4" then "+ Received  + 1" (two lines, the counts jest's), mocha's and
// cucumber-js's "+ expected - actual" (one). How many lines of kept[i] it is, or 0.
size_t DiffLegend(const std::vector<std::string_view>& kept, size_t i) {
  auto counted = [](std::string_view t, std::string_view words, char sign) {
    if (!t.starts_with(words)) return false;
    t = Trim(t.substr(words.size()));
    if (t.empty()) return true;
    if (t.size() < 3 || t[0] != sign || t[1] != ' ') return false;
    return t.find_first_not_of("0123456789", 2) == std::string_view::npos;
  };
  const std::string_view t = Trim(kept[i]);
  if (t == "+ expected - actual") return 1;
  if (i + 1 < kept.size() && counted(t, "- Expected", '-') &&
      counted(Trim(kept[i + 1]), "+ Received", '+')) {
    return 2;
  }
  return 0;
}

// mocha's diff of the values ("+ expected - actual", then the lines of each value marked "-" and
// "+"), printed after an assertion message that already shows both values: Node's own diff
// ("+ actual - expected" and its lines) or the values side by side ("10 !== 3"). The second
// diff is counted with the other lines, up to the stack under it.
void DropRepeatedDiff(BlockLines& block) {
  std::vector<std::string_view>& kept = block.kept;
  bool shown = false;  // the values, in the message above
  for (size_t i = 0; i < kept.size(); ++i) {
    const std::string_view t = Trim(kept[i]);
    if (t == "+ actual - expected" || t.find(" !== ") != std::string_view::npos ||
        t.find(" != ") != std::string_view::npos) {
      shown = true;
      continue;
    }
    if (t != "+ expected - actual" || !shown) continue;
    size_t end = i + 1;
    while (end < kept.size() && !Trim(kept[end]).starts_with("at ")) ++end;
    if (end == kept.size()) return;  // not followed by its stack: not the diff read here
    block.marks += end - i;
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i),
               kept.begin() + static_cast<std::ptrdiff_t>(end));
    shown = false;
  }
}

// A failure's block: its essential lines, capped in length (the head, the user-code
// locations and key lines of the middle, and the tail); what it left out is added to `dropped`.
void WriteBlock(const std::vector<std::string_view>& detail, TestRunner runner, SummaryWriter& out,
                Dropped* dropped) {
  BlockLines block = runner == TestRunner::kPytest ? SelectPytest(detail) : SelectGeneric(detail);
  if (block.diff_gaps.empty()) FoldAlikeSubtests(block);
  if (block.diff_gaps.empty() && block.subtest_lists.empty()) DropRepeatedDiff(block);
  // A diff's legend is shown with the first diff; the others' are counted with the other lines.
  if (block.diff_gaps.empty() && block.subtest_lists.empty()) {
    std::vector<std::string_view>& kept = block.kept;
    for (size_t i = 0; i < kept.size(); ++i) {
      const size_t legend = DiffLegend(kept, i);
      if (legend == 0) continue;
      if (dropped->legend_shown) {
        // With the blank line after it, when one is before it too.
        size_t n = legend;
        if (i > 0 && IsBlank(kept[i - 1]) && i + n < kept.size() && IsBlank(kept[i + n])) ++n;
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i),
                   kept.begin() + static_cast<std::ptrdiff_t>(i + n));
        block.marks += n;
        --i;
      } else {
        dropped->legend_shown = true;
        i += legend - 1;
      }
    }
  }
  // A runner's hint is shown under the first failure that has it; the same words again are
  // counted with the other lines.
  if (block.diff_gaps.empty() && block.subtest_lists.empty()) {
    std::vector<std::string_view>& kept = block.kept;
    for (size_t i = 1; i < kept.size(); ++i) {
      if (!IsRunnerHint(kept[i]) || dropped->hints_shown.insert(Trim(kept[i])).second) continue;
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      ++block.marks;
      --i;
    }
  }
  const std::vector<std::string_view>& kept = block.kept;
  // The lists of alike subtests due before kept[i], written once each.
  size_t next_list = 0;
  auto lists_before = [&](size_t i) {
    for (; next_list < block.subtest_lists.size() && block.subtest_lists[next_list].first <= i;
         ++next_list) {
      block.subtests->WriteFollowers(block.subtest_lists[next_list].second, out,
                                     [](size_t) { return 2; });
    }
  };
  uint64_t diff_context = 0;  // a diff's unchanged lines left out, when not marked in place
  if (kept.size() <= kMaxBlockLines) {
    size_t gap = 0;
    for (size_t i = 0; i <= kept.size(); ++i) {
      lists_before(i);
      if (gap < block.diff_gaps.size() && block.diff_gaps[gap].first == i) {
        const uint64_t n = block.diff_gaps[gap++].second;
        out.ElidedLines(n, n == 1 ? "unchanged line of the diff omitted"
                                  : "unchanged lines of the diff omitted");
      }
      if (i < kept.size()) out.Line(kept[i]);
    }
  } else {
    for (const auto& [at, n] : block.diff_gaps) diff_context += n;
    const size_t head = 24, tail = 10;
    for (size_t i = 0; i < head; ++i) {
      lists_before(i);
      out.Line(kept[i]);
    }
    size_t skipped = 0;
    size_t middle_kept = 0;
    for (size_t i = head; i < kept.size() - tail; ++i) {
      if (next_list < block.subtest_lists.size() && block.subtest_lists[next_list].first <= i) {
        out.ElidedLines(skipped, skipped == 1 ? "line omitted" : "lines omitted");
        skipped = 0;
        lists_before(i);  // names of failed tests, as the lines below
      }
      const bool failed_test = NamesFailedTest(kept[i]);
      if (failed_test || (middle_kept < 12 && (IsLocationLine(kept[i]) || IsKeyLine(kept[i])))) {
        if (skipped == 1) {
          out.Line(kept[i - 1]);  // one line costs what its marker would
        } else {
          out.ElidedLines(skipped, "lines omitted");
        }
        skipped = 0;
        out.Line(kept[i]);
        if (!failed_test) ++middle_kept;
      } else {
        ++skipped;
      }
    }
    out.ElidedLines(skipped, skipped == 1 ? "line omitted" : "lines omitted");
    for (size_t i = kept.size() - tail; i < kept.size(); ++i) {
      lists_before(i);
      out.Line(kept[i]);
    }
    lists_before(kept.size());
  }
  // A line or two are counted with the summary's other lines: the marker would cost about
  // what they do.
  if (block.library + block.context + block.framing + block.explanations + diff_context +
          block.shadow_map <=
      kMaxUnmarkedLines) {
    return;
  }
  dropped->library += block.library;
  dropped->shadow_map += block.shadow_map;
  dropped->context += block.context;
  dropped->framing += block.framing;
  dropped->explanations += block.explanations;
  dropped->diff_context += diff_context;
}

// What the blocks left out, counted in one marker after the last of them: "… 45 lines of source
// context and library stack frames omitted".
void WriteDropped(const Dropped& dropped, SummaryWriter& out) {
  const uint64_t n = dropped.library + dropped.context + dropped.framing + dropped.explanations +
                     dropped.diff_context + dropped.shadow_map;
  if (n == 0) return;
  std::vector<std::string> kinds;
  if (dropped.context > 0) kinds.push_back("source context");
  if (dropped.library > 0) kinds.push_back("library stack frames");
  if (dropped.framing > 0) kinds.push_back("test binary banners");
  if (dropped.explanations > 0) kinds.push_back("nested explanations of values");
  if (dropped.diff_context > 0) kinds.push_back("unchanged lines of a diff");
  if (dropped.shadow_map > 0) kinds.push_back("a sanitizer's shadow memory map");
  std::string what = StrCat(n == 1 ? "line" : "lines", " of ", kinds[0]);
  for (size_t k = 1; k < kinds.size(); ++k) {
    StrAppend(&what, k + 1 == kinds.size() ? " and " : ", ", kinds[k]);
  }
  out.ElidedLines(n, StrCat(what, " omitted"));
}

// Whether `location` ends with a line and a column, ":13:34" (before a closing parenthesis:
// "at f (src/a.js:13:34)").
bool HasLineAndColumn(std::string_view location) {
  if (location.ends_with(")")) location.remove_suffix(1);
  size_t digits = 0;
  for (int part = 0; part < 2; ++part) {
    digits = 0;
    while (!location.empty() && std::isdigit(static_cast<unsigned char>(location.back()))) {
      location.remove_suffix(1);
      ++digits;
    }
    if (digits == 0 || location.empty() || location.back() != ':') return false;
    location.remove_suffix(1);
  }
  return !location.empty();
}

// The failing source line and the location of a failure, or empty: the same for every case
// of one parametrized assertion ("> assert slugify(raw) == expected" at tests/x.py:71). With
// --tb=short pytest prints no ">": the source line is the one under the location
// ("tests/x.py:71: in test_slug", then "    assert slugify(raw) == expected").
std::string KindOf(const TestFailure& failure) {
  std::string_view source, location;
  const std::vector<std::string_view>& detail = failure.detail;
  for (size_t i = 1; i < detail.size(); ++i) {
    const std::string_view line = detail[i];
    const std::string_view t = Trim(line);
    // pytest marks the failing source line with ">"; RSpec quotes it: "Failure/Error: expect(…)".
    if (source.empty() &&
        ((t.starts_with(">") && t.size() > 1) || t.starts_with("Failure/Error: "))) {
      source = t;
    }
    // node --test's TAP names where the test was declared ("location: 'a.test.mjs:10:30'"), the
    // same for every test a loop declares: the assertion is its stack's first frame, below.
    if (location.empty() && IsLocationLine(line) && !t.starts_with("location: '")) {
      location = t;
      if (source.empty() && t.find(": in ") != std::string_view::npos && i + 1 < detail.size() &&
          detail[i + 1].starts_with("    ") && !IsBlank(detail[i + 1])) {
        source = Trim(detail[i + 1]);
      }
    }
  }
  // GoogleTest prints no source line: its "tests/poly_test.cpp:8: Failure" names the assertion.
  if (source.empty() && location.ends_with(": Failure")) return std::string(location);
  // Nor does vitest mark its code frame's line: a location to the column ("❯ test/ship.test.ts:
  // 13:34") does.
  if (source.empty() && HasLineAndColumn(location)) return std::string(location);
  // Minitest names the assertion's place in brackets after the test's name: "SlugTest#test_7
  // [test/slug_test.rb:13]:".
  if (source.empty() && location.ends_with("]:") &&
      location.rfind(" [") != std::string_view::npos) {
    return std::string(location.substr(location.rfind(" [") + 1));
  }
  // A Python traceback (unittest, pytest's --tb=native): the first frame outside the
  // libraries, the test's own, and its source line ('File "tests/test_rates.py", line 25, in
  // test_brackets').
  if (source.empty()) {
    for (size_t i = 1; i + 1 < detail.size(); ++i) {
      const std::string_view t = Trim(detail[i]);
      if (!t.starts_with("File \"") || IsLibraryFrame(detail[i])) continue;
      if (!IsBlank(detail[i + 1]) && !Trim(detail[i + 1]).starts_with("File \"")) {
        return StrCat(Trim(detail[i + 1]), "\n", t);
      }
      break;
    }
  }
  // PHPUnit prints no source line either: under the message, the trace's frames in the user's
  // code, each a location alone on its line ("/app/tests/SplitTest.php:10"). The same frames,
  // the same assertion reached the same way.
  if (source.empty()) {
    std::string frames;
    for (size_t i = 1; i < detail.size(); ++i) {
      const std::string_view t = Trim(detail[i]);
      if (StartsWithLocation(t) && LocationPrefix(t).size() == t.size()) {
        StrAppend(&frames, "\n", t);
      }
    }
    if (!frames.empty()) return frames;
  }
  if (source.empty() || location.empty()) return {};
  return StrCat(source, "\n", location);
}

// The id pytest's list line `line` gives a failure whose banner names it `name`: a test in a
// class, "TestLines.test_x" in the banner, is "…::TestLines::test_x" in the list; an error in a
// fixture, "ERROR at setup of test_x" in the banner, is "ERROR …::test_x".
std::string PytestId(std::string_view name, std::string_view line) {
  for (std::string_view when : {"ERROR at setup of ", "ERROR at teardown of "}) {
    if (line.starts_with("ERROR ") && name.starts_with(when)) name.remove_prefix(when.size());
  }
  const size_t params = std::min(name.size(), name.find('['));
  std::string id;
  for (size_t c = 0; c < name.size(); ++c) {
    if (name[c] == '.' && c < params) {
      id.append("::");
    } else {
      id.push_back(name[c]);
    }
  }
  return id;
}

// A failure of the same assertion as `first`'s, shown in full before: one line, its heading
// and the first line of its error, with its values, as pytest's short summary puts them
// ("FAILED tests/x.py::test_slug[case-3] - AssertionError: assert '-case-3' == 'case-3'";
// `heading`, the runner's list line naming it, when there is one). How many of its lines that
// line leaves out.
uint64_t WriteCase(const TestFailure& failure, std::string_view heading, const TestFailure& first,
                   SummaryWriter& out) {
  // pytest's first "E" line (the error, with the values of the assertion); else, of the key
  // lines, the first the failure shown does not have: this case's own values ("Received: 6900"
  // where the first had 5100). Without either, its heading alone: a line the first has says
  // nothing new.
  // Up to kCaseValues of those key lines: an expectation's "expected:" and "got:" may both
  // differ, and the one alone would not say what went wrong.
  std::vector<size_t> picks;
  for (size_t i = 1; i < failure.detail.size(); ++i) {
    const std::string_view t = Trim(failure.detail[i]);
    if (t.starts_with("E ")) {
      picks.assign(1, i);
      break;
    }
    // Not a line that names the test (a verdict, "[  FAILED  ] Suite.Name (3 ms)"): no value.
    // Nor a diff's legend, the same words before any diff ("+ actual - expected").
    if (picks.size() == kCaseValues || t.starts_with(">") || !IsKeyLine(t) || IsLocationLine(t) ||
        t == "+ actual - expected" || t == "+ expected - actual" ||
        (failure.name.size() > 2 && t.find(failure.name) != std::string_view::npos)) {
      continue;
    }
    if (std::find(first.detail.begin() + 1, first.detail.end(), failure.detail[i]) ==
        first.detail.end()) {
      picks.push_back(i);
    }
  }
  // The heading: the list's "FAILED <id>" (its message cut short left out), or the block's
  // without pytest's frame of "_".
  std::string_view head_line = heading.empty() ? failure.detail.front() : heading;
  if (Trim(head_line).starts_with("[ RUN      ]") &&
      Trim(failure.detail.back()).starts_with("[  FAILED  ]")) {
    head_line = failure.detail.back();  // GoogleTest's verdict names the test with its parameter
  }
  // A heading that does not name the test ("  5) Failure:" above Minitest's "SlugTest#test_7
  // [test/slug_test.rb:13]:"): the first line that does.
  if (heading.empty() && failure.name.size() > 2 &&
      head_line.find(failure.name) == std::string_view::npos) {
    for (std::string_view line : failure.detail) {
      if (line.find(failure.name) != std::string_view::npos) {
        head_line = line;
        break;
      }
    }
  }
  std::string_view head = Trim(head_line);
  // Minitest's place of the assertion after the name is the first case's: said once, there.
  if (head.ends_with("]:") && head.rfind(" [") != std::string_view::npos) {
    head = head.substr(0, head.rfind(" ["));
  }
  if (!heading.empty()) {
    head = Trim(heading);
    head = head.substr(0, PytestMessageDash(head));
  } else if (const size_t b = head.find_first_not_of("_ "), e = head.find_last_not_of("_ ");
             b != std::string_view::npos) {
    head = head.substr(b, e - b + 1);
  }
  // A failure identical to the first but for its heading: its heading alone.
  if (failure.detail.size() == first.detail.size() &&
      std::equal(failure.detail.begin() + 1, failure.detail.end(), first.detail.begin() + 1)) {
    picks.clear();
  }
  std::string text(head);
  std::vector<std::string_view> from = {head_line};
  for (size_t i : picks) {
    std::string_view value = Trim(failure.detail[i]);
    if (value.starts_with("E ")) value = Trim(value.substr(1));
    StrAppend(&text, " - ", value);
    from.push_back(failure.detail[i]);
  }
  out.Composed(text, from);
  return failure.detail.size() - 1 - picks.size();
}

void WriteCompact(const TestFailure& failure, SummaryWriter& out) {
  out.Line(failure.detail.front());
  // Its first key lines, and always its first location in the user's code (pytest's
  // "tests/test_x.py:74: AssertionError" comes after the values): where it failed.
  // The assertion and error lines pytest marks ("E ", ">") before lines that only mention a
  // key word ("expected = 'pi-rho-59'", a parametrize decorator).
  std::vector<size_t> marked, other;
  size_t location = 0;
  for (size_t i = 1; i < failure.detail.size(); ++i) {
    std::string_view line = failure.detail[i];
    if (IsLibraryFrame(line) || ExplainsValue(line)) continue;
    const bool at = IsLocationLine(line);
    if (at && location == 0) location = i;
    const std::string_view t = Trim(line);
    if (at || t.starts_with("E ") || t.starts_with(">")) {
      marked.push_back(i);
    } else if (IsKeyLine(line)) {
      other.push_back(i);
    }
  }
  std::vector<size_t> picked;
  for (const std::vector<size_t>* tier : {&marked, &other}) {
    for (size_t i : *tier) {
      if (picked.size() < kCompactKeyLines) picked.push_back(i);
    }
  }
  if (location != 0 && std::find(picked.begin(), picked.end(), location) == picked.end()) {
    if (picked.size() == kCompactKeyLines) picked.pop_back();
    picked.push_back(location);
  }
  std::sort(picked.begin(), picked.end());
  for (size_t i : picked) out.Line(failure.detail[i]);
  const size_t shown = picked.size();
  size_t rest = failure.detail.size() - 1 - shown;
  out.ElidedLines(rest, rest == 1 ? "more line of this failure omitted"
                                  : "more lines of this failure omitted");
}

// "===== 34 passed in 0.05s =====" -> "34 passed in 0.05s".
std::string_view Unframe(std::string_view line) {
  std::string_view t = Trim(line);
  size_t b = t.find_first_not_of("=- ");
  size_t e = t.find_last_not_of("=- ");
  if (b == std::string_view::npos) return t;
  return t.substr(b, e - b + 1);
}

// The line of a run that only listed its tests, "270 tests collected in 0.05s" (pytest
// --collect-only; "1 test collected", framed or not), unframed; "" when the output ends
// without one.
std::string_view CollectedLine(const std::vector<std::string_view>& lines) {
  size_t seen = 0;
  for (size_t i = lines.size(); i-- > 0 && seen < 5;) {
    const std::string_view t = Unframe(lines[i]);
    if (t.empty()) continue;
    ++seen;
    size_t digits = 0;
    while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
    const std::string_view rest = t.substr(digits);
    if (digits > 0 &&
        (rest.starts_with(" tests collected") || rest.starts_with(" test collected"))) {
      return t;
    }
  }
  return {};
}

// True when `line` names the test `name`: it appears with no identifier character after it
// (so "test_a" does not match "test_ab").
bool NamesTest(std::string_view line, std::string_view name) {
  if (name.size() < 3) return false;
  for (size_t at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
    size_t end = at + name.size();
    if (end == line.size()) return true;
    char c = line[end];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return true;
  }
  return false;
}

// Whether `line` names the test `name` with more than `name`: the word holding it (between
// spaces) is longer, as `tests/test_a.py::test_x[1]` is than `test_x[1]`.
bool NamesMoreFully(std::string_view line, std::string_view name) {
  for (size_t at = line.find(name); at != std::string_view::npos; at = line.find(name, at + 1)) {
    size_t begin = at;
    while (begin > 0 && line[begin - 1] != ' ' && line[begin - 1] != '\t') --begin;
    size_t end = at + name.size();
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    if (end - begin > name.size()) return true;
  }
  return false;
}

// Maven's list of failures names a test "CartTest.countsUnits:19 expected:<3> but was:<2>"
// (after its level, "[ERROR]   "), where the failure's heading was "countsUnits(shop.CartTest)"
// (Surefire 2) or "shop.CartTest.countsUnits" (Surefire 3): the same test when the heading has
// its class and its method.
bool MavenListNames(std::string_view line, const TestFailure& failure) {
  std::string_view t = Trim(line);
  if (t.starts_with("[")) t = Trim(t.substr(std::min(t.size(), t.find(']') + 1)));
  std::string_view word = t.substr(0, std::min(t.size(), t.find(' ')));
  if (const size_t colon = word.find(':'); colon != std::string_view::npos) {
    word = word.substr(0, colon);
  }
  const size_t dot = word.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == word.size()) return false;
  const std::string_view cls = word.substr(0, dot), method = word.substr(dot + 1);
  const std::string_view heading = failure.name;
  const size_t m = heading.find(method);
  if (m == std::string_view::npos) return false;
  for (size_t c = heading.find(cls); c != std::string_view::npos; c = heading.find(cls, c + 1)) {
    const size_t end = c + cls.size();
    const bool starts = c == 0 || heading[c - 1] == '.' || heading[c - 1] == '(';
    const bool ends = end == heading.size() || heading[end] == '.' || heading[end] == ')';
    if (starts && ends) return true;
  }
  return false;
}

// True when `line` holds a location its failure's block does not: RSpec's rerun command
// "rspec ./spec/cart_spec.rb:14 # Cart#add counts items" names the example's line (or its id,
// "./spec/cart_spec.rb[1:3:3]"), where the block shows only the frames' lines.
bool LocatesBeyond(std::string_view line, const TestFailure& failure) {
  for (size_t begin = line.find_first_not_of(' '); begin != std::string_view::npos;
       begin = line.find_first_not_of(' ', begin)) {
    const size_t end = std::min(line.size(), line.find(' ', begin));
    const std::string_view word = line.substr(begin, end - begin);
    begin = end;
    const size_t colon = word.find(':');
    const bool numbered = colon != std::string_view::npos && colon + 1 < word.size() &&
                          word[colon + 1] >= '0' && word[colon + 1] <= '9';
    const bool id = word.ends_with("]") && word.find('[') != std::string_view::npos;
    if (word.find('/') == std::string_view::npos || (!numbered && !id)) continue;
    bool in_block = false;
    for (std::string_view detail : failure.detail) {
      in_block = in_block || detail.find(word) != std::string_view::npos;
    }
    if (!in_block) return true;
  }
  return false;
}

// A coverage report the run printed, which the user asked for (--cov, --coverage, -cover):
//   coverage.py (pytest-cov): "---- coverage: platform linux, … ----", "Name  Stmts  Miss
//     Cover", a row per file, "TOTAL  88  74  16%";
//   istanbul's text table (jest, vitest, nyc, c8): "File | % Stmts | % Branch | …", "All files
//     | 92.1 | …", a row per file between lines of "-" and "|";
//   go test -cover: "coverage: 85.2% of statements" (alone, or at the end of a package's line).
// Its heading, totals and up to kCoverageRows rows of files are kept; the other rows counted.
constexpr size_t kCoverageRows = 30;
struct Coverage {
  std::vector<std::string_view> lines;
  uint64_t rows_left = 0;
};
// A row of coverage.py's table: a file, its statement counts, its percentage (then the lines
// missed): "pricing/cart.py           44     44     0%   3-40"; its TOTAL row too.
bool IsCoveragePyRow(std::string_view t) {
  std::vector<std::string_view> words;
  for (size_t at = 0; at < t.size();) {
    const size_t start = t.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(t.find(' ', start), t.size());
    words.push_back(t.substr(start, end - start));
    at = end;
  }
  auto number = [](std::string_view w) {
    return !w.empty() && w.find_first_not_of("0123456789") == std::string_view::npos;
  };
  for (size_t k = 3; k <= 5 && k < words.size(); ++k) {
    const std::string_view percent = words[k];
    if (!percent.ends_with("%") || !number(percent.substr(0, percent.size() - 1))) continue;
    return !number(words[0]) &&
           std::all_of(words.begin() + 1, words.begin() + static_cast<std::ptrdiff_t>(k), number);
  }
  return false;
}

// A row of istanbul's table (jest, vitest, nyc, c8): " retry.js |  80 |  80 |  50 |  100 | 13".
bool IsIstanbulRow(std::string_view t) {
  const size_t bar = t.find(" | ");
  if (bar == std::string_view::npos || bar == 0) return false;
  const std::string_view after = Trim(t.substr(bar + 3));
  return !after.empty() && (after[0] >= '0' && after[0] <= '9');
}

Coverage CoverageReport(const std::vector<std::string_view>& lines) {
  Coverage c;
  size_t rows = 0;
  auto row = [&](std::string_view line) {
    if (rows++ < kCoverageRows) {
      c.lines.push_back(line);
    } else {
      ++c.rows_left;
    }
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = Trim(lines[i]);
    if (t.starts_with("-") && t.find(" coverage: ") != std::string_view::npos) {
      // coverage.py: to its TOTAL line (or the end of the table).
      c.lines.push_back(lines[i]);
      for (++i; i < lines.size() && !Trim(lines[i]).empty(); ++i) {
        const std::string_view r = Trim(lines[i]);
        if (r.starts_with("Name ") || IsTableRule(r) || r.starts_with("TOTAL")) {
          c.lines.push_back(lines[i]);
        } else {
          row(lines[i]);
        }
        if (r.starts_with("TOTAL")) break;
      }
      continue;
    }
    if (IsCoverageTableHeading(t)) {
      // istanbul: the rule above the heading, then to the end of the table.
      if (i > 0 && IsTableRule(Trim(lines[i - 1]))) c.lines.push_back(lines[i - 1]);
      c.lines.push_back(lines[i]);
      for (++i; i < lines.size() && Trim(lines[i]).find('|') != std::string_view::npos; ++i) {
        const std::string_view r = Trim(lines[i]);
        if (IsTableRule(r) || r.starts_with("All files")) {
          c.lines.push_back(lines[i]);
        } else {
          row(lines[i]);
        }
      }
      --i;
      continue;
    }
    if (t.find("coverage: ") != std::string_view::npos && t.ends_with("% of statements")) {
      c.lines.push_back(lines[i]);  // go
    }
  }
  if (c.lines.empty()) {
    // An output cut at its start inside the table (`pytest --cov | tail -8`): its rows from the
    // first line, to coverage.py's TOTAL or istanbul's last rule.
    size_t i = 0;
    while (i < lines.size() && Trim(lines[i]).empty()) ++i;
    const bool istanbul = i < lines.size() && IsIstanbulRow(Trim(lines[i]));
    bool total = false;
    for (; i < lines.size() && !total; ++i) {
      const std::string_view r = Trim(lines[i]);
      if (IsTableRule(r) || r.starts_with("All files")) {
        c.lines.push_back(lines[i]);
      } else if (istanbul ? IsIstanbulRow(r) : IsCoveragePyRow(r)) {
        if (r.starts_with("TOTAL ")) {
          c.lines.push_back(lines[i]);
          total = true;
        } else {
          row(lines[i]);
        }
      } else {
        break;
      }
    }
    // A table needs its end: coverage.py's TOTAL, istanbul's closing rule after a row.
    if (!(istanbul ? rows > 0 && !c.lines.empty() && IsTableRule(Trim(c.lines.back())) : total)) {
      return Coverage{};
    }
  }
  return c;
}
void WriteCoverage(const Coverage& c, SummaryWriter& out) {
  out.Lines(c.lines);
  out.Omitted(c.rows_left, "more file's coverage row", "more files' coverage rows");
}

std::string CountsText(const TestCounts& c) {
  std::string text;
  auto add = [&](const std::optional<uint64_t>& n, std::string_view word, bool always) {
    if (!n || (*n == 0 && !always)) return;
    StrAppend(&text, text.empty() ? "" : ", ", core::FormatCount(*n), " ", word);
  };
  add(c.failed, "failed", false);
  add(c.errors, c.errors.value_or(0) == 1 ? "error" : "errors", false);
  add(c.passed, "passed", false);
  add(c.skipped, "skipped", false);
  if (c.total && !c.passed) {
    StrAppend(&text, text.empty() ? "" : ", ", core::FormatCount(*c.total),
              *c.total == 1 ? " test" : " tests", " run");
  }
  return text;
}

// `go test -json` (test2json's events, one JSON object a line): the text of its "output" events
// ("Output": "--- FAIL: TestX (0.00s)\n"), which is what `go test -v` prints, in order; a line
// that is no event (what the go command itself printed: a package that does not build) as it
// is. Nullopt when the output is no such stream: half its lines or more that are not blank
// must be events.
std::optional<std::string> GoTestJsonText(std::string_view output) {
  if (output.find("\"Action\":") == std::string_view::npos) return std::nullopt;
  std::string text;
  size_t events = 0, others = 0;
  for (std::string_view line : core::SplitLines(output)) {
    const std::string_view t = Trim(line);
    if (t.empty()) continue;
    std::optional<core::Value> event;
    if (t.starts_with("{\"")) {
      if (absl::StatusOr<core::Value> v = core::ParseJson(t, "go test -json"); v.ok()) {
        const core::Value* action = v->Find("Action");
        if (action != nullptr && action->is_string()) event = *std::move(v);
      }
    }
    if (!event) {
      ++others;
      StrAppend(&text, line, "\n");
      continue;
    }
    ++events;
    const core::Value* out = event->Find("Output");
    if (out != nullptr && out->is_string()) text += out->as_string();
  }
  if (events == 0 || events < others) return std::nullopt;
  return text;
}

// `jest --json` (and vitest's json reporter, which writes the same report): the text jest prints,
// from the report's fields — a test file's "FAIL tests/x.test.js" (or "PASS …") line, then the
// failures as jest reports them under it (its `message`; else each failed test's "● suite ›
// test" heading with its failure messages indented), then the totals lines jest prints. Nullopt
// when the output is no such report. Lines around the report (npm's or a workspace runner's
// after it, a test's console output before it) are not read: jest writes the report on a line
// of its own.
std::optional<std::string> JestJsonText(std::string_view output) {
  if (output.find("\"numTotalTests\"") == std::string_view::npos) return std::nullopt;
  const size_t first = output.find_first_not_of(" \t\r\n");
  absl::StatusOr<core::Value> report = absl::NotFoundError("no report");
  if (first != std::string_view::npos && output[first] == '{') {
    report = core::ParseJson(output, "jest --json");
  }
  if (!report.ok()) {
    for (std::string_view line : core::SplitLines(output)) {
      if (line.starts_with('{') && line.find("\"numTotalTests\"") != std::string_view::npos) {
        report = core::ParseJson(line, "jest --json");
        break;
      }
    }
  }
  if (!report.ok() || !report->is_object()) return std::nullopt;
  const core::Value* results = report->Find("testResults");
  if (results == nullptr || !results->is_array()) return std::nullopt;
  std::string text;
  for (const core::Value& file : results->as_array()) {
    if (!file.is_object()) continue;
    const bool failed = file.StringMember("status") == "failed";
    StrAppend(&text, failed ? "FAIL " : "PASS ", file.StringMember("name"), "\n");
    std::string message = file.StringMember("message");
    if (!message.empty() && Trim(message).find("● ") != 0) {
      // vitest's message of a file that did not run (a module not found): as jest says it.
      std::string said = "  ● Test suite failed to run\n\n";
      for (std::string_view line : core::SplitLines(message)) {
        StrAppend(&said, line.empty() ? "" : "    ", line, "\n");
      }
      message = std::move(said);
    }
    const core::Value* tests = file.Find("assertionResults");
    if (message.empty() && tests != nullptr && tests->is_array()) {
      for (const core::Value& test : tests->as_array()) {
        if (!test.is_object() || test.StringMember("status") != "failed") continue;
        std::string heading;
        if (const core::Value* titles = test.Find("ancestorTitles"); titles && titles->is_array()) {
          for (const core::Value& title : titles->as_array()) {
            if (title.is_string()) StrAppend(&heading, title.as_string(), " › ");
          }
        }
        StrAppend(&message, "  ● ", heading, test.StringMember("title"), "\n\n");
        if (const core::Value* messages = test.Find("failureMessages");
            messages != nullptr && messages->is_array()) {
          for (const core::Value& m : messages->as_array()) {
            if (!m.is_string()) continue;
            for (std::string_view line : core::SplitLines(m.as_string())) {
              StrAppend(&message, line.empty() ? "" : "    ", line, "\n");
            }
            message += "\n";
          }
        }
      }
    }
    if (!message.empty()) StrAppend(&text, message, message.ends_with("\n") ? "" : "\n");
  }
  auto counts = [](std::initializer_list<std::pair<int64_t, std::string_view>> parts,
                   int64_t total) {
    std::string line;
    for (const auto& [n, what] : parts) {
      if (n > 0) StrAppend(&line, line.empty() ? "" : ", ", n, " ", what);
    }
    StrAppend(&line, line.empty() ? "" : ", ", total, " total");
    return line;
  };
  StrAppend(&text, "Test Suites: ",
            counts({{report->IntegerMember("numFailedTestSuites"), "failed"},
                    {report->IntegerMember("numPendingTestSuites"), "skipped"},
                    {report->IntegerMember("numPassedTestSuites"), "passed"}},
                   report->IntegerMember("numTotalTestSuites")),
            "\n");
  StrAppend(&text, "Tests:       ",
            counts({{report->IntegerMember("numFailedTests"), "failed"},
                    {report->IntegerMember("numPendingTests"), "skipped"},
                    {report->IntegerMember("numTodoTests"), "todo"},
                    {report->IntegerMember("numPassedTests"), "passed"}},
                   report->IntegerMember("numTotalTests")),
            "\n");
  return text;
}

// mocha's json reporter (`mocha --reporter json`): the text its spec reporter prints — the
// totals ("  77 passing (1031ms)", "  1 pending", "  12 failing"), then each failure numbered
// under them, "  1) Suite test:" (its `fullTitle`), with its error's stack (or message)
// indented. A report that does not parse whole (cut at its start, `| tail -200`, or after a
// wrapper's lines) is read a member at a time: mocha writes each on a line of its own, a test's
// "fullTitle" before its "err", whose "stack" or "message" says it failed (a test that passed
// has an empty one); no totals then. Nullopt when the output is no such report.
std::optional<std::string> MochaJsonText(std::string_view output) {
  if (output.find("\"fullTitle\": ") == std::string_view::npos) return std::nullopt;
  // The failures, in order: full title and what its error said.
  std::vector<std::pair<std::string, std::string>> failures;
  std::string totals;
  const size_t first = output.find_first_not_of(" \t\r\n");
  absl::StatusOr<core::Value> report = absl::NotFoundError("not whole");
  if (first != std::string_view::npos && output[first] == '{') {
    report = core::ParseJson(output.substr(first), "mocha --reporter json");
  }
  const core::Value* stats = report.ok() && report->is_object() ? report->Find("stats") : nullptr;
  const core::Value* listed =
      report.ok() && report->is_object() ? report->Find("failures") : nullptr;
  if (stats != nullptr && stats->is_object() && listed != nullptr && listed->is_array()) {
    StrAppend(&totals, "  ", stats->IntegerMember("passes"), " passing (",
              stats->IntegerMember("duration"), "ms)\n");
    const int64_t pending = stats->IntegerMember("pending");
    const int64_t failing = stats->IntegerMember("failures");
    if (pending > 0) StrAppend(&totals, "  ", pending, " pending\n");
    if (failing > 0) StrAppend(&totals, "  ", failing, " failing\n");
    for (const core::Value& failure : listed->as_array()) {
      if (!failure.is_object()) continue;
      const core::Value* err = failure.Find("err");
      std::string said = err != nullptr ? err->StringMember("stack") : "";
      if (said.empty() && err != nullptr) said = err->StringMember("message");
      failures.emplace_back(failure.StringMember("fullTitle"), std::move(said));
    }
  } else {
    absl::flat_hash_set<std::string> seen;
    std::string title, said;
    auto close = [&] {
      if (!title.empty() && !said.empty() && seen.insert(title).second) {
        failures.emplace_back(title, said);
      }
      said.clear();
    };
    for (std::string_view line : core::SplitLines(output)) {
      std::string_view member = Trim(line);
      if (!member.starts_with("\"fullTitle\": ") && !member.starts_with("\"stack\": ") &&
          !member.starts_with("\"message\": ")) {
        continue;
      }
      if (member.ends_with(',')) member.remove_suffix(1);
      absl::StatusOr<core::Value> one =
          core::ParseJson(StrCat("{", member, "}"), "mocha --reporter json");
      if (!one.ok() || !one->is_object()) continue;
      if (std::string t = one->StringMember("fullTitle"); !t.empty()) {
        close();
        title = std::move(t);
      } else if (std::string stack = one->StringMember("stack"); !stack.empty()) {
        said = std::move(stack);
      } else if (said.empty()) {
        said = one->StringMember("message");
      }
    }
    close();
    if (failures.empty()) return std::nullopt;
    StrAppend(&totals, "  ", failures.size(), " failing\n");
  }
  std::string text = totals;
  int index = 0;
  for (const auto& [title, said] : failures) {
    StrAppend(&text, "\n  ", ++index, ") ", title, ":\n");
    for (std::string_view line : core::SplitLines(said)) {
      StrAppend(&text, line.empty() ? "" : "     ", line, "\n");
    }
  }
  return text;
}

class TestShaper final : public core::Shaper {
 public:
  TestShaper() {
    meta_.id = "builtin-test";
    meta_.name = "test";
    meta_.version = "1.0.0";
    meta_.description =
        "Test runners: failures verbatim with their assertions and locations, passes counted";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "test";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    RunnerGuess guess = GuessRunner(command, snippet);
    if (guess.confidence <= 0) return core::MatchResult{false, 0, {}};
    return core::MatchResult{true, guess.confidence,
                             {std::string(RunnerName(guess.runner)), guess.signal}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    // The same bounded view match() had: signals are in the head and the tail.
    const RunnerGuess guess = GuessRunner(context.command, core::MakeSnippet(output));
    // `go test -json`: read as the text its events carry, what `go test -v` prints.
    if (guess.runner == TestRunner::kGo) {
      if (const std::optional<std::string> text = GoTestJsonText(output)) {
        return ShapeText(*text, context, guess);
      }
    }
    // `jest --json`, vitest's json reporter: read as the text jest prints (JestJsonText).
    if (guess.runner == TestRunner::kJest || guess.runner == TestRunner::kVitest) {
      if (const std::optional<std::string> text = JestJsonText(output)) {
        RunnerGuess as_jest = guess;
        as_jest.runner = TestRunner::kJest;
        const bool vitest =
            guess.runner == TestRunner::kVitest || ToolName(context.command) == "vitest";
        return ShapeText(*text, context, as_jest, vitest ? "vitest" : "");
      }
    }
    if (guess.runner == TestRunner::kMocha) {
      if (const std::optional<std::string> text = MochaJsonText(output)) {
        return ShapeText(*text, context, guess);
      }
    }
    return ShapeText(output, context, guess);
  }

 private:
  // `name`: what the summary calls the runner, when not the one whose format is read (vitest's
  // json report is jest's).
  core::ShapeOutput ShapeText(std::string_view output, const core::ShapeContext& context,
                              const RunnerGuess& guess, std::string_view name = {}) {
    std::vector<std::string_view> lines = core::SplitLines(output);
    TestReport report = ParseTestOutput(guess.runner, lines);
    // A TAP stream is named by the program that printed it (bats, a test script), node's by
    // the runner, `node --test`.
    std::string runner(name.empty() ? RunnerName(report.runner) : name);
    if (const std::string tool = ToolName(context.command);
        report.runner == TestRunner::kTap && !tool.empty()) {
      if (tool != "node") {
        runner = tool;
      } else if (CommandMentions(context.command, {"--test"})) {
        runner = "node --test";
      }
    }
    // Haskell's hspec prints RSpec's format, and its own way to rerun a failure.
    if (report.runner == TestRunner::kRspec &&
        output.find("To rerun use: --match ") != std::string_view::npos) {
      runner = "hspec";
    }
    const bool exit_ok = !context.exit_code || *context.exit_code == 0;
    const bool failed = !report.failures.empty() || !report.index.empty() ||
                        report.counts.failed.value_or(0) > 0 ||
                        report.counts.errors.value_or(0) > 0 || report.packages_not_built > 0 ||
                        report.packages_failed > 0 || report.said_failed;
    SummaryWriter out(&lines);

    if (!report.has_results && report.failures.empty()) {
      // No test results in the output: claim nothing about tests but what it says it listed.
      std::string note = ExitNote(context.exit_code);
      const std::string_view collected = CollectedLine(lines);
      out.Header(StrCat(runner, ": ",
                        collected.empty() ? "no test results in the output"
                                          : StrCat(collected, ", none run"),
                        note.empty() ? "" : StrCat(" (", note, ")")));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    std::string counts = CountsText(report.counts);
    if (counts.empty() && report.runner == TestRunner::kPytest && report.totals.empty()) {
      // No totals (`pytest | grep -E 'FAILED|ERROR'`): what the list of failures names, said
      // as that.
      uint64_t listed_failed = 0, listed_errors = 0;
      for (std::string_view line : report.index) {
        listed_failed += line.starts_with("FAILED ") ? 1 : 0;
        listed_errors += line.starts_with("ERROR ") ? 1 : 0;
      }
      if (listed_failed + listed_errors > 0) {
        TestCounts listed;
        if (listed_failed > 0) listed.failed = listed_failed;
        if (listed_errors > 0) listed.errors = listed_errors;
        counts = StrCat(CountsText(listed), " listed (no totals in the output)");
      }
    }
    if (!report.failed_count_words.empty() && report.failures.empty() &&
        report.counts.failed.value_or(0) == 0 && report.counts.errors.value_or(0) == 0) {
      // Its failures cut off: what it counts of them, first.
      counts = counts.empty() ? std::string(report.failed_count_words)
                              : StrCat(report.failed_count_words, ", ", counts);
    }
    if (const uint64_t built = report.packages_not_built - report.packages_not_set_up; built > 0) {
      StrAppend(&counts, counts.empty() ? "" : ", ", Plural(built, "package", "packages"),
                " did not build");
    }
    if (report.packages_not_set_up > 0) {
      StrAppend(&counts, counts.empty() ? "" : ", ",
                Plural(report.packages_not_set_up, "package", "packages"),
                " could not be set up");
    }
    if (report.packages_failed > 0 && report.counts.failed.value_or(0) == 0) {
      // (Its failing tests cut off: the packages' verdict is what is left.)
      StrAppend(&counts, counts.empty() ? "" : ", ",
                Plural(report.packages_failed, "package", "packages"), " failed");
    }
    const bool cut_by_head = CutByHead(context.command);
    if (!failed && exit_ok && (report.totals.empty() || cut_by_head)) {
      // Results but not the runner's totals, or an output `head` let through (its exit status
      // is head's): the end, where the verdict is, is not here. Nothing failed in what is
      // here; no claim that the run passed.
      std::string note = ExitNote(context.exit_code);
      out.Header(StrCat(runner, ": ",
                        cut_by_head ? "shown through head (its end may be cut)"
                                    : "no totals in the output (cut short?)",
                        "; in what it shows: ",
                        counts.empty() ? Plural(report.passing_lines, "test passed", "tests passed")
                                       : counts,
                        ", none failed", note.empty() ? "" : StrCat(" (", note, ")")));
      WriteHeadTail(lines, 10, 10, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }
    if (!failed && exit_ok) {
      // Success collapses to one line: the counts, then the runner's own totals lines (trimmed,
      // otherwise verbatim), which carry the time.
      std::string line = StrCat(runner, ": passed");
      if (!counts.empty()) StrAppend(&line, " — ", counts);
      if (report.totals.size() <= 8) {
        for (std::string_view totals : report.totals) {
          // A line that counts no test adds nothing to the counts: cargo's "test result: ok. 0
          // passed; 0 failed; …; finished in 0.00s" of a crate without tests, jest's "Ran all
          // test suites.". The runner's verdict in words stays ("All tests successful.",
          // "Result: PASS").
          std::string_view t = Unframe(totals);
          t = t.substr(0, std::min(t.size(), t.find("finished in")));
          if (t.find_first_of("123456789") == std::string_view::npos &&
              (t.find("0 passed") != std::string_view::npos || t.starts_with("Ran all "))) {
            continue;
          }
          StrAppend(&line, " · ", Unframe(totals));
        }
      }
      out.Header(line);
      if (report.totals.size() > 8) {
        // Many (go test's line per package): below the header, up to 16, the others counted.
        uint64_t more = 0;
        for (const auto& [count, what] : report.elided) {
          if (what == kMorePackageLines) more += count;
        }
        out.Lines(report.totals);
        if (more > 0) out.Line(StrCat("… ", more, " more lines like these"));
      }
      WriteCoverage(CoverageReport(lines), out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    std::string verdict = failed ? "FAILED" : ExitNote(context.exit_code);
    std::string header = StrCat(runner, ": ", verdict);
    if (!counts.empty()) StrAppend(&header, " — ", counts);
    // Its totals not shown, and the status head's: what it shows is not all there was.
    if (failed && cut_by_head && report.totals.empty()) {
      StrAppend(&header, " (shown through head: its end may be cut)");
    }
    if (failed && context.exit_code && *context.exit_code != 0) {
      StrAppend(&header, " (", ExitNote(context.exit_code), ")");
    }
    out.Header(header);

    // A list line that names one failure more fully than its block does is shown as that
    // block's heading, in the place of the block's own: the id once, where the failure is.
    // pytest's "FAILED tests/test_x.py::test_tier[10-5] - assert 0 == 5" (the id an agent reruns
    // it with) for its "____ test_tier[10-5] ____" banner; any runner's line that names it more
    // fully or where its block does not, RSpec's "rspec ./spec/cart_spec.rb:14 # Cart#add counts
    // items" (the command that reruns it) for its "1) Cart#add counts items".
    const bool pytest = report.runner == TestRunner::kPytest;
    std::vector<std::string_view> heading(report.failures.size());
    std::vector<bool> index_shown(report.index.size(), false);
    for (size_t k = 0; k < report.index.size(); ++k) {
      const std::string_view line = report.index[k];
      if (pytest && !line.starts_with("FAILED ") && !line.starts_with("ERROR ")) continue;
      size_t match = 0, matches = 0;
      bool fuller = false;
      for (size_t f = 0; f < report.failures.size(); ++f) {
        const std::string id = pytest ? PytestId(report.failures[f].name, line)
                                      : std::string(report.failures[f].name);
        if (!NamesTest(line, id)) continue;
        ++matches;
        match = f;
        fuller = NamesMoreFully(line, id) || (!pytest && LocatesBeyond(line, report.failures[f]));
      }
      if (matches == 1 && fuller && heading[match].empty()) {
        heading[match] = line;
        index_shown[k] = true;
      }
    }
    size_t index = 0;
    Dropped dropped;  // what the blocks shown in full left out
    // The cases of one assertion (the same failing source line at the same location: a
    // parametrized test): the first as printed, the others on a line each after it.
    std::vector<std::vector<size_t>> cases;   // per group of one assertion, its failures
    std::vector<size_t> group_of(report.failures.size(), SIZE_MAX);
    {
      absl::flat_hash_map<std::string, size_t> groups;
      for (size_t f = 0; f < report.failures.size(); ++f) {
        std::string kind = KindOf(report.failures[f]);
        if (kind.empty()) continue;
        const auto [it, added] = groups.try_emplace(std::move(kind), cases.size());
        if (added) cases.emplace_back();
        cases[it->second].push_back(f);
        group_of[f] = it->second;
      }
    }
    auto folded = [&](size_t f) { return group_of[f] != SIZE_MAX && cases[group_of[f]].size() > 1; };
    // The line naming a file above its failures (jest's "FAIL tests/cart.test.js"), where the
    // runner printed it: which file a test is in, said once before its first failure shown.
    std::string_view file_line;
    auto write_file_line = [&](const TestFailure& failure) {
      if (failure.file_line.empty() || failure.file_line.data() == file_line.data()) return;
      file_line = failure.file_line;
      out.Line(file_line);
      for (size_t k = 0; k < report.index.size(); ++k) {
        if (report.index[k].data() == file_line.data()) index_shown[k] = true;
      }
    };
    for (size_t f = 0; f < report.failures.size(); ++f) {
      if (folded(f) && cases[group_of[f]].front() != f) continue;  // after the first
      write_file_line(report.failures[f]);
      TestFailure headed;
      if (!heading[f].empty()) {
        headed = report.failures[f];
        headed.detail.front() = heading[f];
      }
      const TestFailure& failure = heading[f].empty() ? report.failures[f] : headed;
      // The same failure again (a broken fixture failing many tests): say so, do not repeat.
      const TestFailure* same = nullptr;
      for (size_t g = 0; g < f && same == nullptr && !folded(f); ++g) {
        const auto& a = report.failures[g].detail;
        const auto& b = failure.detail;
        // A block of one line more than its heading is shown: the marker would cost more.
        if (a.size() == b.size() && a.size() > 2 && std::equal(a.begin() + 1, a.end(), b.begin() + 1)) {
          same = &report.failures[g];
        }
      }
      if (same != nullptr) {
        out.Line(failure.detail.front());
        uint64_t n = failure.detail.size() - 1;
        out.ElidedLines(n, StrCat(n == 1 ? "line" : "lines", " identical to the failure of ",
                                  same->name, " omitted"));
        continue;
      }
      if (index++ < kFullFailures) {
        WriteBlock(failure.detail, report.runner, out, &dropped);
      } else {
        WriteCompact(failure, out);
      }
      if (folded(f)) {
        const std::vector<size_t>& group = cases[group_of[f]];
        uint64_t rest = 0;
        for (size_t k = 1; k < group.size(); ++k) {
          rest += WriteCase(report.failures[group[k]], heading[group[k]], report.failures[f], out);
        }
        out.ElidedLines(rest, StrCat(rest == 1 ? "more line" : "more lines",
                                     " of these failures omitted, as in ", report.failures[f].name));
      }
    }
    WriteDropped(dropped, out);
    // The runner's list of failures: a line for a test shown above is counted, unless it names
    // the test more fully than the block did (pytest's `FAILED path::name[param] - …`, the id
    // an agent passes back to rerun it): then it is kept, as printed. Other lines are kept.
    uint64_t listed = 0;
    for (size_t k = 0; k < report.index.size(); ++k) {
      const std::string_view line = report.index[k];
      if (index_shown[k]) continue;  // a block's heading
      bool shown = false;
      bool fuller = false;
      for (const TestFailure& failure : report.failures) {
        if (!NamesTest(line, failure.name) &&
            !(report.runner == TestRunner::kSurefire && MavenListNames(line, failure))) {
          continue;
        }
        shown = true;
        fuller = fuller || NamesMoreFully(line, failure.name) || LocatesBeyond(line, failure);
      }
      if (shown && !fuller) {
        ++listed;
      } else if (k < report.index_locations.size() && !report.index_locations[k].empty()) {
        // pytest --tb=line: where it failed, its message said once and whole (the list cuts it
        // to the terminal's width): "FAILED tests/x.py::test_a - assert 0 == 5 (at
        // /app/tests/x.py:35)".
        const std::string_view tb = report.index_locations[k];
        const std::string_view location = LocationPrefix(tb);
        const size_t dash = PytestMessageDash(line);
        out.Composed(StrCat(dash == std::string_view::npos ? line : line.substr(0, dash), " - ",
                            tb.substr(location.size() + 2), " (at ", location, ")"),
                     {line, tb});
      } else {
        out.Line(line);
      }
    }
    out.ElidedLines(listed, listed == 1 ? "line of the runner's list of failures omitted"
                                        : "lines of the runner's list of failures omitted");
    size_t problems = 0;
    for (std::string_view line : report.problems) {
      if (problems++ < kMaxProblemLines) out.Line(line);
    }
    if (report.problems.size() > kMaxProblemLines) {
      out.Elided(report.problems.size() - kMaxProblemLines, "more lines omitted");
    }
    if (!failed && report.failures.empty() && report.problems.empty() && report.index.empty()) {
      // A non-zero exit with no failure the runner reported: show where it says why.
      WriteHeadTail(lines, 10, 15, LooksLikeErrorLine, 50, out);
      out.Lines(report.totals);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }
    WriteCoverage(CoverageReport(lines), out);
    // Passed tests left out, when the output shows them a line each (`-v`, a spec list): an
    // output with none (jest's and pytest's defaults, a run cut to its failures by `tail`)
    // leaves none out, whatever its totals count.
    const uint64_t passed =
        report.passing_lines == 0 ? 0 : report.counts.passed.value_or(report.passing_lines);
    out.Omitted(passed, "passed test", "passed tests");
    uint64_t elided_lines = 0;
    for (const auto& [count, what] : report.elided) {
      out.Elided(count, what);
      elided_lines += count;
    }
    // Everything else (progress, collection chatter, captured output of passing tests) is
    // counted in one marker. The totals lines follow it.
    uint64_t totals_unshown = report.totals.size();
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min(rest, report.passing_lines + totals_unshown + elided_lines);
    out.Omitted(rest, "other line", "other lines");
    out.Lines(report.totals);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, failed};
  }

 private:
  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeTestShaper() { return std::make_shared<TestShaper>(); }

}  // namespace plugline::builtin

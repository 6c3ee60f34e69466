// Parsers for test runners' output. Each reads lines as the runner prints them (verbose and
// quiet modes) and fills a TestReport with views into the output.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "builtin/common.h"
#include "builtin/test_report.h"
#include "core/strings.h"

namespace plugline::builtin {
namespace {

bool AllOf(std::string_view s, char c, size_t min_len) {
  return s.size() >= min_len && s.find_first_not_of(c) == std::string_view::npos;
}

// "=== title ===" (pytest sections) -> "title"; empty when the line is not one.
std::string_view FramedTitle(std::string_view line, char frame) {
  if (line.size() < 7 || line[0] != frame || line.back() != frame) return {};
  size_t b = line.find_first_not_of(frame);
  size_t e = line.find_last_not_of(frame);
  if (b == std::string_view::npos) return {};
  // pytest pads a title too long for the width with fewer: "== 47 failed, … in 0.45s ===",
  // down to one on each side, always with a space between.
  if ((b < 3 || line.size() - 1 - e < 3) && (line[b] != ' ' || line[e] != ' ')) return {};
  std::string_view inner = Trim(line.substr(b, e - b + 1));
  return inner;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void Add(std::optional<uint64_t>& field, std::optional<uint64_t> value) {
  if (!value) return;
  field = field.value_or(0) + *value;
}

void TrimTrailingBlank(std::vector<std::string_view>& lines) {
  while (!lines.empty() && IsBlank(lines.back())) lines.pop_back();
}

void CloseFailure(TestReport& report, TestFailure* current) {
  if (current != nullptr) TrimTrailingBlank(current->detail);
}

// ---- pytest ---------------------------------------------------------------------------------

bool IsPytestCounts(std::string_view text) {
  // "2 failed, 32 passed, 1 warning in 0.08s", "no tests ran in 0.01s", "1 error in 0.2s"
  if (text.find(" in ") == std::string_view::npos) return false;
  static constexpr std::string_view kWords[] = {"passed", "failed", "error", "skipped",
                                                "xfailed", "xpassed", "deselected",
                                                "no tests ran", "warning"};
  bool word = false;
  for (std::string_view w : kWords) word = word || text.find(w) != std::string_view::npos;
  if (!word) return false;
  size_t in = text.rfind(" in ");
  std::string_view tail = Trim(text.substr(in + 4));
  return !tail.empty() && IsDigit(tail[0]);
}

// "==== 1 failed, 3 passed in 0.12s ====", "==== FAILURES ====": pytest's verdict, or a section
// of its report, between its rules (not any line of '=' over an error, such as a sanitizer's
// report starts with).
bool HasPytestRuledLine(std::string_view output) {
  for (size_t at = output.find("=="); at != std::string_view::npos;
       at = output.find("==", at + 2)) {
    if (at > 0 && output[at - 1] != '\n') continue;
    const size_t end = std::min(output.find('\n', at), output.size());
    std::string_view line = output.substr(at, end - at);
    if (!line.ends_with("==")) continue;
    while (!line.empty() && line.front() == '=') line.remove_prefix(1);
    while (!line.empty() && line.back() == '=') line.remove_suffix(1);
    if (!line.starts_with(" ") || !line.ends_with(" ")) continue;
    line = Trim(line);
    if (IsPytestCounts(line) || line == "FAILURES" || line == "ERRORS" ||
        line == "short test summary info" || line == "warnings summary") {
      return true;
    }
  }
  return false;
}

void ReadPytestCounts(std::string_view text, TestCounts& counts) {
  counts.passed = CountBefore(text, "passed");
  counts.failed = CountBefore(text, "failed");
  counts.errors = CountBefore(text, "error");
  counts.skipped = CountBefore(text, "skipped");
}

// The warnings pytest's summary shows, each "  path.py:33: DeprecationWarning: message": kept up
// to this many, the rest counted.
constexpr size_t kMaxPytestWarnings = 20;

// A progress line of pytest's default output that marks failures or errors:
// "tests/test_pricing.py ..F....F.FFFF                [ 61%]". The marks, or "".
std::string_view PytestFailedMarks(std::string_view line) {
  const size_t py = line.find(".py ");
  if (py == std::string_view::npos || line.find("::") != std::string_view::npos) return {};
  std::string_view marks = Trim(line.substr(py + 4));
  if (const size_t bracket = marks.rfind(" ["); bracket != std::string_view::npos && marks.ends_with("%]")) {
    marks = Trim(marks.substr(0, bracket));
  }
  if (marks.empty() || marks.find_first_not_of(".FEsxX") != std::string_view::npos) return {};
  return marks.find_first_of("FE") != std::string_view::npos ? marks : std::string_view();
}

// pytest --tb=line prints each failure as "path:line: message" under FAILURES, and its short
// summary lists them again in the same order, "FAILED tests/x.py::test_a - message" (the message
// cut to the terminal's width, "AssertionError: ass...", or left out when the id is long): when
// every FAILED line's message is its traceback line's, the start of it or none, each list line
// gets its traceback line (TestReport::index_locations) and those lines leave `problems`.
void PairPytestLineTracebacks(const std::vector<std::string_view>& tb_lines, TestReport& report) {
  if (tb_lines.empty()) return;
  std::vector<size_t> listed;  // the FAILED lines of the list, by position in `index`
  for (size_t k = 0; k < report.index.size(); ++k) {
    if (report.index[k].starts_with("FAILED ")) listed.push_back(k);
  }
  if (listed.size() != tb_lines.size()) return;
  for (size_t k = 0; k < listed.size(); ++k) {
    const std::string_view item = report.index[listed[k]];
    const size_t dash = PytestMessageDash(item);
    const std::string_view location = LocationPrefix(tb_lines[k]);
    if (!tb_lines[k].substr(location.size()).starts_with(": ")) return;
    if (dash == std::string_view::npos) continue;  // no message: the order pairs them
    const std::string_view said = item.substr(dash + 3);
    const std::string_view message = tb_lines[k].substr(location.size() + 2);
    if (said != message && !(said.ends_with("...") && said.size() > 3 &&
                             message.starts_with(said.substr(0, said.size() - 3)))) {
      return;
    }
  }
  report.index_locations.assign(report.index.size(), std::string_view());
  for (size_t k = 0; k < listed.size(); ++k) report.index_locations[listed[k]] = tb_lines[k];
  absl::flat_hash_set<const char*> paired;
  for (std::string_view tb : tb_lines) paired.insert(tb.data());
  std::erase_if(report.problems,
                [&](std::string_view line) { return paired.contains(line.data()); });
}

// A name, dotted or not: "KeyError", "requests.exceptions.HTTPError".
bool IsDottedName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  }
  return true;
}

// The line that ends a failure's traceback under pytest's FAILURES: where it was raised and the
// exception's name, "tests/test_tax.py:22: KeyError", "pricing/tax.py:16: AssertionError".
bool IsPytestRaisedLine(std::string_view line) {
  const std::string_view location = LocationPrefix(line);
  if (location.empty() || location.find(".py:") == std::string_view::npos) return false;
  const std::string_view name = line.substr(location.size());
  return name.starts_with(": ") && IsDottedName(name.substr(2));
}

// A frame of pytest's short traceback, a collection error's: "legacy_tests/test_x.py:3: in
// <module>".
bool IsPytestFrameLine(std::string_view line) {
  const std::string_view location = LocationPrefix(line);
  return !location.empty() && location.find(".py:") != std::string_view::npos &&
         line.substr(location.size()).starts_with(": in ");
}

// --tb=line's failure: "/src/tests/test_tax.py:16: KeyError: 'de'" at the margin, a Python file's
// location and what was raised there (not a warning printed before the run).
bool IsPytestLineTraceback(std::string_view line) {
  const std::string_view location = LocationPrefix(line);
  return !location.empty() && location.find(".py:") != std::string_view::npos &&
         line.substr(location.size()).starts_with(": ") && !IsPytestFrameLine(line) &&
         line.find("Warning: ") == std::string_view::npos;
}

// Whether an output begins inside pytest's FAILURES or ERRORS section, cut at its start
// (`pytest 2>&1 | tail -40`): before any of the report's ruled titles, a failure's heading
// ("____ test_a ____"), the end of a traceback (IsPytestRaisedLine), or a traceback's frame
// and the error pytest marks "E" under it (a collection error's: no raised line ends it),
// --tb=line's one-line failures, or --tb=native's frames ("  File "/src/x.py", line 16, in f").
bool StartsInsidePytestFailures(const std::vector<std::string_view>& lines) {
  bool frame = false;
  for (std::string_view line : lines) {
    if (!FramedTitle(line, '=').empty()) return false;
    const std::string_view name = FramedTitle(line, '_');
    if ((!name.empty() && name.find_first_not_of("_ ") != std::string_view::npos) ||
        IsPytestRaisedLine(line) || (frame && line.starts_with("E   ")) ||
        IsPytestLineTraceback(line) ||
        (line.starts_with("  File \"") && line.find("\", line ") != std::string_view::npos)) {
      return true;
    }
    frame = frame || IsPytestFrameLine(line);
  }
  return false;
}

// Whether an output cut at its start begins inside pytest's "short test summary info": every
// line before the report's first ruled title is one of its entries ("FAILED tests/a.py::test_x -
// KeyError: …", "XFAIL …", "SKIPPED [1] …", -rA's "PASSED …").
bool StartsInsidePytestShortSummary(const std::vector<std::string_view>& lines) {
  bool any = false;
  for (std::string_view line : lines) {
    // (-q prints the counts without the frame.)
    if (!FramedTitle(line, '=').empty() || (IsPytestCounts(line) && LeadingNumber(line))) {
      return any;
    }
    if (IsBlank(line)) continue;
    bool entry = false;
    for (std::string_view word : {"FAILED ", "ERROR ", "PASSED ", "XFAIL ", "XPASS "}) {
      entry = entry || (line.starts_with(word) && line.find("::") != std::string_view::npos);
    }
    if (!entry && !line.starts_with("SKIPPED [")) return false;
    any = true;
  }
  return false;
}

// A warning under pytest's "warnings summary": where and what, "  inventory/models.py:33:
// DeprecationWarning: duplicate sku C-3".
bool IsPytestWarningLine(std::string_view line) {
  const std::string_view t = Trim(line);
  return line.starts_with("  ") && t.find(": ") != std::string_view::npos &&
         t.find("Warning: ") != std::string_view::npos && t.find(".py:") != std::string_view::npos;
}

// Whether an output cut at its start begins inside pytest's "warnings summary": one of its
// warnings, or its closing link to the docs, before the report's first ruled title.
bool StartsInsidePytestWarnings(const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) {
    if (!FramedTitle(line, '=').empty()) return false;
    if (IsPytestWarningLine(line) || line.starts_with("-- Docs: https://docs.pytest.org")) {
      return true;
    }
  }
  return false;
}

void ParsePytest(const std::vector<std::string_view>& lines, TestReport& report) {
  enum class Section { kNone, kFailures, kShortSummary, kWarnings, kDurations, kOther } section =
      StartsInsidePytestFailures(lines)        ? Section::kFailures
      : StartsInsidePytestShortSummary(lines) ? Section::kShortSummary
      : StartsInsidePytestWarnings(lines)     ? Section::kWarnings
                                              : Section::kNone;
  TestFailure* current = nullptr;
  size_t warnings = 0;
  // Progress lines that marked failures: the only word of them when the run crashes.
  std::vector<std::string_view> failed_progress;
  // --tb=line: a failure is one line, "path:line: message", under FAILURES.
  std::vector<std::string_view> tb_lines;
  for (std::string_view line : lines) {
    std::string_view title = FramedTitle(line, '=');
    if (!title.empty()) {
      CloseFailure(report, current);
      current = nullptr;
      if (IsPytestCounts(title)) {
        report.totals.push_back(line);
        ReadPytestCounts(title, report.counts);
        report.has_results = true;
        section = Section::kNone;
      } else if (title == "FAILURES" || title == "ERRORS") {
        section = Section::kFailures;
      } else if (title.starts_with("short test summary")) {
        section = Section::kShortSummary;
      } else if (title == "warnings summary") {
        section = Section::kWarnings;
      } else if (title.starts_with("slowest ") && title.ends_with(" durations")) {
        // --durations=N: what the run was asked for, kept.
        section = Section::kDurations;
        report.problems.push_back(line);
      } else {
        section = Section::kOther;  // test session starts, warnings summary, PASSES, ...
      }
      continue;
    }
    // pytest-cov's report ("---------- coverage: platform linux, … ----------") is a section of
    // its own, after the failures: not part of the last one.
    if (const std::string_view cov = FramedTitle(line, '-'); cov.starts_with("coverage: ")) {
      CloseFailure(report, current);
      current = nullptr;
      section = Section::kOther;
      continue;
    }
    if (section != Section::kFailures &&
        ((IsPytestCounts(line) && LeadingNumber(line)) || Trim(line).starts_with("no tests ran in"))) {
      report.totals.push_back(line);  // -q prints the counts without the frame
      ReadPytestCounts(line, report.counts);
      report.has_results = true;
      continue;
    }
    switch (section) {
      case Section::kFailures: {
        // An entry of the short summary under a failure's heading: the lines between were left
        // out by a filter (`pytest | grep -E 'FAILED|ERROR'` keeps the ERRORS title, a setup
        // error's heading, then the entries), its title with them. pytest prints the summary
        // after every failure: it starts here.
        if (line.starts_with("FAILED ") || line.starts_with("ERROR ")) {
          const std::string_view id = line.substr(line.find(' ') + 1);
          const std::string_view path = id.substr(0, id.find(' '));
          if (path.find("::") != std::string_view::npos || path.ends_with(".py")) {
            CloseFailure(report, current);
            current = nullptr;
            section = Section::kShortSummary;
            report.index.push_back(line);
            break;
          }
        }
        std::string_view name = FramedTitle(line, '_');
        if (!name.empty()) {
          CloseFailure(report, current);
          report.failures.push_back(TestFailure{name, {line}});
          current = &report.failures.back();
        } else if (current != nullptr) {
          current->detail.push_back(line);
        } else if (!IsBlank(line)) {
          report.problems.push_back(line);
          if (StartsWithLocation(line)) tb_lines.push_back(line);
        }
        break;
      }
      case Section::kShortSummary:
        // -rA lists the tests that passed too: counted with them.
        if (line.starts_with("PASSED ")) {
          ++report.passing_lines;
        } else if (!IsBlank(line)) {
          report.index.push_back(line);
        }
        break;
      case Section::kDurations:
        // "0.60s call     tests/test_x.py::test_slow_report", and the note on the ones hidden.
        if (!IsBlank(line)) report.problems.push_back(line);
        break;
      case Section::kWarnings:
        if (IsPytestWarningLine(line) && warnings++ < kMaxPytestWarnings) {
          report.problems.push_back(line);
        }
        break;
      case Section::kNone:
      case Section::kOther:
        if (current != nullptr) {
          current->detail.push_back(line);  // a crash's dump
          break;
        }
        if (const size_t fatal = line.find("Fatal Python error: "); fatal != std::string_view::npos) {
          // The interpreter crashed (a segfault in an extension, an abort): faulthandler's
          // dump of the threads' stacks follows, and pytest never gets to its report. The
          // crash is the run's failure, after the progress lines that marked others.
          for (std::string_view progress : failed_progress) report.problems.push_back(progress);
          failed_progress.clear();
          report.failures.push_back(TestFailure{Trim(line.substr(fatal)), {line}});
          current = &report.failures.back();
          break;
        }
        if (!PytestFailedMarks(line).empty()) failed_progress.push_back(line);
        if (line.find(" PASSED") != std::string_view::npos && line.find("::") != std::string_view::npos) {
          ++report.passing_lines;
          report.has_results = true;
        } else if (line.find("::") != std::string_view::npos &&
                   (line.find(" FAILED") != std::string_view::npos ||
                    line.find(" ERROR") != std::string_view::npos) &&
                   !line.starts_with("FAILED ") && !line.starts_with("ERROR ")) {
          failed_progress.push_back(line);  // -v: "tests/x.py::test_a FAILED  [ 82%]"
          report.has_results = true;
        } else if (line.starts_with("Interrupted:") || line.starts_with("ERROR: ") ||
                   line.starts_with("ImportError") || line.starts_with("E   ")) {
          report.problems.push_back(line);
        }
        break;
    }
  }
  CloseFailure(report, current);
  if (warnings > kMaxPytestWarnings) {
    report.elided.emplace_back(warnings - kMaxPytestWarnings, "more warning lines omitted");
  }
  PairPytestLineTracebacks(tb_lines, report);
  // An output cut before pytest's report (`pytest -v | head -40`, a run killed): the result
  // lines that marked failures are the only word of them — the run's list of what failed.
  if (report.totals.empty() && report.failures.empty() && report.index.empty()) {
    for (std::string_view line : failed_progress) report.index.push_back(line);
  }
}

// ---- unittest -------------------------------------------------------------------------------

// Whether an output cut at its start (`python -m unittest 2>&1 | tail -30`) begins inside a
// failure's block: above the first block's rule, a traceback's lines or its error rather than
// the run's progress.
bool StartsInsideUnittestFailure(const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) {
    if (AllOf(line, '=', 20) || (line.starts_with("Ran ") && line.find(" test") != std::string_view::npos)) {
      return false;
    }
    if (line.starts_with("Traceback (most recent call last):") || line.starts_with("  File \"")) {
      return true;
    }
    // The error that ends one: "AssertionError: 2 != 6", "KeyError: 'de'".
    const std::string_view name = line.substr(0, line.find(": "));
    if (name.size() < line.size() && (name.ends_with("Error") || name.ends_with("Exception")) &&
        IsDottedName(name)) {
      return true;
    }
  }
  return false;
}

void ParseUnittest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  // Cut inside a failure: the lines above the first block end it (its traceback, its error).
  bool cut = StartsInsideUnittestFailure(lines);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (cut && !AllOf(line, '=', 20)) {
      if (!IsBlank(line)) report.problems.push_back(line);
      continue;
    }
    cut = false;
    if (AllOf(line, '=', 20)) {
      CloseFailure(report, current);
      current = nullptr;
      // A test marked @expectedFailure that passed fails the run: "UNEXPECTED SUCCESS: test_x".
      if (i + 1 < lines.size() &&
          (lines[i + 1].starts_with("FAIL: ") || lines[i + 1].starts_with("ERROR: ") ||
           lines[i + 1].starts_with("UNEXPECTED SUCCESS: "))) {
        std::string_view heading = lines[i + 1];
        report.failures.push_back(TestFailure{heading.substr(heading.find(": ") + 2), {heading}});
        current = &report.failures.back();
        ++i;
      }
      continue;
    }
    if (line.starts_with("Ran ") && line.find(" test") != std::string_view::npos) {
      CloseFailure(report, current);
      current = nullptr;
      report.totals.push_back(line);
      report.counts.total = LeadingNumber(line.substr(4));
      report.has_results = true;
      // The verdict follows after a blank line: "OK", "OK (skipped=1)", "FAILED (failures=2)".
      for (size_t j = i + 1; j < lines.size() && j <= i + 3; ++j) {
        std::string_view verdict = Trim(lines[j]);
        if (verdict.starts_with("OK") || verdict.starts_with("FAILED")) {
          report.totals.push_back(lines[j]);
          // A key whole: "failures=" is not the end of "expected failures=1", which passed.
          auto value = [&](std::string_view key) -> std::optional<uint64_t> {
            for (std::string_view before : {"(", ", "}) {
              const size_t at = verdict.find(StrCat(before, key));
              if (at != std::string_view::npos) {
                return LeadingNumber(verdict.substr(at + before.size() + key.size()));
              }
            }
            return std::nullopt;
          };
          report.counts.failed =
              value("failures=").value_or(0) + value("unexpected successes=").value_or(0);
          report.counts.errors = value("errors=").value_or(0);
          report.counts.skipped = value("skipped=");
          // unittest prints no pass count, and errors in setUpClass are not tests run: the
          // number that passed cannot be derived exactly, so it is not stated.
          i = j;
          break;
        }
      }
      continue;
    }
    if (current != nullptr) {
      if (AllOf(line, '-', 20)) {
        // The dash line under the heading is decoration; one before "Ran" ends the block.
        if (current->detail.size() == 1) continue;
        CloseFailure(report, current);
        current = nullptr;
        continue;
      }
      current->detail.push_back(line);
      continue;
    }
    if (line.ends_with(" ... ok") || line.ends_with(" ... ok\r") ||
        line.ends_with(" ... expected failure")) {
      ++report.passing_lines;
    } else if (line.ends_with("... FAIL") || line.ends_with("... ERROR")) {
      // Listed again with details below.
    } else if (line.starts_with("Traceback ") || line.starts_with("ImportError") ||
               line.starts_with("ModuleNotFoundError")) {
      report.problems.push_back(line);
    }
  }
  CloseFailure(report, current);
}

// ---- jest -----------------------------------------------------------------------------------

bool IsJestTotals(std::string_view line) {
  return line.starts_with("Test Suites:") || line.starts_with("Tests:") ||
         line.starts_with("Snapshots:") || line.starts_with("Time:") ||
         line.starts_with("Ran all test suites");
}

// What tests printed (console.log, a test's stdout and stderr) is no failure. An entry of a
// warning's or an error's kind keeps its heading and its message's first line, up to
// kMaxConsoleKept entries, a message kept once; the rest is counted.
constexpr size_t kMaxConsoleKept = 5;

class ConsoleOutput {
 public:
  explicit ConsoleOutput(TestReport& report) : report_(report) {}

  // An entry's heading ("    console.warn", "stderr | tests/x.test.js > suite > name").
  void Entry(std::string_view heading, bool warning) {
    keep_next_ = warning && kept_ < kMaxConsoleKept;
    heading_ = heading;
    if (!keep_next_) ++counted_;
  }
  // Any other line of the output: the message, where it was called, blank lines.
  void Line(std::string_view line) {
    const std::string_view text = Trim(line);
    if (!keep_next_ || text.empty()) {
      ++counted_;
      return;
    }
    keep_next_ = false;
    if (std::find(messages_.begin(), messages_.end(), text) != messages_.end()) {
      counted_ += 2;
      return;
    }
    messages_.push_back(text);
    ++kept_;
    report_.problems.push_back(heading_);
    report_.problems.push_back(line);
  }
  void Finish() {
    if (counted_ > 0) {
      report_.elided.emplace_back(counted_, counted_ == 1 ? "line of console output omitted"
                                                          : "lines of console output omitted");
    }
  }

 private:
  TestReport& report_;
  std::string_view heading_;
  std::vector<std::string_view> messages_;
  bool keep_next_ = false;
  size_t kept_ = 0;
  uint64_t counted_ = 0;
};

// jest prints what a test file logged under "● Console": "    console.warn", the message
// indented below it, then where it was called ("at …", or a code frame).

bool IsJestConsoleKind(std::string_view t) {
  static constexpr std::string_view kKinds[] = {"console.log",  "console.info", "console.warn",
                                                "console.error", "console.debug",
                                                "console.trace", "console.dir",  "console.table",
                                                "console.group", "console.assert"};
  return std::find(std::begin(kKinds), std::end(kKinds), t) != std::end(kKinds);
}

void ParseJest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  std::string_view file_line;  // the last "FAIL tests/x.test.js": its failures follow
  bool in_summary_repeat = false;  // "Summary of all failing tests" repeats the blocks
  // Under "● Console": the output a test file printed, which is neither a failure nor a test.
  bool in_console = false;
  ConsoleOutput console(report);
  // An output cut inside a file's failures (`jest 2>&1 | tail -60`): a failure's heading, or a
  // line of one's code frame ("    > 24 |     const words = …") or stack ("      at words
  // (tests/ledger.test.js:24:48)"), before any file's result line; the lines above the first
  // heading end a failure whose heading was cut.
  auto is_part = [](std::string_view line, std::string_view t) {
    return t.starts_with("PASS ") || t.starts_with("FAIL ") || IsJestTotals(line) ||
           t == "● Console" || t.starts_with("Summary of all failing tests");
  };
  bool cut = false;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    // (What one test file run in band logs comes first, each entry with where it was called.)
    if (is_part(line, t) || IsJestConsoleKind(t)) break;
    if (t.starts_with("● ") || (t.starts_with("> ") && LeadingNumber(t.substr(2)) &&
                                 t.find(" |") != std::string_view::npos) ||
        (t.starts_with("at ") && t.ends_with(")") && t.find(':') != std::string_view::npos)) {
      cut = true;
      break;
    }
  }
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    if (cut && !t.starts_with("● ") && !is_part(line, t)) {
      if (!t.empty()) report.problems.push_back(line);
      continue;
    }
    cut = false;
    if (in_console && !(t.starts_with("● ") || line.starts_with("PASS ") ||
                        line.starts_with("FAIL ") || IsJestTotals(line) ||
                        t.starts_with("Summary of all failing tests") || t == "Snapshot Summary")) {
      if (IsJestConsoleKind(t)) {
        console.Entry(line, t == "console.warn" || t == "console.error" || t == "console.assert");
      } else {
        console.Line(line);
      }
      continue;
    }
    in_console = false;
    if (current == nullptr && line.starts_with("  console.") && IsJestConsoleKind(t)) {
      // A single test file runs in band, and what it logs is printed as it comes, before the
      // file's results, without the heading.
      in_console = true;
      console.Entry(line, t == "console.warn" || t == "console.error" || t == "console.assert");
      continue;
    }
    if (t == "Snapshot Summary" || (t.starts_with("› ") && t.find(" snapshot") != std::string_view::npos &&
                                    current == nullptr)) {
      // "Snapshot Summary" and its lines: what failed or was written, and how to update.
      CloseFailure(report, current);
      current = nullptr;
      report.totals.push_back(line);
      continue;
    }
    if (IsJestTotals(line)) {
      CloseFailure(report, current);
      current = nullptr;
      in_summary_repeat = false;
      report.totals.push_back(line);
      report.has_results = true;
      if (line.starts_with("Tests:")) {
        report.counts.failed = CountBefore(line, "failed");
        report.counts.passed = CountBefore(line, "passed");
        report.counts.skipped = CountBefore(line, "skipped");
        report.counts.total = CountBefore(line, "total");
      }
      continue;
    }
    if (t.starts_with("Summary of all failing tests")) {
      CloseFailure(report, current);
      current = nullptr;
      in_summary_repeat = true;
      continue;
    }
    if (in_summary_repeat) continue;
    if (line.starts_with("PASS ")) {
      CloseFailure(report, current);
      current = nullptr;
      file_line = {};
      continue;
    }
    if (line.starts_with("FAIL ")) {
      CloseFailure(report, current);
      current = nullptr;
      report.index.push_back(line);
      file_line = line;
      continue;
    }
    if (t == "● Console") {
      CloseFailure(report, current);
      current = nullptr;
      in_console = true;
      console.Line(line);
      continue;
    }
    if (t.starts_with("● ")) {
      CloseFailure(report, current);
      report.failures.push_back(
          TestFailure{t.substr(std::string_view("● ").size()), {line}, file_line});
      current = &report.failures.back();
      continue;
    }
    if (current != nullptr && IsCoverageTableHeading(t)) {
      // --coverage prints its table after the last failure, with nothing between: the table
      // (kept as the coverage report) ends the failure, with the rule above its heading.
      if (!current->detail.empty() && IsTableRule(Trim(current->detail.back()))) {
        current->detail.pop_back();
      }
      CloseFailure(report, current);
      current = nullptr;
      continue;
    }
    if (current != nullptr) {
      current->detail.push_back(line);
      continue;
    }
    if (t.starts_with("✓") || t.starts_with("√")) {
      ++report.passing_lines;
      report.has_results = true;
    }
  }
  CloseFailure(report, current);
  console.Finish();
}

// ---- vitest ---------------------------------------------------------------------------------

void ParseVitest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool in_failures = false;
  bool in_errors = false;
  // "stdout | tests/x.test.js > suite > name" (or "stderr | …"), what the test printed, a
  // blank line.
  bool in_console = false;
  ConsoleOutput console(report);
  // An output cut inside the failures (`vitest run 2>&1 | tail -60`): their separator
  // ("⎯⎯⎯[2/5]⎯") or a failure's heading before their section's title or the totals; the lines
  // above the first end a failure whose heading was cut off.
  bool cut = false;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (t.starts_with("Test Files ") || t.starts_with("Tests ") ||
        (t.starts_with("⎯") && t.find("Failed ") != std::string_view::npos)) {
      break;
    }
    if ((t.starts_with("⎯") && t.find("/") != std::string_view::npos && t.ends_with("]⎯")) ||
        (t.starts_with("FAIL ") && t.find(" > ") != std::string_view::npos)) {
      cut = in_failures = true;
      break;
    }
  }
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    if (cut) {
      if (!t.starts_with("⎯") && !t.starts_with("FAIL ")) {
        if (!t.empty()) report.problems.push_back(line);
        continue;
      }
      cut = false;
    }
    if (current == nullptr && !in_failures &&
        (line.starts_with("stdout | ") || line.starts_with("stderr | "))) {
      in_console = true;
      console.Entry(line, line.starts_with("stderr"));
      continue;
    }
    if (in_console) {
      console.Line(line);
      in_console = !t.empty();
      continue;
    }
    if (t.starts_with("Test Files ") || t.starts_with("Tests ") || t.starts_with("Start at ") ||
        t.starts_with("Duration ") || t.starts_with("Errors ")) {
      CloseFailure(report, current);
      current = nullptr;
      in_failures = in_errors = false;
      report.totals.push_back(line);
      report.has_results = true;
      if (t.starts_with("Tests ")) {
        report.counts.failed = CountBefore(t, "failed");
        report.counts.passed = CountBefore(t, "passed");
        report.counts.skipped = CountBefore(t, "skipped");
        size_t paren = t.rfind('(');
        if (paren != std::string_view::npos) report.counts.total = LeadingNumber(t.substr(paren + 1));
      }
      continue;
    }
    if (t.starts_with("⎯") && (t.find("Failed Tests") != std::string_view::npos ||
                               t.find("Failed Suites") != std::string_view::npos)) {
      in_failures = true;
      continue;
    }
    if (t.starts_with("⎯") && t.find("Unhandled Error") != std::string_view::npos) {
      CloseFailure(report, current);
      current = nullptr;
      in_errors = true;
      report.problems.push_back(line);
      continue;
    }
    if (t.starts_with("⎯")) {  // "⎯⎯⎯[1/2]⎯" separates failures
      CloseFailure(report, current);
      current = nullptr;
      continue;
    }
    if (in_failures && (t.starts_with("FAIL ") || t.starts_with("FAIL\t"))) {
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{Trim(t.substr(4)), {line}});
      current = &report.failures.back();
      continue;
    }
    if (current != nullptr) {
      current->detail.push_back(line);
      continue;
    }
    if (in_errors) {
      if (!IsBlank(line)) report.problems.push_back(line);
      continue;
    }
    if (t.starts_with("✓") || t.starts_with("√")) {
      ++report.passing_lines;
      report.has_results = true;
    } else if (t.starts_with("❯") || t.starts_with("×") || t.starts_with("FAIL")) {
      report.index.push_back(line);  // the failing file / test index
    }
  }
  CloseFailure(report, current);
  console.Finish();
}

// ---- mocha ----------------------------------------------------------------------------------

// "  3) Cart#add counts items" -> "Cart#add counts items": a numbered heading indented at most
// `max_indent`; empty when the line is not one.
std::string_view NumberedHeading(std::string_view line, size_t max_indent) {
  const size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos || indent > max_indent) return {};
  std::string_view t = line.substr(indent);
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i == 0 || !t.substr(i).starts_with(") ") || t.size() <= i + 2) return {};
  return t.substr(i + 2);
}

// Whether an output cut at its start (`… | tail -40`) begins inside a runner's list of numbered
// failures, whose heading ("Failures:", "There were 3 failures:") was cut off: a numbered
// heading (NumberedHeading, at most `max_indent` in) comes before any line `section` is true
// for, the start of one of the report's parts.
template <typename IsSection>
bool StartsInsideNumberedFailures(const std::vector<std::string_view>& lines, size_t max_indent,
                                  IsSection section) {
  for (std::string_view line : lines) {
    if (section(Trim(line))) return false;
    if (!NumberedHeading(line, max_indent).empty()) return true;
  }
  return false;
}

// For an output cut at its start: when `cut`, the lines above `first` (the end of a failure
// whose heading was cut off) are kept as printed, those `keep` is true for and not blank, and
// the output is read from `first`; else from its start. Returns where to read from.
template <typename Keep>
size_t KeepCutStart(const std::vector<std::string_view>& lines, size_t first, bool cut,
                    TestReport& report, Keep keep) {
  if (!cut) return 0;
  for (size_t i = 0; i < first; ++i) {
    if (!IsBlank(lines[i]) && keep(lines[i])) report.problems.push_back(lines[i]);
  }
  return first;
}
size_t KeepCutStart(const std::vector<std::string_view>& lines, size_t first, bool cut,
                    TestReport& report) {
  return KeepCutStart(lines, first, cut, report, [](std::string_view) { return true; });
}

void ParseMocha(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  auto is_totals = [](std::string_view t) {
    return LeadingNumber(t) &&
           (t.find(" passing") != std::string_view::npos ||
            t.find(" failing") != std::string_view::npos ||
            t.find(" pending") != std::string_view::npos) &&
           t.size() < 40;
  };
  // The failures follow the totals. An output cut at its start (`mocha | tail -30`) can begin
  // inside them, the totals cut off: the lines above the first failure's heading end one whose
  // heading was cut. (The spec reporter's progress numbers failing tests too, "  1) adds": those
  // come before the totals.)
  bool in_failures =
      std::none_of(lines.begin(), lines.end(), [&](std::string_view line) {
        return is_totals(Trim(line));
      }) &&
      StartsInsideNumberedFailures(lines, 4, is_totals);
  bool cut = in_failures;
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    auto number = LeadingNumber(t);
    if (is_totals(t)) {
      report.totals.push_back(line);
      report.has_results = true;
      if (t.find(" passing") != std::string_view::npos) report.counts.passed = number;
      if (t.find(" pending") != std::string_view::npos) report.counts.skipped = number;
      if (t.find(" failing") != std::string_view::npos) {
        report.counts.failed = number;
        in_failures = true;
      }
      continue;
    }
    if (in_failures) {
      // "  1) Suite" starts a failure; its lines run to the next one.
      if (const std::string_view name = NumberedHeading(line, 4); !name.empty()) {
        CloseFailure(report, current);
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
        cut = false;
      } else if (current != nullptr) {
        current->detail.push_back(line);
      } else if (cut && !IsBlank(line)) {
        report.problems.push_back(line);
      }
      continue;
    }
    if (t.starts_with("✔") || t.starts_with("✓")) ++report.passing_lines;
  }
  CloseFailure(report, current);
}

// ---- Jasmine ---------------------------------------------------------------------------------

// Jasmine's verdict: "9 specs, 4 failures", "1 spec, 0 failures, 2 pending specs".
bool ReadJasmineTotals(std::string_view t, TestCounts& counts) {
  const std::optional<uint64_t> specs = LeadingNumber(t);
  auto has = [t](std::string_view s) { return t.find(s) != std::string_view::npos; };
  if (!specs || !(has(" specs, ") || has(" spec, ")) ||
      !has(" failure")) {
    return false;
  }
  counts.total = specs;
  counts.failed = CountBefore(t, "failure");
  counts.skipped = CountBefore(t, "pending");
  counts.passed = *specs - std::min(*specs, counts.failed.value_or(0) + counts.skipped.value_or(0));
  return true;
}

// Jasmine's default reporter: a dot per spec, then "Failures:", each failure numbered at the
// margin with its full name ("1) cart discounts ignores an empty code"), its "Message:" and
// "Stack:" indented under it; "Pending:" lists the pending specs the same way; the verdict
// and "Finished in 0.006 seconds" close it.
void ParseJasmine(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  // Cut at its start (`jasmine | tail -30`), inside its failures: a numbered failure before its
  // totals, or a failure's "Message:" or "Stack:" (its heading cut off); the lines above the
  // first heading end a failure.
  auto section = [](std::string_view t) {
    TestCounts counts;
    return t == "Failures:" || t == "Pending:" || ReadJasmineTotals(t, counts);
  };
  bool in_failures = StartsInsideNumberedFailures(lines, 0, section);
  for (size_t i = 0; i < lines.size() && !in_failures && !section(Trim(lines[i])); ++i) {
    in_failures = lines[i] == "  Message:" || lines[i] == "  Stack:";
  }
  bool cut = in_failures;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (ReadJasmineTotals(t, report.counts)) {
      CloseFailure(report, current);
      current = nullptr;
      in_failures = false;
      report.totals.push_back(line);
      report.has_results = true;
      continue;
    }
    if (line == "Failures:" || line == "Pending:") {
      CloseFailure(report, current);
      current = nullptr;
      in_failures = line == "Failures:";
      continue;
    }
    if (!in_failures) continue;
    if (const std::string_view name = NumberedHeading(line, 0); !name.empty()) {
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{name, {line}});
      current = &report.failures.back();
      cut = false;
    } else if (current != nullptr) {
      current->detail.push_back(line);
    } else if (cut && !IsBlank(line)) {
      report.problems.push_back(line);
    }
  }
  CloseFailure(report, current);
}

// ---- AVA ------------------------------------------------------------------------------------

// AVA's default reporter: a line per test ("  ✔ adds", "  ✘ [fail]: subtracts Difference is
// not zero", "  - [skip] later"), then, between rules of "─", a block per failure headed by the
// test's title ("  subtracts", "  math › subtracts" with several files): where it failed
// ("  test/math.js:10"), the source around it ("   9: …", numbered: only the failing line
// kept), the difference or the error with its stack, and "  › test/math.js:10:5". Then its
// verdict lines ("  4 tests failed", "  1 known failure", "  8 tests passed").
void ParseAva(const std::vector<std::string_view>& lines, TestReport& report) {
  std::vector<std::string_view> failed;  // the titles of the "✘ [fail]:" lines
  uint64_t passed = 0, skipped = 0;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (t.starts_with("✔ ")) {
      ++passed;
    } else if (t.starts_with("- [skip] ") || t.starts_with("- [todo] ")) {
      ++skipped;
    } else if (t.starts_with("✘ [fail]: ")) {
      failed.push_back(t.substr(std::string_view("✘ [fail]: ").size()));
    }
  }
  report.passing_lines = passed;
  report.has_results = passed + skipped + failed.size() > 0;
  // A block's title is a failed test's title, or its start ("ignores an empty code" of
  // "ignores an empty code Error thrown in test").
  auto title_of = [&](std::string_view t) -> std::string_view {
    for (std::string_view f : failed) {
      if (f == t || (f.starts_with(t) && f.size() > t.size() && f[t.size()] == ' ')) return t;
    }
    return {};
  };
  TestFailure* current = nullptr;
  std::string_view failing_number;  // "6" of "test/cart.test.js:6"
  uint64_t context = 0;
  // The failures' blocks are between two "─" lines. One alone is the second: an output cut at
  // its start (`ava | tail -30`) that begins inside them, the list of titles cut off; their
  // lines are kept as printed.
  const size_t rules = static_cast<size_t>(std::count_if(
      lines.begin(), lines.end(), [](std::string_view line) { return Trim(line) == "─"; }));
  bool blocks = rules % 2 == 1;
  // No rule, a test failed, and no verdict: the lines were filtered (`ava | grep -E
  // 'fail|Error'`), what is left of the blocks is kept as printed.
  const bool filtered = rules == 0 && !failed.empty() &&
                        std::none_of(lines.begin(), lines.end(), [](std::string_view line) {
                          return Trim(line).ends_with(" failed") || Trim(line).ends_with(" passed");
                        });
  bool cut = blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::string_view t = Trim(line);
    if (t == "─") {
      CloseFailure(report, current);
      current = nullptr;
      blocks = !blocks;
      cut = false;
      continue;
    }
    const std::optional<uint64_t> n = LeadingNumber(t);
    if (n && !blocks &&
        (t.ends_with(" tests failed") || t.ends_with(" test failed") ||
         t.ends_with(" tests passed") || t.ends_with(" test passed") ||
         t.ends_with(" known failure") || t.ends_with(" known failures") ||
         t.ends_with(" tests skipped") || t.ends_with(" test skipped") ||
         t.ends_with(" tests todo") || t.ends_with(" test todo") ||
         t.ends_with(" uncaught exception") || t.ends_with(" uncaught exceptions") ||
         t.ends_with(" unhandled rejection") || t.ends_with(" unhandled rejections"))) {
      report.totals.push_back(line);
      report.has_results = true;
      if (t.ends_with(" failed")) report.counts.failed = n;
      if (t.ends_with(" passed")) report.counts.passed = n;
      if (t.ends_with(" skipped")) report.counts.skipped = n;
      continue;
    }
    if (filtered && !IsBlank(line) && !t.starts_with("✘ [fail]: ") && !t.starts_with("✔ ") &&
        !t.starts_with("- [")) {
      report.problems.push_back(line);
      continue;
    }
    if (!blocks) continue;
    if (i > 0 && Trim(lines[i - 1]).empty() && !title_of(t).empty() && line.starts_with("  ") &&
        !line.starts_with("   ")) {
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{title_of(t), {line}});
      current = &report.failures.back();
      failing_number = {};
      continue;
    }
    if (current == nullptr) {
      if (cut && !IsBlank(line)) report.problems.push_back(line);
      continue;
    }
    // Where it failed, "test/cart.test.js:6": the number of the source line to keep.
    if (failing_number.empty() && StartsWithLocation(t) && LocationPrefix(t) == t) {
      failing_number = t.substr(t.rfind(':') + 1);
    }
    // The source around it: "   5: test('rounds …", "  10: …".
    if (n && t.substr(std::to_string(*n).size()).starts_with(": ") && !failing_number.empty() &&
        line.starts_with("  ")) {
      if (t.substr(0, t.find(':')) != failing_number) {
        ++context;
        continue;
      }
    }
    current->detail.push_back(line);
  }
  CloseFailure(report, current);
  if (context > 0) {
    report.elided.emplace_back(context, "lines of source around the failing ones omitted");
  }
  if (!report.counts.passed && passed > 0) report.counts.passed = passed;
  // The "✘ [fail]:" lines are the list of what failed: counted where a block names the test,
  // else (the blocks cut off or filtered out: `ava | grep ✘`) what names it.
  for (std::string_view line : lines) {
    if (Trim(line).starts_with("✘ [fail]: ")) report.index.push_back(line);
  }
}

// ---- bun test -------------------------------------------------------------------------------

// A bun test result line: "(pass) cart > adds [0.12ms]" ("✓", "✗", "»", "✎" on a terminal).
// Its mark ("pass", "fail", "skip", "todo") and the test's name, its time left out; empty
// mark for any other line.
struct BunResult {
  std::string_view mark, name;
};
BunResult BunResultLine(std::string_view line) {
  static constexpr std::pair<std::string_view, std::string_view> kMarks[] = {
      {"(pass) ", "pass"}, {"(fail) ", "fail"}, {"(skip) ", "skip"}, {"(todo) ", "todo"},
      {"✓ ", "pass"},      {"✗ ", "fail"},      {"» ", "skip"},      {"✎ ", "todo"}};
  for (const auto& [prefix, mark] : kMarks) {
    if (!line.starts_with(prefix)) continue;
    std::string_view name = line.substr(prefix.size());
    // " [0.12ms]", " [2.01s]"
    if (name.ends_with("s]")) {
      const size_t open = name.rfind(" [");
      if (open != std::string_view::npos &&
          name.find_first_not_of("0123456789.ms", open + 2) == name.size() - 1) {
        name = name.substr(0, open);
      }
    }
    return {mark, name};
  }
  return {};
}

// bun test's totals: " 15 pass", " 7 fail", " 1 skip", " 1 todo", " 1 error", " 23 expect()
// calls", and "Ran 24 tests across 5 files. [2.04s]".
bool ReadBunTotals(std::string_view line, TestCounts& counts) {
  const std::string_view t = Trim(line);
  if (t.starts_with("Ran ") && (t.find(" tests across ") != std::string_view::npos ||
                                t.find(" test across ") != std::string_view::npos)) {
    counts.total = LeadingNumber(t.substr(4));
    return counts.total.has_value();
  }
  const std::optional<uint64_t> n = LeadingNumber(t);
  if (!n || !line.starts_with(" ")) return false;
  const std::string_view word =
      t.substr(t.find(' ') == std::string_view::npos ? t.size() : t.find(' ') + 1);
  if (word == "pass") {
    counts.passed = n;
  } else if (word == "fail") {
    counts.failed = n;
  } else if (word == "skip" || word == "todo") {
    counts.skipped = counts.skipped.value_or(0) + *n;
  } else if (word != "error" && word != "errors" && word != "expect() calls" &&
             word != "expect() call") {
    return false;
  }
  return true;
}

// bun test: each file's path alone ("test/cart.test.ts:"), then a line per test. A failure's
// evidence comes before its line: the source around where it failed ("18 |   code"), a caret,
// "error: …" with the values, and its stack ("      at <anonymous> (/…/test/cart.test.ts:19:40)");
// a timeout says so after it ("  ^ this test timed out after 200ms."). A file that fails to
// load prints its error between rules of "-" under "# Unhandled error between tests". With
// several files, "6 tests failed:" lists the failed tests' lines again before the totals.
void ParseBun(const std::vector<std::string_view>& lines, TestReport& report) {
  std::vector<std::string_view> pending;  // the lines since the last test's or file's line
  std::string_view file_line;
  TestFailure* current = nullptr;  // a failure its timeout line may follow
  bool in_index = false;
  auto is_rule = [](std::string_view t) {
    return t.size() >= 10 && t.find_first_not_of('-') == std::string_view::npos;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::string_view t = Trim(line);
    if (ReadBunTotals(line, report.counts)) {
      report.totals.push_back(line);
      report.has_results = true;
      in_index = false;
      current = nullptr;
      continue;
    }
    if (const std::optional<uint64_t> n = LeadingNumber(line);
        n && (t.ends_with(" tests failed:") || t.ends_with(" test failed:"))) {
      in_index = true;
      current = nullptr;
      continue;
    }
    const BunResult result = BunResultLine(line);
    if (in_index && result.mark == "fail") {
      report.index.push_back(line);
      continue;
    }
    if (!result.mark.empty()) {
      report.has_results = true;
      current = nullptr;
      if (result.mark == "pass") {
        ++report.passing_lines;
      } else if (result.mark == "fail") {
        report.failures.push_back(TestFailure{result.name, {line}, file_line});
        current = &report.failures.back();
        const auto evidence = std::find_if(pending.begin(), pending.end(),
                                           [](std::string_view l) { return !IsBlank(l); });
        current->detail.insert(current->detail.end(), evidence, pending.end());
        CloseFailure(report, current);
      }
      pending.clear();
      continue;
    }
    // "test/cart.test.ts:": a file's heading, after a blank line.
    if (!line.empty() && line.back() == ':' && line.find(' ') == std::string_view::npos &&
        line.find('.') != std::string_view::npos && (i == 0 || IsBlank(lines[i - 1]))) {
      file_line = line;
      pending.clear();
      current = nullptr;
      continue;
    }
    if (t == "# Unhandled error between tests") {
      // The file's error, between two rules: a failure named by the file.
      std::string_view name = file_line.empty() ? t : file_line.substr(0, file_line.size() - 1);
      report.failures.push_back(TestFailure{name, {line}, file_line});
      TestFailure& failure = report.failures.back();
      size_t j = i + 1;
      if (j < lines.size() && is_rule(Trim(lines[j]))) ++j;
      for (; j < lines.size() && !is_rule(Trim(lines[j])); ++j) failure.detail.push_back(lines[j]);
      CloseFailure(report, &failure);
      i = j;
      pending.clear();
      current = nullptr;
      continue;
    }
    if (current != nullptr && line.starts_with("  ^ ")) {
      current->detail.push_back(line);  // "  ^ this test timed out after 200ms."
      continue;
    }
    current = nullptr;
    if (!t.starts_with("bun test v")) pending.push_back(line);
  }
  // What follows the last test's line and is not its totals (a crash, a bail): kept.
  for (std::string_view line : pending) {
    if (!IsBlank(line)) report.problems.push_back(line);
  }
}

// ---- deno test ------------------------------------------------------------------------------

// A deno test result line: "parses a row ... ok (12ms)", "  a step ... FAILED (1ms)",
// "later ... ignored (0ms)", "Inventory ... FAILED (due to 1 failed step) (2ms)". Its result
// ("ok", "FAILED", "ignored"); empty for any other line.
std::string_view DenoResult(std::string_view line) {
  if (!line.ends_with(")")) return {};
  const size_t dots = line.rfind(" ... ");
  if (dots == std::string_view::npos) return {};
  const std::string_view rest = line.substr(dots + 5);
  for (std::string_view result : {"ok (", "FAILED (", "ignored ("}) {
    if (rest.starts_with(result)) return result.substr(0, result.size() - 2);
  }
  return {};
}

// deno test's verdict: "FAILED | 10 passed (1 step) | 7 failed (1 step) | 1 ignored (2s)",
// "ok | 16 passed | 0 failed | 2 filtered out (50ms)".
bool ReadDenoTotals(std::string_view t, TestCounts& counts) {
  if (!t.starts_with("ok | ") && !t.starts_with("FAILED | ")) return false;
  counts.passed = CountBefore(t, "passed");
  counts.failed = CountBefore(t, "failed");
  counts.skipped = CountBefore(t, "ignored");
  return counts.passed || counts.failed;
}

// A failure's heading in deno test's ERRORS: "name => ./test/x_test.ts:9:8", a step's
// "Inventory ... snapshot lists levels by sku => ./test/stock_test.ts:24:11", or a module's
// "./test/import_test.ts (uncaught error)". The test's name (the module for an uncaught error);
// empty for any other line.
std::string_view DenoFailureHeading(std::string_view line) {
  if (line.empty() || line[0] == ' ') return {};
  if (line.ends_with(" (uncaught error)")) return line.substr(0, line.size() - 17);
  const size_t arrow = line.rfind(" => ");
  if (arrow == std::string_view::npos || !StartsWithLocation(line.substr(arrow + 4))) return {};
  return line.substr(0, arrow);
}

// deno test: "running 7 tests from ./test/x_test.ts", a line per test ("name ... ok (1ms)",
// steps indented under theirs); then under " ERRORS " a block per failure, headed by its name
// and where it is ("name => ./test/x_test.ts:9:8"), its error, the source line, a caret and its
// stack; under " FAILURES " the list of those headings again; then the verdict ("FAILED | 10
// passed | 7 failed (2s)") and "error: Test failed".
void ParseDeno(const std::vector<std::string_view>& lines, TestReport& report) {
  enum class Section { kTests, kErrors, kFailures } section = Section::kTests;
  TestFailure* current = nullptr;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (t == "ERRORS" || t == "FAILURES") {
      CloseFailure(report, current);
      current = nullptr;
      section = t == "ERRORS" ? Section::kErrors : Section::kFailures;
      continue;
    }
    if (ReadDenoTotals(t, report.counts)) {
      CloseFailure(report, current);
      current = nullptr;
      report.totals.push_back(line);
      report.has_results = true;
      section = Section::kTests;
      continue;
    }
    if (t == "error: Test failed") {
      report.said_failed = true;
      report.totals.push_back(line);
      continue;
    }
    if (section == Section::kFailures) {
      if (!IsBlank(line)) report.index.push_back(line);
      continue;
    }
    if (section == Section::kErrors) {
      if (const std::string_view name = DenoFailureHeading(line); !name.empty()) {
        CloseFailure(report, current);
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
      } else if (current != nullptr) {
        current->detail.push_back(line);
      } else if (!IsBlank(line)) {
        report.problems.push_back(line);
      }
      continue;
    }
    const std::string_view result = DenoResult(line);
    if (result == "ok") {
      ++report.passing_lines;
      report.has_results = true;
    } else if (!result.empty()) {
      report.has_results = true;
    }
  }
  CloseFailure(report, current);
}

// ---- TAP (node --test) ----------------------------------------------------------------------

// "not ok 2 - trailing spaces" or "not ok 2 trailing spaces" -> "trailing spaces"; empty when
// the line names no test.
std::string_view TapTestName(std::string_view not_ok) {
  std::string_view rest = not_ok.substr(not_ok.starts_with("not ok ") ? 7 : 3);
  rest = rest.substr(std::min(rest.size(), rest.find_first_not_of("0123456789")));
  rest = Trim(rest);
  if (rest.starts_with("- ")) rest = Trim(rest.substr(2));
  return rest;
}

// A TAP directive after the test's name: "# SKIP reason", "# TODO reason" (any case).
bool HasTapDirective(std::string_view test_line, std::string_view directive) {
  for (size_t hash = test_line.find(" # "); hash != std::string_view::npos;
       hash = test_line.find(" # ", hash + 1)) {
    const std::string_view word = test_line.substr(hash + 3, directive.size());
    if (word.size() == directive.size() &&
        std::equal(word.begin(), word.end(), directive.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) == b;
        })) {
      return true;
    }
  }
  return false;
}

// TAP: "ok N - name" and "not ok N - name" lines (subtests indented), a failure's YAML block
// between "---" and "...", or "#" diagnostics after it (bats' "# (in test file x.bats, line 8)").
// A test marked "# SKIP" or "# TODO" is skipped, not failed. node --test prints totals ("# tests
// 5", "# pass 3"), node-tap one line of them ("# { total: 10, pass: 5, fail: 4, skip: 1 }");
// other producers (bats, a TAP-emitting script) do not, and then the top-level test lines are
// counted.
//
// A subtest is announced by "# Subtest: name" and ends with its own test line, at the same
// indent, after its subtests' lines. A failing point inside a test (node-tap's assertions,
// node --test's tests in a suite) is shown under that test's "# Subtest:" line, which names
// it; a test that failed only because its subtests did adds nothing but its name: its line is
// kept as a problem. The YAML key "source:" quotes the
// code around the failure (node-tap): counted, not kept.
// A TAP comment's text that is one of node --test's totals: "tests 25", "pass 24", "fail 1", …
bool IsTapTotalsComment(std::string_view rest) {
  static constexpr std::string_view kKeys[] = {"tests ",     "suites ",  "pass ", "fail ",
                                               "cancelled ", "skipped ", "todo ", "duration_ms "};
  return std::ranges::any_of(kKeys, [rest](std::string_view key) {
    return rest.starts_with(key) && LeadingNumber(rest.substr(key.size()));
  });
}

// bats' pretty formatter (`bats -p`, `--formatter pretty`, its default on a terminal): a line per
// test, " ✓ name", " ✗ name" with why under it, indented ("   (in test file x.bats, line 5)",
// "     `[ "$a" = b ]' failed", what the test printed), " - name (skipped: reason)", and its
// totals, "45 tests, 3 failures, 1 skipped". The counts of such totals, or nothing.
std::optional<TestCounts> BatsPrettyTotals(std::string_view t) {
  if (t.empty() || !IsDigit(t[0]) || t.find(" test") == std::string_view::npos ||
      t.find(" failure") == std::string_view::npos) {
    return std::nullopt;
  }
  TestCounts counts;
  for (absl::string_view part : absl::StrSplit(absl::string_view(t.data(), t.size()), ", ")) {
    const std::string_view p(part.data(), part.size());
    const std::optional<uint64_t> n = LeadingNumber(p);
    if (!n) return std::nullopt;
    const std::string_view word = p.substr(p.find(' ') + 1);
    if (word.starts_with("test")) {
      counts.total = *n;
    } else if (word.starts_with("failure")) {
      counts.failed = *n;
    } else if (word.starts_with("skipped")) {
      counts.skipped = *n;
    } else if (!word.starts_with("not run")) {
      return std::nullopt;
    }
  }
  if (!counts.total || !counts.failed) return std::nullopt;
  return counts;
}

// Whether `lines` are bats' pretty report, not TAP: its totals or its marked test lines, and no
// TAP test line.
bool IsBatsPretty(const std::vector<std::string_view>& lines) {
  bool pretty = false;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (t.starts_with("ok ") || t.starts_with("not ok ")) return false;
    pretty = pretty || line.starts_with(" ✗ ") || line.starts_with(" ✓ ") ||
             BatsPrettyTotals(t).has_value();
  }
  return pretty;
}

void ParseBatsPretty(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  uint64_t passed = 0, skipped = 0;
  std::optional<TestCounts> totals;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (line.starts_with(" ✗ ")) {
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{Trim(line.substr(5)), {line}});
      current = &report.failures.back();
      report.has_results = true;
      continue;
    }
    if (line.starts_with(" ✓ ")) {
      CloseFailure(report, current);
      current = nullptr;
      ++passed;
      report.has_results = true;
      continue;
    }
    if (line.starts_with(" - ") && t.ends_with(")") &&
        t.find(" (skipped") != std::string_view::npos) {
      CloseFailure(report, current);
      current = nullptr;
      ++skipped;
      continue;
    }
    if (std::optional<TestCounts> counts = BatsPrettyTotals(t)) {
      CloseFailure(report, current);
      current = nullptr;
      totals = counts;
      report.totals.push_back(line);
      report.has_results = true;
      continue;
    }
    if (current != nullptr && line.starts_with("   ") && !t.empty()) {
      current->detail.push_back(line);  // why it failed, what it printed
      continue;
    }
    if (!report.has_results && line.starts_with("   ") && !t.empty()) {
      // Why a test failed whose line was cut off (`bats -p . | tail -30`): kept as printed.
      report.problems.push_back(line);
      continue;
    }
    CloseFailure(report, current);
    current = nullptr;  // a file's name above its tests, blank lines: counted
  }
  CloseFailure(report, current);
  report.passing_lines = passed;
  if (totals) {
    report.counts.failed = *totals->failed;
    if (totals->skipped) skipped = *totals->skipped;
    if (*totals->total >= *totals->failed + skipped) {
      report.counts.passed = *totals->total - *totals->failed - skipped;
    }
  } else {
    report.counts.failed = report.failures.size();
    report.counts.passed = passed;
  }
  if (skipped > 0) report.counts.skipped = skipped;
}

void ParseTap(const std::vector<std::string_view>& lines, TestReport& report) {
  if (IsBatsPretty(lines)) {
    ParseBatsPretty(lines, report);
    return;
  }
  TestFailure* current = nullptr;
  TestCounts counted;
  struct Open {
    size_t indent;
    std::string_view line;  // "    # Subtest: knows Austrian tax"
    size_t failures;        // how many failures had been read when it opened
  };
  std::vector<Open> open;
  // Per failure: whether it is a test's whose subtests failed (those that failed only because
  // of that are set apart at the end).
  std::vector<bool> has_failed_subtests;
  size_t skip_deeper_than = std::string_view::npos;  // inside a "source:" block
  // An output cut at its start (`node --test | tail -30`) can begin inside a test's YAML block,
  // its test line cut off: the lines before the first test line, subtest or plan, when they
  // end such a block ("...") and say more than a passing test's duration, end a failure's
  // (its error, stack, the code quoted): kept as printed.
  size_t start = 0;
  while (start < lines.size()) {
    const std::string_view t = Trim(lines[start]);
    if (t.starts_with("ok ") || t.starts_with("not ok ") || t.starts_with("# Subtest:") ||
        (t.starts_with("1..") && LeadingNumber(t.substr(3))) || lines[start].starts_with("# ")) {
      break;  // (a line "# " at the margin: the totals, "# tests 25")
    }
    ++start;
  }
  bool ends_block = false, says_more = false;
  // Or a failure's diagnostics indented under its cut "not ok" line, not in a YAML block
  // (mocha's TAP: the error and its stack), when they read like trouble.
  bool indented = start > 0, trouble = false;
  for (size_t i = 0; i < start; ++i) {
    const std::string_view t = Trim(lines[i]);
    ends_block = ends_block || t == "...";
    says_more = says_more || !(t.empty() || t == "---" || t == "..." ||
                               t.starts_with("duration_ms:") || t.starts_with("type:"));
    indented = indented && (t.empty() || lines[i].starts_with(' '));
    trouble = trouble || LooksLikeErrorLine(lines[i]);
  }
  if (indented && trouble) ends_block = true;
  // Or a failed test's diagnostics, its "not ok" line cut off: comments at the margin ("# (in
  // test file ./table.bats, line 53)", "#   `[ "$output" = "-1" ]' failed"), none a total or a
  // subtest, up to the first test line.
  if (start == 0) {
    while (start < lines.size() && lines[start].starts_with("# ") &&
           !IsTapTotalsComment(lines[start].substr(2)) && !lines[start].starts_with("# Subtest:")) {
      ++start;
    }
    const std::string_view next = start < lines.size() ? Trim(lines[start]) : std::string_view();
    ends_block = says_more = start > 0 && (next.starts_with("ok ") || next.starts_with("not ok "));
    if (!ends_block) start = 0;
  }
  const size_t from = KeepCutStart(lines, start, ends_block && says_more, report,
                                   [](std::string_view line) {
                                     const std::string_view t = Trim(line);
                                     return t != "---" && t != "...";
                                   });
  for (std::string_view line : std::span(lines).subspan(from)) {
    std::string_view t = Trim(line);
    if (skip_deeper_than != std::string_view::npos) {
      if (t.empty() || line.find_first_not_of(" ") > skip_deeper_than) continue;
      skip_deeper_than = std::string_view::npos;
    }
    if (t.starts_with("# ")) {
      std::string_view rest = t.substr(2);
      if (IsTapTotalsComment(rest) && line.starts_with("# ")) {  // top level only
        CloseFailure(report, current);
        current = nullptr;
        report.totals.push_back(line);
        report.has_results = true;
        if (rest.starts_with("pass ")) report.counts.passed = LeadingNumber(rest.substr(5));
        if (rest.starts_with("fail ")) report.counts.failed = LeadingNumber(rest.substr(5));
        if (rest.starts_with("skipped ")) report.counts.skipped = LeadingNumber(rest.substr(8));
        if (rest.starts_with("tests ")) report.counts.total = LeadingNumber(rest.substr(6));
        continue;
      }
      if (rest.starts_with("{ total: ") && rest.ends_with(" }") && line.starts_with("# ")) {
        CloseFailure(report, current);
        current = nullptr;
        report.totals.push_back(line);
        report.has_results = true;
        const std::string_view fields = rest.substr(2, rest.size() - 4);
        for (absl::string_view piece :
             absl::StrSplit(absl::string_view(fields.data(), fields.size()), ", ")) {
          const std::string_view field(piece.data(), piece.size());
          const size_t colon = field.find(": ");
          if (colon == std::string_view::npos) continue;
          const std::optional<uint64_t> n = LeadingNumber(field.substr(colon + 2));
          const std::string_view key = field.substr(0, colon);
          if (key == "total") report.counts.total = n;
          if (key == "pass") report.counts.passed = n;
          if (key == "fail") report.counts.failed = n;
          if (key == "skip") report.counts.skipped = n;
        }
        continue;
      }
      if (rest.starts_with("Subtest:")) {
        if (current != nullptr && current->detail.size() > 1) {
          CloseFailure(report, current);
          current = nullptr;
        }
        const size_t at = line.find_first_not_of(" ");
        while (!open.empty() && open.back().indent >= at) open.pop_back();
        open.push_back(Open{at, line, report.failures.size()});
        continue;
      }
    }
    const size_t at = t.empty() ? 0 : line.find_first_not_of(" \t");
    const bool top_level = at == 0;
    if (t.starts_with("not ok ") || t.starts_with("ok ")) {
      CloseFailure(report, current);
      current = nullptr;
      report.has_results = true;
      // The subtests this line ends, and its own "# Subtest:" line.
      while (!open.empty() && open.back().indent > at) open.pop_back();
      size_t failures_before = report.failures.size();
      bool announced = false;
      if (!open.empty() && open.back().indent == at) {
        failures_before = open.back().failures;
        announced = true;
        open.pop_back();
      }
      const bool skipped = HasTapDirective(t, "SKIP") || HasTapDirective(t, "TODO");
      if (top_level) Add(skipped ? counted.skipped : t.starts_with("ok ") ? counted.passed : counted.failed, 1);
      if (t.starts_with("ok ") || skipped) {
        ++report.passing_lines;
        continue;
      }
      std::string_view name = TapTestName(t);
      const bool parent = announced && report.failures.size() > failures_before;
      // Under the test it is in: that test's "# Subtest:" line, unless it names this one.
      std::string_view heading;
      if (!open.empty()) {
        std::string_view test = Trim(open.back().line).substr(10);
        if (Trim(test) != name.substr(0, name.find(" # "))) heading = open.back().line;
      }
      report.failures.push_back(TestFailure{name.empty() ? t.substr(7) : name, {line}, heading});
      current = &report.failures.back();
      has_failed_subtests.push_back(parent);
      continue;
    }
    if (current != nullptr) {
      if (t == "...") {
        CloseFailure(report, current);
        current = nullptr;
      } else if (t.starts_with("source: ") || t == "source:") {
        skip_deeper_than = line.find_first_not_of(" ");
      } else if (t != "---" && !t.starts_with("duration_ms:")) {
        current->detail.push_back(line);  // the YAML block's content, without its frame
      }
    }
  }
  CloseFailure(report, current);
  if (report.totals.empty()) report.counts = counted;
  // Totals that count no skipped tests ("# pass 7", "# fail 4": mocha's) leave them to the test
  // lines' directives.
  if (!report.counts.skipped && counted.skipped.value_or(0) > 0) {
    report.counts.skipped = counted.skipped;
  }
  // A parent reported "not ok" only because a subtest failed adds nothing but its name: node
  // --test marks it so; other producers' parents report no error of their own (node-tap's
  // tests give where they were declared). Its line is kept as a problem; a parent with an
  // error of its own (a suite's hook that failed) stays a failure.
  auto own_error = [](const TestFailure& f) {
    for (size_t k = 1; k < f.detail.size(); ++k) {
      const std::string_view key = Trim(f.detail[k]);
      if (key.starts_with("error:") || key.starts_with("stack:") || key.starts_with("diff:") ||
          key.starts_with("message:") || key.starts_with("found:") ||
          key.starts_with("wanted:") || key.starts_with("# ")) {
        return true;
      }
    }
    return false;
  };
  std::vector<TestFailure> kept;
  for (size_t i = 0; i < report.failures.size(); ++i) {
    TestFailure& f = report.failures[i];
    bool parent = has_failed_subtests[i] && !own_error(f);
    for (std::string_view line : f.detail) {
      parent = parent || line.find("failureType: 'subtestsFailed'") != std::string_view::npos;
    }
    if (parent) {
      report.problems.push_back(f.detail.front());
    } else {
      kept.push_back(std::move(f));
    }
  }
  report.failures = std::move(kept);
}

// ---- prove (TAP::Harness, Test::More) -------------------------------------------------------

// "t/01-trim.t ... " or "t/01-trim.t .. 1/4 ": a test script's line, the harness's dots after
// its path; `path` is set to the path.
bool IsProveScriptLine(std::string_view t, std::string_view* path) {
  const size_t dots = t.find(" ..");
  if (dots == std::string_view::npos || dots == 0) return false;
  std::string_view p = t.substr(0, dots);
  if (p.find(' ') != std::string_view::npos || !(p.ends_with(".t") || p.ends_with(".pl"))) {
    return false;
  }
  *path = p;
  return true;
}

// prove's output: each script's TAP ("ok 1 - name", "not ok 2 - name") and Test::More's
// diagnostics on stderr ("#   Failed test 'name'", "#   at t/x.t line 5.", got/expected),
// which arrive before or after the TAP lines they explain; what a script printed on stderr
// (a die message); the harness's verdicts ("Dubious, test returned 2", "Failed 2/4 subtests")
// and its "Test Summary Report", "Files=4, Tests=11, …" and "Result: FAIL".
void ParseProve(const std::vector<std::string_view>& lines, TestReport& report) {
  // A failure per "Failed test" diagnostic; a "not ok" line joins the latest failure of the
  // same name that has none (stderr and stdout interleave: either may come first, and a
  // script's diagnostics may even come before its line), or starts its own.
  struct Pending {
    size_t failure;
    bool has_diag, has_tap;
  };
  std::vector<Pending> pending;
  TestFailure* current = nullptr;  // the failure whose diagnostic lines follow
  bool in_report = false;
  uint64_t passed = 0, skipped = 0;
  auto find = [&](std::string_view name, bool diag) -> Pending* {
    for (size_t k = pending.size(); k-- > 0;) {
      Pending& p = pending[k];
      if (report.failures[p.failure].name == name && (diag ? !p.has_diag : !p.has_tap)) return &p;
    }
    return nullptr;
  };
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    std::string_view path;
    if (in_report) {
      if (t.starts_with("Files=") || t.starts_with("Result: ")) {
        in_report = false;
      } else {
        report.index.push_back(line);
        continue;
      }
    }
    if (t == "Test Summary Report") {
      CloseFailure(report, current);
      current = nullptr;
      in_report = true;
      report.index.push_back(line);
      report.has_results = true;
      continue;
    }
    if (t.starts_with("Files=") && t.find("Tests=") != std::string_view::npos) {
      report.totals.push_back(line);
      report.counts.total = LeadingNumber(t.substr(t.find("Tests=") + 6));
      report.has_results = true;
      continue;
    }
    if (t.starts_with("Result: ") || t == "All tests successful.") {
      report.totals.push_back(line);
      report.has_results = true;
      report.said_failed = report.said_failed || t == "Result: FAIL";
      continue;
    }
    if (IsProveScriptLine(t, &path) || t == "ok" || t.starts_with("skipped:")) {
      // A script's line; verbose runs print its verdict on a line of its own.
      CloseFailure(report, current);
      current = nullptr;
      continue;
    }
    if (line.starts_with("#   Failed test")) {
      CloseFailure(report, current);
      // "#   Failed test 'name'" or, unnamed, "#   Failed test at t/x.t line 5."
      std::string_view rest = Trim(line.substr(15));
      std::string_view name = rest;
      if (rest.size() >= 2 && rest.front() == '\'' && rest.back() == '\'') {
        name = rest.substr(1, rest.size() - 2);
      }
      if (Pending* p = find(name, true); p != nullptr) {
        p->has_diag = true;
        current = &report.failures[p->failure];
        current->detail.push_back(line);
      } else {
        report.failures.push_back(TestFailure{name, {line}});
        pending.push_back(Pending{report.failures.size() - 1, true, false});
        current = &report.failures.back();
      }
      report.has_results = true;
      continue;
    }
    if (t.starts_with("not ok ") && (HasTapDirective(t, "TODO") || HasTapDirective(t, "SKIP"))) {
      // A test marked TODO is expected to fail ("not ok 7 - x # TODO later", Test::More's
      // "#   Failed (TODO) test" under it): skipped, not failed, as prove counts it.
      CloseFailure(report, current);
      current = nullptr;
      ++skipped;
      report.has_results = true;
      continue;
    }
    if (t.starts_with("not ok ")) {
      CloseFailure(report, current);
      current = nullptr;
      const std::string_view name = TapTestName(t);
      if (Pending* p = name.empty() ? nullptr : find(name, false); p != nullptr) {
        p->has_tap = true;
        TestFailure& f = report.failures[p->failure];
        f.detail.insert(f.detail.begin(), line);  // the TAP line names it first
      } else {
        report.failures.push_back(TestFailure{name.empty() ? t : name, {line}});
        pending.push_back(Pending{report.failures.size() - 1, false, true});
      }
      report.has_results = true;
      continue;
    }
    if (t.starts_with("ok ")) {
      CloseFailure(report, current);
      current = nullptr;
      ++(HasTapDirective(t, "SKIP") ? skipped : passed);  // "ok 4 # skip no network here"
      report.has_results = true;
      continue;
    }
    if (line.starts_with("#")) {
      // The rest of a failure's diagnostic: "#   at t/x.t line 5.", "#          got: 'abc'",
      // and the lines of a value that spans several ("# '").
      if (current != nullptr && !t.starts_with("# Looks like ") && !t.starts_with("# Tests were run")) {
        current->detail.push_back(line);
        continue;
      }
      CloseFailure(report, current);
      current = nullptr;
      // A script that died or planned wrong says so here; "you failed N tests" the report has.
      if (t.starts_with("# Looks like your test exited") || t.starts_with("# Tests were run but")) {
        report.problems.push_back(line);
      }
      continue;
    }
    if (t.starts_with("1..") || t.starts_with("Dubious, test returned") ||
        (t.starts_with("Failed ") && t.find(" subtest") != std::string_view::npos) ||
        (t.starts_with("All ") && t.ends_with("subtests passed")) || t.empty()) {
      CloseFailure(report, current);
      current = nullptr;
      continue;
    }
    // What a script printed on stderr: a die message, a warning.
    CloseFailure(report, current);
    current = nullptr;
    report.problems.push_back(line);
  }
  CloseFailure(report, current);
  report.passing_lines += passed;
  if (report.has_results) {
    report.counts.failed = report.failures.size();
    // Without -v the scripts' TAP is not shown: the passes are what Tests= counts besides —
    // unless the failures were cut off ("Result: FAIL" and none shown).
    const bool failures_cut_off = report.said_failed && report.failures.empty();
    if (passed == 0 && report.counts.total &&
        *report.counts.total >= report.failures.size() + skipped && !failures_cut_off) {
      passed = *report.counts.total - report.failures.size() - skipped;
    }
    // Its failures cut off, none is counted: "11 tests run" is what it says.
    if (!failures_cut_off || passed > 0) report.counts.passed = passed;
    if (skipped > 0) report.counts.skipped = skipped;
    if (failures_cut_off) report.counts.failed.reset();
  }
}

// ---- node --test, spec reporter --------------------------------------------------------------

void ParseNodeSpec(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  size_t current_indent = 0;
  // Cut at its start inside the section that lists the failing tests again (`node --test |
  // tail -30`): a "test at …" line, which only that section prints, before its heading; the
  // lines above the first end a failure whose lines were cut off.
  bool in_failing_section = false;
  for (std::string_view line : lines) {
    if (line.starts_with("✖ failing tests")) break;
    if (line.starts_with("test at ")) {
      in_failing_section = true;
      break;
    }
  }
  bool cut = in_failing_section;
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    if (cut && !line.starts_with("test at ") && !t.starts_with("ℹ ")) {
      if (!t.empty()) report.problems.push_back(line);
      continue;
    }
    cut = false;
    size_t indent = line.find_first_not_of(" \t");
    if (indent == std::string_view::npos) indent = line.size();
    if (t.starts_with("ℹ ")) {
      CloseFailure(report, current);
      current = nullptr;
      std::string_view rest = t.substr(std::string_view("ℹ ").size());
      report.totals.push_back(line);
      report.has_results = true;
      if (rest.starts_with("pass ")) report.counts.passed = LeadingNumber(rest.substr(5));
      if (rest.starts_with("fail ")) report.counts.failed = LeadingNumber(rest.substr(5));
      if (rest.starts_with("skipped ")) report.counts.skipped = LeadingNumber(rest.substr(8));
      if (rest.starts_with("tests ")) report.counts.total = LeadingNumber(rest.substr(6));
      continue;
    }
    if (t.starts_with("✖ failing tests")) {
      CloseFailure(report, current);
      current = nullptr;
      in_failing_section = true;
      // The section repeats each failing test with its details. Of the listing above keep
      // the top-level headings, which name the suites.
      for (const TestFailure& f : report.failures) {
        if (!f.detail.empty() && !f.detail.front().starts_with(" ")) {
          report.problems.push_back(f.detail.front());
        }
      }
      report.failures.clear();
      continue;
    }
    if (in_failing_section && t.starts_with("test at ")) {
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{t, {line}});
      current = &report.failures.back();
      continue;
    }
    if (t.starts_with("✖ ")) {
      std::string_view name = t.substr(std::string_view("✖ ").size());
      if (in_failing_section && current != nullptr && current->detail.size() == 1 &&
          Trim(current->detail.front()).starts_with("test at ")) {
        current->name = name;
        current->detail.push_back(line);
        continue;
      }
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{name, {line}});
      current = &report.failures.back();
      current_indent = indent;
      report.has_results = true;
      continue;
    }
    if (t.starts_with("✔ ")) {
      CloseFailure(report, current);
      current = nullptr;
      ++report.passing_lines;
      report.has_results = true;
      continue;
    }
    if (current != nullptr) {
      if (!IsBlank(line) && indent <= current_indent && !in_failing_section) {
        CloseFailure(report, current);
        current = nullptr;
        continue;
      }
      current->detail.push_back(line);
    }
  }
  CloseFailure(report, current);
}

// ---- cargo test -----------------------------------------------------------------------------

// A failed test's block of output under cargo test's first "failures:": "---- a::b stdout ----".
bool IsCargoFailureHeading(std::string_view line) {
  return line.size() > 10 && line.starts_with("---- ") && line.ends_with(" ----");
}

void ParseCargo(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  enum class Section { kNone, kDetails, kList } section = Section::kNone;
  // An output cut inside the failures' blocks (`cargo test 2>&1 | tail -40`): a block's heading
  // before any "failures:", and the lines above the first end a block whose heading was cut off.
  // Cut inside the list of failed tests' names that ends a crate's run: those names alone
  // ("    median_of_1_to_0010_even") before its "test result: FAILED.".
  // Cut between the two, its first "failures:" the list's: the lines above it end the last
  // block, whose heading was cut off.
  bool cut = false, names = false, only_names = true;
  bool failed_targets = false;  // after "error: 2 targets failed:"
  // Whether the "failures:" at lines[i] heads the list of names, not the blocks.
  auto heads_list = [&lines](size_t i) {
    for (++i; i < lines.size(); ++i) {
      if (IsBlank(lines[i])) continue;
      return !IsCargoFailureHeading(lines[i]) && lines[i].starts_with("    ") &&
             Trim(lines[i]).find(' ') == std::string_view::npos;
    }
    return false;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.starts_with("test result: FAILED") && names && only_names) section = Section::kList;
    if (line == "failures:" && heads_list(i)) {
      cut = true;
      section = Section::kDetails;
      break;
    }
    if (line == "failures:" || line.starts_with("running ") || line.starts_with("test result: ")) {
      break;
    }
    if (IsCargoFailureHeading(line)) {
      cut = true;
      section = Section::kDetails;
      break;
    }
    if (IsBlank(line)) continue;
    names = true;
    only_names = only_names && line.starts_with("    ") &&
                 Trim(line).find(' ') == std::string_view::npos;
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.starts_with("test result: ")) {
      CloseFailure(report, current);
      current = nullptr;
      section = Section::kNone;
      report.totals.push_back(line);
      report.has_results = true;
      Add(report.counts.passed, CountBefore(line, "passed"));
      Add(report.counts.failed, CountBefore(line, "failed"));
      Add(report.counts.skipped, CountBefore(line, "ignored"));
      continue;
    }
    if (line == "failures:") {
      CloseFailure(report, current);
      current = nullptr;
      section = section == Section::kNone && !heads_list(i) ? Section::kDetails : Section::kList;
      cut = false;
      continue;
    }
    if (line.starts_with("running ") && line.find(" test") != std::string_view::npos) {
      report.has_results = true;
      continue;
    }
    if (line.starts_with("test ") && line.find(" ... ") != std::string_view::npos) {
      if (line.ends_with(" ok")) ++report.passing_lines;
      // A failed test's result line: counted when its block names it, else (its block cut
      // off or filtered out: `cargo test | grep FAILED`) it is what names the test.
      if (line.ends_with(" FAILED")) report.index.push_back(line);
      continue;
    }
    if (section == Section::kDetails) {
      if (IsCargoFailureHeading(line)) {
        cut = false;
        CloseFailure(report, current);
        std::string_view name = line.substr(5, line.size() - 10);
        size_t space = name.rfind(' ');
        if (space != std::string_view::npos) name = name.substr(0, space);  // " stdout"
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
      } else if (current != nullptr) {
        current->detail.push_back(line);
      } else if (cut && !IsBlank(line)) {
        report.problems.push_back(line);
      }
      continue;
    }
    if (section == Section::kList) {
      if (!IsBlank(line)) report.index.push_back(line);
      continue;
    }
    // The targets "error: 2 targets failed:" lists, a line each ("    `--test table`").
    if (failed_targets && line.starts_with("    `") && line.ends_with("`")) {
      report.problems.push_back(line);
      continue;
    }
    failed_targets = line.starts_with("error: ") && line.ends_with(" failed:");
    if (failed_targets && LeadingNumber(line.substr(7))) {
      report.failed_count_words = line.substr(7, line.size() - 8);  // "2 targets failed"
    }
    // Build errors and cargo's own errors ("error: test failed, to rerun pass `--lib`").
    if (line.starts_with("error") || line.starts_with("  --> ") || line.starts_with(" --> ") ||
        line.starts_with("thread '") || line.starts_with("warning: unused")) {
      if (!line.starts_with("warning")) report.problems.push_back(line);
      // cargo's own verdict ("error: test failed, …", "error: 2 targets failed:") or a test
      // target that did not build ("error[E0425]: …", "error: could not compile `x`").
      report.said_failed = report.said_failed || line.starts_with("error");
    }
  }
  CloseFailure(report, current);
}

// ---- go test --------------------------------------------------------------------------------

std::string_view GoTestName(std::string_view t, std::string_view prefix) {
  std::string_view rest = t.substr(prefix.size());
  size_t space = rest.find(' ');
  return space == std::string_view::npos ? rest : rest.substr(0, space);
}

// The top-level test a (sub)test belongs to: "TestParse/empty" -> "TestParse".
std::string_view GoTopLevel(std::string_view name) { return name.substr(0, name.find('/')); }

// go test's package result lines ("ok  \tpkg\t0.01s", "?   \tpkg\t[no test files]") kept; the
// others are counted.
constexpr uint64_t kPackageLinesKept = 16;

// Whether an output cut at its start (`go test -v ./... 2>&1 | tail -30`) begins inside a
// panic's trace, the race detector's report or a failed test's subtests, their first line cut
// off: a goroutine's frame
// ("\t/src/ring/ring.go:42 +0x1d4", the race report's "      /src/counter.go:17 +0xfc") or
// heading before any of go test's own lines.
bool StartsInsideGoTrace(const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    // Or inside a failed test's subtests, its own "--- FAIL:" line cut off: an indented one.
    if (t.starts_with("--- FAIL: ") && t.size() < line.size()) return true;
    if (t.starts_with("=== ") || (t.starts_with("--- ") && t.size() == line.size()) ||
        t.starts_with("ok ") ||
        t.starts_with("FAIL") || t == "PASS" || t.starts_with("panic: ")) {
      return false;
    }
    const bool frame = t.find(".go:") != std::string_view::npos &&
                       (line.starts_with("\t") ||
                        (line.starts_with("      ") && t.find(" +0x") != std::string_view::npos));
    if (frame ||
        (t.starts_with("goroutine ") && t.ends_with("]:"))) {
      return true;
    }
  }
  return false;
}

void ParseGo(const std::vector<std::string_view>& lines, TestReport& report) {
  // With -v, a test's log lines come before its "--- FAIL" line: keep them per top-level test.
  // Counts are of top-level tests; a failing subtest shows inside its parent's block.
  std::map<std::string_view, std::vector<std::string_view>> running;
  std::string_view last_run;
  // The "=== RUN" line of the (sub)test running now, until a line it logs is kept under it:
  // a subtest's messages are shown after its name.
  std::string_view run_line;
  TestFailure* current = nullptr;
  bool in_panic = StartsInsideGoTrace(lines);  // its lines a problem of the run, then
  uint64_t passed = 0, failed = 0, skipped = 0;
  uint64_t package_lines = 0;
  // The race detector's report ("WARNING: DATA RACE" to its closing "=================="),
  // printed before the "--- FAIL" of the test it failed: that failure's.
  std::vector<std::string_view> race;
  bool in_race = false;
  // An output cut at its start (`go test -v | tail -10`) inside a test's log, its "=== RUN" line
  // cut off: the lines before any test's are the log of the test whose "--- FAIL" comes first.
  std::vector<std::string_view> cut_log;
  bool any_test = false;
  // Subtests that passed, by their "--- PASS" lines under a failed parent's.
  absl::flat_hash_set<std::string_view> passed_subtests;
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '\t';
    if (t.starts_with("=== ") || t.starts_with("--- PASS: ") || t.starts_with("--- SKIP: ")) {
      any_test = true;
    }
    if (t == "WARNING: DATA RACE") {
      in_race = true;
      race.push_back(line);
      continue;
    }
    if (in_race) {
      if (t.starts_with("==================")) {
        in_race = false;
      } else {
        race.push_back(line);
      }
      continue;
    }
    if (t.starts_with("==================") && t.find_first_not_of('=') == std::string_view::npos) {
      continue;  // the frame around a race report
    }
    if (t.starts_with("=== RUN ")) {
      CloseFailure(report, current);
      current = nullptr;
      const std::string_view name = Trim(t.substr(8));
      last_run = GoTopLevel(name);
      run_line = name.size() > last_run.size() ? line : std::string_view();
      running[last_run];
      report.has_results = true;
      continue;
    }
    if (t.starts_with("=== PAUSE ") || t.starts_with("=== CONT ") || t.starts_with("=== NAME ")) {
      const std::string_view name = Trim(t.substr(t.find(' ', 4) + 1));
      last_run = GoTopLevel(name);
      run_line = name.size() > last_run.size() ? line : std::string_view();
      continue;
    }
    if (top && (t.starts_with("--- PASS: ") || t.starts_with("--- SKIP: "))) {
      CloseFailure(report, current);
      current = nullptr;
      bool pass = t.starts_with("--- PASS: ");
      running.erase(GoTestName(t, pass ? "--- PASS: " : "--- SKIP: "));
      if (pass) {
        ++passed;
        ++report.passing_lines;
      } else {
        ++skipped;
      }
      report.has_results = true;
      continue;
    }
    if (top && t.starts_with("--- FAIL: ")) {
      CloseFailure(report, current);
      std::string_view name = GoTestName(t, "--- FAIL: ");
      TestFailure failure{name, {}};
      auto it = running.find(name);
      if (it != running.end()) {
        failure.detail = it->second;
        running.erase(it);
      } else if (!any_test) {
        failure.detail = std::move(cut_log);
      }
      any_test = true;
      failure.detail.insert(failure.detail.begin(), line);
      failure.detail.insert(failure.detail.begin() + 1, race.begin(), race.end());
      race.clear();
      report.failures.push_back(std::move(failure));
      current = &report.failures.back();
      ++failed;
      report.has_results = true;
      continue;
    }
    if (t.starts_with("panic: ") || in_panic) {
      // A panic in a test follows its "--- FAIL" line: its trace is that failure's; a panic
      // outside any test is a problem of the run.
      if (t.starts_with("panic: ")) in_panic = true;
      if (t.starts_with("FAIL") || t.starts_with("exit status")) {
        in_panic = false;
        CloseFailure(report, current);
        current = nullptr;
      } else {
        (current != nullptr ? current->detail : report.problems).push_back(line);
        continue;
      }
    }
    if (t.starts_with("ok  ") || t.starts_with("ok\t") || t.starts_with("?   ") ||
        ((t.starts_with("FAIL\t") || t.starts_with("FAIL ")) && t.size() > 5)) {
      CloseFailure(report, current);
      current = nullptr;
      if (t.starts_with("FAIL")) {
        report.totals.push_back(line);
        if (t.ends_with(" [build failed]") || t.ends_with(" [setup failed]")) {
          ++report.packages_not_built;
          if (t.ends_with(" [setup failed]")) ++report.packages_not_set_up;
        } else {
          ++report.packages_failed;
        }
      } else if (++package_lines <= kPackageLinesKept) {
        report.totals.push_back(line);
      }
      report.has_results = true;
      continue;
    }
    if (t == "PASS" || t == "FAIL") {
      CloseFailure(report, current);
      current = nullptr;
      continue;
    }
    if (top && (t.starts_with("# ") || t.find(".go:") != std::string_view::npos)) {
      report.problems.push_back(line);  // build errors: "# pkg", "./x.go:5:2: undefined: y"
      continue;
    }
    if (current != nullptr && !top) {
      // Its messages and its subtests' results; a subtest that passed is counted (with -v,
      // every subtest's result is listed under its parent's).
      if (t.starts_with("--- PASS: ")) {
        ++report.passing_lines;
        passed_subtests.insert(GoTestName(t, "--- PASS: "));
      } else {
        current->detail.push_back(line);
      }
      continue;
    }
    CloseFailure(report, current);
    current = nullptr;
    if (!last_run.empty() && running.count(last_run) != 0) {
      std::vector<std::string_view>& logged = running[last_run];
      if (!run_line.empty()) logged.push_back(run_line);
      run_line = {};
      logged.push_back(line);
    } else if (!any_test && !IsBlank(line)) {
      cut_log.push_back(line);
    }
  }
  CloseFailure(report, current);
  // With -v, a failed test's log holds its subtests' too, each under its "=== RUN" line (or
  // "=== NAME", after a pause): what a subtest that passed logged ("--- PASS" in its parent's
  // list) is counted, not shown with the failures.
  if (!passed_subtests.empty()) {
    uint64_t dropped = 0;
    for (TestFailure& failure : report.failures) {
      std::vector<std::string_view> kept;
      bool passed_log = false;
      for (std::string_view line : failure.detail) {
        const std::string_view t = Trim(line);
        if (t.starts_with("=== ") || t.starts_with("--- ")) {
          const size_t space = t.find(' ', 4);
          passed_log = t.starts_with("=== ") && space != std::string_view::npos &&
                       passed_subtests.contains(Trim(t.substr(space + 1)));
        }
        if (passed_log) {
          ++dropped;
        } else {
          kept.push_back(line);
        }
      }
      failure.detail = std::move(kept);
    }
    if (dropped > 0) report.elided.emplace_back(dropped, kPassedSubtestLog);
  }
  // A race report no failing test claimed (a race in a package's init or TestMain).
  report.problems.insert(report.problems.end(), race.begin(), race.end());
  if (package_lines > kPackageLinesKept) {
    report.elided.emplace_back(package_lines - kPackageLinesKept, kMorePackageLines);
  }
  if (passed + failed > 0) {
    report.counts.passed = passed;
    report.counts.failed = failed;
    if (skipped > 0) report.counts.skipped = skipped;
  }
}

// ---- ctest ----------------------------------------------------------------------------------

bool IsCtestResult(std::string_view t, std::string_view* name, bool* passed) {
  // "1/84 Test  #1: name ......   Passed    0.05 sec"
  size_t slash = t.find('/');
  if (slash == std::string_view::npos || !LeadingNumber(t)) return false;
  size_t test = t.find(" Test ");
  size_t hash = t.find('#');
  size_t colon = t.find(": ", hash == std::string_view::npos ? 0 : hash);
  if (test == std::string_view::npos || hash == std::string_view::npos ||
      colon == std::string_view::npos) {
    return false;
  }
  std::string_view rest = t.substr(colon + 2);
  size_t dots = rest.find(" ..");
  if (dots == std::string_view::npos) dots = rest.find("..");
  *name = Trim(rest.substr(0, dots));
  *passed = t.find("   Passed") != std::string_view::npos ||
            t.find(" Passed ") != std::string_view::npos;
  return true;
}

void ParseCtest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool in_list = false;
  uint64_t passed_count = 0, skipped = 0;
  // Cut at its start (`ctest --output-on-failure | tail -30`) inside a failed test's output,
  // its result line cut off: the lines above ctest's first own line, when one reads like
  // trouble (a test binary's "[  FAILED  ] Suite.Name"), are kept as printed.
  size_t first = 0;
  bool trouble = false;
  for (; first < lines.size(); ++first) {
    const std::string_view t = Trim(lines[first]);
    std::string_view name;
    bool passed = false;
    if (t.starts_with("Test project ") || t.starts_with("Start ") ||
        IsCtestResult(t, &name, &passed) ||
        (t.find("tests passed") != std::string_view::npos &&
         t.find("out of") != std::string_view::npos)) {
      break;
    }
    trouble = trouble || LooksLikeErrorLine(lines[first]);
  }
  // ctest -V prints each test's output before its result, each line after the test's number
  // ("1: [  FAILED  ] Suite.Name"), from "1: Test command: …" on: a failed test's lines, that
  // prefix taken off, are its block under its result line.
  auto verbose_number = [](std::string_view line, size_t* text) -> std::optional<uint64_t> {
    size_t digits = 0;
    while (digits < line.size() && IsDigit(line[digits])) ++digits;
    if (digits == 0 || digits > 6 || !line.substr(digits).starts_with(": ")) return std::nullopt;
    *text = digits + 2;
    return LeadingNumber(line);
  };
  std::map<uint64_t, std::vector<std::string_view>> verbose;
  for (std::string_view line : lines) {
    size_t text = 0;
    if (std::optional<uint64_t> n = verbose_number(line, &text);
        n && (verbose.contains(*n) || line.substr(text).starts_with("Test command: "))) {
      const std::string_view said = line.substr(text);
      std::vector<std::string_view>& of_test = verbose[*n];  // the test's, kept or not
      // Where it ran and its timeout say nothing of why it failed.
      if (!said.starts_with("Working Directory: ") &&
          !said.starts_with("Test timeout computed to be: ")) {
        of_test.push_back(said);
      }
    }
  }
  for (std::string_view line :
       std::span(lines).subspan(KeepCutStart(lines, first, trouble, report))) {
    std::string_view t = Trim(line);
    std::string_view name;
    bool passed = false;
    if (!verbose.empty()) {
      size_t text = 0;
      const std::optional<uint64_t> n = verbose_number(line, &text);
      if (n && verbose.contains(*n)) continue;  // under its result, when it failed
      if (t.starts_with("test ") &&
          t.substr(5).find_first_not_of("0123456789") == std::string_view::npos) {
        CloseFailure(report, current);  // -V's "test 2" before "Start 2: …"
        current = nullptr;
        continue;
      }
    }
    if (t.starts_with("Start ") && t.find(':') != std::string_view::npos) {
      CloseFailure(report, current);
      current = nullptr;
      continue;
    }
    if (IsCtestResult(t, &name, &passed)) {
      CloseFailure(report, current);
      current = nullptr;
      report.has_results = true;
      if (passed) {
        ++report.passing_lines;
        ++passed_count;
      } else if (t.find("***Skipped") != std::string_view::npos ||
                 t.find("***Not Run (Disabled)") != std::string_view::npos) {
        ++skipped;  // ctest counts a skip as passed in its percentage; it is not a pass
      } else {
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
        if (const size_t hash = t.find(" Test #"); hash != std::string_view::npos) {
          if (auto it = verbose.find(LeadingNumber(t.substr(hash + 7)).value_or(0));
              it != verbose.end()) {
            current->detail.insert(current->detail.end(), it->second.begin(), it->second.end());
          }
        }
      }
      continue;
    }
    if (t.find("tests passed") != std::string_view::npos && t.find("out of") != std::string_view::npos) {
      CloseFailure(report, current);
      current = nullptr;
      report.totals.push_back(line);
      report.has_results = true;
      report.counts.failed = CountBefore(t, "tests failed");
      report.counts.total = LeadingNumber(t.substr(t.find("out of") + 6));
      continue;
    }
    if (t.starts_with("Total Test time")) {
      report.totals.push_back(line);
      continue;
    }
    if (t.starts_with("The following tests FAILED") || t.starts_with("The following tests did not run")) {
      CloseFailure(report, current);
      current = nullptr;
      in_list = true;
      report.problems.push_back(line);  // ctest's list is short and canonical: kept
      continue;
    }
    if (t.starts_with("Errors while running CTest") || t.starts_with("No tests were found")) {
      report.problems.push_back(line);
      continue;
    }
    if (in_list) {
      if (IsBlank(line)) {
        in_list = false;
      } else {
        report.problems.push_back(line);
      }
      continue;
    }
    if (current != nullptr) current->detail.push_back(line);
  }
  CloseFailure(report, current);
  // Counted from the per-test result lines (ctest's percentage counts skips as passes).
  if (passed_count + skipped > 0 || !report.failures.empty()) {
    report.counts.passed = passed_count;
    if (skipped > 0) report.counts.skipped = skipped;
  }
}

// ---- meson test -----------------------------------------------------------------------------
//
//   1/8 add            OK              0.05s
//   6/8 calc:pow       FAIL            0.05s   exit status 1
//   >>> MALLOC_PERTURB_=47 /w/build/test_pow
//   ――――――――――――― ✀  ―――――――――――――        (--print-errorlogs: the test's output between
//   rules) stderr: FAIL: ../test_pow.c:4: expected power(2,10)==1024 … Summary of Failures: 6/8
//   calc:pow       FAIL            0.05s   exit status 1
//
//   Ok:                 6
//   Fail:               2   (and Expected Fail, Unexpected Pass, Skipped, Timeout)
//   Full log written to /w/build/meson-logs/testlog.txt

// "6/8 calc:pow   FAIL   0.05s   exit status 1": the test's name and its status word.
bool IsMesonResult(std::string_view t, std::string_view* name, std::string_view* status) {
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i == 0 || i >= t.size() || t[i] != '/') return false;
  const size_t total = ++i;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i == total || i >= t.size() || t[i] != ' ') return false;
  // The status is the word before the duration ("0.05s").
  const std::string_view rest = t.substr(i + 1);
  size_t word = 0, previous = std::string_view::npos, previous_end = 0;
  while (word < rest.size()) {
    while (word < rest.size() && rest[word] == ' ') ++word;
    size_t end = rest.find(' ', word);
    if (end == std::string_view::npos) end = rest.size();
    const std::string_view w = rest.substr(word, end - word);
    if (w.size() >= 2 && w.back() == 's' && IsDigit(w.front()) &&
        w.substr(0, w.size() - 1).find_first_not_of("0123456789.") == std::string_view::npos) {
      if (previous == std::string_view::npos) return false;
      static constexpr std::string_view kStatuses[] = {
          "OK", "FAIL", "SKIP", "TIMEOUT", "EXPECTEDFAIL", "UNEXPECTEDPASS", "ERROR"};
      const std::string_view s = rest.substr(previous, previous_end - previous);
      if (std::find(std::begin(kStatuses), std::end(kStatuses), s) == std::end(kStatuses)) {
        return false;
      }
      *status = s;
      *name = Trim(rest.substr(0, previous));
      return !name->empty();
    }
    previous = word;
    previous_end = end;
    word = end;
  }
  return false;
}

// "Ok:                 6", "Unexpected Pass:    0": the label and its count.
bool IsMesonTotal(std::string_view t, std::string_view* label, uint64_t* count) {
  static constexpr std::string_view kLabels[] = {
      "Ok:", "Expected Fail:", "Fail:", "Unexpected Pass:", "Skipped:", "Timeout:"};
  for (std::string_view l : kLabels) {
    if (!t.starts_with(l)) continue;
    const std::optional<uint64_t> n = LeadingNumber(Trim(t.substr(l.size())));
    if (!n) return false;
    *label = l;
    *count = *n;
    return true;
  }
  return false;
}

// "―――――― ✀  ――――――": a rule of horizontal bars (U+2015), with scissors or
// without.
bool IsMesonRule(std::string_view t) {
  if (t.empty()) return false;
  static constexpr std::string_view kBar = "\xE2\x80\x95", kScissors = "\xE2\x9C\x80";
  size_t bars = 0;
  while (!t.empty()) {
    if (t.starts_with(kBar)) {
      t.remove_prefix(kBar.size());
      ++bars;
    } else if (t.starts_with(kScissors)) {
      t.remove_prefix(kScissors.size());
    } else if (t.front() == ' ') {
      t.remove_prefix(1);
    } else {
      return false;
    }
  }
  return bars >= 3;
}

void ParseMeson(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool in_summary = false;
  uint64_t failed = 0;
  bool counted = false;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    std::string_view name, status, label;
    uint64_t count = 0;
    if (IsMesonResult(t, &name, &status)) {
      CloseFailure(report, current);
      current = nullptr;
      report.has_results = true;
      if (in_summary) {
        report.index.push_back(line);
      } else if (status == "OK" || status == "EXPECTEDFAIL") {
        ++report.passing_lines;
      } else if (status != "SKIP") {
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
      }
      continue;
    }
    if (t == "Summary of Failures:") {
      CloseFailure(report, current);
      current = nullptr;
      in_summary = true;
      continue;
    }
    if (IsMesonTotal(t, &label, &count)) {
      CloseFailure(report, current);
      current = nullptr;
      in_summary = false;
      // The counts that are not 0, and the tests that passed, as meson printed them.
      if (count > 0 || label == "Ok:") report.totals.push_back(line);
      report.has_results = true;
      counted = true;
      if (label == "Ok:") report.counts.passed = count;
      if (label == "Skipped:") report.counts.skipped = count;
      if (label == "Fail:" || label == "Unexpected Pass:" || label == "Timeout:") failed += count;
      continue;
    }
    if (t.starts_with("Full log written to ")) {
      report.totals.push_back(line);
      continue;
    }
    // The rules around a test's output ("――― ✀ ―――") carry nothing.
    if (current != nullptr && !in_summary && !IsMesonRule(t)) current->detail.push_back(line);
  }
  CloseFailure(report, current);
  if (counted) {
    report.counts.failed = failed;
  } else if (report.has_results) {
    report.counts.failed = report.failures.size();
    report.counts.passed = report.passing_lines;
  }
}

// ---- GoogleTest -----------------------------------------------------------------------------

void ParseGtest(const std::vector<std::string_view>& lines, TestReport& report) {
  std::vector<std::string_view> running;  // lines since "[ RUN      ]"
  // An output cut at its start (`./tests 2>&1 | tail -20`) inside a test's lines: its first
  // bracketed line is that test's verdict ("[  FAILED  ] Suite.Name (0 ms)"), the lines above
  // it the end of what the test printed.
  bool in_test = false;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (!t.starts_with("[")) continue;
    in_test = (t.starts_with("[  FAILED  ]") || t.starts_with("[       OK ]")) && t.ends_with(" ms)");
    break;
  }
  for (std::string_view line : lines) {
    std::string_view t = Trim(line);
    if (t.starts_with("[ RUN      ]")) {
      running.assign(1, line);
      in_test = true;
      report.has_results = true;
      continue;
    }
    if (t.starts_with("[       OK ]")) {
      ++report.passing_lines;
      running.clear();
      in_test = false;
      continue;
    }
    if (t.starts_with("[  SKIPPED ]") && in_test) {
      running.clear();
      in_test = false;
      continue;
    }
    if (t.starts_with("[  FAILED  ]") && in_test) {
      std::string_view name = Trim(t.substr(12));
      size_t paren = name.find(" (");
      if (paren != std::string_view::npos) name = name.substr(0, paren);
      if (!running.empty() && Trim(running.front()).starts_with("[ RUN      ]")) {
        running.push_back(line);
      } else {
        running.insert(running.begin(), line);  // its heading cut off: the verdict heads it
      }
      report.failures.push_back(TestFailure{name, running});
      running.clear();
      in_test = false;
      continue;
    }
    if (t.starts_with("[==========]") && t.find(" ran.") != std::string_view::npos) {
      report.totals.push_back(line);
      report.counts.total = LeadingNumber(t.substr(12));
      continue;
    }
    if (t.starts_with("[  PASSED  ]")) {
      report.totals.push_back(line);
      report.counts.passed = LeadingNumber(t.substr(12));
      report.has_results = true;
      continue;
    }
    if (t.starts_with("[  FAILED  ]") && t.find("listed below") != std::string_view::npos) {
      report.totals.push_back(line);
      report.counts.failed = LeadingNumber(t.substr(12));
      continue;
    }
    if (t.starts_with("[  SKIPPED ]") && t.find("test") != std::string_view::npos &&
        LeadingNumber(t.substr(12))) {
      report.totals.push_back(line);
      report.counts.skipped = LeadingNumber(t.substr(12));
      continue;
    }
    if ((t.find("FAILED TEST") != std::string_view::npos && LeadingNumber(t)) ||
        t.starts_with("YOU HAVE ")) {
      report.totals.push_back(line);
      continue;
    }
    if (in_test) {
      running.push_back(line);
    } else if (t.starts_with("[  FAILED  ]")) {
      report.index.push_back(line);  // the list of failed tests: the runner's list
    }
  }
  if (in_test && !running.empty()) {
    // The binary died inside a test (a crash): that test is the failure.
    std::string_view name = Trim(Trim(running.front()).substr(12));
    report.failures.push_back(TestFailure{name, running});
  }
}

// ---- RSpec ----------------------------------------------------------------------------------

// A Ruby runner's totals line, kept and read: the count it starts with (examples, runs), then
// failures, errors and `skipped` ("pending", "skips").
void ReadRubyTotals(std::string_view line, std::string_view skipped, TestReport& report) {
  const std::string_view t = Trim(line);
  report.totals.push_back(line);
  report.has_results = true;
  report.counts.total = LeadingNumber(t);
  report.counts.failed = CountBefore(t, "failure");
  report.counts.errors = CountBefore(t, "error");
  report.counts.skipped = CountBefore(t, skipped);
}

// "11 examples, 5 failures, 2 pending", "1 example, 0 failures",
// "0 examples, 0 failures, 1 error occurred outside of examples".
bool IsRspecTotals(std::string_view t) {
  if (!LeadingNumber(t)) return false;
  const size_t digits = t.find_first_not_of("0123456789");
  if (digits == std::string_view::npos) return false;  // a number alone
  const std::string_view rest = t.substr(digits);
  return (rest.starts_with(" examples, ") || rest.starts_with(" example, ")) &&
         (t.find(" failure") != std::string_view::npos);
}

// RSpec's progress or documentation output; then "Pending:" (expected failures, not failures),
// "Failures:" with numbered blocks ("  1) Group example", "Failure/Error: …", the expectation's
// values, "# ./spec/x_spec.rb:12:in …" frames), "Finished in …", the totals line and "Failed
// examples:", one rerun command per failure ("rspec ./spec/x_spec.rb:14 # Group example"). A
// file that cannot be loaded ends the run before any example: "An error occurred while loading
// ./spec/x_spec.rb." and its error, which is a failure of its own.
// hspec's location line above a failure's number: "  test/Spec.hs:27:36: ".
bool IsHspecLocation(std::string_view line) {
  const std::string_view t = Trim(line);
  if (!line.starts_with("  ") || !t.ends_with(":") || t.find(' ') != std::string_view::npos) return false;
  const size_t colon = t.find(':');
  return colon != std::string_view::npos && colon > 0 && colon + 1 < t.size() && IsDigit(t[colon + 1]);
}

// An output cut inside rspec's failures: before its totals, a numbered heading and no
// "Failures:" (above it, had it been a pending test's), and rspec's list of failed examples.
bool StartsInsideRspecFailures(const std::vector<std::string_view>& lines) {
  bool listed = false;  // RSpec's list of failed examples, or hspec's rerun hints
  for (std::string_view line : lines) {
    if (line == "Failures:") return false;
    listed = listed || line == "Failed examples:" || line.starts_with("  To rerun use: --match ");
  }
  if (!listed) return false;
  auto is_section = [](std::string_view t) {
    return t.starts_with("Finished in ") || t.starts_with("Pending:");
  };
  if (StartsInsideNumberedFailures(lines, 4, is_section)) return true;
  // Or inside the last failure, its heading cut too: a line of its backtrace
  // ("     # ./lib/slug.rb:8:in `truncate'") before the run's totals.
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (is_section(t)) return false;
    if (line.starts_with("     # ") && StartsWithLocation(t.substr(2))) return true;
  }
  return false;
}

// Whether an output cut at its start begins inside an error outside of examples (a spec file that
// failed to load): the totals count one ("0 examples, 0 failures, 1 error occurred outside of
// examples") and its "An error occurred while loading …" is not there.
bool StartsInsideRspecLoadError(const std::vector<std::string_view>& lines) {
  bool counted = false;
  for (std::string_view line : lines) {
    if (line.starts_with("An error occurred ")) return false;
    counted = counted || (IsRspecTotals(Trim(line)) &&
                          line.find(" occurred outside of examples") != std::string_view::npos);
  }
  return counted;
}

void ParseRspec(const std::vector<std::string_view>& lines, TestReport& report) {
  enum class Section { kNone, kPending, kFailures, kFailedExamples };
  // Cut inside its failures: the lines before the first heading end a failure (its message,
  // its location) whose heading was cut off.
  bool cut = StartsInsideRspecFailures(lines);
  Section section = cut ? Section::kFailures : Section::kNone;
  // Cut inside an error outside of examples: the lines before the first of the run's own are
  // that error's.
  bool cut_error = StartsInsideRspecLoadError(lines);
  TestFailure* current = nullptr;
  std::string_view pending_location;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    const bool column0 = !line.empty() && line[0] != ' ';
    if (cut_error) {
      cut_error = !(column0 && (t.starts_with("Finished in ") || t == "Failures:" ||
                                t.starts_with("Pending:") || IsRspecTotals(t)));
      if (cut_error) {
        if (!IsBlank(line)) report.problems.push_back(line);
        continue;
      }
    }
    if (IsRspecTotals(t)) {
      CloseFailure(report, current);
      current = nullptr;
      ReadRubyTotals(line, "pending", report);
      continue;
    }
    if (column0 && t.starts_with("Finished in ")) {
      CloseFailure(report, current);
      current = nullptr;
      section = Section::kNone;
      report.totals.push_back(line);
      continue;
    }
    if (column0 && t.starts_with("An error occurred ")) {
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{t, {line}});
      current = &report.failures.back();
      section = Section::kNone;
      continue;
    }
    if (column0 && (t == "Pending:" || t.starts_with("Pending: ("))) {
      CloseFailure(report, current);
      current = nullptr;
      section = Section::kPending;
      continue;
    }
    if (column0 && t == "Failures:") {
      CloseFailure(report, current);
      current = nullptr;
      section = Section::kFailures;
      continue;
    }
    if (column0 && t == "Failed examples:") {
      CloseFailure(report, current);
      current = nullptr;
      section = Section::kFailedExamples;
      continue;
    }
    if (section == Section::kFailedExamples && t.starts_with("rspec ")) {
      report.index.push_back(line);
      continue;
    }
    if (section == Section::kFailures) {
      if (const std::string_view name = NumberedHeading(line, 4); !name.empty()) {
        // hspec prints a failure's location on the line before its number: it is this one's.
        std::string_view location;
        if (current != nullptr && !current->detail.empty() && IsHspecLocation(current->detail.back())) {
          location = current->detail.back();
          current->detail.pop_back();
        } else if (!pending_location.empty()) {
          location = pending_location;
        }
        pending_location = {};
        cut = false;
        CloseFailure(report, current);
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
        if (!location.empty()) current->detail.push_back(location);
        continue;
      }
      if (current == nullptr && IsHspecLocation(line)) {
        pending_location = line;  // the first failure's
        continue;
      }
      if (current == nullptr && cut) {
        if (!t.empty()) report.problems.push_back(line);
        continue;
      }
    }
    if (section == Section::kPending) continue;  // counted with the other lines
    if (current != nullptr) {
      if (column0 && !t.starts_with("#") && section != Section::kNone) {
        CloseFailure(report, current);  // a line of the runner's own ends a block
        current = nullptr;
      } else {
        current->detail.push_back(line);
        continue;
      }
    }
  }
  CloseFailure(report, current);
}

// ---- Minitest -------------------------------------------------------------------------------

// "8 runs, 6 assertions, 4 failures, 1 errors, 1 skips".
bool IsMinitestTotals(std::string_view t) {
  return LeadingNumber(t) && (t.find(" runs, ") != std::string_view::npos ||
                              t.find(" run, ") != std::string_view::npos) &&
         t.find(" assertion") != std::string_view::npos;
}

// Minitest (ruby -Itest, rake test, bin/rails test): "Run options: --seed N", "# Running:", a
// progress line (or, with -v, "CartTest#test_total = 0.00 s = ."), "Finished in …", then
// numbered blocks ("  1) Failure:" or "  3) Error:", "CartTest#test_count [test/cart_test.rb:13]:",
// the message, an error's backtrace; Rails adds the command that reruns it) and the totals.
void ParseMinitest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool named = false;  // the block's test named (the line after its heading)
  // Cut inside its failures (no banner or "Finished in" above the first): the lines before the
  // first end a failure whose heading was cut off — or, that heading the line cut just above,
  // the output starts at the block's test ("CartTest#test_count [test/cart_test.rb:13]:").
  bool cut = StartsInsideNumberedFailures(lines, 4, [](std::string_view t) {
    return t.starts_with("Finished in ") || t.starts_with("# Running") ||
           t.starts_with("Run options: ");
  });
  if (const auto first = std::find_if_not(lines.begin(), lines.end(), IsBlank);
      !cut && first != lines.end()) {
    const std::string_view t = *first;
    const size_t hash = t.find('#');
    cut = hash != std::string_view::npos && hash > 0 && t.ends_with("]:") && t.find(" [") > hash &&
          t.find(' ') == t.find(" [");
  }
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (IsMinitestTotals(t)) {
      CloseFailure(report, current);
      current = nullptr;
      ReadRubyTotals(line, "skip", report);
      continue;
    }
    if (t.starts_with("Finished in ") && line.size() == t.size()) {
      report.totals.push_back(line);
      continue;
    }
    if (const std::string_view kind = NumberedHeading(line, 4);
        kind == "Failure:" || kind == "Error:" || kind == "Skipped:") {
      CloseFailure(report, current);
      current = nullptr;
      cut = false;
      if (kind != "Skipped:") {  // -v lists skips as blocks too: counted
        report.failures.push_back(TestFailure{t, {line}});
        current = &report.failures.back();
        named = false;
      }
      continue;
    }
    if (current != nullptr) {
      if (!named && !t.empty()) {
        // "CartTest#test_count [test/cart_test.rb:13]:" or "CartTest#test_fetch:".
        current->name = t.substr(0, std::min(t.find(" ["), t.size()));
        if (current->name.ends_with(":")) current->name.remove_suffix(1);
        named = true;
      }
      current->detail.push_back(line);
      continue;
    }
    if (cut) {
      if (!t.empty()) report.problems.push_back(line);
      continue;
    }
    if (t.find(" = ") != std::string_view::npos && t.find('#') != std::string_view::npos &&
        t.find(" s = ") != std::string_view::npos) {
      // -v: "CartTest#test_total = 0.00 s = ."; one that failed, "… = F" or "… = E", is the
      // runner's word that it did (its block may be cut off: `rake test | head -30`).
      if (t.ends_with(" = F") || t.ends_with(" = E")) {
        report.index.push_back(line);
      } else {
        ++report.passing_lines;
      }
      report.has_results = true;
    }
  }
  CloseFailure(report, current);
}

// ---- test-unit ------------------------------------------------------------------------------

// Ruby's test-unit: "Loaded suite …", "Started", progress characters, then a block between lines
// of "=" per test that did not pass, opened by "Failure: test_csv(TestInvoice)", "Error:
// test_x(TestInvoice): NoMethodError: …", "Pending: …" or "Omission: …" (a failure's location,
// the code around it with "=>" at the failing line, the message, the backtrace); then "Finished
// in …" and the totals, "12 tests, 10 assertions, 4 failures, 0 errors, 1 pendings, 1
// omissions, 0 notifications", and "54.5455% passed".
// A test-unit block's first line: "Failure: test_csv(TestInvoice)", "Error: …", "Pending: …",
// "Omission: …", "Notification: …".
bool IsTestUnitBlockTitle(std::string_view t) {
  for (std::string_view kind :
       {"Failure: ", "Error: ", "Pending: ", "Omission: ", "Notification: "}) {
    if (t.starts_with(kind)) return true;
  }
  return false;
}

void ParseTestUnit(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  auto is_rule = [](std::string_view t) { return AllOf(t, '=', 20); };
  // The code around the failing line ("     26:   def test_csv"), but not the failing line
  // ("  => 27:     assert_equal(…)"): counted.
  auto is_context = [](std::string_view line, std::string_view t) {
    const size_t digits = t.find_first_not_of("0123456789");
    return line.starts_with("    ") && digits > 0 && digits != std::string_view::npos &&
           t[digits] == ':';
  };
  // Between a block's "=" lines. An output cut at its start (`ruby test.rb | tail -30`) can
  // begin inside a block: its first rule is then followed by no block's title, and the lines
  // above it, the end of a failure whose title was cut, are kept as printed.
  bool in_block = false, cut = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!is_rule(Trim(lines[i]))) continue;
    cut = i + 1 == lines.size() || !IsTestUnitBlockTitle(Trim(lines[i + 1]));
    in_block = cut;
    break;
  }
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (is_rule(t)) {
      CloseFailure(report, current);
      current = nullptr;
      in_block = !in_block;
      cut = false;
      continue;
    }
    if (cut) {
      if (!IsBlank(line) && !is_context(line, t)) report.problems.push_back(line);
      continue;
    }
    if (in_block && current == nullptr && (t.starts_with("Failure: ") || t.starts_with("Error: "))) {
      std::string_view name = t.substr(t.find(' ') + 1);
      if (const size_t close = name.find(')'); close != std::string_view::npos) {
        name = name.substr(0, close + 1);  // "test_x(TestInvoice)", not what an Error adds
      }
      report.failures.push_back(TestFailure{name, {line}});
      current = &report.failures.back();
      continue;
    }
    if (in_block) {
      if (current != nullptr && !is_context(line, t)) current->detail.push_back(line);
      continue;  // a pending or omitted test's block: counted
    }
    if (LeadingNumber(t) && t.find(" tests, ") != std::string_view::npos &&
        t.find(" assertions, ") != std::string_view::npos) {
      report.totals.push_back(line);
      report.has_results = true;
      report.counts.total = LeadingNumber(t);
      report.counts.failed = CountBefore(t, "failures");
      report.counts.errors = CountBefore(t, "errors");
      const uint64_t skipped =
          CountBefore(t, "pendings").value_or(0) + CountBefore(t, "omissions").value_or(0);
      if (skipped > 0) report.counts.skipped = skipped;
      if (report.counts.total && report.counts.failed && report.counts.errors) {
        const uint64_t not_passed = *report.counts.failed + *report.counts.errors + skipped;
        if (*report.counts.total >= not_passed) report.counts.passed = *report.counts.total - not_passed;
      }
      continue;
    }
    if (t.ends_with("% passed") || t.starts_with("Finished in ")) report.totals.push_back(line);
  }
  CloseFailure(report, current);
}

// ---- PHPUnit --------------------------------------------------------------------------------

// "There were 2 errors:", "There was 1 failure:", "There were 3 warnings:", "There was 1 risky
// test:"; `kind` is set to what the section lists ("errors", "failure", "risky test").
bool IsPhpunitSection(std::string_view t, std::string_view* kind) {
  std::string_view rest;
  if (t.starts_with("There were ")) {
    rest = t.substr(11);
  } else if (t.starts_with("There was ")) {
    rest = t.substr(10);
  } else {
    return false;
  }
  if (!LeadingNumber(rest) || !rest.ends_with(":")) return false;
  rest = rest.substr(rest.find(' ') + 1);
  *kind = rest.substr(0, rest.size() - 1);
  return true;
}

// PHPUnit: a progress line of one character per test, "Time: …, Memory: …", then a section per
// kind of problem ("There were 2 errors:", "There was 1 failure:") of numbered blocks ("1)
// MoneyTest::testFormat", the message, a diff, the "/path/File.php:15" trace), sections apart by
// "--", and the verdict ("FAILURES!", "ERRORS!", "OK (10 tests, 20 assertions)", "OK, but …")
// over "Tests: 10, Assertions: 8, Errors: 2, Failures: 5, Skipped: 1.". Errors, failures and
// warnings are failures; risky, incomplete, skipped and deprecated tests are counted.
//
// With --testdox, a line per test under its class's name (" ✔ Slug with data set \"simple\"",
// " ✘ …" failed, " ∅ …" incomplete, " ↩ …" skipped, " ☢ …" risky), a failure's message, diff
// and trace under it behind "│", and all of them again under "Summary of non-successful tests:".
void ParsePhpunit(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  // Cut inside a section of failures: the lines before the first heading end a failure whose
  // heading was cut off — inside the last one, its diff ("--- Expected") or where it failed
  // ("/src/tests/MoneyTest.php:30") come before the verdict ("FAILURES!", "ERRORS!").
  auto section = [](std::string_view t) {
    std::string_view kind;
    return IsPhpunitSection(t, &kind) || t == "--" || t.starts_with("Time: ") ||
           t.starts_with("PHPUnit ") || t.starts_with("Summary of non-successful tests");
  };
  bool cut = StartsInsideNumberedFailures(lines, 0, section);
  for (size_t i = 0; i < lines.size() && !cut; ++i) {
    const std::string_view t = Trim(lines[i]);
    if (section(t) || t == "FAILURES!" || t == "ERRORS!" || t.starts_with("OK (")) break;
    const std::string_view location = LocationPrefix(lines[i]);
    cut = lines[i] == "--- Expected" ||
          (location.size() == lines[i].size() && location.find(".php:") != std::string_view::npos);
  }
  bool failing_section = cut;
  bool testdox_summary = false;  // the failures listed again: counted
  uint64_t again = 0;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    std::string_view kind;
    if (t == "Summary of non-successful tests:") {
      CloseFailure(report, current);
      current = nullptr;
      testdox_summary = true;
      ++again;
      continue;
    }
    if (t.starts_with("✘ ") || t.starts_with("✔ ") || t.starts_with("∅ ") || t.starts_with("↩ ") ||
        t.starts_with("☢ ")) {
      CloseFailure(report, current);
      current = nullptr;
      const std::string_view name =
          t.starts_with("✘ ") ? t.substr(std::string_view("✘ ").size()) : std::string_view();
      if (testdox_summary &&
          (name.empty() || std::any_of(report.failures.begin(), report.failures.end(),
                                       [&](const TestFailure& f) { return f.name == name; }))) {
        ++again;  // (A failure not shown above, its block cut off, `phpunit | tail -80`: kept.)
      } else if (t.starts_with("✘ ")) {
        report.failures.push_back(TestFailure{t.substr(std::string_view("✘ ").size()), {line}});
        current = &report.failures.back();
      } else if (t.starts_with("✔ ")) {
        ++report.passing_lines;
      }
      report.has_results = true;
      continue;
    }
    if (t.starts_with("│")) {
      if (current != nullptr) {
        current->detail.push_back(line);
      } else if (testdox_summary) {
        ++again;
      } else if (!report.has_results && !Trim(t.substr(std::string_view("│").size())).empty()) {
        // Before any test's line: the end of a failure whose "✘" line was cut off (`phpunit
        // --testdox | tail -20`), its diff and where it failed. Kept as printed.
        report.problems.push_back(line);
      }
      continue;
    }
    if (IsPhpunitSection(t, &kind)) {
      CloseFailure(report, current);
      current = nullptr;
      cut = false;
      failing_section = kind.starts_with("error") || kind.starts_with("failure") ||
                        kind.starts_with("warning");
      continue;
    }
    if (t == "--") {
      CloseFailure(report, current);
      current = nullptr;
      failing_section = false;
      continue;
    }
    const bool verdict = t == "FAILURES!" || t == "ERRORS!" || t == "WARNINGS!" ||
                         (t.starts_with("OK (") && t.find(" test") != std::string_view::npos) ||
                         t.starts_with("OK, but ") || t == "No tests executed!";
    const bool counts = t.starts_with("Tests: ") && t.find("Assertions: ") != std::string_view::npos;
    if (verdict || counts || (t.starts_with("Time: ") && t.find("Memory: ") != std::string_view::npos)) {
      CloseFailure(report, current);
      current = nullptr;
      failing_section = false;
      report.totals.push_back(line);
      report.has_results = report.has_results || verdict || counts;
      if (t.starts_with("OK (")) {
        report.counts.passed = CountBefore(t, "test");
        report.counts.total = report.counts.passed;
      }
      if (counts) {
        auto after = [&](std::string_view key) -> std::optional<uint64_t> {
          const size_t at = t.find(key);
          return at == std::string_view::npos ? std::nullopt : LeadingNumber(t.substr(at + key.size()));
        };
        report.counts.total = after("Tests: ");
        report.counts.failed = after("Failures: ");
        report.counts.errors = after("Errors: ");
        report.counts.skipped = after("Skipped: ");
        if (const auto incomplete = after("Incomplete: ")) Add(report.counts.skipped, incomplete);
      }
      continue;
    }
    if (failing_section) {
      if (const std::string_view name = NumberedHeading(line, 0); !name.empty()) {
        CloseFailure(report, current);
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
        cut = false;
        continue;
      }
      if (current != nullptr) {
        current->detail.push_back(line);
      } else if (cut && !t.empty()) {
        report.problems.push_back(line);
      }
    }
  }
  CloseFailure(report, current);
  if (again > 0) report.elided.emplace_back(again, "lines listing the failures again omitted");
}

// ---- Catch2 ---------------------------------------------------------------------------------

// Catch2's console reporter: a block per test case (or section) that failed (or, with -s, ran):
// a line of dashes, the test case's name and its sections' names, a line of dashes, where the
// test case is, a line of dots, then each assertion ("t.cpp:17: FAILED:", the expression, "with
// expansion:" and its values). A line of "=" closes the run, before its totals ("test cases: 4
// | 1 passed | 3 failed", "assertions: …", or "All tests passed (8 assertions in 4 test
// cases)").
void ParseCatch2(const std::vector<std::string_view>& lines, TestReport& report) {
  enum class State { kOutside, kName, kLocation, kBody };
  State state = State::kOutside;
  std::vector<std::string_view> block;
  bool failed = false;
  bool passed_assertion = false;
  auto close = [&] {
    if (!block.empty() && failed) {
      TrimTrailingBlank(block);
      report.failures.push_back(TestFailure{Trim(block.front()), block});
    } else if (!block.empty()) {
      ++report.passing_lines;
    }
    block.clear();
    failed = false;
    passed_assertion = false;
  };
  // Cut at its start (`./tests -s | tail -20`) inside a test case's block, its name cut off:
  // a failed assertion ("stats_test.cpp:33: FAILED:") above the first rule, or, that line cut
  // off too, the assertion's expression ("  CHECK( a == b )") or its expansion ("with
  // expansion:") with no passed one ("t.cpp:25: PASSED:", with -s) among them. Read as a block.
  bool assertion = false;
  for (std::string_view line : lines) {
    if (AllOf(line, '-', 20) || AllOf(line, '=', 20)) break;
    if (line.ends_with(": FAILED:")) {
      state = State::kBody;
      break;
    }
    if (line.ends_with(": PASSED:")) {
      assertion = false;
      break;
    }
    const std::string_view t = Trim(line);
    assertion = assertion || t == "with expansion:" ||
                ((t.starts_with("CHECK") || t.starts_with("REQUIRE")) &&
                 t.find("( ") != std::string_view::npos && t.ends_with(" )"));
  }
  if (state == State::kOutside && assertion) {
    state = State::kBody;
    failed = true;
  }
  // Or cut inside a test case's heading: its name above a rule of "-" whose next rule is the "."
  // one under the location, or the location above that "." rule. Read from there.
  if (state == State::kOutside) {
    std::string rules;
    for (std::string_view line : lines) {
      for (char c : {'-', '=', '.'}) {
        if (AllOf(line, c, 20)) rules.push_back(c);
      }
      if (rules.size() == 2) break;
    }
    if (rules.starts_with(".")) state = State::kLocation;
    if (rules == "-.") state = State::kName;
  }
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (AllOf(line, '-', 20)) {
      if (state == State::kName) {
        state = State::kLocation;
      } else {
        close();
        state = State::kName;
      }
      continue;
    }
    if (AllOf(line, '=', 20)) {
      close();
      state = State::kOutside;
      continue;
    }
    if (state == State::kOutside) {
      if (t.starts_with("test cases:") || t.starts_with("assertions:") ||
          (t.starts_with("All tests passed (") && t.find(" test case") != std::string_view::npos)) {
        report.totals.push_back(line);
        report.has_results = true;
        if (t.starts_with("test cases:")) {
          report.counts.total = LeadingNumber(t.substr(11));
          report.counts.passed = CountBefore(t, "passed");
          report.counts.failed = CountBefore(t, "failed");
          report.counts.skipped = CountBefore(t, "skipped");
        } else if (t.starts_with("All tests passed (")) {
          report.counts.passed = CountBefore(t, "test case");
          report.counts.total = report.counts.passed;
        }
      }
      continue;
    }
    if (state == State::kLocation && AllOf(line, '.', 20)) {
      state = State::kBody;
      continue;
    }
    if (state == State::kBody) {
      // With -s every assertion is printed; a passing one ("t.cpp:25: PASSED:", its
      // expression and expansion, to the blank line after it) is counted.
      if (line.ends_with(": PASSED:")) passed_assertion = true;
      if (passed_assertion) {
        passed_assertion = !t.empty();
        continue;
      }
      if (line.ends_with(": FAILED:")) failed = true;
    }
    block.push_back(line);
  }
  close();
}

// ---- Maven (Surefire, Failsafe) -------------------------------------------------------------

// A Maven log line's text after its level: "[ERROR] Tests run: 3, …" -> "Tests run: 3, …".
// `prefixed` says whether the line had a level at all.
std::string_view MavenText(std::string_view line, bool* prefixed) {
  const size_t level = MavenLevelLength(line);
  *prefixed = level > 0;
  return line.substr(level);
}

// "Failures: 8" in "Tests run: 418, Failures: 8, Errors: 3, Skipped: 1".
std::optional<uint64_t> NumberAfter(std::string_view text, std::string_view label) {
  const size_t at = text.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  return LeadingNumber(text.substr(at + label.size()));
}

// Maven running Surefire (mvn test) or Failsafe (mvn verify): "Running shop.CartTest", a line
// per class ("Tests run: 6, Failures: 1, … <<< FAILURE! - in shop.CartTest"), a block per
// failed test ("[ERROR] countsUnits(shop.CartTest)  Time elapsed: 0 s  <<< FAILURE!" — Surefire 3
// writes "shop.CartTest.countsUnits -- Time elapsed: …" — then the exception and its frames,
// to a blank line), then "Results:": "Failures:"/"Errors:" with a line per failed test
// ("  CartTest.countsUnits:19 expected:<3> but was:<2>"), the module's totals ("Tests run: 418,
// Failures: 8, Errors: 3, Skipped: 1"), and the build's verdict ("BUILD FAILURE", "Failed to
// execute goal …"). A multi-module build repeats it per module and ends with the Reactor
// Summary, a line per module.
void ParseSurefire(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool results = false;  // in a module's "Results:" section
  auto close = [&] {
    CloseFailure(report, current);
    current = nullptr;
  };
  // Cut at its start (`mvn test | tail -80`) inside a failed test's trace, its heading cut
  // off: the lines above Maven's first, when one is a stack frame, end it. Kept as printed
  // but for the libraries' frames (JUnit's, reflection's, Surefire's) and "... 33 more".
  size_t first = 0;
  bool trace = false;
  for (bool prefixed = false; first < lines.size(); ++first) {
    MavenText(lines[first], &prefixed);
    if (prefixed) break;
    trace = trace || Trim(lines[first]).starts_with("at ");
  }
  const size_t from = KeepCutStart(lines, first, trace, report, [](std::string_view line) {
    const std::string_view t = Trim(line);
    return !(t.starts_with("at ") && IsLibraryFrame(line)) &&
           !(t.starts_with("... ") && t.ends_with(" more"));
  });
  for (std::string_view line : std::span(lines).subspan(from)) {
    bool prefixed = false;
    const std::string_view text = MavenText(line, &prefixed);
    const std::string_view t = Trim(text);
    if (current != nullptr) {
      if (!prefixed && !t.empty()) {
        current->detail.push_back(line);
        continue;
      }
      close();
    }
    if (!prefixed) continue;
    if ((t.ends_with("<<< FAILURE!") || t.ends_with("<<< ERROR!")) && !t.starts_with("Tests run:")) {
      std::string_view name = t.substr(0, t.find(" Time elapsed"));
      name = Trim(name);
      if (name.ends_with(" --")) name.remove_suffix(3);
      report.failures.push_back(TestFailure{name, {line}});
      current = &report.failures.back();
      report.has_results = true;
      continue;
    }
    if (t.starts_with("Tests run: ")) {
      report.has_results = true;
      if (t.find("Time elapsed") != std::string_view::npos || t.find(" - in ") != std::string_view::npos) {
        continue;  // a class's line: counted
      }
      results = false;
      report.totals.push_back(line);
      Add(report.counts.total, NumberAfter(t, "Tests run: "));
      Add(report.counts.failed, NumberAfter(t, "Failures: "));
      Add(report.counts.errors, NumberAfter(t, "Errors: "));
      Add(report.counts.skipped, NumberAfter(t, "Skipped: "));
      continue;
    }
    if (t == "Results:" || t == "Results :") {
      results = true;
      continue;
    }
    if (results) {
      // "  CartTest.countsUnits:19 expected:<3> but was:<2>" under "Failures:" or "Errors:".
      if (text.starts_with("  ") && !t.empty()) report.index.push_back(line);
      continue;
    }
    if (t == "BUILD FAILURE" || t == "BUILD SUCCESS") {
      report.totals.push_back(line);
      continue;
    }
    // The Reactor Summary's line for a module that failed: "shop-core ..... FAILURE [  2.1 s]".
    if (t.find(" FAILURE [") != std::string_view::npos && t.find(" .") != std::string_view::npos) {
      report.problems.push_back(line);
      continue;
    }
    // Why the build stopped, and errors outside the tests (a compilation error, a plugin that
    // failed): kept, without Maven's pointers to help.
    if (line.starts_with("[ERROR]") && !t.empty() && !IsMavenHelp(t) &&
        !t.starts_with("Please refer to ")) {
      report.problems.push_back(line);
    }
  }
  close();
  // Maven's totals count the tests run, of which those neither failed nor skipped passed.
  const TestCounts& c = report.counts;
  if (c.total) {
    const uint64_t not_passed = c.failed.value_or(0) + c.errors.value_or(0) + c.skipped.value_or(0);
    if (*c.total >= not_passed) report.counts.passed = *c.total - not_passed;
  }
}

// ---- Gradle ---------------------------------------------------------------------------------

// A test event line: "com.acme.InvoiceTest > shortIdDoesNotCrash FAILED", "AppTest >
// greets() PASSED", "Outer > Inner > test() SKIPPED", "AppTest > greets() STANDARD_OUT". The
// event word, or "" when the line is not one.
std::string_view GradleTestEvent(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return {};
  const size_t space = line.rfind(' ');
  if (space == std::string_view::npos || line.find(" > ") == std::string_view::npos) return {};
  const std::string_view event = line.substr(space + 1);
  static constexpr std::string_view kEvents[] = {"FAILED",  "PASSED",       "SKIPPED",
                                                 "STARTED", "STANDARD_OUT", "STANDARD_ERROR"};
  if (std::find(std::begin(kEvents), std::end(kEvents), event) == std::end(kEvents)) return {};
  if (line.find(" > ") > space) return {};
  return event;
}

// A task's line: "> Task :test FAILED", or Gradle 4's ":test FAILED", ":compileJava".
bool IsGradleTaskLine(std::string_view line) {
  if (line.starts_with("> Task :")) return true;
  if (!line.starts_with(":") || line.size() < 2 || !std::isalpha(static_cast<unsigned char>(line[1]))) {
    return false;
  }
  const std::string_view task = line.substr(0, line.find(' '));
  return task.find_first_not_of(
             ":abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
         std::string_view::npos;
}

// Gradle's test task with the tests' events logged (its default logs failures; testLogging may
// add the others): a line per event, a failure's exception indented under it, then "8 tests
// completed, 3 failed" and the task's line. A Java or Kotlin compiler's diagnostics may come
// first (their headings are kept), and Gradle's verdict last: "FAILURE: Build failed with an
// exception.", "* What went wrong:" and its lines (kept), "* Try:" and its hints (counted),
// "BUILD FAILED in 1s".
void ParseGradle(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool in_console = false;  // under a STANDARD_OUT or STANDARD_ERROR event
  enum class Section { kNone, kWrong, kHelp } section = Section::kNone;
  ConsoleOutput console(report);
  auto close = [&] {
    CloseFailure(report, current);
    current = nullptr;
  };
  // Cut at its start (`gradle test | tail -30`) inside a failed test's exception, its event
  // line cut off: the indented lines above the first line at the margin, when one is a stack
  // frame ("        at com.acme.TaxCalculator.taxFor(TaxCalculator.java:17)"), are kept.
  size_t first = 0;
  bool framed = false;
  while (first < lines.size() && (IsBlank(lines[first]) || lines[first].starts_with(" ") ||
                                  lines[first].starts_with("\t"))) {
    framed = framed || Trim(lines[first]).starts_with("at ");
    ++first;
  }
  for (std::string_view line :
       std::span(lines).subspan(KeepCutStart(lines, first, framed, report))) {
    std::string_view t = Trim(line);
    if (current != nullptr || in_console) {
      if (t.empty() || line.starts_with(" ") || line.starts_with("\t")) {
        if (in_console) {
          console.Line(line);
        } else {
          current->detail.push_back(line);
        }
        continue;
      }
      close();
      in_console = false;
    }
    if (section != Section::kNone) {
      if (!t.empty() && !t.starts_with("* ")) {
        if (section == Section::kWrong) report.problems.push_back(line);
        continue;
      }
      if (t.empty()) {
        section = Section::kNone;
        continue;
      }
      section = Section::kNone;
    }
    if (const std::string_view event = GradleTestEvent(line); !event.empty()) {
      report.has_results = true;
      const std::string_view name = Trim(line.substr(0, line.size() - event.size()));
      if (event == "FAILED") {
        report.failures.push_back(TestFailure{name, {line}});
        current = &report.failures.back();
      } else if (event == "PASSED") {
        ++report.passing_lines;
      } else if (event.starts_with("STANDARD_")) {
        in_console = true;
        console.Entry(line, event == "STANDARD_ERROR");
      }
      continue;
    }
    // "8 tests completed, 3 failed", "12 tests completed, 1 failed, 2 skipped"
    if (LeadingNumber(t) && t.find(" completed, ") != std::string_view::npos &&
        (t.find(" tests ") != std::string_view::npos || t.find(" test ") != std::string_view::npos)) {
      report.has_results = true;
      report.totals.push_back(line);
      Add(report.counts.total, LeadingNumber(t));
      Add(report.counts.failed, CountBefore(t, "failed"));
      Add(report.counts.skipped, CountBefore(t, "skipped"));
      continue;
    }
    if (t == "* What went wrong:") {
      section = Section::kWrong;
      report.problems.push_back(line);
      continue;
    }
    if (t == "* Try:" || t == "* Exception is:" || t.starts_with("* Get more help")) {
      section = Section::kHelp;
      continue;
    }
    if (t.starts_with("FAILURE: ") || t.starts_with("BUILD FAILED") ||
        t.starts_with("BUILD SUCCESSFUL")) {
      report.totals.push_back(line);
      continue;
    }
    if (IsGradleTaskLine(line)) {
      if (t.ends_with(" FAILED")) report.problems.push_back(line);
      continue;
    }
    // A compiler's diagnostic heading: javac's "src/X.java:8: warning: [rawtypes] …", kotlinc's
    // "w: file:///src/X.kt:10:5 …" (Gradle 4 glues the task's name in front: ":compileJava/…").
    const bool javac = (t.find(".java:") != std::string_view::npos ||
                        t.find(".kt:") != std::string_view::npos ||
                        t.find(".groovy:") != std::string_view::npos ||
                        t.find(".scala:") != std::string_view::npos) &&
                       (t.find(": error: ") != std::string_view::npos ||
                        t.find(": warning: ") != std::string_view::npos);
    const bool kotlinc = (t.starts_with("e: ") || t.starts_with("w: ")) &&
                         t.find(".kt:") != std::string_view::npos;
    if (line == t && (javac || kotlinc)) report.problems.push_back(line);
  }
  close();
  console.Finish();
  // Gradle's totals count the tests run, of which those neither failed nor skipped passed.
  const TestCounts& c = report.counts;
  if (c.total) {
    const uint64_t not_passed = c.failed.value_or(0) + c.skipped.value_or(0);
    if (*c.total >= not_passed) report.counts.passed = *c.total - not_passed;
  }
}

// ---- ExUnit (Elixir) ------------------------------------------------------------------------

// ExUnit's totals: "21 tests, 11 failures, 1 skipped", "1 test, 0 failures", "3 doctests, 12
// tests, 2 failures, 1 excluded".
bool IsExUnitTotals(std::string_view t) {
  if (!LeadingNumber(t)) return false;
  return (t.find(" test, ") != std::string_view::npos || t.find(" tests, ") != std::string_view::npos) &&
         (t.find(" failure") != std::string_view::npos || t.find(" invalid") != std::string_view::npos);
}

// mix test: a block per failure, "  1) test add/2 rejects negative price (CartTest)", its
// location, the assertion, "code:", "left:"/"right:" and the stacktrace indented under it; then
// "Finished in 0.1 seconds (…)" and the totals. --trace adds a line per test ("  * test name
// (0.2ms) [L#12]"), the passing ones counted.
void ParseExUnit(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  auto close = [&] {
    CloseFailure(report, current);
    current = nullptr;
  };
  // Cut at its start (`mix test | tail -80`) inside a failure, its heading cut off: above the
  // first heading, one of a failure's parts ("code:", "stacktrace:", "left:", an exception
  // "** (ArgumentError) …"); those lines, but for the progress dots, are kept as printed.
  size_t first = 0;
  bool inside = false;
  for (; first < lines.size() && NumberedHeading(lines[first], 4).empty() &&
         !IsExUnitTotals(Trim(lines[first]));
       ++first) {
    const std::string_view t = Trim(lines[first]);
    for (std::string_view key : {"code:", "stacktrace:", "left:", "right:", "actual:", "** ("}) {
      inside = inside || (lines[first].starts_with("     ") && t.starts_with(key));
    }
  }
  const size_t from = KeepCutStart(lines, first, inside, report, [](std::string_view line) {
    return Trim(line).find_first_not_of(".*") != std::string_view::npos;  // not progress dots
  });
  for (std::string_view line : std::span(lines).subspan(from)) {
    const std::string_view t = Trim(line);
    if (const std::string_view name = NumberedHeading(line, 4);
        !name.empty() && (name.starts_with("test ") || name.starts_with("doctest ") ||
                          name.starts_with("property "))) {
      close();
      report.failures.push_back(TestFailure{t, {line}});
      current = &report.failures.back();
      report.has_results = true;
      continue;
    }
    if (t.starts_with("Finished in ") && line == t) {
      close();
      report.totals.push_back(line);
      continue;
    }
    if (IsExUnitTotals(t) && line == t) {
      close();
      report.totals.push_back(line);
      report.has_results = true;
      // "3 doctests, 12 tests, 1 property, …": each kind is run, and counted.
      uint64_t total = 0;
      for (size_t from = 0; from < t.size();) {
        const size_t comma = std::min(t.find(", ", from), t.size());
        const std::string_view part = t.substr(from, comma - from);
        from = comma + 2;
        const std::string_view word = part.substr(std::min(part.size(), part.find(' ') + 1));
        if (word.starts_with("doctest") || word.starts_with("test") || word.starts_with("propert")) {
          total += LeadingNumber(part).value_or(0);
        }
      }
      report.counts.total = total;
      report.counts.failed = CountBefore(t, "failure");
      report.counts.skipped = CountBefore(t, "skipped");
      Add(report.counts.skipped, CountBefore(t, "excluded"));
      if (report.counts.total && *report.counts.total >=
                                     report.counts.failed.value_or(0) + report.counts.skipped.value_or(0)) {
        report.counts.passed = *report.counts.total - report.counts.failed.value_or(0) -
                               report.counts.skipped.value_or(0);
      }
      continue;
    }
    if ((t.starts_with("* test ") || t.starts_with("* doctest ")) &&
        t.find(" [L#") != std::string_view::npos) {
      close();
      ++report.passing_lines;  // --trace: a test's line (the failures are blocks of their own)
      report.has_results = true;
      continue;
    }
    if (current != nullptr) {
      if (line.empty() || line.starts_with(" ")) {
        current->detail.push_back(line);
        continue;
      }
      close();
    }
  }
  close();
}

// ---- behave (Python BDD) ---------------------------------------------------------------------

// behave's pretty format: "  Scenario: Negative deposit   # features/accounts.feature:25", its
// steps ("    When "alice" deposits -5   # features/steps/bank_steps.py:14"), under a step that
// failed its error indented further ("      Assertion Failed: …", a traceback), a step not run
// or not defined located at "# None". A scenario with a failed or undefined step is a failure:
// its heading, the step and the error. Then "Failing scenarios:" (the runner's list), the totals
// ("7 scenarios passed, 6 failed, 0 skipped") and the snippets for undefined steps (counted).
// A line behave locates in a comment after it, aligned with the others (the longest has one
// space before it): "# features/accounts.feature:25", "# features/steps/bank_steps.py:14", or
// "# None" for a step with no definition or not run.
bool BehaveLocated(std::string_view t) {
  const size_t hash = t.rfind(" # ");
  if (hash == std::string_view::npos) return false;
  const std::string_view where = t.substr(hash + 3);
  const size_t colon = where.rfind(':');
  return where == "None" || (colon != std::string_view::npos && colon + 1 < where.size() &&
                             IsDigit(where[colon + 1]) && where.find(' ') == std::string_view::npos);
}

void ParseBehave(const std::vector<std::string_view>& lines, TestReport& report) {
  std::string_view scenario;       // the current scenario's heading
  TestFailure* current = nullptr;  // its failure, once a step failed
  std::vector<std::string_view> step_lines;  // the current step and what is under it
  bool in_list = false;
  uint64_t not_run = 0;  // steps after a failed one
  auto fail = [&](std::string_view title) {
    if (current == nullptr) {
      report.failures.push_back(TestFailure{title, {scenario}});
      current = &report.failures.back();
    }
  };
  auto end_scenario = [&] {
    if (current != nullptr) CloseFailure(report, current);
    current = nullptr;
    scenario = {};
    step_lines.clear();
  };
  // Cut at its start (`behave | tail -30`) inside a scenario, its heading cut off: the lines
  // above the first heading or list, when a step in them failed ("Assertion Failed", a
  // traceback) or is not defined ("# None"), end a failed scenario: kept as printed.
  size_t first = 0;
  bool failed_step = false;
  for (; first < lines.size(); ++first) {
    const std::string_view t = Trim(lines[first]);
    if (t.starts_with("Scenario") || t.starts_with("Example: ") ||
        t.starts_with("Feature: ") || t.starts_with("Background:") ||
        t == "Failing scenarios:" ||
        (LeadingNumber(t) && t.find(" passed, ") != std::string_view::npos)) {
      break;
    }
    failed_step = failed_step || (lines[first].starts_with("    ") && t.ends_with("# None")) ||
                  LooksLikeErrorLine(lines[first]);
  }
  const size_t start = KeepCutStart(lines, first, failed_step, report);
  // Or inside its list of failing scenarios ("  features/transfers.feature:23  Monthly
  // interest").
  for (std::string_view line : lines) {
    if (IsBlank(line)) continue;
    in_list = line.starts_with("  ") && !line.starts_with("   ") &&
              Trim(line).find(".feature:") != std::string_view::npos;
    break;
  }
  // The snippets behave offers for undefined steps ("@when(u'\"alice\" schedules …')"): each
  // names one, kept when no undefined step's own line is (cut off above).
  std::vector<std::string_view> snippets;
  bool undefined_shown = false;
  for (std::string_view line : std::span(lines).subspan(start)) {
    const std::string_view t = Trim(line);
    for (std::string_view keyword : {"@given(u'", "@when(u'", "@then(u'", "@step(u'"}) {
      if (line.starts_with(keyword)) snippets.push_back(line);
    }
    if (in_list) {
      if (!t.empty() && line.starts_with("  ")) {
        report.index.push_back(line);
        continue;
      }
      in_list = false;
    }
    if (t == "Failing scenarios:") {
      end_scenario();
      in_list = true;
      continue;
    }
    if (LeadingNumber(t) && (t.find(" features passed, ") != std::string_view::npos ||
                             t.find(" feature passed, ") != std::string_view::npos ||
                             t.find(" steps passed, ") != std::string_view::npos ||
                             t.find(" step passed, ") != std::string_view::npos)) {
      end_scenario();
      report.totals.push_back(line);
      report.has_results = true;
      // Failed or undefined steps fail the run, its scenarios' line cut off or not.
      const bool steps_failed =
          CountBefore(t, "failed").value_or(0) > 0 || CountBefore(t, "undefined").value_or(0) > 0;
      report.said_failed = report.said_failed || steps_failed;
      if (steps_failed && t.find(" step") != std::string_view::npos) report.failed_count_words = t;
      continue;
    }
    if (LeadingNumber(t) && (t.find(" scenarios passed, ") != std::string_view::npos ||
                             t.find(" scenario passed, ") != std::string_view::npos)) {
      end_scenario();
      report.totals.push_back(line);
      report.has_results = true;
      report.counts.passed = LeadingNumber(t);
      report.counts.failed = CountBefore(t, "failed");
      report.counts.skipped = CountBefore(t, "skipped");
      report.counts.total = report.counts.passed.value_or(0) + report.counts.failed.value_or(0) +
                            report.counts.skipped.value_or(0);
      continue;
    }
    if (t.starts_with("Took ") && line == t) {
      report.totals.push_back(line);
      continue;
    }
    if (line.starts_with("  ") && !line.starts_with("   ") &&
        (t.starts_with("Scenario: ") || t.starts_with("Scenario Outline: ") ||
         t.starts_with("Example: ")) && BehaveLocated(t)) {
      end_scenario();
      scenario = line;
      continue;
    }
    if (t.starts_with("Feature: ") || t.starts_with("Background:")) {
      end_scenario();
      continue;
    }
    if (scenario.empty()) continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == 4 && BehaveLocated(t)) {
      // A step. One not defined ("# None" with nothing failed before it) fails the scenario.
      if (current != nullptr) {
        ++not_run;  // not run after the failure: counted
        continue;
      }
      step_lines.assign(1, line);
      if (t.ends_with("# None")) {
        fail(Trim(scenario));
        current->detail.push_back(line);
        undefined_shown = true;
      }
      continue;
    }
    if (indent != std::string_view::npos && indent >= 6 && current == nullptr && !step_lines.empty()) {
      if (t.starts_with("|")) {
        step_lines.push_back(line);  // the step's table
        continue;
      }
      // Under a step, what is not its table is its error.
      fail(Trim(scenario));
      for (std::string_view s : step_lines) current->detail.push_back(s);
      current->detail.push_back(line);
      continue;
    }
    if (current != nullptr && indent != std::string_view::npos && indent >= 6) {
      current->detail.push_back(line);
    }
  }
  end_scenario();
  if (not_run > 0) {
    report.elided.emplace_back(not_run, not_run == 1 ? "line of a step not run omitted"
                                                     : "lines of steps not run omitted");
  }
  if (!undefined_shown) {
    for (std::string_view line : snippets) report.problems.push_back(line);
  }
}

// ---- Cucumber ------------------------------------------------------------------------------

// cucumber-js's progress format: a dot a step, then "Failures:" and a block per failed or
// undefined scenario ("1) Scenario: Coupon applied # features/cart.feature:13"), its steps
// marked "✔" (passed: counted), "✖" (failed: kept, its error indented under it), "-" (skipped:
// counted), "?" (undefined: kept, its snippet counted); then "11 scenarios (4 failed, 1
// undefined, 6 passed)", "34 steps (…)" and the time.
void ParseCucumber(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool in_snippet = false;
  uint64_t steps = 0;  // the failed scenarios' steps that passed or were skipped
  auto close = [&] {
    CloseFailure(report, current);
    current = nullptr;
  };
  // Cut at its start (`cucumber-js | tail -20`) inside a failed scenario, its heading cut off:
  // a failed or undefined step ("✖ When …", "? When …") above the first heading, or, that line
  // cut off too, the frames of its error ("    at World.<anonymous> (…/cart_steps.js:12:59)");
  // those lines are kept as printed.
  size_t first = 0;
  bool failed_step = false;
  for (; first < lines.size() && NumberedHeading(lines[first], 0).empty(); ++first) {
    const std::string_view t = Trim(lines[first]);
    failed_step = failed_step || t.starts_with("✖ ") || t.starts_with("? ") ||
                  (lines[first].starts_with("   ") && IsFrameLine(lines[first]));
  }
  failed_step = failed_step && first < lines.size();
  for (std::string_view line :
       std::span(lines).subspan(KeepCutStart(lines, first, failed_step, report))) {
    const std::string_view t = Trim(line);
    if (const std::string_view name = NumberedHeading(line, 0);
        !name.empty() && (name.starts_with("Scenario: ") || name.starts_with("Scenario Outline: ") ||
                          name.starts_with("Example: ") || name.starts_with("Rule: "))) {
      close();
      report.failures.push_back(TestFailure{name, {line}});
      current = &report.failures.back();
      in_snippet = false;
      continue;
    }
    if (LeadingNumber(t) && line == t &&
        (t.find(" scenarios (") != std::string_view::npos || t.find(" scenario (") != std::string_view::npos)) {
      close();
      report.totals.push_back(line);
      report.has_results = true;
      report.counts.total = LeadingNumber(t);
      report.counts.failed = CountBefore(t, "failed");
      report.counts.passed = CountBefore(t, "passed");
      report.counts.skipped = CountBefore(t, "skipped");
      continue;  // undefined and ambiguous ones are in the totals line, kept
    }
    if (LeadingNumber(t) && line == t &&
        (t.find(" steps (") != std::string_view::npos || t.find(" step (") != std::string_view::npos)) {
      close();
      report.totals.push_back(line);
      continue;
    }
    if (current == nullptr) continue;
    if (!line.empty() && line[0] != ' ') {
      close();
      continue;
    }
    if (t.starts_with("\xE2\x9C\x94 ") || t.starts_with("- ")) {  // "✔" passed, "-" skipped
      in_snippet = false;
      ++steps;
      continue;
    }
    if (t.starts_with("Undefined. Implement with the following snippet")) {
      current->detail.push_back(line);
      in_snippet = true;
      continue;
    }
    if (in_snippet) continue;  // the snippet's code: counted
    current->detail.push_back(line);
  }
  close();
  if (steps > 0) {
    report.elided.emplace_back(steps, steps == 1 ? "line of a passed or skipped step omitted"
                                                 : "lines of passed or skipped steps omitted");
  }
}

// ---- doctest (Python) -----------------------------------------------------------------------

// A failure's heading: 'File "ledger/amounts.py", line 29, in amounts.split' after a line of
// stars; the item it names is the failure's name.
std::string_view DoctestItem(std::string_view line) {
  if (!line.starts_with("File \"")) return {};
  const size_t in = line.rfind(", in ");
  if (in == std::string_view::npos || line.find("\", line ") == std::string_view::npos) return {};
  return line.substr(in + 5);
}

// Python's doctest module: a block per failed example, after a line of 70 stars: 'File "x.py",
// line 29, in mod.func', "Failed example:", the example, then "Expected:" and "Got:" with the
// values (or "Expected nothing"), or "Exception raised:" and the traceback. -v adds, for every
// example, "Trying:", the example, "Expecting:" (or "Expecting nothing"), the value and "ok".
// At the end: "3 items had failures:" with "   1 of   3 in mod.func" per item (the runner's list
// of failures), -v's "6 tests in 4 items." and "2 passed and 4 failed.", and "***Test Failed***
// 4 failures." (or, with -v, "Test passed.").
void ParseDoctest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool after_stars = false, in_items = false;
  auto close = [&] {
    CloseFailure(report, current);
    current = nullptr;
  };
  // Cut at its start (`python -m doctest x.py | tail -30`) inside a failed example's block:
  // the lines above the first rule of stars, which without -v frame failed examples only (and
  // above -v's first `Trying:`, of the examples after it), end one: kept as printed. (Not -v's
  // lines of passing examples: `ok` after what they expected.)
  size_t first = 0;
  bool failure_end = false;
  for (; first < lines.size() && !AllOf(lines[first], '*', 40); ++first) {
    const std::string_view t = Trim(lines[first]);
    if (t == "Trying:") break;
    failure_end = failure_end || (!t.empty() && t != "ok");
  }
  failure_end = failure_end && first < lines.size();
  for (size_t i = KeepCutStart(lines, first, failure_end, report); i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::string_view t = Trim(line);
    if (AllOf(line, '*', 40)) {
      close();
      after_stars = true;
      in_items = false;
      continue;
    }
    const bool stars_before = after_stars;
    after_stars = false;
    if (const std::string_view item = DoctestItem(line); stars_before && !item.empty()) {
      report.failures.push_back(TestFailure{item, {line}});
      current = &report.failures.back();
      report.has_results = true;
      continue;
    }
    // The totals, and -v's lists of items that passed or had no tests.
    if (t.starts_with("***Test Failed*** ")) {
      close();
      report.totals.push_back(line);
      report.counts.failed = CountBefore(t, "failure");
      report.has_results = true;
      continue;
    }
    if (t == "Test passed.") {
      close();
      report.totals.push_back(line);
      report.has_results = true;
      continue;
    }
    if (line.size() == t.size() && LeadingNumber(t) &&
        (t.ends_with(" items had failures:") || t.ends_with(" item had failures:"))) {
      close();
      in_items = true;  // its list names the failures again: the index
      continue;
    }
    if (line.size() == t.size() && LeadingNumber(t) &&
        (t.ends_with(" items passed all tests:") || t.ends_with(" items had no tests:") ||
         t.ends_with(" item passed all tests:") || t.ends_with(" item had no tests:"))) {
      close();
      in_items = false;
      continue;  // the lists under them are counted with the other lines
    }
    if (line.size() == t.size() && LeadingNumber(t) && t.find(" tests in ") != std::string_view::npos &&
        t.ends_with(" items.")) {
      close();
      report.totals.push_back(line);
      report.counts.total = LeadingNumber(t);
      continue;
    }
    if (line.size() == t.size() && LeadingNumber(t) && t.find(" passed and ") != std::string_view::npos &&
        t.ends_with(" failed.")) {
      close();
      report.totals.push_back(line);
      report.counts.passed = LeadingNumber(t);
      report.counts.failed = CountBefore(t, "failed");
      continue;
    }
    if (in_items) {
      // "   1 of   3 in amounts.split": the item, named again, with its count.
      if (line.starts_with(" ") && t.find(" of ") != std::string_view::npos &&
          t.find(" in ") != std::string_view::npos) {
        report.index.push_back(line);
        continue;
      }
      in_items = false;
    }
    if (line.size() == t.size() && (t == "Trying:" || t == "ok")) {
      close();  // -v: the next example, or one that passed
      if (t == "ok") ++report.passing_lines;
      continue;
    }
    if (current != nullptr) current->detail.push_back(line);
  }
  close();
}

// ---- Tcl's tcltest --------------------------------------------------------------------------

// tcltest's totals: "all.tcl:\tTotal\t78\tPassed\t74\tSkipped\t1\tFailed\t3" (its file, then
// labels and counts, tab-separated).
std::optional<TestCounts> TcltestTotals(std::string_view line) {
  const std::vector<absl::string_view> fields = absl::StrSplit(ToAbsl(line), '\t');
  if (fields.size() != 9 || !absl::EndsWith(fields[0], ":") || fields[1] != "Total" ||
      fields[3] != "Passed" || fields[5] != "Skipped" || fields[7] != "Failed") {
    return std::nullopt;
  }
  uint64_t v[4];
  for (size_t k = 0; k < 4; ++k) {
    if (!absl::SimpleAtoi(fields[2 + 2 * k], &v[k])) return std::nullopt;
  }
  // Its Total counts the skipped tests too: passed, failed and skipped say it all.
  return TestCounts{.passed = v[1], .failed = v[3], .errors = {}, .skipped = v[2], .total = {}};
}

// tcltest (`tclsh all.tcl`, `tclsh x.test`): a failed test's block opens "==== math-1.2 add
// negative FAILED" and closes "==== math-1.2 FAILED", the script, "---- Result was:" and what it
// should have been between; -verbose adds "++++ math-1.1 PASSED", "++++ x SKIPPED: slow" and
// "---- x start". runAllTests adds its settings, each file's name, "Test file error: …" with its
// errorInfo for a file that did not run through, and after the totals "Files with failing tests:
// a.test b.test" and "Test files exiting with errors:" above those files' names. It exits 0
// whatever failed.
void ParseTcltest(const std::vector<std::string_view>& lines, TestReport& report) {
  TestFailure* current = nullptr;
  bool file_error = false, exiting_with_errors = false;
  uint64_t passed = 0, skipped = 0;
  std::optional<TestCounts> totals;
  for (std::string_view line : lines) {
    const std::string_view t = Trim(line);
    if (line.starts_with("==== ") && line.ends_with(" FAILED")) {
      std::string_view rest = line.substr(5, line.size() - 5 - 7);
      if (current != nullptr && rest == current->name) {  // its closing line
        CloseFailure(report, current);
        current = nullptr;
        continue;
      }
      CloseFailure(report, current);
      report.failures.push_back(TestFailure{rest.substr(0, rest.find(' ')), {line}});
      current = &report.failures.back();
      report.has_results = true;
      continue;
    }
    if (line.starts_with("++++ ")) {
      if (line.ends_with(" PASSED")) ++passed;
      if (line.find(" SKIPPED: ") != std::string_view::npos) ++skipped;
      report.has_results = true;
      continue;
    }
    if (current != nullptr) {
      current->detail.push_back(line);
      continue;
    }
    if (std::optional<TestCounts> counts = TcltestTotals(line)) {
      totals = counts;
      report.totals.push_back(line);
      report.has_results = true;
      file_error = false;
      continue;
    }
    if (line.starts_with("Test file error: ")) {
      report.problems.push_back(line);
      report.said_failed = true;
      file_error = true;  // its errorInfo follows, indented and quoted
      continue;
    }
    if (file_error && !t.empty() && (line.starts_with(" ") || line.starts_with("\""))) {
      report.problems.push_back(line);
      continue;
    }
    file_error = false;
    if (line.starts_with("Files with failing tests: ")) {
      report.problems.push_back(line);
      continue;
    }
    if (line.starts_with("Test files exiting with errors:")) {
      report.problems.push_back(line);
      report.said_failed = true;
      exiting_with_errors = true;
      continue;
    }
    if (exiting_with_errors && line.starts_with("  ") && !t.empty()) {
      report.problems.push_back(line);  // a file's name
      continue;
    }
    // Settings, file names, "---- x start", the constraints skipped: counted.
  }
  CloseFailure(report, current);
  report.passing_lines = passed;
  if (totals) {
    report.counts = *totals;
  } else if (report.has_results) {
    report.counts.failed = report.failures.size();
    report.counts.passed = passed;
    if (skipped > 0) report.counts.skipped = skipped;
  }
}

}  // namespace

size_t PytestMessageDash(std::string_view line) {
  int depth = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '[') ++depth;
    if (line[i] == ']' && depth > 0) --depth;
    if (depth == 0 && line.substr(i).starts_with(" - ")) return i;
  }
  return std::string_view::npos;
}

bool IsCoverageTableHeading(std::string_view t) {
  return t.starts_with("File ") && t.find("| % Stmts") != std::string_view::npos;
}

bool IsTableRule(std::string_view t) {
  return t.size() >= 10 && t.find_first_not_of("-|+ ") == std::string_view::npos &&
         t.find('-') != std::string_view::npos;
}

std::string_view RunnerName(TestRunner runner) {
  switch (runner) {
    case TestRunner::kPytest: return "pytest";
    case TestRunner::kUnittest: return "unittest";
    case TestRunner::kJest: return "jest";
    case TestRunner::kVitest: return "vitest";
    case TestRunner::kMocha: return "mocha";
    case TestRunner::kJasmine: return "jasmine";
    case TestRunner::kAva: return "ava";
    case TestRunner::kBun:
      return "bun test";
    case TestRunner::kDeno:
      return "deno test";
    case TestRunner::kTap: return "tap";
    case TestRunner::kNodeSpec: return "node --test";
    case TestRunner::kCargo: return "cargo test";
    case TestRunner::kGo: return "go test";
    case TestRunner::kCtest: return "ctest";
    case TestRunner::kMeson:
      return "meson test";
    case TestRunner::kGtest: return "googletest";
    case TestRunner::kProve: return "prove";
    case TestRunner::kRspec: return "rspec";
    case TestRunner::kPhpunit: return "phpunit";
    case TestRunner::kCatch2: return "catch2";
    case TestRunner::kMinitest: return "minitest";
    case TestRunner::kDoctest: return "doctest";
    case TestRunner::kSurefire: return "mvn";
    case TestRunner::kTestUnit: return "test-unit";
    case TestRunner::kGradle: return "gradle";
    case TestRunner::kExUnit: return "mix test";
    case TestRunner::kBehave: return "behave";
    case TestRunner::kCucumber: return "cucumber";
    case TestRunner::kTcltest:
      return "tcltest";
  }
  return "tests";
}

RunnerGuess GuessRunner(std::string_view command, std::string_view output) {
  const std::string tool = ToolName(command);
  const std::vector<std::string> args = ToolArgs(command);
  const std::string first_arg = args.empty() ? "" : args[0];
  auto has = [&](std::string_view s) { return output.find(s) != std::string_view::npos; };
  auto has_line_start = [&](std::string_view s) {
    return output.starts_with(s) || output.find(std::string("\n") + std::string(s)) != std::string_view::npos;
  };
  bool node_test = tool == "node" && std::find(args.begin(), args.end(), "--test") != args.end();

  RunnerGuess best{TestRunner::kPytest, 0, ""};
  auto consider = [&](TestRunner runner, double confidence, std::string signal) {
    if (confidence > best.confidence) best = RunnerGuess{runner, confidence, std::move(signal)};
  };

  // From the command.
  if (tool == "pytest" || tool == "py.test") consider(TestRunner::kPytest, 0.95, "command: pytest");
  if (tool == "unittest") consider(TestRunner::kUnittest, 0.95, "command: python -m unittest");
  if (tool == "jest") consider(TestRunner::kJest, 0.95, "command: jest");
  if (tool == "vitest") consider(TestRunner::kVitest, 0.95, "command: vitest");
  if (tool == "mocha") consider(TestRunner::kMocha, 0.95, "command: mocha");
  if (tool == "ctest") consider(TestRunner::kCtest, 0.95, "command: ctest");
  if (tool == "meson" && first_arg == "test")
    consider(TestRunner::kMeson, 0.95, "command: meson test");
  if (node_test) {
    // The spec reporter (a TTY's default, or --test-reporter=spec) marks tests with ✔/✖/▶;
    // TAP's header and totals say it is not (a runner's "✔  nx run app:test" after them).
    const bool tap =
        has_line_start("TAP version ") || (has_line_start("# tests ") && has_line_start("# pass "));
    bool spec = !tap && (has("ℹ tests ") || has_line_start("✔ ") || has_line_start("✖ ") ||
                         has_line_start("▶ ") || has("\n  ✔ "));
    consider(spec ? TestRunner::kNodeSpec : TestRunner::kTap, 0.95, "command: node --test");
  }
  if (tool == "cargo" && (first_arg == "test" || first_arg == "nextest")) {
    // Without test results the output is a build failure: the build shaper reads it better.
    consider(TestRunner::kCargo, has("test result:") || has("running ") ? 0.95 : 0.5,
             "command: cargo test");
  }
  if (tool == "go" && first_arg == "test") consider(TestRunner::kGo, 0.95, "command: go test");
  if (tool == "prove") consider(TestRunner::kProve, 0.95, "command: prove");
  if (tool == "rspec") consider(TestRunner::kRspec, 0.95, "command: rspec");
  if (tool == "phpunit") consider(TestRunner::kPhpunit, 0.95, "command: phpunit");
  if (tool == "doctest") consider(TestRunner::kDoctest, 0.95, "command: python -m doctest");
  // Maven: what its test plugins print (a build that stops before the tests is a build's).
  const bool surefire = has(" T E S T S") || has_line_start("[INFO] Tests run: ") ||
                        has_line_start("[ERROR] Tests run: ") || has_line_start("[WARNING] Tests run: ");
  if ((tool == "mvn" || tool == "mvnw") && surefire) {
    consider(TestRunner::kSurefire, 0.95, "command: mvn, with test results");
  }
  // Gradle: its test task's events and totals (a build that stops before the tests is a
  // build's).
  // (Looked for only in what Gradle may have printed: its command, or its verdict or tasks.)
  const bool gradle_output = tool == "gradle" || tool == "gradlew" || has("BUILD FAILED") ||
                             has("BUILD SUCCESSFUL") || has("> Task :");
  bool gradle_events = gradle_output && (has(" tests completed, ") || has(" test completed, "));
  for (size_t at = gradle_output ? output.find(" FAILED\n") : std::string_view::npos;
       !gradle_events && at != std::string_view::npos;
       at = output.find(" FAILED\n", at + 1)) {
    const size_t bol = output.rfind('\n', at);
    const std::string_view line =
        output.substr(bol == std::string_view::npos ? 0 : bol + 1,
                      at + 7 - (bol == std::string_view::npos ? 0 : bol + 1));
    gradle_events = GradleTestEvent(line) == "FAILED";
    if (at > 256 * 1024) break;
  }
  if ((tool == "gradle" || tool == "gradlew") && gradle_events) {
    consider(TestRunner::kGradle, 0.95, "command: gradle, with test results");
  }
  if (tool == "behave") consider(TestRunner::kBehave, 0.95, "command: behave");
  if (tool == "cucumber-js" || tool == "cucumber") {
    consider(TestRunner::kCucumber, 0.95, "command: cucumber-js");
  }
  if (tool == "mix" && first_arg == "test") {
    // Without its totals the output is a compilation's: the build shaper reads it better.
    consider(TestRunner::kExUnit, has(" failure") || has(" test, ") || has(" tests, ") ? 0.95 : 0.5,
             "command: mix test");
  }

  // From the output, for wrappers (npm test, make check, a script) and saved output.
  if (has("test session starts") || HasPytestRuledLine(output)) {
    consider(TestRunner::kPytest, 0.85, "output: pytest session");
  }
  if (has_line_start("Ran ") && (has("\nOK") || has("\nFAILED ("))) {
    consider(TestRunner::kUnittest, 0.85, "output: unittest summary");
  }
  if (has_line_start("Tests:") && has("total")) consider(TestRunner::kJest, 0.85, "output: jest summary");
  // jest --json, vitest's json reporter: the report's counts lead it, on a line of its own
  // (npm's lines may follow it, a test's console output precede it).
  if (has_line_start("{\"numFailedTestSuites\":") || has_line_start("{\"numTotalTestSuites\":")) {
    consider(TestRunner::kJest, 0.9, "output: jest --json");
  }
  if (has(" Test Files ") && has(" Tests ")) consider(TestRunner::kVitest, 0.85, "output: vitest summary");
  if (has(" passing (")) consider(TestRunner::kMocha, 0.85, "output: mocha summary");
  // mocha's json reporter: its tests' members, each on a line of its own.
  if (has("\"fullTitle\": ") && (has("\"currentRetry\": ") || has("\"stats\": {"))) {
    consider(TestRunner::kMocha, 0.85, "output: mocha --reporter json");
  }
  if (tool == "jasmine") consider(TestRunner::kJasmine, 0.95, "command: jasmine");
  if (has_line_start("Failures:\n1) ") || (has(" specs, ") && has(" failure") &&
                                            has_line_start("Finished in "))) {
    consider(TestRunner::kJasmine, 0.85, "output: jasmine");
  }
  if (tool == "ava") consider(TestRunner::kAva, 0.95, "command: ava");
  if (has_line_start("  ✘ [fail]: ") ||
      (has_line_start("  ✔ ") && (has_line_start("  ─\n") || has(" tests passed\n") ||
                                  has(" test passed\n")) && !has(" passing ("))) {
    consider(TestRunner::kAva, 0.85, "output: ava");
  }
  if (tool == "bun" && first_arg == "test") consider(TestRunner::kBun, 0.95, "command: bun test");
  if (has_line_start("bun test v") ||
      (has_line_start("Ran ") && has(" across ") && has(" expect() call"))) {
    consider(TestRunner::kBun, 0.85, "output: bun test");
  }
  if (tool == "deno" && first_arg == "test") {
    // Without test results the type check failed: the lint shaper reads its diagnostics.
    consider(TestRunner::kDeno, has_line_start("running ") ? 0.95 : 0.5, "command: deno test");
  }
  if (has_line_start("running ") && has(" from ./") &&
      (has_line_start("ok | ") || has_line_start("FAILED | ") || has(" ... FAILED ("))) {
    consider(TestRunner::kDeno, 0.85, "output: deno test");
  }
  if (has_line_start("TAP version") || (has_line_start("# tests ") && has_line_start("# pass "))) {
    consider(TestRunner::kTap, 0.85, "output: TAP");
  }
  // A TAP stream without the version line (bats, Test::More run directly): a plan "1..N" and
  // test lines.
  if (has_line_start("1..") && (has_line_start("ok 1") || has_line_start("not ok 1"))) {
    consider(TestRunner::kTap, 0.8, "output: TAP plan and test lines");
  }
  // Or its test lines alone, the plan cut off (`bats . | tail -30`).
  if (tool == "bats" || tool == "tap") consider(TestRunner::kTap, 0.9, "command: " + tool);
  // bats' pretty report: its totals ("45 tests, 3 failures, 1 skipped") after ✓/✗ test lines.
  if ((has_line_start(" ✗ ") || has_line_start(" ✓ ")) && has(" tests, ") && has(" failure")) {
    for (std::string_view line : core::SplitLines(output)) {
      if (BatsPrettyTotals(Trim(line))) {
        consider(TestRunner::kTap, 0.85, "output: bats' pretty report");
        break;
      }
    }
  }
  if (has_line_start("not ok ") && has_line_start("ok ")) {
    consider(TestRunner::kTap, 0.75, "output: TAP test lines");
  }
  if (has_line_start("ℹ tests ") && has_line_start("ℹ pass ")) {
    consider(TestRunner::kNodeSpec, 0.85, "output: node test summary");
  }
  // Its summary may be past the bounded view, before the failures it repeats with their stacks:
  // that list's heading, or its suites and tests with their durations ("▶ parseRows",
  // "  ✔ splits simple rows (1.51ms)").
  if (has_line_start("✖ failing tests:") ||
      (has_line_start("▶ ") && (has("ms)\n") && (has("✔ ") || has("✖ "))))) {
    consider(TestRunner::kNodeSpec, 0.8, "output: node test spec reporter");
  }
  if (has_line_start("test result: ")) consider(TestRunner::kCargo, 0.85, "output: cargo test result");
  if (has_line_start("--- FAIL: ") || has_line_start("=== RUN ") || has("\nok  \t") ||
      has("\nFAIL\t")) {
    consider(TestRunner::kGo, 0.8, "output: go test");
  }
  // go test -json: test2json's events, a JSON object a line.
  if (has_line_start("{\"Time\":\"") && has("\"Action\":\"") && has("\"Package\":\"")) {
    consider(TestRunner::kGo, 0.85, "output: go test -json");
  }
  if (has("tests passed, ") && has(" out of ")) consider(TestRunner::kCtest, 0.85, "output: ctest summary");
  // meson test's totals (run by ninja's test target, or a script): "Ok: 6", "Expected Fail: 0".
  if (has_line_start("Expected Fail:") && has_line_start("Unexpected Pass:")) {
    consider(TestRunner::kMeson, 0.85, "output: meson test");
  }
  if (has("[==========]") && has("[ RUN      ]")) consider(TestRunner::kGtest, 0.85, "output: googletest");
  // Its totals alone (the tests' lines cut off, `./tests | tail -20`): "[==========] 18 tests
  // from 7 test suites ran. (3 ms total)", then "[  PASSED  ] 12 tests.".
  if (has_line_start("[==========] ") && has(" ran. (") && has_line_start("[  PASSED  ] ")) {
    consider(TestRunner::kGtest, 0.85, "output: googletest totals");
  }
  if ((has_line_start("Test Summary Report\n") || has_line_start("All tests successful.")) &&
      has_line_start("Files=") && has("Tests=")) {
    consider(TestRunner::kProve, 0.85, "output: prove summary");
  }
  if (has_line_start("Finished in ") &&
      (has(" examples, ") || has(" example, ")) && has(" failure")) {
    consider(TestRunner::kRspec, 0.85, "output: rspec summary");
  }
  if (has_line_start("# Running:") && (has(" runs, ") || has(" run, ")) && has(" assertion")) {
    consider(TestRunner::kMinitest, 0.9, "output: Minitest");
  }
  // Its banner and -v's lines, its totals cut off (`rake test | head -30`).
  if (has_line_start("Run options: ") && has_line_start("# Running:") && has(" s = ")) {
    consider(TestRunner::kMinitest, 0.85, "output: Minitest banner and tests");
  }
  // Its totals alone (the banner cut off, `rake test | tail -30`): "406 runs, 404 assertions,
  // 8 failures, 1 errors, 1 skips", every count always printed.
  if ((has(" runs, ") || has(" run, ")) && has(" assertions, ") && has(" failures, ") &&
      has(" errors, ") && has(" skips")) {
    consider(TestRunner::kMinitest, 0.85, "output: Minitest totals");
  }
  if ((has_line_start("Loaded suite ") && has_line_start("Started")) ||
      (has(" tests, ") && has(" assertions, ") && has(" pendings, ") && has(" omissions, "))) {
    consider(TestRunner::kTestUnit, 0.9, "output: test-unit");
  }
  if (has("PHPUnit ") && has(" by Sebastian Bergmann")) {
    consider(TestRunner::kPhpunit, 0.9, "output: PHPUnit banner");
  }
  if (surefire && has("Tests run: ")) consider(TestRunner::kSurefire, 0.85, "output: Maven Surefire");
  if ((has(" scenarios (") || has(" scenario (")) && (has(" steps (") || has(" step (")) &&
      has_line_start("0m")) {
    consider(TestRunner::kCucumber, 0.85, "output: Cucumber");
  }
  if ((has(" scenarios passed, ") || has(" scenario passed, ")) &&
      (has(" steps passed, ") || has(" step passed, "))) {
    consider(TestRunner::kBehave, 0.85, "output: behave");
  }
  if (has_line_start("Finished in ") && (has(" tests, ") || has(" test, ")) && has(" failure") &&
      (has(") test ") || has("\n0 failures") || has(", 0 failures"))) {
    consider(TestRunner::kExUnit, 0.85, "output: ExUnit");
  }
  if (gradle_events && tool != "gradle" && tool != "gradlew") {
    consider(TestRunner::kGradle, 0.85, "output: Gradle test events");
  }
  // doctest.testmod() in a script, or saved output.
  if (has("\nFailed example:\n") && (has("***Test Failed*** ") || has("\nExpected:\n") ||
                                      has("\nException raised:\n"))) {
    consider(TestRunner::kDoctest, 0.85, "output: doctest");
  }
  if (has(" is a Catch v") || has(" is a Catch2 v") ||
      (has_line_start("test cases: ") && has_line_start("assertions: ") && has(" | ")) ||
      (has_line_start("All tests passed (") && has(" assertion"))) {
    // Above pytest's loose signals, which a passing run's "=====" line and " passed" meet too.
    consider(TestRunner::kCatch2, 0.9, "output: Catch2");
  }
  // tcltest: its totals line, or a failed test's block with what the result was.
  if (tool == "tclsh" && (has("\tTotal\t") || has_line_start("==== ") || has_line_start("++++ "))) {
    consider(TestRunner::kTcltest, 0.9, "command: tclsh running tcltest");
  }
  if ((has(":\tTotal\t") && has("\tPassed\t") && has("\tFailed\t")) ||
      (has_line_start("==== ") && has_line_start("==== Contents of test case:"))) {
    consider(TestRunner::kTcltest, 0.85, "output: tcltest");
  }
  // A TAP stream from the runner the command names (`ava --tap`, `mocha --reporter tap`,
  // `vitest --reporter=tap-flat`): the runner's own format is not there to read. Not a
  // harness's (prove shows the TAP it runs), nor node --test's, which chose above. (Of a
  // wrapper, the output's own signals above chose.)
  const bool tap_stream =
      has_line_start("TAP version ") || (has_line_start("# tests ") && has_line_start("# pass ")) ||
      (has_line_start("1..") && (has_line_start("ok 1") || has_line_start("not ok 1")));
  if (tap_stream && best.confidence >= 0.95 && best.runner != TestRunner::kProve &&
      best.runner != TestRunner::kTap && !node_test) {
    consider(TestRunner::kTap, 0.96, "output: a TAP stream");
  }
  // ctest --output-on-failure embeds googletest's or Catch2's output; ctest's summary decides.
  if ((best.runner == TestRunner::kGtest || best.runner == TestRunner::kCatch2) &&
      has("tests passed, ") && has(" out of ")) {
    best.runner = TestRunner::kCtest;
  }
  return best;
}

TestReport ParseTestOutput(TestRunner runner, const std::vector<std::string_view>& lines) {
  TestReport report;
  report.runner = runner;
  switch (runner) {
    case TestRunner::kPytest: ParsePytest(lines, report); break;
    case TestRunner::kUnittest: ParseUnittest(lines, report); break;
    case TestRunner::kJest: ParseJest(lines, report); break;
    case TestRunner::kVitest: ParseVitest(lines, report); break;
    case TestRunner::kMocha: ParseMocha(lines, report); break;
    case TestRunner::kJasmine: ParseJasmine(lines, report); break;
    case TestRunner::kAva: ParseAva(lines, report); break;
    case TestRunner::kBun:
      ParseBun(lines, report);
      break;
    case TestRunner::kDeno:
      ParseDeno(lines, report);
      break;
    case TestRunner::kTap: ParseTap(lines, report); break;
    case TestRunner::kNodeSpec: ParseNodeSpec(lines, report); break;
    case TestRunner::kCargo: ParseCargo(lines, report); break;
    case TestRunner::kGo: ParseGo(lines, report); break;
    case TestRunner::kCtest: ParseCtest(lines, report); break;
    case TestRunner::kMeson:
      ParseMeson(lines, report);
      break;
    case TestRunner::kGtest: ParseGtest(lines, report); break;
    case TestRunner::kProve: ParseProve(lines, report); break;
    case TestRunner::kRspec: ParseRspec(lines, report); break;
    case TestRunner::kPhpunit: ParsePhpunit(lines, report); break;
    case TestRunner::kCatch2: ParseCatch2(lines, report); break;
    case TestRunner::kMinitest: ParseMinitest(lines, report); break;
    case TestRunner::kTestUnit: ParseTestUnit(lines, report); break;
    case TestRunner::kDoctest: ParseDoctest(lines, report); break;
    case TestRunner::kSurefire: ParseSurefire(lines, report); break;
    case TestRunner::kGradle: ParseGradle(lines, report); break;
    case TestRunner::kExUnit: ParseExUnit(lines, report); break;
    case TestRunner::kBehave: ParseBehave(lines, report); break;
    case TestRunner::kCucumber: ParseCucumber(lines, report); break;
    case TestRunner::kTcltest:
      ParseTcltest(lines, report);
      break;
  }
  return report;
}

}  // namespace plugline::builtin

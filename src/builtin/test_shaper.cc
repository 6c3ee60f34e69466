// builtin-test: test runners (pytest, unittest, jest, vitest, mocha, node --test / TAP,
// cargo test, go test, ctest, GoogleTest).
//
// Failures stay verbose: each failing test's block is kept (its name, assertion with values,
// file:line, the stack frames in the user's code); library stack frames and very long blocks
// are trimmed with counted markers. Passing tests are counted, not listed. A run that passed
// collapses to one line with the runner's own counts and time. When the output has no test
// results the shaper says nothing about tests and keeps the head, the tail and the error lines.
#include <algorithm>

#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/test_report.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

// Failures shown with their whole (trimmed) block; the rest show their key lines only.
constexpr size_t kFullFailures = 30;
constexpr size_t kMaxBlockLines = 40;
constexpr size_t kCompactKeyLines = 3;
constexpr size_t kMaxProblemLines = 200;

bool IsBlankLine(std::string_view s) { return Trim(s).empty(); }

// A stack frame or traceback location inside a library, the runtime or the test runner:
// not the user's code.
bool IsLibraryFrame(std::string_view line) {
  std::string_view t = Trim(line);
  bool frame = t.starts_with("at ") || t.starts_with("File \"") || t.starts_with("❯ ") ||
               (t.find(".go:") != std::string_view::npos && line.starts_with("\t")) ||
               t.starts_with("/") || t.find(": 0x") != std::string_view::npos;
  if (!frame) return false;
  static constexpr std::string_view kLibraries[] = {
      "node_modules/", "node:internal", "internal/", "site-packages/", "dist-packages/",
      "/usr/lib/python", "<frozen ", "/_pytest/", "/pluggy/", "/usr/lib/go", "/usr/local/go/",
      "/rustc/", ".cargo/registry", "/libstd/", "/library/std/", "/library/core/",
      "testing/testing.go", "runtime/panic.go", "node:events", "node:test"};
  for (std::string_view lib : kLibraries) {
    if (t.find(lib) != std::string_view::npos) return true;
  }
  return false;
}

// Lines that carry the substance of a failure: the assertion, the error, the location.
bool IsKeyLine(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.starts_with("E ") || t.starts_with(">")) return true;
  static constexpr std::string_view kWords[] = {"Error", "error", "assert", "Assert", "expected",
                                                "Expected", "received", "Received", "panicked",
                                                "Failure", "FAIL", "want", "got", "left", "right",
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

// A failure's block without library frames, capped in length: the head, the user-code
// locations and key lines of the middle, and the tail.
void WriteBlock(const std::vector<std::string_view>& detail, SummaryWriter& out) {
  std::vector<std::string_view> kept;
  uint64_t library_lines = 0;
  for (size_t i = 0; i < detail.size(); ++i) {
    if (IsLibraryFrame(detail[i])) {
      ++library_lines;
      // A Python frame's code line follows its "File ..." line.
      if (Trim(detail[i]).starts_with("File \"") && i + 1 < detail.size() &&
          !Trim(detail[i + 1]).starts_with("File \"") && !IsBlankLine(detail[i + 1])) {
        ++i;
        ++library_lines;
      }
      continue;
    }
    kept.push_back(detail[i]);
  }
  if (kept.size() <= kMaxBlockLines) {
    out.Lines(kept);
  } else {
    const size_t head = 24, tail = 10;
    for (size_t i = 0; i < head; ++i) out.Line(kept[i]);
    size_t skipped = 0;
    size_t middle_kept = 0;
    for (size_t i = head; i < kept.size() - tail; ++i) {
      if (middle_kept < 12 && (IsLocationLine(kept[i]) || IsKeyLine(kept[i]))) {
        out.ElidedLines(skipped, skipped == 1 ? "line omitted" : "lines omitted");
        skipped = 0;
        out.Line(kept[i]);
        ++middle_kept;
      } else {
        ++skipped;
      }
    }
    out.ElidedLines(skipped, skipped == 1 ? "line omitted" : "lines omitted");
    for (size_t i = kept.size() - tail; i < kept.size(); ++i) out.Line(kept[i]);
  }
  out.ElidedLines(library_lines,
                  library_lines == 1 ? "line of library stack frames omitted"
                                     : "lines of library stack frames omitted");
}

void WriteCompact(const TestFailure& failure, SummaryWriter& out) {
  out.Line(failure.detail.front());
  size_t shown = 0;
  for (size_t i = 1; i < failure.detail.size() && shown < kCompactKeyLines; ++i) {
    std::string_view line = failure.detail[i];
    if (!IsLibraryFrame(line) && (IsKeyLine(line) || IsLocationLine(line))) {
      out.Line(line);
      ++shown;
    }
  }
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

// Runs of spaces and tabs as one space, for lines joined into one.
std::string Collapse(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::string CountsText(const TestCounts& c) {
  std::string text;
  auto add = [&](const std::optional<uint64_t>& n, std::string_view word, bool always) {
    if (!n || (*n == 0 && !always)) return;
    StrAppend(&text, text.empty() ? "" : ", ", core::FormatCount(*n), " ", word);
  };
  add(c.failed, "failed", false);
  add(c.errors, c.errors.value_or(0) == 1 ? "error" : "errors", false);
  add(c.passed, "passed", true);
  add(c.skipped, "skipped", false);
  if (text.empty() && c.total) StrAppend(&text, core::FormatCount(*c.total), " tests");
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
    RunnerGuess guess = GuessRunner(context.command, output);
    std::vector<std::string_view> lines = core::SplitLines(output);
    TestReport report = ParseTestOutput(guess.runner, lines);
    const std::string runner(RunnerName(report.runner));
    const bool exit_ok = !context.exit_code || *context.exit_code == 0;
    const bool failed = !report.failures.empty() || report.counts.failed.value_or(0) > 0 ||
                        report.counts.errors.value_or(0) > 0;
    SummaryWriter out(&lines);

    if (!report.has_results && report.failures.empty()) {
      // No test results in the output: claim nothing about tests.
      std::string note = ExitNote(context.exit_code);
      out.Header(StrCat(runner, ": no test results in the output",
                        note.empty() ? "" : StrCat(" (", note, ")")));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    std::string counts = CountsText(report.counts);
    if (!failed && exit_ok) {
      // Success collapses to one line: the runner's own totals (counts and time).
      std::string line = StrCat(runner, ": passed");
      if (report.totals.empty() || report.totals.size() > 4) {
        if (!counts.empty()) StrAppend(&line, " — ", counts);
      }
      if (!report.totals.empty() && report.totals.size() <= 4) {
        for (std::string_view totals : report.totals) {
          StrAppend(&line, " · ", Collapse(Unframe(totals)));
        }
      }
      out.Header(line);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    std::string verdict = failed ? "FAILED" : ExitNote(context.exit_code);
    std::string header = StrCat(runner, ": ", verdict);
    if (!counts.empty()) StrAppend(&header, " — ", counts);
    if (failed && context.exit_code && *context.exit_code != 0) {
      StrAppend(&header, " (", ExitNote(context.exit_code), ")");
    }
    out.Header(header);

    size_t index = 0;
    for (const TestFailure& failure : report.failures) {
      if (index++ < kFullFailures) {
        WriteBlock(failure.detail, out);
      } else {
        WriteCompact(failure, out);
      }
    }
    size_t problems = 0;
    for (std::string_view line : report.problems) {
      if (problems++ < kMaxProblemLines) out.Line(line);
    }
    if (report.problems.size() > kMaxProblemLines) {
      out.Elided(report.problems.size() - kMaxProblemLines, "more lines omitted");
    }
    if (!failed && report.failures.empty() && report.problems.empty()) {
      // A non-zero exit with no failure the runner reported: show where it says why.
      WriteHeadTail(lines, 10, 15, LooksLikeErrorLine, 50, out);
      out.Lines(report.totals);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }
    uint64_t passed = report.counts.passed.value_or(report.passing_lines);
    out.Omitted(passed, "passed test", "passed tests");
    for (const auto& [count, what] : report.elided) out.Elided(count, what);
    // Everything else (progress, collection chatter, captured output of passing tests) is
    // counted in one marker. The totals lines follow it.
    uint64_t totals_unshown = report.totals.size();
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min(rest, report.passing_lines + totals_unshown);
    out.Omitted(rest, "other line", "other lines");
    out.Lines(report.totals);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

 private:
  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeTestShaper() { return std::make_shared<TestShaper>(); }

}  // namespace plugline::builtin

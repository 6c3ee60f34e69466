// What the test shaper reads out of a test runner's output, and the parsers that read it.
//
// A parser never invents: every string_view here points into the output. Counts are read
// from the runner's own totals lines when it prints them, else counted from per-test lines.
#ifndef PLUGLINE_BUILTIN_TEST_REPORT_H_
#define PLUGLINE_BUILTIN_TEST_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::builtin {

enum class TestRunner {
  kPytest,
  kUnittest,
  kJest,
  kVitest,
  kMocha,
  kTap,       // node --test (TAP reporter) and any TAP producer
  kNodeSpec,  // node --test with the spec reporter
  kCargo,
  kGo,
  kCtest,
  kMeson,  // meson test (and ninja's test target in a meson build)
  kGtest,
  kProve,  // Perl's prove (TAP::Harness) running Test::More scripts
  kRspec,
  kPhpunit,
  kCatch2,
  kMinitest,
  kDoctest,   // Python's doctest module (python -m doctest, doctest.testmod())
  kSurefire,  // Maven's Surefire and Failsafe plugins (mvn test, mvn verify)
  kTestUnit,  // Ruby's test-unit (ruby test/x.rb, rake test)
  kGradle,    // Gradle's test task (gradle test, ./gradlew build)
  kExUnit,    // Elixir's ExUnit (mix test)
  kBehave,    // Python's behave (BDD: features, scenarios, steps)
  kCucumber,  // cucumber-js (and Cucumber's other ports' "N) Scenario:" failures)
  kJasmine,
  kAva,
  kBun,      // bun test
  kDeno,     // deno test
  kTcltest,  // Tcl's tcltest (tclsh all.tcl, tclsh x.test)
};

std::string_view RunnerName(TestRunner runner);

struct TestFailure {
  std::string_view name;                 // as the runner printed it
  std::vector<std::string_view> detail;  // the failure's lines, verbatim, heading first
  // The line naming the file it is in, when the runner prints that above the file's failures
  // (jest's "FAIL tests/cart.test.js"); empty otherwise.
  std::string_view file_line = {};
};

struct TestCounts {
  std::optional<uint64_t> passed, failed, errors, skipped, total;
};

// What go test's package result lines past those kept (test_runners.cc) are, left out.
inline constexpr std::string_view kMorePackageLines = "more package result lines omitted";
inline constexpr std::string_view kPassedSubtestLog =
    "lines logged by subtests that passed omitted";

struct TestReport {
  TestRunner runner = TestRunner::kPytest;
  std::vector<TestFailure> failures;
  // Lines that matter outside any one test's failure: collection errors, a crash, build
  // errors, the runner's list of failed tests. Kept verbatim.
  std::vector<std::string_view> problems;
  // The runner's own list of what failed ("FAILED tests/x.py::test_a - assert 1 == 2",
  // "The following tests FAILED:"). Lines naming a test whose failure is shown are left out
  // of a summary (counted); the others are kept.
  std::vector<std::string_view> index;
  // pytest --tb=line: the "path:line: message" line that says where each test of `index` failed,
  // with the message its list line gives too (by position in `index`; empty for a line without
  // one). Set only when the two pair one to one; those lines are then not in `problems`.
  std::vector<std::string_view> index_locations;
  // The runner's own totals lines, verbatim, in order ("Tests: 2 failed, 10 passed, 12 total").
  std::vector<std::string_view> totals;
  TestCounts counts;
  // Per-test "passed" lines seen (omitted from the summary, but counted).
  uint64_t passing_lines = 0;
  // Packages whose tests did not build or set up, so never ran (go test's "FAIL\tpkg [build
  // failed]", "[setup failed]"): failures no test count includes.
  uint64_t packages_not_built = 0;
  // Of them, those whose tests could not be set up (go test's "[setup failed]": an import that
  // cannot be found).
  uint64_t packages_not_set_up = 0;
  // Packages go test says failed ("FAIL\tpkg\t0.005s"): their failing tests may be cut off
  // (`go test ./... | tail -30`), but not the verdict.
  uint64_t packages_failed = 0;
  // The runner's own word that the run failed, whatever its failures the output shows (cut off:
  // `prove | tail -8` ends "Result: FAIL"; `cargo test | tail -10`, "error: 2 targets failed:").
  bool said_failed = false;
  // The runner's own count of what failed, in its words, when it counts no test: cargo's "2
  // targets failed" (of "error: 2 targets failed:"), behave's steps line ("42 steps passed, 5
  // failed, 2 skipped, 2 undefined") when its scenarios line was cut off. Empty otherwise.
  std::string_view failed_count_words;
  // Other lines left out, counted: {count, kMorePackageLines}.
  std::vector<std::pair<uint64_t, std::string_view>> elided;
  // True when the output had the runner's result structure (a totals line or per-test
  // results). A report without it is not trusted for a success claim.
  bool has_results = false;
};

// Which runner produced `output`, from the command and the output's own signals.
// `confidence` is 0 when nothing points to a test runner.
struct RunnerGuess {
  TestRunner runner;
  double confidence = 0;
  std::string signal;
};
RunnerGuess GuessRunner(std::string_view command, std::string_view output);

// istanbul's text coverage table (jest, vitest, nyc, c8): its heading, "File | % Stmts | …"
// (trimmed), and its rules of "-" and "|" around it.
bool IsCoverageTableHeading(std::string_view t);
bool IsTableRule(std::string_view t);

// Where pytest's " - " between a test's id and its message is in a line of its short summary
// ("FAILED tests/x.py::test_a[x - y] - assert 1 == 2"): the first outside the brackets of a
// parameter's id, which may hold " - " too. npos when there is none.
size_t PytestMessageDash(std::string_view line);

// Parses with the given runner's rules.
TestReport ParseTestOutput(TestRunner runner, const std::vector<std::string_view>& lines);

}  // namespace plugline::builtin

#endif  // PLUGLINE_BUILTIN_TEST_REPORT_H_

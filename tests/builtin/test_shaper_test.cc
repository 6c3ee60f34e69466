// Tests for builtin-test's handling of what a failure carries besides its message: a Go panic
// inside a test, Python's carets under a frame's code, a test binary's banners under ctest.
#include <doctest/doctest.h>

#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "builtin/builtin_shapers.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

std::string Shape(std::string_view command, int exit_code, const std::string& output) {
  auto shaper = MakeTestShaper();
  core::ShapeContext ctx{command, exit_code, output.size(), core::CountLines(output),
                         "/s/outputs/a.log"};
  auto shaped = shaper->Shape(output, ctx);
  REQUIRE(shaped.ok());
  return shaped->summary;
}

bool Contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// The last `n` lines of a fixture's output, as `… | tail -n` prints them.
std::string LastLines(std::string_view family, std::string_view name, size_t n) {
  return testing::LastLines(testing::ReadFixture(family, name), n);
}

TEST_CASE("test shaper: a Go panic in a test is that failure's, runtime frames counted") {
  const std::string output =
      "--- FAIL: TestWrap (0.00s)\n"
      "panic: runtime error: index out of range [4] with length 4 [recovered]\n"
      "\tpanic: runtime error: index out of range [4] with length 4\n"
      "\n"
      "goroutine 19 [running]:\n"
      "testing.tRunner.func1.2({0x51ddc0, 0xc0000ce000})\n"
      "\t/usr/lib/go-1.19/src/testing/testing.go:1396 +0x24e\n"
      "panic({0x51ddc0, 0xc0000ce000})\n"
      "\t/usr/lib/go-1.19/src/runtime/panic.go:884 +0x212\n"
      "example.com/app/ring.(*Buffer).At(...)\n"
      "\t/w/app/ring/ring.go:35\n"
      "example.com/app/ring.TestWrap(0xc0000989c0)\n"
      "\t/w/app/ring/ring_test.go:23 +0x40c\n"
      "testing.tRunner(0xc0000989c0, 0x534888)\n"
      "\t/usr/lib/go-1.19/src/testing/testing.go:1446 +0x10b\n"
      "FAIL\texample.com/app/ring\t0.033s\n"
      "FAIL\n";
  const std::string s = Shape("go test ./...", 1, output);
  INFO(s);
  // The panic follows its test's line, with the user's frames; the runtime's go whole (the
  // function line with its path line).
  CHECK(Contains(s, "--- FAIL: TestWrap (0.00s)\npanic: runtime error: index out of range [4]"));
  CHECK(Contains(s, "example.com/app/ring.(*Buffer).At(...)\n\t/w/app/ring/ring.go:35\n"));
  CHECK(Contains(s, "\t/w/app/ring/ring_test.go:23 +0x40c"));
  CHECK_FALSE(Contains(s, "testing.tRunner"));
  CHECK_FALSE(Contains(s, "panic({0x51ddc0"));
  CHECK(Contains(s, "… 6 lines of library stack frames omitted"));
  CHECK(Contains(s, "FAIL\texample.com/app/ring\t0.033s"));
  // The message said again under "[recovered]" and the goroutine's heading: counted, and the
  // blank line between them with them.
  CHECK(Contains(s, "with length 4 [recovered]\nexample.com/app/ring.(*Buffer).At(...)\n"));
  CHECK_FALSE(Contains(s, "goroutine 19"));
}

TEST_CASE("test shaper: Python's carets under a frame's code are counted, not shown") {
  const std::string output =
      "======================================================================\n"
      "ERROR: test_header (tests.test_csv.TestCsv.test_header)\n"
      "----------------------------------------------------------------------\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/tests/test_csv.py\", line 17, in test_header\n"
      "    self.assertEqual(parse(\"sku,qty\\n\"), {})\n"
      "                     ^^^^^^^^^^^^^^^^^^^^^\n"
      "  File \"/w/app/csv.py\", line 12, in parse\n"
      "    counts[sku] = int(qty)\n"
      "                  ~~~^^^^^\n"
      "ValueError: invalid literal for int() with base 10: 'qty'\n"
      "\n"
      "----------------------------------------------------------------------\n"
      "Ran 3 tests in 0.003s\n"
      "\n"
      "FAILED (errors=1)\n";
  const std::string s = Shape("python3 -m unittest", 1, output);
  INFO(s);
  CHECK(Contains(s, "    self.assertEqual(parse(\"sku,qty\\n\"), {})\n  File \"/w/app/csv.py\""));
  CHECK(Contains(s, "    counts[sku] = int(qty)\nValueError: invalid literal"));
  // "Traceback (most recent call last):" announces the frames that follow: counted.
  CHECK(Contains(s, "ERROR: test_header (tests.test_csv.TestCsv.test_header)\n"
                    "  File \"/w/tests/test_csv.py\", line 17, in test_header\n"));
  CHECK_FALSE(Contains(s, "^^^^"));
  // Counted with the other lines left out, not in a marker of their own.
  CHECK_FALSE(Contains(s, "source context omitted"));
  CHECK(Contains(s, " other lines omitted"));
}

TEST_CASE("test shaper: unittest's values again after a full assertion message are counted, a diff with more is kept") {
  // python3 -m unittest (3.11) on two assertEqual failures.
  const std::string output =
      "FF\n"
      "======================================================================\n"
      "FAIL: test_long (test_x.T.test_long)\n"
      "----------------------------------------------------------------------\n"
      "Traceback (most recent call last):\n"
      "  File \"/tmp/ut/test_x.py\", line 6, in test_long\n"
      "    self.assertEqual(list(range(40)), list(range(1, 41)))\n"
      "AssertionError: Lists differ: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,[103 chars], 39] != "
      "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13[104 chars], 40]\n"
      "\n"
      "First differing element 0:\n"
      "0\n"
      "1\n"
      "\n"
      "+ [1,\n"
      "- [0,\n"
      "-  1,\n"
      "   2,\n"
      "   13,\n"
      "   14,\n"
      "-  39]\n"
      "?    ^\n"
      "\n"
      "+  39,\n"
      "?    ^\n"
      "\n"
      "+  40]\n"
      "\n"
      "======================================================================\n"
      "FAIL: test_words (test_x.T.test_words)\n"
      "----------------------------------------------------------------------\n"
      "Traceback (most recent call last):\n"
      "  File \"/tmp/ut/test_x.py\", line 4, in test_words\n"
      "    self.assertEqual(\"the quick brown fox\", \"the quick brawn fox\")\n"
      "AssertionError: 'the quick brown fox' != 'the quick brawn fox'\n"
      "- the quick brown fox\n"
      "?             ^\n"
      "+ the quick brawn fox\n"
      "?             ^\n"
      "\n"
      "\n"
      "----------------------------------------------------------------------\n"
      "Ran 2 tests in 0.001s\n"
      "\n"
      "FAILED (failures=2)\n";
  const std::string s = Shape("python3 -m unittest test_x", 1, output);
  INFO(s);
  // Every line after the message is in it: counted.
  CHECK(Contains(s, "AssertionError: 'the quick brown fox' != 'the quick brawn fox'\n"));
  CHECK_FALSE(Contains(s, "- the quick brown fox"));
  CHECK_FALSE(Contains(s, "?             ^"));
  // The message elides what the diff shows ("[103 chars]", "14,"): the diff stays whole.
  CHECK(Contains(s, "First differing element 0:\n0\n1\n"));
  CHECK(Contains(s, "+ [1,\n- [0,\n-  1,\n   2,\n   13,\n   14,\n-  39]\n"));
  CHECK(Contains(s, "+  40]"));
}

TEST_CASE("test shaper: meson test, by its command or by its totals under ninja's test target") {
  // tests/fixtures/test/meson_* (gen_meson.sh): 28 tests, 4 failing, 1 timing out, 1 skipped.
  const std::string errorlogs = testing::ReadFixture("test", "meson_failing_errorlogs");
  for (const auto& [command, exit_code, output] :
       {std::tuple<std::string, int, std::string>{"meson test -C build --print-errorlogs", 5,
                                                  errorlogs},
        {"ninja -C build test", 1, testing::ReadFixture("test", "meson_ninja_test")}}) {
    CAPTURE(command);
    const std::string s = Shape(command, exit_code, output);
    INFO(s);
    CHECK(s.starts_with(absl::StrCat("meson test: FAILED — 5 failed, 22 passed, 1 skipped (exit ",
                                     exit_code, ")\n")));
    // Each failure with the command meson ran and what the test printed; the rules around that
    // and meson's list of the failures again, left out.
    CHECK(Contains(s, "/ peek_empty       FAIL            "));
    CHECK(Contains(s,
                   "ringbuf_test peek_empty\nstderr:\n../ringbuf_test.c:36: rb_peek(&r) == -1: "
                   "42 != -1\n"));
    CHECK(Contains(s,
                   "28/28 ringbuf:slow / drain_blocking   TIMEOUT         2.03s   killed by signal "
                   "15 SIGTERM\n"));
    CHECK(Contains(s, "\nwaiting for a producer...\n"));
    CHECK_FALSE(Contains(s, "✀"));
    CHECK_FALSE(Contains(s, "Summary of Failures:"));
    CHECK(Contains(s, "… 22 passed tests omitted\n"));
    // Its totals that are not 0.
    CHECK(
        Contains(s,
                 "\nOk:                 22  \nFail:               4   \nSkipped:            1   \n"
                 "Timeout:            1   \nFull log written to "));
    CHECK_FALSE(Contains(s, "Unexpected Pass:"));
  }
  const std::string passing = Shape("meson test -C build init push_pop fifo_order sum", 0,
                                    testing::ReadFixture("test", "meson_passing"));
  CHECK(passing.starts_with("meson test: passed — 4 passed"));
}

TEST_CASE("test shaper: googletest's banners under ctest are counted, the failure kept whole") {
  const std::string output =
      "    Start 5: Area.Clockwise\n"
      "5/6 Test #5: Area.Clockwise ....***Failed    0.08 sec\n"
      "Running main() from ./googletest/src/gtest_main.cc\n"
      "Note: Google Test filter = Area.Clockwise\n"
      "[==========] Running 1 test from 1 test suite.\n"
      "[----------] Global test environment set-up.\n"
      "[----------] 1 test from Area\n"
      "[ RUN      ] Area.Clockwise\n"
      "/w/tests/area_test.cpp:23: Failure\n"
      "Expected equality of these values:\n"
      "  area(tri)\n"
      "    Which is: -6\n"
      "  6.0\n"
      "[  FAILED  ] Area.Clockwise (0 ms)\n"
      "[----------] 1 test from Area (0 ms total)\n"
      "\n"
      "[----------] Global test environment tear-down\n"
      "[==========] 1 test from 1 test suite ran. (0 ms total)\n"
      "[  PASSED  ] 0 tests.\n"
      "[  FAILED  ] 1 test, listed below:\n"
      "[  FAILED  ] Area.Clockwise\n"
      "\n"
      " 1 FAILED TEST\n"
      "    Start 6: Area.Square\n"
      "6/6 Test #6: Area.Square ....   Passed    0.01 sec\n"
      "\n"
      "50% tests passed, 1 tests failed out of 2\n"
      "\n"
      "The following tests FAILED:\n"
      "\t  5 - Area.Clockwise (Failed)\n"
      "Errors while running CTest\n";
  const std::string s = Shape("ctest --output-on-failure", 8, output);
  INFO(s);
  CHECK(Contains(s, "5/6 Test #5: Area.Clockwise ....***Failed    0.08 sec\n"
                    "/w/tests/area_test.cpp:23: Failure\nExpected equality of these values:\n"
                    "  area(tri)\n    Which is: -6\n  6.0\n[  FAILED  ] Area.Clockwise (0 ms)\n"
                    "… 15 lines of test binary banners omitted\n"));
  CHECK_FALSE(Contains(s, "[ RUN      ]"));
  CHECK_FALSE(Contains(s, "FAILED TEST"));
  CHECK(Contains(s, "\t  5 - Area.Clockwise (Failed)"));
}

TEST_CASE("test shaper: node --test's TAP keys that only classify are counted, node: frames too") {
  const std::string output =
      "TAP version 13\n"
      "not ok 1 - stringify quotes fields\n"
      "  ---\n"
      "  duration_ms: 1.2\n"
      "  location: '/w/test/stringify.test.js:7:1'\n"
      "  failureType: 'testCodeFailure'\n"
      "  error: 'Expected values to be strictly equal'\n"
      "  code: 'ERR_ASSERTION'\n"
      "  name: 'AssertionError'\n"
      "  expected: 'a'\n"
      "  actual: 'b'\n"
      "  operator: 'strictEqual'\n"
      "  stack: |-\n"
      "    TestContext.<anonymous> (/w/test/stringify.test.js:8:10)\n"
      "    node:internal/test_runner/harness:255:12\n"
      "    node:internal/process/task_queues:140:7\n"
      "  ...\n"
      "1..1\n"
      "# tests 1\n# pass 0\n# fail 1\n";
  const std::string s = Shape("node --test", 1, output);
  INFO(s);
  CHECK(Contains(s, "  location: '/w/test/stringify.test.js:7:1'\n"));
  CHECK(Contains(s, "  error: 'Expected values to be strictly equal'\n  name: 'AssertionError'\n"
                    "  expected: 'a'\n  actual: 'b'\n  stack: |-\n"
                    "    TestContext.<anonymous> (/w/test/stringify.test.js:8:10)\n"));
  CHECK_FALSE(Contains(s, "failureType"));
  CHECK_FALSE(Contains(s, "operator:"));
  CHECK_FALSE(Contains(s, "ERR_ASSERTION"));
  CHECK_FALSE(Contains(s, "node:internal"));
}

TEST_CASE(
    "test shaper: node --test's tests declared in a loop fail alike: the first in full, a line "
    "each") {
  // tests/fixtures/test/node_test_table_failing: 7 rows of a table, each a test declared at
  // test/convert.test.js:24:3, fail at the assertion on line 25; a SyntaxError besides.
  const std::string s =
      Shape("node --test", 1, testing::ReadFixture("test", "node_test_table_failing"));
  INFO(s);
  CHECK(s.starts_with("node --test: FAILED — 8 failed, 6 passed (exit 1)\n"));
  const std::string frame =
      "TestContext.<anonymous> (/tmp/plugline-fx/test/units/test/convert.test.js:25:12)";
  CHECK(Contains(s, "    1.6 !== 1.609\n"));
  CHECK(s.find(frame) == s.rfind(frame));
  // Each other row on its line, with its own values (not the diff's legend).
  CHECK(Contains(s, "\nnot ok 5 - convert 3 ft to yd - expected: 1 - actual: 1.016\n"));
  CHECK(Contains(s, "\nnot ok 9 - convert 10 mi to ft - expected: 52800 - actual: 52493.438\n"));
  CHECK(Contains(s, "\nnot ok 11 - convert 42 km to mi - expected: 26.098 - actual: 26.25\n"));
  CHECK(Contains(s, " more lines of these failures omitted, as in convert 1 mi to km\n"));
  // The failure of another kind in full.
  CHECK(Contains(s, "\nnot ok 13 - parseLength reads a unit in capitals\n"));
  CHECK(Contains(s, "    parseLength (/tmp/plugline-fx/test/units/src/units.js:25:17)\n"));
}

TEST_CASE("test shaper: pytest's explanation of a value by itself is counted, the others kept") {
  const std::string output =
      "============================= test session starts ==============================\n"
      "collected 1 item\n\n"
      "tests/test_p.py F                                                        [100%]\n\n"
      "=================================== FAILURES ===================================\n"
      "___________________________ test_discount_is_capped ____________________________\n\n"
      "    def test_discount_is_capped():\n"
      ">       assert apply_discount(Decimal(\"100\"), 80) == Decimal(\"50.00\")\n"
      "E       AssertionError: assert Decimal('20.00') == Decimal('50.00')\n"
      "E        +  where Decimal('20.00') = apply_discount(Decimal('100'), 80)\n"
      "E        +    where Decimal('100') = Decimal('100')\n"
      "E        +  and   Decimal('50.00') = Decimal('50.00')\n\n"
      "tests/test_p.py:5: AssertionError\n"
      "=========================== short test summary info ============================\n"
      "FAILED tests/test_p.py::test_discount_is_capped - AssertionError: assert Decimal...\n"
      "============================== 1 failed in 0.05s ===============================\n";
  const std::string s = Shape("pytest", 1, output);
  INFO(s);
  CHECK(Contains(s, "E        +  where Decimal('20.00') = apply_discount(Decimal('100'), 80)\n"
                    "tests/test_p.py:5: AssertionError\n"));
  CHECK_FALSE(Contains(s, "where Decimal('100') = Decimal('100')"));
  CHECK_FALSE(Contains(s, "and   Decimal('50.00') = Decimal('50.00')"));
}

TEST_CASE("test shaper: bats' pretty formatter: each ✗ test with why, the ✓ ones counted") {
  std::string out;
  REQUIRE(core::NormalizeTerminalOutput(testing::ReadFixture("test", "bats_pretty_failing"), &out));
  const std::string s = Shape("bats --formatter pretty .", 1, out);
  INFO(s);
  CHECK(
      s.starts_with("bats: FAILED — 8 failed, 60 passed, 1 skipped (exit 1)\n"
                    " ✗ minor 10 is higher than minor 9\n"
                    "   (in test file ./semver.bats, line 17)\n"));
  CHECK(Contains(s, "\n… 60 passed tests omitted\n"));
  CHECK(s.ends_with("\n69 tests, 8 failures, 1 skipped\n"));
  CHECK_FALSE(Contains(s, " ✓ "));
}

TEST_CASE("test shaper: ctest -V: a failed test's numbered lines are its block") {
  std::string out =
      "UpdateCTestConfiguration  from :/src/build/DartConfiguration.tcl\n"
      "Test project /src/build\nConstructing a list of tests\nDone constructing a list of tests\n"
      "test 1\n    Start 1: math\n\n"
      "1: Test command: /src/build/math_test\n1: Working Directory: /src/build\n"
      "1: Test timeout computed to be: 10000000\n"
      "1: Running main() from ./googletest/src/gtest_main.cc\n"
      "1: [==========] Running 2 tests from 1 test suite.\n";
  for (int i = 0; i < 20; ++i) {
    out += StrCat("1: [ RUN      ] MathBasic.Add", i, "\n1: [       OK ] MathBasic.Add", i,
                  " (0 ms)\n");
  }
  out +=
      "1: [ RUN      ] MathBasic.Vector\n"
      "1: /src/math_test.cpp:28: Failure\n1: Expected equality of these values:\n"
      "1:   v.size()\n1:     Which is: 3\n1:   4u\n1:     Which is: 4\n"
      "1: [  FAILED  ] MathBasic.Vector (0 ms)\n"
      "1/3 Test #1: math .............................***Failed    0.00 sec\n"
      "test 2\n    Start 2: ok\n\n2: Test command: /bin/true\n"
      "2/3 Test #2: ok ...............................   Passed    0.00 sec\n"
      "test 3\n    Start 3: script_fail\n\n3: Test command: /usr/bin/sh \"-c\" \"exit 3\"\n"
      "3: config invalid: missing key timeout\n"
      "3/3 Test #3: script_fail ......................***Failed    0.00 sec\n\n"
      "33% tests passed, 2 tests failed out of 3\n\nTotal Test time (real) =   0.04 sec\n\n"
      "The following tests FAILED:\n\t  1 - math (Failed)\n\t  3 - script_fail (Failed)\n"
      "Errors while running CTest\n";
  const std::string s = Shape("ctest -V", 8, out);
  INFO(s);
  CHECK(
      s.starts_with("ctest: FAILED — 2 failed, 1 passed (exit 8)\n"
                    "1/3 Test #1: math .............................***Failed    0.00 sec\n"
                    "Test command: /src/build/math_test\n"
                    "/src/math_test.cpp:28: Failure\n"));
  CHECK(Contains(s, "\n    Which is: 3\n"));
  CHECK(Contains(s, "\n[  FAILED  ] MathBasic.Vector (0 ms)\n"));
  CHECK(Contains(s,
                 "\n3/3 Test #3: script_fail ......................***Failed    0.00 sec\n"
                 "Test command: /usr/bin/sh \"-c\" \"exit 3\"\n"
                 "config invalid: missing key timeout\n"));
  CHECK_FALSE(Contains(s, "\ntest 2\n"));
  CHECK_FALSE(Contains(s, "Working Directory"));
}

TEST_CASE("test shaper: pytest's strict xfail that passed says why it failed") {
  const std::string out =
      "============================= test session starts ==============================\n"
      "collected 8 items\n\ntests/test_math.py .....X..                                    "
      "           [100%]\n\n"
      "=================================== FAILURES ===================================\n"
      "______________________________ test_xpass_strict _______________________________\n"
      "[XPASS(strict)] should fail but passes\n"
      "=========================== short test summary info ============================\n"
      "FAILED tests/test_math.py::test_xpass_strict\n"
      "========================= 1 failed, 7 passed in 0.07s ==========================\n";
  const std::string s = Shape("pytest tests", 1, out);
  INFO(s);
  CHECK(
      s.starts_with("pytest: FAILED — 1 failed, 7 passed (exit 1)\n"
                    "FAILED tests/test_math.py::test_xpass_strict\n"
                    "[XPASS(strict)] should fail but passes\n"));
}

TEST_CASE("test shaper: the googletest test a binary died in is named by its RUN line") {
  // ctest --output-on-failure: a binary that crashed in its first test, its banners around.
  std::string out =
      "Test project /src/build\n    Start 1: ok\n"
      "1/3 Test #1: ok ...............................   Passed    0.00 sec\n"
      "    Start 2: crash\n"
      "2/3 Test #2: crash ............................***Exception: SegFault  0.00 sec\n"
      "Running main() from ./googletest/src/gtest_main.cc\n"
      "[==========] Running 3 tests from 1 test suite.\n"
      "[----------] Global test environment set-up.\n"
      "[----------] 3 tests from Crash\n"
      "[ RUN      ] Crash.Fine\n[       OK ] Crash.Fine (0 ms)\n"
      "[ RUN      ] Crash.Segv\n\n"
      "    Start 3: script_fail\n"
      "3/3 Test #3: script_fail ......................***Failed    0.00 sec\n"
      "config invalid: missing key timeout\n\n"
      "33% tests passed, 2 tests failed out of 3\n\nTotal Test time (real) =   0.04 sec\n\n"
      "The following tests FAILED:\n\t  2 - crash (SEGFAULT)\n\t  3 - script_fail (Failed)\n"
      "Errors while running CTest\n";
  for (int i = 0; i < 30; ++i) out += "\n";  // past the size shown raw
  const std::string s = Shape("ctest --output-on-failure", 8, out);
  INFO(s);
  CHECK(Contains(s,
                 "\n2/3 Test #2: crash ............................***Exception: SegFault  "
                 "0.00 sec\n[ RUN      ] Crash.Segv\n"));
  CHECK_FALSE(Contains(s, "[ RUN      ] Crash.Fine"));
  // A googletest binary run alone, that died in its second test.
  std::string alone =
      "Running main() from ./googletest/src/gtest_main.cc\n"
      "[==========] Running 2 tests from 1 test suite.\n[----------] 2 tests from Crash\n";
  for (int i = 0; i < 30; ++i) {
    alone += StrCat("[ RUN      ] Crash.Fine", i, "\n[       OK ] Crash.Fine", i, " (0 ms)\n");
  }
  alone += "[ RUN      ] Crash.Segv\n";
  const std::string a = Shape("./crash_test", 139, alone);
  INFO(a);
  CHECK(a.starts_with("googletest: FAILED"));
  CHECK(Contains(a, "\n[ RUN      ] Crash.Segv\n"));
}

TEST_CASE("test shaper: unittest's expected failures passed, its unexpected successes failed") {
  // "OK (expected failures=1)": no failure ("failures=" is not the end of its key).
  const std::string passing =
      Shape("python3 -m unittest -v -k grams -k aliases tests.test_units", 0,
            testing::ReadFixture("test", "unittest_expected_failure_passing"));
  INFO(passing);
  CHECK(passing.starts_with("unittest: passed — 4 tests run · "));
  // "UNEXPECTED SUCCESS: test_x (…)" is a failure, counted with the failures.
  const std::string failing = Shape("python3 -m unittest tests_marked.test_known_issues", 1,
                                    testing::ReadFixture("test", "unittest_unexpected_success"));
  INFO(failing);
  CHECK(failing.starts_with("unittest: FAILED — 1 failed, 1 skipped, 4 tests run (exit 1)\n"));
  CHECK(Contains(failing,
                 "\nUNEXPECTED SUCCESS: test_ounces_precision "
                 "(tests_marked.test_known_issues.KnownIssues.test_ounces_precision)\n"));
  // Under -v, in a longer run: the block is kept as a failure's, its test named once.
  std::string verbose = "test_a (t.T.test_a) ... ok\n";
  for (int i = 0; i < 40; ++i) verbose += StrCat("test_n", i, " (t.T.test_n", i, ") ... ok\n");
  verbose +=
      "test_x (t.T.test_x) ... unexpected success\ntest_y (t.T.test_y) ... expected failure\n\n"
      "======================================================================\n"
      "UNEXPECTED SUCCESS: test_x (t.T.test_x)\n"
      "----------------------------------------------------------------------\n"
      "Ran 43 tests in 0.001s\n\nFAILED (expected failures=1, unexpected successes=1)\n";
  const std::string v = Shape("python3 -m unittest -v", 1, verbose);
  INFO(v);
  CHECK(
      v.starts_with("unittest: FAILED — 1 failed, 43 tests run (exit 1)\n"
                    "UNEXPECTED SUCCESS: test_x (t.T.test_x)\n"));
  CHECK(Contains(v, "\n… 42 passed tests omitted\n"));
}

TEST_CASE("test shaper: tcltest: failed blocks with their results, FAILED though it exits 0") {
  for (const char* name : {"tcltest_failing", "tcltest_failing_verbose"}) {
    const std::string out = testing::ReadFixture("test", name);
    for (const char* command : {"tclsh tests/all.tcl", "make test"}) {  // known by its lines too
      const std::string s = Shape(command, 0, out);
      INFO(name, " ", command, "\n", s);
      CHECK(
          s.starts_with("tcltest: FAILED — 6 failed, 118 passed, 1 skipped\n"
                        "==== balance-1.4 thousands separator FAILED\n"));
      // What each result was and should have been, once per test: its closing line left out.
      CHECK(Contains(s,
                     "\n---- Result was:\n105\n---- Result should have been (exact "
                     "matching):\n150\n"));
      CHECK(Contains(s, "\n---- errorInfo: not an amount: 1,000.00\n"));
      CHECK_FALSE(Contains(s, "==== parse-1.4 FAILED"));
      // The file that stopped with an error, and the lists of files.
      CHECK(Contains(s, "\nTest file error: couldn't read file "));
      CHECK(
          Contains(s, "\n    (file \"/tmp/plugline-fx/test/ledger/tests/report.test\" line 7)\n"));
      CHECK(Contains(s, "\nFiles with failing tests: balance.test format.test parse.test\n"));
      CHECK(Contains(s, "\nTest files exiting with errors:  \n  report.test\n"));
      CHECK(Contains(s, "\nall.tcl:\tTotal\t125\tPassed\t118\tSkipped\t1\tFailed\t6\n"));
      CHECK_FALSE(Contains(s, "PASSED\n"));
    }
  }
}

TEST_CASE(
    "test shaper: prove: a TODO test that fails and a skipped one are skipped, not failures") {
  const std::string out = testing::ReadFixture("test", "prove_todo_verbose");
  const std::string s = Shape("prove -v -Ilib t/02-sum.t todo/", 1, out);
  INFO(s);
  CHECK(s.starts_with(
      "prove: FAILED — 2 failed, 3 passed, 2 skipped (exit 1)\nnot ok 3 - float sum\n"));
  CHECK(Contains(s, "\nnot ok 1 - trim both ends\n#   Failed test 'trim both ends'\n"));
  CHECK_FALSE(Contains(s, "not ok 3 - trim em spaces"));
}

TEST_CASE("test shaper: prove pairs Test::More's diagnostics with the TAP lines they explain") {
  // -v: a script's diagnostics (stderr) arrive before its TAP (stdout); a die message and the
  // harness's report follow.
  const std::string output =
      "\n#   Failed test 'trailing spaces'\n"
      "#   at t/01-trim.t line 5.\n"
      "#          got: 'abc  '\n"
      "#     expected: 'abc'\n"
      "# Looks like you failed 1 test of 2.\n"
      "t/01-trim.t ... \n"
      "1..2\n"
      "ok 1 - leading spaces\n"
      "not ok 2 - trailing spaces\n"
      "Dubious, test returned 1 (wstat 256, 0x100)\n"
      "Failed 1/2 subtests \n"
      "Illegal division by zero at lib/My/Util.pm line 6.\n"
      "# Looks like your test exited with 255 just after 1.\n"
      "t/02-div.t .... \n"
      "ok 1 - small\n"
      "Dubious, test returned 255 (wstat 65280, 0xff00)\n"
      "All 1 subtests passed \n"
      "\n"
      "Test Summary Report\n"
      "-------------------\n"
      "t/01-trim.t (Wstat: 256 (exited 1) Tests: 2 Failed: 1)\n"
      "  Failed test:  2\n"
      "Files=2, Tests=3,  0 wallclock secs ( 0.04 usr  0.02 sys +  0.25 cusr  0.05 csys =  0.36 CPU)\n"
      "Result: FAIL\n";
  const std::string s = Shape("prove -v -Ilib t/", 1, output);
  auto lines = core::SplitLines(s);
  REQUIRE(lines.size() > 6);
  CHECK(lines[0] == "prove: FAILED — 1 failed, 2 passed (exit 1)");
  // The failure: its TAP line first, then its diagnostic.
  CHECK(lines[1] == "not ok 2 - trailing spaces");
  CHECK(lines[2] == "#   Failed test 'trailing spaces'");
  CHECK(lines[3] == "#   at t/01-trim.t line 5.");
  CHECK(lines[4] == "#          got: 'abc  '");
  CHECK(lines[5] == "#     expected: 'abc'");
  CHECK(Contains(s, "\nIllegal division by zero at lib/My/Util.pm line 6.\n"));
  CHECK(Contains(s, "\n# Looks like your test exited with 255 just after 1.\n"));
  CHECK(Contains(s, "\n  Failed test:  2\n"));
  CHECK(Contains(s, "\nResult: FAIL\n"));
  CHECK_FALSE(Contains(s, "Looks like you failed"));
  CHECK_FALSE(Contains(s, "Dubious"));
}

TEST_CASE("test shaper: a hint the runner repeats under every failure is shown once") {
  // tests/fixtures/test/cargo_failing_backtrace: RUST_BACKTRACE=1, "note: Some details are
  // omitted, run with `RUST_BACKTRACE=full` …" under each of four panics.
  const std::string cargo =
      Shape("cargo test", 101, testing::ReadFixture("test", "cargo_failing_backtrace"));
  INFO(cargo);
  const std::string note = "note: Some details are omitted, run with `RUST_BACKTRACE=full`";
  CHECK(Contains(cargo, note));
  CHECK(cargo.find(note) == cargo.rfind(note));
  // pytest's "Use -v to get more diff" under each assertion on a container.
  std::string output =
      "============================= test session starts ==============================\n"
      "collected 3 items\n\ntests/test_a.py FFF\n\n"
      "=================================== FAILURES ===================================\n";
  for (int i = 0; i < 3; ++i) {
    StrAppend(&output, "_________________________________ test_list_", i,
              " _________________________________\n\n", "    def test_list_", i, "():\n",
              ">       assert list(range(", 50 + i, ")) == [", i, "]\n",
              "E       assert [0, 1, 2, 3, 4, 5, ...] == [", i, "]\n",
              "E         At index 0 diff: 0 != ", i, "\n", "E         Left contains ", 49 + i,
              " more items, first extra item: 1\n", "E         Use -v to get more diff\n\n",
              "tests/test_a.py:", 2 + 3 * i, ": AssertionError\n");
  }
  output += "============================== 3 failed in 0.05s ===============================\n";
  const std::string s = Shape("pytest", 1, output);
  INFO(s);
  for (int i = 0; i < 3; ++i) {
    CHECK(Contains(s, StrCat("\nE         At index 0 diff: 0 != ", i, "\n")));
    CHECK(Contains(s, StrCat("\ntests/test_a.py:", 2 + 3 * i, ": AssertionError\n")));
  }
  const std::string hint = "E         Use -v to get more diff\n";
  CHECK(Contains(s, hint));
  CHECK(s.find(hint) == s.rfind(hint));
}

TEST_CASE("test shaper: past 30 failures each keeps its assertion and where it failed") {
  std::string output =
      "============================= test session starts ==============================\n"
      "collected 40 items\n\ntests/test_a.py FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF\n\n"
      "=================================== FAILURES ===================================\n";
  for (int i = 0; i < 40; ++i) {
    StrAppend(&output, "____________________________ test_len_", i, " _____________________________\n\n",
              "    def test_len_", i, "():\n", "        expected = ", i, "\n",
              ">       assert len(make(", i, ")) == expected\n",
              "E       AssertionError: assert ", i + 1, " == ", i, "\n",
              "E        +  where ", i + 1, " = len('", std::string(static_cast<size_t>(i + 1), 'x'), "')\n",
              "E        +    where 'x' = make(", i, ")\n\n",
              "tests/test_a.py:", 10 + 3 * i, ": AssertionError\n");
  }
  output += "=========================== short test summary info ============================\n";
  for (int i = 0; i < 40; ++i) {
    StrAppend(&output, "FAILED tests/test_a.py::test_len_", i, " - AssertionError: assert ", i + 1,
              " == ", i, "\n");
  }
  output += "============================== 40 failed in 0.12s ==============================\n";
  const std::string s = Shape("pytest", 1, output);
  for (int i = 0; i < 40; ++i) {
    CHECK(Contains(s, StrCat("\nE       AssertionError: assert ", i + 1, " == ", i, "\n")));
    CHECK(Contains(s, StrCat("\ntests/test_a.py:", 10 + 3 * i, ": AssertionError\n")));
  }
  // The value's explanations and the lines that only mention a key word are counted.
  CHECK_FALSE(Contains(s, "\nE        +  where 40 = len("));
  CHECK_FALSE(Contains(s, "\n        expected = 39\n"));
}

TEST_CASE("test shaper: the cases of one parametrized assertion past the first are a line each, with their values") {
  std::string output =
      "============================= test session starts ==============================\n"
      "collected 8 items\n\ntests/test_slug.py FFFFFFFF\n\n"
      "=================================== FAILURES ===================================\n";
  for (int i = 0; i < 8; ++i) {
    StrAppend(&output, "____________________ test_slug[case-", i, "] _____________________\n\n",
              "raw = '-case ", i, "', expected = 'case-", i, "'\n\n",
              "    @pytest.mark.parametrize('raw,expected', CASES)\n",
              "    def test_slug(raw, expected):\n",
              ">       assert slugify(raw) == expected\n",
              "E       AssertionError: assert '-case-", i, "' == 'case-", i, "'\n",
              "E         - case-", i, "\nE         + -case-", i, "\nE         ? +\n\n",
              "tests/test_slug.py:9: AssertionError\n");
  }
  output += "=========================== short test summary info ============================\n";
  for (int i = 0; i < 8; ++i) {
    StrAppend(&output, "FAILED tests/test_slug.py::test_slug[case-", i, "] - AssertionError: ...\n");
  }
  output += "============================== 8 failed in 0.05s ===============================\n";
  const std::string s = Shape("pytest", 1, output);
  // The first in full.
  CHECK(Contains(s, "\nE         + -case-0\n"));
  // The others, right after it: a line each, as pytest's short summary puts it, the runner's
  // line with the test's full id and the error with its values; then what was left out and
  // where it is shown.
  std::string others;
  for (int i = 1; i < 8; ++i) {
    StrAppend(&others, "\nFAILED tests/test_slug.py::test_slug[case-", i, "] - AssertionError: assert '-case-", i,
              "' == 'case-", i, "'");
    CHECK_FALSE(Contains(s, StrCat("\nE         + -case-", i, "\n")));
  }
  CHECK(Contains(s, StrCat("tests/test_slug.py:9: AssertionError", others,
                           "\n… 77 more lines of these failures omitted, as in test_slug[case-0]\n")));
  // Each id once; the banners counted.
  for (int i = 0; i < 8; ++i) {
    const std::string id = StrCat("FAILED tests/test_slug.py::test_slug[case-", i, "]");
    CHECK(s.find(id) == s.rfind(id));
    CHECK_FALSE(Contains(s, StrCat("_ test_slug[case-", i, "] _")));
  }
}

TEST_CASE("test shaper: RSpec's failures keep their values, headed by their rerun commands, pending is counted") {
  const std::string output = testing::ReadFixture("test", "rspec_failing");
  const std::string s = Shape("bundle exec rspec spec", 1, output);
  INFO(s);
  CHECK(s.starts_with("rspec: FAILED — 7 failed, 2 skipped, 17 tests run (exit 1)\n"));
  // The rerun commands name each example's own line (or id), which no block shows: each heads
  // its block, in the place of "  2) Cart#add counts items", and is not listed again.
  CHECK(Contains(s, "\nrspec ./spec/cart_spec.rb:17 # Cart#add counts items\n"
                    "     Failure/Error: expect(cart.count).to eq(1)\n"));
  CHECK(Contains(s, "\nrspec ./spec/cart_spec.rb[1:3:3] # Cart#discount applies FREE\n"));
  CHECK_FALSE(Contains(s, "2) Cart#add counts items"));
  for (std::string_view id : {"rspec ./spec/cart_spec.rb:14 ", "rspec ./spec/slug_spec.rb:27 "}) {
    CHECK(s.find(id) != std::string::npos);
    CHECK(s.find(id) == s.rfind(id));
  }
  CHECK(Contains(s, "       expected: 1\n            got: 2\n"));
  CHECK(Contains(s, "     # ./lib/slug.rb:8:in `truncate'\n"));
  // Pending examples are not failures; eq's note on how it compared says nothing.
  CHECK_FALSE(Contains(s, "groups by category"));
  CHECK_FALSE(Contains(s, "(compared using ==)"));
  CHECK(Contains(s, "\n17 examples, 7 failures, 2 pending"));
}

TEST_CASE("test shaper: a spec file RSpec cannot load is the run's failure") {
  const std::string s = Shape("rspec spec_broken spec", 1, testing::ReadFixture("test", "rspec_load_error"));
  INFO(s);
  CHECK(s.starts_with("rspec: FAILED — 1 error, 0 tests run (exit 1)\n"
                      "An error occurred while loading ./spec_broken/report_spec.rb.\n"
                      "Failure/Error: require_relative \"../lib/report\"\n"));
  CHECK(Contains(s, "# ./spec_broken/report_spec.rb:1:in `<top (required)>'"));
}

TEST_CASE("test shaper: PHPUnit's errors and failures are blocks, its verdict and counts kept") {
  const std::string s = Shape("php vendor/bin/phpunit tests", 2, testing::ReadFixture("test", "phpunit_failing"));
  INFO(s);
  CHECK(s.starts_with("phpunit: FAILED — 5 failed, 2 errors, 2 skipped, 13 tests run (exit 2)\n"));
  CHECK(Contains(s, "1) MoneyTest::testFormat\nInvalidArgumentException: negative amount: -50\n"));
  CHECK(Contains(s, "5) MoneyTest::testParts\nFailed asserting that two arrays are equal.\n--- Expected\n"));
  CHECK(Contains(s, "-        1 => 3\n+        1 => 4\n"));
  // The progress line and the section headings are counted.
  CHECK_FALSE(Contains(s, "13 / 13 (100%)"));
  CHECK_FALSE(Contains(s, "There were 5 failures:"));
  CHECK(Contains(s, "\nERRORS!\nTests: 13, Assertions: 10, Errors: 2, Failures: 5, Skipped: 1, Incomplete: 1."));
  // Passing: one line with the counts.
  const std::string passed = Shape("phpunit", 0,
                                   "PHPUnit 9.6.7 by Sebastian Bergmann and contributors.\n\n"
                                                      "....                                 4 / 4 (100%)\n\n"
                                                      "Time: 00:00.004, Memory: 4.00 MB\n\n"
                                                      "OK (4 tests, 6 assertions)\n");
  CHECK(passed == "phpunit: passed — 4 passed · Time: 00:00.004, Memory: 4.00 MB · "
                  "OK (4 tests, 6 assertions)\n");
}

TEST_CASE("test shaper: TAP without a version line (bats) is read, counted and named by its program") {
  const std::string s = Shape("bats .", 1, testing::ReadFixture("test", "bats_failing"));
  INFO(s);
  CHECK(s.starts_with("bats: FAILED — 8 failed, 60 passed, 1 skipped (exit 1)\n"
                      "not ok 3 minor 10 is higher than minor 9\n"
                      "# (in test file ./semver.bats, line 17)\n"));
  CHECK_FALSE(Contains(s, "ok 1 equal versions"));
  // A test marked # TODO is expected to fail, # SKIP not run: neither is a failure.
  const std::string todo = Shape("./t/run.sh", 1,
                                 "1..3\nok 1 parses\nnot ok 2 streams # TODO not written\n"
                                 "not ok 3 rounds\n# got 0.30000000000000004\n"
                                 "ok 4 exports # SKIP no network\n");
  INFO(todo);
  CHECK(todo.starts_with("run.sh: FAILED — 1 failed, 1 passed, 2 skipped (exit 1)\nnot ok 3 rounds\n"
                         "# got 0.30000000000000004\n"));
  CHECK_FALSE(Contains(todo, "streams"));
}

TEST_CASE("test shaper: Catch2's failed test cases and sections keep their expansions, passing assertions counted") {
  const std::string s = Shape("./stats_test --success", 6, testing::ReadFixture("test", "catch2_failing_success"));
  INFO(s);
  CHECK(s.starts_with("catch2: FAILED — 4 failed, 2 passed (exit 6)\n"
                      "parse_int of an empty string is zero\nstats_test.cpp:11\n\n"
                      "stats_test.cpp:12: FAILED:\n  CHECK( parse_int(\"\") == 0 )\n"));
  // A section's failure is named by its test case and its section.
  CHECK(Contains(s, "\nmean\n  of one value\nstats_test.cpp:19\n\nstats_test.cpp:20: FAILED:\n"
                    "  REQUIRE( mean({5}) == 5 )\nwith expansion:\n  2.5 == 5\n"));
  CHECK_FALSE(Contains(s, "PASSED:"));
  CHECK_FALSE(Contains(s, "-----"));
  CHECK(Contains(s, "\ntest cases:  6 | 2 passed | 4 failed\nassertions: 10 | 4 passed | 6 failed"));
  const std::string passed = Shape("./stats_test", 0, testing::ReadFixture("test", "catch2_passing"));
  INFO(passed);
  CHECK(passed.starts_with("catch2: passed — 1 passed · All tests passed (2 assertions in 1 test case)"));
}

TEST_CASE("test shaper: Minitest's blocks are named by their Class#test line, -v's per-test lines counted") {
  const std::string s = Shape("bin/rails test", 1,
                              "Run options: -v --seed 4242\n\n# Running:\n\n"
                              "CartTest#test_total = 0.00 s = .\n"
                              "CartTest#test_count = 0.00 s = F\n"
                              "CartTest#test_later = 0.00 s = S\n"
                              "CartTest#test_fetch = 0.00 s = E\n\n"
                              "Finished in 0.004500s, 888.8 runs/s, 666.6 assertions/s.\n\n"
                              "  1) Failure:\nCartTest#test_count [test/cart_test.rb:18]:\nExpected: 1\n  Actual: 2\n\n"
                              "bin/rails test test/cart_test.rb:15\n\n"
                              "  2) Skipped:\nCartTest#test_later [test/cart_test.rb:37]:\nnot settled\n\n"
                              "  3) Error:\nCartTest#test_fetch:\nTypeError: no implicit conversion of Symbol into Integer\n"
                              "    test/cart_test.rb:32:in `fetch'\n\n"
                              "4 runs, 3 assertions, 1 failures, 1 errors, 1 skips\n");
  INFO(s);
  CHECK(s.starts_with("minitest: FAILED — 1 failed, 1 error, 1 skipped, 4 tests run (exit 1)\n"
                      "  1) Failure:\nCartTest#test_count [test/cart_test.rb:18]:\nExpected: 1\n  Actual: 2\n"));
  // Rails' rerun command stays with its failure; a skip is no failure.
  CHECK(Contains(s, "\nbin/rails test test/cart_test.rb:15\n"));
  CHECK_FALSE(Contains(s, "not settled"));
  CHECK(Contains(s, "  3) Error:\nCartTest#test_fetch:\nTypeError: no implicit conversion"));
  CHECK_FALSE(Contains(s, "= 0.00 s = ."));
  CHECK(Contains(s, "\n4 runs, 3 assertions, 1 failures, 1 errors, 1 skips"));
}

TEST_CASE("test shaper: Python's doctest, run alone, keeps each failed example with its values") {
  const std::string s = Shape("python3 -m doctest ledger/amounts.py", 1,
                              testing::ReadFixture("test", "doctest_failing"));
  INFO(s);
  CHECK(s.starts_with("doctest: FAILED — 4 failed (exit 1)\n"
                      "File \"/tmp/plugline-fx/test/ledger/ledger/amounts.py\", line 29, in amounts.split\n"
                      "Failed example:\n    split(100, 3)\nExpected:\n    [34, 33, 33]\nGot:\n    [33, 33, 33]\n"));
  // An example that raised: its frames in the user's code and the error; doctest's own frame
  // and the line of stars between failures are counted.
  CHECK(Contains(s, "      File \"/tmp/plugline-fx/test/ledger/ledger/amounts.py\", line 34, in split\n"
                    "        base = total // parts\n"
                    "    ZeroDivisionError: integer division or modulo by zero\n"));
  CHECK_FALSE(Contains(s, "doctest.py"));
  CHECK_FALSE(Contains(s, "*****"));
  // The list of items with failures names them again: counted.
  CHECK_FALSE(Contains(s, " of   4 in amounts.to_cents"));
  CHECK(s.ends_with("\n***Test Failed*** 4 failures.\n"));

  // -v: every example's "Trying:"/"Expecting:"/"ok" is counted; "Expected nothing" is a value.
  const std::string v = Shape("python3 -m doctest -v ledger/text.py", 1,
                              testing::ReadFixture("test", "doctest_failing_verbose"));
  INFO(v);
  CHECK(v.starts_with("doctest: FAILED — 4 failed, 2 passed (exit 1)\n"));
  CHECK(Contains(v, "Failed example:\n    statement([])\nExpected nothing\nGot:\n    total           0.00\n"));
  CHECK_FALSE(Contains(v, "Trying:"));
  CHECK_FALSE(Contains(v, "Expecting:"));
  CHECK(Contains(v, "\n6 tests in 4 items.\n2 passed and 4 failed.\n***Test Failed*** 4 failures.\n"));

  // doctest.testmod() in a script: found by the output.
  const std::string text = "**********************************************************************\n"
                           "File \"ledger.py\", line 5, in __main__.cents\n"
                           "Failed example:\n    cents(0.29)\nExpected:\n    29\nGot:\n    28\n"
                           "**********************************************************************\n"
                           "1 items had failures:\n   1 of   2 in __main__.cents\n"
                           "***Test Failed*** 1 failures.\n";
  auto match = MakeTestShaper()->Match("python3 ledger.py", text, 1);
  REQUIRE(match.ok());
  CHECK(match->matched);
  REQUIRE_FALSE(match->signals.empty());
  CHECK(match->signals.front() == "doctest");
  const std::string script = Shape("python3 ledger.py", 1, text);
  INFO(script);
  CHECK(script.starts_with("doctest: FAILED — 1 failed (exit 1)\nFile \"ledger.py\", line 5, in __main__.cents\n"));
  CHECK(Contains(script, "Got:\n    28\n"));
}

TEST_CASE("test shaper: a script's test run is known by its runner's own lines, not a rule of '=' a sanitizer's report starts with") {
  // ctest's report of an AddressSanitizer error: its rules of '=' are no pytest session.
  const std::string asan = testing::ReadFixture("test", "ctest_asan_failing");
  REQUIRE(!asan.empty());
  const std::string ctest = Shape("./ci.sh", 8, asan);
  INFO(ctest);
  CHECK(ctest.starts_with("ctest: FAILED — 1 failed, 1 passed (exit 8)\n"));
  CHECK(Contains(ctest, "in make_order /tmp/plugline-fx/test/orders/orders-uaf.c:13:21"));
  // pytest -q prints no session line and no ruled verdict: its ruled sections say it is pytest.
  const std::string quiet =
      Shape("./ci.sh", 1, testing::ReadFixture("test", "pytest_failing_quiet"));
  INFO(quiet);
  CHECK(quiet.starts_with("pytest: FAILED — 5 failed, 2 errors, 31 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(quiet, "tests/test_tax.py:22"));
  // node --test's spec reporter under npm test: its totals are past the bounded view the
  // shapers are matched on, its suites and timed tests are not.
  const std::string spec =
      Shape("npm test", 1, testing::ReadFixture("test", "node_test_failing_spec"));
  INFO(spec);
  CHECK(spec.starts_with("node --test: FAILED — 5 failed, 17 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(spec, "✖ round trip"));
  // go test -json's events, a JSON object a line.
  const std::string events = Shape("make test", 1, testing::ReadFixture("test", "go_failing_json"));
  INFO(events);
  CHECK(events.starts_with("go test: FAILED"));
  CHECK(Contains(events, "ring/ring_test.go:23"));
}

TEST_CASE("test shaper: node-tap's failed assertions under their test's Subtest line") {
  // A test that failed by its subtests is its line alone; the quoted source is counted.
  const std::string out = testing::ReadFixture("test", "tap_failing");
  REQUIRE(!out.empty());
  const std::string s = Shape("npx tap taptest/", 1, out);
  INFO(s);
  // The totals from "# { total: 10, pass: 5, fail: 4, skip: 1 }", not the one file's line.
  CHECK(s.starts_with("tap: FAILED — 4 failed, 5 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(s, "    # Subtest: knows Austrian tax\n        not ok 1 - should be equal\n"));
  CHECK(Contains(s, "        # Subtest: ignores an empty code\n"
                    "            not ok 1 - unknown discount code:\n"));
  CHECK(Contains(s, "            -2\n            +null\n"));
  // The tests whose assertions failed are named by their Subtest lines; their own "not ok"
  // blocks (where the test was declared, its source) are not shown, their lines are.
  CHECK(Contains(s, "\n    not ok 5 - discounts # time="));
  CHECK(Contains(s, "\nnot ok 1 - taptest/cart.test.js # time="));
  CHECK(!Contains(s, "source:"));
  CHECK(!Contains(s, "t.test('discounts', async t => {"));
}

TEST_CASE("test shaper: AVA's blocks per failed test, the source around the failing line counted") {
  const std::string out = testing::ReadFixture("test", "ava_failing");
  REQUIRE(!out.empty());
  for (const char* command : {"npx ava", "npm test"}) {
    const std::string s = Shape(command, 1, out);
    INFO(s);
    CHECK(s.starts_with("ava: FAILED — 4 failed, 4 passed (exit 1)\n  knows Austrian tax\n"));
    CHECK(Contains(s, "   6: test('knows Austrian tax'"));
    CHECK(!Contains(s, "   5: test('rounds tax to cents'"));
    CHECK(Contains(s, "  - NaN\n  + 2\n"));
    CHECK(Contains(s, "… 4 lines of source around the failing ones omitted\n"));
    CHECK(Contains(s, "  › test/cart.test.js:9:43\n"));
  }
}

TEST_CASE("test shaper: jest --json and vitest's json reporter are read as the text jest prints") {
  const std::string jest =
      Shape("npx jest --json", 1, testing::ReadFixture("test", "jest_json_failing"));
  INFO(jest);
  CHECK(jest.starts_with("jest: FAILED — 7 failed, 17 passed, 1 skipped (exit 1)\n"
                         "FAIL /tmp/plugline-fx/test/textkit/tests/retry.test.js\n"
                         "  ● retry › retries after failures\n"));
  CHECK(Contains(jest, "    Received: \"hello-world-\"\n"));
  CHECK(Contains(jest, "\nTests:       7 failed, 1 skipped, 1 todo, 17 passed, 26 total\n"));
  // A file that did not run: its message under jest's heading for it; named by its command.
  const std::string vitest = Shape("npx vitest run --reporter=json", 1,
                                   testing::ReadFixture("test", "vitest_json_failing"));
  INFO(vitest);
  CHECK(vitest.starts_with("vitest: FAILED — 4 failed, 14 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(vitest, "tests/cli.test.js\n  ● Test suite failed to run\n\n"
                         "    Cannot find module '../src/cli.js' imported from"));
  // Without the command (saved to a file, a script): known by the report's leading counts.
  CHECK(Shape("cat report.json", 1, testing::ReadFixture("test", "jest_json_failing"))
            .starts_with("jest: FAILED — 7 failed"));
  // Run by npm (`npm test -- --json`), its error lines after the report, a console line before
  // it: the report is its line.
  const std::string by_npm = Shape(
      "npm test -- --json", 1,
      StrCat("console.log: seeded 3 users\n", testing::ReadFixture("test", "jest_json_failing"),
             "npm error Lifecycle script `test` failed with error:\nnpm error code 1\n"));
  INFO(by_npm);
  CHECK(by_npm.starts_with("jest: FAILED — 7 failed, 17 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(by_npm, "    Received: \"hello-world-\"\n"));
}

TEST_CASE("test shaper: node --test's TAP is read as TAP with a runner's ✔ line after it") {
  // Nx prints "✔  nx run ledger:test" for a task whose output it hides, under the TAP of the
  // task before: no test of node's spec reporter.
  const std::string tap =
      "TAP version 13\n# Subtest: adds two prices\nnot ok 1 - adds two prices\n  ---\n"
      "  location: '/w/test/money.test.js:7:1'\n  error: 'Expected 0.3'\n  ...\n"
      "# Subtest: adds whole prices\nok 2 - adds whole prices\n1..2\n# tests 2\n# pass 1\n"
      "# fail 1\n✔  nx run ledger:test\n";
  const std::string s = Shape("node --test", 1, tap);
  INFO(s);
  CHECK(s.starts_with("node --test: FAILED — 1 failed, 1 passed (exit 1)\n"));
  CHECK(Contains(s, "not ok 1 - adds two prices\n"));
}

TEST_CASE("test shaper: Ruby's test-unit: a block per failure, named by test and class, the gem's frames counted") {
  const std::string out = testing::ReadFixture("test", "testunit_failing");
  const std::string s = Shape("ruby test/test_invoice.rb", 1, out);
  INFO(s);
  CHECK(s.starts_with("test-unit: FAILED — 4 failed, 6 passed, 2 skipped (exit 1)\n"));
  for (const char* test : {"test_csv(TestInvoice)", "test_empty_raises(TestInvoice)", "test_number(TestInvoice)",
                           "test_widget_qty[neg](TestInvoice)"}) {
    CHECK_MESSAGE(s.find(StrCat("\nFailure: ", test, "\n")) != std::string::npos, test);
  }
  CHECK(s.find("  => 19:     assert_equal('INV-ACME-0002', @inv.number)\n<\"INV-ACME-0002\"> expected but was\n"
               "<\"INV-ACME-2\">\n") != std::string::npos);
  CHECK(s.find("lib_invoice.rb:7:in `number'\n") != std::string::npos);
  CHECK(s.find("/gems/test-unit-") == std::string::npos);
  CHECK(s.find("     18:   def test_number\n") == std::string::npos);  // the code around: counted
}

TEST_CASE("test shaper: PHPUnit --testdox: a block per failed test, the summary that lists them again counted") {
  const std::string out = testing::ReadFixture("test", "phpunit_testdox_failing");
  const std::string s = Shape("phpunit --testdox tests", 2, out);
  INFO(s);
  CHECK(s.starts_with("phpunit: FAILED — 5 failed, 2 errors, 2 skipped, 13 tests run (exit 2)\n"));
  for (const char* test : {"Add rejects other currency", "Format", "Split keeps total with data set \"odd\"",
                           "Split keeps total with data set \"seven\"", "Negative rejected", "Parts",
                           "Divide by zero"}) {
    const std::string line = StrCat(" ✘ ", test, "\n");
    CHECK_MESSAGE(s.find(line) != std::string::npos, test);
    CHECK_MESSAGE(s.find(line) == s.rfind(line), test);  // once
  }
  CHECK(s.find("   │ Failed asserting that 994 is identical to 1000.\n") != std::string::npos);
  CHECK(s.find("   │ /tmp/plugline-fx/test/money/src/Money.php:13\n") != std::string::npos);
  CHECK(s.find(" lines listing the failures again omitted\n") != std::string::npos);
  CHECK(s.find(" ✔ ") == std::string::npos);
}

// Checks the 36 failed subtests of go/codec (bases 2 to 36, n = -1 and -42, one message each
// at codec_test.go:18) in a summary: the first shown as printed, the others named once each in
// the list after it with the values their messages differ in.
void CheckAlikeSubtests(const std::string& s, std::string_view first) {
  CHECK(Contains(s, first));
  CHECK(Contains(s, "… 35 more subtests failing like it, names differing, at: "
                    "TestRoundTrip/base2/n=-42 -42; TestRoundTrip/base4/n=-1 -1 4; "));
  for (int base = 2; base <= 36; base += 2) {
    for (int n : {-1, -42}) {
      const std::string name = StrCat("TestRoundTrip/base", base, "/n=", n);
      // Once: as the first's heading, or in the list.
      const bool first = base == 2 && n == -1;
      const size_t at = first ? std::min(s.find(StrCat(name, "\n")), s.find(StrCat(name, " (")))
                              : s.find(StrCat(name, " "));
      CHECK_MESSAGE(at != std::string::npos, name);
      CHECK_MESSAGE(s.find(StrCat(name, first ? "" : " "), at + 1) == std::string::npos, name);
      if (base > 2 || n == -42) {
        CHECK_MESSAGE(Contains(s, StrCat(name, " ", n, base == 2 ? "" : StrCat(" ", base))), name);
      }
    }
  }
  CHECK_FALSE(Contains(s, "Decode(Encode(-42, 20))"));
  CHECK_FALSE(Contains(s, "--- PASS: TestRoundTrip/"));
}

TEST_CASE("test shaper: go test -v: alike failed subtests, the first as printed, the others listed by name once") {
  const std::string out = testing::ReadFixture("test", "go_subtests_verbose");
  const std::string s = Shape("go test -v ./...", 1, out);
  INFO(s);
  CHECK(s.starts_with("go test: FAILED — 1 failed, 2 passed (exit 1)\n"));
  CheckAlikeSubtests(s, "=== RUN   TestRoundTrip/base2/n=-1\n"
                        "    codec_test.go:18: Decode(Encode(-1, 2)) = 0 (encoded \"\")\n"
                        "… 35 more subtests failing like it");
  // Their results, listed again under the parent's "--- FAIL", are counted.
  CHECK_FALSE(Contains(s, "--- FAIL: TestRoundTrip/"));
}

TEST_CASE(
    "test shaper: go test -v: what the subtests that passed logged is counted, not listed as "
    "failures") {
  // tests/fixtures/test/go_subtests_logging: 40 subtests each log the row they import, 2 fail.
  const std::string out = testing::ReadFixture("test", "go_subtests_logging");
  const std::string s = Shape("go test -v ./...", 1, out);
  INFO(s);
  CHECK(s.starts_with(
      "go test: FAILED — 1 failed, 1 passed (exit 1)\n--- FAIL: TestParseRow (0.00s)\n"
      "=== RUN   TestParseRow/row_16\n"
      "    importer_test.go:18: importing A-016;2;16\n"
      "    importer_test.go:24: ParseRow(\"A-016;2;16\").Cents = 16, want 1600\n"));
  CHECK(Contains(
      s,
      "\n    --- FAIL: TestParseRow/row_16 (0.00s)\n    --- FAIL: TestParseRow/row_32 (0.00s)\n"));
  CHECK(Contains(s, "\n… 76 lines logged by subtests that passed omitted\n"));
  // No subtest that passed is named, nor said to fail like another.
  CHECK_FALSE(Contains(s, "failing like it"));
  for (int row = 1; row <= 40; ++row) {
    if (row == 16 || row == 32) continue;
    CHECK_MESSAGE(!Contains(s, StrCat("row_", row < 10 ? "0" : "", row)), row);
  }
}

TEST_CASE("test shaper: go test: alike failed subtests, the first as printed, the others listed by name once") {
  const std::string out = testing::ReadFixture("test", "go_subtests_failing");
  const std::string s = Shape("go test ./...", 1, out);
  INFO(s);
  CHECK(s.starts_with("go test: FAILED — 1 failed (exit 1)\n--- FAIL: TestRoundTrip ("));
  CheckAlikeSubtests(s, "    --- FAIL: TestRoundTrip/base2/n=-1 (0.00s)\n"
                        "        codec_test.go:18: Decode(Encode(-1, 2)) = 0 (encoded \"\")\n"
                        "… 35 more subtests failing like it");
  // Two alike are shown as printed: a list costs what they do.
  const std::string two = StrCat(out.substr(0, out.find("    --- FAIL: TestRoundTrip/base4/n=-1 ")),
                                 "FAIL\nFAIL\texample.com/codec/codec\t0.005s\nFAIL\n");
  const std::string t = Shape("go test ./...", 1, two);
  INFO(t);
  CHECK(Contains(t, "    --- FAIL: TestRoundTrip/base2/n=-42 (0.00s)\n"
                    "        codec_test.go:18: Decode(Encode(-42, 2)) = 0 (encoded \"\")\n"));
}

TEST_CASE("test shaper: pytest's warnings summary keeps each warning's location and message") {
  const std::string s = Shape("pytest tests_warnings", 1, testing::ReadFixture("test", "pytest_warnings_failing"));
  INFO(s);
  for (const char* warning :
       {"tests_warnings/test_legacy_api.py:24: DeprecationWarning: legacy_price() is deprecated; use parse_price()\n",
        "tests_warnings/test_legacy_api.py:29: UserWarning: lower-case region code 'fr'; use 'FR'\n",
        "tests_warnings/test_legacy_api.py:39: RuntimeWarning: JPY amounts have no minor unit; cents are dropped\n"}) {
    CHECK_MESSAGE(Contains(s, warning), warning);
  }
  // The code lines under them are counted.
  CHECK_FALSE(Contains(s, "\n    assert legacy_gross(\"10.00\", region) > Decimal(\"10.00\")\n"));
}

TEST_CASE("test shaper: a Rust backtrace keeps the test's own frames, the standard library's counted") {
  // RUST_BACKTRACE=1: numbered frames, most with their location under /rustc/ on the next line.
  const std::string out = testing::ReadFixture("test", "cargo_failing_backtrace");
  const std::string s = Shape("cargo test", 101, out);
  INFO(s);
  CHECK(Contains(s, "   4: textstats::stats::tests::median_even_length_averages_middle_pair\n"
                    "             at ./src/stats.rs:63:9\n"));
  CHECK_FALSE(Contains(s, "__rustc::rust_begin_unwind"));
  CHECK_FALSE(Contains(s, "core::panicking::panic_fmt"));
  CHECK_FALSE(Contains(s, "core::ops::function::FnOnce::call_once"));
  CHECK(Contains(s, " lines of library stack frames omitted\n"));
}

TEST_CASE("test shaper: pytest --tb=native keeps each failure's traceback: the user's frames and the exception") {
  const std::string s = Shape("pytest --tb=native tests", 1, testing::ReadFixture("test", "pytest_failing_native"));
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED — 5 failed, 2 errors, 31 passed, 1 skipped (exit 1)\n"));
  for (const char* kept :
       {"  File \"/tmp/plugline-fx/test/pricing/tests/test_discounts.py\", line 27, in test_discount_is_capped\n",
        "AssertionError: assert Decimal('20.00') == Decimal('50.00')\n",
        "  File \"/tmp/plugline-fx/test/pricing/pricing/tax.py\", line 16, in rate_for\n"
        "    return RATES[region]\n"
        "KeyError: 'de'\n",
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'/tmp/plugline-fx/test/pricing/tests/data/catalogue.json'\n"}) {
    CHECK_MESSAGE(s.find(kept) != std::string::npos, kept);
  }
  // The standard library's frames are counted, not shown.
  CHECK(s.find("/usr/lib/python3.11/pathlib.py") == std::string::npos);
}

TEST_CASE("test shaper: pytest's doctest failures keep the failing example and what it printed, not the docstring above it") {
  const std::string s = Shape("pytest --doctest-modules --doctest-continue-on-failure ledger", 1,
                              testing::ReadFixture("test", "pytest_doctest_continue"));
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED — 5 failed, 3 passed (exit 1)\n"
                      "________________________ [doctest] ledger.amounts.split ________________________\n"
                      "029     >>> split(100, 3)\nExpected:\n    [34, 33, 33]\nGot:\n    [33, 33, 33]\n"
                      "/tmp/plugline-fx/test/ledger/ledger/amounts.py:29: DocTestFailure\n"
                      "031     >>> split(10, 0)\n"
                      "UNEXPECTED EXCEPTION: ZeroDivisionError('integer division or modulo by zero')\n"));
  // The docstring's lines before the failing example are counted, and so is doctest's frame.
  CHECK_FALSE(Contains(s, "027     >>> split(100, 4)"));
  CHECK_FALSE(Contains(s, "/usr/lib/python3.11/doctest.py"));
  CHECK(Contains(s, "    -total       1,204.50\n    +total        1204.50\n"));
  CHECK(Contains(s, "025     >>> statement([])\nExpected nothing\nGot:\n    total           0.00\n"));
}

TEST_CASE("test shaper: Maven's Surefire failures keep the exception and the user's frames, its list and help counted") {
  const std::string s = Shape("mvn -o -B -DtrimStackTrace=false test", 1,
                              testing::ReadFixture("test", "maven_test_full_traces"));
  INFO(s);
  CHECK(s.starts_with("mvn: FAILED — 8 failed, 3 errors, 406 passed, 1 skipped (exit 1)\n"
                      "[ERROR] partsAddUp[36: split(2,221, 3)](shop.SplitTableTest)  Time elapsed: "));
  CHECK(Contains(s, "[ERROR] totalOfUnknownIsZero(shop.CartTest)  Time elapsed: 0 s  <<< ERROR!\n"
                    "java.lang.NullPointerException: Cannot invoke \"shop.Money.times(int)\" because the "
                    "return value of \"java.util.Map.get(Object)\" is null\n"
                    "\tat shop.Cart.total(Cart.java:25)\n"
                    "\tat shop.CartTest.totalOfUnknownIsZero(CartTest.java:35)\n"));
  // JUnit's, reflection's and Surefire's frames, and a cause's "... 33 more", are counted.
  CHECK_FALSE(Contains(s, "at org.junit."));
  CHECK_FALSE(Contains(s, "ForkedBooter"));
  CHECK_FALSE(Contains(s, "... 33 more"));
  CHECK(Contains(s, "Caused by: java.lang.AssertionError: expected:<0.34> but was:<0.33>\n"));
  // The Results list names the tests shown above: counted. Maven's help lines too.
  CHECK_FALSE(Contains(s, "[ERROR]   CartTest.countsUnits:19"));
  CHECK(Contains(s, "… 11 lines of the runner's list of failures omitted\n"));
  CHECK_FALSE(Contains(s, "[Help 1]"));
  CHECK(Contains(s, "\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin"));
  CHECK(Contains(s, "\n[ERROR] Tests run: 418, Failures: 8, Errors: 3, Skipped: 1\n[INFO] BUILD FAILURE\n"));

  const std::string passed = Shape("mvn test", 0, testing::ReadFixture("test", "maven_test_passing"));
  CHECK(passed.starts_with("mvn: passed — 2 passed · [INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0"));

  // Surefire 3 names a failure "class.method -- Time elapsed"; a list entry names it again.
  const std::string three = Shape("mvn test", 1,
      "[INFO] Running shop.CartTest\n"
      "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.01 s <<< FAILURE! -- in shop.CartTest\n"
      "[ERROR] shop.CartTest.countsUnits -- Time elapsed: 0.005 s <<< FAILURE!\n"
      "java.lang.AssertionError: expected:<3> but was:<2>\n"
      "\tat org.junit.Assert.fail(Assert.java:89)\n"
      "\tat shop.CartTest.countsUnits(CartTest.java:19)\n\n"
      "[INFO] Results:\n[INFO] \n[ERROR] Failures: \n"
      "[ERROR]   CartTest.countsUnits:19 expected:<3> but was:<2>\n[INFO] \n"
      "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE\n");
  INFO(three);
  CHECK(three.starts_with("mvn: FAILED — 1 failed, 1 passed (exit 1)\n"
                          "[ERROR] shop.CartTest.countsUnits -- Time elapsed: 0.005 s <<< FAILURE!\n"
                          "java.lang.AssertionError: expected:<3> but was:<2>\n"
                          "\tat shop.CartTest.countsUnits(CartTest.java:19)\n"));
  CHECK_FALSE(Contains(three, "[ERROR]   CartTest.countsUnits:19"));
}

TEST_CASE("test shaper: a coverage report the run printed is kept, its rows past 30 counted") {
  const std::string passing = Shape("pytest --cov=pricing tests/test_money.py", 0,
                                    testing::ReadFixture("test", "pytest_cov_passing"));
  CHECK(passing.starts_with("pytest: passed — 11 passed · 11 passed in 0.03s\n"
                            "---------- coverage: platform linux, python 3.11.2-final-0 -----------\n"
                            "Name                   Stmts   Miss  Cover\n"));
  CHECK(Contains(passing, "\npricing/cart.py           44     44     0%\n"));
  CHECK(Contains(passing, "\nTOTAL                     88     74    16%\n"));
  // The report follows the failures, not inside the last one's block.
  const std::string failing = Shape("pytest --cov=pricing tests/test_tax.py", 1,
                                    testing::ReadFixture("test", "pytest_cov_failing"));
  CHECK(failing.find("---------- coverage:") == failing.rfind("---------- coverage:"));
  CHECK(failing.find("E       KeyError: 'de'") < failing.find("---------- coverage:"));
  // A large istanbul table keeps its heading, "All files" and 30 rows; go's lines are kept.
  std::string jest = "PASS tests/a.test.js\n";
  jest += "----------|---------|----------|---------|---------|-------------------\n"
          "File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s \n"
          "----------|---------|----------|---------|---------|-------------------\n"
          "All files |   88.10 |    80.00 |   90.00 |   88.10 |                   \n";
  for (int i = 0; i < 45; ++i) StrAppend(&jest, " m", i, ".js  |   88.10 |    80.00 |   90.00 |   88.10 | 3-4\n");
  jest += "----------|---------|----------|---------|---------|-------------------\n"
          "Test Suites: 1 passed, 1 total\nTests:       3 passed, 3 total\n";
  const std::string j = Shape("npx jest --coverage", 0, jest);
  INFO(j);
  CHECK(Contains(j, "\nAll files |   88.10 |"));
  CHECK(Contains(j, "\n m29.js  |"));
  CHECK_FALSE(Contains(j, "\n m30.js  |"));
  CHECK(Contains(j, "\n… 15 more files' coverage rows omitted"));
  const std::string go = Shape("go test -cover ./...", 0,
                               "ok  \texample.com/app/money\t0.004s\tcoverage: 85.2% of statements\n"
                               "ok  \texample.com/app/tax\t0.003s\tcoverage: 100.0% of statements\n");
  CHECK(Contains(go, "\nok  \texample.com/app/money\t0.004s\tcoverage: 85.2% of statements\n"));
}

TEST_CASE("test shaper: a coverage table cut at its start by tail keeps its rows and totals") {
  // The last lines of tests/fixtures/test/pytest_cov_passing and jest_coverage_failing: rows of
  // the table, coverage.py's TOTAL or istanbul's closing rule, the runner's totals.
  const std::string py =
      Shape("pytest --cov=pricing 2>&1 | tail -8", 0, LastLines("test", "pytest_cov_passing", 8));
  INFO(py);
  CHECK(py.starts_with("pytest: passed"));
  CHECK(Contains(py, "\npricing/money.py          14      0   100%\n"));
  CHECK(Contains(py, "\nTOTAL                     88     74    16%\n"));
  const std::string js = Shape("npx jest --coverage 2>&1 | tail -12", 0,
                               LastLines("test", "jest_coverage_failing", 12));
  INFO(js);
  CHECK(js.starts_with("jest: FAILED"));
  CHECK(Contains(js, "\n config.js    |      75 |      100 |     100 |      75 | 7"));
  CHECK(Contains(js, "\n retry.js     |      80 |       80 |      50 |     100 | 13"));
  // Lines that only look like a row, with no table's end under them, are no table.
  const std::string plain =
      Shape("pytest 2>&1 | tail -3", 0,
            "pricing/money.py  14  0  100%\nnot a row\n"
            "============================== 11 passed in 0.03s ==============================\n");
  CHECK_FALSE(Contains(plain, "pricing/money.py"));
}

TEST_CASE("test shaper: what a jest test file logs is no failure: warnings and errors kept by their first line, the rest counted") {
  for (const char* name : {"jest_console_failing", "jest_console_inband"}) {
    const std::string out = testing::ReadFixture("test", name);
    const std::string s = Shape("npx jest", 1, out);
    INFO(s);
    CHECK_FALSE(Contains(s, "● Console"));
    CHECK_FALSE(Contains(s, "console.log"));
    CHECK_FALSE(Contains(s, "[batch] INV-1001 region=us amount=137.5"));
    const bool error_kept =
        Contains(s, "console.error\n      Error: card declined for INV-1007 (attempt 1)\n") ||
        Contains(s, "console.error\n    Error: card declined for INV-1007 (attempt 1)\n");
    CHECK(error_kept);
    CHECK(Contains(s, "[batch] INV-1016: currency rate is stale (fetched 26h ago)\n"));
    CHECK(Contains(s, " lines of console output omitted\n"));
    // Not the error's stack, nor the code frame under a warning.
    CHECK_FALSE(Contains(s, "at charge ("));
    CHECK_FALSE(Contains(s, "console.warn(`[batch]"));
    // A case of an assertion shown before keeps its own values.
    CHECK(Contains(s, "\n● invoice batch › prices INV-1020 - Received string:  \"€2,750.00\"\n"));
  }
}

TEST_CASE("test shaper: what a vitest test prints is no failure: its stderr blocks keep their heading and first line") {
  const std::string s = Shape("npx vitest run", 1, testing::ReadFixture("test", "vitest_console_failing"));
  INFO(s);
  CHECK(s.starts_with("vitest: FAILED — 2 failed, 5 passed (exit 1)\n"));
  CHECK(Contains(s, "stderr | tests/resolve.log.test.js > resolve > picks the highest version for >=1.2.0\n"
                    "[resolve] >=1.2.0: prerelease among candidates\n"));
  CHECK_FALSE(Contains(s, "stdout | "));
  CHECK_FALSE(Contains(s, "[resolve] ~1.1.0: 1 candidates (1.1.0)"));
  CHECK(Contains(s, "… 20 lines of console output omitted\n"));
}

TEST_CASE("test shaper: Gradle's test events: a block per failed test, its exception under it, totals and verdict kept") {
  const std::string s = Shape("gradle --offline --console=plain test", 1,
                              testing::ReadFixture("test", "gradle_test_failing"));
  INFO(s);
  CHECK(s.starts_with("gradle: FAILED — 3 failed, 7 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(s, "com.acme.billing.InvoiceTest > shortIdDoesNotCrash FAILED\n"
                    "    java.lang.StringIndexOutOfBoundsException at InvoiceTest.java:22\n"));
  CHECK(Contains(s, "com.acme.billing.TaxCalculatorTest > unknownCountryIsZero FAILED\n"
                    "    java.lang.NullPointerException at TaxCalculatorTest.java:15\n"));
  // javac's warnings by their heading; Gradle's reason kept, its hints counted.
  CHECK(Contains(s, "TaxCalculator.java:11: warning: [unchecked] unchecked call to put(K,V)"));
  CHECK_FALSE(Contains(s, "where K,V are type-variables:"));
  CHECK(Contains(s, "* What went wrong:\nExecution failed for task ':test'.\n"));
  CHECK_FALSE(Contains(s, "Run with --stacktrace"));
  CHECK(Contains(s, "\n11 tests completed, 3 failed, 1 skipped\n"));

  // testLogging with every event and full exceptions: passed tests counted, the library's frames
  // too, what a test wrote to stderr by its first line.
  const std::string v = Shape("gradle --offline --console=plain build -PverboseTests", 1,
                              testing::ReadFixture("test", "gradle_build_failing_verbose"));
  INFO(v);
  CHECK(v.starts_with("gradle: FAILED — 3 failed, 7 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(v, "    java.lang.AssertionError: expected:<2000> but was:<1999>\n"
                    "        at com.acme.billing.TaxCalculatorTest.roundsCents(TaxCalculatorTest.java:16)\n"));
  CHECK_FALSE(Contains(v, "at org.junit.Assert.fail("));
  CHECK_FALSE(Contains(v, " PASSED"));
  CHECK(Contains(v, "com.acme.billing.InvoicePrinterTest > printsTotalLine STANDARD_ERROR\n"
                    "    printed invoice INV-20: "));
}

TEST_CASE("test shaper: a pytest run the interpreter crashed in: the crash is its failure, the test's frame kept") {
  const std::string s = Shape("pytest tests_crash", 139, testing::ReadFixture("test", "pytest_crash_segfault"));
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED (exit 139: SIGSEGV)\ntests_crash/test_native_totals.py "
                      ".Fatal Python error: Segmentation fault\n"));
  CHECK(Contains(s, "tests_crash/test_native_totals.py\", line 19 in test_total_through_native_helper\n"));
  CHECK_FALSE(Contains(s, "dist-packages/"));
  CHECK_FALSE(Contains(s, "ctypes/__init__.py"));
  CHECK(Contains(s, " lines of library stack frames omitted\n"));
  // The progress line that marked the failures pytest never got to report.
  CHECK(Contains(s, "\ntests_crash/test_cents.py .F..F "));
}

TEST_CASE("test shaper: pytest's --durations table is kept, -rA's PASSED lines are counted") {
  const std::string d = Shape("pytest --durations=5 --durations-min=0 tests", 1,
                              testing::ReadFixture("test", "pytest_durations"));
  INFO(d);
  CHECK(Contains(d, "slowest 5 durations ="));
  size_t rows = 0;
  for (std::string_view line : core::SplitLines(d)) {
    if (line.find("s call     tests/") != std::string_view::npos ||
        line.find("s setup    tests/") != std::string_view::npos ||
        line.find("s teardown tests/") != std::string_view::npos) {
      ++rows;
    }
  }
  CHECK(rows == 5);
  const std::string a = Shape("pytest -rA tests/test_cart.py tests/test_money.py tests/test_tax.py", 1,
                              testing::ReadFixture("test", "pytest_report_all"));
  INFO(a);
  CHECK_FALSE(Contains(a, "\nPASSED "));
  CHECK(Contains(a, "\n… 22 passed tests omitted\n"));
  CHECK(Contains(a, "\nSKIPPED [1] tests/test_cart.py:47: multi-currency carts are not supported yet\n"));
}

TEST_CASE("test shaper: hspec is named, and each failure keeps the location printed above its number") {
  const std::string out = testing::ReadFixture("test", "hspec_failing");
  const std::string s = Shape("runghc -isrc test/Spec.hs", 1, out);
  INFO(s);
  CHECK(s.starts_with("hspec: FAILED — 7 failed, 1 skipped, 17 tests run (exit 1)\n"));
  // Each location goes with the failure under it, the first's too.
  CHECK(Contains(s, "  1) removeItem rejects unknown sku\n  test/Spec.hs:27:36: \n"));
  CHECK(Contains(s, "  2) totalValue sums price times quantity\n  test/Spec.hs:35:25: \n"));
}

TEST_CASE("test shaper: ExUnit: a block per failure with its values, Elixir's own frames and --trace's lines counted") {
  const std::string s = Shape("mix test --seed 0 test/cart_test.exs test/pricing_test.exs test/inventory_test.exs", 2,
                              testing::ReadFixture("test", "exunit_failing"));
  INFO(s);
  CHECK(s.starts_with("mix test: FAILED — 11 failed, 9 passed, 1 skipped (exit 2)\n"));
  CHECK(Contains(s, "  1) test percent coupon (Cart.PricingTest)\n     test/pricing_test.exs:14\n"));
  CHECK(Contains(s, "     left:  599\n     right: 600\n"));
  CHECK_FALSE(Contains(s, "(elixir 1.14.0) lib/"));
  CHECK(Contains(s, "\n21 tests, 11 failures, 1 skipped\n"));
  const std::string t = Shape("mix test --trace --seed 0", 2, testing::ReadFixture("test", "exunit_trace"));
  INFO(t);
  CHECK(t.starts_with("mix test: FAILED — 23 failed, 297 passed, 1 skipped (exit 2)\n"));
  CHECK_FALSE(Contains(t, "[L#"));
  for (int n = 1; n <= 23; ++n) CHECK_MESSAGE(Contains(t, StrCat(n < 10 ? "  " : " ", n, ") test ")), n);
}

TEST_CASE("test shaper: behave: a failed scenario with its step and error, an undefined step's too") {
  const std::string s = Shape("behave features/accounts.feature features/transfers.feature", 1,
                              testing::ReadFixture("test", "behave_failing"));
  INFO(s);
  CHECK(s.starts_with("behave: FAILED — 6 failed, 7 passed (exit 1)\n"));
  // The step whose location comment has a single space before it (the longest) is a step.
  CHECK(Contains(s, "# features/transfers.feature:23\n    Then the interest for 5000 at 3.5 percent over 7 months should be 102.09 # features/steps/bank_steps.py:45\n"));
  CHECK(Contains(s, "    When \"alice\" schedules a transfer of 100 to \"bob\" for \"2024-02-01\" # None\n"));
  CHECK_FALSE(Contains(s, "def step_impl(context):"));
  CHECK_FALSE(Contains(s, "Scenario: Deposit money"));
}

TEST_CASE("test shaper: cucumber-js: a block per failed scenario, its failed step and error, passed steps counted") {
  const std::string s = Shape("npx cucumber-js features/cart.feature", 1, testing::ReadFixture("test", "cucumber_failing"));
  INFO(s);
  CHECK(s.starts_with("cucumber: FAILED — 4 failed, 6 passed (exit 1)\n"));
  for (const char* id : {"1) Scenario: Coupon applied # features/cart.feature:13", "2) Scenario: Invalid coupon # features/cart.feature:19",
                         "3) Scenario: Remove missing item # features/cart.feature:24", "5) Scenario: Checkout # features/cart.feature:45"}) {
    CHECK_MESSAGE(Contains(s, StrCat(id, "\n")), id);
  }
  CHECK(Contains(s, "       90.99 !== 90\n"));
  CHECK_FALSE(Contains(s, "✔ Given an empty cart"));
  CHECK_FALSE(Contains(s, "return 'pending';"));
  CHECK(Contains(s, "\n11 scenarios (4 failed, 1 undefined, 6 passed)\n"));
}

TEST_CASE("test shaper: Minitest -v through head: its banner and the tests it marked failed") {
  // `rake test TESTOPTS=-v | head -30`: "Run options:", "# Running:", a line per test, "= F"
  // or "= E" for those that did not pass; no totals. Before, the generic shaper's
  // "rake test: exit 0 is head's, 30 lines".
  const std::string cut =
      testing::FirstLines(testing::ReadFixture("test", "minitest_failing_verbose"), 30);
  const std::string s = Shape("rake test TESTOPTS='--seed=4242 -v' | head -30", 0, cut);
  INFO(s);
  CHECK(
      s.starts_with("minitest: FAILED (shown through head: its end may be cut)\n"
                    "CartTest#test_count = 0.00 s = F\n"));
  CHECK(Contains(s, "\nCartTest#test_fetch_by_symbol = 0.00 s = E\n"));
  CHECK(Contains(s, "\n… 22 passed tests omitted\n"));
  // Known by its banner and its lines: this shaper, not the generic one, shapes it.
  auto match = MakeTestShaper()->Match("rake test TESTOPTS='--seed=4242 -v' | head -30", cut, 0);
  REQUIRE(match.ok());
  CHECK(match->matched);
  CHECK(match->confidence >= 0.85);
}

TEST_CASE("test shaper: a line that is a number alone is no RSpec totals line (found by fuzzing)") {
  const std::string s = Shape("rspec", 1, "42\n");
  CHECK(s.starts_with("rspec: no test results in the output (exit 1)\n"));
}

TEST_CASE("test shaper: an output cut before the runner's totals claims no pass, and keeps what failed") {
  // `pytest -v 2>&1 | head -40`: head's exit status 0, the failures' result lines but no report.
  const std::string full = testing::ReadFixture("test", "pytest_failing_verbose");
  std::string cut;
  size_t at = 0;
  for (int i = 0; i < 40; ++i) at = full.find('\n', at) + 1;
  cut = full.substr(0, at);
  std::string s = Shape("pytest -v 2>&1 | head -40", 0, cut);
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED (shown through head: its end may be cut)\n"));
  CHECK(Contains(s, "\ntests/test_receipt.py::test_receipt_lists_line_totals FAILED"));
  CHECK(Contains(s, "\ntests/test_catalog.py::test_catalog_lookup ERROR"));
  CHECK_FALSE(Contains(s, "passed —"));
  // Only passing lines, and no totals: no "passed" claim.
  std::string passing = "=== test session starts ===\n";
  for (int i = 0; i < 40; ++i) StrAppend(&passing, "tests/test_a.py::test_", i, " PASSED  [", i, "%]\n");
  s = Shape("pytest -v > log; cat log", 0, passing);
  CHECK(s.starts_with("pytest: no totals in the output (cut short?); in what it shows: 40 tests "
                      "passed, none failed\n"));
  // Through head, whatever the lines say (go test -v's first package, its result lines).
  std::string go = "?   \texample.com/app/cmd\t[no test files]\n";
  for (int i = 0; i < 30; ++i) StrAppend(&go, "=== RUN   TestA", i, "\n--- PASS: TestA", i, " (0.00s)\n");
  s = Shape("go test -v ./... | head -61", 0, go);
  INFO(s);
  CHECK(s.starts_with(
      "go test: shown through head (its end may be cut); in what it shows: 30 passed, none failed\n"));
}

TEST_CASE("test shaper: a run that only collects its tests says how many, and that none ran") {
  std::string listing;
  for (int i = 0; i < 60; ++i) StrAppend(&listing, "tests/test_m.py::test_a[", i, "]\n");
  std::string s = Shape("cd app && pytest --collect-only -q", 0,
                        StrCat(listing, "\n60 tests collected in 0.04s\n"));
  CHECK(s.starts_with("pytest: 60 tests collected in 0.04s, none run\n"));
  CHECK(Contains(s, "tests/test_m.py::test_a[0]\n"));
  s = Shape("pytest --co", 0,
            StrCat("=== test session starts ===\ncollected 1 item\n\n<Module test_a.py>\n"
                   "  <Function test_one>\n\n=== 1 test collected in 0.01s ===\n"));
  CHECK(s.starts_with("pytest: 1 test collected in 0.01s, none run\n"));
}

TEST_CASE("test shaper: pytest's tests in classes are headed by their full id, and nested explanations of values are counted") {
  const std::string s =
      Shape("pytest tests_classes", 1, testing::ReadFixture("test", "pytest_classes_failing"));
  INFO(s);
  // "____ TestCartTotals.test_quantity_merges ____" is "…::TestCartTotals::test_quantity_merges"
  // in the short summary: that line heads the failure, once.
  const std::string id = "FAILED tests_classes/test_cart_classes.py::TestCartTotals::test_quantity_merges\n";
  CHECK(Contains(s, id + ">       assert len(stocked_cart.lines) == 3\n"));
  CHECK(s.find(id) == s.rfind(id));
  CHECK_FALSE(Contains(s, "_ TestCartTotals.test_quantity_merges _"));
  // The first level of pytest's explanation stays, the level under it is counted.
  CHECK(Contains(s, "E        +  where 2 = len([Line(sku='PEN-1'"));
  CHECK_FALSE(Contains(s, "E        +    where [Line("));
  // Counted once for all the blocks shown.
  CHECK(Contains(s, ":60: AssertionError\n… 40 lines of source context and nested explanations of values omitted\n"));
}

TEST_CASE("test shaper: pytest -vv's full diff keeps its changes with two unchanged lines around them") {
  const std::string s =
      Shape("pytest -vv tests_classes", 1, testing::ReadFixture("test", "pytest_classes_vv"));
  INFO(s);
  CHECK(Contains(s, "E         Full diff:\n"
                    "… 16 unchanged lines of the diff omitted\n"
                    "E            'SKU-15 x1',\n"
                    "E            'SKU-16 x2',\n"
                    "E         -  'SKU-17 x2',\n"));
  CHECK(Contains(s, "E         +  'SKU-17 x3',\n"
                    "E         ?           ^\n"
                    "E            'SKU-18 x1',\n"
                    "E            'SKU-19 x2',\n"
                    "… 11 unchanged lines of the diff omitted\n"
                    "tests_classes/test_cart_classes.py:60: AssertionError\n"));
  CHECK_FALSE(Contains(s, "E            'SKU-14 x3',"));
  // A short diff stays whole.
  CHECK(Contains(s, "E         - 2.67\nE         ?    ^\nE         + 2.68\nE         ?    ^\n"));
}

TEST_CASE("test shaper: pytest's totals framed by fewer signs than usual are its totals") {
  const std::string s = Shape("pytest tests tests_warnings tests_classes", 1,
                              testing::ReadFixture("test", "pytest_three_dirs"));
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED — 11 failed, 3 errors, 40 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(s, "\n== 11 failed, 40 passed, 1 skipped, 1 xfailed, 7 warnings, 3 errors in "));
}

TEST_CASE("test shaper: pytest --tb=line's failures are their list lines, with the whole message "
          "and where it failed") {
  // tests/fixtures/test/pytest_tbline_quiet: `python3 -m pytest -q --tb=line tests`, pytest 7.2;
  // the short summary cuts three of the five messages ("AssertionError: ass...").
  const std::string s = Shape("python3 -m pytest -q --tb=line tests", 1,
                              testing::ReadFixture("test", "pytest_tbline_quiet"));
  INFO(s);
  CHECK(Contains(s, "\nFAILED tests/test_discounts.py::test_discount_is_capped - AssertionError: "
                    "assert Decimal('20.00') == Decimal('50.00') (at "
                    "/tmp/plugline-fx/test/pricing/tests/test_discounts.py:27)\n"));
  CHECK(Contains(s, "\nFAILED tests/test_discounts.py::test_tier_discount[10-5] - assert 0 == 5 "
                    "(at /tmp/plugline-fx/test/pricing/tests/test_discounts.py:35)\n"));
  CHECK(Contains(s, "\nFAILED tests/test_tax.py::test_region_codes_are_case_insensitive - "
                    "KeyError: 'de' (at /tmp/plugline-fx/test/pricing/pricing/tax.py:16)\n"));
  // Each message once: not again on a traceback line of its own, nor cut in the list.
  CHECK_FALSE(Contains(s, "\n/tmp/plugline-fx/test/pricing/tests/test_discounts.py:35: "));
  CHECK_FALSE(Contains(s, "AssertionError: ass...\n"));
  // The errors at setup, which have no such line, as before.
  CHECK(Contains(s, "\nERROR tests/test_catalog.py::test_catalog_lookup - "));
}

TEST_CASE("test shaper: a test AddressSanitizer stopped keeps its report, not the C library's "
          "start-up frames nor the shadow memory map") {
  // tests/fixtures/test/ctest_asan_failing: ctest --output-on-failure of a C program with a heap
  // use after free (clang 14, -fsanitize=address).
  const std::string s = Shape("ctest --test-dir build --output-on-failure", 8,
                              testing::ReadFixture("test", "ctest_asan_failing"));
  INFO(s);
  CHECK(s.starts_with("ctest: FAILED — 1 failed, 1 passed (exit 8)\n"));
  CHECK(Contains(s, "    #0 0x55a40437e24e in total /tmp/plugline-fx/test/orders/"
                    "orders-uaf.c:22:50\n"
                    "    #1 0x55a40437e053 in main /tmp/plugline-fx/test/orders/"
                    "orders-uaf.c:31:25\n"));
  CHECK(Contains(s, "\nSUMMARY: AddressSanitizer: heap-use-after-free "));
  CHECK(Contains(s, "lines of library stack frames and a sanitizer's shadow memory map omitted\n"));
  CHECK_FALSE(Contains(s, "__libc_start"));
  CHECK_FALSE(Contains(s, "redzone"));
  CHECK_FALSE(Contains(s, "Shadow byte"));
}

TEST_CASE("test shaper: a test binary's passing tests under ctest are counted, its failures shown") {
  const std::string s = Shape("ctest --test-dir build --output-on-failure", 8,
                              testing::ReadFixture("test", "ctest_binary_failing"));
  INFO(s);
  CHECK_FALSE(Contains(s, "[       OK ]"));
  CHECK(Contains(s, "\n[  FAILED  ] PolygonArea.ClockwiseTriangle (0 ms)\n"));
  CHECK(Contains(s, "lines of test binary banners omitted"));
}

TEST_CASE(
    "test shaper: cargo test cut at its list of failures keeps every name, and the end of the "
    "block above") {
  // The last 12 lines of tests/fixtures/test/cargo_failing: the end of the last failure's block
  // (its heading cut off), then cargo's second "failures:", the names, the totals.
  const std::string cut = LastLines("test", "cargo_failing", 12);
  REQUIRE(cut.find("---- ") == std::string::npos);
  const std::string s = Shape("cargo test 2>&1 | tail -12", 0, cut);
  INFO(s);
  CHECK(s.starts_with("cargo test: FAILED — 5 failed, 16 passed, 1 skipped\n"));
  for (const char* name :
       {"duration::tests::seconds_only", "stats::tests::median_even_length_averages_middle_pair",
        "stats::tests::percentile_100_is_max", "wrap::tests::breaks_at_spaces",
        "wrap::tests::indent_wider_than_width_panics"}) {
    CHECK(Contains(s, StrCat("\n    ", name, "\n")));
  }
  CHECK(Contains(s, "note: test did not panic as expected at src/wrap.rs:55:8"));
}

TEST_CASE("test shaper: pytest cut inside a collection error keeps its frame in the user's code") {
  // The last 12 lines of tests/fixtures/test/pytest_collection_error: the second error's
  // traceback (its heading cut off; no "path:line: Error" line ends a collection error's), the
  // short summary, the totals.
  const std::string cut = LastLines("test", "pytest_collection_error", 12);
  REQUIRE(cut.find("ERROR collecting") == std::string::npos);
  const std::string s = Shape("pytest 2>&1 | tail -12", 0, cut);
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED — 2 errors\n"));
  CHECK(Contains(s,
                 "\nlegacy_tests/test_shipping.py:3: in <module>\n    from pricing.shipping import "
                 "flat_rate\n"));
  CHECK(Contains(s, "\nE   ModuleNotFoundError: No module named 'pricing.shipping'\n"));
  CHECK(Contains(s, "\nERROR legacy_tests/test_shipping.py\n"));
}

TEST_CASE(
    "test shaper: a run filtered by grep keeps the lines that name its failures, and claims no "
    "pass") {
  // `… 2>&1 | grep -E 'FAILED|ERROR|Error|error'` over the fixtures' real output: the status is
  // grep's 0, the runner's structure mostly gone.
  auto filtered = [](const std::string& output) {
    std::string kept;
    for (std::string_view line : core::SplitLines(output)) {
      for (std::string_view word : {"FAILED", "ERROR", "Error", "error"}) {
        if (line.find(word) != std::string_view::npos) {
          StrAppend(&kept, line, "\n");
          break;
        }
      }
    }
    return kept;
  };
  const std::string filter = " 2>&1 | grep -E 'FAILED|ERROR|Error|error'";
  // cargo test: its "test x ... FAILED" lines are all that names the tests.
  const std::string cargo =
      Shape("cargo test" + filter, 0, filtered(testing::ReadFixture("test", "cargo_failing")));
  INFO(cargo);
  CHECK(cargo.starts_with("cargo test: FAILED — 5 failed, 16 passed, 1 skipped\n"));
  CHECK(
      Contains(cargo, "\ntest stats::tests::median_even_length_averages_middle_pair ... FAILED\n"));
  CHECK(Contains(cargo,
                 "\ntest wrap::tests::indent_wider_than_width_panics - should panic ... FAILED\n"));
  // AVA: its "✘ [fail]:" lines and what is left of the blocks; it said "passed" before.
  const std::string ava =
      Shape("npx ava" + filter, 0, filtered(testing::ReadFixture("test", "ava_failing")));
  INFO(ava);
  CHECK(ava.starts_with("ava: FAILED"));
  CHECK(Contains(ava, "  ✘ [fail]: parses a lowercase sku Error thrown in test\n"));
  CHECK(Contains(ava, "  Error: unknown discount code: \n"));
  // pytest: the short summary's entries under the ERRORS title and a setup error's heading.
  const std::string py =
      Shape("pytest tests" + filter, 0, filtered(testing::ReadFixture("test", "pytest_failing")));
  INFO(py);
  CHECK(py.starts_with("pytest: FAILED — "));
  for (const char* id : {"FAILED tests/test_discounts.py::test_tier_discount[10-5]",
                         "FAILED tests/test_tax.py::test_region_codes_are_case_insensitive",
                         "ERROR tests/test_catalog.py::test_catalog_lookup"}) {
    CHECK(Contains(py, id));
  }
}

TEST_CASE("test shaper: a run with results but no totals claims no pass, a line per test or not") {
  // cargo test stopped before any test's line (`timeout 60 cargo test`, a test that hangs): it
  // said how many tests it runs, nothing of them.
  const std::string out =
      "   Compiling textstats v0.1.0 (/app)\n"
      "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.61s\n"
      "     Running unittests src/lib.rs (target/debug/deps/textstats-1f2e3d4c5b6a7980)\n\n"
      "running 22 tests\n";
  const std::string s = Shape("timeout 60 cargo test", 0, out);
  INFO(s);
  CHECK(s.starts_with("cargo test: no totals in the output (cut short?)"));
  CHECK_FALSE(Contains(s.substr(0, s.find('\n')), ": passed"));
}

TEST_CASE("test shaper: GoogleTest cut inside a failed test keeps what it printed, under its verdict") {
  // The last 20 lines of tests/fixtures/test/gtest_failing: the end of ShapesFile.
  // AllAreasPositive's output (its "[ RUN      ]" line cut off), its verdict, the totals.
  const std::string s = Shape("./build/geom_tests 2>&1 | tail -20", 0,
                              LastLines("test", "gtest_failing", 20));
  INFO(s);
  CHECK(s.starts_with("googletest: FAILED — 5 failed, 12 passed, 1 skipped\n"));
  CHECK(Contains(s, "\n[  FAILED  ] ShapesFile.AllAreasPositive (0 ms)\nExpected: true\n"
                    "cannot open /tmp/plugline-fx/test/geom/tests/data/shapes.txt\n"));
}

TEST_CASE("test shaper: PHPUnit's testdox cut inside a failure keeps its diff and where it failed") {
  // The last 20 lines of tests/fixtures/test/phpunit_testdox_failing: the end of a failure's
  // block behind "│" (its "✘" line cut off), one more failure, the totals.
  const std::string s = Shape("phpunit --testdox tests 2>&1 | tail -20", 2,
                              LastLines("test", "phpunit_testdox_failing", 20));
  INFO(s);
  CHECK(Contains(s, "\n   │ -        1 => 3\n   │ +        1 => 4\n"));
  CHECK(Contains(s, "\n   │ /tmp/plugline-fx/test/money/tests/MoneyTest.php:30\n"));
  CHECK(Contains(s, "\n ✘ Divide by zero\n"));
}

TEST_CASE("test shaper: a runner's output cut below a failure's heading keeps the rest of it") {
  // Each fixture's last lines begin inside its last failure, the lines that name it cut off:
  // what is left of the failure stays, whatever the status (tail's 0).
  SUBCASE("Catch2: the assertion and its expansion, its FAILED: line cut off") {
    const std::string s =
        Shape("./stats_test 2>&1 | tail -8", 0, LastLines("test", "catch2_failing", 8));
    INFO(s);
    CHECK(s.starts_with("catch2: FAILED — 4 failed, 2 passed\n"));
    CHECK(Contains(s,
                   "\n  CHECK( clamp_all({-5, 3, 12}, 0, 10) == std::vector<int>{0, 3, 10} )\n"
                   "with expansion:\n  { 0, 3, 9 } == { 0, 3, 10 }\n"));
  }
  SUBCASE("Jasmine: the expectations and the spec's frame, its number and Message: cut off") {
    const std::string s =
        Shape("npx jasmine 2>&1 | tail -8", 0, LastLines("test", "jasmine_failing", 8));
    INFO(s);
    CHECK(s.starts_with("jasmine: FAILED — 4 failed, 5 passed\n"));
    CHECK(Contains(s, "Expected $[2] = 3 to equal 2."));
    CHECK(Contains(s, "spec/cart.spec.js:13:65"));
  }
  SUBCASE("Minitest: the test and its expected and actual values, its numbered heading cut off") {
    const std::string s =
        Shape("rake test 2>&1 | tail -12", 0, LastLines("test", "minitest_failing", 12));
    INFO(s);
    CHECK(s.starts_with("minitest: FAILED — 8 failed, 1 error, 1 skipped, 406 tests run\n"));
    CHECK(Contains(s,
                   "\nSlugTableTest#test_row_185 [/tmp/plugline-fx/test/cart-minitest/test/"
                   "slug_table_test.rb:13]:\nExpected: \"zeta-beta-185\"\n"
                   "  Actual: \"zeta--beta-185\"\n"));
  }
  SUBCASE("Catch2: a test case's heading cut inside, below its name") {
    const std::string s =
        Shape("./stats_test 2>&1 | tail -25", 0, LastLines("test", "catch2_failing", 25));
    INFO(s);
    CHECK(Contains(s, "\njoin\n"));
    CHECK(Contains(s, "\nstats_test.cpp:28: FAILED:\n"));
    CHECK(Contains(s, "\nclamp_all\n"));
    CHECK(Contains(s, "\nstats_test.cpp:33: FAILED:\n"));
  }
  SUBCASE("PHPUnit: the last failure's diff and where it failed, its number cut off") {
    const std::string s =
        Shape("phpunit tests 2>&1 | tail -15", 0, LastLines("test", "phpunit_failing", 15));
    INFO(s);
    CHECK(Contains(s, "\n-        1 => 3\n+        1 => 4\n"));
    CHECK(Contains(s, "\n/tmp/plugline-fx/test/money/tests/MoneyTest.php:30\n"));
  }
  SUBCASE("pytest --tb=native: a traceback's last frames and what was raised") {
    const std::string s = Shape("pytest --tb=native tests 2>&1 | tail -15", 0,
                                LastLines("test", "pytest_failing_native", 15));
    INFO(s);
    CHECK(Contains(s, "pricing/tax.py\", line 16, in rate_for\n"));
    CHECK(Contains(s, "\nKeyError: 'de'\n"));
  }
  SUBCASE("go test: a test's log above its --- FAIL, its === RUN cut off") {
    const std::string s =
        Shape("go test -json ./... 2>&1 | tail -10", 0, LastLines("test", "go_failing_json", 10));
    INFO(s);
    CHECK(Contains(s,
                   "--- FAIL: TestBucket (0.00s)\n"
                   "    stats_test.go:47: Bucket(10000) = \"large\", want \"huge\"\n"));
  }
  SUBCASE("RSpec: a file that failed to load, 'An error occurred while loading' cut off") {
    const std::string s =
        Shape("rspec spec_broken spec 2>&1 | tail -8", 0, LastLines("test", "rspec_load_error", 8));
    INFO(s);
    CHECK(s.starts_with("rspec: FAILED — 1 error, 0 tests run\n"));
    CHECK(Contains(s, "cannot load such file -- /tmp/plugline-fx/test/shop/lib/report\n"));
    CHECK(Contains(s, "# ./spec_broken/report_spec.rb:1:in `require_relative'\n"));
  }
  SUBCASE("hspec: the failures above its rerun hints, 'Failures:' cut off") {
    const std::string s = Shape("runghc -isrc test/Spec.hs 2>&1 | tail -40", 0,
                                LastLines("test", "hspec_failing", 40));
    INFO(s);
    CHECK(Contains(s, "       Falsified (after 3 tests):\n"));
    CHECK(Contains(s, "  To rerun use: --match \"/totalValue/scales with quantity/\"\n"));
  }
  SUBCASE("cucumber-js: a failed step's error and frame, the step cut off") {
    const std::string s = Shape("npx cucumber-js features/cart.feature 2>&1 | tail -50", 0,
                                LastLines("test", "cucumber_failing", 50));
    INFO(s);
    CHECK(Contains(s, "\n       90.99 !== 90\n"));
    CHECK(Contains(s, "features/step_definitions/cart_steps.js:12:59)\n"));
  }
  SUBCASE("bats: a failed test's diagnostics, its 'not ok' line cut off") {
    const std::string s = Shape("bats . 2>&1 | tail -60", 0, LastLines("test", "bats_failing", 60));
    INFO(s);
    CHECK(Contains(s, "\n# (in test file ./table.bats, line 53)\n"));
  }
  SUBCASE("pytest --tb=line: the one-line failures, FAILURES' title cut off") {
    const std::string s = Shape("python3 -m pytest -q --tb=line tests 2>&1 | tail -12", 0,
                                LastLines("test", "pytest_tbline_quiet", 12));
    INFO(s);
    CHECK(s.starts_with("pytest: FAILED — 5 failed, 2 errors, 31 passed, 1 skipped\n"));
    CHECK(Contains(s,
                   "\n/tmp/plugline-fx/test/pricing/tests/test_discounts.py:35: assert 5 == 10\n"));
    CHECK(Contains(s, "\n/tmp/plugline-fx/test/pricing/pricing/tax.py:16: KeyError: 'de'\n"));
  }
}

TEST_CASE(
    "test shaper: the runner's own word that the run failed is believed, its failures cut off") {
  SUBCASE("prove: 'Result: FAIL' under the summary report") {
    const std::string s =
        Shape("prove -Ilib t/ 2>&1 | tail -8", 0, LastLines("test", "prove_failing", 8));
    INFO(s);
    // No count of passed or failed tests: the failures are cut off. How many ran, said.
    CHECK(s.starts_with("prove: FAILED — 11 tests run\n"));
    CHECK(Contains(s, "\n  Parse errors: No plan found in TAP output\n"));
  }
  SUBCASE("cargo test: 'error: 2 targets failed:' after a crate's run that passed") {
    const std::string s =
        Shape("cargo test --no-fail-fast 2>&1 | tail -10", 0, LastLines("test", "cargo_large", 10));
    INFO(s);
    // What it counts of the failures first: the 2 passed are a crate's doc tests.
    CHECK(s.starts_with("cargo test: FAILED — 2 targets failed, 2 passed\n"));
    CHECK(Contains(s, "\nerror: 2 targets failed:\n    `--lib`\n    `--test table`\n"));
  }
  SUBCASE("behave: failed and undefined steps, the scenarios' line cut off") {
    const std::string s =
        Shape("behave features 2>&1 | tail -15", 0, LastLines("test", "behave_failing", 15));
    INFO(s);
    CHECK(s.starts_with("behave: FAILED — 42 steps passed, 5 failed, 2 skipped, 2 undefined\n"));
    CHECK(Contains(
        s, "@when(u'\"alice\" schedules a transfer of 100 to \"bob\" for \"2024-02-01\"')"));
  }
}

TEST_CASE("test shaper: a passing cargo test's header leaves out the totals of crates without tests") {
  std::string output;
  for (const auto& [name, n] : std::vector<std::pair<std::string, int>>{
           {"src/lib.rs (target/debug/deps/core-1)", 14}, {"src/main.rs (target/debug/deps/cli-2)", 0},
           {"tests/api.rs (target/debug/deps/api-3)", 3}}) {
    StrAppend(&output, "     Running ", name, "\n\nrunning ", n, n == 1 ? " test\n" : " tests\n");
    for (int i = 0; i < n; ++i) StrAppend(&output, "test t", i, " ... ok\n");
    StrAppend(&output, "\ntest result: ok. ", n, " passed; 0 failed; 0 ignored; 0 measured; 0 filtered "
              "out; finished in 0.00s\n\n");
  }
  StrAppend(&output, "   Doc-tests core\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 "
            "ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n");
  const std::string s = Shape("cargo test", 0, output);
  INFO(s);
  CHECK(s.starts_with("cargo test: passed — 17 passed · test result: ok. 14 passed; 0 failed; 0 "
                      "ignored; 0 measured; 0 filtered out; finished in 0.00s · test result: ok. 3 "
                      "passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"));
}

TEST_CASE("test shaper: a passing run keeps the runner's verdict in words and its package lines") {
  // prove's verdict lines count nothing, and still say how it ended.
  std::string s = Shape("prove t/", 0, testing::ReadFixture("test", "prove_passing"));
  INFO(s);
  CHECK(s.starts_with("prove: passed — 2 passed · All tests successful. · Files=1, Tests=2, "));
  CHECK(Contains(s.substr(0, s.find('\n')), " · Result: PASS"));
  // go test over twelve packages (a real run): a line each, under the header.
  const std::string many = testing::ReadFixture("test", "go_passing_many");
  s = Shape("go test ./...", 0, many);
  INFO(s);
  CHECK(s.starts_with("go test: passed\n" + many));
  // Over sixteen, the others counted.
  std::string more;
  for (int i = 1; i <= 30; ++i) StrAppend(&more, "ok  \texample.com/app/pkg", i, "\t0.01s\n");
  s = Shape("go test ./...", 0, more);
  INFO(s);
  CHECK(Contains(s, "ok  \texample.com/app/pkg16\t0.01s\n… 14 more lines like these"));
  CHECK_FALSE(Contains(s, "pkg17"));
}

TEST_CASE("test shaper: jest's coverage table printed right after the last failure is the coverage report, once") {
  const std::string s =
      Shape("npx jest --coverage", 1, testing::ReadFixture("test", "jest_coverage_failing"));
  INFO(s);
  const size_t first = s.find("File          | % Stmts");
  REQUIRE(first != std::string::npos);
  CHECK(s.find("File          | % Stmts", first + 1) == std::string::npos);
  CHECK(s.find("All files     |    92.1 |") != std::string::npos);
  // The last failure ends where the table starts: its rule is not part of it.
  CHECK(Contains(s, "\n● loadConfig › keeps defaults for missing keys\n"));
  CHECK(s.find("--------------|") > s.find("FAIL tests/config.test.js"));
}

TEST_CASE("test shaper: a diff's legend is shown once, and mocha's diff of values the message already shows is counted") {
  // jest: "- Expected  - 1" / "+ Received  + 1" before the first diff only.
  const std::string jest = Shape("npx jest", 1, testing::ReadFixture("test", "jest_failing"));
  INFO(jest);
  const size_t legend = jest.find("    - Expected  - 1\n    + Received  + 1\n");
  REQUIRE(legend != std::string::npos);
  CHECK(jest.find("+ Received", legend + 30) == std::string::npos);
  CHECK(Contains(jest, "    expect(received).toEqual(expected) // deep equality\n\n      Object {\n"
                       "        \"hours\": 1,\n    -   \"minutes\": 30,\n    +   \"minutes\": 0,\n"));

  // mocha: Node's assertion message has its diff ("+ actual - expected") or both values
  // ("3 !== 6"); mocha's own diff after it ("+ expected - actual") says it again.
  const std::string mocha = Shape("npx mocha", 4, testing::ReadFixture("test", "mocha_failing"));
  INFO(mocha);
  CHECK_FALSE(Contains(mocha, "+ expected - actual"));
  CHECK(Contains(mocha, "+ actual - expected\n\n  [\n+   'b',\n+   'c',\n-   'c',\n-   'a',\n    'd'\n  ]\n"
                        "      at Context.<anonymous> (test/lru.test.js:23:12)\n"));
  CHECK(Contains(mocha, "3 !== 6\n\n      at Context.<anonymous> (test/memoize.test.js:21:12)\n"));
  // Alone, mocha's diff is the values: kept.
  const std::string alone = Shape(
      "npx mocha", 1,
      "  0 passing (5ms)\n  1 failing\n\n  1) parse\n       reads a list:\n\n      AssertionError: expected [ 1 ] to deeply "
      "equal [ 1, 2 ]\n      + expected - actual\n\n       [\n         1\n      +  2\n       ]\n      \n"
      "      at Context.<anonymous> (test/parse.test.js:9:12)\n");
  INFO(alone);
  CHECK(Contains(alone, "      + expected - actual\n\n       [\n         1\n      +  2\n       ]\n"));
}

TEST_CASE(
    "test shaper: a runner's other reporters: mocha's JSON report read as its spec text, "
    "its TAP as TAP") {
  // tests/fixtures/test/mocha_json_failing, mocha_tap_failing: the run of mocha_failing, 4
  // failures (one a "before all" hook's), 7 passed, 2 pending.
  const std::string json =
      Shape("npx mocha --reporter json", 4, testing::ReadFixture("test", "mocha_json_failing"));
  INFO(json);
  CHECK(json.starts_with("mocha: FAILED — 4 failed, 7 passed, 2 skipped (exit 4)\n"));
  CHECK(Contains(
      json,
      "  1) LRUCache evicts the least recently used entry:\n"
      "     AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:\n"));
  CHECK(Contains(json, ") LRUCache persistence \"before all\" hook for \"restores entries\":\n"));
  CHECK(Contains(json, "at Context.<anonymous> (test/memoize.test.js:21:12)\n"));
  CHECK_FALSE(Contains(json, "\"fullTitle\""));
  const std::string tap =
      Shape("npx mocha --reporter tap", 4, testing::ReadFixture("test", "mocha_tap_failing"));
  INFO(tap);
  CHECK(tap.starts_with("mocha: FAILED — 4 failed, 7 passed, 2 skipped (exit 4)\n"));
  const std::string tap_out = testing::ReadFixture("test", "mocha_tap_failing");
  for (std::string_view line : core::SplitLines(tap_out)) {
    if (line.starts_with("not ok ")) CHECK_MESSAGE(Contains(tap, StrCat(line, "\n")), line);
  }
  // tests/fixtures/test/ava_tap_failing: AVA's TAP reporter (AVA is named by the command after
  // the others are).
  const std::string ava =
      Shape("npx ava --tap", 1, testing::ReadFixture("test", "ava_tap_failing"));
  INFO(ava);
  CHECK(ava.starts_with("ava: FAILED — 4 failed, 4 passed (exit 1)\n"));
}

TEST_CASE("test shaper: pytest --tb=short: the failing line under its location kept, the cases of one assertion a line each") {
  const std::string s =
      Shape("python3 -m pytest -q --tb=short tests_large", 1, testing::ReadFixture("test", "pytest_large_tbshort"));
  INFO(s);
  CHECK(s.starts_with("pytest: FAILED — 8 failed, 4,192 passed (exit 1)\n"
                      "FAILED tests_large/test_money_table.py::test_cents_roundtrip[-5] - AssertionE...\n"
                      "tests_large/test_money_table.py:13: in test_cents_roundtrip\n"
                      "    assert parse_price(cents_to_str(cents)) == Decimal(cents) / 100\n"
                      "E   AssertionError: assert Decimal('0.05') == (Decimal('-5') / 100)\n"));
  for (int c = 4; c >= 1; --c) {
    CHECK(Contains(s, StrCat("\nFAILED tests_large/test_money_table.py::test_cents_roundtrip[-", c,
                             "] - AssertionError: assert Decimal('0.0", c, "') == (Decimal('-", c, "') / 100)\n")));
  }
  CHECK(Contains(s, "\nFAILED tests_large/test_money_table.py::test_tier_table[50] - assert 5 == 10\n"
                    "FAILED tests_large/test_money_table.py::test_tier_table[100] - assert 10 == 15\n"
                    "… 8 more lines of these failures omitted, as in test_tier_table[10]\n"));
  // Each id once.
  for (std::string_view id : {"test_cents_roundtrip[-3]", "test_tier_table[100]"}) {
    CHECK(s.find(id) == s.rfind(id));
  }
}

TEST_CASE("test shaper: RSpec's and Minitest's cases of one assertion a line each, with both their values") {
  // RSpec quotes the failing line ("Failure/Error: expect(Slug.make(title)).to eq(want)"): the
  // cases of it after the first are its rerun command, its expected value and what it got.
  const std::string r = Shape("rspec --format documentation spec_large", 1, testing::ReadFixture("test", "rspec_large"));
  INFO(r);
  CHECK(Contains(r, "\n     # ./spec_large/slug_table_spec.rb:13:in `block (3 levels) in <top (required)>'\n"
                    "rspec ./spec_large/slug_table_spec.rb[1:111] # Slug.make makes gamma-gamma-110 from "
                    "\"Gamma  gamma 110\" - expected: \"gamma-gamma-110\" - got: \"gamma--gamma-110\"\n"));
  CHECK(Contains(r, "\n… 30 more lines of these failures omitted, as in Slug.make makes beta-theta-13 from "
                    "\"Beta  theta 13\"\n"));
  // Minitest names the assertion's place in brackets after the test's name: said once.
  const std::string m = Shape("rake test TESTOPTS=--seed=4242", 1,
                              testing::ReadFixture("test", "minitest_failing"));
  INFO(m);
  CHECK(Contains(m, "SlugTableTest#test_row_274 [/tmp/plugline-fx/test/cart-minitest/test/slug_table_test.rb:13]:\n"));
  CHECK(Contains(m, "\nSlugTableTest#test_row_96 - Expected: \"alpha-alpha-96\" - Actual: \"alpha--alpha-96\"\n"));
  CHECK(Contains(m, "\n… 4 more lines of these failures omitted, as in SlugTableTest#test_row_274\n"));
}

TEST_CASE("test shaper: PHPUnit's cases of one assertion, told by their frames, a line each") {
  const std::string s = Shape("phpunit tests_large", 1, testing::ReadFixture("test", "phpunit_large"));
  INFO(s);
  CHECK(Contains(s, "\n1) SplitTableTest::testSplitKeepsEveryCent with data set \"row 53\" (5303, 5)\n"
                    "Failed asserting that 5300 is identical to 5303.\n\n"
                    "/tmp/plugline-fx/test/money/tests_large/SplitTableTest.php:10\n"
                    "2) SplitTableTest::testSplitKeepsEveryCent with data set \"row 106\" (10603, 5) - "
                    "Failed asserting that 10600 is identical to 10603.\n"));
  CHECK(Contains(s, "\n9) SplitTableTest::testSplitKeepsEveryCent with data set \"row 477\" (47703, 5) - "
                    "Failed asserting that 47700 is identical to 47703.\n"
                    "… 16 more lines of these failures omitted, as in SplitTableTest::testSplitKeepsEveryCent "
                    "with data set \"row 53\" (5303, 5)\n"));
  // Failures at other places are not cases of one: the errors' frames differ.
  const std::string f = Shape("phpunit tests", 2, testing::ReadFixture("test", "phpunit_failing"));
  INFO(f);
  CHECK(Contains(f, "\n/tmp/plugline-fx/test/money/src/Money.php:4\n/tmp/plugline-fx/test/money/tests/MoneyTest.php:15\n"));
  CHECK(Contains(f, "\n/tmp/plugline-fx/test/money/src/Money.php:13\n/tmp/plugline-fx/test/money/tests/MoneyTest.php:33\n"));
  CHECK(Contains(f, "\n3) MoneyTest::testSplitKeepsTotal with data set \"seven\" (1000, 7) - Failed asserting that "
                    "994 is identical to 1000.\n"));
}

TEST_CASE("test shaper: GoogleTest's cases of one assertion a line each by their verdict, its closing list counted") {
  const std::string s = Shape("./build/geom_large_tests", 1, testing::ReadFixture("test", "gtest_large"));
  INFO(s);
  CHECK(Contains(s, "\n[  FAILED  ] Table/RegularPolygonArea.MatchesFormula/499, where GetParam() = 499 (0 ms)\n"
                    "[  FAILED  ] Table/RegularPolygonArea.MatchesFormula/999, where GetParam() = 999 (0 ms) - The "
                    "difference between geom::polygon_area(geom::regular_polygon(n, r, clockwise)) and expected is "
                    "15495.290626278631, which exceeds 1e-6, where - expected evaluates to 7747.6453131393164, and\n"));
  CHECK(Contains(s, "\n… 10 more lines of these failures omitted, as in Table/RegularPolygonArea.MatchesFormula/499, "
                    "where GetParam() = 499\n"));
  // "[  FAILED  ] Table/ParseTable.RoundTrips/249, where GetParam() = 249" again in the list: counted.
  CHECK(Contains(s, "\n… 5 lines of the runner's list of failures omitted\n"));
  for (std::string_view id : {"MatchesFormula/999,", "MatchesFormula/1499,", "RoundTrips/249,", "RoundTrips/499,"}) {
    CHECK_MESSAGE(s.find(id) == s.rfind(id), id);
  }
}

TEST_CASE("test shaper: unittest's subTest cases of one assertion: the first's traceback, the others a line each") {
  const std::string s = Shape("python3 -m unittest tests_subtests.test_units_table", 1,
                              testing::ReadFixture("test", "unittest_subtests_failing"));
  INFO(s);
  const std::string test = "FAIL: test_to_kg (tests_subtests.test_units_table.TestConvertTable.test_to_kg)";
  CHECK(Contains(s, test + " (value=1, unit='lb')\n  File \"/tmp/plugline-fx/test/inventory/tests_subtests/"
                           "test_units_table.py\", line 20, in test_to_kg\n"));
  CHECK(Contains(s, test + " (value=5, unit='lb') - AssertionError: 2.2727272727272725 != 2.26796185 within 4 "
                           "places (0.00476542272727265 difference)\n"));
  // The traceback once.
  CHECK(s.find("line 20, in test_to_kg") == s.rfind("line 20, in test_to_kg"));
  CHECK(Contains(s, "\n… 9 more lines of these failures omitted, as in test_to_kg"));
}

TEST_CASE("test shaper: vitest's cases of one assertion, located to the column, a line each after the first") {
  // vitest marks no line of its code frame: "❯ test/shipping.test.ts:13:34" names the assertion.
  std::string output = "\n RUN  v1.6.0 /w/shop\n\n ❯ test/shipping.test.ts  (7 tests | 3 failed) 10ms\n";
  const int cases[][2] = {{1000, 490}, {10000, 990}, {20000, 1290}};
  const int got[] = {690, 1590, 1990};
  for (int i = 0; i < 3; ++i) {
    StrAppend(&output, "   ❯ test/shipping.test.ts > shipping > ", cases[i][0], " g costs ", cases[i][1], "\n",
              "     → expected ", got[i], " to be ", cases[i][1], " // Object.is equality\n");
  }
  output += "\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests 3 ⎯⎯⎯⎯⎯⎯⎯\n\n";
  for (int i = 0; i < 3; ++i) {
    StrAppend(&output, " FAIL  test/shipping.test.ts > shipping > ", cases[i][0], " g costs ", cases[i][1], "\n",
              "AssertionError: expected ", got[i], " to be ", cases[i][1], " // Object.is equality\n\n",
              "- Expected\n+ Received\n\n- ", cases[i][1], "\n+ ", got[i], "\n\n",
              " ❯ test/shipping.test.ts:13:34\n", "     12|   ])(\"%i g costs %i\", (g, cents) => {\n",
              "     13|     expect(shippingFor(g).cents).toBe(cents);\n", "       |                                  ^\n",
              "     14|   });\n\n", "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[", i + 1, "/3]⎯\n\n");
  }
  output += " Test Files  1 failed (1)\n      Tests  3 failed | 4 passed (7)\n";
  const std::string s = Shape("npx vitest run", 1, output);
  INFO(s);
  CHECK(Contains(s, " FAIL  test/shipping.test.ts > shipping > 1000 g costs 490\n"
                    "AssertionError: expected 690 to be 490 // Object.is equality\n"));
  CHECK(Contains(s, "\nFAIL  test/shipping.test.ts > shipping > 10000 g costs 990 - AssertionError: expected 1590 "
                    "to be 990 // Object.is equality\n"
                    "FAIL  test/shipping.test.ts > shipping > 20000 g costs 1290 - AssertionError: expected 1990 "
                    "to be 1290 // Object.is equality\n"));
  CHECK(s.find("❯ test/shipping.test.ts:13:34") == s.rfind("❯ test/shipping.test.ts:13:34"));
}

TEST_CASE("test shaper: pytest's error in a fixture is headed by the list's ERROR line with its id, once") {
  const std::string s = Shape("pytest tests", 1, testing::ReadFixture("test", "pytest_failing"));
  INFO(s);
  // "____ ERROR at setup of test_catalog_lookup ____" is "ERROR tests/test_catalog.py::
  // test_catalog_lookup - …" in the short summary: that line heads the block.
  const std::string id = "tests/test_catalog.py::test_catalog_lookup";
  CHECK(Contains(s, "\nERROR " + id + " - FileNotFoundError: [Errno ...\n"));
  CHECK(s.find(id) == s.rfind(id));
  CHECK_FALSE(Contains(s, "_ ERROR at setup of test_catalog_lookup _"));
  const std::string other = "tests/test_catalog.py::test_catalog_prices_are_decimal";
  CHECK(s.find(other) == s.rfind(other));
}

TEST_CASE("test shaper: passed tests are said to be left out only when the output shows them") {
  // pytest's progress dots and jest's default report name no passed test: the totals count
  // them, and no marker claims the summary left out lines that were never there.
  for (const auto& [command, fixture] :
       {std::pair<std::string, std::string>{"pytest tests", "pytest_failing"},
        {"npx jest", "jest_failing"}}) {
    const std::string s = Shape(command, 1, testing::ReadFixture("test", fixture));
    INFO(s);
    CHECK(Contains(s.substr(0, s.find('\n')), " passed"));
    CHECK_FALSE(Contains(s, "passed tests omitted"));
  }
  // The run cut to its last 25 lines by tail, whose status is 0.
  const std::string cut = LastLines("test", "pytest_failing", 25);
  const std::string tail = Shape("pytest tests 2>&1 | tail -25", 0, cut);
  INFO(tail);
  CHECK(Contains(tail, "pytest: FAILED"));
  CHECK_FALSE(Contains(tail, "passed tests omitted"));
  // go test -v prints a line per passed test: those are left out, and counted.
  const std::string go =
      Shape("go test -v ./...", 1, testing::ReadFixture("test", "go_failing_verbose"));
  INFO(go);
  CHECK(Contains(go, " passed tests omitted\n"));
}

TEST_CASE("test: jest's failures stay under the line naming their file") {
  // tests/fixtures/test/jest_failing: "FAIL tests/duration.test.js" above both of its failures.
  const std::string s = Shape("npx jest", 1, testing::ReadFixture("test", "jest_failing"));
  INFO(s);
  CHECK(Contains(s, "FAIL tests/retry.test.js\n  ● retry › retries after failures\n"));
  CHECK(Contains(s, "FAIL tests/duration.test.js\n  ● parseDuration › single unit\n"));
  const size_t file = s.find("FAIL tests/duration.test.js\n");
  const size_t second = s.find("  ● parseDuration › hours and minutes\n");
  const size_t next = s.find("FAIL tests/config.test.js\n");
  CHECK(file < second);
  CHECK(second < next);
  // Each file line once.
  CHECK(s.find("FAIL tests/duration.test.js", file + 1) == std::string::npos);
}

TEST_CASE("test: bun test's evidence printed above a failing test's line goes under it") {
  // tests/fixtures/test/bun_failing: bun prints the source, the error and its stack, then
  // "(fail) name"; the summary heads each failure by its line, the failing source line kept.
  const std::string s = Shape("bun test", 1, testing::ReadFixture("test", "bun_failing"));
  INFO(s);
  CHECK(s.starts_with("bun test: FAILED — 7 failed, 15 passed, 2 skipped (exit 1)\n"));
  const size_t heading = s.find("(fail) applyDiscount > 995 cents less 10% is 896");
  REQUIRE(heading != std::string::npos);
  const size_t source =
      s.find("19 |     expect(applyDiscount(cents, percent)).toBe(want);", heading);
  const size_t values = s.find("Expected: 896\nReceived: 895\n", heading);
  const size_t where = s.find("test/pricing.test.ts:19:43", heading);
  CHECK(source < values);
  CHECK(values < where);
  // The next failure starts after this one's evidence.
  CHECK(where < s.find("(fail) fetchRate > unknown pair rejects"));
  // The source around the failing line is left out, counted.
  CHECK_FALSE(Contains(s, "18 |   ])(\"%i cents less %i%% is %i\""));
  CHECK(Contains(s, "lines of source context omitted"));
  // The file that failed to load, with its error.
  CHECK(Contains(s, "# Unhandled error between tests\nerror: Cannot find module '../src/import'"));
  // The timeout said after the stack is the failure's.
  CHECK(Contains(s, "pricing.test.ts:40:51)\n  ^ this test timed out after 200ms.\n"));
}

TEST_CASE("test: bun test on a terminal marks tests with ✓ and ✗") {
  // bun test's report when stdout is a terminal (recorded with `script`), colours removed.
  const std::string output =
      "bun test v1.4.5 (a7733435c)\n"
      "\n"
      "test/slug.test.ts:\n"
      "✓ slugify > lower-cases and joins words [2.26ms]\n"
      "8 |   test(\"folds accents\", () => {\n"
      "9 |     expect(slugify(\"Café Crème\")).toBe(\"cafe-creme\");\n"
      "                                      ^\n"
      "error: expect(received).toBe(expected)\n"
      "\n"
      "Expected: \"cafe-creme\"\n"
      "Received: \"caf-cr-me\"\n"
      "\n"
      "      at <anonymous> (/tmp/bunrun/test/slug.test.ts:9:35)\n"
      "✗ slugify > folds accents [8.17ms]\n"
      "✓ uniqueSlug > numbers a taken slug [0.20ms]\n"
      "\n"
      " 2 pass\n"
      " 1 fail\n"
      " 3 expect() calls\n"
      "Ran 3 tests across 1 file. [23.00ms]\n";
  const std::string s = Shape("bun test", 1, output);
  INFO(s);
  CHECK(s.starts_with("bun test: FAILED — 1 failed, 2 passed (exit 1)\n"));
  CHECK(Contains(s, "✗ slugify > folds accents [8.17ms]\n9 |     expect(slugify("));
  CHECK(Contains(s, "Received: \"caf-cr-me\""));
  CHECK_FALSE(Contains(s, "✓ uniqueSlug"));
}

TEST_CASE("test: deno test's errors are its failures, Deno's own frames counted") {
  // tests/fixtures/test/deno_failing: deno's ERRORS section heads each failure by its name and
  // where it is; its FAILURES section lists those headings again.
  std::string output = testing::ReadFixture("test", "deno_failing");
  std::string plain;  // deno colours its report; the pipeline removes the colours first
  REQUIRE(core::NormalizeTerminalOutput(output, &plain));
  const std::string s = Shape("deno test", 1, plain);
  INFO(s);
  CHECK(s.starts_with("deno test: FAILED — 7 failed, 10 passed, 1 skipped (exit 1)\n"));
  CHECK(Contains(s,
                 "applyDiscount: 995 cents less 10% is 896 => ./test/pricing_test.ts:9:8\n"
                 "error: AssertionError: Expected values to be strictly equal:\n\n895 !== 896\n"));
  // A step's failure keeps the test's own frames; the runner's (ext:cli/40_test.js) are counted.
  CHECK(Contains(s, "stock_test.ts:29:12\n    at file:///"));
  CHECK_FALSE(Contains(s, "ext:cli/40_test.js"));
  CHECK(Contains(s, "library stack frames omitted"));
  // The list under FAILURES repeats the headings shown: counted, not kept.
  CHECK(s.find("fetchRate rejects an unknown pair => ./test/pricing_test.ts:22:6") ==
        s.rfind("fetchRate rejects an unknown pair => ./test/pricing_test.ts:22:6"));
  CHECK(Contains(s, "FAILED | 10 passed (1 step) | 7 failed (1 step) | 1 ignored (2s)"));
}

TEST_CASE("test: deno test that failed its type check is left to the reader of its diagnostics") {
  // `deno test` (2.9.6) on a test module with a type error: no test ran.
  const std::string output =
      "Check a_test.ts\n"
      "TS2322 [ERROR]: Type 'number' is not assignable to type 'string'.\n"
      "Deno.test(\"adds\", () => { const s: string = add(1, 2); if (s !== \"3\") throw new "
      "Error(\"x\"); });\n"
      "                                ^\n"
      "    at file:///tmp/denotc/a_test.ts:2:33\n"
      "\n"
      "error: Type checking failed.\n"
      "\n"
      "  info: The program failed type-checking, but it still might work correctly.\n"
      "  hint: Re-run with --no-check to skip type-checking.\n";
  auto test = MakeTestShaper()->Match("deno test", output, 1);
  auto lint = MakeLintShaper()->Match("deno test", output, 1);
  REQUIRE(test.ok());
  REQUIRE(lint.ok());
  CHECK(lint->matched);
  CHECK(lint->confidence > (test->matched ? test->confidence : 0));
  // With test results, the test shaper's.
  std::string results;
  REQUIRE(core::NormalizeTerminalOutput(testing::ReadFixture("test", "deno_failing"), &results));
  CHECK(MakeTestShaper()->Match("deno test", results, 1)->confidence >= 0.95);
}

TEST_CASE("test: go test -json is read as the text its events carry, what go test -v prints") {
  // tests/fixtures/test/go_failing_json: the go_failing_verbose run with -json.
  const std::string output = testing::ReadFixture("test", "go_failing_json");
  const std::string s = Shape("go test -json ./...", 1, output);
  INFO(s);
  const auto lines = core::SplitLines(s);
  CHECK(lines[0] == "go test: FAILED — 3 failed, 7 passed, 1 skipped (exit 1)");
  for (std::string_view line : {"--- FAIL: TestWrapAround (0.00s)",
                                "panic: runtime error: index out of range [4] with length 4 "
                                "[recovered]",
                                "    --- FAIL: TestMedian/even (0.00s)",
                                "    stats_test.go:37: Median([4 1 3 2]) = 3, want 2.5",
                                "    stats_test.go:47: Bucket(10000) = \"large\", want \"huge\""}) {
    CHECK_MESSAGE(std::find(lines.begin(), lines.end(), line) != lines.end(), line);
  }
  for (std::string_view line : lines) CHECK_MESSAGE(!line.starts_with("{\""), line);
  // What the go command prints itself, between the events (a package that does not build),
  // is read as printed.
  const std::string built =
      "# example.com/app/stats [example.com/app/stats.test]\n"
      "stats/stats_test.go:9:2: undefined: Mean\n"
      "{\"Time\":\"2026-12-05T09:25:27Z\",\"Action\":\"output\","
      "\"Package\":\"example.com/app/stats\","
      "\"Output\":\"FAIL\\texample.com/app/stats [build failed]\\n\"}\n"
      "{\"Time\":\"2026-12-05T09:25:27Z\",\"Action\":\"fail\","
      "\"Package\":\"example.com/app/stats\","
      "\"Elapsed\":0}\n";
  const std::string b = Shape("go test -json ./...", 2, built);
  INFO(b);
  CHECK(Contains(b, "stats/stats_test.go:9:2: undefined: Mean"));
  CHECK(Contains(b, "FAIL\texample.com/app/stats [build failed]"));
  CHECK(!Contains(b, "\"Action\""));
}

TEST_CASE("test: go test's packages that did not build are counted in the header") {
  // tests/fixtures/test/go_build_failed: one test panics, two packages' tests do not compile.
  const std::string out = testing::ReadFixture("test", "go_build_failed");
  const std::string s = Shape("go test ./...", 2, out);
  INFO(s);
  CHECK(s.starts_with("go test: FAILED — 1 failed, 2 packages did not build (exit 2)\n"));
  CHECK(Contains(s, "FAIL\texample.com/invoicing/money [build failed]"));
  CHECK(Contains(s, "stats/report_test.go:6:9: assignment mismatch"));
  // Only packages that did not build: a failed run, not a pass.
  const std::string only =
      "# example.com/shop/price [example.com/shop/price.test]\n"
      "price/price_test.go:7:6: unused declared but not used\n"
      "ok  \texample.com/shop/cart\t0.002s\n"
      "FAIL\texample.com/shop/price [build failed]\n"
      "ok  \texample.com/shop/util\t(cached)\n"
      "FAIL\n";
  CHECK(Shape("go test ./...", 2, only).starts_with("go test: FAILED — 1 package did not build"));
  // A test that imports what cannot be found: its package could not be set up (go 1.19,
  // GOPROXY=off), which is no failure to build.
  const std::string setup =
      "go: finding module for package example.com/gs/missing\n"
      "# example.com/gs/a\n"
      "a/a_test.go:5:2: cannot find module providing package example.com/gs/missing: module "
      "lookup disabled by GOPROXY=off\n"
      "FAIL\texample.com/gs/a [setup failed]\n"
      "ok  \texample.com/gs/b\t0.002s\n"
      "FAIL\texample.com/gs/c [build failed]\n"
      "FAIL\n";
  CHECK(Shape("go test ./...", 1, setup)
            .starts_with("go test: FAILED — 1 package did not build, 1 package could not be set "
                         "up (exit 1)\n"));
}

}  // namespace
}  // namespace plugline::builtin

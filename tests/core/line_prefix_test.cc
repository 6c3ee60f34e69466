#include "core/line_prefix.h"

#include <string>

#include <doctest/doctest.h>

#include "test_util.h"

namespace plugline::core {
namespace {

using testing::PrefixLines;

struct Stripped {
  bool changed = false;
  std::string text, what;
};

Stripped Strip(std::string_view text) {
  Stripped s;
  s.changed = StripCarrierPrefixes(text, &s.text, &s.what);
  return s;
}

constexpr std::string_view kPytest =
    "============================= test session starts ==============================\n"
    "collected 3 items\n"
    "\n"
    "tests/test_cart.py .F.                                                   [100%]\n"
    "FAILED tests/test_cart.py::test_total - assert 11 == 12\n"
    "========================= 1 failed, 2 passed in 0.04s =========================\n";

TEST_CASE("a CI log's job, step and timestamp are removed from every line") {
  // `gh run view --log`: JOB<tab>STEP<tab> then the raw log line, whose first one has a BOM.
  const std::string log = PrefixLines(kPytest, [](int i) {
    return std::string("test (ubuntu-latest, 3.11)\t") + (i < 2 ? "Set up job" : "Run tests") +
           "\t" + (i == 0 ? "\xEF\xBB\xBF" : "") + "2026-12-06T01:18:3" + std::to_string(i) +
           ".123456" + std::to_string(i) + "Z ";
  });
  Stripped s = Strip(log);
  REQUIRE(s.changed);
  CHECK(s.text == kPytest);
  CHECK(s.what == "a CI log's job, step and timestamp");
  // A raw log (the runner's own file): the timestamp alone.
  s = Strip(PrefixLines(kPytest, [](int i) { return "2026-12-06T01:18:38.1234567Z "; }));
  REQUIRE(s.changed);
  CHECK(s.text == kPytest);
  CHECK(s.what == "a timestamp");
}

TEST_CASE("one service's name, with its colours, and a timestamp under it, are removed") {
  Stripped s = Strip(PrefixLines(kPytest, [](int) { return "app-1  | "; }));
  REQUIRE(s.changed);
  CHECK(s.text == kPytest);
  CHECK(s.what == "'app-1  |'");
  // docker compose logs -t, in a terminal: the name and bar coloured, then docker's timestamp.
  s = Strip(PrefixLines(kPytest, [](int i) {
    return "\x1b[36mapp-1  |\x1b[0m 2026-12-06T01:18:38.12345678" + std::to_string(i) + "Z ";
  }));
  REQUIRE(s.changed);
  CHECK(s.text == kPytest);
  CHECK(s.what == "'app-1  |' and a timestamp");
  // kubectl logs --prefix
  s = Strip(PrefixLines(kPytest, [](int) { return "[pod/web-7d9c8b5f4-x2k9q/app] "; }));
  REQUIRE(s.changed);
  CHECK(s.text == kPytest);
}

TEST_CASE("a prefix that is the program's own, or several services' names, stays") {
  auto each = [](const char* prefix) { return PrefixLines(kPytest, [&](int) { return prefix; }); };
  // A program's log timestamps (milliseconds) are part of its lines.
  CHECK_FALSE(Strip(each("2026-12-06T01:18:38.123Z ")).changed);
  CHECK_FALSE(Strip(each("2026-12-06T01:18:38.123456Z INFO ")).changed);
  // Two services interleaved: which line came from which matters.
  CHECK_FALSE(Strip(PrefixLines(kPytest, [](int i) { return i % 2 ? "db-1   | " : "web-1  | "; }))
                  .changed);
  // Fewer than 90% of the lines.
  const std::string some =
      PrefixLines(kPytest, [](int i) { return i < 3 ? "app-1  | " : ""; });
  CHECK_FALSE(Strip(some).changed);
  // Output without any prefix, a table whose first column varies, a markdown table.
  CHECK_FALSE(Strip(kPytest).changed);
  CHECK_FALSE(Strip("name  | size\nalpha | 1\nbeta  | 2\ngamma | 3\n").changed);
  CHECK_FALSE(Strip("| a | b |\n|---|---|\n| 1 | 2 |\n").changed);
  CHECK_FALSE(Strip("").changed);
}

TEST_CASE("lines without the prefix and blank lines are kept, and a redraw keeps its text") {
  std::string text;
  for (int i = 0; i < 20; ++i) text += "app-1  | line " + std::to_string(i) + "\n";
  text += "Attaching to app-1\n\n";
  // A runner's line that a carriage return redraws: the prefix is only at the line's start.
  text += "app-1  |   * test add/2 [L#15]\r  * test add/2 (0.01ms) [L#15]\r\n";
  Stripped s = Strip(text);
  REQUIRE(s.changed);
  CHECK(s.text.starts_with("line 0\nline 1\n"));
  CHECK(s.text.find("\nAttaching to app-1\n\n") != std::string::npos);
  CHECK(s.text.ends_with("\n  * test add/2 [L#15]\r  * test add/2 (0.01ms) [L#15]\r\n"));
}

}  // namespace
}  // namespace plugline::core

// The shaping window: what of an output is kept in memory, whatever its size.
#include "core/output_window.h"

#include <doctest/doctest.h>

#include <random>

#include "core/strings.h"
#include "core/text.h"
#include "core/tokens.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::Contains;

// The smallest window: 64 KiB, so head and tail 16 KiB, middle 32 KiB, 2,048 lines in all
// (512 for head and tail each, 1,024 for the middle).
constexpr uint64_t kWindow = kMinWindowBytes;

// "row 000001 ........\n": 32-byte lines, so byte and line limits meet at the same output.
std::string Rows(int from, int to, size_t width = 32) {
  std::string out;
  for (int i = from; i <= to; ++i) {
    std::string line = StrCat("row ", i, " ");
    line.resize(width - 1, '.');
    StrAppend(&out, line, "\n");
  }
  return out;
}

TEST_CASE("an output of exactly the window's size is kept whole, byte for byte") {
  auto counter = MakeEstimateTokenCounter();
  std::string output(kWindow, 'x');  // one line, no newline: bytes are the bound
  OutputWindow window(kWindow, counter.get());
  window.Append(output.substr(0, 1000));
  window.Append(output.substr(1000));
  CHECK(window.whole());
  std::string text = window.TakeText();
  CHECK(text == output);
  CHECK(window.bytes() == output.size());
  CHECK(window.lines() == 1);
  CHECK(window.tokens() == counter->Count(output));
  CHECK(window.kept_bytes() == output.size());
}

TEST_CASE("one byte more and the output is shaped from a window, the counts stay whole") {
  auto counter = MakeEstimateTokenCounter();
  // 2,048 lines of 32 bytes is exactly 64 KiB and exactly the line bound.
  std::string output = Rows(1, 2048);
  REQUIRE(output.size() == kWindow);
  {
    OutputWindow window(kWindow, counter.get());
    window.Append(output);
    CHECK(window.whole());
    CHECK(window.TakeText() == output);
  }
  output += "x";
  OutputWindow window(kWindow, counter.get());
  window.Append(output);
  CHECK_FALSE(window.whole());
  std::string text = window.TakeText();
  CHECK(window.bytes() == output.size());
  CHECK(window.lines() == 2049);
  CHECK(window.tokens() == counter->Count(output));
  // Head: whole lines up to a quarter of the window; tail: the last quarter; one marker.
  CHECK(text.starts_with(Rows(1, 512)));
  CHECK(text.ends_with(StrCat(Rows(1538, 2048), "x")));
  CHECK(Contains(text, "\n… 1,025 lines (32.0 KiB) omitted from the shaping window\nrow 1538 "));
  CHECK(window.head_bytes() == 512 * 32);
  CHECK(window.middle_lines() == 0);
  CHECK(window.kept_bytes() == 512 * 32 + 511 * 32 + 1);
}

TEST_CASE("many short lines: the window is bounded in lines as well as bytes") {
  auto counter = MakeEstimateTokenCounter();
  std::string output;
  for (int i = 0; i < 100000; ++i) output += "y\n";
  OutputWindow window(kWindow, counter.get());
  window.Append(output);
  CHECK_FALSE(window.whole());
  std::string text = window.TakeText();
  CHECK(CountLines(text) == 512 + 1 + 512);
  CHECK(Contains(text, "… 98,976 lines (193.3 KiB) omitted from the shaping window"));
  CHECK(window.lines() == 100000);
  CHECK(window.tokens() == counter->Count(output));
}

TEST_CASE("a failure block in the middle survives: the lines before it, the block, its frames") {
  std::string output = Rows(1, 3000);
  output +=
      "=================================== FAILURES ===================================\n"
      "___________________________________ test_b ____________________________________\n"
      "\n"
      "    def test_b():\n"
      ">       assert 1 + 1 == 3\n"
      "E       assert (1 + 1) == 3\n"
      "\n"
      "tests/test_a.py:5: AssertionError\n";
  output += Rows(3001, 3019);  // 19 lines: still the 20 after the last notable line
  output += "Traceback (most recent call last):\n";
  for (int i = 0; i < 40; ++i) {
    StrAppend(&output, "  File \"/app/mod", i, ".py\", line ", i + 1, ", in f", i, "\n");
  }
  output += "ValueError: bad input\n";
  output += Rows(3020, 6000);
  OutputWindow window(kWindow, nullptr);
  window.Append(output);
  std::string text = window.TakeText();
  CHECK(Contains(text, StrCat(Rows(2996, 3000), "=====")));  // 5 lines of context before
  CHECK(Contains(text, "E       assert (1 + 1) == 3\n\ntests/test_a.py:5: AssertionError\n"));
  CHECK(Contains(text, "  File \"/app/mod39.py\", line 40, in f39\nValueError: bad input\n"));
  CHECK(Contains(text, StrCat("ValueError: bad input\n", Rows(3020, 3039), "… ")));
  CHECK_FALSE(Contains(text, "row 3040 "));
  CHECK_FALSE(Contains(text, "row 2995 "));
  // A marker on each side of the kept middle.
  CHECK(Contains(
      text, StrCat(Rows(512, 512), "… 2,483 lines (77.6 KiB) omitted from the shaping window\n",
                   Rows(2996, 2996))));
}

TEST_CASE("a line longer than the window: the head and the tail keep its ends") {
  std::string output = StrCat("start ", std::string(300000, 'z'), " end\nlast line\n");
  OutputWindow window(kWindow, nullptr);
  for (size_t i = 0; i < output.size(); i += 7000) window.Append(output.substr(i, 7000));
  std::string text = window.TakeText();
  CHECK(window.lines() == 2);
  CHECK(text.starts_with("start zzz"));
  CHECK(text.ends_with("zzz end\nlast line\n"));
  CHECK(Contains(text, " omitted from the shaping window\n"));
  CHECK(text.size() <= kWindow);
}

TEST_CASE("a long notable line in the middle is kept cut, as summaries cut it") {
  std::string output = Rows(1, 1000);
  output += StrCat("error: ", std::string(20000, 'q'), " END\n");
  output += Rows(1001, 3000);
  OutputWindow window(kWindow, nullptr);
  window.Append(output);
  std::string text = window.TakeText();
  CHECK(Contains(text, "\nerror: qqqq"));
  CHECK(Contains(text, " bytes of this line omitted\n"));
  CHECK(Contains(text, "qq END\n"));
}

TEST_CASE("the middle has a bounded share: later trouble is counted, not kept") {
  std::string output = Rows(1, 600);
  for (int i = 0; i < 20000; ++i) StrAppend(&output, "error: failure number ", i, "\n");
  output += Rows(601, 1200);
  OutputWindow window(kWindow, nullptr);
  window.Append(output);
  std::string text = window.TakeText();
  CHECK(text.size() <= kWindow + 200);
  CHECK(CountLines(text) <= 2048 + 2);
  CHECK(Contains(text, "error: failure number 0\n"));
  CHECK_FALSE(Contains(text, "error: failure number 19999\n"));
  CHECK(text.ends_with(Rows(689, 1200)));
}

TEST_CASE("how the output is cut into chunks does not change the window") {
  std::string output = Rows(1, 5000, 40);
  output.insert(output.size() / 2, "fatal: something broke\n  at frame one\n  at frame two\n");
  OutputWindow whole(kWindow, nullptr);
  whole.Append(output);
  const std::string expected = whole.TakeText();
  std::mt19937 random(7);
  for (int round = 0; round < 5; ++round) {
    OutputWindow window(kWindow, nullptr);
    size_t at = 0;
    while (at < output.size()) {
      size_t n = std::uniform_int_distribution<size_t>(1, 90000)(random);
      window.Append(std::string_view(output).substr(at, n));
      at += n;
    }
    CHECK(window.TakeText() == expected);
  }
  CHECK(Contains(expected, "fatal: something broke\n  at frame one\n  at frame two\n"));
}

TEST_CASE("IsWindowGapLine knows the window's markers and nothing else") {
  CHECK(IsWindowGapLine("… 1,025 lines (32.0 KiB) omitted from the shaping window"));
  CHECK(IsWindowGapLine("… 3.0 MiB omitted from the shaping window"));
  CHECK_FALSE(IsWindowGapLine("… 12 lines omitted"));
  CHECK_FALSE(IsWindowGapLine("omitted from the shaping window"));
}

}  // namespace
}  // namespace plugline::core

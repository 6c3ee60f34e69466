#include "core/text.h"

#include <doctest/doctest.h>

namespace plugline::core {
namespace {

TEST_CASE("CountLines counts lines as people do") {
  CHECK(CountLines("") == 0);
  CHECK(CountLines("a") == 1);
  CHECK(CountLines("a\n") == 1);
  CHECK(CountLines("a\nb") == 2);
  CHECK(CountLines("a\nb\n") == 2);
  CHECK(CountLines("\n\n") == 2);
}

TEST_CASE("SplitLines drops terminators, CRLF included") {
  auto lines = SplitLines("one\r\ntwo\n\nthree");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "one");
  CHECK(lines[1] == "two");
  CHECK(lines[2] == "");
  CHECK(lines[3] == "three");
  CHECK(SplitLines("x\n").size() == 1);
  CHECK(SplitLines("").empty());
}

TEST_CASE("FormatCount groups thousands") {
  CHECK(FormatCount(0) == "0");
  CHECK(FormatCount(999) == "999");
  CHECK(FormatCount(1000) == "1,000");
  CHECK(FormatCount(3912) == "3,912");
  CHECK(FormatCount(12345) == "12,345");
  CHECK(FormatCount(123456) == "123,456");
  CHECK(FormatCount(1234567) == "1,234,567");
}

TEST_CASE("UTF-8 validation and repair") {
  CHECK(IsValidUtf8("plain ascii"));
  CHECK(IsValidUtf8("héllo wörld ✓ 🙂"));
  CHECK_FALSE(IsValidUtf8("\xff"));
  CHECK_FALSE(IsValidUtf8("\xe2\x9c"));        // truncated
  CHECK_FALSE(IsValidUtf8("\xed\xa0\x80"));    // a surrogate
  CHECK(SanitizeUtf8("héllo ✓") == "héllo ✓");
  CHECK(SanitizeUtf8("a\xff" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(SanitizeUtf8("a\xe2\x9c") == "a\xEF\xBF\xBD");  // one U+FFFD for the truncated sequence
  CHECK(IsValidUtf8(SanitizeUtf8("\xc0\x80\xf5\x80\x80\x80 \xe0\x80\x80")));
}

}  // namespace
}  // namespace plugline::core

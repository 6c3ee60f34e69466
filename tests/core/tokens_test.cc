#include "core/tokens.h"

#include <doctest/doctest.h>

namespace plugline::core {
namespace {

TEST_CASE("the estimate follows word, number and punctuation boundaries") {
  auto counter = MakeEstimateTokenCounter();
  CHECK(counter->name() == "estimate");
  CHECK(counter->Count("") == 0);
  CHECK(counter->Count("hello") == 1);
  CHECK(counter->Count("hello world") == 2);
  CHECK(counter->Count("a.b") == 3);
  CHECK(counter->Count("123456") == 2);
  CHECK(counter->Count("internationalization") == 3);  // long words split
  CHECK(counter->Count("ä") == 1);
}

TEST_CASE("the estimate is within a sensible band of real BPE counts on tool output") {
  // 79 characters of typical test-runner output: BPE vocabularies give about one token per
  // three to five characters here.
  auto counter = MakeEstimateTokenCounter();
  uint64_t n = counter->Count("FAILED tests/test_math.py::test_divide - ZeroDivisionError: division by zero");
  CHECK(n >= 16);
  CHECK(n <= 32);
}

TEST_CASE("a host counter is used as given") {
  auto counter = MakeFunctionTokenCounter([](std::string_view text) { return text.size() * 10; });
  CHECK(counter->name() == "host");
  CHECK(counter->Count("abc") == 30);
}

}  // namespace
}  // namespace plugline::core

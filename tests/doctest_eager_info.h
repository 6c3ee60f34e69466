// Forced into the test sources (-include) when they are compiled by clang older than 16, as the
// sanitizer builds are (clang 14): doctest's INFO()/CAPTURE() wrap their message in a lambda,
// and those clang versions cannot capture a structured binding in one, so
//   for (const auto& [text, expected] : cases) { CAPTURE(text); ... }
// does not compile there. Here the message is formatted when INFO()/CAPTURE() runs, into the
// same doctest stream machinery, and the context scope keeps the finished text: a failure shows
// the values as they were at the INFO()/CAPTURE() line rather than at the failure.
#ifndef PLUGLINE_TESTS_DOCTEST_EAGER_INFO_H_
#define PLUGLINE_TESTS_DOCTEST_EAGER_INFO_H_

#include <doctest/doctest.h>

#include <ostream>
#include <utility>

namespace plugline::testing {

class EagerInfoBuilder {
 public:
  EagerInfoBuilder(const char* file, int line)
      : builder_(file, line, doctest::assertType::is_warn) {}
  template <typename T>
  EagerInfoBuilder& operator*(const T& value) {
    builder_ * value;
    return *this;
  }
  template <typename T>
  EagerInfoBuilder& operator,(const T& value) {
    builder_, value;
    return *this;
  }
  template <typename T>
  EagerInfoBuilder& operator<<(const T& value) {
    builder_ << value;
    return *this;
  }
  // The text written so far; the builder's stream goes back to doctest.
  doctest::String Take() {
    builder_.logged = true;  // so that its destructor does not pop the stream again
    return doctest::detail::tlssPop();
  }

 private:
  doctest::detail::MessageBuilder builder_;
};

class EagerInfo {
 public:
  explicit EagerInfo(EagerInfoBuilder& builder) : text_(builder.Take()) {}
  void operator()(std::ostream* stream) const { *stream << text_; }

 private:
  doctest::String text_;
};

}  // namespace plugline::testing

#undef DOCTEST_INFO_IMPL
// The double parentheses keep the commas of CAPTURE()'s arguments operators, as in doctest.
#define DOCTEST_INFO_IMPL(mb_name, s_name, ...)                                      \
  auto DOCTEST_ANONYMOUS(DOCTEST_CAPTURE_) = doctest::detail::MakeContextScope(      \
      plugline::testing::EagerInfo((plugline::testing::EagerInfoBuilder(__FILE__, __LINE__) * \
                                    __VA_ARGS__)))

#endif  // PLUGLINE_TESTS_DOCTEST_EAGER_INFO_H_

// Splits one fuzz input into the fields a target needs. Fields are cut at '\n' so that seeds
// and saved crashes stay readable text ("pre_tool_call\n{\"arguments\":\"{}\"}"); a byte field
// takes one byte. Whatever is exhausted reads as empty (or 0): every input is a valid call.
#ifndef PLUGLINE_TESTS_FUZZ_FUZZ_INPUT_H_
#define PLUGLINE_TESTS_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace plugline::fuzz {

class FuzzInput {
 public:
  FuzzInput(const uint8_t* data, size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}

  // The next byte, 0 when none is left.
  uint8_t Byte() {
    if (rest_.empty()) return 0;
    uint8_t b = static_cast<uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return b;
  }

  // An exit code from one byte: 255 is "unknown" (a killed command), others are themselves.
  std::optional<int> ExitCode() {
    uint8_t b = Byte();
    if (b == 255) return std::nullopt;
    return static_cast<int>(b);
  }

  // Up to the next '\n' (which is consumed, not returned); everything left when there is none.
  std::string_view Line() {
    size_t newline = rest_.find('\n');
    std::string_view line = rest_.substr(0, newline);
    rest_.remove_prefix(newline == std::string_view::npos ? rest_.size() : newline + 1);
    return line;
  }

  // Everything not consumed yet.
  std::string_view Rest() {
    std::string_view rest = rest_;
    rest_ = {};
    return rest;
  }

 private:
  std::string_view rest_;
};

}  // namespace plugline::fuzz

#endif  // PLUGLINE_TESTS_FUZZ_FUZZ_INPUT_H_

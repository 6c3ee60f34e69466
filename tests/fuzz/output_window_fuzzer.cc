// The shaping window (core::OutputWindow): what `plugline run` keeps in memory of an output of
// any size. The input is a pattern repeated into an output larger than the smallest window, fed
// in chunks of fuzzer-chosen sizes, as a command's pipe delivers it.
//
// Input: byte 0: how many times the pattern repeats (times 16, up to 512 KiB in all); byte 1: the
// seed of the chunk sizes; the rest: the pattern.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/output_window.h"
#include "core/text.h"
#include "fuzz_check.h"

namespace {

constexpr uint64_t kWindow = plugline::core::kMinWindowBytes;
constexpr size_t kMaxOutput = 512u << 10;

struct Fed {
  std::string text;
  bool whole;
  uint64_t bytes, lines, kept, head, middle_lines, tail;
};

Fed Feed(std::string_view output, uint32_t seed) {
  plugline::core::OutputWindow window(kWindow, nullptr);
  size_t at = 0;
  while (at < output.size()) {
    size_t n = output.size() - at;
    if (seed != 0) {
      seed = seed * 1103515245u + 12345u;  // chunk sizes from 1 byte to 16 KiB, few tiny ones
      n = std::min<size_t>(n, 1 + (seed >> 8) % ((seed & 0x700) == 0 ? 64 : 16384));
    }
    window.Append(output.substr(at, n));
    at += n;
  }
  Fed fed;
  fed.whole = window.whole();
  fed.text = window.TakeText();
  fed.bytes = window.bytes();
  fed.lines = window.lines();
  fed.kept = window.kept_bytes();
  fed.head = window.head_bytes();
  fed.middle_lines = window.middle_lines();
  fed.tail = window.tail_bytes();
  return fed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plugline::core;
  if (size < 3) return 0;
  const std::string_view pattern(reinterpret_cast<const char*>(data) + 2, size - 2);
  const size_t repeats = std::min<size_t>(size_t{data[0]} * 16 + 1, kMaxOutput / pattern.size());
  std::string output;
  output.reserve(pattern.size() * repeats);
  for (size_t i = 0; i < repeats; ++i) output.append(pattern);

  const Fed whole = Feed(output, 0);
  // Every count is over the whole output.
  FUZZ_CHECK(whole.bytes == output.size());
  FUZZ_CHECK(whole.lines == CountLines(output));
  if (whole.whole) {
    // Kept whole: the shapers see every byte.
    FUZZ_CHECK(whole.text == output);
    FUZZ_CHECK(whole.kept == output.size());
  } else {
    FUZZ_CHECK(output.size() > kWindow || whole.lines > kWindow / 32);
    // Bounded: the window and its gap markers.
    FUZZ_CHECK(whole.text.size() <= kWindow + 4096);
    FUZZ_CHECK(whole.kept <= output.size());
    // The head is where the output starts, the tail where it ends.
    FUZZ_CHECK(whole.head + whole.tail <= output.size());
    FUZZ_CHECK(std::string_view(whole.text).starts_with(std::string_view(output).substr(0, whole.head)));
    FUZZ_CHECK(std::string_view(whole.text).ends_with(
        std::string_view(output).substr(output.size() - whole.tail)));
    // Something was left out, and a marker says so.
    FUZZ_CHECK(whole.text.find(" omitted from the shaping window") != std::string::npos);
  }

  // How the output arrives does not change what is kept.
  const Fed chunked = Feed(output, 0x9e3779b9u ^ data[1]);
  FUZZ_CHECK(chunked.whole == whole.whole);
  FUZZ_CHECK(chunked.bytes == whole.bytes);
  FUZZ_CHECK(chunked.lines == whole.lines);
  FUZZ_CHECK(chunked.kept == whole.kept);
  FUZZ_CHECK(chunked.head == whole.head);
  FUZZ_CHECK(chunked.middle_lines == whole.middle_lines);
  FUZZ_CHECK(chunked.tail == whole.tail);
  FUZZ_CHECK(chunked.text == whole.text);
  return 0;
}

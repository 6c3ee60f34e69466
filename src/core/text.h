// Text helpers shared by the pipeline and the shapers: lines, UTF-8, ANSI escapes, counts.
#ifndef PLUGLINE_CORE_TEXT_H_
#define PLUGLINE_CORE_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::core {

// True when `text` is valid UTF-8 (implemented with simdjson's validator in src/formats/).
bool IsValidUtf8(std::string_view text);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD (one per maximal invalid
// subpart, as the Unicode standard recommends). Valid input comes back unchanged.
std::string SanitizeUtf8(std::string_view text);

// Number of lines as a person counts them: "a\nb" and "a\nb\n" are both 2; "" is 0.
size_t CountLines(std::string_view text);

// Splits into lines without their terminators. "\r\n" counts as one terminator; a final
// terminator does not start an empty last line. The views point into `text`.
std::vector<std::string_view> SplitLines(std::string_view text);

// Output as a person saw it in a terminal, for shaping: ANSI escape sequences (colours,
// cursor movement, OSC titles and links) removed; carriage-return and backspace redraws
// applied, so a progress bar that redrew itself 500 times is one line showing its final
// state; "cursor up" redraws replace the lines they redraw; CRLF becomes LF. Returns false
// (and leaves *out untouched) when `text` needs none of this, which is the common case and
// costs one scan.
bool NormalizeTerminalOutput(std::string_view text, std::string* out);

// "3912" -> "3,912".
std::string FormatCount(uint64_t n);

// A byte count for people: "812 B", "14.2 KiB", "3.1 MiB".
std::string FormatBytes(uint64_t n);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_TEXT_H_

#include "core/text.h"

#include <cstdio>
#include <cstring>

#include "absl/strings/str_format.h"

namespace plugline::core {

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    // Expected length and the valid range of the second byte (Unicode Table 3-7).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c == 0xE0) {
      len = 3, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      len = 3;
    } else if (c == 0xED) {
      len = 3, hi = 0x9F;
    } else if (c == 0xF0) {
      len = 4, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      len = 4;
    } else if (c == 0xF4) {
      len = 4, hi = 0x8F;
    }
    if (len == 0) {
      out.append(kReplacement);
      ++i;
      continue;
    }
    size_t j = 1;
    for (; j < len && i + j < n; ++j) {
      unsigned char b = s[i + j];
      unsigned char blo = j == 1 ? lo : 0x80, bhi = j == 1 ? hi : 0xBF;
      if (b < blo || b > bhi) break;
    }
    if (j == len) {
      out.append(text.data() + i, len);
    } else {
      out.append(kReplacement);  // the maximal invalid subpart becomes one U+FFFD
    }
    i += j;
  }
  return out;
}

size_t CountLines(std::string_view text) {
  if (text.empty()) return 0;
  size_t lines = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))))) {
    ++lines;
    ++p;
  }
  if (text.back() != '\n') ++lines;
  return lines;
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    size_t content_end = end;
    if (content_end > start && text[content_end - 1] == '\r') --content_end;
    lines.push_back(text.substr(start, content_end - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

std::string FormatCount(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  size_t lead = digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && i >= lead && (i - lead) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string FormatBytes(uint64_t n) {
  if (n < 1024) return absl::StrFormat("%d B", n);
  if (n < 1024 * 1024) return absl::StrFormat("%.1f KiB", n / 1024.0);
  if (n < 1024ull * 1024 * 1024) return absl::StrFormat("%.1f MiB", n / (1024.0 * 1024));
  return absl::StrFormat("%.1f GiB", n / (1024.0 * 1024 * 1024));
}

}  // namespace plugline::core

namespace plugline::core {
namespace {

// Applies one line's carriage returns and backspaces the way a terminal would: text after a
// CR overwrites from column 0, a backspace moves one character left. Works on bytes of UTF-8
// by whole characters.
void AppendRedrawnLine(std::string_view line, std::string* out) {
  if (line.find_first_of("\r\b") == std::string_view::npos) {
    out->append(line);
    return;
  }
  // Columns as UTF-8 characters.
  std::vector<std::string_view> cells;
  size_t cursor = 0;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == '\r') {
      cursor = 0;
      ++i;
      continue;
    }
    if (c == '\b') {
      if (cursor > 0) --cursor;
      ++i;
      continue;
    }
    size_t len = 1;
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0xC0) {
      len = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : 2;
      if (i + len > line.size()) len = line.size() - i;
    }
    std::string_view cell = line.substr(i, len);
    if (cursor < cells.size()) {
      cells[cursor] = cell;
    } else {
      cells.push_back(cell);
    }
    ++cursor;
    i += len;
  }
  for (std::string_view cell : cells) out->append(cell);
}

// Length of the escape sequence starting at text[i] == '\x1b' (at least 1), and, for
// "cursor up" (ESC [ n A / ESC [ n F), how many lines it moves up.
constexpr int kMaxLinesUp = 1 << 30;

size_t EscapeLength(std::string_view text, size_t i, int* lines_up) {
  *lines_up = 0;
  if (i + 1 >= text.size()) return 1;
  char kind = text[i + 1];
  if (kind == '[') {  // CSI: parameters and intermediates, then one final byte 0x40-0x7e
    size_t j = i + 2;
    int n = 0;
    bool digits = false;
    while (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x20 &&
           static_cast<unsigned char>(text[j]) <= 0x3f) {
      if (text[j] >= '0' && text[j] <= '9') {
        // Saturates: moving up more lines than there are moves to the top.
        n = n > kMaxLinesUp / 10 ? kMaxLinesUp : std::min(kMaxLinesUp, n * 10 + (text[j] - '0'));
        digits = true;
      }
      ++j;
    }
    while (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x20 &&
           static_cast<unsigned char>(text[j]) <= 0x2f) {
      ++j;
    }
    if (j >= text.size()) return text.size() - i;
    if (text[j] == 'A' || text[j] == 'F') *lines_up = digits ? n : 1;
    return j + 1 - i;
  }
  if (kind == ']' || kind == 'P' || kind == '_' || kind == '^') {
    // OSC / DCS / APC / PM: up to BEL or ST (ESC \).
    size_t j = i + 2;
    while (j < text.size()) {
      if (text[j] == '\a') return j + 1 - i;
      if (text[j] == '\x1b' && j + 1 < text.size() && text[j + 1] == '\\') return j + 2 - i;
      ++j;
    }
    return text.size() - i;
  }
  if (kind == '(' || kind == ')' || kind == '#' || kind == '%') return std::min<size_t>(3, text.size() - i);
  return 2;  // ESC followed by one character (ESC 7, ESC 8, ESC M, ...)
}

}  // namespace

bool NormalizeTerminalOutput(std::string_view text, std::string* out) {
  // Three memchr scans are much faster than one find_first_of over large outputs.
  if (std::memchr(text.data(), '\x1b', text.size()) == nullptr &&
      std::memchr(text.data(), '\r', text.size()) == nullptr &&
      std::memchr(text.data(), '\b', text.size()) == nullptr) {
    return false;
  }
  std::string result;
  result.reserve(text.size());
  std::string line;  // the current line without escapes, before redraws are applied
  // Start offsets of the lines completed so far in `result`, for "cursor up" redraws.
  std::vector<size_t> line_starts;
  auto finish_line = [&](bool newline) {
    if (!line.empty() && line.back() == '\r' && newline) line.pop_back();  // CRLF
    line_starts.push_back(result.size());
    AppendRedrawnLine(line, &result);
    if (newline) result.push_back('\n');
    line.clear();
  };
  size_t i = 0;
  const char* data = text.data();
  const size_t size = text.size();
  while (i < size) {
    // The next newline or escape, scanning with memchr for each (much faster than a
    // character-by-character find_first_of on large outputs).
    const char* nl = static_cast<const char*>(std::memchr(data + i, '\n', size - i));
    const char* esc = static_cast<const char*>(std::memchr(data + i, '\x1b', (nl ? nl : data + size) - (data + i)));
    size_t next = esc ? static_cast<size_t>(esc - data)
                      : (nl ? static_cast<size_t>(nl - data) : std::string_view::npos);
    if (next == std::string_view::npos) {
      line.append(text.substr(i));
      break;
    }
    line.append(text.substr(i, next - i));
    if (text[next] == '\n') {
      finish_line(true);
      i = next + 1;
      continue;
    }
    int up = 0;
    size_t length = EscapeLength(text, next, &up);
    if (up > 0 && line.find_first_not_of(" \t\r") == std::string::npos) {
      // The lines above are about to be redrawn: drop them (the redraw replaces them).
      size_t drop = std::min<size_t>(static_cast<size_t>(up), line_starts.size());
      if (drop > 0) {
        result.resize(line_starts[line_starts.size() - drop]);
        line_starts.resize(line_starts.size() - drop);
      }
      line.clear();
    }
    i = next + length;
  }
  if (!line.empty()) finish_line(false);
  *out = std::move(result);
  return true;
}

}  // namespace plugline::core

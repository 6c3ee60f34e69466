#include "core/text.h"

#include <cstdio>

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
  for (char c : text) lines += c == '\n';
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

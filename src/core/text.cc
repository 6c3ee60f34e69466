#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace plugline::core {
namespace {

// What a UTF-8 lead byte (>= 0x80) promises: the sequence's length (0: not a lead byte) and the
// valid range of its second byte (Unicode Table 3-7); later bytes are 0x80-0xBF.
struct Utf8Lead {
  size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;
};
Utf8Lead Utf8LeadOf(unsigned char c) {
  if (c >= 0xC2 && c <= 0xDF) return {2};
  if (c == 0xE0) return {3, 0xA0};
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return {3};
  if (c == 0xED) return {3, 0x80, 0x9F};
  if (c == 0xF0) return {4, 0x90};
  if (c >= 0xF1 && c <= 0xF3) return {4};
  if (c == 0xF4) return {4, 0x80, 0x8F};
  return {};
}

}  // namespace

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
    const auto [len, lo, hi] = Utf8LeadOf(c);
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

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
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

std::string ExitText(int code) {
  struct Signal {
    int number;
    const char* name;
  };
  static constexpr Signal kEnding[] = {{2, "SIGINT"},  {4, "SIGILL"},   {6, "SIGABRT"},
                                       {7, "SIGBUS"},  {8, "SIGFPE"},   {9, "SIGKILL"},
                                       {11, "SIGSEGV"}, {13, "SIGPIPE"}, {15, "SIGTERM"}};
  for (const Signal& s : kEnding) {
    if (code == 128 + s.number) return absl::StrCat("exit ", code, ": ", s.name);
  }
  return absl::StrCat("exit ", code);
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
// In a line being redrawn (NormalizeTerminalOutput), ESC stands for a cursor move or an
// erase the escapes asked for: ESC 'G' and the column's digits, then ';' (ESC [ n G: to column
// n); ESC 'K' (ESC [ K: erase to the end of the line); ESC 'k' (ESC [ 2 K: erase the line).
constexpr char kMark = '\x1b';

void AppendRedrawnLine(std::string_view line, std::string* out) {
  if (line.find_first_of("\r\b\x1b") == std::string_view::npos) {
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
    if (c == kMark && i + 1 < line.size()) {
      const char what = line[i + 1];
      i += 2;
      if (what == 'G') {
        size_t column = 0;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
          column = std::min<size_t>(column * 10 + static_cast<size_t>(line[i] - '0'), 4096);
          ++i;
        }
        if (i < line.size() && line[i] == ';') ++i;
        cursor = column > 0 ? column - 1 : 0;
        while (cells.size() < cursor) cells.emplace_back();  // a move past the end: blank
      } else if (what == 'K') {
        if (cursor < cells.size()) cells.resize(cursor);
      } else if (what == 'k') {
        cells.assign(std::min(cursor, cells.size()), std::string_view());
      }
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
  // Blank cells (erased, or skipped by a move) show as spaces before text, none after it.
  while (!cells.empty() && cells.back().empty()) cells.pop_back();
  for (std::string_view cell : cells) {
    if (cell.empty()) {
      out->push_back(' ');
    } else {
      out->append(cell);
    }
  }
}

// Where a control string (OSC, DCS, SOS, PM, APC) whose body starts at text[j] ends: just
// after BEL, ST (ESC \\) or ST in its C1 form (U+009C); the end of the text when unterminated.
size_t ControlStringEnd(std::string_view text, size_t j) {
  while (j < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[j]);
    if (c == '\a') return j + 1;
    if (c == 0x1b && j + 1 < text.size() && text[j + 1] == '\\') return j + 2;
    if (c == 0xC2 && j + 1 < text.size() && static_cast<unsigned char>(text[j + 1]) == 0x9C) {
      return j + 2;
    }
    ++j;
  }
  return text.size();
}

// Where a CSI whose parameters start at text[j] ends (just after its final byte 0x40-0x7e),
// and, for "cursor up" (CSI n A / CSI n F), how many lines it moves up.
size_t CsiEnd(std::string_view text, size_t j, int* lines_up) {
  int n = 0;
  bool digits = false;
  while (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x20 &&
         static_cast<unsigned char>(text[j]) <= 0x3f) {
    // The count saturates: moving up more lines than there are moves to the top.
    if (text[j] >= '0' && text[j] <= '9' && n < 100000) {
      n = n * 10 + (text[j] - '0');
      digits = true;
    }
    ++j;
  }
  while (j < text.size() && static_cast<unsigned char>(text[j]) >= 0x20 &&
         static_cast<unsigned char>(text[j]) <= 0x2f) {
    ++j;
  }
  if (j >= text.size()) return text.size();
  if (text[j] == 'A' || text[j] == 'F') *lines_up = digits ? n : 1;
  return j + 1;
}

// Length of the escape sequence starting at text[i] == '\x1b' (at least 1), and, for
// "cursor up" (ESC [ n A / ESC [ n F), how many lines it moves up.
size_t EscapeLength(std::string_view text, size_t i, int* lines_up) {
  *lines_up = 0;
  if (i + 1 >= text.size()) return 1;
  char kind = text[i + 1];
  if (kind == '[') return CsiEnd(text, i + 2, lines_up) - i;  // CSI
  if (kind == ']' || kind == 'P' || kind == 'X' || kind == '_' || kind == '^') {
    return ControlStringEnd(text, i + 2) - i;  // OSC / DCS / SOS / APC / PM, up to BEL or ST
  }
  if (kind == '(' || kind == ')' || kind == '#' || kind == '%') return std::min<size_t>(3, text.size() - i);
  return 2;  // ESC followed by one character (ESC 7, ESC 8, ESC M, ...)
}

// Length of a C1 control in its UTF-8 form (U+0080-U+009F, bytes C2 80-C2 9F) at text[i],
// with the sequence it opens: U+009B a CSI, U+0090/U+0098/U+009D/U+009E/U+009F a DCS, SOS,
// OSC, PM or APC string.
size_t C1Length(std::string_view text, size_t i) {
  const unsigned char code = static_cast<unsigned char>(text[i + 1]);
  int lines_up = 0;
  if (code == 0x9B) return CsiEnd(text, i + 2, &lines_up) - i;
  if (code == 0x90 || code == 0x98 || code == 0x9D || code == 0x9E || code == 0x9F) {
    return ControlStringEnd(text, i + 2) - i;
  }
  return 2;
}

}  // namespace

bool LooksBinary(std::string_view text) {
  constexpr size_t kLooked = 8 * 1024;
  const std::string_view head = text.substr(0, kLooked);
  size_t odd = 0;
  for (size_t i = 0; i < head.size();) {
    const auto c = static_cast<unsigned char>(head[i]);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(head, i);
      // A sequence the look's end cut is text.
      if (n == 0 && head.size() - i >= 4) ++odd;
      i += n == 0 ? 1 : n;
      continue;
    }
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b && c != '\b' && c != '\f') ||
        c == 0x7f) {
      ++odd;
    }
    ++i;
  }
  return odd * 10 > head.size();
}

size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto [len, lo, hi] = Utf8LeadOf(static_cast<unsigned char>(text[i]));
  if (len == 0 || i + len > text.size()) return 0;
  for (size_t j = 1; j < len; ++j) {
    const unsigned char b = static_cast<unsigned char>(text[i + j]);
    if (b < (j == 1 ? lo : 0x80) || b > (j == 1 ? hi : 0xBF)) return 0;
  }
  return len;
}

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
    // A move to a column (ESC [ n G) and an erase in the line (ESC [ K, ESC [ 2 K) are kept
    // in the line as marks its redraw applies (AppendRedrawnLine).
    if (length >= 3 && text[next + 1] == '[') {
      const std::string_view params = text.substr(next + 2, length - 3);
      const char final = text[next + length - 1];
      const bool digits = params.find_first_not_of("0123456789") == std::string_view::npos;
      if (final == 'G' && digits) {
        line.push_back(kMark);
        line.push_back('G');
        line.append(params.empty() ? std::string_view("1") : params.substr(0, 5));
        line.push_back(';');
      } else if (final == 'K' && (params.empty() || params == "0")) {
        line.append({kMark, 'K'});
      } else if (final == 'K' && params == "2") {
        line.append({kMark, 'k'});
      }
    }
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

namespace plugline::core {

bool StripControlSequences(std::string_view text, std::string* out) {
  // The first thing to remove, decoding UTF-8 so that continuation bytes (0x80-0xBF) of
  // ordinary characters are not taken for C1 controls.
  size_t first = 0;
  while (first < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[first]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) break;
      ++first;
      continue;
    }
    const size_t len = Utf8SequenceLength(text, first);
    if (len == 0) {
      if (c <= 0x9F) break;  // a stray C1 byte
      ++first;
      continue;
    }
    if (c == 0xC2 && static_cast<unsigned char>(text[first + 1]) <= 0x9F) break;  // U+0080-9F
    first += len;
  }
  if (first >= text.size()) return false;
  std::string result;
  result.reserve(text.size());
  result.append(text.substr(0, first));
  size_t i = first;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {
      int lines_up = 0;
      i += EscapeLength(text, i, &lines_up);
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      ++i;  // C0 controls (BEL, BS, CR, ...) and DEL
    } else if (c < 0x80) {
      result.push_back(static_cast<char>(c));
      ++i;
    } else if (size_t len = Utf8SequenceLength(text, i); len != 0) {
      if (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
        i += C1Length(text, i);
      } else {
        result.append(text.substr(i, len));
        i += len;
      }
    } else if (c <= 0x9F) {
      ++i;  // a stray C1 byte (8-bit form), not part of a UTF-8 character
    } else {
      result.push_back(static_cast<char>(c));  // other invalid UTF-8 is left as it is
      ++i;
    }
  }
  *out = std::move(result);
  return true;
}

namespace {

struct FoldTable {
  unsigned char lower[256];
  constexpr FoldTable() : lower() {
    for (int c = 0; c < 256; ++c) {
      lower[c] = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
  }
};
constexpr FoldTable kFold;

inline unsigned char Fold(char c) { return kFold.lower[static_cast<unsigned char>(c)]; }

}  // namespace

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  if (haystack.size() < needle.size()) return false;
  const unsigned char first = Fold(needle[0]);
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (Fold(haystack[i]) != first) continue;
    size_t j = 1;
    while (j < needle.size() && Fold(haystack[i + j]) == Fold(needle[j])) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

KeywordMatcher::KeywordMatcher(std::initializer_list<std::string_view> keywords,
                               bool word_starts)
    : bigrams_(65536 / 64, 0), word_starts_(word_starts) {
  for (std::string_view keyword : keywords) {
    std::string folded;
    for (char c : keyword) folded.push_back(static_cast<char>(Fold(c)));
    size_t bigram = (static_cast<size_t>(static_cast<unsigned char>(folded[0])) << 8) |
                    static_cast<unsigned char>(folded.size() > 1 ? folded[1] : 0);
    bigrams_[bigram / 64] |= uint64_t{1} << (bigram % 64);
    keywords_.push_back(std::move(folded));
  }
}

size_t KeywordMatcher::Find(std::string_view text) const {
  if (text.size() < 2) return std::string_view::npos;
  const size_t n = text.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    size_t bigram = (static_cast<size_t>(Fold(text[i])) << 8) | Fold(text[i + 1]);
    if ((bigrams_[bigram / 64] >> (bigram % 64) & 1) == 0) continue;
    if (word_starts_ && i > 0 && absl::ascii_isalpha(static_cast<unsigned char>(text[i - 1])) &&
        !absl::ascii_isupper(static_cast<unsigned char>(text[i]))) {
      continue;
    }
    for (const std::string& keyword : keywords_) {
      if (static_cast<unsigned char>(keyword[0]) != Fold(text[i]) || i + keyword.size() > n) {
        continue;
      }
      size_t j = 1;
      while (j < keyword.size() && Fold(text[i + j]) == static_cast<unsigned char>(keyword[j])) {
        ++j;
      }
      if (j == keyword.size()) return i;
    }
  }
  return std::string_view::npos;
}

namespace {

const KeywordMatcher& TroubleKeywords() {
  static const KeywordMatcher* matcher =
      new KeywordMatcher({"error", "fail", "fatal", "panic", "exception", "traceback", "denied",
                          "not found", "not permitted", "abort", "killed", "segmentation fault",
                          "undefined reference", "cannot", "unable to", "no such file",
                          // A program that died: "Redis 7.0.15 crashed by signal: 11".
                          "crash",
                          // Version control: a merge, rebase or cherry-pick that stopped.
                          "conflict",
                          // Memory checkers: valgrind's error kinds, the sanitizers' reports.
                          "invalid read", "invalid write", "invalid free", "mismatched free",
                          "uninitialised value", "definitely lost", "sanitizer"},
                         /*word_starts=*/true);
  return *matcher;
}

// "0 errors", "no failures", "without errors" report the absence of trouble.
const KeywordMatcher& AbsenceKeywords() {
  static const KeywordMatcher* matcher = new KeywordMatcher(
      {" 0 error", " 0 fail", "no error", "no fail", "without error", "0 errors", "0 failed",
       "no syntax error"});
  return *matcher;
}

// Only the start of a very long line is looked at.
constexpr size_t kErrorLineScanBytes = 4096;

bool IsDigitAt(std::string_view s, size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

}  // namespace

size_t FindRequest(std::string_view line, size_t from, size_t* path_end) {
  static constexpr std::string_view kMethods[] = {"GET ", "POST ", "PUT ", "PATCH ", "DELETE ",
                                                  "HEAD ", "OPTIONS "};
  size_t best = std::string_view::npos, best_end = 0;
  for (std::string_view method : kMethods) {
    for (size_t at = line.find(method, from); at != std::string_view::npos && at < best;
         at = line.find(method, at + 1)) {
      const char before = at == 0 ? ' ' : line[at - 1];
      if (before != ' ' && before != '\t' && before != '"' && before != '\'') continue;
      size_t i = at + method.size();
      if (i + 1 < line.size() && line[i] == '"' && line[i + 1] == '/') ++i;  // Rails' "/orders"
      if (i >= line.size() || line[i] != '/') continue;
      while (i < line.size() && line[i] != ' ' && line[i] != '"') ++i;
      best = at;
      best_end = i;
      break;
    }
  }
  if (best != std::string_view::npos && path_end != nullptr) *path_end = best_end;
  return best;
}

namespace {

// A status at `at`: three digits from 100 to 599, then the end or a character that is not a
// digit or a letter; 0 when there is none.
uint16_t StatusAt(std::string_view s, size_t at) {
  if (!IsDigitAt(s, at) || !IsDigitAt(s, at + 1) || !IsDigitAt(s, at + 2)) return 0;
  if (at + 3 < s.size()) {
    const char c = s[at + 3];
    // Not a status: a longer number or word, an address ("127.0.0.1:48496"), a path.
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
        c == ':' || c == '/' || c == '_') {
      return 0;
    }
  }
  const int status = (s[at] - '0') * 100 + (s[at + 1] - '0') * 10 + (s[at + 2] - '0');
  return status >= 100 && status <= 599 ? static_cast<uint16_t>(status) : 0;
}

// `"status": 500`, `"status":500`, `status=500`, `"statusCode": 404`: the value of a status
// field.
uint16_t StatusField(std::string_view line) {
  static constexpr std::string_view kKeys[] = {"\"status\"", "\"status_code\"", "\"statusCode\"",
                                               "status=", "status_code=", "statusCode="};
  for (std::string_view key : kKeys) {
    for (size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
      if (key.front() != '"' && at > 0 && line[at - 1] != ' ' && line[at - 1] != '\t') continue;
      size_t i = at + key.size();
      if (key.front() == '"') {
        while (i < line.size() && line[i] == ' ') ++i;
        if (i >= line.size() || line[i] != ':') continue;
        ++i;
        while (i < line.size() && line[i] == ' ') ++i;
      }
      if (uint16_t status = StatusAt(line, i)) return status;
    }
  }
  return 0;
}

}  // namespace

uint16_t RequestStatus(std::string_view line) {
  if (line.size() > kErrorLineScanBytes) line = line.substr(0, kErrorLineScanBytes);
  // `"GET /orders/42 HTTP/1.1" 500 59`: the status after the quoted request line.
  for (size_t at = line.find("HTTP/"); at != std::string_view::npos;
       at = line.find("HTTP/", at + 5)) {
    size_t i = at + 5;
    while (i < line.size() && (IsDigitAt(line, i) || line[i] == '.')) ++i;
    if (i >= line.size() || line[i] != '"') continue;
    ++i;
    while (i < line.size() && line[i] == ' ') ++i;
    if (uint16_t status = StatusAt(line, i)) return status;
  }
  // `GET /orders/42 500 12.345 ms - 59`: method, path, status.
  size_t path_end = 0;
  bool request = false;
  for (size_t at = FindRequest(line, 0, &path_end); at != std::string_view::npos;
       at = FindRequest(line, at + 1, &path_end)) {
    request = true;
    if (path_end + 1 < line.size() && line[path_end] == ' ') {
      if (uint16_t status = StatusAt(line, path_end + 1)) return status;
    }
  }
  // A structured line's status field, when the line names the request too.
  if (line.find("tatus") == std::string_view::npos) return 0;
  if (request || line.find("\"method\"") != std::string_view::npos ||
      line.find("\"path\"") != std::string_view::npos || line.find("\"url\"") != std::string_view::npos ||
      line.find(" method=") != std::string_view::npos || line.find(" path=") != std::string_view::npos) {
    return StatusField(line);
  }
  return 0;
}

bool IsFailedRequestLine(std::string_view line) {
  // Every such line has " 5", ":5" or "=5" (its status): quick scans for the many lines that
  // have not.
  if (line.find(" 5") == std::string_view::npos && line.find(":5") == std::string_view::npos &&
      line.find("=5") == std::string_view::npos) {
    return false;
  }
  return RequestStatus(line) >= 500;
}

namespace {

// Where the path that the keyword at `at` is in ends, or npos when it is in none: the run of
// characters without spaces around it has a '/' and no ':' but a URL's "://" — a file's or a
// folder's name ("absl/base/internal/exception_testing.h" of a listing, "cc -c src/errors.c",
// "GET /api/errors 200", "https://example.com/errors/"), which says nothing of how the command
// went; not a location ("src/error.c:12:") nor "error:/x".
size_t PathEndAround(std::string_view line, size_t at) {
  const size_t before = line.find_last_of(" \t", at);
  const size_t begin = before == std::string_view::npos ? 0 : before + 1;
  size_t end = line.find_first_of(" \t\r", at);
  if (end == std::string_view::npos) end = line.size();
  std::string_view token = line.substr(begin, end - begin);
  const size_t keyword = at - begin;  // where the keyword is in the token, before trimming
  // Quoted or in parentheses: "'src/errors.o'", "(src/errors.c)".
  while (!token.empty() &&
         std::string_view("'\"`(<").find(token.front()) != std::string_view::npos) {
    token.remove_prefix(1);
  }
  // And quoted, then a colon: coreutils' "cannot access 'src/errors.c': No such file".
  if (token.size() >= 2 && token.back() == ':' &&
      std::string_view("'\"`").find(token[token.size() - 2]) != std::string_view::npos) {
    token.remove_suffix(1);
  }
  while (!token.empty() &&
         std::string_view("'\"`)>,;.").find(token.back()) != std::string_view::npos) {
    token.remove_suffix(1);
  }
  if (token.find('/') == std::string_view::npos) return std::string_view::npos;
  const size_t colon = token.find(':');
  const size_t scheme = token.find("://");
  if (colon != std::string_view::npos &&
      (colon != scheme || token.find(':', colon + 1) != std::string_view::npos)) {
    return std::string_view::npos;
  }
  // A path from a root ("/api/errors", "./logs/crash.log", "~/x"), a URL, a file's name with
  // its extension ("src/errors.c"), or a folder's (`du`'s "node_modules/es-errors",
  // "src/error_pages": the keyword after the first slash, that name or the first joined by '-'
  // or '_'): not words joined by a slash ("[Error/no-undef]", "errors/warnings",
  // "passed/failed").
  const bool rooted = token.starts_with("/") || token.starts_with("./") ||
                      token.starts_with("../") || token.starts_with("~/") ||
                      scheme != std::string_view::npos;
  const std::string_view whole = line.substr(begin, end - begin);
  const size_t first_slash = whole.find('/');
  const size_t name_start = whole.rfind('/', keyword) + 1;
  const std::string_view keyword_name =
      whole.substr(name_start, whole.find('/', keyword) - name_start);
  const bool folder = first_slash != std::string_view::npos && keyword > first_slash &&
                      (whole.substr(0, first_slash).find_first_of("-_") != std::string_view::npos ||
                       keyword_name.find_first_of("-_") != std::string_view::npos);
  const std::string_view name = token.substr(token.rfind('/') + 1);
  const size_t dot = name.rfind('.');
  const bool extension = dot != std::string_view::npos && dot > 0 && name.size() - dot >= 2 &&
                         name.size() - dot <= 6 &&
                         std::all_of(name.begin() + dot + 1, name.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) != 0;
                         });
  return rooted || extension || folder ? end : std::string_view::npos;
}

// Whether a trouble keyword is in `line` outside the paths it names.
bool TroubleOutsidePaths(std::string_view line) {
  for (size_t from = 0; from < line.size();) {
    const size_t hit = TroubleKeywords().Find(line.substr(from));
    if (hit == std::string_view::npos) return false;
    const size_t end = PathEndAround(line, from + hit);
    if (end == std::string_view::npos) return true;
    from = end;
  }
  return false;
}

// Whether `line` reports an absence of trouble ("0 errors", "no failures"): not "10 failed" or
// "1,000 errors", whose count only ends in 0.
bool ReportsAbsence(std::string_view line) {
  for (size_t from = 0; from < line.size();) {
    const size_t hit = AbsenceKeywords().Find(line.substr(from));
    if (hit == std::string_view::npos) return false;
    const size_t at = from + hit;
    if (at == 0 || !(IsDigitAt(line, at - 1) || line[at - 1] == ',' || line[at - 1] == '.')) {
      return true;
    }
    from = at + 1;
  }
  return false;
}

}  // namespace

bool ReportsFailedExit(std::string_view line) {
  if (line.size() > kErrorLineScanBytes) line = line.substr(0, kErrorLineScanBytes);
  for (size_t at = line.find("exit"); at != std::string_view::npos;
       at = line.find("exit", at + 4)) {
    // "exit" where a word starts: not "nexit" or a path's "/exit_code".
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) != 0 ||
                   line[at - 1] == '_' || line[at - 1] == '/' || line[at - 1] == '.')) {
      continue;
    }
    std::string_view rest = line.substr(at + 4);
    // "exited with code 1", "exited with status 2", "exited with exit code 3"; "exit code 1",
    // "exit code: 1", "exit status 1", "exit status: 1".
    if (rest.starts_with("ed with ")) {
      rest.remove_prefix(8);
      if (rest.starts_with("exit ")) rest.remove_prefix(5);
    } else if (rest.starts_with(" ")) {
      rest.remove_prefix(1);
    } else {
      continue;
    }
    if (rest.starts_with("code")) {
      rest.remove_prefix(4);
    } else if (rest.starts_with("status")) {
      rest.remove_prefix(6);
    } else {
      continue;
    }
    if (rest.starts_with(":")) rest.remove_prefix(1);
    if (!rest.starts_with(" ")) continue;
    rest.remove_prefix(1);
    if (rest.starts_with("-")) rest.remove_prefix(1);
    size_t digits = 0;
    while (IsDigitAt(rest, digits)) ++digits;
    if (digits == 0) continue;
    // The number whole ("code 1", "status 137."), and not 0.
    if (digits < rest.size() &&
        (std::isalnum(static_cast<unsigned char>(rest[digits])) != 0 || rest[digits] == '_')) {
      continue;
    }
    if (rest.substr(0, digits).find_first_not_of('0') != std::string_view::npos) return true;
  }
  return false;
}

bool LooksLikeErrorLine(std::string_view line) {
  if (line.size() > kErrorLineScanBytes) line = line.substr(0, kErrorLineScanBytes);
  return (TroubleOutsidePaths(line) && !ReportsAbsence(line)) || IsFailedRequestLine(line) ||
         ReportsFailedExit(line);
}

size_t FindErrorLine(std::string_view text) {
  size_t keyword = std::string_view::npos;
  size_t from = 0;
  while (from < text.size()) {
    const size_t hit = TroubleKeywords().Find(text.substr(from));
    if (hit == std::string_view::npos) break;
    const size_t at = from + hit;
    const size_t nl_before = text.rfind('\n', at);
    const size_t start = nl_before == std::string_view::npos ? 0 : nl_before + 1;
    size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end;
    if (LooksLikeErrorLine(text.substr(start, end - start))) {
      keyword = start;
      break;
    }
    from = end + 1;
  }
  // Before it, the first line that has `needle` and for which `is` is true: where it starts,
  // or npos. Every such line has the needle (its "exit", its status's " 5").
  auto first_before = [&text](size_t limit, std::string_view needle, bool (*is)(std::string_view)) {
    for (size_t at = text.find(needle); at != std::string_view::npos && at < limit;) {
      const size_t nl_before = text.rfind('\n', at);
      const size_t start = nl_before == std::string_view::npos ? 0 : nl_before + 1;
      size_t end = text.find('\n', at);
      end = end == std::string_view::npos ? text.size() : end;
      if (start < limit && is(text.substr(start, end - start))) return start;
      at = end >= text.size() ? std::string_view::npos : text.find(needle, end);
    }
    return std::string_view::npos;
  };
  // A line of a process that exited with a non-zero code, or a failed request's line.
  const size_t limit = keyword == std::string_view::npos ? text.size() : keyword;
  const size_t exited = first_before(limit, "exit", ReportsFailedExit);
  const size_t request = first_before(std::min(limit, exited), " 5", IsFailedRequestLine);
  return std::min({keyword, exited, request});
}

}  // namespace plugline::core

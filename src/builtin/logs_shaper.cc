// builtin-logs: application and server logs.
//
// Recognizes lines that start with a timestamp (ISO 8601 and its "2026/11/29 20:12:01" and
// "2026-11-29 20:12:01,123 UTC" variants, syslog/journalctl "Nov 29 20:12:01", ctime "[Sun Nov 29
// 20:12:01 2026]" (Apache error log, dmesg -T), common-log "[29/Nov/2026:20:12:01 +0000]" (and
// Python http.server's "[04/Dec/2026 23:02:33]"),
// java.util.logging "Nov 29, 2026 8:12:01 PM", logcat "11-29 20:12:01.123", a bare "20:12:01",
// dmesg "[  12.345678]", epoch seconds or milliseconds, glog/klog "E1129 20:12:01.123456"), also
// after a docker compose "web-1  | " prefix; levels among the first words after the timestamp
// (ERROR/WARN/... in any case, bracketed "[error]", "[core:error]", "level=error", "ERR"/"WRN",
// logcat's single letters, PostgreSQL's "LOG:" and its DETAIL/HINT/CONTEXT/STATEMENT
// continuation lines); a level word opening a line ("ERROR:root:x", "[ERROR] x", "E, [ts] ...");
// logfmt (level= and time= pairs); JSON lines (the level and time fields found textually, not
// parsed: numeric pino/bunyan levels, journald PRIORITY; the line is shown verbatim, never
// reformatted); nginx/Apache access logs (combined and common format).
//
// A line that opens none of these (a traceback, a stack frame, "KeyError: ...", a wrapped message,
// a crash printed after the last entry) belongs to the entry above it. The summary, in the
// output's order:
//  - the header: lines, requests by status, entries by level, the first and last timestamps as
//    printed;
//  - the first 5 and last 10 lines (how the log starts and how it ended);
//  - every error entry (ERROR and worse, 5xx requests, entries without a level that read like
//    trouble, info entries followed by a traceback), repeats folded: the first occurrence verbatim,
//    then "… N repeats of the line above (last at <the last one's timestamp>)"; repeats are lines
//    equal once the timestamp is dropped and every word holding a digit (numbers, hex ids, UUIDs,
//    IPs) is masked — lines that are not the first's to the letter are "more like the line above,
//    numbers differing", and up to 20 one-line failures alike are listed by their timestamps and
//    the values that differ ("order 10980: (code 56)"). Traces keep their first line, the frames
//    in the user's code and the exception lines; library frames and Python's ^~~ markers are
//    counted;
//  - warnings and 4xx requests: all when few, folded by kind when many;
//  - everything else counted in markers between the lines shown, by level or status class.
// Output without log structure falls back to the head, the tail and the error lines.
#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_split.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr size_t kHeadLines = 5;
constexpr size_t kTailLines = 10;
// Below this many lines a summary saves nothing: the output is shown raw...
constexpr size_t kMinLines = 20;
// ...unless it is this large anyway.
constexpr size_t kHugeOutputBytes = 64 * 1024;
// Warnings and 4xx requests are shown one by one up to this many, folded by kind beyond.
constexpr size_t kFewLines = 10;
constexpr size_t kMaxErrorGroups = 100;
constexpr size_t kFullErrorGroups = 30;  // later ones show their first line only
constexpr size_t kMaxProblemGroups = 50;
constexpr size_t kMaxWarningGroups = 20;
constexpr size_t kMaxValueLists = 20;  // failures alike but for their numbers listed by them
constexpr size_t kMaxDifferingWords = 3;  // an entry's repeats listed by the words that differ
constexpr size_t kValueContext = 24;   // characters of a listed value's word either side
constexpr size_t kMaxClientGroups = 20;
constexpr size_t kMaxEntryLines = 40;
constexpr size_t kLevelScanTokens = 8;
constexpr size_t kLevelScanBytes = 160;

enum Level : uint8_t {
  kNone,
  kTrace,
  kDebug,
  kLogLevel,  // PostgreSQL's LOG
  kInfo,
  kNotice,
  kWarn,
  kError,
  kCritical,
  kAlert,
  kFatal,
  kPanic,
  kEmerg,
  kContinuation,  // PostgreSQL's DETAIL, HINT, CONTEXT, STATEMENT, QUERY, LOCATION
  kLevelCount
};

struct LevelName {
  std::string_view singular, plural;
};
constexpr LevelName kLevelNames[kLevelCount] = {
    {"", ""},
    {"trace", "trace"},
    {"debug", "debug"},
    {"LOG", "LOG"},
    {"info", "info"},
    {"notice", "notices"},
    {"warning", "warnings"},
    {"error", "errors"},
    {"critical", "critical"},
    {"alert", "alerts"},
    {"fatal", "fatal"},
    {"panic", "panics"},
    {"emergency", "emergencies"},
    {"", ""},
};
// Most severe first, for the header and the markers.
constexpr Level kSeverityOrder[] = {kEmerg, kPanic, kFatal, kAlert, kCritical, kError,
                                    kWarn, kNotice, kInfo, kLogLevel, kDebug, kTrace};

bool IsErrorLevel(Level l) { return l >= kError && l <= kEmerg; }

struct LevelWord {
  std::string_view word;  // lower case
  Level level;
  bool bare;  // also a level as a plain lower-case or capitalized word
};
constexpr LevelWord kLevelWords[] = {
    {"trace", kTrace, true},       {"verbose", kTrace, false},   {"vrb", kTrace, false},
    {"finest", kTrace, false},     {"finer", kTrace, false},     {"debug", kDebug, true},
    {"dbg", kDebug, false},        {"fine", kDebug, false},      {"debug1", kDebug, false},
    {"debug2", kDebug, false},     {"debug3", kDebug, false},    {"debug4", kDebug, false},
    {"debug5", kDebug, false},     {"info", kInfo, true},        {"inf", kInfo, false},
    {"information", kInfo, true},  {"notice", kNotice, true},    {"warn", kWarn, true},
    {"warning", kWarn, true},      {"wrn", kWarn, false},        {"error", kError, true},
    {"err", kError, false},        {"eror", kError, false},      {"severe", kError, false},
    {"crit", kCritical, false},    {"critical", kCritical, true}, {"alert", kAlert, false},
    {"fatal", kFatal, true},       {"ftl", kFatal, false},       {"panic", kPanic, true},
    {"dpanic", kPanic, false},     {"emerg", kEmerg, false},     {"emergency", kEmerg, false},
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsAlpha(char c) { return IsUpper(c) || IsLower(c); }
bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
char ToLower(char c) { return IsUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsSpace(char c) { return c == ' ' || c == '\t'; }

constexpr size_t npos = std::string_view::npos;

// ---- timestamps -----------------------------------------------------------------------------

// End of exactly `count` digits at i, or npos.
size_t DigitsAt(std::string_view s, size_t i, size_t count) {
  if (i == npos || i + count > s.size()) return npos;
  for (size_t k = i; k < i + count; ++k) {
    if (!IsDigit(s[k])) return npos;
  }
  return i + count;
}

size_t CharAt(std::string_view s, size_t i, char c) {
  return i != npos && i < s.size() && s[i] == c ? i + 1 : npos;
}

constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::string_view kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};

size_t WordFromAt(std::string_view s, size_t i, const std::string_view* words, size_t count) {
  if (i == npos || i + 3 > s.size() || !IsUpper(s[i]) || !IsLower(s[i + 1])) return npos;
  for (size_t k = 0; k < count; ++k) {
    const std::string_view& w = words[k];
    if (w[0] == s[i] && w[1] == s[i + 1] && w[2] == s[i + 2]) return i + 3;
  }
  return npos;
}
size_t MonthAt(std::string_view s, size_t i) { return WordFromAt(s, i, kMonths, 12); }
size_t DayAt(std::string_view s, size_t i) { return WordFromAt(s, i, kDays, 7); }

// "20:12:01", "8:12:01", "20:12:01.123456", "20:12:01,123"; seconds optional unless required.
size_t TimeAt(std::string_view s, size_t i, bool need_seconds) {
  if (i == npos || i >= s.size() || !IsDigit(s[i])) return npos;
  size_t j = i + 1;
  if (j < s.size() && IsDigit(s[j])) ++j;
  j = DigitsAt(s, CharAt(s, j, ':'), 2);
  if (j == npos) return npos;
  if (j < s.size() && s[j] == ':' && DigitsAt(s, j + 1, 2) != npos) {
    j += 3;
  } else if (need_seconds) {
    return npos;
  }
  if (j + 1 < s.size() && (s[j] == '.' || s[j] == ',') && IsDigit(s[j + 1])) {
    ++j;
    while (j < s.size() && IsDigit(s[j])) ++j;
  }
  return j;
}

constexpr uint32_t Pack(std::string_view w) {
  uint32_t v = 0;
  for (char c : w) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

// Zone abbreviations written after a time: "2026-11-29 20:12:01.955 UTC".
bool IsZoneName(std::string_view w) {
  switch (Pack(w)) {
    case Pack("UTC"): case Pack("GMT"): case Pack("CET"): case Pack("CEST"): case Pack("EET"):
    case Pack("EEST"): case Pack("WET"): case Pack("WEST"): case Pack("BST"): case Pack("IST"):
    case Pack("EST"): case Pack("EDT"): case Pack("CST"): case Pack("CDT"): case Pack("MST"):
    case Pack("MDT"): case Pack("PST"): case Pack("PDT"): case Pack("JST"): case Pack("KST"):
    case Pack("AEST"): case Pack("AEDT"): case Pack("MSK"): case Pack("HKT"): case Pack("SGT"):
      return true;
    default:
      return false;
  }
}

// A zone after a time: "Z", "+01:00", "+0100", " +0000", " UTC".
size_t ZoneAt(std::string_view s, size_t i) {
  if (i >= s.size()) return i;
  if (s[i] == 'Z') return i + 1;
  size_t j = i;
  if (s[j] == ' ' && j + 1 < s.size() && (s[j + 1] == '+' || s[j + 1] == '-')) ++j;
  if (s[j] == '+' || s[j] == '-') {
    size_t k = DigitsAt(s, j + 1, 2);
    if (k == npos) return i;
    if (k < s.size() && s[k] == ':' && DigitsAt(s, k + 1, 2) != npos) return k + 3;
    if (DigitsAt(s, k, 2) != npos) return k + 2;
    return j == i ? k : i;  // "+01" only when attached
  }
  if (s[i] == ' ') {
    size_t k = i + 1;
    while (k < s.size() && k < i + 6 && IsUpper(s[k])) ++k;
    if (k - i - 1 < 3 || k - i - 1 > 4 || (k < s.size() && IsAlnum(s[k]))) return i;
    if (IsZoneName(s.substr(i + 1, k - i - 1))) return k;
  }
  return i;
}

// "2026-11-29T20:12:01.123Z", "2026-11-29 20:12:01,123", "2026/11/29 20:12:01", "2026-11-29 20:12 UTC".
size_t IsoAt(std::string_view s, size_t i) {
  size_t j = DigitsAt(s, i, 4);
  if (j == npos || j >= s.size()) return npos;
  char sep = s[j];
  if (sep != '-' && sep != '/' && sep != '.') return npos;
  j = DigitsAt(s, CharAt(s, DigitsAt(s, j + 1, 2), sep), 2);
  if (j == npos || j >= s.size() || (s[j] != 'T' && s[j] != ' ' && s[j] != '_')) return npos;
  j = TimeAt(s, j + 1, false);
  if (j == npos) return npos;
  return ZoneAt(s, j);
}

// "Nov 29 20:12:01", "Nov  9 20:12:01" (syslog, journalctl), with fractions.
size_t SyslogAt(std::string_view s, size_t i) {
  size_t j = CharAt(s, MonthAt(s, i), ' ');
  if (j == npos || j + 2 >= s.size()) return npos;
  if (!(IsDigit(s[j]) || s[j] == ' ') || !IsDigit(s[j + 1])) return npos;
  return TimeAt(s, CharAt(s, j + 2, ' '), true);
}

// "Sun Nov 29 20:12:01 2026", "Sun Nov 29 20:12:01.123456 2026" (ctime, Apache error log, dmesg -T).
size_t CtimeAt(std::string_view s, size_t i) {
  size_t j = SyslogAt(s, CharAt(s, DayAt(s, i), ' '));
  return DigitsAt(s, CharAt(s, j, ' '), 4);
}

// "29/Nov/2026:20:12:01 +0000" (common log format), and "04/Dec/2026 23:02:33" (Python's
// http.server, which writes it with a space and no zone).
size_t CommonLogAt(std::string_view s, size_t i) {
  size_t j = DigitsAt(s, i, 2);
  j = DigitsAt(s, CharAt(s, MonthAt(s, CharAt(s, j, '/')), '/'), 4);
  const size_t colon = CharAt(s, j, ':');
  j = TimeAt(s, colon != npos ? colon : CharAt(s, j, ' '), true);
  if (j == npos) return npos;
  return ZoneAt(s, j);
}

// "Nov 29, 2026 8:12:01 PM" (java.util.logging).
size_t JulAt(std::string_view s, size_t i) {
  size_t j = CharAt(s, MonthAt(s, i), ' ');
  if (j == npos || j >= s.size() || !IsDigit(s[j])) return npos;
  ++j;
  if (j < s.size() && IsDigit(s[j])) ++j;
  j = DigitsAt(s, CharAt(s, CharAt(s, j, ','), ' '), 4);
  j = TimeAt(s, CharAt(s, j, ' '), true);
  j = CharAt(s, j, ' ');
  if (j == npos || j + 2 > s.size()) return npos;
  std::string_view ampm = s.substr(j, 2);
  return ampm == "AM" || ampm == "PM" ? j + 2 : npos;
}

// "11-29 20:12:01.123" (logcat).
size_t MonthDayAt(std::string_view s, size_t i) {
  size_t j = DigitsAt(s, CharAt(s, DigitsAt(s, i, 2), '-'), 2);
  return TimeAt(s, CharAt(s, j, ' '), true);
}

// Epoch seconds or milliseconds, optionally with a fraction: "1795984159", "1795984159828".
size_t EpochAt(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] != '1') return npos;
  size_t j = i;
  while (j < s.size() && IsDigit(s[j])) ++j;
  if (j - i != 10 && j - i != 13) return npos;
  if (j + 1 < s.size() && s[j] == '.' && IsDigit(s[j + 1])) {
    ++j;
    while (j < s.size() && IsDigit(s[j])) ++j;
  }
  return j;
}

struct Span {
  size_t begin = npos, end = npos;
  bool ok() const { return begin != npos; }
};

// A timestamp starting at i, possibly in brackets; the span excludes the brackets.
Span TimestampAt(std::string_view s, size_t i) {
  if (i >= s.size()) return {};
  size_t j = i;
  bool bracket = s[j] == '[';
  if (bracket) {
    ++j;
    // dmesg: "[   12.345678]"
    size_t k = j;
    while (k < s.size() && s[k] == ' ') ++k;
    size_t d = k;
    while (d < s.size() && IsDigit(s[d])) ++d;
    if (d > k && d + 1 < s.size() && s[d] == '.' && IsDigit(s[d + 1])) {
      size_t f = d + 1;
      while (f < s.size() && IsDigit(s[f])) ++f;
      if (f < s.size() && s[f] == ']' && f - d - 1 >= 3) return {k, f};
    }
  }
  if (j >= s.size()) return {};
  size_t end = npos;
  char c = s[j];
  if (IsDigit(c)) {
    // Which format, from the leading digits and what follows them.
    size_t k = j;
    while (k < s.size() && k < j + 14 && IsDigit(s[k])) ++k;
    const size_t digits = k - j;
    const char next = k < s.size() ? s[k] : '\0';
    if (digits == 4 && (next == '-' || next == '/' || next == '.')) {
      end = IsoAt(s, j);
    } else if (digits == 2 && next == '/') {
      end = CommonLogAt(s, j);
    } else if (digits == 2 && next == '-') {
      end = MonthDayAt(s, j);
    } else if ((digits == 1 || digits == 2) && next == ':') {
      end = TimeAt(s, j, true);
      // a bare time must stand alone: "20:12:01 msg", not "20:12:01:55"
      if (end != npos && end < s.size() && !IsSpace(s[end]) && s[end] != ']') end = npos;
    } else if ((digits == 10 || digits == 13) && !bracket) {
      end = EpochAt(s, j);
      if (end != npos && (end >= s.size() || !IsSpace(s[end]))) end = npos;
    }
  } else if (IsUpper(c) && j + 4 < s.size() && s[j + 3] == ' ') {
    end = SyslogAt(s, j);
    if (end == npos) end = CtimeAt(s, j);
    if (end == npos) end = JulAt(s, j);
  }
  if (end == npos) return {};
  // The timestamp ends at a separator: "2026-11-29 20:12:01 x", "[...]", "...:".
  if (end < s.size() && IsAlnum(s[end])) return {};
  return {j, end};
}

// glog/klog: "E1129 20:12:01.123456 ..."; returns the level, the span of "1129 20:12:01.123456".
Level GlogAt(std::string_view s, size_t i, Span* ts) {
  if (i + 6 >= s.size()) return kNone;
  Level level = kNone;
  switch (s[i]) {
    case 'I': level = kInfo; break;
    case 'W': level = kWarn; break;
    case 'E': level = kError; break;
    case 'F': level = kFatal; break;
    default: return kNone;
  }
  size_t j = TimeAt(s, CharAt(s, DigitsAt(s, i + 1, 4), ' '), true);
  if (j == npos || (j < s.size() && !IsSpace(s[j]))) return kNone;
  *ts = {i + 1, j};
  return level;
}

// ---- levels ---------------------------------------------------------------------------------

enum class Case { kUpper, kLower, kTitle, kMixed };

Case CaseOf(std::string_view w) {
  bool upper = false, lower = false;
  for (size_t k = 0; k < w.size(); ++k) {
    if (IsUpper(w[k])) {
      upper = true;
    } else if (IsLower(w[k])) {
      lower = true;
    }
  }
  if (upper && !lower) return Case::kUpper;
  if (lower && !upper) return Case::kLower;
  if (IsUpper(w[0])) {
    for (size_t k = 1; k < w.size(); ++k) {
      if (IsUpper(w[k])) return Case::kMixed;
    }
    return Case::kTitle;
  }
  return Case::kMixed;
}

const LevelWord* FindLevelWord(std::string_view w) {
  if (w.size() < 3 || w.size() > 11) return nullptr;
  // The level words by their first letter.
  struct Index {
    std::array<std::array<uint8_t, 8>, 26> words{};
    std::array<uint8_t, 26> count{};
  };
  static const Index kIndex = [] {
    Index index;
    for (size_t k = 0; k < std::size(kLevelWords); ++k) {
      size_t letter = static_cast<size_t>(kLevelWords[k].word[0] - 'a');
      index.words[letter][index.count[letter]++] = static_cast<uint8_t>(k);
    }
    return index;
  }();
  char first = ToLower(w[0]);
  if (!IsLower(first)) return nullptr;
  size_t letter = static_cast<size_t>(first - 'a');
  for (size_t k = 0; k < kIndex.count[letter]; ++k) {
    const LevelWord& lw = kLevelWords[kIndex.words[letter][k]];
    if (lw.word.size() != w.size()) continue;
    size_t i = 1;
    while (i < w.size() && ToLower(w[i]) == lw.word[i]) ++i;
    if (i == w.size()) return &lw;
  }
  return nullptr;
}

// A level written as a value ("error" in level=error, a JSON "level": "warn"): any case.
Level LevelValue(std::string_view v) {
  const LevelWord* lw = FindLevelWord(v);
  return lw != nullptr ? lw->level : kNone;
}

// Numeric levels: pino/bunyan 10..60; journald/syslog PRIORITY 0..7.
Level NumericLevel(std::string_view v, bool syslog_priority) {
  if (v.empty() || !IsDigit(v[0])) return kNone;
  int n = 0;
  for (size_t k = 0; k < v.size() && k < 4 && IsDigit(v[k]); ++k) n = n * 10 + (v[k] - '0');
  if (syslog_priority) {
    constexpr Level kPriority[] = {kEmerg, kAlert, kCritical, kError, kWarn, kNotice, kInfo, kDebug};
    return n >= 0 && n <= 7 ? kPriority[n] : kNone;
  }
  if (n < 10) return kNone;
  if (n < 20) return kTrace;
  if (n < 30) return kDebug;
  if (n < 40) return kInfo;
  if (n < 50) return kWarn;
  if (n < 60) return kError;
  return kFatal;
}

// Is `token` (one whitespace-delimited word) a level? `line_start`: the first word of a line
// with no timestamp before it, where plain words must end in ':' ("error: x", "WARNING:root:x").
Level TokenLevel(std::string_view token, bool line_start) {
  if (token.empty()) return kNone;
  // Most words are not levels: those that open with a letter no level word (nor "level=",
  // "severity=", a bracket) opens with are passed over at once.
  switch (ToLower(token[0])) {
    case 'a': case 'c': case 'd': case 'e': case 'f': case 'i': case 'l': case 'n': case 'p':
    case 's': case 't': case 'v': case 'w': case 'h': case 'q': case '[': case '(': case '<':
    case '|':
      break;
    default:
      return kNone;
  }
  // key=value: level=error, lvl=warn, severity=ERROR
  size_t eq = npos;
  if (char f = ToLower(token[0]); f == 'l' || f == 's' || f == '[' || f == '(') {
    for (size_t k = 1; k < token.size() && k < 12; ++k) {
      if (token[k] == '=') {
        eq = k;
        break;
      }
    }
  }
  if (eq != npos) {
    std::string_view key = token.substr(0, eq);
    if (!key.empty() && (key[0] == '[' || key[0] == '(')) key.remove_prefix(1);
    char lower[12];
    if (key.size() > sizeof lower) return kNone;
    for (size_t k = 0; k < key.size(); ++k) lower[k] = ToLower(key[k]);
    std::string_view lk(lower, key.size());
    if (lk != "level" && lk != "lvl" && lk != "severity" && lk != "loglevel" && lk != "log_level" &&
        lk != "log.level") {
      return kNone;
    }
    std::string_view v = token.substr(eq + 1);
    while (!v.empty() && (v.front() == '"' || v.front() == '\'')) v.remove_prefix(1);
    size_t e = 0;
    while (e < v.size() && IsAlnum(v[e])) ++e;
    return LevelValue(v.substr(0, e));
  }
  size_t b = 0;
  bool bracketed = false;
  while (b < token.size() && (token[b] == '[' || token[b] == '(' || token[b] == '<' || token[b] == '|')) {
    bracketed = true;
    ++b;
  }
  // Each ':'-separated part of a bracketed token may be the level: "[mpm_event:notice]".
  while (b < token.size()) {
    size_t e = b;
    while (e < token.size() &&
           (IsAlnum(token[e]) ||
            (bracketed && (token[e] == '_' || token[e] == '-' || token[e] == '.')))) {
      ++e;
    }
    std::string_view word = token.substr(b, e - b);
    char next = e < token.size() ? token[e] : '\0';
    if (!word.empty() && IsAlpha(word[0])) {
      // PostgreSQL: "LOG:", "DETAIL:" ...
      if (next == ':' && !bracketed && IsUpper(word[0])) {
        if (word == "LOG") return kLogLevel;
        if (word == "DETAIL" || word == "HINT" || word == "CONTEXT" || word == "STATEMENT" ||
            word == "QUERY" || word == "LOCATION") {
          return kContinuation;
        }
      }
      const LevelWord* lw = FindLevelWord(word);
      if (lw != nullptr) {
        Case c = CaseOf(word);
        // Celery's "ERROR/MainProcess]": the level, then the process.
        bool ends = next == '\0' || next == ':' || next == ']' || next == '|' || next == ',' ||
                    next == ';' || next == '>' || next == ')' || (next == '/' && c == Case::kUpper);
        if (bracketed) {
          if (next == ']' || next == ':' || next == '>' || next == ')' || next == '|' || next == '\0') {
            return lw->level;
          }
        } else if (ends) {
          if (c == Case::kUpper) {
            if (!line_start || word.size() > 1) return lw->level;
          } else if (lw->bare && (c == Case::kLower || (c == Case::kTitle && !line_start))) {
            if (!line_start || next == ':') return lw->level;
          }
        }
      }
    }
    if (!bracketed || next != ':') break;
    b = e + 1;
  }
  return kNone;
}

bool IsNumericToken(std::string_view t) {
  if (t.empty()) return false;
  for (char c : t) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// The level among the first words after a timestamp.
Level ScanLevel(std::string_view s, size_t i) {
  size_t limit = std::min(s.size(), i + kLevelScanBytes);
  bool only_numbers = true;
  for (size_t tokens = 0; tokens < kLevelScanTokens && i < limit; ++tokens) {
    while (i < limit && (IsSpace(s[i]) || s[i] == ']')) ++i;
    if (i >= limit) break;
    size_t e = i;
    while (e < s.size() && !IsSpace(s[e])) ++e;
    std::string_view token = s.substr(i, e - i);
    // A single letter (logcat "... 1234  5678 E Tag: msg"), right after the time and pids.
    if (token.size() == 1 && only_numbers) {
      switch (token[0]) {
        case 'V': return kTrace;
        case 'D': return kDebug;
        case 'I': return kInfo;
        case 'W': return kWarn;
        case 'E': return kError;
        case 'F': return kFatal;
        default: break;
      }
    }
    Level l = TokenLevel(token, false);
    if (l != kNone) return l;
    only_numbers = only_numbers && IsNumericToken(token);
    i = e;
  }
  return kNone;
}

// ---- JSON lines -----------------------------------------------------------------------------

// The value of "key" in a JSON line, found textually: a string's contents or a number.
std::string_view JsonField(std::string_view s, std::string_view quoted_key) {
  size_t p = s.find(quoted_key);
  if (p == npos) return {};
  p += quoted_key.size();
  while (p < s.size() && IsSpace(s[p])) ++p;
  if (p >= s.size() || s[p] != ':') return {};
  ++p;
  while (p < s.size() && IsSpace(s[p])) ++p;
  if (p >= s.size()) return {};
  if (s[p] == '"') {
    size_t q = s.find('"', p + 1);
    if (q == npos) return {};
    return s.substr(p + 1, q - p - 1);
  }
  size_t q = p;
  while (q < s.size() && (IsDigit(s[q]) || s[q] == '.' || s[q] == '-' || s[q] == '+' || s[q] == 'e' ||
                          s[q] == 'E')) {
    ++q;
  }
  return s.substr(p, q - p);
}

Level JsonLevel(std::string_view s) {
  static constexpr std::string_view kKeys[] = {"\"level\"",     "\"severity\"", "\"lvl\"",
                                               "\"levelname\"", "\"log.level\"", "\"loglevel\"",
                                               "\"log_level\"", "\"@l\"",       "\"Level\"",
                                               "\"Severity\""};
  for (std::string_view key : kKeys) {
    std::string_view v = JsonField(s, key);
    if (v.empty()) continue;
    Level l = IsDigit(v[0]) ? NumericLevel(v, false) : LevelValue(v);
    if (l != kNone) return l;
  }
  std::string_view priority = JsonField(s, "\"PRIORITY\"");
  if (!priority.empty()) return NumericLevel(priority, true);
  return kNone;
}

std::string_view JsonTime(std::string_view s) {
  static constexpr std::string_view kKeys[] = {
      "\"time\"", "\"timestamp\"", "\"ts\"",      "\"@timestamp\"",         "\"@t\"",
      "\"datetime\"", "\"asctime\"", "\"Timestamp\"", "\"__REALTIME_TIMESTAMP\""};
  for (std::string_view key : kKeys) {
    std::string_view v = JsonField(s, key);
    if (!v.empty()) return v;
  }
  return {};
}

// ---- access logs ----------------------------------------------------------------------------

// `host ident user [29/Nov/2026:20:12:01 +0000] "GET / HTTP/1.1" 200 512 ...`: the status and
// the timestamp's span.
uint16_t AccessStatus(std::string_view s, Span* ts) {
  s = s.substr(0, 8192);  // the status is near the start; a huge line is not read through
  size_t p = s.substr(0, 302).find(" [");
  if (p == npos || p > 300 || p + 2 >= s.size() || !IsDigit(s[p + 2])) return 0;
  size_t e = CommonLogAt(s, p + 2);
  if (e == npos || e + 2 >= s.size() || s[e] != ']' || s[e + 1] != ' ' || s[e + 2] != '"') return 0;
  // The request ends at the quote followed by " <3 digits> ".
  size_t q = e + 3;
  while ((q = s.find("\" ", q)) != npos) {
    size_t d = q + 2;
    if (DigitsAt(s, d, 3) != npos && (d + 3 == s.size() || s[d + 3] == ' ')) {
      int status = (s[d] - '0') * 100 + (s[d + 1] - '0') * 10 + (s[d + 2] - '0');
      if (status < 100 || status > 599) return 0;
      *ts = {p + 2, e};
      return static_cast<uint16_t>(status);
    }
    q += 2;
  }
  return 0;
}

// ---- lines ----------------------------------------------------------------------------------

enum class Kind : uint8_t { kBlank, kContinuation, kEntry, kAccess };

struct LineInfo {
  std::string_view ts;  // a view into the line; copied into the header and the markers
  uint16_t status = 0;
  Level level = kNone;
  Kind kind = Kind::kContinuation;
  bool json = false;
  bool ts_at_start = false;
};

// A logfmt line's level and time fields, among its first pairs.
bool Logfmt(std::string_view s, LineInfo* li) {
  size_t i = 0;
  const size_t limit = std::min(s.size(), size_t{400});
  Level level = kNone;
  std::string_view time;
  for (int pairs = 0; pairs < 12 && i < limit && (level == kNone || time.empty()); ++pairs) {
    size_t e = i;
    while (e < s.size() && !IsSpace(s[e])) ++e;
    std::string_view token = s.substr(i, e - i);
    i = e;
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t eq = token.find('=');
    if (eq == npos || eq == 0 || eq > 16) continue;
    char lower[16];
    for (size_t k = 0; k < eq; ++k) lower[k] = ToLower(token[k]);
    std::string_view key(lower, eq);
    std::string_view value = token.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (key == "level" || key == "lvl" || key == "severity" || key == "loglevel" ||
        key == "log_level" || key == "log.level") {
      level = !value.empty() && IsDigit(value[0]) ? NumericLevel(value, false) : LevelValue(value);
    } else if (key == "time" || key == "ts" || key == "t" || key == "timestamp" ||
               key == "@timestamp" || key == "datetime" || key == "date") {
      time = value;
    }
  }
  if (level == kNone && time.empty()) return false;
  li->kind = Kind::kEntry;
  li->level = level;
  li->ts = time;
  li->ts_at_start = !time.empty();
  return true;
}

// A traceback's last line, the exception: "KeyError: 'sku-405'", "inventory.db.StockError: …",
// "java.lang.IllegalStateException".
bool IsExceptionLine(std::string_view s) {
  size_t e = 0;
  while (e < s.size() && (IsAlpha(s[e]) || IsDigit(s[e]) || s[e] == '_' || s[e] == '.')) ++e;
  if (e == 0 || (e < s.size() && s[e] != ':')) return false;
  const std::string_view name = s.substr(0, e);
  return name.ends_with("Error") || name.ends_with("Exception");
}

// A line of a traceback in a log, between its entries: indented (a frame), or a traceback's
// first or last line ("Traceback (most recent call last):", "KeyError: 'x'").
bool IsTraceLine(std::string_view line, const LineInfo& li) {
  return li.kind == Kind::kContinuation && li.ts.empty() && !line.empty() &&
         (line.front() == ' ' || line.front() == '\t' || line.starts_with("Traceback (") ||
          IsExceptionLine(line));
}

// "web-1  | msg" (docker compose): where the message starts, or 0.
size_t ComposePrefix(std::string_view s) {
  size_t bar = s.substr(0, 66).find("| ");
  if (bar == npos || bar == 0 || bar > 64 || s[bar - 1] != ' ') return 0;
  size_t e = 0;
  while (e < bar && !IsSpace(s[e])) ++e;
  if (e == 0) return 0;
  for (size_t k = e; k < bar; ++k) {
    if (s[k] != ' ') return 0;
  }
  return bar + 2;
}

LineInfo Classify(std::string_view s) {
  LineInfo li;
  size_t first = 0;
  while (first < s.size() && IsSpace(s[first])) ++first;
  if (first == s.size()) {
    li.kind = Kind::kBlank;
    return li;
  }
  if (first > 0) return li;  // indented: a continuation
  Span ts;
  // A JSON object, a glog line or a timestamp, at `at`.
  auto opens_at = [&](size_t at) {
    if (s[at] == '{') {
      // The fields are searched in the line's first 4 KiB (a huge line is not read through).
      std::string_view head = s.substr(0, 4096);
      li.kind = Kind::kEntry;
      li.json = true;
      li.level = JsonLevel(head);
      li.ts = JsonTime(head);
      return true;
    }
    if (Level g = GlogAt(s, at, &ts); g != kNone) {
      li.kind = Kind::kEntry;
      li.level = g;
      li.ts = s.substr(ts.begin, ts.end - ts.begin);
      li.ts_at_start = true;
      return true;
    }
    ts = TimestampAt(s, at);
    if (ts.ok()) {
      li.kind = Kind::kEntry;
      li.ts = s.substr(ts.begin, ts.end - ts.begin);
      li.ts_at_start = true;
      li.level = ScanLevel(s, ts.end);
      if (li.level == kContinuation) li.kind = Kind::kContinuation;
      return true;
    }
    return false;
  };
  if (opens_at(0)) return li;
  size_t off = ComposePrefix(s);
  if (off >= s.size() || (off > 0 && opens_at(off))) return li;
  if (uint16_t status = AccessStatus(s, &ts); status != 0) {
    li.kind = Kind::kAccess;
    li.status = status;
    li.ts = s.substr(ts.begin, ts.end - ts.begin);
    return li;
  }
  size_t e = off;
  while (e < s.size() && !IsSpace(s[e])) ++e;
  std::string_view token = s.substr(off, e - off);
  if (token.empty()) return li;
  // logfmt: time=2026-11-29T20:12:01Z level=error msg="..."
  if (IsAlpha(token[0]) && token.find('=') != npos && Logfmt(s.substr(off), &li)) return li;
  // A level word first: "ERROR:root:msg", "[ERROR] msg", "E, [2026-...] ERROR -- : msg".
  Level level = kNone;
  size_t after = e;
  if (token.size() == 2 && token[1] == ',') token = token.substr(0, 1);  // Ruby's "E, ["
  if (token.size() == 1) {
    // A single letter counts only with a timestamp after it.
    switch (token[0]) {
      case 'D': level = kDebug; break;
      case 'I': level = kInfo; break;
      case 'W': level = kWarn; break;
      case 'E': level = kError; break;
      case 'F': level = kFatal; break;
      default: break;
    }
    if (level == kNone) return li;
  } else {
    level = TokenLevel(token, true);
    if (level == kNone || level == kContinuation || level == kLogLevel) return li;
  }
  while (after < s.size() && IsSpace(s[after])) ++after;
  ts = TimestampAt(s, after);
  if (token.size() == 1 && !ts.ok()) return li;
  li.kind = Kind::kEntry;
  li.level = level;
  if (ts.ok()) li.ts = s.substr(ts.begin, ts.end - ts.begin);
  return li;
}

// How much of `line`, a continuation of the entry that `first` opens, repeats `first`'s
// prefix: the same timestamp and what follows it up to a space (a process id, a user, a
// source: "2026-11-29 20:29:09.779 UTC [19668] postgres@shop DETAIL: ..."). 0 when the
// timestamps differ or nothing would be left.
size_t SharedPrefix(std::string_view first, const LineInfo& first_info, std::string_view line,
                    const LineInfo& line_info) {
  if (!first_info.ts_at_start || !line_info.ts_at_start || first_info.ts.empty()) return 0;
  const size_t ts_end = static_cast<size_t>(first_info.ts.data() - first.data()) + first_info.ts.size();
  const size_t limit = std::min(first.size(), line.size());
  size_t n = 0;
  while (n < limit && first[n] == line[n]) ++n;
  while (n > ts_end && !IsSpace(line[n - 1])) --n;
  if (n <= ts_end || n >= line.size() || !IsSpace(line[n - 1])) return 0;
  return n;
}

// A line that logs an HTTP request: a method, then a path ("INFO GET /orders/7 200 3ms",
// "\"POST /api/orders HTTP/1.1\" 500").
bool NamesRequest(std::string_view line) {
  return core::FindRequest(line.substr(0, 2048)) != npos;
}

// ---- trouble, frames ------------------------------------------------------------------------

// Lines that read like trouble: LooksLikeErrorLine's words, and what servers log without a
// level: "Connection refused", "timed out", "unreachable", "Out of memory", "critical".
bool IsTrouble(std::string_view s) {
  static const KeywordMatcher kMore({"refused", "timed out", "unreachable", "out of memory",
                                     "critical"});
  if (s.size() > 4096) s = s.substr(0, 4096);
  return LooksLikeErrorLine(s) || kMore.Contains(s);
}

// A line of Python's ^~~~ markers or Node's lone ^ under the failing code.
bool IsCaretLine(std::string_view line) {
  std::string_view t = Trim(line);
  return !t.empty() && (t.find('^') != npos || t.find('~') != npos) &&
         t.find_first_not_of("^~ ") == npos;
}

bool IsPythonFileLine(std::string_view t) { return t.starts_with("File \""); }

// A stack frame in a library or the runtime, not in the user's code.
bool IsLibraryFrame(std::string_view line) {
  std::string_view t = Trim(line);
  bool at = t.starts_with("at ");
  bool frame = at || IsPythonFileLine(t) || t.starts_with("from ") ||
               (t.size() > 2 && t[0] == '#' && IsDigit(t[1])) ||
               (line.starts_with("\t") && t.find(".go:") != npos);
  // Java, Kotlin, Scala, .NET frames of the platform and common frameworks.
  return frame && (InLibraryPath(t) || (at && IsPlatformFrame(t)));
}

// ---- repeats --------------------------------------------------------------------------------

uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x9E3779B97F4A7C15ULL + (h >> 29); }

// Character classes, for the scans that touch every byte.
constexpr uint8_t kDigitBit = 1, kAlphaBit = 2, kHexBit = 4;
constexpr std::array<uint8_t, 256> kClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = kDigitBit | kHexBit;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<size_t>(c)] = kAlphaBit;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<size_t>(c)] = kAlphaBit;
  for (int c = 'a'; c <= 'f'; ++c) t[static_cast<size_t>(c)] |= kHexBit;
  for (int c = 'A'; c <= 'F'; ++c) t[static_cast<size_t>(c)] |= kHexBit;
  return t;
}();
uint8_t ClassOf(char c) { return kClass[static_cast<unsigned char>(c)]; }

// Hashes the masked text of an entry's key lines, a piece at a time, 8 bytes a step.
class MaskedHasher {
 public:
  static constexpr size_t kMaxPiece = 4096;  // longer pieces are cut
  explicit MaskedHasher(uint64_t seed) : h_(Mix(0x243F6A8885A308D3ULL, seed)) {}
  // Adds p[0, n), which lies within [lo, hi).
  void Add(const char* p, size_t n, const char* lo, const char* hi) {
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t x;
      std::memcpy(&x, p, 8);
      h_ = Mix(h_, x);
    }
    if (n == 0) return;
    uint64_t x;
    if (hi - p >= 8) {  // the 8 bytes from p, the ones past the piece dropped
      std::memcpy(&x, p, 8);
      x &= (uint64_t{1} << (8 * n)) - 1;
    } else if (static_cast<size_t>(p - lo) + n >= 8) {  // the 8 bytes that end the piece
      std::memcpy(&x, p + n - 8, 8);
      x >>= 8 * (8 - n);
    } else {
      x = 0;
      for (size_t k = 0; k < n; ++k) x |= uint64_t{static_cast<unsigned char>(p[k])} << (8 * k);
    }
    h_ = Mix(h_, x | (uint64_t{n} << 56));
  }
  void Add(char c) { h_ = Mix(h_, 0xFF00000000000000ULL | static_cast<unsigned char>(c)); }
  uint64_t Finish() const { return h_; }

 private:
  uint64_t h_;
};

bool IsWordChar(char c) { return (ClassOf(c) & (kDigitBit | kAlphaBit)) != 0; }

// Positions of the ASCII digits among 8 bytes: the high bit of each digit's byte.
uint64_t DigitBits(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  const uint64_t low = x & (0x7f * kOnes);
  const uint64_t ge0 = low + (0x80 - '0') * kOnes;       // high bit: byte >= '0'
  const uint64_t gt9 = low + (0x80 - '9' - 1) * kOnes;   // high bit: byte > '9'
  return ge0 & ~gt9 & ~x & (0x80 * kOnes);
}

// Adds the text with every word that holds a digit masked as "#": numbers, hex ids, IPs,
// "SKU-00042"'s number, UUIDs (with their digitless groups). Words are runs of letters and
// digits. Digits are found 8 bytes at a time; the text between masked words is hashed as is.
void MaskInto(std::string_view s, MaskedHasher& out) {
  if (s.size() > MaskedHasher::kMaxPiece) s = s.substr(0, MaskedHasher::kMaxPiece);
  const size_t n = s.size();
  size_t done = 0;  // s[0, done) is hashed
  size_t i = 0;
  auto mask_word_at = [&](size_t d) {
    size_t b = d, e = d + 1;
    while (b > done && IsWordChar(s[b - 1])) --b;
    while (e < n && IsWordChar(s[e])) ++e;
    // A UUID's other groups: "-" and a run of hex letters and digits.
    while (e + 1 < n && s[e] == '-' && (ClassOf(s[e + 1]) & kHexBit) != 0) {
      size_t f = e + 1;
      while (f < n && (ClassOf(s[f]) & kHexBit) != 0) ++f;
      if (f < n && IsWordChar(s[f])) break;
      e = f;
    }
    out.Add(s.data() + done, b - done, s.data(), s.data() + n);
    out.Add('#');
    done = e;
    return e;
  };
  while (i + 8 <= n) {
    uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    uint64_t digits = DigitBits(x);
    if (digits == 0) {
      i += 8;
      continue;
    }
    i = mask_word_at(i + static_cast<size_t>(__builtin_ctzll(digits) / 8));
  }
  for (; i < n; ++i) {
    if (IsDigit(s[i])) i = mask_word_at(i) - 1;
  }
  out.Add(s.data() + done, n - done, s.data(), s.data() + n);
}

// A one-line failure's text after its timestamp (all of it when it has none).
std::string_view AfterTimestamp(std::string_view line, std::string_view ts) {
  if (ts.empty() || ts.data() < line.data() || ts.data() + ts.size() > line.data() + line.size()) {
    return line;
  }
  return line.substr(static_cast<size_t>(ts.data() + ts.size() - line.data()));
}

// The line's text for comparing repeats: the line without its timestamp, masked.
void LineKey(std::string_view line, std::string_view ts, MaskedHasher& out) {
  const char* b = line.data();
  const char* e = line.data() + line.size();
  if (!ts.empty() && ts.data() >= b && ts.data() + ts.size() <= e) {
    size_t tb = static_cast<size_t>(ts.data() - b);
    MaskInto(line.substr(0, tb), out);
    out.Add('\0');
    MaskInto(line.substr(tb + ts.size()), out);
    return;
  }
  MaskInto(line, out);
}

// The request a line logs ("GET /user/1005"), else its first word that starts with '/'
// ("/user/1005" in "Exception on /user/1005 [GET]"); empty when it names neither.
std::string_view PathOf(std::string_view line) {
  line = line.substr(0, 2048);
  size_t path_end = 0;
  if (const size_t at = core::FindRequest(line, 0, &path_end); at != npos) {
    return line.substr(at, path_end - at);
  }
  // A JSON log's request path, a string value that starts with "/": {"url":"/api/orders/7"}
  // (pino, bunyan, structlog's "path", "uri", "originalUrl"), preferred to another such value
  // (a file's "/srv/app/x.js").
  std::string_view json_path;
  for (size_t at = line.find("\"/"); at != npos; at = line.find("\"/", at + 2)) {
    size_t colon = at;
    while (colon > 0 && line[colon - 1] == ' ') --colon;
    if (colon == 0 || line[colon - 1] != ':') continue;
    const size_t end = line.find('"', at + 1);
    if (end == npos || end - at < 3) continue;
    const std::string_view value = line.substr(at + 1, end - at - 1);
    size_t key_end = colon - 1;
    while (key_end > 0 && line[key_end - 1] == ' ') --key_end;
    const size_t key_begin = key_end > 0 && line[key_end - 1] == '"' ? line.rfind('"', key_end - 2)
                                                                     : npos;
    const std::string_view key = key_begin == npos
                                     ? std::string_view()
                                     : line.substr(key_begin + 1, key_end - key_begin - 2);
    for (std::string_view url_key : {"url", "path", "uri", "originalUrl", "request_uri", "route"}) {
      if (key == url_key) return value;
    }
    if (json_path.empty()) json_path = value;
  }
  if (!json_path.empty()) return json_path;
  for (size_t at = line.find(" /"); at != npos; at = line.find(" /", at + 2)) {
    size_t end = at + 1;
    while (end < line.size() && !IsSpace(line[end]) && line[end] != '"' && line[end] != '\'' &&
           line[end] != ',') {
      ++end;
    }
    if (end - at > 2) return line.substr(at + 1, end - at - 1);
  }
  return {};
}

// A frame of a traceback: the common forms (IsFrameLine: Python's "  File \"a.py\", line 3",
// JavaScript's and the JVM's "    at f (a.js:3:5)"), Ruby's "\tfrom a.rb:3:in `f'", Go's
// "\t/src/a.go:31 +0x1d".
bool IsTraceFrame(std::string_view line) {
  const std::string_view t = Trim(line);
  return IsFrameLine(line) || t.starts_with("from ") ||
         (line.starts_with("\t") && t.find(".go:") != std::string_view::npos);
}

// The path PathOf finds in a line, as it is (not masked).
void AddPath(std::string_view line, MaskedHasher& out) {
  const std::string_view path = PathOf(line);
  if (path.empty()) return;
  out.Add('\x01');
  out.Add(path.data(), std::min(path.size(), MaskedHasher::kMaxPiece), path.data(),
          path.data() + path.size());
}

// ---- the summary ----------------------------------------------------------------------------

enum class Cat : uint8_t { kChatter, kWarning, kError, kProblem, kClient };

struct Entry {
  size_t begin = 0, end = 0;  // lines [begin, end) of the output
  Level level = kNone;
  uint16_t status = 0;
  Cat cat = Cat::kChatter;
};

struct Group {
  size_t first = 0;  // entry index
  size_t last = 0;
  uint64_t count = 0;
  uint64_t repeat_lines = 0;  // lines of the entries after the first
  uint64_t shape = 0;  // the masked text's hash, paths masked too: entries alike but for them
  std::vector<size_t> members;  // a failure's repeats (entry indices), whose paths are listed
  bool numbers_differ = false;  // a later line is not the first's to the letter (but for times)
  bool shown = false;
  bool new_kind = false;  // the first error of its traceback's shape: shown in full
};

// Gap marker labels: the levels, then status classes 1xx..5xx, then "without a level".
constexpr size_t kStatusLabel = kLevelCount;  // + status / 100 - 1
constexpr size_t kUnleveledLabel = kLevelCount + 5;
constexpr size_t kLabelCount = kLevelCount + 6;

size_t LabelOf(const Entry& e) {
  if (e.status != 0) return kStatusLabel + e.status / 100 - 1;
  if (e.level == kNone || e.level == kContinuation) return kUnleveledLabel;
  return e.level;
}

std::string LabelText(size_t label) {
  if (label >= kStatusLabel && label < kUnleveledLabel) {
    return StrCat(label - kStatusLabel + 1, "xx");
  }
  return std::string(kLevelNames[label].singular);
}

class LogsShaper final : public core::Shaper {
 public:
  LogsShaper() {
    meta_.id = "builtin-logs";
    meta_.name = "logs";
    meta_.version = "1.0.0";
    meta_.description =
        "Application and server logs: errors kept with their traces, repeats folded, warnings "
        "and requests counted by level and status";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "logs";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    // How much of the snippet reads like a log.
    size_t nonblank = 0, ts_lines = 0, access = 0, json = 0, level_only = 0;
    size_t traces = 0;  // lines of tracebacks: indented, or a traceback's first or last line
    size_t pos = 0;
    while (pos < snippet.size()) {
      size_t nl = snippet.find('\n', pos);
      if (nl == npos) nl = snippet.size();
      std::string_view line = snippet.substr(pos, nl - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      pos = nl + 1;
      LineInfo li = Classify(line);
      if (li.kind == Kind::kBlank) continue;
      ++nonblank;
      if (IsTraceLine(line, li)) ++traces;
      if (li.kind == Kind::kAccess) {
        ++access;
      } else if (li.json) {
        if (li.level != kNone || !li.ts.empty()) ++json;
      } else if (li.kind == Kind::kEntry || (li.kind == Kind::kContinuation && !li.ts.empty())) {
        // A timestamp first, or after the level ("INFO 2026-12-04 20:06:23,719 django.server
        // …", Python logging's "%(levelname)s %(asctime)s").
        if (li.ts_at_start || (li.level != kNone && !li.ts.empty())) {
          ++ts_lines;
        } else if (li.level != kNone) {
          ++level_only;
        }
      }
    }
    const double strong = static_cast<double>(ts_lines + access + json);
    const double all = strong + static_cast<double>(level_only);
    const double n = static_cast<double>(std::max<size_t>(nonblank, 1));
    const bool looks = nonblank <= 2 || all >= 0.4 * n;
    // A log whose entries carry long tracebacks (Django's, Celery's): most lines are theirs.
    const bool looks_with_traces = looks || (all >= 3 && all + static_cast<double>(traces) >= 0.7 * n);

    std::string signal;
    // Any stage of the pipeline the output comes from: "kubectl logs api | tail -200",
    // "cat app.log | grep -v DEBUG".
    bool logs_command = false, log_file = false;
    for (std::string_view stage : PipelineStages(command)) {
      if (!logs_command && IsLogsCommand(stage, &signal)) logs_command = true;
      if (!logs_command && !log_file && ReadsLogFile(stage, &signal)) log_file = true;
    }
    if (logs_command) {
      return core::MatchResult{true, looks_with_traces ? 0.9 : 0.65, {signal}};
    }
    if (log_file && looks_with_traces && all >= 1) {
      return core::MatchResult{true, 0.9, {signal}};
    }
    std::string what = access >= ts_lines && access >= json ? "access log lines"
                       : json >= ts_lines                   ? "JSON log lines"
                                                            : "timestamped lines";
    if (strong >= 3 && strong >= 0.6 * n) {
      return core::MatchResult{true, 0.8, {StrCat("output: ", what)}};
    }
    if (strong >= 3 && all >= 0.4 * n) {
      return core::MatchResult{true, 0.7, {StrCat("output: ", what)}};
    }
    if (level_only >= 3 && all >= 0.6 * n) {
      return core::MatchResult{true, 0.55, {"output: lines with levels"}};
    }
    return core::MatchResult{false, 0, {}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    std::vector<std::string_view> lines = core::SplitLines(output);
    const size_t n = lines.size();
    // Few lines show as they are, unless they are huge (one 50 MB JSON line): then the long
    // lines are cut.
    if ((n < kMinLines && output.size() <= kHugeOutputBytes) || context.raw_path.empty()) {
      return core::ShapeOutput{"", RenderMode::kRaw};
    }
    std::vector<LineInfo> info(n);
    size_t nonblank = 0, starts = 0, traces = 0;
    for (size_t i = 0; i < n; ++i) {
      info[i] = Classify(lines[i]);
      if (info[i].kind != Kind::kBlank) ++nonblank;
      if (info[i].kind == Kind::kEntry || info[i].kind == Kind::kAccess) ++starts;
      if (IsTraceLine(lines[i], info[i])) ++traces;
    }
    SummaryWriter out(&lines);
    // A log whose entries carry long tracebacks is read as Match reads it: most lines theirs.
    const bool with_traces = starts >= 3 && (starts + traces) * 10 >= nonblank * 7;
    if (starts == 0 || (starts * 10 < nonblank * 4 && !with_traces)) {
      // Not a log this shaper can read: claim nothing about it.
      std::string tool = ToolName(context.command);
      std::string note = FailureNote(context.command, context.exit_code);
      if (note.empty() && context.exit_code) note = "exit 0";
      out.Header(StrCat(tool.empty() ? "output" : tool, ": ",
                        note.empty() ? "" : StrCat(note, ", "), core::FormatCount(n),
                        n == 1 ? " line" : " lines"));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    // Entries: a line that opens one, and the lines that continue it.
    std::vector<Entry> entries;
    entries.reserve(starts + 1);
    std::array<uint64_t, kLevelCount> level_counts{};
    std::array<uint64_t, 600> status_counts{};
    uint64_t requests = 0;
    std::string_view first_ts, last_ts;
    for (size_t i = 0; i < n; ++i) {
      const LineInfo& li = info[i];
      if (!li.ts.empty()) {
        if (first_ts.empty()) first_ts = li.ts;
        last_ts = li.ts;
      }
      // java.util.logging's two-line format: a timestamp and the source ("Dec 04, 2026 2:11:34
      // PM OrderService main"), then the level and the message ("SEVERE: order 57 failed").
      // The pair is one entry, at the second line's level.
      if (li.kind == Kind::kEntry && li.ts.empty() && li.level != kNone && !entries.empty() &&
          entries.back().begin + 1 == i && entries.back().end == i && entries.back().level == kNone &&
          entries.back().status == 0 && info[i - 1].kind == Kind::kEntry && !info[i - 1].ts.empty()) {
        --level_counts[kNone];
        ++level_counts[li.level];
        entries.back().level = li.level;
        entries.back().end = i + 1;
        continue;
      }
      // An access log line is one line: what follows it without a timestamp is the app's own
      // output (console.error(err) between morgan's lines), an entry of its own.
      const bool after_access = li.kind == Kind::kContinuation && !entries.empty() &&
                                info[entries.back().begin].kind == Kind::kAccess &&
                                entries.back().end == i;
      if (li.kind == Kind::kEntry || li.kind == Kind::kAccess || entries.empty() || after_access) {
        Entry e;
        e.begin = i;
        if (li.kind == Kind::kEntry) {
          e.level = li.level;
          ++level_counts[li.level];
          // An entry that records a request and its status ("INFO werkzeug: … \"GET /x
          // HTTP/1.1\" 500 -", "GET /x 400 33µs", {"path": "/x", "status": 500}).
          if (uint16_t status = core::RequestStatus(lines[i]); status != 0) {
            e.status = status;
            ++status_counts[status];
            ++requests;
          }
        } else if (li.kind == Kind::kAccess) {
          e.status = li.status;
          ++status_counts[li.status];
          ++requests;
        }
        entries.push_back(e);
      }
      entries.back().end = i + 1;
    }

    // What each entry is: an error, a warning, a 4xx, trouble without a level, or chatter.
    for (Entry& e : entries) {
      const bool leveled = info[e.begin].kind == Kind::kEntry;
      if (e.status >= 500) {
        e.cat = Cat::kError;
      } else if (e.status >= 400 && !(leveled && (IsErrorLevel(e.level) || e.level == kWarn))) {
        e.cat = Cat::kClient;
      } else if (e.status != 0 && !leveled) {
        e.cat = Cat::kChatter;
      } else if (IsErrorLevel(e.level)) {
        e.cat = Cat::kError;
      } else if (e.level == kWarn) {
        e.cat = Cat::kWarning;
      } else {
        // Unleveled entries read like trouble on any line; leveled ones (info, debug) only in
        // what follows them (a traceback logged at info level, a crash after the last line).
        size_t from = e.level == kNone || info[e.begin].kind != Kind::kEntry ? e.begin : e.begin + 1;
        for (size_t i = from; i < e.end; ++i) {
          if (info[i].kind != Kind::kBlank && IsTrouble(lines[i])) {
            e.cat = Cat::kProblem;
            break;
          }
        }
      }
    }

    out.Header(Header(n, requests, status_counts, level_counts, first_ts, last_ts, context));

    // Group the entries worth showing by their masked text; the first of each group is shown.
    std::array<size_t, 5> cat_count{};
    for (const Entry& e : entries) ++cat_count[static_cast<size_t>(e.cat)];
    std::vector<Group> groups;
    std::vector<int64_t> group_of(entries.size(), -1);
    auto traceback = [&entries](size_t j) {
      return j < entries.size() && entries[j].cat == Cat::kError && entries[j].end - entries[j].begin > 2;
    };
    std::unordered_map<uint64_t, size_t> by_key;
    std::array<size_t, 5> shown_groups{};
    absl::flat_hash_set<uint64_t> error_shapes;  // the tracebacks' shapes seen
    for (size_t k = 0; k < entries.size(); ++k) {
      const Entry& e = entries[k];
      if (e.cat == Cat::kChatter) continue;
      size_t cat = static_cast<size_t>(e.cat);
      bool fold = e.cat == Cat::kError || e.cat == Cat::kProblem || cat_count[cat] > kFewLines;
      // The failed request logged next to a traceback (before or after it) stays with it.
      if (e.status >= 500 && e.end - e.begin == 1 && ((k > 0 && traceback(k - 1)) || traceback(k + 1))) {
        fold = false;
      }
      size_t cap = e.cat == Cat::kError     ? kMaxErrorGroups
                   : e.cat == Cat::kProblem ? kMaxProblemGroups
                   : e.cat == Cat::kWarning ? kMaxWarningGroups
                                            : kMaxClientGroups;
      size_t g = groups.size();
      uint64_t shape = 0;
      if (fold) {
        // Requests repeat only with the same status (the mask would hide it).
        MaskedHasher hasher(cat * 1000 + e.status);
        LineKey(lines[e.begin], info[e.begin].ts, hasher);
        for (size_t i = e.end; i-- > e.begin + 1;) {
          if (info[i].kind != Kind::kBlank) {
            hasher.Add('\n');
            LineKey(lines[i], info[i].ts, hasher);
            break;
          }
        }
        // A traceback through other code is another failure, whatever its first and last
        // lines say: its frames count, masked (Go's pointers, the line numbers).
        const bool traceback_entry =
            (e.cat == Cat::kError || e.cat == Cat::kProblem) && e.end - e.begin > 2;
        for (size_t i = e.begin + 1; traceback_entry && i + 1 < e.end; ++i) {
          if (!IsTraceFrame(lines[i].substr(ComposePrefix(lines[i])))) continue;
          hasher.Add('\x02');
          MaskInto(lines[i], hasher);
        }
        // And so is another exception, when the entry's last line is not it (Python's
        // http.server closes its report with a line of dashes): "ValueError: …" after
        // "ZeroDivisionError: …" is no repeat.
        for (size_t i = e.end; traceback_entry && i-- > e.begin + 1;) {
          if (!IsExceptionLine(lines[i].substr(ComposePrefix(lines[i])))) continue;
          hasher.Add('\x03');
          LineKey(lines[i], info[i].ts, hasher);
          break;
        }
        shape = hasher.Finish();
        // An error with a traceback is told from another by its paths: "Exception on
        // /user/1005" and "… /user/1010" are not repeats, whatever their digits (the second
        // is shown by its first and last lines, WriteAlike). One-line failures that differ in
        // their paths are repeats whose paths the marker lists.
        if (traceback_entry) AddPath(lines[e.begin], hasher);
        uint64_t h = hasher.Finish();
        auto [it, inserted] = by_key.emplace(h, groups.size());
        g = it->second;
        if (!inserted) {
          Group& group = groups[g];
          ++group.count;
          group.last = k;
          group.repeat_lines += e.end - e.begin;
          group.numbers_differ =
              group.numbers_differ ||
              AfterTimestamp(lines[e.begin], info[e.begin].ts) !=
                  AfterTimestamp(lines[entries[group.first].begin],
                                 info[entries[group.first].begin].ts);
          if (e.cat != Cat::kWarning) group.members.push_back(k);
          group_of[k] = static_cast<int64_t>(g);
          continue;
        }
      }
      Group group;
      group.first = group.last = k;
      group.count = 1;
      group.shape = shape;
      // Past the cap, an error of a kind not seen yet (another traceback, not another path
      // through the same one) is still shown: the errors the log holds, each once.
      const bool new_kind = e.cat == Cat::kError && e.end - e.begin > 2 && shape != 0 &&
                            error_shapes.insert(shape).second;
      // The failed request logged right after a traceback that is shown goes with it.
      const bool beside = e.status >= 500 && e.end - e.begin == 1 && k > 0 && traceback(k - 1) &&
                          group_of[k - 1] >= 0 && groups[static_cast<size_t>(group_of[k - 1])].shown;
      group.new_kind = new_kind;
      group.shown = shown_groups[cat] < cap || new_kind || beside;
      if (group.shown) ++shown_groups[cat];
      groups.push_back(group);
      group_of[k] = static_cast<int64_t>(g);
    }

    // In the output's order: the groups' first entries, each with its count of repeats; the
    // first and last lines as they are (how the log starts and how it ends); the rest counted
    // in markers between them.
    const size_t head_end = std::min(kHeadLines, n);
    const size_t tail_begin = std::max(head_end, n - std::min(kTailLines, n));
    std::array<uint64_t, kLabelCount> gap{};
    uint64_t gap_total = 0;
    // The failed requests (5xx) a gap holds: each named after the gap's marker, by its request
    // and status ("GET /orders/625/total 500"), when it says which.
    std::vector<std::pair<std::string_view, uint16_t>> gap_failed;
    auto flush_gap = [&]() {
      if (gap_total == 0) return;
      size_t kinds = 0, only = 0;
      for (size_t l = 0; l < kLabelCount; ++l) {
        if (gap[l] > 0) {
          ++kinds;
          only = l;
        }
      }
      const char* lines_word = gap_total == 1 ? "line" : "lines";
      std::string what;
      if (kinds == 1 && only == kUnleveledLabel) {
        what = StrCat(lines_word, " without a level omitted");
      } else if (kinds == 1) {
        what = StrCat(LabelText(only), " ", lines_word, " omitted");
      } else {
        what = StrCat(lines_word, " omitted (");
        bool first = true;
        auto add = [&](size_t l) {
          if (gap[l] == 0) return;
          StrAppend(&what, first ? "" : ", ", core::FormatCount(gap[l]), " ",
                    l == kUnleveledLabel ? "without a level" : LabelText(l));
          first = false;
        };
        for (Level l : kSeverityOrder) add(l);
        for (size_t c = 5; c-- > 0;) add(kStatusLabel + c);
        add(kUnleveledLabel);
        what += ")";
      }
      out.ElidedLines(gap_total, what);
      if (!gap_failed.empty()) {
        const size_t failed = gap_failed.size();
        WriteLocationList(
            StrCat(core::FormatCount(failed), failed == 1 ? " failed request" : " failed requests",
                   " among them", core::kListAt),
            StrCat("failed requests", core::kListAlsoAt), failed, 0, out,
            [&](size_t i, std::string* text) {
              StrAppend(text, gap_failed[i].first, " ", gap_failed[i].second);
            });
        gap_failed.clear();
      }
      gap.fill(0);
      gap_total = 0;
    };

    // The request logged just before an error shown that names none itself: the request it
    // failed ("GET /export 200 streaming" before the exception that broke the response).
    std::vector<bool> leads_to_error(entries.size(), false);
    for (size_t k = 1; k < entries.size(); ++k) {
      const int64_t g = group_of[k];
      if (entries[k].cat == Cat::kError && g >= 0 && groups[static_cast<size_t>(g)].shown &&
          groups[static_cast<size_t>(g)].first == k && !NamesRequest(lines[entries[k].begin]) &&
          entries[k - 1].cat != Cat::kError && NamesRequest(lines[entries[k - 1].begin]) &&
          // Not when the request that failed is logged after the error, with its status.
          !(k + 1 < entries.size() && entries[k + 1].status >= 500)) {
        leads_to_error[k - 1] = true;
      }
    }

    uint64_t accounted_elsewhere = 0;  // lines an Elided() marker stands for
    // Errors shown by their first and last lines (WriteAlike), and the lines of those after
    // the first that were left out.
    uint64_t alike_entries = 0, alike_lines = 0, alike_counted = 0;
    size_t full_errors = 0;
    absl::flat_hash_set<uint64_t> shown_shapes;  // of the error entries shown
    for (size_t k = 0; k < entries.size(); ++k) {
      const Entry& e = entries[k];
      int64_t g = group_of[k];
      if (g < 0 || !groups[static_cast<size_t>(g)].shown) {
        for (size_t i = e.begin; i < e.end; ++i) {
          if (i < head_end || i >= tail_begin || (i == e.begin && leads_to_error[k])) {
            flush_gap();
            out.Line(lines[i]);
          } else {
            ++gap[LabelOf(e)];
            ++gap_total;
            if (i == e.begin && e.status >= 500) {
              if (const std::string_view request = PathOf(lines[i]); !request.empty()) {
                gap_failed.emplace_back(request, e.status);
              }
            }
          }
        }
        continue;
      }
      const Group& group = groups[static_cast<size_t>(g)];
      if (group.first != k) continue;  // a repeat, counted under the first
      flush_gap();
      // An error like one shown in full but for its paths (the same traceback for another
      // user's request): its first and last lines.
      const bool alike = e.cat == Cat::kError && e.end - e.begin > 2 && group.shape != 0 &&
                         !shown_shapes.insert(group.shape).second;
      bool full = e.cat != Cat::kError || (!alike && full_errors++ < kFullErrorGroups) ||
                  group.new_kind;
      if (alike) {
        // The first such entry says what its first and last lines stand for; the lines the
        // others leave out are counted in one marker at the end.
        const uint64_t left_out = WriteAlike(lines, e.begin, e.end, alike_entries == 0, out);
        if (alike_entries++ > 0) {
          alike_lines += left_out;
          alike_counted += left_out > 0 ? 1 : 0;
        }
      } else {
        WriteEntry(lines, info, e.begin, e.end, full, out);
      }
      if (group.count > 1) {
        uint64_t repeats = group.count - 1;
        std::string_view last = info[entries[group.last].begin].ts;
        bool single = group.repeat_lines == repeats && e.end - e.begin == 1;
        std::string what = StrCat(repeats == 1 ? "repeat" : "repeats", " of the ",
                                  single ? "line" : "entry", " above");
        if (!last.empty()) StrAppend(&what, " (last at ", last, ")");
        // The requests or paths the repeats name, when they are not all the first's.
        std::vector<std::string_view> paths;
        std::string_view first_path = PathOf(lines[e.begin]);
        bool differ = false;
        // A traceback that names no request, after the request it failed (leads_to_error):
        // the request each repeat followed ("POST /orders/5120/checkout" before the same
        // traceback), when the entry before it names one. (A one-line error's repeats are
        // told apart by their own values, below.)
        const bool after_request =
            e.cat == Cat::kError && e.end - e.begin > 1 && k > 0 && leads_to_error[k - 1];
        if (after_request && first_path.empty()) first_path = PathOf(lines[entries[k - 1].begin]);
        for (size_t m : group.members) {
          std::string_view path = PathOf(lines[entries[m].begin]);
          if (after_request && path.empty() && m > 0 && entries[m - 1].cat != Cat::kError &&
              NamesRequest(lines[entries[m - 1].begin])) {
            path = PathOf(lines[entries[m - 1].begin]);
          }
          paths.push_back(path);
          differ = differ || paths.back() != first_path;
        }
        if (differ && paths.size() == repeats) {
          std::string like = StrCat(core::FormatCount(repeats), " more like the ",
                                    single ? "line" : "entry", " above");
          if (!last.empty()) StrAppend(&like, " (last at ", last, ")");
          // Each path once, in the order first seen, with how many of them name it
          // ("GET /api/orders?page=3 ×57"): a client retrying a few pages is no list of hundreds.
          std::vector<std::pair<std::string_view, uint64_t>> distinct;
          absl::flat_hash_map<std::string_view, size_t> index;
          for (std::string_view path : paths) {
            auto [it, inserted] = index.try_emplace(path, distinct.size());
            if (inserted) distinct.emplace_back(path, 0);
            ++distinct[it->second].second;
          }
          WriteLocationList(StrCat(like, core::kListAt),
                            StrCat(single ? "lines" : "entries", " like it", core::kListAlsoAt),
                            distinct.size(), group.repeat_lines, out,
                            [&](size_t i, std::string* text) {
                              const auto& [path, times] = distinct[i];
                              text->append(path.empty() ? std::string_view("(no path)") : path);
                              if (times > 1) StrAppend(text, " ×", core::FormatCount(times));
                            });
        } else if (single && e.cat != Cat::kClient && paths.size() == repeats &&
                   WriteValuesDiffering(lines, info, entries, e.begin, group, out)) {
          // Written: the values each of them has where they differ.
        } else if (single) {
          // Lines alike but for their numbers are no repeats: said so.
          if (group.numbers_differ) {
            what = "more like the line above, numbers differing";
            if (!last.empty()) StrAppend(&what, " (last at ", last, ")");
          }
          out.ElidedLines(repeats, what);
        } else if (!single && paths.size() == repeats &&
                   WriteLastLinesDiffering(lines, info, entries, group, out)) {
          // Written: where each one's last line (its exception) differs.
        } else {
          out.Elided(repeats, what);
          accounted_elsewhere += group.repeat_lines;
        }
      }
    }
    flush_gap();
    if (alike_lines > 0) {
      out.ElidedLines(alike_lines,
                      StrCat(alike_lines == 1 ? "line" : "lines", " of ",
                             Plural(alike_counted, "more error", "more errors"),
                             " like one shown in full above omitted (each is shown by its first "
                             "and last lines)"));
    }

    uint64_t rest = out.UnaccountedLines();
    rest -= std::min(rest, accounted_elsewhere);
    out.Omitted(rest, "other line", "other lines");
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

 private:
  static std::string Header(size_t lines, uint64_t requests,
                            const std::array<uint64_t, 600>& status_counts,
                            const std::array<uint64_t, kLevelCount>& level_counts,
                            std::string_view first_ts, std::string_view last_ts,
                            const core::ShapeContext& context) {
    // A run that failed says so first: "log: FAILED (exit 1), 2,567 lines, …".
    std::string failure = FailureNote(context.command, context.exit_code);
    if (!failure.empty()) failure += ", ";
    std::string h;
    if (requests == lines) {
      h = StrCat("access log: ", failure, core::FormatCount(requests),
                 requests == 1 ? " request" : " requests");
    } else {
      h = StrCat("log: ", failure, core::FormatCount(lines), lines == 1 ? " line" : " lines");
      if (requests > 0) StrAppend(&h, ", ", core::FormatCount(requests), " requests");
    }
    if (requests > 0) {
      // By status, server errors first.
      h += " by status:";
      bool first = true;
      for (int cls = 5; cls >= 1; --cls) {
        for (int s = cls * 100; s < cls * 100 + 100; ++s) {
          if (status_counts[static_cast<size_t>(s)] == 0) continue;
          StrAppend(&h, first ? " " : ", ", core::FormatCount(status_counts[static_cast<size_t>(s)]),
                    " × ", s);
          first = false;
        }
      }
    }
    for (Level l : kSeverityOrder) {
      uint64_t c = level_counts[l];
      if (c == 0) continue;
      StrAppend(&h, ", ", core::FormatCount(c), " ",
                c == 1 ? kLevelNames[l].singular : kLevelNames[l].plural);
    }
    if (!first_ts.empty()) {
      if (first_ts == last_ts) {
        StrAppend(&h, " (", first_ts, ")");
      } else {
        StrAppend(&h, " (", first_ts, " – ", last_ts, ")");
      }
    }
    return h;
  }

  // The values of `fillers` (views into `t`) that `varies` marks, each as `t` has it with the
  // word before it and the rest of its own word ("order 10980:", "(code 56)",
  // "\"reqId\":\"913fecb9…\""; a word ends at a space or at JSON's punctuation, and at
  // kValueContext characters), pieces that touch joined, separated by spaces.
  static void AppendValuesInContext(std::string_view t, const Fillers& fillers,
                                    const std::vector<bool>& varies, std::string* text) {
    auto boundary = [](char c) {
      return c == ' ' || c == '\t' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']';
    };
    size_t piece_begin = 0, piece_end = 0;
    bool open = false;
    auto flush = [&] {
      if (!open) return;
      if (!text->empty() && text->back() != ' ') text->push_back(' ');
      text->append(t.substr(piece_begin, piece_end - piece_begin));
    };
    for (size_t f = 0; f < varies.size() && f < fillers.size(); ++f) {
      if (!varies[f]) continue;
      size_t begin = static_cast<size_t>(fillers[f].data() - t.data());
      size_t end = begin + fillers[f].size();
      const size_t end_cap = std::min(t.size(), end + kValueContext);
      while (end < end_cap && !boundary(t[end])) ++end;
      const size_t begin_cap = begin > 2 * kValueContext ? begin - 2 * kValueContext : 0;
      while (begin > begin_cap && !boundary(t[begin - 1])) --begin;
      size_t before = begin;  // the word before it
      while (before > begin_cap && t[before - 1] == ' ') --before;
      if (before > begin_cap && before < begin) {
        while (before > begin_cap && !boundary(t[before - 1])) --before;
        begin = before;
      }
      if (open && begin <= piece_end + 1) {
        piece_end = std::max(piece_end, end);
        continue;
      }
      flush();
      piece_begin = begin;
      piece_end = end;
      open = true;
    }
    flush();
  }

  // The failures of a one-line group shown by its first, `line`, that differ from it in their
  // numbers or quoted names (the order, the job, the attempt each is about): a list of each
  // one's timestamp and the values it has where the group's lines differ, "… 5 more like the
  // line above, numbers differing, at: 2026-12-05 10:02:20,121 order 10980: (code 55); …" — so no
  // failure's identifiers are lost to a count. False (nothing written) when they differ from
  // it in nothing but their timestamps, or in words the mask does not tell apart, or when they
  // are more than kMaxValueLists (a flood: a connection's numbers, retried thousands of times).
  static bool WriteValuesDiffering(const std::vector<std::string_view>& lines,
                                   const std::vector<LineInfo>& info,
                                   const std::vector<Entry>& entries, size_t line,
                                   const Group& group, SummaryWriter& out) {
    if (group.members.size() > kMaxValueLists) return false;
    const MessageShape first = ShapeOfMessage(AfterTimestamp(lines[line], info[line].ts));
    std::vector<MessageShape> shapes;
    shapes.reserve(group.members.size());
    std::vector<bool> varies(first.fillers.size(), false);
    for (size_t m : group.members) {
      const size_t at = entries[m].begin;
      shapes.push_back(ShapeOfMessage(AfterTimestamp(lines[at], info[at].ts)));
      const MessageShape& shape = shapes.back();
      if (shape.key != first.key || shape.fillers.size() != first.fillers.size()) return false;
      for (size_t f = 0; f < varies.size(); ++f) {
        if (shape.fillers[f] != first.fillers[f]) varies[f] = true;
      }
    }
    if (std::find(varies.begin(), varies.end(), true) == varies.end()) return false;
    const bool timed = !info[line].ts.empty();
    const size_t count = group.members.size();
    const std::string like = StrCat(core::FormatCount(count), " more like the line above, ",
                                    timed ? "numbers differing," : "numbers differing",
                                    core::kListAt);
    WriteLocationList(like, StrCat("lines like it", core::kListAlsoAt), count, count, out,
                      [&](size_t i, std::string* text) {
                        const size_t at = entries[group.members[i]].begin;
                        if (timed) StrAppend(text, info[at].ts, " ");
                        AppendValuesInContext(AfterTimestamp(lines[at], info[at].ts),
                                              shapes[i].fillers, varies, text);
                      });
    return true;
  }

  // The repeats of an entry of many lines shown above, `group`, whose last lines (the exception,
  // "RuntimeError: handler crashed hard on /crash/job153") differ from the first's in a few
  // words (kMaxDifferingWords; a timestamp's aside): a list of each one's words where they
  // differ, "… 10 more like the entry above, its last line differing, at: /crash/job153;
  // /crash/job253; …" — so no failure's identifiers are lost to a count of repeats. False
  // (nothing written) when they do not differ there, or when they are more than kMaxValueLists.
  static bool WriteLastLinesDiffering(const std::vector<std::string_view>& lines,
                                      const std::vector<LineInfo>& info,
                                      const std::vector<Entry>& entries, const Group& group,
                                      SummaryWriter& out) {
    if (group.members.empty() || group.members.size() > kMaxValueLists) return false;
    // Its exception's line (Python's http.server closes the report with a line of dashes), or
    // its last line.
    auto last_line = [&](size_t entry) {
      for (size_t at = entries[entry].end; at-- > entries[entry].begin + 1;) {
        if (IsExceptionLine(lines[at].substr(ComposePrefix(lines[at])))) return at;
      }
      size_t at = entries[entry].end;
      while (at > entries[entry].begin + 1 && Trim(lines[at - 1]).empty()) --at;
      return at - 1;
    };
    auto body = [&](size_t at) {
      return AfterTimestamp(lines[at].substr(ComposePrefix(lines[at])), info[at].ts);
    };
    // A value inside the line's timestamp is no difference: when it was is in the marker's
    // "last at".
    auto in_timestamp = [&](size_t at, std::string_view filler) {
      const std::string_view ts = info[at].ts;
      return !ts.empty() && filler.data() >= ts.data() &&
             filler.data() + filler.size() <= ts.data() + ts.size();
    };
    // Word by word: the words where any of them differs from the first's.
    auto words_of = [&](size_t at) {
      std::vector<std::string_view> words;
      for (absl::string_view w : absl::StrSplit(ToAbsl(body(at)), ' ', absl::SkipEmpty())) {
        words.emplace_back(w.data(), w.size());
      }
      return words;
    };
    const size_t first_at = last_line(group.first);
    const std::vector<std::string_view> first = words_of(first_at);
    std::vector<std::vector<std::string_view>> words;
    std::vector<bool> varies(first.size(), false);
    for (size_t m : group.members) {
      const size_t at = last_line(m);
      words.push_back(words_of(at));
      if (words.back().size() != first.size()) return false;
      for (size_t w = 0; w < first.size(); ++w) {
        if (words.back()[w] != first[w] && !in_timestamp(at, words.back()[w])) varies[w] = true;
      }
    }
    const size_t differing = static_cast<size_t>(std::count(varies.begin(), varies.end(), true));
    if (differing == 0 || differing > kMaxDifferingWords) return false;
    const size_t count = group.members.size();
    WriteLocationList(StrCat(core::FormatCount(count),
                             " more like the entry above, its last line "
                             "differing,",
                             core::kListAt),
                      StrCat("entries like it", core::kListAlsoAt), count, group.repeat_lines, out,
                      [&](size_t i, std::string* text) {
                        bool any = false;
                        for (size_t w = 0; w < varies.size(); ++w) {
                          if (!varies[w]) continue;
                          StrAppend(text, any ? " " : "", words[i][w]);
                          any = true;
                        }
                      });
    return true;
  }

  // An entry whose lines are those of one shown above but for their paths and numbers: its
  // first line and its last (the exception with its message). The lines between them are
  // counted in a marker when `mark`; how many they are.
  static uint64_t WriteAlike(const std::vector<std::string_view>& lines, size_t b, size_t e,
                             bool mark, SummaryWriter& out) {
    size_t last = e - 1;
    while (last > b && Trim(lines[last]).empty()) --last;
    out.Line(lines[b]);
    if (last == b) return 0;
    const size_t between = last - b - 1;
    if (mark) {
      out.ElidedLines(between, StrCat(between == 1 ? "line" : "lines",
                                      " omitted, as in the entry like it above"));
    }
    out.Line(lines[last]);
    return between;
  }

  // An entry: its first line, then what follows it without library stack frames and ^~~
  // markers; very long ones keep their head and tail.
  static void WriteEntry(const std::vector<std::string_view>& lines,
                         const std::vector<LineInfo>& info, size_t b, size_t e, bool full,
                         SummaryWriter& out) {
    out.Line(lines[b]);
    // A line that repeats the first line's timestamp and source shows without them.
    auto show = [&](size_t i) {
      if (size_t skip = SharedPrefix(lines[b], info[b], lines[i], info[i]); skip > 0) {
        out.LineAfterPrefix(lines[i], skip);
      } else {
        out.Line(lines[i]);
      }
    };
    if (e - b == 1) return;
    if (!full) {
      out.ElidedLines(e - b - 1, e - b - 1 == 1 ? "more line of this entry omitted"
                                                : "more lines of this entry omitted");
      return;
    }
    std::vector<size_t> kept;
    uint64_t library = 0, carets = 0, blanks = 0;
    // A line as its program wrote it: without docker compose's "web-1  | ".
    auto body = [&](size_t i) { return lines[i].substr(ComposePrefix(lines[i])); };
    for (size_t i = b + 1; i < e; ++i) {
      std::string_view line = body(i);
      if (IsCaretLine(line)) {
        ++carets;
        continue;
      }
      // A Go frame is two lines: the function, then its file in a tab-indented line.
      if (i + 1 < e && !line.empty() && !IsSpace(line[0]) && body(i + 1).starts_with("\t") &&
          body(i + 1).find(".go:") != npos && IsLibraryFrame(body(i + 1))) {
        library += 2;
        ++i;
        continue;
      }
      if (IsLibraryFrame(line)) {
        ++library;
        // A Python frame's source line (and its markers) follow its "File ..." line.
        if (IsPythonFileLine(Trim(line))) {
          while (i + 1 < e) {
            std::string_view next = Trim(body(i + 1));
            if (next.empty() || IsPythonFileLine(next) || body(i + 1).find_first_not_of(" \t") < 4) {
              break;
            }
            ++i;
            ++library;
          }
        }
        continue;
      }
      kept.push_back(i);
    }
    while (!kept.empty() && Trim(lines[kept.back()]).empty()) {
      kept.pop_back();
      ++blanks;  // trailing blank lines carry nothing
    }
    if (kept.size() <= kMaxEntryLines) {
      // Runs of three or more equal lines ("restarting in 1s") fold.
      for (size_t k = 0; k < kept.size();) {
        size_t j = k + 1;
        while (j < kept.size() && lines[kept[j]] == lines[kept[k]]) ++j;
        show(kept[k]);
        if (j - k == 2) {
          show(kept[k + 1]);
        } else if (j - k > 2) {
          out.ElidedLines(j - k - 1, "repeats of the line above");
        }
        k = j;
      }
    } else {
      const size_t head = 25, tail = 12;
      for (size_t k = 0; k < head; ++k) show(kept[k]);
      size_t middle = kept.size() - head - tail;
      out.ElidedLines(middle, middle == 1 ? "line of this entry omitted" : "lines of this entry omitted");
      for (size_t k = kept.size() - tail; k < kept.size(); ++k) show(kept[k]);
    }
    uint64_t dropped = library + carets + blanks;
    if (dropped > 0) {
      std::vector<std::string_view> parts;
      if (library > 0) parts.push_back("library stack frames");
      if (carets > 0) parts.push_back("^~ markers");
      if (blanks > 0) parts.push_back("trailing blank lines");
      std::string what = StrCat(dropped == 1 ? "line" : "lines", " of ");
      for (size_t k = 0; k < parts.size(); ++k) {
        StrAppend(&what, k == 0 ? "" : k + 1 == parts.size() ? " and " : ", ", parts[k]);
      }
      out.ElidedLines(dropped, StrCat(what, " omitted"));
    }
  }

  // Commands whose output is a log by definition.
  static bool IsLogsCommand(std::string_view command, std::string* signal) {
    std::string tool = ToolName(command);
    if (tool.empty()) return false;
    std::vector<std::string> args = ToolArgs(command);
    if (tool == "journalctl" || tool == "dmesg" || tool == "logread" || tool == "stern" ||
        tool == "kail" || tool == "logcat") {
      *signal = StrCat("command: ", tool);
      return true;
    }
    static constexpr std::string_view kLogsClis[] = {
        "docker", "podman", "nerdctl", "kubectl", "oc", "heroku", "fly", "flyctl", "railway",
        "vercel", "pm2", "docker-compose", "minikube", "aws", "gcloud", "az", "adb", "supervisorctl",
        "render", "netlify", "wrangler", "k9s", "eb", "cf", "nomad", "sam", "firebase", "doctl"};
    bool cli = false;
    for (std::string_view c : kLogsClis) cli = cli || tool == c;
    if (cli) {
      for (const std::string& a : args) {
        if (a == "logs" || a == "log" || a == "logcat" || a == "tail" || a == "logging") {
          if (a == "log" && tool != "az" && tool != "cf") continue;
          if (a == "tail" && tool != "supervisorctl" && tool != "wrangler") continue;
          *signal = StrCat("command: ", tool, " ", a);
          return true;
        }
      }
    }
    if (tool == "tail") {
      for (const std::string& a : args) {
        if (a == "-f" || a == "-F" || a == "--follow" || a.starts_with("--follow=")) {
          *signal = "command: tail -f";
          return true;
        }
      }
    }
    return false;
  }

  // cat/tail/less... of a file that is a log by its name or place.
  static bool ReadsLogFile(std::string_view command, std::string* signal) {
    std::string tool = ToolName(command);
    static constexpr std::string_view kReaders[] = {"cat", "tail", "head", "less", "more", "zcat",
                                                    "zless", "bat", "batcat", "tac", "bzcat",
                                                    "xzcat", "zstdcat"};
    bool reader = false;
    for (std::string_view r : kReaders) reader = reader || tool == r;
    if (!reader) return false;
    for (const std::string& a : ToolArgs(command)) {
      if (a.empty() || a[0] == '-') continue;
      std::string_view path = a;
      std::string_view base = path.substr(path.rfind('/') == npos ? 0 : path.rfind('/') + 1);
      static constexpr std::string_view kNames[] = {"syslog", "messages", "access_log",
                                                    "error_log", "catalina.out", "nohup.out"};
      bool named = false;
      for (std::string_view k : kNames) named = named || base.starts_with(k);
      if (path.find("/var/log/") != npos || path.find("/log/") != npos ||
          path.find("/logs/") != npos || base.find(".log") != npos || named) {
        *signal = StrCat("command: ", tool, " ", a);
        return true;
      }
    }
    return false;
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeLogsShaper() { return std::make_shared<LogsShaper>(); }

}  // namespace plugline::builtin

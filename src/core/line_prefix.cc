#include "core/line_prefix.h"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

enum Kind : size_t { kCiLog, kService, kPod, kTimestamp, kKinds };

// How many lines' prefixes must agree (of the lines that are not blank), unless all do.
constexpr size_t kMinLines = 3;
constexpr size_t kPercent = 90;
// A machine's timestamp, not a program's: GitHub Actions writes 7 digits of fractions of a
// second, docker 9, kubectl up to 9 (trailing zeros dropped).
constexpr int kCarrierFractionDigits = 7;
// The first lines looked at before the whole text is: most outputs have no prefix.
constexpr size_t kFirstLines = 20;

bool Digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The length of an RFC 3339 timestamp starting `line` ("2026-12-06T01:18:38.1234567Z",
// "…+01:00") with the one space after it (or the line's end), else 0; `*fraction` is how many
// digits of fractions of a second it has. A byte order mark before it (a raw CI log's first
// line) counts as part of it.
size_t TimestampLength(std::string_view line, int* fraction) {
  size_t i = line.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  if (!Digits(line, i, 4) || line.substr(i + 4, 1) != "-" || !Digits(line, i + 5, 2) ||
      line.substr(i + 7, 1) != "-" || !Digits(line, i + 8, 2) || line.substr(i + 10, 1) != "T" ||
      !Digits(line, i + 11, 2) || line.substr(i + 13, 1) != ":" || !Digits(line, i + 14, 2) ||
      line.substr(i + 16, 1) != ":" || !Digits(line, i + 17, 2)) {
    return 0;
  }
  i += 19;
  *fraction = 0;
  if (line.substr(i, 1) == "." || line.substr(i, 1) == ",") {
    ++i;
    while (i < line.size() && absl::ascii_isdigit(static_cast<unsigned char>(line[i]))) {
      ++i;
      ++*fraction;
    }
    if (*fraction == 0) return 0;
  }
  if (line.substr(i, 1) == "Z") {
    ++i;
  } else if ((line.substr(i, 1) == "+" || line.substr(i, 1) == "-") && Digits(line, i + 1, 2) &&
             line.substr(i + 3, 1) == ":" && Digits(line, i + 4, 2)) {
    i += 6;
  } else {
    return 0;
  }
  if (i == line.size()) return i;
  return line[i] == ' ' ? i + 1 : 0;
}

// `gh run view --log`: "JOB<tab>STEP<tab>" then the raw log's timestamp.
size_t CiLogLength(std::string_view line) {
  const size_t job_end = line.find('\t');
  if (job_end == 0 || job_end == std::string_view::npos) return 0;
  const size_t step_end = line.find('\t', job_end + 1);
  if (step_end == std::string_view::npos || step_end == job_end + 1) return 0;
  int fraction = 0;
  const size_t stamp = TimestampLength(line.substr(step_end + 1), &fraction);
  return stamp == 0 ? 0 : step_end + 1 + stamp;
}

// `docker compose logs`: a service's name padded with spaces, then "| " ("app-1  | line").
// `*name` is the prefix up to and with the bar.
size_t ServiceLength(std::string_view line, std::string_view* name) {
  size_t i = 0;
  while (i < line.size() && i < 64 &&
         (absl::ascii_isalnum(static_cast<unsigned char>(line[i])) ||
          (i > 0 && (line[i] == '_' || line[i] == '-' || line[i] == '.')))) {
    ++i;
  }
  if (i == 0 || i >= line.size() || line[i] != ' ') return 0;
  while (i < line.size() && line[i] == ' ') ++i;
  if (i >= line.size() || line[i] != '|') return 0;
  *name = line.substr(0, i + 1);
  ++i;
  if (i == line.size()) return i;
  return line[i] == ' ' ? i + 1 : 0;
}

// `kubectl logs --prefix`: "[pod/NAME/CONTAINER] line".
size_t PodLength(std::string_view line, std::string_view* name) {
  if (!line.starts_with("[pod/")) return 0;
  const size_t end = line.find(']');
  if (end == std::string_view::npos || line.substr(0, end).find(' ') != std::string_view::npos) {
    return 0;
  }
  *name = line.substr(0, end + 1);
  if (end + 1 == line.size()) return end + 1;
  return line[end + 1] == ' ' ? end + 2 : 0;
}

size_t VisiblePrefixLength(Kind kind, std::string_view line, std::string_view* name,
                           int* fraction) {
  switch (kind) {
    case kCiLog:
      return CiLogLength(line);
    case kService:
      return ServiceLength(line, name);
    case kPod:
      return PodLength(line, name);
    default:
      return TimestampLength(line, fraction);
  }
}

// The length of the CSI escape (a colour) at line[i], or 0.
size_t CsiLength(std::string_view line, size_t i) {
  if (i + 1 >= line.size() || line[i] != '\x1b' || line[i + 1] != '[') return 0;
  for (size_t j = i + 2; j < line.size(); ++j) {
    const unsigned char c = static_cast<unsigned char>(line[j]);
    if (c >= 0x40 && c <= 0x7e) return j + 1 - i;
    if (c < 0x20 || c > 0x3f) return 0;
  }
  return 0;
}

// The length of `kind`'s prefix at the start of `line`, colours around and inside it included
// (`docker compose` colours a service's name and bar), or 0.
size_t PrefixLength(Kind kind, std::string_view line, std::string* name_storage,
                    std::string_view* name, int* fraction) {
  constexpr size_t kLongestPrefix = 256;
  const std::string_view head = line.substr(0, kLongestPrefix);
  if (head.find('\x1b') == std::string_view::npos) {
    return VisiblePrefixLength(kind, line, name, fraction);
  }
  // The head without its colours, and where each of its bytes is in the line.
  std::string visible;
  std::vector<size_t> at;
  for (size_t i = 0; i < head.size();) {
    if (const size_t csi = CsiLength(head, i); csi > 0) {
      i += csi;
      continue;
    }
    visible.push_back(head[i]);
    at.push_back(i++);
  }
  std::string_view visible_name;
  const size_t length = VisiblePrefixLength(kind, visible, &visible_name, fraction);
  if (length == 0) return 0;
  *name_storage = visible_name;
  *name = *name_storage;
  size_t cut = at[length - 1] + 1;
  while (const size_t csi = CsiLength(line, cut)) cut += csi;
  return cut;
}

struct Tally {
  size_t lines = 0;       // lines with this kind of prefix
  size_t long_stamps = 0;  // of them, timestamps of a machine
  std::string name;  // a service's or pod's prefix, the first one seen
  bool one_name = true;
};

// Which kind of prefix starts 90% of the non-blank lines of `text` (stopping after `limit`
// lines), or kKinds.
Kind FindKind(std::string_view text, size_t limit) {
  std::array<Tally, kKinds> tallies;
  size_t nonblank = 0;
  size_t start = 0;
  for (size_t seen = 0; start < text.size() && seen < limit; ++seen) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    start = end + 1;
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    ++nonblank;
    for (size_t k = 0; k < kKinds; ++k) {
      std::string storage;
      std::string_view name;
      int fraction = 0;
      if (PrefixLength(static_cast<Kind>(k), line, &storage, &name, &fraction) == 0) continue;
      Tally& tally = tallies[k];
      ++tally.lines;
      if (fraction >= kCarrierFractionDigits) ++tally.long_stamps;
      if (tally.lines == 1) tally.name = name;
      else if (name != tally.name) tally.one_name = false;
    }
  }
  for (size_t k = 0; k < kKinds; ++k) {
    const Tally& tally = tallies[k];
    // Every line of a short output, or 90% of a longer one's.
    if (tally.lines == 0 || (tally.lines < nonblank && tally.lines < kMinLines) ||
        tally.lines * 100 < nonblank * kPercent) {
      continue;
    }
    if ((k == kService || k == kPod) && !tally.one_name) continue;
    if (k == kTimestamp && tally.long_stamps * 2 <= tally.lines) continue;
    return static_cast<Kind>(k);
  }
  return kKinds;
}

// One pass: removes one kind of prefix, or returns false.
bool StripOnce(std::string_view text, std::string* out, std::string* what) {
  if (FindKind(text, kFirstLines) == kKinds) return false;
  const Kind kind = FindKind(text, std::string_view::npos);
  if (kind == kKinds) return false;
  std::string result;
  result.reserve(text.size());
  std::string name;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view line = text.substr(start, end - start);
    start = end;
    std::string_view content = line;
    while (!content.empty() && (content.back() == '\n' || content.back() == '\r')) {
      content.remove_suffix(1);
    }
    int fraction = 0;
    std::string storage;
    std::string_view this_name;
    const size_t cut = PrefixLength(kind, content, &storage, &this_name, &fraction);
    if (cut > 0 && name.empty()) name = this_name;
    result.append(line.substr(cut));
  }
  switch (kind) {
    case kCiLog:
      *what = "a CI log's job, step and timestamp";
      break;
    case kTimestamp:
      *what = "a timestamp";
      break;
    default:
      *what = StrCat("'", name, "'");
  }
  *out = std::move(result);
  return true;
}

}  // namespace

bool StripCarrierPrefixes(std::string_view text, std::string* out, std::string* what) {
  std::string current, next, said;
  bool stripped = false;
  // A prefix under a prefix: a service's name, then a timestamp.
  for (int pass = 0; pass < 3; ++pass) {
    std::string this_what;
    if (!StripOnce(stripped ? std::string_view(current) : text, &next, &this_what)) break;
    said = said.empty() ? this_what : StrCat(said, " and ", this_what);
    current.swap(next);
    stripped = true;
  }
  if (!stripped) return false;
  *out = std::move(current);
  *what = std::move(said);
  return true;
}

}  // namespace plugline::core

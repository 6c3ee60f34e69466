#include "builtin/leak_report.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "absl/container/flat_hash_map.h"
#include "builtin/diagnostic_groups.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr size_t kNpos = std::string_view::npos;

// Non-leak lines: a run of more than kRunEdge * 2 shows its first and last kRunEdge.
constexpr size_t kRunEdge = 10;

bool IsDigitChar(char c) { return c >= '0' && c <= '9'; }

// valgrind's "==18358== ": its length, 0 when the line has none.
size_t ValgrindPrefix(std::string_view line) {
  if (!line.starts_with("==")) return 0;
  size_t i = 2;
  while (i < line.size() && IsDigitChar(line[i])) ++i;
  if (i == 2 || line.substr(i, 2) != "==") return 0;
  i += 2;
  return i < line.size() && line[i] == ' ' ? i + 1 : i;
}

// The number at the start of `s` ("1,024 bytes" -> "1,024"), or "".
std::string_view LeadingNumber(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (IsDigitChar(s[i]) || s[i] == ',')) ++i;
  return s.substr(0, i);
}

struct Leak {
  size_t begin = 0, end = 0;  // its lines, the heading first
  size_t kind = 0;            // an index into the kinds seen, in the order first seen
  std::string_view bytes, objects;
};

// A leak's heading: its kind ("direct", "definitely lost"), how many bytes and objects.
struct Heading {
  std::string_view kind, bytes, objects;
};

std::optional<Heading> LeakHeading(std::string_view line) {
  const size_t prefix = ValgrindPrefix(line);
  std::string_view t = Trim(line.substr(prefix));
  if (prefix == 0) {
    // LeakSanitizer: "Direct leak of 200 byte(s) in 1 object(s) allocated from:".
    std::string_view kind;
    if (t.starts_with("Direct leak of ")) {
      kind = "direct";
    } else if (t.starts_with("Indirect leak of ")) {
      kind = "indirect";
    } else {
      return std::nullopt;
    }
    if (!t.ends_with(" allocated from:")) return std::nullopt;
    t.remove_prefix(t.find(" of ") + 4);
    const std::string_view bytes = LeadingNumber(t);
    const size_t in = t.find(" in ");
    if (bytes.empty() || in == kNpos) return std::nullopt;
    return Heading{kind, bytes, LeadingNumber(t.substr(in + 4))};
  }
  // valgrind: "200 bytes in 1 blocks are definitely lost in loss record 200 of 200", "16 (8
  // direct, 8 indirect) bytes in 1 blocks are …".
  const std::string_view bytes = LeadingNumber(t);
  const size_t in = t.find(" bytes in ");
  const size_t are = t.find(" blocks are ");
  const size_t record = t.find(" in loss record ");
  if (bytes.empty() || in == kNpos || are == kNpos || record == kNpos || are > record) {
    return std::nullopt;
  }
  // Its bytes as printed, the split into direct and indirect ones included.
  return Heading{t.substr(are + 12, record - are - 12), t.substr(0, in),
                 LeadingNumber(t.substr(in + 10))};
}

// A frame under a heading: LeakSanitizer's "    #1 0x5614… in f /src/a.c:3:9", valgrind's
// "==42==    by 0x10917F: f (a.c:202)".
bool IsLeakFrame(std::string_view line) {
  const std::string_view t = Trim(line.substr(ValgrindPrefix(line)));
  if (t.starts_with("at 0x") || t.starts_with("by 0x")) return true;
  return t.size() > 2 && t[0] == '#' && IsDigitChar(t[1]);
}

bool IsBlankLeakLine(std::string_view line) {
  return Trim(line.substr(ValgrindPrefix(line))).empty();
}

// A frame's function and its location in the program's code ("alloc_site_199",
// "/src/leaks.c:202:66"); the location is empty for a frame of the allocator, the sanitizer,
// the C library or a system library, and for one with no source location.
struct Frame {
  std::string_view function, location;
};

Frame ReadFrame(std::string_view line) {
  const std::string_view t = Trim(line.substr(ValgrindPrefix(line)));
  Frame f;
  if (t.starts_with("at 0x") || t.starts_with("by 0x")) {
    // "by 0x10917F: alloc_site_199 (leaks.c:202)", "at 0x48417B4: malloc (in /usr/…/x.so)".
    const size_t colon = t.find(": ");
    if (colon == kNpos) return f;
    std::string_view rest = t.substr(colon + 2);
    const size_t open = rest.rfind(" (");
    if (open == kNpos || !rest.ends_with(")")) {
      f.function = rest;
      return f;
    }
    f.function = rest.substr(0, open);
    const std::string_view where = rest.substr(open + 2, rest.size() - open - 3);
    if (!where.starts_with("in ") && where.find(':') != kNpos) f.location = where;
  } else {
    // "#1 0x5614… in alloc_site_199 /src/leaks.c:202:66", "#0 0x… in malloc (/x/leaks+0xa3)".
    const size_t in = t.find(" in ");
    if (in == kNpos) return f;
    std::string_view rest = t.substr(in + 4);
    const size_t space = rest.rfind(' ');
    const std::string_view last = space == kNpos ? rest : rest.substr(space + 1);
    const size_t colon = last.find(':');
    if (space != kNpos && colon != kNpos && colon + 1 < last.size() &&
        IsDigitChar(last[colon + 1]) && !last.starts_with("(")) {
      f.function = rest.substr(0, space);
      f.location = last;
    } else {
      f.function = rest.substr(0, rest.find(' '));
    }
    if (IsSystemNativeFrame(t)) f.location = {};
  }
  // The allocator's own frames, the sanitizer's interceptors, valgrind's replacements.
  static constexpr std::string_view kAllocators[] = {
      "malloc", "calloc",       "realloc",       "reallocarray",   "free",
      "strdup", "strndup",      "memalign",      "posix_memalign", "aligned_alloc",
      "valloc", "operator new", "operator new[]"};
  for (std::string_view name : kAllocators) {
    if (f.function == name || (f.function.starts_with(name) && f.function.size() > name.size() &&
                               f.function[name.size()] == '(')) {
      f.location = {};
    }
  }
  if (f.function.starts_with("__interceptor_") || f.function.starts_with("__asan") ||
      f.function.starts_with("__lsan") || f.function.starts_with("__sanitizer") ||
      f.function.starts_with("(below main)") || f.location.starts_with("vg_replace_")) {
    f.location = {};
  }
  return f;
}

}  // namespace

std::optional<std::string> ShapeLeakReport(const std::vector<std::string_view>& lines,
                                           std::string_view tool, std::string_view note,
                                           uint64_t total_lines, SummaryWriter& out) {
  // The leaks, each its heading, its frames and a blank line after them.
  std::vector<Leak> leaks;
  std::vector<std::string_view> kinds;
  std::vector<size_t> per_kind;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::optional<Heading> heading = LeakHeading(lines[i]);
    if (!heading) continue;
    Leak leak;
    leak.begin = i;
    size_t end = i + 1;
    while (end < lines.size() && IsLeakFrame(lines[end])) ++end;
    if (end < lines.size() && IsBlankLeakLine(lines[end])) ++end;
    leak.end = end;
    auto it = std::find(kinds.begin(), kinds.end(), heading->kind);
    leak.kind = static_cast<size_t>(it - kinds.begin());
    if (it == kinds.end()) {
      kinds.push_back(heading->kind);
      per_kind.push_back(0);
    }
    ++per_kind[leak.kind];
    leak.bytes = heading->bytes;
    leak.objects = heading->objects;
    leaks.push_back(leak);
    i = end - 1;
  }
  if (leaks.size() <= kLeaksInFull + 2) return std::nullopt;

  const bool lsan = ValgrindPrefix(lines[leaks.front().begin]) == 0;
  std::string by_kind;
  for (size_t k = 0; k < kinds.size(); ++k) {
    StrAppend(&by_kind, k == 0 ? "" : ", ", core::FormatCount(per_kind[k]), " ", kinds[k]);
  }
  out.Header(StrCat(tool.empty() ? "output" : tool, ": ", note.empty() ? "" : StrCat(note, ", "),
                    core::FormatCount(leaks.size()), " leaks (", by_kind, "), ",
                    core::FormatCount(total_lines), " lines"));

  // What a leak lost, in the checker's words: "(200 byte(s))", "(400 byte(s) in 2 object(s))",
  // valgrind's "(400 bytes in 2 blocks)".
  auto lost = [&](const Leak& leak) {
    const bool one = leak.objects == "1" || leak.objects.empty();
    return StrCat("(", leak.bytes, lsan ? " byte(s)" : " bytes",
                  one ? "" : StrCat(" in ", leak.objects, lsan ? " object(s)" : " blocks"), ")");
  };
  std::vector<size_t> shown(kinds.size(), 0);
  std::vector<bool> listed(kinds.size(), false);
  // The lines that are no leak, from `from` to `to`: as printed, a long run by its ends.
  // From the middle of a long run, the lines that read like trouble (valgrind's "Invalid read
  // of size 4") with the frames in the program's code under them.
  auto write_other = [&](size_t from, size_t to) {
    if (to - from > 2 * kRunEdge) {
      for (size_t i = from; i < from + kRunEdge; ++i) out.Line(lines[i]);
      uint64_t gap = 0;
      for (size_t i = from + kRunEdge; i < to - kRunEdge; ++i) {
        if (!core::LooksLikeErrorLine(lines[i])) {
          ++gap;
          continue;
        }
        if (gap > 0) out.ElidedLines(gap, gap == 1 ? "line omitted" : "lines omitted");
        gap = 0;
        out.Line(lines[i]);
        while (i + 1 < to - kRunEdge && IsLeakFrame(lines[i + 1])) {
          ++i;
          if (ReadFrame(lines[i]).location.empty()) {
            ++gap;
          } else {
            if (gap > 0) out.ElidedLines(gap, gap == 1 ? "line omitted" : "lines omitted");
            gap = 0;
            out.Line(lines[i]);
          }
        }
      }
      if (gap > 0) out.ElidedLines(gap, gap == 1 ? "line omitted" : "lines omitted");
      from = to - kRunEdge;
    }
    for (size_t i = from; i < to; ++i) out.Line(lines[i]);
  };
  size_t at = 0;
  for (size_t l = 0; l < leaks.size(); ++l) {
    const Leak& leak = leaks[l];
    write_other(at, leak.begin);
    at = leak.end;
    if (shown[leak.kind] < kLeaksInFull) {
      ++shown[leak.kind];
      // In full: its heading, its frames in the program's code, the others counted after them.
      out.Line(lines[leak.begin]);
      uint64_t others = 0;
      size_t i = leak.begin + 1;
      for (; i < leak.end && IsLeakFrame(lines[i]); ++i) {
        if (ReadFrame(lines[i]).location.empty()) {
          ++others;
        } else {
          out.Line(lines[i]);
        }
      }
      if (others > 0) {
        out.ElidedLines(others, others == 1
                                    ? "frame of the allocator or a system library omitted"
                                    : "frames of the allocator or system libraries omitted");
      }
      for (; i < leak.end; ++i) out.Line(lines[i]);
      continue;
    }
    if (listed[leak.kind]) continue;  // in its kind's list
    listed[leak.kind] = true;
    // The others of its kind, where the first of them is: each by its first frame in the
    // program's code (or its first frame not the allocator's), its function and what it lost.
    std::vector<const Leak*> rest;
    uint64_t rest_lines = 0;
    for (size_t m = l; m < leaks.size(); ++m) {
      if (leaks[m].kind != leak.kind) continue;
      rest.push_back(&leaks[m]);
      rest_lines += leaks[m].end - leaks[m].begin;
    }
    // Each one's frames in the program's code (or its first frame not the allocator's), and
    // how many of them have the same first frame.
    std::vector<std::vector<Frame>> frames(rest.size());
    absl::flat_hash_map<std::string_view, size_t> shared;
    for (size_t r = 0; r < rest.size(); ++r) {
      Frame first_other;
      for (size_t f = rest[r]->begin + 1; f < rest[r]->end && IsLeakFrame(lines[f]); ++f) {
        Frame frame = ReadFrame(lines[f]);
        if (!frame.location.empty()) {
          frames[r].push_back(frame);
        } else if (first_other.function.empty()) {
          first_other = frame;
        }
      }
      if (frames[r].empty() && !first_other.function.empty()) frames[r].push_back(first_other);
      if (!frames[r].empty() && !frames[r][0].location.empty()) ++shared[frames[r][0].location];
    }
    const std::string what =
        lsan ? StrCat(kinds[leak.kind], " leaks") : StrCat("leaks ", kinds[leak.kind]);
    WriteLocationList(StrCat(core::FormatCount(rest.size()), " more ", what, core::kListAt),
                      StrCat(what, core::kListAlsoAt), rest.size(), rest_lines, out,
                      [&](size_t i, std::string* text) {
                        const std::vector<Frame>& f = frames[i];
                        if (f.empty()) {
                          StrAppend(text, "(no frame) ", lost(*rest[i]));
                          return;
                        }
                        if (!f[0].location.empty()) StrAppend(text, f[0].location, " ");
                        StrAppend(text, f[0].function);
                        // A helper that allocates for many callers: its caller too.
                        if (f.size() > 1 && shared[f[0].location] > 1) {
                          StrAppend(text, " ", f[1].location, " ", f[1].function);
                        }
                        StrAppend(text, " ", lost(*rest[i]));
                      });
  }
  write_other(at, lines.size());
  return out.Take();
}

}  // namespace plugline::builtin

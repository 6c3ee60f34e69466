#include "core/summary_budget.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {
namespace {

using absl::StrCat;

// The ranks of summary_budget.h, lowest first. Evidence is ranked by its distance from its
// identifier (kEvidence + 0, 1, 2), so that every identifier gets its first line of evidence
// before any gets its second; a location that reports no error ranks by how many of its file
// came before it (kLocation + 0, 1, 2, …), and a list's continuation by how far it is from
// the list's ends, so that locations are taken in rounds: every file's and every list's next
// before any one's after that, up to kLocationRounds rounds.
constexpr int kLocationRounds = 30;
enum Rank : int {
  kOutcome = 0,
  kIdentifier = 1,
  kLocation = 2,
  kEvidence = 2,
  kFileHeader = 3,  // a diff's file header: after the first line of every identifier's evidence
  kContext = kLocation + kLocationRounds + 1
};

// Lines after an identifier that count as its evidence.
constexpr size_t kEvidenceLines = 3;
// The last lines of a summary rank with identifiers: tools end with their final status.
constexpr size_t kClosingLines = 2;
// How far above a list of locations the problem it is like may be (the problem's own
// detail lines between: a source line and its caret line, a message).
constexpr size_t kListExampleDistance = 6;
constexpr size_t kNoLine = static_cast<size_t>(-1);
// A closing line up to this long is kept whatever the budget, as the first line is.
constexpr uint64_t kClosingLineTokens = 100;
// Marker lines cost tokens too: what one "… N lines cut (budget)" line is reckoned at.
constexpr uint64_t kMarkerTokens = 12;
// A gap of this many lines left out or more is marked where it was; smaller ones are counted
// together after the summary.
constexpr size_t kMarkedGap = 4;
// A summary with this many of the shaper's notes or fewer keeps them all where they are, unless
// identifiers are cut.
constexpr size_t kFewNotes = 10;
// The files named in the statement of identifiers left out.
constexpr size_t kGroupedFiles = 8;
// Under a small budget, the files it names first (then none).
constexpr size_t kFewGroupedFiles = 2;
constexpr std::string_view kDidNotFit = " did not fit: ";

bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// "src/a.ts:12", "a.py:3:5", "lib/x.rs(3,5)", at the start of the line (after indentation,
// "at ", "File \"", "--> " and similar lead-ins, and a URL's "file://"); returns the path, or "".
std::string_view LocationPath(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  for (std::string_view lead : {"at ", "File \"", "--> ", "in ", "from "}) {
    if (line.substr(i).starts_with(lead)) {
      i += lead.size();
      break;
    }
  }
  if (line.substr(i).starts_with("file:///")) i += 7;  // a URL's path: "at file:///w/a.ts:3:5"
  const size_t start = i;
  bool dot = false;
  while (i < line.size()) {
    const char c = line[i];
    if (c == '.') {
      dot = true;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
                 c == '\\' || c == '@' || c == '+')) {
      break;
    }
    ++i;
  }
  if (i == start || !dot || i + 1 >= line.size()) return {};
  const std::string_view path = line.substr(start, i - start);
  const char sep = line[i];
  if (sep == '"' && line.substr(i).starts_with("\", line ")) return path;  // Python frames
  if (line.substr(i).starts_with("::")) return path;                       // pytest node ids
  if (line.substr(i).starts_with(": line ") && i + 7 < line.size() &&      // "a.js: line 3, col 5"
      std::isdigit(static_cast<unsigned char>(line[i + 7]))) {
    return path;
  }
  if ((sep == ':' || sep == '(') && std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
    return path;
  }
  return {};
}

// The path a failure's line names after its first word, a verdict's or a runner's: pytest's
// "FAILED tests/a.py::test_x - …", RSpec's "rspec ./spec/a_spec.rb:14 # …".
std::string_view PathAfterFirstWord(std::string_view line) {
  const size_t start = line.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  const size_t space = line.find(' ', start);
  if (space == std::string_view::npos) return {};
  const std::string_view word = line.substr(start, space - start);
  if (word.find_first_of("./:") != std::string_view::npos) return {};
  return LocationPath(line.substr(space + 1));
}

// The path a line starts with (LocationPath), else the one after its first word.
std::string_view NamedPath(std::string_view line) {
  const std::string_view path = LocationPath(line);
  return path.empty() ? PathAfterFirstWord(line) : path;
}

// A command that reruns one test, as the runner lists it under its failures: its program, the
// test's location, and after " # " its name ("rspec ./spec/a_spec.rb:14 # Cart adds up",
// "cucumber features/cart.feature:13 # Scenario: Coupon applied").
bool IsRerunLine(std::string_view line) {
  if (!LocationPath(line).empty()) return false;
  const std::string_view path = PathAfterFirstWord(line);
  if (path.empty()) return false;
  const size_t after = static_cast<size_t>(path.data() + path.size() - line.data());
  const size_t comment = line.find(" # ", after);
  return after < line.size() && line[after] == ':' && comment != std::string_view::npos &&
         line.find(' ', after) == comment;
}

// A failure's heading as runners number them: "  1) Cart adds up" (mocha, Jasmine, PHPUnit,
// RSpec, Minitest's "  1) Failure:").
bool IsNumberedHeading(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos || !std::isdigit(static_cast<unsigned char>(line[i])))
    return false;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  return line.substr(i).starts_with(") ") && i + 2 < line.size() && line[i + 2] != ' ';
}

bool StartsWithWord(std::string_view line, std::string_view word) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return line.substr(i).starts_with(word);
}

// "Author: A <a@b>", "Date:   Sun Mar 29", "Merge: 1a2b 3c4d": a header field.
bool IsHeaderField(std::string_view line) {
  if (line.empty() || !(line[0] >= 'A' && line[0] <= 'Z')) return false;
  size_t i = 1;
  while (i < line.size() && (std::isalpha(static_cast<unsigned char>(line[i])) || line[i] == '-')) {
    ++i;
  }
  return i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ';
}

// A commit of a history: "commit <hash>" (git log) or "<hash> subject" (--oneline; "<hash>|…" and
// the like of a --format of one's own), the hash
// 7 to 40 hexadecimal digits, after --graph's lines when drawn ("* | 5d9c164 subject").
// The hex digits a line starts with, after the graph and "commit " when it says so: a commit's
// hash, when IsCommitLine.
std::string_view CommitHash(std::string_view line) {
  if (line.starts_with("* ") || line.starts_with("| ")) {
    const size_t text = line.find_first_not_of("*|/\\_ ");
    line.remove_prefix(text == std::string_view::npos ? line.size() : text);
  }
  if (line.starts_with("commit ")) line.remove_prefix(7);
  size_t n = 0;
  while (n < line.size() && IsHex(line[n])) ++n;
  return line.substr(0, n);
}

bool IsCommitLine(std::string_view line) {
  const std::string_view hash = CommitHash(line);
  const std::string_view rest = line.substr(hash.data() + hash.size() - line.data());
  // A separator of a format of one's own (`--format='%h|%an|%s'`, `%h%x09%s`) as well as a space.
  return hash.size() >= 7 && hash.size() <= 40 &&
         (rest.empty() || rest[0] == ' ' || rest[0] == '|' || rest[0] == '\t' || rest[0] == ',' ||
          rest[0] == ';');
}

// git log's "commit <hash>" (with --graph's lines before it, decorations after), whose
// message follows its header fields; not --oneline's "<hash> subject".
bool IsCommitHeader(std::string_view line) {
  if (!IsCommitLine(line)) return false;
  const std::string_view hash = CommitHash(line);
  const size_t at = static_cast<size_t>(hash.data() - line.data());
  return at >= 7 && line.substr(at - 7, 7) == "commit ";
}

// A banner: "____ test_name ____", "=== 3 failed, 9 passed in 2s ===", "--- FAIL: TestX".
bool IsBanner(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == '_' || line[i] == '=' || line[i] == '-')) ++i;
  return i >= 3 && i + 1 < line.size() && line[i] == ' ' && line[i + 1] != ' ';
}

// "12:13 …": a line and a column.
bool StartsWithLineColumn(std::string_view text) {
  const std::string_view word = text.substr(0, text.find(' '));
  const size_t colon = word.find(':');
  return colon != std::string_view::npos && colon > 0 && colon + 1 < word.size() &&
         std::isdigit(static_cast<unsigned char>(word[0])) &&
         std::isdigit(static_cast<unsigned char>(word[colon + 1]));
}

// A row under a file's path line, which names no file itself: "  3:5  error …".
bool IsRowUnderPath(std::string_view line) {
  const size_t text = line.find_first_not_of(" \t");
  return text != std::string_view::npos && StartsWithLineColumn(line.substr(text));
}

// An entry that starts with a position in a file: "12:13 …" or "line 12, col 13 …".
bool IsPosition(std::string_view entry) {
  if (entry.starts_with("line ")) {
    return entry.size() > 5 && std::isdigit(static_cast<unsigned char>(entry[5]));
  }
  return StartsWithLineColumn(entry);
}

// What names a failure: a test that failed, an error's location, a commit, a banner with a
// name. kLocation for a location that reports no error; kContext for neither.
int IdentifierRank(std::string_view line) {
  if (line.starts_with("… ")) return kContext;  // a marker a shaper wrote
  for (std::string_view word : {"FAILED", "FAIL", "ERROR", "[  FAILED  ]", "not ok", "✕", "✗", "×",
                                "--- FAIL", "panicked at", "error[", "error:", "Error:"}) {
    if (StartsWithWord(line, word)) return kIdentifier;
  }
  // jest's "  ● suite › test" (not its "● Console" section); a numbered failure; a rerun command.
  if (StartsWithWord(line, "● ") && !StartsWithWord(line, "● Console")) return kIdentifier;
  if (IsNumberedHeading(line) || IsRerunLine(line)) return kIdentifier;
  // "tests/a.py::test_x FAILED [ 10%]", "test_x ... FAIL", "a_test.go: ERROR"; a code and its
  // severity in brackets, "TS2339 [ERROR]: …" (deno check).
  if (line.find(" [ERROR]: ") != std::string_view::npos) return kIdentifier;
  for (std::string_view word : {" FAILED", " FAIL", " ERROR"}) {
    const size_t at = line.find(word);
    if (at != std::string_view::npos &&
        (at + word.size() == line.size() || line[at + word.size()] == ' ')) {
      return kIdentifier;
    }
  }
  // A diff's file header names what changed; in a history, after each commit's subject. So
  // does `diff -r`'s line of a file only one side has ("Only in py311/asyncio: timeouts.py").
  if (line.starts_with("diff --git ") || line.starts_with("diff -") ||
      line.starts_with("Index: ") || line.starts_with("rename from ") ||
      line.starts_with("rename to ") || line.starts_with("Binary files ") ||
      line.starts_with("Only in ")) {
    return kFileHeader;
  }
  if (IsBanner(line) || IsCommitLine(line)) return kIdentifier;
  // A location, "src/a.ts:3:5 …", or a row under a file's path line, "  3:5  error …".
  if (LocationPath(line).empty() && !IsRowUnderPath(line)) return kContext;
  if (LooksLikeErrorLine(line)) return kIdentifier;
  // A test that passed or was skipped is context, whatever it names.
  for (std::string_view word : {" PASSED", " SKIPPED", " ok", " PASS"}) {
    if (line.find(word) != std::string_view::npos) return kContext;
  }
  return kLocation;
}

// The files the entries of a list of locations name (summary_budget.h; "" for an entry that
// names none), or nothing when `line` is not a list.
std::vector<std::string_view> ListedLocations(std::string_view line) {
  std::vector<std::string_view> entries;
  if (!line.starts_with("… ")) return entries;
  const size_t at = line.find(kListAt);
  if (at == std::string_view::npos) return entries;
  // A list of positions in one file names it last before " at: " ("… 7 more in /w/a.js at: ").
  std::string_view before = line.substr(0, at);
  if (before.ends_with(" also")) before.remove_suffix(5);
  std::string_view file = before.substr(before.rfind(' ') + 1);
  if (file.find_first_of("./") == std::string_view::npos) file = {};
  std::string_view rest = line.substr(at + kListAt.size());
  while (!rest.empty()) {
    const size_t sep = rest.find(kListSeparator);
    const std::string_view entry = rest.substr(0, sep);
    std::string_view path = LocationPath(entry);
    if (path.empty() && IsPosition(entry)) path = file;
    entries.push_back(path);
    if (sep == std::string_view::npos) break;
    rest.remove_prefix(sep + kListSeparator.size());
  }
  // A list names locations: its first entry is one.
  if (entries.empty() || entries.front().empty()) entries.clear();
  return entries;
}

std::string LeftOut(uint64_t n) {
  return StrCat("… ", FormatCount(n), n == 1 ? " line" : " lines", " cut (budget)");
}

// The order lines are offered in: rank by rank, each from the top — identifiers from both ends
// in (the first, the last, the second, …), so that when they do not all fit, the failures a run
// ends with stay as well as those it starts with.
std::vector<size_t> VisitOrder(const std::vector<int>& rank) {
  std::vector<size_t> order;
  order.reserve(rank.size());
  for (int want = kOutcome; want <= kContext; ++want) {
    const size_t from = order.size();
    for (size_t i = 0; i < rank.size(); ++i) {
      if (rank[i] == want) order.push_back(i);
    }
    if (want != kIdentifier) continue;
    std::vector<size_t> ends;
    ends.reserve(order.size() - from);
    for (size_t a = from, b = order.size(); a < b;) {
      ends.push_back(order[a++]);
      if (a < b) ends.push_back(order[--b]);
    }
    std::copy(ends.begin(), ends.end(), order.begin() + static_cast<std::ptrdiff_t>(from));
  }
  return order;
}

// Keeps lines by rank while they fit in `limit` tokens, and writes the cut summary.
// `order`: the lines in the order they are offered (VisitOrder); `like`: per list of
// locations, the line of the problem it is like, kept with it (or kNoLine).
// `first_limit`: what the first line may cost (the budget's, not `limit` lowered to make the
// rest fit); `grouped_files`: how many files the count of what did not fit names.
BudgetCut Assemble(const std::vector<std::string_view>& lines, const std::vector<int>& rank,
                   const std::vector<size_t>& order, const std::vector<bool>& is_list,
                   const std::vector<size_t>& like, const std::vector<uint64_t>& cost,
                   uint64_t limit, uint64_t first_limit, size_t grouped_files, uint64_t max_tokens,
                   const TokenCounter& counter) {
  BudgetCut cut;
  cut.cut = true;
  const size_t n = lines.size();
  std::vector<bool> keep(n, false);
  uint64_t spent = 0;
  // Markers: a gap of kMarkedGap output lines or more gets one where it was; smaller gaps
  // are counted together in one marker after the summary (lines kept apart — errors with a
  // line of context between each — leave no marker in every gap). Keeping a line in a gap
  // splits it in two: a marker that adds is part of its price. A gap of the
  // shaper's own notes only ("… 11 more matches omitted") gets no marker. A list of locations
  // is not a note: what it names is output.
  auto is_note = [&](size_t i) { return lines[i].starts_with("… ") && !is_list[i]; };
  // The output lines left out next to line i on one side (step -1 or +1), up to kMarkedGap.
  auto gap_lines = [&](size_t i, int step) {
    size_t count = 0;
    for (size_t j = i, walked = 0; count < kMarkedGap && walked < 4 * kMarkedGap; ++walked) {
      if ((step < 0 && j == 0) || (step > 0 && j + 1 >= n)) break;
      j = step < 0 ? j - 1 : j + 1;
      if (keep[j]) break;
      count += is_note(j) ? 0 : 1;
    }
    return count;
  };
  auto marker_cost = [&](size_t i) -> uint64_t {
    const size_t before = gap_lines(i, -1), after = gap_lines(i, +1);
    const bool marked_now = before + after + (is_note(i) ? 0 : 1) >= kMarkedGap;
    // Splitting a marked gap into small ones spares its marker, but no line is kept for that:
    // the small gaps it leaves are no better read than the one it splits.
    const int markers_then = (before >= kMarkedGap ? 1 : 0) + (after >= kMarkedGap ? 1 : 0);
    return markers_then > (marked_now ? 1 : 0) ? kMarkerTokens : 0;
  };
  bool identifiers_cut = false;
  std::map<std::string, uint64_t> cut_by_file;
  uint64_t identifiers_left_out = 0;
  // Commits by hash: a commit some kept line names (git blame's lines of one commit) fit.
  std::set<std::string_view> commits_cut;
  uint64_t without_file = 0;
  for (size_t i : order) {
    const int want = rank[i];
    // A list of locations comes with the problem it is like, or not at all.
    const size_t with = like[i];
    const bool pair = with != kNoLine && !keep[with];
    const uint64_t price = cost[i] + marker_cost(i) + (pair ? cost[with] + marker_cost(with) : 0);
    // The outcome stays: the first line always, the closing lines while anything fits.
    if (spent + price <= limit || (want == kOutcome && (i == 0 || limit > 0))) {
      keep[i] = true;
      if (pair) keep[with] = true;
      spent += price;
      continue;
    }
    if (want != kIdentifier && !is_list[i]) continue;
    identifiers_cut = true;
    if (!is_list[i] && IsCommitLine(lines[i])) {
      commits_cut.insert(CommitHash(lines[i]));
      continue;
    }
    std::vector<std::string_view> listed = ListedLocations(lines[i]);
    if (listed.empty()) listed.push_back(NamedPath(lines[i]));
    for (std::string_view path : listed) {
      ++identifiers_left_out;
      if (path.empty()) {
        ++without_file;
      } else {
        ++cut_by_file[std::string(path)];
      }
    }
  }

  // The first line alone may be over the budget: its head, at a character boundary.
  std::string first(lines.empty() ? std::string_view() : lines[0]);
  if (!lines.empty() && cost[0] > first_limit) {
    size_t bytes = std::min(first.size(), static_cast<size_t>(first_limit) * 3);
    while (bytes > 0 && counter.Count(std::string_view(first).substr(0, bytes)) > first_limit) {
      bytes = bytes * 3 / 4;
    }
    while (bytes > 0 && (static_cast<unsigned char>(first[bytes]) & 0xC0) == 0x80) --bytes;
    const uint64_t more = first.size() - bytes;
    first = StrCat(first.substr(0, bytes), " … (", FormatCount(more), " more bytes of this line)");
  }

  size_t notes = 0;
  for (size_t i = 0; i < n; ++i) notes += is_note(i) ? 1 : 0;
  // (Identifiers come first: when some are cut, the notes go before another one would.)
  const bool few_notes = notes <= kFewNotes && !identifiers_cut;
  // A run of left-out lines: `run` in all, `run_notes` of them the shaper's own notes.
  uint64_t run = 0, run_notes = 0, notes_cut = 0, in_small_gaps = 0;
  auto end_run = [&](size_t i) {
    const bool short_note = run == 1 && run_notes == 1 && cost[i - 1] <= kMarkerTokens;
    if ((short_note && spent + cost[i - 1] <= limit) ||
        (few_notes && run == run_notes && run <= 2)) {
      // A shaper's own notes between lines kept stay while the budget has room for them (a
      // run of notes gets no marker of ours: what it costs is spent, not saved); and always
      // when the summary has few: dropped, the lines around one would read as one stretch of
      // the output ("… 171 lines omitted" of a head and a tail).
      for (size_t j = i - run; j < i; ++j) {
        StrAppend(&cut.summary, lines[j], "\n");
        --cut.lines_left_out;
        spent += cost[j];
      }
    } else if (run - run_notes >= kMarkedGap || (few_notes && run_notes > 0 && run > run_notes)) {
      // A gap with a shaper's note in it is larger than the lines it has: marked where it is.
      StrAppend(&cut.summary, LeftOut(run), "\n");
    } else if (run > run_notes) {
      in_small_gaps += run;
    } else {
      notes_cut += run_notes;  // only notes of what the shaper left out: said at the end
    }
    run = run_notes = 0;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) {
      ++run;
      run_notes += is_note(i);
      ++cut.lines_left_out;
      continue;
    }
    end_run(i);
    StrAppend(&cut.summary, i == 0 ? std::string_view(first) : lines[i], "\n");
  }
  end_run(n);
  if (in_small_gaps > 0) {
    StrAppend(&cut.summary, LeftOut(in_small_gaps), " in gaps of 1 to ", kMarkedGap - 1,
              " lines between the lines shown above\n");
  }
  uint64_t commits_left_out = 0;
  if (!commits_cut.empty()) {
    std::set<std::string_view> commits_kept;
    for (size_t i = 0; i < n; ++i) {
      if (keep[i] && !is_list[i] && IsCommitLine(lines[i])) commits_kept.insert(CommitHash(lines[i]));
    }
    for (std::string_view hash : commits_cut) commits_left_out += commits_kept.count(hash) == 0 ? 1 : 0;
  }
  if (identifiers_cut) {
    std::vector<std::pair<std::string, uint64_t>> files(cut_by_file.begin(), cut_by_file.end());
    std::stable_sort(files.begin(), files.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string by_file;
    for (size_t i = 0; i < files.size() && i < grouped_files; ++i) {
      StrAppend(&by_file, i == 0 ? "" : ", ", files[i].first, " ", FormatCount(files[i].second));
    }
    if (files.size() > grouped_files) {
      StrAppend(&by_file, grouped_files == 0 ? "in " : ", and ",
                FormatCount(files.size() - grouped_files),
                grouped_files == 0 ? " files" : " more files");
    }
    if (without_file > 0) {
      StrAppend(&by_file, by_file.empty() ? "" : ", ", FormatCount(without_file),
                " naming no file");
    }
    if (identifiers_left_out > 0) {
      StrAppend(&cut.summary, "… ", FormatCount(identifiers_left_out),
                identifiers_left_out == 1 ? " failure, error or location"
                                          : " failures, errors or locations",
                kDidNotFit, by_file, "\n");
    }
    if (commits_left_out > 0) {
      StrAppend(&cut.summary, "… ", FormatCount(commits_left_out),
                commits_left_out == 1 ? " commit" : " commits", " did not fit\n");
    }
  }
  StrAppend(&cut.summary, "… cut to the ", FormatCount(max_tokens),
            "-token budget: ", FormatCount(cut.lines_left_out), " of ", FormatCount(n),
            " summary lines left out");
  if (notes_cut > 0) {
    StrAppend(&cut.summary, ", among them ", FormatCount(notes_cut),
              notes_cut == 1 ? " note" : " notes", " of what the shaper had left out");
  }
  return cut;
}

}  // namespace

BudgetCut FitHeadToBudget(std::string_view text, uint64_t max_tokens, uint64_t reserve,
                          const TokenCounter& counter) {
  const std::vector<std::string_view> lines = SplitLines(text);
  const size_t n = lines.size();
  if (max_tokens == 0 || counter.Count(text) + reserve <= max_tokens) {
    BudgetCut whole;
    whole.summary.assign(text);
    whole.lines_in = n;
    return whole;
  }
  const uint64_t room =
      max_tokens > reserve + kMarkerTokens ? max_tokens - reserve - kMarkerTokens : 0;
  // Lines counted one by one add up to a little more than counted together: a line too many is
  // taken back below.
  size_t kept = 0;
  for (uint64_t spent = 0; kept < n; ++kept) {
    const uint64_t cost = counter.Count(lines[kept]) + 1;
    if (spent + cost > room) break;
    spent += cost;
  }
  auto marker = [&](size_t from) {
    return StrCat("… lines ", FormatCount(from + 1), "–", FormatCount(n), " of ", FormatCount(n),
                  " cut to the ", FormatCount(max_tokens), "-token budget");
  };
  std::string summary;
  for (;; --kept) {
    summary.clear();
    for (size_t i = 0; i < kept; ++i) StrAppend(&summary, lines[i], "\n");
    summary += marker(kept);
    if (kept == 0 || counter.Count(summary) + reserve <= max_tokens) break;
  }
  if (kept == 0) return FitToBudget(text, max_tokens, reserve, counter);
  BudgetCut cut;
  cut.summary = std::move(summary);
  cut.lines_in = n;
  cut.lines_left_out = n - kept;
  cut.cut = true;
  return cut;
}

std::string WithoutTallies(std::string_view summary) {
  std::string out;
  out.reserve(summary.size());
  for (size_t at = 0; at < summary.size();) {
    size_t end = summary.find('\n', at);
    end = end == std::string_view::npos ? summary.size() : end + 1;
    const std::string_view line = summary.substr(at, end - at);
    if (!(line.starts_with("… ") && line.find(kTallyBy) != std::string_view::npos)) {
      out.append(line);
    }
    at = end;
  }
  return out;
}

BudgetCut FitToBudget(std::string_view summary, uint64_t max_tokens, uint64_t reserve,
                      const TokenCounter& counter) {
  BudgetCut cut;
  std::vector<std::string_view> lines = SplitLines(summary);
  cut.lines_in = lines.size();
  if (max_tokens == 0 || counter.Count(summary) + reserve <= max_tokens) {
    cut.summary.assign(summary);
    return cut;
  }
  const size_t n = lines.size();
  std::vector<int> rank(n, kContext);
  std::vector<uint64_t> cost(n);
  size_t evidence_left = 0, continuation = 0;
  bool subject_pending = false;  // after git log's "commit <hash>", until its subject
  std::map<std::string, size_t> locations_per_file;
  std::vector<bool> is_list(n);
  std::vector<bool> named(n);  // an identifier's or a location's line
  for (size_t i = 0; i < n; ++i) is_list[i] = !ListedLocations(lines[i]).empty();
  auto is_continuation = [&](size_t i) {
    const size_t at = lines[i].find(kListAt);
    return is_list[i] && lines[i].substr(0, at + kListAt.size()).ends_with(kListAlsoAt);
  };
  // Per continuation line: how many continuations of its list follow it.
  std::vector<size_t> continuations_after(n, 0);
  for (size_t i = n; i-- > 0;) {
    if (is_continuation(i) && i + 1 < n && is_continuation(i + 1)) {
      continuations_after[i] = continuations_after[i + 1] + 1;
    }
  }
  // Where the closing lines start: the last kClosingLines lines that are not the shaper's notes.
  size_t closing = n;
  for (size_t found = 0; closing > 1 && found < kClosingLines;) {
    --closing;
    if (!lines[closing].empty() && !lines[closing].starts_with("… ")) ++found;
  }
  // A file's path line, above its rows: "/w/a.js", then "  3:5  error …".
  auto is_path_line = [](std::string_view line) {
    return !line.empty() && !line.starts_with("… ") && line.find_first_of(" \t") == line.npos &&
           line.find_first_of("./") != line.npos;
  };
  std::string_view path_line;  // the last one, for the rows under it
  for (size_t i = 0; i < n; ++i) {
    cost[i] = counter.Count(lines[i]) + 1;  // the newline
    if (is_path_line(lines[i])) path_line = lines[i];
    if (i == 0) {
      rank[i] = kOutcome;
    } else if (i >= closing && !lines[i].empty() && !lines[i].starts_with("… ")) {
      // Where tools print their final status: kept with the outcome when short.
      rank[i] = cost[i] <= kClosingLineTokens ? kOutcome : kIdentifier;
    } else if (lines[i].starts_with("… ") && lines[i].find(kTallyBy) != std::string_view::npos) {
      rank[i] = kIdentifier;  // the problems' codes
      evidence_left = 0;
      continue;
    } else if (is_list[i]) {
      // A list of locations: its first line names failures; its continuations are locations,
      // from both ends in: every list's first and last continuation before any list's second.
      if (is_continuation(i)) {
        const size_t depth = std::min(continuation++, continuations_after[i]);
        rank[i] = kLocation + static_cast<int>(std::min<size_t>(depth, kLocationRounds));
      } else {
        rank[i] = kIdentifier;
        continuation = 0;
      }
      evidence_left = 0;
      continue;
    } else if (subject_pending && !lines[i].empty() && !lines[i].starts_with("… ") &&
               !IsHeaderField(lines[i])) {
      // A commit's subject, the first line of its message: it names the commit as its hash
      // does.
      rank[i] = kIdentifier;
      named[i] = true;
      subject_pending = false;
      evidence_left = kEvidenceLines;
      continue;
    } else if (int identifier = IdentifierRank(lines[i]); identifier != kContext) {
      rank[i] = identifier;
      named[i] = true;
      // git log's "commit <hash>" line: its subject follows its header fields.
      subject_pending = IsCommitHeader(lines[i]);
      if (identifier == kLocation) {
        // Spread over files: a file's first warning before any file's second.
        const std::string_view file = IsRowUnderPath(lines[i]) ? path_line : LocationPath(lines[i]);
        const size_t seen = locations_per_file[std::string(file)]++;
        rank[i] = kLocation + static_cast<int>(std::min<size_t>(seen, kLocationRounds));
      }
      // What follows an identifier is its evidence; what follows a mere location is not.
      evidence_left = identifier == kIdentifier ? kEvidenceLines : 0;
      continue;
    } else if (LooksLikeErrorLine(lines[i]) && !lines[i].starts_with("… ")) {
      rank[i] = kEvidence;  // a message: evidence of the identifier before it, at least
    } else if (evidence_left > 0 && IsHeaderField(lines[i])) {
      continue;  // "Author: …", "Date: …": the identifier's header, context; not evidence
    } else if (evidence_left > 0 && !lines[i].empty() && !lines[i].starts_with("… ")) {
      rank[i] = kEvidence + static_cast<int>(kEvidenceLines - evidence_left);
    }
    if (evidence_left > 0) --evidence_left;
  }

  // A list of locations follows the problem its entries are like ("… 41 more
  // Style/StringLiterals at: …", "… 18 more errors like it at: …"), and that problem's detail
  // lines: the problem is ranked with the list, so that no list is shown without it.
  std::vector<size_t> like(n, kNoLine);  // per list: the line of the problem it is like
  for (size_t i = 2; i < n; ++i) {
    if (!is_list[i] || is_continuation(i)) continue;
    for (size_t j = i - 1; j > 0 && i - j <= kListExampleDistance && !is_list[j]; --j) {
      if (!named[j]) continue;
      // A list of warnings ranks as the warning it is like: a location that reports no error
      // (an error shown once must not give way to warnings shown many times).
      rank[i] = std::max(rank[i], rank[j]);
      rank[j] = rank[i];
      like[i] = j;
      break;
    }
  }

  // A run alike but for one word: its first line of words comes with the line it stands in
  // for (the one before it), and each further line of words with that first one, so that no
  // words are shown without what they stand for.
  for (size_t i = 1, words = kNoLine; i < n; ++i) {
    if (is_list[i] || !lines[i].starts_with("… ")) {
      words = kNoLine;
    } else if (lines[i].find(kOneWordBut) != std::string_view::npos) {
      words = i;
      if (like[i] == kNoLine) like[i] = i - 1;
    } else if (lines[i].starts_with(kOneWordMore) && words != kNoLine) {
      if (like[i] == kNoLine) like[i] = words;
    } else {
      words = kNoLine;
    }
  }

  // A file's path line above its rows: ranked with the best of its rows, so that no row shown
  // is without its file.
  for (size_t i = 1; i + 1 < n; ++i) {
    if (!is_path_line(lines[i]) || !IsRowUnderPath(lines[i + 1])) continue;
    for (size_t j = i + 1; j < n && IsRowUnderPath(lines[j]); ++j) rank[i] = std::min(rank[i], rank[j]);
  }

  // The statement at the end (and the count by file, when identifiers are cut) is kept aside.
  const uint64_t statement = 120;
  uint64_t limit = max_tokens > reserve + statement ? max_tokens - reserve - statement : 0;
  // The first line is cut only when it alone is over what the budget leaves it.
  const uint64_t first_limit =
      limit > 0 ? limit : (max_tokens > reserve ? (max_tokens - reserve) / 2 : max_tokens / 2);
  size_t grouped_files = kGroupedFiles;
  const std::vector<size_t> order = VisitOrder(rank);
  // Line costs are counted one by one; the whole is counted again and the limit lowered until
  // it fits (BPE pieces rarely cross a newline, so this converges at once). When nothing but
  // the outcome fits and it is still over (a small budget), the closing lines go, then the
  // files the count of what did not fit names.
  for (int attempt = 0;; ++attempt) {
    BudgetCut attempt_cut = Assemble(lines, rank, order, is_list, like, cost, limit, first_limit,
                                     grouped_files, max_tokens, counter);
    attempt_cut.lines_in = cut.lines_in;
    const uint64_t tokens = counter.Count(attempt_cut.summary);
    if (tokens + reserve <= max_tokens || attempt >= 12) return attempt_cut;
    // Fewer files named in the count of what did not fit before fewer lines shown.
    if (grouped_files > kFewGroupedFiles &&
        attempt_cut.summary.find(kDidNotFit) != std::string::npos) {
      grouped_files = kFewGroupedFiles;
      continue;
    }
    if (limit == 0) {
      if (grouped_files == 0) return attempt_cut;
      grouped_files = 0;
      continue;
    }
    const uint64_t excess = tokens + reserve - max_tokens;
    limit = limit > excess + 16 ? limit - excess - 16 : 0;
  }
}

}  // namespace plugline::core

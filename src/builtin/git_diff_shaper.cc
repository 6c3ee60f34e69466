// builtin-git-diff: git diff / show / log (-p, --stat, --oneline, full), format-patch, status
// (long, --short, --porcelain v1 and v2), and plain unified or normal diffs (`diff -u`, `diff`).
//
// Diffs: every file header ("diff --git a/x b/x") and its rename / copy / mode / new / deleted /
// binary markers, and every hunk header are kept. Changed lines are kept up to a budget shared
// fairly between files (small files whole, large files trimmed to the head and tail of each
// hunk); when the diff is large, context lines and index/---/+++ lines go first. Deleted
// files' old contents are counted, not shown. Every gap says how many changed lines it hides.
// Logs: every commit's hash line, its Merge/Author/Date lines and subject; long messages are
// trimmed; past 1,000 commits the rest is counted. When the commits' hash lines and subjects
// would take more than half the summary's token budget, each commit after the first
// kDetailedCommits is one line, its abbreviated hash and subject (`git log --oneline`'s form).
// In a history (`git log -p`) the diffs are what is elided, shared fairly between commits. --stat blocks are
// kept, long ones trimmed, always with their "N files changed" line. Status: branch lines,
// section headings and every path (long untracked lists counted); hints are dropped.
//
// The header counts what the output shows: "git diff: 40 files changed, +3,711 −1,344",
// "git log: 20 commits, …", "git status: 4 staged, 3 unstaged, 2 untracked".
#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

// Hunk lines (changed + context) shown whole when they fit; otherwise context goes.
constexpr uint64_t kBodyBudget = 250;
// Changed lines kept when trimming, shared between files (the budget grows with the number
// of files, up to kMaxChangedBudget), at most this many per file.
constexpr uint64_t kChangedBudget = 250;
constexpr uint64_t kChangedPerExtraFile = 8;
constexpr uint64_t kMaxChangedBudget = 600;
constexpr uint64_t kMaxChangedPerFile = 80;
constexpr uint64_t kMessageBudget = 120;  // message lines after the subjects, all commits
// A log of more than this many commits keeps the first ones as printed (hash line, Author/Date
// lines, message) and every later one as one line, its abbreviated hash and subject, up to
// kMaxHistoryCommits in all; in a history (`git log -p`) the diffs' file headers are shared
// fairly between commits (kHistoryFiles in all), and hunk headers are shown only with the
// changed lines they lead.
constexpr size_t kDetailedCommits = 10;
constexpr size_t kMaxHistoryCommits = 1000;
constexpr size_t kOnelineHashChars = 10;
constexpr uint64_t kHistoryFiles = 40;
constexpr uint64_t kHistoryChangedBudget = 100;
constexpr uint64_t kStatBlockLines = 100;
constexpr uint64_t kStatBudget = 400;
constexpr uint64_t kMaxOtherLines = 100;
constexpr uint64_t kMaxTrackedPaths = 200;  // per status section
constexpr uint64_t kMaxUntrackedPaths = 30;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f'); }

size_t HexRun(std::string_view s, size_t from = 0) {
  size_t i = from;
  while (i < s.size() && IsHex(s[i])) ++i;
  return i - from;
}

// Reads a decimal number at s[*i], advancing *i.
bool ReadNumber(std::string_view s, size_t* i, uint64_t* value) {
  size_t start = *i;
  uint64_t v = 0;
  while (*i < s.size() && IsDigit(s[*i])) v = v * 10 + static_cast<uint64_t>(s[(*i)++] - '0');
  if (*i == start) return false;
  *value = v;
  return true;
}

// "-12,7" or "-12" (count 1) at s[*i] with the given sign.
bool ReadRange(std::string_view s, size_t* i, char sign, uint64_t* count) {
  if (*i >= s.size() || s[*i] != sign) return false;
  ++*i;
  uint64_t start = 0;
  if (!ReadNumber(s, i, &start)) return false;
  *count = 1;
  if (*i < s.size() && s[*i] == ',') {
    ++*i;
    if (!ReadNumber(s, i, count)) return false;
  }
  return true;
}

// "@@ -12,7 +12,9 @@ func" -> old 7, new 9.
bool ParseHunkHeader(std::string_view s, uint64_t* old_count, uint64_t* new_count) {
  if (!s.starts_with("@@ ")) return false;
  size_t i = 3;
  if (!ReadRange(s, &i, '-', old_count)) return false;
  if (i >= s.size() || s[i] != ' ') return false;
  ++i;
  if (!ReadRange(s, &i, '+', new_count)) return false;
  return s.substr(i).starts_with(" @@");
}

// "@@@ -1,3 -1,3 +1,4 @@@" (combined diff of a merge) -> 2 parents.
size_t CombinedParents(std::string_view s) {
  size_t at = 0;
  while (at < s.size() && s[at] == '@') ++at;
  if (at < 3 || at >= s.size() || s[at] != ' ') return 0;
  if (s.find(std::string(at, '@'), at) == std::string_view::npos) return 0;
  return at - 1;
}

// A normal-format diff command: "12c12", "5,7d4", "8a9,10" -> lines removed and added.
bool ParseNormalCommand(std::string_view s, uint64_t* removed, uint64_t* added) {
  size_t i = 0;
  uint64_t a = 0, b = 0, c = 0, d = 0;
  if (!ReadNumber(s, &i, &a)) return false;
  b = a;
  if (i < s.size() && s[i] == ',') {
    ++i;
    if (!ReadNumber(s, &i, &b)) return false;
  }
  if (i >= s.size() || (s[i] != 'a' && s[i] != 'c' && s[i] != 'd')) return false;
  char op = s[i++];
  if (!ReadNumber(s, &i, &c)) return false;
  d = c;
  if (i < s.size() && s[i] == ',') {
    ++i;
    if (!ReadNumber(s, &i, &d)) return false;
  }
  if (i != s.size() || b < a || d < c) return false;
  *removed = op == 'a' ? 0 : b - a + 1;
  *added = op == 'd' ? 0 : d - c + 1;
  return true;
}

// "commit 1a2b3c4…" (git log / show, maybe with decorations).
bool IsCommitLine(std::string_view s) {
  return s.starts_with("commit ") && HexRun(s, 7) >= 7 &&
         (s.size() == 7 + HexRun(s, 7) || s[7 + HexRun(s, 7)] == ' ');
}

// "From 1a2b…(40) Mon Sep 17 00:00:00 2001" (format-patch).
bool IsMboxFromLine(std::string_view s) {
  return s.starts_with("From ") && HexRun(s, 5) >= 40 && s.size() > 45 && s[45] == ' ';
}

// "1a2b3c4 subject" (--oneline and similar formats).
bool IsOnelineCommit(std::string_view s) {
  size_t n = HexRun(s);
  // After the hash a space, or a separator of a --format of one's own ("%h|%an|%s", "%h%x09%s").
  return n >= 7 && n <= 64 &&
         (n == s.size() || s[n] == ' ' || s[n] == '|' || s[n] == '\t' || s[n] == ',' ||
          s[n] == ';');
}

// "Author: …", "Merge: …", "Date:   …": a header line of a commit.
bool IsHeaderField(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '-')) ++i;
  return i > 0 && i < s.size() && s[i] == ':';
}

// " src/x.c | 12 +++---", " logo.png | Bin 185 -> 244 bytes".
bool IsStatLine(std::string_view s) {
  if (s.size() < 4 || s[0] != ' ') return false;
  size_t bar = s.find(" | ");
  if (bar == std::string_view::npos) return false;
  std::string_view rest = Trim(s.substr(bar + 3));
  return !rest.empty() && (IsDigit(rest[0]) || rest.starts_with("Bin"));
}

// " 40 files changed, 3711 insertions(+), 1344 deletions(-)".
bool IsStatSummary(std::string_view s) {
  std::string_view t = Trim(s);
  size_t i = 0;
  uint64_t n = 0;
  if (!ReadNumber(t, &i, &n)) return false;
  return t.substr(i).starts_with(" file changed") || t.substr(i).starts_with(" files changed");
}

// --numstat "12\t3\tpath", "-\t-\tpath"; --name-status "M\tpath", "R100\told\tnew".
bool IsNumstatOrNameStatus(std::string_view s) {
  size_t tab = s.find('\t');
  if (tab == std::string_view::npos || tab == 0 || tab > 8) return false;
  std::string_view first = s.substr(0, tab);
  if (first == "-" || first.find_first_not_of("0123456789") == std::string_view::npos) {
    size_t tab2 = s.find('\t', tab + 1);
    std::string_view second = s.substr(tab + 1, tab2 == std::string_view::npos ? 0 : tab2 - tab - 1);
    return tab2 != std::string_view::npos && !second.empty() &&
           (second == "-" || second.find_first_not_of("0123456789") == std::string_view::npos);
  }
  return std::strchr("ACDMRTUXB", first[0]) != nullptr &&
         first.find_first_not_of("0123456789", 1) == std::string_view::npos;
}

// How a file line of a commit's list was asked for: "--stat", "--numstat" or "--name-status".
std::string_view FileListOption(std::string_view s) {
  if (!IsNumstatOrNameStatus(s)) return "--stat";
  return IsDigit(s[0]) || s[0] == '-' ? "--numstat" : "--name-status";
}

// The new path of a "diff --git a/x b/x" line (or the last word of another "diff" line).
std::string_view DiffLinePath(std::string_view s) {
  if (s.starts_with("diff --git ")) {
    std::string_view rest = s.substr(11);
    if (rest.size() % 2 == 1) {
      size_t half = rest.size() / 2;
      if (rest[half] == ' ' && half > 2 && rest.substr(2, half - 2) == rest.substr(half + 3)) {
        return rest.substr(half + 3);
      }
    }
    size_t b = rest.rfind(" b/");
    if (b != std::string_view::npos) return rest.substr(b + 3);
  }
  if (s.starts_with("diff --cc ")) return s.substr(10);
  if (s.starts_with("diff --combined ")) return s.substr(16);
  size_t space = s.rfind(' ');
  return space == std::string_view::npos ? s : s.substr(space + 1);
}

// The path of a "--- a/x\t2024-…" / "+++ b/x" line; empty for /dev/null.
std::string_view MinusPlusPath(std::string_view s, bool git) {
  std::string_view path = s.substr(4);
  size_t tab = path.find('\t');
  if (tab != std::string_view::npos) path = path.substr(0, tab);
  if (path == "/dev/null") return {};
  if (git && path.size() > 2 && path[1] == '/') path = path.substr(2);
  return path;
}

std::string PlusMinus(uint64_t added, uint64_t removed) {
  if (added > 0 && removed > 0) {
    return StrCat("+", core::FormatCount(added), " −", core::FormatCount(removed));
  }
  if (added > 0) return StrCat("+", core::FormatCount(added));
  return StrCat("−", core::FormatCount(removed));
}


// ---- The command ------------------------------------------------------------------------------

enum class Sub { kNone, kDiff, kShow, kLog, kStatus, kMerge, kBlame };
enum class WordDiff { kNo, kPlain, kPorcelain };

struct GitCommand {
  std::string label;  // "git diff", "diff", "" when the command is no diff/log/status tool
  Sub sub = Sub::kNone;
  bool short_status = false;
  bool git = false;
  // --word-diff: a hunk's lines carry their changes inline, "[-old-]{+new+}" (plain), or a
  // column of ' ', '-', '+' and '~' (porcelain).
  WordDiff word_diff = WordDiff::kNo;
};

GitCommand ParseCommand(std::string_view command) {
  GitCommand cmd;
  std::vector<std::string_view> stages = PipelineStages(command);
  if (stages.empty()) return cmd;
  // Later stages must keep the lines as they are (paging, head/tail, filtering lines).
  for (size_t i = 1; i < stages.size(); ++i) {
    std::string tool = ToolName(stages[i]);
    static constexpr std::string_view kKeepers[] = {"head", "tail", "less", "more", "cat",
                                                    "tee",  "grep", "egrep", "fgrep", "rg"};
    if (std::find(std::begin(kKeepers), std::end(kKeepers), tool) == std::end(kKeepers)) {
      return cmd;
    }
  }
  std::string tool = ToolName(stages[0]);
  std::vector<std::string> args = ToolArgs(stages[0]);
  if (tool == "diff" || tool == "colordiff") {
    cmd.label = tool;
    cmd.sub = Sub::kDiff;
    return cmd;
  }
  if (tool == "hg" || tool == "svn" || tool == "jj") {
    if (!args.empty() && args[0] == "diff") {
      cmd.label = StrCat(tool, " diff");
      cmd.sub = Sub::kDiff;
    }
    return cmd;
  }
  if (tool != "git") return cmd;
  size_t i = 0;
  while (i < args.size() && args[i].starts_with("-")) {
    const std::string& a = args[i];
    i += (a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" ||
          a == "--namespace") ? 2 : 1;
  }
  if (i >= args.size()) return cmd;
  const std::string& sub = args[i];
  cmd.git = true;
  for (size_t j = i + 1; j < args.size(); ++j) {
    const std::string& a = args[j];
    if (a == "--word-diff" || a == "--word-diff=plain") cmd.word_diff = WordDiff::kPlain;
    if (a == "--word-diff=porcelain") cmd.word_diff = WordDiff::kPorcelain;
  }
  if (sub == "diff" || sub == "diff-tree" || sub == "diff-index" || sub == "diff-files" ||
      sub == "format-patch") {
    cmd.sub = Sub::kDiff;
  } else if (sub == "show") {
    cmd.sub = Sub::kShow;
  } else if (sub == "log" || sub == "whatchanged" || sub == "reflog") {
    cmd.sub = Sub::kLog;
  } else if (sub == "stash" && i + 1 < args.size() && args[i + 1] == "show") {
    cmd.sub = Sub::kShow;
  } else if (sub == "merge" || sub == "pull" || sub == "rebase" || sub == "cherry-pick" ||
             sub == "revert" ||
             (sub == "stash" && i + 1 < args.size() && (args[i + 1] == "pop" || args[i + 1] == "apply"))) {
    cmd.sub = Sub::kMerge;
    if (sub == "stash") {
      cmd.label = StrCat("git stash ", args[i + 1]);
      return cmd;
    }
  } else if (sub == "blame" || sub == "annotate") {
    cmd.sub = Sub::kBlame;
  } else if (sub == "status") {
    cmd.sub = Sub::kStatus;
    for (size_t j = i + 1; j < args.size(); ++j) {
      const std::string& a = args[j];
      if (a == "--short" || a.starts_with("--porcelain") ||
          (a.size() > 1 && a[0] == '-' && a[1] != '-' && a.find('s') != std::string::npos)) {
        cmd.short_status = true;
      }
    }
  } else {
    return cmd;
  }
  cmd.label = StrCat("git ", sub == "stash" ? "stash show" : sub);
  return cmd;
}

// ---- Diffs and logs ---------------------------------------------------------------------------

enum Kind : uint8_t {
  kKeep,        // always shown
  kFileHeader,  // "diff --git …" (or the "---" line of a plain diff): starts a file
  kHunkHeader,  // "@@ … @@", "12c12": starts a hunk
  kAdd,
  kDel,
  kContext,  // context lines, "\ No newline at end of file"
  kMeta,     // index and ---/+++ lines of a git diff, binary patch data
  kCommit,   // "commit <hash>", "From <hash> …": starts a commit
  kHeaderField,  // a commit's "Author: …", "Date: …", "Merge: …" lines
  kOneline,  // "<hash> subject"
  kBody,     // commit message lines after the subject
  kStat,     // --stat, --numstat, --name-status lines
  kOther,
  kBlank,  // blank lines, graph-only lines
};

struct FileInfo {
  size_t line = 0;
  size_t commit = SIZE_MAX;  // the commit it belongs to, in a log
  std::string_view path;
  uint64_t added = 0, removed = 0;
  bool deleted = false;
  bool real = true;  // false: hunks with no file header (a plain two-file diff)
  size_t first_hunk = 0, hunks = 0;
};

struct HunkInfo {
  size_t file = 0;
  uint64_t added = 0, removed = 0;
  uint64_t changed() const { return added + removed; }
};

struct CommitInfo {
  size_t line = 0;
  uint64_t body = 0;
  size_t subject = SIZE_MAX;  // the subject's line, when the commit has one
};

struct PatchReport {
  std::vector<uint8_t> kind;
  bool word_diff = false;  // its hunks' changes are words marked in lines (--word-diff)
  std::vector<FileInfo> files;
  std::vector<HunkInfo> hunks;
  std::vector<CommitInfo> commits;
  std::vector<uint64_t> stat_blocks;  // lines per block
  std::vector<size_t> stat_summaries;
  uint64_t changed = 0, context = 0, added = 0, removed = 0, stat_lines = 0;
  bool full_commits = false;  // any "commit <hash>" (not one-line) commit
};

// The graph drawn by `git log --graph`: its width is taken from the last line that starts a
// commit or a diff, so the lines between keep their own leading spaces.
size_t GraphRun(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::strchr("*|/\\_ ", s[i]) != nullptr && s[i] != '\0') ++i;
  return i;
}

// Reads a diff, a patch series or a log line by line into a PatchReport. Each step below takes
// the current line and returns whether it was that step's kind of line; Run() tries them in
// order: the graph margin, the body of an open hunk, binary patch data, the commit (or mail)
// headers and message, a file's header lines, a hunk header, then the rest (stat blocks,
// one-line commits, "Only in", a patch's signature).
class PatchParser {
 public:
  PatchParser(const std::vector<std::string_view>& lines, WordDiff word_diff)
      : lines_(lines), n_(lines.size()), word_diff_(word_diff) {
    r_.kind.assign(n_, kOther);
    // A word diff whose command is not known (`./ci.sh` ran it): lines with words marked
    // ("[-old-]", "{+new+}") and few lines that start with a unified diff's "+" or "-" (a
    // context line may: "- item" of a list).
    if (word_diff_ == WordDiff::kNo) {
      size_t marked = 0, prefixed = 0;
      for (std::string_view l : lines) {
        // A unified diff's changed lines come early and often: no need to read it all.
        if (prefixed > 256 && prefixed * 4 >= marked) break;
        if ((l.starts_with("+") && !l.starts_with("+++ ")) ||
            (l.starts_with("-") && !l.starts_with("--- "))) {
          ++prefixed;
        } else if ((l.find("{+") != std::string_view::npos &&
                    l.find("+}") != std::string_view::npos) ||
                   (l.find("[-") != std::string_view::npos &&
                    l.find("-]") != std::string_view::npos)) {
          ++marked;
        }
      }
      if (marked >= 3 && prefixed * 4 < marked) word_diff_ = WordDiff::kPlain;
    }
    r_.word_diff = word_diff_ != WordDiff::kNo;
    for (std::string_view l : lines) {
      if (IsBlank(l)) continue;
      graph_ = l.starts_with("* ") || l == "*";
      break;
    }
  }

  PatchReport Run() && {
    for (i_ = 0; i_ < n_; ++i_) {
      std::string_view s = lines_[i_];
      if (graph_ && !StripGraph(s)) continue;
      if (HunkBody(s) || BinaryData(s) || CommitText(s) || FileHeader(s) || HunkHeader(s) ||
          OtherKnownLine(s)) {
        continue;
      }
      r_.kind[i_] = LooksLikeErrorLine(s) ? kKeep : kOther;
    }
    return std::move(r_);
  }

 private:
  enum class HunkMode { kNone, kUnified, kCombined, kNormal, kWords };
  enum class Msg { kNone, kHeader, kMessage, kEmailHeader, kEmailBody };

  FileInfo* file() { return r_.files.empty() ? nullptr : &r_.files.back(); }

  void StartFile(std::string_view path, bool real) {
    FileInfo f;
    f.line = i_;
    f.path = path;
    f.real = real;
    f.first_hunk = r_.hunks.size();
    if (!r_.commits.empty()) f.commit = r_.commits.size() - 1;
    r_.files.push_back(f);
    header_open_ = real;
  }

  void StartHunk(HunkMode mode) {
    if (r_.files.empty()) StartFile({}, false);  // hunks with no file header before them
    header_open_ = false;
    r_.files.back().hunks++;
    r_.hunks.push_back(HunkInfo{r_.files.size() - 1, 0, 0});
    r_.kind[i_] = kHunkHeader;
    hunk_ = mode;
  }

  void Changed(bool add) {
    r_.kind[i_] = add ? kAdd : kDel;
    ++r_.changed;
    (add ? r_.added : r_.removed)++;
    (add ? r_.files.back().added : r_.files.back().removed)++;
    (add ? r_.hunks.back().added : r_.hunks.back().removed)++;
  }

  void Context() {
    r_.kind[i_] = kContext;
    ++r_.context;
  }

  // `git log --graph`: drops the graph's margin from `s`; false for a line that is only graph.
  bool StripGraph(std::string_view& s) {
    const size_t run = GraphRun(s);
    std::string_view rest = s.substr(run);
    if (rest.empty()) {
      r_.kind[i_] = kBlank;
      return false;
    }
    if (IsCommitLine(rest) || rest.starts_with("diff ") || IsOnelineCommit(rest)) {
      graph_width_ = run;
    }
    s = s.substr(std::min(run, graph_width_));
    return true;
  }

  // A line of the open hunk, counted against what its header announced; a line that does not
  // fit closes the hunk (false).
  bool HunkBody(std::string_view s) {
    if (hunk_ == HunkMode::kNone) return false;
    if (hunk_ == HunkMode::kUnified && UnifiedLine(s)) return true;
    if (hunk_ == HunkMode::kCombined && CombinedLine(s)) return true;
    if (hunk_ == HunkMode::kNormal && NormalLine(s)) return true;
    if (hunk_ == HunkMode::kWords && WordsLine(s)) return true;
    if (s.starts_with("\\")) {  // "\ No newline at end of file"
      Context();
      return true;
    }
    hunk_ = HunkMode::kNone;
    return false;
  }

  bool UnifiedLine(std::string_view s) {
    if (old_left_ == 0 && new_left_ == 0) return false;
    const char c = s.empty() ? ' ' : s[0];
    if (c == ' ' && old_left_ > 0 && new_left_ > 0) {
      Context();
      --old_left_;
      --new_left_;
      return true;
    }
    if (c == '-' && old_left_ > 0) {
      Changed(false);
      --old_left_;
      return true;
    }
    if (c == '+' && new_left_ > 0) {
      Changed(true);
      --new_left_;
      return true;
    }
    return false;
  }

  // `git diff --word-diff`: its lines do not match the header's counts (a line changed is one
  // line, its words marked); the hunk goes on to the next file, hunk or commit. Plain: a line
  // with "[-…-]" or "{+…+}" is changed; porcelain: a column of ' ', '-', '+' and '~' (the end
  // of a line).
  bool WordsLine(std::string_view s) {
    if (s.starts_with("diff ") || s.starts_with("@@") || IsCommitLine(s)) return false;
    if (word_diff_ == WordDiff::kPorcelain) {
      const char c = s.empty() ? ' ' : s[0];
      if (c == '~') {
        r_.kind[i_] = kMeta;
      } else if (c == '+' || c == '-') {
        Changed(c == '+');
      } else if (c == ' ') {
        Context();
      } else {
        return false;
      }
      return true;
    }
    const bool removed =
        s.find("[-") != std::string_view::npos && s.find("-]") != std::string_view::npos;
    const bool added =
        s.find("{+") != std::string_view::npos && s.find("+}") != std::string_view::npos;
    // A line changed is one line, whatever its words (the header counts such lines).
    if (added || removed) {
      Changed(added);
    } else {
      Context();
    }
    return true;
  }

  // `diff --cc`: one column of +/-/space per parent.
  bool CombinedLine(std::string_view s) {
    bool body = s.size() >= parents_;
    for (size_t k = 0; body && k < parents_; ++k) body = s[k] == ' ' || s[k] == '+' || s[k] == '-';
    if (!body) return false;
    std::string_view cols = s.substr(0, parents_);
    if (cols.find('+') != std::string_view::npos) {
      Changed(true);
    } else if (cols.find('-') != std::string_view::npos) {
      Changed(false);
    } else {
      Context();
    }
    return true;
  }

  // `diff`'s normal format: "< old", "---", "> new".
  bool NormalLine(std::string_view s) {
    if ((s.starts_with("< ") || s == "<") && old_left_ > 0) {
      Changed(false);
      --old_left_;
      return true;
    }
    if (s == "---" && old_left_ == 0 && new_left_ > 0) {
      r_.kind[i_] = kMeta;
      return true;
    }
    if ((s.starts_with("> ") || s == ">") && new_left_ > 0) {
      Changed(true);
      --new_left_;
      return true;
    }
    return false;
  }

  // The lines of a "GIT binary patch", up to the next diff or commit.
  bool BinaryData(std::string_view s) {
    if (!binary_data_) return false;
    if (!s.starts_with("diff ") && !IsCommitLine(s) && !IsMboxFromLine(s)) {
      r_.kind[i_] = kMeta;
      return true;
    }
    binary_data_ = false;
    return false;
  }

  // Blank lines, and a commit's (or a mailed patch's) first line, header fields and message.
  bool CommitText(std::string_view s) {
    if (IsBlank(s)) {
      r_.kind[i_] = kBlank;
      if (msg_ == Msg::kHeader) msg_ = Msg::kMessage;
      if (msg_ == Msg::kEmailHeader) msg_ = Msg::kEmailBody;
      return true;
    }
    if (IsCommitLine(s) || IsMboxFromLine(s)) {
      r_.kind[i_] = kCommit;
      r_.commits.push_back(CommitInfo{i_, 0});
      r_.full_commits = true;
      msg_ = IsCommitLine(s) ? Msg::kHeader : Msg::kEmailHeader;
      subject_seen_ = false;
      header_open_ = false;
      return true;
    }
    switch (msg_) {
      case Msg::kHeader:
        if (IsHeaderField(s)) {
          r_.kind[i_] = kHeaderField;
          return true;
        }
        break;
      case Msg::kEmailHeader:
        if (s.starts_with("From:") || s.starts_with("Date:") || s.starts_with("Subject:")) {
          r_.kind[i_] = kKeep;
          subject_seen_ = subject_seen_ || s.starts_with("Subject:");
        } else if (s[0] == ' ' || s[0] == '\t') {
          r_.kind[i_] = kKeep;  // a folded header line
        } else {
          r_.kind[i_] = kMeta;
        }
        return true;
      case Msg::kEmailBody:
        if (s == "---") {
          r_.kind[i_] = kMeta;
          msg_ = Msg::kNone;
          return true;
        }
        if (!s.starts_with("diff --git ")) {
          r_.kind[i_] = kBody;
          r_.commits.back().body++;
          return true;
        }
        break;
      case Msg::kMessage:
        if (s.starts_with("    ")) {
          if (!subject_seen_ && !IsBlank(s)) {
            r_.kind[i_] = kKeep;
            r_.commits.back().subject = i_;
            subject_seen_ = true;
          } else {
            r_.kind[i_] = kBody;
            r_.commits.back().body++;
          }
          return true;
        }
        break;
      case Msg::kNone:
        return false;
    }
    msg_ = Msg::kNone;
    return false;
  }

  // A file's first line ("diff …", "Index: …", a plain diff's "---"/"+++" pair) and, until its
  // first hunk, its git header lines (index, ---/+++, modes, renames, binary markers).
  bool FileHeader(std::string_view s) {
    if (s.starts_with("diff ") && s.size() > 5 && s[5] != ' ') {
      StartFile(DiffLinePath(s), true);
      git_file_ = s.starts_with("diff --git ") || s.starts_with("diff --cc ") ||
                  s.starts_with("diff --combined ");
      r_.kind[i_] = kFileHeader;
      return true;
    }
    if (s.starts_with("Index: ") && i_ + 1 < n_ && lines_[i_ + 1].starts_with("=====")) {
      StartFile(s.substr(7), true);
      git_file_ = false;
      r_.kind[i_] = kFileHeader;
      r_.kind[++i_] = kMeta;
      return true;
    }
    if (header_open_ && GitHeaderLine(s)) return true;
    if (s.starts_with("--- ") && i_ + 1 < n_ && lines_[i_ + 1].starts_with("+++ ")) {
      // A plain unified diff: these two lines are the file's header.
      std::string_view path = MinusPlusPath(lines_[i_ + 1], false);
      StartFile(path.empty() ? MinusPlusPath(s, false) : path, true);
      if (path.empty()) r_.files.back().deleted = true;
      git_file_ = false;
      r_.kind[i_] = kFileHeader;
      r_.kind[++i_] = kKeep;
      return true;
    }
    return false;
  }

  bool GitHeaderLine(std::string_view s) {
    if (s.starts_with("index ") || s.starts_with("--- ") || s.starts_with("+++ ")) {
      r_.kind[i_] = kMeta;
      if (!s.starts_with("index ")) {
        std::string_view path = MinusPlusPath(s, git_file_);
        if (path.empty() && s.starts_with("+++ ")) file()->deleted = true;
        if (!path.empty() && (s.starts_with("+++ ") || file()->path.empty())) file()->path = path;
      }
      return true;
    }
    if (s.starts_with("GIT binary patch")) {
      r_.kind[i_] = kMeta;
      binary_data_ = true;
      return true;
    }
    static constexpr std::string_view kMarkers[] = {
        "old mode ",   "new mode ", "deleted file mode", "new file mode", "similarity index",
        "dissimilarity index", "rename from ", "rename to ", "copy from ", "copy to ",
        "Binary files "};
    bool marker = false;
    for (std::string_view m : kMarkers) marker = marker || s.starts_with(m);
    if (!marker) return false;
    r_.kind[i_] = kKeep;
    if (s.starts_with("deleted file mode")) file()->deleted = true;
    if (s.starts_with("rename to ")) file()->path = s.substr(10);
    if (s.starts_with("copy to ")) file()->path = s.substr(8);
    return true;
  }

  // "@@ -a,b +c,d @@", a combined diff's "@@@ … @@@", or a normal diff's "12c12".
  bool HunkHeader(std::string_view s) {
    if (s.starts_with("@@")) {
      uint64_t old_count = 0, new_count = 0;
      if (ParseHunkHeader(s, &old_count, &new_count)) {
        StartHunk(word_diff_ == WordDiff::kNo ? HunkMode::kUnified : HunkMode::kWords);
        old_left_ = old_count;
        new_left_ = new_count;
        return true;
      }
      if (size_t p = CombinedParents(s); p > 0) {
        StartHunk(HunkMode::kCombined);
        parents_ = p;
        return true;
      }
    }
    if (IsDigit(s[0])) {
      uint64_t removed = 0, added = 0;
      if (ParseNormalCommand(s, &removed, &added)) {
        StartHunk(HunkMode::kNormal);
        old_left_ = removed;
        new_left_ = added;
        return true;
      }
    }
    return false;
  }

  // Lines of a known kind outside files and hunks: "Binary files … differ", "Only in …",
  // --stat blocks and their summaries, one-line commits, a patch's "-- " signature.
  bool OtherKnownLine(std::string_view s) {
    if (((s.starts_with("Binary files ") || s.starts_with("Files ")) && s.ends_with(" differ")) ||
        s.starts_with("Only in ")) {
      StartFile({}, true);
      header_open_ = false;
      r_.kind[i_] = kFileHeader;
      return true;
    }
    if (IsStatSummary(s)) {
      r_.kind[i_] = kKeep;
      r_.stat_summaries.push_back(i_);
      return true;
    }
    if (IsStatLine(s) || IsNumstatOrNameStatus(s)) {
      r_.kind[i_] = kStat;
      if (i_ == 0 || r_.kind[i_ - 1] != kStat) r_.stat_blocks.push_back(0);  // a new block
      r_.stat_blocks.back()++;
      ++r_.stat_lines;
      return true;
    }
    if (IsOnelineCommit(s)) {
      r_.kind[i_] = kOneline;
      r_.commits.push_back(CommitInfo{i_, 0});
      return true;
    }
    if (s == "-- " && i_ + 1 < n_ && !lines_[i_ + 1].empty() && IsDigit(lines_[i_ + 1][0])) {
      r_.kind[i_] = kBlank;  // format-patch's signature: "-- " and the git version
      r_.kind[++i_] = kBlank;
      return true;
    }
    if (s.starts_with("\\ ")) {
      Context();
      return true;
    }
    return false;
  }

  const std::vector<std::string_view>& lines_;
  const size_t n_;
  size_t i_ = 0;  // the current line
  PatchReport r_;
  HunkMode hunk_ = HunkMode::kNone;
  uint64_t old_left_ = 0, new_left_ = 0;  // lines the open hunk's header announced
  size_t parents_ = 0;                     // a combined hunk's columns
  Msg msg_ = Msg::kNone;
  bool subject_seen_ = false;
  WordDiff word_diff_ = WordDiff::kNo;
  bool header_open_ = false;  // between a file header and its first hunk
  bool git_file_ = false;
  bool binary_data_ = false;
  bool graph_ = false;
  size_t graph_width_ = 0;
};

PatchReport ParsePatch(const std::vector<std::string_view>& lines, WordDiff word_diff) {
  return PatchParser(lines, word_diff).Run();
}

// About how many tokens the commits' hash lines and subjects take as printed: a 40-digit hash
// is about 22 tokens, text about 4 bytes a token.
uint64_t CommitLinesTokens(const std::vector<std::string_view>& lines, const PatchReport& r) {
  uint64_t tokens = 0;
  for (const CommitInfo& c : r.commits) {
    const size_t hash = HexRun(lines[c.line], lines[c.line].starts_with("commit ") ? 7 : 0);
    tokens += 2 + hash * 5 / 9 + (lines[c.line].size() - hash) / 4;
    if (c.subject < lines.size()) tokens += 1 + lines[c.subject].size() / 4;
  }
  return tokens;
}

// "commit 1a2b…(40) (HEAD -> main)" and "    Fix the parser" -> "1a2b3c4d5e (HEAD -> main) Fix
// the parser": the hash abbreviated as `git log --oneline` does, decorations kept.
std::string OnelineCommit(std::string_view commit_line, std::string_view subject_line) {
  std::string_view rest = commit_line.substr(7);  // "commit "
  const size_t hash = HexRun(rest);
  std::string line(rest.substr(0, std::min(hash, kOnelineHashChars)));
  line.append(rest.substr(hash));
  const std::string_view subject = Trim(subject_line);
  if (!subject.empty()) StrAppend(&line, " ", subject);
  return line;
}

std::string PatchHeader(const GitCommand& cmd, const PatchReport& r) {
  std::vector<std::string> parts;
  size_t commits = r.commits.size();
  if (commits > 0) parts.push_back(Plural(commits, "commit", "commits"));
  size_t real_files = 0;
  for (const FileInfo& f : r.files) real_files += f.real ? 1 : 0;
  if (real_files > 0) {
    std::string files = commits > 1 ? Plural(real_files, "file diff", "file diffs")
                                    : StrCat(Plural(real_files, "file", "files"), " changed");
    if (r.changed > 0) {
      StrAppend(&files, ", ",
                !r.word_diff
                    ? PlusMinus(r.added, r.removed)
                    : Plural(r.changed, "line with words changed", "lines with words changed"));
    }
    parts.push_back(files);
  } else if (!r.hunks.empty()) {
    std::string hunks = Plural(r.hunks.size(), "hunk", "hunks");
    if (r.changed > 0) StrAppend(&hunks, ", ", PlusMinus(r.added, r.removed));
    parts.push_back(hunks);
  }
  if (parts.empty() && r.stat_summaries.empty() && r.stat_lines > 0) {
    // --name-status / --numstat: a line per file.
    parts.push_back(StrCat(Plural(r.stat_lines, "file", "files"), " changed"));
  }
  std::string header = cmd.label;
  StrAppend(&header, ":");
  for (size_t i = 0; i < parts.size(); ++i) StrAppend(&header, i == 0 ? " " : ", ", parts[i]);
  return header;
}

// Where omitted untracked paths are: " (50 in ./, 20 under build/)", the three largest groups.
std::string UntrackedGroups(const std::vector<std::string_view>& paths) {
  std::vector<std::pair<std::string_view, uint64_t>> groups;
  absl::flat_hash_map<std::string_view, size_t> index;
  for (std::string_view p : paths) {
    if (p.starts_with('"')) p.remove_prefix(1);  // a quoted path ("src/with space.py")
    size_t slash = p.find('/');
    std::string_view key = slash == std::string_view::npos || slash + 1 == p.size()
                               ? std::string_view()
                               : p.substr(0, slash + 1);
    auto [it, inserted] = index.try_emplace(key, groups.size());
    if (inserted) groups.emplace_back(key, 0);
    groups[it->second].second++;
  }
  if (groups.size() < 2 && (groups.empty() || groups[0].first.empty())) return "";
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text = " (";
  uint64_t rest = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i >= 3) {
      rest += groups[i].second;
      continue;
    }
    StrAppend(&text, i == 0 ? "" : ", ", core::FormatCount(groups[i].second),
              groups[i].first.empty() ? " in ./" : StrCat(" under ", groups[i].first));
  }
  if (rest > 0) StrAppend(&text, ", ", core::FormatCount(rest), " elsewhere");
  return text + ")";
}

// Untracked paths past the cap, `paths`: listed as printed when kListedUntracked or fewer
// ("… 13 more untracked paths at: notes_35.txt; \"src/with space.py\""), else counted where
// they are (UntrackedGroups).
constexpr size_t kListedUntracked = 100;
void WriteUntrackedOmitted(const std::vector<std::string_view>& paths, SummaryWriter& out) {
  if (paths.empty()) return;
  if (paths.size() <= kListedUntracked) {
    WriteLocationList(
        StrCat(core::FormatCount(paths.size()),
               paths.size() == 1 ? " more untracked path" : " more untracked paths", core::kListAt),
        StrCat("untracked paths", core::kListAlsoAt), paths.size(), paths.size(), out,
        [&](size_t i, std::string* text) { text->append(paths[i]); });
    return;
  }
  out.ElidedLines(paths.size(), StrCat("more untracked paths omitted", UntrackedGroups(paths)));
}

void WriteStatusHeaderCounts(std::string* header, uint64_t unmerged, uint64_t staged,
                             uint64_t unstaged, uint64_t untracked) {
  std::vector<std::string> parts;
  if (unmerged > 0) parts.push_back(StrCat(core::FormatCount(unmerged), " unmerged"));
  if (staged > 0) parts.push_back(StrCat(core::FormatCount(staged), " staged"));
  if (unstaged > 0) parts.push_back(StrCat(core::FormatCount(unstaged), " unstaged"));
  if (untracked > 0) parts.push_back(StrCat(core::FormatCount(untracked), " untracked"));
  for (size_t i = 0; i < parts.size(); ++i) StrAppend(header, i == 0 ? " " : ", ", parts[i]);
}

class GitDiffShaper final : public core::Shaper {
 public:
  GitDiffShaper() {
    meta_.id = "builtin-git-diff";
    meta_.name = "git-diff";
    meta_.version = "1.0.0";
    meta_.description =
        "git diff/show/log/status and unified diffs: every file and hunk header, changed lines "
        "to a budget, every commit's hash, author, date and subject, every status path";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "diff";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    GitCommand cmd = ParseCommand(command);
    if (cmd.sub != Sub::kNone) {
      return core::MatchResult{true, cmd.git ? 0.95 : 0.9, {StrCat("command: ", cmd.label)}};
    }
    double confidence = 0;
    std::string signal;
    std::vector<std::string_view> lines = core::SplitLines(snippet.substr(0, 4096));
    size_t first = 0;
    while (first < lines.size() && IsBlank(lines[first])) ++first;
    if (first < lines.size()) {
      std::string_view head = lines[first];
      if (head.starts_with("diff --git ") || head.starts_with("diff --cc ")) {
        confidence = 0.85;
        signal = "output starts with diff --git";
      } else if ((IsCommitLine(head) && HexRun(head, 7) >= 40 && first + 1 < lines.size() &&
                  (lines[first + 1].starts_with("Author: ") ||
                   lines[first + 1].starts_with("Merge: "))) ||
                 IsMboxFromLine(head)) {
        confidence = 0.85;
        signal = "output starts with a git commit";
      } else if (head.starts_with("On branch ") || head.starts_with("HEAD detached ")) {
        for (std::string_view l : lines) {
          if (l == "Changes to be committed:" || l == "Changes not staged for commit:" ||
              l == "Untracked files:" || l.starts_with("nothing to commit")) {
            confidence = 0.8;
            signal = "git status output";
          }
        }
      }
    }
    if (confidence == 0) {
      // A diffstat (`git diff --stat`, a merge's or a pull's): " src/x.c | 12 +++---" lines and
      // " 3 files changed, …". A one-line log (`git log --oneline`): "1a2b3c4 subject" lines,
      // nearly all of them, the hashes of hex letters and digits both (a hex dump's offsets,
      // "0000020 …", are digits alone).
      size_t stat = 0, summaries = 0, oneline = 0, content = 0;
      for (std::string_view l : lines) {
        if (IsBlank(l)) continue;
        ++content;
        stat += IsStatLine(l) ? 1 : 0;
        summaries += IsStatSummary(l) ? 1 : 0;
        const size_t n = HexRun(l);
        const std::string_view hash = l.substr(0, n);
        if (IsOnelineCommit(l) && n < l.size() &&
            hash.find_first_of("0123456789") != std::string_view::npos &&
            hash.find_first_of("abcdef") != std::string_view::npos) {
          ++oneline;
        }
      }
      if (summaries > 0 && stat > 0) {
        confidence = 0.85;
        signal = "a diffstat";
      } else if (oneline >= 3 && oneline * 10 >= content * 9) {
        confidence = 0.75;
        signal = "one-line log";
      }
    }
    for (size_t i = 0; confidence == 0 && i + 2 < lines.size(); ++i) {
      uint64_t a = 0, b = 0;
      if (lines[i].starts_with("--- ") && lines[i + 1].starts_with("+++ ") &&
          ParseHunkHeader(lines[i + 2], &a, &b)) {
        confidence = 0.8;
        signal = "unified diff headers";
      } else if (lines[i].starts_with("diff --git ")) {
        confidence = 0.7;
        signal = "diff --git in the output";
      }
    }
    if (confidence == 0) return core::MatchResult{false, 0, {}};
    return core::MatchResult{true, confidence, {signal}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    GitCommand cmd = ParseCommand(context.command);
    std::vector<std::string_view> lines = core::SplitLines(output);
    const std::string note = ExitNote(context.exit_code);
    const bool exit_ok = note.empty();
    if (cmd.label.empty()) cmd.label = GuessLabel(lines);

    if (lines.empty()) {
      std::string what = !exit_ok                   ? note
                         : cmd.sub == Sub::kLog     ? "no commits"
                         : cmd.sub == Sub::kStatus  ? "clean"
                         : cmd.label == "diff"      ? "no differences"
                                                    : "no changes";
      return core::ShapeOutput{StrCat(cmd.label, ": ", what, "\n"), RenderMode::kSummary};
    }
    if (cmd.sub == Sub::kMerge) return ShapeMerge(cmd, lines, note);
    if (cmd.sub == Sub::kBlame) return ShapeBlame(cmd, lines, note);
    bool status = cmd.sub == Sub::kStatus || (cmd.sub == Sub::kNone && LooksLikeLongStatus(lines));
    if (status) {
      std::optional<std::string> shaped =
          cmd.short_status ? ShapeShortStatus(cmd, lines, note) : ShapeLongStatus(cmd, lines, note);
      if (shaped) return core::ShapeOutput{std::move(*shaped), RenderMode::kSummary};
      return Fallback(cmd, lines, note);
    }
    PatchReport report = ParsePatch(lines, cmd.word_diff);
    bool structure = !report.files.empty() || !report.commits.empty() ||
                     report.stat_lines > 0 || !report.stat_summaries.empty();
    if (structure && report.files.empty() && !report.full_commits && report.stat_lines == 0 &&
        report.stat_summaries.empty()) {
      // Only "<hex> text" lines: a one-line log when they are most of the output (a file's
      // contents, `git show HEAD:x`, may have a few lines that start with hex digits).
      size_t content = 0;
      for (std::string_view l : lines) content += IsBlank(l) ? 0 : 1;
      structure = report.commits.size() * 2 > content;
    }
    if (!structure) return Fallback(cmd, lines, note);
    return core::ShapeOutput{WritePatch(cmd, lines, report, note, context.max_tokens),
                             RenderMode::kSummary};
  }

 private:
  static std::string GuessLabel(const std::vector<std::string_view>& lines) {
    for (std::string_view l : lines) {
      if (IsBlank(l)) continue;
      if (IsCommitLine(l) || IsMboxFromLine(l)) return "git log";
      if (l.starts_with("On branch ") || l.starts_with("HEAD detached ")) return "git status";
      return "diff";
    }
    return "diff";
  }

  static bool LooksLikeLongStatus(const std::vector<std::string_view>& lines) {
    for (std::string_view l : lines) {
      if (IsBlank(l)) continue;
      return l.starts_with("On branch ") || l.starts_with("HEAD detached ") ||
             l.starts_with("Not currently on any branch");
    }
    return false;
  }

  // git merge, pull, rebase, cherry-pick, revert, stash pop/apply: every conflict, error, hint
  // and verdict line is kept, and so is a merge's diffstat; "Auto-merging x" (a file merged
  // without conflict, or announced before its CONFLICT line) and a fetch's progress are
  // counted, each kind in one marker at the end.
  static core::ShapeOutput ShapeMerge(const GitCommand& cmd,
                                      const std::vector<std::string_view>& lines,
                                      const std::string& note) {
    SummaryWriter out(&lines);
    uint64_t conflicts = 0, merged = 0, progress = 0;
    std::string_view changed;  // " 3 files changed, 4 insertions(+)"
    for (std::string_view line : lines) {
      conflicts += line.starts_with("CONFLICT (") ? 1 : 0;
      if (IsStatSummary(line)) changed = Trim(line);
    }
    std::string header = StrCat(cmd.label, ": ");
    if (conflicts > 0) {
      StrAppend(&header, "FAILED — ", Plural(conflicts, "conflict", "conflicts"));
      if (!note.empty()) StrAppend(&header, " (", note, ")");
    } else if (!note.empty()) {
      StrAppend(&header, "FAILED (", note, ")");
    } else {
      StrAppend(&header, changed.empty() ? Plural(lines.size(), "line", "lines") : changed);
    }
    out.Header(header);
    // Counted lines are interleaved with kept ones: one marker for each kind, at the end.
    for (std::string_view line : lines) {
      const std::string_view t = Trim(line);
      if (line.starts_with("Auto-merging ")) {
        ++merged;
        continue;
      }
      if (t.starts_with("remote: ") || t.starts_with("Receiving objects:") ||
          t.starts_with("Resolving deltas:") || t.starts_with("Unpacking objects:") ||
          t.starts_with("Counting objects:") || t.starts_with("Compressing objects:") ||
          t.starts_with("Enumerating objects:")) {
        ++progress;
        continue;
      }
      out.Line(line);
    }
    out.Omitted(merged, "\"Auto-merging\" line", "\"Auto-merging\" lines");
    out.Omitted(progress, "fetch progress line", "fetch progress lines");
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  // git blame: a line per source line, "a1b2c3d4 (Ann Lee 2026-11-29 14:02:11 +0100 12) code"
  // ("^a1b2c3d" a boundary commit, "0000000" not committed yet, a file name before the
  // parenthesis with -C or --show-name). Every commit stays: the first line of each run of
  // lines from one commit is kept, the rest counted (their lines' numbers are in those kept).
  // Up to kBlameRaw lines, or lines not read as blame: as printed.
  static constexpr size_t kBlameRaw = 40;
  static core::ShapeOutput ShapeBlame(const GitCommand& cmd,
                                      const std::vector<std::string_view>& lines,
                                      const std::string& note) {
    auto hash_of = [](std::string_view line) -> std::string_view {
      const size_t start = line.starts_with("^") ? 1 : 0;
      const size_t run = HexRun(line, start);
      if (run < 7 || (start + run < line.size() && line[start + run] != ' ')) return {};
      return line.substr(start, run);
    };
    size_t blamed = 0;
    for (std::string_view line : lines) blamed += hash_of(line).empty() ? 0 : 1;
    if (lines.size() <= kBlameRaw || blamed * 10 < lines.size() * 9) {
      return core::ShapeOutput{"", RenderMode::kRaw};
    }
    SummaryWriter out(&lines);
    absl::flat_hash_set<std::string_view> commits;
    std::vector<size_t> kept;
    std::string_view previous;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view hash = hash_of(lines[i]);
      if (!hash.empty()) commits.insert(hash);
      if (hash != previous || hash.empty()) kept.push_back(i);
      previous = hash;
    }
    out.Header(StrCat(cmd.label, ": ", note.empty() ? "" : StrCat(note, ", "),
                      Plural(lines.size(), "line", "lines"), " from ",
                      Plural(commits.size(), "commit", "commits"), ", ",
                      Plural(kept.size(), "run", "runs"), " of lines from one commit"));
    for (size_t i : kept) out.Line(lines[i]);
    out.Omitted(out.UnaccountedLines(), "more line of the commit of the line above it",
                "more lines of the commit of the line above them");
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  static core::ShapeOutput Fallback(const GitCommand& cmd, const std::vector<std::string_view>& lines,
                                    const std::string& note) {
    SummaryWriter out(&lines);
    out.Header(StrCat(cmd.label, ": ", note.empty() ? "" : StrCat("FAILED (", note, "), "),
                      Plural(lines.size(), "line", "lines")));
    WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 50, out);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  static std::string WritePatch(const GitCommand& cmd, const std::vector<std::string_view>& lines,
                                const PatchReport& r, const std::string& note,
                                uint64_t max_tokens) {
    const size_t n = lines.size();
    SummaryWriter out(&lines);
    std::string header = PatchHeader(cmd, r);
    if (r.files.empty() && r.commits.size() <= 1 && r.stat_summaries.size() == 1) {
      // --stat without the diff: the totals line's own numbers.
      std::string_view totals = Trim(lines[r.stat_summaries[0]]);
      uint64_t files = 0;
      size_t at = 0;
      ReadNumber(totals, &at, &files);
      uint64_t added = CountBefore(totals, "insertion").value_or(0);
      uint64_t removed = CountBefore(totals, "deletion").value_or(0);
      StrAppend(&header, r.commits.empty() ? " " : ", ", Plural(files, "file", "files"),
                " changed");
      if (added + removed > 0) StrAppend(&header, ", ", PlusMinus(added, removed));
    }
    if (!note.empty()) StrAppend(&header, " (", note, ")");
    out.Header(header);

    // A long history with diffs: every commit named, the diffs shared between them.
    const bool history = r.full_commits && r.commits.size() > kDetailedCommits && !r.files.empty();
    // A log whose commits' hash lines and subjects alone would take more than half the budget:
    // the commits after the first kDetailedCommits are one line each, their abbreviated hash
    // and subject, as `git log --oneline` prints them (about half the tokens; kept as printed,
    // a budget of a few thousand tokens holds the hash lines of a few hundred commits and none
    // of their subjects).
    const bool compact = r.full_commits && r.commits.size() > kDetailedCommits && max_tokens > 0 &&
                         CommitLinesTokens(lines, r) > max_tokens / 2;
    auto one_line = [&](size_t c) {
      return compact && c >= kDetailedCommits && c < r.commits.size() &&
             lines[r.commits[c].line].starts_with("commit ");
    };
    // Commits whose Author/Date lines and message after the subject are counted, not shown.
    auto brief = [&](size_t c) { return (history || compact) && c >= kDetailedCommits; };
    // Past the commit limit the rest is counted.
    const size_t limit = kMaxHistoryCommits;
    const size_t cutoff = r.commits.size() > limit ? r.commits[limit].line : n;
    // In a history, the files each commit shows (its first `file_share[c]`).
    std::vector<bool> file_shown(r.files.size(), true);
    if (history) {
      std::vector<uint64_t> per_commit(r.commits.size(), 0);
      for (const FileInfo& file : r.files) {
        if (file.commit < per_commit.size() && file.line < cutoff) ++per_commit[file.commit];
      }
      std::vector<uint64_t> share = FairShares(per_commit, kHistoryFiles, UINT64_MAX / 4);
      std::vector<uint64_t> seen(r.commits.size(), 0);
      for (size_t f = 0; f < r.files.size(); ++f) {
        const size_t c = r.files[f].commit;
        if (c < seen.size()) file_shown[f] = r.files[f].line < cutoff && seen[c]++ < share[c];
      }
    }

    // Budgets for changed lines.
    const bool keep_context = r.changed + r.context <= kBodyBudget;
    std::vector<uint64_t> hunk_cap(r.hunks.size());
    if (keep_context) {
      // A deleted file's old contents are counted even then: its header says what went.
      for (size_t h = 0; h < r.hunks.size(); ++h) {
        const HunkInfo& hk = r.hunks[h];
        hunk_cap[h] = hk.file < r.files.size() && r.files[hk.file].deleted ? 0 : hk.changed();
      }
    } else {
      std::vector<uint64_t> wanted(r.files.size(), 0);
      for (size_t f = 0; f < r.files.size(); ++f) {
        const FileInfo& file = r.files[f];
        if (file.line < cutoff && !file.deleted && file_shown[f]) {
          wanted[f] = file.added + file.removed;
        }
      }
      uint64_t budget = std::min(history ? kHistoryChangedBudget : kMaxChangedBudget,
                                 kChangedBudget + kChangedPerExtraFile * (r.files.size() - 1));
      std::vector<uint64_t> file_cap = FairShares(wanted, budget, kMaxChangedPerFile);
      for (size_t f = 0; f < r.files.size(); ++f) {
        const FileInfo& file = r.files[f];
        std::vector<uint64_t> sizes;
        for (size_t h = file.first_hunk; h < file.first_hunk + file.hunks; ++h) {
          sizes.push_back(r.hunks[h].changed());
        }
        std::vector<uint64_t> caps = FairShares(sizes, file_cap[f], UINT64_MAX / 4);
        for (size_t k = 0; k < caps.size(); ++k) hunk_cap[file.first_hunk + k] = caps[k];
      }
    }
    size_t shown_commits = std::min(r.commits.size(), history || compact ? kDetailedCommits : limit);
    uint64_t body_budget =
        std::clamp<uint64_t>(kMessageBudget / std::max<size_t>(shown_commits, 1), 3, 40);
    // A history's later commits: their Author/Date lines and messages, and the file diffs past
    // their share, counted in one place each.
    uint64_t fields_dropped = 0, messages_dropped = 0, stats_dropped = 0;
    std::string_view stats_form = "--stat";  // the option that printed the file lists dropped
    // A commit's Author line that is the commit's above it, to the letter, is counted: a
    // history of one author's commits repeats it in every one.
    uint64_t authors_repeated = 0;
    std::string_view last_author;
    struct Hidden {
      uint64_t files = 0, lines = 0, added = 0, removed = 0;
    } hidden;
    bool in_hidden_file = false;
    auto flush_hidden = [&]() {
      if (hidden.files == 0) return;
      out.ElidedLines(hidden.lines,
                      StrCat(hidden.lines == 1 ? "line of " : "lines of ",
                             Plural(hidden.files, "more file diff", "more file diffs"),
                             " of this commit omitted (", PlusMinus(hidden.added, hidden.removed),
                             ")"));
      hidden = Hidden{};
    };

    uint64_t context_dropped = 0, meta_dropped = 0;
    size_t hunk = SIZE_MAX, commit = SIZE_MAX, block = SIZE_MAX;
    uint64_t ordinal = 0;  // changed line within the hunk
    uint64_t body_shown = 0, stat_shown_total = 0, stat_shown_block = 0, stat_limit = 0;
    uint64_t other_shown = 0;
    struct Pending {
      uint64_t lines = 0, added = 0, removed = 0;
      size_t file = SIZE_MAX;
    } pending;
    auto flush = [&]() {
      if (pending.lines == 0) return;
      const FileInfo* info = pending.file < r.files.size() ? &r.files[pending.file] : nullptr;
      std::string_view path = info != nullptr ? info->path : "";
      if (info != nullptr && info->deleted && !path.empty()) {
        out.ElidedLines(pending.lines, StrCat(pending.lines == 1 ? "line" : "lines",
                                              " of the deleted file ", path, " omitted"));
        pending = Pending{};
        return;
      }
      out.ElidedLines(pending.lines,
                      StrCat(pending.lines == 1 ? "changed line" : "changed lines",
                             path.empty() ? "" : StrCat(" of ", path), " omitted (",
                             PlusMinus(pending.added, pending.removed), ")"));
      pending = Pending{};
    };
    auto show = [&](size_t i) {
      flush();
      flush_hidden();
      out.Line(lines[i]);
    };
    size_t file = SIZE_MAX;

    for (size_t i = 0; i < cutoff; ++i) {
      if (r.kind[i] == kFileHeader) {
        ++file;
        in_hidden_file = file < file_shown.size() && !file_shown[file];
        if (in_hidden_file) {
          flush();
          hidden.files++;
          hidden.added += r.files[file].added;
          hidden.removed += r.files[file].removed;
        }
      } else if (r.kind[i] == kCommit) {
        in_hidden_file = false;
      }
      if (in_hidden_file) {
        // Its hunks still count for the ordinals of the ones after.
        if (r.kind[i] == kHunkHeader) ++hunk;
        hidden.lines++;
        continue;
      }
      switch (r.kind[i]) {
        case kFileHeader:
          show(i);
          break;
        case kHunkHeader: {
          ++hunk;
          ordinal = 0;
          const HunkInfo& h = r.hunks[hunk];
          if (history && hunk_cap[hunk] == 0 && h.changed() > 0) {
            // A history shows a hunk header only with the lines it leads.
            if (pending.file != h.file) flush();
            pending.lines += h.changed() + 1;
            pending.added += h.added;
            pending.removed += h.removed;
            pending.file = h.file;
          } else if (hunk_cap[hunk] == 0 && h.changed() > 0) {
            if (pending.file != h.file) flush();
            out.Line(lines[i]);
            pending.lines += h.changed();
            pending.added += h.added;
            pending.removed += h.removed;
            pending.file = h.file;
          } else {
            show(i);
          }
          break;
        }
        case kAdd:
        case kDel: {
          const uint64_t cap = hunk_cap[hunk];
          const uint64_t total = r.hunks[hunk].changed();
          const uint64_t j = ordinal++;
          if (cap == 0) break;  // counted with the hunk header
          const uint64_t head = (cap + 1) / 2, tail = cap - head;
          if (j < head || j >= total - tail) {
            show(i);
          } else if (j == head) {
            uint64_t added = 0, removed = 0, left = total - tail - head;
            for (size_t k = i; k < n && left > 0; ++k) {
              if (r.kind[k] == kAdd || r.kind[k] == kDel) {
                (r.kind[k] == kAdd ? added : removed)++;
                --left;
              }
            }
            flush();
            out.ElidedLines(added + removed,
                            StrCat(added + removed == 1 ? "changed line" : "changed lines",
                                   " omitted (", PlusMinus(added, removed), ")"));
          }
          break;
        }
        case kContext:
          if (keep_context) {
            show(i);
          } else {
            ++context_dropped;
          }
          break;
        case kMeta:
          if (keep_context) {
            show(i);
          } else {
            ++meta_dropped;
          }
          break;
        case kCommit:
        case kOneline:
          ++commit;
          body_shown = 0;
          if (r.kind[i] == kCommit && one_line(commit)) {
            flush();
            flush_hidden();
            const size_t subject = r.commits[commit].subject;
            out.Composed(OnelineCommit(lines[i], subject < n ? lines[subject] : ""),
                         {lines[i], subject < n ? lines[subject] : lines[i]});
          } else {
            show(i);
          }
          break;
        case kKeep:
          if (commit < r.commits.size() && i == r.commits[commit].subject && one_line(commit)) {
            break;  // on its commit's line
          }
          if (one_line(commit) && IsStatSummary(lines[i])) {
            ++stats_dropped;
            break;
          }
          show(i);
          break;
        case kHeaderField:
          if (brief(commit)) {
            ++fields_dropped;
          } else if (lines[i].starts_with("Author: ") && lines[i] == last_author) {
            ++authors_repeated;  // the author of the commit above, again
          } else {
            if (lines[i].starts_with("Author: ")) last_author = lines[i];
            show(i);
          }
          break;
        case kBody: {
          uint64_t total = r.commits[commit].body;
          if (brief(commit)) {
            ++messages_dropped;
          } else if (body_shown < body_budget) {
            show(i);
          } else if (body_shown == body_budget) {
            flush();
            out.ElidedLines(total - body_budget,
                            StrCat(total - body_budget == 1 ? "more line" : "more lines",
                                   " of the commit message omitted"));
          }
          ++body_shown;
          break;
        }
        case kStat: {
          if (one_line(commit)) {
            ++stats_dropped;
            stats_form = FileListOption(lines[i]);
            break;
          }
          if (i == 0 || r.kind[i - 1] != kStat) {
            ++block;
            stat_shown_block = 0;
            uint64_t room = kStatBudget - std::min(kStatBudget, stat_shown_total);
            stat_limit = std::min(r.stat_blocks[block] <= kStatBlockLines
                                      ? r.stat_blocks[block]
                                      : kStatBlockLines - 20,
                                  room);
          }
          if (stat_shown_block < stat_limit) {
            show(i);
            ++stat_shown_total;
          } else if (stat_shown_block == stat_limit) {
            // The rest of the block: each file by its path and its count of changed lines
            // ("src/xml/dom/minidom.py 2013"), a list of locations, so no file is left unnamed.
            uint64_t rest = r.stat_blocks[block] - stat_limit;
            flush();
            std::vector<std::pair<std::string_view, std::string_view>> files;
            for (size_t j = i; j < cutoff && r.kind[j] == kStat && files.size() < rest; ++j) {
              const std::string_view line = lines[j];
              const size_t bar = line.rfind(" | ");
              if (bar == std::string_view::npos) {
                files.clear();
                break;
              }
              std::string_view count = Trim(line.substr(bar + 3));
              count = count.substr(0, count.find(' '));
              files.emplace_back(Trim(line.substr(0, bar)), count);
            }
            if (files.size() == rest) {
              WriteLocationList(
                  StrCat(core::FormatCount(rest),
                         rest == 1 ? " more file changed" : " more files changed", core::kListAt),
                  StrCat("files changed", core::kListAlsoAt), files.size(), rest, out,
                  [&](size_t k, std::string* text) {
                    StrAppend(text, files[k].first, " ", files[k].second);
                  });
            } else {
              out.ElidedLines(rest,
                              StrCat(rest == 1 ? "more stat line" : "more stat lines", " omitted"));
            }
          }
          ++stat_shown_block;
          break;
        }
        case kOther:
          if (other_shown < kMaxOtherLines) {
            show(i);
            ++other_shown;
          }
          break;
        case kBlank:
        default:
          break;
      }
    }
    flush();
    flush_hidden();
    if (fields_dropped > 0) {
      out.ElidedLines(fields_dropped,
                      StrCat(fields_dropped == 1 ? "Author/Date line" : "Author/Date lines",
                             " of the commits after the first ", kDetailedCommits, " omitted"));
    }
    if (authors_repeated > 0) {
      out.ElidedLines(authors_repeated,
                      StrCat(authors_repeated == 1 ? "Author line" : "Author lines",
                             " omitted, each the same as the commit's above"));
    }
    if (messages_dropped > 0) {
      out.ElidedLines(messages_dropped,
                      StrCat(messages_dropped == 1 ? "line" : "lines",
                             " of their messages after the subject omitted"));
    }
    if (stats_dropped > 0) {
      out.ElidedLines(stats_dropped,
                      StrCat(stats_dropped == 1 ? "line" : "lines", " of their ", stats_form,
                             stats_form == "--stat" ? " blocks omitted" : " lists omitted"));
    }
    if (cutoff < n) {
      size_t more = r.commits.size() - limit;
      std::string what = r.full_commits
                             ? StrCat("lines of ", Plural(more, "more commit", "more commits"),
                                      " omitted")
                             : StrCat(more == n - cutoff ? "more commits" : "lines of more commits",
                                      " omitted");
      out.ElidedLines(n - cutoff, what);
    }
    out.ElidedLines(context_dropped,
                    context_dropped == 1 ? "context line omitted" : "context lines omitted");
    if (meta_dropped > 0) {
      out.ElidedLines(meta_dropped, StrCat(meta_dropped == 1 ? "line" : "lines",
                                           " of index and ---/+++ headers omitted"));
    }
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "other line omitted" : "other lines omitted");
    return out.Take();
  }

  // `git status` (long format).
  static std::optional<std::string> ShapeLongStatus(const GitCommand& cmd,
                                                    const std::vector<std::string_view>& lines,
                                                    const std::string& note) {
    enum class Section { kNone, kStaged, kUnstaged, kUnmerged, kUntracked } section = Section::kNone;
    uint64_t counts[5] = {0, 0, 0, 0, 0};
    bool recognized = false, nothing = false;
    std::vector<uint8_t> show(lines.size(), 0);
    // Pass 1: what each line is, and the counts.
    std::vector<uint8_t> entry(lines.size(), 0);  // section + 1 for entries
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string_view s = lines[i];
      if (s.starts_with("#")) s = s.substr(s.starts_with("# ") ? 2 : 1);  // git before 1.8.5
      if (IsBlank(s)) continue;
      if (s == "Changes to be committed:") {
        section = Section::kStaged;
      } else if (s == "Changes not staged for commit:") {
        section = Section::kUnstaged;
      } else if (s == "Unmerged paths:") {
        section = Section::kUnmerged;
      } else if (s == "Untracked files:" || s == "Ignored files:") {
        section = Section::kUntracked;
      } else if (s[0] == '\t' && section != Section::kNone) {
        entry[i] = static_cast<uint8_t>(section) + 1;
        counts[static_cast<int>(section)]++;
        continue;
      } else if (s[0] == ' ' && Trim(s).starts_with("(") && Trim(s).ends_with(")")) {
        continue;  // a hint: "  (use "git add <file>..." to include in what will be committed)"
      } else {
        section = Section::kNone;
        if (s.starts_with("On branch ") || s.starts_with("HEAD detached ") ||
            s.starts_with("Not currently on any branch") || s.starts_with("No commits yet") ||
            s.starts_with("Initial commit")) {
          recognized = true;
        }
        if (s.starts_with("nothing to commit") || s.starts_with("nothing added to commit")) {
          recognized = true;
          nothing = s.starts_with("nothing to commit");
        }
      }
      recognized = recognized || section != Section::kNone;
      show[i] = 1;
    }
    if (!recognized) return std::nullopt;

    SummaryWriter out(&lines);
    std::string header = StrCat(cmd.label.empty() ? "git status" : cmd.label, ":");
    uint64_t staged = counts[1], unstaged = counts[2], unmerged = counts[3], untracked = counts[4];
    if (staged + unstaged + unmerged + untracked == 0) {
      StrAppend(&header, nothing ? " nothing to commit" : " no changes listed");
    } else {
      WriteStatusHeaderCounts(&header, unmerged, staged, unstaged, untracked);
    }
    if (!note.empty()) StrAppend(&header, " (", note, ")");
    out.Header(header);
    uint64_t shown_in_section = 0, dropped = 0;
    uint8_t current = 0;
    std::vector<std::string_view> dropped_paths;
    auto close = [&]() {
      if (dropped > 0 && current == 5) {
        WriteUntrackedOmitted(dropped_paths, out);
      } else if (dropped > 0) {
        out.ElidedLines(dropped,
                        dropped == 1 ? "more changed path omitted" : "more changed paths omitted");
      }
      dropped = 0;
      dropped_paths.clear();
      shown_in_section = 0;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      if (entry[i] != 0) {
        if (entry[i] != current) {
          close();
          current = entry[i];
        }
        uint64_t cap = entry[i] == 5 ? kMaxUntrackedPaths : kMaxTrackedPaths;
        if (shown_in_section < cap) {
          out.Line(lines[i]);
          ++shown_in_section;
        } else {
          ++dropped;
          if (entry[i] == 5) dropped_paths.push_back(Trim(lines[i].substr(lines[i].find('\t') + 1)));
        }
      } else if (show[i]) {
        close();
        current = 0;
        out.Line(lines[i]);
      }
    }
    close();
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "hint or blank line omitted" : "hint and blank lines omitted");
    return out.Take();
  }

  // `git status --short` / `--porcelain` (v1 and v2).
  static std::optional<std::string> ShapeShortStatus(const GitCommand& cmd,
                                                     const std::vector<std::string_view>& lines,
                                                     const std::string& note) {
    uint64_t staged = 0, unstaged = 0, unmerged = 0, untracked = 0, entries = 0, unknown = 0;
    // 0: other line, 1: tracked entry, 2: untracked entry
    std::vector<uint8_t> type(lines.size(), 0);
    auto code = [](char c) { return std::strchr(" MTADRCU?!", c) != nullptr && c != '\0'; };
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string_view s = lines[i];
      if (IsBlank(s) || s.starts_with("## ") || s.starts_with("# ")) continue;
      char x = 0, y = 0;
      if ((s[0] == '1' || s[0] == '2' || s[0] == 'u') && s.size() > 5 && s[1] == ' ' &&
          s[4] == ' ') {
        x = s[2] == '.' ? ' ' : s[2];  // porcelain v2
        y = s[3] == '.' ? ' ' : s[3];
        if (s[0] == 'u') x = y = 'U';
      } else if ((s[0] == '?' || s[0] == '!') && s.size() > 2 && s[1] == ' ') {
        x = y = s[0];  // porcelain v2 untracked / ignored
      } else if (s.size() > 3 && code(s[0]) && code(s[1]) && s[2] == ' ') {
        x = s[0];
        y = s[1];
      } else {
        ++unknown;
        continue;
      }
      ++entries;
      if (x == '?' || x == '!') {
        ++untracked;
        type[i] = 2;
        continue;
      }
      type[i] = 1;
      if (x == 'U' || y == 'U' || (x == 'A' && y == 'A') || (x == 'D' && y == 'D')) {
        ++unmerged;
        continue;
      }
      if (x != ' ') ++staged;
      if (y != ' ') ++unstaged;
    }
    if (entries == 0 || unknown * 10 > entries) {
      if (entries == 0 && unknown == 0) {
        // Only the branch line: a clean tree.
        SummaryWriter out(&lines);
        out.Header(StrCat(cmd.label, ": clean", note.empty() ? "" : StrCat(" (", note, ")")));
        out.Lines(lines);
        return out.Take();
      }
      return std::nullopt;
    }
    SummaryWriter out(&lines);
    std::string header = StrCat(cmd.label, ":");
    WriteStatusHeaderCounts(&header, unmerged, staged, unstaged, untracked);
    if (!note.empty()) StrAppend(&header, " (", note, ")");
    out.Header(header);
    uint64_t shown[3] = {0, 0, 0}, dropped[3] = {0, 0, 0};
    std::vector<std::string_view> dropped_paths;
    for (size_t i = 0; i < lines.size(); ++i) {
      uint8_t t = type[i];
      if (t == 0) {
        if (!IsBlank(lines[i])) out.Line(lines[i]);
        continue;
      }
      uint64_t cap = t == 2 ? kMaxUntrackedPaths : kMaxTrackedPaths * 2;
      if (shown[t] < cap) {
        out.Line(lines[i]);
        ++shown[t];
      } else {
        ++dropped[t];
        // "?? path" (v1) or "? path" (v2).
        if (t == 2) dropped_paths.push_back(lines[i].substr(lines[i][1] == ' ' ? 2 : 3));
      }
    }
    out.ElidedLines(dropped[1], dropped[1] == 1 ? "more changed path omitted"
                                                : "more changed paths omitted");
    WriteUntrackedOmitted(dropped_paths, out);
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "blank line omitted" : "blank lines omitted");
    return out.Take();
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeGitDiffShaper() { return std::make_shared<GitDiffShaper>(); }

}  // namespace plugline::builtin

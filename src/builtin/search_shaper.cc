// builtin-search: grep / egrep / rgrep, ripgrep (rg, rg --json), the silver searcher (ag),
// ack, git grep, find, fd and locate.
//
// Matches are grouped by file: every file keeps its first matches (a fair share of a line
// budget, at least one each, up to 400 files) and the rest of each file is counted in a marker
// after its last match shown ("… 37 more matches in this file omitted"); files past the budget
// are counted.
// Output formats: "path:12:text" (-n, --vimgrep), "path:text" (-r, -H, several files),
// "12:text" / "text" (one file, stdin, -h), context lines ("path-12-text", "--"), rg/ag
// --heading groups, -c counts, -l / --files / find / fd path lists, and rg --json. Error and
// notice lines (permission denied, no such file, binary file matches) are kept in place up to
// a budget and counted by kind past it. Long path lists (find, fd, -l) are grouped by directory
// with counts. No output and exit 1 is "grep: no matches".
#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr uint64_t kMatchBudget = 200;  // match lines shown, shared fairly between files
constexpr uint64_t kMaxPerFile = 30;
constexpr uint64_t kContextBudget = 100;  // lines of matches shown before context lines stop
constexpr size_t kMaxFiles = 400;  // files that keep at least their first match
constexpr size_t kMaxErrorLines = 40;
constexpr size_t kBareHead = 100;  // matches without file names: head and tail
constexpr size_t kBareTail = 20;
constexpr size_t kMaxPaths = 100;  // path lists up to this long are shown whole
constexpr uint64_t kPathBudget = 60;
constexpr size_t kMaxDirGroups = 60;
constexpr size_t kMaxCountLines = 200;
constexpr size_t kMaxOtherLines = 50;
constexpr size_t kSampleLines = 4000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// ---- The command ------------------------------------------------------------------------------

enum class Tool { kNone, kGrep, kRg, kAg, kAck, kGitGrep, kFind, kFd, kLocate };

bool IsGrepFamily(Tool t) {
  return t == Tool::kGrep || t == Tool::kRg || t == Tool::kAg || t == Tool::kAck ||
         t == Tool::kGitGrep;
}

struct SearchCommand {
  Tool tool = Tool::kNone;
  std::string label;
  bool stdin_grep = false;  // a grep reading another command's output
  bool paths_only = false;  // -l, -L, --files, find, fd, locate
  bool without_match = false;
  bool count = false;
  bool json = false;
  bool heading = false;
  std::optional<bool> filenames;  // whether match lines start with the file name, when known
  std::vector<std::string> operands;
};

Tool ToolOf(const std::string& name, const std::vector<std::string>& args) {
  if (name == "grep" || name == "egrep" || name == "fgrep" || name == "rgrep" || name == "zgrep") {
    return Tool::kGrep;
  }
  if (name == "rg") return Tool::kRg;
  if (name == "ag") return Tool::kAg;
  if (name == "ack" || name == "ack-grep") return Tool::kAck;
  if (name == "find") return Tool::kFind;
  if (name == "fd" || name == "fdfind") return Tool::kFd;
  if (name == "locate" || name == "plocate" || name == "mlocate") return Tool::kLocate;
  if (name == "git") {
    for (const std::string& a : args) {
      if (a.starts_with("-")) continue;
      return a == "grep" ? Tool::kGitGrep : Tool::kNone;
    }
  }
  return Tool::kNone;
}

// The options of a grep-like tool that take a value (as the next word, or after '=').
struct OptionsWithValues {
  std::string_view short_flags;
  std::vector<std::string_view> long_names;
};

OptionsWithValues OptionsTakingValues(Tool tool) {
  switch (tool) {
    case Tool::kGrep:
      return {"efmABCdD",
              {"regexp", "file", "max-count", "after-context", "before-context", "context",
               "directories", "devices", "include", "exclude", "exclude-dir", "exclude-from",
               "label", "binary-files", "group-separator"}};
    case Tool::kRg:
      return {"efgtTjmABCMrE",
              {"regexp", "file", "glob", "iglob", "type", "type-not", "type-add", "type-clear",
               "threads", "max-count", "after-context", "before-context", "context",
               "max-columns", "replace", "encoding", "max-depth", "max-filesize", "sort",
               "sortr", "colors", "color", "path-separator", "context-separator", "pre",
               "pre-glob", "ignore-file", "engine", "field-match-separator",
               "field-context-separator", "dfa-size-limit", "regex-size-limit"}};
    case Tool::kAg:
      return {"ABCGgm",
              {"ignore", "ignore-dir", "file-search-regex", "max-count", "context", "after",
               "before", "depth", "path-to-ignore", "pager"}};
    case Tool::kAck:
      return {"ABCmg",
              {"type", "ignore-dir", "ignore-file", "max-count", "context", "after-context",
               "before-context", "output", "match"}};
    case Tool::kGitGrep:
      return {"efABCmO",
              {"regexp", "file", "after-context", "before-context", "context", "max-count",
               "max-depth", "threads", "open-files-in-pager"}};
    default:
      return {};
  }
}

// What a long option (without its "--" and value) says about the output.
void ApplyLongOption(std::string_view name, SearchCommand& cmd, bool* recursive,
                     bool* pattern_given) {
  if (name == "regexp" || name == "file") *pattern_given = true;
  if (name == "recursive" || name == "dereference-recursive") *recursive = true;
  if (name == "with-filename") cmd.filenames = true;
  if (name == "no-filename") cmd.filenames = false;
  if (name == "files-with-matches" || name == "files" || name == "name-only" ||
      name == "files-without-match" || name == "files-with-match") {
    cmd.paths_only = true;
  }
  if (name == "files-without-match") cmd.without_match = true;
  if (name == "count" || name == "count-matches") cmd.count = true;
  if (name == "json") cmd.json = true;
  if (name == "heading" || name == "group" || name == "pretty") cmd.heading = true;
  if (name == "no-heading" || name == "nogroup" || name == "vimgrep") cmd.heading = false;
}

// What one short flag (of a cluster like -rnH) says about the output, for `tool`.
void ApplyShortFlag(Tool tool, char c, SearchCommand& cmd, bool* recursive) {
  switch (c) {
    case 'r':
    case 'R':
      if (tool == Tool::kGrep) *recursive = true;
      break;
    case 'H':
      cmd.filenames = true;
      break;
    case 'h':
      if (tool == Tool::kGrep || tool == Tool::kGitGrep || tool == Tool::kAck) {
        cmd.filenames = false;
      }
      break;
    case 'I':
      if (tool == Tool::kRg) cmd.filenames = false;
      break;
    case 'l':
      cmd.paths_only = true;
      break;
    case 'L':
      if (tool != Tool::kRg) {
        cmd.paths_only = true;
        cmd.without_match = true;
      }
      break;
    case 'c':
      cmd.count = true;
      break;
    case 'p':
      if (tool == Tool::kRg) cmd.heading = true;
      break;
    case 'g':
      if (tool == Tool::kAg) cmd.paths_only = true;  // ag -g PATTERN lists files
      break;
    default:
      break;
  }
}

// Whether match lines start with a file name, when no flag said: as each tool decides from
// its operands.
void InferFilenames(Tool tool, bool recursive, SearchCommand& cmd) {
  if (cmd.filenames) return;
  switch (tool) {
    case Tool::kGrep:
      if (cmd.stdin_grep) {
        cmd.filenames = false;
      } else if (recursive || cmd.operands.size() >= 2 ||
                 (cmd.operands.size() == 1 &&
                  cmd.operands[0].find_first_of("*?[") != std::string::npos)) {
        cmd.filenames = true;
      } else if (cmd.operands.size() == 1) {
        cmd.filenames = false;  // one file
      }
      break;
    case Tool::kGitGrep:
      cmd.filenames = true;
      break;
    default:  // rg, ag, ack: names unless the one operand is a file
      if (cmd.stdin_grep) {
        cmd.filenames = false;
      } else if (cmd.operands.size() != 1) {
        cmd.filenames = true;
      }
      break;
  }
}

// Parses a grep-like tool's words: flags, the pattern and the path operands.
void ParseSearchArgs(Tool tool, const std::vector<std::string>& all, SearchCommand& cmd) {
  std::vector<std::string> args = all;
  if (tool == Tool::kGitGrep) {
    auto at = std::find(args.begin(), args.end(), "grep");
    args.erase(args.begin(), at == args.end() ? at : at + 1);
  }
  const OptionsWithValues with_value = OptionsTakingValues(tool);
  bool pattern_given = false;  // -e / -f
  bool recursive = tool != Tool::kGrep;
  std::vector<std::string> positional;
  bool options_end = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_end || a.size() < 2 || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    if (a == "--") {
      options_end = true;
      continue;
    }
    if (a.starts_with("--")) {
      std::string name = a.substr(2);
      bool has_value = name.find('=') != std::string::npos;
      name = name.substr(0, name.find('='));
      if (!has_value && std::find(with_value.long_names.begin(), with_value.long_names.end(),
                                  name) != with_value.long_names.end()) {
        if (name == "regexp" || name == "file") pattern_given = true;
        ++i;  // the value is the next word
        continue;
      }
      ApplyLongOption(name, cmd, &recursive, &pattern_given);
      continue;
    }
    for (size_t k = 1; k < a.size(); ++k) {
      const char c = a[k];
      if (with_value.short_flags.find(c) != std::string_view::npos) {
        if (c == 'e' || c == 'f') pattern_given = true;
        if (k + 1 == a.size()) ++i;  // the value is the next word
        break;
      }
      ApplyShortFlag(tool, c, cmd, &recursive);
    }
  }
  if (!pattern_given && !positional.empty() && !(tool == Tool::kRg && cmd.paths_only &&
                                                 std::find(args.begin(), args.end(), "--files") !=
                                                     args.end())) {
    positional.erase(positional.begin());
  }
  cmd.operands = positional;
  InferFilenames(tool, recursive, cmd);
}

std::string LabelOf(Tool tool, const std::string& name) {
  switch (tool) {
    case Tool::kGitGrep:
      return "git grep";
    case Tool::kGrep:
      return name == "egrep" || name == "fgrep" || name == "rgrep" || name == "zgrep" ? name
                                                                                       : "grep";
    default:
      return name;
  }
}

// The stage that produces the output, and whether the stages after it keep its lines.
SearchCommand ParseCommand(std::string_view command) {
  SearchCommand cmd;
  std::vector<std::string_view> stages = PipelineStages(command);
  static constexpr std::string_view kKeepers[] = {"head", "tail", "less", "more", "cat",
                                                  "tee",  "sort", "grep", "egrep", "fgrep",
                                                  "rg",   "uniq"};
  size_t producer = SIZE_MAX;
  for (size_t i = 0; i < stages.size(); ++i) {
    std::string name = ToolName(stages[i]);
    std::vector<std::string> args = ToolArgs(stages[i]);
    if (name == "xargs") {
      // xargs [options] tool args...: the tool runs on the paths read.
      size_t k = 0;
      while (k < args.size() && args[k].starts_with("-")) {
        const std::string& a = args[k];
        bool value = (a == "-I" || a == "-n" || a == "-P" || a == "-L" || a == "-d" ||
                      a == "-s" || a == "-E" || a == "-a");
        k += value ? 2 : 1;
      }
      if (k >= args.size()) continue;
      name = ToolName(args[k]);
      args.erase(args.begin(), args.begin() + static_cast<ptrdiff_t>(k) + 1);
      Tool tool = ToolOf(name, args);
      if (IsGrepFamily(tool)) {
        cmd = SearchCommand{};
        cmd.tool = tool;
        cmd.label = LabelOf(tool, name);
        ParseSearchArgs(tool, args, cmd);
        if (!cmd.filenames) cmd.filenames = true;  // xargs passes many files at once
        producer = i;
        continue;
      }
      if (producer != SIZE_MAX) return SearchCommand{};  // xargs of something else
      continue;
    }
    Tool tool = ToolOf(name, args);
    if (producer == SIZE_MAX) {
      if (tool == Tool::kNone) continue;
      for (const std::string& a : args) {
        if (a == "--help" || a == "--version" || (a == "-V" && tool != Tool::kFd)) {
          return SearchCommand{};  // not a search
        }
      }
      producer = i;
      cmd.tool = tool;
      cmd.label = LabelOf(tool, name);
      cmd.stdin_grep = i > 0 && IsGrepFamily(tool);
      if (IsGrepFamily(tool)) {
        ParseSearchArgs(tool, args, cmd);
      } else {
        cmd.paths_only = true;
        for (const std::string& a : args) {
          // Actions that print something other than the paths.
          if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-printf" || a == "-ls" ||
              a == "-fprint" || a == "-fls" || a == "-fprintf" || a == "-delete" ||
              a == "-print0" || a == "-x" || a == "-X" ||
              a == "--exec" || a == "--exec-batch" || a == "--list-details" || a == "-0" ||
              a == "--print0") {
            cmd.paths_only = false;
          }
        }
        if (!cmd.paths_only) return SearchCommand{};
      }
      continue;
    }
    // After the producer only stages that keep its lines.
    bool keeps = std::find(std::begin(kKeepers), std::end(kKeepers), name) != std::end(kKeepers);
    if (name == "uniq" && !args.empty() && args[0].find('c') != std::string::npos) keeps = false;
    if (!keeps) return SearchCommand{};
  }
  if (producer == SIZE_MAX) return SearchCommand{};
  return cmd;
}

// ---- Lines ----------------------------------------------------------------------------------

// "path:12:text" -> path (the part before the first ":<digits>:"); empty when not one.
std::string_view NumberedPath(std::string_view s) {
  size_t limit = std::min<size_t>(s.size(), 4096);
  for (size_t c = s.find(':'); c != std::string_view::npos && c < limit; c = s.find(':', c + 1)) {
    size_t i = c + 1;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i > c + 1 && i < s.size() && s[i] == ':') {
      if (c == 0) return {};
      return s.substr(0, c);
    }
  }
  return {};
}

enum class ErrorKind : uint8_t { kNone, kBinary, kDenied, kMissing, kOther };

ErrorKind ClassifyError(std::string_view s) {
  static constexpr std::string_view kPrefixes[] = {
      "grep: ", "egrep: ", "fgrep: ", "rg: ", "ag: ", "ack: ", "find: ", "fd: ",
      "[fd error]: ", "fatal: ", "error: ", "warning: ", "ERR: ", "locate: ", "xargs: "};
  bool prefixed = false;
  // Cheap first: every prefix starts with a letter or '[' and has ": " within 12 characters.
  size_t colon = s.substr(0, 13).find(": ");
  if (colon != std::string_view::npos) {
    for (std::string_view p : kPrefixes) prefixed = prefixed || s.starts_with(p);
  }
  const bool paren = s.ends_with(")");
  if (!prefixed && !paren && !s.starts_with("Binary file ") && !s.ends_with(" matches")) {
    return ErrorKind::kNone;
  }
  // A match whose text reads like an error: "notes.txt:1:x: No such file … (os error 2)".
  if (!prefixed && !NumberedPath(s).empty()) return ErrorKind::kNone;
  // grep 3.5+: "grep: x: binary file matches"; older grep: "Binary file x matches";
  // rg: "x: binary file matches (found "\0" byte around offset 12)".
  bool binary = (prefixed && s.ends_with(": binary file matches")) ||
                (s.starts_with("Binary file ") && s.ends_with(" matches")) ||
                (paren && s.find(": binary file matches (") != std::string_view::npos);
  if (binary) return ErrorKind::kBinary;
  bool os_error = paren && s.find(" (os error ") != std::string_view::npos;  // rg 13
  if (!prefixed && !os_error) return ErrorKind::kNone;
  if (s.find("Permission denied") != std::string_view::npos) return ErrorKind::kDenied;
  if (s.find("No such file or directory") != std::string_view::npos) return ErrorKind::kMissing;
  return ErrorKind::kOther;
}

// "12:text" / "12-text": a line with a number but no file name.
bool StartsWithLineNumber(std::string_view s, bool* match) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i == 0 || i >= s.size() || (s[i] != ':' && s[i] != '-')) return false;
  *match = s[i] == ':';
  return true;
}

// The matches each file shows, kMatchBudget lines shared fairly between the files (each file's
// first match at least): with context lines (-C 2, rg's context events), a match brings its
// lines around it, so the share is in lines, and fewer matches are shown.
std::vector<uint64_t> MatchShares(const std::vector<uint64_t>& matches_per_file,
                                  uint64_t match_lines, uint64_t context_lines) {
  const uint64_t lines_per_match =
      match_lines == 0 ? 1 : (match_lines + context_lines + match_lines - 1) / match_lines;
  return FairShares(matches_per_file, std::max<uint64_t>(1, kMatchBudget / lines_per_match),
                    kMaxPerFile, /*at_least_one=*/true);
}

// The marker for the context lines left out past the first kContextBudget lines shown.
std::string ContextCutNote(uint64_t cut) {
  return StrCat(cut == 1 ? "context line" : "context lines",
                " around the matches shown after the first ", kContextBudget, " lines omitted");
}

// A context line of `path`: "path-12-text" (or "path-text" without numbers).
bool IsContextOf(std::string_view s, std::string_view path) {
  if (path.empty() || s.size() <= path.size() || !s.starts_with(path) || s[path.size()] != '-') {
    return false;
  }
  return true;
}

// "…-12-…": where a context line's number between dashes starts (its first dash), or npos.
size_t NumberedContextDash(std::string_view s) {
  size_t limit = std::min<size_t>(s.size(), 4096);
  for (size_t d = s.find('-'); d != std::string_view::npos && d < limit; d = s.find('-', d + 1)) {
    size_t i = d + 1;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i > d + 1 && i < s.size() && s[i] == '-' && d > 0) return d;
  }
  return std::string_view::npos;
}
bool HasContextNumber(std::string_view s) {
  return NumberedContextDash(s) != std::string_view::npos;
}

// A context line without a line number, "path-text" (`rg -C2` through a pipe): the path it
// starts with, one of `paths` (those match lines name, "path:text") followed by a dash before
// the line's first colon (its text may have one: "a.h- * x: y"); empty when it is none.
std::string_view ContextPathOf(std::string_view line,
                               const absl::flat_hash_set<std::string_view>& paths) {
  const size_t colon = std::min(line.find(':'), std::min<size_t>(line.size(), 4096));
  for (size_t d = line.find('-'); d != std::string_view::npos && d < colon;
       d = line.find('-', d + 1)) {
    if (d > 0 && paths.contains(line.substr(0, d))) return line.substr(0, d);
  }
  return {};
}

// Matches and context lines without line numbers: "path:text" and "path-text"
// (ContextPathOf), and the other lines: how many of each.
struct PlainContextCount {
  size_t matches = 0, contexts = 0, others = 0;
};
PlainContextCount CountPlainContext(const std::vector<std::string_view>& lines) {
  absl::flat_hash_set<std::string_view> keys;
  for (std::string_view l : lines) {
    const size_t colon = l.find(':');
    if (colon != std::string_view::npos && colon > 0) keys.insert(l.substr(0, colon));
  }
  PlainContextCount count;
  for (std::string_view l : lines) {
    if (l.empty() || l == "--") continue;
    const size_t colon = std::min(l.find(':'), l.size());
    const std::string_view key = l.substr(0, colon);
    if (!ContextPathOf(l, keys).empty()) {
      ++count.contexts;
    } else if (colon < l.size() && key.find(' ') == std::string_view::npos &&
               key.find_first_of("/.") != std::string_view::npos) {
      ++count.matches;
    } else {
      ++count.others;
    }
  }
  return count;
}

bool LooksLikePath(std::string_view key) {
  return !key.empty() && key.size() < 4096 && key[0] != ' ' && key[0] != '\t' &&
         key.find('\t') == std::string_view::npos;
}

// A key is a path under one of the operands (or any path when there are none).
bool UnderOperand(std::string_view key, const std::vector<std::string>& operands) {
  if (operands.empty()) return LooksLikePath(key);
  for (const std::string& op : operands) {
    std::string_view o = op;
    while (o.size() > 1 && o.back() == '/') o.remove_suffix(1);
    if (o == "." && !key.starts_with("/")) return true;
    if (key.starts_with(o)) return true;
  }
  return false;
}

std::string ErrorsText(uint64_t binary, uint64_t errors) {
  std::string text;
  if (binary > 0) {
    StrAppend(&text, "; ", Plural(binary, "binary file matches", "binary files match"));
  }
  if (errors > 0) StrAppend(&text, "; ", Plural(errors, "error", "errors"));
  return text;
}


// Error lines: the first kMaxErrorLines are shown where they are; the rest are counted by kind.
class ErrorLines {
 public:
  bool Show() { return shown_++ < kMaxErrorLines; }
  void Count(ErrorKind kind) {
    ++total_[static_cast<int>(kind)];
    if (shown_ > kMaxErrorLines) ++dropped_[static_cast<int>(kind)];
  }
  uint64_t binary() const { return total_[1]; }
  uint64_t errors() const { return total_[2] + total_[3] + total_[4]; }
  void WriteMarkers(SummaryWriter& out) const {
    static constexpr std::string_view kWhat[] = {"", "'binary file matches'",
                                                 "'Permission denied'",
                                                 "'No such file or directory'", "error"};
    for (int k = 1; k < 5; ++k) {
      if (dropped_[k] > 0) {
        out.ElidedLines(dropped_[k], StrCat("more ", kWhat[k], dropped_[k] == 1 ? " line" : " lines",
                                            " omitted"));
      }
    }
  }

 private:
  size_t shown_ = 0;
  uint64_t total_[5] = {0, 0, 0, 0, 0};
  uint64_t dropped_[5] = {0, 0, 0, 0, 0};
};

// ---- The shaper -----------------------------------------------------------------------------

enum LineKind : uint8_t { kLineOther, kLineError, kLineMatch, kLineContext, kLineSeparator,
                          kLineHeading, kLineBlank };

struct Group {
  std::string_view path;
  size_t first = 0, end = 0;  // line range [first, end)
  uint64_t matches = 0, lines = 0;
};

class SearchShaper final : public core::Shaper {
 public:
  SearchShaper() {
    meta_.id = "builtin-search";
    meta_.name = "search";
    meta_.version = "1.0.0";
    meta_.description =
        "grep, rg, ag, ack, git grep, find, fd: matches grouped by file with the first few "
        "kept and the rest counted per file; path lists grouped by directory; errors kept";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "search";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    SearchCommand cmd = ParseCommand(command);
    if (cmd.tool != Tool::kNone) {
      return core::MatchResult{true, cmd.stdin_grep ? 0.75 : 0.92,
                               {StrCat("command: ", cmd.label)}};
    }
    // The output's own signals.
    std::vector<std::string_view> lines = core::SplitLines(snippet);
    if (!lines.empty() && lines[0].starts_with("{\"type\":\"begin\",\"data\":{\"path\":")) {
      return core::MatchResult{true, 0.85, {"rg --json output"}};
    }
    size_t numbered = 0, errors = 0, others = 0, diagnostics = 0;
    for (std::string_view l : lines) {
      if (IsBlank(l) || l == "--") continue;
      // grep -C's context lines: "path-12-text", counted neither way.
      if (const size_t dash = NumberedContextDash(l);
          dash != std::string_view::npos && LooksLikePath(l.substr(0, dash)) &&
          l.substr(0, dash).find_first_of("/.") != std::string_view::npos) {
        continue;
      }
      if (ClassifyError(l) != ErrorKind::kNone) {
        ++errors;
        continue;
      }
      std::string_view path = NumberedPath(l);
      if (!path.empty() && LooksLikePath(path) &&
          (path.find('/') != std::string_view::npos || path.find('.') != std::string_view::npos)) {
        ++numbered;
        // Compiler / linter diagnostics look the same: "x.c:12:5: error: …".
        std::string_view rest = l.substr(path.size() + 1);
        size_t colon = rest.find(':');
        std::string_view after = rest.substr(colon + 1);
        size_t col = 0;
        while (col < after.size() && IsDigit(after[col])) ++col;
        if (col > 0 || after.starts_with(" error") || after.starts_with(" warning") ||
            after.starts_with(" note")) {
          ++diagnostics;
        }
      } else {
        ++others;
      }
    }
    if (numbered >= 3 && numbered * 10 >= (numbered + others) * 9 && diagnostics * 2 < numbered) {
      return core::MatchResult{true, 0.65, {"path:line:text lines"}};
    }
    if (const PlainContextCount plain = CountPlainContext(lines);
        plain.matches >= 3 && plain.contexts >= 3 &&
        (plain.matches + plain.contexts) * 10 >=
            (plain.matches + plain.contexts + plain.others) * 9) {
      return core::MatchResult{true, 0.65, {"path:text lines with path-text context lines"}};
    }
    if (errors >= 2 && others == 0 && numbered == 0) {
      return core::MatchResult{true, 0.6, {"search tool error lines"}};
    }
    return core::MatchResult{false, 0, {}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    SearchCommand cmd = ParseCommand(context.command);
    std::vector<std::string_view> lines = core::SplitLines(output);
    // A command that is no search tool (a checker printing "file:line: message", a script):
    // its lines are read as matches, but the summary is named by it and its exit code is its
    // own (not grep's "nothing matched").
    const std::string program = cmd.tool == Tool::kNone ? ToolName(context.command) : "";
    if (cmd.label.empty()) {
      cmd.label = GuessLabel(lines);
      cmd.paths_only = cmd.label == "find" || cmd.label == "fd";
      if (!program.empty() && !cmd.paths_only) cmd.label = program;
    }
    // grep, rg, ag, ack and git grep exit 1 when nothing matched: no trouble.
    std::optional<int> code = context.exit_code;
    bool nothing_found_exit = code && *code == 1 &&
                              ((cmd.tool == Tool::kNone && program.empty()) ||
                               IsGrepFamily(cmd.tool) || cmd.tool == Tool::kLocate);
    std::string note = nothing_found_exit ? "" : ExitNote(code);
    std::string suffix = note.empty() ? "" : StrCat(" (", note, ")");

    size_t content = 0;
    for (std::string_view l : lines) content += IsBlank(l) ? 0 : 1;
    if (content == 0) {
      std::string what = cmd.paths_only && !IsGrepFamily(cmd.tool) ? "nothing found" : "no matches";
      return core::ShapeOutput{StrCat(cmd.label, ": ", what, suffix, "\n"), RenderMode::kSummary};
    }
    if (cmd.json || lines[0].starts_with("{\"type\":\"")) {
      if (auto shaped = ShapeJson(cmd, lines, suffix)) {
        return core::ShapeOutput{std::move(*shaped), RenderMode::kSummary};
      }
      return Fallback(cmd, lines, note);
    }
    // Errors (a folder it could not read, a path that is not there) in an output whose 0 is a
    // filter's (`find / -name x 2>&1 | tail -20`): the search's own status would have said
    // so. The header, which counts them, stands first even when the lines are shown as they are.
    const bool filtered_errors = code && *code == 0 && StatusIsAFilters(context.command) &&
                                 std::any_of(lines.begin(), lines.end(), [](std::string_view l) {
                                   return ClassifyError(l) != ErrorKind::kNone;
                                 });
    if (cmd.paths_only) {
      return core::ShapeOutput{ShapePaths(cmd, lines, suffix), RenderMode::kSummary,
                               filtered_errors};
    }
    if (cmd.count) {
      if (auto shaped = ShapeCounts(cmd, lines, suffix)) {
        return core::ShapeOutput{std::move(*shaped), RenderMode::kSummary, filtered_errors};
      }
    }
    if (auto shaped = ShapeMatches(cmd, lines, suffix)) {
      return core::ShapeOutput{std::move(*shaped), RenderMode::kSummary, filtered_errors};
    }
    return Fallback(cmd, lines, note);
  }

 private:
  static std::string GuessLabel(const std::vector<std::string_view>& lines) {
    for (std::string_view l : lines) {
      static constexpr std::string_view kTools[] = {"grep", "rg", "ag", "find", "fd"};
      for (std::string_view t : kTools) {
        if (l.starts_with(t) && l.substr(t.size()).starts_with(": ")) return std::string(t);
      }
      if (l.starts_with("{\"type\":\"")) return "rg";
    }
    return "search";
  }

  static core::ShapeOutput Fallback(const SearchCommand& cmd,
                                    const std::vector<std::string_view>& lines,
                                    const std::string& note) {
    SummaryWriter out(&lines);
    out.Header(StrCat(cmd.label, ": ", note.empty() ? "" : StrCat("FAILED (", note, "), "),
                      Plural(lines.size(), "line", "lines")));
    WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 50, out);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  // Matches, with or without file names, context lines and heading groups.
  static std::optional<std::string> ShapeMatches(const SearchCommand& cmd,
                                                 const std::vector<std::string_view>& lines,
                                                 const std::string& suffix) {
    const size_t n = lines.size();
    std::vector<uint8_t> kind(n, kLineOther);
    std::vector<ErrorKind> error(n, ErrorKind::kNone);
    // Which format: count what parses how (errors and separators aside).
    // The format is read from the first kSampleLines candidate lines.
    size_t candidates = 0, sampled = 0, numbered = 0, prefixed = 0, bare_numbered = 0;
    absl::flat_hash_set<std::string_view> prefixed_paths;
    bool heading_shape = true;
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = lines[i];
      if (IsBlank(s)) {
        kind[i] = kLineBlank;
        continue;
      }
      if (s == "--") {
        kind[i] = kLineSeparator;
        continue;
      }
      error[i] = ClassifyError(s);
      if (error[i] != ErrorKind::kNone) {
        kind[i] = kLineError;
        continue;
      }
      ++candidates;
      if (sampled == kSampleLines) continue;
      ++sampled;
      std::string_view path = NumberedPath(s);
      if (!path.empty() && LooksLikePath(path) &&
          path.find_first_not_of("0123456789") != std::string_view::npos) {
        ++numbered;
      } else if (HasContextNumber(s)) {
        ++numbered;  // "path-12-text": a context line (-A/-B/-C)
      }
      size_t colon = s.find(':');
      if (colon != std::string_view::npos && colon > 0 && LooksLikePath(s.substr(0, colon)) &&
          UnderOperand(s.substr(0, colon), cmd.operands)) {
        ++prefixed;
        prefixed_paths.insert(s.substr(0, colon));
      }
      bool match = false;
      if (StartsWithLineNumber(s, &match)) {
        ++bare_numbered;
      } else if (i + 1 < n && !StartsWithLineNumber(lines[i + 1], &match)) {
        heading_shape = false;  // a heading is followed by numbered lines
      }
    }
    if (candidates == 0) {
      // Only errors and notices.
      return WriteGroups(cmd, lines, kind, error, {}, suffix);
    }
    // Context lines without numbers (`rg -C 2` through a pipe, `grep -r -C 2`): "path-text",
    // after a path that names matches ("path:text") — counted with those.
    size_t prefixed_context = 0;
    if (!prefixed_paths.empty()) {
      for (size_t i = 0, seen = 0; i < n && seen < sampled; ++i) {
        if (kind[i] != kLineOther) continue;
        ++seen;
        prefixed_context += ContextPathOf(lines[i], prefixed_paths).empty() ? 0 : 1;
      }
    }
    enum class Format { kNumbered, kPrefixed, kHeading, kBare } format;
    auto most = [&](size_t k) { return k * 10 >= sampled * 8; };
    if (cmd.filenames == false) {
      format = Format::kBare;
    } else if (most(numbered)) {
      format = Format::kNumbered;
    } else if ((cmd.heading || cmd.tool == Tool::kRg || cmd.tool == Tool::kAg ||
                cmd.tool == Tool::kAck) &&
               heading_shape && bare_numbered > 0 && bare_numbered < sampled) {
      format = Format::kHeading;
    } else if (most(prefixed + prefixed_context) &&
               (cmd.filenames == true || !cmd.operands.empty() ||
                (cmd.tool == Tool::kNone && prefixed_context >= 3))) {
      format = Format::kPrefixed;
    } else if (IsGrepFamily(cmd.tool) && !cmd.filenames.value_or(false)) {
      format = Format::kBare;
    } else {
      return std::nullopt;  // not output this shaper understands
    }

    std::vector<Group> groups;
    if (format == Format::kBare) {
      for (size_t i = 0; i < n; ++i) {
        if (kind[i] == kLineOther) {
          bool match = true;
          if (StartsWithLineNumber(lines[i], &match) && !match) {
            kind[i] = kLineContext;
          } else {
            kind[i] = kLineMatch;
          }
        }
      }
      return WriteBare(cmd, lines, kind, error, suffix);
    }
    // "path:text" lines name a file each; a context line without a number whose text has a
    // colon reads the same ("a.py-    x: int"): it starts with the path of a match line and a
    // dash. The paths before a colon, to tell them apart (a key that starts with another and a
    // dash is no path).
    absl::flat_hash_set<std::string_view> keys;
    if (format == Format::kPrefixed) {
      for (size_t i = 0; i < n; ++i) {
        const size_t colon = kind[i] == kLineOther ? lines[i].find(':') : std::string_view::npos;
        if (colon != std::string_view::npos && colon > 0) keys.insert(lines[i].substr(0, colon));
      }
    }
    Group* current = nullptr;
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = lines[i];
      if (kind[i] == kLineError || kind[i] == kLineBlank || kind[i] == kLineSeparator) {
        if (kind[i] == kLineBlank && format == Format::kHeading) current = nullptr;
        continue;
      }
      std::string_view path;
      bool match = true;
      if (format == Format::kHeading) {
        if (StartsWithLineNumber(s, &match)) {
          if (current == nullptr) continue;  // numbered line with no heading: other
          kind[i] = match ? kLineMatch : kLineContext;
          current->end = i + 1;
          ++current->lines;
          current->matches += match ? 1 : 0;
        } else {
          groups.push_back(Group{s, i, i + 1, 0, 0});
          current = &groups.back();
          kind[i] = kLineHeading;
        }
        continue;
      }
      auto match_path = [&](std::string_view line) {
        if (format == Format::kNumbered) return NumberedPath(line);
        size_t colon = line.find(':');
        return colon != std::string_view::npos && colon > 0 ? line.substr(0, colon)
                                                             : std::string_view();
      };
      if (current != nullptr && IsContextOf(s, current->path)) {
        path = current->path;  // "path-12-text": context of the file being read
        match = false;
      } else if (const std::string_view of = ContextPathOf(s, keys); !of.empty()) {
        path = of;  // "path-text", the next file's context before its first match
        match = false;
      } else {
        path = match_path(s);
        if (path.empty()) {
          // Context before the next file's first match: that file's name starts the line.
          for (size_t j = i + 1; j < n && j < i + 64; ++j) {
            if (kind[j] == kLineSeparator) break;
            if (kind[j] != kLineOther) continue;
            std::string_view next = match_path(lines[j]);
            if (next.empty()) continue;
            if (IsContextOf(s, next)) {
              path = next;
              match = false;
            }
            break;
          }
        }
      }
      if (path.empty()) continue;  // other
      if (current == nullptr || current->path != path) {
        groups.push_back(Group{path, i, i + 1, 0, 0});
        current = &groups.back();
      }
      kind[i] = match ? kLineMatch : kLineContext;
      current->end = i + 1;
      ++current->lines;
      current->matches += match ? 1 : 0;
    }
    size_t other = 0;
    for (uint8_t k : kind) other += k == kLineOther ? 1 : 0;
    if (groups.empty() || other * 5 > candidates) return std::nullopt;
    return WriteGroups(cmd, lines, kind, error, groups, suffix);
  }

  static std::string MatchesHeader(const SearchCommand& cmd, uint64_t matches,
                                   std::optional<uint64_t> files, const ErrorLines& errors,
                                   const std::string& suffix) {
    std::string header = StrCat(cmd.label, ": ");
    if (matches == 0) {
      StrAppend(&header, "no matches");
    } else {
      StrAppend(&header, Plural(matches, "match", "matches"));
      if (files) StrAppend(&header, " in ", Plural(*files, "file", "files"));
    }
    StrAppend(&header, ErrorsText(errors.binary(), errors.errors()), suffix);
    return header;
  }

  static std::string WriteGroups(const SearchCommand& cmd, const std::vector<std::string_view>& lines,
                                 const std::vector<uint8_t>& kind,
                                 const std::vector<ErrorKind>& error,
                                 const std::vector<Group>& groups, const std::string& suffix) {
    const size_t n = lines.size();
    ErrorLines errors;
    std::vector<bool> show_error(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (kind[i] != kLineError) continue;
      show_error[i] = errors.Show();
      errors.Count(error[i]);
    }
    uint64_t matches = 0;
    absl::flat_hash_set<std::string_view> distinct;
    for (const Group& g : groups) {
      matches += g.matches;
      distinct.insert(g.path);
    }
    SummaryWriter out(&lines);
    out.Header(MatchesHeader(cmd, matches, distinct.size(), errors, suffix));

    const size_t shown_groups = std::min(groups.size(), kMaxFiles);
    std::vector<uint64_t> wanted(shown_groups);
    for (size_t g = 0; g < shown_groups; ++g) wanted[g] = groups[g].matches;
    // Past kContextBudget lines shown, the matches come without their context lines.
    uint64_t match_lines = 0, context_lines = 0;
    for (uint8_t k : kind) {
      match_lines += k == kLineMatch ? 1 : 0;
      context_lines += k == kLineContext ? 1 : 0;
    }
    std::vector<uint64_t> share = MatchShares(wanted, match_lines, context_lines);
    const bool all_fit = [&] {
      for (size_t g = 0; g < shown_groups; ++g) {
        if (share[g] < groups[g].matches) return false;
      }
      return shown_groups == groups.size();
    }();

    size_t g = 0, other_shown = 0;
    uint64_t shown_matches = 0;  // in the current group
    uint64_t shown_lines = 0, context_cut = 0;  // lines of matches and context shown; cut
    uint64_t separators_cut = 0;
    bool group_closed = false, saw_separator = false;
    uint64_t late_lines = 0, late_matches = 0;
    absl::flat_hash_set<std::string_view> late_files;
    auto close_group = [&](size_t index, size_t at) {
      // Lines of the group from `at` on are counted.
      const Group& grp = groups[index];
      uint64_t rest_lines = 0, rest_matches = 0;
      for (size_t k = at; k < grp.end; ++k) {
        if (kind[k] == kLineMatch || kind[k] == kLineContext) {
          ++rest_lines;
          rest_matches += kind[k] == kLineMatch ? 1 : 0;
        }
      }
      if (rest_lines == 0) return;
      if (rest_lines == rest_matches) {
        out.ElidedLines(rest_lines, StrCat(rest_matches == 1 ? "more match" : "more matches",
                                           " in this file omitted"));
      } else {
        out.ElidedLines(rest_lines, StrCat(rest_lines == 1 ? "more line (" : "more lines (",
                                           Plural(rest_matches, "match", "matches"),
                                           ") in this file omitted"));
      }
    };
    for (size_t i = 0; i < n; ++i) {
      uint8_t k = kind[i];
      if (k == kLineError) {
        if (show_error[i]) out.Line(lines[i]);
        continue;
      }
      if (k == kLineOther) {
        if (other_shown++ < kMaxOtherLines) out.Line(lines[i]);
        continue;
      }
      if (k == kLineBlank || k == kLineSeparator) {
        if (k == kLineSeparator) {
          saw_separator = true;
          bool open = g < shown_groups && !group_closed && shown_matches < share[g];
          if ((all_fit || open) && shown_lines < kContextBudget) {
            out.Line(lines[i]);
          } else {
            ++separators_cut;
          }
        }
        continue;
      }
      while (g < groups.size() && i >= groups[g].end) {
        ++g;
        shown_matches = 0;
        group_closed = false;
      }
      if (g >= groups.size() || i < groups[g].first) continue;
      if (g >= shown_groups) {
        if (k == kLineMatch || k == kLineContext) {
          ++late_lines;
          late_matches += k == kLineMatch ? 1 : 0;
          if (i == groups[g].first) late_files.insert(groups[g].path);
        }
        continue;
      }
      if (group_closed) continue;
      if (k == kLineHeading) {
        out.Line(lines[i]);
        continue;
      }
      if (k == kLineMatch) {
        if (shown_matches == share[g]) {
          close_group(g, i);
          group_closed = true;
          continue;
        }
        ++shown_matches;
        ++shown_lines;
        saw_separator = false;
        out.Line(lines[i]);
        continue;
      }
      // A context line: shown before a match still to show, or after the last one shown
      // until a "--" separator.
      if (shown_matches == share[g] && saw_separator) {
        close_group(g, i);
        group_closed = true;
        continue;
      }
      if (shown_lines >= kContextBudget) {
        ++context_cut;
        continue;
      }
      ++shown_lines;
      out.Line(lines[i]);
    }
    out.ElidedLines(context_cut, ContextCutNote(context_cut));
    out.ElidedLines(separators_cut, separators_cut == 1 ? "\"--\" separator line omitted"
                                                        : "\"--\" separator lines omitted");
    if (late_lines > 0) {
      std::string files = Plural(late_files.size(), "more file", "more files");
      if (late_lines == late_matches) {
        out.ElidedLines(late_lines, StrCat(late_matches == 1 ? "match" : "matches", " in ", files,
                                           " omitted"));
      } else {
        out.ElidedLines(late_lines, StrCat("lines (", Plural(late_matches, "match", "matches"),
                                           ") in ", files, " omitted"));
      }
    }
    errors.WriteMarkers(out);
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "other line omitted" : "other lines omitted");
    return out.Take();
  }

  // Matches with no file names: the head and the tail, errors kept.
  static std::optional<std::string> WriteBare(const SearchCommand& cmd,
                                              const std::vector<std::string_view>& lines,
                                              const std::vector<uint8_t>& kind,
                                              const std::vector<ErrorKind>& error,
                                              const std::string& suffix) {
    const size_t n = lines.size();
    ErrorLines errors;
    std::vector<bool> show_error(n, false);
    uint64_t matches = 0, body = 0;
    for (size_t i = 0; i < n; ++i) {
      if (kind[i] == kLineError) {
        show_error[i] = errors.Show();
        errors.Count(error[i]);
      }
      matches += kind[i] == kLineMatch ? 1 : 0;
      body += (kind[i] == kLineMatch || kind[i] == kLineContext) ? 1 : 0;
    }
    SummaryWriter out(&lines);
    out.Header(MatchesHeader(cmd, matches, std::nullopt, errors, suffix));
    uint64_t seen = 0, dropped = 0, dropped_matches = 0;
    const bool cut = body > kBareHead + kBareTail;
    for (size_t i = 0; i < n; ++i) {
      uint8_t k = kind[i];
      if (k == kLineError) {
        if (show_error[i]) out.Line(lines[i]);
        continue;
      }
      if (k != kLineMatch && k != kLineContext) {
        if (k == kLineSeparator && !cut) out.Line(lines[i]);
        continue;
      }
      uint64_t j = seen++;
      if (!cut || j < kBareHead || j >= body - kBareTail) {
        if (dropped > 0) {
          WriteDropped(out, dropped, dropped_matches);
          dropped = dropped_matches = 0;
        }
        out.Line(lines[i]);
      } else {
        ++dropped;
        dropped_matches += k == kLineMatch ? 1 : 0;
      }
    }
    if (dropped > 0) WriteDropped(out, dropped, dropped_matches);
    errors.WriteMarkers(out);
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "other line omitted" : "other lines omitted");
    return out.Take();
  }

  static void WriteDropped(SummaryWriter& out, uint64_t lines, uint64_t matches) {
    if (lines == matches) {
      out.ElidedLines(lines, lines == 1 ? "more match omitted" : "more matches omitted");
    } else {
      out.ElidedLines(lines, StrCat(lines == 1 ? "more line (" : "more lines (",
                                    Plural(matches, "match", "matches"), ") omitted"));
    }
  }

  // -c / --count: "path:12" per file ("12" for one file).
  static std::optional<std::string> ShapeCounts(const SearchCommand& cmd,
                                                const std::vector<std::string_view>& lines,
                                                const std::string& suffix) {
    const size_t n = lines.size();
    std::vector<int8_t> type(n, 0);  // 1: count > 0, 2: count 0, 3: error, 0: other
    uint64_t total = 0, files = 0, zero = 0, unknown = 0;
    ErrorLines errors;
    std::vector<bool> show_error(n, false);
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = lines[i];
      if (IsBlank(s)) continue;
      if (ErrorKind e = ClassifyError(s); e != ErrorKind::kNone) {
        type[i] = 3;
        show_error[i] = errors.Show();
        errors.Count(e);
        continue;
      }
      size_t colon = s.rfind(':');
      std::string_view number = colon == std::string_view::npos ? s : s.substr(colon + 1);
      if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos) {
        ++unknown;
        continue;
      }
      uint64_t value = 0;
      for (char c : number) value = value * 10 + static_cast<uint64_t>(c - '0');
      total += value;
      if (value > 0) {
        ++files;
        type[i] = 1;
      } else {
        ++zero;
        type[i] = 2;
      }
    }
    if (files + zero == 0 || unknown * 5 > files + zero) return std::nullopt;
    SummaryWriter out(&lines);
    out.Header(MatchesHeader(cmd, total, files + zero > 1 ? std::optional<uint64_t>(files)
                                                           : std::nullopt,
                             errors, suffix));
    const bool hide_zero = files + zero > kMaxCountLines;
    uint64_t shown = 0, dropped = 0, dropped_zero = 0;
    for (size_t i = 0; i < n; ++i) {
      if (type[i] == 3) {
        if (show_error[i]) out.Line(lines[i]);
      } else if (type[i] == 2 && hide_zero) {
        ++dropped_zero;
      } else if (type[i] == 1 || type[i] == 2) {
        if (shown < kMaxCountLines) {
          out.Line(lines[i]);
          ++shown;
        } else {
          ++dropped;
        }
      }
    }
    out.ElidedLines(dropped, StrCat(dropped == 1 ? "more file" : "more files",
                                    " with matches omitted"));
    out.ElidedLines(dropped_zero, StrCat(dropped_zero == 1 ? "file" : "files",
                                         " with 0 matches omitted"));
    errors.WriteMarkers(out);
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "other line omitted" : "other lines omitted");
    return out.Take();
  }

  // find, fd, locate, grep -l, rg --files: paths, grouped by directory when there are many.
  static std::string ShapePaths(const SearchCommand& cmd, const std::vector<std::string_view>& lines,
                                const std::string& suffix) {
    const size_t n = lines.size();
    ErrorLines errors;
    std::vector<bool> show_error(n, false);
    std::vector<uint8_t> is_path(n, 0);
    uint64_t paths = 0;
    absl::flat_hash_set<std::string_view> dirs;
    std::string_view last_dir;
    bool have_last = false;
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = lines[i];
      if (IsBlank(s)) continue;
      if (ErrorKind e = ClassifyError(s); e != ErrorKind::kNone) {
        show_error[i] = errors.Show();
        errors.Count(e);
        continue;
      }
      is_path[i] = 1;
      ++paths;
      std::string_view p = s;
      while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
      size_t slash = p.rfind('/');
      std::string_view dir = slash == std::string_view::npos ? std::string_view(".")
                                                            : p.substr(0, slash == 0 ? 1 : slash);
      if (!have_last || dir != last_dir) {
        dirs.insert(dir);
        last_dir = dir;
        have_last = true;
      }
    }
    const bool files_listing = IsGrepFamily(cmd.tool);
    std::string header = StrCat(cmd.label, ": ");
    if (paths == 0) {
      StrAppend(&header, files_listing ? "no files" : "nothing found");
    } else if (files_listing) {
      StrAppend(&header, Plural(paths, "file", "files"),
                cmd.without_match ? " without matches" : "");
    } else {
      StrAppend(&header, Plural(paths, "path", "paths"), " in ",
                Plural(dirs.size(), "directory", "directories"));
    }
    StrAppend(&header, ErrorsText(errors.binary(), errors.errors()), suffix);
    SummaryWriter out(&lines);
    out.Header(header);

    if (paths <= (files_listing ? kMaxFiles : kMaxPaths)) {
      for (size_t i = 0; i < n; ++i) {
        if (is_path[i] || show_error[i]) out.Line(lines[i]);
      }
    } else {
      // Errors first (they are the trouble), then the paths by directory.
      for (size_t i = 0; i < n; ++i) {
        if (show_error[i]) out.Line(lines[i]);
      }
      WriteDirectoryGroups(lines, is_path, out);
    }
    errors.WriteMarkers(out);
    uint64_t rest = out.UnaccountedLines();
    out.ElidedLines(rest, rest == 1 ? "other line omitted" : "other lines omitted");
    return out.Take();
  }

  // Groups paths under the deepest common directory by its entries: a group per
  // subdirectory ("… 540 more paths under /usr/include/linux/ omitted") and one for the
  // files directly in it. Each group keeps its first paths (a fair share of the budget).
  static void WriteDirectoryGroups(const std::vector<std::string_view>& lines,
                                   const std::vector<uint8_t>& is_path, SummaryWriter& out) {
    const size_t n = lines.size();
    // The deepest directory every path is in ("" when they share none).
    std::string_view root;
    bool first = true;
    for (size_t i = 0; i < n; ++i) {
      if (!is_path[i]) continue;
      std::string_view p = lines[i];
      if (first) {
        size_t slash = p.rfind('/');
        root = slash == std::string_view::npos ? std::string_view() : p.substr(0, slash);
        first = false;
        continue;
      }
      while (!root.empty() && !(p.size() > root.size() && p.starts_with(root) &&
                                p[root.size()] == '/')) {
        size_t slash = root.rfind('/');
        root = slash == std::string_view::npos ? std::string_view() : root.substr(0, slash);
      }
    }
    const size_t prefix = root.empty() ? 0 : root.size() + 1;
    // Group key: "root/sub" for paths in a subdirectory, "" for files directly in root.
    struct DirGroup {
      std::string_view key;
      bool subdir = false;
      std::vector<size_t> shown;
      uint64_t count = 0;
    };
    std::vector<DirGroup> groups;
    absl::flat_hash_map<std::string_view, size_t> index;
    std::vector<uint32_t> group_of(n, 0);
    std::string_view last_key;
    size_t last_group = SIZE_MAX;
    for (size_t i = 0; i < n; ++i) {
      if (!is_path[i]) continue;
      std::string_view p = lines[i];
      std::string_view rest = p.size() > prefix ? p.substr(prefix) : std::string_view();
      if (root.empty() && p.starts_with("/")) rest = p.substr(1);
      size_t slash = rest.find('/');
      bool subdir = slash != std::string_view::npos && slash + 1 < rest.size();
      std::string_view key = subdir ? p.substr(0, static_cast<size_t>(rest.data() - p.data()) + slash)
                                    : std::string_view();
      size_t gi;
      if (last_group != SIZE_MAX && key == last_key) {
        gi = last_group;
      } else {
        auto [it, inserted] = index.try_emplace(key, groups.size());
        if (inserted) groups.push_back(DirGroup{key, subdir, {}, 0});
        gi = it->second;
        last_key = key;
        last_group = gi;
      }
      groups[gi].count++;
      group_of[i] = static_cast<uint32_t>(gi);
    }
    const size_t shown_groups = std::min(groups.size(), kMaxDirGroups);
    std::vector<uint64_t> wanted(shown_groups);
    for (size_t g = 0; g < shown_groups; ++g) wanted[g] = groups[g].count;
    std::vector<uint64_t> share = FairShares(wanted, kPathBudget, kPathBudget, /*at_least_one=*/true);
    for (size_t i = 0; i < n; ++i) {
      if (!is_path[i]) continue;
      size_t g = group_of[i];
      if (g < shown_groups && groups[g].shown.size() < share[g]) groups[g].shown.push_back(i);
    }
    uint64_t late_paths = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      const DirGroup& grp = groups[g];
      if (g >= shown_groups) {
        late_paths += grp.count;
        continue;
      }
      for (size_t i : grp.shown) out.Line(lines[i]);
      uint64_t rest = grp.count - grp.shown.size();
      if (rest == 0) continue;
      std::string where = grp.subdir ? StrCat("under ", grp.key, "/")
                                     : StrCat("in ", root.empty() ? "." : root, "/");
      out.ElidedLines(rest, StrCat(rest == 1 ? "more path " : "more paths ", where, " omitted"));
    }
    if (late_paths > 0) {
      out.ElidedLines(late_paths, StrCat(late_paths == 1 ? "path" : "paths", " in ",
                                         Plural(groups.size() - shown_groups, "more directory",
                                                "more directories"),
                                         " omitted"));
    }
  }

  // rg --json: the "begin" and "summary" lines are kept verbatim; each kept match is rendered
  // as "<line number>:<text>" built only from the event's fields (the one exception to
  // showing lines verbatim, for machine-readable output); "end" events are counted.
  static std::optional<std::string> ShapeJson(const SearchCommand& cmd,
                                              const std::vector<std::string_view>& lines,
                                              const std::string& suffix) {
    const size_t n = lines.size();
    enum : uint8_t { kBegin = 1, kMatchEvent, kContextEvent, kEnd, kSummary, kError };
    std::vector<uint8_t> type(n, 0);
    std::vector<Group> groups;
    ErrorLines errors;
    std::vector<bool> show_error(n, false);
    size_t unknown = 0;
    for (size_t i = 0; i < n; ++i) {
      std::string_view s = lines[i];
      if (IsBlank(s)) continue;
      if (s.starts_with("{\"type\":\"begin\"")) {
        type[i] = kBegin;
        groups.push_back(Group{{}, i, i + 1, 0, 0});
      } else if (s.starts_with("{\"type\":\"match\"")) {
        type[i] = kMatchEvent;
      } else if (s.starts_with("{\"type\":\"context\"")) {
        type[i] = kContextEvent;
      } else if (s.starts_with("{\"type\":\"end\"")) {
        type[i] = kEnd;
      } else if (s.starts_with("{") && s.find("\"type\":\"summary\"") != std::string_view::npos) {
        type[i] = kSummary;
      } else if (ErrorKind e = ClassifyError(s); e != ErrorKind::kNone) {
        type[i] = kError;
        show_error[i] = errors.Show();
        errors.Count(e);
      } else {
        ++unknown;
      }
      const bool event = type[i] == kMatchEvent || type[i] == kContextEvent || type[i] == kEnd;
      // Events before any "begin" (`rg --json … | tail -10`): a file's whose "begin" was cut
      // off; each names its file. (An "end" alone is counted with the others.)
      if (event && groups.empty() && type[i] != kEnd) groups.push_back(Group{{}, i, i, 0, 0});
      if (event && !groups.empty()) {
        groups.back().end = i + 1;
        ++groups.back().lines;
        groups.back().matches += type[i] == kMatchEvent ? 1 : 0;
      }
    }
    if (groups.empty() && errors.errors() == 0) return std::nullopt;
    if (unknown * 5 > n) return std::nullopt;
    uint64_t matches = 0;
    for (const Group& g : groups) matches += g.matches;
    SummaryWriter out(&lines);
    out.Header(MatchesHeader(cmd, matches, groups.size(), errors, suffix));
    const size_t shown_groups = std::min(groups.size(), kMaxFiles);
    std::vector<uint64_t> wanted(shown_groups);
    for (size_t g = 0; g < shown_groups; ++g) wanted[g] = groups[g].matches;
    uint64_t match_events = 0, context_events = 0;
    for (uint8_t t : type) {
      match_events += t == kMatchEvent ? 1 : 0;
      context_events += t == kContextEvent ? 1 : 0;
    }
    std::vector<uint64_t> share = MatchShares(wanted, match_events, context_events);
    size_t g = SIZE_MAX;
    uint64_t shown = 0, dropped = 0, dropped_matches = 0, late = 0, late_matches = 0;
    uint64_t rendered_lines = 0, shown_events = 0, context_cut = 0;
    auto close = [&]() {
      if (dropped == 0) return;
      if (dropped == dropped_matches) {
        out.ElidedLines(dropped, StrCat(dropped == 1 ? "more match" : "more matches",
                                        " in this file omitted"));
      } else {
        out.ElidedLines(dropped, StrCat(dropped == 1 ? "more event (" : "more events (",
                                        Plural(dropped_matches, "match", "matches"),
                                        ") in this file omitted"));
      }
      dropped = dropped_matches = 0;
    };
    for (size_t i = 0; i < n; ++i) {
      switch (type[i]) {
        case kBegin: {
          close();
          ++g;
          shown = 0;
          if (g < shown_groups) out.Line(lines[i]);
          break;
        }
        case kMatchEvent:
        case kContextEvent: {
          // The first of a file whose "begin" was cut off: shown as printed, as it names it.
          const bool headless = g == SIZE_MAX;
          if (headless) g = 0;
          if (g >= shown_groups) {
            ++late;
            late_matches += type[i] == kMatchEvent ? 1 : 0;
            break;
          }
          if (type[i] == kContextEvent && dropped == 0 && shown_events >= kContextBudget) {
            ++context_cut;
            break;
          }
          bool room = type[i] == kMatchEvent ? shown < share[g] : true;
          if (room && dropped == 0) {
            ++shown_events;
            std::optional<std::string> rendered = headless ? std::nullopt : RenderEvent(lines[i]);
            if (rendered) {
              out.Header(*rendered);  // a line built from the event's fields, standing for it
              ++rendered_lines;
            } else {
              out.Line(lines[i]);
            }
            shown += type[i] == kMatchEvent ? 1 : 0;
          } else {
            ++dropped;
            dropped_matches += type[i] == kMatchEvent ? 1 : 0;
          }
          break;
        }
        case kEnd:
          close();
          break;
        case kSummary:
          close();
          out.Line(lines[i]);
          break;
        case kError:
          if (show_error[i]) out.Line(lines[i]);
          break;
        default:
          break;
      }
    }
    close();
    out.ElidedLines(context_cut, ContextCutNote(context_cut));
    if (late > 0) {
      out.ElidedLines(late, StrCat(late == 1 ? "event" : "events", " (",
                                   Plural(late_matches, "match", "matches"), ") in ",
                                   Plural(groups.size() - shown_groups, "more file", "more files"),
                                   " omitted"));
    }
    errors.WriteMarkers(out);
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min(rest, rendered_lines);
    out.ElidedLines(rest, rest == 1 ? "other line omitted (end events)"
                                    : "other lines omitted (end events)");
    return out.Take();
  }

  // data.<field>.text of an rg --json event.
  static std::optional<std::string> JsonText(std::string_view line, std::string_view field) {
    auto value = core::ParseJson(line, "rg --json");
    if (!value.ok()) return std::nullopt;
    const core::Value* data = value->Find("data");
    const core::Value* f = data != nullptr ? data->Find(field) : nullptr;
    const core::Value* text = f != nullptr ? f->Find("text") : nullptr;
    if (text == nullptr || !text->is_string()) return std::nullopt;
    return text->as_string();
  }

  // "<line_number>:<text>" for a match, "<line_number>-<text>" for context (rg's own forms).
  static std::optional<std::string> RenderEvent(std::string_view line) {
    auto value = core::ParseJson(line, "rg --json");
    if (!value.ok()) return std::nullopt;
    const core::Value* type = value->Find("type");
    const core::Value* data = value->Find("data");
    if (type == nullptr || !type->is_string() || data == nullptr) return std::nullopt;
    const core::Value* number = data->Find("line_number");
    const core::Value* lines = data->Find("lines");
    const core::Value* text = lines != nullptr ? lines->Find("text") : nullptr;
    if (text == nullptr || !text->is_string()) return std::nullopt;
    std::string_view t = text->as_string();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.remove_suffix(1);
    // Several lines (multiline mode) or a very long one: the event stays as it was.
    if (t.find('\n') != std::string_view::npos || t.size() > kMaxLineBytes) return std::nullopt;
    std::string out;
    if (number != nullptr && number->as_integer()) {
      StrAppend(&out, *number->as_integer(), type->as_string() == "match" ? ":" : "-");
    }
    StrAppend(&out, t);
    return out;
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeSearchShaper() { return std::make_shared<SearchShaper>(); }

}  // namespace plugline::builtin

// builtin-typescript: the TypeScript compiler — tsc, tsc -b, tsc --watch, vue-tsc, tsgo (tsc 7).
//
// Recognizes tsc's two diagnostic formats:
//  - plain (tsc's default when its output is not a terminal):
//      src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.
//    with the message chain on the following lines, indented two spaces per level;
//  - pretty (--pretty, or a terminal):
//      src/a.ts:12:5 - error TS2322: Type 'string' is not assignable to type 'number'.
//    then the message chain, a code frame ("12 const x: number = s;" and a "~~~" underline),
//    related locations (tsc 5: "  src/b.ts:3:7", its frame, "    'x' is declared here.";
//    tsc 7: "  src/b.ts:3:7 - 'x' is declared here.", its frame), and at the end
//    "Found 12 errors in 6 files." / "Found 1 error in src/a.ts:3" and the "Errors  Files" table;
// and around them: global diagnostics ("error TS18003: No inputs were found in config file"),
// tsc -b's project lines ("Building project '…'...", with --verbose the timestamped
// "Projects in this build:" list and up-to-date checks) and watch mode ("[10:01:02 AM] File
// change detected...", "Found 0 errors. Watching for file changes.").
//
// Keeps, in output order: every error's header line (file(line,col), code, message), its
// message chain and related locations (code frames, underlines and blank lines are dropped:
// the file has the code, the header says where), "Building project" lines that precede
// errors, and "Found N errors". Up to 30 diagnostics, each in full; beyond, they are grouped
// by message (quoted names and numbers aside, diagnostic_groups.h): the first of each group in
// full, the others as lists of their locations with the names that differ, and a message line
// an earlier group showed (a repeated hint) counted. No diagnostic's location or code is left
// out.
// In watch mode only the last compilation is summarized. Success collapses to "tsc: no
// errors". Output without tsc diagnostics and a failing exit: head, tail and the lines that
// look like errors.
#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr size_t kAllInFull = 30;          // up to this many diagnostics, all in full; beyond,
                                           // grouped by message, every location kept
constexpr size_t kMaxDiagnosticLines = 14;  // lines kept per diagnostic after its header
constexpr size_t kMaxProjectList = 20;
constexpr size_t kMaxOtherErrorLines = 30;
constexpr size_t kMaxSuccessLines = 30;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

// Strip() without its per-character set lookups: this runs on every line.
std::string_view Strip(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}
bool IsIndented(std::string_view s) { return !s.empty() && (s[0] == ' ' || s[0] == '\t'); }

struct Header {
  std::string_view file;  // empty for a global diagnostic
  std::string_view code;  // "TS2322"
  bool error = false;
  bool pretty = false;
};

// "file(12,5): error TS2322: …", "file:12:5 - error TS2322: …", "error TS18003: …".
std::optional<Header> ParseHeader(std::string_view line) {
  if (line.size() < 10 || IsIndented(line)) return std::nullopt;
  for (size_t ts = line.find(" TS"); ts != std::string_view::npos; ts = line.find(" TS", ts + 1)) {
    size_t end = ts + 3;
    while (end < line.size() && IsDigit(line[end])) ++end;
    if (end == ts + 3 || end >= line.size() || line[end] != ':' || end - ts > 20 ||
        ts >= 0xffff) {
      continue;
    }
    size_t word = ts;
    while (word > 0 && std::isalpha(static_cast<unsigned char>(line[word - 1]))) --word;
    std::string_view category = line.substr(word, ts - word);
    if (category != "error" && category != "warning" && category != "message" &&
        category != "suggestion") {
      continue;
    }
    Header header;
    header.code = line.substr(ts + 1, end - ts - 1);
    header.error = category == "error";
    std::string_view prefix = line.substr(0, word);
    if (prefix.empty()) return header;  // global
    if (prefix.ends_with("): ")) {     // plain: file(line,col)
      std::string_view loc = prefix.substr(0, prefix.size() - 3);
      size_t open = loc.rfind('(');
      if (open == std::string_view::npos || open == 0) continue;
      std::string_view nums = loc.substr(open + 1);
      size_t comma = nums.find(',');
      if (comma == std::string_view::npos || !AllDigits(nums.substr(0, comma)) ||
          !AllDigits(nums.substr(comma + 1))) {
        continue;
      }
      header.file = loc.substr(0, open);
      return header;
    }
    if (prefix.ends_with(" - ")) {  // pretty: file:line:col
      std::string_view loc = prefix.substr(0, prefix.size() - 3);
      size_t c2 = loc.rfind(':');
      if (c2 == std::string_view::npos || c2 == 0) continue;
      size_t c1 = loc.rfind(':', c2 - 1);
      if (c1 == std::string_view::npos || c1 == 0 || !AllDigits(loc.substr(c1 + 1, c2 - c1 - 1)) ||
          !AllDigits(loc.substr(c2 + 1))) {
        continue;
      }
      header.file = loc.substr(0, c1);
      header.pretty = true;
      return header;
    }
  }
  return std::nullopt;
}

// Where a timestamp prefix ends: "8:15:55 PM - Building…" and "[8:15:55 PM] Found 0 errors…"
// (any locale's time: digits, ':' and letters) -> the offset of the message; 0 when none.
size_t TimestampEnd(std::string_view line) {
  if (line.size() < 4 || (line[0] != '[' && !IsDigit(line[0]))) return 0;
  std::string_view head = line.substr(0, 40);
  std::string_view time;
  size_t end = 0;
  if (line[0] == '[') {
    size_t close = head.find("] ");
    if (close == std::string_view::npos) return 0;
    time = head.substr(1, close - 1);
    end = close + 2;
  } else {
    size_t dash = head.find(" - ");
    if (dash == std::string_view::npos) return 0;
    time = head.substr(0, dash);
    end = dash + 3;
  }
  if (time.empty() || !IsDigit(time[0]) || time.find(':') == std::string_view::npos) return 0;
  for (char c : time) {
    if (!IsDigit(c) && c != ':' && c != ' ' && c != '.' &&
        !std::isalpha(static_cast<unsigned char>(c))) {
      return 0;
    }
  }
  return end;
}

// "Found 12 errors in 6 files.", "Found 1 error in src/a.ts:3", "Found 0 errors. Watching…".
std::optional<uint64_t> FoundCount(std::string_view message) {
  if (!message.starts_with("Found ")) return std::nullopt;
  return CountBefore(message.substr(0, 40), "error");
}

// A code frame's source line: "12 const x = 1;" (gutter at column 0 for the diagnostic, four
// spaces in for a related location), or an empty source line "12".
bool IsFrameSource(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos || !IsDigit(line[i])) return false;
  while (i < line.size() && IsDigit(line[i])) ++i;
  return i == line.size() || line[i] == ' ';
}

// The underline under a frame line ("      ~~~~") or the ellipsis of a long span ("...").
bool IsFrameMark(std::string_view line) {
  std::string_view t = Strip(line);
  return (!t.empty() && t.find_first_not_of('~') == std::string_view::npos) || t == "...";
}

// A row of the "Errors  Files" table: "     3  src/api/client.ts:2".
bool IsTableRow(std::string_view line) {
  if (!IsIndented(line)) return false;
  std::string_view t = Strip(line);
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  return i > 0 && t.substr(i).starts_with("  ");
}

// The file of such a row: "src/api/client.ts".
std::string_view TableRowFile(std::string_view row) {
  std::string_view t = Strip(row);
  t = Strip(t.substr(t.find_first_not_of("0123456789")));
  const size_t colon = t.rfind(':');
  return colon == std::string_view::npos ? t : t.substr(0, colon);
}

enum class Kind : uint8_t {
  kOther,
  kBlank,
  kEarlier,     // a watch-mode compilation before the last one
  kHeader,      // a diagnostic's first line
  kMessage,     // its message chain, a related location or related message
  kCutMessage,  // the end of a message chain whose header was cut off (`tsc | tail -12`)
  kSource,      // a code frame's source line
  kFrame,       // a code frame's underline or ellipsis
  kFound,       // "Found N errors…"
  kTable,       // "Errors  Files" and its rows
  kProgress,    // timestamped build / watch chatter
  kTrouble,     // timestamped line reporting a problem ("Skipping build … has errors")
  kSection,     // "Building project '…'..."
  kProjects,    // "Projects in this build:" and its list
};

// A diagnostic: its lines, and where its file and code are in its header line (compact: an
// output can hold hundreds of thousands).
struct Diagnostic {
  uint32_t begin = 0;  // header line
  uint32_t end = 0;    // one past its last line
  uint32_t file_len = 0;
  uint16_t code_off = 0;
  uint8_t code_len = 0;
  bool error = false;
  std::string_view file(const std::vector<std::string_view>& lines) const {
    return lines[begin].substr(0, file_len);
  }
  std::string_view code(const std::vector<std::string_view>& lines) const {
    return lines[begin].substr(code_off, code_len);
  }
};

// A diagnostic header's location as printed: "src/a.ts(12,5)", "src/a.ts:12:5"; "" for a
// global diagnostic.
std::string_view Location(std::string_view header, const Diagnostic& d) {
  if (d.file_len == 0) return {};
  std::string_view before = header.substr(0, d.code_off);  // "src/a.ts(12,5): error "
  size_t end = before.find(before[d.file_len] == '(' ? ')' : ' ', d.file_len);
  if (end == std::string_view::npos) return before.substr(0, d.file_len);
  return before.substr(0, before[d.file_len] == '(' ? end + 1 : end);
}

struct Parse {
  std::vector<Kind> kinds;
  std::vector<Diagnostic> diagnostics;
  size_t first = 0;  // first line of the last watch-mode compilation
  std::optional<uint64_t> found;  // the last "Found N errors"
  std::optional<uint64_t> found_files;  // and the files it says they are in
  // What the rows of the "Errors  Files" table count: the errors, the files (all an output cut
  // at its start may have left, `tsc | tail -8`).
  uint64_t table_errors = 0, table_files = 0;
  bool watch = false;
};

// Reads the table's rows from lines[i] on (kinds, and what they count); returns where they end.
size_t ReadTableRows(const std::vector<std::string_view>& lines, size_t i, Parse& p) {
  for (; i < lines.size() && IsTableRow(lines[i]); ++i) {
    p.kinds[i] = Kind::kTable;
    p.table_errors += LeadingNumber(Strip(lines[i])).value_or(0);
    ++p.table_files;
  }
  return i;
}

Parse ParseTsc(const std::vector<std::string_view>& lines) {
  Parse p;
  const size_t n = lines.size();
  p.kinds.assign(n, Kind::kOther);
  p.diagnostics.reserve(n);
  // Watch mode: each "File change detected" starts a new compilation; only the last counts.
  for (size_t i = 0; i < n; ++i) {
    size_t ts = TimestampEnd(lines[i]);
    if (ts == 0) continue;
    std::string_view message = lines[i].substr(ts);
    if (message.starts_with("File change detected")) p.first = i;
    if (message.starts_with("Starting compilation in watch mode") ||
        message.starts_with("File change detected")) {
      p.watch = true;
    }
  }
  for (size_t i = 0; i < p.first; ++i) p.kinds[i] = Kind::kEarlier;

  bool pretty_output = false;
  size_t i = p.first;
  // An output cut at its start inside the "Errors  Files" table (its rows first), or inside a
  // diagnostic's message chain (its indented lines first).
  if (p.first == 0) {
    i = ReadTableRows(lines, i, p);
    while (i < n && IsIndented(lines[i]) && !IsBlank(lines[i])) p.kinds[i++] = Kind::kCutMessage;
  }
  while (i < n) {
    std::string_view line = lines[i];
    if (std::optional<Header> h = ParseHeader(line)) {
      pretty_output = pretty_output || h->pretty;
      const bool pretty = h->pretty || (h->file.empty() && pretty_output);
      p.kinds[i] = Kind::kHeader;
      size_t j = i + 1;
      while (j < n && IsIndented(lines[j]) && !IsBlank(lines[j])) p.kinds[j++] = Kind::kMessage;
      if (pretty) {
        // Blank lines, the code frame, related locations, until the next unindented line.
        while (j < n) {
          std::string_view l = lines[j];
          Kind kind;
          if (IsBlank(l)) {
            kind = Kind::kBlank;
          } else if (IsFrameMark(l)) {
            kind = Kind::kFrame;
          } else if (IsFrameSource(l)) {
            kind = Kind::kSource;
          } else if (IsIndented(l)) {
            kind = Kind::kMessage;
          } else {
            break;
          }
          p.kinds[j++] = kind;
        }
        while (j > i + 1 && p.kinds[j - 1] == Kind::kBlank) --j;  // layout between blocks
      }
      p.diagnostics.push_back(Diagnostic{
          static_cast<uint32_t>(i), static_cast<uint32_t>(j),
          static_cast<uint32_t>(h->file.size()),
          static_cast<uint16_t>(h->code.data() - line.data()),
          static_cast<uint8_t>(h->code.size()), h->error});
      i = j;
      continue;
    }
    if (IsBlank(line)) {
      p.kinds[i++] = Kind::kBlank;
      continue;
    }
    if (line.starts_with("Errors  Files")) {
      p.kinds[i++] = Kind::kTable;
      i = ReadTableRows(lines, i, p);
      continue;
    }
    size_t ts = TimestampEnd(line);
    std::string_view message = line.substr(ts);
    if (std::optional<uint64_t> found = FoundCount(message)) {
      p.kinds[i++] = Kind::kFound;
      p.found = found;
      // "… in 6 files.", or one file named: "… in src/a.ts:3".
      const size_t in = message.find(" in ");
      p.found_files.reset();
      if (in != std::string_view::npos) {
        p.found_files = CountBefore(message.substr(in + 4), "file").value_or(1);
      }
      continue;
    }
    if (ts > 0) {
      if (message.starts_with("Projects in this build")) {
        p.kinds[i++] = Kind::kProjects;
        while (i < n && Strip(lines[i]).starts_with("* ") && IsIndented(lines[i])) {
          p.kinds[i++] = Kind::kProjects;
        }
        continue;
      }
      p.kinds[i] = message.starts_with("Building project") ? Kind::kSection
                   : LooksLikeErrorLine(message)          ? Kind::kTrouble
                                                          : Kind::kProgress;
      ++i;
      continue;
    }
    ++i;  // kOther
  }
  return p;
}


bool ToolIs(std::string_view command, std::initializer_list<std::string_view> names) {
  std::string tool = ToolName(command);
  for (std::string_view name : names) {
    if (tool == name) return true;
  }
  // Package runners: "pnpm exec tsc", "yarn tsc", "bun x tsc", "npm exec -- tsc",
  // "yarn run tsc", "node node_modules/typescript/lib/tsc.js".
  static constexpr std::string_view kRunners[] = {"npm", "pnpm", "yarn", "bun", "node", "deno"};
  if (std::find(std::begin(kRunners), std::end(kRunners), tool) == std::end(kRunners)) {
    return false;
  }
  std::vector<std::string> args = ToolArgs(command);
  for (size_t k = 0; k < args.size() && k < 4; ++k) {
    std::string_view arg = args[k];
    if (arg == "exec" || arg == "x" || arg == "dlx" || arg == "run" || arg == "--" ||
        arg.starts_with("-")) {
      continue;
    }
    size_t slash = arg.rfind('/');
    std::string_view base = slash == std::string_view::npos ? arg : arg.substr(slash + 1);
    for (std::string_view ext : {".js", ".cjs", ".mjs"}) {
      if (base.ends_with(ext)) base.remove_suffix(ext.size());
    }
    for (std::string_view name : names) {
      if (base == name) return true;
    }
    return false;
  }
  return false;
}

class TypescriptShaper final : public core::Shaper {
 public:
  TypescriptShaper() {
    meta_.id = "builtin-typescript";
    meta_.name = "typescript";
    meta_.version = "1.0.0";
    meta_.description =
        "TypeScript compiler (tsc, tsc -b, watch mode): every error with its code and message, "
        "code frames and progress dropped";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "typecheck";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    if (ToolIs(command, {"tsc", "vue-tsc", "tsgo", "tsc-watch"})) {
      return core::MatchResult{true, 0.95, {"command: tsc"}};
    }
    size_t located = 0;
    bool watch = false;
    for (std::string_view line : core::SplitLines(snippet)) {
      if (std::optional<Header> h = ParseHeader(line); h && !h->file.empty()) ++located;
      size_t ts = TimestampEnd(line);
      if (ts > 0 && (line.substr(ts).starts_with("Starting compilation in watch mode") ||
                     (FoundCount(line.substr(ts)) &&
                      line.find("Watching for file changes") != std::string_view::npos))) {
        watch = true;
      }
    }
    if (located > 0) return core::MatchResult{true, 0.85, {"output: tsc diagnostics"}};
    if (watch) return core::MatchResult{true, 0.8, {"output: tsc watch mode"}};
    return core::MatchResult{false, 0, {}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    if (context.raw_path.empty()) return core::ShapeOutput{"", RenderMode::kRaw};
    std::vector<std::string_view> lines = core::SplitLines(output);
    const Parse p = ParseTsc(lines);
    SummaryWriter out(&lines);
    const std::string tool = ToolIs(context.command, {"vue-tsc"})  ? "vue-tsc"
                             : ToolIs(context.command, {"tsgo"}) ? "tsgo"
                                                                 : "tsc";
    const bool exit_ok = !context.exit_code || *context.exit_code == 0;
    const std::string note = ExitNote(context.exit_code);

    uint64_t errors = 0, others = 0;
    std::unordered_set<std::string_view> files;
    std::unordered_set<std::string_view> shown_files;  // every diagnostic's file
    std::string_view last_file;
    for (const Diagnostic& d : p.diagnostics) {
      (d.error ? errors : others) += 1;
      std::string_view file = d.file(lines);
      shown_files.insert(file);
      if (d.error && !file.empty() && file != last_file) files.insert(file);
      if (d.error) last_file = file;
    }

    if (p.diagnostics.empty() && p.table_errors > 0 && !p.found) {
      // Only the table's rows: what they count, and the rows.
      out.Header(StrCat(tool, ": FAILED — ", Plural(p.table_errors, "error", "errors"), " in ",
                        Plural(p.table_files, "file", "files"),
                        " listed by its table (the diagnostics and totals are cut off)",
                        note.empty() ? "" : StrCat(" (", note, ")")));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary, true};
    }
    if (p.diagnostics.empty()) {
      if (exit_ok && p.found.value_or(0) == 0) {
        return Success(lines, p, tool, CutByHead(context.command), out);
      }
      // A failure without diagnostics tsc would print: show where it says why.
      out.Header(StrCat(tool, ": ",
                        p.found ? Plural(*p.found, "error", "errors") + " reported, none parsed"
                                : "no diagnostics in the output",
                        note.empty() ? "" : StrCat(" (", note, ")")));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary, p.found.value_or(0) > 0};
    }

    // The header: the counts, the tool's own total when it printed one.
    uint64_t total = p.found.value_or(errors);
    // "FAILED — " as the other shapers say it, of a run whose status says so too.
    std::string header = StrCat(tool, ": ", !note.empty() && total > 0 ? "FAILED — " : "",
                                Plural(total, "error", "errors"));
    // (An output cut at its start, `tsc | tail -30`, has fewer files' diagnostics than tsc
    // counted.)
    const uint64_t file_count = std::max<uint64_t>(files.size(), p.found_files.value_or(0));
    if (file_count > 0) StrAppend(&header, " in ", Plural(file_count, "file", "files"));
    if (others > 0) StrAppend(&header, ", ", Plural(others, "other diagnostic", "other diagnostics"));
    if (!note.empty()) StrAppend(&header, " (", note, ")");
    out.Header(header);
    if (p.first > 0) {
      out.ElidedLines(p.first, "lines of earlier watch-mode compilations omitted");
    }

    // Few diagnostics are shown in full; many are grouped by message (diagnostic_groups.h):
    // each group's first in full, the others as a list of their locations. None is left out.
    const bool grouped = p.diagnostics.size() > kAllInFull;
    DiagnosticGroups groups;
    if (grouped) {
      for (const Diagnostic& d : p.diagnostics) {
        const std::string_view header = lines[d.begin];
        const std::string_view where = Location(header, d);
        const size_t code_end = d.code_off + d.code_len;  // then ": " and the message
        groups.Add(header.substr(where.size(), code_end - where.size()), d.code(lines),
                   header.substr(std::min<size_t>(header.size(), code_end + 2)), where);
      }
    }
    // In groups, a message-chain line that an earlier group's first diagnostic showed (a hint
    // the compiler repeats) is counted, not repeated.
    std::unordered_set<std::string_view> chain_shown;
    uint64_t chain_repeats = 0;

    // "Building project" lines are kept when diagnostics follow them (before the next one).
    const size_t n = lines.size();
    std::vector<bool> section_has_errors(n, false);
    bool seen = false;
    for (size_t i = n; i-- > p.first;) {
      if (p.kinds[i] == Kind::kHeader) seen = true;
      if (p.kinds[i] == Kind::kSection) {
        section_has_errors[i] = seen;
        seen = false;
      }
    }
    size_t project_lines = 0;
    for (Kind k : p.kinds) project_lines += k == Kind::kProjects ? 1 : 0;

    std::vector<std::string_view> totals;  // written last
    uint64_t frame_lines = 0, kept_other = 0;
    size_t table_heading = n;  // the "Errors  Files" line, until a row under it is kept
    size_t diag = 0;
    size_t i = p.first;
    while (i < n) {
      switch (p.kinds[i]) {
        case Kind::kHeader: {
          const Diagnostic& d = p.diagnostics[diag];
          if (!grouped) {
            frame_lines += WriteDiagnostic(lines, p.kinds, d, out);
          } else if (groups.Leads(diag)) {
            frame_lines += WriteDiagnostic(lines, p.kinds, d, out, &chain_shown, &chain_repeats);
            groups.WriteFollowers(diag, out, [&](size_t k) {
              return p.diagnostics[k].end - p.diagnostics[k].begin;
            });
          }
          ++diag;
          i = d.end;
          continue;
        }
        case Kind::kFound:
          totals.push_back(lines[i]);
          break;
        case Kind::kCutMessage:  // what is left of a diagnostic cut off, as printed
          out.Line(lines[i]);
          break;
        case Kind::kTable:
          // A row for a file none of the diagnostics above is in (their lines cut off, `tsc |
          // tail -30`) is kept, under the table's heading; the others repeat what is shown.
          if (!IsTableRow(lines[i])) {
            table_heading = i;
          } else if (!shown_files.contains(TableRowFile(lines[i]))) {
            if (table_heading < n) out.Line(lines[table_heading]);
            table_heading = n;
            out.Line(lines[i]);
          }
          break;
        case Kind::kSection:
          if (section_has_errors[i]) out.Line(lines[i]);
          break;
        case Kind::kTrouble:  // "Skipping build of project … because its dependency … has errors"
          if (kept_other++ < kMaxOtherErrorLines) out.Line(lines[i]);
          break;
        case Kind::kProjects:
          if (project_lines <= kMaxProjectList + 1) out.Line(lines[i]);
          break;
        case Kind::kOther:
          if (kept_other < kMaxOtherErrorLines && LooksLikeToolErrorLine(lines[i])) {
            out.Line(lines[i]);
            ++kept_other;
          }
          break;
        default:
          break;
      }
      ++i;
    }
    out.ElidedLines(frame_lines, frame_lines == 1 ? "code-frame line omitted"
                                                  : "code-frame lines omitted");
    out.ElidedLines(chain_repeats, chain_repeats == 1
                                       ? "message line omitted, shown above for another error"
                                       : "message lines omitted, each shown above for another error");
    // What is left: layout, progress, and the "Errors  Files" table (it repeats, per file,
    // what is shown).
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min<uint64_t>(rest, totals.size());
    out.Omitted(rest, "other line", "other lines");
    out.Lines(totals);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, errors > 0};
  }

 private:
  // The header, the message chain and related locations (the code frame's source lines and
  // underlines go: the file has them, the header says where); long ones keep their first and
  // last lines. Returns the number of code-frame lines dropped.
  // With `chain_shown`, a message line in it is counted in `*repeats` instead of shown.
  static uint64_t WriteDiagnostic(const std::vector<std::string_view>& lines,
                                  const std::vector<Kind>& kinds, const Diagnostic& d,
                                  SummaryWriter& out,
                                  std::unordered_set<std::string_view>* chain_shown = nullptr,
                                  uint64_t* repeats = nullptr) {
    out.Line(lines[d.begin]);
    std::vector<std::string_view> kept;
    uint64_t frames = 0;
    for (size_t j = d.begin + 1; j < d.end; ++j) {
      Kind k = kinds[j];
      if (k == Kind::kMessage && chain_shown != nullptr &&
          !chain_shown->insert(Strip(lines[j])).second) {
        ++*repeats;
      } else if (k == Kind::kMessage) {
        kept.push_back(lines[j]);
      } else if (k == Kind::kSource || k == Kind::kFrame) {
        ++frames;
      }
    }
    if (kept.size() <= kMaxDiagnosticLines) {
      out.Lines(kept);
    } else {
      const size_t head = kMaxDiagnosticLines - 4, tail = 3;
      for (size_t j = 0; j < head; ++j) out.Line(kept[j]);
      size_t skipped = kept.size() - head - tail;
      out.ElidedLines(skipped, skipped == 1 ? "more line of this diagnostic omitted"
                                            : "more lines of this diagnostic omitted");
      for (size_t j = kept.size() - tail; j < kept.size(); ++j) out.Line(kept[j]);
    }
    return frames;
  }

  // No error in the output: a clean run — or, through `head` (`cut_by_head`), none in what it
  // let through, tsc's errors and totals coming at the end.
  static core::ShapeOutput Success(const std::vector<std::string_view>& lines, const Parse& p,
                                   const std::string& tool, bool cut_by_head, SummaryWriter& out) {
    out.Header(StrCat(tool,
                      cut_by_head
                          ? ": shown through head (its end may be cut); no errors in what it shows"
                          : ": no errors",
                      p.watch ? " (watch mode)" : ""));
    std::vector<std::string_view> other;
    for (size_t i = p.first; i < lines.size(); ++i) {
      if (p.kinds[i] == Kind::kOther) other.push_back(lines[i]);
    }
    if (p.first > 0) {
      out.ElidedLines(p.first, "lines of earlier watch-mode compilations omitted");
    }
    // Whatever else the command printed (--listFiles, --showConfig, --version…): its head
    // and tail.
    if (other.size() <= kMaxSuccessLines) {
      out.Lines(other);
    } else {
      const size_t head = 10, tail = 10;
      for (size_t k = 0; k < head; ++k) out.Line(other[k]);
      out.ElidedLines(other.size() - head - tail, "lines omitted");
      for (size_t k = other.size() - tail; k < other.size(); ++k) out.Line(other[k]);
    }
    out.Omitted(out.UnaccountedLines(), "line of progress or layout",
                "lines of progress and layout");
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeTypescriptShaper() { return std::make_shared<TypescriptShaper>(); }

}  // namespace plugline::builtin

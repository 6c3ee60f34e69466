// builtin-generic: for output no other shaper recognizes. It cannot know what matters, so it
// keeps the head (where commands announce what they do), the tail (where they say how it
// ended) and, from the middle, lines that look like trouble (errors, failures, exceptions)
// and a few section headings, each with one line of context (or the location it belongs to,
// printed a few lines above it); runs of identical lines, and of lines alike but for their
// numbers (a download's progress), are folded; everything else is
// counted. A long listing (`ls -l`) keeps every entry, the columns most entries share said once.
#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/leak_report.h"
#include "core/json.h"
#include "core/output_window.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

// Head and tail: an eighth of the output each, between 10 and 30 lines.
constexpr size_t kMinEdgeLines = 10;
constexpr size_t kHeadLines = 30;
constexpr size_t kTailLines = 30;
constexpr size_t kMaxTroubleLines = 100;
constexpr size_t kMaxHeadingLines = 20;
constexpr size_t kLocatedTroubleLines = 30;
constexpr size_t kMaxWarningLines = 20;
// Below this many hidden lines eliding is not worth it: the output is shown raw...
constexpr size_t kMinHiddenLines = 10;
// ...unless the output is this large anyway.
constexpr size_t kHugeOutputBytes = 64 * 1024;
// ...or has this many lines of a library's stack frames.
constexpr size_t kMinLibraryFrameLines = 3;
// A Terraform plan shows this many of a resource's changed attributes (" -> "), the others
// counted.
constexpr size_t kPlanChangedLines = 8;
// A long listing of this many entries or more has its shared columns said once.
constexpr size_t kMinListingEntries = 8;
// A tree drawing shows its levels from the top while they fit in this many entries.
constexpr size_t kTreeEntries = 60;
// A recursive listing shows this many entries in all, spread over its folders, and at least
// kFolderEntries of each.
constexpr size_t kListedEntries = 120;
constexpr size_t kFolderEntries = 3;
// A recursive listing of more folders shows those of its top levels that fit in this many,
// the deeper ones counted under them (of more at its top level: its head and tail).
constexpr size_t kListedFolders = 60;
// An indented JSON document shows this many of an array's items (fewer when they are objects
// or arrays themselves), and this many of an object's members.
constexpr size_t kJsonItems = 5;
constexpr size_t kJsonContainerItems = 3;
constexpr size_t kJsonMembers = 30;
// A JSON document printed compact (a line or a few) of more bytes than this is cut the same
// way, and its strings to this many bytes.
constexpr size_t kCompactJsonBytes = 2048;
constexpr size_t kCompactJsonLines = 3;
constexpr size_t kJsonStringBytes = 240;

// A line of a long listing (`ls -l`, `ls -la`, `ls -lR`): its mode, owner and group (the
// columns entries share) and its size, date and name (its own); its link count between.
struct ListingEntry {
  std::string shared;    // "-rw-r--r-- root root"
  std::string_view own;  // "  3026 Dec  4 23:00 bats_failing.out"
};
std::optional<ListingEntry> ParseListingEntry(std::string_view line) {
  if (line.size() < 12 || std::string_view("-dlcbpsD").find(line[0]) == std::string_view::npos) {
    return std::nullopt;
  }
  for (size_t i = 1; i < 10; ++i) {
    if (std::string_view("rwxsStT-").find(line[i]) == std::string_view::npos) return std::nullopt;
  }
  // The fields after the mode: links, owner, group, then the size (or a device's "8, 1").
  size_t at = 10;
  if (at < line.size() && (line[at] == '.' || line[at] == '+' || line[at] == '@')) ++at;
  std::string_view fields[3];
  for (std::string_view& field : fields) {
    const size_t begin = line.find_first_not_of(' ', at);
    if (begin == std::string_view::npos || begin == at) return std::nullopt;
    at = line.find(' ', begin);
    if (at == std::string_view::npos) return std::nullopt;
    field = line.substr(begin, at - begin);
  }
  if (fields[0].find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  const size_t size = line.find_first_not_of(' ', at);
  if (size == std::string_view::npos || !std::isdigit(static_cast<unsigned char>(line[size]))) {
    return std::nullopt;
  }
  return ListingEntry{StrCat(line.substr(0, 10), " ", fields[1], " ", fields[2]), line.substr(at)};
}

// "Disassembly of section .text:", "Section headers:", "Summary:": a short line at the left
// margin that announces what follows.
bool IsHeading(std::string_view line) {
  const unsigned char first = static_cast<unsigned char>(line.empty() ? ' ' : line[0]);
  return line.size() >= 4 && line.size() <= 80 && line.back() == ':' && std::isalpha(first) &&
         line.find(' ') != std::string_view::npos;
}

// A line that warns: "WARNING:" or "warning:" (any of them where a word starts), "[WARN]".
bool IsWarningLine(std::string_view line) {
  line = line.substr(0, 1024);
  for (std::string_view word : {"WARNING:", "warning:", "Warning:", "[WARN]", "[WARNING]"}) {
    for (size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1)) {
      if (at == 0 || !std::isalnum(static_cast<unsigned char>(line[at - 1]))) return true;
    }
  }
  return false;
}

// A line of a shell's execution trace (`set -x`, `bash -x`): "+ cmd", "++ cmd" (PS4's "+").
bool IsTraceLine(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] == '+') ++i;
  return i > 0 && i < line.size() && line[i] == ' ';
}

// An entry a tool marks as a problem in its tree: npm's "UNMET DEPENDENCY x@^1" (an optional
// one missing is not), "x@1.0.0 invalid: …", "x@1.0.0 extraneous", "missing"; tree's
// "[error opening dir]".
// A mark is a word after the entry's name: "x@1.0.0 invalid: …", not a file named
// "missing_deps.py" or "missing".
bool IsTreeProblem(std::string_view line) {
  if (line.find("UNMET OPTIONAL DEPENDENCY") == std::string_view::npos &&
      line.find("UNMET DEPENDENCY") != std::string_view::npos) {
    return true;
  }
  if (line.find("[error opening") != std::string_view::npos) return true;
  // Where the entry starts: past the drawing ("│   ├── ", "|   +--- ", "`-- ").
  size_t name = 0;
  while (name < line.size()) {
    const unsigned char c = static_cast<unsigned char>(line[name]);
    if (c == ' ' || c == '|' || c == '`' || c == '-' || c == '+' || c == '\\') {
      ++name;
    } else if (c == 0xE2 && name + 2 < line.size() &&
               (static_cast<unsigned char>(line[name + 1]) == 0x94 ||
                static_cast<unsigned char>(line[name + 1]) == 0x95)) {
      name += 3;  // a box-drawing character
    } else {
      break;
    }
  }
  for (std::string_view mark : {" invalid", " extraneous", " missing", " MISSING"}) {
    for (size_t at = line.find(mark, name); at != std::string_view::npos;
         at = line.find(mark, at + 1)) {
      const size_t end = at + mark.size();
      if (at > name && (end == line.size() || line[end] == ' ' || line[end] == ':' ||
                        line[end] == ',' || line[end] == ')')) {
        return true;
      }
    }
  }
  return false;
}

// Terraform's (and OpenTofu's) line naming a resource and what the plan does to it:
// "  # terraform_data.service[\"svc-1\"] will be created", "  # aws_instance.web must be
// replaced". The action, or empty.
std::string_view PlanAction(std::string_view line) {
  const std::string_view t = Trim(line);
  if (!t.starts_with("# ") || t.starts_with("# (")) return {};
  for (std::string_view action :
       {" will be created", " will be destroyed", " will be updated in-place", " must be replaced",
        " will be read during apply", " will be replaced, as requested",
        " will no longer be managed by Terraform"}) {
    if (t.ends_with(action)) return action.substr(1);
  }
  if (t.find(" has moved to ") != std::string_view::npos) return "has moved";
  return {};
}

// Its verdict: "Plan: 31 to add, 0 to change, 0 to destroy.", "No changes. Your infrastructure
// matches the configuration.", "Apply complete! Resources: 31 added, 0 changed, 0 destroyed.",
// "Destroy complete! Resources: 3 destroyed."
bool IsPlanVerdict(std::string_view line) {
  const std::string_view t = Trim(line);
  return (t.starts_with("Plan: ") && t.find(" to add, ") != std::string_view::npos) ||
         t.starts_with("No changes. ") || t.starts_with("Apply complete! Resources: ") ||
         t.starts_with("Destroy complete! Resources: ");
}

// A debugger's word that the program it ran was stopped by a signal: gdb's "Program received
// signal SIGSEGV, Segmentation fault." (of a core file, "Program terminated with signal …").
// gdb's own status is 0 whatever the program did (`gdb -batch -ex run -ex bt ./a.out`), so this
// line is the run's verdict. Empty when there is none.
std::string_view SignalStopLine(const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) {
    if (line.starts_with("Program received signal ") ||
        line.starts_with("Program terminated with signal ")) {
      return line;
    }
  }
  return {};
}

// git bisect's answer: "98e987652e2bd1e41c04ff0d70a17514bb885bfa is the first bad commit" (a
// bisect that ran to its end: `git bisect run`, the last `git bisect bad`). Its index, or npos.
size_t FirstBadCommitLine(const std::vector<std::string_view>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = Trim(lines[i]);
    const size_t hex = t.find_first_not_of("0123456789abcdef");
    if (hex >= 7 && hex != std::string_view::npos && t.substr(hex) == " is the first bad commit") {
      return i;
    }
  }
  return std::string_view::npos;
}

// Whether the output ends the way a program that died of an uncaught exception ends: Python's
// traceback with its exception the last line ("ValueError: …"); Node's stack and its closing
// "Node.js v20.11.0"; a JVM's `Exception in thread "main"` with its frames last; a Go panic
// and "exit status 2".
bool EndsWithUncaughtException(const std::vector<std::string_view>& lines) {
  size_t last = lines.size();
  while (last > 0 && Trim(lines[last - 1]).empty()) --last;
  if (last == 0) return false;
  const std::span<const std::string_view> shown(lines.data(), last);
  auto any_line = [&](auto is) { return std::any_of(shown.begin(), shown.end(), is); };
  const std::string_view end_line = lines[last - 1];
  const std::string_view end = Trim(end_line);
  if (end.starts_with("Node.js v")) {
    return any_line([](std::string_view l) { return Trim(l).starts_with("at "); });
  }
  if (end.starts_with("exit status ")) {
    return any_line([](std::string_view l) { return l.starts_with("panic: "); });
  }
  if (end_line.starts_with("\t") &&
      (end.starts_with("at ") || (end.starts_with("... ") && end.ends_with(" more")))) {
    return any_line([](std::string_view l) { return l.starts_with("Exception in thread \""); });
  }
  const std::string_view name = end.substr(0, end.find(':'));
  const bool exception =
      end.size() == end_line.size() && !name.empty() &&
      std::all_of(name.begin(), name.end(),
                  [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
                  }) &&
      (name.ends_with("Error") || name.ends_with("Exception") || name.ends_with("Interrupt"));
  // (Its "Traceback (most recent call last):" may be cut off above: a frame is enough.)
  return exception && any_line([](std::string_view l) {
           return l == "Traceback (most recent call last):" || l.starts_with("  File \"");
         });
}

// An apply's progress: "terraform_data.service[\"svc-1\"]: Creating...", "…: Creation complete
// after 0s [id=…]", "…: Still destroying... [10s elapsed]".
bool IsApplyProgress(std::string_view line) {
  const size_t colon = line.find("]: ") != std::string_view::npos ? line.find("]: ") + 1
                                                                   : line.find(": ");
  if (colon == std::string_view::npos) return false;
  const std::string_view address = line.substr(0, colon);
  if (address.find(' ') != std::string_view::npos || address.find('.') == std::string_view::npos) {
    return false;
  }
  const std::string_view what = line.substr(colon + 2);
  for (std::string_view word :
       {"Creating...", "Creation complete", "Destroying...", "Destruction complete",
        "Modifying...", "Modifications complete", "Reading...", "Read complete",
        "Still creating...", "Still destroying...", "Still modifying...", "Refreshing state..."}) {
    if (what.starts_with(word)) return true;
  }
  return false;
}

// "FAILED (exit 1), " for a header, from the note ShapeAny has (which says "exit 0" of a success,
// left out).
std::string FailurePrefix(std::string_view note) {
  return note.empty() || note == "exit 0" ? std::string() : StrCat(note, ", ");
}

// rustfmt's (`cargo fmt --check`) heading of a place it would change: "Diff in /w/src/a.rs:14:"
// (older: "Diff in /w/src/a.rs at line 14:"). The path, or empty.
std::string_view FormatterDiffHeading(std::string_view line) {
  if (!line.starts_with("Diff in ") || !line.ends_with(":")) return {};
  std::string_view where = line.substr(8, line.size() - 9);
  if (const size_t at = where.rfind(" at line "); at != std::string_view::npos) {
    where = where.substr(0, at);
  } else if (const size_t colon = where.rfind(':');
             colon != std::string_view::npos && colon + 1 < where.size() &&
             where.substr(colon + 1).find_first_not_of("0123456789") == std::string_view::npos) {
    where = where.substr(0, colon);
  } else {
    return {};
  }
  return where.find_first_of("./") == std::string_view::npos ? std::string_view() : where;
}

// `ls -R`, `ls -laR`, `ls --recursive` (dir and vdir too): a recursive listing, a folder at a
// time. Other tools print headings that end with ':' after a blank line too (objdump's
// "Disassembly of section .text:").
bool ListsRecursively(std::string_view command) {
  const std::string tool = ToolName(command);
  if (tool != "ls" && tool != "dir" && tool != "vdir") return false;
  for (const std::string& arg : ToolArgs(command)) {
    if (arg == "--recursive") return true;
    if (arg.size() > 1 && arg[0] == '-' && arg[1] != '-' && arg.find('R') != std::string::npos) {
      return true;
    }
  }
  return false;
}

class GenericShaper final : public core::Shaper {
 public:
  GenericShaper() {
    meta_.id = "builtin-generic";
    meta_.name = "generic";
    meta_.version = "1.0.0";
    meta_.description =
        "Any output: the first and last 30 lines and the error lines between, the rest counted";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "generic";
    meta_.priority = 0;
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view, std::string_view,
                                          std::optional<int>) override {
    return core::MatchResult{true, 0.1, {"fallback for any output"}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    // Named as the outcome line names it: "npm start", "go run", "npm run dev".
    return ShapeAny(output, context, core::CommandLabel(context.command));
  }

  // For ShapeTreeDrawing: another shaper's output that is a tree drawing.
  static std::optional<core::ShapeOutput> Tree(const std::vector<std::string_view>& lines,
                                               const core::ShapeContext& context,
                                               const std::string& tool) {
    return ShapeTree(lines, context, tool);
  }

  static core::ShapeOutput ShapeAny(std::string_view output, const core::ShapeContext& context,
                                    const std::string& tool) {
    std::vector<std::string_view> lines = core::SplitLines(output);
    // Few lines show as they are — unless they are huge (a minified bundle, binary data, one
    // 50 MB line): then the long lines are cut.
    const bool huge_lines = output.size() > kHugeOutputBytes;
    // A file's source printed (`cat src/a.py`, `sed -n 40,90p a.go`), or the data a command was
    // run for (`sqlite3 app.db 'select …'`, `jq … a.json`, `printenv`): what was asked for is
    // the text, shown as it is, up to the pipeline's token budget, which keeps its first lines
    // (core/summary_budget.h FitHeadToBudget) — unless its lines are huge (a minified bundle).
    if ((core::PrintsSourceFile(context.command) || core::FetchesData(context.command)) &&
        std::none_of(lines.begin(), lines.end(),
                     [](std::string_view line) { return line.size() > kMaxLineBytes; })) {
      return core::ShapeOutput{"", RenderMode::kRaw};
    }
    if (!context.raw_path.empty() && !huge_lines) {
      SummaryWriter listing_out(&lines);
      std::string note = FailureNote(context.command, context.exit_code);
      if (std::optional<std::string> listing =
              ShapeListing(lines, tool, note, listing_out)) {
        return core::ShapeOutput{std::move(*listing), RenderMode::kSummary};
      }
    }
    // A tree's lines are short, and what it shows of them bounded, however large it is.
    if (std::optional<core::ShapeOutput> tree = ShapeTree(lines, context, tool)) {
      return std::move(*tree);
    }
    if (!context.raw_path.empty() && lines.size() <= kCompactJsonLines &&
        output.size() > kCompactJsonBytes) {
      SummaryWriter json_out(&lines);
      if (std::optional<std::string> json =
              ShapeCompactJson(output, lines, tool, FailureNote(context.command, context.exit_code),
                               json_out)) {
        return core::ShapeOutput{std::move(*json), RenderMode::kSummary};
      }
    }
    const size_t edge = std::clamp(lines.size() / 8, kMinEdgeLines, kHeadLines);
    if (context.raw_path.empty()) return core::ShapeOutput{"", RenderMode::kRaw};
    // A program that died of an uncaught exception, its status not its own (`python app.py
    // 2>&1 | tail -20`) or not known: said first, shown raw or not.
    // Or, its status 0 or not known, one a debugger says a signal stopped.
    const bool uncaught = (!context.exit_code || StatusIsAFilters(context.command)) &&
                          EndsWithUncaughtException(lines);
    const std::string_view signal = !uncaught && context.exit_code.value_or(0) == 0
                                        ? SignalStopLine(lines)
                                        : std::string_view();
    const bool died = uncaught || !signal.empty();
    std::string note = FailureNote(context.command, context.exit_code);
    if (note.empty() && context.exit_code) note = ExitZeroNote(context.command);
    std::string_view how = Trim(signal);
    if (how.ends_with('.')) how.remove_suffix(1);
    const std::string died_header =
        StrCat(tool.empty() ? "output" : tool, ": FAILED — ",
               how.empty() ? "it ended with an uncaught exception" : how,
               note.empty() ? "" : StrCat(" (", note, ")"));
    // Lines that read like errors in an output whose 0 is a filter's (`gfortran a.f90 2>&1 |
    // tail -20`, `terraform validate | tail`): that status says nothing of the run, and these
    // lines may be all it says of a failure, so the header counts them first.
    const size_t error_lines =
        !died && context.exit_code == 0 && StatusIsAFilters(context.command)
            ? static_cast<size_t>(std::count_if(lines.begin(), lines.end(), LooksLikeErrorLine))
            : 0;
    const std::string errors_header = StrCat(
        tool.empty() ? "output" : tool, ": ", core::FormatCount(error_lines),
        error_lines == 1 ? " line reads like an error (" : " lines read like errors (", note, ")");
    std::vector<bool> library = LibraryFrameLines(lines);
    // Counted like those frames: a sanitizer's shadow map, runs of hex bytes.
    const std::vector<bool> shadow_map = ShadowMapLines(lines);
    const std::vector<bool> hex_bytes = HexBytesLines(lines);
    size_t shown = 0;  // the lines a short output shows: one for each run counted
    for (size_t i = 0; i < lines.size(); ++i) {
      library[i] = library[i] || shadow_map[i] || hex_bytes[i];
      shown += !library[i] || i == 0 || !library[i - 1] ? 1 : 0;
    }
    const bool short_output =
        (shown < 2 * edge + kMinHiddenLines || IsSmallTable(lines, output.size())) && !huge_lines;
    if (short_output) {
      // A short output is shown as it is, but for runs of a library's stack frames under an
      // error (node:internal's, site-packages', the JDK's): those are counted, when they are
      // worth it. A frame alone is not: its line costs what a count would.
      size_t in_runs = 0;
      for (size_t i = 0; i < library.size(); ++i) {
        const bool alone =
            (i == 0 || !library[i - 1]) && (i + 1 == library.size() || !library[i + 1]);
        in_runs += library[i] && !alone ? 1 : 0;
      }
      if (in_runs < kMinLibraryFrameLines) {
        if (error_lines > 0) return core::ShapeOutput{errors_header, RenderMode::kRaw, true};
        return core::ShapeOutput{died ? died_header : "", RenderMode::kRaw, died};
      }
    }
    SummaryWriter out(&lines);
    // Shaped from a window (core/output_window.h), the output has more lines than it shows.
    const uint64_t total_lines = std::max<uint64_t>(lines.size(), context.output_lines);
    if (std::optional<std::string> diffs = ShapeFormatterDiffs(lines, tool, note, out)) {
      return core::ShapeOutput{std::move(*diffs), RenderMode::kSummary};
    }
    if (std::optional<std::string> plan = ShapePlan(lines, tool, note, out)) {
      return core::ShapeOutput{std::move(*plan), RenderMode::kSummary};
    }
    if (std::optional<std::string> listing = ShapeRecursiveListing(
            lines, tool, note, total_lines, /*path_headings=*/!ListsRecursively(context.command),
            out)) {
      return core::ShapeOutput{std::move(*listing), RenderMode::kSummary};
    }
    if (std::optional<std::string> json = ShapeJson(output, lines, tool, note, total_lines, out)) {
      return core::ShapeOutput{std::move(*json), RenderMode::kSummary};
    }
    if (std::optional<std::string> leaks = ShapeLeakReport(lines, tool, note, total_lines, out)) {
      return core::ShapeOutput{std::move(*leaks), RenderMode::kSummary};
    }
    // A part of a tool's output the command chose by its place (`du -sh * | sort -h | tail
    // -30`, `xxd a.bin | head -40`), read as none of the above: its size is the agent's, shown
    // whole (the budget holding) — unless its lines read like trouble, which a summary names
    // first.
    if (CutByCommand(context.command) && !huge_lines && !died &&
        std::none_of(lines.begin(), lines.end(),
                     [](std::string_view line) { return LooksLikeErrorLine(line); })) {
      return core::ShapeOutput{"", RenderMode::kRaw};
    }
    // A bisect's answer heads it, with the commit's header and subject under it kept.
    const size_t first_bad = FirstBadCommitLine(lines);
    const std::string answer =
        first_bad == std::string_view::npos ? "" : StrCat(Trim(lines[first_bad]), ", ");
    out.Header(died ? StrCat(died_header, ", ", core::FormatCount(total_lines), " lines")
               : error_lines > 0
                   ? StrCat(errors_header, ", ", core::FormatCount(total_lines), " lines")
                   : StrCat(tool.empty() ? "output" : tool, ": ", answer,
                            note.empty() ? "" : StrCat(note, ", "), core::FormatCount(total_lines),
                            " lines"));
    // A shell's trace (a third or more of the lines "+ cmd"): what the script itself printed
    // is what it has to say; the commands it ran are counted.
    // From the middle: trouble first, and a few headings that show the output's structure.
    size_t headings = 0;
    // One pass for what the keeping needs to know of all the lines:
    //  - how many are a shell's trace;
    //  - the frames in the user's code, and the source line Python prints under each;
    //  - how many lines warn: a few are kept too ("configure: WARNING: libsodium is unavailable;
    //    building WITHOUT encryption support"), many are counted with the other lines;
    //  - how many read like trouble, and how many of those start with a location: when many do,
    //    nearly all located (a checker's diagnostics), the first kLocatedTroubleLines are kept as
    //    printed and the others listed by their locations (WriteHeadTail), which say where each
    //    one is in fewer tokens.
    absl::flat_hash_set<const char*> frames;  // where each such line starts
    size_t trace = 0, warnings = 0, trouble = 0, located = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view line = lines[i];
      trace += IsTraceLine(line) ? 1 : 0;
      warnings += IsWarningLine(line) ? 1 : 0;
      if (LooksLikeErrorLine(line)) {
        ++trouble;
        located += StartsWithLocation(line) ? 1 : 0;
      }
      if (!IsUserFrame(line)) continue;
      frames.insert(line.data());
      // Rust's "   4: rp::parse" and Go's "main.parse(...)" above their location.
      if (i > 0 && IsLocationUnderFunction(line)) frames.insert(lines[i - 1].data());
      const std::string_view next =
          i + 1 < lines.size() ? Trim(lines[i + 1].substr(FrameIndent(lines[i + 1]))) : "";
      if (Trim(line.substr(FrameIndent(line))).starts_with("File \"") && !next.empty() &&
          FrameIndent(lines[i + 1]) > FrameIndent(line) && !next.starts_with("File \"")) {
        frames.insert(lines[i + 1].data());
      }
    }
    if (first_bad != std::string_view::npos) {
      // "commit …", "Author: …", "Date: …", a blank line and the subject.
      for (size_t i = first_bad; i < lines.size() && i <= first_bad + 5; ++i) {
        frames.insert(lines[i].data());
      }
    }
    const bool traced = trace * 3 >= lines.size();
    const bool few_warnings = warnings <= kMaxWarningLines;
    auto keep = [&headings, &frames, traced, few_warnings](std::string_view line) {
      if (LooksLikeErrorLine(line) || core::IsWindowGapLine(line)) return true;
      if (EndsWithLineLocation(line)) return true;  // a diagnostic, where it is said last
      // Or first, in words no error word is among: TeX's "./thesis.tex:27: Undefined control
      // sequence." (Not a location alone, gfortran's "stats.f90:13:6:": its message, lines
      // below, brings it.)
      if (StartsWithLocation(line) && !Trim(line).ends_with(':')) return true;
      if (few_warnings && IsWarningLine(line)) return true;
      if (frames.contains(line.data())) return true;
      if (traced && !IsTraceLine(line) && !Trim(line).empty()) return true;
      if (headings < kMaxHeadingLines && IsHeading(line)) {
        ++headings;
        return true;
      }
      return false;
    };
    const size_t cap = trouble > kMaxTroubleLines && located * 5 >= trouble * 4
                           ? kLocatedTroubleLines
                           : kMaxTroubleLines + kMaxHeadingLines;
    // A library's stack frames, wherever a trace is (a Python script's uncaught exception is
    // the whole output): counted in the head and the tail too, with what each one's frame
    // brings under it (the code Python prints, its carets; the line naming a Rust or Go
    // frame's function, above its location).
    const bool any_library = std::find(library.begin(), library.end(), true) != library.end();
    WriteHeadTail(lines, short_output ? lines.size() : edge,
                  short_output ? 0 : std::min(edge, kTailLines), keep, cap, out,
                  any_library ? &library : nullptr);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, died || error_lines > 0};
  }

 private:
  // A formatter's check that prints what it would change (rustfmt: `cargo fmt --check`), a
  // heading per place (FormatterDiffHeading) and the lines it would remove and add under it:
  // every heading kept, the first places' lines shown up to kFormatterDiffLines in all (what
  // the formatter does), the others' counted. Nullopt when it is no such output.
  static std::optional<std::string> ShapeFormatterDiffs(const std::vector<std::string_view>& lines,
                                                        std::string_view tool,
                                                        std::string_view note, SummaryWriter& out) {
    constexpr size_t kFormatterDiffLines = 40;
    size_t places = 0, others = 0;
    absl::flat_hash_set<std::string_view> files;
    for (std::string_view line : lines) {
      if (const std::string_view file = FormatterDiffHeading(line); !file.empty()) {
        ++places;
        files.insert(file);
      } else if (!line.empty() && line[0] != ' ' && line[0] != '+' && line[0] != '-') {
        ++others;
      }
    }
    if (places == 0 || others * 10 > lines.size()) return std::nullopt;
    out.Header(StrCat(tool.empty() ? "output" : tool, ": ", FailurePrefix(note),
                      core::FormatCount(places), places == 1 ? " place" : " places", " in ",
                      core::FormatCount(files.size()), files.size() == 1 ? " file" : " files",
                      " it would format differently; the first places' changes shown, every "
                      "place's heading"));
    size_t shown = 0;
    uint64_t hidden = 0;
    bool showing = true;
    for (std::string_view line : lines) {
      if (!FormatterDiffHeading(line).empty()) {
        showing = shown < kFormatterDiffLines;
        out.Line(line);
        continue;
      }
      if (showing && shown < kFormatterDiffLines) {
        out.Line(line);
        ++shown;
      } else {
        ++hidden;
      }
    }
    out.ElidedLines(hidden, hidden == 1 ? "line of the changes omitted"
                                        : "lines of the changes omitted");
    return out.Take();
  }

  // A Terraform (or OpenTofu) plan, or an apply that shows one (PlanAction lines, and its verdict,
  // IsPlanVerdict): every resource's line with what the plan does to it and the reason under it
  // ("# (because key [\"svc-1\"] is not in for_each map)"); of a resource it changes, the
  // attributes that change (" -> ", "# forces replacement"), up to kPlanChangedLines, the
  // others counted; what a resource created or destroyed gets is counted. The verdict, the
  // lines that read like trouble or warn, and the headings ("Changes to Outputs:",
  // "Outputs:") are kept; an apply's progress lines, the outputs' values and the other lines
  // counted. Nullopt when it is no plan.
  static std::optional<std::string> ShapePlan(const std::vector<std::string_view>& lines,
                                              std::string_view tool, std::string_view note,
                                              SummaryWriter& out) {
    size_t resources = 0, applied = 0;
    std::string_view verdict;
    for (std::string_view line : lines) {
      resources += PlanAction(line).empty() ? 0 : 1;
      applied += IsApplyProgress(line) ? 1 : 0;
      if (IsPlanVerdict(line)) verdict = Trim(line);
    }
    // An apply whose plan was cut off (`terraform apply -auto-approve | tail -80`): its
    // progress lines and its verdict. A plan cut off above its verdict (`terraform plan | tail
    // -50`): its verdict, the rest counted.
    if (verdict.empty() ||
        (resources == 0 && applied == 0 && !(verdict.starts_with("Plan: ") && lines.size() > 30))) {
      return std::nullopt;
    }
    out.Header(StrCat(
        tool.empty() ? "terraform" : tool, ": ", FailurePrefix(note), verdict,
        resources == 0 && applied == 0
            ? " (the resources' lines are cut off above: the changes left shown, the rest counted)"
        : resources == 0 ? " (no plan in the output: what was applied, counted)"
                         : StrCat(" (", core::FormatCount(resources),
                                  resources == 1 ? " resource" : " resources",
                                  ": what the plan does to each, and the attributes it "
                                  "changes)")));
    uint64_t attributes = 0, progress = 0, changed_left = 0;
    // Of the resource whose lines these are; above the first resource's line, one whose line
    // was cut off (`terraform plan | tail -80`), its changes kept as any.
    constexpr std::string_view kCutOff = "cut off";
    std::string_view action = kCutOff;
    size_t changed = 0;
    bool outputs = false;  // in "Changes to Outputs:" or "Outputs:"
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view line = lines[i];
      const std::string_view t = Trim(line);
      if (const std::string_view a = PlanAction(line); !a.empty()) {
        out.Line(line);
        action = a;
        changed = 0;
        outputs = false;
        // Why ("# (because …)", "# (moved from …)"), right under it.
        while (i + 1 < lines.size() && Trim(lines[i + 1]).starts_with("# (")) out.Line(lines[++i]);
        continue;
      }
      if (IsPlanVerdict(line) || t == "Changes to Outputs:" || t == "Outputs:") {
        out.Line(line);
        action = {};
        outputs = t == "Changes to Outputs:" || t == "Outputs:";
        continue;
      }
      if (IsApplyProgress(line)) {
        ++progress;
        continue;
      }
      if (LooksLikeErrorLine(line) || IsWarningLine(line)) {
        out.Line(line);
        continue;
      }
      if (action.empty() || outputs || t.empty()) continue;  // counted with the other lines
      const bool changes = (t.find(" -> ") != std::string_view::npos &&
                            !t.ends_with(" -> null") && !t.ends_with("-> (known after apply)")) ||
                           t.ends_with("# forces replacement");
      if (changes && action != "will be created" && action != "will be destroyed") {
        if (changed++ < kPlanChangedLines) {
          out.Line(line);
        } else {
          ++changed_left;
        }
        continue;
      }
      if (action == kCutOff) continue;  // above the first resource: counted with the other lines
      ++attributes;
    }
    out.ElidedLines(changed_left, changed_left == 1 ? "more changed attribute omitted"
                                                    : "more changed attributes omitted");
    out.ElidedLines(attributes, attributes == 1 ? "line of the resources' attributes omitted"
                                                : "lines of the resources' attributes omitted");
    out.ElidedLines(progress, progress == 1 ? "progress line omitted" : "progress lines omitted");
    out.Omitted(out.UnaccountedLines(), "other line", "other lines");
    return out.Take();
  }

  // A long listing (`ls -l`, `ls -la`, `ls -lR`, most of its lines entries): every entry kept.
  // The mode, owner and group most entries share are said once in the header; an entry that
  // has them is its size, date and name (`3026 Dec  4 23:00 bats_failing.out`: its link count
  // left out), the others as printed, as are the lines that are no entry (`total 2696`,
  // `./src:`).
  static std::optional<std::string> ShapeListing(const std::vector<std::string_view>& lines,
                                                 std::string_view tool, std::string_view note,
                                                 SummaryWriter& out) {
    std::vector<std::optional<ListingEntry>> entries(lines.size());
    absl::flat_hash_map<std::string, size_t> counts;  // by shared columns
    size_t n = 0, other = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      entries[i] = ParseListingEntry(lines[i]);
      if (entries[i]) {
        ++n;
        ++counts[entries[i]->shared];
      } else if (!Trim(lines[i]).empty() && !Trim(lines[i]).starts_with("total ") &&
                 !Trim(lines[i]).ends_with(":")) {
        ++other;
      }
    }
    if (n < kMinListingEntries || other * 10 > n) return std::nullopt;
    std::string common;
    size_t most = 0;
    for (const auto& [k, c] : counts) {
      if (c > most || (c == most && k < common)) {
        common = k;
        most = c;
      }
    }
    out.Header(StrCat(tool.empty() ? "ls" : tool, ": ", note.empty() ? "" : StrCat(note, ", "),
                      core::FormatCount(n), " entries; ", core::FormatCount(most),
                      " of them ", common, ", shown as size, date and name (link counts left out)"));
    for (size_t i = 0; i < lines.size(); ++i) {
      if (entries[i] && entries[i]->shared == common) {
        out.Composed(Trim(entries[i]->own), {lines[i]});
      } else if (!Trim(lines[i]).empty()) {
        out.Line(lines[i]);
      }
    }
    return out.Take();
  }

  // A recursive listing (`ls -R`, ListsRecursively: a folder's heading, "./src/lib:", then its
  // entries and a blank line; 3 folders at least, nine in ten of the lines that are not blank
  // a heading or an entry): every folder's heading with its first entries, kListedEntries in
  // all spread over the folders (kFolderEntries of each at least), the others counted under
  // them ("… 44 more entries"); an entry that reads like trouble ("ls: cannot open directory
  // './x': Permission denied") is shown past the cap. Of more than kListedFolders folders, the
  // top levels that fit in kListedFolders (the first at least): the folders deeper down, which
  // ls lists right after their ancestor, counted in its place ("… 48 folders under it, 913
  // entries"). Nullopt when it is no such listing, or more than kListedFolders folders are at
  // its top level.
  static std::optional<std::string> ShapeRecursiveListing(
      const std::vector<std::string_view>& lines, std::string_view tool, std::string_view note,
      uint64_t total_lines, bool path_headings, SummaryWriter& out) {
    // Without a command that lists (a script ran it), the headings must read as folders:
    // "./src/lib:", "/usr/lib:", "src/x:" — no spaces, unless from "./" or "/" (objdump's
    // "0000000000001139 <main>:" under a blank line is none).
    auto folder_like = [](std::string_view path) {
      return path.starts_with("./") || path.starts_with("/") || path == "." ||
             path.find(' ') == std::string_view::npos;
    };
    auto heading_at = [&lines, path_headings, &folder_like](size_t i) {
      const std::string_view line = lines[i];
      return line.size() > 1 && line.back() == ':' && (i == 0 || Trim(lines[i - 1]).empty()) &&
             line.find(": ") == std::string_view::npos && !LooksLikeErrorLine(line) &&
             (!path_headings || folder_like(line.substr(0, line.size() - 1)));
    };
    // A folder's depth: the slashes in its path ("./src/lib", "/usr/lib/x/" as "/usr/lib/x").
    auto depth_at = [&lines](size_t i) {
      std::string_view path = lines[i].substr(0, lines[i].size() - 1);
      while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
      return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
    };
    size_t folders = 0, entries = 0, other = 0, nested = 0;
    std::vector<size_t> at_depth;  // folders by depth, from the shallowest's
    size_t base = std::numeric_limits<size_t>::max();
    for (size_t i = 0; i < lines.size(); ++i) {
      if (Trim(lines[i]).empty()) continue;
      if (heading_at(i)) {
        ++folders;
        base = std::min(base, depth_at(i));
        nested += depth_at(i) > 0 ? 1 : 0;
        for (; i + 1 < lines.size() && !Trim(lines[i + 1]).empty(); ++i) ++entries;
      } else {
        ++other;
      }
    }
    if (folders < 3 || other * 10 > folders + entries) return std::nullopt;
    // ...and most of them folders in folders, as a recursive listing's are.
    if (path_headings && nested * 3 < folders * 2) return std::nullopt;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (Trim(lines[i]).empty() || !heading_at(i)) continue;
      const size_t d = depth_at(i) - base;
      if (at_depth.size() <= d) at_depth.resize(d + 1, 0);
      ++at_depth[d];
    }
    // Too many folders at the top (`ls -R */`): summarized as any output is, head and tail.
    if (at_depth[0] > kListedFolders) return std::nullopt;
    // The levels shown: from the top, while their folders fit (the first level at least).
    size_t levels = 1, shown_folders = at_depth[0];
    while (levels < at_depth.size() && shown_folders + at_depth[levels] <= kListedFolders) {
      shown_folders += at_depth[levels++];
    }
    const bool all = levels == at_depth.size();
    const size_t per_folder = std::max(kFolderEntries, kListedEntries / shown_folders);
    out.Header(StrCat(tool.empty() ? "output" : tool, ": ", note.empty() ? "" : StrCat(note, ", "),
                      core::FormatCount(total_lines), " lines, a recursive listing of ",
                      core::FormatCount(folders), " folders and ", core::FormatCount(entries),
                      " entries; ",
                      all                  ? StrCat("each folder's first ", per_folder, " shown")
                      : shown_folders == 1 ? StrCat("the first folder's first ", per_folder,
                                                    " shown, the folders under it counted")
                                           : StrCat("the ", core::FormatCount(shown_folders),
                                                    " folders of its top ", levels,
                                                    " levels with each one's first ", per_folder,
                                                    " shown, those under them counted")));
    uint64_t blank = 0;
    uint64_t under_folders = 0, under_entries = 0, under_lines = 0;  // deeper: not shown
    auto flush_under = [&] {
      if (under_folders == 0) return;
      out.Marker(StrCat(core::FormatCount(under_folders),
                        under_folders == 1 ? " folder" : " folders", " under it, ",
                        core::FormatCount(under_entries),
                        under_entries == 1 ? " entry" : " entries"),
                 under_lines);
      under_folders = under_entries = under_lines = 0;
    };
    for (size_t i = 0; i < lines.size(); ++i) {
      if (Trim(lines[i]).empty()) {
        ++blank;
        continue;
      }
      if (heading_at(i) && depth_at(i) - base >= levels) {
        // A folder below the levels shown: counted under the shown one it is in.
        ++under_folders;
        ++under_lines;
        for (; i + 1 < lines.size() && !Trim(lines[i + 1]).empty(); ++i) {
          const std::string_view entry = lines[i + 1];
          if (entry.find(": ") != std::string_view::npos && LooksLikeErrorLine(entry)) {
            flush_under();
            out.Line(entry);
          } else {
            ++under_entries;
            ++under_lines;
          }
        }
        continue;
      }
      flush_under();
      out.Line(lines[i]);
      if (!heading_at(i)) continue;
      size_t shown = 0, count = 0;
      while (i + 1 + count < lines.size() && !Trim(lines[i + 1 + count]).empty()) ++count;
      // One more than the cap is shown: its marker would be no shorter.
      const size_t cap = count == per_folder + 1 ? count : per_folder;
      uint64_t hidden = 0;
      for (; i + 1 < lines.size() && !Trim(lines[i + 1]).empty(); ++i) {
        // ls's own complaint reads "ls: cannot open directory './x': Permission denied"; a
        // name may read like trouble ("errno_saver.h") but holds no ": ".
        const std::string_view entry = lines[i + 1];
        if (shown < cap ||
            (entry.find(": ") != std::string_view::npos && LooksLikeErrorLine(entry))) {
          out.Line(lines[i + 1]);
          ++shown;
        } else {
          ++hidden;
        }
      }
      out.ElidedLines(hidden, hidden == 1 ? "more entry" : "more entries");
    }
    flush_under();
    out.Omitted(blank, "blank line", "blank lines");
    return out.Take();
  }

  // An indented JSON document (`curl -s …/api/orders`, `npm view express --json`, `gh api …`,
  // `kubectl get pods -o json`: one document that parses, a value or key per line, a container
  // opened at a line's end and closed at the next line's start at its level): its lines as
  // printed, an array's first kJsonItems items (kJsonContainerItems when they are objects or
  // arrays) and an object's first kJsonMembers members, each nested value the same way, the
  // others counted where they were ("… 275 more items"). Nullopt when it is no such document.
  static std::optional<std::string> ShapeJson(std::string_view output,
                                              const std::vector<std::string_view>& lines,
                                              std::string_view tool, std::string_view note,
                                              uint64_t total_lines, SummaryWriter& out) {
    const size_t first = output.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || (output[first] != '{' && output[first] != '[')) {
      return std::nullopt;
    }
    // Where each container closes, from the lines alone.
    constexpr size_t kNone = std::string_view::npos;
    std::vector<size_t> closes(lines.size(), kNone);
    std::vector<size_t> open;
    size_t root = kNone;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view t = Trim(lines[i]);
      if (t.empty()) continue;
      if (t[0] == '}' || t[0] == ']') {
        if (open.empty()) return std::nullopt;
        closes[open.back()] = i;
        open.pop_back();
        if (t.back() == '{' || t.back() == '[') return std::nullopt;  // "}, {": not one a line
        continue;
      } else if (open.empty() && root != kNone) {
        return std::nullopt;  // a second document
      }
      if (t.back() == '{' || t.back() == '[') {
        if (open.empty()) root = i;
        open.push_back(i);
      }
    }
    if (!open.empty() || root == kNone || closes[root] == kNone) return std::nullopt;
    if (!core::ParseJson(output, "output", core::DuplicateKeys::kLastWins).ok()) {
      return std::nullopt;
    }
    out.Header(StrCat(tool.empty() ? "output" : tool, ": ", note.empty() ? "" : StrCat(note, ", "),
                      core::FormatCount(total_lines), " lines of JSON; an array's first ",
                      kJsonItems, " items shown (", kJsonContainerItems,
                      " of objects or arrays), the others counted"));
    for (size_t i = 0; i < root; ++i) out.Line(lines[i]);
    WriteJsonContainer(lines, closes, root, out);
    for (size_t i = closes[root] + 1; i < lines.size(); ++i) out.Line(lines[i]);
    return out.Take();
  }

  // A JSON document printed compact (`curl -s …/api/orders`, `gh api … | jq -c .`: one that
  // parses, on kCompactJsonLines lines at most, of more than kCompactJsonBytes bytes): the
  // document as printed, but an array's first kJsonItems items (kJsonContainerItems when they
  // are objects or arrays), an object's first kJsonMembers members, each nested value the same
  // way, and each string's first kJsonStringBytes bytes; what is left out is counted in place
  // ("[{…}, {…}, {…}, … 397 more items]", "\"iVBORw0KG… 41,203 more bytes\""). Nullopt when
  // it is no such document.
  static std::optional<std::string> ShapeCompactJson(std::string_view output,
                                                     const std::vector<std::string_view>& lines,
                                                     std::string_view tool, std::string_view note,
                                                     SummaryWriter& out) {
    const size_t first = output.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || (output[first] != '{' && output[first] != '[')) {
      return std::nullopt;
    }
    if (!core::ParseJson(output, "output", core::DuplicateKeys::kLastWins).ok()) {
      return std::nullopt;
    }
    std::string text;
    CopyJsonValue(output, first, &text);
    // The lines it came from, each as a line of its own (the document's own line breaks).
    out.Header(StrCat(tool.empty() ? "output" : tool, ": ", note.empty() ? "" : StrCat(note, ", "),
                      "a JSON document of ", core::FormatBytes(output.size()),
                      "; an array's first ", kJsonItems, " items shown (", kJsonContainerItems,
                      " of objects or arrays), an object's first ", kJsonMembers,
                      " members, the others counted"));
    std::vector<std::string_view> from(lines.begin(), lines.end());
    for (std::string_view line : core::SplitLines(text)) out.Composed(line, from);
    return out.Take();
  }

  // The end of the JSON value at `i` of the valid document `t` (the index after it).
  static size_t SkipJsonValue(std::string_view t, size_t i) {
    if (t[i] == '"') {
      for (++i; i < t.size() && t[i] != '"'; ++i) {
        if (t[i] == '\\') ++i;
      }
      return i + 1;
    }
    if (t[i] == '{' || t[i] == '[') {
      size_t depth = 0;
      for (; i < t.size(); ++i) {
        const char c = t[i];
        if (c == '"') {
          i = SkipJsonValue(t, i) - 1;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          return i + 1;
        }
      }
      return i;
    }
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' &&
           t[i] != '\n' && t[i] != '\r' && t[i] != '\t') {
      ++i;
    }
    return i;
  }

  // Appends the JSON value at `i` of the valid document `t` to `out` as printed, its containers
  // and strings cut (ShapeCompactJson); returns the index after it.
  static size_t CopyJsonValue(std::string_view t, size_t i, std::string* out) {
    auto space = [&](size_t k) {  // copies the whitespace at k; the index after it
      const size_t e = std::min(t.size(), t.find_first_not_of(" \t\r\n", k));
      out->append(t.substr(k, e - k));
      return e;
    };
    const char c = t[i];
    if (c == '"') {
      const size_t end = SkipJsonValue(t, i);
      const size_t length = end - i - 2;
      if (length <= kJsonStringBytes + 40) {
        out->append(t.substr(i, end - i));
      } else {
        size_t cut = i + 1 + kJsonStringBytes;
        while (cut > i + 1 && (static_cast<unsigned char>(t[cut]) & 0xC0) == 0x80) --cut;
        if (t[cut - 1] == '\\') --cut;  // not half an escape
        out->append(t.substr(i, cut - i));
        StrAppend(out, "… ", core::FormatCount(end - 1 - cut), " more bytes\"");
      }
      return end;
    }
    if (c != '{' && c != '[') {
      const size_t end = SkipJsonValue(t, i);
      out->append(t.substr(i, end - i));
      return end;
    }
    const bool array = c == '[';
    const char close = array ? ']' : '}';
    out->push_back(c);
    i = space(i + 1);
    size_t cap = kJsonMembers;
    if (array) {
      const bool containers = i < t.size() && (t[i] == '{' || t[i] == '[');
      cap = containers ? kJsonContainerItems : kJsonItems;
    }
    // How many it has, and where it closes: one more than the cap is shown (its marker would
    // be no shorter).
    size_t count = 0;
    size_t closing = i;
    while (closing < t.size() && t[closing] != close) {
      ++count;
      if (!array) {
        closing = SkipJsonValue(t, closing);
        closing = t.find(':', closing) + 1;
        closing = t.find_first_not_of(" \t\r\n", closing);
      }
      closing = SkipJsonValue(t, closing);
      closing = t.find_first_not_of(" \t\r\n", closing);
      if (closing < t.size() && t[closing] == ',') {
        closing = t.find_first_not_of(" \t\r\n", closing + 1);
      }
    }
    const size_t shown = count <= cap + 1 ? count : cap;
    for (size_t n = 0; n < count; ++n) {
      if (n == shown) {
        i = closing;  // the rest, up to the closing bracket, counted
        StrAppend(out, "… ", core::FormatCount(count - shown), " more ",
                  array ? (count - shown == 1 ? "item" : "items")
                        : (count - shown == 1 ? "member" : "members"));
        break;
      }
      if (!array) {  // the key, as printed, and what is between it and its value
        const size_t key_end = SkipJsonValue(t, i);
        out->append(t.substr(i, key_end - i));
        const size_t value = t.find_first_not_of(" \t\r\n:", key_end);
        out->append(t.substr(key_end, value - key_end));
        i = value;
      }
      i = CopyJsonValue(t, i, out);
      i = space(i);
      if (t[i] == ',') {
        out->push_back(',');
        i = space(i + 1);
      }
    }
    out->push_back(close);
    return i + 1;
  }

  // The container opened at line `at`: that line, its members or items (capped), its closing
  // line.
  static void WriteJsonContainer(const std::vector<std::string_view>& lines,
                                 const std::vector<size_t>& closes, size_t at,
                                 SummaryWriter& out) {
    constexpr size_t kNone = std::string_view::npos;
    const bool array = Trim(lines[at]).back() == '[';
    out.Line(lines[at]);
    const size_t end = closes[at];
    // Its children: [first, last] line ranges.
    std::vector<std::pair<size_t, size_t>> children;
    bool containers = false;
    for (size_t i = at + 1; i < end;) {
      if (Trim(lines[i]).empty()) {
        ++i;
        continue;
      }
      const size_t last = closes[i] != kNone ? closes[i] : i;
      containers = containers || closes[i] != kNone;
      children.emplace_back(i, last);
      i = last + 1;
    }
    const size_t cap = !array ? kJsonMembers : containers ? kJsonContainerItems : kJsonItems;
    // One more than the cap is shown: its marker would be no shorter.
    const size_t shown = children.size() <= cap + 1 ? children.size() : cap;
    for (size_t c = 0; c < shown; ++c) {
      const auto [first, last] = children[c];
      if (closes[first] != kNone) {
        WriteJsonContainer(lines, closes, first, out);
      } else {
        for (size_t i = first; i <= last; ++i) out.Line(lines[i]);
      }
    }
    if (shown < children.size()) {
      const size_t hidden = children.size() - shown;
      const size_t hidden_lines = end - children[shown].first;
      out.Marker(StrCat(core::FormatCount(hidden), " more ",
                        array ? (hidden == 1 ? "item" : "items")
                              : (hidden == 1 ? "member" : "members")),
                 hidden_lines);
    }
    out.Line(lines[end]);
  }

  // A tree drawing (`npm ls --all`, `tree`, `cargo tree`, `gradle dependencies`): its levels
  // from the top, as many as fit in kTreeEntries entries (the first always, whatever its
  // size: a project's direct dependencies, the folders at its root); below them, every entry
  // the tool marks as a problem (IsTreeProblem), with the entries above it. A shown entry
  // whose entries under it are not all shown says how many are not
  // ("├─┬ express@4.15.2 … 41 more under it"). The lines that are no entry (the root, the
  // tool's messages, its count of folders and files) are kept; blank ones counted. Nullopt
  // when it is no tree drawing, or a small one (kTreeEntries entries at most).
  static std::optional<core::ShapeOutput> ShapeTree(const std::vector<std::string_view>& lines,
                                                   const core::ShapeContext& context,
                                                   std::string_view tool) {
    if (context.raw_path.empty() || !IsTreeDrawing(lines)) return std::nullopt;
    SummaryWriter out(&lines);
    const std::string note = FailureNote(context.command, context.exit_code);
    constexpr size_t kNone = std::string_view::npos;
    std::vector<size_t> column(lines.size(), kNone);
    std::vector<size_t> columns;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (std::optional<size_t> c = TreeBranchColumn(lines[i])) {
        column[i] = *c;
        columns.push_back(*c);
      }
    }
    std::sort(columns.begin(), columns.end());
    // Entries per level (the distinct columns, in order), and how many levels fit.
    std::vector<size_t> per_level;
    for (size_t k = 0; k < columns.size(); ++k) {
      if (k == 0 || columns[k] != columns[k - 1]) per_level.push_back(0);
      ++per_level.back();
    }
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    size_t levels = 1, shown = per_level[0];
    while (levels < per_level.size() && shown + per_level[levels] <= kTreeEntries) {
      shown += per_level[levels++];
    }
    // All of a small tree fits: shown as any output is. A flat one of more entries (`npm ls`
    // of a project's 80 direct dependencies) is shown whole, like a long listing.
    if (levels == per_level.size() && shown <= kTreeEntries) return std::nullopt;
    const size_t deepest_shown = columns[levels - 1];
    // Each entry's parent: the nearest entry above it drawn further left (none for one under a
    // line that is no entry, a root).
    std::vector<size_t> parent(lines.size(), kNone);
    {
      std::vector<size_t> above;  // the entries above the current one, outermost first
      for (size_t i = 0; i < lines.size(); ++i) {
        if (column[i] == kNone) {
          if (!Trim(lines[i]).empty()) above.clear();
          continue;
        }
        while (!above.empty() && column[above.back()] >= column[i]) above.pop_back();
        if (!above.empty()) parent[i] = above.back();
        above.push_back(i);
      }
    }
    // Which entries are shown: the top levels, the problems and the entries above each.
    std::vector<char> keep(lines.size(), 0);
    size_t problems = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (column[i] == kNone) continue;
      if (column[i] <= deepest_shown) keep[i] = 1;
      if (IsTreeProblem(lines[i])) {
        ++problems;
        for (size_t a = i; a != kNone; a = parent[a]) keep[a] = 1;
      }
    }
    // Each entry not shown is counted under the nearest shown entry above it.
    std::vector<uint64_t> under(lines.size(), 0);
    uint64_t hidden = 0, loose = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (column[i] == kNone || keep[i]) continue;
      ++hidden;
      size_t a = parent[i];
      while (a != kNone && !keep[a]) a = parent[a];
      if (a == kNone) {
        ++loose;
      } else {
        ++under[a];
      }
    }
    const size_t entries = std::count_if(column.begin(), column.end(),
                                         [](size_t c) { return c != kNone; });
    std::string header = StrCat(tool.empty() ? "output" : tool, ": ",
                                note.empty() ? "" : StrCat(note, ", "), "a tree of ",
                                core::FormatCount(entries), " entries: ",
                                levels == per_level.size() ? std::string("all shown")
                                : levels == 1 ? std::string("the first level")
                                              : StrCat("the first ", levels, " levels"));
    if (problems > 0) {
      StrAppend(&header, ", and ", core::FormatCount(problems), " marked as ",
                problems == 1 ? "a problem" : "problems", " with the entries above them");
    }
    if (hidden > 0) {
      StrAppend(&header, "; ", core::FormatCount(hidden),
                " deeper ones counted on the entry above them");
    }
    out.Header(header);
    uint64_t blank = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (column[i] != kNone && !keep[i]) continue;
      if (column[i] == kNone && Trim(lines[i]).empty()) {
        ++blank;
      } else if (under[i] > 0) {
        out.Composed(StrCat(lines[i], " … ", core::FormatCount(under[i]), " more under it"),
                     {lines[i]});
      } else {
        out.Line(lines[i]);
      }
    }
    out.Omitted(loose, "other entry", "other entries");
    out.Omitted(blank, "blank line", "blank lines");
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeGenericShaper() { return std::make_shared<GenericShaper>(); }

std::optional<core::ShapeOutput> ShapeTreeDrawing(const std::vector<std::string_view>& lines,
                                                  const core::ShapeContext& context,
                                                  const std::string& label) {
  return GenericShaper::Tree(lines, context, label);
}

core::ShapeOutput ShapeUnread(std::string_view output, const core::ShapeContext& context,
                              const std::string& label) {
  return GenericShaper::ShapeAny(output, context, label);
}

}  // namespace plugline::builtin

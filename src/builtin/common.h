// What the built-in shapers share: a summary writer that keeps the rules (every line is a
// line of the output, a count, or a marked elision), command parsing, and line helpers.
#ifndef PLUGLINE_BUILTIN_COMMON_H_
#define PLUGLINE_BUILTIN_COMMON_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/command_line.h"
#include "core/text.h"

namespace plugline::builtin {

// Builds a summary line by line. Three kinds of line:
//  - Header(): the first line, the outcome, composed of the tool's name and facts read from
//    the output (counts, pass/fail) — "pytest: FAILED — 2 failed, 32 passed";
//  - Line(): a line of the output, verbatim — except that a line longer than kMaxLineBytes is
//    cut: its first kLineHeadBytes, a marker "… N bytes of this line omitted", its last
//    kLineTailBytes (minified JavaScript, a 50 MB JSON blob, binary data);
//  - Elided()/ElidedLines(): a counted elision marker, always starting with "… ";
// and, where a shaper's rule says so, Composed() or LineAfterPrefix(): a line of the output in
// a shorter form (a commit's hash and subject on one line; a log entry's continuation without
// the timestamp it repeats).
// Given the output's lines, it tracks which were shown and which a marker accounted for, so
// a shaper can count exactly what is left with UnaccountedLines().
inline constexpr size_t kMaxLineBytes = 4096;
inline constexpr size_t kLineHeadBytes = 2048;
inline constexpr size_t kLineTailBytes = 512;

class SummaryWriter {
 public:
  explicit SummaryWriter(const std::vector<std::string_view>* source = nullptr);
  void Header(std::string_view header);
  void Line(std::string_view line);
  // `line` without its first `skip` bytes, indented by two spaces: a continuation line that
  // repeats its entry's prefix (timestamp, process, source). Counted as `line` shown.
  void LineAfterPrefix(std::string_view line, size_t skip);
  void Lines(const std::vector<std::string_view>& lines);
  // A line composed of fields of the output's lines `from` (a commit's abbreviated hash and its
  // subject, as `git log --oneline` prints them), which count as shown.
  void Composed(std::string_view text, std::initializer_list<std::string_view> from) {
    Composed(text, std::span<const std::string_view>(from.begin(), from.size()));
  }
  void Composed(std::string_view text, std::span<const std::string_view> from);
  // "… <count> <what>", e.g. Elided(651, "passed tests omitted"). Nothing when count is 0.
  void Elided(uint64_t count, std::string_view what);
  // The same, for a marker that stands for `count` lines of the output.
  void ElidedLines(uint64_t count, std::string_view what);
  // "… <text>", a marker that stands for `lines` lines of the output (a list of locations).
  void Marker(std::string_view text, uint64_t lines);
  // "… <count> <singular|plural> omitted" (not counted as lines).
  void Omitted(uint64_t count, std::string_view singular, std::string_view plural);
  // Lines of the source neither shown nor accounted for by an ElidedLines() marker.
  uint64_t UnaccountedLines() const;
  size_t lines() const { return lines_; }
  size_t size() const { return text_.size(); }
  std::string Take() { return std::move(text_); }

 private:
  void MarkShown(const char* p);

  std::string text_;
  size_t lines_ = 0;
  const std::vector<std::string_view>* source_;
  std::vector<bool> shown_;
  uint64_t shown_count_ = 0;
  uint64_t elided_lines_ = 0;
};

// The words of a command line and the tool it runs (core/command_line.h).
using core::CommandWords;
using core::ToolArgs;
using core::ToolName;

// The command's last pipeline and what prints a file (core/command_line.h).
using core::PipelineStages;
using core::PrintsSourceFile;

// Whether the command's exit status is a filter's, not the tool's: its last pipeline's last
// stage is another program ("make 2>&1 | tail -30" exits with tail's 0), and the shell was
// not told `set -o pipefail`.
bool StatusIsAFilters(std::string_view command);

// Whether the output is what `head` let through: the command's last pipeline stage is head
// ("pytest -v 2>&1 | head -40"). Its end, where a tool's verdict is, may be cut, and the exit
// status is head's: no claim that the run went well.
bool CutByHead(std::string_view command);

// Whether the output is a part of the tool's that the command chose by its place: the last
// pipeline stage is head, tail (not following) or `sed -n` ("du -sh * | sort -h | tail -30",
// "ls -R | head -400", "xxd a.bin | head -40"). The agent set its size: shown whole when it fits.
bool CutByCommand(std::string_view command);

// Whether the output is the lines a search chose: the command's last pipeline stage is grep (or
// egrep, fgrep, rg), "pytest 2>&1 | grep -E 'FAILED|Error'": what the agent asked to see.
bool ChosenByGrep(std::string_view command);

// A header's words for a status of 0: "exit 0", or whose it is when it is a filter's, "exit 0
// is tail's" (`python app.py 2>&1 | tail -40`: nothing said of the tool's).
std::string ExitZeroNote(std::string_view command);

// True when any word of the command (after wrappers) equals one of `names`.
using core::CommandMentions;

using core::ContainsIgnoreCase;  // core/text.h

// KeywordMatcher (one-pass search for fixed keywords, ignoring case) lives in core/text.h: the
// shaping window uses it too.
using core::KeywordMatcher;

// Leading and trailing spaces and tabs removed.
std::string_view Trim(std::string_view s);

// Nothing but spaces and tabs (or nothing at all).
bool IsBlank(std::string_view s);

// The number `s` starts with, after spaces and tabs ("  12 passed" -> 12); none without digits.
std::optional<uint64_t> LeadingNumber(std::string_view s);

// A line of carets under the line above ("      ^~~~", Python's "    ^^^^^"): only spaces,
// tabs, '^' and '~', with at least one '^'. It points at what a location already says.
bool IsCaretsOnly(std::string_view line);

// A line of a tree drawing (`npm ls`, `tree`, `cargo tree`, `pnpm ls`, `gradle dependencies`,
// pipdeptree): guides ("│ ", "|   "), then a branch ("├── ", "└─┬ ", "+-- ", "`-- ",
// "\\--- ") and the entry. Its column: where its branch starts, in characters (so deeper
// entries have larger ones); nullopt for a line that is no tree entry (the root, a message).
std::optional<size_t> TreeBranchColumn(std::string_view line);

// Whether most lines are a tree drawing's entries: 20 or more, and 60% of the lines not blank.
bool IsTreeDrawing(const std::vector<std::string_view>& lines);

// A stack frame ("at pkg.Class.method(File.java:12)", trimmed) in the JVM's or .NET's platform or
// a common framework (java., jdk., kotlin., org.junit., org.springframework., System.…): not
// the user's code.
bool IsPlatformFrame(std::string_view frame);

// A line a package manager prints after a script it ran has failed, restating that it failed
// and how it was run (a summary's header says it failed, with the exit code): npm's
// "npm error Lifecycle script `build` failed with error:", "npm error code 2", "npm error
// path /app", "npm error command sh -c tsc -p ." (and older npm's "npm ERR! code ELIFECYCLE",
// "npm ERR! shop@1.0.0 build: `tsc`", "npm ERR! Failed at the shop@1.0.0 build script.", its
// log's path), yarn's "error Command failed with exit code 2." and "info Visit
// https://yarnpkg.com/… for documentation about this command.", pnpm's "ELIFECYCLE  Command
// failed with exit code 2." and bun's "error: script \"build\" exited with code 2". Not npm's
// other errors ("npm error Missing script: build", "npm error code E404").
bool IsScriptFailureEpilogue(std::string_view line);

// A line a tool's report has besides its rows that is worth keeping: it reads like an error
// (core::LooksLikeErrorLine) and is not a package manager's epilogue.
bool LooksLikeToolErrorLine(std::string_view line);

// Whether a stack frame's text (trimmed) names a place in a library, a runtime or vendored
// code rather than the user's: node_modules, Node's internals (`node:internal/…`,
// `(internal/…)`), Deno's and Bun's built-ins (`ext:…`, `native:…`), Python's site-packages,
// dist-packages, the interpreter's lib/python3.x, `<frozen …>` and pytest's own modules, GOROOT,
// the Go module cache and its runtime and testing files, Rust's `/rustc/…`, the cargo registry
// and the toolchain's std, Ruby's gems and lib/ruby, and `/vendor/`. One list for every shaper that
// tells frames apart; what a frame looks like is each one's own.
bool InLibraryPath(std::string_view frame);

// A stack frame or a location: "at 0x1091EF: main (leak.c:10)", "by 0x…", "File \"a.py\", line
// 3", "#1 0x… in main a.c:9", "\tat com.x.Y.z(Y.java:12)".
bool IsFrameLine(std::string_view line);

// A Rust or Go frame's location, on the line under the one naming its function: Rust's
// "             at ./src/main.rs:1:38" (no parentheses), Go's "\t/home/u/app/main.go:12 +0x1d".
bool IsLocationUnderFunction(std::string_view line);

// A stack frame in the user's code: Python's `File "app/views.py", line 15, in item` outside
// the interpreter's library and installed packages; a JavaScript or JVM frame, `at f
// (/app/src/x.js:3:9)`, `at shop.Cart.total(Cart.java:25)`, outside node_modules, Node's
// internals and the platform's packages; a Rust backtrace's `at ./src/main.rs:5:39` outside the
// standard library's `/rustc/…` and the registry's crates; a Go panic's `\t/app/main.go:12
// +0x1d` outside GOROOT and the module cache.
bool IsUserFrame(std::string_view line);

// A stack frame in a library's code or the runtime's, the other side of IsUserFrame: Python's
// `File "/usr/lib/python3.11/http/client.py", line 1294, in request` (site-packages,
// dist-packages, the interpreter's lib/python3.x, <frozen …>), JavaScript's `at f
// (node:internal/…)` or in node_modules, the JVM's `at java.net.Socket.connect(…)`, a Rust or
// Go frame's location under the standard library or the module cache.
bool IsLibraryFrame(std::string_view line);

// Where a stack frame's text starts on its line: past its indentation and the margin Python
// draws down an exception group's tracebacks ("  |   File \"eg.py\", line 7, in validate",
// "    | Traceback (most recent call last):"). The code Python prints under a frame is indented
// deeper from there.
size_t FrameIndent(std::string_view line);

// Which of `lines` are a library's stack frames (IsLibraryFrame) or what such a frame brings
// with it: the code Python prints under it and its carets, the line naming a Rust or Go
// frame's function above its location.
std::vector<bool> LibraryFrameLines(const std::vector<std::string_view>& lines);

// A native stack frame, as a sanitizer or gdb prints it ("#2 0x7f… in f file.c:9", "#1  main ()
// at a.c:13"), in the C library's start-up code or a system library: "in __libc_start_call_main
// csu/../sysdeps/nptl/libc_start_call_main.h:58:16", "in _start (/tmp/a.out+0x21300)",
// "(/lib/x86_64-linux-gnu/libc.so.6+0x271ca)", gdb's "from /lib/x86_64-linux-gnu/libc.so.6".
// IsLibraryFrame is true for it.
bool IsSystemNativeFrame(std::string_view line);

// A line of AddressSanitizer's map of the shadow memory around the bad address, or of the
// legend under it: "Shadow bytes around the buggy address:", "  0x0c067fff7fc0: 00 00 fa fa",
// "=>0x0c067fff8010:[fd]fa fa", "Shadow byte legend (one shadow byte represents 8 application
// bytes):", "  Heap left redzone:       fa". The same bytes in every report of its kind: what
// the report says is in its error line, frames and SUMMARY line.
bool IsShadowMapLine(std::string_view line);
// Which of `lines` are such a map or legend: a heading and the rows under it.
std::vector<bool> ShadowMapLines(const std::vector<std::string_view>& lines);

// A line of bytes in hex, colon-separated, as OpenSSL prints a key's modulus or a signature
// ("        46:e4:72:d6:a9:51:ee:fa:74:d2:1d:40:57:36:92:4d:c8:6b:"), and nothing else.
bool IsHexBytesLine(std::string_view line);
// Which of `lines` are runs of such lines, three or more of four bytes or more each (and the
// shorter line that ends the run): the value is in the field named above the run (its
// algorithm, its size), not in its bytes, which are counted.
std::vector<bool> HexBytesLines(const std::vector<std::string_view>& lines);

// A line that starts with a location, "stats.f90:13:6:" or "src/a.c:12: …": a path (a dot or a
// slash in it, no spaces) at the left margin, a colon, a line number.
bool StartsWithLocation(std::string_view line);
// A message that ends where it is, as Perl says it: "… at big.pl line 5." (a compile error, a
// warning, a die), ", <STDIN> line 2." after it or not.
bool EndsWithLineLocation(std::string_view line);
// Whether a line names a place in a file anywhere in it: a path with an extension, then a line
// number after ':' or '(' ("dep.nim(4, 6) Warning: …", ";;; /w/a.scm:39:14: warning: …",
// "  --> src/a.rs:3:5"). Its numbers are where, not a measure.
bool NamesFileLocation(std::string_view line);
// The location a line starts with (StartsWithLocation): "stats.f90:13:6", "src/a.c:12".
std::string_view LocationPrefix(std::string_view line);

// Maven's level before a line, "[ERROR] ", "[WARNING] ", "[INFO]" (with the space after it when
// there is one): its length, or 0 when the line has none.
size_t MavenLevelLength(std::string_view line);

// What Maven prints after a failed build to say where help is ("-> [Help 1]", "To see the full
// stack trace of the errors, re-run Maven with the -e switch.", …): the text after the line's
// "[ERROR] ", trimmed.
bool IsMavenHelp(std::string_view text);

// Lines that signal trouble in output no shaper understands (core/text.h; the shaping window
// keeps such lines from the middle of an output too large to shape whole).
using core::LooksLikeErrorLine;

// Keeps the first `head` and last `tail` lines and, between them, up to `max_kept` lines for
// which `keep` is true (each with one line of context before it — or, when a location stands
// on a line of its own up to 4 lines above it, "stats.f90:13:6:", that location; a line of
// marks alone, "^", is none — and up to
// kDetailUnderTrouble stack frames indented under it: valgrind's "at 0x…: main (a.c:9)");
// everything else is counted in markers (gaps of 1 to 3 lines, after the first, in one after
// the middle). The workhorse of the generic shaper and the fallback
// of the others.
// With `library`, the lines it marks (by index: a library's stack frames, the code Python
// prints under one, a sanitizer's shadow map) are counted in the head and the tail, a run at a
// time ("… 12 lines of library stack frames omitted"), not shown. A run of the same line, or of
// kAlikeRun or more alike but for their numbers (a download's progress), is folded wherever it
// starts, and so is one of kOneWordRun or more alike but for one word (OneWordApartRun: lines
// that read like trouble with each other, their numbers kept; the tail, when it starts inside
// such a run, from its start); an output short enough to show whole is shown whole
// (WriteFolded).
inline constexpr size_t kDetailUnderTrouble = 3;
void WriteHeadTail(const std::vector<std::string_view>& lines, size_t head, size_t tail,
                   const std::function<bool(std::string_view)>& keep, size_t max_kept,
                   SummaryWriter& out, const std::vector<bool>* library = nullptr);

// Whether two lines are the same but for their numbers: runs of digits (with the decimal or
// thousands separators between them, "98.9", "1,024"), and of hexadecimal digits after "0x"
// ("Retry(total=4) … object at 0x7fb7414a0990" and "Retry(total=3) … at 0x7fb7414bd710";
// "icmp_seq=1 ttl=64 time=0.051 ms" and "icmp_seq=2 ttl=64 time=0.047 ms"); and but for the
// spaces that align them ("     0K ….  0%  228M" and "  1000K …  3%  98.9M").
bool AlikeButNumbers(std::string_view a, std::string_view b);

// A small table (`pip list`, `pip list --outdated`, psql's and `sqlite3 -header -column`'s
// results): a header, a rule of dashes under it in two columns at least among the first lines
// ("------------------------- -----------", "----+-----", "--  --------  ---"), then more than
// kMinTableRows lines, kTableLines and kTableBytes at most. Its rows are its answer (is this
// package installed, at which version?), each as likely as another to be the one asked about:
// the shapers show it whole.
inline constexpr size_t kMinTableRows = 8;
inline constexpr size_t kTableLines = 160;
inline constexpr size_t kTableBytes = 16 * 1024;
bool IsSmallTable(const std::vector<std::string_view>& lines, size_t bytes);

// Lines alike but for their numbers are folded from a run of this many (the first and the
// last shown).
constexpr size_t kAlikeRun = 4;

// A run of lines from `at` (before `end`) that are lines[at] but for one word, at the same
// place in each among the line's words (which spaces separate) — and one more word at most,
// and their numbers — with kMinSharedWords words the same besides: pip's "Requirement already
// satisfied: flask in /usr/lib/python3/dist-packages (2.2.2)", "INFO: pip is looking at
// multiple versions of flask to determine …", kubectl's "deployment.apps/api created". Its end,
// and in `words` the words of each line after the first that tell it apart ("pluggy
// (1.0.0+repack)"); `at + 1` when lines[at + 1] is not such a line. `also(k)` says whether line
// k may be in the run. Numbers aside means a measure's (a count, a size, a time, a version:
// "(2.2.2)", "0.05s"); a name with a number in it ("feature/f2", "PROJ-1120") differs. With
// NumbersDiffer::kYes, a word that differs only in its numbers
// differs: lines that read like trouble are folded so, each one's numbers kept (`ls`'s
// "cannot access 'x': No such file or directory" for 300 names; not "error at line 12" and
// "error at line 15" as one).
inline constexpr size_t kMinSharedWords = 3;
// Such runs are folded from this many lines (fewer are shown as printed).
inline constexpr size_t kOneWordRun = 8;
enum class NumbersDiffer { kNo, kYes };
size_t OneWordApartRun(const std::vector<std::string_view>& lines, size_t at, size_t end,
                       const std::function<bool(size_t)>& also, std::vector<std::string>* words,
                       NumbersDiffer numbers = NumbersDiffer::kNo);
// Writes such a run (kOneWordRun lines or more): its first line, then the words of the others,
// "… 38 more lines like the one above but for: asgiref, attrs, …" (25 a line, fewer past 400
// bytes; "… more of such lines: …" after), so that none of what tells them apart is lost
// (their numbers aside). A budget keeps those lines only with the line they stand in for
// (core/summary_budget.h kOneWordBut).
void WriteOneWordApart(std::string_view first, const std::vector<std::string>& words,
                       SummaryWriter& out);

// Writes `lines`, folding runs of three or more identical consecutive lines into the first
// one and "… N repeats of the line above". (Lines alike but for their numbers stay: they may
// be the data asked for, a table of measurements.)
void WriteFolded(const std::vector<std::string_view>& lines, SummaryWriter& out);

// Parses "<number> <word>" pairs: CountBefore("2 failed, 32 passed in 0.1s", "passed") -> 32.
std::optional<uint64_t> CountBefore(std::string_view text, std::string_view word);

// The exit code as text for a header: "exit 2", or "" when unknown or 0.
std::string ExitNote(std::optional<int> exit_code);

// A header's outcome for a run that did not say what failed: "FAILED (exit 2)", "exit 1" for
// a tool whose exit 1 is an answer (core::FailureText), "" when the exit is unknown or 0.
std::string FailureNote(std::string_view command, std::optional<int> exit_code);

// "1 error", "3,412 errors": a formatted count and the noun that agrees with it.
std::string Plural(uint64_t n, std::string_view one, std::string_view many);

// Shares `budget` between items fairly: every item gets min(n, c) for the largest c that fits
// (at most `max_each`), and what is left goes one by one to the items still cut. With
// `at_least_one`, every non-empty item keeps at least one (the sum may then pass `budget`).
std::vector<uint64_t> FairShares(const std::vector<uint64_t>& n, uint64_t budget,
                                 uint64_t max_each, bool at_least_one = false);

// Counts per key (error codes, rule ids). Outputs have few distinct keys, mostly in runs, so
// a short list searched from the last hit is cheaper than hashing every occurrence. Keys
// must outlive the Tally.
class Tally {
 public:
  // Counts one `key`; true when it is new.
  bool Add(std::string_view key);
  const std::vector<std::pair<std::string_view, uint64_t>>& items() const { return items_; }

 private:
  static constexpr size_t kIndexFrom = 64;
  std::vector<std::pair<std::string_view, uint64_t>> items_;
  std::unordered_map<std::string_view, size_t> index_;
  size_t last_ = 0;
};

}  // namespace plugline::builtin

#endif  // PLUGLINE_BUILTIN_COMMON_H_

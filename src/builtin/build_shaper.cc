// builtin-build: compilers and build tools.
//
// Recognizes, in any mix (make runs gcc, cmake runs make or ninja, cargo runs rustc, npm runs
// webpack):
//  - gcc/g++/clang diagnostics: "file:line:col: error|warning|note: message" with their source,
//    caret and fix-it lines, the context lines before them ("In file included from",
//    "file: In function 'f':", "required from here"), clang's "N warnings and M errors
//    generated."; linker messages (GNU ld, lld, mold, "undefined reference to", collect2);
//    MSVC/tsc-style "file(line,col): error CODE: message";
//  - make: recipe lines echoed (collapsed into a count), "make[1]: Entering directory" (kept
//    before the problems that happened in that directory), "make: *** [...] Error 1";
//  - cmake: configure ("-- " status lines, "CMake Error at CMakeLists.txt:N (cmd):" blocks,
//    "-- Configuring incomplete"), builds ("[ 45%] Building CXX object", "Built target");
//    ninja ("[12/340] ...", "FAILED: target" and its command, "ninja: build stopped");
//  - cargo/rustc: "   Compiling x v0.1.0" status lines, "error[E0308]: ..." blocks with their
//    " --> file:line:col" and "  |" spans and help/note lines, cargo's summary lines;
//  - go build/vet: "# pkg" then "file.go:10:2: message" (tab-indented continuation lines);
//  - webpack ("ERROR in ./src/x.js 5:0-24" blocks, "asset ..." lines, "webpack 5.x compiled
//    ..."), vite ("vite vX building ...", "✓ N modules transformed.", "error during build:",
//    dist/ asset lines, "✓ built in");
//  - npm/yarn/pnpm install ("npm error"/"npm ERR!" blocks, "npm WARN deprecated" counted,
//    "added N packages ...", audit and funding lines); apt/apt-get (package lists,
//    "Get:/Unpacking/Setting up" progress, "E:"/"W:" lines, "N upgraded, M newly installed").
//
// Keeps: every error with its location and message (the first ones with their source lines,
// notes and context, capped; further ones as their heading line), the first warnings in full
// and the warnings of files that have errors as their heading line, the rest counted by kind;
// the failure lines of make/ninja (the first and last ones when many), linker and tool error
// lines, the tool's outcome lines, and output the shaper does not know (capped). Collapses
// progress, echoed commands, directory changes and informational lines into counts. A clean
// success is the header and the few lines naming what was produced.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "builtin/test_report.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

using std::string_view;
using Grouping = DiagnosticGroups::Grouping;
constexpr size_t kNone = string_view::npos;

// ---- limits ---------------------------------------------------------------------------------

constexpr size_t kFullErrors = 15;      // errors shown with source lines, notes and context
constexpr size_t kFullWarnings = 10;    // warnings shown with source lines
constexpr size_t kMaxHeadOnly = 400;    // further diagnostics shown as their heading line
constexpr size_t kUserChainLines = 3;   // user's "required from" lines kept over a heading
constexpr size_t kErrorBody = 16;       // body lines (source, caret, message) of a full error
constexpr size_t kWarningBody = 6;
constexpr size_t kErrorNotes = 4;       // notes shown under a full error
constexpr size_t kWarningNotes = 2;
constexpr size_t kNoteBody = 3;         // body lines of a shown note
constexpr size_t kContextLines = 8;     // include/instantiation context of a full error
constexpr size_t kStandaloneNotes = 10;
constexpr size_t kLongSystemNote = 400;  // characters of a note in a system header, counted past
constexpr size_t kListLines = 10;        // lines of each of apt's package lists shown
constexpr size_t kOtherAll = 60;         // unknown lines: all shown up to this many
constexpr size_t kOtherHead = 20, kOtherTail = 20, kOtherTrouble = 40;

// ---- line kinds -----------------------------------------------------------------------------

enum class Kind : uint8_t {
  kOther,        // not recognized: kept, capped
  kBlank,        // blank lines, and "npm error" with nothing after it
  kProgress,     // "[ 45%] Building", "[12/340]", "   Compiling", "Get:1", "Unpacking": counted
  kCommand,      // recipes echoed by make, the command under ninja's "FAILED:": counted
  kDirectory,    // make[1]: Entering/Leaving directory
  kChatter,      // informational: cmake "-- Detecting", apt "Reading package lists..."
  kStatus,       // outcome lines: kept
  kTarget,       // "[ 24%] Built target x": kept (capped) when the build had problems
  kAsset,        // webpack "asset ...", vite "dist/..." lines: kept, capped
  kCrate,        // cargo "Compiling x v1 (/path)": a crate of the workspace: kept, capped
  kInstalled,    // apt "Setting up x (1.2) ...": kept, capped
  kListItem,     // the package list under apt's "The following NEW packages": kept, capped
  kBuildFail,    // make "*** [...] Error 1", ninja "FAILED: x": kept, first and last ones
  kLinker,       // linker messages: kept, capped
  kErrorLine,    // npm error, apt E:, ninja: error: kept, capped
  kWarnLine,     // npm WARN, apt W:, make: warning:, cmake "Could NOT find": kept, capped
  kDeprecation,  // npm WARN deprecated: counted
  kUsage,        // a command's usage text printed with its error (npm's options): counted
  kLibFrame,     // among lines not recognized, a library's stack frames (a script's crash): counted
  kShadowMap,    // among them, AddressSanitizer's shadow memory map and its legend: counted
  // Lines of a diagnostic (see Diag).
  kContext,      // "In file included from", "x.c: In function", "# pkg"; outside a Diag: other
  kDiagHead,
  kDiagBody,
  kNoteHead,
  kNoteBody,
  kCount
};

constexpr size_t kKinds = static_cast<size_t>(Kind::kCount);

enum class Sev : uint8_t { kError, kWarning, kNote };
enum class Style : uint8_t { kCompiler, kRust, kCMake, kWebpack, kVite };

struct Diag {
  size_t begin = 0;  // its first line: context lines come before the heading
  size_t head = 0;
  size_t end = 0;    // one past its last line
  Sev sev = Sev::kError;
  Style style = Style::kCompiler;
  bool duplicate = false;  // the same heading was printed before (a header in two units)
  size_t rank = 0;         // among the diagnostics of its severity
  string_view file;
  string_view key;         // the kind of a warning, for counting: "[-Wunused-variable]"
};

struct Parsed {
  std::vector<Kind> kinds;
  std::vector<Diag> diags;
  std::array<uint64_t, kKinds> kind_count{};
  uint64_t errors = 0, warnings = 0;   // diagnostics and counted error lines
  uint64_t undefined_refs = 0, linker_errors = 0, build_fails = 0, error_lines = 0;
  absl::flat_hash_set<string_view> files, error_files;
  bool failure_signal = false;         // the tool said it failed
  bool error_limit = false;            // the compiler stopped at its limit of errors
  bool seen_esbuild = false;
  bool seen_gradle = false;
  string_view success;                 // the verdict the tool's own success line gives
  // Progress, for a success header.
  uint64_t crates_compiled = 0, crates_checked = 0, objects = 0, targets = 0, packages = 0;
  uint64_t ninja_done = 0, ninja_total = 0;
  // What was built, for a success header: CMake's "Built target X", and what ninja or make
  // linked ("Linking CXX executable bin/x").
  std::vector<string_view> built_targets, linked;
  std::vector<string_view> assets;  // what a bundler wrote: webpack's "asset x.js", vite's dist/
  std::vector<string_view> local_crates;  // the workspace's crates compiled or checked
  // What the output looks like, for the label of `cat build.log`.
  bool seen_cargo = false, seen_go = false, seen_webpack = false, seen_vite = false,
       seen_npm = false, seen_apt = false, seen_cmake = false, seen_ninja = false,
       seen_make = false, seen_compiler = false;
  bool apt_simulated = false;  // apt-get -s: "Inst …", "Conf …" lines, nothing done
  // apt's lists of the packages it installs and of those it adds to them as dependencies:
  // the others are the ones it was asked for, wherever the command that asked is.
  std::vector<string_view> apt_new, apt_additional;
};

// ---- small helpers --------------------------------------------------------------------------

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
// (Plain loops: find_first_of and its kin scan the set once per character.)
// Leading and trailing blanks removed.
string_view Strip(string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}
bool Indented(string_view s) { return !s.empty() && (s[0] == ' ' || s[0] == '\t'); }
bool Contains(string_view s, string_view what) { return s.find(what) != kNone; }

// starts_with/ends_with on a literal: the length is a constant, so the comparison is inlined
// (this runs on every line of outputs of many megabytes).
template <size_t N>
bool Starts(string_view s, const char (&lit)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}
template <size_t N>
bool Ends(string_view s, const char (&lit)[N]) {
  return s.size() >= N - 1 && std::memcmp(s.data() + s.size() - (N - 1), lit, N - 1) == 0;
}

// "12" or "12:5": digits separated by ':', nothing else.
bool IsLineColumn(string_view s) {
  if (s.empty() || !IsDigit(s[0])) return false;
  for (char c : s) {
    if (!IsDigit(c) && c != ':') return false;
  }
  return true;
}

uint64_t ParseNumber(string_view s) {
  uint64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) break;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

string_view BaseName(string_view path) {
  for (size_t i = path.size(); i-- > 0;) {
    if (path[i] == '/' || path[i] == '\\') return path.substr(i + 1);
  }
  return path;
}

string_view FirstWord(string_view s) {
  size_t end = 0;
  while (end < s.size() && s[end] != ' ' && s[end] != '\t') ++end;
  if (end == s.size()) end = kNone;
  return end == kNone ? s : s.substr(0, end);
}

// A small set of short names, looked up by length (cheaper than hashing every line's first
// word).
class NameSet {
 public:
  NameSet(std::initializer_list<string_view> names) {
    for (string_view n : names) {
      if (!n.empty()) by_size_[std::min(n.size(), kMax)].push_back(n);
    }
  }
  bool Has(string_view name) const {
    if (name.size() >= kMax) return false;
    for (string_view n : by_size_[name.size()]) {
      if (n[0] == name[0] && std::memcmp(n.data(), name.data(), n.size()) == 0) return true;
    }
    return false;
  }

 private:
  static constexpr size_t kMax = 16;
  std::array<std::vector<string_view>, kMax + 1> by_size_;
};

// Compiler drivers: cc, gcc, g++, clang++, gcc-12, x86_64-linux-gnu-gcc-12, arm-none-eabi-g++.
bool IsCompilerName(string_view name) {
  // Drop a version suffix: "-12", "-15.0.1".
  size_t dash = name.rfind('-');
  if (dash != kNone && dash + 1 < name.size() && IsDigit(name[dash + 1]) &&
      name.find_first_not_of("0123456789.", dash + 1) == kNone) {
    name = name.substr(0, dash);
  }
  static const NameSet kNames = {"cc",  "c++", "gcc", "g++", "clang", "clang++", "cpp",  "c89",
                                 "c99", "icc", "icpc", "icx", "icpx", "tcc",    "nvcc", "emcc",
                                 "em++"};
  if (kNames.Has(name)) return true;
  if (dash == kNone && name.find('-') == kNone) return false;
  return Ends(name, "-gcc") || Ends(name, "-g++") || Ends(name, "-clang") ||
         Ends(name, "-clang++") || Ends(name, "-cc") || Ends(name, "-c++");
}

// A recipe echoed by make (or a script under `set -x` without the "+"): its first word is a
// compiler or one of the tools recipes run.
bool IsCommandLine(string_view line) {
  if (line.empty() || !(IsLower(line[0]) || line[0] == '/' || line[0] == '.')) return false;
  string_view word = FirstWord(line);
  if (word.size() == line.size() || word.size() > 64) return false;  // a command has arguments
  if (Ends(word, ":")) word.remove_suffix(1);                          // "libtool: compile: ..."
  string_view name = BaseName(word);
  if (name.empty() || name.size() > 32) return false;
  static const NameSet kTools = {
      "ar",      "ranlib", "ld",      "as",      "nasm",    "yasm",    "strip",  "objcopy",
      "install", "mkdir",  "rm",      "cp",      "mv",      "ln",      "touch",  "echo",
      "printf",  "sed",    "awk",     "cd",      "cmake",   "ccache",  "distcc", "libtool",
      "make",    "gmake",  "rustc",   "javac",   "chmod",   "tar",     "m4",     "bison",
      "flex",    "yacc",   "lex",     "protoc",  "windres", "doxygen", "gzip",   "xxd",
      "ld.lld",  "ld.gold", "lld",    "mold",    "llvm-ar", "gcc-ar",  "cargo",  "go"};
  return kTools.Has(name) || IsCompilerName(name);
}

// What an echoed command links or archives: "cc -o build/server a.o libx.a" -> "server",
// "ar rcs build/libutil.a x.o" -> "libutil.a"; empty for a compile (-c, -S, -E) or an object.
string_view CommandArtifact(string_view line) {
  std::vector<string_view> words;
  for (size_t i = 0; i < line.size() && words.size() < 256;) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t end = i;
    while (end < line.size() && line[end] != ' ') ++end;
    if (end > i) words.push_back(line.substr(i, end - i));
    i = end;
  }
  size_t w = 0;
  while (w < words.size() && (BaseName(words[w]) == "ccache" || BaseName(words[w]) == "distcc")) ++w;
  if (w >= words.size()) return {};
  const string_view tool = BaseName(words[w]);
  auto object = [](string_view path) {
    return Ends(path, ".o") || Ends(path, ".obj") || Ends(path, ".lo") || Ends(path, ".d") ||
           Ends(path, ".gch") || Ends(path, ".pch") || Ends(path, ".s") || Ends(path, ".i");
  };
  if (tool == "ar" || tool == "llvm-ar" || tool == "gcc-ar") {
    // ar OPERATIONS ARCHIVE MEMBERS...
    if (w + 2 < words.size() && !object(words[w + 2])) return BaseName(words[w + 2]);
    return {};
  }
  static const NameSet kLinkers = {"ld", "ld.lld", "ld.gold", "lld", "mold", "rustc"};
  if (!IsCompilerName(tool) && !kLinkers.Has(tool)) return {};
  string_view output;
  for (size_t k = w + 1; k < words.size(); ++k) {
    const string_view a = words[k];
    if (a == "-c" || a == "-S" || a == "-E" || a == "-M" || a == "-MM") return {};
    if (a == "-o" && k + 1 < words.size()) {
      output = words[++k];
    } else if (Starts(a, "-o") && a.size() > 2 && tool != "rustc") {
      output = a.substr(2);
    }
  }
  if (output.empty() || object(output) || output == "/dev/null") return {};
  return BaseName(output);
}

// cargo's status lines: a capitalized verb right-aligned to column 12 ("   Compiling x").
string_view CargoVerb(string_view line) {
  size_t spaces = line.find_first_not_of(' ');
  if (spaces == kNone || spaces == 0 || spaces >= 12 || !IsUpper(line[spaces])) return {};
  if (line.size() <= 12 || line[12] != ' ') return {};
  for (size_t i = spaces + 1; i < 12; ++i) {
    if (!IsLower(line[i]) && line[i] != '-') return {};
  }
  return line.substr(spaces, 12 - spaces);
}

// kbuild and automake silent rules: "  CC      kernel/fork.o", "  CCLD     prog".
bool IsKbuildProgress(string_view line) {
  if (line.size() < 6 || line[0] != ' ' || line[1] != ' ' || !IsUpper(line[2])) return false;
  size_t i = 2;
  while (i < line.size() && (IsUpper(line[i]) || IsDigit(line[i]) || line[i] == '_')) ++i;
  if (i - 2 < 2 || i - 2 > 8 || i + 2 >= line.size()) return false;
  if (line.substr(i).starts_with(" [M] ")) return true;
  return line[i] == ' ' && line[i + 1] == ' ';
}

// "[ 45%] ..." (cmake's makefiles): the text after "] ", or empty.
string_view PercentProgress(string_view line) {
  if (line.size() < 7 || line[0] != '[') return {};
  size_t close = line.find("%] ");
  if (close == kNone || close > 5) return {};
  for (size_t i = 1; i < close; ++i) {
    if (line[i] != ' ' && !IsDigit(line[i])) return {};
  }
  return line.substr(close + 3);
}

// What a CMake "Linking <lang> <kind> <name>" step links: its last word ("bin/plugline").
string_view LinkedArtifact(string_view what) {
  if (!Starts(what, "Linking ")) return {};
  string_view rest = Strip(what);
  const size_t space = rest.rfind(' ');
  if (space == kNone || space < 8) return {};
  return rest.substr(space + 1);
}

// "a, b, c" — at most 12 names, then how many more.
std::string NameList(const std::vector<string_view>& names) {
  constexpr size_t kMaxNames = 12;
  std::string out;
  for (size_t k = 0; k < names.size() && k < kMaxNames; ++k) {
    StrAppend(&out, k == 0 ? "" : ", ", names[k]);
  }
  if (names.size() > kMaxNames) StrAppend(&out, " and ", names.size() - kMaxNames, " more");
  return out;
}

// "[12/340] ..." (ninja, and tools that copy it): done and total.
bool NinjaProgress(string_view line, uint64_t* done, uint64_t* total) {
  if (line.size() < 6 || line[0] != '[') return false;
  size_t i = 1;
  while (i < line.size() && line[i] == ' ') ++i;
  size_t a = i;
  while (i < line.size() && IsDigit(line[i])) ++i;
  if (i == a || i >= line.size() || line[i] != '/') return false;
  size_t b = ++i;
  while (i < line.size() && IsDigit(line[i])) ++i;
  if (i == b || i + 1 >= line.size() || line[i] != ']' || line[i + 1] != ' ') return false;
  *done = ParseNumber(line.substr(a));
  *total = ParseNumber(line.substr(b));
  return true;
}

// A source echo's gutter: "   18 | code" (gcc, clang), "12 |     code" (rustc), "      7 │ code"
// (esbuild), or an empty one ("      | ^~~~", "   |", esbuild's "        ╵   ~~~~"). Returns
// the offset after the bar (npos when there is none) and whether the gutter has a line number.
size_t GutterEnd(string_view line, bool* numbered) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const size_t digits = i;
  while (i < line.size() && IsDigit(line[i])) ++i;
  *numbered = i > digits;
  while (i < line.size() && line[i] == ' ') ++i;
  if (i == 0 || i >= line.size()) return kNone;
  if (line[i] == '|') return i + 1;
  const string_view rest = line.substr(i);
  if (Starts(rest, "\xE2\x94\x82") || Starts(rest, "\xE2\x95\xB5")) return i + 3;  // "│", "╵"
  return kNone;
}

// What a reader learns nothing from: an underline under a source echo ("      |   ^~~~~",
// "      |   |"), or an empty gutter ("   |").
bool IsUnderlineOnly(string_view line) {
  bool numbered = false;
  const size_t end = GutterEnd(line, &numbered);
  return end != kNone && !numbered &&
         line.find_first_not_of(" \t^~|-+", end) == kNone;
}

// A source echo ("   18 | size_t n;", the code the diagnostic is about, as in the file) or a
// label under one ("      |   int    double").
bool IsSourceEcho(string_view line) {
  bool numbered = false;
  return GutterEnd(line, &numbered) != kNone;
}

// A line of the source as the file has it, by its number ("   18 | size_t n;", "12 |  code").
bool IsNumberedEcho(string_view line) {
  bool numbered = false;
  return GutterEnd(line, &numbered) != kNone && numbered;
}

// rustc's gutter: "12 |     code", and a suggestion shown as a diff (rustc 1.85 and later):
// "12 - old code", "12 + new code", "12 ~ changed code".
bool IsRustGutter(string_view line) {
  size_t i = 0;
  while (i < line.size() && IsDigit(line[i])) ++i;
  if (i == 0) return false;
  while (i < line.size() && line[i] == ' ') ++i;
  if (i < line.size() && line[i] == '|') return true;
  return i + 1 < line.size() && (line[i] == '-' || line[i] == '+' || line[i] == '~') &&
         line[i + 1] == ' ';
}

// "make: ", "make[2]: ", "gmake[1]: ", "/usr/bin/make: ": the text after the prefix.
// `level` is the recursion level in brackets (0 for the top-level make). `colon`: the first
// ": " in the line, when the caller knows it.
bool MakePrefix(string_view line, string_view* rest, int* level = nullptr, size_t colon = kNone) {
  if (colon == kNone) colon = line.find(": ");
  if (colon == kNone || colon > 64) return false;
  string_view token = line.substr(0, colon);
  if (!Ends(token, "make") && !Ends(token, "]") && !Ends(token, "make.exe")) return false;
  string_view name = BaseName(token);
  int depth = 0;
  if (name.ends_with(']')) {
    size_t open = name.find('[');
    if (open == kNone) return false;
    depth = static_cast<int>(ParseNumber(name.substr(open + 1)));
    name = name.substr(0, open);
  }
  if (level != nullptr) *level = depth;
  if (Ends(name, ".exe")) name.remove_suffix(4);
  if (name != "make" && name != "gmake" && name != "mingw32-make" && name != "bmake" &&
      name != "remake") {
    return false;
  }
  *rest = line.substr(colon + 2);
  return true;
}

bool SeverityPrefix(string_view rest, bool located, Sev* sev, string_view* msg) {
  struct Word {
    string_view text;
    Sev sev;
    bool any_location;  // also after a program name (no file:line)
  };
  static constexpr Word kWords[] = {
      {"error: ", Sev::kError, true},          {"fatal error: ", Sev::kError, true},
      {"warning: ", Sev::kWarning, true},      {"note: ", Sev::kNote, true},
      {"remark: ", Sev::kNote, false},         {"internal compiler error: ", Sev::kError, true},
      {"sorry, unimplemented: ", Sev::kError, false}, {"Error: ", Sev::kError, false},
      {"Warning: ", Sev::kWarning, false}};
  if (rest.empty()) return false;
  const char c = rest[0];
  if (c != 'e' && c != 'f' && c != 'w' && c != 'n' && c != 'r' && c != 'i' && c != 's' &&
      c != 'E' && c != 'W') {
    return false;
  }
  // rustc --error-format=short, cargo --message-format=short: "error[E0425]: ..."
  if (Starts(rest, "error[") || Starts(rest, "warning[")) {
    size_t close = rest.find("]: ");
    if (close == kNone || close > 16) return false;
    *sev = c == 'e' ? Sev::kError : Sev::kWarning;
    *msg = rest.substr(close + 3);
    return true;
  }
  for (const Word& w : kWords) {
    if ((located || w.any_location) && rest.starts_with(w.text)) {
      *sev = w.sev;
      *msg = rest.substr(w.text.size());
      return true;
    }
  }
  // GHC: "src/A.hs:8:39: error:", the message on the lines under it, indented.
  if (located && (rest == "error:" || rest == "warning:")) {
    *sev = c == 'e' ? Sev::kError : Sev::kWarning;
    *msg = {};
    return true;
  }
  return false;
}

struct Located {
  enum Type : uint8_t { kNo, kDiag, kContext, kBuildFail, kStatus } type = kNo;
  Sev sev = Sev::kError;
  bool sub = false;  // gcc's continuation ("warning:   'x'"): part of the previous diagnostic
  string_view file;
  string_view msg;
};

bool IsInstantiationContext(string_view t) {
  static constexpr string_view kStarts[] = {
      "required from", "required by", "recursively required", "in 'constexpr' expansion",
      "in ‘constexpr’ expansion", "instantiated from", "in instantiation of"};
  for (string_view s : kStarts) {
    if (t.starts_with(s)) return true;
  }
  return false;
}

// "file:line[:col]: severity: message", "program: severity: message", "file: In function 'f':",
// "file:line:col:   required from here", go's "file.go:line:col: message",
// "file(line,col): error CODE: message" (MSVC, tsc), "file:line:col - error TS1: message".
// `sep` is the position of the first ": " in `line`, if the caller knows it.
Located ParseLocated(string_view line, size_t sep = kNone - 1) {
  Located r;
  if (line.empty() || Indented(line)) return r;
  if (sep == kNone - 1) sep = line.find(": ");
  if (sep == kNone) return r;
  if (sep > 0 && sep <= 1024) {
    string_view loc = line.substr(0, sep);
    string_view rest = line.substr(sep + 2);
    string_view path = loc;
    bool has_line = false;
    for (size_t c = loc.find(':'); c != kNone; c = loc.find(':', c + 1)) {
      if (c > 0 && IsLineColumn(loc.substr(c + 1))) {
        path = loc.substr(0, c);
        has_line = true;
        break;
      }
    }
    bool program = !has_line;
    for (size_t k = 0; program && k < loc.size(); ++k) {
      program = loc[k] != ':' && loc[k] != ' ' && loc[k] != '\t';
    }
    bool path_ok = !path.empty() && (path.find(' ') == kNone || path.find('/') != kNone);
    if (path_ok && (has_line || program || loc.find(':') == kNone)) {
      if (has_line && Starts(rest, "***")) {
        r.type = Located::kBuildFail;
        return r;
      }
      if ((has_line || program) && SeverityPrefix(rest, has_line, &r.sev, &r.msg)) {
        r.type = Located::kDiag;
        r.sub = Starts(r.msg, "  ");
        if (has_line) r.file = path;
        return r;
      }
      if (program) {
        // A program's name before a located diagnostic: go vet's "vet: b/b.go:7:14: …".
        const Located inner = ParseLocated(rest);
        if (inner.type == Located::kDiag && !inner.file.empty()) return inner;
      }
      if (has_line) {
        if (IsInstantiationContext(Strip(rest))) {
          r.type = Located::kContext;
          return r;
        }
        if (Ends(path, ".go")) {
          r.type = rest == "too many errors" ? Located::kStatus : Located::kDiag;
          r.file = path;
          r.msg = rest;
          return r;
        }
      } else if ((Starts(rest, "In ") || Starts(rest, "At ")) && line.back() == ':') {
        r.type = Located::kContext;
        return r;
      }
    }
  }
  if (sep == 0 || sep > 1024) return r;
  string_view loc = line.substr(0, sep);
  // "file(12,5): error TS2322: ..." / "file(12): warning C4996: ..."
  if (loc.back() == ')') {
    size_t open = loc.rfind('(');
    if (open != kNone && open > 0) {
      string_view nums = loc.substr(open + 1, loc.size() - open - 2);
      string_view rest = line.substr(sep + 2);
      bool ok = !nums.empty() && IsDigit(nums[0]) &&
                nums.find_first_not_of("0123456789,") == kNone;
      for (auto [word, sev] : {std::pair{string_view("error "), Sev::kError},
                               std::pair{string_view("fatal error "), Sev::kError},
                               std::pair{string_view("warning "), Sev::kWarning}}) {
        if (ok && rest.starts_with(word)) {
          r.type = Located::kDiag;
          r.sev = sev;
          r.file = loc.substr(0, open);
          r.msg = rest.substr(word.size());
          return r;
        }
      }
    }
  }
  // tsc --pretty: "src/a.ts:12:5 - error TS2322: ..." (the first ": " follows the code)
  size_t code = loc.size();
  while (code > 0 && IsDigit(loc[code - 1])) --code;
  if (code < 2 || code == loc.size() || loc[code - 2] != 'T' || loc[code - 1] != 'S') return r;
  size_t dash = loc.find(" - ");
  if (dash != kNone) {
    string_view rest = line.substr(dash + 3);
    string_view where = loc.substr(0, dash);
    size_t c = where.find(':');
    bool ok = c != kNone && c > 0 && IsLineColumn(where.substr(c + 1));
    if (ok && (Starts(rest, "error TS") || Starts(rest, "warning TS"))) {
      r.type = Located::kDiag;
      r.sev = rest[0] == 'e' ? Sev::kError : Sev::kWarning;
      r.file = where.substr(0, c);
      r.msg = rest;
      return r;
    }
  }
  return r;
}

// The kind of a warning, for counting: its flag ("[-Wunused-variable]") or its message up to
// the first quoted name ("unused variable").
string_view WarningKey(string_view head, string_view msg) {
  // A flag or check name in brackets at the end: "[-Wunused-variable]" (gcc, clang),
  // "[bugprone-use-after-move]" (clang-tidy), "[arg-type]" (mypy).
  if (Ends(head, "]")) {
    size_t open = head.rfind('[');
    if (open != kNone && open + 2 < head.size() && head.find(' ', open) == kNone) {
      return head.substr(open);
    }
  }
  size_t end = msg.size();
  for (string_view q : {string_view("‘"), string_view("'"), string_view("`"), string_view("\""),
                        string_view(":")}) {
    end = std::min(end, msg.find(q));
  }
  string_view key = Strip(msg.substr(0, end));
  // "this `if` has identical blocks": the words before the quote say too little.
  if (key.size() < 8) key = Strip(msg);
  if (key.size() > 60) key = key.substr(0, 60);
  // Do not cut a UTF-8 character.
  while (!key.empty() && (static_cast<unsigned char>(key.back()) & 0xC0) == 0x80) key.remove_suffix(1);
  if (!key.empty() && static_cast<unsigned char>(key.back()) >= 0xC0) key.remove_suffix(1);
  return key.empty() ? msg.substr(0, std::min<size_t>(msg.size(), 40)) : key;
}

// cargo's and rustc's own summary lines, which start like diagnostics.
bool IsCargoSummary(string_view line, bool* failure) {
  *failure = false;
  if (Starts(line, "error: ")) {
    for (string_view s : {"could not compile", "aborting due to", "build failed",
                          "process didn't exit successfully", "failed to compile"}) {
      if (line.substr(7).starts_with(s)) {
        *failure = true;
        return true;
      }
    }
    return false;
  }
  if (Starts(line, "warning: ")) {
    string_view rest = line.substr(9);
    if (Starts(rest, "`") && Contains(rest, " generated ")) return true;
    if (Starts(rest, "build failed")) return true;
    return false;
  }
  return false;
}

bool IsOneOf(string_view s, std::initializer_list<string_view> names);

// esbuild's last line: "1 error", "2 warnings and 2 errors", "3 warnings".
bool IsEsbuildTotals(string_view line) {
  const size_t and_at = line.find(" and ");
  for (string_view part : {line.substr(0, and_at), and_at == kNone ? string_view() : line.substr(and_at + 5)}) {
    if (part.empty()) continue;
    const size_t space = part.find(' ');
    if (space == kNone || space == 0 || !IsDigit(part[0])) return false;
    const string_view word = part.substr(space + 1);
    if (word != "error" && word != "errors" && word != "warning" && word != "warnings") return false;
  }
  return !line.empty();
}

// ---- parsing --------------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(const std::vector<string_view>& lines) : lines_(lines) {
    p_.kinds.assign(lines.size(), Kind::kOther);
  }

  Parsed Run() {
    const size_t n = lines_.size();
    for (size_t i = 0; i < n; ++i) {
      if (Continue(i)) continue;
      Classify(i);
    }
    CloseBlock();
    Finish();
    return std::move(p_);
  }

 private:
  enum class Mode { kNone, kCompiler, kRust, kCMake, kBlock, kList, kEsbuild };

  void Set(size_t i, Kind k) { p_.kinds[i] = k; }

  // A line that continues the open multi-line block.
  bool Continue(size_t i) {
    string_view line = lines_[i];
    const bool blank = IsBlank(line);
    switch (mode_) {
      case Mode::kNone:
        return false;
      case Mode::kCompiler:
        if (!blank && Indented(line) && !IsKbuildProgress(line) && CargoVerb(line).empty()) {
          Extend(i, in_note_ ? Kind::kNoteBody : Kind::kDiagBody);
          return true;
        }
        // clang prints a source line that starts in column 1 as it is, then the caret line —
        // in column 1 too when the code it marks starts there ("~~~ ^") — and a fix-it under
        // it ("auto                        -> int", clang-tidy's); not its totals ("1 warning
        // generated.") or the next diagnostic, nor the include chain that leads to it.
        if (!blank && !Indented(line) && ParseLocated(line).type == Located::kNo &&
            !Starts(line, "In file included from ") &&
            ((i + 1 < lines_.size() && IsCaretsOnly(lines_[i + 1])) ||
             (IsCaretsOnly(line) && i > 0 && p_.diags[static_cast<size_t>(open_)].end == i) ||
             (i > 0 && IsCaretsOnly(lines_[i - 1]) &&
              p_.diags[static_cast<size_t>(open_)].end == i &&
              !(Ends(line, " generated.") && IsDigit(line[0])) && !LooksLikeErrorLine(line)))) {
          Extend(i, in_note_ ? Kind::kNoteBody : Kind::kDiagBody);
          return true;
        }
        break;
      case Mode::kRust:
        if (!blank && CargoVerb(line).empty() &&
            (Indented(line) || IsRustGutter(line) || Starts(line, "help:") ||
             Starts(line, "note:") || Starts(line, "= ") ||
             Starts(line, "suggestion:") || line == "...")) {
          Extend(i, Kind::kDiagBody);
          return true;
        }
        break;
      case Mode::kCMake:
        if (blank || Indented(line) || Starts(line, "Call Stack (most recent call first):") ||
            Starts(line, "This warning is for project developers") ||
            Starts(line, "This error is for project developers")) {
          Extend(i, Kind::kDiagBody);
          return true;
        }
        break;
      case Mode::kBlock:  // webpack's ERROR in, vite's error during build: up to a blank line
        // (or what the package manager that ran the tool says after it: "npm error …"), or the
        // next block's heading (the blank lines between them taken out: `| grep -E 'ERROR|Error'`)
        if (!blank && !(Starts(line, "webpack ") && Contains(line, " compiled")) &&
            !Starts(line, "ERROR in ") && !Starts(line, "WARNING in ") &&
            !Starts(line, "npm error") && !Starts(line, "npm ERR!") &&
            !IsScriptFailureEpilogue(line)) {
          Extend(i, Kind::kDiagBody);
          return true;
        }
        // webpack 5 puts a blank line between a message and the paragraph under it ("BREAKING
        // CHANGE: webpack < 5 used to include polyfills …", then the " @ ./src/a.js" trace):
        // a block goes on past a blank line until its trace has been printed.
        if (blank && p_.diags[static_cast<size_t>(open_)].style == Style::kWebpack &&
            !WebpackTraced(p_.diags[static_cast<size_t>(open_)], i) &&
            i + 1 < lines_.size() && !Trim(lines_[i + 1]).empty() &&
            !Starts(lines_[i + 1], "ERROR in ") && !Starts(lines_[i + 1], "WARNING in ") &&
            !Starts(lines_[i + 1], "webpack ") && !Starts(lines_[i + 1], "LOG from ") &&
            !Starts(lines_[i + 1], "asset ") && !Starts(lines_[i + 1], "orphan modules ") &&
            !Starts(lines_[i + 1], "runtime modules ") && !Starts(lines_[i + 1], "cacheable modules ") &&
            !Starts(lines_[i + 1], "modules by ") && !Starts(lines_[i + 1], "./") &&
            !(lines_[i + 1][0] >= '0' && lines_[i + 1][0] <= '9')) {  // "2 errors have …"
          Extend(i, Kind::kDiagBody);
          return true;
        }
        break;
      case Mode::kList:
        if (!blank && Indented(line)) {
          Set(i, list_kind_);
          if (list_names_ != nullptr) {
            for (absl::string_view name : absl::StrSplit(ToAbsl(line), ' ', absl::SkipEmpty())) {
              list_names_->push_back(ToStd(name));
            }
          }
          return true;
        }
        list_names_ = nullptr;
        break;
      case Mode::kEsbuild:  // esbuild's message: its indented lines, blank lines between them
        if (blank || Indented(line)) {
          Extend(i, blank ? Kind::kBlank : Kind::kDiagBody);
          Diag& d = p_.diags[static_cast<size_t>(open_)];
          if (d.file.empty() && !blank) {
            // "    src/api/client.ts:12:0:": where it is.
            const string_view t = Strip(line);
            const size_t colon = t.find(':');
            if (t.ends_with(":") && colon != kNone && colon > 0 && colon + 2 < t.size() &&
                IsLineColumn(t.substr(colon + 1, t.size() - colon - 2))) {
              d.file = t.substr(0, colon);
            }
          }
          return true;
        }
        break;
    }
    CloseBlock();
    return false;
  }

  void Extend(size_t i, Kind k) {
    Set(i, k);
    if (open_ >= 0) p_.diags[static_cast<size_t>(open_)].end = i + 1;
  }

  void CloseBlock() {
    if (mode_ == Mode::kCMake && open_ >= 0) {
      // Blank lines after a cmake message are not part of it.
      Diag& d = p_.diags[static_cast<size_t>(open_)];
      while (d.end > d.head + 1 && IsBlank(lines_[d.end - 1])) {
        --d.end;
        Set(d.end, Kind::kBlank);
      }
    }
    mode_ = Mode::kNone;
    in_note_ = false;
  }

  void StartDiag(size_t i, Sev sev, Style style, string_view file, string_view key, Mode mode) {
    Diag d;
    d.begin = pending_ != kNone ? pending_ : i;
    d.head = i;
    d.end = i + 1;
    d.sev = sev;
    d.style = style;
    d.file = file;
    d.key = key;
    pending_ = kNone;
    Set(i, Kind::kDiagHead);
    p_.diags.push_back(d);
    open_ = static_cast<int>(p_.diags.size()) - 1;
    mode_ = mode;
    in_note_ = false;
  }

  // A note (or gcc's continuation of a diagnostic) extends the open diagnostic.
  bool AttachNote(size_t i) {
    if (open_ < 0) return false;
    Set(i, Kind::kNoteHead);
    p_.diags[static_cast<size_t>(open_)].end = i + 1;
    pending_ = kNone;  // its context lines are inside the diagnostic's range already
    mode_ = Mode::kCompiler;
    in_note_ = true;
    return true;
  }

  void Context(size_t i) {
    Set(i, Kind::kContext);
    if (pending_ == kNone) pending_ = i;
  }

  // Something that is not part of a diagnostic: the open one (and pending context) ends.
  void Plain(size_t i, Kind k) {
    Set(i, k);
    open_ = -1;
    pending_ = kNone;
  }

  void Classify(size_t i) {
    string_view line = lines_[i];
    if (gradle_section_ != GradleSection::kNone) {
      // The lines under Gradle's "* What went wrong:" (kept), "* Try:" and "* Exception is:"
      // (counted), to the next blank line or heading.
      if (IsBlank(line) || Starts(line, "* ")) {
        gradle_section_ = GradleSection::kNone;
      } else {
        const bool wrong = gradle_section_ == GradleSection::kWrong;
        Plain(i, wrong ? Kind::kErrorLine : Kind::kChatter);
        if (wrong) ++p_.error_lines;
        return;
      }
    }
    if (IsBlank(line)) {
      Plain(i, Kind::kBlank);
      return;
    }
    if (after_failed_) {
      // ninja prints the failed edge's command right after "FAILED: target".
      after_failed_ = false;
      uint64_t a, b;
      if (!NinjaProgress(line, &a, &b) && ParseLocated(line).type == Located::kNo) {
        Plain(i, Kind::kCommand);
        return;
      }
    }
    if (Indented(line)) {
      ClassifyIndented(i, line);
      return;
    }
    switch (line[0]) {
      case '[':
        if (ClassifyBracket(i, line)) return;
        break;
      case 'e':
      case 'w':
        if (ClassifyRust(i, line)) return;
        break;
      case 'I':
        if (Starts(line, "In file included from ")) {
          Context(i);
          return;
        }
        break;
      case 'F':
        if (Starts(line, "FAILED: ")) {
          Plain(i, Kind::kBuildFail);
          ++p_.build_fails;
          after_failed_ = true;
          p_.seen_ninja = true;
          return;
        }
        break;
      case 'C':
        if (ClassifyCMakeMessage(i, line)) return;
        break;
      case '-':
        if (Starts(line, "-- ")) {
          ClassifyCMakeStatus(i, line);
          return;
        }
        break;
      case 'E':
      case 'W':
        if (ClassifyCapitalE(i, line)) return;
        break;
      case 'n':
        if (ClassifyNpm(i, line)) return;
        if (Starts(line, "ninja: ")) {
          ClassifyNinja(i, line.substr(7));
          return;
        }
        break;
      case '#':
        if (line.size() > 2 && line[1] == ' ' && line[2] != ' ' && IsGoPackage(line.substr(2))) {
          Context(i);
          p_.seen_go = true;
          return;
        }
        break;
      default:
        break;
    }
    if (ClassifyTools(i, line)) return;
    // The compiler stopped at its limit of errors: clang's "fatal error: too many errors
    // emitted, stopping now", gcc's "compilation terminated due to -fmax-errors=20.".
    if (Starts(line, "fatal error: too many errors emitted") ||
        Starts(line, "compilation terminated due to -fmax-errors") ||
        Starts(line, "compilation terminated due to -Wfatal-errors")) {
      p_.error_limit = true;
    }
    // Diagnostics, make's and the linker's lines all have a ": " (searched for once).
    const size_t sep = line.find(": ");
    if (sep == kNone) {
      if (ClassifyLinkerPrefix(i, line)) return;
      if (ClassifyCompilerStatus(i, line)) return;
      if (IsCommandLine(line)) {
        Command(i, line);
      } else {
        Plain(i, Kind::kOther);
      }
      return;
    }
    string_view make_rest;
    if (MakePrefix(line, &make_rest, nullptr, sep)) {
      ClassifyMake(i, make_rest);
      return;
    }
    if (ClassifyLinker(i, line, sep)) return;
    Located loc = ParseLocated(line, sep);
    switch (loc.type) {
      case Located::kDiag:
        ClassifyLocated(i, line, loc);
        return;
      case Located::kContext:
        Context(i);
        return;
      case Located::kBuildFail:  // "Makefile:12: *** missing separator.  Stop."
        Plain(i, Kind::kBuildFail);
        ++p_.build_fails;
        p_.seen_make = true;
        return;
      case Located::kStatus:
        Plain(i, Kind::kStatus);
        return;
      case Located::kNo:
        break;
    }
    if (ClassifyCompilerStatus(i, line)) return;
    if (IsCommandLine(line)) {
      Command(i, line);
      return;
    }
    Plain(i, Kind::kOther);
  }

  // An echoed command; what it links or archives is an artifact of the build.
  void Command(size_t i, string_view line) {
    Plain(i, Kind::kCommand);
    if (string_view artifact = CommandArtifact(line); !artifact.empty()) {
      p_.linked.push_back(artifact);
    }
  }

  static bool IsGoPackage(string_view s) {
    // "example.com/x/y", "example.com/x [example.com/x.test]", "command-line-arguments"
    size_t space = s.find(' ');
    string_view pkg = space == kNone ? s : s.substr(0, space);
    if (pkg.empty() || pkg.find_first_of("\t:") != kNone) return false;
    if (space != kNone && !(s[space + 1] == '[' && s.back() == ']')) return false;
    return pkg.find('/') != kNone || pkg.find('.') != kNone || pkg == "command-line-arguments" ||
           (space == kNone && pkg.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") == kNone);
  }

  void ClassifyIndented(size_t i, string_view line) {
    string_view verb = CargoVerb(line);
    if (!verb.empty()) {
      ClassifyCargo(i, line, verb);
      return;
    }
    if (IsKbuildProgress(line)) {
      Plain(i, Kind::kProgress);
      // What a step made: "  CC       libcsv_a-parse.o" an object, "  CCLD     csvtool" and
      // "  AR       libcsv.a" an artifact.
      const string_view t = Strip(line);
      const string_view verb = t.substr(0, t.find(' '));
      const string_view made = Strip(t.substr(verb.size()));
      if (IsOneOf(verb, {"CC", "CXX", "AS", "FC", "OBJC"})) {
        ++p_.objects;
      } else if (!made.empty() && made.find(' ') == kNone &&
                 IsOneOf(verb, {"CCLD", "CXXLD", "FCLD", "OBJCLD", "LD", "AR"})) {
        p_.linked.push_back(made);
      }
      return;
    }
    string_view t = Strip(line);
    if (Starts(t, "from ") && i > 0 && p_.kinds[i - 1] == Kind::kContext) {
      Context(i);  // gcc's include chain: "                 from src/main.c:1:"
      return;
    }
    // webpack's module lists: "  ./src/index.js + 2 modules 1.38 KiB [built] [code generated]"
    if (Contains(t, "[built]") || Contains(t, "[code generated]") || Contains(t, "[orphan]") ||
        (Contains(t, "[cached]") && Contains(t, " modules"))) {
      Plain(i, Kind::kChatter);
      p_.seen_webpack = true;
      return;
    }
    if (Starts(t, "run `npm fund`") || Starts(t, "npm audit fix") ||
        Starts(t, "npm fund")) {
      Plain(i, Kind::kChatter);
      return;
    }
    Plain(i, Kind::kOther);
  }

  void ClassifyCargo(size_t i, string_view line, string_view verb) {
    p_.seen_cargo = true;
    if (verb == "Finished") {
      Plain(i, Kind::kStatus);
      p_.success = "finished";
      return;
    }
    if (verb == "Running" || verb == "Executable" || verb == "Installed" || verb == "Replaced") {
      Plain(i, Kind::kStatus);
      return;
    }
    if (verb == "Compiling" || verb == "Checking" || verb == "Documenting") {
      if (verb == "Compiling") ++p_.crates_compiled;
      if (verb == "Checking") ++p_.crates_checked;
      // A crate of the workspace names its directory: "Compiling x v0.1.0 (/home/me/x)".
      size_t open = line.rfind(" (");
      bool local = open != kNone && line.back() == ')' && open + 2 < line.size() &&
                   (line[open + 2] == '/' || line[open + 2] == '.' ||
                    (line.size() > open + 4 && line[open + 3] == ':'));
      if (local && verb != "Documenting") {
        // "   Compiling storage v0.1.0 (/w/storage)": "storage".
        string_view name = Strip(line.substr(line.find(verb) + verb.size()));
        p_.local_crates.push_back(name.substr(0, name.find(' ')));
      }
      Plain(i, local ? Kind::kCrate : Kind::kProgress);
      return;
    }
    Plain(i, Kind::kProgress);
  }

  bool ClassifyBracket(size_t i, string_view line) {
    string_view what = PercentProgress(line);
    if (!what.empty()) {
      p_.seen_cmake = true;
      if (Starts(what, "Built target ")) {
        Plain(i, Kind::kTarget);
        ++p_.targets;
        p_.built_targets.push_back(Strip(what.substr(13)));
        if (Starts(line, "[100%]")) p_.success = "built";
        return true;
      }
      if (Starts(what, "Building ") && Contains(what, " object ")) ++p_.objects;
      if (string_view artifact = LinkedArtifact(what); !artifact.empty()) {
        p_.linked.push_back(artifact);
      }
      Plain(i, Kind::kProgress);
      return true;
    }
    uint64_t done = 0, total = 0;
    if (NinjaProgress(line, &done, &total)) {
      p_.ninja_done = done;
      p_.ninja_total = total;
      p_.seen_ninja = true;
      if (const size_t close = line.find("] "); close != kNone) {
        if (string_view artifact = LinkedArtifact(line.substr(close + 2)); !artifact.empty()) {
          p_.linked.push_back(artifact);
        }
      }
      Plain(i, Kind::kProgress);
      return true;
    }
    return false;
  }

  bool ClassifyRust(size_t i, string_view line) {
    bool failure = false;
    if (IsCargoSummary(line, &failure)) {
      Plain(i, Kind::kStatus);
      p_.failure_signal = p_.failure_signal || failure;
      p_.seen_cargo = true;
      return true;
    }
    Sev sev;
    string_view msg;
    if (Starts(line, "error[") || Starts(line, "warning[")) {
      size_t close = line.find("]: ");
      if (close == kNone) return false;
      sev = line[0] == 'e' ? Sev::kError : Sev::kWarning;
      msg = line.substr(close + 3);
    } else if (Starts(line, "error: ")) {
      sev = Sev::kError;
      msg = line.substr(7);
    } else if (Starts(line, "warning: ")) {
      sev = Sev::kWarning;
      msg = line.substr(9);
    } else {
      return false;
    }
    StartDiag(i, sev, Style::kRust, {}, WarningKey(line, msg), Mode::kRust);
    Count(p_.diags.back());
    return true;
  }

  bool ClassifyCMakeMessage(size_t i, string_view line) {
    Sev sev;
    if (Starts(line, "CMake Error")) {
      sev = Sev::kError;
    } else if (Starts(line, "CMake Warning") || Starts(line, "CMake Deprecation Warning")) {
      sev = Sev::kWarning;
    } else {
      return false;
    }
    p_.seen_cmake = true;
    // "CMake Error at CMakeLists.txt:11 (find_package):", "CMake Error in x/CMakeLists.txt:"
    string_view file;
    size_t at = line.find(" at ");
    if (at == kNone) at = line.find(" in ");
    if (at != kNone) {
      string_view loc = line.substr(at + 4);
      size_t end = loc.find_first_of(": ");
      file = loc.substr(0, end);
    }
    string_view key = line.substr(0, std::min(line.find(" at "), line.find(':')));
    StartDiag(i, sev, Style::kCMake, file, key, Mode::kCMake);
    Count(p_.diags.back());
    return true;
  }

  void ClassifyCMakeStatus(size_t i, string_view line) {
    string_view t = line.substr(3);
    if (!Starts(t, " ")) cmake_check_ = i;
    if (Starts(t, "Configuring incomplete") || Starts(t, "Generating incomplete")) {
      Plain(i, Kind::kStatus);
      p_.failure_signal = true;
      p_.seen_cmake = true;
    } else if (Starts(t, "Configuring done") || Starts(t, "Generating done") ||
               Starts(t, "Build files have been written to")) {
      Plain(i, Kind::kStatus);
      if (!Starts(t, "Configuring done")) p_.success = "configured";
      p_.seen_cmake = true;
    } else if (Starts(t, "The ") && Contains(t, " compiler identification is")) {
      Plain(i, Kind::kStatus);
      p_.seen_cmake = true;
    } else if (Starts(t, "Could NOT find") || LooksLikeErrorLine(t)) {
      Plain(i, Kind::kWarnLine);
      // An indented line continues the check above it ("-- Checking for modules
      // 'zlib>=1.2;libfancycodec>=3.2'", then "--   Package 'libfancycodec' … not found"):
      // that check says what was asked for.
      if (Starts(t, " ") && cmake_check_ != kNone && p_.kinds[cmake_check_] == Kind::kChatter) {
        Set(cmake_check_, Kind::kWarnLine);
      }
    } else if (Starts(t, "Installing: ") || Starts(t, "Up-to-date: ")) {
      Plain(i, Kind::kProgress);
    } else {
      Plain(i, Kind::kChatter);
    }
  }

  // Whether webpack's block `d` printed its " @ ./src/index.js 2:0-50" trace before line `i`.
  bool WebpackTraced(const Diag& d, size_t i) const {
    for (size_t k = d.head + 1; k < i; ++k) {
      if (Starts(lines_[k], " @ ")) return true;
    }
    return false;
  }

  // "ERROR in", "WARNING in" (webpack), "E: ", "W: ", "Err:" (apt), "ERROR: " (pip).
  bool ClassifyCapitalE(size_t i, string_view line) {
    if (Starts(line, "ERROR in ") || Starts(line, "WARNING in ")) {
      p_.seen_webpack = true;
      Sev sev = line[0] == 'E' ? Sev::kError : Sev::kWarning;
      string_view where = line.substr(line.find(" in ") + 4);
      // A module ("./src/x.js 5:0-24"), or what else it is about ("asset size limit: ...").
      const bool module = Starts(where, "./") || Starts(where, "/") || Starts(where, "../");
      string_view file = module ? FirstWord(where) : string_view();
      string_view key = module ? string_view("module warnings")
                               : where.substr(0, std::min(where.find(':'), where.size()));
      StartDiag(i, sev, Style::kWebpack, file, key, Mode::kBlock);
      Count(p_.diags.back());
      return true;
    }
    if (Starts(line, "E: ")) {
      Plain(i, Kind::kErrorLine);
      ++p_.errors;
      ++p_.error_lines;
      return true;
    }
    if (Starts(line, "W: ")) {
      Plain(i, Kind::kWarnLine);
      return true;
    }
    // pip's, gem's, Bazel's: "ERROR: No matching distribution found for flask==3.0.0",
    // "ERROR:  Could not find a valid gem 'nokogiri' (>= 0) in any repository".
    if (Starts(line, "ERROR: ") && !Trim(line.substr(7)).empty()) {
      Plain(i, Kind::kErrorLine);
      ++p_.error_lines;
      return true;
    }
    if (Starts(line, "Err:") && line.size() > 4 && IsDigit(line[4])) {
      Plain(i, Kind::kErrorLine);
      ++p_.error_lines;
      return true;
    }
    if (Starts(line, "Errors were encountered while processing:")) {
      Plain(i, Kind::kErrorLine);
      ++p_.error_lines;
      StartList(Kind::kErrorLine);
      return true;
    }
    return false;
  }

  bool ClassifyNpm(size_t i, string_view line) {
    string_view rest;
    bool error = false;
    if (Starts(line, "npm ERR!")) {
      rest = line.substr(8);
      error = true;
    } else if (Starts(line, "npm error")) {
      rest = line.substr(9);
      error = true;
    } else if (Starts(line, "npm WARN") || Starts(line, "npm warn")) {
      rest = Strip(line.substr(8));
      p_.seen_npm = true;
      Plain(i, Starts(rest, "deprecated ") ? Kind::kDeprecation : Kind::kWarnLine);
      return true;
    } else if (Starts(line, "npm notice") || Starts(line, "npm info") ||
               Starts(line, "npm http") || Starts(line, "npm verb") ||
               Starts(line, "npm timing") || Starts(line, "npm sill")) {
      Plain(i, Kind::kChatter);
      p_.seen_npm = true;
      return true;
    } else {
      return false;
    }
    if (!rest.empty() && rest[0] != ' ') return false;  // "npm errorx"
    p_.seen_npm = true;
    rest = Strip(rest);
    if (rest.empty()) {
      Plain(i, Kind::kBlank);
      return true;
    }
    // The command's usage, printed with a usage error: "Usage:" and its synopsis are kept,
    // the options and their descriptions counted, until npm points to its help.
    if (npm_usage_ > 0) {
      if (Starts(rest, "Run \"npm help") || Starts(rest, "A complete log of this run")) {
        npm_usage_ = 0;
      } else if (npm_usage_++ > 1) {
        Plain(i, Kind::kUsage);
        return true;
      }
    } else if (rest == "Usage:") {
      npm_usage_ = 1;
    }
    // After a script npm ran failed ("Lifecycle script `build` failed with error:", older npm's
    // "code ELIFECYCLE"), the lines restating how it ran are counted: the header says it
    // failed. "Failed at the bcrypt@5.0.1 install script." names what failed: kept.
    if (Starts(rest, "Lifecycle script ") || rest == "code ELIFECYCLE") npm_script_failed_ = true;
    if (npm_script_failed_ && IsScriptFailureEpilogue(line) && !Starts(rest, "Failed at the ")) {
      Plain(i, Kind::kChatter);
      return true;
    }
    Plain(i, Kind::kErrorLine);
    ++p_.error_lines;
    // One error per code, except npm ls's ELSPROBLEMS: its problems are the lines after it
    // ("missing: lodash@4.17.4, required by app@1.3.0", "invalid: …", "extraneous: …").
    if (error && Starts(rest, "code ")) {
      if (rest != "code ELSPROBLEMS") ++p_.errors;
    } else if (error && (Starts(rest, "missing: ") || Starts(rest, "invalid: ") ||
                         Starts(rest, "extraneous: "))) {
      ++p_.errors;
    }
    return true;
  }

  void ClassifyNinja(size_t i, string_view rest) {
    p_.seen_ninja = true;
    if (Starts(rest, "build stopped")) {
      Plain(i, Kind::kStatus);
      p_.failure_signal = true;
    } else if (Starts(rest, "no work to do")) {
      Plain(i, Kind::kStatus);
      p_.success = "up to date";
    } else if (Starts(rest, "error: ")) {
      Plain(i, Kind::kErrorLine);
      ++p_.errors;
      ++p_.error_lines;
    } else if (Starts(rest, "Entering directory") || Starts(rest, "Leaving directory")) {
      Plain(i, Kind::kDirectory);
    } else if (Starts(rest, "warning: ")) {
      Plain(i, Kind::kWarnLine);
    } else {
      Plain(i, Kind::kStatus);
    }
  }

  void ClassifyMake(size_t i, string_view rest) {
    p_.seen_make = true;
    if (Starts(rest, "***")) {
      if (Contains(rest, "Waiting for unfinished jobs")) {
        Plain(i, Kind::kStatus);
      } else {
        Plain(i, Kind::kBuildFail);
        ++p_.build_fails;
      }
    } else if (Starts(rest, "Entering directory") || Starts(rest, "Leaving directory")) {
      Plain(i, Kind::kDirectory);
    } else if (Starts(rest, "Nothing to be done") || Ends(rest, "is up to date.")) {
      Plain(i, Kind::kStatus);
      if (p_.success.empty()) p_.success = "up to date";
    } else if (Starts(rest, "Target ") && Contains(rest, "not remade because of errors")) {
      Plain(i, Kind::kStatus);
      p_.failure_signal = true;
    } else if (Starts(rest, "warning: ")) {
      Plain(i, Kind::kWarnLine);
    } else {
      Plain(i, Kind::kOther);
    }
  }

  // lld's ">>> referenced by" lines and macOS ld's "Undefined symbols" list: no ": " in them.
  bool ClassifyLinkerPrefix(size_t i, string_view line) {
    if (Starts(line, "Undefined symbols for architecture")) {
      Plain(i, Kind::kLinker);
      ++p_.linker_errors;
      StartList(Kind::kLinker);
      return true;
    }
    if (Starts(line, ">>> ")) {
      Plain(i, Kind::kLinker);
      return true;
    }
    return false;
  }

  bool ClassifyLinker(size_t i, string_view line, size_t sep) {
    if (ClassifyLinkerPrefix(i, line)) return true;
    // "main.c:(.text+0x2a): undefined reference to `pow'", "/usr/bin/ld: x.o: in function `f':"
    bool undefined =
        sep > 0 && line[sep - 1] == ')' && Starts(line.substr(sep + 2), "undefined reference to ");
    bool linker = undefined;
    string_view token = line.substr(0, sep);
    if (!linker && sep < 200 &&
        (Ends(token, "ld") || Ends(token, "ld.bfd") || Ends(token, "ld.gold") ||
         Ends(token, "mold") || Ends(token, "ld64"))) {
      string_view name = BaseName(token);
      linker = name == "ld" || Starts(name, "ld.") || Ends(name, "-ld") ||
               name == "ld64.lld" || name == "lld" || name == "mold" || name == "ld64";
      undefined = linker && (Contains(line, "undefined reference to ") ||
                             Contains(line, "undefined symbol"));
    }
    if (!linker) return false;
    Plain(i, Kind::kLinker);
    p_.seen_compiler = true;
    if (undefined) {
      ++p_.undefined_refs;
    } else if (!Contains(line, ": in function ") && !Starts(line, ">>> ") &&
               !Contains(line, "warning: ") &&
               (Contains(line, "cannot find") || Contains(line, "multiple definition") ||
                Contains(line, "error") || Contains(line, "not found") ||
                Contains(line, "relocation "))) {
      ++p_.linker_errors;
    }
    return true;
  }

  void ClassifyLocated(size_t i, string_view line, const Located& loc) {
    p_.seen_compiler = true;
    if (loc.sev == Sev::kNote || loc.sub) {
      if (AttachNote(i)) return;
    }
    // Gradle 4 prints its task's name with no break before javac's first line:
    // ":compileJava/src/X.java:8: warning: …" is about /src/X.java.
    string_view file = loc.file;
    if (Starts(file, ":") && IsGradle4Task(file.substr(0, std::min(file.find('/'), file.size())))) {
      file.remove_prefix(std::min(file.find('/'), file.size()));
    }
    StartDiag(i, loc.sev, Style::kCompiler, file,
              loc.sev == Sev::kWarning ? WarningKey(line, loc.msg) : string_view(),
              Mode::kCompiler);
    Count(p_.diags.back());
  }

  bool ClassifyCompilerStatus(size_t i, string_view line) {
    // clang: "2 warnings and 1 error generated.", "1 warning generated."
    if (Ends(line, " generated.") && IsDigit(line[0]) &&
        (Contains(line, " warning") || Contains(line, " error"))) {
      Plain(i, Kind::kStatus);
      // (The errors themselves may be above what is here: `clang++ … 2>&1 | tail -20`.)
      if (Contains(line, " error")) p_.failure_signal = true;
      return true;
    }
    if (line == "compilation terminated." ||
        ((Starts(line, "cc1") || Starts(line, "cc1plus")) &&
         Contains(line, "being treated as errors"))) {
      Plain(i, Kind::kStatus);
      return true;
    }
    if (Starts(line, "Scanning dependencies of target ") ||
        Starts(line, "Consolidate compiler generated dependencies of target ")) {
      Plain(i, Kind::kProgress);
      return true;
    }
    return false;
  }

  // Lines of package managers, bundlers and go recognized by how they start: each tool's in a
  // step of its own, tried in turn.
  bool ClassifyTools(size_t i, string_view line) {
    return ClassifyApt(i, line) || ClassifyNpmResult(i, line) || ClassifyWebpack(i, line) ||
           ClassifyVite(i, line) || ClassifyGo(i, line) || ClassifyRustAside(i, line) ||
           ClassifyGradle(i, line) || ClassifySetuptools(i, line);
  }

  // setuptools' (and distutils') steps, in a `setup.py build` or under pip's "╰─> [46 lines of
  // output]": "running build_ext", "creating build/temp.linux-x86_64-cpython-311", "copying
  // shipcalc/cli.py -> build/lib…", "writing shipcalc.egg-info/PKG-INFO", "writing top-level
  // names to shipcalc.egg-info/…", "reading
  // manifest file '…'", "adding license file 'LICENSE'", "building 'shipcalc._fastrate'
  // extension": progress, counted.
  bool ClassifySetuptools(size_t i, string_view line) {
    const size_t space = line.find(' ');
    const string_view rest = space == string_view::npos ? string_view() : line.substr(space + 1);
    const bool one_word = !rest.empty() && rest.find(' ') == string_view::npos;
    const bool step =
        (Starts(line, "running ") && one_word) || (Starts(line, "creating ") && one_word) ||
        (Starts(line, "copying ") && Contains(rest, " -> ")) ||
        (Starts(line, "writing ") &&
         (one_word || Contains(rest, " to ") || Starts(rest, "manifest file '"))) ||
        Starts(line, "reading manifest file '") || Starts(line, "reading manifest template '") ||
        Starts(line, "adding license file '") ||
        (Starts(line, "building '") && Ends(line, "' extension"));
    if (!step) return false;
    Plain(i, Kind::kProgress);
    return true;
  }

  // Gradle: its tasks ("> Task :app:compileJava", Gradle 4's ":compileJava UP-TO-DATE"), its
  // verdict ("BUILD FAILED in 4s", "FAILURE: Build failed with an exception.") and why ("* What
  // went wrong:"), its hints and chatter; javac's and kotlinc's lines are diagnostics like
  // gcc's. javac's totals ("3 errors", "4 warnings") are status lines.
  bool ClassifyGradle(size_t i, string_view line) {
    if (Starts(line, "> Task :") || IsGradle4Task(line)) {
      p_.seen_gradle = true;
      if (Ends(line, " FAILED")) {
        Plain(i, Kind::kBuildFail);
        ++p_.build_fails;
      } else {
        Plain(i, Kind::kProgress);
      }
      return true;
    }
    if (Starts(line, "BUILD SUCCESSFUL") || Starts(line, "BUILD FAILED") ||
        Starts(line, "FAILURE: Build ")) {
      p_.seen_gradle = p_.seen_gradle || !Starts(line, "BUILD FAILED");  // ant says it too
      Plain(i, Kind::kStatus);
      if (Starts(line, "BUILD SUCCESSFUL")) {
        p_.success = "built";
      } else {
        p_.failure_signal = true;
      }
      return true;
    }
    if (line == "* What went wrong:" || line == "* Try:" || line == "* Exception is:") {
      gradle_section_ = line == "* What went wrong:" ? GradleSection::kWrong : GradleSection::kHelp;
      Plain(i, line == "* What went wrong:" ? Kind::kStatus : Kind::kChatter);
      return true;
    }
    if (Starts(line, "* Get more help at ") ||
        (IsDigit(line[0]) && (Contains(line, " actionable task: ") ||
                              Contains(line, " actionable tasks: "))) ||
        Starts(line, "Starting a Gradle Daemon") || Starts(line, "Daemon will be stopped") ||
        // The JVM's banner, `java -version` run by a wrapper script: which Java, not the build.
        Starts(line, "openjdk version \"") || Starts(line, "java version \"") ||
        Starts(line, "OpenJDK Runtime Environment ") ||
        Starts(line, "Java(TM) SE Runtime Environment ") ||
        (Starts(line, "OpenJDK 64-Bit Server VM ") || Starts(line, "Java HotSpot(TM) 64-Bit ")) ||
        Starts(line, "Deprecated Gradle features were used") ||
        Starts(line, "You can use '--warning-mode all'") ||
        Starts(line, "For more on this, please refer to ") ||
        (Starts(line, "Note: ") && (Contains(line, " unchecked or unsafe operations.") ||
                                    Contains(line, "Recompile with -Xlint:") ||
                                    Contains(line, " uses or overrides a deprecated API")))) {
      Plain(i, Kind::kChatter);
      return true;
    }
    if (IsJavacTotals(line) ||
        (Starts(line, "only showing the first ") && Contains(line, " total"))) {
      Plain(i, Kind::kStatus);  // javac's counts, and its cap on what it shows
      return true;
    }
    return false;
  }

  // Gradle 4's task line: ":compileJava", ":processResources NO-SOURCE", ":test FAILED".
  static bool IsGradle4Task(string_view line) {
    if (line.size() < 2 || line[0] != ':' || !(IsLower(line[1]) || IsUpper(line[1]))) return false;
    const size_t space = line.find(' ');
    for (char c : line.substr(0, space)) {
      if (!(IsLower(c) || IsUpper(c) || IsDigit(c) || c == ':' || c == '_' || c == '-')) return false;
    }
    if (space == kNone) return true;
    return IsOneOf(line.substr(space + 1),
                   {"UP-TO-DATE", "NO-SOURCE", "FAILED", "SKIPPED", "FROM-CACHE"});
  }

  // javac's totals: "3 errors", "1 warning", "100 errors" (it stops there).
  static bool IsJavacTotals(string_view line) {
    size_t d = 0;
    while (d < line.size() && IsDigit(line[d])) ++d;
    if (d == 0) return false;
    const string_view rest = line.substr(d);
    return IsOneOf(rest, {" error", " errors", " warning", " warnings"});
  }

  // apt and dpkg: progress, the package lists, what changes, and why it refused.
  bool ClassifyApt(size_t i, string_view line) {
    switch (line[0]) {
      case 'R':
        if (Starts(line, "Reading package lists") ||
            Starts(line, "Reading state information")) {
          Plain(i, Kind::kChatter);
          p_.seen_apt = true;
          return true;
        }
        if (Starts(line, "Removing ") && Ends(line, "...")) {
          Plain(i, Kind::kProgress);
          return true;
        }
        break;
      case 'B':
        if (Starts(line, "Building dependency tree")) {
          Plain(i, Kind::kChatter);
          p_.seen_apt = true;
          return true;
        }
        break;
      case 'G':
      case 'H':
      case 'I':
        if ((Starts(line, "Get:") || Starts(line, "Hit:") || Starts(line, "Ign:")) &&
            line.size() > 4 && IsDigit(line[4])) {
          Plain(i, Kind::kProgress);
          p_.seen_apt = true;
          return true;
        }
        break;
      case 'S':
        if (Starts(line, "Setting up ")) {
          Plain(i, Kind::kInstalled);
          ++p_.packages;
          p_.seen_apt = true;
          return true;
        }
        if (Starts(line, "Selecting previously unselected package")) {
          Plain(i, Kind::kProgress);
          return true;
        }
        if (line == "Suggested packages:") {
          AptList(i, Kind::kChatter);
          return true;
        }
        break;
      case 'P':
        if (Starts(line, "Preparing to unpack ") || Starts(line, "Processing triggers for ") ||
            Starts(line, "Purging configuration files")) {
          Plain(i, Kind::kProgress);
          return true;
        }
        break;
      case 'U':
        if (Starts(line, "Unpacking ")) {
          Plain(i, Kind::kProgress);
          return true;
        }
        if (Starts(line, "Use 'apt autoremove'") || Starts(line, "Use 'sudo apt autoremove'")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        break;
      case 'F':
        if (Starts(line, "Fetched ") && Contains(line, " in ")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        break;
      case 'N':
        if (Starts(line, "Need to get ")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        break;
      case 'A':
        if (Starts(line, "After this operation")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        break;
      case 'T':
        if (Starts(line, "The following ")) {
          AptFollowing(i, line);
          return true;
        }
        break;
      case 'd':
        if (Starts(line, "debconf: ")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        if (Starts(line, "dpkg: error") || Starts(line, "dpkg: dependency problems")) {
          Plain(i, Kind::kErrorLine);
          ++p_.error_lines;
          return true;
        }
        break;
      case '(':
        if (Starts(line, "(Reading database")) {
          Plain(i, Kind::kProgress);
          return true;
        }
        break;
      default:
        // "0 upgraded, 2 newly installed, 0 to remove and 136 not upgraded.": what changes
        // decides, whatever one package "is already the newest version" said before it.
        if (IsDigit(line[0]) && Contains(line, " upgraded, ") &&
            Contains(line, " newly installed")) {
          Plain(i, Kind::kStatus);
          p_.seen_apt = true;
          const bool changes = CountBefore(line, "upgraded").value_or(0) +
                                   CountBefore(line, "newly installed").value_or(0) +
                                   CountBefore(line, "to remove").value_or(0) >
                               0;
          if (p_.success.empty() || p_.success == "up to date") {
            p_.success = changes ? "ok" : "up to date";
          }
          return true;
        }
        break;
    }
    // apt-get -s (simulate): what it would do, "Inst x [old] (new …)", "Conf x (…)", "Remv x
    // [old]": counted, the packages being named in its lists above.
    if ((Starts(line, "Inst ") || Starts(line, "Conf ") || Starts(line, "Remv ") ||
         Starts(line, "Purg ")) &&
        (Contains(line, " (") || Contains(line, " ["))) {
      Plain(i, Kind::kProgress);
      p_.apt_simulated = true;
      return true;
    }
    if (Starts(line, "WARNING: apt does not have a stable CLI interface") ||
        Starts(line, "Created symlink ") || Starts(line, "update-alternatives: ")) {
      Plain(i, Kind::kChatter);
      return true;
    }
    if (Ends(line, ").") && Contains(line, " is already the newest version")) {
      Plain(i, Kind::kStatus);
      if (p_.success.empty()) p_.success = "up to date";
      return true;
    }
    return false;
  }

  // apt's "The following …" lists: what it installs, upgrades or removes is kept, and so is
  // why it refused (each package's "Depends: x (>= 2.39) but 2.36 is to be installed").
  void AptFollowing(size_t i, string_view line) {
    const bool keep = Contains(line, " NEW packages") || Contains(line, " will be upgraded") ||
                      Contains(line, " will be REMOVED") || Contains(line, " DOWNGRADED") ||
                      Contains(line, " held packages will be changed") ||
                      Contains(line, " have been kept back");
    if (Contains(line, " unmet dependencies")) {
      Plain(i, Kind::kErrorLine);
      ++p_.error_lines;
      StartList(Kind::kErrorLine);
    } else if (keep) {
      Plain(i, Kind::kStatus);
      StartList(Kind::kListItem, Contains(line, " NEW packages") ? &p_.apt_new : nullptr);
    } else {
      AptList(i, Kind::kChatter,
              Contains(line, " additional packages will be installed") ? &p_.apt_additional
                                                                        : nullptr);
    }
    p_.seen_apt = true;
  }

  // npm and yarn: what an install changed, funding and audit results.
  bool ClassifyNpmResult(size_t i, string_view line) {
    switch (line[0]) {
      case 'a':
        if ((Starts(line, "added ") || Starts(line, "audited ")) && Contains(line, " package")) {
          NpmResult(i);
          return true;
        }
        break;
      case 'r':
        if (Starts(line, "removed ") && Contains(line, " package")) {
          NpmResult(i);
          return true;
        }
        break;
      case 'c':
        if (Starts(line, "changed ") && Contains(line, " package")) {
          NpmResult(i);
          return true;
        }
        break;
      case 'u':
        if (Starts(line, "up to date") && (Contains(line, "audited") || Contains(line, " in "))) {
          NpmResult(i);
          p_.success = "up to date";
          return true;
        }
        break;
      case 'f':
        if (Starts(line, "found ") && Contains(line, "vulnerabilit")) {
          Plain(i, Kind::kStatus);
          p_.seen_npm = true;
          return true;
        }
        break;
      case 'R':
        if (Starts(line, "Run `npm audit` for details")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        break;
      case 'T':
        if (Starts(line, "To address ")) {
          Plain(i, Kind::kChatter);
          return true;
        }
        break;
      default:
        // "18 packages are looking for funding", "3 vulnerabilities (1 low, 2 high)"
        if (IsDigit(line[0]) &&
            (Contains(line, " looking for funding") || Contains(line, " vulnerabilit"))) {
          Plain(i, Kind::kStatus);
          p_.seen_npm = true;
          return true;
        }
        break;
    }
    return false;
  }

  // webpack: its assets, the module lists it prints after them, and its verdict.
  bool ClassifyWebpack(size_t i, string_view line) {
    if (Starts(line, "asset ") && (Contains(line, " bytes") || Contains(line, "iB"))) {
      Plain(i, Kind::kAsset);
      p_.assets.push_back(FirstWord(line.substr(6)));
      p_.seen_webpack = true;
      return true;
    }
    if (Starts(line, "assets by ")) {
      Plain(i, Kind::kChatter);
      p_.seen_webpack = true;
      return true;
    }
    if (Starts(line, "runtime modules ") || Starts(line, "cacheable modules ") ||
        Starts(line, "orphan modules ") || Starts(line, "modules by ") ||
        Starts(line, "javascript modules ")) {
      Plain(i, Kind::kChatter);
      return true;
    }
    if (Starts(line, "webpack ") && Contains(line, " compiled")) {
      Plain(i, Kind::kStatus);
      p_.seen_webpack = true;
      if (Contains(line, "successfully")) {
        p_.success = "compiled successfully";
      } else if (Contains(line, " error")) {
        p_.failure_signal = true;
      } else if (p_.success.empty()) {
        p_.success = "compiled";
      }
      return true;
    }
    // "2 errors have detailed information that is not shown." and its hint.
    if ((IsDigit(line[0]) && Contains(line, " detailed information that is not shown")) ||
        Starts(line, "Use 'stats.errorDetails: true'")) {
      Plain(i, Kind::kChatter);
      return true;
    }
    return false;
  }

  // vite (rollup): progress, the assets it wrote, its warnings and its verdict.
  bool ClassifyVite(size_t i, string_view line) {
    if (Starts(line, "rendering chunks") || Starts(line, "computing gzip size") ||
        Starts(line, "transforming")) {
      Plain(i, Kind::kProgress);
      return true;
    }
    if (Starts(line, "dist/") && IsViteAsset(line)) {
      Plain(i, Kind::kAsset);
      p_.assets.push_back(FirstWord(line));
      p_.seen_vite = true;
      return true;
    }
    if (Starts(line, "(!) ")) {  // a rollup warning
      StartDiag(i, Sev::kWarning, Style::kVite, {}, string_view("(!)"), Mode::kBlock);
      Count(p_.diags.back());
      return true;
    }
    if (Starts(line, "vite v") && Contains(line, " building")) {
      Plain(i, Kind::kStatus);
      p_.seen_vite = true;
      return true;
    }
    if (Starts(line, "\xE2\x9C\x93 ")) {  // "✓ 6 modules transformed.", "✓ built in 258ms"
      Plain(i, Kind::kStatus);
      p_.seen_vite = true;
      if (line.substr(4).starts_with("built in")) p_.success = "built";
      return true;
    }
    if (Starts(line, "\xE2\x9C\x97 ")) {  // "✗ Build failed in 75ms"
      Plain(i, Kind::kStatus);
      p_.seen_vite = true;
      p_.failure_signal = true;
      return true;
    }
    // esbuild's messages (esbuild itself, and the tools built on it: tsup, vite's transforms):
    // "✘ [ERROR] Expected \")\" but found \"}\"", "▲ [WARNING] … [duplicate-object-key]", then
    // their indented location, code frame and notes.
    if (Starts(line, "\xE2\x9C\x98 [ERROR] ") || Starts(line, "\xE2\x96\xB2 [WARNING] ")) {
      const bool error = Starts(line, "\xE2\x9C\x98 ");
      p_.seen_esbuild = true;
      StartDiag(i, error ? Sev::kError : Sev::kWarning, Style::kVite, {}, {}, Mode::kEsbuild);
      Count(p_.diags.back());
      return true;
    }
    if (p_.seen_esbuild && IsEsbuildTotals(line)) {  // "2 warnings and 2 errors"
      Plain(i, Kind::kStatus);
      if (Contains(line, " error")) p_.failure_signal = true;
      return true;
    }
    if (Starts(line, "error during build:")) {
      p_.seen_vite = true;
      StartDiag(i, Sev::kError, Style::kVite, {}, {}, Mode::kBlock);
      Count(p_.diags.back());
      return true;
    }
    return false;
  }

  // go's own messages: "go: downloading …" is progress, what `go get` changed ("go: added
  // golang.org/x/text v0.14.0", "upgraded", "downgraded", "removed") its outcome, any other
  // "go: …" an error.
  bool ClassifyGo(size_t i, string_view line) {
    if (!Starts(line, "go: ")) return false;
    const string_view rest = line.substr(4);
    p_.seen_go = true;
    if (Starts(rest, "downloading ") || Starts(rest, "finding ") || Starts(rest, "extracting ")) {
      Plain(i, Kind::kProgress);
    } else if (Starts(rest, "added ") || Starts(rest, "upgraded ") ||
               Starts(rest, "downgraded ") || Starts(rest, "removed ")) {
      Plain(i, Kind::kStatus);
    } else {
      Plain(i, Kind::kErrorLine);
      ++p_.error_lines;
    }
    return true;
  }

  // rustc's pointers to `rustc --explain`, after every failed compile.
  bool ClassifyRustAside(size_t i, string_view line) {
    if (Starts(line, "Some errors have detailed explanations: ") ||
        ((Starts(line, "For more information about this error, try `") ||
          Starts(line, "For more information about an error, try `")) &&
         Contains(line, " --explain "))) {
      Plain(i, Kind::kChatter);
      return true;
    }
    return false;
  }

  static bool IsViteAsset(string_view line) {
    return Contains(line, " kB") || Contains(line, " B ") || Ends(line, " B");
  }

  void NpmResult(size_t i) {
    Plain(i, Kind::kStatus);
    p_.seen_npm = true;
    if (p_.success.empty()) p_.success = "ok";
  }

  void AptList(size_t i, Kind item_kind, std::vector<string_view>* names = nullptr) {
    Plain(i, Kind::kChatter);
    StartList(item_kind, names);
  }

  // The lines that follow, while indented, are a list's items of `item_kind`; their
  // space-separated names go to `names` when it is given.
  void StartList(Kind item_kind, std::vector<string_view>* names = nullptr) {
    mode_ = Mode::kList;
    list_kind_ = item_kind;
    list_names_ = names;
  }

  void Count(Diag& d) {
    if (d.sev == Sev::kError) {
      d.rank = p_.errors++;
    } else if (d.sev == Sev::kWarning) {
      d.rank = p_.warnings++;
    }
  }

  void Finish() {
    // Files, duplicates, and rustc's location (" --> src/main.rs:4:18").
    // Repeats matter only where a diagnostic would be shown in full: among the first ones.
    absl::flat_hash_set<std::pair<string_view, string_view>> heads;
    string_view last_file;
    for (Diag& d : p_.diags) {
      string_view where;  // rustc's headings carry no location: the line after does
      if (d.style == Style::kRust) {
        for (size_t j = d.head + 1; j < d.end && j < d.head + 4; ++j) {
          string_view t = Strip(lines_[j]);
          if (!Starts(t, "--> ")) continue;
          where = t;
          string_view loc = t.substr(4);
          for (size_t c = loc.find(':'); c != kNone && d.file.empty(); c = loc.find(':', c + 1)) {
            if (c > 0 && IsLineColumn(loc.substr(c + 1))) d.file = loc.substr(0, c);
          }
          break;
        }
      }
      if (d.sev == Sev::kNote) continue;
      if (d.rank < std::max(kFullErrors, kFullWarnings) &&
          !heads.insert({lines_[d.head], where}).second) {
        d.duplicate = true;
      }
      if (!d.file.empty() && d.file != last_file) {
        p_.files.insert(d.file);
        last_file = d.file;
      }
      if (!d.file.empty() && d.sev == Sev::kError) p_.error_files.insert(d.file);
    }
    // ninja's last step done: the build ran to its end.
    if (p_.success.empty() && p_.ninja_total > 0 && p_.ninja_done == p_.ninja_total) {
      p_.success = "built";
    }
    // What a program the build ran printed when it crashed (`make run`, `npm start`): its
    // trace's frames in the standard library or node_modules are counted, its own kept.
    // So is a sanitizer's map of the shadow memory around a bad address, with its legend.
    const std::vector<bool> library = LibraryFrameLines(lines_);
    const std::vector<bool> shadow_map = ShadowMapLines(lines_);
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (p_.kinds[i] != Kind::kOther) continue;
      if (library[i]) p_.kinds[i] = Kind::kLibFrame;
      if (shadow_map[i]) p_.kinds[i] = Kind::kShadowMap;
    }
    for (Kind& k : p_.kinds) ++p_.kind_count[static_cast<size_t>(k)];
  }

  const std::vector<string_view>& lines_;
  Parsed p_;
  Mode mode_ = Mode::kNone;
  Kind list_kind_ = Kind::kChatter;
  std::vector<string_view>* list_names_ = nullptr;  // where an apt list's names go, if anywhere
  int open_ = -1;
  size_t pending_ = kNone;
  size_t cmake_check_ = kNone;  // the last cmake status line that is not indented
  bool in_note_ = false;
  bool after_failed_ = false;
  enum class GradleSection : uint8_t { kNone, kWrong, kHelp } gradle_section_ = GradleSection::kNone;
  size_t npm_usage_ = 0;  // lines into npm's usage text, from its "Usage:" line; 0 outside
  bool npm_script_failed_ = false;  // npm said a script it ran failed
};

// ---- the summary ----------------------------------------------------------------------------

string_view CategoryName(Kind k) {
  switch (k) {
    case Kind::kBlank: return "blank";
    case Kind::kProgress: return "build progress";
    case Kind::kCommand: return "commands";
    case Kind::kDirectory: return "directory changes";
    case Kind::kChatter: return "informational";
    case Kind::kStatus: return "status";
    case Kind::kTarget: return "built targets";
    case Kind::kAsset: return "assets";
    case Kind::kCrate: return "crates";
    case Kind::kInstalled: return "packages set up";
    case Kind::kListItem: return "package list";
    case Kind::kBuildFail: return "failed targets";
    case Kind::kLinker: return "linker";
    case Kind::kErrorLine: return "error lines";
    case Kind::kWarnLine: return "warning lines";
    case Kind::kDeprecation: return "deprecation warnings";
    case Kind::kUsage: return "lines of usage text";
    case Kind::kLibFrame: return "library stack frames";
    case Kind::kShadowMap: return "lines of the sanitizer's shadow memory map";
    case Kind::kContext:
    case Kind::kDiagHead:
    case Kind::kDiagBody:
    case Kind::kNoteHead:
    case Kind::kNoteBody: return "source lines and notes";
    case Kind::kOther:
    case Kind::kCount: break;
  }
  return "other";
}

// The name of one line of a category: "1 command", "1 line of those warnings".
std::string CategoryOne(string_view name) {
  static constexpr std::pair<string_view, string_view> kOne[] = {
      {"commands", "command"},
      {"directory changes", "directory change"},
      {"built targets", "built target"},
      {"assets", "asset"},
      {"crates", "crate"},
      {"packages set up", "package set up"},
      {"failed targets", "failed target"},
      {"error lines", "error line"},
      {"warning lines", "warning line"},
      {"deprecation warnings", "deprecation warning"},
      {"lines of those warnings", "line of those warnings"},
      {"lines of those errors", "line of those errors"},
      {"source lines and notes", "source line or note"},
      {"underlines", "underline"},
      {"lines of notes shown above", "line of a note shown above"}};
  for (const auto& [many, one] : kOne) {
    if (name == many) return std::string(one);
  }
  return std::string(name);
}

// Where a line that was left out is counted in the final marker.
enum class Cat : uint8_t {
  kOfKind, kHiddenWarning, kHiddenError, kDetail, kUnderline, kRepeatedNote
};

// A JavaScript stack frame in a library or the runtime ("at f (node_modules/x.js:1:2)",
// "at async Promise.all (index 3)"): not the user's code.
bool IsLibraryFrame(string_view line) {
  string_view t = Strip(line);
  if (!Starts(t, "at ")) return false;
  // A frame: "at where (file:line:col)", "at async f (index 3)", or "at file:line:col"; not a
  // message wrapped before "at" ("  at least version \"1.99\")", cmake's).
  const string_view where = t.substr(3);
  const bool frame = (t.back() == ')' && Contains(t, " (")) ||
                     (where.find(' ') == kNone && where.find(':') != kNone);
  if (!frame) return false;
  return InLibraryPath(t) || t.find_first_of("/\\") == kNone;
}

// A diagnostic located in a header of the system or the compiler: "/usr/include/…",
// "/usr/lib/gcc/…", "/usr/local/include/…", "…/include/c++/12/…", "/Library/Developer/…".
bool IsSystemHeaderLocation(string_view line) {
  return Starts(line, "/usr/include/") || Starts(line, "/usr/lib/gcc/") ||
         Starts(line, "/usr/local/include/") || Starts(line, "/Library/Developer/") ||
         Contains(line.substr(0, line.find(": ")), "/include/c++/");
}

// A line in a system header without the template arguments its function names are bound to:
// each "[with _Key = Endpoint; _Tp = int; _Hash = std::hash<Endpoint>; …]" g++ spells out is
// "[with …]". Nullopt for a line of the user's code, or one without such a clause.
std::optional<std::string> WithoutTemplateBindings(string_view line) {
  if (!IsSystemHeaderLocation(line) || !Contains(line, " [with ")) return std::nullopt;
  std::string out;
  size_t from = 0;
  for (size_t at = line.find(" [with "); at != kNone; at = line.find(" [with ", from)) {
    size_t depth = 0, end = at + 1;
    for (; end < line.size(); ++end) {
      if (line[end] == '[') ++depth;
      if (line[end] == ']' && --depth == 0) break;
    }
    if (end == line.size()) break;  // no closing bracket: leave the rest as it is
    out.append(line.substr(from, at - from));
    out.append(" [with …]");
    from = end + 1;
  }
  if (from == 0) return std::nullopt;
  out.append(line.substr(from));
  return out;
}

// The part of a line of gcc -fanalyzer's path after its gutters ("    |      |   (1) opened
// here" -> "(1) opened here"): leading spaces and '|'s.
string_view AfterAnalyzerGutters(string_view line) {
  const size_t at = line.find_first_not_of(" |");
  return at == kNone ? string_view() : line.substr(at);
}

// An event of gcc -fanalyzer's path: "(1) opened here", "(7) ‘f’ leaks here; was opened at
// (1)", under its gutters.
bool IsAnalyzerEvent(string_view line) {
  if (!Starts(Strip(line), "|")) return false;
  const string_view t = AfterAnalyzerGutters(line);
  size_t k = 1;
  while (k < t.size() && t[k] >= '0' && t[k] <= '9') ++k;
  return t.size() > 4 && t[0] == '(' && k > 1 && k + 1 < t.size() && t[k] == ')' && t[k + 1] == ' ';
}

// A source line of gcc -fanalyzer's path: "    |   13 |   FILE *f = fopen(path, \"r\");".
bool AnalyzerSourceLine(string_view line) {
  const string_view t = Strip(line);
  if (!Starts(t, "|")) return false;
  const string_view rest = Strip(t.substr(1));
  size_t k = 0;
  while (k < rest.size() && rest[k] >= '0' && rest[k] <= '9') ++k;
  return k > 0 && rest.substr(k).find_first_not_of(' ') != kNone &&
         rest[rest.find_first_not_of(' ', k)] == '|';
}

// rustc's note that a lint warns by default ("   = note: `#[warn(unused_mut)]` (part of
// `#[warn(unused)]`) on by default"), under the first warning of each lint: it names the lint.
bool IsLintLevelNote(string_view line) {
  const string_view t = Strip(line);
  return Starts(t, "= note: `#[") && Ends(t, " on by default");
}

// clippy's link to a lint's documentation, under every warning ("   = help: for further
// information visit https://rust-lang.github.io/rust-clippy/…#needless_return").
bool IsDocsLinkNote(string_view line) {
  return Starts(Strip(line), "= help: for further information visit ");
}

// rustc's location line of a diagnostic (" --> src/main.rs:6:39"), or kNone.
size_t RustArrow(const std::vector<string_view>& lines, const Diag& d) {
  for (size_t i = d.head + 1; i < d.end && i < d.head + 4; ++i) {
    if (Strip(lines[i]).starts_with("--> ")) return i;
  }
  return kNone;
}

// esbuild's location under its heading, after a blank line: "    src/m0.ts:1:45:".
size_t EsbuildLocation(const std::vector<string_view>& lines, const Diag& d) {
  const string_view head = lines[d.head];
  if (!Starts(head, "\xE2\x9C\x98 [ERROR] ") && !Starts(head, "\xE2\x96\xB2 [WARNING] ")) {
    return kNone;
  }
  for (size_t i = d.head + 1; i < d.end && i < d.head + 4; ++i) {
    const string_view t = Strip(lines[i]);
    const size_t colon = t.find(':');
    if (t.ends_with(":") && colon != kNone && colon > 0 && colon + 2 < t.size() &&
        IsLineColumn(t.substr(colon + 1, t.size() - colon - 2))) {
      return i;
    }
  }
  return kNone;
}

class Writer {
 public:
  // `full`: keep where problems happened (progress anchors, targets); `failed`: also keep the
  // last progress line, which shows how far the build got.
  // `requested`: the command's arguments (the packages an install was asked for).
  Writer(const std::vector<string_view>& lines, const Parsed& p, bool full, bool failed,
         std::vector<std::string> requested, SummaryWriter& out)
      : lines_(lines), p_(p), full_(full), failed_(failed), requested_(std::move(requested)),
        out_(out), used_(lines.size(), 0) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (p.kinds[i] == Kind::kProgress || p.kinds[i] == Kind::kCrate) {
        last_progress_overall_ = i;
      }
    }
    // Lines of kinds shown in the main loop (context outside a diagnostic is plain output).
    size_t d = 0;
    for (size_t i = 0; i < lines.size();) {
      if (d < p.diags.size() && p.diags[d].begin == i) {
        i = p.diags[d++].end;
        continue;
      }
      Kind k = p.kinds[i] == Kind::kContext ? Kind::kOther : p.kinds[i];
      ++totals_[static_cast<size_t>(k)];
      ++i;
    }
    // Errors and warnings grouped by message (diagnostic_groups.h): each group's first is
    // shown — in full among the first kFullErrors (kFullWarnings), else by its heading line —
    // and the others as a list of their locations after it, so a message the tool repeats at
    // 30 places is read once and no diagnostic's location is left out (the budget keeps
    // errors first). Among the first, only a message repeated to the letter is listed; rustc's
    // ("error[E0308]: mismatched types") say what differs under them, and are not.
    member_.assign(p.diags.size(), kNone);
    std::vector<LabelledDetail> details;
    for (size_t k = 0; k < p.diags.size(); ++k) {
      const Diag& diag = p.diags[k];
      // An error in a system header is not listed: its heading keeps the user's lines of its
      // instantiation chain ("src/main.cpp:8:15:   required from here"), a list would lose them.
      if (diag.duplicate || IsSystemHeaderLocation(lines[diag.head])) continue;
      if (diag.sev == Sev::kNote) continue;
      const bool first = diag.rank < (diag.sev == Sev::kError ? kFullErrors : kFullWarnings);
      // A warning in a file with errors keeps its heading line (Decide), unless it repeats
      // one before to the letter.
      const Grouping grouping = first ? Grouping::kVerbatim
                                : diag.sev == Sev::kWarning && InErrorFile(diag)
                                    ? Grouping::kRepeatOnly
                                    : Grouping::kByShape;
      const std::string_view like = diag.sev == Sev::kError ? "errors like it" : "warnings like it";
      const string_view heading = lines[diag.head];
      if (diag.style == Style::kRust) {
        if (grouping != Grouping::kByShape) continue;
        // "error[E0308]: mismatched types", located by its " --> src/main.rs:6:39" line.
        const size_t sep = heading.find(": ");
        const size_t arrow = RustArrow(lines, diag);
        if (sep == kNone || arrow == kNone) continue;
        member_[k] = groups_.size();
        member_diag_.push_back(k);
        // The location without its arrow ("src/main.rs:6:39"): a list names hundreds.
        string_view where = Strip(lines[arrow]);
        if (where.starts_with("--> ")) where.remove_prefix(4);
        groups_.Add(heading.substr(0, sep), like, heading.substr(sep + 2), where);
        continue;
      }
      if (diag.style != Style::kCompiler) continue;
      const size_t sep = heading.find(": ");
      const Located loc = ParseLocated(heading, sep);
      if (loc.type != Located::kDiag || loc.file.empty() || sep == kNone || loc.msg.empty() ||
          loc.msg.data() < heading.data() + sep) {
        continue;
      }
      // The kind: what comes between the location and the message ("error", "error C2065").
      const string_view kind = heading.substr(sep + 2, loc.msg.data() - heading.data() - sep - 2);
      // Labelled lines under it name what it is about (javac's "  symbol:   variable total").
      LabelledDetails(lines, diag.head + 1, diag.end, &details);
      const size_t index = groups_.size();
      if (groups_.Add(kind, like, loc.msg, heading.substr(0, sep), details, grouping)) {
        member_[k] = index;
        member_diag_.push_back(k);
      }
    }
    leader_shown_.assign(groups_.size(), false);
    // Which are shown in full: the first kFullErrors errors and kFullWarnings warnings that do
    // not repeat the message of one before (those are in its list).
    in_full_.assign(p.diags.size(), false);
    size_t full_errors = 0, full_warnings = 0;
    for (size_t k = 0; k < p.diags.size(); ++k) {
      const Diag& diag = p.diags[k];
      if (diag.sev == Sev::kNote || (member_[k] != kNone && !groups_.Leads(member_[k]))) continue;
      size_t& shown = diag.sev == Sev::kError ? full_errors : full_warnings;
      if (shown < (diag.sev == Sev::kError ? kFullErrors : kFullWarnings)) {
        in_full_[k] = true;
        ++shown;
      }
    }
  }

  void Write() {
    size_t d = 0;
    const size_t n = lines_.size();
    for (size_t i = 0; i < n;) {
      if (d < p_.diags.size() && p_.diags[d].begin == i) {
        const Diag& diag = p_.diags[d++];
        WriteDiag(diag);
        i = diag.end;
        continue;
      }
      i = WriteLine(i);
    }
    FlushGap();
    for (size_t i = 0; i < n; ++i) {
      if (used_[i] == 0) Drop(i);
    }
    WriteTotals();
  }

 private:
  // ---- bookkeeping
  void Emit(size_t i) {
    if (used_[i]) return;
    FlushGap();
    if (std::optional<std::string> shorter = WithoutTemplateBindings(lines_[i])) {
      out_.Composed(*shorter, {lines_[i]});
    } else {
      out_.Line(lines_[i]);
    }
    used_[i] = 1;
    last_emitted_ = i;
  }
  void Drop(size_t i, Cat cat = Cat::kOfKind) {
    if (used_[i] != 0) return;  // shown, or counted already
    used_[i] = 2;  // counted in the final marker
    switch (cat) {
      case Cat::kOfKind: {
        Kind k = p_.kinds[i] == Kind::kContext ? Kind::kOther : p_.kinds[i];
        ++dropped_[static_cast<size_t>(k)];
        break;
      }
      case Cat::kHiddenWarning: ++hidden_warning_lines_; break;
      case Cat::kHiddenError: ++hidden_error_lines_; break;
      case Cat::kUnderline: ++underline_lines_; break;
      case Cat::kRepeatedNote: ++repeated_note_lines_; break;
      case Cat::kDetail:
        if (IsBlank(lines_[i])) {
          ++dropped_[static_cast<size_t>(Kind::kBlank)];
        } else {
          ++dropped_[static_cast<size_t>(Kind::kDiagBody)];
        }
        break;
    }
  }
  void FlushGap() {
    if (gap_ == 0) return;
    uint64_t g = gap_;
    gap_ = 0;
    out_.ElidedLines(g, g == 1 ? "line of other output omitted" : "lines of other output omitted");
  }
  size_t Rank(Kind k) { return rank_[static_cast<size_t>(k)]++; }
  uint64_t Total(Kind k) const { return totals_[static_cast<size_t>(k)]; }

  // Before a problem: the directory make was in and the build step that was running.
  void Anchors(size_t at) {
    if (!full_) return;
    size_t dir = kNone;
    // The directory of the make that printed it ("make[2]: ***" is level 2; a compiler's
    // message belongs to the directory entered last).
    int level = -1;
    string_view rest;
    if (at < lines_.size() && p_.kinds[at] == Kind::kBuildFail) MakePrefix(lines_[at], &rest, &level);
    for (size_t k = dirs_.size(); k-- > 0 && level != 0;) {
      if (level < 0 || dirs_[k].second == level) {
        if (used_[dirs_[k].first] == 0) dir = dirs_[k].first;
        break;
      }
    }
    size_t prog = (last_progress_ != kNone && !used_[last_progress_] &&
                   (last_emitted_ == kNone || last_progress_ > last_emitted_) && last_progress_ < at)
                      ? last_progress_
                      : kNone;
    if (dir != kNone && prog != kNone && prog < dir) std::swap(dir, prog);
    if (dir != kNone) Emit(dir);
    if (prog != kNone) Emit(prog);
  }

  // Keeps the first `head` and the last `tail` lines of a kind.
  bool Capped(Kind k, size_t head, size_t tail) {
    size_t r = Rank(k);
    uint64_t total = Total(k);
    return r < head || r + tail >= total;
  }

  size_t WriteLine(size_t i) {
    const Kind kind = p_.kinds[i];
    switch (kind) {
      case Kind::kProgress:
      case Kind::kCrate:
        last_progress_ = i;
        if ((kind == Kind::kCrate && Capped(kind, 10, 0)) ||
            (full_ && failed_ && i == last_progress_overall_)) {
          Emit(i);
        }
        // Else counted at the end, unless a problem right after it shows it as its anchor.
        return i + 1;
      case Kind::kDirectory: {
        string_view rest;
        int level = 0;
        if (MakePrefix(lines_[i], &rest, &level)) {
          string_view dir = rest.substr(std::min(rest.size(), rest.find("directory")));
          if (Starts(rest, "Entering")) {
            dirs_.emplace_back(i, level);
          } else {
            // Parallel makes leave in any order: close the one that names this directory.
            for (size_t k = dirs_.size(); k-- > 0;) {
              if (lines_[dirs_[k].first].ends_with(dir)) {
                dirs_.erase(dirs_.begin() + static_cast<ptrdiff_t>(k));
                break;
              }
            }
          }
        }
        return i + 1;  // counted at the end unless a problem in that directory shows it
      }
      case Kind::kBlank:
      case Kind::kCommand:
      case Kind::kChatter:
      case Kind::kDeprecation:
      case Kind::kUsage:
      case Kind::kLibFrame:
      case Kind::kShadowMap:
        Drop(i);
        return i + 1;
      case Kind::kStatus:
        if (Capped(kind, 10, 30)) {
          Emit(i);
        } else {
          Drop(i);
        }
        return i + 1;
      case Kind::kTarget:
        if (full_ && Capped(kind, 10, 10)) {
          Emit(i);
        } else {
          Drop(i);
        }
        return i + 1;
      case Kind::kInstalled:
        // apt's "Setting up x (1.2) ..." lines name again what its list of NEW packages, shown
        // above, named: counted then, but for the packages apt was asked for (with the version
        // they got).
        if (Total(Kind::kListItem) > 0) {
          if (!Requested(SetUpPackage(lines_[i]))) {
            Drop(i);
          } else {
            Emit(i);
          }
          return i + 1;
        }
        // No list above (cut off: `apt-get install -y x | tail -30`): the first ones, and
        // those the command asked for.
        if (const string_view package = SetUpPackage(lines_[i]);
            !package.empty() && Requested(package) && !Capped(kind, 10, 0)) {
          Emit(i);
          return i + 1;
        }
        [[fallthrough]];
      case Kind::kAsset:
        // The first 10, and the largest few wherever they are (an app's entry bundle after its
        // 250 lazy chunks).
        // The others counted where they were.
        if (Capped(kind, 10, 0) || LargestAssets().contains(i)) {
          FlushAssetGap();
          Emit(i);
        } else if (used_[i] == 0) {
          used_[i] = 1;
          ++asset_gap_;
        }
        if (i + 1 >= lines_.size() || p_.kinds[i + 1] != Kind::kAsset) FlushAssetGap();
        return i + 1;
      case Kind::kListItem: {
        // Each of apt's lists ("The following NEW packages…", "…will be upgraded:") keeps its
        // first lines, the rest counted in its place: a long list does not take a short one's.
        size_t end = i;
        while (end < lines_.size() && p_.kinds[end] == Kind::kListItem) ++end;
        // A line past them that names a package the command asked for stays too.
        const size_t shown = std::min(end - i, kListLines);
        for (size_t k = i; k < i + shown; ++k) Emit(k);
        uint64_t left_out = 0;
        auto say_left_out = [&](size_t next) {
          if (left_out == 1) {
            used_[next - 1] = 0;
            Emit(next - 1);  // a marker would be no shorter than the line
          } else if (left_out > 1) {
            FlushGap();
            out_.ElidedLines(left_out, "more lines of this list omitted");
          }
          left_out = 0;
        };
        for (size_t k = i + shown; k < end; ++k) {
          bool asked = false;
          for (absl::string_view name : absl::StrSplit(ToAbsl(lines_[k]), ' ', absl::SkipEmpty())) {
            asked = asked || std::find(requested_.begin(), requested_.end(),
                                       string_view(name.data(), name.size())) != requested_.end();
          }
          if (asked) {
            say_left_out(k);
            Emit(k);
          } else {
            ++left_out;
            used_[k] = 2;
          }
        }
        say_left_out(end);
        return end;
      }
      case Kind::kBuildFail:
        if (Capped(kind, 5, 5)) {
          Anchors(i);
          Emit(i);
        } else {
          Drop(i);
        }
        return i + 1;
      case Kind::kLinker:
        if (Capped(kind, 20, 10)) {
          Anchors(i);
          Emit(i);
          return i + 1;
        }
        return WriteLinkerGap(i);
      case Kind::kErrorLine:
        if (Capped(kind, 40, 20)) {
          Anchors(i);
          Emit(i);
        } else {
          Drop(i);
        }
        return i + 1;
      case Kind::kWarnLine:
        if (Capped(kind, 20, 0)) {
          Emit(i);
        } else {
          Drop(i);
        }
        return i + 1;
      default:
        return WriteOther(i);
    }
  }

  // The run of linker lines from `i` past the cap, up to the last ones shown: the symbols of
  // their undefined references named in place, by the file that refers to them, in lines of
  // kSymbolsPerLine ("… 96 more undefined references in main.c: ext_fn_17, ext_fn_18, …", an
  // agent's list of what to define or link); their other lines ("in function `main':")
  // counted at the end.
  static constexpr size_t kSymbolsPerLine = 25;
  size_t WriteLinkerGap(size_t i) {
    const size_t k = static_cast<size_t>(Kind::kLinker);
    size_t end = i + 1;
    while (end < lines_.size() && p_.kinds[end] == Kind::kLinker && rank_[k] + 10 < totals_[k]) {
      ++rank_[k];
      ++end;
    }
    std::vector<std::pair<string_view, std::vector<string_view>>> by_file;
    for (size_t j = i; j < end; ++j) {
      const string_view line = lines_[j];
      // GNU ld's "main.c:(.text+0x22): undefined reference to `f'", lld's "ld.lld: error:
      // undefined symbol: f" (its ">>> referenced by" lines are counted).
      size_t ref = line.find("undefined reference to ");
      size_t skip = 23;
      if (ref == string_view::npos) {
        ref = line.find("undefined symbol: ");
        skip = 18;
      }
      if (ref == string_view::npos) {
        Drop(j);
        continue;
      }
      string_view symbol = line.substr(ref + skip);
      while (!symbol.empty() && std::string_view("'\"`").find(symbol.back()) != string_view::npos)
        symbol.remove_suffix(1);
      while (!symbol.empty() && std::string_view("'\"`").find(symbol.front()) != string_view::npos)
        symbol.remove_prefix(1);
      // The file is the word before its ":(.text+0x…)".
      string_view file;
      if (const size_t at = line.rfind(":(", ref); at != string_view::npos) {
        const size_t space = line.rfind(' ', at);
        const size_t from = space == string_view::npos ? 0 : space + 1;
        file = line.substr(from, at - from);
      }
      auto it = std::find_if(by_file.begin(), by_file.end(),
                             [&](const auto& f) { return f.first == file; });
      if (it == by_file.end()) {
        by_file.emplace_back(file, std::vector<string_view>{});
        it = by_file.end() - 1;
      }
      it->second.push_back(symbol);
      used_[j] = 1;
    }
    for (const auto& [file, symbols] : by_file) {
      const std::string where = file.empty() ? std::string() : StrCat(" in ", file);
      for (size_t from = 0; from < symbols.size(); from += kSymbolsPerLine) {
        const size_t to = std::min(symbols.size(), from + kSymbolsPerLine);
        std::string text =
            from == 0 ? StrCat(core::FormatCount(symbols.size()), " more undefined ",
                               symbols.size() == 1 ? "reference" : "references", where, ": ")
                      : StrCat("more undefined references", where, ": ");
        for (size_t s = from; s < to; ++s) StrAppend(&text, s == from ? "" : ", ", symbols[s]);
        FlushGap();
        out_.Marker(text, to - from);
      }
    }
    return end;
  }

  void FlushAssetGap() {
    if (asset_gap_ == 0) return;
    FlushGap();
    out_.ElidedLines(asset_gap_, asset_gap_ == 1 ? "more asset omitted" : "more assets omitted");
    asset_gap_ = 0;
  }

  // The lines of the kLargestAssets largest assets, when there are more than 10 (by the size
  // each line gives: vite's "15.38 kB", webpack's "1.2 MiB").
  static constexpr size_t kLargestAssets = 5;
  const absl::flat_hash_set<size_t>& LargestAssets() {
    if (largest_assets_) return *largest_assets_;
    largest_assets_.emplace();
    std::vector<std::pair<double, size_t>> sized;
    for (size_t k = 0; k < lines_.size(); ++k) {
      if (p_.kinds[k] != Kind::kAsset) continue;
      if (const std::optional<double> bytes = AssetBytes(lines_[k])) sized.emplace_back(*bytes, k);
    }
    if (sized.size() <= 10) return *largest_assets_;
    std::stable_sort(sized.begin(), sized.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t k = 0; k < kLargestAssets && k < sized.size(); ++k)
      largest_assets_->insert(sized[k].second);
    return *largest_assets_;
  }

  // The size an asset's line gives, in bytes: the first number followed by a unit.
  static std::optional<double> AssetBytes(string_view line) {
    static constexpr std::pair<string_view, double> kUnits[] = {
        {" bytes", 1}, {" B", 1},         {" kB", 1e3}, {" KB", 1e3},        {" KiB", 1024},
        {" MB", 1e6},  {" MiB", 1048576}, {" GB", 1e9}, {" GiB", 1073741824}};
    for (size_t at = 0; at < line.size(); ++at) {
      if (!IsDigit(line[at]) || (at > 0 && (IsDigit(line[at - 1]) || line[at - 1] == '.')))
        continue;
      size_t end = at;
      while (end < line.size() && (IsDigit(line[end]) || line[end] == '.')) ++end;
      for (const auto& [unit, scale] : kUnits) {
        const string_view after = line.substr(end);
        if (after.starts_with(unit) && (after.size() == unit.size() || after[unit.size()] == ' ' ||
                                        after[unit.size()] == '\t')) {
          double value = 0;
          if (!absl::SimpleAtod(ToAbsl(line.substr(at, end - at)), &value)) return std::nullopt;
          return value * scale;
        }
      }
    }
    return std::nullopt;
  }

  // Output the shaper does not know: all of it when short; else its head, its tail and the
  // lines that look like trouble. Runs of one repeated line are folded.
  size_t WriteOther(size_t i) {
    const uint64_t total = Total(Kind::kOther);
    size_t j = i + 1;
    while (j < lines_.size() && lines_[j] == lines_[i] &&
           (p_.kinds[j] == Kind::kOther || p_.kinds[j] == Kind::kContext)) {
      ++j;
    }
    // Lines alike but for their numbers (pip's "WARNING: Retrying (Retry(total=4, …" loop, a
    // download's progress): the first and the last, the ones between counted.
    size_t alike = j;
    while (alike < lines_.size() && p_.kinds[alike] == Kind::kOther &&
           AlikeButNumbers(lines_[alike], lines_[i])) {
      ++alike;
    }
    if (alike > j && alike - i >= kAlikeRun) j = alike;
    // Lines alike but for one word (pip's "Requirement already satisfied: x in …", its "INFO:
    // pip is looking at multiple versions of x …"): the first and the others' words.
    std::vector<std::string> words;
    bool one_word = false;
    if (j == i + 1 && !LooksLikeErrorLine(lines_[i])) {
      const size_t apart = OneWordApartRun(
          lines_, i, lines_.size(),
          [&](size_t k) { return p_.kinds[k] == Kind::kOther && !LooksLikeErrorLine(lines_[k]); },
          &words);
      if (apart - i >= kOneWordRun) {
        j = apart;
        one_word = true;
      }
    }
    const bool folded = !one_word && j > i + 1 && lines_[j - 1] != lines_[i];
    const size_t run = j - i;
    const size_t r = rank_[static_cast<size_t>(Kind::kOther)];
    rank_[static_cast<size_t>(Kind::kOther)] += run;
    bool show = total <= kOtherAll || r < kOtherHead || r + run + kOtherTail > total;
    if (!show && trouble_ < kOtherTrouble && LooksLikeErrorLine(lines_[i])) {
      show = true;
      ++trouble_;
    }
    if (!show) {
      for (size_t k = i; k < j; ++k) used_[k] = 1;
      gap_ += run;
      return j;
    }
    if (one_word) {
      for (size_t k = i; k < j; ++k) used_[k] = 1;
      WriteOneWordApart(lines_[i], words, out_);
      return j;
    }
    Emit(i);
    if (folded) {
      for (size_t k = i + 1; k + 1 < j; ++k) used_[k] = 1;
      out_.ElidedLines(run - 2, "lines like the ones around, but for their numbers, omitted");
      Emit(j - 1);
    } else if (run > 1) {
      for (size_t k = i + 1; k < j; ++k) used_[k] = 1;
      out_.ElidedLines(run - 1, run - 1 == 1 ? "repeat of the line above"
                                             : "repeats of the line above");
    }
    return j;
  }

  enum class Show { kFull, kContextAndHead, kHead, kListed, kHidden };

  bool InErrorFile(const Diag& d) const {
    return !d.file.empty() && p_.error_files.count(d.file) != 0;
  }

  // A diagnostic past those shown in full: in its group's list of locations, or its group's
  // first as its heading line, while there is room for headings.
  Show Grouped(const Diag& d) {
    if (const size_t m = member_[&d - p_.diags.data()]; m != kNone) {
      if (!groups_.Leads(m)) {
        // Listed after its group's first, when that was shown.
        return leader_shown_[groups_.LeaderOf(m)] ? Show::kListed : Show::kHidden;
      }
      if (head_only_ < kMaxHeadOnly) {
        ++head_only_;
        leader_shown_[m] = true;
        return Show::kHead;
      }
      return Show::kHidden;
    }
    if (head_only_ < kMaxHeadOnly) {
      ++head_only_;
      return Show::kHead;
    }
    return Show::kHidden;
  }

  Show Decide(const Diag& d) {
    const size_t k = &d - p_.diags.data();
    if (in_full_[k]) {
      if (member_[k] != kNone) leader_shown_[member_[k]] = true;
      return d.duplicate ? Show::kContextAndHead : Show::kFull;
    }
    switch (d.sev) {
      case Sev::kError:
        return Grouped(d);
      case Sev::kWarning:
        if (member_[k] == kNone && InErrorFile(d)) {
          if (head_only_ < kMaxHeadOnly) {
            ++head_only_;
            return Show::kHead;
          }
          return Show::kHidden;
        }
        return Grouped(d);
      case Sev::kNote:
        if (notes_shown_ < kStandaloneNotes) {
          ++notes_shown_;
          return Show::kFull;
        }
        return Show::kHidden;
    }
    return Show::kHidden;
  }

  void WriteDiag(const Diag& d) {
    const Show show = Decide(d);
    if (show == Show::kHidden) {
      Cat cat = d.sev == Sev::kWarning ? Cat::kHiddenWarning : Cat::kHiddenError;
      for (size_t i = d.begin; i < d.end; ++i) Drop(i, cat);
      if (d.sev == Sev::kWarning) {
        ++hidden_warnings_;
        ++hidden_keys_[d.key];
      } else if (d.sev == Sev::kError) {
        ++hidden_errors_;
      }
      return;
    }
    if (show == Show::kListed) {  // in its group's list of locations, written with the first
      for (size_t i = d.begin; i < d.end; ++i) used_[i] = 1;
      return;
    }
    Anchors(d.begin);
    const bool error = d.sev == Sev::kError;
    const size_t ctx_cap = error ? kContextLines : 4;
    std::vector<size_t> dropped;
    // Context lines.
    const size_t ctx = d.head - d.begin;
    if (show == Show::kHead) {
      // The user's own lines of an instantiation chain into a system header: where in the
      // user's code the error comes from (the innermost few).
      size_t user = 0;
      const bool system = IsSystemHeaderLocation(lines_[d.head]);
      std::vector<bool> keep(ctx, false);
      for (size_t i = d.head; system && i-- > d.begin && user < kUserChainLines;) {
        if (!IsSystemHeaderLocation(lines_[i]) && Contains(lines_[i], "required from")) {
          keep[i - d.begin] = true;
          ++user;
        }
      }
      for (size_t i = d.begin; i < d.head; ++i) {
        if (keep[i - d.begin]) {
          Emit(i);
        } else {
          Drop(i, Cat::kDetail);
        }
      }
    } else if (IsSystemHeaderLocation(lines_[d.head])) {
      // An error in a system header: of the include chain that led there ("In file included
      // from …"), the lines that name the user's files; the headers' own are the compiler's.
      for (size_t i = d.begin; i < d.head; ++i) {
        const string_view t = Strip(lines_[i]);
        const bool include = Starts(t, "In file included from ") || Starts(t, "from ");
        if (include && IsSystemHeaderLocation(t.substr(Starts(t, "from ") ? 5 : 22))) {
          Drop(i, Cat::kDetail);
        } else {
          Emit(i);
        }
      }
    } else if (ctx <= ctx_cap) {
      for (size_t i = d.begin; i < d.head; ++i) Emit(i);
    } else {
      // The outermost two and the innermost lines (next to the diagnostic).
      Emit(d.begin);
      Emit(d.begin + 1);
      const size_t skip = ctx - ctx_cap;
      for (size_t i = d.begin + 2; i < d.begin + 2 + skip; ++i) used_[i] = 1;
      out_.ElidedLines(skip, skip == 1 ? "line of context omitted" : "lines of context omitted");
      for (size_t i = d.begin + 2 + skip; i < d.head; ++i) Emit(i);
    }
    Emit(d.head);
    if (show != Show::kFull) {
      // rustc gives the location on the line after the heading, esbuild a line further
      // ("    src/m0.ts:1:45:"), webpack the message ("ERROR in ./src/a.js 3:0-14", then
      // "Module not found: Error: Can't resolve 'x' in …"): it goes with it.
      const size_t arrow = d.style == Style::kRust                            ? RustArrow(lines_, d)
                           : d.style == Style::kWebpack && d.head + 1 < d.end ? d.head + 1
                           : d.style == Style::kVite ? EsbuildLocation(lines_, d)
                                                     : kNone;
      if (arrow != kNone) Emit(arrow);
      for (size_t i = d.head + 1; i < d.end; ++i) {
        // The labelled lines that say what it is about (javac's "  symbol:   variable total")
        // go with it too: its group's list gives only the followers' that differ from them.
        // So does clang's note naming the user's line an instantiation chain starts from
        // ("src/a.cpp:24:28: note: in instantiation of … requested here").
        // And rustc's note that names the lint, under its first warning ("= note:
        // `#[warn(clippy::needless_range_loop)]` on by default"): the lint its group is of.
        if (i == arrow || (d.style == Style::kRust && IsLintLevelNote(lines_[i])) ||
            (d.style == Style::kCompiler && LabelledDetailAt(lines_, i, d.end).has_value()) ||
            (p_.kinds[i] == Kind::kNoteHead && !IsSystemHeaderLocation(lines_[i]) &&
             Contains(lines_[i], " requested here"))) {
          Emit(i);
        } else {
          Drop(i, Cat::kDetail);
        }
      }
      WriteFollowers(d);
      return;
    }
    const size_t body_cap =
        error ? kErrorBody : (d.style == Style::kRust ? kWarningBody + 2 : kWarningBody);
    const size_t notes_cap = error ? kErrorNotes : kWarningNotes;
    // clang's source echo has no gutter: the code, then a caret line under it, then maybe a
    // fix-it. It goes, as gcc's does, unless it suggests a fix ("%ld" under "%d").
    auto gutterless_echo = [&](size_t from, size_t to) {
      if (d.style != Style::kCompiler) return false;
      bool carets = false;
      for (size_t k = from; k < to; ++k) {
        if (IsCaretsOnly(lines_[k])) {
          carets = true;
        } else if (!(k + 1 < to && IsCaretsOnly(lines_[k + 1]))) {
          return false;  // neither code over a caret line nor carets: a fix-it, or more
        }
      }
      return carets;
    };
    size_t i = d.head + 1;
    size_t body_end = i;
    while (body_end < d.end && p_.kinds[body_end] == Kind::kDiagBody) ++body_end;
    const bool drop_body = gutterless_echo(i, body_end);
    size_t body = 0;
    bool past_paragraph = false;  // a blank line came after the first of the body
    bool in_std = false;          // under a location in the Rust standard library's source
    size_t where_indent = kNone;  // under javac's "  where K,V are type-variables:"
    // gcc -fanalyzer's path: its numbered events ("    |      |   (1) opened here"), each with
    // the source line above it that gives its line number ("    |   13 |   FILE *f = …").
    std::vector<bool> path_event(body_end - i, false);
    for (size_t k = i, source = kNone; k < body_end; ++k) {
      if (AnalyzerSourceLine(lines_[k])) {
        source = k;
      } else if (IsAnalyzerEvent(lines_[k])) {
        path_event[k - i] = true;
        if (source != kNone) path_event[source - i] = true;
        source = kNone;
      }
    }
    const size_t body_begin = i;
    for (; i < d.end && p_.kinds[i] == Kind::kDiagBody; ++i) {
      string_view line = lines_[i];
      if (i < body_end && path_event[i - body_begin]) {
        Emit(i);
        continue;
      }
      if (IsBlank(line) && i > d.head + 1) past_paragraph = true;
      // javac's key to the type variables its message names ("  where K,V are
      // type-variables:", then "    K extends Object declared in interface Map" for each): the
      // declarations of the library's generics, under every such warning. Counted.
      const size_t indent = line.find_first_not_of(' ');
      if (where_indent != kNone && indent != kNone && indent > where_indent) {
        Drop(i, Cat::kDetail);
        continue;
      }
      where_indent = kNone;
      if (d.style == Style::kCompiler && indent != kNone && Starts(line.substr(indent), "where ") &&
          (Ends(line, " are type-variables:") || Ends(line, " is a type-variable:") ||
           Ends(line, " are intersection types:") || Ends(line, " is an intersection type:"))) {
        where_indent = indent;
        Drop(i, Cat::kDetail);
        continue;
      }
      // rustc's pointers into the standard library's source ("  --> /rustc/<hash>/library/core/
      // src/iter/traits/accum.rs:48:8", "  ::: /rustc/…") and its code under them: like a
      // library's stack frames, counted. The notes under them stay ("= note: `i64` implements
      // `Sum`": a help's list of the library's impls).
      const string_view t = Strip(line);
      const bool std_location = Starts(t, "--> /rustc/") || Starts(t, "::: /rustc/");
      if (std_location) {
        in_std = true;
      } else if (in_std && !IsRustGutter(line) && !IsUnderlineOnly(line)) {
        in_std = false;
      }
      if (in_std) {
        Drop(i, Cat::kDetail);
      } else if (IsUnderlineOnly(line)) {
        Drop(i, Cat::kUnderline);  // the location gives the column
      } else if (IsLintLevelNote(line)) {
        // "= note: `#[warn(clippy::needless_range_loop)]` on by default", under the first
        // warning of each lint: the lint's name, the only place it is printed but the link.
        Emit(i);
      } else if (d.style == Style::kCompiler &&
                 ((IsCaretsOnly(line) && !FixItUnder(i, d.end)) ||
                  (i + 1 < d.end && IsCaretsOnly(lines_[i + 1]) && !FixItUnder(i + 1, d.end)))) {
        // An echo of the source without a gutter (javac's, clang's) and the caret under it,
        // among the lines that explain the diagnostic ("  symbol:   variable intValue",
        // "  missing type arguments for generic class Map<K,V>"): the file has it. With a
        // fix-it under the caret (";", "%ld"), all stay.
        Drop(i, Cat::kDetail);
      } else if (IsBlank(line) || drop_body || IsNumberedEcho(line) ||
                 (!error && (IsSourceEcho(line) || IsRustGutter(line) || IsDocsLinkNote(line)))) {
        // A warning's echo of the source and its labels, the change a suggestion makes to it
        // ("12 - old", "12 + new"): the file has it; its lint's level and documentation link.
        Drop(i, Cat::kDetail);
      } else if (IsLibraryFrame(line) || body >= body_cap) {
        dropped.push_back(i);
      } else if (past_paragraph && line.size() >= 40 && !body_seen_.insert(line).second) {
        // In a paragraph after the message's, a line a diagnostic shown before had word for
        // word: a hint the tool prints after each (webpack's "BREAKING CHANGE: webpack < 5
        // used to include polyfills …"). The message itself stays, however alike.
        Drop(i, Cat::kRepeatedNote);
      } else {
        Emit(i);
        ++body;
      }
    }
    // Notes: each is its context lines, its heading and its body.
    size_t notes = 0;
    while (i < d.end) {
      size_t start = i;
      while (i < d.end && p_.kinds[i] == Kind::kContext) ++i;
      size_t head = i;
      if (i < d.end) ++i;  // the note's heading
      while (i < d.end && p_.kinds[i] != Kind::kContext && p_.kinds[i] != Kind::kNoteHead) ++i;
      // A hint the compiler repeats after every such error, a sentence with nothing under it
      // ("note: each undeclared identifier is reported only once…"): shown the first time
      // only. A short note ("note: declared here") points at its location and stays.
      const size_t note_at = head < d.end ? lines_[head].find(" note: ") : kNone;
      if (note_at != kNone && i == head + 1 && lines_[head].size() - note_at >= 40 &&
          !notes_seen_.insert(lines_[head].substr(note_at)).second) {
        for (size_t k = start; k < i; ++k) Drop(k, Cat::kRepeatedNote);
        continue;
      }
      if (head < d.end && IsSystemHeaderLocation(lines_[head]) &&
          (Contains(lines_[head], ": note: in instantiation of ") ||
           lines_[head].size() > kLongSystemNote)) {
        // A link of clang's instantiation chain inside the standard library: like a library's
        // stack frame, counted; the chain's links in the user's code stay. So is a note of a
        // system header that spells out a candidate's signature with its template arguments
        // ("note: candidate: ‘template<class T, …> … raw_hash_set<…>::insert(T&&) [with …]’",
        // thousands of characters): its short notes after it ("candidate expects 2 arguments,
        // 1 provided") say why it did not match.
        for (size_t k = start; k < i; ++k) Drop(k, Cat::kDetail);
        continue;
      }
      if (notes++ < notes_cap) {
        // Up to two context lines next to the note, its heading, the start of its body. A note
        // in a system header ("/usr/include/c++/12/bits/stl_vector.h:1276:7: note: candidate:
        // …") keeps its heading: the include chain that led there and the header's code are
        // the compiler's, not the project's.
        const bool system = head < d.end && IsSystemHeaderLocation(lines_[head]);
        for (size_t k = start; k < head; ++k) {
          if (system) {
            Drop(k, Cat::kDetail);
          } else if (head - k <= 2) {
            Emit(k);
          } else {
            dropped.push_back(k);
          }
        }
        if (head < d.end) Emit(head);
        // A system header's code, under its note, is the compiler's too.
        const bool drop_note_body = gutterless_echo(head + 1, i) || system;
        for (size_t k = head + 1; k < i; ++k) {
          if (IsUnderlineOnly(lines_[k])) {
            Drop(k, Cat::kUnderline);
          } else if (drop_note_body || IsNumberedEcho(lines_[k]) ||
                     ((!error || system) && IsSourceEcho(lines_[k]))) {
            Drop(k, Cat::kDetail);
          } else if (k - head <= kNoteBody) {
            Emit(k);
          } else {
            dropped.push_back(k);
          }
        }
      } else if (head < d.end && !IsSystemHeaderLocation(lines_[head]) &&
                 Contains(lines_[head], " requested here")) {
        // clang's chain of instantiations ends in the user's code ("src/a.cpp:24:28: note: in
        // instantiation of … requested here"): where the error comes from, kept past the cap,
        // by its heading.
        for (size_t k = start; k < i; ++k) {
          if (k == head) {
            Emit(k);
          } else {
            dropped.push_back(k);
          }
        }
      } else {
        for (size_t k = start; k < i; ++k) dropped.push_back(k);
      }
    }
    if (dropped.size() >= 3) {
      for (size_t k : dropped) used_[k] = 1;
      string_view what = d.sev == Sev::kError     ? "error"
                         : d.sev == Sev::kWarning ? "warning"
                                                  : "note";
      out_.ElidedLines(dropped.size(), StrCat("more lines of this ", what, " omitted"));
    } else {
      for (size_t k : dropped) Drop(k, Cat::kDetail);
    }
    WriteFollowers(d);
  }

  // Whether the line under the caret line `caret` is a fix-it: indented as far as the carets
  // at least (clang's "                 %ld"), where javac's explanation is indented by two.
  bool FixItUnder(size_t caret, size_t end) const {
    if (caret + 1 >= end || IsBlank(lines_[caret + 1])) return false;
    const string_view next = lines_[caret + 1];
    return next.find_first_not_of(' ') >= lines_[caret].find_first_not_of(' ');
  }

  // The list of the diagnostics that repeat the message of `d`, its group's first.
  void WriteFollowers(const Diag& d) {
    if (const size_t m = member_[&d - p_.diags.data()]; m != kNone && groups_.Followers(m) > 0) {
      groups_.WriteFollowers(m, out_, [&](size_t follower) {
        const Diag& listed = p_.diags[member_diag_[follower]];
        return listed.end - listed.begin;
      });
    }
  }

  void WriteTotals() {
    if (hidden_errors_ > 0) {
      out_.Elided(hidden_errors_, hidden_errors_ == 1 ? "more error omitted" : "more errors omitted");
    }
    if (hidden_warnings_ > 0) {
      std::vector<std::pair<string_view, uint64_t>> keys(hidden_keys_.begin(), hidden_keys_.end());
      std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
      });
      std::string what = StrCat(hidden_warnings_ == 1 ? "more warning" : "more warnings",
                                " omitted: ");
      size_t listed = 0;
      uint64_t rest = hidden_warnings_;
      for (const auto& [key, count] : keys) {
        if (listed == 8) break;
        StrAppend(&what, listed == 0 ? "" : ", ", core::FormatCount(count), " ", key);
        rest -= count;
        ++listed;
      }
      if (rest > 0) StrAppend(&what, ", ", core::FormatCount(rest), " of other kinds");
      out_.Elided(hidden_warnings_, what);
    }
    // Whatever is left, by what it is.
    std::vector<std::pair<uint64_t, std::string>> cats;
    std::array<uint64_t, kKinds> merged{};
    for (size_t k = 0; k < kKinds; ++k) {
      string_view name = CategoryName(static_cast<Kind>(k));
      // Fold kinds that share a name.
      size_t first = k;
      for (size_t j = 0; j < k; ++j) {
        if (CategoryName(static_cast<Kind>(j)) == name) {
          first = j;
          break;
        }
      }
      merged[first] += dropped_[k];
    }
    for (size_t k = 0; k < kKinds; ++k) {
      if (merged[k] > 0) cats.emplace_back(merged[k], std::string(CategoryName(static_cast<Kind>(k))));
    }
    if (hidden_warning_lines_ > 0) cats.emplace_back(hidden_warning_lines_, "lines of those warnings");
    if (hidden_error_lines_ > 0) cats.emplace_back(hidden_error_lines_, "lines of those errors");
    if (underline_lines_ > 0) cats.emplace_back(underline_lines_, "underlines");
    if (repeated_note_lines_ > 0) {
      cats.emplace_back(repeated_note_lines_, "lines of notes shown above");
    }
    std::stable_sort(cats.begin(), cats.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    uint64_t total = 0;
    for (const auto& c : cats) total += c.first;
    if (total == 0) return;
    std::string what = total == 1 ? "other line omitted" : "other lines omitted";
    if (total != out_.UnaccountedLines()) {
      // Should not happen; never state a breakdown that does not add up.
      out_.ElidedLines(out_.UnaccountedLines(), what);
      return;
    }
    for (size_t c = 0; c < cats.size(); ++c) {
      StrAppend(&what, c == 0 ? ": " : ", ", core::FormatCount(cats[c].first), " ",
                cats[c].first == 1 ? CategoryOne(cats[c].second) : cats[c].second);
    }
    out_.ElidedLines(total, what);
  }

  const std::vector<string_view>& lines_;
  const Parsed& p_;
  const bool full_;
  const bool failed_;
  const std::vector<std::string> requested_;

  // The package of apt's "Setting up x:amd64 (1.2) ...": "x"; empty for another line.
  static string_view SetUpPackage(string_view line) {
    if (!Starts(line, "Setting up ")) return {};
    const string_view package = line.substr(sizeof("Setting up ") - 1);
    return package.substr(0, std::min(package.find(' '), package.find(':')));
  }

  // Whether the command asked for `package`: named in its arguments, or installed by apt and
  // not as another's dependency (in its NEW list, not in its list of additional packages).
  bool Requested(string_view package) const {
    const auto in = [package](const auto& names) {
      return std::find(names.begin(), names.end(), package) != names.end();
    };
    return in(requested_) || (in(p_.apt_new) && !in(p_.apt_additional));
  }
  SummaryWriter& out_;
  std::vector<uint8_t> used_;  // 1: shown or in an inline marker; 2: in the final marker
  std::optional<absl::flat_hash_set<size_t>> largest_assets_;  // LargestAssets, once asked
  uint64_t asset_gap_ = 0;  // assets left out since the last one shown
  std::array<uint64_t, kKinds> totals_{};
  std::array<uint64_t, kKinds> rank_{};
  std::array<uint64_t, kKinds> dropped_{};
  size_t last_progress_overall_ = kNone, last_progress_ = kNone;
  size_t last_emitted_ = kNone;
  std::vector<std::pair<size_t, int>> dirs_;  // open "Entering directory" lines, make level
  uint64_t gap_ = 0;
  size_t trouble_ = 0;
  size_t head_only_ = 0;
  DiagnosticGroups groups_;
  std::vector<size_t> member_;      // per diagnostic: its index in groups_, or kNone
  std::vector<size_t> member_diag_;  // per member of groups_: its diagnostic
  std::vector<bool> leader_shown_;  // per member that leads its group: it was shown
  std::vector<bool> in_full_;       // per diagnostic: shown in full (with its source and notes)
  size_t notes_shown_ = 0;
  uint64_t hidden_warnings_ = 0, hidden_errors_ = 0;
  uint64_t underline_lines_ = 0;  // "      |   ^~~~" under source echoes
  uint64_t repeated_note_lines_ = 0;
  absl::flat_hash_set<string_view> notes_seen_;  // " note: <text>" of the notes shown
  absl::flat_hash_set<string_view> body_seen_;   // the long lines of the bodies shown
  uint64_t hidden_warning_lines_ = 0, hidden_error_lines_ = 0;
  absl::flat_hash_map<string_view, uint64_t> hidden_keys_;
};

// ---- the command ----------------------------------------------------------------------------

bool IsOneOf(string_view s, std::initializer_list<string_view> names) {
  for (string_view n : names) {
    if (s == n) return true;
  }
  return false;
}

std::string FirstPlainArg(const std::vector<std::string>& args, size_t from = 0) {
  for (size_t i = from; i < args.size(); ++i) {
    if (!args[i].empty() && args[i][0] != '-' && args[i][0] != '+') return args[i];
  }
  return "";
}

// kTool: the command runs the tool whose output this is. kWrapper: make, ninja, cmake --build
// run other tools, whose output another shaper may read better. kCargoTest: a build failure of
// `cargo test` is ours, its test results are the test shaper's.
enum class CmdKind { kNone, kTool, kWrapper, kCargoTest };

struct CommandInfo {
  CmdKind kind = CmdKind::kNone;
  std::string label;  // "cargo build", "make", "cmake --build", "npm install"
  double confidence = 0;
};

bool IsCatLike(string_view tool) {
  return IsOneOf(tool, {"cat", "tail", "head", "less", "more", "bat", "batcat", "tac", "zcat",
                        "type", "sed", "awk", "grep", "cut"});
}

CommandInfo ReadCommand(string_view command) {
  CommandInfo info;
  // The output is the last pipeline's: its first command made it; later stages may only pick
  // lines ("make 2>&1 | tail -50"), else the output is something else.
  std::vector<string_view> stages = PipelineStages(command);
  if (stages.empty()) return info;
  for (size_t i = 1; i < stages.size(); ++i) {
    if (!IsOneOf(ToolName(stages[i]), {"head", "tail", "less", "more", "cat", "tee", "grep",
                                        "egrep", "fgrep", "rg"})) {
      return info;
    }
  }
  std::string tool = ToolName(stages[0]);
  std::vector<std::string> args = ToolArgs(stages[0]);
  if ((tool == "ccache" || tool == "distcc") && !args.empty()) {
    tool = std::string(BaseName(args[0]));
    args.erase(args.begin());
  }
  const std::string first = FirstPlainArg(args);
  auto set = [&](CmdKind kind, std::string label, double confidence) {
    info = CommandInfo{kind, std::move(label), confidence};
  };
  if (IsCompilerName(tool) || tool == "rustc") {
    set(CmdKind::kTool, tool, 0.95);
  } else if (IsOneOf(tool, {"make", "gmake", "mingw32-make", "bmake", "remake"})) {
    set(CmdKind::kWrapper, "make", 0.9);
  } else if (tool == "ninja" || tool == "samu") {
    set(CmdKind::kWrapper, tool, 0.9);
  } else if (tool == "cmake") {
    std::string label = "cmake";
    for (const std::string& a : args) {
      if (a == "--build" || a == "--install") label = StrCat("cmake ", a);
    }
    // Configuring prints cmake's own lines; --build runs make or ninja.
    set(label == "cmake" ? CmdKind::kTool : CmdKind::kWrapper, label,
        label == "cmake" ? 0.95 : 0.9);
  } else if (tool == "meson" && IsOneOf(first, {"compile", "setup", "install"})) {
    set(CmdKind::kWrapper, StrCat("meson ", first), 0.9);
  } else if (tool == "cargo") {
    if (IsOneOf(first, {"build", "b", "check", "c", "clippy", "rustc", "doc", "d", "install",
                        "fix", "bench"})) {
      set(CmdKind::kTool, StrCat("cargo ", first), 0.95);
    } else if (IsOneOf(first, {"run", "r"})) {
      set(CmdKind::kTool, StrCat("cargo ", first), 0.9);
    } else if (IsOneOf(first, {"test", "t", "nextest"})) {
      set(CmdKind::kCargoTest, StrCat("cargo ", first), 0.9);
    }
  } else if (tool == "go") {
    if (IsOneOf(first, {"build", "install", "vet"})) {
      set(CmdKind::kTool, StrCat("go ", first), 0.95);
    } else if (first == "run" || first == "generate") {
      set(CmdKind::kTool, StrCat("go ", first), 0.85);
    } else if (first == "get") {
      // An installer: "go: downloading …" lines, what it added, its errors.
      set(CmdKind::kTool, "go get", 0.9);
    } else if (first == "mod") {
      const auto sub = std::find(args.begin(), args.end(), "mod");
      if (sub + 1 < args.end() && IsOneOf(*(sub + 1), {"download", "tidy"})) {
        set(CmdKind::kTool, StrCat("go mod ", *(sub + 1)), 0.9);
      }
    }
  } else if (tool == "webpack" || tool == "webpack-cli") {
    set(CmdKind::kTool, "webpack", 0.95);
  } else if (tool == "vite" && first == "build") {
    set(CmdKind::kTool, "vite build", 0.95);
  } else if (tool == "esbuild" || tool == "tsup") {
    set(CmdKind::kTool, tool, 0.95);
  } else if (tool == "gradle" || tool == "gradlew") {
    // Gradle runs javac, kotlinc and the tests: a test run's results are the test shaper's.
    set(CmdKind::kWrapper, "gradle", 0.9);
  } else if (tool == "ghc" || ((tool == "cabal" || tool == "stack") && first == "build")) {
    // GHC's diagnostics are gcc's form: "src/A.hs:8:39: error:", the message indented under it.
    set(CmdKind::kTool, first.empty() || tool == "ghc" ? tool : StrCat(tool, " ", first), 0.95);
  } else if (IsOneOf(tool, {"npm", "pnpm", "yarn", "bun", "cnpm"})) {
    if (IsOneOf(first, {"install", "i", "ci", "add", "update", "up", "upgrade", "uninstall",
                        "remove", "rm", "un", "prune", "dedupe", "rebuild"}) ||
        (tool == "yarn" && first.empty())) {
      set(CmdKind::kTool, first.empty() ? tool : StrCat(tool, " ", first), 0.9);
    }
  } else if (IsOneOf(tool, {"pip", "pip3"}) || tool.starts_with("pip3.")) {
    // Python's installer: "pip install -r requirements.txt", "python3 -m pip install .",
    // "uv pip install x" (uv is a wrapper: the tool is pip).
    if (IsOneOf(first, {"install", "download", "wheel", "uninstall", "sync"})) {
      set(CmdKind::kTool, StrCat(tool, " ", first), 0.9);
    }
  } else if (IsOneOf(tool, {"gem", "bundle", "composer", "poetry", "pipenv"})) {
    if (IsOneOf(first, {"install", "update", "add", "require", "lock", "sync"})) {
      set(CmdKind::kTool, StrCat(tool, " ", first), 0.85);
    }
  } else if (IsOneOf(tool, {"apt", "apt-get", "aptitude"})) {
    if (IsOneOf(first, {"install", "remove", "purge", "upgrade", "dist-upgrade", "full-upgrade",
                        "update", "autoremove", "reinstall", "build-dep"})) {
      set(CmdKind::kTool, StrCat(tool, " ", first), 0.95);
    }
  } else if (tool == "dpkg") {
    for (const std::string& a : args) {
      if (IsOneOf(a, {"-i", "--install", "-r", "--remove", "-P", "--purge", "--configure"})) {
        set(CmdKind::kTool, "dpkg", 0.85);
      }
    }
  }
  if (info.label.empty()) {
    // Not a build command: the label is what it runs ("npm run build", "build.sh").
    if (IsOneOf(tool, {"npm", "pnpm", "yarn", "bun"}) && first == "run") {
      info.label = StrCat(tool, " run ", FirstPlainArg(args, 1));
    } else if (!IsCatLike(tool)) {
      // As the outcome line names it: "npm ls", "go run".
      info.label = core::CommandLabel(command);
      if (info.label.empty()) info.label = tool;
    }
  }
  return info;
}

// What the output's own lines say it is (for commands that do not name a build tool).
struct OutputGuess {
  double confidence = 0;
  std::string signal;
  bool build_signals = false;  // compiler diagnostics, commands, progress
};

OutputGuess GuessFromOutput(string_view s) {
  OutputGuess g;
  auto has = [&](string_view x) { return s.find(x) != kNone; };
  auto line_start = [&](string_view x) {
    if (s.starts_with(x)) return true;
    for (size_t at = s.find(x); at != kNone; at = s.find(x, at + 1)) {
      if (at > 0 && s[at - 1] == '\n') return true;
    }
    return false;
  };
  auto consider = [&](double c, string_view signal) {
    if (c > g.confidence) {
      g.confidence = c;
      g.signal = std::string(signal);
    }
  };
  bool cargo_status = has("   Compiling ") || has("    Checking ");
  if ((cargo_status || has("\n --> ") || has("\n  --> ")) &&
      (line_start("error[E") || has("could not compile") || has("    Finished ") ||
       line_start("warning: unused"))) {
    consider(0.8, "output: cargo/rustc");
  }
  bool c_diag = false;
  for (string_view sev : {": error: ", ": warning: ", ": fatal error: "}) {
    for (size_t at = s.find(sev); at != kNone && !c_diag; at = s.find(sev, at + 1)) {
      size_t bol = s.rfind('\n', at);
      bol = bol == kNone ? 0 : bol + 1;
      Located loc = ParseLocated(s.substr(bol, s.find('\n', at) - bol));
      if (loc.type == Located::kDiag && !loc.file.empty()) {
        string_view ext = loc.file.substr(std::min(loc.file.size(), loc.file.rfind('.')));
        c_diag = IsOneOf(ext, {".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx",
                               ".m", ".mm", ".cu", ".s", ".S", ".f90", ".inl", ".ipp", ".tcc"});
      }
      if (at > 64 * 1024) break;
    }
  }
  if (c_diag || has(" errors generated.") || has(" error generated.") ||
      has(" warnings generated.") || has(" warning generated.") || has(": In function ")) {
    consider(0.8, "output: compiler diagnostics");
    g.build_signals = true;
  }
  if (has("undefined reference to `") || has("collect2: error: ld returned")) {
    consider(0.8, "output: linker errors");
    g.build_signals = true;
  }
  if (has("make: *** ") || has("]: *** ") || has("]: Entering directory")) {
    consider(0.75, "output: make");
  }
  if (line_start("CMake Error") || has("-- Configuring done") ||
      has("-- Build files have been written") || has("-- Configuring incomplete")) {
    consider(0.8, "output: cmake");
  }
  if (line_start("[  0%] ") || has("%] Building ") || has("%] Built target ") ||
      has("%] Linking ")) {
    consider(0.8, "output: cmake build");
    g.build_signals = true;
  }
  // ninja's progress ("[3/128] Building C object …", "[128/128] Linking C executable x").
  if (has("ninja: build stopped") || (line_start("FAILED: ") && has("] Building ")) ||
      (line_start("[1/") && (has("] Building ") || has("] Linking ")))) {
    consider(0.8, "output: ninja");
    g.build_signals = true;
  }
  if (line_start("# ") && has(".go:")) {
    for (size_t at = s.find(".go:"); at != kNone; at = s.find(".go:", at + 1)) {
      size_t bol = s.rfind('\n', at);
      bol = bol == kNone ? 0 : bol + 1;
      Located loc = ParseLocated(s.substr(bol, s.find('\n', at) - bol));
      if (loc.type == Located::kDiag && Ends(loc.file, ".go")) {
        consider(0.8, "output: go build");
        g.build_signals = true;
        break;
      }
      if (at > 64 * 1024) break;
    }
  }
  if ((has("webpack ") && has(" compiled ")) || line_start("ERROR in ./")) {
    consider(0.8, "output: webpack");
  }
  // esbuild's messages: "✘ [ERROR] Could not resolve …", "▲ [WARNING] …", their location
  // indented under them.
  if (line_start("\xE2\x9C\x98 [ERROR] ") || line_start("\xE2\x96\xB2 [WARNING] ")) {
    consider(0.8, "output: esbuild");
    g.build_signals = true;
  }
  if ((line_start("vite v") && has(" building ")) || line_start("error during build:") ||
      line_start("\xE2\x9C\x93 built in ")) {
    consider(0.8, "output: vite");
  }
  // Gradle's tasks and verdict (a test run's results under them are the test shaper's).
  if (line_start("> Task :") || line_start("BUILD FAILED in ") ||
      line_start("BUILD SUCCESSFUL in ") ||
      line_start("FAILURE: Build failed with an exception.")) {
    consider(0.8, "output: gradle");
    g.build_signals = true;
  }
  if (line_start("npm ERR! code ") || line_start("npm error code ") ||
      (line_start("added ") && has(" packages")) || line_start("npm WARN deprecated ") ||
      line_start("npm warn deprecated ")) {
    consider(0.75, "output: npm");
  }
  if (line_start("Reading package lists...") &&
      (line_start("E: ") || line_start("Setting up ") || has(" newly installed"))) {
    consider(0.75, "output: apt");
  }
  if (line_start("   Compiling ") || line_start("cc ") || line_start("gcc ") ||
      line_start("g++ ") || line_start("c++ ") || line_start("clang ") ||
      line_start("/usr/bin/c") || has("%] Building ")) {
    g.build_signals = true;
  }
  return g;
}

std::string DetectedLabel(const Parsed& p) {
  if (p.seen_cargo) return "cargo";
  if (p.seen_go) return "go build";
  if (p.seen_webpack) return "webpack";
  if (p.seen_vite) return "vite";
  if (p.seen_esbuild) return "esbuild";
  if (p.seen_gradle) return "gradle";
  if (p.seen_npm) return "npm";
  if (p.seen_apt) return "apt";
  if (p.seen_ninja) return "ninja";
  if (p.seen_cmake) return "cmake";
  if (p.seen_make) return "make";
  if (p.seen_compiler) return "compiler";
  return "build";
}

// core::SplitLines, with the vector sized before it is filled: on outputs of many megabytes
// its growth (copies, fresh pages) cost more than the parsing.
std::vector<string_view> SplitLinesSized(string_view text) {
  size_t count = 1;
  for (const char *p = text.data(), *end = p + text.size();
       (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)))) != nullptr;
       ++p) {
    ++count;
  }
  std::vector<string_view> lines;
  lines.reserve(count);
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == kNone ? text.size() : nl;
    size_t content_end = end;
    if (content_end > start && text[content_end - 1] == '\r') --content_end;
    lines.push_back(text.substr(start, content_end - start));
    if (nl == kNone) break;
    start = nl + 1;
  }
  return lines;
}

// pip shows a failed build step's own output indented under "╰─> [22 lines of output]", up to
// "[end of output]". The lines to parse: `lines` with those blocks' indent taken off, so the
// compiler's errors in them are diagnostics like any other (shown as printed, indented); empty
// when the output has no such block.
std::vector<string_view> UnindentSubprocessOutput(const std::vector<string_view>& lines) {
  std::vector<string_view> read;
  for (size_t i = 0; i < lines.size(); ++i) {
    const string_view t = Trim(lines[i]);
    if (!t.starts_with("╰─> [") || !t.ends_with(" lines of output]")) continue;
    // The block is as long as pip says: "[end of output]" is looked for there, not further.
    const uint64_t stated = ParseNumber(t.substr(std::string_view("╰─> [").size()));
    const size_t last = static_cast<size_t>(std::min<uint64_t>(lines.size() - 1, i + 1 + stated + 1));
    size_t end = i + 1;
    while (end <= last && Trim(lines[end]) != "[end of output]") ++end;
    if (end > last) continue;
    size_t indent = kNone;
    for (size_t k = i + 1; k < end; ++k) {
      if (IsBlank(lines[k])) continue;
      indent = std::min(indent, lines[k].find_first_not_of(' '));
    }
    if (indent == kNone) continue;
    if (read.empty()) read = lines;
    for (size_t k = i + 1; k < end; ++k) {
      read[k].remove_prefix(std::min(indent, read[k].size()));
    }
    i = end;
  }
  return read;
}

class BuildShaper final : public core::Shaper {
 public:
  BuildShaper() {
    meta_.id = "builtin-build";
    meta_.name = "build";
    meta_.version = "1.0.0";
    meta_.description =
        "Compilers and build tools (gcc/clang, make, cmake, ninja, cargo, go, webpack, vite, "
        "npm install, apt): every error with its location, warnings counted, progress "
        "collapsed";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "build";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(string_view command, string_view snippet,
                                          std::optional<int>) override {
    CommandInfo cmd = ReadCommand(command);
    OutputGuess out = GuessFromOutput(snippet);
    double confidence = 0;
    std::string signal;
    // make lint, make test, ninja docs: what the wrapper ran printed it, and a shaper that
    // recognizes that output by its lines (a linter's problems, a search's matches, a log's
    // entries) reads it better; make's own "make: *** […] Error 1" says no more.
    const bool wrapped_other =
        cmd.kind == CmdKind::kWrapper && !out.build_signals && out.confidence < 0.8;
    if (cmd.confidence > 0) {
      confidence = cmd.confidence;
      signal = StrCat("command: ", cmd.label);
      if (cmd.kind == CmdKind::kCargoTest) {
        // With test results the test shaper reads it better; a build failure is ours.
        bool results = Contains(snippet, "test result: ") || Contains(snippet, "\nrunning ") ||
                       Contains(snippet, "        PASS ") || Contains(snippet, " Starting ");
        confidence = results ? 0.6 : 0.9;
      } else if (wrapped_other) {
        confidence = 0.6;
      }
    }
    if (out.confidence > confidence && !wrapped_other) {
      confidence = out.confidence;
      signal = out.signal;
    }
    if (confidence <= 0) return core::MatchResult{false, 0, {}};
    if (cmd.kind == CmdKind::kNone || cmd.kind == CmdKind::kWrapper) {
      // A test run (make check, a script) is the test shaper's.
      RunnerGuess test = GuessRunner(command, snippet);
      if (test.confidence >= 0.8) confidence = std::min(confidence, 0.7);
    }
    return core::MatchResult{true, confidence, {signal}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(string_view output,
                                          const core::ShapeContext& context) override {
    std::vector<string_view> lines = SplitLinesSized(output);
    if (lines.empty() || context.raw_path.empty()) {
      return core::ShapeOutput{"", RenderMode::kRaw};
    }
    CommandInfo cmd = ReadCommand(context.command);
    const std::vector<string_view> unindented = UnindentSubprocessOutput(lines);
    Parsed p = Parser(unindented.empty() ? lines : unindented).Run();
    std::string label = cmd.label.empty() ? DetectedLabel(p) : cmd.label;
    SummaryWriter out(&lines);
    const bool exit_known = context.exit_code.has_value();
    const int exit_code = context.exit_code.value_or(0);

    // A small table a target printed (`pip list`, a query's result): shown whole, as the generic
    // shaper shows it.
    if (IsSmallTable(lines, output.size())) return core::ShapeOutput{"", RenderMode::kRaw};
    // `npm ls --all`, `cargo tree`, `pnpm ls`: a tree of dependencies, no build; shown by its
    // top levels and the entries marked as problems (the generic shaper's tree).
    if (std::optional<core::ShapeOutput> tree = ShapeTreeDrawing(lines, context, label)) {
      return std::move(*tree);
    }
    uint64_t recognized = 0;
    for (size_t k = 0; k < kKinds; ++k) {
      if (k != static_cast<size_t>(Kind::kOther) && k != static_cast<size_t>(Kind::kBlank) &&
          k != static_cast<size_t>(Kind::kContext) && k != static_cast<size_t>(Kind::kLibFrame) &&
          k != static_cast<size_t>(Kind::kShadowMap)) {
        recognized += p.kind_count[k];
      }
    }
    if (recognized == 0) {
      // Not a build output this shaper knows (what `cargo run` or `go run` printed): claim
      // nothing; the generic shaper's head, tail, trouble and frames in the user's code — or,
      // where that is the output as it is (a few lines), the head, the tail and the lines that
      // look like trouble, long lines cut.
      core::ShapeOutput unread = ShapeUnread(output, context, label);
      if (unread.render_mode != RenderMode::kRaw) return unread;
      const std::string outcome = !exit_known    ? "exit status unknown"
                                  : exit_code == 0 ? ExitZeroNote(context.command)
                                                   : core::FailureText(context.command, exit_code);
      out.Header(StrCat(label, ": ", outcome, ", ", core::FormatCount(lines.size()),
                        lines.size() == 1 ? " line" : " lines"));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    const bool problems = p.errors > 0 || p.build_fails > 0 || p.undefined_refs > 0 ||
                          p.linker_errors > 0 || p.error_lines > 0 || p.failure_signal;
    const bool exit_ok = !exit_known || exit_code == 0;
    std::string verdict;
    bool failed = false;
    if (problems) {
      // (A status 0 from `| tail` says nothing of the build; nor does a viewer's, a build's
      // log read again: `make > build.log 2>&1; tail -30 build.log`.)
      const std::vector<string_view> stages = PipelineStages(context.command);
      failed = !(exit_known && exit_code == 0) || StatusIsAFilters(context.command) ||
               (!stages.empty() && IsCatLike(ToolName(stages.front())));
      verdict = failed ? "FAILED" : "exit 0";
    } else if (!exit_ok) {
      verdict = core::FailureText(context.command, exit_code);
    } else if (CutByHead(context.command)) {
      // The status is head's and the end, where a build fails, may be cut: no success claimed.
      verdict = "shown through head (its end may be cut)";
    } else if (!p.success.empty() &&
               !(p.success == "up to date" && (p.objects > 0 || !p.linked.empty()))) {
      // make's "Nothing to be done" in one directory says nothing of the others: a build
      // that compiled or linked something is not up to date.
      verdict = std::string(p.success);
    } else if (!p.linked.empty() || p.objects > 0) {
      verdict = "built";
    } else {
      verdict = exit_known ? ExitZeroNote(context.command) : "no errors reported";
    }
    // apt-get -s printed what it would do ("Inst …", "Conf …"): nothing was changed.
    if (p.apt_simulated && verdict == "ok") verdict = "simulated, nothing changed";
    std::vector<std::string> facts;
    // A bundler that says how many errors it had, more than it shows in a form read here
    // (vite's "Build failed with 39 errors:" over 5 of them and "..."): its count.
    uint64_t errors = p.errors;
    for (string_view line : lines) {
      if (Starts(line, "Build failed with ") && line.ends_with(" errors:")) {
        errors = std::max<uint64_t>(errors, ParseNumber(line.substr(18)));
      }
    }
    if (errors > 0) facts.push_back(Plural(errors, "error", "errors"));
    if (p.warnings > 0) facts.push_back(Plural(p.warnings, "warning", "warnings"));
    if (!facts.empty() && !p.files.empty()) {
      facts.back() += StrCat(" in ", Plural(p.files.size(), "file", "files"));
    }
    if (p.error_limit && p.errors > 0) facts.front() += " before it stopped at its error limit";
    if (p.undefined_refs > 0) {
      facts.push_back(Plural(p.undefined_refs, "undefined reference", "undefined references"));
    }
    if (p.linker_errors > 0) facts.push_back(Plural(p.linker_errors, "linker error", "linker errors"));
    // Notes alone, through a filter (`g++ -c a.cc 2>&1 | tail -8`): a compiler's notes follow the
    // error or warning they explain, which is cut off above.
    const bool notes_alone =
        !p.diags.empty() && std::all_of(p.diags.begin(), p.diags.end(),
                                        [](const Diag& d) { return d.sev == Sev::kNote; });
    if (!problems && p.warnings == 0 && notes_alone && StatusIsAFilters(context.command)) {
      facts.push_back("notes alone (what they explain is cut off above)");
    }
    if (!problems && exit_ok) {
      // The workspace's own crates by name; dependencies only counted.
      const std::string local =
          p.local_crates.empty() ? "" : StrCat(" (", NameList(p.local_crates), ")");
      if (p.crates_compiled > 0) {
        facts.push_back(Plural(p.crates_compiled, "crate compiled", "crates compiled") +
                        (p.crates_checked == 0 ? local : ""));
      }
      if (p.crates_checked > 0) {
        facts.push_back(Plural(p.crates_checked, "crate checked", "crates checked") + local);
      }
      if (p.objects > 0) facts.push_back(Plural(p.objects, "object built", "objects built"));
      if (p.targets > 0) {
        facts.push_back(StrCat(Plural(p.targets, "target built", "targets built"), " (",
                               NameList(p.built_targets), ")"));
      }
      if (p.ninja_total > 0 && p.objects == 0) {
        facts.push_back(p.ninja_done == p.ninja_total
                            ? Plural(p.ninja_total, "build step", "build steps")
                            : StrCat(core::FormatCount(p.ninja_done), "/",
                                     core::FormatCount(p.ninja_total), " build steps"));
      }
      if (p.targets == 0 && !p.linked.empty()) {
        facts.push_back(StrCat(Plural(p.linked.size(), "artifact linked", "artifacts linked"), " (",
                               NameList(p.linked), ")"));
      }
      if (p.packages > 0) facts.push_back(Plural(p.packages, "package set up", "packages set up"));
      if (!p.assets.empty()) {
        facts.push_back(StrCat(Plural(p.assets.size(), "asset written", "assets written"), " (",
                               NameList(p.assets), ")"));
      }
    }
    std::string header = StrCat(label, ": ", verdict);
    for (size_t f = 0; f < facts.size(); ++f) StrAppend(&header, f == 0 ? " — " : ", ", facts[f]);
    if (failed && exit_known && exit_code != 0) {
      StrAppend(&header, " (", core::ExitText(exit_code), ")");
    }
    out.Header(header);

    // A clean success keeps only what names the result; anything with problems or warnings
    // keeps where they happened.
    const bool full = problems || !exit_ok || p.warnings > 0 || !p.diags.empty() ||
                      p.kind_count[static_cast<size_t>(Kind::kWarnLine)] > 0;
    // What the command asked for: its first stage's arguments ("apt-get install -y x 2>&1 |
    // tail -30").
    const std::vector<string_view> stages = PipelineStages(context.command);
    Writer(lines, p, full, problems || !exit_ok,
           ToolArgs(stages.empty() ? context.command : stages[0]), out)
        .Write();
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, failed};
  }

 private:
  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeBuildShaper() { return std::make_shared<BuildShaper>(); }

}  // namespace plugline::builtin

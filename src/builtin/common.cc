#include "builtin/common.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_split.h"
#include "core/strings.h"
#include "core/summary_budget.h"
#include "core/text.h"

namespace plugline::builtin {

SummaryWriter::SummaryWriter(const std::vector<std::string_view>* source) : source_(source) {
  text_.reserve(4096);
  if (source_ != nullptr) shown_.assign(source_->size(), false);
}

void SummaryWriter::Header(std::string_view header) {
  text_.append(header);
  text_.push_back('\n');
  ++lines_;
}

namespace {

// Moves a cut position back to the start of a UTF-8 character.
size_t CharBoundary(std::string_view text, size_t pos) {
  while (pos > 0 && pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {
    --pos;
  }
  return pos;
}

}  // namespace

void SummaryWriter::Line(std::string_view line) {
  if (line.size() > kMaxLineBytes) {
    size_t head = CharBoundary(line, kLineHeadBytes);
    size_t tail = CharBoundary(line, line.size() - kLineTailBytes);
    text_.append(line.substr(0, head));
    StrAppend(&text_, "\n… ", core::FormatCount(tail - head), " bytes of this line omitted\n");
    text_.append(line.substr(tail));
    lines_ += 2;
  } else {
    text_.append(line);
  }
  text_.push_back('\n');
  ++lines_;
  MarkShown(line.data());
}

void SummaryWriter::LineAfterPrefix(std::string_view line, size_t skip) {
  skip = std::min(skip, line.size());
  text_.append("  ");
  Line(line.substr(skip));
  MarkShown(line.data());
}

void SummaryWriter::MarkShown(const char* p) {
  if (source_ == nullptr || source_->empty()) return;
  // Which source line is this? Views into the output are ordered by address.
  const auto& src = *source_;
  if (p < src.front().data() || p > src.back().data() + src.back().size()) return;
  auto it = std::upper_bound(src.begin(), src.end(), p,
                             [](const char* a, std::string_view b) { return a < b.data(); });
  if (it == src.begin()) return;
  size_t index = static_cast<size_t>(it - src.begin()) - 1;
  if (src[index].data() == p && !shown_[index]) {
    shown_[index] = true;
    ++shown_count_;
  }
}

void SummaryWriter::Composed(std::string_view text, std::span<const std::string_view> from) {
  text_.append(text);
  text_.push_back('\n');
  ++lines_;
  for (std::string_view line : from) MarkShown(line.data());
}

void SummaryWriter::Lines(const std::vector<std::string_view>& lines) {
  for (std::string_view line : lines) Line(line);
}

void SummaryWriter::Elided(uint64_t count, std::string_view what) {
  if (count == 0) return;
  StrAppend(&text_, "… ", core::FormatCount(count), " ", what, "\n");
  ++lines_;
}

void SummaryWriter::ElidedLines(uint64_t count, std::string_view what) {
  Elided(count, what);
  elided_lines_ += count;
}

void SummaryWriter::Marker(std::string_view text, uint64_t lines) {
  StrAppend(&text_, "… ", text, "\n");
  ++lines_;
  elided_lines_ += lines;
}

void SummaryWriter::Omitted(uint64_t count, std::string_view singular, std::string_view plural) {
  if (count == 0) return;
  Elided(count, StrCat(count == 1 ? singular : plural, " omitted"));
}

uint64_t SummaryWriter::UnaccountedLines() const {
  if (source_ == nullptr) return 0;
  uint64_t accounted = shown_count_ + elided_lines_;
  return source_->size() > accounted ? source_->size() - accounted : 0;
}

namespace {

bool StatusIsAFilters(const core::LastPipeline& last, std::string_view command) {
  if (!last.reporter.empty()) return true;
  const std::vector<std::string_view>& stages = last.stages;
  // xargs's status is the commands' it ran (123: one of them failed): no filter's.
  if (stages.size() > 1) {
    const std::vector<std::string> words = core::CommandWords(stages.back());
    if (!words.empty() && (words[0] == "xargs" || words[0].ends_with("/xargs"))) return false;
  }
  return stages.size() > 1 && command.find("pipefail") == std::string_view::npos &&
         ToolName(stages.back()) != ToolName(stages.front());
}

}  // namespace

bool StatusIsAFilters(std::string_view command) {
  return StatusIsAFilters(core::SplitLastPipeline(command), command);
}

std::string ExitZeroNote(std::string_view command) {
  const core::LastPipeline last = core::SplitLastPipeline(command);
  if (!StatusIsAFilters(last, command)) return "exit 0";
  return StrCat("exit 0 is ", last.reporter.empty() ? ToolName(last.stages.back()) : last.reporter,
                "'s");
}

bool CutByHead(std::string_view command) {
  const std::vector<std::string_view> stages = PipelineStages(command);
  return stages.size() > 1 && ToolName(stages.back()) == "head";
}

bool CutByCommand(std::string_view command) {
  const std::vector<std::string_view> stages = PipelineStages(command);
  if (stages.size() < 2) return false;
  const std::string tool = ToolName(stages.back());
  const std::vector<std::string> args = ToolArgs(stages.back());
  auto has = [&](std::string_view flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  return tool == "head" || (tool == "tail" && !has("-f") && !has("-F") && !has("--follow")) ||
         (tool == "sed" && has("-n"));
}

bool ChosenByGrep(std::string_view command) {
  const std::vector<std::string_view> stages = PipelineStages(command);
  if (stages.size() < 2) return false;
  const std::string tool = ToolName(stages.back());
  return tool == "grep" || tool == "egrep" || tool == "fgrep" || tool == "rg";
}

std::string_view Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool IsBlank(std::string_view s) { return Trim(s).empty(); }

std::optional<uint64_t> LeadingNumber(std::string_view s) {
  s = Trim(s);
  size_t i = 0;
  uint64_t value = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    value = value * 10 + static_cast<uint64_t>(s[i++] - '0');
  }
  if (i == 0) return std::nullopt;
  return value;
}

bool IsCaretsOnly(std::string_view line) {
  return line.find('^') != std::string_view::npos &&
         line.find_first_not_of(" \t^~") == std::string_view::npos;
}

std::optional<size_t> TreeBranchColumn(std::string_view line) {
  // The characters a drawing's prefix is made of: spaces, guides, branches and dashes.
  enum class Part { kNone, kSpace, kGuide, kBranch, kDash };
  constexpr size_t kNone = std::string_view::npos;
  size_t column = 0;
  size_t branch = kNone;  // the column of the branch the dashes just read follow
  size_t entry = kNone;   // the column of a branch whose dashes a space followed
  Part last = Part::kNone;
  for (size_t i = 0; i < line.size(); ++column) {
    Part part = Part::kNone;
    size_t width = 1;
    const unsigned char c = static_cast<unsigned char>(line[i]);
    if (c == ' ') {
      part = Part::kSpace;
    } else if (c == '|' || c == '+' || c == '`' || c == '\\') {
      part = c == '|' ? Part::kGuide : Part::kBranch;  // "|-- " (tree's ASCII) branches too
    } else if (c == '-') {
      part = Part::kDash;
    } else if (c == 0xC2 && i + 1 < line.size() &&
               static_cast<unsigned char>(line[i + 1]) == 0xA0) {
      part = Part::kSpace;  // a no-break space (older `tree`)
      width = 2;
    } else if (c == 0xE2 && i + 2 < line.size() &&
               static_cast<unsigned char>(line[i + 1]) == 0x94) {
      width = 3;
      switch (static_cast<unsigned char>(line[i + 2])) {
        case 0x82: part = Part::kGuide; break;                          // │
        case 0x9C: case 0x94: part = Part::kBranch; break;              // ├ └
        case 0x80: case 0xAC: case 0xB4: part = Part::kDash; break;     // ─ ┬ ┴
        default: break;
      }
    }
    if (part == Part::kNone) break;
    switch (part) {
      case Part::kSpace:
        if (last == Part::kDash && branch != kNone) {
          entry = branch;
        } else if (last != Part::kSpace) {
          entry = kNone;
        }
        break;
      case Part::kGuide:
      case Part::kBranch:
        branch = column;
        entry = kNone;
        break;
      case Part::kDash:
        if (last != Part::kDash && last != Part::kBranch && last != Part::kGuide) branch = kNone;
        entry = kNone;
        break;
      case Part::kNone:
        break;
    }
    last = part;
    i += width;
    if (i >= line.size()) return std::nullopt;  // all prefix, no entry
  }
  if (last != Part::kSpace || entry == kNone) return std::nullopt;
  return entry;
}

bool IsTreeDrawing(const std::vector<std::string_view>& lines) {
  constexpr size_t kMinEntries = 20;
  size_t entries = 0, other = 0;
  for (std::string_view line : lines) {
    if (TreeBranchColumn(line)) {
      ++entries;
    } else if (!Trim(line).empty()) {
      ++other;
    }
  }
  return entries >= kMinEntries && entries * 10 >= (entries + other) * 6;
}

size_t MavenLevelLength(std::string_view line) {
  for (std::string_view level : {"[INFO]", "[ERROR]", "[WARNING]", "[WARN]", "[DEBUG]"}) {
    if (line.starts_with(level)) {
      return level.size() + (line.size() > level.size() && line[level.size()] == ' ' ? 1 : 0);
    }
  }
  return 0;
}

bool IsMavenHelp(std::string_view t) {
  return t.starts_with("-> [Help ") || t.starts_with("[Help ") ||
         t.starts_with("To see the full stack trace of the errors") ||
         t.starts_with("Re-run Maven using the -X switch") ||
         t.starts_with("For more information about the errors and possible solutions") ||
         t.starts_with("Please refer to dump files") || t.starts_with("After correcting the problems");
}

bool IsPlatformFrame(std::string_view frame) {
  if (!frame.starts_with("at ")) return false;
  static constexpr std::string_view kPackages[] = {
      "java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "kotlinx.", "scala.",
      "org.springframework.", "org.apache.", "org.hibernate.", "io.netty.", "reactor.", "akka.",
      "org.eclipse.", "org.glassfish.", "com.fasterxml.", "ch.qos.", "org.slf4j.", "io.grpc.",
      "okhttp3.", "io.undertow.", "org.junit.", "junit.", "org.opentest4j.", "org.testng.",
      "org.gradle.", "worker.org.gradle.", "com.google.", "net.bytebuddy.", "System.",
      "Microsoft.", "<Jasmine>"};
  const std::string_view f = frame.substr(3);
  for (std::string_view p : kPackages) {
    if (f.starts_with(p)) return true;
  }
  return false;
}

bool IsScriptFailureEpilogue(std::string_view line) {
  const std::string_view t = Trim(line);
  for (std::string_view npm : {"npm error ", "npm ERR! "}) {
    if (!t.starts_with(npm)) continue;
    const std::string_view rest = Trim(t.substr(npm.size()));
    if (rest.starts_with("code ")) {
      const std::string_view code = rest.substr(5);
      return code == "ELIFECYCLE" ||
             (!code.empty() &&
              std::all_of(code.begin(), code.end(), [](char c) { return c >= '0' && c <= '9'; }));
    }
    static constexpr std::string_view kRestating[] = {
        "Lifecycle script ", "errno ", "path ", "workspace ", "location ", "command failed",
        "command sh -c ", "command /bin/sh -c ", "command C:\\", "signal ", "Exit status ",
        "Failed at the ", "This is probably not a problem with npm", "A complete log of this run"};
    for (std::string_view s : kRestating) {
      if (rest.starts_with(s)) return true;
    }
    // Older npm: "shop@1.0.0 build: `tsc -p .`", and the log's path under the last line.
    return (rest.ends_with("`") && rest.find(": `") != std::string_view::npos &&
            rest.find('@') != std::string_view::npos) ||
           (rest.ends_with(".log") && rest.find("/_logs/") != std::string_view::npos);
  }
  if (t.starts_with("error Command failed with exit code ")) return true;  // yarn
  if (t.starts_with("info Visit https://yarnpkg.com/")) return true;
  if (t.starts_with("ELIFECYCLE ") || t.starts_with("ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL")) {
    return true;  // pnpm
  }
  return t.starts_with("error: script \"") &&  // bun
         t.find("\" exited with code ") != std::string_view::npos;
}

bool LooksLikeToolErrorLine(std::string_view line) {
  return core::LooksLikeErrorLine(line) && !IsScriptFailureEpilogue(line);
}

bool InLibraryPath(std::string_view frame) {
  static constexpr std::string_view kMarkers[] = {
      // JavaScript
      "node_modules/", "(node:", " node:", "node:internal", "(internal/", "(<anonymous>)",
      // Deno's built-in extensions ("ext:cli/40_test.js"), Bun's built-ins ("native:7:39")
      "(ext:", " ext:", "(native:",
      // Python
      "site-packages/", "dist-packages/", "/lib/python3.", "/lib/python2.", "/usr/lib/python",
      "<frozen ", "/_pytest/", "/pluggy/",
      // Go
      "/usr/lib/go", "/usr/local/go/", "/go/pkg/mod/", "/src/runtime/", "testing/testing.go",
      "runtime/panic.go",
      // Rust
      "/rustc/", ".cargo/registry", "/.rustup/", "/libstd/", "/library/std/", "/library/core/",
      // Ruby
      "/gems/", "/rubygems/", "/lib/ruby/",
      // vendored dependencies (Go, PHP, Ruby)
      "/vendor/"};
  for (std::string_view marker : kMarkers) {
    if (frame.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

bool IsLocationUnderFunction(std::string_view line) {
  const std::string_view t = Trim(line);
  if (t.starts_with("at ")) return !t.ends_with(")") && StartsWithLocation(t.substr(3));
  return line.starts_with("\t") && t.find(".go:") != std::string_view::npos &&
         StartsWithLocation(t);
}

size_t FrameIndent(std::string_view line) {
  size_t at = line.find_first_not_of(" \t");
  while (at != std::string_view::npos && line[at] == '|' &&
         (at + 1 == line.size() || line[at + 1] == ' ')) {
    at = line.find_first_not_of(" \t", at + 1);
  }
  return at == std::string_view::npos ? line.size() : at;
}

bool IsUserFrame(std::string_view line) {
  const std::string_view t = Trim(line.substr(FrameIndent(line)));
  if (IsLocationUnderFunction(line)) return !InLibraryPath(t);
  if (t.starts_with("File \"")) {
    return t.find("\", line ") != std::string_view::npos && !InLibraryPath(t);
  }
  if (t.starts_with("at ") && t.ends_with(")") && t.find('(') != std::string_view::npos &&
      t.find(':') != std::string_view::npos) {
    return !InLibraryPath(t) && !IsPlatformFrame(t);
  }
  return false;
}

namespace {

// A native stack frame as a sanitizer or gdb prints it: "#3 0x7f… in f file.c:9",
// "#1  main () at a.c:13".
bool IsNativeFrame(std::string_view t) {
  if (t.size() < 3 || t[0] != '#' || !std::isdigit(static_cast<unsigned char>(t[1]))) return false;
  const size_t space = t.find(' ');
  return space != std::string_view::npos &&
         std::all_of(t.begin() + 1, t.begin() + static_cast<std::ptrdiff_t>(space),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// In such a frame, the C library's start-up and system code, or a shared library of the
// system: "in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16",
// "in _start (/tmp/a.out+0x21300)", "(/lib/x86_64-linux-gnu/libc.so.6+0x271ca)", gdb's
// "from /lib/x86_64-linux-gnu/libc.so.6", "at ./nptl/pthread_kill.c:44".
bool InSystemNativeCode(std::string_view t) {
  static constexpr std::string_view kMarkers[] = {
      "csu/",     "/sysdeps/",  "./nptl/",      " in _start ", " in __libc_start",
      "(/lib/",   "(/lib64/",   "(/usr/lib/",   " from /lib/", " from /lib64/",
      " from /usr/lib/"};
  for (std::string_view marker : kMarkers) {
    if (t.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

bool IsHexByte(absl::string_view w) {
  return w.size() == 2 && std::isxdigit(static_cast<unsigned char>(w[0])) &&
         std::isxdigit(static_cast<unsigned char>(w[1]));
}

// A row of the shadow map, "  0x0c067fff7fc0: 00 00 fa", "=>0x0c067fff8010:[fd]fa", or of its
// legend, "  Partially addressable: 01 02 03 04 05 06 07 ": after a colon, bytes in hex (one of
// them in brackets in the row of the bad address).
bool IsShadowRow(std::string_view line) {
  const std::string_view t = Trim(line);
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  if (!line.starts_with("  ") && !line.starts_with("=>0x")) return false;
  size_t bytes = 0;
  for (absl::string_view w :
       absl::StrSplit(ToAbsl(t.substr(colon + 1)), absl::ByAnyChar(" []"), absl::SkipEmpty())) {
    if (!IsHexByte(w)) return false;
    ++bytes;
  }
  return bytes > 0;
}

bool IsShadowMapHeading(std::string_view line) {
  return line.starts_with("Shadow bytes around the buggy address:") ||
         line.starts_with("Shadow byte legend (");
}

}  // namespace

bool IsSystemNativeFrame(std::string_view line) {
  const std::string_view t = Trim(line);
  return IsNativeFrame(t) && InSystemNativeCode(t);
}

bool IsShadowMapLine(std::string_view line) {
  return IsShadowMapHeading(line) || IsShadowRow(line);
}

std::vector<bool> ShadowMapLines(const std::vector<std::string_view>& lines) {
  std::vector<bool> map(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!IsShadowMapHeading(lines[i])) continue;
    map[i] = true;
    while (i + 1 < lines.size() && IsShadowRow(lines[i + 1])) map[++i] = true;
  }
  return map;
}

namespace {

// How many bytes in hex, colon-separated, `line` is made of: 0 when it is anything else.
size_t HexBytes(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.ends_with(':')) t.remove_suffix(1);  // the run goes on on the next line
  size_t bytes = 0;
  for (absl::string_view w : absl::StrSplit(ToAbsl(t), ':')) {
    if (!IsHexByte(w)) return 0;
    ++bytes;
  }
  return bytes;
}

}  // namespace

bool IsHexBytesLine(std::string_view line) { return HexBytes(line) > 0; }

std::vector<bool> HexBytesLines(const std::vector<std::string_view>& lines) {
  constexpr size_t kMinHexBytes = 4;
  constexpr size_t kMinHexBytesRun = 3;
  std::vector<bool> hex(lines.size(), false);
  for (size_t i = 0; i < lines.size();) {
    size_t end = i;
    while (end < lines.size() && HexBytes(lines[end]) >= kMinHexBytes) ++end;
    if (end - i >= kMinHexBytesRun) {
      // Its last line may be shorter: "                    8f:63".
      if (end < lines.size() && HexBytes(lines[end]) > 0) ++end;
      std::fill(hex.begin() + i, hex.begin() + end, true);
    }
    i = std::max(end, i + 1);
  }
  return hex;
}

bool IsLibraryFrame(std::string_view line) {
  const std::string_view t = Trim(line.substr(FrameIndent(line)));
  if (IsNativeFrame(t)) return IsSystemNativeFrame(t);
  if (IsLocationUnderFunction(line)) return !IsUserFrame(line);
  if (t.starts_with("File \"")) {
    return t.find("\", line ") != std::string_view::npos && !IsUserFrame(line);
  }
  return t.starts_with("at ") && (IsPlatformFrame(t) || InLibraryPath(t));
}

std::vector<bool> LibraryFrameLines(const std::vector<std::string_view>& lines) {
  auto text = [](std::string_view line) { return Trim(line.substr(FrameIndent(line))); };
  std::vector<bool> library(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!IsLibraryFrame(lines[i])) continue;
    library[i] = true;
    if (i > 0 && IsLocationUnderFunction(lines[i])) library[i - 1] = true;
    if (!text(lines[i]).starts_with("File \"")) continue;
    for (size_t k = i + 1;
         k < lines.size() && k <= i + 2 && !text(lines[k]).empty() &&
         FrameIndent(lines[k]) > FrameIndent(lines[i]) && !text(lines[k]).starts_with("File \"");
         ++k) {
      library[k] = true;  // the code under it, and its carets
    }
  }
  return library;
}

bool StartsWithLocation(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 >= line.size() ||
      !std::isdigit(static_cast<unsigned char>(line[colon + 1]))) {
    return false;
  }
  const std::string_view path = line.substr(0, colon);
  return path.find_first_of(" \t") == std::string_view::npos &&
         path.find_first_of("./") != std::string_view::npos;
}

bool NamesFileLocation(std::string_view line) {
  for (size_t at = line.find_first_of(":("); at != std::string_view::npos;
       at = line.find_first_of(":(", at + 1)) {
    if (at + 1 >= line.size() || !std::isdigit(static_cast<unsigned char>(line[at + 1]))) continue;
    // The word before: name.ext, the extension 1 to 5 letters or digits, a letter first.
    size_t start = at;
    while (start > 0 && line[start - 1] != ' ' && line[start - 1] != '\t' &&
           line[start - 1] != '"' && line[start - 1] != '\'' && line[start - 1] != '(') {
      --start;
    }
    const std::string_view word = line.substr(start, at - start);
    const size_t dot = word.rfind('.');
    if (dot == std::string_view::npos || dot == 0 || word.size() - dot - 1 > 5 ||
        word.size() - dot - 1 < 1 || !std::isalpha(static_cast<unsigned char>(word[dot + 1]))) {
      continue;
    }
    if (std::all_of(word.begin() + static_cast<std::ptrdiff_t>(dot) + 1, word.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; })) {
      return true;
    }
  }
  return false;
}

namespace {

// How far a line's text is indented, after a memory checker's "==1234== " prefix.
size_t Indent(std::string_view line) {
  if (line.starts_with("==")) {
    const size_t close = line.find("==", 2);
    if (close != std::string_view::npos && close > 2 &&
        line.substr(2, close - 2).find_first_not_of("0123456789") == std::string_view::npos) {
      line.remove_prefix(close + 2);
      if (line.starts_with(" ")) line.remove_prefix(1);
    }
  }
  const size_t text = line.find_first_not_of(" \t");
  return text == std::string_view::npos ? 0 : text;
}

}  // namespace

// A stack frame or a location: "at 0x1091EF: main (leak.c:10)", "by 0x…", "File \"a.py\", line
// 3", "#1 0x… in main a.c:9", "\tat com.x.Y.z(Y.java:12)".
bool IsFrameLine(std::string_view line) {
  std::string_view t = Trim(line.substr(line.starts_with("==") ? line.find("==", 2) + 2 : 0));
  if (t.starts_with("at ") || t.starts_with("by ") || t.starts_with("File \"")) return true;
  if (t.size() > 1 && t[0] == '#' && t[1] >= '0' && t[1] <= '9') return true;
  return false;
}

std::string_view LocationPrefix(std::string_view line) {
  size_t i = line.find(':') + 1;
  while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  if (i + 1 < line.size() && line[i] == ':' && std::isdigit(static_cast<unsigned char>(line[i + 1]))) {
    ++i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  }
  return line.substr(0, i);
}

namespace {

// How many lines before a kept line are searched for the location it belongs to (gfortran
// prints the location, a blank line, the source and a marker line before "Error: …").
constexpr size_t kLocationLookback = 4;
// Gaps up to this many lines between kept lines, after the first, are counted together.
constexpr size_t kSmallGap = 3;

bool HasLetterOrDigit(std::string_view line) {
  return std::any_of(line.begin(), line.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// A line without the box a tool draws around its message ("│ ", Terraform's with colour).
std::string_view Unboxed(std::string_view line) {
  if (line.starts_with("\xE2\x94\x82")) line.remove_prefix(3);  // "│"
  return line;
}

// Where a message printed above it is, said in words, indented under it: Terraform's and
// HCL's "  on main.tf line 12, in locals:", "  at src/a.x line 4", "  in lib/b.y line 9:".
// The line number, when it is one ("12"), else empty.
std::string_view LocationInWords(std::string_view line) {
  const std::string_view t = Trim(Unboxed(line));
  if (!(t.starts_with("on ") || t.starts_with("at ") || t.starts_with("in "))) return {};
  const size_t at = t.find(" line ", 3);
  if (at == std::string_view::npos || at == 3) return {};
  const std::string_view path = t.substr(3, at - 3);
  if (path.find(' ') != std::string_view::npos ||
      path.find_first_of("./") == std::string_view::npos) {
    return {};
  }
  size_t end = at + 6;
  while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end]))) ++end;
  return end > at + 6 ? t.substr(at + 6, end - at - 6) : std::string_view();
}

}  // namespace

namespace {

// The words of a line: the runs between spaces.
std::vector<std::string_view> WordsOf(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// A line of such words ends after this many, or this many bytes (long paths): lines a budget
// can take or leave one at a time.
constexpr size_t kWordsPerFoldLine = 25;
constexpr size_t kFoldLineBytes = 400;
// Words a line of such a run may differ in besides the one at the same place in each.
constexpr size_t kMaxOtherWords = 2;

// A word that is a measure, not a name: a count, a size, a time, a version, a percentage
// ("12", "(0.05s)", "3.2MB", "45%", "12:03:04,567", "2026-12-07T10:54:22", "v1.2.3") — a
// number, with a unit of up to three letters after it. Not a name with a number in it
// ("feature/f2", "t11", "PROJ-1120", "feat(2):"), which tells lines apart.
bool IsMeasureWord(std::string_view w) {
  constexpr std::string_view kBrackets = "()[]{}<>,;:'\"";
  while (!w.empty() && kBrackets.find(w.front()) != std::string_view::npos) w.remove_prefix(1);
  while (!w.empty() && kBrackets.find(w.back()) != std::string_view::npos) w.remove_suffix(1);
  if (w.starts_with('v') || w.starts_with('V')) w.remove_prefix(1);
  size_t unit = 0;
  while (unit < w.size() && unit < 4 &&
         (std::isalpha(static_cast<unsigned char>(w[w.size() - 1 - unit])) != 0 ||
          w[w.size() - 1 - unit] == '%')) {
    ++unit;
  }
  if (unit > 3) return false;
  w.remove_suffix(unit);
  if (w.empty() || std::isdigit(static_cast<unsigned char>(w.front())) == 0) return false;
  return std::all_of(w.begin(), w.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0 ||
           std::string_view(".:,/-+T").find(c) != std::string_view::npos;
  });
}

}  // namespace

bool EndsWithLineLocation(std::string_view line) {
  std::string_view t = Trim(line);
  if (!t.ends_with('.')) return false;
  t.remove_suffix(1);
  if (const size_t input = t.rfind(", <"); input != std::string_view::npos) t = t.substr(0, input);
  const size_t at_line = t.rfind(" line ");
  if (at_line == std::string_view::npos) return false;
  const std::string_view number = t.substr(at_line + 6);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos) {
    return false;
  }
  const size_t at = t.rfind(" at ", at_line);
  if (at == std::string_view::npos) return false;
  const std::string_view path = t.substr(at + 4, at_line - at - 4);
  return !path.empty() && path.find(' ') == std::string_view::npos &&
         path.find_first_of("./") != std::string_view::npos;
}

size_t OneWordApartRun(const std::vector<std::string_view>& lines, size_t at, size_t end,
                       const std::function<bool(size_t)>& also, std::vector<std::string>* words,
                       NumbersDiffer numbers) {
  words->clear();
  const std::vector<std::string_view> first = WordsOf(lines[at]);
  if (first.size() < kMinSharedWords + 1) return at + 1;
  size_t place = std::string_view::npos;  // where the word that differs is
  // Lines that read like trouble, their numbers told apart, differ in the one word only.
  const size_t max_words = numbers == NumbersDiffer::kYes ? 1 : kMaxOtherWords;
  size_t k = at + 1;
  for (; k < end && also(k); ++k) {
    const std::vector<std::string_view> other = WordsOf(lines[k]);
    if (other.size() != first.size()) break;
    // The words that differ, numbers aside: the one, and one more at most (a version's
    // "+repack").
    std::vector<size_t> differ;
    for (size_t w = 0; w < first.size() && differ.size() <= max_words; ++w) {
      // A number after "line" is where, not how much: "at big.pl line 5." (Perl's, Ruby's,
      // Python's "File "x.py", line 5,"). Lines at different places are not alike.
      const bool where = w > 0 && (first[w - 1] == "line" || first[w - 1] == "Line");
      if (first[w] != other[w] && where) {
        differ.assign(max_words + 1, w);
        break;
      }
      if (first[w] != other[w] &&
          (numbers == NumbersDiffer::kYes || !AlikeButNumbers(first[w], other[w]) ||
           !IsMeasureWord(first[w]) || !IsMeasureWord(other[w]))) {
        differ.push_back(w);
      }
    }
    if (differ.empty() || differ.size() > max_words) break;
    if (place == std::string_view::npos) place = differ.front();
    if (differ.front() != place || first.size() - differ.size() < kMinSharedWords) break;
    std::string text(other[differ[0]]);
    for (size_t d = 1; d < differ.size(); ++d) StrAppend(&text, " ", other[differ[d]]);
    words->push_back(std::move(text));
  }
  if (words->empty()) return at + 1;
  // A separator every line has after its word ("cannot access 'x': No such file") is the
  // line's, not the word's.
  const char last = first[place].back();
  if ((last == ':' || last == ',' || last == ';') &&
      std::all_of(words->begin(), words->end(), [&](const std::string& w) {
        return w.size() > 1 && w.back() == last && w.find(' ') == std::string::npos;
      })) {
    for (std::string& w : *words) w.pop_back();
  }
  return k;
}

void WriteOneWordApart(std::string_view first, const std::vector<std::string>& words,
                       SummaryWriter& out) {
  out.Line(first);
  std::string text = StrCat(core::FormatCount(words.size()),
                            words.size() == 1 ? " more line" : " more lines", core::kOneWordBut);
  uint64_t lines = words.size();
  size_t in_line = 0;  // words on the line being written
  for (size_t i = 0; i < words.size(); ++i) {
    if (in_line == kWordsPerFoldLine || text.size() >= kFoldLineBytes) {
      out.Marker(text, lines);
      lines = 0;
      in_line = 0;
      text = core::kOneWordMore.substr(std::string_view("… ").size());  // Marker adds "… "
    } else if (i > 0) {
      text += ", ";
    }
    text.append(words[i]);
    ++in_line;
  }
  out.Marker(text, lines);
}

// A cycle of up to this many lines, repeated this many times or more, is written once.
constexpr size_t kMaxCycleLines = 12;
constexpr size_t kMinCycles = 3;

void WriteHeadTail(const std::vector<std::string_view>& lines, size_t head, size_t tail,
                   const std::function<bool(std::string_view)>& keep, size_t max_kept,
                   SummaryWriter& out, const std::vector<bool>* library) {
  const size_t n = lines.size();
  if (n <= head + tail && library == nullptr) {
    WriteFolded(lines, out);
    return;
  }
  if (n <= head + tail) {
    head = n;
    tail = 0;
  }
  // A run alike but for one word from `at`: its end and the words of its lines. Lines that read
  // like trouble make one with each other, their numbers told apart; the others with each
  // other. Not a library's frames.
  auto one_word_run = [&](size_t at, size_t end, std::vector<std::string>* words) {
    if (library != nullptr && (*library)[at]) return at + 1;
    const bool trouble = LooksLikeErrorLine(lines[at]);
    return OneWordApartRun(
        lines, at, end,
        [&](size_t k) {
          return LooksLikeErrorLine(lines[k]) == trouble && (library == nullptr || !(*library)[k]);
        },
        words, trouble ? NumbersDiffer::kYes : NumbersDiffer::kNo);
  };
  // A run of the same line (a recursion's frame, 1,024 times in a JVM's StackOverflowError) is
  // written once and its repeats counted, wherever it starts — in the head, at a line kept from
  // the middle, in the tail — and however far it goes.
  auto write_run = [&](size_t at) {
    if (library != nullptr && (*library)[at]) {
      size_t end = at + 1;
      while (end < n && (*library)[end]) ++end;
      if (IsShadowMapLine(lines[at])) {
        out.ElidedLines(end - at,
                        "lines of the sanitizer's shadow memory map and its legend omitted");
        return end;
      }
      if (IsHexBytesLine(lines[at])) {
        out.ElidedLines(end - at, "lines of hex bytes omitted");
        return end;
      }
      constexpr std::string_view kOne = "line of a library's stack frame omitted";
      if (end - at == 1 && Trim(lines[at]).size() <= kOne.size()) {
        out.Line(lines[at]);  // "    at JSON.parse (<anonymous>)" costs what its count would
        return end;
      }
      out.ElidedLines(end - at, end - at == 1 ? kOne : "lines of library stack frames omitted");
      return end;
    }
    // A cycle of lines written again and again (a recursion through two or more functions:
    // Python's RecursionError prints each frame of the cycle each time round): its lines once,
    // the repeats counted.
    // (A run of one line is folded below.)
    const bool same_next = at + 1 < n && lines[at + 1] == lines[at];
    for (size_t period = 2; !same_next && period <= kMaxCycleLines && at + 2 * period <= n;
         ++period) {
      if (lines[at + period] != lines[at]) continue;
      size_t times = 1;
      while (at + (times + 1) * period <= n &&
             std::equal(lines.begin() + at, lines.begin() + at + period,
                        lines.begin() + at + times * period)) {
        ++times;
      }
      if (times < kMinCycles) continue;
      for (size_t k = at; k < at + period; ++k) out.Line(lines[k]);
      out.ElidedLines((times - 1) * period, StrCat("lines omitted: the ", period, " lines above, ",
                                                   core::FormatCount(times - 1), " more times"));
      return at + times * period;
    }
    size_t end = at + 1;
    while (end < n && lines[end] == lines[at]) ++end;
    // A run of lines alike but for their numbers (a download's progress, `ping`'s replies):
    // its first and last lines, the ones between counted. Not lines that read like trouble:
    // each of those is kept, or counted, as such.
    size_t alike = end;
    // Nor lines that say where they are ("… at big.pl line 5.", "dep.nim(4, 6) Warning: …"):
    // their numbers are where.
    while (end == at + 1 && alike < n && AlikeButNumbers(lines[alike], lines[at]) &&
           !LooksLikeErrorLine(lines[alike]) && !EndsWithLineLocation(lines[alike]) &&
           !NamesFileLocation(lines[alike]) && (library == nullptr || !(*library)[alike])) {
      ++alike;
    }
    if (alike > end && alike - at >= kAlikeRun && !LooksLikeErrorLine(lines[at])) {
      out.Line(lines[at]);
      out.ElidedLines(alike - at - 2, "lines like the ones around, but for their numbers, omitted");
      out.Line(lines[alike - 1]);
      return alike;
    }
    // A run of lines alike but for one word (and their numbers): the first, and the others'
    // words.
    if (end == at + 1) {
      std::vector<std::string> words;
      const size_t apart = one_word_run(at, n, &words);
      if (apart - at >= kOneWordRun) {
        WriteOneWordApart(lines[at], words, out);
        return apart;
      }
    }
    out.Line(lines[at]);
    if (end - at == 2) {
      out.Line(lines[at + 1]);  // a marker would be no shorter than the line
    } else if (end - at > 2) {
      out.ElidedLines(end - at - 1, "repeats of the line above");
    }
    return end;
  };
  size_t next = 0;  // the first line not yet written or counted
  // The head is its first `head` lines, and more while runs folded in it leave it shorter than
  // that in the summary, when they folded `head` lines or more (a listing of 400 branches alike
  // but for their names is one line and a list of names: the lines after them are as much its
  // head).
  const size_t head_start = out.lines();
  auto folded = [&] { return next - std::min(next, out.lines() - head_start); };
  while (next < head || (next + tail < n && folded() >= head && out.lines() - head_start < head)) {
    next = write_run(next);
  }
  // The head ends at a location said in words ("  on main.tf line 15, in locals:"): the source
  // line it quotes under it ("  15:     owner = var.owner") goes with it.
  if (const std::string_view number = next > 0 && next < n ? LocationInWords(lines[next - 1]) : "";
      !number.empty() && Trim(Unboxed(lines[next])).starts_with(StrCat(number, ":"))) {
    out.Line(lines[next++]);
  }
  size_t middle_end = std::max(n - tail, next);
  // A run of lines alike but for one word that the tail starts inside of: from its start, so
  // that no word of it is lost to the middle.
  if (middle_end > next && middle_end < n) {
    std::vector<std::string> words;
    size_t start = middle_end;
    while (start > next && one_word_run(start - 1, start + 1, &words) == start + 1) --start;
    if (start < middle_end) {
      const size_t end = one_word_run(start, n, &words);
      if (end > middle_end && end - start >= kOneWordRun) middle_end = start;
    }
  }
  size_t kept = 0;
  // Gaps of a few lines between the lines kept (the source and its marker under each of a
  // checker's errors, or between a location and its message): after the first, counted in one
  // marker after the middle, not in one each.
  uint64_t small_gaps = 0;
  bool small_gap_marked = false;
  auto gap = [&](size_t count) {
    if (count == 0) return;
    if (count <= kSmallGap && small_gap_marked) {
      small_gaps += count;
      return;
    }
    out.ElidedLines(count, count == 1 ? "line omitted" : "lines omitted");
    small_gap_marked = small_gap_marked || count <= kSmallGap;
  };
  for (size_t i = next; i < middle_end && kept < max_kept; ++i) {
    if (!keep || !keep(lines[i])) continue;
    if (library != nullptr && (*library)[i]) continue;  // a library's code that reads like trouble
    size_t from = (i > next && i > head) ? i - 1 : i;  // one line of context before
    if (library != nullptr && (*library)[from]) from = i;
    // Not a line of marks alone ("^", "~~~^~~"): it points into a line not shown.
    if (from < i && !HasLetterOrDigit(lines[from])) from = i;
    // Or, when it is a message whose location came a few lines before it (and is not shown
    // yet), that location instead: where it happened, not the source line or marker above it.
    // Python's location of a syntax error is such a line too: "  File "pkg/a.py", line 3"
    // (compileall's "***   File …").
    auto is_location = [](std::string_view line) {
      if (StartsWithLocation(line)) return true;
      const size_t text = line.find_first_not_of("* ");
      const std::string_view t = text == std::string_view::npos ? "" : line.substr(text);
      return t.starts_with("File \"") && t.find("\", line ") != std::string_view::npos;
    };
    // A request's line names what failed, as a location does: Rails' "Started POST "/orders"
    // for …" a few lines above its "Completed 500 Internal Server Error".
    auto is_request = [](std::string_view line) {
      return core::FindRequest(line) != std::string_view::npos;
    };
    if (!is_location(lines[i]) && !is_request(lines[i])) {
      for (size_t j = i; j-- > std::max(next, i - std::min(i, kLocationLookback));) {
        if (!is_location(lines[j]) && !is_request(lines[j])) continue;
        if (j + 1 < i) {  // not the line before, which is shown anyway
          gap(j - next);
          out.Line(lines[j]);
          next = j + 1;
          from = i;
        }
        break;
      }
    }
    gap(from > next ? from - next : 0);
    // The frames indented under it (where it happened), a few.
    size_t to = i;
    const size_t indent = Indent(lines[i]);
    while (to + 1 < middle_end && to < i + kDetailUnderTrouble && !Trim(lines[to + 1]).empty() &&
           Indent(lines[to + 1]) > indent && IsFrameLine(lines[to + 1]) &&
           !(keep && keep(lines[to + 1]))) {
      ++to;
    }
    for (size_t j = std::max(from, next); j < to; ++j) out.Line(lines[j]);
    next = write_run(to);
    // Where it is, said in words on an indented line after a blank one (Terraform's
    // "Error: Reference to undeclared input variable", "", "  on main.tf line 15, in locals:"),
    // with the source line it quotes under it ("  15:     owner = var.owner").
    for (size_t j = next; j < std::min(middle_end, next + 3); ++j) {
      if (!Trim(Unboxed(lines[j])).empty()) {
        const std::string_view number = LocationInWords(lines[j]);
        if (number.empty() || Indent(Unboxed(lines[j])) <= Indent(Unboxed(lines[to]))) break;
        gap(j - next);
        out.Line(lines[j]);
        next = j + 1;
        if (next < middle_end && Trim(Unboxed(lines[next])).starts_with(StrCat(number, ":"))) {
          out.Line(lines[next++]);
        }
        break;
      }
    }
    i = next - 1;
    ++kept;
  }
  if (small_gaps > 0) {
    out.ElidedLines(small_gaps, StrCat(small_gaps == 1 ? "line" : "lines",
                                       " omitted in gaps of 1 to ", kSmallGap,
                                       " lines between the lines shown above"));
  }
  if (middle_end > next) {
    // When the lines to keep ran out: where the others that read like trouble are, when they
    // start with a location, so that none of those is lost ("x.xml:64: parser error : …").
    std::vector<std::string_view> where;
    if (keep && kept >= max_kept) {
      for (size_t i = next; i < middle_end; ++i) {
        if (StartsWithLocation(lines[i]) && keep(lines[i])) where.push_back(LocationPrefix(lines[i]));
      }
    }
    out.ElidedLines(middle_end - next,
                    StrCat(middle_end - next == 1 ? "line" : "lines", " omitted (lines ",
                           core::FormatCount(next + 1), "–", core::FormatCount(middle_end), " of ",
                           core::FormatCount(n), ")"));
    constexpr size_t kPerLine = 12;
    for (size_t k = 0; k < where.size(); k += kPerLine) {
      std::string text = k == 0 ? StrCat("of them, ", core::FormatCount(where.size()),
                                         where.size() == 1 ? " line" : " lines",
                                         " that read like trouble", core::kListAt)
                                : StrCat("lines that read like trouble", core::kListAlsoAt);
      for (size_t j = k; j < std::min(where.size(), k + kPerLine); ++j) {
        if (j > k) text += core::kListSeparator;
        text += where[j];
      }
      out.Marker(text, 0);
    }
  }
  for (size_t at = std::max(middle_end, next); at < n;) at = write_run(at);
}

namespace {

// A rule under a table's header: dashes (or '='), in two columns at least, between spaces, '+'
// or '|' ("------------------------- -----------" of `pip list`, "----+-----" of psql), and
// half its characters at least.
bool IsColumnsRule(std::string_view line) {
  line = Trim(line);
  if (line.size() < 5 || line.find_first_not_of("-=+| ") != std::string_view::npos) return false;
  size_t runs = 0, marks = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const bool mark = line[i] == '-' || line[i] == '=';
    marks += mark ? 1 : 0;
    runs += mark && (i == 0 || (line[i - 1] != '-' && line[i - 1] != '=')) ? 1 : 0;
  }
  return runs >= 2 && marks * 2 >= line.size();
}

}  // namespace

bool IsSmallTable(const std::vector<std::string_view>& lines, size_t bytes) {
  if (lines.size() > kTableLines || bytes > kTableBytes) return false;
  for (size_t i = 1; i < std::min<size_t>(lines.size(), 4); ++i) {
    if (IsColumnsRule(lines[i]) && !Trim(lines[i - 1]).empty() && !IsColumnsRule(lines[i - 1])) {
      return lines.size() - i > kMinTableRows;
    }
  }
  return false;
}

bool AlikeButNumbers(std::string_view a, std::string_view b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  const auto space = [](char c) { return c == ' ' || c == '\t'; };
  // A number's end: its digits, and those after a decimal or thousands separator ("98.9",
  // "1,024").
  const auto number_end = [&digit](std::string_view s, size_t at) {
    while (at < s.size() && (digit(s[at]) || ((s[at] == '.' || s[at] == ',') && at + 1 < s.size() &&
                                              digit(s[at + 1]) && digit(s[at - 1])))) {
      ++at;
    }
    return at;
  };
  size_t i = 0, j = 0;
  // Columns aligned to their numbers' widths: spaces before and between them, any many.
  while (i < a.size() && space(a[i])) ++i;
  while (j < b.size() && space(b[j])) ++j;
  while (i < a.size() && j < b.size()) {
    if (space(a[i]) && space(b[j])) {
      while (i < a.size() && space(a[i])) ++i;
      while (j < b.size() && space(b[j])) ++j;
      continue;
    }
    if (digit(a[i]) && digit(b[j])) {
      // "0x…" is a hexadecimal number; else the run of digits.
      const bool hex_a = a[i] == '0' && i + 2 < a.size() && a[i + 1] == 'x' && hex(a[i + 2]);
      const bool hex_b = b[j] == '0' && j + 2 < b.size() && b[j + 1] == 'x' && hex(b[j + 2]);
      if (hex_a != hex_b) return false;
      if (hex_a) {
        i += 2;
        j += 2;
        while (i < a.size() && hex(a[i])) ++i;
        while (j < b.size() && hex(b[j])) ++j;
      } else {
        i = number_end(a, i);
        j = number_end(b, j);
      }
      continue;
    }
    if (a[i] != b[j]) return false;
    ++i;
    ++j;
  }
  return i == a.size() && j == b.size();
}

void WriteFolded(const std::vector<std::string_view>& lines, SummaryWriter& out) {
  size_t i = 0;
  while (i < lines.size()) {
    size_t j = i + 1;
    while (j < lines.size() && lines[j] == lines[i]) ++j;
    out.Line(lines[i]);
    if (j - i == 2) {
      out.Line(lines[i + 1]);  // a marker would be no shorter than the line
    } else if (j - i > 2) {
      out.ElidedLines(j - i - 1, "repeats of the line above");
    }
    i = j;
  }
}

std::optional<uint64_t> CountBefore(std::string_view text, std::string_view word) {
  size_t pos = 0;
  while ((pos = text.find(word, pos)) != std::string_view::npos) {
    // The word must stand alone on its left; a number and spaces precede it.
    size_t end = pos;
    while (end > 0 && text[end - 1] == ' ') --end;
    size_t start = end;
    while (start > 0 && std::isdigit(static_cast<unsigned char>(text[start - 1]))) --start;
    bool word_start = pos == 0 || !std::isalpha(static_cast<unsigned char>(text[pos - 1]));
    if (start < end && end < pos && word_start) {
      uint64_t value = 0;
      for (size_t i = start; i < end; ++i)
        value = value * 10 + static_cast<uint64_t>(text[i] - '0');
      return value;
    }
    pos += word.size();
  }
  return std::nullopt;
}

std::string ExitNote(std::optional<int> exit_code) {
  if (!exit_code || *exit_code == 0) return "";
  return core::ExitText(*exit_code);
}

std::string FailureNote(std::string_view command, std::optional<int> exit_code) {
  if (!exit_code || *exit_code == 0) return "";
  return core::FailureText(command, *exit_code);
}

std::string Plural(uint64_t n, std::string_view one, std::string_view many) {
  return StrCat(core::FormatCount(n), " ", n == 1 ? one : many);
}

std::vector<uint64_t> FairShares(const std::vector<uint64_t>& n, uint64_t budget, uint64_t max_each,
                                 bool at_least_one) {
  auto used = [&](uint64_t c) {
    uint64_t sum = 0;
    for (uint64_t x : n) sum += std::min(x, c);
    return sum;
  };
  uint64_t lo = 0, hi = max_each;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (used(mid) <= budget) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  std::vector<uint64_t> share(n.size());
  uint64_t left = budget - std::min(budget, used(lo));
  for (size_t i = 0; i < n.size(); ++i) {
    share[i] = std::min(n[i], lo);
    if (left > 0 && n[i] > lo && lo < max_each) {
      ++share[i];
      --left;
    }
    if (at_least_one && share[i] == 0 && n[i] > 0) share[i] = 1;
  }
  return share;
}

bool Tally::Add(std::string_view key) {
  if (last_ < items_.size() && items_[last_].first == key) {
    ++items_[last_].second;
    return false;
  }
  const size_t before = items_.size();
  if (items_.size() >= kIndexFrom) {
    auto [it, added] = index_.try_emplace(key, items_.size());
    if (added) items_.emplace_back(key, 0);
    last_ = it->second;
  } else {
    last_ = 0;
    while (last_ < items_.size() && items_[last_].first != key) ++last_;
    if (last_ == items_.size()) {
      items_.emplace_back(key, 0);
      if (items_.size() == kIndexFrom) {
        for (size_t k = 0; k < items_.size(); ++k) index_.emplace(items_[k].first, k);
      }
    }
  }
  ++items_[last_].second;
  return items_.size() > before;
}

}  // namespace plugline::builtin

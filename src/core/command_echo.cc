#include "core/command_echo.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "core/command_line.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {
namespace {

std::string_view WithoutCr(std::string_view line) {
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

// A command's first word reads as a program, a path to one or an assignment before it
// (`CI=1 pytest`), not as prose, code or a diff's line.
bool LooksLikeCommand(std::string_view command) {
  if (command.empty()) return false;
  const size_t end = command.find(' ');
  const std::string_view word = command.substr(0, end);
  const unsigned char first = static_cast<unsigned char>(word.front());
  if (!absl::ascii_isalnum(first) && first != '.' && first != '/' && first != '_' &&
      first != '~') {
    return false;
  }
  for (char c : word) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (!absl::ascii_isalnum(u) && c != '.' && c != '/' && c != '_' && c != '~' && c != '-' &&
        c != '=' && c != ':' && c != '+' && c != '@') {
      return false;
    }
  }
  return true;
}

// Where the command starts in tox 4's line "py311: commands[0]> pytest" (an environment, one
// of its actions, "> "), or 0.
size_t ToxAction(std::string_view line) {
  const size_t colon = line.find(": ");
  if (colon == 0 || colon == std::string_view::npos || line.find(' ') != colon + 1) return 0;
  const size_t gt = line.find("> ", colon + 2);
  if (gt == std::string_view::npos || gt == colon + 2) return 0;
  // Its actions: commands[0], commands_pre[0], install_deps, install_package, freeze, …
  const std::string_view action = line.substr(colon + 2, gt - colon - 2);
  for (char c : action) {
    if (!absl::ascii_islower(static_cast<unsigned char>(c)) &&
        !absl::ascii_isdigit(static_cast<unsigned char>(c)) && c != '_' && c != '[' && c != ']') {
      return 0;
    }
  }
  const bool named = action.find('[') != std::string_view::npos ||
                     action.find('_') != std::string_view::npos || action == "freeze";
  return named ? gt + 2 : 0;
}

// The line counts of a diff's hunk header, "@@ -3,10 +3,19 @@" (a count left out is 1).
void HunkSizes(std::string_view header, uint64_t* old_lines, uint64_t* new_lines) {
  auto count = [&](char sign) -> uint64_t {
    const size_t at = header.find(sign, 3);
    if (at == std::string_view::npos) return 0;
    size_t i = at + 1;
    while (i < header.size() && absl::ascii_isdigit(static_cast<unsigned char>(header[i]))) ++i;
    if (i >= header.size() || header[i] != ',') return 1;
    uint64_t n = 0;
    for (++i; i < header.size() && absl::ascii_isdigit(static_cast<unsigned char>(header[i]));
         ++i) {
      n = n * 10 + static_cast<uint64_t>(header[i] - '0');
      if (n > (uint64_t{1} << 40)) break;
    }
    return n;
  };
  *old_lines = count('-');
  *new_lines = count('+');
}

}  // namespace

std::string EchoedCommand(std::string_view line, std::string_view next, int* lines) {
  *lines = 1;
  line = WithoutCr(line);
  std::string_view command;
  if (line.starts_with("> nx run ")) {
    // Nx's task header, "> nx run app:test" (npm's header for the script, when the target is
    // one, follows it).
    command = line.substr(2);
  } else if (line.starts_with("> ")) {
    // npm's and pnpm's script header: "> app@1.0.0 lint" (pnpm adds the folder), then the
    // script's command on a line of its own.
    const std::string_view name = line.substr(2, line.find(' ', 2) - 2);
    next = WithoutCr(next);
    if (name.find('@', 1) == std::string_view::npos || !next.starts_with("> ")) return {};
    *lines = 2;
    command = next.substr(2);
  } else if (line.starts_with('+')) {
    // A shell's trace (set -x): one '+' for each level of nesting, one space, then the
    // command. An added line of a diff with no hunk header (rustfmt's, `cargo fmt --check`)
    // has its code's indentation there instead: "+    pub fn a() {}".
    const size_t plus = line.find_first_not_of('+');
    if (plus == std::string_view::npos || plus > 4 || line[plus] != ' ' ||
        (plus + 1 < line.size() && line[plus + 1] == ' ')) {
      return {};
    }
    command = line.substr(plus + 1);
  } else if (line.starts_with("$ ")) {
    command = line.substr(2);  // a prompt, or yarn's "$ jest"
  } else if (line.starts_with("##[group]Run ")) {
    command = line.substr(13);  // a GitHub Actions step
  } else if (const size_t action = ToxAction(line); action != 0) {
    // tox 4: "py311: commands[0]> pytest tests", "py311: install_deps> python -I -m pip …"
    command = line.substr(action);
  } else if (const size_t at = line.find(" run-test: commands[");
             at != std::string_view::npos && line.find(' ') == at) {
    // tox 3: "py311 run-test: commands[0] | pytest tests"
    const size_t close = line.find("] | ", at);
    if (close == std::string_view::npos) return {};
    command = line.substr(close + 4);
  } else {
    return {};
  }
  command = ToStd(absl::StripAsciiWhitespace(ToAbsl(command)));
  if (!LooksLikeCommand(command)) return {};
  return std::string(command);
}

bool IsPackageManagerLine(std::string_view line) {
  line = WithoutCr(line);
  return line.starts_with("npm error ") || line.starts_with("npm ERR! ") ||
         line.find("ELIFECYCLE") != std::string_view::npos ||
         line.starts_with("error Command failed with exit code ") ||
         line.starts_with("info Visit https://yarnpkg.com/");
}

size_t PackageManagerTrailer(std::string_view text) {
  // A runner's few lines may follow the report (Nx's "✔  nx run lib:test" for a task whose
  // output it does not show, its summary after the last task).
  constexpr size_t kRunnerLines = 20;
  const std::vector<std::string_view> lines = SplitLines(text);
  size_t i = lines.size();
  for (size_t after = 0; i > 0 && after <= kRunnerLines && !IsPackageManagerLine(lines[i - 1]);
       ++after) {
    --i;
  }
  if (i == 0 || !IsPackageManagerLine(lines[i - 1])) return text.size();
  while (i > 0 && (IsPackageManagerLine(lines[i - 1]) || IsBlank(lines[i - 1]))) --i;
  while (i < lines.size() && IsBlank(lines[i])) ++i;  // the blank lines before it stay
  return i == lines.size() ? text.size() : static_cast<size_t>(lines[i].data() - text.data());
}

std::string ShownPackageManagerReport(std::string_view trailer) {
  std::string shown;
  size_t counted = 0;
  bool first = true;
  auto say_counted = [&] {
    if (counted > 0) {
      StrAppend(&shown, "… ", counted, " more lines of the package manager's report omitted\n");
    }
    counted = 0;
  };
  for (std::string_view line : SplitLines(trailer)) {
    const bool managers = IsPackageManagerLine(line);
    if (managers && !first) {
      ++counted;
      continue;
    }
    if (!managers) say_counted();
    first = first && !managers;
    StrAppend(&shown, line, "\n");
  }
  say_counted();
  return shown;
}

bool RunsPackageManager(std::string_view command) {
  const std::string tool = ToolName(command);
  return tool == "npm" || tool == "pnpm" || tool == "yarn";
}

bool IsOnePartSplit(const EchoedPart& part) {
  return IsPackageScriptHeader(part.echo) || part.commands >= 2;
}

bool IsPackageScriptHeader(std::string_view echo) {
  std::vector<std::string_view> lines;
  for (std::string_view line : SplitLines(echo)) {
    if (!IsBlank(line)) lines.push_back(WithoutCr(line));
  }
  // Its last two lines: a runner's line may come before them (Nx's "> nx run app:test").
  int taken = 0;
  const size_t n = lines.size();
  return n >= 2 && lines[n - 2].starts_with("> ") &&
         !EchoedCommand(lines[n - 2], lines[n - 1], &taken).empty() && taken == 2;
}

std::vector<EchoedPart> SplitAtEchoes(std::string_view output) {
  // Most outputs echo nothing: a look for the echoes' starts first.
  constexpr std::string_view kStarts[] = {"\n+", "\n$ ", "\n> ", "##[group]Run ", ": commands[",
                                          " run-test: commands["};
  bool any = output.starts_with('+') || output.starts_with("$ ") || output.starts_with("> ");
  for (std::string_view start : kStarts) any = any || output.find(start) != std::string_view::npos;
  if (!any) return {};
  struct Echo {
    size_t start, end;  // the echo's lines, with their newlines
    std::string command;
    size_t level = 0;  // a shell trace's nesting, its count of '+'; 0 for other echoes
  };
  std::vector<Echo> echoes;
  const std::vector<std::string_view> lines = SplitLines(output);
  // Offsets of each line's start: SplitLines' views point into `output`.
  // A diff's hunk: its added lines, "+ x", are not a shell's trace. Its header says how many
  // lines it has, old and new: "@@ -3,10 +3,19 @@".
  uint64_t old_left = 0, new_left = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.starts_with("@@ -")) {
      HunkSizes(line, &old_left, &new_left);
      continue;
    }
    if (old_left + new_left > 0 && !line.empty()) {
      if (line[0] == '\\') continue;  // "\ No newline at end of file"
      if (line[0] == '+' || line[0] == '-' || line[0] == ' ') {
        if (line[0] != '+' && old_left > 0) --old_left;
        if (line[0] != '-' && new_left > 0) --new_left;
        continue;
      }
    }
    old_left = new_left = 0;
    // A diff's header: "--- a/x" then "+++ b/x".
    if (line.starts_with("+++ ") && i > 0 && lines[i - 1].starts_with("--- ")) continue;
    int taken = 1;
    std::string command =
        EchoedCommand(lines[i], i + 1 < lines.size() ? lines[i + 1] : std::string_view(), &taken);
    if (command.empty()) continue;
    const std::string_view last = lines[i + taken - 1];
    const size_t start = static_cast<size_t>(lines[i].data() - output.data());
    size_t end = static_cast<size_t>(last.data() - output.data()) + last.size();
    while (end < output.size() && (output[end] == '\r' || output[end] == '\n')) {
      if (output[end++] == '\n') break;
    }
    const size_t level = line.starts_with('+') ? line.find_first_not_of('+') : 0;
    echoes.push_back(Echo{start, end, std::move(command), level});
    i += taken - 1;
  }
  // A trace nested in another ("++ date" in "+ echo $(date)") comes with its outer level's: a
  // run of "++++ name PASSED" lines with no "+++ " line anywhere is a program's own (tcltest's
  // verbose results), not a shell's trace.
  bool levels[5] = {true, false, false, false, false};
  for (const Echo& e : echoes) levels[std::min<size_t>(e.level, 4)] = true;
  std::erase_if(echoes, [&](const Echo& e) { return e.level > 1 && !levels[e.level - 1]; });
  std::vector<EchoedPart> parts;
  // Echoes that are more than a quarter of the lines are something else's lines, but two may
  // stand over short outputs (a report on one line, `jest --json`, then a build's four).
  if (echoes.empty() || (echoes.size() > 2 && echoes.size() * 4 > lines.size())) return parts;
  if (std::string_view before = output.substr(0, echoes[0].start); !IsBlank(before)) {
    parts.push_back(EchoedPart{{}, {}, before});
  }
  size_t echo_start = echoes[0].start;
  size_t first = 0;  // the first echo of the part being read
  for (size_t k = 0; k < echoes.size(); ++k) {
    const size_t text_end = k + 1 < echoes.size() ? echoes[k + 1].start : output.size();
    const std::string_view text = output.substr(echoes[k].end, text_end - echoes[k].end);
    if (IsBlank(text) && k + 1 < echoes.size()) continue;  // joins the next part
    parts.push_back(EchoedPart{output.substr(echo_start, echoes[k].end - echo_start),
                               echoes[k].command, text, k + 1 - first});
    echo_start = text_end;
    first = k + 1;
  }
  const bool one_script = parts.size() == 1 && IsOnePartSplit(parts[0]);
  if ((parts.size() < 2 && !one_script) || parts.size() > kMaxEchoedParts) parts.clear();
  return parts;
}

}  // namespace plugline::core

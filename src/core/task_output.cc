#include "core/task_output.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "core/command_echo.h"
#include "core/command_line.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {
namespace {

// How many of a task's first lines are looked at for npm's header naming its command.
constexpr size_t kCommandLines = 8;
// The first lines looked at for a task's before the whole output is: a runner's banner is short.
constexpr size_t kFirstLines = 40;

enum class Kind { kOther, kTask, kHeader, kRunner };

struct Parsed {
  Kind kind = Kind::kOther;
  std::string_view name;     // the task's package and name
  std::string_view label;    // the prefix as printed, without the space after it
  size_t cut = 0;            // where the line's own text starts
  std::string_view command;  // a pnpm header's
};

// A package's name or folder: "csv-lite", "@ws/shop", "packages/csv".
bool NameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '@' || c == '/' || c == '.' ||
         c == '_' || c == '-';
}

// A script's or task's name: "test", "test:unit", "build.ts".
bool TaskChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '.' || c == '_' ||
         c == '-';
}

bool All(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return !s.empty();
}

bool StartsWithLetter(std::string_view s) {
  return !s.empty() && absl::ascii_isalpha(static_cast<unsigned char>(s[0]));
}

// turbo: "PACKAGE:TASK: text", "PACKAGE:TASK:" (a blank line), "PACKAGE#TASK: text" (turbo's
// own line about the task).
Parsed ParseTurbo(std::string_view line) {
  const size_t end = line.find(' ');
  const std::string_view token = line.substr(0, end);
  if (token.size() < 4 || !token.ends_with(':')) return {};
  const std::string_view inner = token.substr(0, token.size() - 1);
  // A package's name has neither ':' nor '#'; a scoped one starts with '@'.
  const size_t sep = inner.find_first_of(":#");
  if (sep == 0 || sep == std::string_view::npos) return {};
  if (!All(inner.substr(0, sep), NameChar)) return {};
  const std::string_view task = inner.substr(sep + 1);
  if (!StartsWithLetter(task) || !All(task, TaskChar) || task.ends_with(':')) return {};
  Parsed parsed;
  parsed.kind = inner[sep] == '#' ? Kind::kRunner : Kind::kTask;
  parsed.name = inner;
  parsed.label = token;
  parsed.cut = end == std::string_view::npos ? line.size() : end + 1;
  return parsed;
}

// A log's level in brackets, "[info]: ", is no package's.
bool IsLogLevel(std::string_view word) {
  for (std::string_view level :
       {"info", "warn", "warning", "error", "err", "debug", "trace", "fatal", "notice", "verbose",
        "silly", "critical", "crit", "alert", "emerg", "log"}) {
    if (word == level) return true;
  }
  return false;
}

// yarn (`yarn workspaces foreach --parallel --verbose`): "[PACKAGE]: text", a package's name
// (lower case, as npm's are).
Parsed ParseYarn(std::string_view line) {
  if (!line.starts_with('[')) return {};
  const size_t close = line.find("]:");
  if (close == std::string_view::npos || close < 2) return {};
  const std::string_view name = line.substr(1, close - 1);
  if (!All(name, NameChar) || IsLogLevel(name)) return {};
  for (char c : name) {
    if (absl::ascii_isupper(static_cast<unsigned char>(c))) return {};
  }
  const size_t after = close + 2;
  if (after < line.size() && line[after] != ' ') return {};
  Parsed parsed;
  parsed.kind = Kind::kTask;
  parsed.name = name;
  parsed.label = line.substr(0, after);
  parsed.cut = std::min(line.size(), after + 1);
  return parsed;
}

// pnpm: "NAME SCRIPT: text", "NAME SCRIPT:" (a blank line), "NAME SCRIPT$ COMMAND" (the
// header it prints when the script starts).
Parsed ParsePnpm(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == 0 || space == std::string_view::npos || !All(line.substr(0, space), NameChar)) {
    return {};
  }
  size_t j = space + 1;
  while (j < line.size() && TaskChar(line[j])) ++j;
  const std::string_view script = line.substr(space + 1, j - space - 1);
  if (!StartsWithLetter(script)) return {};
  Parsed parsed;
  if (j < line.size() && line[j] == '$' && (j + 1 == line.size() || line[j + 1] == ' ')) {
    parsed.kind = Kind::kHeader;
    parsed.name = line.substr(0, j);
    parsed.command = line.substr(std::min(line.size(), j + 2));
    parsed.cut = line.size();
    return parsed;
  }
  if (script.size() < 2 || !script.ends_with(':')) return {};
  if (j < line.size() && line[j] != ' ') return {};
  parsed.kind = Kind::kTask;
  parsed.name = line.substr(0, j - 1);
  parsed.label = line.substr(0, j);
  parsed.cut = std::min(line.size(), j + 1);
  return parsed;
}

// `yarn`: the command is yarn's, whose prefix, a name in brackets, a program's own log may
// print too ("[main]: started").
Parsed Parse(std::string_view line, bool yarn) {
  if (Parsed turbo = ParseTurbo(line); turbo.kind != Kind::kOther) return turbo;
  if (yarn) {
    if (Parsed bracketed = ParseYarn(line); bracketed.kind != Kind::kOther) return bracketed;
  }
  return ParsePnpm(line);
}

// The command npm's header names among a task's first lines ("> csv-lite@0.5.1 test", then
// "> node --test"), or empty; `*end` is where the lines after it start.
std::string NpmCommand(std::string_view text, size_t* end) {
  const std::vector<std::string_view> lines = SplitLines(text.substr(0, 4096));
  for (size_t i = 0; i < lines.size() && i < kCommandLines; ++i) {
    int taken = 1;
    std::string command =
        EchoedCommand(lines[i], i + 1 < lines.size() ? lines[i + 1] : std::string_view(), &taken);
    if (command.empty() || !lines[i].starts_with("> ") || taken != 2) continue;
    const std::string_view last = lines[i + 1];
    *end = static_cast<size_t>(last.data() - text.data()) + last.size();
    if (*end < text.size() && text[*end] == '\n') ++*end;
    return command;
  }
  return {};
}

// The command is yarn's, or the output ends as `yarn workspaces foreach` ends one: "Done in 1s
// 2ms", "Failed with errors in 0s 445ms", "The command failed in workspace …".
bool YarnsRun(std::string_view command, std::string_view output) {
  if (ToolName(command) == "yarn") return true;
  const std::string_view tail =
      output.substr(output.size() - std::min<size_t>(output.size(), 2048));
  for (std::string_view line : SplitLines(tail)) {
    if (line.starts_with("The command failed in workspace ") ||
        line.starts_with("Failed with errors in ") || line.starts_with("Done in ")) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool SplitTaskOutput(std::string_view command, std::string_view output, TaskOutput* out) {
  const bool yarn = YarnsRun(command, output);
  // Most outputs are no runner's: a look for a line with a task's prefix among the first ones.
  {
    size_t start = 0;
    bool seen = false;
    for (size_t n = 0; n < kFirstLines && start < output.size() && !seen; ++n) {
      size_t end = output.find('\n', start);
      if (end == std::string_view::npos) end = output.size();
      const Kind kind = Parse(output.substr(start, end - start), yarn).kind;
      seen = kind == Kind::kTask || kind == Kind::kHeader;
      start = end + 1;
    }
    if (!seen) return false;
  }
  const std::vector<std::string_view> lines = SplitLines(output);
  std::vector<Parsed> parsed(lines.size());
  // pnpm's tasks are those it printed a header for.
  absl::flat_hash_set<std::string_view> headed;
  size_t nonblank = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!IsBlank(line)) ++nonblank;
    parsed[i] = Parse(line, yarn);
    if (parsed[i].kind == Kind::kHeader) headed.insert(parsed[i].name);
  }
  size_t task_lines = 0;
  absl::flat_hash_map<std::string_view, size_t> index;
  TaskOutput split;
  bool any_task = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.ends_with('\r')) line.remove_suffix(1);
    Parsed& p = parsed[i];
    // A pnpm-shaped line of no task pnpm started ("Build failed: x") is the runner's.
    const bool pnpm_shaped = p.kind == Kind::kTask && p.name.find(' ') != std::string_view::npos;
    if (pnpm_shaped && !headed.contains(p.name)) p.kind = Kind::kOther;
    if (p.kind == Kind::kOther || p.kind == Kind::kRunner) {
      StrAppend(any_task ? &split.after : &split.before, line, "\n");
      continue;
    }
    any_task = true;
    ++task_lines;
    auto [it, inserted] = index.try_emplace(p.name, split.tasks.size());
    if (inserted) {
      if (split.tasks.size() == kMaxTasks) return false;
      TaskPart task;
      task.name = std::string(p.name);
      task.header = std::string(p.label);
      split.tasks.push_back(std::move(task));
    }
    TaskPart& task = split.tasks[it->second];
    if (p.kind == Kind::kHeader) {
      task.header = std::string(line);
      task.command = ToStd(absl::StripAsciiWhitespace(ToAbsl(p.command)));
      continue;
    }
    StrAppend(&task.text, line.substr(p.cut), "\n");
  }
  if (split.tasks.empty() || task_lines < 2 || task_lines * 2 < nonblank) return false;
  // pnpm ends a task's lines with its own word on how the task ended, "packages/csv test:
  // Failed" (or "Done"): a line about the task, the runner's, not the script's (a JSON report is
  // read whole without it).
  std::string ends;
  for (TaskPart& task : split.tasks) {
    if (task.name.find(' ') == std::string::npos) continue;
    for (std::string_view word : {"Failed\n", "Done\n"}) {
      if (task.text.ends_with(word) && (task.text.size() == word.size() ||
                                        task.text[task.text.size() - word.size() - 1] == '\n')) {
        StrAppend(&ends, task.name, ": ", word);
        task.text.resize(task.text.size() - word.size());
        break;
      }
    }
  }
  split.after.insert(0, ends);
  // turbo names no command; npm's header, the first of a task's lines, does. Its last line
  // (the command) becomes the task's header, the lines up to it leave the task's text (a JSON
  // report read as a whole has nothing before it).
  for (TaskPart& task : split.tasks) {
    if (!task.command.empty()) continue;
    size_t end = 0;
    task.command = NpmCommand(task.text, &end);
    if (task.command.empty()) continue;
    task.header = StrCat(task.header, " > ", task.command);
    task.text.erase(0, end);
  }
  *out = std::move(split);
  return true;
}

}  // namespace plugline::core

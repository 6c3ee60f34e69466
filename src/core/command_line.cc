#include "core/command_line.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {

std::vector<std::string> CommandWords(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < command.size()) {
        word.push_back(command[++i]);
      } else {
        word.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < command.size()) {
      word.push_back(command[++i]);
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Builtins that change only the shell's state, and commands that prepare for the next one and
// print little or nothing (a label, `rm -rf build;`, `mkdir -p out &&`): what follows them in a
// list prints the output, and its status is the one reported.
bool IsSetup(std::string_view base) {
  static constexpr std::string_view kSetup[] = {
      "cd",    "pushd",  "popd",  "export", "source", ".",     "set",   "unset", "alias",
      "umask", "ulimit", "shopt", "trap",   "rm",     "rmdir", "mkdir", "touch", "cp",
      "mv",    "ln",     "chmod", "true",   "clear",  "sleep", "echo",  "printf"};
  return std::find(std::begin(kSetup), std::end(kSetup), base) != std::end(kSetup);
}

// A word that ends a command of a list: "&&", ";" (or glued to the word before: "app;").
bool EndsSegment(std::string_view word) {
  return word == "&&" || word.ends_with(";") || word.ends_with("&&");
}

// Index of the word that names the tool, past env assignments, wrappers and set-up commands.
// Whether a wrapper's flag takes the next word as its value ("npx --prefix web eslint",
// "sudo -u app make", "nice -n 5 make", "env -u HOME make", "time -f %e make").
bool WrapperFlagTakesValue(std::string_view wrapper, std::string_view flag) {
  // Each wrapper's such flags, a space before and after each.
  static constexpr std::pair<std::string_view, std::string_view> kValued[] = {
      {"sudo", " -u -g -C -D -h -p -U -r -t --user --group "},
      {"npx", " -p --package --prefix -w --workspace --cache --userconfig "},
      {"pnpx", " -p --package "},
      {"bunx", " -p --package "},
      {"env", " -u --unset -C --chdir "},
      {"nice", " -n --adjustment "},
      {"time", " -f --format -o --output "},
      {"stdbuf", " -i -o -e "}};
  for (const auto& [name, flags] : kValued) {
    if (name == wrapper) return absl::StrContains(ToAbsl(flags), ToAbsl(StrCat(" ", flag, " ")));
  }
  return false;
}

// A shell variable's assignment: a name (letters, digits, '_'; not a digit first), '=', a value.
bool IsAssignment(std::string_view word) {
  const size_t eq = word.find('=');
  if (eq == 0 || eq == std::string_view::npos || (word[0] >= '0' && word[0] <= '9')) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

size_t ToolIndex(const std::vector<std::string>& words) {
  static constexpr std::string_view kWrappers[] = {
      "sudo", "env", "time", "nice", "nohup", "npx", "pnpx", "bunx", "exec", "command",
      "stdbuf", "timeout", "xvfb-run", "uv", "poetry", "pipenv", "hatch"};
  size_t i = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (IsAssignment(w)) {
      ++i;  // VAR=value, the value a path or not ("XDG_CACHE_HOME=/tmp/c guile …")
      continue;
    }
    std::string base = Lower(BaseName(w));
    // A command that only sets up for the next one, which prints the output
    // ("cd app && npm test", "source .venv/bin/activate; pytest", "export CI=1 && make").
    if (IsSetup(base)) {
      size_t next = i;
      while (next < words.size() && !EndsSegment(words[next])) ++next;
      // Unless what follows only sets the status ("echo short; exit 3"): then this one
      // printed the output.
      const bool status_only =
          next + 1 < words.size() && (words[next + 1] == "exit" || words[next + 1] == "return");
      if (next + 1 < words.size() && !status_only) {
        i = next + 1;
        continue;
      }
      return i;
    }
    // A shell loop runs the command after its "do" ("for f in *.po; do msgfmt -c $f; done"),
    // a conditional the one after it.
    if (base == "for" || base == "while" || base == "until" || base == "select") {
      size_t d = i + 1;
      while (d < words.size() && words[d] != "do" && !words[d].ends_with(";do")) ++d;
      if (d + 1 < words.size()) {
        i = d + 1;
        continue;
      }
      return i;
    }
    if ((base == "if" || base == "then" || base == "!" || base == "{" || base == "(") &&
        i + 1 < words.size()) {
      ++i;
      continue;
    }
    bool wrapper = false;
    for (std::string_view k : kWrappers) wrapper = wrapper || base == k;
    if (base == "timeout" && i + 1 < words.size()) {
      // timeout [-s SIGNAL] [-k DURATION] [--preserve-status …] DURATION cmd
      ++i;
      while (i < words.size() && words[i].size() > 1 && words[i][0] == '-') {
        const std::string& flag = words[i++];
        if ((flag == "-s" || flag == "-k" || flag == "--signal" || flag == "--kill-after") &&
            i < words.size()) {
          ++i;
        }
      }
      ++i;  // the duration
      continue;
    }
    if (base == "xargs") {
      // xargs [-0] [-n N] [-P N] [-I {}] … cmd: the command it runs.
      const size_t xargs = i++;
      while (i < words.size() && words[i].size() > 1 && words[i][0] == '-') {
        const std::string& flag = words[i++];
        if (flag.size() == 2 &&
            std::string_view("nPLIdEsa").find(flag[1]) != std::string_view::npos &&
            i < words.size()) {
          ++i;
        }
      }
      if (i >= words.size()) return xargs;  // xargs alone runs echo: the tool is xargs
      continue;
    }
    if ((base == "uv" || base == "poetry" || base == "pipenv" || base == "hatch") &&
        i + 1 < words.size() && words[i + 1] == "run") {
      i += 2;
      continue;
    }
    if (base == "bundle" && i + 1 < words.size() && words[i + 1] == "exec") {
      i += 2;  // bundle exec rspec
      continue;
    }
    // php vendor/bin/phpunit: the script is the tool, as it is when run directly.
    if (base == "php" && i + 1 < words.size() && !words[i + 1].empty() && words[i + 1][0] != '-' &&
        !Lower(words[i + 1]).ends_with(".php")) {
      return i + 1;
    }
    if (wrapper) {
      ++i;
      while (i < words.size() && words[i].size() > 1 && words[i][0] == '-') {  // its flags
        const bool valued = WrapperFlagTakesValue(base, words[i]);
        i += valued && i + 1 < words.size() ? 2 : 1;
      }
      continue;
    }
    // python -m tool, node --test is the tool "node".
    if ((base.rfind("python", 0) == 0) && i + 2 < words.size() && words[i + 1] == "-m") {
      return i + 2;
    }
    return i;
  }
  return words.size();
}

// The words of the command a command line runs, and the index of its tool (ToolIndex); into
// the script a shell is given to run ("bash -lc 'cd app && pytest'" runs pytest).
struct ToolWords {
  std::vector<std::string> words;
  size_t tool = 0;
};

ToolWords Resolve(std::string_view command) {
  ToolWords r{CommandWords(command), 0};
  r.tool = ToolIndex(r.words);
  // A pipeline that ends in xargs ("find . -name '*.py' | xargs -0 python3 -m py_compile"):
  // the command xargs runs prints the output, and its status is the one reported.
  for (size_t bar = r.words.size(); bar-- > r.tool + 1;) {
    if (r.words[bar] != "|") continue;
    if (bar + 1 < r.words.size() && Lower(BaseName(r.words[bar + 1])) == "xargs") {
      const std::vector<std::string> rest(r.words.begin() + static_cast<std::ptrdiff_t>(bar) + 1,
                                          r.words.end());
      r.tool = bar + 1 + ToolIndex(rest);
    }
    break;
  }
  for (int depth = 0; depth < 3 && r.tool + 2 < r.words.size(); ++depth) {
    const std::string base = Lower(BaseName(r.words[r.tool]));
    const std::string& flags = r.words[r.tool + 1];
    if ((base != "bash" && base != "sh" && base != "zsh" && base != "dash") ||
        flags.size() < 2 || flags[0] != '-' || flags[1] == '-' ||
        flags.find('c') == std::string::npos) {
      break;
    }
    // A script of one command (after its set-up): that command; of several, the shell's.
    std::vector<std::string> words = CommandWords(r.words[r.tool + 2]);
    const size_t tool = ToolIndex(words);
    if (tool >= words.size() ||
        std::any_of(words.begin() + static_cast<std::ptrdiff_t>(tool), words.end(),
                    [](const std::string& w) { return EndsSegment(w) || w == "||"; })) {
      break;
    }
    r.words = std::move(words);
    r.tool = tool;
  }
  return r;
}

}  // namespace

std::string ToolName(std::string_view command) {
  const auto [words, i] = Resolve(command);
  if (i >= words.size()) return "";
  std::string name = Lower(BaseName(words[i]));
  // A word glued to the list's separator ("./segv; exit $?").
  while (name.size() > 1 && (name.back() == ';' || name.back() == '&')) name.pop_back();
  // "pytest-3", "python3.11" keep their family name.
  if (name.rfind("python", 0) == 0) return "python";
  if (name.rfind("pytest", 0) == 0) return "pytest";
  return name;
}

std::vector<std::string> ToolArgs(std::string_view command) {
  const auto [words, i] = Resolve(command);
  if (i >= words.size()) return {};
  return std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
}


std::string CommandKey(std::string_view command) {
  std::string tool = ToolName(command);
  if (tool.empty()) return "";
  // Tools whose first word is a subcommand; for others ("grep foo") it is data.
  static constexpr std::string_view kWithSubcommands[] = {
      "apt", "apt-get", "brew", "bun", "bundle", "cargo", "composer", "deno", "docker", "dotnet",
      "gh", "git", "go", "gradle", "gradlew", "helm", "kubectl", "make", "mix", "mvn", "npm",
      "nx", "pip", "pip3", "pnpm", "podman", "poetry", "rake", "swift", "terraform", "turbo",
      "uv", "yarn"};
  if (std::find(std::begin(kWithSubcommands), std::end(kWithSubcommands), tool) ==
      std::end(kWithSubcommands)) {
    return tool;
  }
  std::vector<std::string> args = ToolArgs(command);
  if (args.empty() || args[0].empty() || args[0].size() > 24) return tool;
  for (char c : args[0]) {
    if (!((c >= 'a' && c <= 'z') || c == '-' || c == '_' || c == ':')) return tool;
  }
  if (args[0].front() == '-') return tool;
  return StrCat(tool, " ", args[0]);
}

std::string CommandLabel(std::string_view command) {
  std::string label = CommandKey(command);
  if (label.ends_with(" run")) {
    const std::vector<std::string> args = ToolArgs(command);
    if (args.size() >= 2 && args[0] == "run" && !args[1].empty() && args[1][0] != '-' &&
        args[1].find_first_of(" \t") == std::string::npos) {
      StrAppend(&label, " ", args[1]);
    }
  }
  return label;
}

std::string FailureText(std::string_view command, int exit_code) {
  static constexpr std::string_view kAnswerOnOne[] = {"grep", "egrep", "fgrep", "rg", "ag",
                                                      "ack",  "diff",  "cmp",   "test", "["};
  // And subcommands whose exit 1 says what they found: `npm outdated` (packages are out of
  // date), `git diff --exit-code` or `--quiet` (the trees differ).
  const std::string key = exit_code == 1 ? CommandKey(command) : std::string();
  const bool answer = exit_code == 1 &&
                      (std::find(std::begin(kAnswerOnOne), std::end(kAnswerOnOne),
                                 ToolName(command)) != std::end(kAnswerOnOne) ||
                       key == "npm outdated" || key == "pnpm outdated" || key == "yarn outdated" ||
                       key == "git grep" ||
                       (key == "git diff" && CommandMentions(command, {"--exit-code", "--quiet"})));
  // timeout's own status, when it stopped the command: said so.
  if (exit_code == 124) {
    const auto [words, tool] = Resolve(command);
    for (size_t i = 0; i < tool && i < words.size(); ++i) {
      if (Lower(BaseName(words[i])) == "timeout") return "FAILED (exit 124: timed out)";
    }
  }
  return answer ? ExitText(exit_code) : StrCat("FAILED (", ExitText(exit_code), ")");
}

bool CommandMentions(std::string_view command, std::initializer_list<std::string_view> names) {
  const auto [words, tool] = Resolve(command);
  for (size_t i = tool; i < words.size(); ++i) {
    std::string base = Lower(BaseName(words[i]));
    for (std::string_view name : names) {
      if (base == name) return true;
    }
  }
  return false;
}

namespace {

bool IsReporter(std::string_view stage) {
  const std::vector<std::string> words = CommandWords(stage);
  return !words.empty() &&
         (words[0] == "echo" || words[0] == "printf" || words[0] == "true" || words[0] == ":");
}

}  // namespace

LastPipeline SplitLastPipeline(std::string_view command) {
  LastPipeline last;
  std::vector<std::string_view>& stages = last.stages;
  std::vector<std::string_view> previous;  // the pipeline before the last separator
  bool previous_and = false;               // that separator was `&&`
  size_t start = 0;
  char quote = 0;
  auto push = [&](size_t end) {
    std::string_view stage =
        ToStd(absl::StripAsciiWhitespace(ToAbsl(command.substr(start, end - start))));
    if (!stage.empty()) stages.push_back(stage);
  };
  auto next_command = [&](size_t end, bool and_then) {
    push(end);
    previous = std::move(stages);
    stages.clear();
    previous_and = and_then;
  };
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"')
        ++i;
      continue;
    }
    if (c == '\\') {
      ++i;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '|' && i + 1 < command.size() && command[i + 1] == '|') {
      next_command(i, false);  // a || b: the last command's pipeline
      start = i + 2;
      ++i;
    } else if (c == '|') {
      push(i);
      if (i + 1 < command.size() && command[i + 1] == '&') ++i;  // |&
      start = i + 1;
    } else if (c == '&' && i > 0 && (command[i - 1] == '>' || command[i - 1] == '<')) {
      // a redirection: 2>&1, >&2
    } else if (c == ';' || c == '\n' || c == '&') {
      const bool and_then = c == '&' && i + 1 < command.size() && command[i + 1] == '&';
      next_command(i, and_then);
      if (and_then) ++i;
      start = i + 1;
    }
  }
  push(command.size());
  if (stages.size() == 1 && !previous.empty() && IsReporter(stages[0])) {
    if (!previous_and) last.reporter = CommandWords(stages[0])[0];
    stages = std::move(previous);
  }
  // A shell given a script (`bash -lc 'pytest 2>&1 | tail -20'`, as agents run commands): the
  // script's last pipeline, when the script is in the command as written (quoted, unescaped).
  if (stages.size() == 1) {
    const std::vector<std::string> words = CommandWords(stages[0]);
    if (words.size() == 3 && words[1].size() >= 2 && words[1][0] == '-' && words[1][1] != '-' &&
        words[1].find('c') != std::string::npos && !words[2].empty()) {
      const std::string shell = words[0].substr(words[0].rfind('/') + 1);
      const size_t at = stages[0].find(words[2]);
      if ((shell == "sh" || shell == "bash" || shell == "zsh" || shell == "dash") &&
          at != std::string_view::npos) {
        return SplitLastPipeline(stages[0].substr(at, words[2].size()));
      }
    }
  }
  return last;
}

std::vector<std::string_view> PipelineStages(std::string_view command) {
  return SplitLastPipeline(command).stages;
}

namespace {

bool IsSourceExtension(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  static constexpr std::string_view kSource[] = {
      "c",    "cc",   "cpp",  "cxx",   "h",     "hh",   "hpp",    "hxx",    "py",    "pyi",
      "js",   "mjs",  "cjs",  "ts",    "mts",   "cts",  "tsx",    "jsx",    "go",    "rs",
      "java", "kt",   "kts",  "scala", "rb",    "php",  "cs",     "fs",     "swift", "m",
      "mm",   "sh",   "bash", "zsh",   "lua",   "pl",   "pm",     "r",      "jl",    "ex",
      "exs",  "erl",  "hs",   "ml",    "clj",   "dart", "vue",    "svelte", "sql",   "md",
      "rst",  "html", "htm",  "css",   "scss",  "less", "xml",    "json",   "jsonc", "yaml",
      "yml",  "toml", "ini",  "cfg",   "cmake", "mk",   "gradle", "proto",  "tf",    "nix"};
  const std::string_view ext = name.substr(dot + 1);
  return std::find(std::begin(kSource), std::end(kSource), ext) != std::end(kSource) ||
         name == "Makefile" || name == "CMakeLists.txt" || name == "Dockerfile";
}

}  // namespace

namespace {

// The file a viewer prints (cat, head, tail — not following —, less, more, bat, nl, column,
// `sed -n`): its last operand; empty when the tool is no viewer or names none.
std::string_view ViewedFile(std::string_view tool, const std::vector<std::string>& args) {
  static constexpr std::string_view kViewers[] = {"cat", "head",   "tail", "less",   "more",
                                                  "bat", "batcat", "nl",   "column", "sed"};
  if (std::find(std::begin(kViewers), std::end(kViewers), tool) == std::end(kViewers)) return {};
  auto has = [&args](std::string_view flag) {
    return std::find(args.begin(), args.end(), flag) != args.end();
  };
  if (tool == "tail" && (has("-f") || has("-F") || has("--follow"))) return {};
  if (tool == "sed" && !has("-n")) return {};
  for (auto it = args.rbegin(); it != args.rend(); ++it) {
    if (!it->empty() && (*it)[0] != '-') return *it;
  }
  return {};
}

}  // namespace

bool PrintsSourceFile(std::string_view command) {
  const std::vector<std::string_view> stages = PipelineStages(command);
  if (stages.empty()) return false;
  const std::string_view first = stages.front();
  const std::string tool = ToolName(first);
  const std::vector<std::string> args = ToolArgs(first);
  std::vector<std::string_view> operands;
  for (const std::string& a : args) {
    if (!a.empty() && a[0] != '-') operands.push_back(a);
  }
  if (tool == "git") {
    if (operands.empty()) return false;
    if (operands[0] == "blame" || operands[0] == "annotate") return true;
    if (operands[0] == "show") {
      for (size_t i = 1; i < operands.size(); ++i) {
        const size_t colon = operands[i].find(':');
        if (colon != std::string_view::npos && IsSourceExtension(operands[i].substr(colon + 1))) {
          return true;
        }
      }
    }
    return false;
  }
  const std::string_view file = ViewedFile(tool, args);
  return !file.empty() && IsSourceExtension(file);
}

bool FetchesData(std::string_view command) {
  const std::vector<std::string_view> stages = PipelineStages(command);
  if (stages.empty()) return false;
  const std::vector<std::string> words = CommandWords(stages.front());
  if (!words.empty() && words[0] == "env" && (words.size() == 1 || words[1] == "-0")) return true;
  const std::string tool = ToolName(stages.front());
  const std::vector<std::string> args = ToolArgs(stages.front());
  auto has = [&](std::initializer_list<std::string_view> flags) {
    return std::any_of(args.begin(), args.end(), [&](const std::string& a) {
      return std::find(flags.begin(), flags.end(), a) != flags.end();
    });
  };
  static constexpr std::string_view kQueries[] = {"sqlite3", "psql", "mysql", "mariadb", "duckdb",
                                                  "jq",      "gojq", "yq",    "printenv"};
  if (std::find(std::begin(kQueries), std::end(kQueries), tool) != std::end(kQueries)) {
    return true;
  }
  if (tool == "python") return has({"-c"}) && !has({"-m"});
  if (tool == "node" || tool == "deno" || tool == "bun")
    return has({"-e", "-p", "--eval", "--print"});
  if (tool == "ruby" || tool == "perl") return has({"-e", "-E"});
  if (tool == "php") return has({"-r"});
  const std::string_view file = ViewedFile(tool, args);
  const size_t dot = file.rfind('.');
  const std::string ext = dot == std::string_view::npos ? "" : Lower(file.substr(dot + 1));
  return ext == "csv" || ext == "tsv" || ext == "jsonl" || ext == "ndjson" || ext == "psv";
}

}  // namespace plugline::core

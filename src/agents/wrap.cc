#include "agents/wrap.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "core/command_line.h"
#include "core/strings.h"

namespace plugline::agents {
namespace {

constexpr std::string_view kPrefixTail = " run -- \"${SHELL:-/bin/sh}\" -c '";

// Builtins that change the shell the agent keeps between commands; run in a child shell they
// would change nothing.
constexpr std::string_view kShellState[] = {
    "cd",    "pushd",  "popd",    "export",   "unset", "source", ".",        "alias",
    "unalias", "set",  "shopt",   "exec",     "eval",  "exit",   "return",   "ulimit",
    "umask", "trap",   "declare", "typeset",  "local", "readonly", "wait",   "fg",
    "bg",    "jobs",   "disown",  "read",     "history", "hash", "builtin",  "enable",
    "setopt", "unsetopt", "autoload", "rehash", "compdef",
};
// Programs that talk to a terminal, whatever their arguments.
constexpr std::string_view kInteractive[] = {
    "vim", "vi", "nvim", "nano", "emacs", "pico", "less", "more", "most", "man", "top", "htop",
    "btop", "ssh", "telnet", "tmux", "screen", "watch", "ftp", "sftp",
};
// Interpreters and shells: a REPL without arguments.
constexpr std::string_view kRepl[] = {
    "python", "python3", "node", "irb", "ipython", "bash", "sh", "zsh", "fish", "dash", "psql",
    "mysql", "sqlite3", "lua", "ghci", "R", "julia", "php",
};
// Builtins that behave the same in a child shell.
constexpr std::string_view kHarmlessBuiltins[] = {"echo", "printf", "test", "[", "true", "false", ":"};

template <size_t N>
bool In(const std::string_view (&list)[N], std::string_view word) {
  return std::find(std::begin(list), std::end(list), word) != std::end(list);
}

// A simple command of a command line, and what follows it: the separator ("&&", "||", ";",
// "|"; "" at the end) and where the next command's text starts.
struct Segment {
  std::string text;
  std::string_view separator;
  size_t next = 0;
};

// Splits `command` into its simple commands at unquoted `|`, `||`, `&&`, `;` (outside quotes,
// `$(…)` and backticks). Sets *background for a lone unquoted `&`, *heredoc for `<<`.
std::vector<Segment> Segments(std::string_view command, bool* background, bool* heredoc) {
  std::vector<Segment> out;
  std::string current;
  char quote = 0;
  int depth = 0;  // $( ... ) and ` ... `
  bool backtick = false;
  auto flush = [&](std::string_view separator, size_t next) {
    std::string trimmed(absl::StripAsciiWhitespace(current));
    if (!trimmed.empty()) out.push_back(Segment{std::move(trimmed), separator, next});
    current.clear();
  };
  for (size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      current += c;
      if (c == '\\' && quote == '"' && i + 1 < command.size()) current += command[++i];
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\\' && i + 1 < command.size()) {
      current += c;
      current += command[++i];
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      current += c;
      continue;
    }
    if (c == '`') backtick = !backtick;
    if (c == '$' && i + 1 < command.size() && command[i + 1] == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (depth > 0 || backtick) {
      current += c;
      continue;
    }
    const char next = i + 1 < command.size() ? command[i + 1] : '\0';
    if (c == '<' && next == '<') *heredoc = true;
    if ((c == '&' && next == '&') || (c == '|' && next == '|')) {
      ++i;
      flush(c == '&' ? "&&" : "||", i + 1);
      continue;
    }
    if (c == '|' || c == ';') {
      flush(c == '|' ? "|" : ";", i + 1);
      continue;
    }
    if (c == '&') {
      const char prev = i > 0 ? command[i - 1] : '\0';
      // `2>&1`, `&>file`, `>&2` are redirections, not the background.
      if (prev != '>' && prev != '<' && next != '>') *background = true;
    }
    current += c;
  }
  flush("", command.size());
  return out;
}

bool IsAssignment(std::string_view word) {
  const size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<ptrdiff_t>(eq), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A command that sets up the agent's shell for the next one and may stay in it, before the
// wrap: `cd DIR`, `pushd DIR`, `export NAME=value …` (what the next one inherits).
bool IsLeadingSetup(const Segment& segment) {
  if (segment.separator != "&&" && segment.separator != ";") return false;
  const std::vector<std::string> words = core::CommandWords(segment.text);
  if (words.empty()) return false;
  if (words[0] == "cd" || words[0] == "pushd") return words.size() <= 2;
  if (words[0] == "export") {
    return words.size() > 1 && std::all_of(words.begin() + 1, words.end(), IsAssignment);
  }
  return false;
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// One Claude Code rule against one simple command: `Bash`, `Bash(*)`, `Bash(x)` (exactly x),
// `Bash(x:*)` (x, or x followed by a space and anything), `Bash(glob)` with `*`.
bool RuleMatches(std::string_view rule, std::string_view command) {
  rule = ToStd(absl::StripAsciiWhitespace(ToAbsl(rule)));
  if (rule == "Bash" || rule == "Bash(*)") return true;
  if (!absl::StartsWith(ToAbsl(rule), "Bash(") || !absl::EndsWith(ToAbsl(rule), ")")) return false;
  std::string_view pattern = rule.substr(5, rule.size() - 6);
  if (absl::EndsWith(ToAbsl(pattern), ":*")) {
    const std::string_view prefix = pattern.substr(0, pattern.size() - 2);
    return command == prefix || absl::StartsWith(ToAbsl(command), StrCat(prefix, " "));
  }
  if (pattern.find('*') != std::string_view::npos) {
    return ::fnmatch(std::string(pattern).c_str(), std::string(command).c_str(), 0) == 0;
  }
  return command == pattern;
}

bool AnyMatches(const std::vector<std::string>& rules, std::string_view command) {
  return std::any_of(rules.begin(), rules.end(),
                     [&](const std::string& rule) { return RuleMatches(rule, command); });
}

}  // namespace

WrapCheck CheckWrappable(std::string_view command,
                         const std::function<bool(std::string_view)>& is_program) {
  WrapCheck check;
  auto no = [&](std::string why) {
    check.ok = false;
    check.why_not = std::move(why);
    return check;
  };
  if (absl::StripAsciiWhitespace(ToAbsl(command)).empty()) return no("an empty command");
  if (command.find('\n') != std::string_view::npos || command.find('\r') != std::string_view::npos) {
    return no("more than one line");
  }
  if (Unwrap(command)) return no("already wrapped");
  bool background = false, heredoc = false;
  const std::vector<Segment> segments = Segments(command, &background, &heredoc);
  if (background) return no("it runs something in the background (&)");
  if (heredoc) return no("a heredoc");
  if (segments.empty()) return no("no command");
  for (const Segment& segment : segments) check.segments.push_back(segment.text);
  // `cd app && …`: the cd stays in the agent's shell, what follows it is wrapped.
  size_t lead = 0;
  while (lead + 1 < segments.size() && IsLeadingSetup(segments[lead])) {
    check.kept_in_shell = segments[lead].next;
    ++lead;
  }
  for (size_t k = lead; k < segments.size(); ++k) {
    const std::string& segment = segments[k].text;
    const std::vector<std::string> words = core::CommandWords(segment);
    size_t first = 0;
    while (first < words.size() && IsAssignment(words[first])) ++first;
    if (first == words.size()) return no(StrCat("`", segment, "` sets a shell variable"));
    const std::string& program = words[first];
    const std::string_view name = Basename(program);
    if (name == "plugline") return no("it runs plugline");
    if (In(kShellState, program)) return no(StrCat("`", program, "` changes the agent's shell"));
    if (In(kInteractive, name)) return no(StrCat("`", name, "` is interactive"));
    if (In(kRepl, name) && words.size() == first + 1) {
      return no(StrCat("`", name, "` without arguments is interactive"));
    }
    if (In(kHarmlessBuiltins, program)) continue;
    if (!is_program(program)) {
      return no(StrCat("`", program, "` is not a program on PATH (an alias or a function?)"));
    }
  }
  check.ok = true;
  return check;
}

std::string Wrap(std::string_view command, std::string_view plugline, size_t kept_in_shell) {
  kept_in_shell = std::min(kept_in_shell, command.size());
  std::string out(absl::StripTrailingAsciiWhitespace(ToAbsl(command.substr(0, kept_in_shell))));
  if (!out.empty()) out += ' ';
  StrAppend(&out, plugline, kPrefixTail);
  const std::string_view rest =
      ToStd(absl::StripLeadingAsciiWhitespace(ToAbsl(command.substr(kept_in_shell))));
  for (char c : rest) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  out += "'";
  return out;
}

std::optional<std::string> Unwrap(std::string_view command) {
  const size_t at = command.find(kPrefixTail);
  if (at == std::string_view::npos || !absl::EndsWith(ToAbsl(command), "'")) return std::nullopt;
  // What stays in the agent's shell ("cd app && "), then plugline's path, maybe quoted.
  std::string_view program = command.substr(0, at);
  size_t start = 0;
  if (!program.empty() && program.back() == '\'') {
    program.remove_suffix(1);
    start = program.rfind('\'');
    start = start == std::string_view::npos ? 0 : start;
  } else {
    start = program.rfind(' ');
    start = start == std::string_view::npos ? 0 : start + 1;
  }
  const std::string_view kept = command.substr(0, start);
  if (Basename(program.substr(start)) != "plugline") return std::nullopt;
  if (!kept.empty() && !absl::EndsWith(ToAbsl(kept), "&& ") &&
      !absl::EndsWith(ToAbsl(kept), "; ")) {
    return std::nullopt;
  }
  std::string_view quoted = command.substr(at + kPrefixTail.size());
  quoted.remove_suffix(1);
  std::string original(kept);
  for (size_t i = 0; i < quoted.size(); ++i) {
    if (quoted.substr(i, 4) == "'\\''") {
      original += '\'';
      i += 3;
    } else if (quoted[i] == '\'') {
      return std::nullopt;  // not one of ours
    } else {
      original += quoted[i];
    }
  }
  return original;
}

bool ClaudeRulesAllow(const std::vector<std::string>& segments,
                      const std::vector<std::string>& allow, const std::vector<std::string>& deny,
                      const std::vector<std::string>& ask) {
  if (segments.empty()) return false;
  return std::all_of(segments.begin(), segments.end(), [&](const std::string& segment) {
    return AnyMatches(allow, segment) && !AnyMatches(deny, segment) && !AnyMatches(ask, segment);
  });
}

}  // namespace plugline::agents

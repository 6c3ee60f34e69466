// builtin-lint: linters and type checkers that print one problem per line, the location first:
//
//   flake8, pycodestyle, pyflakes, ruff --output-format concise:
//       pkg/a.py:12:80: E501 line too long (88 > 79 characters)
//   pylint:   pkg/a.py:61:0: C0301: Line too long (105/100) (line-too-long)
//   mypy:     pkg/a.py:56: error: Missing type parameters for generic type "Formatter"  [type-arg]
//   pyright:  /w/pkg/a.py:3:8 - error: Import "x" could not be resolved (reportMissingImports)
//   shellcheck -f gcc (and its own tty format, below), cppcheck --template=gcc, swiftlint,
//   yamllint -f parsable:
//       run.sh:3:5: warning: Double quote to prevent globbing [SC2086]
//   golangci-lint, staticcheck, revive, ktlint (a known command only):
//       main.go:12:5: should omit type int from declaration (ST1023)
//   standard, semistandard, ts-standard (indented; by a known command, or by a line, a column
//   and a code in parentheses at the end):
//         /w/src/a.js:6:13: Extra semicolon. (semi)
//   jshint, csslint:   src/a.js: line 12, col 5, Missing semicolon.
//   cspell:   src/a.js:3:12 - Unknown word (Gyandeep)
//   formatters in check mode (black, isort, prettier), a file per line (ParseUnformatted)
//   and with their diffs (deno fmt --check: "from /w/src/a.ts:", then "12 | -old", "12 | +new")
//   deno lint, ruff's full report (rustc's form: the location on the line under the heading):
//       error[no-var]: `var` keyword is not allowed.
//         --> src/a.ts:2:3
//   deno check (TypeScript's diagnostics, the location last):
//       TS2339 [ERROR]: Property 'init' does not exist on type '{}'.
//       app.init = function init() {
//           ~~~~
//           at file:///w/src/application.ts:64:5
//
// A problem is a location ("path:line", "path:line:col"), then a severity ("error:",
// "[warning]") or a code ("E501", "C0301:"), then its message, with a code in brackets or
// parentheses at its end when the tool puts it there. Lines under a problem that are not
// problems (a code frame, a mypy/pyright note's continuation) are its detail.
//
// Up to 10 problems: every line, as printed. More: grouped by kind and message, quoted names
// and numbers aside (diagnostic_groups.h) — the first of each group as printed, the others as
// lists of their locations; no problem's location or code is left out. The tool's own totals
// ("Found 450 errors in 16 files", "Your code has been rated at 7.53/10") are kept verbatim at
// the end; pylint's "************* Module x" banners and the rest are counted.
#include <algorithm>
#include <cctype>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr size_t kAllInFull = 10;      // problems shown as printed; beyond, grouped
constexpr size_t kLeaderDetail = 6;    // detail lines kept under a group's first problem
constexpr size_t kMaxOtherLines = 20;  // lines of other tools that look like errors

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Linters that print a problem per line. Those whose lines carry neither a severity nor a
// leading code (golangci-lint, staticcheck…) are read only when the command names them.
constexpr std::string_view kLinters[] = {"black",
                                         "isort",
                                         "prettier",
                                         "flake8",
                                         "pyflakes",
                                         "pyflakes3",
                                         "vulture",
                                         "pycodestyle",
                                         "pydocstyle",
                                         "pylint",
                                         "mypy",
                                         "dmypy",
                                         "ruff",
                                         "pyright",
                                         "basedpyright",
                                         "checkstyle",
                                         "shellcheck",
                                         "cppcheck",
                                         "cpplint",
                                         "golangci-lint",
                                         "staticcheck",
                                         "revive",
                                         "golint",
                                         "swiftlint",
                                         "ktlint",
                                         "yamllint",
                                         "actionlint",
                                         "markdownlint",
                                         "markdownlint-cli2",
                                         "hadolint",
                                         "rubocop",
                                         "standardrb",
                                         "tflint",
                                         "buf",
                                         "codespell",
                                         "vale",
                                         "bandit",
                                         "pylama",
                                         "prospector",
                                         "stylelint",
                                         "htmlhint",
                                         "phpcs",
                                         "phpstan",
                                         "psalm",
                                         "credo",
                                         "clj-kondo",
                                         "luacheck",
                                         "selene",
                                         "biome",
                                         "oxlint",
                                         "standard",
                                         "semistandard",
                                         "ts-standard",
                                         "jshint",
                                         "jslint",
                                         "csslint",
                                         "cspell"};

bool IsLinter(std::string_view tool) {
  return std::find(std::begin(kLinters), std::end(kLinters), tool) != std::end(kLinters);
}

// Severity words, as linters print them before their messages.
constexpr std::string_view kSeverities[] = {
    "error",       "warning",     "note",       "info",     "information", "hint",    "style",
    "performance", "portability", "convention", "refactor", "fatal",       "critical"};

// Errors (and fatal ones) 0, warnings 1, the others 2: the order a summary names them in. A
// note (mypy's, under the error it explains) stays with the errors, and so does a problem
// without a severity, which fails the run as an error does (standard's, beside its warnings).
int SeverityTier(std::string_view severity) {
  auto is = [&](std::string_view word) { return absl::EqualsIgnoreCase(ToAbsl(severity), ToAbsl(word)); };
  if (severity.empty() || is("error") || is("fatal") || is("critical") || is("note")) return 0;
  if (is("warning") || is("warn")) return 1;
  return 2;
}

struct Problem {
  size_t line = 0;
  std::string_view where;     // "pkg/a.py:12:80", as printed
  std::string_view severity;  // "error", or empty
  std::string_view code;      // "E501", "type-arg", "SC2086", or empty
  std::string_view message;   // what follows the severity or code
  size_t end = 0;             // one past its last detail line
  bool file_only = false;     // a formatter's: its location is a file, no line
  // The line that says where it is, when that is not its own (shellcheck's "In x line 4:"
  // above the second marker of a block); npos otherwise.
  size_t heading = std::string_view::npos;
  bool paren_code = false;  // its code is the word in parentheses that ends its message
  // That word, when the tool's words in parentheses are names, not codes (NamesInParentheses).
  std::string_view name;
};

// Whether the problems are a failed run's: one is an error (or has no severity, as ruff's and
// flake8's, whose every problem fails the run); warnings alone are not.
bool AnyError(const std::vector<Problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& pr) {
    return pr.severity.empty() ||
           (SeverityTier(pr.severity) == 0 && !absl::EqualsIgnoreCase(ToAbsl(pr.severity), "note"));
  });
}

// A word that names a file: no space, a '/' or a '.' in it.
bool IsPathWord(std::string_view word) {
  return !word.empty() && word.find(' ') == std::string_view::npos &&
         (word.find('/') != std::string_view::npos || word.find('.') != std::string_view::npos);
}

// "line 12, col 5, ": the length of "line 12, col 5", or 0.
size_t WordyPositionLength(std::string_view s) {
  size_t i = 0;
  for (std::string_view word : {std::string_view("line "), std::string_view(", col ")}) {
    if (!s.substr(i).starts_with(word)) return 0;
    i += word.size();
    const size_t digits = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == digits) return 0;
  }
  return s.substr(i).starts_with(", ") ? i : 0;
}

// "path(12)", "path(12,5)" at the start of a line (the form of Free Pascal, MSVC, nvcc; Nim's
// "path(12, 5)"): its length, or 0.
size_t ParenLocationLength(std::string_view line) {
  const size_t open = line.find('(');
  if (open == std::string_view::npos || open == 0 || !IsPathWord(line.substr(0, open))) return 0;
  // Digits, then ",digits" at most once.
  auto digits = [&line](size_t i) {
    const size_t from = i;
    while (i < line.size() && IsDigit(line[i])) ++i;
    return i > from ? i : std::string_view::npos;
  };
  size_t i = digits(open + 1);
  if (i != std::string_view::npos && i < line.size() && line[i] == ',') {
    i = digits(i + 1 < line.size() && line[i + 1] == ' ' ? i + 2 : i + 1);
  }
  return i != std::string_view::npos && i < line.size() && line[i] == ')' ? i + 1 : 0;
}

// "path:12", "path:12:5", "path(12,5)" (and "path:12:5-9", and JSHint's "path: line 12, col
// 5"): the length of the location, then of the separator after it (": ", " - ", ", " or, after
// a parenthesis, " "); 0 when the line does not start with one.
std::pair<size_t, size_t> LocationOf(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return {0, 0};
  if (const size_t n = ParenLocationLength(line); n > 0) {
    if (line.substr(n).starts_with(": ")) return {n, 2};
    // Free Pascal's "bad.pas(6,8) Error: …": a space, then the severity (ParseProblem wants one).
    if (line.substr(n).starts_with(" ") && n + 1 < line.size() && line[n + 1] != ' ') return {n, 1};
  }
  for (size_t colon = line.find(':'); colon != std::string_view::npos;
       colon = line.find(':', colon + 1)) {
    if (colon > 0 && line.substr(colon).starts_with(": line ")) {
      // JSHint's and CSSLint's "path: line 12, col 5, message".
      const size_t n = WordyPositionLength(line.substr(colon + 2));
      if (n > 0 && IsPathWord(line.substr(0, colon))) return {colon + 2 + n, 2};
    }
    if (colon == 0 || colon + 1 >= line.size() || !IsDigit(line[colon + 1])) continue;
    const std::string_view path = line.substr(0, colon);
    // A path: no spaces around it, a dot or a slash in it (not "Error:12" or a time).
    if (path.find(' ') != std::string_view::npos || path.find('\t') != std::string_view::npos) {
      return {0, 0};
    }
    // A name without either (a script in bin/, a Makefile, a Dockerfile: "xdg-settings:454:12:
    // warning: …") counts with a line and a column, then a severity.
    const bool bare =
        path.find('.') == std::string_view::npos && path.find('/') == std::string_view::npos;
    if (bare && !std::all_of(path.begin(), path.end(), [](char c) {
          return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                 c == '+' || c == '@';
        })) {
      return {0, 0};
    }
    size_t i = colon + 1;
    bool column = false;
    for (int part = 0; part < 2; ++part) {
      while (i < line.size() && IsDigit(line[i])) ++i;
      if (part == 0 && i + 1 < line.size() && line[i] == ':' && IsDigit(line[i + 1])) {
        ++i;
        column = true;
        continue;
      }
      break;
    }
    if (bare) {
      const std::string_view after = line.substr(i);
      bool severity = false;
      for (std::string_view word :
           {": error: ", ": warning: ", ": note: ", ": info: ", ": style: ", ": fatal error: "}) {
        severity = severity || after.starts_with(word);
      }
      if (!column || !severity) return {0, 0};
    }
    if (i < line.size() && line[i] == '-' && i + 1 < line.size() && IsDigit(line[i + 1])) {
      ++i;
      while (i < line.size() && IsDigit(line[i])) ++i;
    }
    const std::string_view rest = line.substr(i);
    if (rest.starts_with(": ")) return {i, 2};
    if (rest.starts_with(":\t")) return {i, 2};
    if (rest.starts_with(" - ")) return {i, 3};
    if (rest.starts_with(":") && rest.size() > 1 && rest[1] != ':') return {i, 1};
    return {0, 0};
  }
  return {0, 0};
}

// "E501", "W291", "C0301", "SC2086", "PLR0913", "UP006": capitals, then digits (and a rule's
// name after a slash: "MD013/line-length").
size_t CodeLength(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i < 6 && s[i] >= 'A' && s[i] <= 'Z') ++i;
  if (i == 0) return 0;
  const size_t letters = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i - letters < 1 || i - letters > 5) return 0;
  // markdownlint names the rule after its code: "MD013/line-length".
  if (i + 1 < s.size() && s[i] == '/' && std::islower(static_cast<unsigned char>(s[i + 1]))) {
    ++i;
    while (i < s.size() && (std::islower(static_cast<unsigned char>(s[i])) || IsDigit(s[i]) ||
                            s[i] == '-' || s[i] == '/')) {
      ++i;
    }
  }
  if (i < s.size() && s[i] != ' ' && s[i] != ':') return 0;
  return i;
}

// "Style/StringLiterals:" (a RuboCop cop: a department, a slash, a name, each capitalized,
// then a colon): the length of the cop's name, or 0.
size_t CopLength(std::string_view s) {
  const size_t slash = s.find('/');
  const size_t colon = s.find(": ");
  if (slash == std::string_view::npos || colon == std::string_view::npos || slash > colon ||
      slash == 0 || slash + 1 >= colon || colon > 60) {
    return 0;
  }
  for (size_t i = 0; i < colon; ++i) {
    const char c = s[i];
    const bool starts = i == 0 || i == slash + 1;
    if (starts ? !std::isupper(static_cast<unsigned char>(c))
               : !(std::isalnum(static_cast<unsigned char>(c)) || (c == '/' && i == slash))) {
      return 0;
    }
  }
  return colon;
}

// What a code between brackets or parentheses can be: letters, digits, "-", "_", "/", "." —
// and a letter: a measure such as RuboCop's "[125/100]" is no code.
bool IsCodeText(std::string_view code) {
  if (code.empty() || code.size() > 60) return false;
  bool letter = false;
  for (char c : code) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || c == '-' || c == '_' || c == '/' || c == '.')) return false;
    letter = letter || std::isalpha(u);
  }
  return letter;
}

// A code at the end of a message: "  [type-arg]", " [SC2086]", " (line-too-long)",
// " (reportMissingImports)", " (ST1023)". Parentheses only when `parens`.
std::string_view TrailingCode(std::string_view message, bool parens) {
  message = Trim(message);
  if (message.size() < 3) return {};
  const char close = message.back();
  const char open = close == ']' ? '[' : close == ')' && parens ? '(' : 0;
  if (open == 0) return {};
  const size_t at = message.rfind(open);
  if (at == std::string_view::npos || at == 0 || message[at - 1] != ' ') return {};
  const std::string_view code = message.substr(at + 1, message.size() - at - 2);
  return IsCodeText(code) ? code : std::string_view();
}

// The code that ends a wrapped message's last line: "expected "str")  [return-value]", or a
// line of the code alone, "[no-untyped-def]" (mypy --pretty); empty when there is none.
std::string_view WrappedCode(std::string_view line) {
  const std::string_view t = Trim(line);
  if (t.size() > 2 && t.front() == '[' && t.back() == ']') {
    const std::string_view code = t.substr(1, t.size() - 2);
    return IsCodeText(code) ? code : std::string_view();
  }
  return TrailingCode(line, false);
}

// javac's errors as Maven's compiler plugin prints them: "[ERROR] /w/src/main/java/shop/
// Money.java:[19,66] cannot find symbol" (and "[WARNING] …:[12,5] [deprecation] …"), the level
// the severity, "path:[line,col]" the location. javac's "  symbol: …" and "  location: …" lines
// follow, indented.
std::optional<Problem> ParseMavenProblem(std::string_view line) {
  if (!line.starts_with("[ERROR] ") && !line.starts_with("[WARNING] ")) return std::nullopt;
  const size_t start = line.find(' ') + 1;
  const size_t open = line.find(":[", start);
  if (open == std::string_view::npos) return std::nullopt;
  const std::string_view path = line.substr(start, open - start);
  if (path.empty() || path.find(' ') != std::string_view::npos ||
      (path.find('.') == std::string_view::npos && path.find('/') == std::string_view::npos)) {
    return std::nullopt;
  }
  size_t i = open + 2;
  const size_t digits = i;
  while (i < line.size() && IsDigit(line[i])) ++i;
  if (i == digits || i >= line.size() || line[i] != ',') return std::nullopt;
  ++i;
  while (i < line.size() && IsDigit(line[i])) ++i;
  if (!line.substr(i).starts_with("] ")) return std::nullopt;
  Problem p;
  p.where = line.substr(start, i + 1 - start);
  p.severity = line.substr(1, start - 3);
  p.message = Trim(line.substr(i + 2));
  if (p.message.empty()) return std::nullopt;
  return p;
}

// "docs/a.md:9:81 MD013/line-length …" (markdownlint): a location that a space ends, read only
// when the command names a linter. The length of the location, or 0.
size_t SpaceEndedLocation(std::string_view line) {
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return 0;
  const std::string_view word = line.substr(0, space);
  const size_t colon = word.find(':');
  if (colon == std::string_view::npos || colon == 0) return 0;
  const std::string_view path = word.substr(0, colon);
  if (path.find('.') == std::string_view::npos && path.find('/') == std::string_view::npos) return 0;
  const std::string_view position = word.substr(colon + 1);
  if (position.empty() || !IsDigit(position.front()) || !IsDigit(position.back())) return 0;
  for (char c : position) {
    if (!IsDigit(c) && c != ':') return 0;
  }
  return space;
}

// The line as a problem, or nothing. `known` (the command names a linter) also accepts a
// message with only a trailing code in parentheses, or none.
std::optional<Problem> ParseProblem(std::string_view line, bool known) {
  if (std::optional<Problem> maven = ParseMavenProblem(line)) return maven;
  // Checkstyle: "[ERROR] /w/src/Item.java:4:5: Missing a Javadoc comment. [JavadocVariable]",
  // the level in brackets before the location.
  static constexpr std::pair<std::string_view, std::string_view> kLevels[] = {
      {"[ERROR] ", "error"}, {"[WARN] ", "warning"}, {"[WARNING] ", "warning"}, {"[INFO] ", "info"}};
  for (const auto& [level, severity] : kLevels) {
    if (!line.starts_with(level)) continue;
    const std::string_view rest = line.substr(level.size());
    if (LocationOf(rest).first == 0) break;
    std::optional<Problem> p = ParseProblem(rest, /*known=*/true);
    if (p && p->severity.empty()) p->severity = severity;
    return p;
  }
  auto [where_len, sep] = LocationOf(line);
  if (where_len == 0) {
    // "docs/a.md:12:81 MD013/line-length Line length": a location ended by a space, read when
    // the command names a linter or a code follows it (markdownlint run by a script).
    const size_t n = SpaceEndedLocation(line);
    if (n > 0 && (known || CodeLength(line.substr(n + 1)) > 0)) {
      where_len = n;
      sep = 1;
    }
  }
  bool whole_file = false;
  if (where_len == 0) {
    // CSSLint's problems of a whole file: "css/a.css: Warning - Too many floats (11), …".
    const size_t colon = line.find(": ");
    if (colon != std::string_view::npos && IsPathWord(line.substr(0, colon))) {
      const std::string_view after = line.substr(colon + 2);
      for (std::string_view severity : kSeverities) {
        if (absl::StartsWithIgnoreCase(ToAbsl(after), ToAbsl(severity)) &&
            after.substr(severity.size()).starts_with(" - ")) {
          where_len = colon;
          sep = 2;
          whole_file = true;
          break;
        }
      }
    }
  }
  bool indented = false;
  if (where_len == 0 && (line.starts_with(" ") || line.starts_with("\t"))) {
    // pyright indents its problems under each file's path: "  /w/a.py:3:8 - error: …";
    // standard (and semistandard, ts-standard) indents them all: "  /w/a.js:6:13: Extra
    // semicolon. (semi)" (read with a line and a column and a code at the end, or when the
    // command names a linter).
    const std::string_view t = Trim(line);
    std::tie(where_len, sep) = LocationOf(t);
    if (where_len == 0) return std::nullopt;
    line = t;
    indented = true;
  }
  if (where_len == 0) return std::nullopt;
  Problem p;
  p.where = line.substr(0, where_len);
  p.file_only = whole_file;
  std::string_view rest = Trim(line.substr(where_len + sep));
  // yamllint -f parsable: "[error] message (rule)".
  std::string_view word = rest;
  bool bracketed = false;
  if (word.starts_with("[")) {
    word.remove_prefix(1);
    bracketed = true;
  }
  for (std::string_view s : kSeverities) {
    if (word.size() > s.size() && absl::StartsWithIgnoreCase(ToAbsl(word), ToAbsl(s)) &&
        word[s.size()] == (bracketed ? ']' : ':')) {
      p.severity = word.substr(0, s.size());
      rest = Trim(word.substr(s.size() + 1));
      break;
    }
    // CSSLint's "Warning - message" after its "path: line 3, col 5, ".
    if (!bracketed && absl::StartsWithIgnoreCase(ToAbsl(word), ToAbsl(s)) &&
        word.substr(s.size()).starts_with(" - ")) {
      p.severity = word.substr(0, s.size());
      rest = Trim(word.substr(s.size() + 3));
      break;
    }
  }
  if (p.severity.empty() && rest.size() > 3 && rest[1] == ':' && rest[2] == ' ' &&
      std::string_view("CWEFRI").find(rest[0]) != std::string_view::npos) {
    // RuboCop: "C: [Correctable] Style/StringLiterals: Prefer single-quoted strings …", the
    // severity a letter (convention, warning, error, fatal, refactor, info), the cop a
    // department and a name.
    std::string_view after = rest.substr(3);
    if (after.starts_with("[Correctable] ")) after.remove_prefix(14);
    if (const size_t n = CopLength(after); n > 0) {
      static constexpr std::pair<char, std::string_view> kLetters[] = {
          {'C', "convention"}, {'W', "warning"}, {'E', "error"},
          {'F', "fatal"},      {'R', "refactor"}, {'I', "info"}};
      for (const auto& [letter, word] : kLetters) {
        if (rest[0] == letter) p.severity = word;
      }
      p.code = after.substr(0, n);
      rest = Trim(after.substr(n + 1));
    }
  }
  if (p.severity.empty()) {
    if (const size_t n = CodeLength(rest); n > 0) {
      p.code = rest.substr(0, n);
      rest = Trim(rest.substr(n + (n < rest.size() && rest[n] == ':' ? 1 : 0)));
    }
  }
  if (p.severity.empty() && rest.ends_with(")")) {
    // standard's warnings: "Unexpected var, use let or const instead. (no-var) (warning)", the
    // severity in parentheses after the code.
    const size_t open = rest.rfind(" (");
    const std::string_view word = open == std::string_view::npos
                                      ? std::string_view()
                                      : rest.substr(open + 2, rest.size() - open - 3);
    for (std::string_view severity : kSeverities) {
      if (word == severity) {
        p.severity = word;
        rest = Trim(rest.substr(0, open));
        break;
      }
    }
  }
  // A line and a column, "path:12:5" (not grep's "path:12:" and what it matched).
  const size_t last_colon = p.where.rfind(':');
  const bool column = last_colon != std::string_view::npos && last_colon > 0 &&
                      p.where.find(':') < last_colon && IsDigit(p.where[last_colon - 1]);
  // A code in parentheses at the end is read when the command names a linter, or after a
  // severity, or when the line's form says it is a problem: indented or followed by " - "
  // (cspell's "src/a.js:3:12 - Unknown word (x)"), with a line and a column.
  const bool located = column && (indented || sep == 3);
  if (p.code.empty()) {
    p.code = TrailingCode(rest, /*parens=*/!p.severity.empty() || known || located);
    p.paren_code = !p.code.empty() && rest.ends_with(')');
  }
  if (indented && sep != 3 && !known && !(column && p.paren_code)) return std::nullopt;
  // JSHint's and CSSLint's locations say what the line is by their form alone.
  const bool wordy = p.where.find(": line ") != std::string_view::npos;
  if (p.severity.empty() && p.code.empty() && !known && !wordy && !whole_file) return std::nullopt;
  if (rest.empty()) return std::nullopt;
  p.message = rest;
  return p;
}

// A formatter in check mode names each file it would change, with no line:
//   black --check:        would reformat src/app.py
//   isort --check-only:   ERROR: /w/src/app.py Imports are incorrectly sorted and/or formatted.
//   prettier --check:     [warn] src/app.js       (read when the command names a linter)
// The file is the problem's location, the rest its message.
std::optional<Problem> ParseUnformatted(std::string_view line, bool known) {
  Problem p;
  p.file_only = true;
  if (line.starts_with("would reformat ") && IsPathWord(line.substr(15))) {
    p.where = line.substr(15);
    p.message = line.substr(0, 14);
    return p;
  }
  if (line.starts_with("ERROR: ")) {
    const std::string_view rest = line.substr(7);
    const size_t space = rest.find(' ');
    if (space != std::string_view::npos && IsPathWord(rest.substr(0, space)) &&
        rest.ends_with(" are incorrectly sorted and/or formatted.")) {
      p.where = rest.substr(0, space);
      p.severity = line.substr(0, 5);
      p.message = rest.substr(space + 1);
      return p;
    }
  }
  // A file's own problem, no line in it, its severity in capitals: sphinx-build's
  // "/w/docs/topic1.rst: WARNING: document isn't included in any toctree".
  if (const size_t colon = line.find(": ");
      colon != std::string_view::npos && colon > 0 && IsPathWord(line.substr(0, colon))) {
    const std::string_view rest = line.substr(colon + 2);
    const size_t end = rest.find(": ");
    const std::string_view word = rest.substr(0, end);
    const bool capitals = !word.empty() && std::all_of(word.begin(), word.end(),
                                                       [](char c) { return c >= 'A' && c <= 'Z'; });
    if (end != std::string_view::npos && end + 2 < rest.size() && capitals &&
        std::any_of(std::begin(kSeverities), std::end(kSeverities), [&](std::string_view s) {
          return absl::EqualsIgnoreCase(ToAbsl(word), ToAbsl(s));
        })) {
      p.where = line.substr(0, colon);
      p.severity = word;
      p.message = rest.substr(end + 2);
      return p;
    }
  }
  if (known && line.starts_with("[warn] ") && IsPathWord(line.substr(7))) {
    p.where = line.substr(7);
    p.severity = line.substr(1, 4);
    p.message = "not formatted";  // no message printed: a key for grouping, never shown
    return p;
  }
  return std::nullopt;
}

// "3 errors, 1 warning, 0 informations": counts by severity (pyright, cpplint's "Total errors
// found: 4" aside); a count alone, "49 errors" (javac).
bool IsCountsLine(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i == 0) return false;
  const std::string_view rest = t.substr(i);
  if (rest == " error" || rest == " errors" || rest == " warning" || rest == " warnings") {
    return true;
  }
  return (rest.starts_with(" error") || rest.starts_with(" warning")) &&
         rest.find(", ") != std::string_view::npos;
}

// The tool's own totals and verdicts, kept at the end as printed.
bool IsTotalsLine(std::string_view line) {
  const size_t level = MavenLevelLength(line);
  const std::string_view t = Trim(line.substr(level));
  if (level > 0 &&
      (t == "BUILD FAILURE" || t == "BUILD SUCCESS" || t.starts_with("Failed to execute goal "))) {
    return true;  // Maven's verdict, and why
  }
  // A build's verdict in words: sphinx-build's "build succeeded, 139 warnings.", "Build failed."
  for (std::string_view verdict : {"build succeeded", "build failed", "build finished"}) {
    if (absl::StartsWithIgnoreCase(ToAbsl(t), ToAbsl(verdict))) return true;
  }
  return (t.starts_with("Found ") && (t.find(" error") != std::string_view::npos ||
                                      t.find(" problem") != std::string_view::npos ||
                                      t.find(" warning") != std::string_view::npos ||
                                      t.find(" info") != std::string_view::npos)) ||
         // Biome's ("Checked 5 files in 15ms. No fixes applied.", "Diagnostics not shown: 20.")
         // and oxlint's ("Finished in 41ms on 5 files with 96 rules using 2 threads.").
         (t.starts_with("Checked ") && t.find(" file") != std::string_view::npos) ||
         t.starts_with("Diagnostics not shown: ") ||
         t.starts_with("The number of diagnostics exceeds the limit") ||
         (t.starts_with("Finished in ") && t.find(" rules using ") != std::string_view::npos) ||
         // javac's cap: "only showing the first 100 warnings, of 179 total; use -Xmaxwarns …".
         (t.starts_with("only showing the first ") && t.find(" total") != std::string_view::npos) ||
         t.starts_with("\xC3\x97 Some errors were emitted while running checks") ||
         t.starts_with("Success: no issues found") || t.starts_with("All checks passed") ||
         t.starts_with("Your code has been rated at") ||
         (t.starts_with("[*] ") && t.find("fixable") != std::string_view::npos) ||
         t.find(" potentially fixable with") != std::string_view::npos || IsCountsLine(t) ||
         // Formatters' verdicts: black's "3 files would be reformatted, 1 file would be left
         // unchanged.", prettier's "[warn] Code style issues found in 3 files. …".
         t.find(" would be reformatted") != std::string_view::npos ||
         t.find(" would be left unchanged") != std::string_view::npos ||
         t.starts_with("[warn] Code style issues") ||
         // deno fmt --check's "error: Found 38 not formatted files in 39 files".
         t.find(" not formatted file") != std::string_view::npos ||
         t.starts_with("All matched files use Prettier code style") ||
         // Checkstyle's end ("Audit done.", then "Checkstyle ends with 224 errors." when any).
         t == "Audit done." || t.starts_with("Checkstyle ends with ") ||
         // cspell's "CSpell: Files checked: 303, Issues found: 494 in 253 files."
         t.find("Issues found: ") != std::string_view::npos ||
         // RuboCop's "20 files inspected, 1034 offenses detected, 864 offenses autocorrectable".
         (t.find(" inspected, ") != std::string_view::npos &&
          (t.find(" offense") != std::string_view::npos ||
           t.find(" no offenses detected") != std::string_view::npos));
}

// pylint's banner before each module's problems, and the rule above its score.
bool IsFraming(std::string_view line) {
  const std::string_view t = Trim(line);
  if (t.starts_with("************* Module ")) return true;
  // What make says around the recipe it ran: "make: *** [Makefile:4: lint] Error 1",
  // "make[1]: Entering directory '/w'".
  if (t.starts_with("make: ") ||
      (t.starts_with("make[") && t.find("]: ") != std::string_view::npos)) {
    return true;
  }
  return t.size() >= 5 && t.find_first_not_of('-') == std::string_view::npos;
}

// ---- shellcheck's default (tty) format ----------------------------------------------------
//
//   In scripts/deploy.sh line 3:
//   files=$(ls $TARGET/*.tar.gz)
//              ^-----^ SC2086 (info): Double quote to prevent globbing and word splitting.
//
//   Did you mean:
//   files=$(ls "$TARGET"/*.tar.gz)
//
// A block per source line: "In <path> line <n>:", the line, a marker under it per problem;
// then, for some, the fixed line. At the end, "For more information:" and a wiki link per code.

// "In scripts/deploy.sh line 3:": the "scripts/deploy.sh line 3" part, or empty.
std::string_view TtyBlockStart(std::string_view line) {
  if (!line.starts_with("In ") || !line.ends_with(":")) return {};
  const std::string_view where = line.substr(3, line.size() - 4);
  const size_t at = where.rfind(" line ");
  if (at == std::string_view::npos || at == 0 || at + 6 >= where.size()) return {};
  for (char c : where.substr(at + 6)) {
    if (!IsDigit(c)) return {};
  }
  return where;
}

// "   ^-----^ SC2086 (info): Double quote…" (also "^-- SC2034 (warning): …"): the problem.
std::optional<Problem> TtyMarker(std::string_view line, std::string_view where) {
  const std::string_view t = Trim(line);
  if (!t.starts_with("^")) return std::nullopt;
  const size_t sc = t.find(" SC");
  if (sc == std::string_view::npos) return std::nullopt;
  for (char c : t.substr(0, sc)) {
    if (c != '^' && c != '-') return std::nullopt;
  }
  std::string_view rest = t.substr(sc + 1);
  const size_t code_end = rest.find(' ');
  if (code_end == std::string_view::npos || CodeLength(rest) != code_end) return std::nullopt;
  Problem pr;
  pr.where = where;
  pr.code = rest.substr(0, code_end);
  rest = rest.substr(code_end + 1);
  if (rest.starts_with("(")) {
    const size_t close = rest.find("): ");
    if (close == std::string_view::npos) return std::nullopt;
    pr.severity = rest.substr(1, close - 1);
    rest = rest.substr(close + 3);
  }
  pr.message = rest;
  return pr;
}

struct Parse {
  std::vector<Problem> problems;
  std::vector<uint8_t> role;  // per line: what it is (below)
  size_t tty_problems = 0;    // of them, read from shellcheck's blocks
};
enum : uint8_t { kOther, kProblem, kDetail, kTotals, kFraming, kBlank };

// What Maven prints after a failed build to say where help is, and the empty "[ERROR]" lines
// around it.
bool IsMavenHelpLine(std::string_view line) {
  if (!line.starts_with("[ERROR]")) return false;
  const std::string_view t = Trim(line.substr(7));
  return t.empty() || IsMavenHelp(t);
}

// ---- rich diagnostics -------------------------------------------------------------------------
//
// miette's report (oxlint, and the other tools built on it), a block per problem:
//   "  ! eslint(no-unused-vars): Function 'unused' is declared but never used."
//   "    ,-[src/ui/table.js:20:10]", the code frame with its labels, "    `----"
//   "  help: Consider removing this declaration."
// The severity is the first mark: "x" or "×" an error, "!" or "⚠" a warning, others advice.
//
// Biome's, a block per problem under a heading:
//   "src/api/client.js:12:27 lint/style/useTemplate  FIXABLE  ━━━━━━━━━━━━━━━━"
//   "  i Template literals are preferred over string concatenation.", the code frame (its
//   marked line "  > 12 │ …"), explanations, and the fix as a diff.
// The severity is the first message's mark: "×" an error, "!" a warning, "i" information.

constexpr std::string_view kHeavyRule = "\xE2\x94\x81\xE2\x94\x81";  // "━━"

// The severity a mark gives ("×" -> "error"), and the mark's length; {"", 0} when `t` does not
// start with one followed by a space.
std::pair<std::string_view, size_t> RichMark(std::string_view t) {
  static constexpr std::pair<std::string_view, std::string_view> kMarks[] = {
      {"x ", "error"},   {"\xC3\x97 ", "error"},       {"! ", "warning"},
      {"\xE2\x9A\xA0 ", "warning"}, {"i ", "info"}, {"\xE2\x84\xB9 ", "info"},
      {"\xE2\x98\x9E ", "advice"}, {"\xE2\x80\xBC ", "warning"}};
  for (const auto& [mark, severity] : kMarks) {
    if (t.starts_with(mark)) return {severity, mark.size()};
  }
  return {{}, 0};
}

// Biome's heading "path:12:27 lint/style/useTemplate  FIXABLE  ━━━━": the location and the
// category; nullopt when the line is not one.
std::optional<Problem> BiomeHeading(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line.find(kHeavyRule) == std::string_view::npos) {
    return std::nullopt;
  }
  const size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  std::string_view rest = Trim(line.substr(space + 1));
  const size_t end = rest.find(' ');
  const std::string_view category = rest.substr(0, end);
  if (category.empty() || category.starts_with("\xE2")) return std::nullopt;  // "lint ━━━": the footer
  for (char c : category) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-')) {
      return std::nullopt;
    }
  }
  Problem pr;
  pr.where = line.substr(0, space);
  pr.code = category;
  pr.file_only = pr.where.find(':') == std::string_view::npos;
  return pr;
}

// miette's heading at `i`, its block's end and location, its block's lines' roles set in
// `role`; nullopt when `lines[i]` is not one.
std::optional<Problem> MietteProblem(const std::vector<std::string_view>& lines, size_t i,
                                     std::vector<uint8_t>* role) {
  const std::string_view line = lines[i];
  if (!line.starts_with("  ") || line.starts_with("   ")) return std::nullopt;
  const std::string_view t = line.substr(2);
  const auto [severity, mark] = RichMark(t);
  if (mark == 0) return std::nullopt;
  // A heading has its location or its help in the lines under it.
  size_t end = i + 1;
  std::string_view where;
  size_t where_line = 0;
  bool help = false;
  // Its lines are indented, up to a blank line; a line at the margin ends it too (its totals,
  // "Found 114 warnings and 0 errors.", the blank lines taken out: `| grep -E 'error'`).
  for (; end < lines.size() && !Trim(lines[end]).empty() && lines[end][0] == ' '; ++end) {
    const std::string_view u = Trim(lines[end]);
    if (where.empty() && u.starts_with(",-[") && u.ends_with("]")) {
      where = u.substr(3, u.size() - 4);
      where_line = end;
    }
    help = help || u.starts_with("help: ");
    if (lines[end].starts_with("  ") && !lines[end].starts_with("   ") &&
        RichMark(lines[end].substr(2)).second > 0) {
      break;  // the next heading
    }
  }
  if (where.empty() && !help) return std::nullopt;
  Problem pr;
  pr.line = i;
  pr.end = end;
  pr.where = where;
  pr.severity = severity;
  std::string_view text = t.substr(mark);
  // "eslint(no-unused-vars): message": the code, a word up to ": ".
  if (const size_t colon = text.find(": "); colon != std::string_view::npos &&
                                             text.substr(0, colon).find(' ') == std::string_view::npos) {
    pr.code = text.substr(0, colon);
    text = text.substr(colon + 2);
  }
  pr.message = text;
  // Kept under it: where (",-[…]") and the help; the code frame (the file has the code) and
  // the rest counted.
  for (size_t k = i + 1; k < end; ++k) {
    const std::string_view u = Trim(lines[k]);
    (*role)[k] = k == where_line || u.starts_with("help: ") ? kDetail : kFraming;
  }
  return pr;
}

// The heading of a diagnostic in rustc's form, which deno lint and others print: at the margin,
// "error[no-var]: `var` keyword is not allowed." (a severity, its code in brackets, the
// message), "warning: message", or a code first, "F401 [*] `os` imported but unused"; the line
// under it says where, " --> src/a.ts:2:3". rustc's own codes ("error[E0308]") are a
// compiler's, the build shaper's. nullopt when `lines[i]` is not one.
std::optional<Problem> RustcStyleHeading(const std::vector<std::string_view>& lines, size_t i) {
  const std::string_view line = lines[i];
  if (line.empty() || line[0] == ' ' || line[0] == '\t' || i + 1 >= lines.size()) {
    return std::nullopt;
  }
  const std::string_view next = Trim(lines[i + 1]);
  if (!next.starts_with("--> ") || !lines[i + 1].starts_with(" ") ||
      !StartsWithLocation(next.substr(4))) {
    return std::nullopt;
  }
  Problem pr;
  pr.where = LocationPrefix(next.substr(4));
  for (std::string_view severity : {"error", "warning", "warn", "info", "note", "hint"}) {
    if (!line.starts_with(severity)) continue;
    std::string_view rest = line.substr(severity.size());
    if (rest.starts_with("[")) {
      const size_t close = rest.find("]: ");
      if (close == std::string_view::npos) return std::nullopt;
      pr.code = rest.substr(1, close - 1);
      rest = rest.substr(close + 1);
    }
    if (!rest.starts_with(": ")) continue;
    if (pr.code.size() == 5 && pr.code[0] == 'E' &&
        std::all_of(pr.code.begin() + 1, pr.code.end(), IsDigit)) {
      return std::nullopt;
    }
    pr.severity = severity;
    pr.message = Trim(rest.substr(2));
    return pr;
  }
  // A code first: "F401 [*] message", "E501 Line too long (90 > 88)".
  const size_t n = CodeLength(line);
  if (n == 0 || n >= line.size() || line[n] != ' ') return std::nullopt;
  pr.code = line.substr(0, n);
  std::string_view rest = line.substr(n + 1);
  if (rest.starts_with("[*] ")) rest = rest.substr(4);
  pr.message = Trim(rest);
  return pr;
}

// The block under a RustcStyleHeading at `i`: its lines are indented, blank lines among them,
// up to the next line at the margin. Kept under it: where (" --> …") and its hints and help
// ("  = hint: …", "help: …" in ruff's); the code frame (the file has the code) and the rest
// ("  docs: <link>") counted.
void RustcStyleBlock(const std::vector<std::string_view>& lines, size_t i, Problem* pr,
                     std::vector<uint8_t>* role) {
  size_t end = i + 1;
  for (; end < lines.size(); ++end) {
    const std::string_view line = lines[end];
    const std::string_view t = Trim(line);
    if (t.empty()) {
      (*role)[end] = kBlank;
      continue;
    }
    const bool help = t.starts_with("help: ") || t.starts_with("= help: ") ||
                      t.starts_with("= hint: ") || t.starts_with("= note: ");
    if (line[0] != ' ' && line[0] != '|' && !help && !IsDigit(line[0])) break;
    (*role)[end] = end == i + 1 || help ? kDetail : kFraming;
  }
  while (end > i + 1 && (*role)[end - 1] == kBlank) --end;
  pr->end = end;
}

// deno check's diagnostic (TypeScript's, in Deno's words): "TS2339 [ERROR]: message" at the
// margin, its message chain indented under it, the source line (at the margin or not) and its
// underline ("~~~~", or "^" under one character), and where, last: "    at file:///src/a.ts:64:5".
// Related information follows after a blank line, indented ("    An outer value of 'this' is
// shadowed by this container.", its source, underline and "        at file:///…"). Its block ends
// where a line at the margin follows a blank line. Its lines' roles set in `role` (when not null):
// the messages and locations kept, the source lines and underlines counted; nullopt when `lines[i]`
// does not head one.
bool IsDenoCheckHeading(std::string_view line) {
  const size_t n = CodeLength(line);
  return n > 0 && line.starts_with("TS") && line.substr(n).starts_with(" [");
}
std::optional<Problem> DenoCheckProblem(const std::vector<std::string_view>& lines, size_t i,
                                        std::vector<uint8_t>* role) {
  const std::string_view line = lines[i];
  if (!IsDenoCheckHeading(line)) return std::nullopt;
  const size_t n = CodeLength(line);
  const size_t close = line.find("]: ", n);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string_view severity = line.substr(n + 2, close - n - 2);
  if (severity.empty() ||
      !std::all_of(severity.begin(), severity.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) {
    return std::nullopt;
  }
  size_t end = i + 1;
  std::string_view where;
  for (; end < lines.size(); ++end) {
    const std::string_view t = Trim(lines[end]);
    if (t.empty()) {
      size_t next = end + 1;
      while (next < lines.size() && Trim(lines[next]).empty()) ++next;
      if (next >= lines.size() || !lines[next].starts_with(" ")) break;
      continue;
    }
    if (IsDenoCheckHeading(lines[end])) break;  // the next one, the blank line between cut
    if (where.empty() && t.starts_with("at file://") && StartsWithLocation(t.substr(10))) {
      where = LocationPrefix(t.substr(10));
    }
  }
  if (where.empty()) return std::nullopt;
  while (end > i + 1 && Trim(lines[end - 1]).empty()) --end;
  Problem pr;
  pr.line = i;
  pr.end = end;
  pr.where = where;
  pr.code = line.substr(0, n);
  pr.severity = severity;
  pr.message = Trim(line.substr(close + 3));
  for (size_t k = i + 1; role != nullptr && k < end; ++k) {
    const std::string_view t = Trim(lines[k]);
    const auto underline = [](std::string_view u) {
      return !u.empty() && u.find_first_not_of("~^") == std::string_view::npos;
    };
    (*role)[k] = t.empty()                                                        ? kBlank
                 : underline(t) || (k + 1 < end && underline(Trim(lines[k + 1]))) ? kFraming
                                                                                  : kDetail;
  }
  return pr;
}

// A location alone on its line, the message at the margin a few lines under it, after the
// source line it quotes and a marker line (gfortran's):
//   stats.f90:9:23:
//
//       9 |   total = total + vals2(i)
//         |                       1
//   Error: Function 'vals2' at (1) has no IMPLICIT type
// The lines between are counted, the message kept under its location; nullopt when `lines[i]`
// does not head one.
std::optional<Problem> LocationAboveProblem(const std::vector<std::string_view>& lines, size_t i,
                                            std::vector<uint8_t>* role) {
  constexpr size_t kMaxBetween = 5;
  const std::string_view line = lines[i];
  if (line.size() < 4 || line.back() != ':' || !StartsWithLocation(line) ||
      LocationPrefix(line).size() + 1 != line.size()) {
    return std::nullopt;
  }
  for (size_t k = i + 1; k < lines.size() && k <= i + kMaxBetween; ++k) {
    const std::string_view t = lines[k];
    if (Trim(t).empty() || t[0] == ' ' || t[0] == '\t') continue;  // the source, its marker
    Problem pr;
    for (std::string_view severity : {"Error", "Fatal Error", "Warning"}) {
      if (t.starts_with(severity) && t.substr(severity.size()).starts_with(": ")) {
        pr.severity = severity == "Fatal Error" ? std::string_view("Error") : severity;
        pr.message = Trim(t.substr(severity.size() + 2));
        break;
      }
    }
    if (pr.message.empty()) return std::nullopt;
    pr.line = i;
    pr.end = k + 1;
    pr.where = LocationPrefix(line);
    for (size_t j = i + 1; role != nullptr && j < k; ++j) {
      (*role)[j] = Trim(lines[j]).empty() ? kBlank : kFraming;
    }
    if (role != nullptr) (*role)[k] = kDetail;
    return pr;
  }
  return std::nullopt;
}

// A line of the diff a formatter in check mode prints under a file (deno fmt --check):
// "  12 | -old line", "  12 | +new line", "     | ..." between its hunks.
bool IsFormatterDiffLine(std::string_view line) {
  const std::string_view t = Trim(line);
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  const std::string_view rest = t.substr(i);
  if (i > 0) return rest.starts_with(" | -") || rest.starts_with(" | +");
  return rest == "| ...";
}

// A file a formatter in check mode would change, with its diff: "from /w/src/a.ts:" at the
// margin, then the diff's lines (IsFormatterDiffLine) up to the next such file or a line that
// is none of its (the verdict, "error: Found 38 not formatted files in 39 files"). The file is
// the problem; its diff is counted (the formatter makes it). nullopt when `lines[i]` does not
// head one; the diff's lines' roles set in `role` (when not null).
std::optional<Problem> FormatterDiffFile(const std::vector<std::string_view>& lines, size_t i,
                                         std::vector<uint8_t>* role) {
  const std::string_view line = lines[i];
  if (!line.starts_with("from ") || !line.ends_with(":")) return std::nullopt;
  const std::string_view file = line.substr(5, line.size() - 6);
  if (!IsPathWord(file) || i + 1 >= lines.size() || !IsFormatterDiffLine(lines[i + 1])) {
    return std::nullopt;
  }
  size_t end = i + 1;
  for (; end < lines.size() && (IsFormatterDiffLine(lines[end]) || Trim(lines[end]).empty());
       ++end) {
    if (role != nullptr) (*role)[end] = Trim(lines[end]).empty() ? kBlank : kFraming;
  }
  while (end > i + 1 && Trim(lines[end - 1]).empty()) --end;
  Problem pr;
  pr.line = i;
  pr.end = end;
  pr.where = file;
  pr.file_only = true;
  pr.message = "not formatted";  // no message printed: a key for grouping, never shown
  return pr;
}

// Biome's block from the heading at `i` to the next heading or its totals: its first message
// (whose mark gives the severity) kept, the code frame and the rest counted.
void BiomeBlock(const std::vector<std::string_view>& lines, size_t i, Problem* pr,
                std::vector<uint8_t>* role) {
  size_t end = i + 1;
  bool message = false;
  for (; end < lines.size(); ++end) {
    const std::string_view line = lines[end];
    if (!line.empty() && line[0] != ' ') break;  // the next heading, or the totals
    const std::string_view t = Trim(line);
    if (t.empty()) {
      (*role)[end] = kBlank;
      continue;
    }
    (*role)[end] = kFraming;
    if (!message) {
      if (const auto [severity, mark] = RichMark(t); mark > 0) {
        pr->severity = severity;
        pr->message = t.substr(mark);
        (*role)[end] = kDetail;
        message = true;
      }
    }
  }
  while (end > i + 1 && (*role)[end - 1] == kBlank) --end;
  pr->end = end;
}

// A checker's progress between its files' problems: cppcheck's "2/3 files checked 62% done",
// cspell's "  2/303 src/a.js 29.29ms X" (a count of files, then the file). Counted with the
// other lines, not a detail of the problem above it.
bool IsFilesProgress(std::string_view line) {
  const std::string_view t = Trim(line);
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i == 0 || i >= t.size() || t[i] != '/') return false;
  const size_t denominator = ++i;
  while (i < t.size() && IsDigit(t[i])) ++i;
  if (i == denominator || i >= t.size() || t[i] != ' ') return false;
  const std::string_view rest = t.substr(i + 1);
  if (rest.starts_with("files checked ")) return rest.ends_with("% done");
  return IsPathWord(rest.substr(0, rest.find(' ')));
}

// bandit's issue at lines[i] (">> Issue: [B307:blacklist] …"): its "Location: " line (npos when
// it has none) and one past its block (up to a blank line or a rule).
std::pair<size_t, size_t> BanditBlock(const std::vector<std::string_view>& lines, size_t i) {
  size_t location = std::string_view::npos;
  size_t end = i + 1;
  for (; end < lines.size() && !Trim(lines[end]).empty() && !IsFraming(lines[end]); ++end) {
    if (location == std::string_view::npos && Trim(lines[end]).starts_with("Location: ")) {
      location = end;
    }
  }
  return {location, end};
}

// pydocstyle's problem: its location and what it is on one line, ended by ':' ("click/core.py:20
// in public function `main`:"), its code and message on the next, indented ("        D103:
// Missing docstring in public function").
bool CodeOnNextLine(const std::vector<std::string_view>& lines, size_t i) {
  if (!lines[i].ends_with(":") || i + 1 >= lines.size() ||
      !(lines[i + 1].starts_with(" ") || lines[i + 1].starts_with("\t"))) {
    return false;
  }
  const std::string_view next = Trim(lines[i + 1]);
  const size_t n = CodeLength(next);
  return n > 0 && n < next.size() && next[n] == ':';
}

// A word in parentheses at the end of a message is a code when each message has its own
// ("Line too long (105/100) (line-too-long)", "Extra semicolon. (semi)"); when one message is
// seen with many words, they are names: cspell's unknown words ("Unknown word (Gyandeep)",
// "Unknown word (Toru)"), JSHint's variables ("… outer scoped variable may lead to confusing
// semantics. (node)"). Then the word becomes the problem's name and its message what comes
// before it: the problems group by that message, and a list of their locations gives each
// one's name.
constexpr size_t kMinNamesOfAMessage = 3;  // distinct words after one message, for them to be names

void NamesInParentheses(Parse& p) {
  // The message before the word (its quoted names and numbers masked): the words after it.
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string_view>> words;
  auto before = [](const Problem& pr) { return Trim(pr.message.substr(0, pr.message.rfind('('))); };
  std::vector<std::string> shapes(p.problems.size());  // each problem's, when it has such a word
  for (size_t i = 0; i < p.problems.size(); ++i) {
    const Problem& pr = p.problems[i];
    if (!pr.paren_code) continue;
    shapes[i] = ShapeOfMessage(before(pr)).key;
    words[shapes[i]].insert(pr.code);
  }
  for (size_t i = 0; i < p.problems.size(); ++i) {
    Problem& pr = p.problems[i];
    if (!pr.paren_code || words[shapes[i]].size() < kMinNamesOfAMessage) continue;
    pr.name = pr.code;
    pr.code = {};
    pr.message = before(pr);
  }
}

Parse ParseLint(const std::vector<std::string_view>& lines, bool known) {
  Parse p;
  p.role.assign(lines.size(), kOther);
  // Maven repeats the compiler's errors under "[ERROR] Failed to execute goal …": from there
  // its "[ERROR] " lines say again what was shown — but for an error the output no longer
  // shows above (cut at its start, `mvn compile | tail -200`): that one is read.
  bool maven_repeat = false;
  absl::flat_hash_set<std::string_view> shown_above;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (Trim(line).empty()) {
      p.role[i] = kBlank;
      continue;
    }
    if (IsMavenHelpLine(line)) {
      p.role[i] = kFraming;
      continue;
    }
    if (maven_repeat && line.starts_with("[ERROR] ") &&
        (shown_above.contains(line) || !ParseMavenProblem(line))) {
      p.role[i] = kFraming;
      continue;
    }
    if (line.starts_with("[ERROR] Failed to execute goal ") && !p.problems.empty()) {
      maven_repeat = true;
      for (const Problem& pr : p.problems) shown_above.insert(lines[pr.line]);
    }
    // shellcheck's block among other tools' lines (pre-commit, make lint): its "In x line N:"
    // line heads its first problem, the source line under it and the marker are its detail;
    // each further marker is a problem of its own. Its suggested fix and the wiki links at
    // the end are counted.
    if (const std::string_view where = TtyBlockStart(line); !where.empty()) {
      size_t end = i + 1;
      std::vector<std::pair<size_t, Problem>> markers;
      for (; end < lines.size() && !Trim(lines[end]).empty(); ++end) {
        if (std::optional<Problem> pr = TtyMarker(lines[end], where)) {
          markers.emplace_back(end, *pr);
        } else if (!markers.empty()) {
          break;
        }
      }
      if (!markers.empty()) {
        for (size_t m = 0; m < markers.size(); ++m) {
          auto& [at, pr] = markers[m];
          pr.line = m == 0 ? i : at;
          pr.end = at + 1;
          if (m > 0) pr.heading = i;
          p.problems.push_back(pr);
          ++p.tty_problems;
          p.role[pr.line] = kProblem;
          for (size_t k = pr.line + 1; k <= at; ++k) p.role[k] = kDetail;
        }
        i = markers.back().first;
        continue;
      }
    }
    if (line.starts_with("Did you mean:") || line.starts_with("For more information:")) {
      p.role[i] = kFraming;
      for (; i + 1 < lines.size() && !Trim(lines[i + 1]).empty() &&
             (line.starts_with("Did you mean:") || Trim(lines[i + 1]).starts_with("https://"));
           ++i) {
        p.role[i + 1] = kFraming;
      }
      continue;
    }
    // bandit's block: ">> Issue: [B307:blacklist] message", "Severity: …   Confidence: …",
    // "Location: flask/cli.py:960", "More Info: <link>", the code around it, a rule.
    if (line.starts_with(">> Issue: [")) {
      const size_t close = line.find("] ");
      const auto [location, end] = BanditBlock(lines, i);
      if (close != std::string_view::npos && location != std::string_view::npos) {
        Problem b;
        b.line = i;
        b.where = Trim(lines[location]).substr(10);
        b.code = line.substr(11, close - 11);
        b.message = line.substr(close + 2);
        b.end = location + 1;
        p.problems.push_back(b);
        p.role[i] = kProblem;
        // Its severity and location are its detail; the link and the code are counted.
        for (size_t k = i + 1; k < end; ++k) {
          const std::string_view t = Trim(lines[k]);
          p.role[k] = k < b.end && (t.starts_with("Severity: ") || t.starts_with("Location: "))
                          ? kDetail
                          : kFraming;
        }
        i = end - 1;
        continue;
      }
    }
    if (std::optional<Problem> biome = BiomeHeading(line)) {
      biome->line = i;
      BiomeBlock(lines, i, &*biome, &p.role);
      p.role[i] = kProblem;
      p.problems.push_back(*biome);
      i = biome->end - 1;
      continue;
    }
    if (std::optional<Problem> unformatted = FormatterDiffFile(lines, i, &p.role)) {
      p.role[i] = kProblem;
      p.problems.push_back(*unformatted);
      i = unformatted->end - 1;
      continue;
    }
    if (std::optional<Problem> deno = DenoCheckProblem(lines, i, &p.role)) {
      p.role[i] = kProblem;
      p.problems.push_back(*deno);
      i = deno->end - 1;
      continue;
    }
    if (std::optional<Problem> rustc = RustcStyleHeading(lines, i)) {
      rustc->line = i;
      RustcStyleBlock(lines, i, &*rustc, &p.role);
      p.role[i] = kProblem;
      p.problems.push_back(*rustc);
      i = rustc->end - 1;
      continue;
    }
    if (std::optional<Problem> above = LocationAboveProblem(lines, i, &p.role)) {
      p.role[i] = kProblem;
      p.problems.push_back(*above);
      i = above->end - 1;
      continue;
    }
    if (std::optional<Problem> rich = MietteProblem(lines, i, &p.role)) {
      p.role[i] = kProblem;
      p.problems.push_back(*rich);
      i = rich->end - 1;
      continue;
    }
    std::optional<Problem> problem = ParseProblem(line, known || CodeOnNextLine(lines, i));
    if (!problem) problem = ParseUnformatted(line, known);
    if (problem) {
      problem->line = i;
      problem->end = i + 1;
      // pydocstyle (CodeOnNextLine).
      if (problem->code.empty() && problem->message.ends_with(":") && i + 1 < lines.size() &&
          (lines[i + 1].starts_with(" ") || lines[i + 1].starts_with("\t"))) {
        const std::string_view next = Trim(lines[i + 1]);
        if (const size_t n = CodeLength(next); n > 0 && n < next.size() && next[n] == ':') {
          problem->code = next.substr(0, n);
          problem->message = Trim(next.substr(n + 1));
          problem->end = i + 2;
        }
      }
      p.problems.push_back(*problem);
      p.role[i] = kProblem;
      if (problem->end == i + 2) p.role[++i] = kDetail;
      continue;
    }
    if (!p.problems.empty() && p.problems.back().end == i && p.problems.back().code.empty() &&
        p.problems.back().line + 1 == i && line[0] != ' ' && line[0] != '\t') {
      // mypy --pretty wraps a long message at the terminal's width, flush left, its code at
      // the end of the last line: "shipcalc/orders.py:42: error: Incompatible return value
      // type (got "int"," then "expected "str")  [return-value]". Up to two such lines.
      size_t last = i;
      while (last < i + 2 && last < lines.size() && WrappedCode(lines[last]).empty() &&
             last + 1 < lines.size() && !lines[last + 1].empty() && lines[last + 1][0] != ' ' &&
             !LocationOf(lines[last + 1]).first) {
        ++last;
      }
      if (last < lines.size() && !LocationOf(lines[last]).first &&
          !WrappedCode(lines[last]).empty()) {
        p.problems.back().code = WrappedCode(lines[last]);
        for (size_t k = i; k <= last; ++k) p.role[k] = kDetail;
        p.problems.back().end = last + 1;
        i = last;
        continue;
      }
    }
    if (IsTotalsLine(line)) {
      p.role[i] = kTotals;
    } else if (IsFraming(line)) {
      p.role[i] = kFraming;
    } else if (!p.problems.empty() && p.problems.back().end == i && line.starts_with("==") &&
               line.find(":[") != std::string_view::npos && Trim(line).ends_with("]")) {
      // pylint's duplicate-code (R0801): the copies it found, "==pkg.mod:[61:85]", one a line
      // (the code they share, after them, is counted with the other lines).
      p.role[i] = kDetail;
      p.problems.back().end = i + 1;
    } else if (!p.problems.empty() && p.problems.back().end == i &&
               (line[0] == ' ' || line[0] == '\t' || line[0] == '|' || IsDigit(line[0])) &&
               !IsFilesProgress(line) && !lines[i - 1].starts_with("==")) {
      // Under a problem, indented or a code frame's gutter: its detail — but for an echo of
      // the source with a caret line under it (mypy --pretty: "    return a + b", "    ^~~~"),
      // which the location points at: counted.
      const std::string_view t = Trim(line);
      const bool carets = !t.empty() && t[0] == '^' &&
                          t.find_first_not_of("^~.") == std::string_view::npos;
      if (carets && i > p.problems.back().line + 1 && p.role[i - 1] == kDetail &&
          (lines[i - 1][0] == ' ' || lines[i - 1][0] == '\t')) {
        p.role[i - 1] = kFraming;
        p.role[i] = kFraming;
      } else {
        p.role[i] = kDetail;
      }
      p.problems.back().end = i + 1;
    }
  }
  NamesInParentheses(p);
  return p;
}

// ---- PHP_CodeSniffer's full report -------------------------------------------------------
//
//   FILE: /srv/app/src/Report.php
//   ----------------------------------------------------------------------
//   FOUND 78 ERRORS AND 1 WARNING AFFECTING 27 LINES
//   ----------------------------------------------------------------------
//     33 | ERROR   | [x] Incorrect spacing between argument
//        |         |     "$width" and equals sign; expected 1 but found 0
//   ----------------------------------------------------------------------
//   PHPCBF CAN FIX THE 43 MARKED SNIFF VIOLATIONS AUTOMATICALLY

// A row of the report: its line number and severity, then the message ("   33 | ERROR   |
// [x] Incorrect spacing"); or a continuation of the message above ("      |         |     found
// 0"): line number 0.
struct PhpcsRow {
  uint64_t line = 0;
  std::string_view severity;
  std::string_view text;
};
std::optional<PhpcsRow> ReadPhpcsRow(std::string_view line) {
  const size_t bar = line.find('|');
  if (bar == std::string_view::npos) return std::nullopt;
  const size_t bar2 = line.find('|', bar + 1);
  if (bar2 == std::string_view::npos) return std::nullopt;
  const std::string_view number = Trim(line.substr(0, bar));
  const std::string_view severity = Trim(line.substr(bar + 1, bar2 - bar - 1));
  PhpcsRow row;
  row.text = Trim(line.substr(bar2 + 1));
  if (number.empty() && severity.empty()) return row;  // a continuation
  if (number.empty() || number.size() > 9 ||
      number.find_first_not_of("0123456789") != std::string_view::npos ||
      (severity != "ERROR" && severity != "WARNING")) {
    return std::nullopt;
  }
  for (char c : number) row.line = row.line * 10 + static_cast<uint64_t>(c - '0');
  row.severity = severity;
  return row;
}

// A message with what it names masked: what is between double quotes, and runs of digits
// ("Incorrect spacing between argument \"$width\" and equals sign; expected 1 but found 0"
// and the same for "$showSources" are one message).
std::string MaskNames(std::string_view message) {
  std::string masked;
  bool quoted = false;
  for (size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    if (c == '"') {
      quoted = !quoted;
      masked += c;
    } else if (quoted) {
      continue;
    } else if (IsDigit(c)) {
      if (masked.empty() || masked.back() != '#') masked += '#';
    } else {
      masked += c;
    }
  }
  return masked;
}

// The counts of a "FOUND 78 ERRORS AND 1 WARNING AFFECTING 27 LINES" line.
bool ReadPhpcsFound(std::string_view line, uint64_t* errors, uint64_t* warnings) {
  if (!line.starts_with("FOUND ") || line.find(" AFFECTING ") == std::string_view::npos) {
    return false;
  }
  *errors += CountBefore(line, "ERROR").value_or(0);
  *warnings += CountBefore(line, "WARNING").value_or(0);
  return true;
}

struct TtyBlock {
  size_t begin = 0;             // the "In … line N:" line
  size_t first_marker = 0;      // the source lines are those between
  std::vector<size_t> markers;  // indices into TtyParse::problems
};

// shellcheck's wiki link for a code, "https://www.shellcheck.net/wiki/SC2086 -- Double quote …".
constexpr std::string_view kShellcheckWiki = "https://www.shellcheck.net/wiki/";

// The code a wiki link is for: "SC2086"; empty when the line is none.
std::string_view WikiLinkCode(std::string_view line) {
  const std::string_view t = Trim(line);
  if (!t.starts_with(kShellcheckWiki)) return {};
  const std::string_view rest = t.substr(kShellcheckWiki.size());
  return rest.substr(0, rest.find(' '));
}

struct TtyParse {
  std::vector<Problem> problems;  // `line`: the marker's line
  std::vector<size_t> block_of;   // each problem's block
  std::vector<TtyBlock> blocks;
  uint64_t fix_lines = 0, link_lines = 0;
  std::vector<size_t> wiki_links;  // the lines of the wiki links among them
  // Markers above the first block, whose "In x line N:" and source line were cut off
  // (`shellcheck x.sh | tail -20`): kept as printed.
  std::vector<size_t> cut_markers;
};

TtyParse ParseTty(const std::vector<std::string_view>& lines) {
  TtyParse p;
  enum { kNone, kBlock, kFix, kLinks } state = kNone;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (const std::string_view where = TtyBlockStart(line); !where.empty()) {
      p.blocks.push_back(TtyBlock{i, i + 1, {}});
      state = kBlock;
      continue;
    }
    if (Trim(line).empty()) {
      if (state == kFix) state = kNone;
      continue;
    }
    if (line.starts_with("Did you mean:")) {
      state = kFix;
      ++p.fix_lines;
      continue;
    }
    if (line.starts_with("For more information:")) {
      state = kLinks;
      ++p.link_lines;
      continue;
    }
    if (state == kFix) {
      ++p.fix_lines;
    } else if (const bool wiki = !WikiLinkCode(line).empty();
               wiki || (state == kLinks && Trim(line).starts_with("https://"))) {
      ++p.link_lines;
      if (wiki) p.wiki_links.push_back(i);
    } else if (p.blocks.empty() && state == kNone && TtyMarker(line, "")) {
      p.cut_markers.push_back(i);
    } else if (state == kBlock) {
      TtyBlock& b = p.blocks.back();
      const std::string_view where = TtyBlockStart(lines[b.begin]);
      if (std::optional<Problem> pr = TtyMarker(line, where)) {
        if (b.markers.empty()) b.first_marker = i;
        pr->line = i;
        pr->end = i + 1;
        b.markers.push_back(p.problems.size());
        p.block_of.push_back(p.blocks.size() - 1);
        p.problems.push_back(*pr);
      }
    }
  }
  return p;
}

class LintShaper final : public core::Shaper {
 public:
  LintShaper() {
    meta_.id = "builtin-lint";
    meta_.name = "lint";
    meta_.version = "1.0.0";
    meta_.description =
        "Linters and type checkers (flake8, ruff, pylint, mypy, pyright, shellcheck -f gcc, "
        "golangci-lint…): every problem's location and code, many grouped by message";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "lint";
    meta_.priority = 85;
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    const std::string tool = ToolName(command);
    const bool known = IsLinter(tool);
    size_t problems = 0, others = 0, totals = 0, maven_rows = 0;
    // `make lint`: make prints the recipe's command line before its output. A linter's there,
    // with problems under it, is as good as the command's naming one.
    std::string echoed;
    if (const size_t start = snippet.find_first_not_of(" \t\r\n");
        !known && start != std::string_view::npos) {
      const std::string_view first = snippet.substr(start, snippet.find('\n', start) - start);
      if (first.find(": ") == std::string_view::npos && IsLinter(ToolName(first))) {
        echoed = ToolName(first);
      }
    }
    // Problems of a format that spans lines, whose lines no other tool prints: shellcheck's
    // blocks, bandit's issues, pydocstyle's pairs, PHP_CodeSniffer's report.
    size_t blocks = 0;
    std::string_view tty_where, format;
    const std::vector<std::string_view> lines = core::SplitLines(snippet);
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view line = lines[i];
      if (Trim(line).empty()) continue;
      if (std::string_view where = TtyBlockStart(line); !where.empty()) {
        tty_where = where;
        continue;
      }
      if (!tty_where.empty() && TtyMarker(line, tty_where)) {
        ++problems;
        ++blocks;
        format = "shellcheck's blocks";
        continue;
      }
      if (ParseMavenProblem(line)) {
        ++maven_rows;
        ++problems;
        continue;
      }
      if (line.starts_with(">> Issue: [")) {  // bandit
        ++problems;
        if (BanditBlock(lines, i).first != std::string_view::npos) {
          ++blocks;
          format = "bandit's issues";
        }
        continue;
      }
      if (uint64_t errors = 0, warnings = 0; ReadPhpcsFound(line, &errors, &warnings)) {
        ++blocks;
        format = "PHP_CodeSniffer's report";
        continue;
      }
      if (const std::string_view t = Trim(line);
          BiomeHeading(line) || (t.starts_with(",-[") && t.ends_with("]"))) {
        ++problems;  // Biome's heading, miette's location
        continue;
      }
      if (FormatterDiffFile(lines, i, nullptr)) {
        ++problems;
        ++blocks;
        format = "a formatter's diffs";
        continue;
      }
      if (DenoCheckProblem(lines, i, nullptr)) {
        ++problems;
        ++blocks;
        format = "deno check's diagnostics";
        continue;
      }
      // With a code: without one ("warning: unused variable: `x`") it is rustc's or clippy's,
      // which `make` or a script may run, the build shaper's.
      if (std::optional<Problem> rustc = RustcStyleHeading(lines, i);
          rustc && !rustc->code.empty()) {
        ++problems;
        ++blocks;
        format = "diagnostics in rustc's form";
        ++i;
        continue;
      }
      if (const std::optional<Problem> above = LocationAboveProblem(lines, i, nullptr)) {
        ++problems;
        ++blocks;
        format = "messages under their locations";
        i = above->end - 1;
        continue;
      }
      if (SpaceEndedLocation(line) > 0 && CodeOnNextLine(lines, i)) {
        ++problems;
        ++blocks;
        format = "pydocstyle's problems";
        ++i;
        continue;
      }
      if (ParseProblem(line, known) || ParseUnformatted(line, known)) {
        ++problems;
      } else if (IsTotalsLine(line)) {
        ++totals;
      } else if (!IsFraming(line) && line[0] != ' ' && line[0] != '\t') {
        ++others;
      }
    }
    if (maven_rows > 0 && (tool == "mvn" || tool == "mvnw" ||
                           snippet.find("COMPILATION ERROR") != std::string_view::npos)) {
      return core::MatchResult{true, 0.9, {"output: Maven's compiler errors"}};
    }
    if (known && (problems > 0 || totals > 0)) {
      return core::MatchResult{true, 0.95, {StrCat("command: ", ToolName(command))}};
    }
    if (!echoed.empty() && problems > 0) {
      return core::MatchResult{true, 0.9, {StrCat("output: ", echoed, "'s command line, echoed")}};
    }
    if (known) return core::MatchResult{true, 0.5, {StrCat("command: ", ToolName(command))}};
    if (blocks > 0) return core::MatchResult{true, 0.85, {StrCat("output: ", format)}};
    // From the output alone: problem lines, little else.
    if (problems >= 3 && others * 5 <= problems) {
      return core::MatchResult{true, 0.7, {"output: one problem per line, located"}};
    }
    // Many, among a tool's own lines (a documentation build's progress: sphinx-build, doxygen).
    if (problems >= 10 && others <= problems) {
      return core::MatchResult{true, 0.65, {"output: many problems, one per line, located"}};
    }
    return core::MatchResult{false, 0, {}};
  }

  // "<tool>: FAILED — 3 errors, 1 warning in 2 files (exit 1)": problems by severity, files.
  template <typename FileOf>
  static std::string HeaderOf(std::string_view tool, std::string_view exit,
                              const std::vector<Problem>& problems, FileOf file_of,
                              std::string_view more = {}) {
    absl::flat_hash_set<std::string_view> files;
    Tally severities;
    for (const Problem& pr : problems) {
      if (const std::string_view file = file_of(pr); !file.empty()) files.insert(file);
      severities.Add(pr.severity);
    }
    std::string counts;
    // Errors first, then warnings, then the others (notes among them: the header names what
    // failed first), each kind in the order seen.
    auto items = severities.items();
    auto rank = [](std::string_view severity) {
      return absl::EqualsIgnoreCase(ToAbsl(severity), "note") ? 2 : SeverityTier(severity);
    };
    // Problems without a severity rank with the errors, named after them.
    std::stable_sort(items.begin(), items.end(), [&rank](const auto& a, const auto& b) {
      return std::pair(rank(a.first), a.first.empty()) < std::pair(rank(b.first), b.first.empty());
    });
    for (const auto& [severity, n] : items) {
      if (!counts.empty()) counts += ", ";
      if (severity.empty()) {
        counts += Plural(n, "problem", "problems");
      } else {
        // Prettier's "[warn] src/a.js" and the like: a warning, by its full name; cppcheck's
        // kinds that are no noun, "style", "performance", "portability": problems of that kind.
        std::string word = absl::AsciiStrToLower(ToAbsl(severity));
        if (word == "warn") word = "warning";
        if (word == "err") word = "error";
        if (word == "style" || word == "performance" || word == "portability") {
          word += " problem";
        }
        counts += Plural(n, word, word == "info" || word == "information" ? word : word + "s");
      }
    }
    // (No file named: their locations are not in the output, `oxlint | grep error`.)
    if (!files.empty()) StrAppend(&counts, " in ", Plural(files.size(), "file", "files"));
    counts += more;
    return exit.empty() ? StrCat(tool, ": ", counts)
                        : StrCat(tool, ": FAILED — ", counts, " (", exit, ")");
  }

  // shellcheck's tty format: each block's "In … line N:" line, its source line and markers;
  // the suggested fixes and wiki links counted. More than kAllInFull problems: grouped by code
  // and message, each group's first with its block, the others listed ("scripts/a.sh line 5").
  static std::string ShapeTty(std::string_view tool, std::string_view exit,
                              const std::vector<std::string_view>& lines, const TtyParse& p) {
    SummaryWriter out(&lines);
    out.Header(HeaderOf(tool, exit, p.problems, [](const Problem& pr) {
      return pr.where.substr(0, pr.where.rfind(" line "));
    }));
    const bool grouped = p.problems.size() > kAllInFull;
    DiagnosticGroups groups;
    std::deque<std::string> kinds;
    if (grouped) {
      for (const Problem& pr : p.problems) {
        const std::string& kind = kinds.emplace_back(StrCat(pr.severity, " ", pr.code));
        groups.Add(kind, pr.code, pr.message, pr.where);
      }
    }
    if (grouped) WriteTally(p.problems, out);
    for (size_t i : p.cut_markers) out.Line(lines[i]);
    // Grouped, the blocks with an error come first, then those with a warning, then the others.
    std::vector<size_t> order(p.blocks.size());
    std::vector<int> block_tier(p.blocks.size(), 2);
    for (size_t b = 0; b < order.size(); ++b) {
      order[b] = b;
      for (size_t k : p.blocks[b].markers) {
        if (!grouped || groups.Leads(k)) {
          block_tier[b] = std::min(block_tier[b], SeverityTier(p.problems[k].severity));
        }
      }
    }
    if (grouped) {
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return block_tier[a] < block_tier[b]; });
    }
    for (size_t index : order) {
      const TtyBlock& b = p.blocks[index];
      std::vector<size_t> shown;  // the block's markers shown: all, or its groups' first
      for (size_t k : b.markers) {
        if (!grouped || groups.Leads(k)) shown.push_back(k);
      }
      if (shown.empty()) continue;
      // The block as printed (its markers under their line), then the lists of the others.
      for (size_t i = b.begin; i < b.first_marker; ++i) out.Line(lines[i]);
      for (size_t k : shown) out.Line(lines[p.problems[k].line]);
      for (size_t k : shown) {
        if (grouped) groups.WriteFollowers(k, out, [](size_t) { return 1; });
      }
    }
    out.ElidedLines(p.fix_lines, p.fix_lines == 1 ? "line of suggested fixes omitted"
                                                  : "lines of suggested fixes omitted");
    // A wiki link for a code no problem here has names problems cut off above it (`shellcheck
    // x.sh | tail -15`): kept.
    uint64_t links = p.link_lines;
    for (size_t i : p.wiki_links) {
      const std::string_view code = WikiLinkCode(lines[i]);
      if (std::none_of(p.problems.begin(), p.problems.end(),
                       [code](const Problem& pr) { return pr.code == code; })) {
        out.Line(lines[i]);
        --links;
      }
    }
    out.ElidedLines(links,
                    links == 1 ? "line of wiki links omitted" : "lines of wiki links omitted");
    uint64_t rest = out.UnaccountedLines();
    out.Omitted(rest, "other line", "other lines");
    return out.Take();
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    if (context.raw_path.empty()) return core::ShapeOutput{"", RenderMode::kRaw};
    // The tool, with its subcommand when it takes one ("deno lint", "ruff check").
    const std::string tool_name = core::CommandKey(context.command);
    const std::string tool = tool_name.empty() ? "lint" : tool_name;
    const std::vector<std::string_view> lines = core::SplitLines(output);
    if (std::optional<std::string> phpcs =
            ShapePhpcsFull(tool, ExitNote(context.exit_code), lines)) {
      return core::ShapeOutput{std::move(*phpcs), RenderMode::kSummary};
    }
    Parse p = ParseLint(lines, IsLinter(tool_name));
    if (tool_name == "pylint") {
      // pylint's codes say their category by their letter: E0602 an error, W1406 a warning.
      for (Problem& pr : p.problems) {
        if (!pr.severity.empty() || pr.code.size() < 2) continue;
        switch (pr.code[0]) {
          case 'F': pr.severity = "fatal"; break;
          case 'E': pr.severity = "error"; break;
          case 'W': pr.severity = "warning"; break;
          case 'R': pr.severity = "refactor"; break;
          case 'C': pr.severity = "convention"; break;
          case 'I': pr.severity = "info"; break;
          default: break;
        }
      }
    }
    const std::string exit = ExitNote(context.exit_code);
    if (p.problems.size() == p.tty_problems) {
      if (TtyParse tty = ParseTty(lines); !tty.problems.empty()) {
        return core::ShapeOutput{ShapeTty(tool, exit, lines, tty), RenderMode::kSummary,
                                 AnyError(tty.problems)};
      }
    }
    SummaryWriter out(&lines);

    std::vector<std::string_view> totals;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (p.role[i] == kTotals) totals.push_back(lines[i]);
    }
    if (p.problems.empty()) {
      // No problem parsed: a clean run, or the tool's own failure (kept whole if short) — or
      // shellcheck's wiki links alone, one per code of the problems cut off above them
      // (`shellcheck x.sh | tail -3`): problems there were.
      std::string codes;
      uint64_t code_count = 0;
      for (std::string_view line : lines) {
        if (const std::string_view code = WikiLinkCode(line); !code.empty()) {
          StrAppend(&codes, code_count++ == 0 ? "" : ", ", code);
        }
      }
      if (code_count > 0) {
        return core::ShapeOutput{
            StrCat(tool, ": FAILED — problems of ", Plural(code_count, "code", "codes"), " (",
                   codes, ") listed by its wiki links; the diagnostics are cut off",
                   exit.empty() ? "" : StrCat(" (", exit, ")")),
            RenderMode::kRaw, true};
      }
      const bool failed = !exit.empty();
      if (!failed && lines.size() <= 3) {
        out.Header(StrCat(tool, CutByHead(context.command)
                                    ? ": shown through head (its end may be cut); no problems in "
                                      "what it shows"
                                    : ": no problems"));
        out.Lines(totals);
        return core::ShapeOutput{out.Take(), RenderMode::kSummary};
      }
      if (lines.size() <= 40) {
        // An output cut at its start (`biome lint | tail -20`) may keep only the totals of a
        // run with errors, "Found 22 errors.": said first when it is shown as it is.
        std::string_view counted;
        for (std::string_view line : totals) {
          if (CountBefore(line, "error").value_or(0) > 0) counted = Trim(line);
        }
        if (counted.empty()) return core::ShapeOutput{"", RenderMode::kRaw};
        return core::ShapeOutput{StrCat(tool, ": ", counted), RenderMode::kRaw, true};
      }
      out.Header(StrCat(tool, ": ", failed ? StrCat("FAILED (", exit, ")") : "no problems parsed",
                        ", ", Plural(lines.size(), "line", "lines")));
      WriteHeadTail(lines, 15, 15, LooksLikeErrorLine, 50, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    // Biome shows at most 20 diagnostics and counts the others ("Diagnostics not shown: 20.").
    std::string more;
    for (std::string_view line : totals) {
      if (const std::string_view t = Trim(line); t.starts_with("Diagnostics not shown: ")) {
        const std::string_view n = t.substr(23, t.find_first_not_of("0123456789", 23) - 23);
        if (!n.empty()) more = StrCat(", ", n, " more not shown by ", tool);
      }
    }
    // Its totals count more errors than are here (`mypy --pretty src | tail -20`: cut at its
    // start inside one): how many they count, said; the lines above its first problem that
    // stand at the margin are the end of that one's message ("[no-untyped-def]"), kept first.
    uint64_t errors_here = 0, errors_counted = 0;
    for (const Problem& pr : p.problems) {
      errors_here += absl::EqualsIgnoreCase(ToAbsl(pr.severity), "error") ? 1 : 0;
    }
    for (std::string_view line : totals) {
      errors_counted = std::max(errors_counted, CountBefore(line, "error").value_or(0));
    }
    const bool cut_above = more.empty() && errors_here > 0 && errors_counted > errors_here;
    if (cut_above) {
      StrAppend(&more, " (its totals count ", Plural(errors_counted, "error", "errors"), ")");
    }
    out.Header(HeaderOf(
        tool, exit, p.problems,
        [](const Problem& pr) {
          // "src/a.py:3:1", shellcheck's "scripts/a.sh line 4", Free Pascal's "a.pas(3,1)".
          std::string_view file = pr.where.substr(0, pr.where.find(':'));
          if (const size_t n = ParenLocationLength(file); n > 0)
            file = file.substr(0, file.find('('));
          return file.substr(0, file.rfind(" line "));
        },
        more));
    for (size_t i = 0; cut_above && i < p.problems.front().line; ++i) {
      if (p.role[i] == kOther && !lines[i].empty() && lines[i][0] != ' ' && lines[i][0] != '\t') {
        out.Line(lines[i]);
      }
    }
    const bool failed = AnyError(p.problems);

    const bool grouped = p.problems.size() > kAllInFull;
    if (!grouped && std::none_of(p.role.begin(), p.role.end(),
                                 [](uint8_t r) { return r == kOther || r == kFraming; })) {
      // Nothing worth leaving out: the output as printed (after the header, when it is a
      // failed run's: core/shaper.h).
      return core::ShapeOutput{failed ? out.Take() : "", RenderMode::kRaw, failed};
    }
    if (grouped && std::all_of(p.problems.begin(), p.problems.end(),
                               [](const Problem& pr) { return pr.file_only; })) {
      WriteUnformatted(lines, p, out);
    } else {
      WriteProblems(lines, p, grouped, out);
    }
    // Lines of other tools that look like errors (a crash, a config error), and pre-commit's
    // word on a hook that failed by changing files ("- files were modified by this hook", under
    // its "trim trailing whitespace....Failed").
    size_t others = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (p.role[i] == kOther && others < kMaxOtherLines &&
          (LooksLikeToolErrorLine(lines[i]) || lines[i] == "- files were modified by this hook")) {
        out.Line(lines[i]);
        ++others;
      }
    }
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min<uint64_t>(rest, totals.size());
    out.Omitted(rest, "other line", "other lines");
    out.Lines(totals);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, failed};
  }

 private:
  // PHP_CodeSniffer's full report (its default): each file's "FILE: …" heading and "FOUND …"
  // line; in each file, its 2 most frequent messages and any not shown for a file above (what
  // they name between quotes, and their numbers, masked: MaskNames), each by its first row with
  // the rows that continue it, as printed, and the file's other rows of that message by their
  // line numbers ("… 28 more like it at lines 89; 92; 93"); the file's
  // rows of messages shown above by their line numbers; the rules of dashes counted; the
  // fixable counts and the timing kept. Nullopt when the output is no such report.
  static std::optional<std::string> ShapePhpcsFull(std::string_view tool, std::string_view exit,
                                                   const std::vector<std::string_view>& lines) {
    constexpr size_t kPhpcsMessagesPerFile = 2;
    if (std::none_of(lines.begin(), lines.end(),
                     [](std::string_view line) { return line.starts_with("FILE: "); })) {
      return std::nullopt;
    }
    struct Row {
      size_t first, end;  // its lines: the row, then the ones continuing its message
      uint64_t line;
      std::string message;
    };
    struct File {
      size_t heading = 0, found = SIZE_MAX;
      std::vector<Row> rows;
    };
    std::vector<File> files;
    std::vector<size_t> other;  // lines that are no rule and no part of a file's rows
    uint64_t errors = 0, warnings = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::string_view line = lines[i];
      const std::string_view t = Trim(line);
      if (line.starts_with("FILE: ")) {
        files.emplace_back().heading = i;
        continue;
      }
      if (t.empty() || t.find_first_not_of('-') == std::string_view::npos) continue;
      if (!files.empty() && ReadPhpcsFound(line, &errors, &warnings)) {
        files.back().found = i;
        continue;
      }
      const std::optional<PhpcsRow> row = files.empty() ? std::nullopt : ReadPhpcsRow(line);
      if (!row) {
        other.push_back(i);
        continue;
      }
      std::vector<Row>& rows = files.back().rows;
      if (row->line == 0) {
        if (rows.empty() || rows.back().end != i) return std::nullopt;
        StrAppend(&rows.back().message, " ", row->text);
        rows.back().end = i + 1;
        continue;
      }
      std::string_view text = row->text;
      if (text.starts_with("[x] ") || text.starts_with("[ ] ")) text.remove_prefix(4);
      rows.push_back(Row{i, i + 1, row->line, StrCat(row->severity, " ", text)});
    }
    for (File& file : files) {
      for (Row& row : file.rows) row.message = MaskNames(row.message);
    }
    if (files.empty() || std::any_of(files.begin(), files.end(), [](const File& f) {
          return f.found == SIZE_MAX;
        })) {
      return std::nullopt;
    }
    SummaryWriter out(&lines);
    std::string counts;
    if (errors > 0) counts = Plural(errors, "error", "errors");
    if (warnings > 0) {
      StrAppend(&counts, counts.empty() ? "" : ", ", Plural(warnings, "warning", "warnings"));
    }
    if (counts.empty()) counts = "no problems";
    StrAppend(&counts, " in ", Plural(files.size(), "file", "files"));
    out.Header(exit.empty() ? StrCat(tool, ": ", counts)
                            : StrCat(tool, ": FAILED — ", counts, " (", exit, ")"));
    absl::flat_hash_set<std::string> shown_messages;
    size_t next_other = 0;
    auto others_before = [&](size_t limit) {
      for (; next_other < other.size() && other[next_other] < limit; ++next_other) {
        out.Line(lines[other[next_other]]);
      }
    };
    for (size_t f = 0; f < files.size(); ++f) {
      const File& file = files[f];
      others_before(file.heading);
      out.Line(lines[file.heading]);
      out.Line(lines[file.found]);
      // Its messages, the most frequent first (then in the order they came).
      std::vector<std::vector<size_t>> groups;
      {
        absl::flat_hash_map<std::string_view, size_t> by_message;
        for (size_t r = 0; r < file.rows.size(); ++r) {
          const auto [it, added] = by_message.try_emplace(file.rows[r].message, groups.size());
          if (added) groups.emplace_back();
          groups[it->second].push_back(r);
        }
      }
      std::stable_sort(groups.begin(), groups.end(),
                       [](const auto& a, const auto& b) { return a.size() > b.size(); });
      // Line numbers, each once, in order.
      auto line_list = [&file](std::vector<size_t> rows) {
        std::sort(rows.begin(), rows.end());
        std::string at;
        uint64_t last = 0;
        for (size_t r : rows) {
          if (file.rows[r].line == last) continue;
          last = file.rows[r].line;
          StrAppend(&at, at.empty() ? "" : core::kListSeparator, last);
        }
        return at;
      };
      auto lines_of = [&file](const std::vector<size_t>& rows) {
        uint64_t n = 0;
        for (size_t r : rows) n += file.rows[r].end - file.rows[r].first;
        return n;
      };
      std::vector<size_t> rest;
      size_t rest_messages = 0;
      for (size_t g = 0; g < groups.size(); ++g) {
        const Row& row = file.rows[groups[g].front()];
        // Past the file's first messages, one shown in full for a file above is listed by its
        // line numbers; one not shown yet is shown here: each message is read once at least.
        if (g >= kPhpcsMessagesPerFile && !shown_messages.insert(row.message).second) {
          rest.insert(rest.end(), groups[g].begin(), groups[g].end());
          ++rest_messages;
          continue;
        }
        shown_messages.insert(row.message);
        for (size_t i = row.first; i < row.end; ++i) out.Line(lines[i]);
        if (groups[g].size() > 1) {
          const std::vector<size_t> like(groups[g].begin() + 1, groups[g].end());
          out.Marker(StrCat(core::FormatCount(like.size()), " more like it at ",
                            like.size() == 1 ? "line " : "lines ", line_list(like)),
                     lines_of(like));
        }
      }
      if (!rest.empty()) {
        out.Marker(StrCat(core::FormatCount(rest.size()),
                          rest.size() == 1 ? " more problem" : " more problems",
                          " in this file, of ", Plural(rest_messages, "message", "messages"),
                          " shown above, at lines ", line_list(rest)),
                   lines_of(rest));
      }
    }
    others_before(lines.size());
    if (const uint64_t rest = out.UnaccountedLines(); rest > 0) {
      out.Omitted(rest, "rule of dashes or blank line", "rules of dashes and blank lines");
    }
    return out.Take();
  }

  // Many files a formatter would change: each message's first line as printed, then the other
  // files of that message directory by directory ("… 40 more in /w/pkg/lexers/ at: a.py; b.py"),
  // in the order the tool named them.
  static void WriteUnformatted(const std::vector<std::string_view>& lines, const Parse& p,
                               SummaryWriter& out) {
    std::vector<bool> done(p.problems.size(), false);
    for (size_t k = 0; k < p.problems.size(); ++k) {
      if (done[k]) continue;
      const Problem& leader = p.problems[k];
      out.Line(lines[leader.line]);
      // The others of its message, by directory in order of first appearance.
      std::vector<std::string_view> dirs;
      std::vector<std::vector<std::string_view>> names;
      for (size_t f = k + 1; f < p.problems.size(); ++f) {
        const Problem& pr = p.problems[f];
        if (done[f] || pr.message != leader.message || pr.severity != leader.severity) continue;
        done[f] = true;
        const size_t slash = pr.where.rfind('/');
        const std::string_view dir = slash == std::string_view::npos ? "" : pr.where.substr(0, slash + 1);
        const size_t d = static_cast<size_t>(std::find(dirs.begin(), dirs.end(), dir) - dirs.begin());
        if (d == dirs.size()) {
          dirs.push_back(dir);
          names.emplace_back();
        }
        names[d].push_back(pr.where.substr(dir.size()));
      }
      for (size_t d = 0; d < dirs.size(); ++d) {
        const std::string_view dir = dirs[d].empty() ? std::string_view("./") : dirs[d];
        WriteLocationList(StrCat(core::FormatCount(names[d].size()), " more in ", dir, core::kListAt),
                          StrCat(dir, core::kListAlsoAt), names[d].size(), names[d].size(), out,
                          [&](size_t i, std::string* text) { text->append(names[d][i]); });
      }
    }
  }

  static void WriteTally(const std::vector<Problem>& problems, SummaryWriter& out) {
    std::vector<std::string_view> codes;
    codes.reserve(problems.size());
    for (const Problem& pr : problems) codes.push_back(pr.code);
    WriteCodeTally(codes, out);
  }

  static void WriteProblems(const std::vector<std::string_view>& lines, const Parse& p,
                            bool grouped, SummaryWriter& out) {
    DiagnosticGroups groups;
    std::deque<std::string> kinds;  // what each problem's group shares, kept for the groups
    std::deque<std::string> labels;  // "errors like it": one per severity without a code
    auto like = [&labels](std::string_view severity) -> std::string_view {
      // "Errors like it" (Free Pascal's "Error:") reads as a word inside the sentence.
      const std::string label = StrCat(absl::AsciiStrToLower(ToAbsl(severity)), "s like it");
      for (const std::string& known : labels) {
        if (known == label) return known;
      }
      return labels.emplace_back(label);
    };
    std::vector<LabelledDetail> details;
    if (grouped) {
      for (const Problem& pr : p.problems) {
        const std::string& kind = kinds.emplace_back(StrCat(pr.severity, " ", pr.code));
        const std::string_view label = !pr.code.empty()       ? pr.code
                                       : !pr.severity.empty() ? like(pr.severity)
                                                              : "problems like it";
        // Labelled lines under it ("  symbol:   variable total") name what it is about, and
        // so does a name in parentheses after its message.
        LabelledDetails(lines, pr.line + 1, pr.end, &details);
        if (!pr.name.empty()) details.insert(details.begin(), LabelledDetail{"(name)", pr.name});
        // pylint's duplicate-code (R0801) names the copies under it, "==pkg.mod:[61:85]": what
        // each such problem is about (they all point at one file's first line).
        for (size_t k = pr.line + 1; k < pr.end; ++k) {
          const std::string_view t = lines[k];
          if (t.size() > 6 && t.starts_with("==") && t.find(":[") != std::string_view::npos &&
              Trim(t).ends_with("]")) {
            details.push_back(LabelledDetail{"(copy)", Trim(t).substr(2)});
          }
        }
        groups.Add(kind, label, pr.message, pr.where, details);
      }
    }
    if (grouped) WriteTally(p.problems, out);
    uint64_t detail_left = 0;
    // Grouped, the groups of errors come first, then warnings', then the others': what a budget
    // keeps first of lines that rank alike is what comes first.
    std::vector<size_t> order(p.problems.size());
    std::vector<int> tier(p.problems.size());
    for (size_t k = 0; k < order.size(); ++k) {
      order[k] = k;
      tier[k] = SeverityTier(p.problems[k].severity);
    }
    if (grouped) {
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tier[a] < tier[b]; });
    }
    size_t written_end = std::string_view::npos;  // one past the last problem's lines written
    for (size_t k : order) {
      const Problem& pr = p.problems[k];
      if (grouped && !groups.Leads(k)) continue;
      // Where it is, unless the lines just written were its block's.
      if (pr.heading != std::string_view::npos && written_end != pr.line) {
        out.Line(lines[pr.heading]);
      }
      written_end = pr.end;
      out.Line(lines[pr.line]);
      // Its detail lines (a rich report's frame and explanations are counted, not shown).
      size_t shown = 0;
      for (size_t i = pr.line + 1; i < pr.end; ++i) {
        if (p.role[i] == kFraming || p.role[i] == kBlank || (grouped && shown == kLeaderDetail)) {
          ++detail_left;
          continue;
        }
        out.Line(lines[i]);
        ++shown;
      }
      if (grouped) {
        groups.WriteFollowers(k, out,
                              [&](size_t f) { return p.problems[f].end - p.problems[f].line; });
      }
    }
    out.ElidedLines(detail_left, detail_left == 1 ? "detail line omitted" : "detail lines omitted");
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeLintShaper() { return std::make_shared<LintShaper>(); }

}  // namespace plugline::builtin

// builtin-eslint: ESLint (also eslint_d, and `next lint`, which prints ESLint's results).
//
// Recognizes:
//  - stylish, the default format: a file's path, then its problems, one a row
//      "  12:13  warning  'x' is defined but never used  no-unused-vars"
//    (a fatal parsing error has no rule id), then "✖ 22 problems (12 errors, 10 warnings)",
//    "  3 errors and 4 warnings potentially fixable with the `--fix` option." and, with
//    --max-warnings, "ESLint found too many warnings (maximum: 0)."; `next lint` prints the
//    same rows unindented with "Error:"/"Warning:";
//  - compact ("/src/a.js: line 12, col 13, Warning - msg (rule)") and unix
//    ("/src/a.js:12:13: msg [Warning/rule]"), each ending with "N problems";
//  - --format json (and json-with-metadata, and either reformatted over several lines): a
//    machine-readable array of {filePath, messages: [{ruleId, severity, message, line, column}],
//    errorCount, warningCount}, parsed with core::ParseJson and rendered as one compact line per
//    problem built only from those fields — the one exception to "every line is a line of the
//    output", as the output is a single line of JSON;
//  - ESLint's own failure ("Oops! Something went wrong! :(", "ESLint: 9.x", the reason:
//    no config file, a bad rule option, no files matching the pattern).
//
// Up to 30 problems: every row, with its file's path line. More, in any format: grouped by rule
// and message (WriteGrouped() below), every problem's position kept. The totals lines are kept
// verbatim; lines of other tools that look like errors are kept; the rest (blank lines) is
// counted. A clean run is one line.
#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "builtin/diagnostic_groups.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr size_t kAllInFull = 30;  // up to this many problems, all in full; beyond, grouped by
                                   // rule and message, every position kept
constexpr size_t kMaxOtherErrorLines = 30;
constexpr size_t kMaxCrashLines = 60;
constexpr size_t kMaxStackFrames = 5;
constexpr size_t kMaxSuccessLines = 30;
// ESLint's JSON and its failure message come first; before them, at most a preamble (npm's
// banner, warnings on stderr).
constexpr size_t kMaxPreambleLines = 200;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// Strip() without its per-character set lookups: this runs on every line.
std::string_view Strip(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

// A rule id: "no-unused-vars", "@typescript-eslint/no-explicit-any", "react-hooks/rules-of-hooks".
bool IsRuleId(std::string_view s) {
  if (s.empty() || s.size() > 100) return false;
  for (char c : s) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c);
    if (!alnum && c != '-' && c != '/' && c != '@' && c != '_' && c != '.') {
      return false;
    }
  }
  return std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '@';
}

// Skips "digits:digits" at `i`; returns the position after it, or npos.
size_t SkipLineCol(std::string_view s, size_t i) {
  size_t start = i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i == start || i >= s.size() || s[i] != ':') return std::string_view::npos;
  size_t col = ++i;
  while (i < s.size() && IsDigit(s[i])) ++i;
  return i == col ? std::string_view::npos : i;
}

struct Row {
  bool error = false;
  std::string_view rule;  // empty when the problem has none (a parsing error)
  std::string_view file;  // for formats that name the file on each row
  // The position as printed ("12:13"; compact: "line 12, col 13"), the severity as printed
  // ("warning", "Error") and the message without its rule.
  std::string_view position, severity, message;
};

// Stylish: "  12:13  warning  message  rule-id"; next lint: "12:13  Warning: message  rule".
std::optional<Row> ParseStylishRow(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos || !IsDigit(line[i])) return std::nullopt;
  const bool indented = i > 0;
  const size_t position = i;
  i = SkipLineCol(line, i);
  if (i == std::string_view::npos || i + 2 >= line.size() || line[i] != ' ') return std::nullopt;
  const std::string_view position_text = line.substr(position, i - position);
  i = line.find_first_not_of(' ', i);
  if (i == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(i);
  Row row;
  size_t word = 0;
  if (indented && rest.starts_with("error ")) {
    row.error = true;
    word = 6;
  } else if (indented && rest.starts_with("warning ")) {
    word = 8;
  } else if (indented && rest.starts_with("✖ ")) {  // stylelint's string formatter
    row.error = true;
    word = std::string_view("✖ ").size();
  } else if (indented && rest.starts_with("⚠ ")) {
    word = std::string_view("⚠ ").size();
  } else if (rest.starts_with("Error: ")) {
    row.error = true;
    word = 7;
  } else if (rest.starts_with("Warning: ")) {
    word = 9;
  } else {
    return std::nullopt;
  }
  std::string_view message = rest.substr(word);
  while (!message.empty() && message.back() == ' ') message.remove_suffix(1);
  if (message.empty()) return std::nullopt;
  size_t sep = message.rfind("  ");
  row.position = position_text;
  row.severity = Strip(rest.substr(0, word - 1));
  row.message = Strip(message);
  if (sep != std::string_view::npos && IsRuleId(message.substr(sep + 2)) &&
      !Strip(message.substr(0, sep)).empty()) {
    row.rule = message.substr(sep + 2);
    row.message = Strip(message.substr(0, sep));
  }
  return row;
}

// Compact: "/src/a.js: line 12, col 13, Warning - message (rule)".
std::optional<Row> ParseCompactRow(std::string_view line) {
  size_t at = line.find(": line ");
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  size_t col = line.find(", col ", at);
  if (col == std::string_view::npos) return std::nullopt;
  size_t sev = line.find(", ", col + 6);
  if (sev == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(sev + 2);
  Row row;
  if (rest.starts_with("Error - ")) {
    row.error = true;
  } else if (!rest.starts_with("Warning - ")) {
    return std::nullopt;
  }
  row.file = line.substr(0, at);
  row.position = line.substr(at + 2, sev - at - 2);
  row.severity = rest.substr(0, row.error ? 5 : 7);               // "Error", "Warning"
  const size_t message_at = sev + 2 + (row.error ? 8 : 10);       // after "Error - "
  row.message = line.substr(message_at);
  if (line.ends_with(")")) {
    size_t open = line.rfind(" (");
    if (open != std::string_view::npos && open > message_at) {
      std::string_view rule = line.substr(open + 2, line.size() - open - 3);
      if (IsRuleId(rule)) {
        row.rule = rule;
        row.message = line.substr(message_at, open - message_at);
      }
    }
  }
  return row;
}

// Unix: "/src/a.js:12:13: message [Warning/rule]" or "… [Error]".
std::optional<Row> ParseUnixRow(std::string_view line) {
  if (!line.ends_with("]")) return std::nullopt;
  size_t open = line.rfind(" [");
  if (open == std::string_view::npos) return std::nullopt;
  std::string_view tag = line.substr(open + 2, line.size() - open - 3);
  Row row;
  if (tag.starts_with("Error")) {
    row.error = true;
    row.severity = tag.substr(0, 5);
    tag.remove_prefix(5);
  } else if (tag.starts_with("Warning")) {
    row.severity = tag.substr(0, 7);
    tag.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  if (!tag.empty() && (tag[0] != '/' || !IsRuleId(tag.substr(1)))) return std::nullopt;
  if (!tag.empty()) row.rule = tag.substr(1);
  // The location: "path:line:col: " before the message.
  for (size_t c = line.find(':'); c != std::string_view::npos && c < open;
       c = line.find(':', c + 1)) {
    size_t after = SkipLineCol(line, c + 1);
    if (after != std::string_view::npos && line.substr(after).starts_with(": ") && c > 0) {
      row.file = line.substr(0, c);
      row.position = line.substr(c + 1, after - c - 1);
      row.message = line.substr(after + 2, open - after - 2);
      return row;
    }
  }
  return std::nullopt;
}

// A row of any of the text formats.
std::optional<Row> ParseRow(std::string_view line) {
  std::optional<Row> row = ParseStylishRow(line);
  if (!row) row = ParseCompactRow(line);
  if (!row) row = ParseUnixRow(line);
  return row;
}

// "✖ 22 problems (12 errors, 10 warnings)" (stylish) or "22 problems" (compact, unix).
bool IsProblemsLine(std::string_view line) {
  std::string_view t = Strip(line);
  if (t.starts_with("✖ ")) return t.find(" problem") != std::string_view::npos;
  size_t i = 0;
  while (i < t.size() && IsDigit(t[i])) ++i;
  return i > 0 && (t.substr(i) == " problem" || t.substr(i) == " problems");
}

bool IsTotalsLine(std::string_view line) {
  return IsProblemsLine(line) ||
         line.find("potentially fixable with the `--fix` option") != std::string_view::npos ||
         line.starts_with("ESLint found too many warnings");
}

bool ToolIs(std::string_view command, std::initializer_list<std::string_view> names) {
  std::string tool = ToolName(command);
  for (std::string_view name : names) {
    if (tool == name) return true;
  }
  // Package runners: "pnpm exec eslint", "yarn eslint", "bun x eslint", "npm exec -- eslint",
  // "yarn run eslint", "node node_modules/eslint/bin/eslint.js".
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

bool IsNextLint(std::string_view command) {
  if (!ToolIs(command, {"next"})) return false;
  for (const std::string& arg : ToolArgs(command)) {
    if (arg == "lint") return true;
  }
  return false;
}

// Where --format json's output is: ESLint writes it on one line — "[{"filePath":…}]", "[]",
// or with json-with-metadata {"results":[…],"metadata":…}; reformatted (by jq, a wrapper) it
// spans the rest of the output from a line "[" or "{".
struct JsonSpan {
  size_t begin = std::string_view::npos;  // lines [begin, end)
  size_t end = 0;
  std::string_view text;
};

JsonSpan FindJson(const std::vector<std::string_view>& lines, std::string_view output) {
  for (size_t i = 0; i < lines.size() && i < kMaxPreambleLines; ++i) {
    std::string_view t = Strip(lines[i]);
    if (t.starts_with("[{\"filePath\":") || t == "[]" || t.starts_with("{\"results\":[")) {
      return JsonSpan{i, i + 1, t};
    }
    if ((t == "[" || t == "{") && i + 2 < lines.size()) {
      std::string_view next = Strip(lines[i + 1]), then = Strip(lines[i + 2]);
      bool results = t == "[" ? next == "{" && then.starts_with("\"filePath\"")
                              : next.starts_with("\"results\"");
      if (results) {
        size_t from = static_cast<size_t>(lines[i].data() - output.data());
        return JsonSpan{i, lines.size(), Strip(output.substr(from))};
      }
    }
  }
  return JsonSpan{};
}

size_t FindOops(const std::vector<std::string_view>& lines) {
  for (size_t i = 0; i < lines.size() && i < kMaxPreambleLines; ++i) {
    if (Strip(lines[i]).starts_with("Oops! Something went wrong!")) return i;
  }
  return std::string_view::npos;
}

// One past the closing quote of the JSON string that opens at `open`.
size_t JsonStringEnd(std::string_view text, size_t open) {
  size_t j = open + 1;
  while (j < text.size()) {
    size_t quote = text.find('"', j);
    if (quote == std::string_view::npos) return text.size();
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 && text[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    j = quote + 1;
  }
  return text.size();
}

// One past the JSON value that starts at `i` (a string, number, literal, object or array), or
// npos when the text ends first.
size_t JsonValueEnd(std::string_view text, size_t i) {
  if (i >= text.size()) return std::string_view::npos;
  if (text[i] == '"') return JsonStringEnd(text, i);
  if (text[i] == '{' || text[i] == '[') {
    int depth = 0;
    while (i < text.size()) {
      char c = text[i];
      if (c == '"') {
        i = JsonStringEnd(text, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return i + 1;
      ++i;
    }
    return std::string_view::npos;
  }
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' && text[i] != ' ' &&
         text[i] != '\n' && text[i] != '\r' && text[i] != '\t') {
    ++i;
  }
  return i;
}

// The JSON results with only the members this shaper reads: of each result (at depth
// `file_depth`) filePath, messages and the counts, of each message (at `message_depth`) its
// ruleId, severity, message, line, column and fatal. The rest (the file's source, fixes,
// suggestions, suppressed messages…) is most of the bytes and would only be parsed to be
// ignored. Text that does not scan as expected comes back whole.
std::string WithReadMembers(std::string_view text, size_t file_depth, size_t message_depth) {
  static constexpr std::string_view kFileKeys[] = {"filePath", "messages", "errorCount",
                                                   "warningCount", "fatalErrorCount"};
  static constexpr std::string_view kMessageKeys[] = {"ruleId", "severity", "message",
                                                      "line",   "column",   "fatal"};
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  auto skip_space = [&](size_t k) {
    while (k < text.size() && is_space(text[k])) ++k;
    return k;
  };
  std::string out;
  out.reserve(text.size());
  std::vector<char> stack;                                  // the open containers: '{' or '['
  size_t copied = 0, i = 0, last = std::string_view::npos;  // last structural character
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      const size_t end = JsonStringEnd(text, i);
      const size_t depth = stack.size();
      const bool key = !stack.empty() && stack.back() == '{' && last != std::string_view::npos &&
                       (text[last] == '{' || text[last] == ',');
      if (key && (depth == file_depth || depth == message_depth)) {
        const std::string_view name = text.substr(i + 1, end - i - 2);
        bool keep = false;
        if (depth == file_depth) {
          for (std::string_view k : kFileKeys) keep = keep || name == k;
        } else {
          for (std::string_view k : kMessageKeys) keep = keep || name == k;
        }
        if (!keep) {
          const size_t colon = skip_space(end);
          if (colon >= text.size() || text[colon] != ':') return std::string(text);
          const size_t value_end = JsonValueEnd(text, skip_space(colon + 1));
          if (value_end == std::string_view::npos) return std::string(text);
          size_t cut_from = i, cut_to = value_end;
          if (text[last] == ',') {
            cut_from = last;  // ',"key":value' goes with its comma
          } else if (size_t next = skip_space(value_end); next < text.size() && text[next] == ',') {
            cut_to = next + 1;  // a first member: '"key":value,' goes with the comma after it
          }
          out.append(text.substr(copied, cut_from - copied));
          copied = i = cut_to;
          continue;
        }
      }
      last = end - 1;
      i = end;
      continue;
    }
    if (c == '{' || c == '[') {
      stack.push_back(c);
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    }
    if (!is_space(c)) last = i;
    ++i;
  }
  out.append(text.substr(copied));
  return out;
}

constexpr uint32_t kNoLine = UINT32_MAX;

// One problem, wherever it came from (compact: an output can hold hundreds of thousands).
struct Problem {
  uint32_t line = 0;             // text: the row's line; json: the message's index
  uint32_t file_line = kNoLine;  // stylish: its file's path line; json: the file's index
  std::string_view rule;         // empty when the problem has none
  bool error = false;
};

// Many problems, grouped by severity, rule and message (diagnostic_groups.h), file by file (a
// run of problems whose rows name the same file): a problem whose group is new is written in
// full by `lead(k, first_of_its_file)`; the others become one list of positions for the file,
// each with its rule and the names that differ from its group's first: "… 7 more in /w/a.js
// at: 11:15 eqeqeq; 15:10 no-undef 'x'". No problem is left out. `begin_file(k)` and
// `end_file(k)` get a file's first and last problem; the list of the file whose first problem
// is `k` stands for `list_lines(k, listed, any_lead)` lines of the output.
template <typename BeginFile, typename Lead, typename EndFile, typename ListLines>
void WriteGrouped(const std::vector<Problem>& problems, const std::vector<Row>& rows,
                  SummaryWriter& out, BeginFile begin_file, Lead lead, EndFile end_file,
                  ListLines list_lines) {
  DiagnosticGroups groups;
  for (const Row& row : rows) groups.Add(row.severity, row.rule, row.message, row.position);
  // Every rule named, counted, before the groups a budget may leave out.
  std::vector<std::string_view> rules;
  rules.reserve(rows.size());
  for (const Row& row : rows) rules.push_back(row.rule);
  WriteCodeTally(rules, out);
  for (size_t begin = 0; begin < problems.size();) {
    size_t end = begin;
    while (end < problems.size() && rows[end].file == rows[begin].file) ++end;
    const std::string_view path = rows[begin].file;
    begin_file(begin);
    bool any_lead = false;
    std::vector<size_t> listed;
    for (size_t k = begin; k < end; ++k) {
      if (!groups.Leads(k)) {
        listed.push_back(k);
        continue;
      }
      lead(k, !any_lead);
      any_lead = true;
    }
    WriteLocationList(StrCat(core::FormatCount(listed.size()), " more in ", path, core::kListAt),
                      StrCat(path, core::kListAlsoAt), listed.size(),
                      list_lines(begin, listed.size(), any_lead), out,
                      [&](size_t j, std::string* text) {
                        const size_t k = listed[j];
                        StrAppend(text, rows[k].position, rows[k].rule.empty() ? "" : " ",
                                  rows[k].rule, groups.Names(k));
                      });
    end_file(end - 1);
    begin = end;
  }
}

// Lines that are neither rows nor paths nor totals (npm's banner, deprecation notices…): kept
// when they look like errors, written where they stand, up to kMaxOtherErrorLines.
class OtherLines {
 public:
  OtherLines(const std::vector<std::string_view>& lines, const std::vector<bool>& is_row,
             const std::vector<bool>& is_file, SummaryWriter& out)
      : lines_(lines), is_row_(is_row), is_file_(is_file), out_(out) {}
  // Writes those before line `end` not written yet.
  void Until(size_t end) {
    for (; next_ < end; ++next_) {
      if (!is_row_[next_] && !is_file_[next_] && kept_ < kMaxOtherErrorLines &&
          LooksLikeToolErrorLine(lines_[next_])) {
        out_.Line(lines_[next_]);
        ++kept_;
      }
    }
  }
  // Lines before `end` are the caller's (written or counted).
  void Skip(size_t end) { next_ = std::max(next_, end); }

 private:
  const std::vector<std::string_view>& lines_;
  const std::vector<bool>& is_row_;
  const std::vector<bool>& is_file_;
  SummaryWriter& out_;
  size_t next_ = 0, kept_ = 0;
};

// Who printed ESLint's rows. ESLint says so by its command (or a package script's runner) or by
// its own "✖ N problems" line; another tool printing rows of the same shape (yamllint's
// default format, stylelint's) is named by its command.
std::string RowsProducer(std::string_view command, std::string_view output) {
  static constexpr std::string_view kRunners[] = {"", "eslint", "eslint_d", "next", "npm", "npx",
                                                  "pnpm", "yarn", "bun", "node", "make"};
  // Tools that print ESLint's stylish rows and totals themselves.
  static constexpr std::string_view kOthers[] = {"stylelint", "yamllint"};
  const std::string tool = ToolName(command);
  if (std::find(std::begin(kOthers), std::end(kOthers), tool) != std::end(kOthers)) return tool;
  if (std::find(std::begin(kRunners), std::end(kRunners), tool) != std::end(kRunners) ||
      output.find("\n✖ ") != std::string_view::npos || output.starts_with("✖ ") ||
      output.find("ESLint") != std::string_view::npos) {
    return "eslint";
  }
  return tool;
}

class EslintShaper final : public core::Shaper {
 public:
  EslintShaper() {
    meta_.id = "builtin-eslint";
    meta_.name = "eslint";
    meta_.version = "1.0.0";
    meta_.description =
        "ESLint (stylish, compact, unix, json): every error with file, line:col, message and "
        "rule; warnings counted by rule when many";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "lint";
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int>) override {
    if (ToolIs(command, {"eslint", "eslint_d"})) {
      return core::MatchResult{true, 0.95, {"command: eslint"}};
    }
    if (IsNextLint(command)) return core::MatchResult{true, 0.9, {"command: next lint"}};
    std::vector<std::string_view> lines = core::SplitLines(snippet);
    bool oops = false, version = false, totals = false, rows = false, plain_totals = false,
         compact_rows = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string_view line = lines[i];
      oops = oops || Strip(line).starts_with("Oops! Something went wrong!");
      version = version || line.starts_with("ESLint: ");
      if (IsProblemsLine(line)) {
        (Strip(line).starts_with("✖ ") ? totals : plain_totals) = true;
      }
      compact_rows = compact_rows || ParseCompactRow(line) || ParseUnixRow(line);
      if (i + 1 < lines.size() && !line.empty() && line[0] != ' ' && !ParseStylishRow(line) &&
          ParseStylishRow(lines[i + 1]) && lines[i + 1].starts_with("  ")) {
        rows = true;
      }
    }
    // stylelint's default (string) formatter prints ESLint's stylish rows, with ✖ and ⚠ for
    // the severity; its unix and compact formats are the lint shaper's.
    if (rows && ToolIs(command, {"stylelint"})) {
      return core::MatchResult{true, 0.97, {"command: stylelint, stylish rows"}};
    }
    if (JsonSpan json = FindJson(lines, snippet);
        (json.begin != std::string_view::npos && json.text != "[]") ||
        (snippet.find("\"filePath\":") != std::string_view::npos &&
         snippet.find("\"messages\":") != std::string_view::npos)) {
      return core::MatchResult{true, 0.85, {"output: eslint json"}};
    }
    if (oops && version) return core::MatchResult{true, 0.85, {"output: eslint failure"}};
    if (totals) return core::MatchResult{true, 0.85, {"output: eslint problems summary"}};
    if (compact_rows && plain_totals) {
      return core::MatchResult{true, 0.8, {"output: eslint compact or unix format"}};
    }
    if (rows) return core::MatchResult{true, 0.7, {"output: eslint stylish rows"}};
    return core::MatchResult{false, 0, {}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    if (context.raw_path.empty()) return core::ShapeOutput{"", RenderMode::kRaw};
    std::vector<std::string_view> lines = core::SplitLines(output);
    SummaryWriter out(&lines);
    const std::string note = ExitNote(context.exit_code);
    const std::string exit_suffix = note.empty() ? "" : StrCat(" (", note, ")");

    if (size_t oops = FindOops(lines); oops != std::string_view::npos) {
      return Crash(lines, exit_suffix, out);
    }
    if (JsonSpan json = FindJson(lines, output); json.begin != std::string_view::npos) {
      // [{result}] or, with json-with-metadata, {"results": [{result}], "metadata": …}.
      const size_t base = json.text.starts_with("{") ? 1 : 0;
      absl::StatusOr<core::Value> parsed =
          core::ParseJson(WithReadMembers(json.text, 2 + base, 4 + base), "eslint output");
      if (parsed.ok()) return Json(lines, json, *parsed, context, exit_suffix, out);
      // Results cut short ("eslint -f json | head") or malformed: what they hold is not read,
      // and nothing is said of it — least of all that there are no problems.
      out.Header(StrCat(RowsProducer(context.command, output),
                        ": ESLint's JSON results, cut short or malformed, not read: shown by "
                        "their ends",
                        exit_suffix));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }
    return Text(lines, context, RowsProducer(context.command, output), exit_suffix, out);
  }

 private:
  // Stylish, compact, unix (and next lint).
  static core::ShapeOutput Text(const std::vector<std::string_view>& lines,
                                const core::ShapeContext& context, const std::string& producer,
                                const std::string& exit_suffix, SummaryWriter& out) {
    const size_t n = lines.size();
    std::vector<Problem> problems;
    std::vector<Row> rows;  // problems[k]'s row, its file named
    std::vector<std::string_view> totals;
    std::vector<bool> is_file(n, false), is_row(n, false);
    std::unordered_set<std::string_view> files;
    std::string_view last_file;
    size_t file_line = std::string_view::npos;
    problems.reserve(n);
    std::optional<uint64_t> stated_problems, stated_errors, stated_warnings;
    for (size_t i = 0; i < n; ++i) {
      std::string_view line = lines[i];
      if (line.empty()) continue;
      std::optional<Row> row = ParseRow(line);
      if (row) {
        is_row[i] = true;
        Problem p;
        p.line = static_cast<uint32_t>(i);
        p.error = row->error;
        p.rule = row->rule;
        p.file_line = row->file.empty() && file_line != std::string_view::npos
                          ? static_cast<uint32_t>(file_line)
                          : kNoLine;
        std::string_view file =
            row->file.empty() && file_line != std::string_view::npos ? lines[file_line] : row->file;
        if (file != last_file) files.insert(file);
        last_file = file;
        problems.push_back(p);
        row->file = file;
        rows.push_back(*row);
        continue;
      }
      if (IsTotalsLine(line)) {
        if (IsProblemsLine(line)) {
          stated_problems = CountBefore(line, "problem");
          stated_errors = CountBefore(line, "error");
          stated_warnings = CountBefore(line, "warning");
        }
        totals.push_back(line);
        is_row[i] = true;  // written with the totals
        continue;
      }
      // A path line: the line before a stylish row.
      if (i + 1 < n && line[0] != ' ' && ParseStylishRow(lines[i + 1])) {
        is_file[i] = true;
        file_line = i;
      }
    }

    const bool exit_ok = !context.exit_code || *context.exit_code == 0;
    if (problems.empty()) {
      if (stated_problems.value_or(0) == 0 && exit_ok) {
        // A clean run prints nothing; whatever else was printed (--version, --print-config…)
        // is shown.
        out.Header(StrCat(producer, ": no problems"));
        std::vector<std::string_view> other;
        for (std::string_view line : lines) {
          if (!IsBlank(line)) other.push_back(line);
        }
        if (other.size() <= kMaxSuccessLines) {
          out.Lines(other);
        } else {
          for (size_t k = 0; k < 10; ++k) out.Line(other[k]);
          out.ElidedLines(other.size() - 20, "lines omitted");
          for (size_t k = other.size() - 10; k < other.size(); ++k) out.Line(other[k]);
        }
        out.Omitted(out.UnaccountedLines(), "blank line", "blank lines");
        return core::ShapeOutput{out.Take(), RenderMode::kSummary};
      }
      // Not ESLint's results: say nothing about problems; show where it says why.
      out.Header(StrCat(producer, ": no lint results in the output", exit_suffix));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }

    uint64_t errors = 0, warnings = 0;
    for (const Problem& p : problems) (p.error ? errors : warnings) += 1;
    // (`--max-warnings N` fails a run with warnings alone, and says so.)
    const bool failed =
        stated_errors.value_or(errors) > 0 ||
        std::any_of(lines.begin(), lines.end(), [](std::string_view line) {
          return line.starts_with("ESLint found too many warnings");
        });
    // "FAILED — " as the other shapers say it, of a run whose status says so too.
    out.Header(StrCat(producer, ": ", failed && !exit_suffix.empty() ? "FAILED — " : "",
                      Plural(stated_problems.value_or(problems.size()), "problem", "problems"),
                      " (", Plural(stated_errors.value_or(errors), "error", "errors"), ", ",
                      Plural(stated_warnings.value_or(warnings), "warning", "warnings"), ") in ",
                      Plural(files.size(), "file", "files"), exit_suffix));
    if (problems.size() > kAllInFull) {
      core::ShapeOutput grouped = Grouped(lines, problems, rows, is_row, is_file, totals, out);
      grouped.failed = failed;
      return grouped;
    }
    OtherLines other(lines, is_row, is_file, out);
    uint32_t written_file = kNoLine;
    for (const Problem& p : problems) {
      other.Until(p.file_line != kNoLine ? p.file_line : p.line);
      if (p.file_line != kNoLine && p.file_line != written_file) {
        out.Line(lines[p.file_line]);
        written_file = p.file_line;
      }
      out.Line(lines[p.line]);
      other.Skip(p.line + 1);
    }
    other.Until(n);
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min<uint64_t>(rest, totals.size());
    out.Omitted(rest, "other line", "other lines");
    out.Lines(totals);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, failed};
  }

  // Many rows (any text format), grouped (WriteGrouped): a stylish file's path line is written
  // before its first row shown, and is counted in its list when no row of it is.
  static core::ShapeOutput Grouped(const std::vector<std::string_view>& lines,
                                   const std::vector<Problem>& problems,
                                   const std::vector<Row>& rows, const std::vector<bool>& is_row,
                                   const std::vector<bool>& is_file,
                                   const std::vector<std::string_view>& totals,
                                   SummaryWriter& out) {
    OtherLines other(lines, is_row, is_file, out);
    auto path_line = [&](size_t k) { return problems[k].file_line; };
    WriteGrouped(
        problems, rows, out,
        [&](size_t k) { other.Until(path_line(k) != kNoLine ? path_line(k) : problems[k].line); },
        [&](size_t k, bool first) {
          if (first && path_line(k) != kNoLine) out.Line(lines[path_line(k)]);
          out.Line(lines[problems[k].line]);
        },
        [&](size_t k) { other.Skip(problems[k].line + 1); },
        [&](size_t k, size_t listed, bool any_lead) {
          return listed + (any_lead || path_line(k) == kNoLine ? 0 : 1);
        });
    other.Until(lines.size());
    uint64_t rest = out.UnaccountedLines();
    rest -= std::min<uint64_t>(rest, totals.size());
    out.Omitted(rest, "other line", "other lines");
    out.Lines(totals);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  // --format json. The one exception to "lines of the output, verbatim": the output is one
  // machine-readable line, so each problem is rendered as a compact line built only from its
  // fields — "<filePath>:<line>:<column> <error|warning> <message> <ruleId>" (a message's own
  // line breaks become spaces).
  static core::ShapeOutput Json(const std::vector<std::string_view>& lines, const JsonSpan& json,
                                const core::Value& root, const core::ShapeContext& context,
                                const std::string& exit_suffix, SummaryWriter& out) {
    const core::Value* results = &root;
    if (root.is_object()) results = root.Find("results");
    if (results == nullptr || !results->is_array()) {
      out.Header(StrCat("eslint: no lint results in the output", exit_suffix));
      WriteHeadTail(lines, 20, 20, LooksLikeErrorLine, 100, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }
    std::vector<Problem> problems;
    std::vector<const core::Value*> messages_of;  // Problem::line indexes these
    std::vector<std::string_view> files_of;       // and Problem::file_line these
    uint64_t errors = 0, warnings = 0, files_with_problems = 0;
    for (const core::Value& result : results->as_array()) {
      if (!result.is_object()) continue;
      const core::Value* path = result.Find("filePath");
      const core::Value* messages = result.Find("messages");
      std::string_view file;
      if (path != nullptr && path->is_string()) file = path->as_string();
      if (const core::Value* v = result.Find("errorCount"); v && v->as_integer()) {
        errors += static_cast<uint64_t>(*v->as_integer());
      }
      if (const core::Value* v = result.Find("warningCount"); v && v->as_integer()) {
        warnings += static_cast<uint64_t>(*v->as_integer());
      }
      if (messages == nullptr || !messages->is_array() || messages->as_array().empty()) continue;
      ++files_with_problems;
      files_of.push_back(file);
      for (const core::Value& message : messages->as_array()) {
        if (!message.is_object()) continue;
        Problem p;
        p.line = static_cast<uint32_t>(messages_of.size());
        p.file_line = static_cast<uint32_t>(files_of.size() - 1);
        messages_of.push_back(&message);
        const core::Value* severity = message.Find("severity");
        p.error = severity != nullptr && severity->as_integer() && *severity->as_integer() >= 2;
        const core::Value* rule = message.Find("ruleId");
        if (rule != nullptr && rule->is_string()) p.rule = rule->as_string();
        problems.push_back(p);
      }
    }
    const uint64_t files = results->as_array().size();
    if (problems.empty()) {
      out.Header(StrCat("eslint: no problems in ", Plural(files, "file", "files"), exit_suffix));
      OtherJsonLines(lines, json, out);
      return core::ShapeOutput{out.Take(), RenderMode::kSummary};
    }
    out.Header(StrCat("eslint: ", errors > 0 && !exit_suffix.empty() ? "FAILED — " : "",
                      Plural(errors + warnings, "problem", "problems"), " (",
                      Plural(errors, "error", "errors"), ", ",
                      Plural(warnings, "warning", "warnings"), ") in ",
                      Plural(files_with_problems, "file", "files"), " of ",
                      core::FormatCount(files), " linted", exit_suffix));
    if (problems.size() > kAllInFull) {
      // Grouped as the text formats are, from the fields: positions "line:column".
      std::vector<std::string> positions(problems.size());
      std::vector<Row> rows(problems.size());
      for (size_t k = 0; k < problems.size(); ++k) {
        const core::Value& m = *messages_of[problems[k].line];
        positions[k] = JsonPosition(m);
        rows[k].file = files_of[problems[k].file_line];
        rows[k].rule = problems[k].rule;
        rows[k].position = positions[k];
        rows[k].severity = problems[k].error ? "error" : "warning";
        if (const core::Value* message = m.Find("message"); message && message->is_string()) {
          rows[k].message = message->as_string();
        }
      }
      WriteGrouped(
          problems, rows, out, [](size_t) {},
          [&](size_t k, bool) {
            const Problem& p = problems[k];
            out.Header(RenderJsonProblem(p, *messages_of[p.line], files_of[p.file_line]));
          },
          [](size_t) {}, [](size_t, size_t, bool) { return 0; });
    } else {
      for (const Problem& p : problems) {
        // A rendered line, not a line of the output.
        out.Header(RenderJsonProblem(p, *messages_of[p.line], files_of[p.file_line]));
      }
    }
    OtherJsonLines(lines, json, out);
    return core::ShapeOutput{out.Take(), RenderMode::kSummary, errors > 0};
  }

  // A message's "line:column" ("line" alone, or nothing, when it lacks them).
  static std::string JsonPosition(const core::Value& m) {
    std::string text;
    const core::Value* line = m.Find("line");
    const core::Value* column = m.Find("column");
    if (line != nullptr && line->as_integer()) {
      StrAppend(&text, *line->as_integer());
      if (column != nullptr && column->as_integer()) StrAppend(&text, ":", *column->as_integer());
    }
    return text;
  }

  static std::string RenderJsonProblem(const Problem& p, const core::Value& m,
                                       std::string_view file) {
    std::string text(file);
    if (std::string position = JsonPosition(m); !position.empty()) StrAppend(&text, ":", position);
    StrAppend(&text, " ", p.error ? "error" : "warning");
    if (const core::Value* message = m.Find("message"); message && message->is_string()) {
      std::string body = message->as_string();
      std::replace(body.begin(), body.end(), '\n', ' ');
      if (body.size() > kLineHeadBytes) {  // a message the size of a file: its head, counted
        StrAppend(&text, " ", std::string_view(body).substr(0, kLineHeadBytes), " … ",
                  core::FormatCount(body.size() - kLineHeadBytes),
                  " bytes of this message omitted");
      } else {
        StrAppend(&text, " ", body);
      }
    }
    if (!p.rule.empty()) StrAppend(&text, " ", p.rule);
    return text;
  }

  // Lines around the JSON (npm's banner, warnings on stderr): error-looking ones are kept.
  static void OtherJsonLines(const std::vector<std::string_view>& lines, const JsonSpan& json,
                             SummaryWriter& out) {
    size_t kept = 0;
    uint64_t dropped = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i >= json.begin && i < json.end) continue;
      if (kept < kMaxOtherErrorLines && LooksLikeToolErrorLine(lines[i])) {
        out.Line(lines[i]);
        ++kept;
      } else {
        ++dropped;
      }
    }
    out.Omitted(dropped, "other line", "other lines");
  }

  // "Oops! Something went wrong! :(": ESLint could not lint. Everything it says is kept but
  // blank lines and deep stack frames.
  static core::ShapeOutput Crash(const std::vector<std::string_view>& lines,
                                 const std::string& exit_suffix, SummaryWriter& out) {
    out.Header(StrCat("eslint: failed to run", exit_suffix));
    size_t kept = 0, frames = 0;
    uint64_t frames_omitted = 0, lines_omitted = 0;
    for (std::string_view line : lines) {
      if (IsBlank(line)) continue;
      if (Strip(line).starts_with("at ")) {
        if (frames++ < kMaxStackFrames) {
          out.Line(line);
        } else {
          ++frames_omitted;
        }
      } else if (kept++ < kMaxCrashLines) {
        out.Line(line);
      } else {
        ++lines_omitted;
      }
    }
    out.ElidedLines(frames_omitted,
                    frames_omitted == 1 ? "more stack frame omitted" : "more stack frames omitted");
    out.ElidedLines(lines_omitted, lines_omitted == 1 ? "more line omitted" : "more lines omitted");
    out.Omitted(out.UnaccountedLines(), "blank line", "blank lines");
    return core::ShapeOutput{out.Take(), RenderMode::kSummary};
  }

  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeEslintShaper() { return std::make_shared<EslintShaper>(); }

}  // namespace plugline::builtin

// Every fixture in tests/fixtures/ (real outputs of real tools, see its README) through the
// whole pipeline, checking what a faithful summary must do:
//  - the family's shaper wins;
//  - every must_keep string of the fixture survives;
//  - every summary line is a line of the output, the header, a counted "… " marker, or the
//    "full output:" line (elide, never fabricate);
//  - large outputs shrink a lot, and nothing is ever larger than the raw output;
//  - test counts in the header agree with the fixture's facts.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "core/command_echo.h"
#include "core/config.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/summary_budget.h"
#include "core/task_output.h"
#include "core/text.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

namespace fs = std::filesystem;
using plugline::testing::PrefixLines;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;

struct Fixture {
  std::string name;
  std::string output;
  core::Value meta;
};

std::vector<Fixture> LoadFamily(const std::string& family) {
  std::vector<Fixture> fixtures;
  fs::path dir = fs::path(plugline::testing::SourceDir()) / "fixtures" / family;
  if (!fs::exists(dir)) return fixtures;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    Fixture f;
    f.name = family + "/" + entry.path().stem().string();
    auto meta = core::ParseJson(ReadFileOrEmpty(entry.path().string()), f.name + ".json");
    REQUIRE_MESSAGE(meta.ok(), meta.status().ToString());
    f.meta = *std::move(meta);
    fs::path out = entry.path();
    out.replace_extension(".out");
    REQUIRE_MESSAGE(fs::exists(out), f.name << ".out is missing");
    f.output = ReadFileOrEmpty(out.string());
    fixtures.push_back(std::move(f));
  }
  std::sort(fixtures.begin(), fixtures.end(),
            [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  return fixtures;
}

// The fixture named `name` ("test/pytest_failing") of its family's.
Fixture FindFixture(const std::string& name) {
  const std::vector<Fixture> fixtures = LoadFamily(name.substr(0, name.find('/')));
  auto it = std::find_if(fixtures.begin(), fixtures.end(),
                         [&](const Fixture& f) { return f.name == name; });
  REQUIRE_MESSAGE(it != fixtures.end(), name << " is missing");
  return *it;
}

std::string Str(const core::Value& meta, std::string_view key) {
  const core::Value* v = meta.Find(key);
  return v != nullptr && v->is_string() ? v->as_string() : "";
}

std::optional<int64_t> Fact(const core::Value& meta, std::string_view key) {
  const core::Value* facts = meta.Find("facts");
  if (facts == nullptr) return std::nullopt;
  const core::Value* v = facts->Find(key);
  return v != nullptr ? v->as_integer() : std::nullopt;
}

// Every must_keep string of `meta` is in `summary`, but those `skip` says to leave out.
void CheckKept(const core::Value& meta, std::string_view summary) {
  const core::Value* keep = meta.Find("must_keep");
  if (keep == nullptr || !keep->is_array()) return;
  for (const core::Value& item : keep->as_array()) {
    if (!item.is_string()) continue;
    CHECK_MESSAGE(summary.find(item.as_string()) != std::string_view::npos,
                  "lost: " << item.as_string());
  }
}

void CheckFamily(const std::string& family) {
  std::vector<Fixture> fixtures = LoadFamily(family);
  if (fixtures.empty()) {
    MESSAGE("no fixtures for " << family);
    return;
  }
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  for (const Fixture& f : fixtures) {
    INFO("fixture ", f.name);
    std::string command = Str(f.meta, "command");
    std::optional<int> exit_code;
    if (const core::Value* code = f.meta.Find("exit_code"); code && code->as_integer()) {
      exit_code = static_cast<int>(*code->as_integer());
    }
    // What the shapers keep, with no budget; the default budget is checked after.
    auto result = (*host)->Shape(ShapeRequest{command, f.output, exit_code, "", 0});
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    uint64_t budgeted_tokens = 0;
    {
      // Under the default budget (8,000 tokens) no summary is larger, the outcome stays the
      // first line, and a cut says so on the line before the raw file's path.
      auto budgeted = (*host)->Shape(ShapeRequest{command, f.output, exit_code, ""});
      REQUIRE(budgeted.ok());
      budgeted_tokens = budgeted->tokens_summary;
      CHECK(budgeted->max_tokens == core::kDefaultSummaryTokens);
      CHECK(budgeted->token_counter == "o200k_base");
      CHECK(budgeted->tokens_summary <= core::kDefaultSummaryTokens);
      CHECK(budgeted->summary.substr(0, budgeted->summary.find('\n')) ==
            result->summary.substr(0, result->summary.find('\n')));
      if (budgeted->budget_lines_left_out > 0) {
        INFO("budgeted summary:\n", budgeted->summary);
        CHECK(budgeted->tokens_summary < result->tokens_summary);
        CHECK(testing::Contains(budgeted->summary, "-token budget: "));
        CHECK(testing::Contains(budgeted->summary, "\nfull output: "));
      } else if (result->tokens_summary <= core::kDefaultSummaryTokens / 2) {
        // The same summary (each shaping stored its own raw file: the path differs). A larger
        // one may differ: a shaper may plan with the budget (a long git log's later commits,
        // one line each) and need no cut.
        auto without_path = [](const std::string& summary, const std::string& path) {
          return path.empty() ? summary : summary.substr(0, summary.rfind(path));
        };
        CHECK(without_path(budgeted->summary, budgeted->raw_path) ==
              without_path(result->summary, result->raw_path));
      } else {
        CHECK(budgeted->tokens_summary <= result->tokens_summary);
      }
    }
    INFO("summary:\n", result->summary);
    CHECK(core::IsValidUtf8(result->summary));
    if (result->render_mode == RenderMode::kRaw &&
        ((exit_code && *exit_code != 0) || Str(f.meta, "kind") == "failing")) {
      // A failing run shown raw: one line over raw, which states the outcome ("pytest: FAILED
      // (exit 1)", or its shaper's "pytest: FAILED — 7 failed, 37 passed (exit 1)"; gdb's "gdb:
      // FAILED — Program received signal SIGSEGV, Segmentation fault (exit 0)").
      const std::string first = result->summary.substr(0, result->summary.find('\n'));
      const std::string code = StrCat("exit ", *exit_code);
      CHECK_MESSAGE(((first.find(": FAILED ") != std::string::npos &&
                      first.find(code) != std::string::npos) ||
                     first.find(": " + code) != std::string::npos),
                    "first line: " << first);
      CHECK(result->summary.substr(first.size() + 1) == f.output);
    } else {
      CHECK(result->tokens_summary <= result->tokens_raw);
    }
    const size_t raw_lines = core::CountLines(f.output);

    // The family's shaper wins (tiny outputs may be shown raw by it; that is fine); a script's
    // output is shaped in parts, by the shapers its fixture names.
    std::string expected = "builtin-" + Str(f.meta, "family");
    if (!Str(f.meta, "shaper").empty()) expected = Str(f.meta, "shaper");
    CHECK_MESSAGE(result->shaper == expected, "chosen: " << result->shaper);

    // Every must-keep identifier survives.
    CheckKept(f.meta, result->summary);

    // The leniencies of a family's lines below; a script's output has every family's.
    auto rules = [&](std::string_view of) { return family == of || family == "scripts"; };
    if (result->render_mode == RenderMode::kSummary) {
      // Elide, never fabricate.
      std::string normalized;
      std::string_view text = core::NormalizeTerminalOutput(f.output, &normalized)
                                  ? std::string_view(normalized)
                                  : std::string_view(f.output);
      std::unordered_set<std::string_view> source;
      for (std::string_view line : core::SplitLines(text)) source.insert(line);
      bool json_output = !text.empty() && (text[0] == '[' || text[0] == '{');
      // A workspace runner's tasks: the lines naming them (core/task_output.h).
      std::unordered_set<std::string_view> task_headers;
      core::TaskOutput tasks;
      if (core::SplitTaskOutput(Str(f.meta, "command"), text, &tasks)) {
        for (const core::TaskPart& task : tasks.tasks) task_headers.insert(task.header);
      }
      auto lines = core::SplitLines(result->summary);
      for (size_t i = 1; i < lines.size() && !json_output; ++i) {
        std::string_view line = lines[i];
        bool ok = source.count(line) != 0 || line.starts_with("… ") ||
                  (i + 1 == lines.size() && line.starts_with("full output: "));
        if (!ok && line.ends_with(" more under it")) {
          // A tree drawing's entry, then how many of the entries under it are not shown.
          const size_t more = line.rfind(" … ");
          ok = more != std::string_view::npos && source.count(line.substr(0, more)) != 0;
        }
        if (!ok && rules("git-diff")) {
          // A later commit of a long log as one line: its hash abbreviated, then what follows
          // the hash on its commit line and its subject, as printed.
          const size_t hash = line.find_first_not_of("0123456789abcdef");
          if (hash >= 7 && hash != std::string_view::npos && line[hash] == ' ') {
            const std::string commit = "\ncommit " + std::string(line.substr(0, hash));
            ok = text.find(commit) != std::string_view::npos &&
                 text.find(line.substr(hash + 1)) != std::string_view::npos;
          }
        }
        if (!ok && rules("build") && line.find(" [with …]") != std::string_view::npos) {
          // A line in a system header without the template arguments g++ spelled out: the
          // pieces around each "[with …]", in order, on one line of the output.
          const std::vector<absl::string_view> pieces =
              absl::StrSplit(ToAbsl(line), absl::ByString(" [with …]"));
          ok = std::any_of(source.begin(), source.end(), [&](std::string_view s) {
            size_t at = 0;
            for (absl::string_view piece : pieces) {
              at = s.find(std::string_view(piece.data(), piece.size()), at);
              if (at == std::string_view::npos) return false;
              at += piece.size();
            }
            return s.starts_with(std::string_view(pieces.front().data(), pieces.front().size()));
          });
        }
        if (!ok && rules("test")) {
          // A case of an assertion shown before, on one line: the line naming the test (its
          // list line up to " - ", or its heading without pytest's "_" frame), then, each after
          // " - ", the case's error lines, trimmed, as printed: pieces of the output all.
          std::function<bool(std::string_view)> pieces = [&](std::string_view rest) {
            if (text.find(rest) != std::string_view::npos) return true;
            for (size_t dash = rest.find(" - "); dash != std::string_view::npos;
                 dash = rest.find(" - ", dash + 1)) {
              if (text.find(rest.substr(0, dash)) != std::string_view::npos &&
                  pieces(rest.substr(dash + 3))) {
                return true;
              }
            }
            return false;
          };
          ok = pieces(line);
          // pytest --tb=line: a list line with its traceback line's message and location,
          // "FAILED tests/x.py::test_a - assert 0 == 5 (at /app/tests/x.py:35)".
          const size_t at = line.rfind(" (at ");
          if (!ok && at != std::string_view::npos && line.ends_with(")")) {
            const std::string_view location = line.substr(at + 5, line.size() - at - 6);
            ok = text.find(StrCat(location, ": ")) != std::string_view::npos &&
                 pieces(line.substr(0, at));
          }
        }
        if (!ok && rules("generic")) {
          // A long listing's entry without the columns the header names: the end of its line.
          const std::string tail = " " + std::string(line);
          ok = std::any_of(source.begin(), source.end(), [&](std::string_view s) { return s.ends_with(tail); });
        }
        if (!ok && rules("logs") && line.starts_with("  ") && line.size() > 2) {
          // A log entry's continuation line without the timestamp and source it repeats.
          const std::string rest = " " + std::string(line.substr(2));
          ok = std::any_of(source.begin(), source.end(),
                           [&](std::string_view s) { return s.size() > rest.size() && s.ends_with(rest); });
        }
        if (!ok && family == "scripts" && source.count(lines[i - 1]) != 0) {
          // A part's header: the line under the echo of the command it shaped, or under the
          // line that names a runner's task.
          int taken = 0;
          ok = !core::EchoedCommand(lines[i - 1], "", &taken).empty() ||
               (i >= 2 && !core::EchoedCommand(lines[i - 2], lines[i - 1], &taken).empty()) ||
               task_headers.contains(lines[i - 1]);
        }
        CHECK_MESSAGE(ok, "line " << i << " is not from the output: [" << std::string(line) << "]");
        // A list of locations names only locations the output has, and names that are in it.
        const size_t at = line.find(core::kListAt);
        if (!line.starts_with("… ") || at == std::string_view::npos) continue;
        for (absl::string_view entry : absl::StrSplit(ToAbsl(line.substr(at + core::kListAt.size())),
                                                     ToAbsl(core::kListSeparator))) {
          // Labelled details' values, in parentheses at the end: "(variable total, class Order)".
          if (const size_t open = entry.find(" ("); open != absl::string_view::npos &&
                                                     absl::EndsWith(entry, ")")) {
            for (absl::string_view value :
                 absl::StrSplit(entry.substr(open + 2, entry.size() - open - 3), ", ")) {
              CHECK_MESSAGE(text.find(ToStd(value)) != std::string_view::npos,
                            "detail listed but not in the output: [" << std::string(ToStd(value))
                                                                     << "]");
            }
            entry = entry.substr(0, open);
          }
          for (absl::string_view word : absl::StrSplit(entry, ' ')) {
            if (word == "(no" || word == "file)") continue;
            // An entry repeated: "a.pas(17,10) ×6".
            if (absl::StartsWith(word, "×") && word.size() > 2 &&
                std::all_of(word.begin() + 2, word.end(),
                            [](char c) { return c >= '0' && c <= '9'; })) {
              continue;
            }
            CHECK_MESSAGE(text.find(ToStd(word)) != std::string_view::npos,
                          "listed but not in the output: [" << std::string(ToStd(word)) << "] of ["
                                                             << std::string(line) << "]");
          }
        }
      }
      // Test counts in the header: failures always stated, and no count that is wrong.
      if (family == "test" && !lines.empty()) {
        // The shaper's own counts come before the runner's totals (" · ...").
        std::string header(lines[0].substr(0, lines[0].find(" · ")));
        for (const char* key : {"failed", "passed"}) {
          std::optional<int64_t> n = Fact(f.meta, key);
          if (!n) continue;
          std::string stated = core::FormatCount(static_cast<uint64_t>(*n)) + " " + key;
          if (std::string(key) == "failed" && *n > 0) {
            CHECK_MESSAGE(header.find(stated) != std::string::npos, "header lacks " << stated);
          }
          // Every count the header states for this key must be the fixture's.
          for (size_t at = header.find(std::string(" ") + key); at != std::string::npos;
               at = header.find(std::string(" ") + key, at + 1)) {
            size_t begin = at;
            while (begin > 0 && (std::isdigit(static_cast<unsigned char>(header[begin - 1])) ||
                                 header[begin - 1] == ',')) {
              --begin;
            }
            if (begin == at) continue;  // not a count ("unittest: passed")
            CHECK_MESSAGE(header.substr(begin, at - begin) ==
                              core::FormatCount(static_cast<uint64_t>(*n)),
                          "header says " << header.substr(begin, at - begin) << " "
                                         << std::string(key) << ", fixture " << *n);
          }
        }
      }
      // Search counts in the header are the fixture's.
      if (family == "search" && !lines.empty()) {
        std::string header(lines[0]);
        std::optional<int64_t> matches = Fact(f.meta, "matches");
        std::optional<int64_t> files = Fact(f.meta, "files");
        if (matches && *matches > 0) {
          CHECK_MESSAGE(header.find(core::FormatCount(static_cast<uint64_t>(*matches))) !=
                            std::string::npos,
                        "header lacks " << *matches << " matches");
        } else if (!matches && files && *files > 0) {
          CHECK_MESSAGE(header.find(core::FormatCount(static_cast<uint64_t>(*files))) !=
                            std::string::npos,
                        "header lacks " << *files << " paths");
        }
      }
    }
    // Large outputs shrink a lot, as a host sees them (under the default budget: with none, a
    // summary that keeps every one of 2,400 lint locations can be half the raw output) — but
    // for an output that is a list of locations, nearly each of its lines one the summary
    // names by its first word as printed (cspell's "lib/jquery.js:24:17 - Unknown word (trac)",
    // 317 of its 325 lines): what is left to leave out is the words between them.
    size_t lines_named = 0, nonblank = 0;
    for (std::string_view line : core::SplitLines(f.output)) {
      const std::string_view word = line.substr(0, line.find(' '));
      if (word.empty()) continue;
      ++nonblank;
      if (word.find(':') != std::string_view::npos &&
          result->summary.find(word) != std::string::npos) {
        ++lines_named;
      }
    }
    if (raw_lines >= 200 && lines_named * 10 < nonblank * 9) {
      CHECK_MESSAGE(budgeted_tokens * 2 <= result->tokens_raw,
                    "only " << result->tokens_raw << " -> " << budgeted_tokens << " tokens");
    }
  }
}

// The same outputs printed by a command that does not name the tool: a script, a make target,
// an npm script (`./ci.sh`, `make check`, `npm run check` running pytest, shellcheck, git log,
// grep -C…). The shapers know them by their lines, and every must-keep item survives; a
// failing run's first line still says so.
// How a fixture reaches plugline other than as its own command printed it: the command that
// ran it, and its output as that carrier shows it.
struct Carrier {
  std::string label;
  std::function<std::string(const std::string& command)> command;
  // The output as the carrier shows it, given the fixture's command, output and exit status.
  std::function<std::string(const std::string& command, const std::string& output, int exit_code)>
      output;
  // Whether a fixture's output (of its command) is one the carrier carries (none: every one).
  std::function<bool(const std::string& command, const std::string& output)> carries;
};

// A timestamp as a machine writes one, with `digits` digits of fractions of a second.
std::string MachineTimestamp(int i, int digits) {
  std::string fraction = std::to_string(1000000000 + (i * 7919) % 1000000000).substr(1, digits);
  return StrCat("2026-12-06T01:", absl::Dec(i / 60 % 60, absl::kZeroPad2), ":",
                absl::Dec(i % 60, absl::kZeroPad2), ".", fraction, "Z ");
}

// Every fixture of `family` as each carrier shows it: every must_keep string survives, and a
// failing run's first line says so.
void CheckFamilyCarried(const std::string& family, const std::vector<Carrier>& carriers) {
  const std::vector<Fixture> fixtures = LoadFamily(family);
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  for (const Fixture& f : fixtures) {
    std::optional<int> exit_code;
    if (const core::Value* code = f.meta.Find("exit_code"); code && code->as_integer()) {
      exit_code = static_cast<int>(*code->as_integer());
    }
    const std::string own = Str(f.meta, "command");
    for (const Carrier& carrier : carriers) {
      if (carrier.carries && !carrier.carries(own, f.output)) continue;
      const std::string command = carrier.command(own);
      INFO("fixture ", f.name, " ", carrier.label);
      auto result = (*host)->Shape(ShapeRequest{
          command, carrier.output(own, f.output, exit_code.value_or(0)), exit_code, "", 0});
      REQUIRE_MESSAGE(result.ok(), result.status().ToString());
      INFO("summary:\n", result->summary);
      CheckKept(f.meta, result->summary);
      if (exit_code && *exit_code != 0) {
        std::string first = result->summary.substr(0, result->summary.find('\n'));
        for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        CHECK_MESSAGE((first.find("fail") != std::string::npos ||
                       first.find("error") != std::string::npos ||
                       first.find("exit") != std::string::npos),
                      "first line: " << first);
      }
    }
  }
}

constexpr const char* kFamilies[] = {"test",   "typescript", "eslint",  "build",  "git-diff",
                                     "search", "lint",       "logs",    "generic", "scripts"};

TEST_CASE("fixtures: test runners") { CheckFamily("test"); }
TEST_CASE("fixtures: typescript") { CheckFamily("typescript"); }
TEST_CASE("fixtures: eslint") { CheckFamily("eslint"); }
TEST_CASE("fixtures: build") { CheckFamily("build"); }
TEST_CASE("fixtures: git-diff") { CheckFamily("git-diff"); }
TEST_CASE("fixtures: search") { CheckFamily("search"); }
TEST_CASE("fixtures: lint") { CheckFamily("lint"); }
TEST_CASE("fixtures: logs") { CheckFamily("logs"); }
TEST_CASE("fixtures: generic") { CheckFamily("generic"); }
TEST_CASE("fixtures: scripts that echo the commands they run") { CheckFamily("scripts"); }
TEST_CASE("fixtures: run by a script, a make target or an npm script") {
  std::vector<Carrier> carriers;
  for (const char* wrapper : {"./ci.sh", "make check", "npm run check"}) {
    carriers.push_back(Carrier{
        StrCat("run by ", wrapper), [wrapper](const std::string&) { return std::string(wrapper); },
        [](const std::string&, const std::string& output, int) { return output; }, nullptr});
  }
  for (const char* family : kFamilies) CheckFamilyCarried(family, carriers);
}

TEST_CASE("fixtures: run as a package's script, npm's header before and its report after") {
  // `npm test` running the fixture's command: npm's two-line header naming it, then, when it
  // failed, npm's report of the failure, whose "npm error" lines read like an npm failure's.
  const std::vector<Carrier> carriers = {
      {"as npm test", [](const std::string&) { return "npm test"; },
       [](const std::string& command, const std::string& output, int exit_code) {
         std::string out = StrCat("\n> app@1.0.0 test\n> ", command, "\n\n", output);
         if (!out.ends_with('\n')) out += '\n';
         if (exit_code == 0) return out;
         return StrCat(out, "npm error Lifecycle script `test` failed with error:\n",
                       "npm error code ", exit_code,
                       "\nnpm error path /w/app\nnpm error command failed\n",
                       "npm error command sh -c ", command, "\n");
       },
       nullptr}};
  for (const char* family : {"test", "typescript", "eslint", "lint", "build"}) {
    CheckFamilyCarried(family, carriers);
  }
}

TEST_CASE("fixtures: run by make, the recipe's command line before and make's error after") {
  // `make lint` running the fixture's command: make prints the recipe's line as it is, then,
  // when the recipe failed, "make: *** [Makefile:4: lint] Error 1".
  const std::vector<Carrier> carriers = {
      {"as make lint", [](const std::string&) { return "make lint"; },
       [](const std::string& command, const std::string& output, int exit_code) {
         std::string out = StrCat(command, "\n", output);
         if (!out.ends_with('\n')) out += '\n';
         if (exit_code != 0)
           StrAppend(&out, "make: *** [Makefile:4: lint] Error ", exit_code, "\n");
         return out;
       },
       nullptr}};
  for (const char* family : {"test", "typescript", "eslint", "lint", "build"}) {
    CheckFamilyCarried(family, carriers);
  }
}

TEST_CASE("fixtures: read from a CI log or a container's log, each line prefixed") {
  auto own = [](const std::string& command) { return command; };
  const std::vector<Carrier> carriers = {
      // gh run view --log: JOB<tab>STEP<tab> and the raw log's line, a BOM before its first.
      {"in gh run view --log", [](const std::string&) { return "gh run view 42 --log"; },
       [](const std::string&, const std::string& output, int) {
         return PrefixLines(output, [](int i) {
           return StrCat("test (ubuntu-latest)\t", i < 3 ? "Set up job" : "Run tests", "\t",
                         i == 0 ? "\xEF\xBB\xBF" : "", MachineTimestamp(i, 7));
         });
       },
       nullptr},
      // docker compose logs -t, in a terminal: a coloured name and bar, docker's timestamp.
      {"in docker compose logs -t", own,
       [](const std::string&, const std::string& output, int) {
         return PrefixLines(output, [](int i) {
           return StrCat("\x1b[36mapp-1  |\x1b[0m ", MachineTimestamp(i, 9));
         });
       },
       nullptr},
      {"in kubectl logs --prefix", own,
       [](const std::string&, const std::string& output, int) {
         return PrefixLines(output, [](int) { return "[pod/app-7d9c8b5f4-x2k9q/app] "; });
       },
       nullptr}};
  for (const char* family : kFamilies) CheckFamilyCarried(family, carriers);
}

// A workspace task runner's output: the fixture's command run as one package's script, its
// lines prefixed with the package and the task and interleaved with another package's passing
// task, the runner's own lines around them (the forms of pnpm 12 and turbo 2).
std::string Interleaved(const std::string& output, const std::string& prefix,
                        const std::string& other_prefix) {
  std::string out;
  int n = 0;
  for (std::string_view line : core::SplitLines(output)) {
    StrAppend(&out, prefix, line, "\n");
    if (++n % 4 == 0) StrAppend(&out, other_prefix, "ok ", n / 4, " - parses a row\n");
  }
  StrAppend(&out, other_prefix, "# pass ", n / 4 + 1, "\n");
  return out;
}

TEST_CASE("fixtures: run by a workspace task runner, each line prefixed with its task") {
  // A runner's output is not one package's script's (a runner inside a runner's task).
  auto not_a_runners = [](const std::string& command, const std::string& output) {
    core::TaskOutput tasks;
    return !core::SplitTaskOutput(command, output, &tasks);
  };
  const std::vector<Carrier> carriers = {
      {"in pnpm -r test", [](const std::string&) { return "pnpm -r --no-bail test"; },
       [](const std::string& command, const std::string& output, int exit_code) {
         return StrCat("Scope: 2 of 3 workspace projects\npackages/app test$ ", command,
                       "\npackages/lib test$ node --test\n",
                       Interleaved(output, "packages/app test: ", "packages/lib test: "),
                       "packages/lib test: Done\npackages/app test: Failed\n"
                       "[ELIFECYCLE] Test failed. See above for more details.\n"
                       "Error: ERR_PNPM_RECURSIVE_FAIL\n");
       },
       not_a_runners},
      {"in turbo run test", [](const std::string&) { return "turbo run test --continue"; },
       [](const std::string& command, const std::string& output, int exit_code) {
         return StrCat("   • Packages in scope: app, lib\n   • Running test in 2 packages\n\n",
                       "app:test: cache miss, executing 5c4d1e2f3a4b5c6d\n",
                       "lib:test: cache miss, executing 0a1b2c3d4e5f6a7b\n",
                       "app:test: \napp:test: > app@1.0.0 test\napp:test: > ", command,
                       "\napp:test: \n", Interleaved(output, "app:test: ", "lib:test: "),
                       "app#test:  ERROR  command (/w/app) /usr/bin/npm run test exited (1)\n\n"
                       " Tasks:    1 successful, 2 total\nFailed:    app#test\n");
       },
       not_a_runners},
      // yarn names no task's command: each is known by its lines.
      {"in yarn workspaces foreach -Apv",
       [](const std::string&) { return "yarn workspaces foreach -A -p -v run test"; },
       [](const std::string&, const std::string& output, int) {
         return StrCat(Interleaved(output, "[app]: ", "[lib]: "),
                       "The command failed in workspace app@workspace:packages/app with exit "
                       "code 1\nFailed with errors in 1s 204ms\n");
       },
       not_a_runners}};
  for (const char* family : kFamilies) CheckFamilyCarried(family, carriers);
}

// The last lines of a test run, as an agent often reads one (`pytest 2>&1 | tail -30`): the
// output begins inside the failures, their section's heading cut off, often inside a failure
// whose heading was cut too. Every must_keep string the cut output still has survives, and the
// first line says the run failed — for the runners whose parsers read a run cut so (pytest,
// unittest, rspec, Minitest, PHPUnit, cargo test, jest, vitest).
TEST_CASE("fixtures: a test run's last lines, read through tail") {
  // Each kept what a summary must keep, and said first that the run failed, both with the
  // run's exit status and with tail's 0 (what the agent's shell reports for a pipeline).
  static constexpr std::string_view kRead[] = {
      "test/pytest_",  "test/unittest_",      "test/rspec_",        "test/minitest_",
      "test/phpunit_", "test/exunit_",        "test/maven_",        "test/catch2_",
      "test/cucumber_", "test/cargo_",        "test/jest_",
      "test/vitest_",  "test/testunit_",      "test/gtest_",        "test/mocha_",
      "test/ava_",     "test/bats_",          "test/tap_",          "test/go_",
      "test/node_test_", "test/jasmine_",     "test/gradle_",       "test/ctest_",
      "test/doctest_", "test/behave_"};
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  size_t runs = 0;
  for (const Fixture& f : LoadFamily("test")) {
    if (std::none_of(std::begin(kRead), std::end(kRead),
                     [&](std::string_view p) { return absl::StartsWith(f.name, ToAbsl(p)); })) {
      continue;
    }
    std::optional<int> exit_code;
    if (const core::Value* code = f.meta.Find("exit_code"); code && code->as_integer()) {
      exit_code = static_cast<int>(*code->as_integer());
    }
    std::vector<absl::string_view> lines = absl::StrSplit(ToAbsl(f.output), '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    for (size_t n : {20, 30, 80, 200}) {
      if (lines.size() <= n) continue;
      const std::string cut = testing::LastLines(f.output, n);
      const std::string command = StrCat(Str(f.meta, "command"), " 2>&1 | tail -", n);
      // What a reader of the cut sees of the failure: a word that says so.
      const std::string cut_lower = absl::AsciiStrToLower(cut);
      const bool shows_failure = cut_lower.find("fail") != std::string::npos ||
                                 cut_lower.find("error") != std::string::npos;
      for (const std::optional<int> status : {exit_code, std::optional<int>(0)}) {
        INFO("fixture ", f.name, " through tail -", n, ", exit ", status.value_or(-1));
        auto result = (*host)->Shape(ShapeRequest{command, cut, status, "", 0});
        REQUIRE_MESSAGE(result.ok(), result.status().ToString());
        INFO("summary:\n", result->summary);
        ++runs;
        if (const core::Value* keep = f.meta.Find("must_keep"); keep && keep->is_array()) {
          for (const core::Value& item : keep->as_array()) {
            if (!item.is_string() || cut.find(item.as_string()) == std::string::npos) continue;
            CHECK_MESSAGE(result->summary.find(item.as_string()) != std::string::npos,
                          "lost: " << item.as_string());
          }
        }
        if (exit_code && *exit_code != 0 && shows_failure) {
          const std::string first =
              absl::AsciiStrToLower(result->summary.substr(0, result->summary.find('\n')));
          CHECK_MESSAGE((first.find("fail") != std::string::npos ||
                         first.find("error") != std::string::npos),
                        "first line: " << first);
        }
      }
    }
  }
  CHECK(runs > 150);
}

TEST_CASE("fixtures: a compiler's, linter's or build's failing run read through tail says so first") {
  // `tsc 2>&1 | tail -20`: the status the agent's shell reports is tail's 0. Where the lines
  // left show an error, the summary's first line says the run failed (or counts its errors,
  // problems, or — the generic shaper, for gfortran, terraform validate, xmllint — the lines
  // that read like errors), whether the lines are shown as they are or summarized.
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  size_t checked = 0;
  size_t generic = 0;
  for (const char* family : {"typescript", "eslint", "lint", "build", "generic"}) {
    for (const Fixture& f : LoadFamily(family)) {
      const core::Value* code = f.meta.Find("exit_code");
      if (code == nullptr || !code->as_integer() || *code->as_integer() == 0) continue;
      std::vector<absl::string_view> lines = absl::StrSplit(ToAbsl(f.output), '\n');
      if (!lines.empty() && lines.back().empty()) lines.pop_back();
      for (size_t n : {20, 30}) {
        if (lines.size() <= n) continue;
        const std::string cut = testing::LastLines(f.output, n);
        const std::string lower = absl::AsciiStrToLower(cut);
        if (lower.find("error") == std::string::npos && lower.find("fail") == std::string::npos) {
          continue;
        }
        // As agents also write it: the status echoed after the pipeline, the shell's the echo's.
        for (const bool echoed : {false, true}) {
          const std::string command = StrCat(Str(f.meta, "command"), " 2>&1 | tail -", n,
                                             echoed ? "; echo \"exit=$?\"" : "");
          auto result = (*host)->Shape(
              ShapeRequest{command, echoed ? StrCat(cut, "exit=0\n") : cut, 0, "", 0});
          REQUIRE_MESSAGE(result.ok(), result.status().ToString());
          ++checked;
          if (result->shaper == "builtin-generic") ++generic;
          const std::string first =
              absl::AsciiStrToLower(result->summary.substr(0, result->summary.find('\n')));
          INFO("fixture ", f.name, " through tail -", n, echoed ? " and echo" : "", ", summary:\n",
               result->summary);
          // (A linter's counts, "shellcheck: 1 warning, 3 info in 1 file"; or, where the lines
          // left say nothing of an error, "g++: exit 0 is tail's".)
          CHECK((first.find("fail") != std::string::npos ||
                 first.find("error") != std::string::npos ||
                 first.find("problem") != std::string::npos ||
                 first.find("warning") != std::string::npos ||
                 first.find("exit 0 is tail's") != std::string::npos ||
                 first.find("exit 0 is echo's") != std::string::npos));
        }
      }
    }
  }
  CHECK(checked > 120);
  CHECK(generic >= 12);
}

TEST_CASE("fixtures: two commands' outputs in one, each echoed by a shell's trace or npm") {
  // Fixtures of tools plugline knows by name (a tool it does not know, printed between two it
  // knows, is read as part of the one before: an echo that is not a tool's may be a line of
  // that tool's own output), each followed by another family's, as `set -x` or `npm run`
  // prints them: every must_keep string of both survives, and a failing run says so first.
  std::vector<Fixture> all;
  for (const char* family : {"test", "typescript", "eslint", "build", "lint", "git-diff"}) {
    for (Fixture& f : LoadFamily(family)) {
      if (!absl::StartsWith(Str(f.meta, "command"), "apt")) all.push_back(std::move(f));
    }
  }
  REQUIRE(all.size() > 100);
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  auto exit_of = [](const Fixture& f) {
    const core::Value* code = f.meta.Find("exit_code");
    return code != nullptr && code->as_integer() ? static_cast<int>(*code->as_integer()) : 0;
  };
  size_t checked = 0, composed = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    const Fixture& a = all[i];
    const Fixture& b = all[(i * 7 + 3) % all.size()];
    if (a.name.substr(0, a.name.find('/')) == b.name.substr(0, b.name.find('/'))) continue;
    auto echo = [&](const Fixture& f) {
      return i % 2 == 0 ? StrCat("+ ", Str(f.meta, "command"), "\n")
                        : StrCat("\n> app@1.0.0 check\n> ", Str(f.meta, "command"), "\n\n");
    };
    std::string output = StrCat(echo(a), a.output);
    if (!output.empty() && output.back() != '\n') output += '\n';
    StrAppend(&output, echo(b), b.output);
    const int exit_code = exit_of(b);  // `a; b`: the last command's
    INFO(a.name, " then ", b.name);
    auto result = (*host)->Shape(ShapeRequest{"./ci.sh", output, exit_code, "", 0});
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    INFO("summary:\n", result->summary);
    for (const Fixture* f : {&a, &b}) CheckKept(f->meta, result->summary);
    if (exit_code != 0) {
      const std::string first =
          absl::AsciiStrToLower(result->summary.substr(0, result->summary.find('\n')));
      CHECK_MESSAGE((absl::StrContains(first, "fail") || absl::StrContains(first, "exit")),
                    "first line: " << first);
    }
    ++checked;
    if (absl::StrContains(result->summary.substr(0, result->summary.find('\n')),
                          " commands, each shaped below") ||
        absl::StrContains(result->summary.substr(0, result->summary.find('\n')),
                          " commands failed, each shaped below")) {
      ++composed;
      // Each part under its echo, headed by its own shaper's line.
      CHECK(absl::StrContains(result->summary, StrCat(i % 2 == 0 ? "\n+ " : "\n> ",
                                                      Str(b.meta, "command"), "\n")));
    }
  }
  CHECK(checked > 100);
  CHECK(composed * 2 > checked);
}

TEST_CASE("fixtures: a script's commands share the budget, each keeping its echo and header") {
  // eslint's 2,400 problems (54,000 tokens) then a failing pytest run (2,000): under the default
  // budget the small part stays whole and the large one is cut to what is left, its header kept.
  const Fixture eslint = FindFixture("eslint/large-stylish");
  const Fixture pytest = FindFixture("test/pytest_failing");
  const std::string output = StrCat("+ npx eslint .\n", eslint.output, "+ python3 -m pytest\n",
                                    pytest.output);
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  auto result = (*host)->Shape(ShapeRequest{"./ci.sh", output, 1, ""});
  REQUIRE(result.ok());
  INFO(result->summary);
  CHECK(result->tokens_summary <= core::kDefaultSummaryTokens);
  CHECK(result->summary.starts_with("ci.sh: FAILED (exit 1) — 2 commands, each shaped below\n"
                                    "+ npx eslint .\neslint: 2,400 problems"));
  CHECK(absl::StrContains(result->summary, "\n+ python3 -m pytest\npytest: FAILED — 5 failed"));
  CHECK(result->budget_lines_left_out > 0);
  REQUIRE(pytest.meta.Find("must_keep") != nullptr);
  CheckKept(pytest.meta, result->summary);
}

TEST_CASE("fixtures: a document's example commands are the document's, not a session's") {
  // A README whose console blocks show two commands and their output: `cat README.md` prints
  // the document, shown as it is; the same text in a saved session log is read by commands.
  const Fixture pytest = FindFixture("test/pytest_failing");
  const Fixture flake8 = FindFixture("lint/flake8-failing");
  const std::string text =
      StrCat("# Checking\n\n```console\n$ python3 -m pytest\n", pytest.output,
             "```\n\nThen the style:\n\n```console\n$ flake8 src\n", flake8.output, "```\n");
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  auto document = (*host)->Shape(ShapeRequest{"cat docs/README.md", text, 0, ""});
  REQUIRE(document.ok());
  INFO(document->summary);
  CHECK(document->summary == text);
  auto session = (*host)->Shape(ShapeRequest{"cat session.log", text, 0, ""});
  REQUIRE(session.ok());
  CHECK(absl::StrContains(session->summary, "each shaped below"));
}

TEST_CASE(
    "fixtures: npm test over flake8: flake8's summary under npm's header, npm's report apart") {
  const Fixture flake8 = FindFixture("lint/flake8-large");
  const std::string command = Str(flake8.meta, "command");
  const std::string output =
      StrCat("\n> app@1.0.0 test\n> ", command, "\n\n", flake8.output,
             "npm error Lifecycle script `test` failed with error:\nnpm error code 1\n"
             "npm error path /w/app\nnpm error command failed\nnpm error command sh -c ",
             command, "\n");
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  auto result = (*host)->Shape(ShapeRequest{"npm test", output, 1, ""});
  REQUIRE(result.ok());
  INFO(result->summary);
  CHECK(result->shaper == "builtin-lint");
  CHECK(result->summary.starts_with(
      StrCat("npm test: FAILED (exit 1)\n> app@1.0.0 test\n> ", command, "\nflake8: ")));
  CHECK(absl::StrContains(result->summary,
                          "\nnpm error Lifecycle script `test` failed with error:\n"
                          "… 4 more lines of the package manager's report omitted\n"));
  CheckKept(flake8.meta, result->summary);
}

TEST_CASE("fixtures: a runner's task cut to its share keeps its tally of the codes it left out") {
  // rubocop's 1,034 offenses as one package's lint task under pnpm: at the default budget the
  // task's summary is cut, and its tally by code names the cops whose offenses did not fit.
  const Fixture rubocop = FindFixture("lint/rubocop-default-many");
  std::string output = "packages/gem lint$ rubocop\n";
  for (std::string_view line : core::SplitLines(rubocop.output)) {
    StrAppend(&output, "packages/gem lint: ", line, "\n");
  }
  StrAppend(&output, "packages/gem lint: Failed\n[ELIFECYCLE] Command failed with exit code 1.\n");
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  auto result = (*host)->Shape(ShapeRequest{"pnpm -r lint", output, 1, ""});
  REQUIRE(result.ok());
  INFO(result->summary);
  CHECK(result->tokens_summary <= core::kDefaultSummaryTokens);
  CHECK(
      result->summary.starts_with("pnpm: FAILED (exit 1) — 1 task, each shaped below\n"
                                  "packages/gem lint$ rubocop\nrubocop: "));
  CHECK(absl::StrContains(result->summary, "\n… 1,034 problems by code: "));
  CHECK(result->budget_lines_left_out > 0);
  CheckKept(rubocop.meta, result->summary);
}

TEST_CASE("fixtures: a script that exits 0 after a failing command is headed FAILED by that part") {
  // `pytest; flake8 --version`-like: the status is the last command's (or head's, through
  // `| head`); the failing run inside is what the first line says.
  const Fixture failing = FindFixture("test/pytest_failing");
  const Fixture passing = FindFixture("test/pytest_passing");
  const std::string output = StrCat("+ python3 -m pytest tests\n", failing.output,
                                    "+ python3 -m pytest tests_ok\n", passing.output);
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  auto result = (*host)->Shape(ShapeRequest{"./ci.sh", output, 0, ""});
  REQUIRE(result.ok());
  INFO(result->summary);
  CHECK(result->summary.starts_with(
      "ci.sh: FAILED — 1 of 2 commands failed, each shaped below (exit 0)\n"
      "+ python3 -m pytest tests\npytest: FAILED — "));
  // Both passing: the status, as before.
  auto ok = (*host)->Shape(ShapeRequest{
      "./ci.sh",
      StrCat("+ python3 -m pytest a\n", passing.output, "+ python3 -m pytest b\n", passing.output),
      0, ""});
  REQUIRE(ok.ok());
  CHECK(ok->summary.starts_with("ci.sh: exit 0 — 2 commands, each shaped below\n"));
}

}  // namespace
}  // namespace plugline

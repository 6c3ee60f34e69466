// Tests for builtin-typescript: tsc's plain and pretty formats, tsc -b, watch mode, many
// errors, success, unrecognized output, and match().
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "absl/strings/str_join.h"
#include "builtin/diagnostic_groups.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

std::vector<std::string> Shape(std::string_view command, std::optional<int> exit_code,
                               const std::string& output) {
  auto shaper = MakeTypescriptShaper();
  core::ShapeContext ctx{command, exit_code, output.size(), core::CountLines(output),
                         "/s/outputs/a.log"};
  auto shaped = shaper->Shape(output, ctx);
  REQUIRE(shaped.ok());
  CHECK(shaped->render_mode == RenderMode::kSummary);
  std::vector<std::string> lines;
  for (std::string_view line : core::SplitLines(shaped->summary)) lines.emplace_back(line);
  return lines;
}

bool Has(const std::vector<std::string>& lines, std::string_view line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

double Confidence(std::string_view command, std::string_view output) {
  auto match = MakeTypescriptShaper()->Match(command, output, 2);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

constexpr std::string_view kPlain =
    "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
    "src/a.ts(9,1): error TS2304: Cannot find name 'foo'.\n"
    "src/lib/b.ts(20,14): error TS2345: Argument of type '{ id: string; }' is not assignable to "
    "parameter of type 'User'.\n"
    "  Property 'name' is missing in type '{ id: string; }' but required in type 'User'.\n";

TEST_CASE("typescript: plain format keeps every error with its message chain") {
  auto lines = Shape("npx tsc --noEmit", 2, std::string(kPlain));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "tsc: FAILED — 3 errors in 2 files (exit 2)");
  CHECK(lines[1] == "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.");
  CHECK(lines[4] ==
        "  Property 'name' is missing in type '{ id: string; }' but required in type 'User'.");
}

TEST_CASE("typescript: what npm says after the script it ran failed is counted, not shown") {
  // Real runs: an npm 11 workspace's script (npm's "npm error Lifecycle script …" block) and
  // npm 6's ELIFECYCLE block; the header already says the run failed, with its exit code.
  for (const char* name : {"npm-workspace-failing", "npm6-run-failing"}) {
    CAPTURE(name);
    const std::string output = testing::ReadFixture("typescript", name);
    const bool epilogue = output.find("npm ERR! code ELIFECYCLE") != std::string::npos ||
                          output.find("npm error Lifecycle script `typecheck` failed") !=
                              std::string::npos;
    REQUIRE(epilogue);
    auto lines = Shape("npm run typecheck", 2, output);
    CHECK(lines[0] == "tsc: FAILED — 12 errors in 6 files (exit 2)");
    for (const std::string& line : lines) {
      CHECK_FALSE(line.starts_with("npm e"));
      CHECK_FALSE(line.starts_with("npm ERR!"));
    }
    CHECK(Has(lines, "src/utils/format.ts(12,35): error TS2304: Cannot find name 'ellipsis'."));
  }
}

TEST_CASE("typescript: pretty format drops code frames and keeps related locations") {
  std::string output =
      "src/cart.ts:31:24 - error TS2551: Property 'line' does not exist on type 'Cart'. Did you "
      "mean 'lines'?\n"
      "\n"
      "31     const count = this.line.length;\n"
      "                          ~~~~\n"
      "\n"
      "  src/cart.ts:10:11\n"
      "    10   private lines: CartLine[] = [];\n"
      "                 ~~~~~\n"
      "    'lines' is declared here.\n"
      "\n"
      "src/config.ts:20:14 - error TS2322: Type '{ port: string; }' is not assignable to type "
      "'AppConfig'.\n"
      "  The types of 'port' are incompatible between these types.\n"
      "    Type 'string' is not assignable to type 'number'.\n"
      "\n"
      "20 export const config: AppConfig = readRaw();\n"
      "                ~~~~~~\n"
      "\n"
      "\n"
      "Found 2 errors in 2 files.\n"
      "\n"
      "Errors  Files\n"
      "     1  src/cart.ts:31\n"
      "     1  src/config.ts:20\n";
  auto lines = Shape("tsc --pretty", 2, output);
  std::vector<std::string> expected = {
      "tsc: FAILED — 2 errors in 2 files (exit 2)",
      "src/cart.ts:31:24 - error TS2551: Property 'line' does not exist on type 'Cart'. Did you "
      "mean 'lines'?",
      "  src/cart.ts:10:11",
      "    'lines' is declared here.",
      "src/config.ts:20:14 - error TS2322: Type '{ port: string; }' is not assignable to type "
      "'AppConfig'.",
      "  The types of 'port' are incompatible between these types.",
      "    Type 'string' is not assignable to type 'number'.",
      "… 6 code-frame lines omitted",
      // 7 blank lines and the 3 lines of the table (which repeats what is shown).
      "… 10 other lines omitted",
      "Found 2 errors in 2 files.",
  };
  CHECK(lines == expected);
}

TEST_CASE("typescript: a run's last lines (tsc | tail) keep tsc's counts and its table's other files") {
  // The pretty format's last 30 lines: three diagnostics in two files, then tsc's totals and its
  // table of the six files with errors. The files whose diagnostics were cut off stay, by the
  // table's rows; the header counts what tsc counted.
  std::string full;  // as shapers see it: without its colours
  if (const std::string raw = testing::ReadFixture("typescript", "pretty-failing");
      !core::NormalizeTerminalOutput(raw, &full)) {
    full = raw;
  }
  const std::string cut = testing::LastLines(full, 30);
  const auto s = Shape("npx tsc --noEmit --pretty 2>&1 | tail -30", 2, cut);
  INFO(absl::StrJoin(s, "\n"));
  CHECK(s[0] == "tsc: FAILED — 12 errors in 6 files (exit 2)");
  CHECK(Has(s, "Errors  Files"));
  CHECK(Has(s, "     3  src/api/client.ts:2"));
  CHECK(Has(s, "     1  src/services/config.ts:20"));
  CHECK_FALSE(Has(s, "     2  src/services/pricing.ts:23"));  // its diagnostics are shown
  CHECK_FALSE(Has(s, "     1  src/utils/format.ts:12"));
  // The whole output: every file's diagnostics shown, the table counted.
  const auto whole = Shape("npx tsc --noEmit --pretty", 2, full);
  CHECK(whole[0] == "tsc: FAILED — 12 errors in 6 files (exit 2)");
  CHECK_FALSE(Has(whole, "Errors  Files"));
}

TEST_CASE("typescript: an output cut to the table of files says what the table counts") {
  // The pretty format's last lines: only the "Errors  Files" table (with its heading or not),
  // tsc's "Found 12 errors in 6 files." cut off. Not "no errors".
  std::string full;
  if (const std::string raw = testing::ReadFixture("typescript", "pretty-failing");
      !core::NormalizeTerminalOutput(raw, &full)) {
    full = raw;
  }
  for (size_t n : {6, 8}) {
    const auto s = Shape(absl::StrCat("npx tsc --noEmit --pretty 2>&1 | tail -", n), 0,
                         testing::LastLines(full, n));
    INFO(absl::StrJoin(s, "\n"));
    CHECK(s[0] ==
          "tsc: FAILED — 12 errors in 6 files listed by its table (the diagnostics and totals are "
          "cut off)");
    CHECK(Has(s, "     3  src/api/client.ts:2"));
    CHECK(Has(s, "     1  src/utils/format.ts:12"));
  }
}

TEST_CASE("typescript: an output cut inside a message chain keeps what is left of it") {
  // tests/fixtures/typescript/npm-workspace-failing's last 12 lines: the end of TS2322's chain
  // (its header cut off), two more errors, npm's lines.
  const std::string cut =
      testing::LastLines(testing::ReadFixture("typescript", "npm-workspace-failing"), 12);
  const auto s = Shape("npm run typecheck -w shop 2>&1 | tail -12", 0, cut);
  INFO(absl::StrJoin(s, "\n"));
  REQUIRE(s.size() > 4);
  CHECK(s[1] == "    Type 'CartLine' is not assignable to type 'LegacyLine'.");
  CHECK(s[2] == "      Types of property 'quantity' are incompatible.");
  CHECK(s[3] == "        Type 'number' is not assignable to type 'string'.");
  CHECK(s[4].starts_with("src/services/pricing.ts(33,59): error TS2345: "));
}

TEST_CASE("typescript: tsc 7's related locations on one line") {
  std::string output =
      "src/cart.ts:45:18 - error TS2554: Expected 1 arguments, but got 0.\n"
      "\n"
      "45   const merged = new Cart();\n"
      "                    ~~~~~~~~~~\n"
      "\n"
      "  src/cart.ts:12:15 - An argument for 'owner' was not provided.\n"
      "    12   constructor(private readonly owner: User) {}\n"
      "                     ~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
      "\n"
      "\n"
      "Found 1 error in src/cart.ts:45\n"
      "\n";
  auto lines = Shape("tsgo --noEmit --pretty", 1, output);
  CHECK(lines[0] == "tsgo: FAILED — 1 error in 1 file (exit 1)");
  CHECK(Has(lines, "  src/cart.ts:12:15 - An argument for 'owner' was not provided."));
  CHECK(lines.back() == "Found 1 error in src/cart.ts:45");
}

TEST_CASE("typescript: many errors are grouped by message and every location survives") {
  std::string output;
  const char* codes[] = {"TS2322", "TS2345", "TS2339"};
  for (int i = 0; i < 300; ++i) {
    const char* code = i == 150 ? "TS7006" : codes[i % 3];
    StrAppend(&output, "src/m", i / 4, ".ts(", i + 1, ",5): error ", code, ": Problem number ",
              i, " in 'name", i % 2, "'.\n");
    if (i % 10 == 0) StrAppend(&output, "  Detail of problem ", i, ".\n");
    if (i % 3 == 0) output += "  Repeated hint.\n";
  }
  auto lines = Shape("tsc", 2, output);
  CHECK(lines[0] == "tsc: FAILED — 300 errors in 75 files (exit 2)");
  // The first of each group in full: its header and message chain.
  CHECK(lines[1] == "src/m0.ts(1,5): error TS2322: Problem number 0 in 'name0'.");
  CHECK(lines[2] == "  Detail of problem 0.");
  CHECK(lines[3] == "  Repeated hint.");
  // Then the others of the group, each location as printed with the names that differ.
  CHECK(lines[4] == "… 98 more TS2322, names differing, at: src/m0.ts(4,5) 3 'name1'; "
                    "src/m1.ts(7,5) 6; src/m2.ts(10,5) 9 'name1'; src/m3.ts(13,5) 12; "
                    "src/m3.ts(16,5) 15 'name1'; src/m4.ts(19,5) 18; src/m5.ts(22,5) 21 'name1'; "
                    "src/m6.ts(25,5) 24; src/m6.ts(28,5) 27 'name1'; src/m7.ts(31,5) 30; "
                    "src/m8.ts(34,5) 33 'name1'; src/m9.ts(37,5) 36");
  CHECK(lines[5].starts_with("… TS2322 also at: src/m9.ts(40,5) 39 'name1'; "));
  // Every location survives, once.
  std::string all;
  for (const std::string& line : lines) StrAppend(&all, line, "\n");
  for (int i = 0; i < 300; ++i) {
    const std::string where = StrCat("src/m", i / 4, ".ts(", i + 1, ",5)");
    const size_t at = all.find(where);
    CHECK_MESSAGE(at != std::string::npos, where);
    CHECK(all.find(where, at + 1) == std::string::npos);
  }
  // Four groups (the three codes and TS7006); the hint shown once, its repeats counted.
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
          return l.find(": error TS") != std::string::npos;
        }) == 4);
  CHECK(std::count(lines.begin(), lines.end(), "  Repeated hint.") == 1);
  CHECK(Has(lines, "… 1 message line omitted, shown above for another error"));
}

TEST_CASE("typescript: a message's shape masks quoted names and numbers, not apostrophes") {
  MessageShape shape = ShapeOfMessage(
      "Property 'x' doesn't exist on type \"Y\"; expected 2 arguments, got `z` in \xE2\x80\x98" "f\xE2\x80\x99 "
      "and v2 2x.");
  CHECK(shape.key == "Property \x01 doesn't exist on type \x01; expected \x01 arguments, got \x01 in "
                     "\x01 and v2 2x.");
  REQUIRE(shape.fillers.size() == 5);
  CHECK(shape.fillers[0] == "'x'");
  CHECK(shape.fillers[1] == "\"Y\"");
  CHECK(shape.fillers[2] == "2");
  CHECK(shape.fillers[3] == "`z`");
  CHECK(shape.fillers[4] == "\xE2\x80\x98" "f\xE2\x80\x99");
  // Same shape, other names: one group; another code or message: another group.
  DiagnosticGroups groups;
  groups.Add("error TS1", "TS1", "Cannot find 'a'.", "a.ts(1,1)");
  groups.Add("error TS1", "TS1", "Cannot find 'b'.", "a.ts(2,1)");
  groups.Add("error TS2", "TS2", "Cannot find 'c'.", "a.ts(3,1)");
  groups.Add("error TS1", "TS1", "Cannot see 'd'.", "a.ts(4,1)");
  groups.Add("error TS1", "TS1", "Cannot find 'a'.", "b.ts(5,1)");
  CHECK(groups.groups() == 3);
  CHECK(groups.Leads(0));
  CHECK(!groups.Leads(1));
  CHECK(groups.Leads(2));
  CHECK(groups.Followers(0) == 2);
  CHECK(groups.Followers(1) == 0);
  SummaryWriter out;
  groups.WriteFollowers(0, out, [](size_t) { return 1; });
  // An entry whose names are the first's gives none.
  CHECK(out.Take() == "… 2 more TS1, names differing, at: a.ts(2,1) 'b'; b.ts(5,1)\n");
}

TEST_CASE("diagnostic groups: a dotted name is a name, quoted or not") {
  // CSSLint's selectors, a JVM type: what the message is about, unquoted.
  MessageShape shape = ShapeOfMessage(
      "Element (tr.no-previous) is overqualified, just use .no-previous without element name; "
      "div#info; java.lang.String; e.g. or a sentence's end.");
  CHECK(shape.key ==
        "Element (\x01) is overqualified, just use \x01 without element name; \x01; "
        "\x01; \x01. or a sentence's end.");
  REQUIRE(shape.fillers.size() == 5);
  CHECK(shape.fillers[0] == "tr.no-previous");
  CHECK(shape.fillers[1] == ".no-previous");
  CHECK(shape.fillers[2] == "div#info");
  CHECK(shape.fillers[3] == "java.lang.String");
  CHECK(shape.fillers[4] == "e.g");
  DiagnosticGroups groups;
  groups.Add("warning", "overqualified-elements",
             "Element (span.cntrl) is overqualified, just use .cntrl without element name.",
             "a.css: line 19, col 1");
  groups.Add("warning", "overqualified-elements",
             "Element (img.logo) is overqualified, just use .logo without element name.",
             "a.css: line 26, col 1");
  CHECK(groups.groups() == 1);
  SummaryWriter out;
  groups.WriteFollowers(0, out, [](size_t) { return 1; });
  CHECK(out.Take() ==
        "… 1 more overqualified-elements, names differing, at: a.css: line 26, col 1 img.logo "
        ".logo\n");
}

TEST_CASE("diagnostic groups: labelled lines under a message are part of it") {
  auto d = ParseLabelledDetail("  symbol:   variable total");
  REQUIRE(d.has_value());
  CHECK(d->label == "symbol");
  CHECK(d->value == "variable total");
  d = ParseLabelledDetail("  location: variable inv of type Inventory  ");
  REQUIRE(d.has_value());
  CHECK(d->label == "location");
  CHECK(d->value == "variable inv of type Inventory");
  CHECK(ParseLabelledDetail("symbol: x") == std::nullopt);           // not indented
  CHECK(ParseLabelledDetail("    return a.b(c);") == std::nullopt);   // no label
  CHECK(ParseLabelledDetail("    a.ts:3:5") == std::nullopt);         // no space after
  CHECK(ParseLabelledDetail("    x = f(1): y") == std::nullopt);      // not words
  CHECK(ParseLabelledDetail("    one two three four: y") == std::nullopt);
  CHECK(ParseLabelledDetail("  symbol:   ") == std::nullopt);         // no value

  // Their labels join the key, their values are names: listed in parentheses where they differ.
  const LabelledDetail money[] = {{"symbol", "variable Money"}, {"location", "class Cart"}};
  const LabelledDetail addd[] = {{"symbol", "method addd(String)"}, {"location", "class Cart"}};
  const LabelledDetail other[] = {{"required", "int"}};
  DiagnosticGroups groups;
  groups.Add("error", "errors like it", "cannot find symbol", "A.java:3", money);
  groups.Add("error", "errors like it", "cannot find symbol", "A.java:4", addd);
  groups.Add("error", "errors like it", "cannot find symbol", "A.java:5", money);
  groups.Add("error", "errors like it", "cannot find symbol", "A.java:6", other);
  groups.Add("error", "errors like it", "cannot find symbol", "A.java:7");
  CHECK(groups.groups() == 3);
  CHECK(groups.Followers(0) == 2);
  SummaryWriter out;
  groups.WriteFollowers(0, out, [](size_t) { return 1; });
  CHECK(out.Take() ==
        "… 2 more errors like it, names differing, at: A.java:4 (method addd(String)); A.java:5\n");
}

TEST_CASE("typescript: tsc -b --verbose keeps the projects that have errors") {
  std::string output =
      "8:15:55 PM - Projects in this build: \n"
      "    * packages/core/tsconfig.json\n"
      "    * packages/api/tsconfig.json\n"
      "\n"
      "8:15:55 PM - Project 'packages/core/tsconfig.json' is up to date because newest input "
      "'packages/core/src/a.ts' is older than output 'packages/core/tsconfig.tsbuildinfo'\n"
      "\n"
      "8:15:55 PM - Project 'packages/api/tsconfig.json' is out of date because output file "
      "'packages/api/tsconfig.tsbuildinfo' does not exist\n"
      "\n"
      "8:15:55 PM - Building project '/r/packages/api/tsconfig.json'...\n"
      "\n"
      "packages/api/src/h.ts(17,31): error TS2345: Argument of type 'string | undefined' is not "
      "assignable to parameter of type 'string'.\n"
      "  Type 'undefined' is not assignable to type 'string'.\n";
  auto lines = Shape("npx tsc -b --verbose", 1, output);
  std::vector<std::string> expected = {
      "tsc: FAILED — 1 error in 1 file (exit 1)",
      "8:15:55 PM - Projects in this build: ",
      "    * packages/core/tsconfig.json",
      "    * packages/api/tsconfig.json",
      "8:15:55 PM - Building project '/r/packages/api/tsconfig.json'...",
      "packages/api/src/h.ts(17,31): error TS2345: Argument of type 'string | undefined' is not "
      "assignable to parameter of type 'string'.",
      "  Type 'undefined' is not assignable to type 'string'.",
      "… 6 other lines omitted",
  };
  CHECK(lines == expected);
}

TEST_CASE("typescript: success is one line, watch mode summarizes the last compilation") {
  CHECK(Shape("tsc --noEmit", 0, "") == std::vector<std::string>{"tsc: no errors"});
  std::string watch =
      "[10:00:00 AM] Starting compilation in watch mode...\n"
      "\n"
      "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
      "\n"
      "[10:00:02 AM] Found 1 error. Watching for file changes.\n"
      "\n"
      "[10:01:10 AM] File change detected. Starting incremental compilation...\n"
      "\n"
      "[10:01:11 AM] Found 0 errors. Watching for file changes.\n";
  auto lines = Shape("tsc -w", std::nullopt, watch);
  std::vector<std::string> expected = {
      "tsc: no errors (watch mode)",
      "… 6 lines of earlier watch-mode compilations omitted",
      "… 3 lines of progress and layout omitted",
  };
  CHECK(lines == expected);
  // The same log, the other way round: the last compilation failed.
  std::string failing =
      "[10:00:00 AM] Starting compilation in watch mode...\n"
      "[10:00:02 AM] Found 0 errors. Watching for file changes.\n"
      "[10:01:10 AM] File change detected. Starting incremental compilation...\n"
      "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
      "[10:01:11 AM] Found 1 error. Watching for file changes.\n";
  lines = Shape("tsc -w", std::nullopt, failing);
  expected = {
      "tsc: 1 error in 1 file",
      "… 2 lines of earlier watch-mode compilations omitted",
      "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "… 1 other line omitted",
      "[10:01:11 AM] Found 1 error. Watching for file changes.",
  };
  CHECK(lines == expected);
}

TEST_CASE("typescript: global errors count without a file") {
  auto lines = Shape("tsc -p .", 1,
                     "error TS5058: The specified path does not exist: 'tsconfig.app.json'.\n");
  CHECK(lines[0] == "tsc: FAILED — 1 error (exit 1)");
  CHECK(lines[1] == "error TS5058: The specified path does not exist: 'tsconfig.app.json'.");
}

TEST_CASE("typescript: a long message chain keeps its first and last lines") {
  std::string output = "src/a.ts(1,1): error TS2769: No overload matches this call.\n";
  for (int i = 1; i <= 20; ++i) StrAppend(&output, "  Overload detail ", i, ".\n");
  auto lines = Shape("tsc", 2, output);
  REQUIRE(lines.size() == 1 + 1 + 10 + 1 + 3);
  CHECK(lines[11] == "  Overload detail 10.");
  CHECK(lines[12] == "… 7 more lines of this diagnostic omitted");
  CHECK(lines[13] == "  Overload detail 18.");
  CHECK(lines[15] == "  Overload detail 20.");
}

TEST_CASE("typescript: output without diagnostics and a failing exit is not guessed at") {
  std::string output =
      "npm error could not determine executable to run\n"
      "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n";
  auto lines = Shape("npx tsc --noEmit", 1, output);
  CHECK(lines[0] == "tsc: no diagnostics in the output (exit 1)");
  CHECK(Has(lines, "npm error could not determine executable to run"));
  // A failure among lines tsc did not write is kept; npm's saying that the script failed is
  // counted with the chatter (the header says so).
  std::string mixed = std::string(kPlain) +
                      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of "
                      "memory\n" +
                      "npm ERR! Lifecycle script `typecheck` failed\n" + "just chatter\n";
  lines = Shape("npm run typecheck", 2, mixed);
  CHECK(lines[0] == "tsc: FAILED — 3 errors in 2 files (exit 2)");
  CHECK(Has(lines, "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of "
                   "memory"));
  CHECK_FALSE(Has(lines, "npm ERR! Lifecycle script `typecheck` failed"));
  CHECK(lines.back() == "… 2 other lines omitted");
}

TEST_CASE("typescript: an output head let through says no errors only of what it shows") {
  // `tsc -b --verbose | head -8`: the build's first project lines; its errors come later.
  const auto s =
      Shape("npx tsc -b --verbose 2>&1 | head -8", 0,
            testing::FirstLines(testing::ReadFixture("typescript", "build-refs-verbose"), 8));
  INFO(absl::StrJoin(s, "\n"));
  CHECK(s[0] == "tsc: shown through head (its end may be cut); no errors in what it shows");
}

TEST_CASE("typescript: match") {
  CHECK(Confidence("npx tsc --noEmit", "") == doctest::Approx(0.95));
  CHECK(Confidence("pnpm exec tsc -b", "") == doctest::Approx(0.95));
  CHECK(Confidence("yarn tsc", "") == doctest::Approx(0.95));
  CHECK(Confidence("node_modules/.bin/vue-tsc --noEmit", "") == doctest::Approx(0.95));
  CHECK(Confidence("node node_modules/typescript/lib/tsc.js -p .", "") == doctest::Approx(0.95));
  CHECK(Confidence("npm run typecheck", "") == 0);
  // Only the output says it is tsc.
  CHECK(Confidence("cat build.log", kPlain) == doctest::Approx(0.85));
  CHECK(Confidence("npm run typecheck",
                   "src/a.ts:3:7 - error TS2322: Type 'string' is not assignable to type "
                   "'number'.\n") == doctest::Approx(0.85));
  CHECK(Confidence("npm run dev",
                   "[9:00:00 AM] Starting compilation in watch mode...\n") ==
        doctest::Approx(0.8));
  // Neither does.
  CHECK(Confidence("cat notes.txt", "error: something else\nTS is great\n") == 0);
  CHECK(Confidence("grep -rn tsc src", "src/a.js:3: run tsc first\n") == 0);
  CHECK(Confidence("make", "cc -c a.c\na.c:3:5: error: expected ';'\n") == 0);
}

}  // namespace
}  // namespace plugline::builtin

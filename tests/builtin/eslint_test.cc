// Tests for builtin-eslint: stylish (and next lint), compact, unix, json, ESLint's own failure,
// many problems, success, unrecognized output, and match().
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "builtin/builtin_shapers.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

std::vector<std::string> Shape(std::string_view command, std::optional<int> exit_code,
                               const std::string& output) {
  auto shaper = MakeEslintShaper();
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
  auto match = MakeEslintShaper()->Match(command, output, 1);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

constexpr std::string_view kStylish =
    "\n"
    "/app/src/a.js\n"
    "   3:10  error    'x' is not defined                 no-undef\n"
    "  12:5   warning  Unexpected console statement       no-console\n"
    "\n"
    "/app/src/b.ts\n"
    "   1:1   error    Parsing error: Unexpected token )\n"
    "   7:14  warning  Unexpected any. Specify a different type  "
    "@typescript-eslint/no-explicit-any\n"
    "\n"
    "✖ 4 problems (2 errors, 2 warnings)\n"
    "  0 errors and 1 warning potentially fixable with the `--fix` option.\n"
    "\n";

TEST_CASE("eslint: stylish keeps every row under its file and the totals") {
  auto lines = Shape("npx eslint src", 1, std::string(kStylish));
  std::vector<std::string> expected = {
      "eslint: FAILED — 4 problems (2 errors, 2 warnings) in 2 files (exit 1)",
      "/app/src/a.js",
      "   3:10  error    'x' is not defined                 no-undef",
      "  12:5   warning  Unexpected console statement       no-console",
      "/app/src/b.ts",
      "   1:1   error    Parsing error: Unexpected token )",
      "   7:14  warning  Unexpected any. Specify a different type  "
      "@typescript-eslint/no-explicit-any",
      "… 4 other lines omitted",
      "✖ 4 problems (2 errors, 2 warnings)",
      "  0 errors and 1 warning potentially fixable with the `--fix` option.",
  };
  CHECK(lines == expected);
}

TEST_CASE("eslint: many problems in a file: each rule's first row, the rest as positions") {
  std::string output = "\n/app/src/big.js\n";
  for (int i = 1; i <= 40; ++i) {
    StrAppend(&output, "  ", i, ":1  warning  Unexpected console statement  ",
              i % 8 == 0 ? "curly" : "no-console", "\n");
    if (i == 20) output += "  20:9  error  'y' is not defined  no-undef\n";
  }
  output += "\n✖ 41 problems (1 error, 40 warnings)\n";
  auto lines = Shape("eslint .", 1, output);
  const std::vector<std::string> expected = {
      "eslint: FAILED — 41 problems (1 error, 40 warnings) in 1 file (exit 1)",
      "/app/src/big.js",
      "  1:1  warning  Unexpected console statement  no-console",
      "  8:1  warning  Unexpected console statement  curly",
      "  20:9  error  'y' is not defined  no-undef",
      "… 38 more in /app/src/big.js at: 2:1 no-console; 3:1 no-console; 4:1 no-console; "
      "5:1 no-console; 6:1 no-console; 7:1 no-console; 9:1 no-console; 10:1 no-console; "
      "11:1 no-console; 12:1 no-console; 13:1 no-console; 14:1 no-console",
      "… /app/src/big.js also at: 15:1 no-console; 16:1 curly; 17:1 no-console; 18:1 no-console; "
      "19:1 no-console; 20:1 no-console; 21:1 no-console; 22:1 no-console; 23:1 no-console; "
      "24:1 curly; 25:1 no-console; 26:1 no-console",
      "… /app/src/big.js also at: 27:1 no-console; 28:1 no-console; 29:1 no-console; "
      "30:1 no-console; 31:1 no-console; 32:1 curly; 33:1 no-console; 34:1 no-console; "
      "35:1 no-console; 36:1 no-console; 37:1 no-console; 38:1 no-console",
      "… /app/src/big.js also at: 39:1 no-console; 40:1 curly",
      "… 2 other lines omitted",
      "✖ 41 problems (1 error, 40 warnings)",
  };
  CHECK(lines == expected);
}

TEST_CASE("eslint: very many errors: every position kept, with the names that differ") {
  std::string output;
  int n = 0;
  for (int f = 0; f < 50; ++f) {
    StrAppend(&output, "\n/app/src/m", f, ".js\n");
    for (int r = 0; r < 6; ++r, ++n) {
      std::string_view rule = n == 200 ? "no-dupe-keys" : (n % 2 ? "eqeqeq" : "no-undef");
      StrAppend(&output, "  ", r + 1, ":2  error  Problem '", n, "'  ", rule, "\n");
    }
  }
  StrAppend(&output, "\n✖ 300 problems (300 errors, 0 warnings)\n");
  auto lines = Shape("eslint src", 1, output);
  REQUIRE(lines.size() == 58);
  CHECK(lines[0] == "eslint: FAILED — 300 problems (300 errors, 0 warnings) in 50 files (exit 1)");
  CHECK(lines[1] == "/app/src/m0.js");
  CHECK(lines[2] == "  1:2  error  Problem '0'  no-undef");
  CHECK(lines[3] == "  2:2  error  Problem '1'  eqeqeq");
  CHECK(lines[4] ==
        "… 4 more in /app/src/m0.js at: 3:2 no-undef '2'; 4:2 eqeqeq '3'; "
        "5:2 no-undef '4'; 6:2 eqeqeq '5'");
  CHECK(lines[5] ==
        "… 6 more in /app/src/m1.js at: 1:2 no-undef '6'; 2:2 eqeqeq '7'; "
        "3:2 no-undef '8'; 4:2 eqeqeq '9'; 5:2 no-undef '10'; 6:2 eqeqeq '11'");
  // The one no-dupe-keys is its own group's first: written in full under its path line.
  CHECK(lines[37] == "/app/src/m33.js");
  CHECK(lines[38] == "  3:2  error  Problem '200'  no-dupe-keys");
  CHECK(lines[39] ==
        "… 5 more in /app/src/m33.js at: 1:2 no-undef '198'; 2:2 eqeqeq '199'; "
        "4:2 eqeqeq '201'; 5:2 no-undef '202'; 6:2 eqeqeq '203'");
  CHECK(lines[55] ==
        "… 6 more in /app/src/m49.js at: 1:2 no-undef '294'; 2:2 eqeqeq '295'; "
        "3:2 no-undef '296'; 4:2 eqeqeq '297'; 5:2 no-undef '298'; 6:2 eqeqeq '299'");
  // 51 blank lines (a list stands for its file's path line when no row of it is shown).
  REQUIRE(lines.size() == 58);
  CHECK(lines[56] == "… 51 other lines omitted");
  CHECK(lines[57] == "✖ 300 problems (300 errors, 0 warnings)");
}

TEST_CASE("eslint: --max-warnings and a warnings-only run") {
  std::string output =
      "\n/app/src/a.js\n  3:37  warning  'unit' is defined but never used  no-unused-vars\n\n"
      "✖ 1 problem (0 errors, 1 warning)\n\nESLint found too many warnings (maximum: 0).\n";
  auto lines = Shape("eslint --max-warnings 0 src", 1, output);
  CHECK(lines[0] == "eslint: FAILED — 1 problem (0 errors, 1 warning) in 1 file (exit 1)");
  CHECK(lines.back() == "ESLint found too many warnings (maximum: 0).");
}

TEST_CASE("eslint: next lint rows") {
  std::string output =
      "\n./pages/index.js\n"
      "5:3  Warning: Do not use `<img>` element.  @next/next/no-img-element\n"
      "9:7  Error: 'x' is assigned a value but never used.  no-unused-vars\n"
      "\ninfo  - Need to disable some ESLint rules? Learn more here: "
      "https://nextjs.org/docs/basic-features/eslint#disabling-rules\n";
  auto lines = Shape("npx next lint", 1, output);
  CHECK(lines[0] == "eslint: FAILED — 2 problems (1 error, 1 warning) in 1 file (exit 1)");
  CHECK(lines[1] == "./pages/index.js");
  CHECK(lines[3] == "9:7  Error: 'x' is assigned a value but never used.  no-unused-vars");
}

TEST_CASE("eslint: compact and unix formats") {
  std::string compact =
      "/app/src/a.js: line 3, col 10, Error - 'x' is not defined. (no-undef)\n"
      "/app/src/a.js: line 12, col 5, Warning - Unexpected console statement. (no-console)\n"
      "/app/src/b.js: line 1, col 1, Error - Parsing error: Unexpected token )\n"
      "\n3 problems\n";
  auto lines = Shape("eslint -f compact src", 1, compact);
  CHECK(lines[0] == "eslint: FAILED — 3 problems (2 errors, 1 warning) in 2 files (exit 1)");
  CHECK(lines[3] == "/app/src/b.js: line 1, col 1, Error - Parsing error: Unexpected token )");
  CHECK(lines.back() == "3 problems");
  std::string unix_format =
      "/app/src/a.js:3:10: 'x' is not defined. [Error/no-undef]\n"
      "/app/src/a.js:12:5: Unexpected console statement. [Warning/no-console]\n"
      "/app/src/b.js:1:1: Parsing error: Unexpected token ) [Error]\n"
      "\n3 problems\n";
  lines = Shape("eslint -f unix src", 1, unix_format);
  CHECK(lines[0] == "eslint: FAILED — 3 problems (2 errors, 1 warning) in 2 files (exit 1)");
  CHECK(lines[1] == "/app/src/a.js:3:10: 'x' is not defined. [Error/no-undef]");
}

TEST_CASE("eslint: many problems in compact, unix and json: grouped like stylish rows") {
  // 40 files, each: a no-undef whose name differs, and an eqeqeq.
  std::string compact, unix_format, json = "[";
  for (int f = 0; f < 40; ++f) {
    const std::string path = StrCat("/app/src/m", f, ".js");
    StrAppend(&compact, path, ": line 3, col 10, Error - 'v", f, "' is not defined. (no-undef)\n",
              path, ": line 7, col 16, Error - Expected '===' and instead saw '=='. (eqeqeq)\n");
    StrAppend(&unix_format, path, ":3:10: 'v", f, "' is not defined. [Error/no-undef]\n", path,
              ":7:16: Expected '===' and instead saw '=='. [Error/eqeqeq]\n");
    StrAppend(&json, f == 0 ? "" : ",", "{\"filePath\":\"", path, "\",\"messages\":[",
              "{\"ruleId\":\"no-undef\",\"severity\":2,\"message\":\"'v", f,
              "' is not defined.\",\"line\":3,\"column\":10},{\"ruleId\":\"eqeqeq\",",
              "\"severity\":2,\"message\":\"Expected '===' and instead saw '=='.\",\"line\":7,",
              "\"column\":16}],\"errorCount\":2,\"warningCount\":0}");
  }
  compact += "\n80 problems\n";
  unix_format += "\n80 problems\n";
  json += "]\n";

  auto lines = Shape("eslint -f compact src", 1, compact);
  REQUIRE(lines.size() == 44);
  CHECK(lines[0] == "eslint: FAILED — 80 problems (80 errors, 0 warnings) in 40 files (exit 1)");
  CHECK(lines[1] == "/app/src/m0.js: line 3, col 10, Error - 'v0' is not defined. (no-undef)");
  CHECK(lines[2] ==
        "/app/src/m0.js: line 7, col 16, Error - Expected '===' and instead saw '=='. (eqeqeq)");
  CHECK(lines[3] ==
        "… 2 more in /app/src/m1.js at: line 3, col 10 no-undef 'v1'; "
        "line 7, col 16 eqeqeq");
  CHECK(lines[41] ==
        "… 2 more in /app/src/m39.js at: line 3, col 10 no-undef 'v39'; "
        "line 7, col 16 eqeqeq");
  CHECK(lines[42] == "… 1 other line omitted");
  CHECK(lines[43] == "80 problems");

  lines = Shape("eslint -f unix src", 1, unix_format);
  REQUIRE(lines.size() == 44);
  CHECK(lines[1] == "/app/src/m0.js:3:10: 'v0' is not defined. [Error/no-undef]");
  CHECK(lines[3] == "… 2 more in /app/src/m1.js at: 3:10 no-undef 'v1'; 7:16 eqeqeq");

  lines = Shape("eslint -f json src", 1, json);
  REQUIRE(lines.size() == 42);
  CHECK(lines[0] ==
        "eslint: FAILED — 80 problems (80 errors, 0 warnings) in 40 files of 40 linted (exit 1)");
  CHECK(lines[1] == "/app/src/m0.js:3:10 error 'v0' is not defined. no-undef");
  CHECK(lines[2] == "/app/src/m0.js:7:16 error Expected '===' and instead saw '=='. eqeqeq");
  CHECK(lines[3] == "… 2 more in /app/src/m1.js at: 3:10 no-undef 'v1'; 7:16 eqeqeq");
  CHECK(lines[41] == "… 2 more in /app/src/m39.js at: 3:10 no-undef 'v39'; 7:16 eqeqeq");
}

TEST_CASE("eslint: json is rendered from its fields, ignoring sources and fixes") {
  std::string output =
      "[{\"filePath\":\"/app/src/a.js\",\"messages\":[{\"ruleId\":\"no-undef\",\"severity\":2,"
      "\"message\":\"'x' is not defined.\",\"line\":3,\"column\":10,\"nodeType\":\"Identifier\","
      "\"messageId\":\"undef\",\"endLine\":3,\"endColumn\":11},{\"ruleId\":\"prefer-const\","
      "\"severity\":1,\"message\":\"'y' is never reassigned.\\nUse 'const' instead.\",\"line\":5,"
      "\"column\":5,\"fix\":{\"range\":[40,43],\"text\":\"const\"},\"suggestions\":[{\"desc\":"
      "\"a \\\"quoted\\\" } ] desc\",\"fix\":{\"range\":[1,2],\"text\":\"}\"}}]}],"
      "\"suppressedMessages\":[],\"errorCount\":1,\"fatalErrorCount\":0,\"warningCount\":1,"
      "\"fixableErrorCount\":0,\"fixableWarningCount\":1,\"source\":\"let y = \\\"[{\\\\\\\"\\\";"
      "\\n}\"},{\"source\":\"ok\",\"filePath\":\"/app/src/b.js\",\"messages\":[],"
      "\"suppressedMessages\":[],\"errorCount\":0,\"fatalErrorCount\":0,\"warningCount\":0,"
      "\"fixableErrorCount\":0,\"fixableWarningCount\":0,\"usedDeprecatedRules\":[]}]\n";
  auto lines = Shape("npx eslint --format json src", 1, output);
  std::vector<std::string> expected = {
      "eslint: FAILED — 2 problems (1 error, 1 warning) in 1 file of 2 linted (exit 1)",
      "/app/src/a.js:3:10 error 'x' is not defined. no-undef",
      "/app/src/a.js:5:5 warning 'y' is never reassigned. Use 'const' instead. prefer-const",
  };
  CHECK(lines == expected);
  // json-with-metadata wraps the same results.
  std::string with_metadata =
      "{\"results\":[{\"filePath\":\"/app/src/a.js\",\"messages\":[{\"ruleId\":null,"
      "\"fatal\":true,\"severity\":2,\"message\":\"Parsing error: Unexpected token )\",\"line\":1,"
      "\"column\":1}],\"errorCount\":1,\"warningCount\":0,\"source\":\"a(\"}],"
      "\"metadata\":{\"cwd\":\"/app\",\"rulesMeta\":{\"no-undef\":{\"type\":\"problem\"}}}}\n";
  lines = Shape("eslint -f json-with-metadata src", 1, with_metadata);
  CHECK(lines ==
        std::vector<std::string>{
            "eslint: FAILED — 1 problem (1 error, 0 warnings) in 1 file of 1 linted (exit 1)",
            "/app/src/a.js:1:1 error Parsing error: Unexpected token )"});
  CHECK(Shape("eslint -f json src", 0, "[]\n") ==
        std::vector<std::string>{"eslint: no problems in 0 files"});
  // Reformatted (jq .), after npm's banner.
  std::string pretty =
      "\n> app@1.0.0 lint\n> eslint -f json src | jq .\n\n"
      "[\n  {\n    \"filePath\": \"/app/src/a.js\",\n    \"messages\": [\n      {\n"
      "        \"ruleId\": \"eqeqeq\",\n        \"severity\": 2,\n"
      "        \"message\": \"Expected '===' and instead saw '=='.\",\n"
      "        \"line\": 7,\n        \"column\": 16\n      }\n    ],\n"
      "    \"errorCount\": 1,\n    \"warningCount\": 0,\n    \"source\": \"x\"\n  }\n]\n";
  lines = Shape("npm run lint", 1, pretty);
  CHECK(lines ==
        std::vector<std::string>{
            "eslint: FAILED — 1 problem (1 error, 0 warnings) in 1 file of 1 linted (exit 1)",
            "/app/src/a.js:7:16 error Expected '===' and instead saw '=='. eqeqeq",
            "… 4 other lines omitted"});
  // Cut short (`| head`): not read, and never "no problems".
  const std::string cut = pretty.substr(0, pretty.find("\"errorCount\""));
  lines = Shape("eslint -f json src | jq . | head -12", 0, cut);
  REQUIRE(!lines.empty());
  CHECK(lines[0] ==
        "eslint: ESLint's JSON results, cut short or malformed, not read: shown by their ends");
  CHECK(Has(lines, "        \"ruleId\": \"eqeqeq\","));
}

TEST_CASE("eslint: its own failure keeps the reason") {
  std::string output =
      "\nOops! Something went wrong! :(\n\nESLint: 9.39.5\n\n"
      "TypeError: Key \"rules\": Key \"no-console\": Expected severity of \"off\", 0, \"warn\", 1, "
      "\"error\", or 2.\n";
  for (int i = 0; i < 9; ++i)
    StrAppend(&output, "    at f", i, " (/app/node_modules/eslint/x.js:1:1)\n");
  auto lines = Shape("npx eslint src", 2, output);
  CHECK(lines[0] == "eslint: failed to run (exit 2)");
  CHECK(lines[1] == "Oops! Something went wrong! :(");
  CHECK(lines[2] == "ESLint: 9.39.5");
  CHECK(lines[3].starts_with("TypeError: Key \"rules\""));
  CHECK(lines[8] == "    at f4 (/app/node_modules/eslint/x.js:1:1)");
  CHECK(lines[9] == "… 4 more stack frames omitted");
  CHECK(lines[10] == "… 3 blank lines omitted");
}

TEST_CASE("eslint: a clean run is one line, unrecognized output is not guessed at") {
  CHECK(Shape("eslint src", 0, "") == std::vector<std::string>{"eslint: no problems"});
  auto lines = Shape("npx eslint src", 1,
                     "npm error could not determine executable to run\nsome other line\n");
  CHECK(lines[0] == "eslint: no lint results in the output (exit 1)");
  CHECK(Has(lines, "npm error could not determine executable to run"));
}

TEST_CASE("eslint: match") {
  CHECK(Confidence("npx eslint src", "") == doctest::Approx(0.95));
  CHECK(Confidence("pnpm exec eslint --fix .", "") == doctest::Approx(0.95));
  CHECK(Confidence("eslint_d src", "") == doctest::Approx(0.95));
  CHECK(Confidence("yarn run eslint .", "") == doctest::Approx(0.95));
  CHECK(Confidence("node node_modules/eslint/bin/eslint.js src", "") == doctest::Approx(0.95));
  CHECK(Confidence("npm run lint", "") == 0);
  CHECK(Confidence("npx next lint", "") == doctest::Approx(0.9));
  // Only the output says it is ESLint.
  CHECK(Confidence("npm run lint", kStylish) == doctest::Approx(0.85));
  CHECK(Confidence("cat lint.log", "\n/app/a.js\n  3:10  error  'x' is not defined  no-undef\n") ==
        doctest::Approx(0.7));
  CHECK(Confidence("cat report.json", "[{\"filePath\":\"/a.js\",\"messages\":[]}]") ==
        doctest::Approx(0.85));
  CHECK(Confidence("npm run lint", "\nOops! Something went wrong! :(\n\nESLint: 8.57.0\n") ==
        doctest::Approx(0.85));
  CHECK(Confidence("make lint",
                   "/app/a.js:3:10: 'x' is not defined. [Error/no-undef]\n\n"
                   "1 problem\n") == doctest::Approx(0.8));
  // Neither does.
  CHECK(Confidence("cat notes.txt", "3:10 is the time\nerror: nothing\n") == 0);
  CHECK(Confidence("grep -rn eslint .", "./package.json:12:    \"eslint\": \"^9.0.0\",\n") == 0);
  CHECK(Confidence("tsc", "src/a.ts(3,7): error TS2322: Type 'string' is not assignable.\n") == 0);
}

TEST_CASE("eslint: what npm says after the lint script failed is counted, not shown") {
  // A constructed run: ESLint's real stylish output (fixture eslint/stylish-failing) followed
  // by the block npm 11 prints after a workspace's script failed (from the real run of
  // fixture typescript/npm-workspace-failing), as `npm run lint -w web` prints them.
  const std::string tsc = testing::ReadFixture("typescript", "npm-workspace-failing");
  const std::string output = testing::ReadFixture("eslint", "stylish-failing") +
                             tsc.substr(tsc.find("npm error Lifecycle script"));
  auto lines = Shape("npm run lint -w web", 1, output);
  for (const std::string& line : lines) CHECK_FALSE(line.starts_with("npm error"));
  CHECK(Has(lines, "… 15 other lines omitted"));  // 7 of npm's, and the blank ones
  CHECK(Has(lines, "✖ 22 problems (12 errors, 10 warnings)"));
}

TEST_CASE("eslint: stylelint's rows, with ✖ and ⚠ for the severity, are read and named by stylelint") {
  const std::string output = testing::ReadFixture("eslint", "stylelint-many");
  // Its unix format is the lint shaper's; its default rows are ESLint's stylish ones.
  CHECK(Confidence("npx stylelint 'css/*.css'", output) >= 0.95);
  const auto lines = Shape("npx stylelint 'css/*.css'", 2, output);
  REQUIRE(!lines.empty());
  CHECK(lines.front() ==
        "stylelint: FAILED — 1,474 problems (1,474 errors, 0 warnings) in 5 files (exit 2)");
  for (std::string_view file : {"css/bootstrap-grid.css", "css/bootstrap-reboot.css", "css/gitweb.css",
                                "css/node-api.css", "css/planted.css"}) {
    CHECK_MESSAGE(std::find(lines.begin(), lines.end(), file) != lines.end(), file);
  }
  CHECK(std::find(lines.begin(), lines.end(),
                  "  2:17  ✖  Unexpected invalid hex color \"#12345\"  color-no-invalid-hex") != lines.end());
  const std::string two = "a.css\n  1:9   ✖  Unexpected unknown property \"colr\"  property-no-unknown\n"
                          "  3:19  ⚠  Unexpected unit  length-zero-no-unit\n\n"
                          "✖ 2 problems (1 error, 1 warning)\n";
  CHECK(Shape("stylelint a.css", 2, two).front() ==
        "stylelint: FAILED — 2 problems (1 error, 1 warning) in 1 file (exit 2)");
}

TEST_CASE("eslint: another tool printing stylish rows is named by its command, ESLint's by ESLint") {
  const std::string rows =
      "./deploy/api/deployment.yaml\n"
      "  1:1       warning  missing document start \"---\"  (document-start)\n"
      "  12:81     error    line too long (124 > 80 characters)  (line-length)\n\n"
      "./.ci/pipeline.yml\n"
      "  7:13      error    syntax error: mapping values are not allowed here (syntax)\n\n";
  CHECK(Shape("yamllint .", 1, rows).front() ==
        "yamllint: FAILED — 3 problems (2 errors, 1 warning) in 2 files (exit 1)");
  // A package script's runner says nothing of who printed the rows: ESLint's format is ESLint's.
  CHECK(Shape("npm run lint", 1, rows).front() ==
        "eslint: FAILED — 3 problems (2 errors, 1 warning) in 2 files (exit 1)");
  // ESLint's own totals line names it whatever ran it.
  CHECK(Shape("./scripts/check.sh", 1, rows + "✖ 3 problems (2 errors, 1 warning)\n")
            .front()
            .starts_with("eslint: FAILED — 3 problems"));
}

}  // namespace
}  // namespace plugline::builtin

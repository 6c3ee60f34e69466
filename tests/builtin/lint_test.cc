// Tests for builtin-lint: linters and type checkers that print a problem per line. The outputs
// are the real ones in tests/fixtures/lint (generators/lint/gen.sh records how each was made).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "core/strings.h"
#include "core/summary_budget.h"
#include "core/tokens.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

using testing::Contains;

std::string Fixture(const std::string& name) {
  std::string output = testing::ReadFixture("lint", name);
  REQUIRE(!output.empty());
  return output;
}

double Confidence(const std::shared_ptr<core::Shaper>& shaper, std::string_view command,
                  std::string_view output) {
  auto match = shaper->Match(command, output, 1);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

core::ShapeOutput Shape(std::string_view command, std::string_view output, int exit_code) {
  auto shaper = MakeLintShaper();
  core::ShapeContext ctx{command, exit_code, output.size(), core::CountLines(output),
                         "/s/outputs/a.log"};
  auto shaped = shaper->Shape(output, ctx);
  REQUIRE(shaped.ok());
  return *shaped;
}

TEST_CASE("lint: known linters by the command, problem lines by the output, not grep or eslint") {
  auto lint = MakeLintShaper();
  CHECK(Confidence(lint, "flake8 .", Fixture("flake8-failing")) == doctest::Approx(0.95));
  CHECK(Confidence(lint, "python3 -m mypy --strict inventory", Fixture("mypy-failing")) ==
        doctest::Approx(0.95));
  CHECK(Confidence(lint, "pylint inventory", Fixture("pylint-failing")) == doctest::Approx(0.95));
  // Saved output, no command: the lines themselves.
  CHECK(Confidence(lint, "cat lint.txt", Fixture("shellcheck-gcc-failing")) ==
        doctest::Approx(0.7));
  // grep's match lines have a location but neither a severity nor a code.
  const std::string grep =
      "src/a.c:12:    fprintf(stderr, \"error: %s\\n\", msg);\n"
      "src/a.c:40:    return error;\n"
      "src/b.c:7:  /* error: handled by caller */\n"
      "src/b.c:9:  int errors = 0;\n";
  CHECK(Confidence(lint, "cat found.txt", grep) == 0);
  // ESLint's unix format is ESLint's.
  const std::string unix_format =
      "/w/src/a.js:3:5: 'x' is assigned a value but never used. [Warning/no-unused-vars]\n"
      "/w/src/a.js:9:12: Expected '===' and instead saw '=='. [Error/eqeqeq]\n"
      "/w/src/b.js:1:1: 'y' is not defined. [Error/no-undef]\n"
      "\n"
      "3 problems\n";
  CHECK(Confidence(MakeEslintShaper(), "cat out.txt", unix_format) >
        Confidence(lint, "cat out.txt", unix_format));
}

TEST_CASE(
    "lint: the gcc format on files without an extension: every problem counted, every location "
    "kept") {
  const std::string output = Fixture("shellcheck-gcc-large");
  const core::ShapeOutput shaped =
      Shape("shellcheck -f gcc zgrep gzexe zdiff znew zmore", output, 1);
  const std::string& s = shaped.summary;
  INFO(s);
  CHECK(core::SplitLines(s).front() ==
        "shellcheck: FAILED — 1 error, 13 warnings, 55 notes in 5 files (exit 1)");
  CHECK(testing::LostLocations(output, s, ": warning: ") == std::vector<std::string>{});
  CHECK(Contains(s, "zdiff:138:31: error: Shells disambiguate (( differently"));
  // A bare name needs a line, a column and a severity: not a time or a count.
  CHECK(Confidence(MakeLintShaper(), "cat notes.txt",
                   "at 12:30:45: note: lunch\nstep 3:4: done\n") == 0);
}

TEST_CASE("lint: pylint's duplicate-code problems keep the copies each names") {
  std::string output = "************* Module yamllint.rules.key_duplicates\n";
  for (int i = 1; i <= 11; ++i) {
    StrAppend(&output, "yamllint/rules/common.py:", i * 10,
              ":0: C0116: Missing function or method docstring (missing-function-docstring)\n");
  }
  auto similar = [&](std::string_view a, std::string_view b) {
    StrAppend(&output,
              "yamllint/rules/key_duplicates.py:1:0: R0801: Similar lines in 2 files\n==", a,
              "\n==", b, "\nTYPE = 'token'\n\nMAP, SEQ = range(2) (duplicate-code)\n");
  };
  similar("yamllint.rules.key_duplicates:[61:85]", "yamllint.rules.key_ordering:[90:114]");
  similar("yamllint.rules.braces:[141:156]", "yamllint.rules.brackets:[142:157]");
  similar("yamllint.rules.braces:[170:177]", "yamllint.rules.brackets:[171:178]");
  output += "\n-----------------------------------\nYour code has been rated at 7.73/10\n";
  const std::string s = Shape("pylint yamllint", output, 28).summary;
  INFO(s);
  CHECK(Contains(
      s,
      "yamllint/rules/key_duplicates.py:1:0: R0801: Similar lines in 2 files\n"
      "==yamllint.rules.key_duplicates:[61:85]\n==yamllint.rules.key_ordering:[90:114]\n"));
  CHECK(Contains(s, "(yamllint.rules.braces:[141:156], yamllint.rules.brackets:[142:157])"));
  CHECK(Contains(s, "(yamllint.rules.braces:[170:177], yamllint.rules.brackets:[171:178])"));
}

TEST_CASE("lint: many problems are grouped by message, every location kept, the totals last") {
  const std::string output = Fixture("mypy-large");
  const core::ShapeOutput shaped = Shape("mypy --strict pygments/formatters", output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  const auto lines = core::SplitLines(s);
  CHECK(lines.front().starts_with("mypy: FAILED — "));
  CHECK(Contains(lines.front(), " in 13 files (exit 1)"));
  CHECK(lines.back() == "Found 186 errors in 13 files (checked 14 source files)");
  CHECK(lines.size() * 3 < core::CountLines(output));
  // Every problem's location is in the summary, on its line or in a list.
  CHECK(testing::LostLocations(output, s, ": error: ") == std::vector<std::string>{});
  // A group's list names what differs: the called function.
  CHECK(Contains(s, "more no-untyped-call, names differing, at: "));
}

TEST_CASE("lint: javac's errors grouped by message keep the symbol each names on its own lines") {
  const std::string output = Fixture("javac-many");
  const core::ShapeOutput shaped = Shape("javac -d out src/shop/*.java", output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  const auto lines = core::SplitLines(s);
  CHECK(lines.front() == "javac: FAILED — 49 errors in 8 files (exit 1)");
  CHECK(lines.back() == "49 errors");
  // "cannot find symbol" says which symbol only on the "symbol:" line under it: a follower
  // whose symbol is not the first's gives it (and its "location:") after its location.
  CHECK(Contains(s, "  symbol:   method addd(String)\n"));
  CHECK(Contains(s, "more errors like it, names differing, at: "));
  CHECK(Contains(s, "src/shop/Coupon.java:7 (variable Money, class Coupon); "));
  // The same symbol and location as the first's: the location alone.
  CHECK(Contains(s, "src/shop/Coupon.java:8; "));
  // Every error's location is in the summary.
  CHECK(testing::LostLocations(output, s, ": error: ") == std::vector<std::string>{});
}

TEST_CASE(
    "lint: flake8's codes group its problems, pylint's banners are counted and its score kept") {
  const std::string flake8 = Fixture("flake8-large");
  const core::ShapeOutput f =
      Shape("flake8 pygments/formatters pygments/filters pygments/styles", flake8, 1);
  REQUIRE(f.render_mode == RenderMode::kSummary);
  INFO(f.summary);
  CHECK(core::SplitLines(f.summary).front() ==
        "flake8: FAILED — 843 problems in 27 files (exit 1)");
  CHECK(Contains(f.summary, "more E501, names differing, at: "));
  CHECK(Contains(f.summary, "pygments/formatters/svg.py:103:9: E722 do not use bare 'except'\n"));

  const std::string pylint = Fixture("pylint-failing");
  const core::ShapeOutput p = Shape("pylint inventory", pylint, 20);
  REQUIRE(p.render_mode == RenderMode::kSummary);
  INFO(p.summary);
  CHECK_FALSE(Contains(p.summary, "************* Module"));
  CHECK(Contains(p.summary, "inventory/stock.py:3:0: W0611: Unused import sys (unused-import)\n"));
  CHECK(core::SplitLines(p.summary).back() == "Your code has been rated at 4.86/10");
  CHECK(core::SplitLines(p.summary).front() ==
        "pylint: FAILED — 3 warnings, 15 conventions in 2 files (exit 20)");
  // 18 problems, more than 10: grouped, every location kept.
  CHECK(Contains(p.summary, "inventory/report.py:6:0: C0116: Missing function or method docstring "
                            "(missing-function-docstring)\n… 7 more C0116 at: inventory/report.py:14:0; "));
  for (std::string_view line : core::SplitLines(pylint)) {
    if (!line.starts_with("inventory/")) continue;
    const std::string_view where = line.substr(0, line.find(": "));
    CHECK_MESSAGE((Contains(p.summary, StrCat(where, ": ")) || Contains(p.summary, StrCat(where, ";")) ||
                   Contains(p.summary, StrCat(where, "\n"))), where);
  }
}

TEST_CASE("lint: pre-commit's hooks, shellcheck's blocks among flake8's lines, every location kept") {
  const std::string output = Fixture("pre-commit-local");
  REQUIRE(!output.empty());
  const core::ShapeOutput shaped = Shape("pre-commit run --all-files", output, 1);
  const std::string& s = shaped.summary;
  INFO(s);
  // Files: four Python files and the script ("scripts/deploy.sh line 3" is one file's).
  CHECK(s.starts_with("pre-commit: FAILED — 1 error, 9 problems, 3 info in 5 files (exit 1)\n"));
  CHECK(Contains(s, "In scripts/deploy.sh line 3:\nfor f in $(ls $DIR/*.tar.gz); do\n"
                    "         ^-----------------^ SC2045 (error): Iterating over ls output"));
  // A block's second marker leads its group: its block's location above it.
  CHECK(Contains(s, "In scripts/deploy.sh line 3:\n              ^--^ SC2086 (info): "));
  CHECK(Contains(s, "… 2 more SC2086 at: scripts/deploy.sh line 4; scripts/deploy.sh line 5\n"));
  CHECK(Contains(s, "src/shop/util.py:6:13: E711 "));
  CHECK(Contains(s, "trim trailing whitespace....") );
  CHECK(Contains(s, "Failed\n- files were modified by this hook\n"));
  CHECK(!Contains(s, "Did you mean:"));
  CHECK(!Contains(s, "https://www.shellcheck.net/wiki/"));
}

TEST_CASE("lint: markdownlint's problems, a space after the location, keep every location, grouped by rule") {
  const std::string output = Fixture("markdownlint-many");
  const core::ShapeOutput shaped = Shape("npx markdownlint docs", output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  CHECK(s.starts_with("markdownlint: FAILED — 112 problems in 6 files (exit 1)\n"));
  CHECK(Contains(s, "more MD013/line-length, names differing, at: "));
  for (std::string_view line : core::SplitLines(output)) {
    const std::string_view where = line.substr(0, line.find(' '));
    const bool kept = Contains(s, StrCat(where, " ")) || Contains(s, StrCat(where, ";")) ||
                      Contains(s, StrCat(where, "\n"));
    CHECK_MESSAGE(kept, where);
  }
  // Without a linter's command (a script ran it), a location ended by a space is a problem's
  // when a rule's code follows it; a space alone is not enough.
  CHECK(Confidence(MakeLintShaper(), "./lint.sh", output) == doctest::Approx(0.7));
  CHECK(Shape("./lint.sh", output, 1)
            .summary.starts_with("lint.sh: FAILED — 112 problems in 6 files (exit 1)\n"));
  CHECK(Confidence(MakeLintShaper(), "cat notes.txt",
                   "src/a.c:12 check the bounds here\nsrc/a.c:40 and here\n"
                   "src/b.c:7 this one too\n") < 0.7);
}

TEST_CASE("lint: RuboCop's offenses read with their cop and severity, every cop named under budget") {
  for (const char* name : {"rubocop-emacs-many", "rubocop-default-many"}) {
    const std::string output = Fixture(name);
    const std::string command =
        std::string(name) == "rubocop-emacs-many" ? "rubocop --format emacs" : "rubocop";
    const core::ShapeOutput shaped = Shape(command, output, 1);
    REQUIRE(shaped.render_mode == RenderMode::kSummary);
    const std::string& s = shaped.summary;
    INFO(name, "\n", s);
    CHECK(s.starts_with("rubocop: FAILED — 31 warnings, 1,003 conventions in 19 files (exit 1)\n"));
    CHECK(Contains(s, "\n… 1,034 problems by code: Style/ClassAndModuleChildren 94, "
                      "Style/CommentedKeyword 79, "));
    // A measure in brackets ("[125/100]") is no code.
    CHECK_FALSE(Contains(s, "more 125/100"));
    // Every cop of the output is in the tally.
    const std::string tally(core::SplitLines(s)[1]);
    for (std::string_view line : core::SplitLines(output)) {
      const size_t severity = line.find(": C: ") != std::string_view::npos
                                  ? line.find(": C: ")
                                  : line.find(": W: ");
      if (severity == std::string_view::npos) continue;
      std::string_view rest = line.substr(severity + 5);
      if (rest.starts_with("[Correctable] ")) rest.remove_prefix(14);
      const std::string cop(rest.substr(0, rest.find(": ")));
      CHECK_MESSAGE(Contains(tally, " " + cop + " "), cop);
    }
  }
}

TEST_CASE("lint: Checkstyle's problems, the level in brackets before the location, grouped by rule") {
  const std::string sun = Fixture("checkstyle-sun");
  CHECK(Confidence(MakeLintShaper(), "checkstyle -c /sun_checks.xml src", sun) >= 0.95);
  const core::ShapeOutput shaped = Shape("checkstyle -c /sun_checks.xml src", sun, 224);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  CHECK(s.starts_with("checkstyle: FAILED — 224 errors in 8 files (exit 224)\n"));
  CHECK(Contains(s, "more LeftCurly"));
  CHECK(Contains(s, "\nCheckstyle ends with 224 errors.\n"));
  // Every problem's location is kept, as printed or listed.
  for (std::string_view line : core::SplitLines(sun)) {
    if (!line.starts_with("[ERROR] ")) continue;
    const std::string_view where = line.substr(8, line.find(": ", 8) - 8);
    CHECK_MESSAGE(Contains(s, std::string(where)), where);
  }
  const core::ShapeOutput google = Shape("checkstyle -c /google_checks.xml src", Fixture("checkstyle-google"), 0);
  CHECK(google.summary.starts_with("checkstyle: 415 warnings in 8 files\n"));
}

TEST_CASE("lint: pydocstyle's two-line problems are grouped by their code, every location kept") {
  const std::string output = Fixture("pydocstyle-click");
  const core::ShapeOutput shaped = Shape("pydocstyle click", output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  CHECK(s.starts_with("pydocstyle: FAILED — 633 problems in 16 files (exit 1)\n"));
  CHECK(Contains(s, "\n… 633 problems by code: D205 151, D400 148, D102 117, "));
  CHECK(Contains(s, "\nclick/decorators.py:156 in public function `command`:\n"
                    "        D202: No blank lines allowed after function docstring (found 1)\n"));
  // Each location: as printed, or in its code's list.
  for (std::string_view line : core::SplitLines(output)) {
    if (line.starts_with(" ")) continue;
    const std::string where(line.substr(0, line.find(' ')));
    CHECK_MESSAGE((Contains(s, where + " ") || Contains(s, where + ";") || Contains(s, where + "\n")), where);
  }
}

TEST_CASE("lint: bandit's issue blocks keep the issue, its severity and location, the code and links counted") {
  const std::string output = Fixture("bandit-flask");
  CHECK(Confidence(MakeLintShaper(), "bandit -r flask", output) >= 0.95);
  const core::ShapeOutput shaped = Shape("bandit -r flask", output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  CHECK(s.starts_with("bandit: FAILED — 7 problems in 6 files (exit 1)\n"));
  CHECK(Contains(s, ">> Issue: [B307:blacklist] Use of possibly insecure function - consider using safer "
                    "ast.literal_eval.\n   Severity: Medium   Confidence: High\n   Location: flask/cli.py:960\n"));
  CHECK_FALSE(Contains(s, "More Info:"));
  CHECK_FALSE(Contains(s, "eval(compile("));
}

TEST_CASE("lint: vulture and Debian's pyflakes3 are linters by their command") {
  std::string output;
  for (int i = 1; i <= 40; ++i) {
    StrAppend(&output, "db/models/query.py:", 100 + i, ": unused variable 'row", i, "' (60% confidence)\n");
  }
  CHECK(Confidence(MakeLintShaper(), "vulture db", output) >= 0.95);
  const core::ShapeOutput shaped = Shape("vulture db", output, 3);
  CHECK(shaped.summary.starts_with("vulture: FAILED — 40 problems in 1 file (exit 3)\n"));
  CHECK(Confidence(MakeLintShaper(), "pyflakes3 django",
                   "django/a.py:4:1: 'os' imported but unused\n") >= 0.95);
}

TEST_CASE("lint: Maven's compiler errors are read by their level and [line,col], the repeat after the goal counted") {
  const std::string output = Fixture("maven-compile-many");
  const std::string command = "mvn -o -B compile";
  CHECK(Confidence(MakeLintShaper(), command, output) >= 0.9);
  // The logs shaper reads Maven's [INFO]/[ERROR] levels too, with less confidence.
  CHECK(Confidence(MakeLogsShaper(), command, output) < 0.9);
  const core::ShapeOutput shaped = Shape(command, output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  const std::string& s = shaped.summary;
  INFO(s);
  CHECK(s.starts_with(
      "mvn: FAILED — 49 errors in 8 files (exit 1)\n"
      "[ERROR] /tmp/plugline-fixtures/maven/shop/src/main/java/shop/Shipment.java:[7,51] "
      "incompatible types: int cannot be converted to java.lang.String\n"));
  CHECK(Contains(s, "  symbol:   method addd(java.lang.String)\n"));
  CHECK(Contains(s, "/shop/Coupon.java:[11,34] (variable Money, class shop.Coupon); "));
  // Every error's location, once: Maven's second list of them (under "Failed to execute goal")
  // and its help lines are counted.
  for (std::string_view line : core::SplitLines(output)) {
    if (!line.starts_with("[ERROR] /")) continue;
    const std::string_view where = line.substr(8, line.find("] ", 8) - 7);
    CHECK_MESSAGE(Contains(s, where), where);
  }
  CHECK_FALSE(Contains(s, "[Help 1]"));
  CHECK_FALSE(Contains(s, "[ERROR]   symbol:"));
  CHECK(Contains(s, "\n[INFO] 49 errors \n[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal "));
  // Cut at its start (`mvn compile | tail -200`): the first list lost its first 20 errors, which
  // the repeat under "Failed to execute goal" still has. Each location is kept, once.
  const std::string cut = testing::LastLines(output, 200);
  const std::string t = Shape("mvn -o -B compile 2>&1 | tail -200", cut, 1).summary;
  INFO(t);
  CHECK(t.starts_with("mvn: FAILED — 49 errors in 8 files (exit 1)\n"));
  for (std::string_view line : core::SplitLines(cut)) {
    if (!line.starts_with("[ERROR] /")) continue;
    const std::string_view where = line.substr(8, line.find("] ", 8) - 7);
    CHECK_MESSAGE(Contains(t, where), where);
    CHECK_MESSAGE(t.find(where) == t.rfind(where), where);
  }
}

TEST_CASE("lint: pyright's indented problems and their continuation lines") {
  const std::string output = Fixture("pyright-failing");
  // Under 30 problems with file-path lines between: a summary without the path lines.
  const core::ShapeOutput shaped = Shape("npx pyright", output, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  INFO(shaped.summary);
  CHECK(core::SplitLines(shaped.summary).front() ==
        "pyright: FAILED — 5 errors in 3 files (exit 1)");
  // The continuation lines (indented with no-break spaces) go with their problem.
  CHECK(Contains(shaped.summary,
                 "stock.py:22:16 - error: Type \"int | None\" is not assignable to return type "
                 "\"int\"\n  "));
  CHECK(Contains(shaped.summary, "Type \"int | None\" is not assignable to type \"int\"\n"));
  CHECK(Contains(shaped.summary, "\"None\" is not assignable to \"int\" (reportReturnType)\n"));
  CHECK_FALSE(Contains(shaped.summary, "\n/tmp/plugline-fixtures/lint/inventory/main.py\n"));
  CHECK(core::SplitLines(shaped.summary).back() == "5 errors, 0 warnings, 0 informations ");
}

TEST_CASE("lint: a few problems and nothing else are shown as printed") {
  const core::ShapeOutput shaped = Shape("flake8 .", Fixture("flake8-failing"), 1);
  CHECK(shaped.render_mode == RenderMode::kRaw);
  const core::ShapeOutput clean = Shape("flake8 .", "", 0);
  CHECK(clean.summary == "flake8: no problems\n");
}

TEST_CASE("lint: shellcheck's own format, each block with its markers, many grouped by code") {
  // 20 blocks of two problems (SC2086 and SC2164), fixes and links after.
  std::string out;
  for (int i = 1; i <= 20; ++i) {
    StrAppend(&out, "\nIn run.sh line ", i, ":\n", "  cd $dir", i, "\n",
              "  ^------^ SC2164 (warning): Use 'cd ... || exit' or 'cd ... || return' in case cd fails.\n",
              "     ^--^ SC2086 (info): Double quote to prevent globbing and word splitting.\n",
              "\nDid you mean: \n", "  cd \"$dir", i, "\" || exit\n\n");
  }
  out += "For more information:\n"
         "  https://www.shellcheck.net/wiki/SC2164 -- Use 'cd ... || exit' or 'cd ... |...\n"
         "  https://www.shellcheck.net/wiki/SC2086 -- Double quote to prevent globbing ...\n";
  CHECK(Confidence(MakeLintShaper(), "shellcheck run.sh", out) == doctest::Approx(0.95));
  auto shaped = Shape("shellcheck run.sh", out, 1);
  REQUIRE(shaped.render_mode == RenderMode::kSummary);
  auto lines = core::SplitLines(shaped.summary);
  CHECK(lines[0] == "shellcheck: FAILED — 20 warnings, 20 info in 1 file (exit 1)");
  // The first block as printed, both markers under its line, then each group's list.
  CHECK(lines[1] == "In run.sh line 1:");
  CHECK(lines[2] == "  cd $dir1");
  CHECK(lines[3] == "  ^------^ SC2164 (warning): Use 'cd ... || exit' or 'cd ... || return' in case cd fails.");
  CHECK(lines[4] == "     ^--^ SC2086 (info): Double quote to prevent globbing and word splitting.");
  CHECK(lines[5] == "… 19 more SC2164 at: run.sh line 2; run.sh line 3; run.sh line 4; run.sh line 5; "
                    "run.sh line 6; run.sh line 7; run.sh line 8; run.sh line 9; run.sh line 10; "
                    "run.sh line 11; run.sh line 12; run.sh line 13");
  CHECK(lines[6] == "… SC2164 also at: run.sh line 14; run.sh line 15; run.sh line 16; run.sh line 17; "
                    "run.sh line 18; run.sh line 19; run.sh line 20");
  CHECK(lines[7].starts_with("… 19 more SC2086 at: run.sh line 2; "));
  CHECK(shaped.summary.find("In run.sh line 2:") == std::string::npos);
  CHECK(shaped.summary.find("… 40 lines of suggested fixes omitted\n") != std::string::npos);
  CHECK(shaped.summary.find("… 3 lines of wiki links omitted\n") != std::string::npos);
}

TEST_CASE("lint: an output head let through says no problems only of what it shows") {
  // `bandit -r flask | head -3`: its profile lines; the issues come after.
  const core::ShapeOutput s =
      Shape("bandit -r flask 2>&1 | head -3", testing::FirstLines(Fixture("bandit-flask"), 3), 0);
  CHECK(s.summary.starts_with(
      "bandit: shown through head (its end may be cut); no problems in what it shows\n"));
}

TEST_CASE("lint: shellcheck's output cut at its start keeps the codes of the problems cut off") {
  const std::string output = Fixture("shellcheck-large");
  const std::string command = "shellcheck zgrep gzexe zdiff znew zmore 2>&1 | tail -";
  // Only its wiki links left: problems there were, of those codes. Not "no problems".
  const core::ShapeOutput links = Shape(command + "3", testing::LastLines(output, 3), 0);
  CHECK(links.summary ==
        "shellcheck: FAILED — problems of 3 codes (SC1105, SC2034, SC2046) listed by its wiki "
        "links; the diagnostics are cut off");
  CHECK(links.render_mode == RenderMode::kRaw);
  CHECK(links.failed);
  // A block's markers above the first "In x line N:" (its heading and source line cut off),
  // and the links for codes no problem shown has, are kept.
  const std::string s = Shape(command + "20", testing::LastLines(output, 20), 0).summary;
  INFO(s);
  CHECK(
      Contains(s,
               "\n                              ^-- SC2006 (style): Use $(...) notation instead of "
               "legacy backticks `...`.\n"));
  CHECK(Contains(s, "\n  https://www.shellcheck.net/wiki/SC1105 -- "));
  CHECK(Contains(s, "\n  https://www.shellcheck.net/wiki/SC2046 -- "));
  CHECK_FALSE(Contains(s, "wiki/SC2086"));  // its problem is shown
}

TEST_CASE(
    "lint: an output cut inside a problem says what its totals count and keeps that "
    "problem's end") {
  // `mypy --pretty | tail -20` begins inside the first error's wrapped message: its code,
  // "[no-untyped-def]", on a line of its own, then the source and the caret.
  const std::string output = Fixture("mypy-pretty-failing");
  const std::string s =
      Shape("mypy --strict --pretty inventory 2>&1 | tail -20", testing::LastLines(output, 20), 0)
          .summary;
  INFO(s);
  CHECK(
      s.starts_with("mypy: 4 errors in 2 files (its totals count 5 errors)\n[no-untyped-def]\n"
                    "inventory/stock.py:22: error: "));
  CHECK(Contains(s, "\nFound 5 errors in 2 files (checked 3 source files)\n"));
  // Whole, nothing is said of its totals: they count what is shown.
  CHECK(Shape("mypy --strict --pretty inventory", output, 1)
            .summary.starts_with("mypy: FAILED — 5 errors in 2 files (exit 1)\n"));
}

TEST_CASE("lint: Biome's blocks and oxlint's miette report: each problem's location and rule, the frames counted") {
  {
    const std::string out = testing::ReadFixture("lint", "biome-lint-small");
    const std::string s = Shape("npx biome lint --max-diagnostics=50 src", out, 1).summary;
    INFO(s);
    CHECK(s.starts_with("biome: FAILED — "));
    CHECK(Contains(s, "22 errors"));
    // Every diagnostic's location and rule survive (past 30, grouped by rule: a group's first
    // by its heading and first message, the others listed by location).
    size_t headings = 0;
    for (std::string_view line : core::SplitLines(out)) {
      if (line.find("\xE2\x94\x81\xE2\x94\x81") == std::string_view::npos || line.starts_with("lint ")) continue;
      ++headings;
      const std::string_view where = line.substr(0, line.find(' '));
      const std::string_view rest = line.substr(where.size() + 1);
      const std::string_view rule = rest.substr(0, rest.find(' '));
      CHECK_MESSAGE(Contains(s, StrCat(where, " ")) + Contains(s, StrCat(where, ";")) +
                            Contains(s, StrCat(where, "\n")) > 0,
                    where);
      CHECK_MESSAGE(Contains(s, rule), rule);
    }
    CHECK(headings == 40);
    CHECK(Contains(s, "  × Illegal use of an export declaration outside of a module\n"));
    // The fixes' diffs and the explanations are counted.
    CHECK_FALSE(Contains(s, "Unsafe fix:"));
    CHECK_FALSE(Contains(s, "│ - "));
    CHECK(Contains(s, " detail lines omitted\n"));
  }
  {
    const std::string out = testing::ReadFixture("lint", "biome-lint-many");
    const std::string s = Shape("npx biome lint --max-diagnostics=200 lib", out, 1).summary;
    INFO(s);
    // What Biome did not show is said in the header.
    CHECK(
        s.starts_with("biome: FAILED — 28 errors, 172 warnings in 17 files, 1992 more not shown by "
                      "biome (exit 1)\n"));
  }
  {
    const std::string out = testing::ReadFixture("lint", "oxlint-small");
    const std::string s = Shape("npx oxlint src", out, 0).summary;
    INFO(s);
    CHECK(s.starts_with("oxlint: 4 warnings in 2 files\n"));
    CHECK(Contains(s, "  ! eslint(no-debugger): `debugger` statement is not allowed\n"
                      "    ,-[src/ui/table.js:10:3]\n"
                      "  help: Remove the debugger statement\n"));
    // The code frame is counted: the file has the code, the location says where.
    CHECK_FALSE(Contains(s, " 10 |   debugger\n"));
    CHECK_FALSE(Contains(s, "`----"));
    CHECK(Contains(s, "Found 4 warnings and 0 errors.\n"));
  }
  {
    const std::string out = testing::ReadFixture("lint", "oxlint-many");
    const std::string s = Shape("npx oxlint lib", out, 0).summary;
    INFO(s);
    CHECK(s.starts_with("oxlint: 114 warnings in 8 files\n"));
    // Every location survives, grouped by rule.
    for (std::string_view line : core::SplitLines(out)) {
      const std::string_view t = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
      if (!t.starts_with(",-[")) continue;
      const std::string_view where = t.substr(3, t.size() - 4);
      CHECK_MESSAGE(Contains(s, where), where);
    }
  }
}

TEST_CASE("lint: oxlint's report with the blank lines and locations taken out keeps its totals") {
  // `npx oxlint lib 2>&1 | grep -E 'ERROR|Error|error'`: headings and help lines that say "error",
  // the totals; no location, no blank line. Before, the last block ran on over the totals, and the
  // header said "in 0 files" over a list of "(no file)".
  const std::string out =
      testing::LinesWith(testing::ReadFixture("lint", "oxlint-many"), {"ERROR", "Error", "error"});
  const std::string s = Shape("npx oxlint lib 2>&1 | grep -E 'ERROR|Error|error'", out, 0).summary;
  INFO(s);
  CHECK(s.starts_with("oxlint: 11 warnings\n"));
  CHECK(Contains(s, "\n… 9 more eslint(no-unused-vars) (their locations are not in the output)\n"));
  CHECK_FALSE(Contains(s, "(no file)"));
  CHECK(Contains(s, "\nFound 114 warnings and 0 errors.\n"));
}

TEST_CASE("lint: errors first: pylint's codes give their category, and a budget keeps the one real error") {
  const std::string out = testing::ReadFixture("lint", "pylint-behave");
  const std::string s = Shape("pylint behave", out, 30).summary;
  INFO(s);
  CHECK(
      s.starts_with("pylint: FAILED — 6 errors, 1,239 warnings, 565 conventions, 218 refactors in "
                    "44 files (exit 30)\n"));
  // The groups of errors come before the warnings', and those before the others'.
  const size_t error = s.find("E0602: Undefined variable 'undefined_steps'");
  const size_t warning = s.find(": W1406: ");
  const size_t convention = s.find(": C0116: ");
  REQUIRE(error != std::string::npos);
  REQUIRE(warning != std::string::npos);
  REQUIRE(convention != std::string::npos);
  CHECK(error < warning);
  CHECK(warning < convention);
  // Under a budget that leaves most groups out, it stays.
  const auto counter = core::MakeEstimateTokenCounter();
  const core::BudgetCut cut = core::FitToBudget(s, 3000, 60, *counter);
  INFO(cut.summary);
  REQUIRE(cut.cut);
  CHECK(Contains(cut.summary, "behave/contrib/formatter_missing_steps.py:73:53: E0602: "));
}

TEST_CASE("lint: javac's cap on the warnings it shows is kept with its totals") {
  std::string out;
  for (int i = 0; i < 40; ++i) {
    StrAppend(&out, "src/main/java/com/acme/S", i, ".java:7: warning: [serial] serializable class S", i,
              " has no definition of serialVersionUID\n    public class S", i, " implements Serializable {\n           ^\n");
  }
  out += "40 warnings\nonly showing the first 40 warnings, of 179 total; use -Xmaxwarns if you would like to see more\n";
  const std::string s = Shape("javac -Xlint:all -d build $(find src -name '*.java')", out, 0).summary;
  INFO(s);
  CHECK(Contains(s, "\nonly showing the first 40 warnings, of 179 total; use -Xmaxwarns if you would like to see more\n"));
}

TEST_CASE("lint: a formatter's check names every file it would change, directory by directory") {
  const std::string black_output = Fixture("black-check");
  const core::ShapeOutput black = Shape("black --check --workers 1 pygments", black_output, 1);
  REQUIRE(black.render_mode == RenderMode::kSummary);
  const std::string& s = black.summary;
  INFO(s);
  CHECK(s.starts_with(
      "black: FAILED — 296 problems in 296 files (exit 1)\n"
      "would reformat /tmp/plugline-fixtures/formatters/pygments/__init__.py\n"
      "… 14 more in /tmp/plugline-fixtures/formatters/pygments/ at: cmdline.py; console.py;"));
  CHECK(s.find("… 221 more in /tmp/plugline-fixtures/formatters/pygments/lexers/ at: __init__.py; _ada_builtins.py;") !=
        std::string::npos);
  CHECK(s.find("\n296 files would be reformatted, 3 files would be left unchanged.") != std::string::npos);
  // Every file the tool named is in the summary, by its directory and its name.
  size_t named = 0;
  for (std::string_view line : core::SplitLines(black_output)) {
    if (!line.starts_with("would reformat ")) continue;
    ++named;
    const std::string_view path = line.substr(15);
    const size_t slash = path.rfind('/');
    CHECK(s.find(StrCat(" ", path.substr(slash + 1), ";")) + s.find(StrCat(" ", path.substr(slash + 1), "\n")) !=
          2 * std::string::npos);
  }
  CHECK(named == 296);
  // isort's ERROR lines, and prettier's [warn] lines when the command names it.
  const std::string isort_output = Fixture("isort-check");
  const core::ShapeOutput isort = Shape("isort --check-only pygments", isort_output, 1);
  CHECK(isort.summary.starts_with("isort: FAILED — 259 errors in 259 files (exit 1)\nERROR: "));
  std::string prettier = "Checking formatting...\n";
  for (int i = 0; i < 40; ++i) StrAppend(&prettier, "[warn] src/components/Widget", i, ".jsx\n");
  prettier += "[warn] Code style issues found in 40 files. Run Prettier with --write to fix.\n";
  const core::ShapeOutput pr = Shape("npx prettier --check .", prettier, 1);
  CHECK(
      pr.summary.starts_with("prettier: FAILED — 40 warnings in 40 files (exit 1)\n"
                             "[warn] src/components/Widget0.jsx\n"
                             "… 39 more in src/components/ at: Widget1.jsx; Widget2.jsx;"));
  CHECK(pr.summary.ends_with("[warn] Code style issues found in 40 files. Run Prettier with --write to fix.\n"));
  CHECK(Confidence(MakeLintShaper(), "./check.sh", "[warn] src/a.js\n[warn] src/b.js\n[warn] src/c.js\n") == 0);
}

TEST_CASE("lint: phpcs's full report keeps every file, each message once, every line number") {
  // tests/fixtures/lint/phpcs-psr12 (gen-phpcs.sh): 19 files, 1,041 errors, 11 warnings.
  const std::string out = Fixture("phpcs-psr12");
  const std::string s = Shape("phpcs --standard=PSR12 PHP/CodeSniffer/src/Reports", out, 2).summary;
  INFO(s.substr(0, 3000));
  CHECK(
      s.starts_with("phpcs: FAILED — 1,041 errors, 11 warnings in 19 files (exit 2)\n"
                    "FILE: /usr/share/php/PHP/CodeSniffer/src/Reports/Full.php\n"
                    "FOUND 78 ERRORS AND 1 WARNING AFFECTING 27 LINES\n"
                    "  85 | ERROR   | [x] Expected at least 1 space before \".\"; 0 found\n"
                    "… 28 more like it at lines 89; 92; 93; 95; 101; 107; 112; 113; 135; 139; "
                    "145; 152; 174; 179; 181; 182\n"));
  // Every file's heading and count; every message's first row (each message read once); every
  // problem's line number in its file, shown or listed.
  std::string file;
  for (std::string_view line : core::SplitLines(out)) {
    if (line.starts_with("FILE: ") || line.starts_with("FOUND ")) {
      CHECK_MESSAGE(Contains(s, StrCat(line, "\n")), line);
      if (line.starts_with("FILE: ")) file = std::string(line);
      continue;
    }
    const size_t bar = line.find(" | ");
    if (bar == std::string_view::npos || Trim(line.substr(0, bar)).empty()) continue;
    const std::string_view number = Trim(line.substr(0, bar));
    const size_t in_file = s.find(StrCat(file, "\n"));
    const size_t next_file = s.find("\nFILE: ", in_file + 1);
    const std::string section = s.substr(in_file, next_file - in_file);
    const bool shown = Contains(section, StrCat(line, "\n"));
    const bool listed = Contains(section, StrCat(" ", number, ";")) ||
                        Contains(section, StrCat(" ", number, "\n"));
    CHECK_MESSAGE((shown || listed), file << ": line " << number);
  }
  CHECK(Contains(s, "Header blocks must be separated by a single"));
  CHECK(!Contains(s, "-------"));
}

TEST_CASE("lint: cppcheck's problems, their kinds named, its progress between files counted") {
  // tests/fixtures/lint/cppcheck-all (gen-cppcheck.sh): 6 problems, each with its source line and
  // a caret; "1/3 files checked 43% done" between the files.
  const std::string out = Fixture("cppcheck-all");
  const std::string s = Shape("cppcheck --enable=all --inconclusive -Iinclude src", out, 0).summary;
  INFO(s);
  CHECK(s.starts_with("cppcheck: 1 warning, 5 style problems in 3 files\n"));
  for (std::string_view line : core::SplitLines(out)) {
    if (line.find(": style: ") != std::string_view::npos ||
        line.find(": warning: ") != std::string_view::npos) {
      CHECK_MESSAGE(s.find(StrCat(line, "\n")) != std::string::npos, line);
    }
    // Its progress and the source lines under the problems are counted, not shown.
    if (line.ends_with("% done") || line.starts_with("    ")) {
      CHECK_MESSAGE(s.find(line) == std::string::npos, line);
    }
  }
}

TEST_CASE("lint: mypy --pretty's wrapped messages keep their codes, the source and carets under them are counted") {
  const std::string s = Shape("mypy --strict --pretty inventory", Fixture("mypy-pretty-failing"), 1).summary;
  INFO(s);
  CHECK(s.starts_with("mypy: FAILED — 5 errors in 2 files (exit 1)\n"));
  // The code alone on the message's last line, and at its end.
  CHECK(Contains(s, "inventory/stock.py:15: error: Function is missing a type annotation \n"
                    "[no-untyped-def]\n"));
  CHECK(Contains(s, "inventory/stock.py:22: error: Incompatible return value type (got\n"
                    "\"Optional[int]\", expected \"int\")  [return-value]\n"));
  CHECK(Contains(s, "expected \"str\": \"int\"  [dict-item]\n"));
  // The echo of the source and the carets under it: the location points there.
  CHECK_FALSE(Contains(s, "return self.levels.get(sku)"));
  CHECK_FALSE(Contains(s, "^~~~"));
  CHECK(Contains(s, "\n… 10 detail lines omitted\n"));
}

// The problem lines of `output` as `where(line)` gives their locations (empty: not a problem),
// which `summary` does not name: on a line of their own or in a list, followed by ",", ";", ":",
// a space or a line end.
template <typename Where>
std::vector<std::string> LocationsNotNamed(std::string_view output, std::string_view summary,
                                           Where where) {
  std::vector<std::string> lost;
  for (std::string_view line : core::SplitLines(output)) {
    const std::string_view at = where(line);
    if (at.empty()) continue;
    bool named = false;
    for (size_t i = summary.find(at); i != std::string_view::npos && !named;
         i = summary.find(at, i + 1)) {
      const size_t end = i + at.size();
      named = end == summary.size() ||
              std::string_view(",;: \n").find(summary[end]) != std::string_view::npos;
    }
    if (!named) lost.emplace_back(at);
  }
  return lost;
}

TEST_CASE("lint: JSHint's 'path: line 12, col 5, message' problems, every location named") {
  // tests/fixtures/lint/jshint-many (gen-js-checkers.sh): 80 problems in jquery.js, underscore.js
  // and a small project, blank lines between the files, "80 errors" at the end.
  const std::string out = Fixture("jshint-many");
  auto lint = MakeLintShaper();
  CHECK(Confidence(lint, "npx jshint lib src", out) == doctest::Approx(0.95));
  // Its lines say they are problems by their form alone, run by a script as by name.
  CHECK(Confidence(lint, "npm run lint", out) == doctest::Approx(0.7));
  const std::string s = Shape("npx jshint lib src", out, 2).summary;
  INFO(s);
  CHECK(s.starts_with("jshint: FAILED — 80 problems in 5 files (exit 2)\n"));
  CHECK(Contains(
      s,
      "\nlib/jquery.js: line 1209, col 20, ['ID'] is better written in dot notation.\n"
      "… 12 more problems like it, names differing, at: lib/jquery.js: line 1215, col 18; "));
  CHECK(Contains(s, "lib/jquery.js: line 1263, col 14 'TAG'; "));
  CHECK(s.ends_with("\n80 errors\n"));
  const auto where = [](std::string_view line) -> std::string_view {
    const size_t at = line.find(": line ");
    const size_t col = line.find(", col ", at);
    if (at == std::string_view::npos || col == std::string_view::npos) return {};
    return line.substr(0, line.find(", ", col + 6));
  };
  CHECK(LocationsNotNamed(out, s, where) == std::vector<std::string>{});
}

TEST_CASE(
    "lint: CSSLint's compact format, its warnings of a whole file kept, its selectors names") {
  // tests/fixtures/lint/csslint-compact (gen-js-checkers.sh): 179 warnings on gitweb.css, one of
  // them about the whole file ("path: Warning - Too many font-size declarations (13), …").
  const std::string out = Fixture("csslint-compact");
  const std::string s = Shape("npx csslint --format=compact css", out, 0).summary;
  INFO(s);
  CHECK(s.starts_with("csslint: 179 warnings in 1 file\n"));
  CHECK(Contains(s,
                 "\n/tmp/plugline-fixtures/jscheck/css/gitweb.css: Warning - Too many font-size "
                 "declarations (13), abstraction needed. (font-sizes)\n"));
  // Overqualified elements told apart by their selectors only: one group.
  CHECK(Contains(s,
                 "(span.cntrl) is overqualified, just use .cntrl without element name. "
                 "(overqualified-elements)\n… 47 more overqualified-elements, names differing, at: "
                 "/tmp/plugline-fixtures/jscheck/css/gitweb.css: line 26, col 1 img.logo .logo; "));
  const auto where = [](std::string_view line) -> std::string_view {
    const size_t col = line.find(", col ");
    return col == std::string_view::npos ? std::string_view()
                                         : line.substr(0, line.find(", ", col + 6));
  };
  CHECK(LocationsNotNamed(out, s, where) == std::vector<std::string>{});
}

TEST_CASE(
    "lint: standard's indented problems: the rule a code, '(warning)' the severity, the others "
    "errors first") {
  // tests/fixtures/lint/standard-failing (gen-js-checkers.sh): 42 problems in 4 files, two of
  // them warnings ("… (no-var) (warning)"), the others without a severity; its banners around.
  const std::string out = Fixture("standard-failing");
  auto lint = MakeLintShaper();
  CHECK(Confidence(lint, "npx standard src/", out) == doctest::Approx(0.95));
  const std::string s = Shape("npx standard src/", out, 1).summary;
  INFO(s);
  CHECK(
      s.starts_with("standard: FAILED — 40 problems, 2 warnings in 4 files (exit 1)\n"
                    "… 42 problems by code: space-before-function-paren 8, object-curly-spacing 6, "
                    "semi 6, indent 5, quotes 3, eqeqeq 3, no-var 2, "));
  CHECK(Contains(s,
                 "\n  /tmp/plugline-fixtures/jscheck/src/api/client.js:2:18: Strings must use "
                 "singlequote. (quotes)\n… 2 more quotes at: "));
  // The warnings after the errors, their rule their group's.
  const size_t warning = s.find(
      ":12:5: Unexpected var, use let or const instead. (no-var) (warning)\n"
      "… 1 more no-var at: /tmp/plugline-fixtures/jscheck/src/ui/table.js:3:8\n");
  REQUIRE(warning != std::string::npos);
  CHECK(warning > s.find("(no-const-assign)\n"));
  CHECK(Contains(s,
                 "/tmp/plugline-fixtures/jscheck/src/utils/format.js:4:3: Invalid loop. Its body "
                 "allows only one iteration. (no-unreachable-loop)\n"));
  const auto where = [](std::string_view line) -> std::string_view {
    if (!line.starts_with("  /")) return {};
    const std::string_view t = line.substr(2);
    const size_t colon = t.find(": ");
    return colon == std::string_view::npos ? std::string_view() : t.substr(0, colon);
  };
  CHECK(LocationsNotNamed(out, s, where) == std::vector<std::string>{});
}

TEST_CASE(
    "lint: cspell's unknown words are names, not codes, its progress counted, its totals kept") {
  // tests/fixtures/lint/cspell-many (gen-js-checkers.sh): 317 unknown words in jquery.js and
  // underscore.js, "Unknown word (trac)" each, a progress line per file ("3/7 src/ok.js 1.05ms").
  const std::string out = Fixture("cspell-many");
  const std::string s = Shape("npx cspell 'lib/**' 'src/**'", out, 1).summary;
  INFO(s);
  CHECK(
      s.starts_with("cspell: FAILED — 317 problems in 2 files (exit 1)\n"
                    "lib/jquery.js:24:17 - Unknown word (trac)\n"
                    "… 313 more problems like it, names differing, at: lib/jquery.js:42:29; "
                    "lib/jquery.js:140:34 (functionish); lib/jquery.js:191:23 (elems); "));
  // One group, not a group a word: no tally of words as codes.
  CHECK_FALSE(Contains(s, " by code: "));
  CHECK(s.ends_with("\nCSpell: Files checked: 7, Issues found: 317 in 2 files.\n"));
  const auto where = [](std::string_view line) -> std::string_view {
    const size_t dash = line.find(" - Unknown word (");
    return dash == std::string_view::npos ? std::string_view() : line.substr(0, dash);
  };
  CHECK(LocationsNotNamed(out, s, where) == std::vector<std::string>{});
  for (std::string_view line : core::SplitLines(out)) {
    // Every word named; the progress between the files counted, not shown.
    if (const size_t open = line.find(" - Unknown word ("); open != std::string_view::npos) {
      const std::string_view rest = line.substr(open + 17);
      CHECK_MESSAGE(Contains(s, rest.substr(0, rest.find(')'))), line);
    }
    if (line.find("/7 ") != std::string_view::npos) CHECK_MESSAGE(!Contains(s, line), line);
  }
}

TEST_CASE("lint: diagnostics in rustc's form are problems, each with its location and hints") {
  // tests/fixtures/lint/deno-lint-small (gen-js-linters.sh): deno lint's 8 problems, each
  // "error[no-var]: message", "  --> path:line:col", a code frame, "  = hint: …", "  docs: …".
  std::string out;
  REQUIRE(core::NormalizeTerminalOutput(Fixture("deno-lint-small"), &out));  // deno colours it
  CHECK(Confidence(MakeLintShaper(), "deno lint src", out) >= 0.85);
  const std::string s = Shape("deno lint src", out, 1).summary;
  INFO(s);
  CHECK(
      s.starts_with("deno lint: FAILED — 8 errors in 3 files (exit 1)\n"
                    "error[no-inner-declarations]: Move variable declaration to function root\n"
                    " --> /tmp/plugline-fixtures/jslint/src/ui/table.js:3:8\n"
                    "  = hint: Move the declaration up into the correct scope\n"));
  for (std::string_view line : core::SplitLines(out)) {
    const std::string_view t = Trim(line);
    // Every heading and location kept; the code frames and the links to the docs counted.
    if (line.starts_with("error[") || t.starts_with("--> ")) CHECK_MESSAGE(Contains(s, line), line);
    if (t.starts_with("docs: ")) CHECK_MESSAGE(!Contains(s, line), line);
  }
  CHECK_FALSE(Contains(s, "10 |   debugger"));
  CHECK(s.ends_with("\nFound 8 problems\nChecked 5 files\n"));
}

TEST_CASE("lint: ruff's full format, a code first, is read in rustc's form too") {
  // ruff check's default report since 0.9: the code, "[*]" when it can fix it, the message; then
  // where, a code frame and "help: …" at the margin.
  const std::string out =
      "UP009 [*] UTF-8 encoding declaration is unnecessary\n"
      " --> docs/conf.py:1:1\n"
      "  |\n"
      "1 | # -*- coding: utf-8 -*-\n"
      "  | ^^^^^^^^^^^^^^^^^^^^^^^\n"
      "2 | import os\n"
      "  |\n"
      "help: Remove unnecessary coding comment\n"
      "\n"
      "F401 [*] `os` imported but unused\n"
      "  --> docs/conf.py:14:8\n"
      "   |\n"
      "14 | import os\n"
      "   |        ^^\n"
      "   |\n"
      "help: Remove unused import: `os`\n"
      "\n"
      "Found 2 errors.\n"
      "[*] 2 fixable with the `--fix` option.\n";
  const std::string s = Shape("ruff check docs", out, 1).summary;
  INFO(s);
  CHECK(
      s.starts_with("ruff: FAILED — 2 problems in 1 file (exit 1)\n"
                    "UP009 [*] UTF-8 encoding declaration is unnecessary\n"
                    " --> docs/conf.py:1:1\n"
                    "help: Remove unnecessary coding comment\n"
                    "F401 [*] `os` imported but unused\n"
                    "  --> docs/conf.py:14:8\n"
                    "help: Remove unused import: `os`\n"));
  CHECK_FALSE(Contains(s, "14 | import os"));
  // rustc's own diagnostics are a compiler's: not read as a linter's.
  CHECK(Confidence(MakeLintShaper(), "make",
                   "error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n") == 0);
  CHECK(Confidence(MakeLintShaper(), "./build.sh",
                   "warning: unused variable: `x`\n --> src/main.rs:2:9\n  |\n") == 0);
}

TEST_CASE("lint: deno check's diagnostics, where last, are problems grouped like tsc's") {
  // tests/fixtures/lint/deno-check-migrate (gen-js-linters.sh): express's lib/ renamed .ts,
  // 405 errors, each "TS2339 [ERROR]: message", the source line (at the margin or not), its
  // underline, then "    at file:///…/src/application.ts:64:5".
  std::string out;
  REQUIRE(core::NormalizeTerminalOutput(Fixture("deno-check-migrate"), &out));
  CHECK(Confidence(MakeLintShaper(), "deno check src/", out) >= 0.85);
  const std::string s = Shape("deno check src/", out, 1).summary;
  INFO(s.substr(0, 3000));
  CHECK(s.starts_with("deno check: FAILED — 405 errors in 11 files (exit 1)\n"));
  size_t locations = 0;
  for (std::string_view line : core::SplitLines(out)) {
    const std::string_view t = Trim(line);
    // Every location kept (without the budget a host may set), the "file://" aside; a related
    // location ("        at …" under "An outer value of 'this' is shadowed…") under the first
    // of its group only.
    if (line.starts_with("    at file://")) {
      ++locations;
      CHECK_MESSAGE(Contains(s, t.substr(10)), line);
    }
  }
  CHECK(locations == 405);
  // The code frames counted, not shown: a source line at the margin, an underline.
  CHECK_FALSE(Contains(s, "app.init = function init() {"));
  CHECK_FALSE(Contains(s, "\n    ~~~~\n"));
  CHECK(
      Contains(s,
               "    An outer value of 'this' is shadowed by this container.\n"
               "        at file:///tmp/plugline-fixtures/deno-migrate/src/application.ts:96:29\n"));
  CHECK(Contains(s, "\nFound 405 errors.\n"));
}

TEST_CASE("lint: a formatter's diffs name the files it would change, the diffs counted") {
  // tests/fixtures/lint/deno-fmt-check (gen-js-linters.sh): deno fmt --check on 30 files, 29
  // of them "from /w/…/theme.ice.css:" with the diff under it, 6,204 lines.
  std::string out;
  REQUIRE(core::NormalizeTerminalOutput(Fixture("deno-fmt-check"), &out));
  CHECK(Confidence(MakeLintShaper(), "deno fmt --check src", out) >= 0.85);
  CHECK(Confidence(MakeLintShaper(), "./scripts/fmt.sh", out) >= 0.85);
  const std::string s = Shape("deno fmt --check src", out, 1).summary;
  INFO(s);
  CHECK(s.starts_with("deno fmt: FAILED — 29 problems in 29 files (exit 1)\n"));
  size_t files = 0;
  for (std::string_view line : core::SplitLines(out)) {
    if (!line.starts_with("from ")) continue;
    ++files;
    // Each file named: by its path, or by its name in a list after its folder.
    const std::string_view path = line.substr(5, line.size() - 6);
    const size_t slash = path.rfind('/');
    CHECK_MESSAGE(Contains(s, path.substr(0, slash + 1)), line);
    CHECK_MESSAGE(Contains(s, path.substr(slash + 1)), line);
  }
  CHECK(files == 29);
  CHECK_FALSE(Contains(s, " | -"));
  CHECK_FALSE(Contains(s, " | +"));
  CHECK(s.ends_with("\nerror: Found 29 not formatted files in 30 files\n"));
}

TEST_CASE("lint: a compiler's 'file(line,col) Error:' problems are grouped, repeats said once") {
  // tests/fixtures/lint/fpc-inventory (gen-compilers.sh): Free Pascal's 47 errors of six
  // kinds, each "inventory.pas(33,21) Error: …", a note, the banner and fpc's fatal lines.
  const std::string out = Fixture("fpc-inventory");
  CHECK(Confidence(MakeLintShaper(), "fpc -vewnh inventory.pas", out) >= 0.7);
  const std::string s = Shape("fpc -vewnh inventory.pas", out, 1).summary;
  INFO(s);
  // The errors named first, the note after them.
  CHECK(s.starts_with("fpc: FAILED — 47 errors, 1 fatal, 1 note in 1 file (exit 1)\n"));
  size_t located = 0;
  for (std::string_view line : core::SplitLines(out)) {
    if (!line.starts_with("inventory.pas(")) continue;
    ++located;
    CHECK_MESSAGE(Contains(s, line.substr(0, line.find(')') + 1)), line);
  }
  CHECK(located == 49);
  CHECK(Contains(s,
                 "\ninventory.pas(34,3) Error: Identifier not found \"Stok\"\n… 9 more errors like "
                 "it, names differing, at: inventory.pas(40,3) \"ReportAll\"; "));
  // fpc names the declaration after each call with the wrong arguments, at one place: the
  // place is listed once, with how many times.
  CHECK(Contains(s, "\n… 6 more errors like it at: inventory.pas(17,10) ×6\n"));
  CHECK(
      Contains(s, "\ninventory.pas(96) Fatal: There were 47 errors compiling module, stopping\n"));
  // The banner is counted.
  CHECK_FALSE(Contains(s, "Copyright (c)"));
}

TEST_CASE("lint: Nim's 'file(line, col) Hint:' problems, a space after the comma, are grouped") {
  // tests/fixtures/lint/nim-check-hints (gen-compilers.sh): 49 hints and 4 warnings, each
  // "warn.nim(3, 7) Hint: 'unused0' is declared but not used [XDeclaredButNotUsed]".
  const std::string out = Fixture("nim-check-hints");
  const std::string s = Shape("nim check --hints:on warn.nim", out, 0).summary;
  INFO(s);
  CHECK(s.starts_with("nim: 4 warnings, 49 hints in 1 file\n"));
  size_t located = 0;
  for (std::string_view line : core::SplitLines(out)) {
    const size_t at = line.find("warn.nim(");
    if (at == std::string_view::npos || line.find(") ") == std::string_view::npos) continue;
    ++located;
    const std::string_view where = line.substr(at, line.find(')') + 1 - at);
    CHECK_MESSAGE(Contains(s, where), line);
  }
  CHECK(located == 53);
  CHECK_FALSE(Contains(s, "used config file"));
}

TEST_CASE(
    "lint: a location alone on its line with the message under it (gfortran's) is one problem") {
  // tests/fixtures/lint/gfortran-errors (gen-compilers.sh): 26 errors, each "stats.f90:9:23:",
  // a blank line, the source line and a marker, then "Error: …".
  const std::string out = Fixture("gfortran-errors");
  CHECK(Confidence(MakeLintShaper(), "gfortran -c stats.f90", out) >= 0.85);
  const std::string s = Shape("gfortran -c stats.f90", out, 1).summary;
  INFO(s);
  CHECK(s.starts_with("gfortran: FAILED — 26 errors in 1 file (exit 1)\n"));
  CHECK(Contains(s,
                 "\nstats.f90:9:23:\nError: Function ‘vals2’ at (1) has no IMPLICIT type\n"
                 "… 7 more errors like it, names differing, at: stats.f90:12:23 ‘vals1’; "));
  size_t located = 0;
  for (std::string_view line : core::SplitLines(out)) {
    if (!line.starts_with("stats.f90:")) continue;
    ++located;
    CHECK_MESSAGE(Contains(s, line.substr(0, line.size() - 1)), line);
  }
  CHECK(located == 26);
  // The source lines and markers are counted, not shown.
  CHECK_FALSE(Contains(s, "total = total + vals2(i)"));
  // A location line without such a message under it is no problem.
  CHECK(Confidence(MakeLintShaper(), "./report.sh",
                   "a.f90:3:1:\nsome text\nb.f90:4:1:\nmore text\nc.f90:5:1:\nend\n") == 0);
}

TEST_CASE(
    "lint: a documentation build's problems among its progress lines: every location kept, "
    "a page's own problem without a line too") {
  // tests/fixtures/lint/sphinx-build-warnings (gen-sphinx.sh): sphinx-build, exit 0, 136
  // problems as "path:line: WARNING: …" (ERROR, CRITICAL), 40 of them a page's own without a
  // line, between the lines that say how the build goes.
  const std::string out = Fixture("sphinx-build-warnings");
  const std::string command = "sphinx-build -n -j2 -b html source build/html";
  CHECK(Confidence(MakeLintShaper(), command, out) >= 0.6);
  const std::string s = Shape(command, out, 0).summary;
  INFO(s);
  CHECK(s.starts_with("sphinx-build: 5 errors, 1 critical, 130 warnings in 44 files"));
  CHECK(Contains(
      s, "/source/guide/install.rst:15: CRITICAL: Problems with \"include\" directive path:\n"));
  size_t located = 0;
  for (std::string_view line : core::SplitLines(out)) {
    const size_t at = line.find(".rst");
    if (!line.starts_with("/tmp/") || at == std::string_view::npos) continue;
    ++located;
    // Each page named: its own problems listed by it, the others by their line.
    const std::string_view where = line.substr(0, line.find(": "));
    CHECK_MESSAGE(Contains(s, where), line);
  }
  CHECK(located > 130);
}

}  // namespace
}  // namespace plugline::builtin

#include "core/command_echo.h"

#include <string>

#include <doctest/doctest.h>

namespace plugline::core {
namespace {

std::string Echoed(std::string_view line, std::string_view next = "") {
  int lines = 0;
  return EchoedCommand(line, next, &lines);
}

TEST_CASE("the echoes of a shell's trace, npm, a prompt, tox and a CI step name their command") {
  CHECK(Echoed("+ flake8 src") == "flake8 src");
  CHECK(Echoed("++ dirname ./ci.sh") == "dirname ./ci.sh");
  CHECK(Echoed("+ CI=1 python3 -m pytest -q\r") == "CI=1 python3 -m pytest -q");
  CHECK(Echoed("$ yarn jest") == "yarn jest");
  CHECK(Echoed("##[group]Run pytest -q") == "pytest -q");
  CHECK(Echoed("py311: commands[0]> pytest tests") == "pytest tests");
  CHECK(Echoed("py311: install_deps> python -I -m pip install pytest") ==
        "python -I -m pip install pytest");
  CHECK(Echoed("py311 run-test: commands[0] | pytest tests") == "pytest tests");
  // npm's header is two lines, the script's command on the second.
  int lines = 0;
  CHECK(EchoedCommand("> shop@1.0.0 typecheck", "> tsc --noEmit", &lines) == "tsc --noEmit");
  CHECK(lines == 2);
  CHECK(EchoedCommand("> @acme/shop@1.0.0 lint /w/shop", "> eslint .", &lines) == "eslint .");
}

TEST_CASE("lines that only look like echoes name no command") {
  CHECK(Echoed("+   'b',").empty());                  // a diff's line in an assertion
  CHECK(Echoed("+++ ").empty());
  CHECK(Echoed("+\tfoo").empty());
  CHECK(Echoed("> a quoted reply").empty());           // not npm's header
  CHECK(Echoed("> shop@1.0.0 test", "next line").empty());
  CHECK(Echoed("$ ").empty());
  CHECK(Echoed("java.lang.AssertionError: expected:<2221> but was:<2220>").empty());
  CHECK(Echoed("error: expected> found").empty());
  CHECK(Echoed("plain output").empty());
}

TEST_CASE("an output is split at its echoes") {
  const std::string output =
      "Running the checks\n"
      "+ cd app\n"
      "+ flake8 src\n"
      "src/a.py:1:1: F401 'os' imported but unused\n"
      "src/a.py:2:1: F401 'sys' imported but unused\n"
      "src/b.py:7:5: E303 too many blank lines (3)\n"
      "src/b.py:9:1: W391 blank line at end of file\n"
      "+ python3 -m pytest -q\n"
      "F.\n"
      "=================================== FAILURES ===================================\n"
      "FAILED tests/test_a.py::test_x - assert 1 == 2\n"
      "1 failed, 1 passed in 0.01s\n";
  const std::vector<EchoedPart> parts = SplitAtEchoes(output);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].command.empty());
  CHECK(parts[0].text == "Running the checks\n");
  // An echo with no output of its own goes with the next.
  CHECK(parts[1].echo == "+ cd app\n+ flake8 src\n");
  CHECK(parts[1].command == "flake8 src");
  CHECK(parts[1].text.starts_with("src/a.py:1:1: F401 'os' imported but unused\nsrc/a.py:2:1:"));
  CHECK(parts[1].text.ends_with("W391 blank line at end of file\n"));
  CHECK(parts[2].echo == "+ python3 -m pytest -q\n");
  CHECK(parts[2].text.starts_with("F.\n====="));
  CHECK(parts[2].text.ends_with("\n1 failed, 1 passed in 0.01s\n"));
}

TEST_CASE("an output is not split at a diff's lines, nor when echoes are most of it") {
  // A hunk's added lines read like a trace: its header says how many lines it has.
  const std::string diff =
      "diff --git a/ci.sh b/ci.sh\n"
      "--- a/ci.sh\n"
      "+++ b/ci.sh\n"
      "@@ -1,2 +1,4 @@\n"
      " set -e\n"
      "+ flake8 src\n"
      "+ pytest -q\n"
      " echo done\n"
      "diff --git a/Makefile b/Makefile\n"
      "--- a/Makefile\n"
      "+++ b/Makefile\n"
      "@@ -1 +1,2 @@\n"
      " all:\n"
      "+ make check\n";
  CHECK(SplitAtEchoes(diff).empty());
  // rustfmt's diff (`cargo fmt --check`) has no hunk header: its added lines have the code's
  // indentation after the '+', a trace one space.
  const std::string rustfmt =
      "+ cargo fmt --check\nDiff in /w/src/a.rs:4:\n pub enum E {\n-    A,\n+    pub fn a() {}\n"
      "+        let x = 1;\n }\n\nDiff in /w/src/b.rs:9:\n+    fn c() {}\n }\n"
      "+ cargo test\nrunning 2 tests\ntest a ... ok\ntest b ... FAILED\n";
  const std::vector<EchoedPart> fmt_parts = SplitAtEchoes(rustfmt);
  REQUIRE(fmt_parts.size() == 2);
  CHECK(fmt_parts[0].command == "cargo fmt --check");
  CHECK(fmt_parts[1].command == "cargo test");
  // After the hunk, a trace again.
  const std::string after = diff + "+ cargo build\n   Compiling x v0.1.0\nmore\nlines\nhere\n";
  const std::vector<EchoedPart> parts = SplitAtEchoes(after);
  REQUIRE(parts.size() == 2);
  CHECK(parts[1].command == "cargo build");
  // A trace with little output between its lines: more than 1 in 4 lines are echoes.
  CHECK(SplitAtEchoes("+ a\nx\n+ b\ny\n+ c\nz\n").empty());
  // Two may stand over a short output: `jest --json` prints its report on one line.
  const std::vector<EchoedPart> two = SplitAtEchoes(
      "+ npx jest --json\n{\"numFailedTests\":1}\n+ cargo build\n   Compiling x v0.1.0\n"
      "   Compiling y v0.1.0\n    Finished `dev` profile\n");
  REQUIRE(two.size() == 2);
  CHECK(two[0].command == "npx jest --json");
  CHECK(two[1].command == "cargo build");
  // A command that printed nothing, then one that did: one part, under both echoes.
  const std::vector<EchoedPart> quiet =
      SplitAtEchoes("+ npx eslint src\n+ npx oxlint src\n  ! eslint(no-debugger): x\n");
  REQUIRE(quiet.size() == 1);
  CHECK(quiet[0].command == "npx oxlint src");
  CHECK(quiet[0].echo == "+ npx eslint src\n+ npx oxlint src\n");
  CHECK(quiet[0].commands == 2);
  CHECK(IsOnePartSplit(quiet[0]));
  CHECK(SplitAtEchoes("+ npx oxlint src\n  ! eslint(no-debugger): x\n").empty());
  // A program's own lines that start with "++++ " (tcltest's verbose "++++ add-1.1 PASSED") are
  // no trace: a shell nests a trace four deep only under one three deep.
  std::string tcl = "+ tclsh all.tcl -verbose p\n";
  for (int i = 0; i < 3; ++i)
    tcl += "++++ add-1." + std::to_string(i) + " PASSED\nline\nline\nline\n";
  tcl += "+ make\nok\nok\nok\n";  // the views point into `tcl`: no temporary
  const std::vector<EchoedPart> tcl_parts = SplitAtEchoes(tcl);
  REQUIRE(tcl_parts.size() == 2);
  CHECK(tcl_parts[0].command == "tclsh all.tcl -verbose p");
  CHECK(tcl_parts[0].text.starts_with("++++ add-1.0 PASSED\n"));
  CHECK(tcl_parts[1].command == "make");
  // A nested trace with its outer level's is one: "++ git rev-parse HEAD" (before its "+").
  const std::vector<EchoedPart> nested = SplitAtEchoes(
      "+ make\nok\nok\nok\nok\n++ git rev-parse HEAD\n+ deploy "
      "abc123\nsent\nsent\nsent\nsent\nsent\n");
  REQUIRE(nested.size() == 2);
  CHECK(nested[1].command == "deploy abc123");
  CHECK(nested[1].echo == "++ git rev-parse HEAD\n+ deploy abc123\n");
  // More than kMaxEchoedParts parts.
  std::string many;
  for (size_t i = 0; i <= kMaxEchoedParts; ++i) {
    many += "+ step" + std::to_string(i) + "\n1\n2\n3\n";
  }
  CHECK(SplitAtEchoes(many).empty());
  CHECK(SplitAtEchoes("no echoes at all\n").empty());
}

TEST_CASE("one script a package manager ran is a part, its report of the failure set apart") {
  // npm 11's `npm test` over a failing flake8 run.
  const std::string output =
      "\n> app@1.0.0 test\n> flake8 src\n\n"
      "src/a.py:1:80: E501 line too long (85 > 79 characters)\n"
      "npm error Lifecycle script `test` failed with error:\n"
      "npm error code 1\n"
      "npm error path /w/app\n"
      "npm error command failed\n"
      "npm error command sh -c flake8 src\n";
  const std::vector<EchoedPart> parts = SplitAtEchoes(output);
  REQUIRE(parts.size() == 1);
  CHECK(IsPackageScriptHeader(parts[0].echo));
  CHECK(parts[0].command == "flake8 src");
  const size_t cut = PackageManagerTrailer(parts[0].text);
  CHECK(parts[0].text.substr(0, cut) ==
        "\nsrc/a.py:1:80: E501 line too long (85 > 79 characters)\n");
  CHECK(parts[0].text.substr(cut).starts_with("npm error Lifecycle script"));
  // pnpm's and yarn's reports; none at all.
  CHECK(PackageManagerTrailer("x\n ELIFECYCLE  Command failed with exit code 1.\n") == 2);
  CHECK(PackageManagerTrailer(
            "x\nerror Command failed with exit code 1.\n"
            "info Visit https://yarnpkg.com/en/docs/cli/run for documentation.\n") == 2);
  CHECK(PackageManagerTrailer("x\ny\n\n") == 5);
  // A runner's few lines after the report are set apart with it (Nx's, below).
  const std::string nx_tail =
      "ok 1 - adds\nnpm error code 1\nnpm error command sh -c node --test\n"
      "✔  nx run ledger:test\n\n NX   Running target test for 2 projects failed\n";
  CHECK(PackageManagerTrailer(nx_tail) == 12);
  // Nx's task header before npm's: one echo, npm's command.
  const std::string nx =
      "\n> nx run shop:test\n\n\n> shop@1.0.0 test\n> node --test\n\nnot ok 1 - adds\n"
      "\n> nx run units:test\n\n\n> units@1.0.0 test\n> node --test\n\nok 1 - converts\n"
      "more\nlines\nhere\nand\nhere\n";
  const std::vector<EchoedPart> nx_parts = SplitAtEchoes(nx);
  REQUIRE(nx_parts.size() == 2);
  CHECK(nx_parts[0].command == "node --test");
  CHECK(nx_parts[0].echo.starts_with("> nx run shop:test\n"));
  CHECK(IsPackageScriptHeader(nx_parts[0].echo));
  CHECK(nx_parts[1].echo.starts_with("> nx run units:test\n"));
  // A trace's or a prompt's one echo is no split: only a package manager's header is.
  CHECK_FALSE(IsPackageScriptHeader("+ flake8 src\n"));
  CHECK_FALSE(IsPackageScriptHeader("$ flake8 src\n"));
  CHECK(SplitAtEchoes("+ flake8 src\nsrc/a.py:1:80: E501\nmore\nlines\n").empty());
}

}  // namespace
}  // namespace plugline::core

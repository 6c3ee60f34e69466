#include "core/task_output.h"

#include <doctest/doctest.h>

#include <string>

#include "core/strings.h"

namespace plugline::core {
namespace {

// pnpm 12's `pnpm -r --no-bail test` in a workspace of two packages, their lines interleaved
// as they were printed (cut from a real run's).
constexpr std::string_view kPnpm =
    "Scope: 2 of 3 workspace projects\n"
    "packages/csv test$ node --test\n"
    "packages/ledger test$ node --test\n"
    "packages/csv test: TAP version 13\n"
    "packages/ledger test: TAP version 13\n"
    "packages/ledger test: ok 1 - adds\n"
    "packages/csv test: # Subtest: parseRows\n"
    "packages/ledger test: # pass 1\n"
    "packages/ledger test: Done\n"
    "packages/csv test:     not ok 4 - ignores a trailing newline\n"
    "packages/csv test:\n"
    "packages/csv test: # fail 1\n"
    "packages/csv test: Failed\n"
    "[ELIFECYCLE] Test failed. See above for more details.\n"
    "Error: ERR_PNPM_RECURSIVE_FAIL\n";

TEST_CASE("pnpm's tasks: each one's lines together, without the prefix, its header kept") {
  TaskOutput out;
  REQUIRE(SplitTaskOutput("", kPnpm, &out));
  CHECK(out.before == "Scope: 2 of 3 workspace projects\n");
  REQUIRE(out.tasks.size() == 2);
  CHECK(out.tasks[0].name == "packages/csv test");
  CHECK(out.tasks[0].header == "packages/csv test$ node --test");
  CHECK(out.tasks[0].command == "node --test");
  CHECK(out.tasks[0].text ==
        "TAP version 13\n"
        "# Subtest: parseRows\n"
        "    not ok 4 - ignores a trailing newline\n"
        "\n"
        "# fail 1\n");
  CHECK(out.tasks[1].name == "packages/ledger test");
  CHECK(out.tasks[1].text == "TAP version 13\nok 1 - adds\n# pass 1\n");
  // How each task ended, pnpm's word on it, is the runner's.
  CHECK(out.after ==
        "packages/csv test: Failed\n"
        "packages/ledger test: Done\n"
        "[ELIFECYCLE] Test failed. See above for more details.\n"
        "Error: ERR_PNPM_RECURSIVE_FAIL\n");
}

TEST_CASE("turbo's tasks: npm's header names the command, turbo's own lines come after") {
  constexpr std::string_view kTurbo =
      "   • Packages in scope: @ws/shop, csv-lite\n"
      "   • Running test in 2 packages\n"
      "\n"
      "csv-lite:test: cache miss, executing d7314459a6413e9c\n"
      "@ws/shop:test: cache miss, executing c948ffea8ad6a8f0\n"
      "csv-lite:test: \n"
      "csv-lite:test: > csv-lite@0.5.1 test\n"
      "csv-lite:test: > node --test\n"
      "csv-lite:test: \n"
      "@ws/shop:test: not ok 1 - totals\n"
      "csv-lite:test: not ok 4 - ignores a trailing newline\n"
      "csv-lite:test:\n"
      "@ws/shop#test:  ERROR  command (/w/packages/shop) /usr/bin/npm run test exited (1)\n"
      "csv-lite#test:  ERROR  command (/w/packages/csv) /usr/bin/npm run test exited (1)\n"
      "\n"
      " Tasks:    0 successful, 2 total\n"
      "Failed:    @ws/shop#test, csv-lite#test\n";
  TaskOutput out;
  REQUIRE(SplitTaskOutput("", kTurbo, &out));
  CHECK(out.before ==
        "   • Packages in scope: @ws/shop, csv-lite\n   • Running test in 2 packages\n\n");
  REQUIRE(out.tasks.size() == 2);
  CHECK(out.tasks[0].name == "csv-lite:test");
  CHECK(out.tasks[0].command == "node --test");
  CHECK(out.tasks[0].header == "csv-lite:test: > node --test");
  // The lines up to npm's header's are in the header; a JSON report has nothing before it.
  CHECK(out.tasks[0].text == "\nnot ok 4 - ignores a trailing newline\n\n");
  CHECK(out.tasks[1].name == "@ws/shop:test");
  CHECK(out.tasks[1].header == "@ws/shop:test:");
  CHECK(out.tasks[1].command.empty());
  CHECK(out.tasks[1].text == "cache miss, executing c948ffea8ad6a8f0\nnot ok 1 - totals\n");
  CHECK(out.after ==
        "@ws/shop#test:  ERROR  command (/w/packages/shop) /usr/bin/npm run test exited (1)\n"
        "csv-lite#test:  ERROR  command (/w/packages/csv) /usr/bin/npm run test exited (1)\n"
        "\n"
        " Tasks:    0 successful, 2 total\n"
        "Failed:    @ws/shop#test, csv-lite#test\n");
}

TEST_CASE("yarn's tasks: a package's name in brackets") {
  // yarn 4's `yarn workspaces foreach -A -p -v run test` (cut from a real run's).
  constexpr std::string_view kYarn =
      "[@ws/ledger]: TAP version 13\n"
      "[@ws/shop]: TAP version 13\n"
      "[@ws/ledger]: ok 1 - balances a journal\n"
      "[@ws/shop]: not ok 1 - adds two prices\n"
      "[@ws/shop]:\n"
      "The command failed in workspace @ws/shop@workspace:packages/shop with exit code 1\n";
  TaskOutput out;
  REQUIRE(SplitTaskOutput("yarn workspaces foreach -A -p -v run test", kYarn, &out));
  REQUIRE(out.tasks.size() == 2);
  CHECK(out.tasks[0].name == "@ws/ledger");
  CHECK(out.tasks[0].header == "[@ws/ledger]:");
  CHECK(out.tasks[0].text == "TAP version 13\nok 1 - balances a journal\n");
  CHECK(out.tasks[1].text == "TAP version 13\nnot ok 1 - adds two prices\n\n");
  CHECK(out.after ==
        "The command failed in workspace @ws/shop@workspace:packages/shop with exit code 1\n");
  // A log's levels in brackets are not packages.
  CHECK_FALSE(
      SplitTaskOutput("yarn start", "[info]: started\n[error]: failed\n[info]: stopped\n", &out));
  CHECK_FALSE(SplitTaskOutput("yarn start", "[INFO]: started\n[ERROR]: failed\n[INFO]: x\n", &out));
  // Nor are a program's threads, its log read otherwise than through yarn.
  CHECK_FALSE(SplitTaskOutput("cat app.log",
                              "[main]: started\n[worker-1]: took job 7\n"
                              "[main]: stopped\n",
                              &out));
  // Run by a script: yarn's last lines say whose run it is.
  CHECK(SplitTaskOutput("./ci.sh", kYarn, &out));
  CHECK_FALSE(SplitTaskOutput("./ci.sh", "[main]: started\n[main]: loading\n[main]: done\n", &out));
}

TEST_CASE("lines that only look like a task's are not split") {
  TaskOutput out;
  // Prose shaped like pnpm's prefix, with no header pnpm printed for it.
  CHECK_FALSE(
      SplitTaskOutput("", "Build failed: 3 errors\nBuild failed: again\nBuild failed: x\n", &out));
  // A compiler's locations: "file:line:col: " is no package's task.
  CHECK_FALSE(SplitTaskOutput("",
                              "src/a.c:12:5: error: x\nsrc/a.c:13:1: error: y\n"
                              "src/b.c:2:1: note: z\n",
                              &out));
  CHECK_FALSE(SplitTaskOutput("", "a.c: In function 'main':\nerror: x\nwarning: y\n", &out));
  CHECK_FALSE(SplitTaskOutput("", "https://x.org: down\nhttps://y.org: down\n", &out));
  // A task's lines are half the output or more.
  std::string mostly_other = "app:build: compiled\n";
  for (int i = 0; i < 5; ++i) StrAppend(&mostly_other, "line ", i, "\n");
  CHECK_FALSE(SplitTaskOutput("", mostly_other, &out));
  // One line is not a runner's output.
  CHECK_FALSE(SplitTaskOutput("", "app:build: compiled\n", &out));
  CHECK(out.tasks.empty());
}

TEST_CASE("more tasks than a runner's are not split") {
  std::string many;
  for (size_t i = 0; i <= kMaxTasks; ++i) {
    StrAppend(&many, "pkg", i, ":build: one\n", "pkg", i, ":build: two\n");
  }
  TaskOutput out;
  CHECK_FALSE(SplitTaskOutput("", many, &out));
  std::string few;
  for (size_t i = 0; i < kMaxTasks; ++i) StrAppend(&few, "pkg", i, ":build: one\n");
  REQUIRE(SplitTaskOutput("", few, &out));
  CHECK(out.tasks.size() == kMaxTasks);
}

TEST_CASE("a script's name with a colon, and a scoped package, are one task's name") {
  constexpr std::string_view kOutput =
      "packages/api test:unit$ vitest run\n"
      "packages/api test:unit: FAIL src/a.test.ts\n"
      "@acme/web:test:unit: FAIL src/b.test.ts\n"
      "@acme/web:test:unit: 1 failed\n";
  TaskOutput out;
  REQUIRE(SplitTaskOutput("", kOutput, &out));
  REQUIRE(out.tasks.size() == 2);
  CHECK(out.tasks[0].name == "packages/api test:unit");
  CHECK(out.tasks[0].text == "FAIL src/a.test.ts\n");
  CHECK(out.tasks[1].name == "@acme/web:test:unit");
  CHECK(out.tasks[1].text == "FAIL src/b.test.ts\n1 failed\n");
}

}  // namespace
}  // namespace plugline::core

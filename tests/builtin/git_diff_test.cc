// Tests for builtin-git-diff: git diff / show / log / status and plain diffs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "absl/strings/str_replace.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

using testing::Contains;

double Confidence(std::string_view command, std::string_view output) {
  auto shaper = MakeGitDiffShaper();
  auto match = shaper->Match(command, output, 0);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

std::string Shape(std::string_view command, std::string_view output,
                  std::optional<int> exit_code = 0, uint64_t max_tokens = 0) {
  auto shaper = MakeGitDiffShaper();
  core::ShapeContext ctx{command, exit_code, output.size(), core::CountLines(output),
                         "/s/outputs/a.log", max_tokens};
  auto shaped = shaper->Shape(output, ctx);
  REQUIRE(shaped.ok());
  CHECK(shaped->render_mode == RenderMode::kSummary);
  return shaped->summary;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  for (std::string_view l : core::SplitLines(text)) out.emplace_back(l);
  return out;
}

bool Has(const std::vector<std::string>& lines, std::string_view line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// Every line is the header, a line of the output or a "… " marker.
void CheckFaithful(const std::string& output, const std::string& summary) {
  auto source = core::SplitLines(output);
  auto lines = core::SplitLines(summary);
  for (size_t i = 1; i < lines.size(); ++i) {
    bool ok = lines[i].starts_with("… ") ||
              std::find(source.begin(), source.end(), lines[i]) != source.end();
    CHECK_MESSAGE(ok, "not from the output: [" << std::string(lines[i]) << "]");
  }
}

// Sum of the counts of "… N …" markers that stand for lines (all of this shaper's markers).
uint64_t MarkedLines(const std::string& summary) {
  uint64_t total = 0;
  for (std::string_view l : core::SplitLines(summary)) {
    if (!l.starts_with("… ")) continue;
    uint64_t n = 0;
    for (char c : l.substr(4)) {
      if (c == ',') continue;
      if (c < '0' || c > '9') break;
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    total += n;
  }
  return total;
}

std::string SmallDiff() {
  return "diff --git a/src/db.c b/src/db.c\n"
         "index faa8b0d..1a80999 100644\n"
         "--- a/src/db.c\n"
         "+++ b/src/db.c\n"
         "@@ -5,7 +5,7 @@\n"
         " #include <time.h>\n"
         " \n"
         "-#define DB_BUSY_RETRIES 5\n"
         "+#define DB_BUSY_RETRIES 8\n"
         " \n"
         " struct db {\n"
         "diff --git a/src/http.c b/src/http.c\n"
         "index d87cebd..06a82ea 100644\n"
         "--- a/src/http.c\n"
         "+++ b/src/http.c\n"
         "@@ -47,3 +47,5 @@ static void handle(http_ctx *ctx)\n"
         "         return;\n"
         "+    if (x)\n"
         "+        return;\n"
         "     }\n";
}

// A new file of `n` lines "+line i" in one hunk.
std::string NewFile(std::string_view path, int n) {
  std::string out = StrCat("diff --git a/", path, " b/", path, "\nnew file mode 100644\n",
                           "index 0000000..1111111\n--- /dev/null\n+++ b/", path, "\n",
                           "@@ -0,0 +1,", n, " @@\n");
  for (int i = 1; i <= n; ++i) StrAppend(&out, "+line ", i, "\n");
  return out;
}

TEST_CASE("git-diff match: the command names git diff/show/log/status or diff") {
  CHECK(Confidence("git diff", "") == doctest::Approx(0.95));
  CHECK(Confidence("git --no-pager log -p -n 5", "") == doctest::Approx(0.95));
  CHECK(Confidence("git -C repo show HEAD~1", "") == doctest::Approx(0.95));
  CHECK(Confidence("git status -s", "") == doctest::Approx(0.95));
  CHECK(Confidence("cd repo && git log --oneline | head -20", "") == doctest::Approx(0.95));
  CHECK(Confidence("diff -u old.c new.c", "") == doctest::Approx(0.9));
  // The commands that merge: their conflicts are read here.
  CHECK(Confidence("git merge feature", "") == doctest::Approx(0.95));
  CHECK(Confidence("git rebase main", "") == doctest::Approx(0.95));
  CHECK(Confidence("git stash pop", "") == doctest::Approx(0.95));
  CHECK(Confidence("git stash list", "stash@{0}: WIP on main\n") == 0);
  // Not ours: other git commands, a pipeline that changes the lines, git grep.
  CHECK(Confidence("git push origin main", "To github.com:x/y.git\n") == 0);
  CHECK(Confidence("git grep -n foo", "src/a.c:3:foo\n") == 0);
  CHECK(Confidence("git diff | wc -l", "42\n") == 0);
  CHECK(Confidence("make", "gcc -c x.c\n") == 0);
}

TEST_CASE("git-diff match: output signals when the command is something else") {
  // `cat build.log`-style: the output itself is a diff, a log, or a status.
  CHECK(Confidence("cat changes.patch", SmallDiff()) == doctest::Approx(0.85));
  CHECK(Confidence("cat old.patch", "--- a.txt\t2024-01-01\n+++ b.txt\t2024-01-02\n"
                                    "@@ -1 +1 @@\n-a\n+b\n") == doctest::Approx(0.8));
  CHECK(Confidence("cat log.txt",
                   "commit 6d9334605b357868cd57e6c380e664fcb9f92ac2\n"
                   "Author: Priya Raman <priya@stockd.dev>\nDate:   Thu Mar 14 2024\n") ==
        doctest::Approx(0.85));
  CHECK(Confidence("./status.sh", "On branch main\nnothing to commit, working tree clean\n") ==
        doctest::Approx(0.8));
  CHECK(Confidence("./run.sh", "On branch main of the river\n") == 0);
}

TEST_CASE("git-diff: a small diff is kept whole under a header counted from the diff") {
  std::string output = SmallDiff();
  std::string summary = Shape("git diff", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "git diff: 2 files changed, +3 −1");
  CHECK(lines.size() == core::CountLines(output) + 1);
  CheckFaithful(output, summary);
}

TEST_CASE("git-diff: --word-diff's changed lines are its changes, the others its context") {
  // tests/fixtures/git-diff/diff-words-large: each changed line once, "[-old-]{+new+}".
  const std::string out = testing::ReadFixture("git-diff", "diff-words-large");
  const std::string s = Shape("git --no-pager diff --word-diff v1.0 v2.0", out);
  INFO(s.substr(0, 3000));
  CHECK(s.starts_with("git diff: 40 files changed, 3,568 lines with words changed\n"));
  // The first file's changed lines are shown, its context lines are not.
  CHECK(testing::Contains(
      s, "\nOBJS = src/main.o src/stock.o src/db.o src/http.o src/util.o {+src/cache.o+}\n"));
  // Porcelain: a column of ' ', '-', '+', and '~' at each line's end.
  const std::string porcelain =
      "diff --git a/x.c b/x.c\nindex 1..2 100644\n--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n"
      " int a;\n~\n int \n-b\n+c\n;\n~\n int d;\n~\n";
  const std::string p = Shape("git diff --word-diff=porcelain", porcelain);
  INFO(p);
  CHECK(p.starts_with("git diff: 1 file changed, 2 lines with words changed"));
}

TEST_CASE("git-diff: a large hunk keeps its head and tail, the middle counted exactly") {
  std::string output = NewFile("gen.txt", 600);
  std::string summary = Shape("git diff --cached", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "git diff: 1 file changed, +600");
  CHECK(lines[1] == "diff --git a/gen.txt b/gen.txt");
  CHECK(lines[2] == "new file mode 100644");
  CHECK(lines[3] == "@@ -0,0 +1,600 @@");
  CHECK(lines[4] == "+line 1");
  CHECK(lines[43] == "+line 40");
  CHECK(lines[44] == "… 520 changed lines omitted (+520)");
  CHECK(lines[45] == "+line 561");
  CHECK(lines[84] == "+line 600");
  CHECK(lines[85] == "… 3 lines of index and ---/+++ headers omitted");
  CHECK(lines.size() == 86);
  CheckFaithful(output, summary);
  CHECK(MarkedLines(summary) + 80 + 3 == core::CountLines(output));  // 80 shown + 3 headers
}

TEST_CASE("git-diff: a small diff is shown whole but a deleted file's old contents") {
  std::string output = "diff --git a/a.c b/a.c\nindex 1..2 100644\n--- a/a.c\n+++ b/a.c\n"
                       "@@ -1,3 +1,3 @@\n ctx\n-old\n+new\n ctx 2\n"
                       "diff --git a/t.c b/t.c\ndeleted file mode 100644\nindex 3..0000000\n"
                       "--- a/t.c\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-int a;\n-int b;\n-int c;\n";
  auto lines = Lines(Shape("git diff --cached", output));
  CHECK(lines[0] == "git diff: 2 files changed, +1 −4");
  CHECK(Has(lines, " ctx"));  // small: context kept
  CHECK(Has(lines, "-old"));
  CHECK(Has(lines, "deleted file mode 100644"));
  CHECK(Has(lines, "@@ -1,3 +0,0 @@"));
  CHECK(Has(lines, "… 3 lines of the deleted file t.c omitted"));
  CHECK_FALSE(Has(lines, "-int a;"));
}

TEST_CASE("git-diff: the budget is shared fairly, context goes first, deleted files counted") {
  std::string output = "diff --git a/small.c b/small.c\nindex 1..2 100644\n--- a/small.c\n"
                       "+++ b/small.c\n@@ -1,8 +1,8 @@\n ctx 1\n ctx 2\n ctx 3\n";
  for (int i = 0; i < 2; ++i) StrAppend(&output, "-old ", i, "\n+new ", i, "\n");
  output += " ctx 4\n ctx 5\n ctx 6\n";
  output += "diff --git a/old.py b/old.py\ndeleted file mode 100644\nindex 3..0000000\n"
            "--- a/old.py\n+++ /dev/null\n@@ -1,22 +0,0 @@\n";
  for (int i = 0; i < 22; ++i) StrAppend(&output, "-gone ", i, "\n");
  output += NewFile("big.txt", 500);
  std::string summary = Shape("git diff HEAD~3", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "git diff: 3 files changed, +502 −24");
  // The small file whole (but its context), the deleted file's lines counted with its name.
  CHECK(Has(lines, "-old 0"));
  CHECK(Has(lines, "+new 1"));
  CHECK_FALSE(Has(lines, " ctx 1"));
  CHECK(Has(lines, "deleted file mode 100644"));
  CHECK(Has(lines, "@@ -1,22 +0,0 @@"));
  CHECK(Has(lines, "… 22 lines of the deleted file old.py omitted"));
  // The big file: at most 80 lines (budget 250 + 8 per extra file, 80 per file).
  CHECK(Has(lines, "… 420 changed lines omitted (+420)"));
  CHECK(Has(lines, "… 6 context lines omitted"));
  CHECK(Has(lines, "… 9 lines of index and ---/+++ headers omitted"));
  CheckFaithful(output, summary);
  size_t shown = lines.size() - 1 - 4;  // minus the header and the four markers
  CHECK(MarkedLines(summary) + shown == core::CountLines(output));
}

TEST_CASE("git-diff: a minified file's huge line is cut like every built-in's") {
  std::string output = StrCat("diff --git a/app.min.js b/app.min.js\nindex 1..2 100644\n"
                              "--- a/app.min.js\n+++ b/app.min.js\n@@ -1 +1 @@\n-",
                              std::string(5000, 'a'), "\n+", std::string(6000, 'b'), "\n");
  auto lines = Lines(Shape("git diff", output));
  CHECK(lines[0] == "git diff: 1 file changed, +1 −1");
  CHECK(Has(lines, "… 2,441 bytes of this line omitted"));
  CHECK(Has(lines, "… 3,441 bytes of this line omitted"));
}

TEST_CASE("git-diff: a '-- ' line inside a hunk is a deleted line, not a header") {
  std::string output =
      "--- a/schema.sql\n+++ b/schema.sql\n@@ -1,2 +1,1 @@\n--- drop me\n select 1;\n";
  auto lines = Lines(Shape("diff -u a/schema.sql b/schema.sql", output, 1));
  CHECK(lines[0] == "diff: 1 file changed, −1 (exit 1)");
}

TEST_CASE("git-diff: normal-format diffs count hunks") {
  std::string output = "3c3\n< b\n---\n> B\n7a8,9\n> x\n> y\n";
  auto lines = Lines(Shape("diff a.txt b.txt", output, 1));
  CHECK(lines[0] == "diff: 2 hunks, +3 −1 (exit 1)");
}

TEST_CASE("git-diff: log keeps every commit's hash, author, date and subject") {
  std::string output;
  for (int i = 0; i < 30; ++i) {
    StrAppend(&output, "commit ", std::string(38, 'a'), i < 10 ? "0" : "", i, "\n",
              "Author: Dev ", i, " <dev@x.org>\nDate:   Mon Mar 4 09:00:00 2024 +0100\n\n",
              "    subject number ", i, "\n    \n");
    for (int b = 0; b < 9; ++b) StrAppend(&output, "    body line ", b, " of ", i, "\n");
    output += "\n";
  }
  std::string summary = Shape("git log", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "git log: 30 commits");
  for (int i = 0; i < 30; ++i) {
    CHECK(Has(lines, StrCat("    subject number ", i)));
    CHECK(Has(lines, StrCat("Author: Dev ", i, " <dev@x.org>")));
  }
  // 120 message lines shared by 30 commits: 4 each, the other 5 counted (the blank "    "
  // line is a blank line).
  CHECK(Has(lines, "    body line 3 of 7"));
  CHECK_FALSE(Has(lines, "    body line 4 of 7"));
  CHECK(Has(lines, "… 5 more lines of the commit message omitted"));
  CheckFaithful(output, summary);
}

TEST_CASE("git-diff: a long one-line log keeps 1,000 commits and counts the rest") {
  std::string output;
  for (int i = 0; i < 1050; ++i) {
    std::string hash = StrCat("abc", 1000 + i);  // 7 hex digits
    StrAppend(&output, hash, " fix number ", i, "\n");
  }
  auto lines = Lines(Shape("git log --oneline", output));
  CHECK(lines[0] == "git log: 1,050 commits");
  CHECK(lines[1000] == "abc1999 fix number 999");
  CHECK(lines[1001] == "… 50 more commits omitted");
  CHECK(lines.size() == 1002);
}

TEST_CASE("git-diff: a log in a format of one's own is read as its commits") {
  // `--format='%h|%an|%ad|%s'`, tab-separated `%h%x09%s`, CSV: the hash, then a separator.
  for (std::string_view sep : {"|", "\t", ","}) {
    std::string output;
    for (int i = 0; i < 400; ++i) {
      StrAppend(&output, StrCat("abc", 1000 + i), sep, "Dev One", sep, "2026-12-0", 1 + i % 9, sep,
                "cart: fix the rounding of line ", i, " in the totals of an order\n");
    }
    const uint64_t budget = 8000;
    const std::string summary = Shape("git log --format='%h|%an|%ad|%s' -n 400", output, 0, budget);
    auto lines = Lines(summary);
    INFO(summary);
    CHECK(lines[0] == "git log: 400 commits");
    // Every commit as printed: they fit.
    for (int i = 0; i < 400; i += 37) {
      CHECK(Has(lines, StrCat("abc", 1000 + i, sep, "Dev One", sep, "2026-12-0", 1 + i % 9, sep,
                              "cart: fix the rounding of line ", i, " in the totals of an order")));
    }
  }
}

// A commit's hash in StatLog: 7 digits of its number, then 33 fixed ones.
std::string StatHash(int i, size_t digits = 40) {
  char head[16];
  std::snprintf(head, sizeof head, "%07x", 0x1000000 + i);
  return (std::string(head) + "0123456789abcdef0123456789abcdef0").substr(0, digits);
}

// `git log --stat` of `commits` commits: "commit <40 hex>", Author/Date, a two-line message, a
// stat block of two files and its totals line.
std::string StatLog(int commits) {
  std::string output;
  for (int i = 0; i < commits; ++i) {
    std::string hash = StatHash(i);
    StrAppend(&output, "commit ", hash, i == 0 ? " (HEAD -> main)" : "", "\n",
              "Author: Dev <dev@x.org>\nDate:   Tue Nov 28 02:39:09 2023 +0000\n\n",
              "    cart: fix rounding number ", i, "\n\n    Why it matters.\n\n",
              " src/cart.py   | 2 +-\n tests/test.py | 3 +++\n",
              " 2 files changed, 4 insertions(+), 1 deletion(-)\n\n");
  }
  return output;
}

TEST_CASE("git-diff: a log too long for the budget: later commits as their hash and subject") {
  // 300 commits: their hash lines and subjects as printed take about 10,000 tokens.
  const std::string output = StatLog(300);
  auto lines = Lines(Shape("git log --stat", output, 0, 8000));
  CHECK(lines[0] == "git log: 300 commits");
  // The first ten as printed.
  CHECK(lines[1] == "commit 10000000123456789abcdef0123456789abcdef0 (HEAD -> main)");
  CHECK(Has(lines, "    cart: fix rounding number 9"));
  CHECK(Has(lines, "commit 10000090123456789abcdef0123456789abcdef0"));
  CHECK_FALSE(Has(lines, "commit 100000a0123456789abcdef0123456789abcdef0"));
  // Every later one: its hash abbreviated to 10 digits, its subject.
  for (int i = 10; i < 300; ++i) {
    std::string hash = StatHash(i, 10);
    CHECK(Has(lines, StrCat(hash, " cart: fix rounding number ", i)));
  }
  // Their Author/Date lines, message bodies and stat blocks are counted.
  CHECK(Has(lines, "… 580 Author/Date lines of the commits after the first 10 omitted"));
  CHECK(Has(lines, "… 290 lines of their messages after the subject omitted"));
  CHECK(Has(lines, "… 870 lines of their --stat blocks omitted"));
  CHECK(lines.size() < 10 * 9 + 290 + 8);

  // A --name-status log's file lists are called that, not --stat blocks.
  std::string name_status = StatLog(300);
  name_status = absl::StrReplaceAll(
      name_status,
      {{" src/cart.py   | 2 +-\n tests/test.py | 3 +++\n", "M\tsrc/cart.py\nA\ttests/test.py\n"},
       {" 2 files changed, 4 insertions(+), 1 deletion(-)\n", ""}});
  auto listed = Lines(Shape("git log --name-status", name_status, 0, 8000));
  CHECK(Has(listed, StrCat(StatHash(299, 10), " cart: fix rounding number 299")));
  CHECK(Has(listed, "… 580 lines of their --name-status lists omitted"));

  // With no budget, or commits that fit, every commit is kept as printed.
  for (auto [commits, budget] : {std::pair{300, 0}, std::pair{40, 8000}}) {
    auto kept = Lines(Shape("git log --stat", StatLog(commits), 0, static_cast<uint64_t>(budget)));
    for (int i = 0; i < commits; ++i) {
      std::string hash = StatHash(i);
      CHECK(Has(kept, StrCat("commit ", hash, i == 0 ? " (HEAD -> main)" : "")));
      CHECK(Has(kept, StrCat("    cart: fix rounding number ", i)));
    }
  }
}

TEST_CASE("git-diff: --graph logs are read through the graph") {
  std::string output =
      "* c954a5f main: handle SIGTERM\n"
      "*   92154d9 Merge branch 'feature/metrics'\n"
      "|\\  \n"
      "| * 35275b4 http: expose GET /metrics\n"
      "* | 06893da README: mention make test\n"
      "|/  \n"
      "* d322069 Release 2.0\n";
  auto lines = Lines(Shape("git log --graph --oneline", output));
  CHECK(lines[0] == "git log: 5 commits");
}

TEST_CASE("git-diff: --stat output keeps its lines and reads the totals line") {
  std::string output =
      " src/db.c   | 5 +++--\n src/http.c | 5 +++++\n 2 files changed, 8 insertions(+), 2 "
      "deletions(-)\n";
  auto lines = Lines(Shape("git diff --stat", output));
  CHECK(lines[0] == "git diff: 2 files changed, +8 −2");
  CHECK(lines[3] == " 2 files changed, 8 insertions(+), 2 deletions(-)");
}

TEST_CASE("git-diff: a long --stat block names every file, the rest of it as a list") {
  std::string output;
  for (int i = 0; i < 130; ++i) {
    StrAppend(&output, " src/pkg", i / 40, "/mod_", i, ".py", i < 10 ? " " : "", i < 100 ? " " : "",
              " | ", 10 + i, " ++++----\n");
  }
  output += " 130 files changed, 1000 insertions(+), 1000 deletions(-)\n";
  const std::string s = Shape("git diff --stat main feature", output);
  INFO(s);
  auto lines = Lines(s);
  CHECK(lines[0] == "git diff: 130 files changed, +1,000 −1,000");
  CHECK(Contains(s,
                 "\n src/pkg1/mod_79.py  | 89 ++++----\n"
                 "… 50 more files changed at: src/pkg2/mod_80.py 90; src/pkg2/mod_81.py 91; "));
  CHECK(Contains(s, "; src/pkg3/mod_129.py 139\n 130 files changed, "));
}

TEST_CASE("git-diff: status --short: many untracked paths past the cap are counted by folder") {
  std::string output = " M src/a.py\n";
  for (int i = 0; i < 140; ++i) StrAppend(&output, "?? build/out", i, ".o\n");
  output += "?? \"src/with space.py\"\n";
  auto lines = Lines(Shape("git status --short", output));
  CHECK(Has(lines, "… 111 more untracked paths omitted (110 under build/, 1 under src/)"));
}

TEST_CASE("git-diff: status (long) keeps branch lines, headings and paths, drops hints") {
  std::string output =
      "On branch main\n"
      "Your branch is ahead of 'origin/main' by 2 commits.\n"
      "  (use \"git push\" to publish your local commits)\n\n"
      "Changes to be committed:\n"
      "  (use \"git restore --staged <file>...\" to unstage)\n"
      "\tmodified:   Makefile\n"
      "\trenamed:    a.py -> b.py\n\n"
      "Changes not staged for commit:\n"
      "  (use \"git add <file>...\" to update what will be committed)\n"
      "\tmodified:   src/db.c\n\n"
      "Untracked files:\n"
      "  (use \"git add <file>...\" to include in what will be committed)\n";
  for (int i = 0; i < 40; ++i) StrAppend(&output, "\tbuild/out", i, ".o\n");
  for (int i = 0; i < 5; ++i) StrAppend(&output, "\tnote", i, ".txt\n");
  output += "\n";
  std::string summary = Shape("git status", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "git status: 2 staged, 1 unstaged, 45 untracked");
  CHECK(lines[1] == "On branch main");
  CHECK(lines[2] == "Your branch is ahead of 'origin/main' by 2 commits.");
  CHECK(Has(lines, "\trenamed:    a.py -> b.py"));
  CHECK(Has(lines, "Untracked files:"));
  CHECK(Has(lines, "\tbuild/out29.o"));
  CHECK_FALSE(Has(lines, "\tbuild/out30.o"));
  // The rest listed, as printed: they are few.
  CHECK(Has(lines,
            "… 15 more untracked paths at: build/out30.o; build/out31.o; build/out32.o; "
            "build/out33.o; build/out34.o; build/out35.o; build/out36.o; build/out37.o; "
            "build/out38.o; build/out39.o; note0.txt; note1.txt"));
  CHECK(Has(lines, "… untracked paths also at: note2.txt; note3.txt; note4.txt"));
  CHECK(lines.back() == "… 8 hint and blank lines omitted");
  CheckFaithful(output, summary);
}

TEST_CASE("git-diff: status --short and --porcelain=v2 are counted") {
  std::string shortfmt = "## main...origin/main [ahead 1]\nM  Makefile\n D docs/x.md\nMM a.c\n"
                         "UU conflict.c\n?? TODO.txt\n";
  auto lines = Lines(Shape("git status -sb", shortfmt));
  CHECK(lines[0] == "git status: 1 unmerged, 2 staged, 2 unstaged, 1 untracked");
  CHECK(lines.size() == 7);
  std::string v2 =
      "# branch.oid c9bf8f5a\n# branch.head main\n"
      "1 MM N... 100644 100644 100644 d0762 7ec28 README.md\n"
      "1 .M N... 100644 100644 100644 faa8b faa8b src/db.c\n? junk/\n";
  lines = Lines(Shape("git status --porcelain=v2 --branch", v2));
  CHECK(lines[0] == "git status: 1 staged, 2 unstaged, 1 untracked");
}

TEST_CASE("git-diff: success collapses: clean status, empty diff") {
  auto lines = Lines(Shape("git status", "On branch main\nnothing to commit, working tree clean\n"));
  CHECK(lines[0] == "git status: nothing to commit");
  CHECK(Shape("git diff", "") == "git diff: no changes\n");
  CHECK(Shape("git log", "") == "git log: no commits\n");
}

TEST_CASE("git-diff: an output it does not recognize falls back to head, tail and errors") {
  std::string output =
      "fatal: ambiguous argument 'v3.0': unknown revision or path not in the working tree.\n"
      "Use '--' to separate paths from revisions, like this:\n"
      "'git <command> [<revision>...] -- [<file>...]'\n";
  auto lines = Lines(Shape("git diff v3.0", output, 128));
  CHECK(lines[0] == "git diff: FAILED (exit 128), 3 lines");
  CHECK(lines[1] == "fatal: ambiguous argument 'v3.0': unknown revision or path not in the "
                    "working tree.");
  // `git show HEAD:x` prints a file: a few lines starting with hex digits are no log.
  std::string file = "deadbeef00 magic\nint main() {}\n  return 0;\n}\n// end\n";
  lines = Lines(Shape("git show HEAD:src/x.c", file));
  CHECK(lines[0] == "git show: 5 lines");
  // `git status` outside a repository: no status structure, no claim about the tree.
  lines = Lines(Shape("git status", "fatal: not a git repository (or any of the parent "
                                    "directories): .git\n", 128));
  CHECK(lines[0] == "git status: FAILED (exit 128), 1 line");
}

TEST_CASE("PipelineStages: the last pipeline of a command line") {
  auto stages = PipelineStages("cd src && grep -rn 'a|b' . 2>&1 | head -50");
  REQUIRE(stages.size() == 2);
  CHECK(stages[0] == "grep -rn 'a|b' . 2>&1");
  CHECK(stages[1] == "head -50");
  CHECK(PipelineStages("make || git status").size() == 1);
  CHECK(PipelineStages("git status; git diff")[0] == "git diff");
  CHECK(PipelineStages("make |& tee log").size() == 2);
  // A shell's script, as agents run commands: its own last pipeline.
  auto script = PipelineStages("bash -lc 'cd app && pytest -q 2>&1 | tail -20'");
  REQUIRE(script.size() == 2);
  CHECK(script[0] == "pytest -q 2>&1");
  CHECK(script[1] == "tail -20");
  CHECK(PipelineStages("/bin/sh -c \"make | tail\"").size() == 2);
  CHECK(PipelineStages("python3 -c 'print(1) | 2'").size() == 1);  // no shell
  CHECK(StatusIsAFilters("bash -lc 'pytest | tail -20'"));
  CHECK_FALSE(StatusIsAFilters("bash -lc 'set -o pipefail; pytest | tail -20'"));
  // xargs's status is the commands' it ran.
  CHECK_FALSE(StatusIsAFilters("find . -print0 | xargs -0 -n1 python3 -m py_compile"));
  // A command that reports after the pipeline (`; echo "exit=$?"`): the output is the
  // pipeline's and a line, the status the reporter's.
  auto reported = PipelineStages("make 2>&1 | tail -20; echo \"EXIT CODE: $?\"");
  REQUIRE(reported.size() == 2);
  CHECK(reported[1] == "tail -20");
  CHECK(StatusIsAFilters("make 2>&1 | tail -20; echo \"EXIT CODE: $?\""));
  CHECK(ExitZeroNote("pytest -q; echo \"exit: $?\"") == "exit 0 is echo's");
  CHECK(PipelineStages("pytest -q; echo \"exit: $?\"")[0] == "pytest -q");
  CHECK(ExitZeroNote("bash -lc 'pytest | tail -5 || true'") == "exit 0 is true's");
  // After `&&` it runs only when the pipeline succeeded: that 0 is the pipeline's.
  CHECK(PipelineStages("make && echo built")[0] == "make");
  CHECK_FALSE(StatusIsAFilters("make && echo built"));
  CHECK(ExitZeroNote("make && echo built") == "exit 0");
  // An echo alone is the command.
  CHECK(PipelineStages("echo hi")[0] == "echo hi");
}

TEST_CASE("git-diff: a merge, rebase or stash pop keeps every conflict, error and hint, and counts Auto-merging") {
  const std::string out =
      "Auto-merging src/a.c\n"
      "Auto-merging src/b.c\n"
      "CONFLICT (content): Merge conflict in src/b.c\n"
      "Auto-merging src/c.c\n"
      "CONFLICT (modify/delete): src/d.c deleted in feature and modified in HEAD.\n"
      "error: could not apply 9504a1d... fix the parser\n"
      "hint: Resolve all conflicts manually, mark them as resolved with\n"
      "hint: \"git add/rm <conflicted_files>\", then run \"git rebase --continue\".\n"
      "Could not apply 9504a1d... fix the parser\n";
  const std::string s = Shape("git rebase main", out, 1);
  CHECK(s == "git rebase: FAILED — 2 conflicts (exit 1)\n"
             "CONFLICT (content): Merge conflict in src/b.c\n"
             "CONFLICT (modify/delete): src/d.c deleted in feature and modified in HEAD.\n"
             "error: could not apply 9504a1d... fix the parser\n"
             "hint: Resolve all conflicts manually, mark them as resolved with\n"
             "hint: \"git add/rm <conflicted_files>\", then run \"git rebase --continue\".\n"
             "Could not apply 9504a1d... fix the parser\n"
             "… 3 \"Auto-merging\" lines omitted\n");
  // A merge that worked: its diffstat's totals head the summary, the diffstat stays.
  const std::string ok = Shape("git pull",
                               "Updating 767827b..a2ab0b4\nFast-forward\n src/a.c | 2 +-\n"
                               " 1 file changed, 1 insertion(+), 1 deletion(-)\n");
  CHECK(ok.starts_with("git pull: 1 file changed, 1 insertion(+), 1 deletion(-)\nUpdating 767827b..a2ab0b4\n"
                       "Fast-forward\n src/a.c | 2 +-\n"));
  // Failing without a conflict: a dirty tree.
  const std::string dirty = Shape("git stash pop",
                                  "error: Your local changes to the following files would be overwritten by merge:\n"
                                  "\tsrc/a.c\nPlease commit your changes or stash them before you merge.\nAborting\n", 1);
  CHECK(dirty.starts_with("git stash pop: FAILED (exit 1)\nerror: Your local changes"));
  CHECK(dirty.find("\n\tsrc/a.c\n") != std::string::npos);
}

TEST_CASE("git-diff: git blame keeps every commit, by the first line of each run of lines from it") {
  const std::string output = testing::ReadFixture("git-diff", "blame");
  REQUIRE(!output.empty());
  const auto shaper = MakeGitDiffShaper();
  core::ShapeContext ctx{"git --no-pager blame src/http.c", 0, output.size(),
                         core::CountLines(output), "/s/outputs/a.log"};
  auto shaped = shaper->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const std::string& s = shaped->summary;
  INFO(s);
  CHECK(s.starts_with("git blame: 83 lines from 4 commits, 12 runs of lines from one commit\n"));
  for (std::string_view hash : {"0ba31298 (", "35275b40 (", "91842e26 (", "c6464f8e ("}) {
    CHECK(Contains(s, hash));
  }
  // A run's first line, as printed; the others counted.
  CHECK(Contains(s, "\n0ba31298 (Alice Martin 2024-03-07 13:27:32 +0100  1) #include \"http.h\"\n"));
  CHECK(Contains(s, "\n… 71 more lines of the commit of the line above them omitted\n"));
}

TEST_CASE("git-diff: git log counts an Author line that repeats the commit's above, keeps one that changes") {
  // One author's commits (git log --author=Alice): the Author line once, every commit's hash,
  // date and subject.
  const std::string output = testing::ReadFixture("git-diff", "log-author");
  REQUIRE(!output.empty());
  const std::string s = Shape("git --no-pager log --author=Alice", output);
  INFO(s);
  CHECK(s.starts_with("git log: 12 commits\ncommit 92154d9bfad1abd18d302400438e0c3bcdbce2db\n"
                      "Merge: 06893da 35275b4\nAuthor: Alice Martin <alice@stockd.dev>\n"));
  CHECK(s.find("Author: ") == s.rfind("Author: "));
  size_t commits = 0, dates = 0;
  for (const std::string& line : Lines(s)) {
    commits += line.starts_with("commit ") ? 1 : 0;
    dates += line.starts_with("Date:   ") ? 1 : 0;
  }
  CHECK(commits == 12);
  CHECK(dates == 12);
  CHECK(Contains(s, "\n… 11 Author lines omitted, each the same as the commit's above\n"));

  // Authors taking turns: each commit's Author line where it differs from the one above.
  const std::string turns =
      "commit 1111111111111111111111111111111111111111\nAuthor: Ann <ann@x.dev>\nDate:   Mon Mar 4 09:00:00 2024\n\n    one\n\n"
      "commit 2222222222222222222222222222222222222222\nAuthor: Ann <ann@x.dev>\nDate:   Tue Mar 5 09:00:00 2024\n\n    two\n\n"
      "commit 3333333333333333333333333333333333333333\nAuthor: Bo <bo@x.dev>\nDate:   Wed Mar 6 09:00:00 2024\n\n    three\n\n"
      "commit 4444444444444444444444444444444444444444\nAuthor: Ann <ann@x.dev>\nDate:   Thu Mar 7 09:00:00 2024\n\n    four\n";
  const std::vector<std::string> t = Lines(Shape("git log", turns));
  INFO(Shape("git log", turns));
  CHECK(t[1] == "commit 1111111111111111111111111111111111111111");
  CHECK(t[2] == "Author: Ann <ann@x.dev>");
  CHECK(t[5] == "commit 2222222222222222222222222222222222222222");
  CHECK(t[6] == "Date:   Tue Mar 5 09:00:00 2024");
  CHECK(t[9] == "Author: Bo <bo@x.dev>");
  CHECK(t[13] == "Author: Ann <ann@x.dev>");
  CHECK(Has(t, "… 1 Author line omitted, each the same as the commit's above"));
}

}  // namespace
}  // namespace plugline::builtin

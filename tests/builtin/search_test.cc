// Tests for builtin-search: grep, rg, ag, git grep, find, fd.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "builtin/builtin_shapers.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

double Confidence(std::string_view command, std::string_view output) {
  auto shaper = MakeSearchShaper();
  auto match = shaper->Match(command, output, 0);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

std::string Shape(std::string_view command, std::string_view output,
                  std::optional<int> exit_code = 0) {
  auto shaper = MakeSearchShaper();
  core::ShapeContext ctx{command, exit_code, output.size(), core::CountLines(output),
                         "/s/outputs/a.log"};
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

void CheckFaithful(const std::string& output, const std::string& summary) {
  auto source = core::SplitLines(output);
  auto lines = core::SplitLines(summary);
  for (size_t i = 1; i < lines.size(); ++i) {
    bool ok = lines[i].starts_with("… ") ||
              std::find(source.begin(), source.end(), lines[i]) != source.end();
    CHECK_MESSAGE(ok, "not from the output: [" << std::string(lines[i]) << "]");
  }
}

// Lines of the output shown plus lines the markers account for.
uint64_t Accounted(const std::string& summary) {
  uint64_t total = 0;
  auto lines = core::SplitLines(summary);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (!l.starts_with("… ")) {
      ++total;
      continue;
    }
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

// `files` files of `per_file` matches each: "src/fN.c:L:  call(N, L);".
std::string Matches(int files, int per_file, bool numbered = true) {
  std::string out;
  for (int f = 0; f < files; ++f) {
    for (int m = 1; m <= per_file; ++m) {
      if (numbered) {
        StrAppend(&out, "src/f", f, ".c:", m * 10, ":  call(", f, ", ", m, ");\n");
      } else {
        StrAppend(&out, "src/f", f, ".c:  call(", f, ", ", m, ");\n");
      }
    }
  }
  return out;
}


TEST_CASE("search: a program that is no search tool keeps its name and its exit code") {
  std::string output;
  for (int i = 0; i < 30; ++i) {
    StrAppend(&output, "af.po:", 20 + i, ": a format specification for argument 'n", i,
              "' doesn't exist in 'msgstr'\n");
  }
  const auto lines = Lines(Shape("for f in *.po; do msgfmt -c -o /dev/null $f; done", output, 1));
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "msgfmt: 30 matches in 1 file (exit 1)");
  // grep's exit 1 says nothing matched: no exit note.
  CHECK(Lines(Shape("grep -rn foo .", "a.c:1:foo\nb.c:2:foo\nc.c:3:foo\n", 1))[0] ==
        "grep: 3 matches in 3 files");
}

TEST_CASE("search: errors in a search read through a filter are said first, shown raw or not") {
  // tests/fixtures/search/find-permission (17 lines: all of them through tail -20): paths and
  // `Permission denied` lines, find's status 1 replaced by tail's 0.
  const std::string cut = testing::ReadFixture("search", "find-permission");
  auto shape = [&](std::string_view command) {
    core::ShapeContext ctx{command, 0, cut.size(), core::CountLines(cut), "/s/outputs/a.log"};
    auto shaped = MakeSearchShaper()->Shape(cut, ctx);
    REQUIRE(shaped.ok());
    return *shaped;
  };
  const core::ShapeOutput filtered = shape("find /var -name '*.log' 2>&1 | tail -20");
  INFO(filtered.summary);
  CHECK(filtered.failed);
  CHECK(Lines(filtered.summary)[0].ends_with(" errors"));
  // A status 0 that is find's own is believed.
  CHECK_FALSE(shape("find /var -name '*.log'").failed);
}

TEST_CASE("search match: the command runs a search tool") {
  CHECK(Confidence("grep -rn foo .", "") == doctest::Approx(0.92));
  CHECK(Confidence("rg -n 'a|b' src", "") == doctest::Approx(0.92));
  CHECK(Confidence("find . -name '*.c'", "") == doctest::Approx(0.92));
  CHECK(Confidence("git grep -n TODO", "") == doctest::Approx(0.92));
  CHECK(Confidence("fd -e rs", "") == doctest::Approx(0.92));
  CHECK(Confidence("cd repo && rg -n foo | head -50", "") == doctest::Approx(0.92));
  CHECK(Confidence("find . -name '*.c' | xargs grep -n malloc", "") == doctest::Approx(0.92));
  // A grep filtering another command's output.
  CHECK(Confidence("ps aux | grep node", "") == doctest::Approx(0.75));
  // Not a search: the pipeline changes the lines, the tool prints something else.
  CHECK(Confidence("grep -rn foo . | wc -l", "12\n") == 0);
  CHECK(Confidence("find . -name '*.c' -exec wc -l {} +", "  12 ./a.c\n") == 0);
  CHECK(Confidence("grep --version", "grep (GNU grep) 3.8\n") == 0);
  CHECK(Confidence("git log --oneline", "c954a5f main: handle SIGTERM\n") == 0);
}

TEST_CASE("search match: output signals when the command is something else") {
  CHECK(Confidence("cat results.txt", Matches(2, 3)) == doctest::Approx(0.65));
  CHECK(Confidence("cat out.json",
                   "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"a.c\"}}}\n") ==
        doctest::Approx(0.85));
  // Compiler diagnostics look like grep -n output, but are not.
  CHECK(Confidence("make", "src/a.c:12:5: error: unknown type 'x'\n"
                           "src/a.c:14:5: error: unknown type 'y'\n"
                           "src/b.c:3:1: warning: unused 'z'\n") == 0);
  CHECK(Confidence("./run.sh", "starting\nstep 1\ndone\n") == 0);
}

TEST_CASE("search: grep -rn keeps every file's first matches and counts the rest per file") {
  std::string output = Matches(5, 100);
  std::string summary = Shape("grep -rn call src", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "grep: 500 matches in 5 files");
  // 200 lines shared by 5 files, at most 30 each.
  CHECK(Has(lines, "src/f3.c:300:  call(3, 30);"));
  CHECK_FALSE(Has(lines, "src/f3.c:310:  call(3, 31);"));
  // After the file's last match shown, which names the file.
  const auto f3 = std::find(lines.begin(), lines.end(), "src/f3.c:300:  call(3, 30);");
  REQUIRE(f3 + 1 < lines.end());
  CHECK(*(f3 + 1) == "… 70 more matches in this file omitted");
  CHECK(lines.size() == 1 + 5 * 31);
  CheckFaithful(output, summary);
  CHECK(Accounted(summary) == 500);
}

TEST_CASE("search: context lines without numbers are their file's, a colon in their text or not") {
  // tests/fixtures/search/rg-context-plain: `rg -C2` through a pipe, "path:text" matches and
  // "path-text" context lines, some of them " * x: y".
  const std::string output = testing::ReadFixture("search", "rg-context-plain");
  const std::string summary = Shape("rg -C2 _IOWR /usr/include/linux", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "rg: 455 matches in 97 files");
  CheckFaithful(output, summary);
  // Every file with a match is named.
  for (std::string_view line : core::SplitLines(output)) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos ||
        line.substr(0, colon).find('-') != std::string_view::npos)
      continue;
    CHECK_MESSAGE(testing::Contains(summary, line.substr(0, colon + 1)), line);
  }
}

TEST_CASE("search: small files whole, large ones cut, files past 400 counted") {
  std::string output = Matches(450, 1) + Matches(1, 0);
  output += "src/big.c:1:x\nsrc/big.c:2:y\n";
  std::string summary = Shape("grep -rn x src", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "grep: 452 matches in 451 files");
  CHECK(Has(lines, "src/f399.c:10:  call(399, 1);"));
  CHECK_FALSE(Has(lines, "src/f400.c:10:  call(400, 1);"));
  CHECK(Has(lines, "… 52 matches in 51 more files omitted"));
  CHECK(Accounted(summary) == 452);
}

TEST_CASE("search: errors and binary notices are kept and counted in the header") {
  std::string output =
      "grep: /etc/shadow: Permission denied\n"
      "/etc/hosts:1:127.0.0.1 localhost\n"
      "grep: /etc/ssl/private: Permission denied\n"
      "grep: /usr/sbin/tc: binary file matches\n"
      "/etc/hosts:2:127.0.0.1 vm\n";
  std::string summary = Shape("grep -rn 127.0.0.1 /etc /usr/sbin", output, 2);
  auto lines = Lines(summary);
  CHECK(lines[0] == "grep: 2 matches in 1 file; 1 binary file matches; 2 errors (exit 2)");
  CHECK(lines.size() == 6);
  CheckFaithful(output, summary);
}

TEST_CASE("search: a match whose text reads like an error is a match") {
  // CI logs that record rg's "…: No such file or directory (os error 2)", searched by grep.
  const std::string output = testing::ReadFixture("search", "grep-ci-logs");
  std::string summary =
      Shape("cd /tmp/plugline-fixtures/search/ci-logs && grep -rn 'No such file' jobs", output);
  CHECK(Lines(summary)[0] == "grep: 660 matches in 60 files");
  CHECK(summary.find("jobs/job-160.log:2:/srv/build/job-160/src: No such file or directory "
                     "(os error 2)") != std::string::npos);
}

TEST_CASE("search: past 40 error lines the rest are counted by kind") {
  std::string output;
  for (int i = 0; i < 100; ++i) StrAppend(&output, "find: ‘/var/lib/d", i, "’: Permission denied\n");
  output += "/var/log/a.log\n";
  std::string summary = Shape("find /var -name '*.log'", output, 1);
  auto lines = Lines(summary);
  CHECK(lines[0] == "find: 1 path in 1 directory; 100 errors (exit 1)");
  CHECK(Has(lines, "… 60 more 'Permission denied' lines omitted"));
  CHECK(Accounted(summary) == 101);
}

TEST_CASE("search: no matches is one line, exit 1 is not trouble for grep") {
  CHECK(Shape("grep -rn nothing_here .", "", 1) == "grep: no matches\n");
  CHECK(Shape("rg nothing_here", "", 1) == "rg: no matches\n");
  CHECK(Shape("find . -name '*.zzz'", "", 0) == "find: nothing found\n");
  auto lines = Lines(Shape("grep -rn x /nope", "grep: /nope: No such file or directory\n", 2));
  CHECK(lines[0] == "grep: no matches; 1 error (exit 2)");
  CHECK(lines[1] == "grep: /nope: No such file or directory");
}

TEST_CASE("search: one file's matches (no file names) keep the head and the tail") {
  std::string output;
  for (int i = 1; i <= 150; ++i) StrAppend(&output, i * 3, ":\tuint32_t field", i, ";\n");
  std::string summary = Shape("grep -n uint32_t bpf.h", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "grep: 150 matches");
  CHECK(lines[100] == "300:\tuint32_t field100;");
  CHECK(lines[101] == "… 30 more matches omitted");
  CHECK(lines[102] == "393:\tuint32_t field131;");
  CHECK(lines.size() == 122);
  CheckFaithful(output, summary);
}

TEST_CASE("search: context lines (-C) stay with their matches") {
  std::string output;
  for (int f = 0; f < 3; ++f) {
    for (int m = 0; m < 100; ++m) {
      int line = 10 + m * 10;
      StrAppend(&output, "lib/m", f, ".py-", line - 1, "-    # before\n");
      StrAppend(&output, "lib/m", f, ".py:", line, ":    hit()\n");
      StrAppend(&output, "lib/m", f, ".py-", line + 1, "-    # after\n");
      output += "--\n";
    }
  }
  std::string summary = Shape("grep -rn -C1 hit lib", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "grep: 300 matches in 3 files");
  // A match comes with 2 lines of context: 22 matches of each file (a third of the 200 lines
  // of matches), the rest counted with its lines.
  CHECK(Has(lines, "lib/m1.py:220:    hit()"));
  CHECK_FALSE(Has(lines, "lib/m1.py:230:    hit()"));
  CHECK(Has(lines, "… 234 more lines (78 matches) in this file omitted"));
  // The first 100 lines shown with their context; the matches after them alone.
  CHECK(Has(lines, "lib/m1.py-119-    # before"));
  CHECK(Has(lines, "lib/m1.py:120:    hit()"));
  CHECK(Has(lines, "lib/m2.py:50:    hit()"));
  CHECK_FALSE(Has(lines, "lib/m2.py-51-    # after"));
  CHECK(Has(lines,
            "… 65 context lines around the matches shown after the first 100 lines omitted"));
  CHECK(Has(lines, "… 268 \"--\" separator lines omitted"));
  CHECK(lines.size() < 220);
  CheckFaithful(output, summary);
}

TEST_CASE("search: a minified file's huge line is cut like every built-in's") {
  std::string output = StrCat("dist/app.min.js:1:", std::string(10000, 'x'), "\nsrc/a.js:3:ok\n");
  auto lines = Lines(Shape("grep -rn x dist src", output));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "grep: 2 matches in 2 files");
  CHECK(lines[1].starts_with("dist/app.min.js:1:xxx"));
  CHECK(lines[2] == "… 7,458 bytes of this line omitted");
  CHECK(lines[4] == "src/a.js:3:ok");
}

TEST_CASE("search: rg --heading groups and grep -c counts") {
  std::string heading = "src/a.rs\n3:fn a() {}\n9:fn aa() {}\n\nsrc/b.rs\n4:fn b() {}\n";
  auto lines = Lines(Shape("rg --heading -n fn src", heading));
  CHECK(lines[0] == "rg: 3 matches in 2 files");
  std::string counts;
  for (int i = 0; i < 250; ++i) StrAppend(&counts, "src/f", i, ".c:", i % 2, "\n");
  lines = Lines(Shape("grep -rc malloc src", counts));
  CHECK(lines[0] == "grep: 125 matches in 125 files");
  CHECK(Has(lines, "… 125 files with 0 matches omitted"));
}

TEST_CASE("search: find output is grouped by directory when long") {
  std::string output;
  for (int i = 0; i < 200; ++i) StrAppend(&output, "./src/a/x", i, ".h\n");
  for (int i = 0; i < 100; ++i) StrAppend(&output, "./src/b/deep/y", i, ".h\n");
  for (int i = 0; i < 3; ++i) StrAppend(&output, "./src/top", i, ".h\n");
  std::string summary = Shape("find . -name '*.h'", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "find: 303 paths in 3 directories");
  CHECK(lines[1] == "./src/a/x0.h");
  CHECK(Has(lines, "… 171 more paths under ./src/a/ omitted"));  // 60 shared: 29, 28, 3
  CHECK(Has(lines, "… 72 more paths under ./src/b/ omitted"));
  CHECK(Has(lines, "./src/top2.h"));
  CheckFaithful(output, summary);
  CHECK(Accounted(summary) == 303);
  // A short list is kept whole.
  lines = Lines(Shape("fd -e h", "a.h\nsrc/b.h\n"));
  CHECK(lines[0] == "fd: 2 paths in 2 directories");
  CHECK(lines.size() == 3);
  // grep -l lists files.
  lines = Lines(Shape("grep -rl foo .", "./a.c\n./b.c\n"));
  CHECK(lines[0] == "grep: 2 files");
}

TEST_CASE("search: rg --json renders matches from the event fields") {
  std::string output =
      "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"src/a.c\"}}}\n"
      "{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"src/a.c\"},\"lines\":{\"text\":"
      "\"int x = O_NONBLOCK;\\n\"},\"line_number\":13,\"absolute_offset\":249,"
      "\"submatches\":[]}}\n"
      "{\"type\":\"end\",\"data\":{\"path\":{\"text\":\"src/a.c\"},\"binary_offset\":null,"
      "\"stats\":{}}}\n"
      "{\"data\":{\"stats\":{\"matched_lines\":1,\"matches\":1}},\"type\":\"summary\"}\n";
  auto lines = Lines(Shape("rg --json O_NONBLOCK src", output));
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] == "rg: 1 match in 1 file");
  CHECK(lines[1] == "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"src/a.c\"}}}");
  CHECK(lines[2] == "13:int x = O_NONBLOCK;");
  CHECK(lines[3].starts_with("{\"data\":{\"stats\""));
  CHECK(lines[4] == "… 1 other line omitted (end events)");
}

TEST_CASE("search: rg --json cut at its start shows a file's match whose begin event was cut off") {
  // tests/fixtures/search/rg-json's last 10 lines: inotify.h's second match and its end event,
  // then two files whole and the summary. Before, that match was dropped and not counted.
  const std::string cut = testing::LastLines(testing::ReadFixture("search", "rg-json"), 10);
  const std::string summary = Shape("rg --json O_NONBLOCK /usr/include/linux | tail -10", cut);
  INFO(summary);
  auto lines = Lines(summary);
  REQUIRE(lines.size() > 2);
  CHECK(lines[0] == "rg: 4 matches in 3 files");
  CHECK(lines[1].starts_with(
      "{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"/usr/include/linux/inotify.h\"}"));
  CHECK(lines[2] ==
        "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"/usr/include/linux/pidfd.h\"}}}");
  CHECK(lines[3] == "10:#define PIDFD_NONBLOCK O_NONBLOCK");
  // Its end event alone before any begin (`| tail -6`) is an event like the others: counted.
  const std::string six = testing::LastLines(testing::ReadFixture("search", "rg-json"), 6);
  CHECK(Lines(Shape("rg --json O_NONBLOCK /usr/include/linux | tail -6", six))[0] ==
        "rg: 2 matches in 1 file");
}

TEST_CASE("search: rg --json's context events count in the lines shown, as grep's -C lines do") {
  auto event = [](std::string_view type, int f, int line, std::string_view text) {
    return StrCat("{\"type\":\"", type, "\",\"data\":{\"path\":{\"text\":\"lib/m", f,
                  ".py\"},\"lines\":{\"text\":\"", text, "\\n\"},\"line_number\":", line,
                  ",\"absolute_offset\":0,\"submatches\":[]}}\n");
  };
  std::string output;
  for (int f = 0; f < 3; ++f) {
    StrAppend(&output, "{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"lib/m", f,
              ".py\"}}}\n");
    for (int m = 0; m < 100; ++m) {
      const int line = 10 + m * 10;
      output += event("context", f, line - 1, "# before");
      output += event("match", f, line, "hit()");
      output += event("context", f, line + 1, "# after");
    }
    StrAppend(&output, "{\"type\":\"end\",\"data\":{\"path\":{\"text\":\"lib/m", f,
              ".py\"},\"binary_offset\":null,\"stats\":{}}}\n");
  }
  const std::string summary = Shape("rg --json -C1 hit lib", output);
  auto lines = Lines(summary);
  CHECK(lines[0] == "rg: 300 matches in 3 files");
  // 22 matches of each file (a third of the 200 lines), the first 100 lines with their
  // context, the matches after them alone.
  CHECK(Has(lines, "109-# before"));
  CHECK(Has(lines, "220:hit()"));
  CHECK_FALSE(Has(lines, "230:hit()"));
  CHECK(std::count(lines.begin(), lines.end(), "221-# after") == 1);  // m0's; not m1's, m2's
  CHECK(Has(lines,
            "… 68 context lines around the matches shown after the first 100 lines omitted"));
  CHECK(lines.size() < 150);
}

TEST_CASE("search: output it does not understand falls back to head, tail and errors") {
  // rg searching the working directory prints file names; these lines have none.
  std::string output;
  for (int i = 0; i < 60; ++i) StrAppend(&output, "progress ", i, "\n");
  output += "error: something broke\n";
  auto lines = Lines(Shape("rg foo", output, 2));
  CHECK(lines[0] == "rg: FAILED (exit 2), 61 lines");
  CHECK(Has(lines, "error: something broke"));
}

}  // namespace
}  // namespace plugline::builtin

// Tests for builtin-build: compilers and build tools. The inputs are real outputs of the tools
// (gcc 12, clang 14, GNU make 4.3, cmake 3.25 + ninja 1.11, cargo 1.8x, go 1.19, webpack 5,
// vite 7, npm 10, apt 2.6), shortened or repeated where a test needs more of them.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_split.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "core/strings.h"
#include "core/summary_budget.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

using testing::Contains;

std::string Shape(std::string_view command, const std::string& output, std::optional<int> exit) {
  auto shaper = MakeBuildShaper();
  core::ShapeContext ctx{command, exit, output.size(), core::CountLines(output), "/s/out.log"};
  auto shaped = shaper->Shape(output, ctx);
  REQUIRE(shaped.ok());
  return shaped->render_mode == RenderMode::kRaw ? "<raw>" : shaped->summary;
}

double Confidence(std::string_view command, std::string_view output,
                  std::optional<int> exit = 1) {
  auto match = MakeBuildShaper()->Match(command, output, exit);
  REQUIRE(match.ok());
  return match->matched ? match->confidence : 0;
}

// "12 | code", "12 - old", "12 + new": a line of source with rustc's gutter.
bool IsRustGutterForTest(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i == 0 || i >= line.size() || line[i] != ' ') return false;
  while (i < line.size() && line[i] == ' ') ++i;
  return i + 1 < line.size() && (line[i] == '|' || line[i] == '-' || line[i] == '+') &&
         line[i + 1] == ' ';
}

uint64_t MarkerCount(std::string_view line) {
  uint64_t n = 0;
  for (char c : line.substr(4)) {  // after "… "
    if (c == ',') continue;
    if (c < '0' || c > '9') break;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

// Every summary line after the header is a line of the output or a "… " marker, and the lines
// shown plus the lines the markers stand for are all the output's lines: nothing is invented,
// nothing disappears uncounted.
void CheckAccounting(const std::string& output, const std::string& summary) {
  auto in = core::SplitLines(output);
  std::unordered_map<std::string_view, int> source;
  for (std::string_view line : in) ++source[line];
  auto lines = core::SplitLines(summary);
  uint64_t shown = 0, elided = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.starts_with("… ") && line.find(core::kListAt) != std::string_view::npos) {
      // A list of locations stands for each one's diagnostic: its heading, the lines under it
      // (indented) and the "In function" line before it.
      std::string_view entries = line.substr(line.find(core::kListAt) + core::kListAt.size());
      for (absl::string_view entry : absl::StrSplit(ToAbsl(entries), "; ")) {
        const std::string heading = StrCat(ToStd(entry.substr(0, entry.find(' '))), ": ");
        for (size_t k = 0; k < in.size(); ++k) {
          if (!in[k].starts_with(heading)) continue;
          elided += 1 + (k > 0 && in[k - 1].find(": In function") != std::string_view::npos);
          for (size_t j = k + 1; j < in.size() && in[j].starts_with(" "); ++j) ++elided;
          break;
        }
      }
      continue;
    }
    if (line.starts_with("… ")) {
      // Counts of warnings and errors, not of lines.
      if (line.find(" more warning") != std::string_view::npos ||
          line.find(" more error omitted") != std::string_view::npos ||
          line.find(" more errors omitted") != std::string_view::npos) {
        continue;
      }
      elided += MarkerCount(line);
      continue;
    }
    INFO("line: ", std::string(line));
    CHECK(source[line] > 0);
    --source[line];
    ++shown;
  }
  CHECK(shown + elided == in.size());
}

bool Has(const std::string& summary, std::string_view line) {
  for (std::string_view l : core::SplitLines(summary)) {
    if (l == line) return true;
  }
  return false;
}

std::string_view Header(const std::string& summary) { return core::SplitLines(summary)[0]; }
std::string_view LastLine(const std::string& summary) { return core::SplitLines(summary).back(); }

// ---- gcc / clang ----------------------------------------------------------------------------

const std::string kGcc =
    "a.c: In function ‘f’:\n"
    "a.c:2:43: error: ‘y’ undeclared (first use in this function)\n"
    "    2 | int f(int x) { int unused; return SQ(x) + y; }\n"
    "      |                                           ^\n"
    "a.c:2:43: note: each undeclared identifier is reported only once for each function it "
    "appears in\n"
    "a.c:2:20: warning: unused variable ‘unused’ [-Wunused-variable]\n"
    "    2 | int f(int x) { int unused; return SQ(x) + y; }\n"
    "      |                    ^~~~~~\n"
    "a.c: In function ‘g’:\n"
    "a.c:3:24: warning: passing argument 1 of ‘f’ makes integer from pointer without a cast "
    "[-Wint-conversion]\n"
    "    3 | int g(void) { return f(\"s\"); }\n"
    "      |                        ^~~\n"
    "      |                        |\n"
    "      |                        char *\n"
    "In file included from a.c:1:\n"
    "a.h:1:11: note: expected ‘int’ but argument is of type ‘char *’\n"
    "    1 | int f(int x);\n"
    "      |       ~~~~^\n"
    "b.c: In function ‘h’:\n"
    "b.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]\n"
    "    9 | }\n"
    "      | ^\n";

TEST_CASE("build: a message wrapped before \"at\" is no stack frame") {
  // cmake's FindBoost message, as cmake wraps it: its last line starts with "at".
  const std::string output =
      "-- The C compiler identification is GNU 12.2.0\n"
      "CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 (message):\n"
      "  Could NOT find Boost (missing: Boost_INCLUDE_DIR filesystem) (Required is\n"
      "  at least version \"1.99\")\n"
      "Call Stack (most recent call first):\n"
      "  CMakeLists.txt:6 (find_package)\n"
      "\n"
      "-- Configuring incomplete, errors occurred!\n";
  const std::string s = Shape("cmake -S src -B build", output, 1);
  INFO(s);
  CHECK(Contains(s, "  Could NOT find Boost (missing: Boost_INCLUDE_DIR filesystem) (Required is\n"
                    "  at least version \"1.99\")\n"));
}

TEST_CASE("build: a cmake check whose indented result failed is kept with it: what was asked for") {
  const std::string output = testing::ReadFixture("build", "cmake-pkg-missing");
  const std::string s = Shape("cmake -S . -B build", output, 1);
  INFO(s);
  CHECK(Contains(s, "\n-- Checking for modules 'zlib>=1.2;libfancycodec>=3.2'\n"
                    "--   Package 'libfancycodec', required by 'virtual:world', not found\n"));
  CHECK_FALSE(Contains(s, "-- Detecting C compile features"));
}

TEST_CASE("build: what npm says after a build script failed is counted, and the error stays") {
  // A constructed run: vite's real failing build (fixture build/vite-build-failing) followed
  // by the block npm 11 prints after a workspace's script failed (from the real run of
  // fixture typescript/npm-workspace-failing), as `npm run build -w web` prints them.
  const std::string tsc = testing::ReadFixture("typescript", "npm-workspace-failing");
  const std::string npm_block = tsc.substr(tsc.find("npm error Lifecycle script"));
  const std::string output = testing::ReadFixture("build", "vite-build-failing") + npm_block;
  const std::string s = Shape("npm run build -w web", output, 1);
  INFO(s);
  CHECK(Header(s) == "npm run build: FAILED — 1 error (exit 1)");
  CHECK(Contains(s, "Could not resolve \"./lib/sound.js\" from \"src/main.js\"\n"));
  CHECK_FALSE(Contains(s, "npm error"));
  // An npm error that is not about a script npm ran stays.
  const std::string missing =
      Shape("npm run biuld",
            "npm error Missing script: \"biuld\"\nnpm error\nnpm error Did you mean this?\n"
            "npm error   npm run build # run the \"build\" package script\n",
            1);
  CHECK(Contains(missing, "npm error Missing script: \"biuld\""));
}

TEST_CASE("build: gcc errors keep location, message, notes and context, not the source") {
  std::string s = Shape("gcc -Wall -c a.c b.c", kGcc, 1);
  CHECK(Header(s) == "gcc: FAILED — 1 error, 3 warnings in 2 files (exit 1)");
  // Few lines, all of them diagnostics: everything but the noise is kept, in order — the
  // underlines (the location gives the column) and the echoes of the source (the file has
  // them, the location says where), the warnings' with their labels.
  const std::vector<std::string_view> expected = {
      "gcc: FAILED — 1 error, 3 warnings in 2 files (exit 1)",
      "a.c: In function ‘f’:",
      "a.c:2:43: error: ‘y’ undeclared (first use in this function)",
      "a.c:2:43: note: each undeclared identifier is reported only once for each function it "
      "appears in",
      "a.c:2:20: warning: unused variable ‘unused’ [-Wunused-variable]",
      "a.c: In function ‘g’:",
      "a.c:3:24: warning: passing argument 1 of ‘f’ makes integer from pointer without a cast "
      "[-Wint-conversion]",
      "In file included from a.c:1:",
      "a.h:1:11: note: expected ‘int’ but argument is of type ‘char *’",
      "b.c: In function ‘h’:",
      "b.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]",
      "… 12 other lines omitted: 6 source lines and notes, 6 underlines",
  };
  CHECK(core::SplitLines(s) == expected);
  CheckAccounting(kGcc, s);
}

TEST_CASE("build: a hint the compiler repeats after every error is shown once") {
  std::string out;
  for (int i = 0; i < 3; ++i) {
    StrAppend(&out, "a.c: In function ‘f", i, "’:\n", "a.c:", 10 * i + 2, ":5: error: ‘y", i,
              "’ undeclared (first use in this function)\n", "a.c:", 10 * i + 2,
              ":5: note: each undeclared identifier is reported only once for each function it "
              "appears in\n",
              "a.c:", 10 * i + 3, ":1: note: declared here\n");
  }
  std::string s = Shape("gcc -c a.c", out, 1);
  INFO(s);
  CHECK(Has(s, "a.c:2:5: note: each undeclared identifier is reported only once for each "
               "function it appears in"));
  CHECK_FALSE(Has(s, "a.c:12:5: note: each undeclared identifier is reported only once for each "
                     "function it appears in"));
  // Every error, and every short note that points somewhere.
  for (int i = 0; i < 3; ++i) {
    CHECK(Has(s, StrCat("a.c:", 10 * i + 2, ":5: error: ‘y", i, "’ undeclared (first use in this function)")));
    CHECK(Has(s, StrCat("a.c:", 10 * i + 3, ":1: note: declared here")));
  }
  CHECK(s.find("2 lines of notes shown above") != std::string::npos);
  CheckAccounting(out, s);
}

TEST_CASE("build: a note in a system header keeps its heading, not the include chain or code") {
  const std::string out =
      "src/main.cpp: In function ‘void f()’:\n"
      "src/main.cpp:13:20: error: no matching function for call to ‘push_back(Rect*)’\n"
      "   13 |     scene.push_back(new Rect());\n"
      "      |     ~~~~~~~~~~~~~~~^~~~~~~~~~~~\n"
      "In file included from /usr/include/c++/12/vector:64,\n"
      "                 from include/shapes.hpp:4:\n"
      "/usr/include/c++/12/bits/stl_vector.h:1276:7: note: candidate: ‘void push_back(const "
      "value_type&)’\n"
      " 1276 |       push_back(const value_type& __x)\n"
      "      |       ^~~~~~~~~\n"
      "include/shapes.hpp:25:7: note: because the following are pure within ‘Circle’:\n"
      "   25 | class Circle : public Shape {\n"
      "      |       ^~~~~~\n";
  std::string s = Shape("g++ -c src/main.cpp", out, 1);
  INFO(s);
  CHECK(Has(s, "src/main.cpp:13:20: error: no matching function for call to ‘push_back(Rect*)’"));
  CHECK_FALSE(Has(s, "   13 |     scene.push_back(new Rect());"));  // the file has it
  CHECK(Has(s, "/usr/include/c++/12/bits/stl_vector.h:1276:7: note: candidate: ‘void "
               "push_back(const value_type&)’"));
  CHECK_FALSE(Has(s, " 1276 |       push_back(const value_type& __x)"));
  CHECK_FALSE(Has(s, "In file included from /usr/include/c++/12/vector:64,"));
  // A note in the project keeps its heading; its code is in the file.
  CHECK(Has(s, "include/shapes.hpp:25:7: note: because the following are pure within ‘Circle’:"));
  CHECK_FALSE(Has(s, "   25 | class Circle : public Shape {"));
  CheckAccounting(out, s);
}

TEST_CASE("build: clang's gutterless source echo under a warning goes, unless it has a fix-it") {
  const std::string out =
      "src/a.c:55:13: warning: enumeration value 'TOK_PUNCT' not handled in switch [-Wswitch]\n"
      "    switch (kind) {\n"
      "            ^~~~\n"
      "src/a.c:31:39: warning: format specifies type 'int' but the argument has type 'long' "
      "[-Wformat]\n"
      "    printf(\"read %d bytes\\n\", size);\n"
      "                 ~~     ^~~~\n"
      "                 %ld\n"
      "src/a.c:41:27: error: use of undeclared identifier 'cuont'; did you mean 'count'?\n"
      "    printf(\"%d tokens\\n\", cuont);\n"
      "                          ^~~~~\n"
      "                          count\n"
      "2 warnings and 1 error generated.\n";
  std::string s = Shape("clang -c src/a.c", out, 1);
  INFO(s);
  CHECK(Has(s, "src/a.c:55:13: warning: enumeration value 'TOK_PUNCT' not handled in switch "
               "[-Wswitch]"));
  CHECK_FALSE(Has(s, "    switch (kind) {"));
  CHECK(Has(s, "                 %ld"));  // the fix-it, with its code
  CHECK(Has(s, "    printf(\"read %d bytes\\n\", size);"));
  CHECK(Has(s, "    printf(\"%d tokens\\n\", cuont);"));  // a fix-it keeps the code over it
  CHECK(Has(s, "                          count"));
  CheckAccounting(out, s);
}

TEST_CASE("build: javac's source echo goes, among the lines explaining a diagnostic") {
  // Gradle's compileJava: javac prints the code and a caret under every diagnostic, then a
  // warning's explanation ("  missing type arguments for generic class Map<K,V>").
  const std::string out = testing::ReadFixture("build", "gradle-build-failing");
  const std::string s = Shape("gradle build", out, 1);
  INFO(s);
  CHECK(Has(s, "  missing type arguments for generic class Map<K,V>"));
  CHECK_FALSE(Has(s, "    private final Map rates = new HashMap();"));
  // javac's key to the library's type variables, under every rawtypes warning: counted.
  CHECK_FALSE(Has(s, "  where K,V are type-variables:"));
  CHECK_FALSE(Has(s, "    K extends Object declared in interface Map"));
  CHECK_FALSE(Has(s, "        rates.put(\"DE\", new BigDecimal(\"0.19\"));"));
  // An error's code and caret go too; the labelled lines under them stay.
  CHECK_FALSE(Has(s, "        BigDecimal rate = rates.get(country);"));
  CHECK(Contains(s, "InvoicePrinter.java:8: error: cannot find symbol\n"
                    "  symbol:   method getCustomer()\n"
                    "  location: variable inv of type Invoice\n"));
  // The JVM's banner (`java -version` under the wrapper) is counted.
  CHECK_FALSE(Has(s, "openjdk version \"17.0.15\" 2025-04-15"));
  CheckAccounting(out, s);
}

TEST_CASE("build: clang-tidy's column-1 carets and fix-its under them stay with their warning") {
  // A function that starts in column 1: its code, "~~~ ^" and the fix-it "auto  -> int" are
  // all unindented; they belong to the warning above them, before the list of the others.
  const std::string out = testing::ReadFixture("build", "clang-tidy-fixits");
  const std::string s =
      Shape("clang-tidy src/stats.cc --checks='-*,modernize-*' -- -std=c++17", out, 0);
  INFO(s);
  CHECK(Contains(s, "src/stats.cc:5:5: warning: use a trailing return type for this function "
                    "[modernize-use-trailing-return-type]\n"
                    "int sum(std::vector<int> v) { int s = 0; for (int i = 0; i < v.size(); i++) "
                    "s += v[i]; return s; }\n"
                    "~~~ ^\n"
                    "auto                        -> int\n"
                    "… 2 more warnings like it at: "));
  CHECK(Contains(s, "                                           nullptr\n"));
  // No caret or fix-it line stands after a list, apart from its warning.
  const std::vector<std::string_view> lines = core::SplitLines(s);
  for (size_t i = 1; i < lines.size(); ++i) {
    CHECK_MESSAGE(!(lines[i - 1].starts_with("… ") && IsCaretsOnly(lines[i])), lines[i]);
  }
}

TEST_CASE("build: clang's unindented source lines, notes and totals") {
  const std::string out =
      "a.c:2:43: error: use of undeclared identifier 'y'\n"
      "int f(int x) { int unused; return SQ(x) + y; }\n"
      "                                          ^\n"
      "a.c:3:24: warning: incompatible pointer to integer conversion passing 'char[2]' to "
      "parameter of type 'int' [-Wint-conversion]\n"
      "int g(void) { return f(\"s\"); }\n"
      "                       ^~~\n"
      "a.c:2:11: note: passing argument to parameter 'x' here\n"
      "int f(int x) { int unused; return SQ(x) + y; }\n"
      "          ^\n"
      "1 warning and 1 error generated.\n"
      "/usr/bin/ld: /tmp/l-34ed27.o: in function `main':\n"
      "l.c:(.text+0x10): undefined reference to `h'\n"
      "l.c:(.text+0x18): undefined reference to `k'\n"
      "clang: error: linker command failed with exit code 1 (use -v to see invocation)\n";
  std::string s = Shape("clang -Wall a.c l.c", out, 1);
  CHECK(Header(s) ==
        "clang: FAILED — 2 errors, 1 warning in 1 file, 2 undefined references (exit 1)");
  // clang's source lines and carets: counted (the file has them; no fix-it under them).
  CHECK_FALSE(Has(s, "int f(int x) { int unused; return SQ(x) + y; }"));
  CHECK(Has(s, "a.c:2:11: note: passing argument to parameter 'x' here"));
  CHECK(Has(s, "1 warning and 1 error generated."));
  CHECK(Has(s, "l.c:(.text+0x10): undefined reference to `h'"));
  CHECK(Has(s, "clang: error: linker command failed with exit code 1 (use -v to see invocation)"));
  CheckAccounting(out, s);
}

TEST_CASE("build: gcc's analyzer keeps each warning's path of events, with their source lines") {
  const std::string output = testing::ReadFixture("build", "gcc-analyzer");
  const std::string s = Shape("gcc -fanalyzer -c src/reader.c", output, 0);
  INFO(s);
  CHECK(Header(s) == "gcc: exit 0 — 5 warnings in 1 file");
  CHECK(Contains(s,
                 "  ‘read_header’: events 1-7\n"
                 "    |   24 |   FILE *f = fopen(path, \"rb\");\n"
                 "    |      |             (1) opened here\n"));
  CHECK(Contains(s,
                 "    |   33 |     return 0;\n"
                 "    |      |            (7) ‘f’ leaks here; was opened at (1)\n"));
  CHECK(Contains(s, "(15) use after ‘free’ of ‘b’; freed at (13)"));
  CHECK(Contains(s, "(3) second ‘free’ here; first ‘free’ was at (2)"));
  // The connectors and underlines between them are counted.
  CHECK_FALSE(Contains(s, "^~~~"));
}

TEST_CASE("build: a compiler that stopped at its error limit says so in the header") {
  std::string out;
  for (int i = 0; i < 19; ++i) {
    StrAppend(&out, "many.c:", i + 1, ":23: error: use of undeclared identifier 'undeclared_", i,
              "'\nint f", i, "(void) { return undeclared_", i, " + ", i,
              "; }\n"
              "                       ^\n");
  }
  out +=
      "fatal error: too many errors emitted, stopping now [-ferror-limit=]\n20 errors generated.\n";
  std::string s = Shape("clang -c many.c", out, 1);
  INFO(s);
  CHECK(Header(s) ==
        "clang: FAILED — 19 errors in 1 file before it stopped at its error limit (exit 1)");
  CHECK(Has(s, "fatal error: too many errors emitted, stopping now [-ferror-limit=]"));
  // gcc's -fmax-errors.
  std::string gcc;
  for (int i = 0; i < 3; ++i) {
    StrAppend(&gcc, "a.c:", i + 1, ":5: error: 'x", i,
              "' undeclared (first use in this function)\n");
  }
  gcc += "compilation terminated due to -fmax-errors=3.\n";
  CHECK(Header(Shape("gcc -fmax-errors=3 -c a.c", gcc, 1)) ==
        "gcc: FAILED — 3 errors in 1 file before it stopped at its error limit (exit 1)");
}

TEST_CASE("build: a linker's many undefined references: every symbol named, the middle's by file") {
  std::string out = "/usr/bin/ld: /tmp/ccnHiLhR.o: in function `main':\n";
  for (int i = 0; i < 120; ++i) {
    StrAppend(&out, i == 0 ? "" : "/usr/bin/ld: ", "main.c:(.text+0x", absl::Hex(0x15 + 13 * i),
              "): undefined reference to `ext_fn_", i, "'\n");
  }
  out +=
      "/usr/bin/ld: /tmp/ccEwYmZV.o: in function `use':\n"
      "other.c:(.text+0x6): undefined reference to `shared_table'\n"
      "collect2: error: ld returned 1 exit status\n";
  std::string s = Shape("gcc -o app main.c other.c", out, 1);
  INFO(s);
  CHECK(Header(s) == "gcc: FAILED — 1 error, 121 undefined references (exit 1)");
  for (int i = 0; i < 120; ++i) {
    CAPTURE(i);
    const std::string symbol = StrCat("ext_fn_", i);
    CHECK((s.find(StrCat("undefined reference to `", symbol, "'\n")) != std::string::npos ||
           s.find(StrCat(" ", symbol, ",")) != std::string::npos ||
           s.find(StrCat(" ", symbol, "\n")) != std::string::npos));
  }
  CHECK(s.find("… 93 more undefined references in main.c: ext_fn_19, ext_fn_20, ") !=
        std::string::npos);
  CHECK(s.find("… more undefined references in main.c: ext_fn_44, ") != std::string::npos);
  CHECK(Has(s, "other.c:(.text+0x6): undefined reference to `shared_table'"));
  CheckAccounting(out, s);
}

TEST_CASE("build: many errors: the first ones in full, the rest by their heading, warnings counted by flag") {
  std::string out;
  for (int i = 0; i < 40; ++i) {
    std::string f = StrCat("src/m", i, ".c");
    StrAppend(&out, f, ": In function ‘m", i, "’:\n");
    if (i % 2 == 0) {
      StrAppend(&out, f, ":9:14: error: ‘limit_", i, "’ undeclared (first use in this function)\n",
                "    9 |     score += limit_", i, ";\n", "      |              ^~~~~~~~~\n");
    }
    StrAppend(&out, f, ":5:9: warning: unused variable ‘scratch_", i, "’ [-Wunused-variable]\n",
              "    5 |     int scratch = 2;\n", "      |         ^~~~~~~\n");
    StrAppend(&out, f, ":6:23: warning: comparison of integer expressions of different signedness "
                       "[-Wsign-compare]\n",
              "    6 |     for (int i = 0; i < n; i++)\n", "      |                       ^\n");
    StrAppend(&out, "make: *** [Makefile:11: build/m", i, ".o] Error 1\n");
  }
  std::string s = Shape("make -k", out, 2);
  CHECK(Header(s) == "make: FAILED — 20 errors, 80 warnings in 40 files (exit 2)");
  // Every error's heading line is there, up to the 15th; the later ones, which share a message
  // but for the name, are the 16th's heading and a list of their locations with their names.
  for (int i = 0; i <= 30; i += 2) {
    CHECK(Has(s, StrCat("src/m", i, ".c:9:14: error: ‘limit_", i, "’ undeclared (first use in this function)")));
  }
  CHECK(Has(s, "… 4 more errors like it, names differing, at: src/m32.c:9:14 ‘limit_32’; "
               "src/m34.c:9:14 ‘limit_34’; src/m36.c:9:14 ‘limit_36’; src/m38.c:9:14 ‘limit_38’"));
  // No error keeps its source line: the file has it, the location says where.
  CHECK_FALSE(Has(s, "    9 |     score += limit_0;"));
  CHECK_FALSE(Has(s, "    9 |     score += limit_30;"));
  // Warnings in files with errors keep their heading; the others past the first 10 (files
  // m0-m4) are grouped by message: the first's heading, the others' locations and names.
  CHECK(Has(s, "src/m38.c:5:9: warning: unused variable ‘scratch_38’ [-Wunused-variable]"));
  CHECK_FALSE(Has(s, "src/m39.c:5:9: warning: unused variable ‘scratch_39’ [-Wunused-variable]"));
  CHECK(Has(s, "src/m5.c:5:9: warning: unused variable ‘scratch_5’ [-Wunused-variable]"));
  CHECK(Has(s, "… warnings like it also at: src/m31.c:5:9 ‘scratch_31’; src/m33.c:5:9 ‘scratch_33’; "
               "src/m35.c:5:9 ‘scratch_35’; src/m37.c:5:9 ‘scratch_37’; src/m39.c:5:9 ‘scratch_39’"));
  // A warning repeated to the letter is shown once, with its repeats' locations — those in
  // files with errors and those among the first too.
  CHECK(Has(s, "src/m0.c:6:23: warning: comparison of integer expressions of different "
               "signedness [-Wsign-compare]"));
  CHECK(Contains(s, "\n… 39 more warnings like it at: src/m1.c:6:23; src/m2.c:6:23; "));
  CHECK(Has(s, "… warnings like it also at: src/m37.c:6:23; src/m38.c:6:23; src/m39.c:6:23"));
  CHECK_FALSE(Has(s, "src/m2.c:6:23: warning"));
  CHECK(s.find("more warnings omitted") == std::string::npos);
  // make's failure lines: the first five and the last five.
  CHECK(Has(s, "make: *** [Makefile:11: build/m0.o] Error 1"));
  CHECK(Has(s, "make: *** [Makefile:11: build/m39.o] Error 1"));
  CHECK_FALSE(Has(s, "make: *** [Makefile:11: build/m20.o] Error 1"));
  CHECK(std::string(LastLine(s)).starts_with("… "));
  CheckAccounting(out, s);
}

TEST_CASE("build: MSVC and tsc style locations are diagnostics too") {
  const std::string out =
      "src/app.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"
      "main.cpp(7): warning C4996: 'strcpy': This function or variable may be unsafe.\n";
  std::string s = Shape("make", out, 2);
  CHECK(Header(s) == "make: FAILED — 1 error, 1 warning in 2 files (exit 2)");
}

// ---- make -----------------------------------------------------------------------------------

const std::string kMakeRecursive =
    "make -C lib\n"
    "make[1]: Entering directory '/w/proj/lib'\n"
    "cc -O2 -Wall -c -o strbuf.o strbuf.c\n"
    "ar rcs libutil.a strbuf.o\n"
    "make[1]: Leaving directory '/w/proj/lib'\n"
    "make -C app\n"
    "make[1]: Entering directory '/w/proj/app'\n"
    "cc -O2 -Wall -I../lib -c -o render.o render.c\n"
    "render.c: In function ‘render_post’:\n"
    "render.c:17:28: error: ‘const struct post’ has no member named ‘content’\n"
    "   17 |     strbuf_append(out, post->content);\n"
    "      |                            ^~\n"
    "make[1]: *** [<builtin>: render.o] Error 1\n"
    "make[1]: Leaving directory '/w/proj/app'\n"
    "make: *** [Makefile:9: app] Error 2\n";

TEST_CASE("build: make keeps the directory of the failure and counts commands") {
  std::string s = Shape("make", kMakeRecursive, 2);
  const std::string expected =
      "make: FAILED — 1 error in 1 file (exit 2)\n"
      "make[1]: Entering directory '/w/proj/app'\n"
      "render.c: In function ‘render_post’:\n"
      "render.c:17:28: error: ‘const struct post’ has no member named ‘content’\n"
      "make[1]: *** [<builtin>: render.o] Error 1\n"
      "make: *** [Makefile:9: app] Error 2\n"
      "… 10 other lines omitted: 5 commands, 3 directory changes, 1 source line or note, "
      "1 underline\n";
  CHECK(s == expected);
  CheckAccounting(kMakeRecursive, s);
}

TEST_CASE("build: make running a test program keeps the program's output") {
  const std::string out =
      "cc -O2 -g -Wall -o build/test_csv build/csv.o tests/test_csv.c -lm\n"
      "./build/test_csv\n"
      "median of {4,1,3,2}: expected 2.5, got 3\n"
      "9 checks, 1 failed\n"
      "make: *** [Makefile:21: check] Error 1\n";
  std::string s = Shape("make check", out, 2);
  CHECK(Header(s) == "make: FAILED (exit 2)");
  CHECK(Has(s, "median of {4,1,3,2}: expected 2.5, got 3"));
  CHECK(Has(s, "9 checks, 1 failed"));
  CHECK(Has(s, "… 1 other line omitted: 1 command"));
}

TEST_CASE("build: unknown output under make keeps its head, tail and trouble, counted") {
  // Steps named by words (steps alike but for a number are folded: the next test).
  const auto step = [](int i) {
    return StrCat("step ", std::string(1, static_cast<char>('a' + i / 26)),
                  std::string(1, static_cast<char>('a' + i % 26)), " ok");
  };
  std::string out;
  for (int i = 1; i <= 300; ++i) {
    if (i == 150) {
      out += "connection to 10.0.0.7 failed, retrying\n";
    } else {
      StrAppend(&out, step(i), "\n");
    }
  }
  out += "make: *** [Makefile:3: deploy] Error 1\n";
  std::string s = Shape("make deploy", out, 2);
  CHECK(Header(s) == "make: FAILED (exit 2)");
  CHECK(Has(s, step(1)));
  CHECK(Has(s, step(20)));
  CHECK_FALSE(Has(s, step(21)));
  CHECK(Has(s, "… 129 lines of other output omitted"));
  CHECK(Has(s, "connection to 10.0.0.7 failed, retrying"));
  CHECK(Has(s, "… 130 lines of other output omitted"));
  CHECK(Has(s, step(300)));
  CHECK(Has(s, "make: *** [Makefile:3: deploy] Error 1"));
  CheckAccounting(out, s);
}

TEST_CASE("build: unknown lines alike but for their numbers are the first, a count and the last") {
  // pip's retry loop, offline (the lines as pip 24 printed them; the address differs each time).
  std::string out = "Looking in indexes: http://127.0.0.1:9/simple\n";
  for (int left = 4; left >= 0; --left) {
    StrAppend(&out, "WARNING: Retrying (Retry(total=", left,
              ", connect=None, read=None, redirect=None, status=None)) after connection broken "
              "by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection object at "
              "0x7fb7414",
              left * 7919 % 1000, "c0>: Failed to establish a new connection: [Errno 111] "
                                  "Connection refused')': /simple/flask/\n");
  }
  out += "ERROR: Could not find a version that satisfies the requirement flask==3.0.0 (from "
         "versions: none)\nERROR: No matching distribution found for flask==3.0.0\n";
  std::string s = Shape("python3 -m pip install flask==3.0.0", out, 1);
  INFO(s);
  CHECK(Header(s) == "pip install: FAILED (exit 1)");
  CHECK(Header(Shape("uv pip install flask==3.0.0", out, 1)) == "pip install: FAILED (exit 1)");
  // Other installers are named by their command too, their "ERROR:" lines errors.
  const std::string gem =
      "ERROR:  Could not find a valid gem 'nokogirl' (>= 0) in any repository\n"
      "ERROR:  Possible alternatives: nokogiri, nokogiri-diff\n";
  CHECK(Header(Shape("gem install nokogirl", gem, 2)) == "gem install: FAILED (exit 2)");
  CHECK(Header(Shape("bundle install", gem, 1)) == "bundle install: FAILED (exit 1)");
  CHECK(Has(s, "… 3 lines like the ones around, but for their numbers, omitted"));
  CHECK(Contains(s, "Retry(total=4,"));
  CHECK(Contains(s, "Retry(total=0,"));
  CHECK_FALSE(Contains(s, "Retry(total=2,"));
  CHECK(Has(s, "ERROR: No matching distribution found for flask==3.0.0"));
  CheckAccounting(out, s);
  // Three are shown as they are; so are lines that differ in a word.
  std::string three = "fetch 1 of 3\nfetch 2 of 3\nfetch 3 of 3\nERROR: gave up\n";
  s = Shape("pip install x", three, 1);
  CHECK(Has(s, "fetch 2 of 3"));
  std::string words = "fetch a 1\nfetch b 2\nfetch c 3\nfetch d 4\nERROR: gave up\n";
  s = Shape("pip install x", words, 1);
  CHECK(Has(s, "fetch c 3"));
}

TEST_CASE(
    "build: errors read through a filter or from a saved log are a failed build, whatever the 0") {
  // tests/fixtures/build/gcc-failing: gcc's error and warnings. Each command's status is 0, and
  // none of them is the build's: tail's, echo's, a viewer's of the build's log.
  const std::string out = testing::ReadFixture("build", "gcc-failing");
  for (const char* command : {"make 2>&1 | tail -40", "make 2>&1 | tail -40; echo \"exit=$?\"",
                              "make > build.log 2>&1; tail -40 build.log", "cat build.log"}) {
    INFO(command);
    const std::string s = Shape(command, out, 0);
    CHECK(s.substr(0, s.find('\n')).find(": FAILED — ") != std::string::npos);
  }
  // The build's own 0 is believed.
  const std::string own = Shape("make", out, 0);
  CHECK(own.substr(0, own.find('\n')).find(": exit 0 — ") != std::string::npos);
}

TEST_CASE("build: output the shaper does not recognize falls back to head and tail") {
  std::string out;
  for (int i = 1; i <= 100; ++i) StrAppend(&out, "frobnicating widget ", testing::Letters(i), "\n");
  std::string s = Shape("make widgets", out, 3);
  CHECK(Header(s) == "make: FAILED (exit 3), 100 lines");
  CHECK(Has(s, "frobnicating widget b"));
  CHECK(Has(s, "… 76 lines omitted (lines 13–88 of 100)"));  // the generic shaper's edges
  CHECK(Has(s, "frobnicating widget baa"));
}

TEST_CASE("build: a program cargo run ran that panicked keeps the frames of the user's code") {
  // The lines of a real `RUST_BACKTRACE=1 cargo run` (rustc 1.9x): the program printed 40
  // rows, then panicked in a closure; the backtrace's frames alternate with their locations.
  std::string out;
  for (int i = 0; i < 40; ++i) StrAppend(&out, "row ", i, ": ", i * 3, "\n");
  const std::string rustc = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library";
  StrAppend(&out, "\nthread 'main' (6066) panicked at src/main.rs:1:38:\n",
            "not a number: ParseIntError { kind: InvalidDigit }\nstack backtrace:\n");
  const std::pair<const char*, std::string> frames[] = {
      {"__rustc::rust_begin_unwind", rustc + "/std/src/panicking.rs:689:5"},
      {"core::panicking::panic_fmt", rustc + "/core/src/panicking.rs:80:14"},
      {"core::result::unwrap_failed", rustc + "/core/src/result.rs:1867:5"},
      {"core::result::Result<T,E>::expect", rustc + "/core/src/result.rs:1185:23"},
      {"rp::parse", "./src/main.rs:1:38"},
      {"rp::main::{{closure}}", "./src/main.rs:5:39"},
      {"core::iter::adapters::map::map_fold::{{closure}}", rustc + "/core/src/iter/adapters/map.rs:88:28"},
      {"<core::slice::iter::Iter<T> as core::iter::traits::iterator::Iterator>::fold",
       rustc + "/core/src/slice/iter/macros.rs:279:27"},
      {"<core::iter::adapters::map::Map<I,F> as core::iter::traits::iterator::Iterator>::fold",
       rustc + "/core/src/iter/adapters/map.rs:128:19"},
      {"<u32 as core::iter::traits::accum::Sum>::sum", rustc + "/core/src/iter/traits/accum.rs:50:22"},
      {"core::iter::traits::iterator::Iterator::sum", rustc + "/core/src/iter/traits/iterator.rs:3658:9"},
      {"rp::main", "./src/main.rs:5:49"},
      {"core::ops::function::FnOnce::call_once", rustc + "/core/src/ops/function.rs:250:5"},
  };
  int k = 0;
  for (const auto& [function, at] : frames) {
    StrAppend(&out, k < 10 ? "   " : "  ", k, ": ", function, "\n             at ", at, "\n");
    ++k;
  }
  out += "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
  const std::string s = Shape("cargo run -q", out, 101);
  INFO(s);
  CHECK(Header(s) == "cargo run: FAILED (exit 101), 71 lines");
  CHECK(Contains(s, "\nthread 'main' (6066) panicked at src/main.rs:1:38:\n"));
  CHECK(Contains(s, "\n   4: rp::parse\n             at ./src/main.rs:1:38\n"));
  CHECK(Contains(s, "\n   5: rp::main::{{closure}}\n             at ./src/main.rs:5:39\n"));
  CHECK(Contains(s, "\n  11: rp::main\n             at ./src/main.rs:5:49\n"));
  CheckAccounting(out, s);
}

TEST_CASE("build: a program make ran that crashed keeps its own frames, the library's counted") {
  // `make run` of a Makefile whose recipe runs tests/fixtures/generic/python-chained-exception's
  // script: make's echo of the recipe, the script's traceback, make's error.
  const std::string trace = testing::ReadFixture("generic", "python-chained-exception");
  const std::string out = "/usr/bin/python3 fetch.py\n" + trace +
                          "make: *** [Makefile:2: run] Error 1\n";
  const std::string s = Shape("make run", out, 2);
  INFO(s);
  for (std::string_view line : core::SplitLines(s)) {
    CHECK_MESSAGE(line.find("/usr/lib/python3") == std::string_view::npos, line);
  }
  for (std::string_view line : core::SplitLines(trace)) {
    if (line.find("fetch.py\", line ") != std::string_view::npos ||
        line.starts_with("RuntimeError: ") || line.starts_with("urllib.error.URLError: ") ||
        line.starts_with("ConnectionRefusedError: ")) {
      CHECK_MESSAGE(Has(s, line), line);
    }
  }
  CHECK(Has(s, "make: *** [Makefile:2: run] Error 1"));
  CHECK(Contains(s, " library stack frames"));
  CheckAccounting(out, s);
}

// ---- cmake and ninja ------------------------------------------------------------------------

TEST_CASE("build: cmake configure error keeps the message block") {
  const std::string out =
      "-- The CXX compiler identification is GNU 12.2.0\n"
      "-- Detecting CXX compiler ABI info\n"
      "-- Detecting CXX compiler ABI info - done\n"
      "-- Found Threads: TRUE  \n"
      "CMake Error at CMakeLists.txt:11 (find_package):\n"
      "  By not providing \"FindZeroMQ.cmake\" in CMAKE_MODULE_PATH this project has\n"
      "  asked CMake to find a package configuration file provided by \"ZeroMQ\", but\n"
      "  CMake did not find one.\n"
      "\n"
      "    ZeroMQConfig.cmake\n"
      "\n"
      "\n"
      "-- Configuring incomplete, errors occurred!\n"
      "See also \"/w/build/CMakeFiles/CMakeOutput.log\".\n";
  std::string s = Shape("cmake -S . -B build", out, 1);
  const std::string expected =
      "cmake: FAILED — 1 error in 1 file (exit 1)\n"
      "-- The CXX compiler identification is GNU 12.2.0\n"
      "CMake Error at CMakeLists.txt:11 (find_package):\n"
      "  By not providing \"FindZeroMQ.cmake\" in CMAKE_MODULE_PATH this project has\n"
      "  asked CMake to find a package configuration file provided by \"ZeroMQ\", but\n"
      "  CMake did not find one.\n"
      "    ZeroMQConfig.cmake\n"
      "-- Configuring incomplete, errors occurred!\n"
      "See also \"/w/build/CMakeFiles/CMakeOutput.log\".\n"
      "… 6 other lines omitted: 3 blank, 3 informational\n";
  CHECK(s == expected);
}

TEST_CASE("build: cmake configure success with a warning, then ninja") {
  const std::string configure =
      "-- The C compiler identification is GNU 12.2.0\n"
      "-- Detecting C compiler ABI info\n"
      "-- Detecting C compiler ABI info - done\n"
      "-- Check for working C compiler: /usr/bin/cc - skipped\n"
      "CMake Warning at CMakeLists.txt:3 (message):\n"
      "  deprecated option FOO used\n"
      "\n"
      "\n"
      "-- Configuring done\n"
      "-- Generating done\n"
      "-- Build files have been written to: /w/cm/build\n";
  std::string s = Shape("cmake -S . -B build -G Ninja", configure, 0);
  CHECK(Header(s) == "cmake: configured — 1 warning in 1 file");
  CHECK(Has(s, "CMake Warning at CMakeLists.txt:3 (message):"));
  CHECK(Has(s, "  deprecated option FOO used"));
  CHECK(Has(s, "-- Build files have been written to: /w/cm/build"));

  const std::string build =
      "[1/3] Building C object CMakeFiles/app.dir/a.c.o\n"
      "[2/3] Building C object CMakeFiles/app.dir/b.c.o\n"
      "/w/cm/b.c: In function ‘b’:\n"
      "/w/cm/b.c:1:17: warning: unused variable ‘z’ [-Wunused-variable]\n"
      "    1 | int b(void){int z; return 1;}\n"
      "      |                 ^\n"
      "[3/3] Linking C executable app\n";
  s = Shape("cmake --build build", build, 0);
  CHECK(Header(s) == "cmake --build: built — 1 warning in 1 file, 3 build steps, 1 artifact linked (app)");
  CHECK(Has(s, "[2/3] Building C object CMakeFiles/app.dir/b.c.o"));  // the step that warned
  CHECK(Has(s, "/w/cm/b.c:1:17: warning: unused variable ‘z’ [-Wunused-variable]"));
  CheckAccounting(build, s);
}

TEST_CASE("build: a clean cmake build collapses to one line that names what was built") {
  std::string out;
  for (int i = 0; i < 200; ++i) {
    StrAppend(&out, "[", i / 2, "%] Building CXX object CMakeFiles/core.dir/src/f", i, ".cpp.o\n");
  }
  out += "[ 99%] Linking CXX static library libcore.a\n[ 99%] Built target core\n";
  out += "[100%] Linking CXX executable app\n[100%] Built target app\n";
  std::string s = Shape("cmake --build build -j8", out, 0);
  CHECK(s ==
        "cmake --build: built — 200 objects built, 2 targets built (core, app)\n"
        "… 204 other lines omitted: 202 build progress, 2 built targets\n");
}

TEST_CASE("build: ninja failure keeps FAILED, the errors and where the build stopped") {
  const std::string out =
      "[1/8] Building CXX object CMakeFiles/s.dir/src/cal.cpp.o\n"
      "FAILED: CMakeFiles/s.dir/src/cal.cpp.o \n"
      "/usr/bin/c++ -Iinclude -Wall -o CMakeFiles/s.dir/src/cal.cpp.o -c /w/src/cal.cpp\n"
      "/w/src/cal.cpp: In function ‘int fit()’:\n"
      "/w/src/cal.cpp:26:9: error: ‘struct Cal’ has no member named ‘scale’\n"
      "   26 |     cal.scale = slope;\n"
      "      |         ^~~~~\n"
      "[2/8] Building CXX object CMakeFiles/s.dir/src/filter.cpp.o\n"
      "[3/8] Building CXX object CMakeFiles/s.dir/src/reading.cpp.o\n"
      "ninja: build stopped: subcommand failed.\n";
  std::string s = Shape("ninja -C build", out, 1);
  CHECK(s ==
        "ninja: FAILED — 1 error in 1 file (exit 1)\n"
        "[1/8] Building CXX object CMakeFiles/s.dir/src/cal.cpp.o\n"
        "FAILED: CMakeFiles/s.dir/src/cal.cpp.o \n"
        "/w/src/cal.cpp: In function ‘int fit()’:\n"
        "/w/src/cal.cpp:26:9: error: ‘struct Cal’ has no member named ‘scale’\n"
        "[3/8] Building CXX object CMakeFiles/s.dir/src/reading.cpp.o\n"
        "ninja: build stopped: subcommand failed.\n"
        "… 4 other lines omitted: 1 build progress, 1 command, 1 source line or note, "
        "1 underline\n");
}

// ---- cargo ----------------------------------------------------------------------------------

const std::string kCargoFail =
    "   Compiling libc v0.2.150\n"
    "   Compiling rs v0.1.0 (/w/rs)\n"
    "error[E0308]: mismatched types\n"
    " --> src/main.rs:6:39\n"
    "  |\n"
    "6 | mod t { #[test] fn a() { let y: u32 = \"s\"; } }\n"
    "  |                                 ---   ^^^ expected `u32`, found `&str`\n"
    "  |                                 |\n"
    "  |                                 expected due to this\n"
    "\n"
    "error[E0308]: mismatched types\n"
    " --> src/lib.rs:2:5\n"
    "  |\n"
    "2 |     \"x\"\n"
    "  |     ^^^ expected `i32`, found `&str`\n"
    "\n"
    "warning: unused variable: `x`\n"
    " --> src/main.rs:2:9\n"
    "  |\n"
    "2 |     let x = 5;\n"
    "  |         ^ help: if this is intentional, prefix it with an underscore: `_x`\n"
    "  |\n"
    "  = note: `#[warn(unused_variables)]` (part of `#[warn(unused)]`) on by default\n"
    "\n"
    "For more information about this error, try `rustc --explain E0308`.\n"
    "warning: `rs` (bin \"rs\" test) generated 1 warning\n"
    "error: could not compile `rs` (bin \"rs\" test) due to 2 previous errors; 1 warning emitted\n";

TEST_CASE("build: many rustc errors keep every location: the later ones listed by their --> line") {
  std::string out = "   Compiling rs v0.1.0 (/w/rs)\n";
  for (int i = 0; i < 20; ++i) {
    StrAppend(&out, "error[E0425]: cannot find value `v", i, "` in this scope\n", "  --> src/m", i,
              ".rs:", i + 3, ":9\n", "   |\n", i + 3, " |     let y = v", i, ";\n",
              "   |             ^^ not found in this scope\n", "\n");
  }
  out += "error: could not compile `rs` (bin \"rs\") due to 20 previous errors\n";
  std::string s = Shape("cargo build", out, 101);
  INFO(s);
  // The first 15 in full; the 16th as its heading and location; the others listed.
  CHECK(Has(s, "   |             ^^ not found in this scope"));
  CHECK(Has(s, "error[E0425]: cannot find value `v15` in this scope"));
  CHECK(Has(s, "  --> src/m15.rs:18:9"));
  CHECK(Has(s,
            "… 4 more errors like it, names differing, at: src/m16.rs:19:9 `v16`; "
            "src/m17.rs:20:9 `v17`; src/m18.rs:21:9 `v18`; src/m19.rs:22:9 `v19`"));
  CHECK(Has(s, "error: could not compile `rs` (bin \"rs\") due to 20 previous errors"));
}

TEST_CASE("build: cargo errors keep their blocks, same heading at another place is not a repeat") {
  std::string s = Shape("cargo test", kCargoFail, 101);
  CHECK(Header(s) == "cargo test: FAILED — 2 errors, 1 warning in 2 files (exit 101)");
  CHECK(Has(s, "   Compiling rs v0.1.0 (/w/rs)"));  // the workspace's crate
  CHECK_FALSE(Has(s, "   Compiling libc v0.2.150"));
  CHECK(Has(s, " --> src/main.rs:6:39"));
  CHECK(Has(s, " --> src/lib.rs:2:5"));
  CHECK(Has(s, "  |     ^^^ expected `i32`, found `&str`"));
  // rustc's pointer to --explain is an aside, counted; that a lint warns by default names the
  // lint, and stays.
  CHECK_FALSE(Has(s, "For more information about this error, try `rustc --explain E0308`."));
  CHECK(Has(s, "  = note: `#[warn(unused_variables)]` (part of `#[warn(unused)]`) on by default"));
  CHECK(Has(s, "error: could not compile `rs` (bin \"rs\" test) due to 2 previous errors; 1 warning emitted"));
  CheckAccounting(kCargoFail, s);
  // A build failure of `cargo test` is this shaper's; its test results are not.
  CHECK(Confidence("cargo test", kCargoFail) == doctest::Approx(0.9));
  CHECK(Confidence("cargo test", "running 3 tests\ntest a ... ok\n\ntest result: ok. 3 passed;") <
        0.85);
}

TEST_CASE("build: rustc's pointers into the standard library's source are counted, the notes under them kept") {
  const std::string out = testing::ReadFixture("build", "cargo-build-trait-failing");
  REQUIRE(!out.empty());
  const std::string s = Shape("cargo build", out, 101);
  INFO(s);
  CHECK(s.find("/rustc/") == std::string::npos);
  CHECK(s.find("help: the following other types implement trait `Sum<A>`\n"
               "   = note: `i64` implements `Sum`\n"
               "   = note: `i64` implements `Sum<&i64>`\n") != std::string::npos);
  CHECK(s.find("  --> src/main.rs:16:37\n") != std::string::npos);
  CHECK(s.find("  --> src/main.rs:20:18\n") != std::string::npos);
  CHECK(s.find("note: required by a bound in `std::iter::Iterator::sum`\n") != std::string::npos);
}

TEST_CASE("build: cargo and rustc short message format") {
  const std::string out =
      "src/main.rs:8:37: error[E0425]: cannot find value `totl` in this scope\n"
      "src/main.rs:2:9: warning: unused variable: `x`\n"
      "error: could not compile `x` (bin \"x\") due to 1 previous error; 1 warning emitted\n";
  std::string s = Shape("cargo build --message-format=short", out, 101);
  CHECK(Header(s) == "cargo build: FAILED — 1 error, 1 warning in 1 file (exit 101)");
}

TEST_CASE("build: a cargo build that passed is one line naming the workspace's crates") {
  std::string out;
  for (int i = 0; i < 60; ++i) StrAppend(&out, "   Compiling dep", i, " v1.0.", i, "\n");
  out += "   Compiling ledger v0.1.0 (/w/crates/ledger)\n";
  out += "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 14.02s\n";
  std::string s = Shape("cargo build", out, 0);
  CHECK(s ==
        "cargo build: finished — 61 crates compiled (ledger)\n"
        "   Compiling ledger v0.1.0 (/w/crates/ledger)\n"
        "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 14.02s\n"
        "… 60 other lines omitted: 60 build progress\n");
}

// ---- go -------------------------------------------------------------------------------------

TEST_CASE("build: go build errors under their package") {
  const std::string out =
      "# example.com/warehouse/internal/store\n"
      "internal/store/store.go:44:50: undefined: ErrOutOfStock\n"
      "internal/store/store.go:72:14: too many return values\n"
      "\thave ([]Item, nil)\n"
      "\twant ([]Item)\n"
      "# example.com/warehouse/internal/report\n"
      "internal/report/report.go:7:2: imported and not used: \"strings\"\n"
      "internal/report/report.go:47:30: too many errors\n";
  std::string s = Shape("go build ./...", out, 2);
  CHECK(Header(s) == "go build: FAILED — 3 errors in 2 files (exit 2)");
  auto lines = core::SplitLines(s);
  auto in = core::SplitLines(out);
  REQUIRE(lines.size() == in.size() + 1);  // all of it is errors
  CHECK(Confidence("./build.sh", out) == doctest::Approx(0.8));
}

TEST_CASE("build: go vet's type error after vet's name is counted and kept") {
  // go vet prints a package's type error as "vet: internal/sync/retry.go:14:9: …".
  const std::string out = testing::ReadFixture("build", "go-vet-failing");
  std::string s = Shape("go vet ./...", out, 2);
  CHECK(Header(s) == "go vet: FAILED — 37 errors in 4 files (exit 2)");
  CHECK(s.find("vet: internal/sync/retry.go:14:9: undeclared name: errLimit\n") !=
        std::string::npos);
  // Each of the 26 rows of report.go is shown or listed.
  for (int line = 14; line <= 139; line += 5) {
    CHECK(s.find("internal/report/report.go:" + std::to_string(line) + ":9") !=
          std::string::npos);
  }
}

TEST_CASE("build: esbuild's messages are diagnostics with their location and code frame") {
  const std::string out = testing::ReadFixture("build", "esbuild-failing");
  const std::string command = "npx esbuild src/index.ts --bundle --outfile=dist/app.js --sourcemap --target=es2019";
  CHECK(Confidence(command, out) == doctest::Approx(0.95));
  std::string s = Shape(command, out, 1);
  CHECK(Header(s) == "esbuild: FAILED — 2 errors, 2 warnings in 3 files (exit 1)");
  for (const char* kept : {"✘ [ERROR] Could not resolve \"lodash-es/debounce\"\n\n    src/utils/analytics.ts:1:21:\n",
                           "✘ [ERROR] Expected \")\" but found \";\"\n\n    src/api/client.ts:7:56:\n",
                           "    src/components/Cart.ts:9:21:\n", "\n2 warnings and 2 errors\n"}) {
    CHECK_MESSAGE(s.find(kept) != std::string::npos, kept);
  }
}

TEST_CASE("build: esbuild's messages past those shown in full keep their location line") {
  // 30 entry points, each a missing import and a warning, as esbuild prints them: the location
  // a line under the heading, after a blank one.
  std::string out;
  for (int i = 0; i < 30; ++i) {
    out += "\xE2\x9C\x98 [ERROR] Could not resolve \"./missing" + std::to_string(i) +
           "\"\n\n    src/m" + std::to_string(i) +
           ".ts:1:23:\n      1 \xE2\x94\x82 import { gone } from './missing" + std::to_string(i) +
           "';\n        \xE2\x95\xB5                        ~~~~~~~~~~~~\n\n";
    out +=
        "\xE2\x96\xB2 [WARNING] The \"typeof\" operator will never evaluate to \"nmber\" "
        "[impossible-typeof]\n\n    src/m" +
        std::to_string(i) +
        ".ts:2:65:\n      2 \xE2\x94\x82 "
        "typeof a == 'nmber';\n        \xE2\x95\xB5 ~~~~~~~\n\n";
  }
  out += "30 warnings and 30 errors\n";
  const std::string s = Shape("npx esbuild src/*.ts --bundle --outdir=dist", out, 1);
  INFO(s);
  CHECK(Header(s) == "esbuild: FAILED — 30 errors, 30 warnings in 30 files (exit 1)");
  for (int i = 0; i < 30; ++i) {
    for (const std::string& where :
         {"src/m" + std::to_string(i) + ".ts:1:23:", "src/m" + std::to_string(i) + ".ts:2:65:"}) {
      CHECK_MESSAGE(s.find(where) != std::string::npos, where);
    }
  }
}

TEST_CASE("build: a bundler's own count of its errors, more than it shows, is the count") {
  // vite 8: "Build failed with 39 errors:", the first five in boxes, then "...".
  std::string out =
      "vite v8.4.1 building client environment for production...\n\xE2\x9C\x93 45 modules "
      "transformed.\n\xE2\x9C\x97 Build failed in 72ms\nerror during build:\nBuild failed with 39 "
      "errors:\n\n";
  for (int i = 1; i <= 5; ++i) {
    out += "[MISSING_EXPORT] \"helper" + std::to_string(i) +
           "\" is not exported by \"src/helpers.js\".\n   \xE2\x95\xAD\xE2\x94\x80[ src/m" +
           std::to_string(i) + ".js:1:10 ]\n\n";
  }
  out += "...\n";
  const std::string s = Shape("npx vite build", out, 1);
  INFO(s);
  CHECK(Header(s) == "vite build: FAILED — 39 errors (exit 1)");
}

TEST_CASE("build: a make that compiled and linked is not 'up to date' for one directory's 'Nothing to be done'") {
  // automake's silent rules: "  CC       libcsv_a-parse.o", "  CCLD     csvtool", "  AR       libcsv.a".
  const std::string out = testing::ReadFixture("build", "automake-make-passing");
  std::string s = Shape("make", out, 0);
  CHECK(Header(s) ==
        "make: built — 5 warnings in 3 files, 8 objects built, 3 artifacts linked (libcsv.a, csvtool, csvstat)");
}

TEST_CASE("build: GHC's errors, the message under the location, are counted and every location kept") {
  const std::string out = testing::ReadFixture("build", "ghc-type-errors");
  CHECK(Confidence("ghc -fno-code Ledger.hs", out) == doctest::Approx(0.95));
  std::string s = Shape("ghc -fno-code Ledger.hs", out, 1);
  CHECK(Header(s) == "ghc: FAILED — 90 errors in 1 file (exit 1)");
  CHECK(s.find("Ledger.hs:9:24: error:\n    • Couldn't match expected type ‘[Char]’ with actual type ‘Int’\n") !=
        std::string::npos);
  for (std::string_view line : core::SplitLines(out)) {
    if (!line.ends_with(": error:")) continue;
    CHECK_MESSAGE(s.find(line.substr(0, line.size() - 8)) != std::string::npos, line);
  }
}

// ---- pip ------------------------------------------------------------------------------------

TEST_CASE("build: the compiler's errors pip shows indented under a failed step are diagnostics") {
  // A C extension that does not compile: gcc's output under "╰─> [25 lines of output]", twice
  // (the wheel, then the legacy install pip falls back to).
  const std::string out = testing::ReadFixture("build", "pip-install-cext-failing");
  std::string s = Shape("pip install --no-index --no-build-isolation .", out, 1);
  CHECK(Header(s) == "pip install: FAILED — 5 errors, 4 warnings in 1 file (exit 1)");
  // Read without pip's indent (shown with it); its source line is counted.
  CHECK(Has(s, "      src/scan.c:10:46: error: ‘separator’ undeclared (first use in this "
               "function)"));
  CHECK_FALSE(Has(s, "         10 |     size_t total = fields_in_line(text, len, separator);"));
  CHECK(s.find("\nerror: legacy-install-failure\n") != std::string::npos);
  // setuptools' steps ("running build_ext", "copying …  -> build/lib…") are counted.
  CHECK(s.find("running build") == std::string::npos);
  CHECK(s.find(" build progress") != std::string::npos);
}

TEST_CASE("build: pip's lines alike but for the package are one line and the packages' names") {
  // tests/fixtures/build/pip-install-resolve-failing: 39 requirements already satisfied, then
  // the resolver going back over 23 of them, then why it failed.
  const std::string out = testing::ReadFixture("build", "pip-install-resolve-failing");
  const std::string s = Shape("pip install --no-index -r requirements.txt", out, 1);
  INFO(s);
  CHECK(Header(s) == "pip install: FAILED (exit 1)");
  CHECK(Has(s,
            "Requirement already satisfied: argcomplete in /usr/lib/python3/dist-packages (from -r "
            "requirements.txt (line 1)) (2.0.0)"));
  CHECK(s.find("\n… 38 more lines like the one above but for: asgiref, attrs, blinker, ") !=
        std::string::npos);
  // A version that is not a number alone is named with its package.
  CHECK(s.find(", pluggy (1.0.0+repack), ") != std::string::npos);
  CHECK(s.find("\n… 22 more lines like the one above but for: pyflakes, py, pluggy, ") !=
        std::string::npos);
  CHECK(Has(s, "ERROR: No matching distribution found for pycairo>=1.16.0"));
  // Every package the output names, named.
  for (std::string_view line : core::SplitLines(out)) {
    for (std::string_view lead :
         {std::string_view("Requirement already satisfied: "),
          std::string_view("INFO: pip is looking at multiple versions of ")}) {
      if (!line.starts_with(lead)) continue;
      const std::string_view rest = line.substr(lead.size());
      CHECK_MESSAGE(s.find(rest.substr(0, rest.find(' '))) != std::string::npos, line);
    }
  }
  CHECK(core::SplitLines(s).size() <= 12);
}

// ---- webpack, vite --------------------------------------------------------------------------

TEST_CASE("build: webpack errors kept, module lists dropped") {
  const std::string out =
      "assets by status 2.36 KiB [cached] 2 assets\n"
      "cacheable modules 2.79 KiB\n"
      "  ./src/index.js + 2 modules 1.38 KiB [built] [code generated]\n"
      "  ./src/cart.js 452 bytes [built] [code generated] [1 error]\n"
      "\n"
      "ERROR in ./src/index.js 4:0-45\n"
      "Module not found: Error: Can't resolve './utils/analytics.js' in '/w/src'\n"
      "\n"
      "ERROR in ./src/cart.js 6:88\n"
      "Module parse failed: Unexpected token (6:88)\n"
      "> 6 |     .map((it) => format(it.price * it.qty)\n"
      "    |                                          ^\n"
      " @ ./src/index.js 2:0-50 12:21-31\n"
      "\n"
      "1 error has detailed information that is not shown.\n"
      "Use 'stats.errorDetails: true' resp. '--stats-error-details' to show it.\n"
      "\n"
      "webpack 5.113.0 compiled with 2 errors in 714 ms\n";
  std::string s = Shape("npx webpack", out, 1);
  CHECK(s ==
        "webpack: FAILED — 2 errors in 2 files (exit 1)\n"
        "ERROR in ./src/index.js 4:0-45\n"
        "Module not found: Error: Can't resolve './utils/analytics.js' in '/w/src'\n"
        "ERROR in ./src/cart.js 6:88\n"
        "Module parse failed: Unexpected token (6:88)\n"
        "> 6 |     .map((it) => format(it.price * it.qty)\n"
        " @ ./src/index.js 2:0-50 12:21-31\n"
        "webpack 5.113.0 compiled with 2 errors in 714 ms\n"
        "… 11 other lines omitted: 6 informational, 4 blank, 1 underline\n");
  CHECK(Confidence("npm run build", out) == doctest::Approx(0.8));
}

TEST_CASE("build: vite success keeps its assets (capped) and totals") {
  std::string out =
      "vite v7.3.8 building client environment for production...\n"
      "transforming...\n"
      "✓ 612 modules transformed.\n"
      "rendering chunks...\n"
      "computing gzip size...\n";
  for (int i = 0; i < 14; ++i) {
    StrAppend(&out, "dist/assets/chunk-", i, ".js   1", i, ".73 kB │ gzip: 0.93 kB\n");
  }
  out += "✓ built in 2.58s\n";
  std::string s = Shape("npx vite build", out, 0);
  // The outcome names what was written (12 names at most).
  CHECK(Header(s) ==
        "vite build: built — 14 assets written (dist/assets/chunk-0.js, dist/assets/chunk-1.js, "
        "dist/assets/chunk-2.js, dist/assets/chunk-3.js, dist/assets/chunk-4.js, "
        "dist/assets/chunk-5.js, dist/assets/chunk-6.js, dist/assets/chunk-7.js, "
        "dist/assets/chunk-8.js, dist/assets/chunk-9.js, dist/assets/chunk-10.js, "
        "dist/assets/chunk-11.js and 2 more)");
  CHECK(Has(s, "✓ 612 modules transformed."));
  CHECK(Has(s, "dist/assets/chunk-9.js   19.73 kB │ gzip: 0.93 kB"));
  // The 4 after the first 10 are the largest: shown too.
  CHECK(Has(s, "dist/assets/chunk-10.js   110.73 kB │ gzip: 0.93 kB"));
  CHECK(Has(s, "✓ built in 2.58s"));
  CHECK(LastLine(s) == "… 3 other lines omitted: 3 build progress");
  // Of 40, the first 10 and the 5 largest, the others counted where they were: the entry
  // bundle after the lazy chunks is shown.
  std::string many = "vite v7.3.8 building client environment for production...\n";
  for (int i = 0; i < 40; ++i) {
    StrAppend(&many, "dist/assets/page", i, ".js   1.", i < 10 ? "0" : "", i,
              " kB │ gzip: 0.08 kB\n");
  }
  many += "dist/assets/index-DBFPVKpb.js    15.38 kB │ gzip: 4.86 kB\n✓ built in 241ms\n";
  s = Shape("npx vite build", many, 0);
  INFO(s);
  CHECK(Contains(s,
                 "dist/assets/page9.js   1.09 kB │ gzip: 0.08 kB\n… 26 more assets omitted\n"
                 "dist/assets/page36.js   1.36 kB │ gzip: 0.08 kB\n"));
  CHECK(Contains(s,
                 "dist/assets/page39.js   1.39 kB │ gzip: 0.08 kB\n"
                 "dist/assets/index-DBFPVKpb.js    15.38 kB │ gzip: 4.86 kB\n"));
}

TEST_CASE("build: apt's verdict is what changes, not one package already at its newest") {
  // tests/fixtures/build/apt-install-simulate: apt-get -s, make installed, fortune-mod not.
  const std::string sim = Shape("apt-get install -s make fortune-mod",
                                testing::ReadFixture("build", "apt-install-simulate"), 0);
  CHECK(Header(sim) == "apt-get install: simulated, nothing changed");
  CHECK(Has(sim, "  fortune-mod fortunes-min librecode0"));
  CHECK_FALSE(Contains(sim, "Inst fortune-mod"));
  const std::string head =
      "Reading package lists...\n"
      "Building dependency tree...\n"
      "Reading state information...\n"
      "maven is already the newest version (3.8.7-1).\n";
  CHECK(Header(Shape("apt-get install -y maven",
                     head + "0 upgraded, 0 newly installed, 0 to remove and 133 not upgraded.\n",
                     0)) == "apt-get install: up to date");
  CHECK(Header(Shape("apt-get install -y maven openjdk-17-jdk",
                     head + "The following packages will be upgraded:\n  openjdk-17-jdk\n"
                            "1 upgraded, 0 newly installed, 0 to remove and 133 not upgraded.\n",
                     0)) == "apt-get install: ok");
}

TEST_CASE("build: go get's downloads are counted, what it added is its outcome") {
  // go 1.19's messages: "go: downloading <module> <version>" for each module fetched, then
  // "go: added <module> <version>" for each requirement written to go.mod.
  std::string out;
  for (int i = 0; i < 40; ++i) {
    StrAppend(&out, "go: downloading github.com/org/mod", i, " v1.", i, ".0\n");
  }
  out += "go: added github.com/org/mod5 v1.5.0\ngo: upgraded golang.org/x/text v0.3.0 => v0.14.0\n";
  CHECK(Confidence("go get github.com/org/mod5", out, 0) == doctest::Approx(0.9));
  CHECK(Confidence("go mod tidy", out, 0) == doctest::Approx(0.9));
  const std::string s = Shape("go get github.com/org/mod5", out, 0);
  CHECK(s == "go get: exit 0\n"
             "go: added github.com/org/mod5 v1.5.0\n"
             "go: upgraded golang.org/x/text v0.3.0 => v0.14.0\n"
             "… 40 other lines omitted: 40 build progress\n");
  // What it could not do is an error.
  const std::string failed = Shape(
      "go get example.com/nope",
      "go: example.com/nope@latest: module lookup disabled by GOPROXY=off\n", 1);
  CHECK(Header(failed) == "go get: FAILED (exit 1)");
  CHECK(Has(failed, "go: example.com/nope@latest: module lookup disabled by GOPROXY=off"));
}

TEST_CASE("build: webpack's success names the assets it emitted") {
  // tests/fixtures/build/webpack-passing, with more modules: webpack 5's asset lines, then its
  // modules, then its verdict.
  std::string out = testing::ReadFixture("build", "webpack-passing");
  const size_t verdict = out.find("webpack 5.");
  REQUIRE(verdict != std::string::npos);
  std::string modules;
  for (int i = 0; i < 30; ++i) {
    StrAppend(&modules, "  ./src/widgets/w", i, ".js 120 bytes [built] [code generated]\n");
  }
  out.insert(verdict, modules);
  const std::string s = Shape("npx webpack", out, 0);
  CHECK(Header(s) ==
        "webpack: compiled successfully — 2 assets written (main.69c74451.js, admin.80de9b1e.js)");
  CHECK(Has(s, "asset main.69c74451.js 977 bytes [emitted] [immutable] [minimized] (name: main) "
               "1 related asset"));
}

TEST_CASE("build: vite failure keeps the error, drops library stack frames") {
  const std::string out =
      "vite v7.3.8 building client environment for production...\n"
      "✗ Build failed in 75ms\n"
      "error during build:\n"
      "Could not resolve \"./lib/sound.js\" from \"src/main.js\"\n"
      "file: /w/src/main.js\n"
      "    at getRollupError (file:///w/node_modules/rollup/dist/es/shared/parseAst.js:355:41)\n"
      "    at error (file:///w/node_modules/rollup/dist/es/shared/parseAst.js:351:42)\n"
      "    at async Promise.all (index 3)\n";
  std::string s = Shape("npx vite build", out, 1);
  CHECK(s ==
        "vite build: FAILED — 1 error (exit 1)\n"
        "vite v7.3.8 building client environment for production...\n"
        "✗ Build failed in 75ms\n"
        "error during build:\n"
        "Could not resolve \"./lib/sound.js\" from \"src/main.js\"\n"
        "file: /w/src/main.js\n"
        "… 3 more lines of this error omitted\n");
}

// ---- npm, apt -------------------------------------------------------------------------------

TEST_CASE("build: npm errors kept without their empty lines, deprecations counted") {
  const std::string out =
      "npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
      "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n"
      "npm error code ERESOLVE\n"
      "npm error ERESOLVE unable to resolve dependency tree\n"
      "npm error\n"
      "npm error While resolving: dashboard@1.0.0\n"
      "npm error Found: react@18.3.1\n"
      "npm error\n"
      "npm error Could not resolve dependency:\n"
      "npm error peer react@\"17.0.2\" from react-dom@17.0.2\n"
      "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n";
  std::string s = Shape("npm install react@18", out, 1);
  CHECK(Header(s) == "npm install: FAILED — 1 error (exit 1)");
  CHECK(Has(s, "npm error peer react@\"17.0.2\" from react-dom@17.0.2"));
  CHECK_FALSE(Has(s, "npm error"));
  CHECK(LastLine(s) == "… 4 other lines omitted: 2 blank, 2 deprecation warnings");
  CheckAccounting(out, s);
}

TEST_CASE("build: npm install that passed") {
  const std::string out =
      "npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
      "\n"
      "added 73 packages, and audited 74 packages in 9s\n"
      "\n"
      "18 packages are looking for funding\n"
      "  run `npm fund` for details\n"
      "\n"
      "found 0 vulnerabilities\n";
  std::string s = Shape("npm ci", out, 0);
  CHECK(s ==
        "npm ci: ok\n"
        "added 73 packages, and audited 74 packages in 9s\n"
        "18 packages are looking for funding\n"
        "found 0 vulnerabilities\n"
        "… 5 other lines omitted: 3 blank, 1 informational, 1 deprecation warning\n");
}

TEST_CASE("build: apt-get install") {
  std::string out =
      "Reading package lists...\n"
      "Building dependency tree...\n"
      "Reading state information...\n"
      "The following additional packages will be installed:\n"
      "  libtext-charwidth-perl\n"
      "The following NEW packages will be installed:\n"
      "  cowsay libtext-charwidth-perl\n"
      "0 upgraded, 2 newly installed, 0 to remove and 136 not upgraded.\n"
      "Get:1 http://deb.debian.org/debian bookworm/main amd64 cowsay all 3.03+dfsg2-8 [21.4 kB]\n"
      "Fetched 30.9 kB in 0s (107 kB/s)\n"
      "Unpacking cowsay (3.03+dfsg2-8) ...\n"
      "Setting up libtext-charwidth-perl:amd64 (0.04-11) ...\n"
      "Setting up cowsay (3.03+dfsg2-8) ...\n"
      "Processing triggers for man-db (2.11.2-2) ...\n";
  std::string s = Shape("sudo apt-get install -y cowsay", out, 0);
  CHECK(s ==
        "apt-get install: ok — 2 packages set up\n"
        "The following NEW packages will be installed:\n"
        "  cowsay libtext-charwidth-perl\n"
        "0 upgraded, 2 newly installed, 0 to remove and 136 not upgraded.\n"
        "Setting up cowsay (3.03+dfsg2-8) ...\n"
        "… 10 other lines omitted: 6 informational, 3 build progress, 1 package set up\n");
  const std::string fail =
      "Reading package lists...\nBuilding dependency tree...\nReading state information...\n"
      "E: Unable to locate package nonexistent-pkg-xyz\n";
  s = Shape("apt-get install -y nonexistent-pkg-xyz", fail, 100);
  CHECK(Header(s) == "apt-get install: FAILED — 1 error (exit 100)");
  CHECK(Has(s, "E: Unable to locate package nonexistent-pkg-xyz"));
}

TEST_CASE("build: apt run by a script keeps the version of what it was asked for, told by its lists") {
  // apt's NEW list less its additional packages is what it was asked for, whatever ran it.
  const std::string out = testing::ReadFixture("build", "apt-install-passing");
  std::string s = Shape("make deps", out, 0);
  INFO(s);
  CHECK(Header(s) == "make: ok — 2 packages set up");
  CHECK(Has(s, "Setting up cowsay (3.03+dfsg2-8) ..."));
  CHECK_FALSE(Contains(s, "Setting up libtext-charwidth-perl"));
  const std::string asked = Shape("apt-get install -y cowsay", out, 0);
  CHECK(asked.substr(asked.find('\n')) == s.substr(s.find('\n')));  // as if the command asked
  // With no additional packages, every NEW one was asked for; other lists name none of them.
  const std::string two =
      "The following packages were automatically installed and are no longer required:\n"
      "  libunwind-14\n"
      "The following NEW packages will be installed:\n"
      "  jq moreutils\n"
      "0 upgraded, 2 newly installed, 0 to remove and 0 not upgraded.\n"
      "Setting up jq (1.6-2.1) ...\n"
      "Setting up moreutils (0.67-1) ...\n"
      "Setting up libunwind-14:amd64 (1:14.0.6-12) ...\n";
  s = Shape("./bootstrap.sh", two, 0);
  INFO(s);
  CHECK(Has(s, "Setting up jq (1.6-2.1) ..."));
  CHECK(Has(s, "Setting up moreutils (0.67-1) ..."));
  CHECK_FALSE(Contains(s, "Setting up libunwind-14"));
  // Read through tail, its lists cut off: the first ten "Setting up" lines, and the one the
  // command's first stage asked for.
  const std::string many = testing::ReadFixture("build", "apt-install-many");
  const std::string last30 = many.substr(
      [&] {
        size_t at = many.size() - 1;
        for (int n = 0; n < 30; ++n) at = many.rfind('\n', at - 1);
        return at + 1;
      }());
  s = Shape("apt-get install -y erlang-nox 2>&1 | tail -30", last30, 0);
  INFO(s);
  REQUIRE_FALSE(Contains(last30, "NEW packages"));
  CHECK(Has(s, "Setting up erlang-nox (1:25.2.3+dfsg-1+deb12u4) ..."));
}

TEST_CASE("build: apt's long list keeps its lines that name a package asked for") {
  // The NEW list's first 10 lines, then its line naming sane-utils, asked for with cups: the
  // others counted in their places (a line alone as it is: a marker would be no shorter).
  const std::string out = testing::ReadFixture("build", "apt-install-simulate-upgrades");
  const std::string s = Shape("apt-get install -s cups sane-utils", out, 0);
  INFO(s);
  CHECK(Contains(s,
                 "\n  libpaper-utils libpaper1 libpci3 libpoppler-cpp0v5 libpoppler-glib8\n"
                 "… 2 more lines of this list omitted\n"
                 "  poppler-utils sane-airscan sane-utils udev update-inetd usb.ids\n"
                 "  xfonts-encodings xfonts-utils\n"));
  CHECK_FALSE(Has(s, "  libusb-1.0-0 libwrap0 lynx lynx-common mailcap pci.ids poppler-data"));
  // Asked for cups alone: the first 10 lines and the others counted.
  CHECK(Has(Shape("apt-get install -s cups", out, 0), "… 4 more lines of this list omitted"));
}

TEST_CASE("build: apt-get install of many packages: their list, and the version of the one asked for") {
  const std::string out = testing::ReadFixture("build", "apt-install-many");
  const std::string s = Shape("apt-get install -y erlang-nox", out, 0);
  INFO(s);
  CHECK(Header(s) == "apt-get install: ok — 27 packages set up");
  CHECK(Has(s, "  erlang-syntax-tools erlang-tftp erlang-tools erlang-xmerl libltdl7 libodbc2"));
  CHECK(Has(s, "Setting up erlang-nox (1:25.2.3+dfsg-1+deb12u4) ..."));
  // The others' Setting up lines name again what the list named: counted.
  CHECK_FALSE(Contains(s, "Setting up erlang-base"));
  CHECK(Contains(s, ", 26 packages set up"));
  CHECK_FALSE(Contains(s, "Unpacking "));
  CHECK_FALSE(Contains(s, "Get:"));
}

TEST_CASE("build: a candidate's signature spelled out in a system header is counted, why it did not match kept") {
  const std::string out = testing::ReadFixture("build", "gxx-absl-candidates");
  const std::string s = Shape("g++ -std=c++17 -Wall -c src/cache.cc -o cache.o", out, 1);
  INFO(s);
  CHECK(Header(s) == "g++: FAILED — 5 errors in 2 files (exit 1)");
  for (std::string_view line :
       {"src/cache.cc:12:16: error: no matching function for call to ‘absl::debian3::flat_hash_map<std::__cxx11::basic_string<char>, int>::insert(int)’",
        "src/cache.cc:12:16: note:   candidate expects 2 arguments, 1 provided",
        "src/cache.cc:13:24: error: ‘missing_total’ was not declared in this scope",
        "src/cache.cc:17:22: error: no matching function for call to ‘StrCat(const char [8], const std::vector<int>&)’",
        "src/cache.cc:17:22: note:   candidate expects at least 5 arguments, 2 provided"}) {
    CHECK_MESSAGE(Has(s, line), line);
  }
  // raw_hash_set.h's "note: candidate: ‘template<class T, …> … insert(T&&) [with …]’": counted.
  for (std::string_view line : core::SplitLines(s)) {
    CHECK_MESSAGE(!(line.starts_with("/usr/include/") && line.size() > 400), line);
  }
  CHECK(Contains(s, "src/cache.cc: In function ‘int CountOf(const std::string&)’:\n"));
}

TEST_CASE("build: lld's undefined symbols and the driver's error") {
  const std::string out =
      "ld.lld: error: undefined symbol: parse_config\n"
      ">>> referenced by main.c:12 (src/main.c:12)\n"
      ">>>               /tmp/main-1f2e3d.o:(main)\n"
      "clang: error: linker command failed with exit code 1 (use -v to see invocation)\n";
  std::string s = Shape("clang -fuse-ld=lld -o app main.c", out, 1);
  CHECK(Header(s) == "clang: FAILED — 1 error, 1 undefined reference (exit 1)");
  CHECK(Has(s, "ld.lld: error: undefined symbol: parse_config"));
  CHECK(Has(s, ">>> referenced by main.c:12 (src/main.c:12)"));
}

TEST_CASE("build: webpack warnings past the first 10 keep their heading line") {
  std::string out;
  out += "asset main.js 812 KiB [emitted] [minimized] [big] (name: main)\n\n";
  for (int i = 0; i < 12; ++i) {
    StrAppend(&out, "WARNING in ./src/m", i, ".js 3:0-20\n",
              "export 'x' (imported as 'x') was not found in './lib' (possible exports: y)\n\n");
  }
  out += "WARNING in asset size limit: The following asset(s) exceed the recommended size limit "
         "(244 KiB).\nAssets: \n  main.js (812 KiB)\n\n";
  out += "webpack 5.113.0 compiled with 13 warnings in 2114 ms\n";
  std::string s = Shape("npx webpack --mode production", out, 0);
  CHECK(Header(s) == "webpack: compiled — 13 warnings in 12 files, 1 asset written (main.js)");
  CHECK(Has(s, "WARNING in ./src/m9.js 3:0-20"));
  CHECK(Has(s, "export 'x' (imported as 'x') was not found in './lib' (possible exports: y)"));
  CHECK(Has(s, "WARNING in ./src/m10.js 3:0-20"));
  CHECK(Has(s, "WARNING in ./src/m11.js 3:0-20"));
  CHECK(Has(s, "WARNING in asset size limit: The following asset(s) exceed the recommended size "
               "limit (244 KiB)."));
  CHECK(s.find("more warnings omitted") == std::string::npos);
  CHECK(Has(s, "webpack 5.113.0 compiled with 13 warnings in 2114 ms"));
  CheckAccounting(out, s);
}

TEST_CASE("build: cmake developer warnings keep their text, not the boilerplate line") {
  const std::string out =
      "CMake Warning (dev) at CMakeLists.txt:4 (find_package):\n"
      "  Policy CMP0167 is not set: The FindBoost module is removed.\n"
      "This warning is for project developers.  Use -Wno-dev to suppress it.\n"
      "\n"
      "-- Configuring done\n"
      "-- Generating done\n"
      "-- Build files have been written to: /w/build\n";
  std::string s = Shape("cmake ..", out, 0);
  CHECK(Header(s) == "cmake: configured — 1 warning in 1 file");
  CHECK(Has(s, "  Policy CMP0167 is not set: The FindBoost module is removed."));
}

TEST_CASE("build: a make that passed names what its echoed commands linked and archived") {
  const std::string out =
      "cc -O2 -Wall -c libutil/strbuf.c -o build/libutil/strbuf.o\n"
      "cc -O2 -Wall -c src/server.c -o build/src/server.o\n"
      "ar rcs build/libutil.a build/libutil/strbuf.o\n"
      "ccache gcc -o build/server build/src/server.o build/libutil.a -lm\n"
      "g++ -shared -fPIC -obuild/libplug.so build/plug.o\n"
      "gcc -E -o build/pre.i src/pre.c\n";
  std::string s = Shape("make -j2", out, 0);
  CHECK(s ==
        "make: built — 3 artifacts linked (libutil.a, server, libplug.so)\n"
        "… 6 other lines omitted: 6 commands\n");
}

TEST_CASE("build: npm's usage text under a usage error is counted, its synopsis kept") {
  std::string out =
      "npm error code EUSAGE\n"
      "npm error\n"
      "npm error The `npm ci` command can only install with an existing package-lock.json or\n"
      "npm error npm-shrinkwrap.json with lockfileVersion >= 1.\n"
      "npm error\n"
      "npm error Clean install a project\n"
      "npm error\n"
      "npm error Usage:\n"
      "npm error npm ci\n"
      "npm error\n"
      "npm error Options:\n";
  for (int i = 0; i < 20; ++i) StrAppend(&out, "npm error [--option-", i, " <value>]\n");
  out +=
      "npm error\n"
      "npm error Run \"npm help ci\" for more info\n"
      "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n";
  std::string s = Shape("npm ci", out, 1);
  CHECK(Header(s) == "npm ci: FAILED — 1 error (exit 1)");
  CHECK(Has(s, "npm error Usage:"));
  CHECK(Has(s, "npm error npm ci"));
  CHECK_FALSE(Has(s, "npm error Options:"));
  CHECK_FALSE(Has(s, "npm error [--option-3 <value>]"));
  CHECK(Has(s, "npm error Run \"npm help ci\" for more info"));
  CHECK(Has(s, "… 26 other lines omitted: 21 lines of usage text, 5 blank"));
}

TEST_CASE("build: an error in a system header past the 15th keeps the user's lines of its chain") {
  std::string out = "src/main.cpp: In function ‘int main()’:\n";
  for (int i = 0; i < 15; ++i) {
    StrAppend(&out, "src/main.cpp:", 20 + i, ":5: error: ‘v", i, "’ was not declared in this scope\n");
  }
  for (int i = 0; i < 3; ++i) {
    StrAppend(&out,
              "/usr/include/c++/12/bits/predefined_ops.h: In instantiation of ‘constexpr bool "
              "__gnu_cxx::__ops::_Iter_less_iter::operator()(_Iterator1, _Iterator2) const’:\n",
              "/usr/include/c++/12/bits/stl_algo.h:1809:14:   required from ‘void std::__insertion_sort()’\n",
              "src/registry.hpp:", 16 + i, ":30:   required from ‘void Registry<T>::sorted() [with T = Endpoint]’\n",
              "src/main.cpp:", 8 + i, ":15:   required from here\n",
              "/usr/include/c++/12/bits/predefined_ops.h:", 45 + i,
              ":23: error: no match for ‘operator<’ (operand types are ‘Endpoint’ and ‘Endpoint’)\n",
              "   45 |       { return *__it1 < *__it2; }\n",
              "      |                ~~~~~~~^~~~~~~~\n");
  }
  std::string s = Shape("g++ -std=c++17 -c src/main.cpp", out, 1);
  for (int i = 0; i < 3; ++i) {
    CHECK(Has(s, StrCat("src/registry.hpp:", 16 + i, ":30:   required from ‘void Registry<T>::sorted() [with T = Endpoint]’")));
    CHECK(Has(s, StrCat("src/main.cpp:", 8 + i, ":15:   required from here")));
    CHECK(Has(s, StrCat("/usr/include/c++/12/bits/predefined_ops.h:", 45 + i,
                        ":23: error: no match for ‘operator<’ (operand types are ‘Endpoint’ and ‘Endpoint’)")));
  }
  // The system header's own lines of the chain are counted.
  CHECK_FALSE(Has(s, "/usr/include/c++/12/bits/stl_algo.h:1809:14:   required from ‘void std::__insertion_sort()’"));
}

TEST_CASE("build: apt's unmet dependencies are kept, each package's Depends lines") {
  const std::string out =
      "Reading package lists...\n"
      "Building dependency tree...\n"
      "Reading state information...\n"
      "Some packages could not be installed. This may mean that you have\n"
      "requested an impossible situation or if you are using the unstable\n"
      "distribution that some required packages have not yet been created\n"
      "or been moved out of Incoming.\n"
      "The following information may help to resolve the situation:\n"
      "\n"
      "The following packages have unmet dependencies:\n"
      " acme-agent : Depends: libc6 (>= 2.39) but 2.36-9+deb12u14 is to be installed\n"
      "              Depends: python3 (>= 3.12) but 3.11.2-1+b1 is to be installed\n"
      "              Depends: acme-runtime (= 3.2.0) but it is not installable\n"
      "E: Unable to correct problems, you have held broken packages.\n";
  std::string s = Shape("apt-get install -y ./acme-agent_3.2.0-1_amd64.deb", out, 100);
  CHECK(Has(s, "The following packages have unmet dependencies:"));
  CHECK(Has(s, " acme-agent : Depends: libc6 (>= 2.39) but 2.36-9+deb12u14 is to be installed"));
  CHECK(Has(s, "              Depends: python3 (>= 3.12) but 3.11.2-1+b1 is to be installed"));
  CHECK(Has(s, "              Depends: acme-runtime (= 3.2.0) but it is not installable"));
  CHECK(Has(s, "E: Unable to correct problems, you have held broken packages."));
}

TEST_CASE("build: cargo check that passed") {
  const std::string out =
      "    Checking serde v1.0.200\n"
      "    Checking app v0.1.0 (/w/app)\n"
      "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.20s\n";
  std::string s = Shape("cargo check", out, 0);
  CHECK(Header(s) == "cargo check: finished — 2 crates checked (app)");
}

TEST_CASE("build: a pipeline that only picks lines is still the build's output") {
  CHECK(Confidence("cd build && make -j8 2>&1 | tail -40", kMakeRecursive) == doctest::Approx(0.9));
  CHECK(Confidence("cargo build 2>&1 | grep -A5 error", kCargoFail) == doctest::Approx(0.95));
  // A later stage that transforms the lines: only the output's own signals count.
  CHECK(Confidence("make 2>&1 | sort", kMakeRecursive) == doctest::Approx(0.8));
  std::string s = Shape("cd build && make 2>&1 | tail -40", kMakeRecursive, 2);
  CHECK(Header(s) == "make: FAILED — 1 error in 1 file (exit 2)");
}

// ---- outcomes -------------------------------------------------------------------------------

TEST_CASE("build: success is never claimed against the exit code") {
  const std::string out =
      "   Compiling rs v0.1.0 (/w/rs)\n"
      "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.61s\n"
      "     Running `target/debug/rs`\n"
      "thread 'main' panicked at src/main.rs:3:5:\n"
      "boom\n";
  std::string s = Shape("cargo run", out, 101);
  CHECK(Header(s) == "cargo run: FAILED (exit 101)");
  CHECK(Has(s, "thread 'main' panicked at src/main.rs:3:5:"));
  CHECK(Has(s, "boom"));
  // Unknown exit: no claim beyond the output's own words.
  const std::string warn_only =
      "b.c:1:17: warning: unused variable ‘z’ [-Wunused-variable]\n"
      "    1 | int b(void){int z; return 1;}\n"
      "      |                 ^\n";
  CHECK(Header(Shape("cat build.log", warn_only, std::nullopt)) ==
        "compiler: no errors reported — 1 warning in 1 file");
  CHECK(Header(Shape("gcc -c b.c", warn_only, 0)) == "gcc: exit 0 — 1 warning in 1 file");
}

TEST_CASE("build: empty output is shown as it is") {
  CHECK(Shape("go build ./...", "", 0) == "<raw>");
}

// ---- matching -------------------------------------------------------------------------------

TEST_CASE("build: match confidences") {
  CHECK(Confidence("gcc -Wall -c a.c", kGcc) == doctest::Approx(0.95));
  CHECK(Confidence("x86_64-linux-gnu-g++-12 -c a.cc", kGcc) == doctest::Approx(0.95));
  CHECK(Confidence("cargo build --release", kCargoFail) == doctest::Approx(0.95));
  CHECK(Confidence("go build ./...", "") == doctest::Approx(0.95));
  CHECK(Confidence("apt-get install -y cowsay", "Reading package lists...\n") ==
        doctest::Approx(0.95));
  CHECK(Confidence("npm install", "added 3 packages in 1s\n") == doctest::Approx(0.9));
  CHECK(Confidence("make -j8", kMakeRecursive) == doctest::Approx(0.9));
  // The command runs something else, the output is a build log.
  CHECK(Confidence("cat build.log", kGcc) == doctest::Approx(0.8));
  CHECK(Confidence("cat build.log", kMakeRecursive) == doctest::Approx(0.8));
  CHECK(Confidence("./ci.sh", kCargoFail) == doctest::Approx(0.8));
  // make running something that is not a build: lower than any shaper that recognizes the
  // output by its lines (eslint's stylish rows: 0.7), make's own error line or not.
  CHECK(Confidence("make lint", "npx eslint src\n\n/w/src/a.js\n  1:1  error  'x' is not defined  no-undef\n") ==
        doctest::Approx(0.6));
  CHECK(Confidence("make lint", "flake8 src\nsrc/a.py:1:1: F401 'os' imported but unused\n"
                                "make: *** [Makefile:2: lint] Error 1\n") == doctest::Approx(0.6));
  // make running a test suite: the test shaper's.
  CHECK(Confidence("make test", "============ test session starts ============\n"
                                "collected 3 items\n\ntests/test_a.py ...\n"
                                "============ 3 passed in 0.01s ============\n") <= 0.7);
  // Not a build.
  CHECK(Confidence("ls -la", "total 0\ndrwxr-xr-x 2 root root 40 Nov 29 .\n") == 0);
  CHECK(Confidence("dpkg -l", "ii  adduser  3.134  all  add and remove users\n") == 0);
  CHECK(Confidence("cargo test", "running 1 test\ntest a ... ok\n\ntest result: ok. 1 passed;\n") <
        0.85);
}

TEST_CASE("build: webpack's errors past the first ones keep their message, the polyfill paragraph is shown once") {
  const std::string output = testing::ReadFixture("build", "webpack-node-core-failing");
  REQUIRE(!output.empty());
  const std::string s = Shape("npx webpack", output, 1);
  INFO(s);
  CHECK(Header(s) == "webpack: FAILED — 24 errors in 8 files (exit 1)");
  // Every error keeps the module it could not resolve, the heading shown alone too.
  for (std::string_view module : {"zlib", "fs", "path", "crypto", "http", "stream", "os", "url"}) {
    CHECK(Contains(s, StrCat("Can't resolve '", module, "' in")));
  }
  CHECK(Contains(s, "ERROR in ./src/upload.js 3:14-27\nModule not found: Error: Can't resolve 'fs' in"));
  // The paragraph webpack prints under each, after a blank line, is part of the error, and
  // shown once.
  const std::string breaking = "BREAKING CHANGE: webpack < 5 used to include polyfills";
  CHECK(s.find(breaking) != std::string::npos);
  CHECK(s.find(breaking) == s.rfind(breaking));
}

TEST_CASE("build: webpack's errors with the blank lines between them taken out are each one") {
  // `npx webpack 2>&1 | grep -E 'ERROR|Error'`: each "ERROR in" heading and its message, no
  // blank line between them. Before, the first block ran on to the end: "1 error in 1 file".
  const std::string output = testing::LinesWith(
      testing::ReadFixture("build", "webpack-node-core-failing"), {"ERROR", "Error", "error"});
  const std::string s = Shape("npx webpack 2>&1 | grep -E 'ERROR|Error|error'", output, 0);
  INFO(s);
  CHECK(Header(s) == "webpack: FAILED — 24 errors in 8 files");
  CHECK(Contains(
      s, "ERROR in ./src/upload.js 3:14-27\nModule not found: Error: Can't resolve 'fs' in"));
}

TEST_CASE("build: a compiler's notes alone, through tail, say that what they explain is cut off") {
  // `g++ … 2>&1 | tail -8` of tests/fixtures/build/gxx-absl-candidates: the last candidates'
  // notes of an error above. Before: "g++: exit 0 is tail's" and nothing more.
  const std::string output =
      testing::LastLines(testing::ReadFixture("build", "gxx-absl-candidates"), 8);
  const std::string s = Shape("g++ -c demo.cc 2>&1 | tail -8", output, 0);
  INFO(s);
  CHECK(Header(s) == "g++: exit 0 is tail's — notes alone (what they explain is cut off above)");
  // Its own status, not a filter's: nothing said (a compiler's 0 with notes is its own).
  CHECK(Header(Shape("g++ -c demo.cc", output, 0)) == "g++: exit 0");
}

TEST_CASE("build: javac's errors past the first ones keep the symbol each names on its own lines") {
  // javac run by a build tool (here as if by make): the real output of tests/fixtures/lint.
  const std::string output = testing::ReadFixture("lint", "javac-many");
  REQUIRE(!output.empty());
  const std::string s = Shape("make", output, 1);
  INFO(s);
  // A message repeated to the letter, symbol and location too, is shown once, with the
  // locations of its repeats — among the first errors as well.
  CHECK(Contains(s, "  symbol:   method addd(String)\n"
                    "  location: variable items of type List<String>\n"
                    "… 15 more errors like it at: src/shop/Coupon.java:8; src/shop/Coupon.java:18; "));
  CHECK(Contains(s, "src/shop/Invoice.java:14; "));
  CHECK(Contains(s, "src/shop/Cart.java:9: error: incompatible types: int cannot be converted to "
                    "String\n"));
  CHECK(Contains(s, "… 14 more errors like it at: src/shop/Cart.java:10; "));
  // A group's first keeps its labelled lines; the listed ones give theirs where they differ.
  CHECK(Contains(s, "src/shop/Invoice.java:9: error: cannot find symbol\n"));
  CHECK(Contains(s, "  symbol:   variable Money\n"
                    "  location: class Invoice\n"
                    "… 13 more errors like it, names differing, at: src/shop/Invoice.java:10; "));
  CHECK(Contains(s, "src/shop/Refund.java:10 (class Refund); "));
  // Each message is read once: "cannot find symbol" three times, for three symbols.
  size_t headings = 0;
  for (size_t at = s.find(": error: cannot find symbol\n"); at != std::string::npos;
       at = s.find(": error: cannot find symbol\n", at + 1)) {
    ++headings;
  }
  CHECK(headings == 3);
  CHECK(testing::LostLocations(output, s, ": error: ") == std::vector<std::string>{});
}

TEST_CASE("build: Gradle's tasks, verdict and hints, and javac's diagnostics under it, Gradle 4's task name glued to the first") {
  const std::string output = testing::ReadFixture("build", "gradle-build-failing");
  REQUIRE(!output.empty());
  // Gradle runs the compiler: its output is read as a build, unless it holds test results.
  CHECK(Confidence("gradle --offline --console=plain build", output) == doctest::Approx(0.9));
  CHECK(Confidence("./ci.sh", output) == doctest::Approx(0.8));
  CHECK(Confidence("./gradlew build", testing::ReadFixture("test", "gradle_test_failing")) <= 0.7);
  const std::string s = Shape("gradle --offline --console=plain build", output, 1);
  INFO(s);
  // The task's name glued to javac's first path does not make a file of its own.
  CHECK(s.starts_with("gradle: FAILED — 3 errors, 4 warnings in 2 files (exit 1)\n"));
  CHECK(Contains(s, "\n* What went wrong:\nExecution failed for task ':compileJava'.\n"
                    "> Compilation failed; see the compiler error output for details.\n"));
  CHECK(Contains(s, "\nBUILD FAILED in "));
  // Its hints and chatter are counted.
  CHECK_FALSE(Contains(s, "Run with --stacktrace"));
  CHECK_FALSE(Contains(s, "* Try:"));
  CHECK_FALSE(Contains(s, "https://help.gradle.org"));
  CHECK_FALSE(Contains(s, "actionable task"));
  CHECK(testing::LostLocations(output, s, ": error: ") == std::vector<std::string>{});
  // A build that passes says so.
  const std::string passed = Shape("gradle build",
                                   "> Task :compileJava\n> Task :processResources NO-SOURCE\n"
                                   "> Task :classes\n> Task :jar\n> Task :assemble\n\n"
                                   "BUILD SUCCESSFUL in 3s\n2 actionable tasks: 2 executed\n",
                                   0);
  CHECK(passed.starts_with("gradle: built"));
}

TEST_CASE("build: clang's instantiation chains keep the user's line they start from") {
  const std::string output = testing::ReadFixture("build", "clangxx-template-chain");
  REQUIRE(!output.empty());
  const std::string s = Shape("clang++ -std=c++17 -Wall -c src/main.cpp -o main.o", output, 1);
  INFO(s);
  // Every error's chain names the line of src/ it comes from, however far down its notes.
  size_t errors = 0, chains = 0;
  for (std::string_view line : core::SplitLines(s)) {
    if (line.find(": error: ") != std::string_view::npos) ++errors;
    if (line.starts_with("src/main.cpp:8:9: note: in instantiation of") ||
        line.starts_with("src/main.cpp:11:9: note: in instantiation of")) {
      ++chains;
    }
  }
  CHECK(errors == 13);
  CHECK(chains >= 10);
  CHECK(Contains(s, "src/main.cpp:11:9: note: in instantiation of member function 'Index<Endpoint>::put' requested here\n"));
}

TEST_CASE("build: a line in a system header is shown without the template arguments g++ spelled "
          "out, the user's lines as printed") {
  // tests/fixtures/build/gxx-template-chain: g++ 12 on a std::unordered_map<Endpoint, int>
  // with no std::hash<Endpoint>; its errors in libstdc++'s headers name functions "[with _Key =
  // Endpoint; _Tp = int; _Hash = std::hash<Endpoint>; …]", up to 1,044 characters a line.
  const std::string output = testing::ReadFixture("build", "gxx-template-chain");
  const std::string s = Shape("g++ -std=c++17 -Wall -c src/main.cpp -o main.o", output, 1);
  INFO(s);
  CHECK(Contains(s, "\n/usr/include/c++/12/bits/unordered_map.h:141:7: note: ‘std::unordered_map<"
                    "_Key, _Tp, _Hash, _Pred, _Alloc>::unordered_map() [with …]’ is implicitly "
                    "deleted because the default definition would be ill-formed:\n"));
  size_t shortened = 0;
  for (std::string_view line : core::SplitLines(s)) {
    if (line.starts_with("/usr/include/")) {
      CHECK_MESSAGE(line.find("[with _") == std::string_view::npos, line);
      shortened += line.find("[with …]") != std::string_view::npos ? 1 : 0;
    }
  }
  CHECK(shortened >= 5);
  // The user's code: as printed, its bindings too.
  CHECK(Contains(s, "\nsrc/registry.hpp:30:38:   required from ‘void Index<T>::put(const T&, int) "
                    "[with T = Endpoint]’\n"));
  CHECK(Contains(s, "src/registry.hpp:28:8: error: use of deleted function ‘std::unordered_map<"
                    "_Key, _Tp, _Hash, _Pred, _Alloc>::unordered_map() [with _Key = Endpoint; "
                    "_Tp = int;"));
}

TEST_CASE("build: an include chain goes with the diagnostic after it, not the one before") {
  // tests/fixtures/build/clang-weverything: clang 14's -Weverything on sources that include a
  // library's headers through chains; a chain's first line came right after the caret line
  // of the warning before it, and was read as that warning's fix-it: a listed warning's chain
  // left its first line behind, alone ("In file included from src/main.cpp:3:" then a list).
  const std::string output = testing::ReadFixture("build", "clang-weverything");
  const std::string s = Shape("clang++ -std=c++17 -Weverything -Wno-c++98-compat -Iinclude "
                              "-fsyntax-only src/main.cpp src/report.cpp",
                              output, 0);
  INFO(s);
  const std::vector<std::string_view> lines = core::SplitLines(s);
  size_t chains = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("In file included from ")) continue;
    ++chains;
    REQUIRE(i + 1 < lines.size());
    const std::string_view next = lines[i + 1];
    CHECK_MESSAGE((next.starts_with("In file included from ") ||
                   next.find(": warning: ") != std::string_view::npos),
                  "after line ", i, ": ", next);
  }
  CHECK(chains >= 3);
  CHECK(Contains(s, "In file included from include/ledger/account.h:4:\n"
                    "include/ledger/types.h:23:8: warning: padding struct 'ledger::Period' with 7 "
                    "bytes to align 'first' [-Wpadded]\n"));
}

TEST_CASE("build: a program make ran that AddressSanitizer stopped keeps its report, not the "
          "shadow memory map") {
  // `make run` of tests/fixtures/generic/asan-use-after-free's program: make's echoed command,
  // the report, make's failure line.
  const std::string output = StrCat("./orders-uaf\n",
                                    testing::ReadFixture("generic", "asan-use-after-free"),
                                    "make: *** [Makefile:2: run] Error 1\n");
  const std::string s = Shape("make run", output, 2);
  INFO(s);
  CHECK(Contains(s, "in total /tmp/plugline-fixtures/asan/orders-uaf.c:22:50\n"));
  CHECK(Contains(s, "\nSUMMARY: AddressSanitizer: heap-use-after-free "));
  CHECK(Contains(s, "\nmake: *** [Makefile:2: run] Error 1\n"));
  CHECK(Contains(s, "31 lines of the sanitizer's shadow memory map, 5 library stack frames"));
  CHECK_FALSE(Contains(s, "redzone"));
  CHECK_FALSE(Contains(s, "__libc_start"));
}

TEST_CASE("build: npm ls's problems are its errors, not the one code that sums them up") {
  auto ls = [](int entries) {
    std::string out = "legacy-dashboard@1.3.0 /w/app\n";
    for (int i = 0; i < entries; ++i) StrAppend(&out, "├── dep-", i, "@1.0.", i, "\n");
    return out +
           "├── left-pad@1.3.0 extraneous\n"
           "└── moment@2.17.0 invalid: \"2.18.1\" from the root project\n"
           "npm error code ELSPROBLEMS\n"
           "npm error extraneous: left-pad@1.3.0 /w/app/node_modules/left-pad\n"
           "npm error missing: lodash@4.17.4, required by legacy-dashboard@1.3.0\n"
           "npm error invalid: moment@2.17.0 /w/app/node_modules/moment\n"
           "npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log\n";
  };
  const std::string s = Shape("npm ls", ls(12), 1);
  INFO(s);
  CHECK(s.starts_with("npm ls: FAILED — 3 errors (exit 1)\n"));
  CHECK(Contains(s, "npm error missing: lodash@4.17.4, required by legacy-dashboard@1.3.0\n"));
  // A tree of more entries than a summary shows of one (60): the generic shaper's tree, which
  // keeps a flat one whole, its problems and npm's messages with it.
  const std::string out = ls(70);
  const std::string tree = Shape("npm ls", out, 1);
  CHECK(tree.starts_with(
      "npm ls: FAILED (exit 1), a tree of 72 entries: all shown, and 2 marked as problems with "
      "the entries above them\n"));
  for (std::string_view line : core::SplitLines(out)) CHECK_MESSAGE(Contains(tree, line), line);
}

TEST_CASE("build: clippy's warnings without their suggested diffs and documentation links") {
  // rustc 1.85 and later print a suggestion as a diff of the source ("9 -     return out;",
  // "9 +     out"): part of the warning, not other output, and dropped with its source echo.
  const std::string output = testing::ReadFixture("build", "cargo-clippy-warnings");
  REQUIRE(!output.empty());
  const std::string s = Shape("cargo clippy", output, 0);
  INFO(s);
  const auto lines = core::SplitLines(s);
  CHECK(lines.front() == "cargo clippy: finished — 32 warnings in 3 files, 1 crate checked (tally)");
  for (std::string_view line : lines) {
    CHECK_MESSAGE(!IsRustGutterForTest(line), "a source or diff line: " << line);
    CHECK_MESSAGE(line.find("for further information visit") == std::string_view::npos, line);
  }
  // Each lint's name, printed once, under its first warning, stays.
  CHECK(Contains(s, "warning: unneeded `return` statement\n --> src/report.rs:9:5\n"
                    "  = note: `#[warn(clippy::needless_return)]` on by default\n"
                    "help: remove `return`\n"));
  // So does it under a warning past those shown in full, shown by its heading: the lint of
  // its group. Its group's list gives the locations without rustc's arrow.
  CHECK(Contains(s,
                 "warning: length comparison to zero\n  --> src/report.rs:31:14\n"
                 "   = note: `#[warn(clippy::len_zero)]` on by default\n"));
  CHECK(Contains(s, "   = note: `#[warn(clippy::new_without_default)]` on by default\n"));
  CHECK(Contains(s, "… 8 more warnings like it at: src/store.rs:9:9; src/store.rs:21:9; "));
  // The tool's last lines close the summary; nothing of the warnings is shown after them.
  CHECK(lines[lines.size() - 2] ==
        "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.58s");
}

TEST_CASE(
    "build: an output head let through claims no success, its end (where a build fails) cut") {
  // The first 12 lines of a make run that failed further on: libutil.a and slug linked so far.
  const std::string s =
      Shape("make 2>&1 | head -12",
            testing::FirstLines(testing::ReadFixture("build", "make-recursive-failing"), 12), 0);
  INFO(s);
  CHECK(
      s.starts_with("make: shown through head (its end may be cut) — 2 artifacts linked "
                    "(libutil.a, slug)\n"));
  CHECK_FALSE(Contains(s.substr(0, s.find('\n')), ": built"));
}

}  // namespace
}  // namespace plugline::builtin

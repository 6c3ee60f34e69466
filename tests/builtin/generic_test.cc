#include <doctest/doctest.h>

#include <algorithm>

#include "absl/strings/str_join.h"
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"
#include "core/strings.h"
#include "core/text.h"
#include "test_util.h"

namespace plugline::builtin {
namespace {

using testing::Contains;
using testing::LastLines;

// The generic shaper's summary of `text` as if `command` printed it (exit 0), its raw output
// stored.
std::string ShapeGeneric(const std::string& command, const std::string& text) {
  core::ShapeContext ctx{command, 0, text.size(), core::CountLines(text), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(text, ctx);
  REQUIRE(shaped.ok());
  return shaped->summary;
}

TEST_CASE("generic: the data a command was run for is shown as it is, its rows not folded") {
  // 40 rows of a query, alike but for their numbers: the numbers are the answer.
  std::string rows = "id|email|total\n";
  for (int i = 1; i <= 40; ++i) StrAppend(&rows, i * 3, "|u", i * 17, "@ex.com|", 100 + i, ".25\n");
  for (const char* command : {"sqlite3 -header app.db 'select * from orders limit 40'",
                              "python3 -c 'import db; db.dump()'", "cat totals.csv"}) {
    core::ShapeContext ctx{command, 0, rows.size(), 41, "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(rows, ctx);
    REQUIRE(shaped.ok());
    CHECK(shaped->render_mode == RenderMode::kRaw);
  }
  // The same rows from a command run for something else are folded.
  CHECK(Contains(ShapeGeneric("./export.sh", rows), "but for their numbers"));
}

TEST_CASE("generic: a part of an output the command chose by its place is shown whole") {
  // `du -sh node_modules/* | sort -h | tail -40`: the agent set its size; a folder's name with
  // a keyword in it is no trouble.
  std::string sizes;
  for (int i = 1; i <= 40; ++i)
    StrAppend(&sizes, i * 4, "K\tnode_modules/pkg-", testing::Letters(i), "\n");
  sizes += "100K\tnode_modules/es-errors\n";
  for (const char* command : {"du -sh node_modules/* | sort -h | tail -41", "du -sh * | head -50",
                              "ls -la | sed -n 1,60p"}) {
    core::ShapeContext ctx{command, 0, sizes.size(), 41, "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(sizes, ctx);
    REQUIRE(shaped.ok());
    CHECK_MESSAGE(shaped->render_mode == RenderMode::kRaw, command);
  }
  // Not when it reads like trouble: a summary names that first.
  const std::string trouble = sizes + "du: cannot read directory 'x': Permission denied\n";
  core::ShapeContext ctx{"du -sh * | tail -42", 0, trouble.size(), 42, "/s/a.log"};
  CHECK(MakeGenericShaper()->Shape(trouble, ctx)->render_mode == RenderMode::kSummary);
  // Nor the whole output, nor what a following tail prints.
  for (const char* command : {"du -sh node_modules/*", "tail -f app.log | cat"}) {
    core::ShapeContext whole{command, 0, sizes.size(), 41, "/s/a.log"};
    CHECK(MakeGenericShaper()->Shape(sizes, whole)->render_mode == RenderMode::kSummary);
  }
}

TEST_CASE("generic keeps 30 head and 30 tail lines and counts the rest") {
  auto generic = MakeGenericShaper();
  CHECK(generic->meta().id == "builtin-generic");
  CHECK(generic->meta().tier == "built-in");
  auto match = generic->Match("anything", "whatever", 0);
  REQUIRE(match.ok());
  CHECK(match->matched);
  CHECK(match->confidence < 0.2);

  std::string output;
  for (int i = 1; i <= 3962; ++i) StrAppend(&output, "entry ", testing::Letters(i), "\n");
  core::ShapeContext ctx{"cmd", 0, output.size(), 3962, "/s/outputs/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  auto lines = core::SplitLines(shaped->summary);
  REQUIRE(lines.size() == 62);
  CHECK(lines[0] == "cmd: exit 0, 3,962 lines");
  CHECK(lines[1] == "entry b");
  CHECK(lines[30] == "entry da");
  CHECK(lines[31] == "… 3,902 lines omitted (lines 31–3,932 of 3,962)");
  CHECK(lines[32] == "entry djdd");
  CHECK(lines[61] == "entry djgc");
}

TEST_CASE("generic names a command as its outcome line does: with its subcommand or script") {
  std::string text;
  for (int i = 1; i <= 100; ++i) StrAppend(&text, "listening on :", 8000 + i, "\n");
  for (const auto& [command, header] : std::initializer_list<std::pair<std::string, std::string>>{
           {"npm start", "npm start: exit 0, 100 lines"},
           {"npm run dev -- --port 3000", "npm run dev: exit 0, 100 lines"},
           {"terraform plan -var env=prod", "terraform plan: exit 0, 100 lines"},
           {"./serve.sh --port 3000", "serve.sh: exit 0, 100 lines"}}) {
    CHECK(core::SplitLines(ShapeGeneric(command, text))[0] == header);
  }
}

TEST_CASE("generic says whose exit 0 it is when the command's status is a filter's") {
  std::string text;
  for (int i = 1; i <= 100; ++i) StrAppend(&text, "listening on :", 8000 + i, "\n");
  CHECK(core::SplitLines(ShapeGeneric("python3 app.py 2>&1 | tee run.log", text))[0] ==
        "python: exit 0 is tee's, 100 lines");
  CHECK(core::SplitLines(ShapeGeneric("set -o pipefail; python3 app.py | tee run.log", text))[0] ==
        "python: exit 0, 100 lines");
  // Through tail, which set its size, it is shown whole (its status still tail's: said when
  // its lines read like trouble).
  CHECK(ShapeGeneric("python3 app.py 2>&1 | tail -100", text).empty());  // shown raw
}

TEST_CASE("generic says first that a program died of an uncaught exception, its status unseen") {
  const std::string python =
      "starting\nTraceback (most recent call last):\n  File \"/app/run.py\", line 3, in <module>\n"
      "    main()\nValueError: bad row 7\n";
  const std::string node =
      "/app/x.js:2\n    throw new Error('boom');\n    ^\n\nError: boom\n    at Object.<anonymous> "
      "(/app/x.js:2:11)\n\nNode.js v20.11.0\n";
  const std::string go =
      "panic: runtime error: index out of range [4] with length 4\n\ngoroutine 1 [running]:\n"
      "main.main()\n\t/app/main.go:9 +0x1d\nexit status 2\n";
  const std::string java = "Exception in thread \"main\" java.lang.IllegalStateException: x\n"
                           "\tat com.acme.App.main(App.java:4)\n";
  struct Case {
    std::string text, tool, label;
  };
  for (const Case& c : {Case{python, "python3 app.py", "python"}, Case{node, "node x.js", "node"},
                        Case{go, "./server", "server"}, Case{java, "java -jar app.jar", "java"}}) {
    const std::string& text = c.text;
    const std::string& tool = c.tool;
    const std::string command = StrCat(tool, " 2>&1 | tail -20");
    core::ShapeContext ctx{command, 0, text.size(), core::CountLines(text), "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(text, ctx);
    REQUIRE(shaped.ok());
    INFO(command);
    CHECK(shaped->failed);
    CHECK(shaped->render_mode == RenderMode::kRaw);
    CHECK(shaped->summary ==
          StrCat(c.label, ": FAILED — it ended with an uncaught exception (exit 0 is tail's)"));
    // Its own status 0 is believed (a program may print a traceback it caught), and no line
    // is added; nor to an output that does not end so.
    core::ShapeContext own{tool, 0, text.size(), core::CountLines(text), "/s/a.log"};
    auto believed = MakeGenericShaper()->Shape(text, own);
    CHECK_FALSE(believed->failed);
    // An output that goes on after it did not end so: what it says is the lines that read
    // like errors, counted.
    const std::string later = text + "retrying in 5s\n";
    auto continued = MakeGenericShaper()->Shape(later, ctx);
    CHECK_FALSE(Contains(continued->summary, "uncaught exception"));
    CHECK(continued->summary.starts_with(StrCat(c.label, ": ")));
    const bool counted = continued->summary.ends_with(" like an error (exit 0 is tail's)") ||
                         continued->summary.ends_with(" like errors (exit 0 is tail's)");
    CHECK(counted);
  }
}

TEST_CASE("generic says first that gdb saw the program it ran die of a signal, gdb's status 0") {
  // tests/fixtures/generic/gdb-segfault: `gdb -batch -ex run -ex bt` of a program whose strlen
  // reads NULL; gdb exits 0.
  const std::string output = testing::ReadFixture("generic", "gdb-segfault");
  const std::string command = "gdb -q -batch -ex run -ex bt ./stock-crash";
  core::ShapeContext ctx{command, 0, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(output, ctx);
  REQUIRE(shaped.ok());
  CHECK(shaped->failed);
  CHECK(shaped->render_mode == RenderMode::kRaw);  // short: shown as it is, under the verdict
  CHECK(shaped->summary ==
        "gdb: FAILED — Program received signal SIGSEGV, Segmentation fault (exit 0)");
  // A core file's: "Program terminated with signal"; its status not known.
  const std::string core_file =
      "Core was generated by `./stock-crash'.\nProgram terminated with signal SIGABRT, Aborted.\n"
      "#0  __pthread_kill_implementation () at ./nptl/pthread_kill.c:44\n";
  core::ShapeContext unknown{"gdb -batch -ex bt ./stock-crash core", std::nullopt, core_file.size(),
                             3, "/s/a.log"};
  auto core_shaped = MakeGenericShaper()->Shape(core_file, unknown);
  CHECK(core_shaped->failed);
  CHECK(core_shaped->summary == "gdb: FAILED — Program terminated with signal SIGABRT, Aborted");
  // Long: the same verdict heads the summary, the backtrace kept.
  std::string longer;
  for (int i = 0; i < 200; ++i)
    StrAppend(&longer, "[New Thread 0x7ffff7a0", i, " (LWP ", i, ")]\n");
  longer += output;
  core::ShapeContext long_ctx{command, 0, longer.size(), core::CountLines(longer), "/s/a.log"};
  auto long_shaped = MakeGenericShaper()->Shape(longer, long_ctx);
  CHECK(long_shaped->failed);
  CHECK(long_shaped->summary.starts_with(
      "gdb: FAILED — Program received signal SIGSEGV, Segmentation fault (exit 0), 211 lines\n"));
  CHECK(Contains(long_shaped->summary, "in main () at stock-crash.c:24"));
}

TEST_CASE("generic counts first the lines that read like errors when the status is a filter's 0") {
  // tests/fixtures/lint/gfortran-errors cut to its last 20 lines: gfortran's locations,
  // source lines, markers and `Error: …` lines, no verdict of its own.
  const std::string output = testing::ReadFixture("lint", "gfortran-errors");
  const std::vector<std::string_view> lines = core::SplitLines(output);
  std::string cut;
  size_t errors = 0;
  for (size_t i = lines.size() - 20; i < lines.size(); ++i) {
    StrAppend(&cut, lines[i], "\n");
    errors += core::LooksLikeErrorLine(lines[i]) ? 1 : 0;
  }
  REQUIRE(errors > 1);
  const std::string command = "gfortran -c stats.f90 2>&1 | tail -20";
  core::ShapeContext ctx{command, 0, cut.size(), 20, "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(cut, ctx);
  REQUIRE(shaped.ok());
  CHECK(shaped->failed);
  CHECK(shaped->render_mode == RenderMode::kRaw);
  CHECK(shaped->summary ==
        StrCat("gfortran: ", errors, " lines read like errors (exit 0 is tail's)"));
  // Its own status is what it says: nothing is added to a 0 that is the program's.
  core::ShapeContext own{"gfortran -c stats.f90", 0, cut.size(), 20, "/s/a.log"};
  auto believed = MakeGenericShaper()->Shape(cut, own);
  CHECK_FALSE(believed->failed);
  CHECK(believed->summary.empty());
  // Summarized (the whole output, 80 lines and more, through tail), the header counts them too.
  const std::string whole = ShapeGeneric("gfortran -c stats.f90 2>&1 | tail -400", output);
  INFO(whole);
  CHECK(core::SplitLines(whole)[0].ends_with(
      StrCat(" lines read like errors (exit 0 is tail's), ", lines.size(), " lines")));
}

TEST_CASE("generic reads an apply whose plan was cut off: its verdict kept, its progress counted") {
  // `terraform apply -auto-approve | tail -80`: progress lines, the verdict, the outputs.
  std::string text;
  for (int i = 1; i <= 40; ++i) {
    StrAppend(&text, "terraform_data.service[\"svc-", i, "\"]: Creation complete after 0s [id=",
              i, "]\n");
  }
  StrAppend(&text, "\nApply complete! Resources: 40 added, 0 changed, 0 destroyed.\n\nOutputs:\n\n");
  for (int i = 1; i <= 30; ++i) StrAppend(&text, "  \"svc-", i, "\" = ", 8000 + i, "\n");
  const std::string summary = ShapeGeneric("terraform apply -auto-approve | tail -80", text);
  const std::vector<std::string_view> lines = core::SplitLines(summary);
  INFO(summary);
  CHECK(lines[0] ==
        "terraform apply: exit 0 is tail's, Apply complete! Resources: 40 added, 0 changed, 0 "
        "destroyed. (no plan in the output: what was applied, counted)");
  CHECK(Contains(summary, "\nApply complete! Resources: 40 added"));
  CHECK(Contains(summary, "… 40 progress lines omitted"));
  // Every line of the 75 accounted for once: 40 progress, the verdict and "Outputs:" shown,
  // the outputs' 30 values and 3 blank lines.
  CHECK(Contains(summary, "… 33 other lines omitted"));
}

TEST_CASE(
    "generic reads a Terraform output cut at its start: a plan's verdict and changes, a "
    "message's source line") {
  // The fixtures as a terminal shows them (their colours removed, as the pipeline does).
  auto as_shown = [](std::string text) {
    std::string shown;
    return core::NormalizeTerminalOutput(text, &shown) ? shown : text;
  };
  const std::string plan = as_shown(testing::ReadFixture("generic", "terraform-plan-changes"));
  SUBCASE("a plan cut inside its last resources: its verdict heads it, their changes kept") {
    // `terraform plan | tail -50` begins inside a resource whose line is cut off; before, it
    // was shown as any output's head and tail, its verdict ("Plan: …") among the lines omitted.
    const std::string s = ShapeGeneric("terraform plan 2>&1 | tail -50", LastLines(plan, 50));
    INFO(s);
    CHECK(
        s.starts_with("terraform plan: exit 0 is tail's, Plan: 2 to add, 23 to change, 2 to "
                      "destroy. (the resources' lines are cut off above: the changes left "
                      "shown, the rest counted)\n          ~ replicas = 1 -> 2\n"));
    // `| tail -80`: the changes above its first resource's line are kept too.
    const std::string more = ShapeGeneric("terraform plan 2>&1 | tail -80", LastLines(plan, 80));
    INFO(more);
    CHECK(Contains(more,
                   ")\n          ~ replicas = 2 -> 4\n  # terraform_data.service[\"svc-8\"] "
                   "will be updated in-place\n"));
  }
  SUBCASE("an error's location in words at the head's end keeps the source line it quotes") {
    const std::string validate = as_shown(testing::ReadFixture("generic", "terraform-validate"));
    const std::string s =
        ShapeGeneric("terraform validate 2>&1 | tail -50", LastLines(validate, 50));
    INFO(s);
    CHECK(Contains(s, "\n│   on main.tf line 15, in locals:\n│   15:     owner = var.owner\n"));
  }
}

TEST_CASE("AlikeButNumbers: the same line but for runs of digits and 0x numbers") {
  CHECK(AlikeButNumbers("Retry(total=4) at 0x7fb7414a0990", "Retry(total=10) at 0x7fb7414bd710"));
  CHECK(AlikeButNumbers("icmp_seq=1 time=0.051 ms", "icmp_seq=12 time=0.4 ms"));
  CHECK(AlikeButNumbers("same", "same"));
  CHECK_FALSE(AlikeButNumbers("fetch a 1", "fetch b 1"));
  CHECK_FALSE(AlikeButNumbers("at 0x7f", "at 07f"));  // a hex number is not a decimal one
  CHECK_FALSE(AlikeButNumbers("step 1 ok", "step 1 ok!"));
  CHECK_FALSE(AlikeButNumbers("v1", "v"));
  // A number with its separators; the spaces that align columns, however many.
  CHECK(AlikeButNumbers("     0K .......... ..........  0%  228M 0s",
                        "  1000K .......... ..........  3% 98.9M 0s"));
  CHECK(AlikeButNumbers("copied 1,024 bytes", "copied 999 bytes"));
  CHECK_FALSE(AlikeButNumbers("  9750K .......... .....       100%  323M=0.03s",
                              "  9700K .......... .......... 99%  273M 0s"));
  CHECK_FALSE(AlikeButNumbers("a b", "ab"));  // spaces are not nothing
  CHECK_FALSE(AlikeButNumbers("v1.", "v1"));  // a point that ends a sentence is no separator
}

TEST_CASE("generic keeps error lines from the middle with their context, and folds repeats") {
  auto generic = MakeGenericShaper();
  std::string output;
  for (int i = 1; i <= 1000; ++i) {
    if (i == 500) {
      output += "src/net.c:88: error: connection refused by 10.0.0.7\n";
    } else if (i >= 10 && i < 20) {
      output += "waiting for lock\n";
    } else {
      StrAppend(&output, "step ", testing::Letters(i), " done\n");
    }
  }
  core::ShapeContext ctx{"./deploy.sh --prod", 3, output.size(), 1000, "/s/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  auto lines = core::SplitLines(shaped->summary);
  CHECK(lines[0] == "deploy.sh: FAILED (exit 3), 1,000 lines");
  auto at =
      std::find(lines.begin(), lines.end(), "src/net.c:88: error: connection refused by 10.0.0.7");
  REQUIRE(at != lines.end());
  CHECK(*(at - 1) == "step ejj done");        // one line of context: step 499
  CHECK(*(at - 2) == "… 468 lines omitted");  // lines 31-498
  CHECK(*(at + 1) == "… 470 lines omitted (lines 501–970 of 1,000)");
  auto lock = std::find(lines.begin(), lines.end(), "waiting for lock");
  REQUIRE(lock != lines.end());
  CHECK(*(lock + 1) == "… 9 repeats of the line above");
  CHECK(*(lock + 2) == "step ca done");
}

TEST_CASE("generic keeps a memory checker's errors with the frames under them") {
  auto generic = MakeGenericShaper();
  std::string output;
  for (int i = 1; i <= 200; ++i) {
    if (i == 100) {
      output +=
          "==42== Invalid read of size 1\n"
          "==42==    at 0x109223: main (leak.c:14)\n"
          "==42==  Address 0x4a43220 is 0 bytes inside a block of size 6 free'd\n"
          "==42==    at 0x484417B: free (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n"
          "==42==    by 0x109212: main (leak.c:13)\n"
          "==42== \n"
          "==42== 80 bytes in 1 blocks are definitely lost in loss record 2 of 2\n"
          "==42==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)\n"
          "==42==    by 0x109181: push (leak.c:5)\n"
          "==42==    by 0x1091CA: main (leak.c:8)\n"
          "==42==    by 0x1091FF: run (leak.c:20)\n"
          "==42==    by 0x10920A: start (leak.c:30)\n";
    } else if (i % 2 == 0) {
      // Lines unlike their neighbours: none folds, and the head stays its first lines.
      StrAppend(&output, "==42== step ", i, "\n");
    } else {
      StrAppend(&output, "==42== checkpoint ", i, " reached\n");
    }
  }
  core::ShapeContext ctx{"valgrind ./leak", 0, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  auto lines = core::SplitLines(shaped->summary);
  auto read = std::find(lines.begin(), lines.end(), "==42== Invalid read of size 1");
  REQUIRE(read != lines.end());
  CHECK(*(read + 1) == "==42==    at 0x109223: main (leak.c:14)");
  // "Address …" is indented but no frame: where the first frames stop.
  CHECK(*(read + 2) == "… 3 lines omitted");
  auto lost = std::find(lines.begin(), lines.end(),
                        "==42== 80 bytes in 1 blocks are definitely lost in loss record 2 of 2");
  REQUIRE(lost != lines.end());
  CHECK(*(lost - 1) == "==42== ");
  CHECK(*(lost + 1) == "==42==    at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)");
  CHECK(*(lost + 2) == "==42==    by 0x109181: push (leak.c:5)");
  CHECK(*(lost + 3) == "==42==    by 0x1091CA: main (leak.c:8)");
  CHECK(lost[4].starts_with("… "));  // three frames at most
}

TEST_CASE("generic keeps a Go panic's frames in the user's code, each with its function") {
  // A server that logged requests, then panicked in a handler; its goroutine's frames, each a
  // function line and its location indented by a tab, the runtime's and net/http's among them.
  std::string output;
  for (int i = 1; i <= 80; ++i) StrAppend(&output, "2026/12/05 07:01:", i % 60, " GET /items/", i, " 200\n");
  output +=
      "panic: runtime error: index out of range [5] with length 3\n\n"
      "goroutine 7 [running]:\n"
      "main.pick(...)\n"
      "\t/home/dev/shop/handlers.go:42\n"
      "main.itemHandler({0x6f1a40, 0xc0000b6000}, 0xc0000c4000)\n"
      "\t/home/dev/shop/handlers.go:18 +0x1d4\n"
      "net/http.HandlerFunc.ServeHTTP(0x0?, {0x6f1a40?, 0xc0000b6000?}, 0x0?)\n"
      "\t/usr/lib/go-1.19/src/net/http/server.go:2109 +0x2f\n"
      "net/http.(*ServeMux).ServeHTTP(0x0?, {0x6f1a40, 0xc0000b6000}, 0xc0000c4000)\n"
      "\t/usr/lib/go-1.19/src/net/http/server.go:2487 +0x149\n";
  for (int i = 0; i < 30; ++i) {
    StrAppend(&output, "runtime.frame", i, "()\n\t/usr/lib/go-1.19/src/runtime/proc.go:", 300 + i, " +0x", i, "\n");
  }
  output += "exit status 2\n";
  auto generic = MakeGenericShaper();
  core::ShapeContext ctx{"go run .", 1, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const std::string& s = shaped->summary;
  INFO(s);
  CHECK(Contains(s, "\nmain.pick(...)\n\t/home/dev/shop/handlers.go:42\n"));
  CHECK(Contains(s, "\nmain.itemHandler({0x6f1a40, 0xc0000b6000}, 0xc0000c4000)\n"
                    "\t/home/dev/shop/handlers.go:18 +0x1d4\n"));
  CHECK_FALSE(Contains(s, "/usr/lib/go-1.19/src/net/http/server.go:2487"));
}

TEST_CASE("generic keeps a trace's frames in the user's code, not the library's") {
  // Django's development server: a request's traceback in its log, among request lines.
  std::string output;
  for (int i = 1; i <= 120; ++i) {
    StrAppend(&output, "[04/Dec/2026 14:08:", i % 60 < 10 ? "0" : "", i % 60, "] \"GET /item/", i,
              " HTTP/1.1\" 200 12\n");
    if (i == 60) {
      output +=
          "Internal Server Error: /item/zz9\n"
          "Traceback (most recent call last):\n"
          "  File \"/usr/lib/python3/dist-packages/django/core/handlers/exception.py\", line 55, in inner\n"
          "    response = get_response(request)\n"
          "  File \"/usr/lib/python3/dist-packages/django/core/handlers/base.py\", line 197, in _get_response\n"
          "    response = wrapped_callback(request, *callback_args, **callback_kwargs)\n"
          "               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
          "  File \"/srv/shop/views.py\", line 15, in item\n"
          "    return JsonResponse({\"price\": price_for(sku)})\n"
          "                                    ^^^^^^^^^^^^^^\n"
          "  File \"/srv/shop/views.py\", line 7, in price_for\n"
          "    return PRICES[sku]\n"
          "           ~~~~~~^^^^^\n"
          "KeyError: 'zz9'\n"
          "[04/Dec/2026 14:08:30] \"GET /item/zz9 HTTP/1.1\" 500 145\n";
    }
  }
  auto generic = MakeGenericShaper();
  core::ShapeContext ctx{"cat server.log", 0, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const std::string& s = shaped->summary;
  INFO(s);
  CHECK(s.find("  File \"/srv/shop/views.py\", line 15, in item\n"
               "    return JsonResponse({\"price\": price_for(sku)})\n") != std::string::npos);
  CHECK(s.find("  File \"/srv/shop/views.py\", line 7, in price_for\n    return PRICES[sku]\n") !=
        std::string::npos);
  CHECK(s.find("KeyError: 'zz9'\n") != std::string::npos);
  CHECK(s.find("\"GET /item/zz9 HTTP/1.1\" 500 145") != std::string::npos);
  CHECK(s.find("django/core/handlers/base.py") == std::string::npos);
}

TEST_CASE("generic lists where the trouble lines it had no room for are, when they start with a location") {
  const std::string output = testing::ReadFixture("generic", "xmllint-html");
  auto generic = MakeGenericShaper();
  core::ShapeContext ctx{"xmllint --noout h/*.xml", 1, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const std::string& s = shaped->summary;
  // Every parser error's location is in the summary: a line kept, or an entry of the list.
  size_t located = 0;
  for (std::string_view line : core::SplitLines(output)) {
    const size_t at = line.find(": parser error");
    if (at == std::string_view::npos) continue;
    ++located;
    const std::string where(line.substr(0, at));
    const bool kept = s.find(where + ":") != std::string::npos || s.find(where + ";") != std::string::npos ||
                      s.find(where + "\n") != std::string::npos;
    CHECK_MESSAGE(kept, where);
  }
  CHECK(located == 279);
  CHECK(s.find(" lines that read like trouble at: h/") != std::string::npos);
}

TEST_CASE("generic keeps what a traced shell script printed, its commands counted") {
  auto generic = MakeGenericShaper();
  std::string output;
  for (int i = 1; i <= 120; ++i) {
    StrAppend(&output, "+ step ", i, "\n", "++ date +%s\n");
    if (i == 60) output += "[deploy] missing artifact: build/app.sha256\n";
  }
  core::ShapeContext ctx{"bash -x ./deploy.sh", 1, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  auto lines = core::SplitLines(shaped->summary);
  auto said = std::find(lines.begin(), lines.end(), "[deploy] missing artifact: build/app.sha256");
  REQUIRE(said != lines.end());
  CHECK(*(said - 1) == "++ date +%s");  // one line of context
  CHECK(said[1].starts_with("… "));
}

TEST_CASE("generic shows short outputs and unstored outputs raw") {
  auto generic = MakeGenericShaper();
  std::string output;
  // Under 30 lines (10 of head, 10 of tail, at least 10 to hide) nothing is worth eliding.
  for (int i = 1; i <= 29; ++i) StrAppend(&output, "entry ", testing::Letters(i), "\n");
  core::ShapeContext ctx{"cmd", 0, output.size(), 29, "/s/a.log"};
  CHECK(generic->Shape(output, ctx)->render_mode == RenderMode::kRaw);
  for (int i = 30; i <= 80; ++i) StrAppend(&output, "entry ", testing::Letters(i), "\n");
  core::ShapeContext medium{"cmd", 0, output.size(), 80, "/s/a.log"};
  auto shaped = generic->Shape(output, medium);
  REQUIRE(shaped->render_mode == RenderMode::kSummary);
  CHECK(shaped->summary.find("… 60 lines omitted (lines 11–70 of 80)") != std::string::npos);
  for (int i = 81; i <= 500; ++i) StrAppend(&output, "entry ", testing::Letters(i), "\n");
  core::ShapeContext unstored{"cmd", 0, output.size(), 500, ""};
  CHECK(generic->Shape(output, unstored)->render_mode == RenderMode::kRaw);
}

TEST_CASE(
    "generic: a certificate printed as text keeps its fields and counts its runs of hex "
    "bytes") {
  // tests/fixtures/generic/openssl-x509-text: 58 lines, 32 of them the modulus' and the
  // signature's bytes ("46:e4:72:…:"), the runs ending in a shorter line ("8f:63").
  const std::string out = testing::ReadFixture("generic", "openssl-x509-text");
  const std::string s = ShapeGeneric("openssl x509 -in srv.pem -text -noout", out);
  INFO(s);
  CHECK(Contains(s, "        Subject: CN = api.fixture.local\n"));
  CHECK(Contains(s,
                 "                Modulus:\n… 18 lines of hex bytes omitted\n"
                 "                Exponent: 65537 (0x10001)\n"));
  CHECK(Contains(s, "DNS:api.fixture.local, DNS:www.fixture.local, IP Address:127.0.0.1\n"));
  CHECK(Contains(s, "    Signature Value:\n… 15 lines of hex bytes omitted\n"));
  // A serial number or a key identifier is one line of hex bytes: shown.
  const std::vector<std::string_view> lines = core::SplitLines(out);
  CHECK(Contains(s, StrCat("Serial Number:\n", lines[4], "\n")));
  CHECK(IsHexBytesLine(lines[4]));
  CHECK_FALSE(IsHexBytesLine("        Issuer: CN = Fixture Root CA"));
  CHECK_FALSE(IsHexBytesLine("deadbeef"));
}

TEST_CASE("generic: a message that starts with its location is kept, no error word in it") {
  // tests/fixtures/generic/pdflatex-file-line-error: TeX's "./report.tex:12: Undefined control
  // sequence." between the files it loads.
  const std::string out = testing::ReadFixture("generic", "pdflatex-file-line-error");
  const std::string s =
      ShapeGeneric("pdflatex -interaction=nonstopmode -file-line-error report.tex", out);
  INFO(s);
  CHECK(Contains(s, "\n./report.tex:9: Extra alignment tab has been changed to \\cr.\n"));
  CHECK(Contains(s, "\n./report.tex:12: Undefined control sequence.\n"));
  CHECK(Contains(s, "\n!  ==> Fatal error occurred, no output PDF file produced!\n"));
}

TEST_CASE(
    "generic: an exception group's tracebacks behind Python's margin keep the script's "
    "frames and count the library's") {
  // tests/fixtures/generic/python-exception-group: "  |   File \"…/batch.py\", line 7, in
  // validate" and asyncio's frames, nested two groups deep.
  const std::string out = testing::ReadFixture("generic", "python-exception-group");
  const std::string s = ShapeGeneric("python3 batch.py", out);
  INFO(s);
  for (std::string_view line : core::SplitLines(out)) {
    if (line.find("batch.py\", line ") == std::string_view::npos) continue;
    CHECK_MESSAGE(Contains(s, StrCat(line, "\n")), line);
  }
  CHECK(Contains(
      s, "      |     raise ValidationError(f\"record {rec['id']}: missing field 'email'\")\n"));
  CHECK(Contains(s, "lines of library stack frames omitted\n"));
  CHECK_FALSE(Contains(s, "asyncio/runners.py"));
}

TEST_CASE("generic: a cycle of lines repeated again and again is written once and counted") {
  // tests/fixtures/generic/python-recursion-cycle: a RecursionError through to_dict and a list
  // comprehension, the same 9 lines 332 times. Runs of one line are repeats, as before.
  const std::string out = testing::ReadFixture("generic", "python-recursion-cycle");
  const std::string s = ShapeGeneric("python3 tree.py", out);
  INFO(s);
  CHECK(Contains(s, "\n… 2,979 lines omitted: the 9 lines above, 331 more times\n"));
  CHECK(Contains(s, "tree.py\", line 4, in <listcomp>\n"));
  CHECK(s.ends_with("RecursionError: maximum recursion depth exceeded\n"));
  CHECK(core::SplitLines(s).size() < 40);
  const std::string repeats = ShapeGeneric(
      "java Deep",
      StrCat("Exception in thread \"main\" java.lang.StackOverflowError\n",
             absl::StrJoin(std::vector<std::string>(200, "\tat Deep.walk(Deep.java:3)"), "\n"),
             "\n"));
  INFO(repeats);
  CHECK(Contains(repeats, "\tat Deep.walk(Deep.java:3)\n… 199 repeats of the line above\n"));
}

}  // namespace
}  // namespace plugline::builtin

namespace plugline::builtin {
namespace {

TEST_CASE("generic: a file's source is not read as a tool's report, whatever it quotes") {
  CHECK(PrintsSourceFile("git blame src/builtin/build_shaper.cc"));
  CHECK(PrintsSourceFile("cat src/main.py | head -50"));
  CHECK(PrintsSourceFile("git show HEAD~2:src/app.ts"));
  CHECK(PrintsSourceFile("sed -n 10,80p lib/a.rs"));
  CHECK_FALSE(PrintsSourceFile("cat build.log"));
  CHECK_FALSE(PrintsSourceFile("tail -f logs/app.log"));
  CHECK_FALSE(PrintsSourceFile("git show HEAD"));
  CHECK_FALSE(PrintsSourceFile("make"));
  // Output that a compiler could have printed: the build shaper reads it from a saved log,
  // not from the source that quotes it.
  const std::string quoted =
      "main.c:3:5: error: 'x' undeclared (first use in this function)\n"
      "main.c:9:1: error: expected ';' before '}' token\n"
      "collect2: error: ld returned 1 exit status\n";
  for (const auto& shaper : MakeBuiltinShapers()) {
    if (shaper->meta().id != "builtin-build") continue;
    auto from_log = shaper->Match("cat build.log", quoted, 0);
    REQUIRE(from_log.ok());
    CHECK(from_log->matched);
    auto from_source = shaper->Match("cat docs/errors.md", quoted, 0);
    REQUIRE(from_source.ok());
    CHECK_FALSE(from_source->matched);
  }
}

TEST_CASE(
    "built-in shapers show a short output grep chose the lines of as it is, under their "
    "verdict") {
  // tests/fixtures/test/mocha_failing through `grep -E 'FAIL|ERROR|Error|error|fail'`: the count
  // of failures and each failure's error line, their headings taken out. The test shaper's
  // summary kept only its count ("… 4 other lines omitted").
  const std::string chosen = testing::LinesWith(testing::ReadFixture("test", "mocha_failing"),
                                                {"FAIL", "ERROR", "Error", "error", "fail"});
  REQUIRE(core::CountLines(chosen) == 5);
  std::shared_ptr<core::Shaper> test_shaper;
  for (const auto& shaper : MakeBuiltinShapers()) {
    if (shaper->meta().id == "builtin-test") test_shaper = shaper;
  }
  REQUIRE(test_shaper != nullptr);
  auto shape = [&](const std::string& command, const std::string& text) {
    core::ShapeContext ctx{command, 0, text.size(), core::CountLines(text), "/s/a.log"};
    absl::StatusOr<core::ShapeOutput> shaped = test_shaper->Shape(text, ctx);
    REQUIRE(shaped.ok());
    return *shaped;
  };
  const core::ShapeOutput grepped =
      shape("npx mocha 2>&1 | grep -E 'FAIL|ERROR|Error|error|fail'", chosen);
  CHECK(grepped.render_mode == RenderMode::kRaw);
  CHECK(grepped.failed);
  CHECK(grepped.summary == "mocha: FAILED — 4 failed");  // the line over the output as it is
  // Not through grep (`| tail -5`), the shaper's summary stands.
  CHECK(shape("npx mocha 2>&1 | tail -5", chosen).render_mode == RenderMode::kSummary);
  // A run that passed: as it is, nothing over it.
  const core::ShapeOutput passed =
      shape("pytest -q | grep -E 'passed|failed'", "34 passed in 0.05s\n");
  CHECK(passed.render_mode == RenderMode::kRaw);
  CHECK(passed.summary.empty());
  CHECK_FALSE(passed.failed);
}

TEST_CASE("generic: an error whose location is a few lines above it keeps that location") {
  // gfortran's shape: the location alone, a blank line, the source and a marker, the message.
  std::string output;
  for (int i = 1; i <= 60; ++i) StrAppend(&output, "compiling unit ", testing::Letters(i), "\n");
  output +=
      "prog.f90:31:6:\n"
      "\n"
      "   31 |   n = 'text'\n"
      "      |      1\n"
      "Error: Cannot convert CHARACTER(4) to INTEGER(4) at (1)\n";
  for (int i = 1; i <= 60; ++i) StrAppend(&output, "linking part ", testing::Letters(i), "\n");
  core::ShapeContext ctx{"gfortran -c prog.f90", 1, output.size(), 125, "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const auto lines = core::SplitLines(shaped->summary);
  auto at = std::find(lines.begin(), lines.end(),
                      "Error: Cannot convert CHARACTER(4) to INTEGER(4) at (1)");
  REQUIRE(at != lines.end());
  CHECK(*(at - 1) == "… 3 lines omitted");
  CHECK(*(at - 2) == "prog.f90:31:6:");
  CHECK(*(at - 3) == "… 45 lines omitted");
}

TEST_CASE("generic: gaps of a few lines between the lines kept are counted once, after the first") {
  const std::string output = testing::ReadFixture("lint", "gfortran-errors");
  core::ShapeContext ctx{"gfortran -c stats.f90", 1, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const std::string& s = shaped->summary;
  INFO(s);
  // gfortran's errors past the first in the middle: their location and message, one after the
  // other; the source and marker lines between them counted after them.
  CHECK(testing::Contains(s, "\nstats.f90:14:23:\nError: Function ‘vals3’ at (1) has no IMPLICIT type\n"
                             "stats.f90:17:6:\nError: Cannot convert CHARACTER(6) to INTEGER(4) at (1)\n"
                             "stats.f90:19:23:\nError: Function ‘vals0’ at (1) has no IMPLICIT type\n"));
  CHECK(testing::Contains(s, "\n… 54 lines omitted in gaps of 1 to 3 lines between the lines shown above\n"));
  // xmllint's: each error line, the caret under the one before it no context of it.
  const std::string xml = testing::ReadFixture("generic", "xmllint-html");
  core::ShapeContext xctx{"xmllint --noout h/*.xml", 1, xml.size(), core::CountLines(xml), "/s/a.log"};
  auto xshaped = MakeGenericShaper()->Shape(xml, xctx);
  REQUIRE(xshaped.ok());
  INFO(xshaped->summary);
  CHECK(testing::Contains(xshaped->summary, "\nh/doctest-dev-readme.xml:2: parser error : Extra content at the end of the document\n"
                                           "h/doctest-dev-reporters.xml:2: parser error : Extra content at the end of the document\n"));
}

TEST_CASE("generic keeps every entry of a long listing, the columns most share said once") {
  const std::string output = testing::ReadFixture("generic", "ls-la");
  REQUIRE(!output.empty());
  core::ShapeContext ctx{"ls -la", 0, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(output, ctx);
  REQUIRE(shaped.ok());
  REQUIRE(shaped->render_mode == RenderMode::kSummary);
  const std::string& s = shaped->summary;
  INFO(s);
  CHECK(s.starts_with("ls: 47 entries; 39 of them -rw-r--r-- root root, shown as size, date and name "
                      "(link counts left out)\ntotal 280\n"));
  // Every entry: those with the shared columns as size, date and name; the others as printed.
  for (std::string_view line : core::SplitLines(output)) {
    if (line.starts_with("total ")) continue;
    const bool shared = line.starts_with("-rw-r--r--  1 root root ");
    const std::string_view shown = shared ? Trim(line.substr(24)) : line;
    CHECK_MESSAGE(s.find(StrCat("\n", shown, "\n")) != std::string::npos, line);
  }
  CHECK(s.find("\n2042 Dec  1 17:05 data_2.csv\n") != std::string::npos);
  CHECK(s.find("\nlrwxrwxrwx  1 root root    11 Nov 20 09:30 main.py -> module_1.py\n") != std::string::npos);
  CHECK(s.find("\n-rw-------  1 root root 16336 Nov 20 09:30 data_16.csv\n") != std::string::npos);

  // Lines that are no listing's: not read as one.
  const std::string words = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\nkappa\n";
  core::ShapeContext words_ctx{"ls", 0, words.size(), core::CountLines(words), "/s/a.log"};
  auto plain = MakeGenericShaper()->Shape(words, words_ctx);
  REQUIRE(plain.ok());
  CHECK(plain->render_mode == RenderMode::kRaw);
}

TEST_CASE("generic: a run of the same line is folded whole, wherever it starts and ends") {
  // tests/fixtures/generic/java-stack-overflow: the same frame 1,024 times, from the head to
  // the tail; java-exceptions: 31 times in the middle, between frames kept.
  auto shape = [](const std::string& command, const std::string& output) {
    core::ShapeContext ctx{command, 1, output.size(), core::CountLines(output), "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(output, ctx);
    REQUIRE(shaped.ok());
    return shaped->summary;
  };
  const std::string deep =
      shape("java com.acme.Deep", testing::ReadFixture("generic", "java-stack-overflow"));
  CHECK(deep == "java: FAILED (exit 1), 1,026 lines\n"
                "walking the tree\n"
                "Exception in thread \"main\" java.lang.StackOverflowError\n"
                "\tat com.acme.Deep.walk(Deep.java:3)\n"
                "… 1,023 repeats of the line above\n");
  const std::string app =
      shape("java com.acme.App", testing::ReadFixture("generic", "java-exceptions"));
  CHECK(Contains(app, "\tat com.acme.App.depth(App.java:4)\n"
                      "… 30 repeats of the line above\n"
                      "\tat com.acme.App.main(App.java:13)\n"));
  CHECK(Contains(app, "Caused by: java.io.FileNotFoundException: /etc/acme/app.properties (No such "
                      "file or directory)\n"));
}

TEST_CASE("generic: a run of lines alike but for their numbers is folded to its first and last") {
  // tests/fixtures/generic/wget-progress: wget's dot progress, a line per 50 KiB.
  const std::string wget = ShapeGeneric("wget --progress=dot http://127.0.0.1:18931/release.tar",
                                        testing::ReadFixture("generic", "wget-progress"));
  INFO(wget);
  const std::vector<std::string_view> lines = core::SplitLines(wget);
  REQUIRE(lines.size() == 14);
  CHECK(lines[0] == "wget: exit 0, 205 lines");
  CHECK(lines[3] == "HTTP request sent, awaiting response... 200 OK");
  CHECK(lines[7].starts_with("     0K .......... .......... .......... .......... ..........  0%"));
  CHECK(lines[8] == "… 193 lines like the ones around, but for their numbers, omitted");
  CHECK(lines[9].starts_with("  9700K .......... .......... .......... .......... .......... 99%"));
  CHECK(lines[10].starts_with("  9750K .......... .....  "));
  CHECK(lines[12].ends_with("saved [10000000/10000000]"));
  // Lines that read like trouble are not folded to their first and last: each one's numbers
  // are kept.
  std::string retries;
  for (int i = 1; i <= 12; ++i) StrAppend(&retries, "attempt ", i, " failed: connection refused\n");
  for (int i = 1; i <= 60; ++i) StrAppend(&retries, "waiting ", testing::Letters(i), "\n");
  const std::string refused = ShapeGeneric("./sync.sh", retries);
  CHECK(
      Contains(refused,
               "attempt 1 failed: connection refused\n"
               "… 11 more lines like the one above but for: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12\n"));
  CHECK(!Contains(refused, "but for their numbers"));
  // Lines that name a place in a file are not folded: their numbers are where ("dep.nim(4, 6)
  // Warning: …", a compiler's format plugline has no parser for).
  std::string placed;
  for (int i = 3; i <= 40; ++i) {
    StrAppend(&placed, "/w/nim/dep.nim(", i, ", 6) Note: use fresh; old is deprecated\n");
  }
  const std::string nim = ShapeGeneric("nimble build", placed);
  INFO(nim);
  CHECK(!Contains(nim, "but for their numbers"));
  for (int i = 3; i <= 40; ++i) {
    CHECK_MESSAGE((Contains(nim, StrCat("/w/nim/dep.nim(", i, ",")) ||
                   Contains(nim, StrCat("/w/nim/dep.nim(", i, "\n"))),
                  i);
  }
  CHECK(NamesFileLocation(";;; /w/warn.scm:39:14: warning: wrong number of arguments"));
  CHECK(NamesFileLocation("  --> src/main.rs:3:5"));
  CHECK_FALSE(NamesFileLocation("req 3: 200 0.008499s 45203 bytes"));
  CHECK_FALSE(NamesFileLocation("Downloading numpy-1.26.4.tar.gz (15.8 MB)"));
  // An output short enough to show whole is shown whole, a table of measurements as printed.
  std::string table;
  for (int i = 1; i <= 25; ++i) StrAppend(&table, "run ", i, ": ", 100 + i * 3, " ms\n");
  core::ShapeContext ctx{"./bench", 0, table.size(), 25, "/s/a.log"};
  CHECK(MakeGenericShaper()->Shape(table, ctx)->render_mode == RenderMode::kRaw);
}

TEST_CASE(
    "generic: a run of 8 lines or more alike but for one word is its first and the others' words") {
  // Runs that start where the head or the tail is shown.
  std::string out;
  for (int i = 0; i < 5; ++i) StrAppend(&out, "step ", testing::Letters(i), "\n");
  for (int i = 1; i <= 60; ++i) {
    StrAppend(&out, "INFO: looking at the versions of pkg-", testing::Letters(i),
              " to find one that fits\n");
  }
  // Seven alike, then lines that differ in three words, then a run of errors alike.
  for (int i = 1; i <= 7; ++i)
    StrAppend(&out, "copied file part-", testing::Letters(i), " to the cache\n");
  for (int i = 1; i <= 10; ++i) {
    StrAppend(&out, "moved ", testing::Letters(i), " from ", testing::Letters(i + 1), " to ",
              testing::Letters(i + 2), " now\n");
  }
  for (int i = 1; i <= 10; ++i)
    StrAppend(&out, "error: cannot open file-", testing::Letters(i), " here\n");
  // Errors alike but for their numbers in two places: each its own.
  for (int i = 1; i <= 10; ++i) StrAppend(&out, "error: bad byte ", i, " at offset ", i * 16, "\n");
  for (int i = 0; i < 30; ++i) StrAppend(&out, "done ", testing::Letters(i), "\n");
  // At the end, a run longer than the tail, shown from its start, and one shorter than 8
  // before it.
  for (int i = 1; i <= 7; ++i)
    StrAppend(&out, "copied file part-", testing::Letters(i), " to the cache\n");
  for (int i = 1; i <= 45; ++i)
    StrAppend(&out, "removed the stale lock of job-", testing::Letters(i), " just now\n");
  const std::string s = ShapeGeneric("./setup.sh", out);
  INFO(s);
  CHECK(Contains(s,
                 "\nINFO: looking at the versions of pkg-b to find one that fits\n"
                 "… 59 more lines like the one above but for: pkg-c, pkg-d, "));
  CHECK(Contains(s, "\n… more of such lines: "));
  for (int i = 1; i <= 60; ++i) {
    CHECK_MESSAGE(Contains(s, StrCat("pkg-", testing::Letters(i))), i);
  }
  CHECK(Contains(s,
                 "\nremoved the stale lock of job-b just now\n"
                 "… 44 more lines like the one above but for: job-c, job-d, "));
  for (int i = 1; i <= 45; ++i) CHECK_MESSAGE(Contains(s, StrCat("job-", testing::Letters(i))), i);
  CHECK(!Contains(s, "but for: part-"));
  CHECK(!Contains(s, "but for: c from"));
  // Lines that read like trouble make a run with each other, their numbers told apart.
  CHECK(Contains(s,
                 "\nerror: cannot open file-b here\n"
                 "… 9 more lines like the one above but for: file-c, file-d, "));
  for (int i = 1; i <= 10; ++i) {
    CHECK_MESSAGE(Contains(s, StrCat("error: bad byte ", i, " at offset ", i * 16, "\n")), i);
  }
  // Lines alike but for a commit's hash and names with numbers in them (`git branch -vv`):
  // the names tell them apart too, and are not numbers to set aside — not folded.
  std::string branches;
  for (int i = 1; i <= 12; ++i) {
    StrAppend(&branches, "  topic/t", i, "   ", testing::Letters(i), "0f1d2 topic(", i,
              "): refine handler 20 for ticket PROJ-", 1000 + i * 100, "\n");
  }
  for (int i = 0; i < 110; ++i) StrAppend(&branches, "done ", testing::Letters(i), "\n");
  const std::string named = ShapeGeneric("git branch -a -vv", branches);
  INFO(named);
  for (int i = 1; i <= 12; ++i) {
    CHECK_MESSAGE(Contains(named, StrCat("  topic/t", i, "   ")), i);
    CHECK_MESSAGE(Contains(named, StrCat("PROJ-", 1000 + i * 100)), i);
  }
  // A measure's numbers are set aside: a version in parentheses.
  std::string satisfied;
  for (int i = 1; i <= 12; ++i) {
    StrAppend(&satisfied, "Requirement already satisfied: pkg-", testing::Letters(i),
              " in /usr/lib/python3/dist-packages (", i, ".0.", i * 3, ")\n");
  }
  for (int i = 0; i < 110; ++i) StrAppend(&satisfied, "done ", testing::Letters(i), "\n");
  CHECK(Contains(ShapeGeneric("pip install -r requirements.txt", satisfied),
                 "… 11 more lines like the one above but for: pkg-c, pkg-d, "));
}

TEST_CASE(
    "generic: lines that read like trouble alike but for one word keep every word and number") {
  // tests/fixtures/generic/chown-r-not-permitted: chown -R on 354 entries it may not change,
  // one whose name reads like trouble among them (seed_gen_exception.h).
  const std::string output = testing::ReadFixture("generic", "chown-r-not-permitted");
  const std::string s = ShapeGeneric("chown -R nobody:nogroup absl", output);
  INFO(s);
  CHECK(Contains(s,
                 "\nchown: changing ownership of 'absl/types/variant.h': Operation not permitted\n"
                 "… 353 more lines like the one above but for: 'absl/types/bad_optional_access.h', "
                 "'absl/types/bad_any_cast.h', "));
  for (std::string_view line : core::SplitLines(output)) {
    const size_t open = line.find('\''), close = line.rfind('\'');
    REQUIRE(close > open);
    CHECK_MESSAGE(Contains(s, line.substr(open, close - open + 1)), line);
  }
  CHECK(!Contains(s, "omitted"));
  // Errors at lines that differ: each line's numbers kept, whatever the words.
  std::string located;
  for (int i = 1; i <= 40; ++i) {
    StrAppend(&located, "src/parse.c:", 10 * i, ":", i, ": error: expected ';' before '}' token\n");
  }
  const std::string t = ShapeGeneric("./build.sh", StrCat(std::string(200, 'x'), "\n", located));
  INFO(t);
  CHECK(Contains(t, "… 39 more lines like the one above but for: src/parse.c:20:2, "));
  CHECK(Contains(t, "\nsrc/parse.c:10:1: error: expected ';' before '}' token\n"));
  for (int i = 2; i <= 40; ++i) {
    const std::string at = StrCat("src/parse.c:", 10 * i, ":", i);
    CHECK_MESSAGE((Contains(t, at + ",") || Contains(t, at + "\n")), i);
  }
}

TEST_CASE("generic: a listing's paths whose names read like trouble are entries like any") {
  // tests/fixtures/generic/tar-list-absl: `tar -tzf` of /usr/include/absl, where
  // seed_gen_exception.h, failure_signal_handler.h and exception_testing.h are in the middle.
  const std::string s =
      ShapeGeneric("tar -tzf absl.tgz", testing::ReadFixture("generic", "tar-list-absl"));
  INFO(s);
  CHECK(Contains(s,
                 "absl/synchronization/internal/create_thread_identity.h\n"
                 "… 294 lines omitted (lines 31–324 of 354)\n"));
  CHECK(!Contains(s, "exception"));
}

TEST_CASE("generic: a small table under its header's rule is shown whole, a large one is not") {
  // tests/fixtures/generic/pip-list (94 rows) and sqlite-column-items (60 rows, alike but for
  // their numbers): every row may be the one asked about.
  for (const auto& [name, command] : std::initializer_list<std::pair<const char*, const char*>>{
           {"pip-list", "python3 -m pip list"},
           {"sqlite-column-items", "sqlite3 -header -column shop.db \"select * from items\""}}) {
    INFO(name);
    const std::string output = testing::ReadFixture("generic", name);
    core::ShapeContext ctx{command, 0, output.size(), core::CountLines(output), "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(output, ctx);
    REQUIRE(shaped.ok());
    CHECK(shaped->render_mode == RenderMode::kRaw);
  }
  // Words joined by dashes are no rule; a table of more than 160 lines is cut as any output.
  std::string listed = "Package    Version\n------- -------\n";
  for (int i = 0; i < 200; ++i) StrAppend(&listed, "pkg-", testing::Letters(i), "    1.", i, "\n");
  CHECK(Contains(ShapeGeneric("pip list", listed), "lines omitted (lines"));
  std::string prose = "Notes\nsee -- the -- list\n";
  for (int i = 0; i < 40; ++i) StrAppend(&prose, "note ", testing::Letters(i), "\n");
  CHECK(Contains(ShapeGeneric("./notes.sh", prose), "lines omitted (lines"));
}

TEST_CASE("generic: ls -R shows every folder with its first entries, the others counted") {
  // tests/fixtures/generic/ls-r-absl: `ls -R` in /usr/include/absl, 40 folders.
  std::string output = testing::ReadFixture("generic", "ls-r-absl");
  auto shape = [](const std::string& text) {
    core::ShapeContext ctx{"ls -R", 0, text.size(), core::CountLines(text), "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(text, ctx);
    REQUIRE(shaped.ok());
    return shaped->summary;
  };
  const std::string s = shape(output);
  INFO(s);
  CHECK(s.starts_with("ls: exit 0, 432 lines, a recursive listing of 40 folders and 353 entries; "
                      "each folder's first 3 shown\n.:\nalgorithm\nbase\ncleanup\n"
                      "… 16 more entries\n./algorithm:\nalgorithm.h\ncontainer.h\n"));
  const std::vector<std::string_view> lines = core::SplitLines(output);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].ends_with(":")) CHECK_MESSAGE(Contains(s, StrCat("\n", lines[i], "\n")), lines[i]);
  }
  CHECK(Contains(s, "./base/internal:\natomic_hook.h\natomic_hook_test_helper.h\ncycleclock.h\n"
                    "… 34 more entries\n"));
  // A name that reads like trouble is an entry like any; ls's own complaint is shown.
  CHECK(!Contains(s, "errno_saver.h"));
  const std::string denied = output + "\n./secret:\nls: cannot open directory './secret': "
                                      "Permission denied\n";
  CHECK(Contains(shape(denied), "./secret:\nls: cannot open directory './secret': Permission "
                                "denied\n"));
  // Run by a script, it is known by its headings: folders in folders.
  core::ShapeContext script{"./list.sh", 0, output.size(), lines.size(), "/s/a.log"};
  auto listed = MakeGenericShaper()->Shape(output, script);
  REQUIRE(listed.ok());
  CHECK(listed->summary.starts_with("list.sh: exit 0, 432 lines, a recursive listing of 40 "
                                    "folders and 353 entries;"));
  // Another tool's headings after blank lines (objdump's "Disassembly of section .text:",
  // "0000000000001139 <main>:") are no folders.
  const std::string disassembly = testing::ReadFixture("generic", "objdump-true");
  REQUIRE(!disassembly.empty());
  for (const char* command : {"objdump -d /usr/bin/true", "./disassemble.sh"}) {
    core::ShapeContext objdump{command, 0, disassembly.size(),
                               core::SplitLines(disassembly).size(), "/s/a.log"};
    auto other = MakeGenericShaper()->Shape(disassembly, objdump);
    REQUIRE(other.ok());
    CHECK(!Contains(other->summary, "recursive listing"));
  }
  // More than 60 folders at the top level: the head and the tail, as any output.
  std::string many;
  for (int f = 0; f < 70; ++f) StrAppend(&many, f == 0 ? "" : "\n", "./d", f, ":\na\nb\nc\nd\n");
  CHECK(shape(many).starts_with("ls: exit 0, 419 lines\n"));
  // More than 60 in all: the top levels that fit, each deeper folder counted under the one it
  // is in. "." with 4 folders, each with 20 folders of 2 entries, each with one of 1 entry.
  std::string deep = ".:\nm0\nm1\nm2\nm3\n";
  for (int m = 0; m < 4; ++m) {
    StrAppend(&deep, "\n./m", m, ":\n");
    for (int f = 0; f < 20; ++f) StrAppend(&deep, "f", f, "\n");
    for (int f = 0; f < 20; ++f) {
      StrAppend(&deep, "\n./m", m, "/f", f, ":\nx.c\ny\n", "\n./m", m, "/f", f, "/y:\nz.h\n");
    }
  }
  const std::string d = shape(deep);
  INFO(d);
  CHECK(d.starts_with("ls: exit 0, "));
  CHECK(Contains(d, "a recursive listing of 165 folders and 324 entries; the 5 folders of its top "
                    "2 levels with each one's first 24 shown, those under them counted\n"));
  for (int m = 0; m < 4; ++m) {
    CHECK(Contains(d, StrCat("\n./m", m, ":\nf0\nf1\n")));
    CHECK(Contains(d, StrCat("\nf19\n… 40 folders under it, 60 entries\n")));
  }
  CHECK_FALSE(Contains(d, "./m0/f0:"));
}

TEST_CASE("generic: a library's stack frames are counted in the head and the tail too") {
  // tests/fixtures/generic/python-chained-exception: a script's uncaught exception, chained
  // twice through urllib's, http.client's and socket's frames; the output is its traceback.
  const std::string out = testing::ReadFixture("generic", "python-chained-exception");
  const std::string s = ShapeGeneric("python3 fetch.py", out);
  INFO(s);
  CHECK(s.starts_with("python: exit 0, 58 lines\nTraceback (most recent call last):\n"
                      "… 19 lines of library stack frames omitted\n"
                      "ConnectionRefusedError: [Errno 111] Connection refused\n"));
  // No frame of the standard library, nor the code under one; every frame of the script's.
  for (std::string_view line : core::SplitLines(s)) {
    CHECK_MESSAGE(line.find("/usr/lib/python3") == std::string_view::npos, line);
  }
  for (std::string_view line : core::SplitLines(out)) {
    if (line.find("fetch.py\", line ") == std::string_view::npos) continue;
    CHECK_MESSAGE(Contains(s, StrCat(line, "\n")), line);
  }
  CHECK(Contains(s, "\nurllib.error.URLError: <urlopen error [Errno 111] Connection refused>\n"));
  CHECK(Contains(s, "\nRuntimeError: could not load the price list\n"));
}

TEST_CASE("generic: a sanitizer's report keeps its frames in the program, not the C library's "
          "start-up frames nor its shadow memory map") {
  // tests/fixtures/generic/asan-use-after-free: clang 14's AddressSanitizer, a heap use after
  // free; each of its three stacks ends in __libc_start_call_main, __libc_start_main, _start.
  const std::string out = testing::ReadFixture("generic", "asan-use-after-free");
  const std::string s = ShapeGeneric("./orders-uaf", out);
  INFO(s);
  CHECK(Contains(s, "==19194==ERROR: AddressSanitizer: heap-use-after-free on address "));
  CHECK(Contains(s, "    #0 0x55d4f30c324e in total /tmp/plugline-fixtures/asan/orders-uaf.c:22:50\n"
                    "    #1 0x55d4f30c3053 in main /tmp/plugline-fixtures/asan/orders-uaf.c:31:25\n"
                    "… 3 lines of library stack frames omitted\n"));
  CHECK(Contains(s, "in main /tmp/plugline-fixtures/asan/orders-uaf.c:30:3\n"));
  CHECK(Contains(s, "in make_order /tmp/plugline-fixtures/asan/orders-uaf.c:13:21\n"));
  CHECK(Contains(s, "\nSUMMARY: AddressSanitizer: heap-use-after-free "));
  CHECK(Contains(s, "lines of the sanitizer's shadow memory map and its legend omitted\n"));
  CHECK_FALSE(Contains(s, "__libc_start"));
  CHECK_FALSE(Contains(s, "redzone"));  // the legend
  CHECK_FALSE(Contains(s, "fa fa fa"));  // the map
  CHECK(Contains(s, "==19194==ABORTING\n"));
}

TEST_CASE(
    "generic: a leak report: the first leaks in full, the others listed by where they were "
    "allocated, a helper's with its caller") {
  // tests/fixtures/generic/lsan-leaks: LeakSanitizer on config-leaks.c, 9 leaks.
  const std::string lsan = testing::ReadFixture("generic", "lsan-leaks");
  core::ShapeContext ctx{"./config-leaks-asan", 1, lsan.size(), core::CountLines(lsan), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(lsan, ctx);
  REQUIRE(shaped.ok());
  std::string s = shaped->summary;
  INFO(s);
  CHECK(s.starts_with(
      "config-leaks-asan: FAILED (exit 1), 9 leaks (8 direct, 1 indirect), 65 lines\n"));
  CHECK(Contains(
      s,
      "Direct leak of 256 byte(s) in 1 object(s) allocated from:\n"
      "    #1 0x55d293598255 in parse_path /tmp/plugline-fixtures/leaks/config-leaks.c:32:56\n"
      "    #2 0x55d293598034 in main /tmp/plugline-fixtures/leaks/config-leaks.c:55:43\n"
      "… 2 frames of the allocator or system libraries omitted\n"));
  CHECK(
      Contains(s,
               "\n… 3 more direct leaks at: /tmp/plugline-fixtures/leaks/config-leaks.c:15:13 copy "
               "/tmp/plugline-fixtures/leaks/config-leaks.c:33:56 parse_user (4 byte(s)); "));
  CHECK(Contains(
      s, "copy /tmp/plugline-fixtures/leaks/config-leaks.c:30:55 parse_retries (2 byte(s))\n"));
  CHECK(Contains(s, "\nIndirect leak of 6 byte(s) in 1 object(s) allocated from:\n"));
  CHECK(Contains(s, "\nSUMMARY: AddressSanitizer: 384 byte(s) leaked in 9 allocation(s).\n"));
  CHECK_FALSE(Contains(s, "__interceptor_malloc"));
  // valgrind's: its blocks definitely lost, smallest first, the others listed.
  const std::string vg = testing::ReadFixture("generic", "valgrind-leaks-many");
  s = ShapeGeneric("valgrind --leak-check=full ./config-leaks", vg);
  CHECK(s.starts_with("valgrind: exit 0, 9 leaks (9 definitely lost), 71 lines\n"));
  CHECK(Contains(s,
                 "\n… 4 more leaks definitely lost at: config-leaks.c:34 parse_level (32 bytes); "
                 "config-leaks.c:36 parse_tags (70 (64 direct, 6 indirect) bytes); "
                 "config-leaks.c:21 make_setting (106 (24 direct, 82 indirect) bytes); "
                 "config-leaks.c:32 parse_path (256 bytes)\n"));
  CHECK(Contains(s, "definitely lost: 402 bytes in 9 blocks\n"));
  CHECK_FALSE(Contains(s, "vgpreload_memcheck"));
}

TEST_CASE(
    "generic: a head folded to a few lines goes on past its raw lines: the lines after the "
    "fold are shown") {
  // git branch -vv: 400 branches alike but for their names, then the current one among a few
  // others, then 400 more.
  std::string out;
  for (int i = 0; i < 400; ++i) StrAppend(&out, "  bulk-", i, " ab9ad83 Main: header edits\n");
  out +=
      "  feature   d296563 Local feature commit\n"
      "* main      d285453 Local main commit\n"
      "  rebase-me b187cf2 Remove http.server on feature\n";
  for (int i = 0; i < 400; ++i)
    StrAppend(&out, "  remotes/origin/bulk-", i, " ab9ad83 Main: header edits\n");
  const std::string s = ShapeGeneric("git branch -a -vv", out);
  INFO(s);
  CHECK(
      Contains(s,
               "\n  feature   d296563 Local feature commit\n* main      d285453 Local main commit\n"
               "  rebase-me b187cf2 Remove http.server on feature\n"));
  CHECK(Contains(s,
                 "  bulk-0 ab9ad83 Main: header edits\n"
                 "… 398 lines like the ones around, but for their numbers, omitted\n"));
}

TEST_CASE("IsLibraryFrame: a native frame in the C library or a system library, not the "
          "program's") {
  CHECK(IsLibraryFrame("    #2 0x7f49 in __libc_start_call_main "
                       "csu/../sysdeps/nptl/libc_start_call_main.h:58:16"));
  CHECK(IsLibraryFrame("    #4 0x5561 in _start (/tmp/a/orders+0x21300) (BuildId: d4f9)"));
  CHECK(IsLibraryFrame("    #1 0x7f0a in raise (/lib/x86_64-linux-gnu/libc.so.6+0x3c0a1)"));
  CHECK(IsLibraryFrame("#3  0x00007ffff7dee46d in __libc_start_main () from /lib/libc.so.6"));
  CHECK(IsLibraryFrame("#0  __pthread_kill_implementation (no_tid=0) at ./nptl/pthread_kill.c:44"));
  CHECK_FALSE(IsLibraryFrame("    #0 0x5561 in total /tmp/a/orders-uaf.c:7:98"));
  CHECK_FALSE(IsLibraryFrame("    #0 0x5561 in free (/tmp/a/orders+0xa3ea2) (BuildId: d4f9)"));
  CHECK_FALSE(IsLibraryFrame("#1  0x0000555555555171 in main () at crash.c:9"));
  CHECK(IsShadowMapLine("=>0x0c067fff8010:[fd]fa fa fa 00 00 04 fa"));
  CHECK(IsShadowMapLine("  Partially addressable: 01 02 03 04 05 06 07 "));
  CHECK_FALSE(IsShadowMapLine("  total: 42 ms"));
  CHECK_FALSE(IsShadowMapLine("  Freed heap region:       fd and more"));
}

TEST_CASE("generic: a short crash loses its runs of library frames, and keeps a frame alone") {
  // tests/fixtures/generic/node-uncaught: node 20 on a config with a trailing comma.
  const std::string node = testing::ReadFixture("generic", "node-uncaught");
  std::string s = ShapeGeneric("node app.js", node);
  INFO(s);
  CHECK(s == "node: exit 0, 17 lines\n"
             "<anonymous_script>:1\n{\"port\": 80,}\n            ^\n\n"
             "SyntaxError: Expected double-quoted property name in JSON at position 12\n"
             "    at JSON.parse (<anonymous>)\n"  // one frame: shown, a count would cost as much
             "    at loadConfig (/tmp/plugline-fixtures/node-crash/app.js:2:38)\n"
             "    at start (/tmp/plugline-fixtures/node-crash/app.js:3:32)\n"
             "    at Object.<anonymous> (/tmp/plugline-fixtures/node-crash/app.js:4:1)\n"
             "… 6 lines of library stack frames omitted\n\nNode.js v20.20.2\n");
  // tests/fixtures/generic/python-json-traceback: the json module's four frames and their code.
  const std::string python = testing::ReadFixture("generic", "python-json-traceback");
  s = ShapeGeneric("python3 load.py", python);
  CHECK(Contains(s, "    return json.load(f)\n           ^^^^^^^^^^^^\n"
                    "… 12 lines of library stack frames omitted\n"
                    "json.decoder.JSONDecodeError: Expecting property name"));
  CHECK_FALSE(Contains(s, "/usr/lib/python3"));
  // Without a stored output to point at, or with no run of library frames, it is shown raw.
  core::ShapeContext unstored{"node app.js", 1, node.size(), core::CountLines(node), ""};
  CHECK(MakeGenericShaper()->Shape(node, unstored)->render_mode == RenderMode::kRaw);
  const std::string own =
      "Error: boom\n    at JSON.parse (<anonymous>)\n    at f (/app/a.js:1:1)\n";
  CHECK(ShapeGeneric("node a.js", own).empty());
}

TEST_CASE("generic: a compact JSON document is cut as printed: first items, members, strings") {
  const auto shape = ShapeGeneric;
  // tests/fixtures/generic/jq-compact-countries: jq -c on the 249 countries of ISO 3166-1.
  const std::string countries = testing::ReadFixture("generic", "jq-compact-countries");
  const std::string s = shape("jq -c . /usr/share/iso-codes/json/iso_3166-1.json", countries);
  INFO(s);
  CHECK(s == "jq: a JSON document of 28.7 KiB; an array's first 5 items shown (3 of objects or "
             "arrays), an object's first 30 members, the others counted\n"
             "{\"3166-1\":[{\"alpha_2\":\"AW\",\"alpha_3\":\"ABW\",\"flag\":\"🇦🇼\",\"name\":\"Aruba\","
             "\"numeric\":\"533\"},{\"alpha_2\":\"AF\",\"alpha_3\":\"AFG\",\"flag\":\"🇦🇫\","
             "\"name\":\"Afghanistan\",\"numeric\":\"004\",\"official_name\":\"Islamic Republic of "
             "Afghanistan\"},{\"alpha_2\":\"AO\",\"alpha_3\":\"AGO\",\"flag\":\"🇦🇴\",\"name\":"
             "\"Angola\",\"numeric\":\"024\",\"official_name\":\"Republic of Angola\"},"
             "… 246 more items]}\n");
  // Spaces as printed (Python's json.dumps), a long string cut, a member past the cap counted,
  // an array one over the cap shown whole, and what follows a cut container kept.
  std::string doc = "{\"blob\": \"";
  doc += std::string(3000, 'A');
  doc += "\", \"ids\": [1, 2, 3, 4, 5, 6], \"many\": [";
  for (int i = 0; i < 50; ++i) StrAppend(&doc, i ? ", " : "", i * 3);
  doc += "]";
  for (int i = 0; i < 40; ++i) StrAppend(&doc, ", \"k", i, "\": \"v", i, "\"");
  doc += "}";
  const std::string d = shape("curl -s http://127.0.0.1:8080/api", doc);
  INFO(d);
  CHECK(Contains(d, StrCat("{\"blob\": \"", std::string(240, 'A'), "… 2,760 more bytes\", ")));
  CHECK(Contains(d, "\"ids\": [1, 2, 3, 4, 5, 6], \"many\": [0, 3, 6, 9, 12, … 45 more items], "));
  CHECK(Contains(d, "\"k26\": \"v26\", … 13 more members}"));
  CHECK_FALSE(Contains(d, "\"k27\""));
  // Not a document (a second one after it): not cut.
  CHECK_FALSE(Contains(shape("curl -s x", doc + "\n" + doc), "more items"));
}

TEST_CASE("generic: an indented JSON document keeps its lines, long arrays and objects cut") {
  auto shape = [](const std::string& command, const std::string& text) {
    core::ShapeContext ctx{command, 0, text.size(), core::CountLines(text), "/s/a.log"};
    auto shaped = MakeGenericShaper()->Shape(text, ctx);
    REQUIRE(shaped.ok());
    return shaped->render_mode == RenderMode::kRaw ? std::string("<raw>") : shaped->summary;
  };
  // tests/fixtures/generic/npm-view-json: the registry's document for express 4.21.2.
  const std::string output = testing::ReadFixture("generic", "npm-view-json");
  const std::string s = shape("npm view express@4.21.2 --json", output);
  INFO(s);
  CHECK(s.starts_with("npm view: exit 0, 668 lines of JSON; an array's first 5 items shown (3 of "
                      "objects or arrays), the others counted\n"
                      "{\n  \"_id\": \"express@4.21.2\",\n"));
  CHECK(Contains(s, "  \"versions\": [\n    \"0.14.0\",\n    \"0.14.1\",\n    \"1.0.0\",\n"
                    "    \"1.0.1\",\n    \"1.0.2\",\n… 257 more items\n  ],\n"));
  // Every member of the top object is there: the ones after the long array and map too.
  for (std::string_view line : core::SplitLines(output)) {
    if (line.starts_with("  \"")) CHECK_MESSAGE(Contains(s, StrCat("\n", line, "\n")), line);
  }
  CHECK(s.ends_with("  }\n}\n"));
  // An array of objects: the first 3; and what is no single indented document is not read so.
  std::string orders = "[\n";
  for (int i = 0; i < 20; ++i) {
    StrAppend(&orders, "  {\n    \"id\": ", i, ",\n    \"status\": \"paid\"\n  }",
              i == 19 ? "" : ",", "\n");
  }
  orders += "]\n";
  const std::string o = shape("curl -s http://127.0.0.1:8000/api/orders", orders);
  CHECK(Contains(o, "    \"id\": 2,\n    \"status\": \"paid\"\n  },\n… 17 more items\n]\n"));
  CHECK(!Contains(o, "\"id\": 3,"));
  CHECK(!Contains(shape("curl -s http://127.0.0.1:8000/api/orders", orders + orders),
                  "lines of JSON"));
  std::string broken = orders;
  broken.insert(broken.find("\"id\": 7"), "oops ");
  CHECK(!Contains(shape("curl -s http://127.0.0.1:8000/api/orders", broken), "lines of JSON"));
}

TEST_CASE("TreeBranchColumn: where a tree drawing's branch starts, for each way tools draw one") {
  CHECK(TreeBranchColumn("├── commander@12.1.0") == 0u);
  CHECK(TreeBranchColumn("│ ├─┬ accepts@1.3.8") == 2u);          // npm ls --all
  CHECK(TreeBranchColumn("│   └── utility.h") == 4u);              // tree
  CHECK(TreeBranchColumn("│\u00a0\u00a0 └──\u00a0x.h") == 4u);     // older tree: no-break spaces
  CHECK(TreeBranchColumn("|   `-- strings") == 4u);                 // tree --charset ascii
  CHECK(TreeBranchColumn("| +-- ms@2.0.0") == 2u);                  // npm ls --unicode=false
  CHECK(TreeBranchColumn("|    \\--- org.slf4j:slf4j-api:2.0.9") == 5u);  // gradle dependencies
  CHECK(TreeBranchColumn("    └── serde_derive v1.0.197 (proc-macro)") == 4u);  // cargo tree
  CHECK(TreeBranchColumn("link-checker@0.1.0 /srv/app") == std::nullopt);  // the root
  CHECK(TreeBranchColumn("- a bullet") == std::nullopt);
  CHECK(TreeBranchColumn("  - a bullet") == std::nullopt);
  CHECK(TreeBranchColumn("| a | b |") == std::nullopt);               // a table
  CHECK(TreeBranchColumn("|---|---|") == std::nullopt);
  CHECK(TreeBranchColumn("│   │   ") == std::nullopt);                // guides, no entry
  CHECK(TreeBranchColumn("├──") == std::nullopt);
  CHECK(TreeBranchColumn("--- a/src/x.c") == std::nullopt);           // a diff's header
}

// The summary lines that are no marker, without a "… N more under it" ending.
std::vector<std::string> ShownLines(std::string_view summary) {
  std::vector<std::string> shown;
  for (std::string_view line : core::SplitLines(summary)) {
    if (line.starts_with("… ")) continue;
    const size_t more = line.find(" … ");
    shown.emplace_back(line.substr(0, more));
  }
  return shown;
}

TEST_CASE("generic: a tree drawing shows its top levels, every problem with the entries above") {
  // npm ls --all of a project with an invalid, an extraneous and missing packages, at the top
  // and four levels down (tests/fixtures/build/npm-ls-problems, made by gen.sh npmls).
  const std::string output = testing::ReadFixture("build", "npm-ls-problems");
  const std::vector<std::string_view> lines = core::SplitLines(output);
  core::ShapeContext ctx{"npm ls --all", 1, output.size(), lines.size(), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(output, ctx);
  REQUIRE(shaped.ok());
  REQUIRE(shaped->render_mode == RenderMode::kSummary);
  const std::string& s = shaped->summary;
  CHECK(core::SplitLines(s)[0] ==
        "npm ls: FAILED (exit 1), a tree of 133 entries: the first 2 levels, and 7 marked as "
        "problems with the entries above them; 95 deeper ones counted on the entry above them");
  const std::vector<std::string> shown = ShownLines(s);
  auto is_shown = [&](std::string_view line) {
    return std::find(shown.begin(), shown.end(), line) != shown.end();
  };
  size_t first_two = 0, problems = 0;
  std::vector<std::string_view> above;  // the entries above the current line
  for (std::string_view line : lines) {
    const std::optional<size_t> column = TreeBranchColumn(line);
    if (!column) {
      // The root and npm's messages: all kept.
      if (!Trim(line).empty()) CHECK_MESSAGE(is_shown(line), line);
      continue;
    }
    while (!above.empty() && *TreeBranchColumn(above.back()) >= *column) above.pop_back();
    if (*column <= 2) {
      ++first_two;
      CHECK_MESSAGE(is_shown(line), line);
    }
    if (line.find("UNMET DEPENDENCY") != std::string_view::npos ||
        line.find(" invalid") != std::string_view::npos ||
        line.find(" extraneous") != std::string_view::npos) {
      ++problems;
      CHECK_MESSAGE(is_shown(line), line);
      for (std::string_view a : above) CHECK_MESSAGE(is_shown(a), a);
    } else if (*column > 2) {
      CHECK_MESSAGE(!is_shown(line), line);
    }
    above.push_back(line);
  }
  CHECK(first_two == 35);
  CHECK(problems == 7);
  // What is not shown is counted on the entry above it.
  CHECK(Contains(s, "│ ├─┬ body-parser@1.20.9 … 16 more under it\n"
                    "│ │ ├── UNMET DEPENDENCY depd@2.0.0\n"));
  CHECK(Contains(s, "│ ├─┬ accepts@1.3.8 … 3 more under it\n│ ├── array-flatten@1.1.1\n"));
  // npm ls is a package manager's command: the build shaper gives it the same summary.
  auto built = MakeBuildShaper()->Shape(output, ctx);
  REQUIRE(built.ok());
  CHECK(built->summary == s);
}

TEST_CASE("generic: tree's listing of a folder shows the first level that fits, the rest counted") {
  // `tree absl` in /usr/include (tests/fixtures/generic/tree-absl): 19 folders, 353 entries.
  const std::string output = testing::ReadFixture("generic", "tree-absl");
  core::ShapeContext ctx{"tree absl", 0, output.size(), core::CountLines(output), "/s/a.log"};
  auto shaped = MakeGenericShaper()->Shape(output, ctx);
  REQUIRE(shaped.ok());
  const std::vector<std::string_view> s = core::SplitLines(shaped->summary);
  REQUIRE(s.size() == 23);
  CHECK(s[0] == "tree: a tree of 353 entries: the first level; 334 deeper ones counted on the "
                "entry above them");
  CHECK(s[1] == "absl");
  CHECK(s[2] == "├── algorithm … 2 more under it");
  CHECK(s[16] == "├── strings … 60 more under it");
  CHECK(s[20] == "└── utility … 1 more under it");
  CHECK(s[21] == "40 directories, 314 files");
  CHECK(s[22] == "… 1 blank line omitted");
  // A tree whose levels all fit is shown as it is (a short output).
  std::string small = "absl\n";
  for (int i = 0; i < 25; ++i) {
    StrAppend(&small, i == 24 ? "└── " : "├── ", "dir", i, "\n");
  }
  core::ShapeContext small_ctx{"tree absl", 0, small.size(), 26, "/s/a.log"};
  auto raw = MakeGenericShaper()->Shape(small, small_ctx);
  REQUIRE(raw.ok());
  CHECK(raw->render_mode == RenderMode::kRaw);
}

TEST_CASE("generic: a tree entry named like a problem is no problem, a mark after a name is") {
  // Three folders of 30 files each: only the first level fits. Files named "missing",
  // "missing_deps.py", "invalid-input.txt" are entries like any; "x@1.0.0 invalid: …" and
  // "y@2.0.0 extraneous" are marked by the tool.
  std::string out = "project\n";
  for (int d = 0; d < 3; ++d) {
    StrAppend(&out, d == 2 ? "└── " : "├── ", "dir", d, "\n");
    const std::string_view bar = d == 2 ? "    " : "│   ";
    for (int f = 0; f < 30; ++f) {
      std::string name = StrCat("file", f, ".txt");
      if (d == 0 && f == 3) name = "missing";
      if (d == 0 && f == 4) name = "missing_deps.py";
      if (d == 1 && f == 5) name = "invalid-input.txt";
      if (d == 1 && f == 6) name = "x@1.0.0 invalid: \"^2.0.0\" from the root project";
      if (d == 2 && f == 7) name = "y@2.0.0 extraneous";
      StrAppend(&out, bar, f == 29 ? "└── " : "├── ", name, "\n");
    }
  }
  const std::string s = ShapeGeneric("tree project", out);
  INFO(s);
  CHECK(Contains(s, "x@1.0.0 invalid: \"^2.0.0\" from the root project\n"));
  CHECK(Contains(s, "y@2.0.0 extraneous\n"));
  CHECK_FALSE(Contains(s, "── missing\n"));
  CHECK_FALSE(Contains(s, "missing_deps.py"));
  CHECK_FALSE(Contains(s, "invalid-input.txt"));
}

TEST_CASE("generic: git bisect's answer heads its summary, with the commit it names") {
  // `git bisect run ./t.sh`: its steps, then the answer and the commit's header and diffstat.
  std::string output = "running  './t.sh'\n";
  const char* hashes[] = {
      "55cbfa88e7668f89194811979ebfbc6e0ef1508b", "3c57d265609c819d0e15f9c5746bd153af45e12e",
      "69af61328a39876a30b51e3f5ff95da90eb365f1", "691109c4584514d1d52953c0d97fb9ca522b5ba3"};
  for (int step = 0; step < 4; ++step) {
    StrAppend(&output, "checking ", std::string(hashes[step]).substr(0, 7), "\nFAIL: found\n",
              "Bisecting: ", 50 >> step, " revisions left to test after this (roughly ", 6 - step,
              " steps)\n[", hashes[step], "] a change number ", step, "\nrunning  './t.sh'\n");
  }
  StrAppend(&output,
            "98e987652e2bd1e41c04ff0d70a17514bb885bfa is the first bad commit\n"
            "commit 98e987652e2bd1e41c04ff0d70a17514bb885bfa\n"
            "Author: Dev One <dev@example.org>\nDate:   Fri Dec 4 11:34:47 2026 +0000\n\n"
            "    builtin-test: RSpec and PHPUnit parsed as test runners\n\n");
  for (int i = 0; i < 60; ++i) StrAppend(&output, " tests/fixtures/t", i, ".out | 8 +\n");
  StrAppend(&output, " 60 files changed, 480 insertions(+)\nbisect found first bad commit\n");
  const std::string s = ShapeGeneric("git bisect run ./t.sh", output);
  INFO(s);
  CHECK(
      s.starts_with("git bisect: 98e987652e2bd1e41c04ff0d70a17514bb885bfa is the first bad "
                    "commit, exit 0, "));
  CHECK(Contains(s,
                 "\n98e987652e2bd1e41c04ff0d70a17514bb885bfa is the first bad commit\n"
                 "commit 98e987652e2bd1e41c04ff0d70a17514bb885bfa\n"
                 "Author: Dev One <dev@example.org>\n"));
  CHECK(Contains(s, "\n    builtin-test: RSpec and PHPUnit parsed as test runners\n"));
}

TEST_CASE("generic: every message that ends where it is (Perl's 'at x.pl line 5.') is kept") {
  // perl -wc: one line per undeclared variable, alike but for the name and the line number.
  std::string output;
  for (int i = 0; i < 70; ++i) {
    StrAppend(&output, "Global symbol \"$total", i, "\" requires explicit package name (did you ",
              "forget to declare \"my $total", i, "\"?) at lib/report.pl line ", 3 + 2 * i, ".\n");
  }
  StrAppend(&output, "lib/report.pl had compilation errors.\n");
  const std::string s = ShapeGeneric("perl -wc lib/report.pl", output);
  INFO(s);
  for (int i = 0; i < 70; ++i)
    CHECK(Contains(s, StrCat(" at lib/report.pl line ", 3 + 2 * i, ".\n")));
  // A number after "line" tells lines apart: no fold of such lines drops where each one is.
  std::string words;
  for (int i = 0; i < 40; ++i) {
    StrAppend(&words, "Use of uninitialized value in concatenation at lib/a.pm line ", 10 + i,
              ".\n");
  }
  const std::string w = ShapeGeneric("perl t.pl", words);
  INFO(w);
  for (int i = 0; i < 40; ++i) CHECK(Contains(w, StrCat(" at lib/a.pm line ", 10 + i, ".\n")));
}

TEST_CASE("generic: a Python syntax error kept from the middle comes with its File line") {
  // python3 -m compileall: a line per module, and for a broken one its location, the source
  // line, a caret and the error, a few lines below.
  std::string output = "Listing 'pkg'...\n";
  for (int i = 0; i < 120; ++i) {
    StrAppend(&output, "Compiling 'pkg/mod", 100 + i, ".py'...\n");
    if (i % 15 == 7) {
      StrAppend(&output, "***   File \"pkg/mod", 100 + i, ".py\", line ", 3 + i % 4, "\n",
                "    x = 'unterminated\n        ^\n",
                "SyntaxError: unterminated string literal (detected at line ", 3 + i % 4, ")\n\n");
    }
  }
  const std::string s = ShapeGeneric("python3 -m compileall -f pkg", output);
  INFO(s);
  for (int i = 7; i < 120; i += 15) {
    CHECK(Contains(s, StrCat("***   File \"pkg/mod", 100 + i, ".py\", line ", 3 + i % 4, "\n")));
  }
}

TEST_CASE("generic: a failed response kept from the middle comes with its request's line") {
  // A Rails log: each request's "Started …" line, a few lines above its "Completed …".
  std::string output;
  for (int i = 0; i < 200; ++i) {
    const bool fails = i == 120;
    StrAppend(&output, "Started ", fails ? "POST \"/orders\"" : "GET \"/products\"", " for 10.1.0.",
              i, " at 2026-12-07 12:04:10 +0000\n",
              "Processing by ProductsController#index as HTML\n", "  Parameters: {\"page\"=>\"", i,
              "\"}\n",
              fails ? "Completed 500 Internal Server Error in 31ms\n\nNoMethodError (undefined "
                      "method `price' for nil:NilClass):\n\n"
                    : "Completed 200 OK in 46ms\n\n");
  }
  const std::string s = ShapeGeneric("tail -n 3000 log/production.log", output);
  INFO(s);
  CHECK(Contains(s, "\nStarted POST \"/orders\" for 10.1.0.120 at 2026-12-07 12:04:10 +0000\n"));
  CHECK(Contains(s, "\nCompleted 500 Internal Server Error in 31ms\n"));
}

}  // namespace
}  // namespace plugline::builtin

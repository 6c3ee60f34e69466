// Runs the real `plugline` binary as a user would.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>

#include <optional>
#include <thread>

#include "absl/time/clock.h"

#include "absl/strings/match.h"
#include "core/json.h"
#include "core/fs.h"
#include "core/strings.h"
#include "core/text.h"
#include "exec/process.h"
#include "cli/cli_runner.h"
#include "test_util.h"

namespace plugline::cli {
namespace {

using plugline::testing::Contains;
using plugline::testing::WriteFile;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;

using plugline::testing::Cli;

std::string Last(std::string_view text) {
  auto lines = core::SplitLines(text);
  return lines.empty() ? "" : std::string(lines.back());
}

TEST_CASE("plugline run prints a head/tail summary and stores the raw output byte for byte") {
  Cli cli;
  auto run = cli.Run({"run", "--", "seq", "1", "1000"});
  CHECK(run.exit_status == 0);
  std::string last = Last(run.output);
  REQUIRE(absl::StartsWith(last, "full output: " + cli.home.path() + "/outputs/"));
  std::string raw_path = last.substr(std::string("full output: ").size());
  std::string expected;
  for (int i = 1; i <= 1000; ++i) StrAppend(&expected, i, "\n");
  CHECK(ReadFileOrEmpty(raw_path) == expected);
  // Lines alike but for their numbers: the first and the last, the others counted.
  CHECK(run.output.starts_with("seq: exit 0, 1,000 lines\n1\n"
                               "… 998 lines like the ones around, but for their numbers, omitted\n"
                               "1000\n"));
}

TEST_CASE("plugline run: the stored output a summary names reads back as it is, and so does a source file") {
  Cli cli;
  auto run = cli.Run({"run", "--", "seq", "1", "1000"});
  REQUIRE(run.exit_status == 0);
  const std::string raw_path = Last(run.output).substr(std::string("full output: ").size());
  // The lines the summary left out, asked for from the stored file: not shaped again.
  auto lines = cli.Run({"run", "--", "sed", "-n", "31,400p", raw_path});
  CHECK(lines.exit_status == 0);
  std::string expected;
  for (int i = 31; i <= 400; ++i) StrAppend(&expected, i, "\n");
  CHECK(lines.output == expected);
  auto whole = cli.Run({"shape", "--command", "cat " + raw_path, "--json"}, "", ReadFileOrEmpty(raw_path));
  auto doc = core::ParseJson(whole.output, "plugline shape --json");
  REQUIRE(doc.ok());
  CHECK(doc->Find("render_mode")->as_string() == "raw");
  // A source file printed: the file, not a head and a tail of it.
  TempDir dir;
  std::string source;
  for (int i = 1; i <= 300; ++i) StrAppend(&source, "def f", i, "(x):\n    return x + ", i, "\n\n");
  WriteFile(dir.path() + "/big.py", source);
  auto cat = cli.Run({"run", "--", "cat", dir.path() + "/big.py"});
  CHECK(cat.exit_status == 0);
  CHECK(cat.output == source);
}

TEST_CASE("plugline run: a secret the command prints reaches neither the summary nor the stored file") {
  for (bool server : {false, true}) {
    CAPTURE(server);
    Cli cli;
    cli.server = server;
    // A failing script that prints its environment, a .env file and a curl trace: 300 lines,
    // so the output is summarized and stored.
    const std::string script =
        "for i in $(seq 1 300); do echo \"line $i\"; done; "
        "echo 'DB_PASSWORD=hunter2-db'; echo 'export OPENAI_KEY=sk-proj-a1B2c3D4e5F6g7H8i9J0'; "
        "echo '> Authorization: Bearer 9f8e7d6c5b4a3210'; echo 'Error: upload failed'; exit 3";
    auto run = cli.Run({"run", "--", "sh", "-c", script});
    CHECK(run.exit_status == 3);
    const std::string raw_path = Last(run.output).substr(std::string("full output: ").size());
    const std::string stored = ReadFileOrEmpty(raw_path);
    REQUIRE(stored.find("line 300") != std::string::npos);
    for (const std::string& text : {run.output, stored}) {
      CHECK(text.find("hunter2") == std::string::npos);
      CHECK(text.find("a1B2c3D4e5F6") == std::string::npos);
      CHECK(text.find("9f8e7d6c5b4a3210") == std::string::npos);
      CHECK(text.find("DB_PASSWORD=[redacted]") != std::string::npos);
      CHECK(text.find("Bearer [redacted]") != std::string::npos);
      CHECK(text.find("Error: upload failed") != std::string::npos);
    }
  }
}

TEST_CASE("plugline run exits with the command's exit code, signals as 128+n") {
  Cli cli;
  CHECK(cli.Run({"run", "--", "sh", "-c", "echo failing; exit 3"}).exit_status == 3);
  CHECK(cli.Run({"run", "sh", "-c", "kill -KILL $$"}).exit_status == 128 + 9);
}

TEST_CASE("a command that does not exist: 127 and a clear message") {
  Cli cli;
  auto run = cli.Run({"run", "--", "plugline-definitely-missing", "--flag"});
  CHECK(run.exit_status == 127);
  CHECK(run.error_output == "plugline: command not found: plugline-definitely-missing\n");
}

TEST_CASE("interleaved stdout and stderr keep their order in the raw file") {
  Cli cli;
  auto run = cli.Run({"run", "--json", "--", "sh", "-c",
                      "for i in $(seq 1 100); do echo out$i; echo err$i >&2; done"});
  auto json = core::ParseJson(run.output, "plugline run --json");
  REQUIRE(json.ok());
  std::string expected;
  for (int i = 1; i <= 100; ++i) StrAppend(&expected, "out", i, "\nerr", i, "\n");
  CHECK(ReadFileOrEmpty(json->Find("raw_path")->as_string()) == expected);
  CHECK(json->Find("raw_lines")->as_integer() == 200);
  CHECK(json->Find("shaper")->as_string() == "builtin-generic");
}

TEST_CASE("NUL bytes and invalid UTF-8: raw file exact, JSON valid") {
  Cli cli;
  auto run = cli.Run({"run", "--json", "--", "printf", "a\\000b\\377\\376c\\n"});
  auto json = core::ParseJson(run.output, "plugline run --json");
  REQUIRE(json.ok());
  CHECK(ReadFileOrEmpty(json->Find("raw_path")->as_string()) ==
        std::string("a\0b\xff\xfe" "c\n", 7));
  CHECK(json->Find("render_mode")->as_string() == "raw");
}

TEST_CASE("--raw passes output through unchanged and stores nothing") {
  Cli cli;
  auto run = cli.Run({"run", "--raw", "--", "seq", "1", "500"});
  CHECK(core::CountLines(run.output) == 500);
  CHECK_FALSE(core::PathExists(cli.home.path() + "/outputs"));
}

TEST_CASE("an unusable PLUGLINE_HOME: the command still runs, output shown in full, warning") {
  Cli cli;
  plugline::testing::WriteFile(cli.home.Sub("a-file"), "x");
  auto run = cli.Run({"run", "--", "seq", "1", "500"}, cli.home.Sub("a-file"));
  CHECK(run.exit_status == 0);
  CHECK(core::CountLines(run.output) == 500);
  CHECK(run.error_output.find("raw output could not be stored") != std::string::npos);
}

TEST_CASE("plugline run without a JS plugin never loads V8") {
  Cli cli;
  // The child prints its parent's memory map: the plugline process itself.
  auto run = cli.Run({"run", "--raw", "--", "sh", "-c", "cat /proc/$PPID/maps"});
  REQUIRE(run.output.find("plugline") != std::string::npos);  // it is plugline's map
  CHECK(run.output.find("libnode") == std::string::npos);
  CHECK(run.output.find("libplugline-v8") == std::string::npos);
}

// Runs `plugline shape` with the dynamic loader reporting every library it loads (dlopen too).
std::string LoadedLibraries(Cli& cli) {
  exec::ProcessSpec spec;
  spec.argv = {plugline::testing::BinDir() + "/plugline", "shape", "--command", "terra plan"};
  spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"LD_DEBUG", "files"}, {"PLUGLINE_SERVER", "0"}};
  spec.stdin_data = "one\ntwo\n";
  spec.merge_output = false;
  spec.timeout = absl::Seconds(60);
  auto result = exec::RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->exit_status == 0);
  return result->error_output;
}

TEST_CASE("shaping loads V8 only when a JS plugin is installed") {
  Cli cli;
  std::string without = LoadedLibraries(cli);
  REQUIRE(without.find("libc.so") != std::string::npos);  // LD_DEBUG did report
  CHECK(without.find("libnode") == std::string::npos);
  CHECK(without.find("libplugline-v8") == std::string::npos);
#if PLUGLINE_TEST_WITH_V8
  plugline::testing::WriteFile(cli.home.Sub("plugins/terra.js"), R"(export default {
  meta: { name: "terra", version: "1", description: "d", tier: "community" },
  match(c) { return { matched: c.startsWith("terra"), confidence: 0.9 }; },
  shape() { return { summary: "t" }; },
};)");
  std::string with = LoadedLibraries(cli);
  CHECK(with.find("libnode") != std::string::npos);
#endif
}

#if PLUGLINE_TEST_WITH_V8
TEST_CASE("plugline run: a JS shaper loads while the command runs and shapes its output") {
  for (const char* isolation : {"in-process", "process"}) {
    CAPTURE(isolation);
    Cli cli;
    plugline::testing::WriteFile(cli.home.Sub("config.yaml"),
                                 StrCat("plugins:\n  js:\n    isolation: ", isolation, "\n"));
    plugline::testing::WriteFile(cli.home.Sub("plugins/counter.js"), R"(export default {
  meta: { name: "counter", version: "1", description: "d", tier: "community" },
  match(c) { return /\bcount-me\b/.test(c) ? { matched: true, confidence: 0.99 } : { matched: false }; },
  shape(output, ctx) { return { summary: `counted ${ctx.outputLines} lines, exit ${ctx.exitCode}` }; },
};)");
    auto run = cli.Run({"run", "--", "sh", "-c", "sleep 0.2; seq 300; exit 3", "count-me"});
    CHECK(run.exit_status == 3);
    CHECK(absl::StartsWith(run.output, "counted 300 lines, exit 3\n"));
    CHECK(run.error_output.empty());
  }
}
#endif

TEST_CASE("plugline plugins lists built-ins and plugins, broken ones with their reason") {
  Cli cli;
  plugline::testing::WriteFile(cli.home.Sub("plugins/broken.js"), "export default {\n  meta: ,\n};\n");
  auto listing = cli.Run({"plugins"});
  CHECK(listing.exit_status == 0);
  CHECK(listing.output.find("builtin-test") != std::string::npos);
  CHECK(listing.output.find("broken.js") != std::string::npos);
  auto json = cli.Run({"plugins", "--json"});
  CHECK(json.exit_status == 0);
  auto value = core::ParseJson(json.output, "plugins --json");
  REQUIRE(value.ok());
  const core::Value* plugins = value->Find("plugins");
  REQUIRE(plugins != nullptr);
  bool found = false;
  for (const core::Value& p : plugins->as_array()) {
    if (p.Find("id")->as_string() != "broken") continue;
    found = true;
    CHECK(p.Find("state")->as_string() == "broken");
    CHECK(p.Find("kind")->as_string() == "js-shaper");
#if PLUGLINE_TEST_WITH_V8
    CHECK(p.Find("reason")->as_string().find("broken.js:2") != std::string::npos);
#else
    CHECK(p.Find("reason")->as_string().find("without V8") != std::string::npos);
#endif
  }
  CHECK(found);
  CHECK(cli.Run({"plugins", "--bogus"}).exit_status == 2);
}

TEST_CASE("plugline hook: payload from stdin or --payload, result JSON, 3 when denied") {
  Cli cli;
  plugline::testing::WriteFile(cli.home.Sub("plugins/no-rm/plugin.yaml"),
                               "name: no-rm\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
  plugline::testing::WriteFile(cli.home.Sub("plugins/no-rm/run.sh"), R"sh(#!/bin/sh
case "$(cat)" in
  *'rm -rf'*) echo '{"deny":true,"reason":"no rm -rf"}' ;;
  *) echo '{"notice":"checked"}' ;;
esac
)sh");
  ::chmod(cli.home.Sub("plugins/no-rm/run.sh").c_str(), 0755);
  const std::string rm = R"({"tool":"terminal","arguments":"{\"command\":\"rm -rf /\"}"})";
  auto denied = cli.Run({"hook", "pre_tool_call"}, "", rm);
  CHECK(denied.exit_status == 3);
  auto value = core::ParseJson(denied.output, "hook");
  REQUIRE(value.ok());
  CHECK(value->Find("denied")->as_bool());
  CHECK(value->Find("denied_by")->as_string() == "no-rm");
  CHECK(value->Find("reason")->as_string() == "no rm -rf");

  plugline::testing::WriteFile(cli.home.Sub("ls.json"),
                               R"({"tool":"terminal","arguments":"{\"command\":\"ls\"}"})");
  auto allowed = cli.Run({"hook", "pre_tool_call", "--payload", cli.home.Sub("ls.json")});
  CHECK(allowed.exit_status == 0);
  CHECK(allowed.output.find(R"("notices":[{"plugin":"no-rm","text":"checked"}])") !=
        std::string::npos);
  // Nothing on stdin is an empty payload; observe-only events reach no pre_tool_call plugin.
  auto empty = cli.Run({"hook", "session_start"}, "", "");
  CHECK(empty.exit_status == 0);
  CHECK(empty.output.find(R"("plugins":[])") != std::string::npos);

  auto bad = cli.Run({"hook", "pre_tool_call"}, "", "{not json");
  CHECK(bad.exit_status == 2);
  CHECK(bad.error_output.find("the payload (standard input)") != std::string::npos);
  auto missing = cli.Run({"hook", "pre_tool_call", "--payload", cli.home.Sub("nope.json")});
  CHECK(missing.exit_status == 1);
  CHECK(missing.error_output.find("nope.json") != std::string::npos);
  CHECK(cli.Run({"hook"}).exit_status == 2);
  CHECK(cli.Run({"hook", "a", "b"}).exit_status == 2);
  CHECK(cli.Run({"hook", "a", "--bogus"}).exit_status == 2);
}

TEST_CASE("plugline shape reads stdin, --shaper forces one, unknown shaper is an error") {
  Cli cli;
  exec::ProcessSpec spec;
  spec.argv = {plugline::testing::BinDir() + "/plugline", "shape", "--command", "my-tool",
               "--exit-code", "2", "--json", "--shaper", "builtin-generic"};
  spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
  std::string input;
  for (int i = 0; i < 400; ++i) StrAppend(&input, "compiling unit ", i, "\n");
  spec.stdin_data = input;
  spec.merge_output = false;
  auto result = exec::RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->exit_status == 0);
  auto json = core::ParseJson(result->output, "plugline shape --json");
  REQUIRE(json.ok());
  CHECK(json->Find("shaper")->as_string() == "builtin-generic");
  CHECK(json->Find("raw_lines")->as_integer() == 400);
  CHECK(ReadFileOrEmpty(json->Find("raw_path")->as_string()) == input);

  auto unknown = cli.Run({"shape", "--command", "x", "--shaper", "nope"});
  CHECK(unknown.exit_status == 2);
  CHECK(unknown.error_output.find("unknown shaper 'nope'") != std::string::npos);
}

TEST_CASE("plugline run and shape --max-tokens: the summary fits the budget and says what it cut") {
  Cli cli;
  std::string script = "i=0; while [ $i -lt 300 ]; do "
                       "echo \"tests/test_$i.py::test_case_$i FAILED\"; "
                       "echo \"E   assert $i == 1\"; "
                       "echo \"    context of failure $i as the runner printed it, padded out\"; "
                       "i=$((i+1)); done; exit 1";
  auto run = cli.Run({"run", "--json", "--max-tokens", "500", "--", "sh", "-c", script});
  CHECK(run.exit_status == 1);
  auto json = core::ParseJson(run.output, "plugline run --json");
  REQUIRE_MESSAGE(json.ok(), run.output, run.error_output);
  CHECK(json->Find("max_tokens")->as_integer() == 500);
  CHECK(*json->Find("tokens_summary")->as_integer() <= 500);
  CHECK(*json->Find("budget_lines_left_out")->as_integer() > 0);
  CHECK(json->Find("token_counter")->as_string() == "o200k_base");
  const std::string summary = json->Find("summary")->as_string();
  CHECK(summary.starts_with("sh: FAILED (exit 1), 900 lines\n"));
  CHECK(Contains(summary, "\ntests/test_0.py::test_case_0 FAILED\n"));
  CHECK(Contains(summary, " failures, errors or locations did not fit: tests/test_"));
  CHECK(Contains(summary, "… cut to the 500-token budget: "));
  CHECK(Contains(summary, "\nfull output: "));

  auto bad = cli.Run({"shape", "--command", "x", "--max-tokens", "lots"});
  CHECK(bad.exit_status == 2);
  CHECK(Contains(bad.error_output, "--max-tokens needs a whole number of tokens"));
  // As shaping.max_summary_tokens: 0 or at least 200.
  auto small = cli.Run({"shape", "--command", "x", "--max-tokens", "100"});
  CHECK(small.exit_status == 2);
  CHECK(Contains(small.error_output, "--max-tokens 100: expected 0 (no budget) or at least 200"));
}

TEST_CASE("plugline tokens counts files with the real vocabulary, and names it") {
  Cli cli;
  const std::string file = cli.home.Sub("text.txt");
  WriteFile(file, "hello world");
  auto counted = cli.Run({"tokens", "--json", file});
  CHECK(counted.exit_status == 0);
  auto json = core::ParseJson(counted.output, "plugline tokens --json");
  REQUIRE_MESSAGE(json.ok(), counted.output, counted.error_output);
  REQUIRE(json->as_array().size() == 1);
  CHECK(json->as_array()[0].Find("tokens")->as_integer() == 2);
  CHECK(json->as_array()[0].Find("tokenizer")->as_string() == "o200k_base");
  auto estimate = cli.Run({"tokens", "--tokenizer", "estimate", file});
  CHECK(estimate.exit_status == 0);
  CHECK(Contains(estimate.output, "\t" + file));
  CHECK(cli.Run({"tokens", "--tokenizer", "p50k_base", file}).exit_status == 2);
  CHECK(cli.Run({"tokens", cli.home.Sub("missing")}).exit_status == 1);
}

TEST_CASE("usage errors exit 2 with the usage text") {
  Cli cli;
  auto none = cli.Run({"run"});
  CHECK(none.exit_status == 2);
  CHECK(none.error_output.find("usage: plugline") != std::string::npos);
  CHECK(cli.Run({"frobnicate"}).exit_status == 2);
  auto version = cli.Run({"version"});
  CHECK(version.output.rfind("plugline 0.", 0) == 0);
}

TEST_CASE("a real failing pytest run keeps its exit code and its failure") {
  Cli cli;
  std::string project = plugline::testing::SourceDir() + "/../examples/projects/pytest-failing";
  auto run = cli.Run({"run", "--json", "--", "/usr/bin/python3", "-m", "pytest", "-p",
                      "no:cacheprovider", project});
  CHECK(run.exit_status == 1);
  auto json = core::ParseJson(run.output, "pytest result");
  REQUIRE(json.ok());
  std::string raw = ReadFileOrEmpty(json->Find("raw_path")->as_string());
  CHECK(raw.find("FAILED") != std::string::npos);
  CHECK(json->Find("summary")->as_string().find("test_discount_is_capped") != std::string::npos);
}

}  // namespace
}  // namespace plugline::cli

namespace plugline::cli {
namespace {

TEST_CASE("plugline run forwards SIGTERM to the command and exits with its code") {
  Cli cli;
  exec::ProcessSpec spec;
  spec.argv = {plugline::testing::BinDir() + "/plugline", "run", "--", "sh", "-c",
               "trap 'echo got TERM; exit 42' TERM; sleep 30 & wait"};
  spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
  spec.timeout = absl::Seconds(20);
  std::thread killer;
  spec.on_spawn = [&](int pid) {
    killer = std::thread([pid] {
      absl::SleepFor(absl::Milliseconds(700));
      ::kill(pid, SIGTERM);
    });
  };
  auto result = exec::RunProcess(spec);
  killer.join();
  REQUIRE(result.ok());
  CHECK_FALSE(result->timed_out);
  CHECK(result->exit_status == 42);
  CHECK(result->output.find("got TERM") != std::string::npos);
}

// A signal sent the moment the command has started (here by the command itself, to plugline)
// reaches the command: plugline forwards signals from before the command exists, and does not
// die of one and leave the command behind.
TEST_CASE("plugline run forwards a signal sent to it as soon as the command starts") {
  for (int signal_number : {SIGQUIT, SIGTERM}) {
    CAPTURE(signal_number);
    Cli cli;
    exec::ProcessSpec spec;
    spec.argv = {plugline::testing::BinDir() + "/plugline", "run", "--", "sh", "-c",
                 "trap 'echo got $0; exit 42' QUIT TERM; kill -s " +
                     std::string(signal_number == SIGQUIT ? "QUIT" : "TERM") +
                     " $PPID; sleep 30 & wait",
                 "signal"};
    spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
    spec.timeout = absl::Seconds(20);
    auto result = exec::RunProcess(spec);
    REQUIRE(result.ok());
    CHECK_FALSE(result->timed_out);
    CHECK(result->term_signal == 0);
    CHECK(result->exit_status == 42);
    CHECK(result->output.find("got signal") != std::string::npos);
  }
}

// SIGINT and SIGQUIT sent by someone else than the terminal (a supervisor, `kill`), and SIGHUP,
// reach the command, which decides what they mean; plugline reports its exit.
TEST_CASE("plugline run forwards SIGINT, SIGHUP and SIGQUIT sent to it to the command") {
  for (int signal_number : {SIGINT, SIGHUP, SIGQUIT}) {
    CAPTURE(signal_number);
    Cli cli;
    const std::string ready = cli.home.Sub("ready");
    exec::ProcessSpec spec;
    spec.argv = {plugline::testing::BinDir() + "/plugline", "run", "--", "sh", "-c",
                 StrCat("trap 'echo got $0; exit 40' INT; trap 'echo got $0; exit 41' HUP; "
                        "trap 'echo got $0; exit 42' QUIT; touch '", ready, "'; sleep 30 & wait"),
                 "signal"};
    spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
    spec.timeout = absl::Seconds(20);
    std::thread killer;
    spec.on_spawn = [&](int pid) {
      killer = std::thread([pid, ready, signal_number] {
        // Once the command's traps are set (bounded: the test fails, not hangs, without it).
        for (int i = 0; i < 1000 && !core::PathExists(ready); ++i) {
          absl::SleepFor(absl::Milliseconds(10));
        }
        ::kill(pid, signal_number);
      });
    };
    auto result = exec::RunProcess(spec);
    killer.join();
    REQUIRE(result.ok());
    CHECK_FALSE(result->timed_out);
    CHECK(result->exit_status ==
          (signal_number == SIGINT ? 40 : signal_number == SIGHUP ? 41 : 42));
    CHECK(result->output.find("got signal") != std::string::npos);
  }
}

TEST_CASE("plugline run passes its stdin to the command") {
  Cli cli;
  exec::ProcessSpec spec;
  spec.argv = {plugline::testing::BinDir() + "/plugline", "run", "--", "wc", "-l"};
  spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
  spec.stdin_data = "one\ntwo\nthree\n";
  auto result = exec::RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->output == "3\n");
}

TEST_CASE("plugline run shows progress on a terminal for a long command, and only there") {
  Cli cli;
  // `script` gives plugline a pseudo-terminal as stdout and stderr.
  std::string command = plugline::testing::BinDir() +
                        "/plugline run -- sh -c 'echo started; sleep 3.2; echo finished'";
  exec::ProcessSpec spec;
  spec.argv = {"script", "-qfec", command, "/dev/null"};
  spec.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
  auto result = exec::RunProcess(spec);
  REQUIRE(result.ok());
  CHECK(result->output.find("plugline: running sh — ") != std::string::npos);
  CHECK(result->output.find("finished") != std::string::npos);
  // Without a terminal there is no progress line.
  auto piped = cli.Run({"run", "--", "sh", "-c", "sleep 2.5; echo finished"});
  CHECK(piped.error_output.find("running") == std::string::npos);
}

TEST_CASE("plugline stats counts shapings across processes") {
  Cli cli;
  std::vector<std::thread> runs;
  for (int i = 0; i < 6; ++i) {
    runs.emplace_back([&] { cli.Run({"run", "--", "seq", "1", "300"}); });
  }
  for (auto& run : runs) run.join();
  auto stats = cli.Run({"stats", "--json"});
  auto json = core::ParseJson(stats.output, "plugline stats --json");
  REQUIRE(json.ok());
  const core::Value* generic = json->Find("shapers")->Find("builtin-generic");
  REQUIRE(generic != nullptr);
  CHECK(generic->Find("shape_count")->as_integer() == 6);
  CHECK(generic->Find("tokens_saved")->as_number() > 0);
  auto table = cli.Run({"stats"});
  CHECK(table.output.find("builtin-generic") != std::string::npos);
}

#if PLUGLINE_TEST_WITH_V8
TEST_CASE("the command line answers an OpenCode plugin's app.log and tui.showToast, and names what it refuses") {
  Cli cli;
  WriteFile(cli.home.Sub("plugins/notes.js"), R"js(export default async ({ client }) => ({
  "experimental.text.complete": async (input, output) => {
    output.logged = await client.app.log({ body: { service: "notes", level: "warn",
                                                   message: "token=sk-abcdefghijklmnopqrstuvwxyz0123" } });
    output.toast = await client.tui.showToast({ body: { title: "Build", message: "done\u001b[31m",
                                                        variant: "success" } });
    try { await client.session.messages({ path: { id: "s1" } }); } catch (e) { output.refused = e.message; }
    output.shape = [typeof client.session.promptAsync, typeof client.tui.control.next,
                    typeof client.nope];
  },
});
)js");
  auto run = cli.Run({"trigger", "experimental.text.complete", "--input", "{}", "--output", "{}"});
  INFO(run.output, run.error_output);
  REQUIRE(run.exit_status == 0);
  auto json = core::ParseJson(run.output, "plugline trigger");
  REQUIRE(json.ok());
  const core::Value* output = json->Find("output");
  REQUIRE(output != nullptr);
  CHECK(output->Find("logged")->Find("data")->as_bool());
  CHECK(output->Find("toast")->Find("data")->as_bool());
  CHECK(Contains(output->Find("refused")->as_string(),
                 "client.session.messages() failed: the plugline command line has no OpenCode "
                 "server behind it: it answers app.log and tui.showToast, not session.messages"));
  CHECK(core::ToJson(*output->Find("shape")) == R"(["function","function","undefined"])");
  // The toast: one line on stderr, its escape sequence escaped.
  CHECK(Contains(run.error_output, "plugline: [success] Build: done\\x1b[31m\n"));
  // The log line: at the plugin's level, naming its service, the secret masked.
  const std::string log = ReadFileOrEmpty(cli.home.Sub("logs/plugline.log"));
  CHECK(Contains(log, " warn plugin notes: token="));
  CHECK(!Contains(log, "sk-abcdefghijklmnopqrstuvwxyz0123"));
}

TEST_CASE("plugline trigger catalog.transform runs OpenCode's documented V2 example") {
  Cli cli;
  WriteFile(cli.home.Sub("plugins/example.js"), R"js(import { define } from "@opencode-ai/plugin/v2/promise"
export const Plugin = define({
  id: "example",
  setup: async (ctx) => {
    await ctx.catalog.transform((catalog) => {
      catalog.provider.update("example", (provider) => { provider.name = "Example" })
    })
  },
})
)js");
  auto run = cli.Run({"trigger", "catalog.transform", "--input", R"({"providers":{}})"});
  INFO(run.output, run.error_output);
  REQUIRE(run.exit_status == 0);
  auto json = core::ParseJson(run.output, "plugline trigger");
  REQUIRE(json.ok());
  CHECK(json->Find("output")->Find("providers")->Find("example")->Find("provider")->Find("name")->as_string() ==
        "Example");
  auto listed = cli.Run({"plugins"});
  CHECK(Contains(listed.output, "catalog.transform, catalog.reload"));
}
#endif

}  // namespace
}  // namespace plugline::cli

// The real `plugline` binary against commands that print without end, huge inputs and
// payloads, and being killed: memory stays flat, the disk cap holds, nothing is left running.
#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/text.h"
#include "exec/process.h"
#include "test_util.h"

extern char** environ;

namespace plugline::cli {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

// The data segment plugline may use (RLIMIT_DATA, through `ulimit -d`): heap and anonymous
// mappings. Its outputs below are several times this; buffering them would abort. Not in a
// sanitizer build, whose shadow memory alone is past any such limit: there the tests check the
// output and the files only (the normal build checks the memory bound).
constexpr int kDataLimitKb = 64 * 1024;

std::string Plugline() { return plugline::testing::BinDir() + "/plugline"; }

// Runs `script` in sh with $PLUGLINE (the binary) and PLUGLINE_HOME set, under the memory limit.
exec::ProcessResult Limited(const TempDir& home, const std::string& script,
                            int data_limit_kb = kDataLimitKb) {
  exec::ProcessSpec spec;
  const std::string limit =
      plugline::testing::kNoDataLimitInThisBuild
          ? std::string()
          : StrCat("ulimit -d ", data_limit_kb, " || exit 99\n");
  spec.argv = {"sh", "-c", limit + script};
  spec.extra_env = {{"PLUGLINE_HOME", home.path()}, {"PLUGLINE", Plugline()}};
  spec.merge_output = false;
  spec.timeout = absl::Seconds(120);
  auto result = exec::RunProcess(spec);
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  return *result;
}

std::string LastLine(std::string_view text) {
  auto lines = core::SplitLines(text);
  return lines.empty() ? "" : std::string(lines.back());
}

// The raw file a summary's last line names.
std::string RawPath(std::string_view summary) {
  std::string last = LastLine(summary);
  size_t at = last.rfind(": /");
  return at == std::string::npos ? "" : last.substr(at + 2);
}

TEST_CASE("plugline run under a 64 MiB memory limit: 256 MiB of output, capped raw file") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "outputs:\n  max_file_mb: 1\n");
  SUBCASE("one endless line") {
    auto run =
        Limited(home, "exec \"$PLUGLINE\" run -- sh -c 'head -c 268435456 /dev/zero; exit 3'");
    CHECK(run.exit_status == 3);
    CHECK(run.term_signal == 0);
    CHECK(Contains(run.output,
                   "… the output (256.0 MiB, 1 line) was larger than the 8.0 MiB "
                   "shaping window"));
    CHECK(absl::StartsWith(LastLine(run.output),
                           "full output (the file holds only its first 1.0 MiB: "
                           "outputs.max_file_mb caps it at 1.0 MiB): "));
    CHECK(ReadFileOrEmpty(RawPath(run.output)) == std::string(1u << 20, '\0'));
  }
  SUBCASE("short lines, as `yes` prints them") {
    auto run = Limited(home, "exec \"$PLUGLINE\" run --json -- sh -c 'yes | head -c 134217728'");
    CHECK(run.exit_status == 0);
    auto json = core::ParseJson(run.output, "plugline run --json");
    REQUIRE_MESSAGE(json.ok(), run.output.substr(0, 300), run.error_output);
    CHECK(json->Find("raw_bytes")->as_integer() == 134217728);
    CHECK(json->Find("raw_lines")->as_integer() == 67108864);
    CHECK(json->Find("raw_stored_bytes")->as_integer() == 1 << 20);
    CHECK(json->Find("shaped_bytes")->as_integer() < 8 << 20);
    std::string raw = ReadFileOrEmpty(json->Find("raw_path")->as_string());
    CHECK(raw.size() == 1u << 20);
    CHECK(raw.starts_with("y\ny\n"));
  }
}

TEST_CASE("plugline run: below the disk cap the raw file is complete, byte for byte") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "outputs:\n  window_mb: 1\n");
  auto run = Limited(home, "exec \"$PLUGLINE\" run -- seq 1 3000000");
  CHECK(run.exit_status == 0);
  std::string expected;
  expected.reserve(23 << 20);
  for (int i = 1; i <= 3000000; ++i) StrAppend(&expected, i, "\n");
  CHECK(ReadFileOrEmpty(RawPath(run.output)) == expected);
  CHECK(Contains(run.output,
                 "… the output (21.8 MiB, 3,000,000 lines) was larger than the "
                 "1.0 MiB shaping window"));
  CHECK(absl::StartsWith(LastLine(run.output), "full output: "));
  CHECK(Contains(run.output, "\n3000000\n"));  // the tail
}

TEST_CASE("plugline run: an error in the middle of a huge output is in the summary") {
  TempDir home;
  auto run = Limited(home,
                     "exec \"$PLUGLINE\" run -- sh -c 'seq 1 2000000; "
                     "echo \"fatal: disk quota exceeded on /data\"; seq 1 2000000; exit 1'");
  CHECK(run.exit_status == 1);
  CHECK(Contains(run.output, "\nfatal: disk quota exceeded on /data\n"));
  CHECK(Contains(run.output, "omitted from the shaping window"));
  CHECK(absl::StartsWith(run.output, "sh: FAILED (exit 1), 4,000,001 lines\n"));
}

TEST_CASE("plugline shape reads a huge standard input through the same bounded path") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "outputs:\n  max_file_mb: 2\n");
  auto run = Limited(
      home, "head -c 268435456 /dev/zero | \"$PLUGLINE\" shape --command 'cat disk.img' --json");
  CHECK(run.exit_status == 0);
  auto json = core::ParseJson(run.output, "plugline shape --json");
  REQUIRE_MESSAGE(json.ok(), run.error_output);
  CHECK(json->Find("raw_bytes")->as_integer() == 268435456);
  CHECK(json->Find("raw_stored_bytes")->as_integer() == 2 << 20);
  CHECK(Contains(json->Find("summary")->as_string(), "shaping window"));
}

TEST_CASE("plugline hook refuses a payload over its limit, naming the source") {
  TempDir home;
  auto file = Limited(home, "exec \"$PLUGLINE\" hook pre_tool_call --payload /dev/zero");
  CHECK(file.exit_status == 2);
  CHECK(file.error_output ==
        "plugline: hook: the payload (/dev/zero) is larger than the 16.0 MiB limit\n");
  CHECK(file.output.empty());
  auto piped =
      Limited(home, "head -c 100000000 /dev/zero | \"$PLUGLINE\" hook post_tool_call --payload -");
  CHECK(piped.exit_status == 2);
  CHECK(piped.error_output ==
        "plugline: hook: the payload (standard input) is larger than the 16.0 MiB limit\n");
  // Just under the limit is a payload like any other (it is held whole, so more memory).
  std::string big =
      StrCat("{\"event\":\"post_tool_call\",\"result\":\"", std::string(15u << 20, 'r'), "\"}");
  WriteFile(home.Sub("big.json"), big);
  auto ok = Limited(
      home, StrCat("exec \"$PLUGLINE\" hook post_tool_call --payload ", home.Sub("big.json")),
      512 * 1024);
  CHECK(ok.exit_status == 0);
  CHECK(Contains(ok.output, "\"denied\":false"));
}

// A process is gone once it no longer exists or is a zombie nobody reaped yet.
bool Gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::string stat = ReadFileOrEmpty(StrCat("/proc/", pid, "/stat"));
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

TEST_CASE("a SIGKILLed plugline run does not leave its command running") {
  TempDir home;
  const std::string pid_file = home.Sub("child.pid");
  std::string plugline = Plugline();
  std::string script = StrCat("echo $$ > ", pid_file, ".tmp && mv ", pid_file, ".tmp ", pid_file,
                              " && exec sleep 60");
  std::vector<std::string> args = {plugline, "run", "--", "sh", "-c", script};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::string home_env = StrCat("PLUGLINE_HOME=", home.path());
  std::vector<char*> envp = {home_env.data()};
  for (char** e = environ; *e != nullptr; ++e) {
    if (!absl::StartsWith(*e, "PLUGLINE_HOME=")) envp.push_back(*e);
  }
  envp.push_back(nullptr);
  pid_t plugline_pid = 0;
  REQUIRE(::posix_spawn(&plugline_pid, plugline.c_str(), nullptr, nullptr, argv.data(),
                        envp.data()) == 0);
  pid_t child = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (child == 0 && absl::Now() < deadline) {
    std::string text = ReadFileOrEmpty(pid_file);
    if (!text.empty()) child = std::stoi(text);
    if (child == 0) absl::SleepFor(absl::Milliseconds(10));
  }
  REQUIRE(child > 0);
  REQUIRE_FALSE(Gone(child));
  REQUIRE(::kill(plugline_pid, SIGKILL) == 0);
  int status = 0;
  REQUIRE(::waitpid(plugline_pid, &status, 0) == plugline_pid);
  CHECK(WIFSIGNALED(status));
  const absl::Time gone_by = absl::Now() + absl::Seconds(10);
  while (!Gone(child) && absl::Now() < gone_by) absl::SleepFor(absl::Milliseconds(10));
  CHECK(Gone(child));
  if (!Gone(child)) ::kill(child, SIGKILL);
}

#if PLUGLINE_TEST_WITH_V8
TEST_CASE("plugline run: a JS shaper's OSC 52, colours and BEL never reach the terminal") {
  TempDir home;
  WriteFile(home.Sub("plugins/paint.js"), R"(export default {
  meta: { name: "paint", version: "1", description: "d", tier: "community" },
  match(c) { return { matched: c.includes("paint-me"), confidence: 0.99 }; },
  shape() {
    return { summary: "\x1b]52;c;cm0gLXJmIH4vKg==\x07\x1b[1;32mall good\x1b[0m\x07\r\n" +
                      "\x1b]0;owned\x07\x1b[2Jdone\x1b[?25l" };
  },
};)");
  exec::ProcessSpec spec;
  spec.argv = {Plugline(), "run", "--", "sh", "-c", "seq 200", "paint-me"};
  spec.extra_env = {{"PLUGLINE_HOME", home.path()}};
  spec.merge_output = false;
  spec.timeout = absl::Seconds(60);
  auto run = exec::RunProcess(spec);
  REQUIRE(run.ok());
  CHECK(run->exit_status == 0);
  CHECK(absl::StartsWith(run->output, "all good\ndone\nfull output: "));
  for (const std::string* text : {&run->output, &run->error_output}) {
    CHECK(text->find('\x1b') == std::string::npos);
    CHECK(text->find('\a') == std::string::npos);
    CHECK(text->find('\r') == std::string::npos);
  }
}
#endif

}  // namespace
}  // namespace plugline::cli

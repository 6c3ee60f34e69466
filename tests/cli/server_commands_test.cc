// Commands through the warm server, with the real binary: plugins keep their state between
// `plugline hook` commands, files added, edited, broken or removed are seen by the next
// command, `run` and `shape` print what they print in-process, nothing is lost when the
// server is killed, stopped, wedged or answers garbage, and the server hands over to another
// build or past its memory ceiling.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <regex>
#include <set>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "cli/cli_runner.h"
#include "core/json.h"
#include "core/strings.h"
#include "server/client.h"

namespace plugline::cli {
namespace {

using plugline::testing::Alive;
using plugline::testing::Cli;
using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::WriteFile;

bool WaitGone(int64_t pid) {
  for (int i = 0; i < 1000 && Alive(pid); ++i) absl::SleepFor(absl::Milliseconds(10));
  return !Alive(pid);
}

// `server status --json`, or a null Value when none runs.
core::Value Status(Cli& cli) {
  auto status = cli.Run({"server", "status", "--json"});
  auto json = core::ParseJson(status.output, "server status --json");
  REQUIRE_MESSAGE(json.ok(), status.output);
  if (!json->Find("running")->as_bool()) return core::Value();
  return *json;
}

int64_t Pid(const core::Value& status) {
  REQUIRE(status.is_object());
  return static_cast<int64_t>(status.Find("pid")->as_number());
}

// An OpenCode plugin that counts its calls in memory, says the count in the rewritten
// arguments, denies `rm -rf`, and writes the count to `marker` when it is disposed of.
[[maybe_unused]] std::string CounterPlugin(const std::string& marker, std::string_view tag = "a") {
  return StrCat(R"JS(let calls = 0;
export default async ({ $ }) => ({
  "tool.execute.before": async (input, output) => {
    calls += 1;
    if (String(output.args.command).startsWith("rm -rf")) throw new Error("no rm -rf (call " + calls + ")");
    output.args = { ...output.args, calls, tag: ")JS", tag, R"JS(" };
  },
  dispose: async () => { await $`sh -c ${"echo disposed after " + calls + " >> )JS", marker,
                R"JS("}`; },
});
)JS");
}

[[maybe_unused]] std::string HookPayload(std::string_view command) {
  core::JsonWriter args;
  args.BeginObject().Key("command").String(command).EndObject();
  core::JsonWriter w;
  w.BeginObject().Key("tool").String("bash").Key("arguments").String(args.Take()).EndObject();
  return w.Take();
}

core::Value HookAnswer(const exec::ProcessResult& run) {
  auto json = core::ParseJson(run.output, "hook answer");
  REQUIRE_MESSAGE(json.ok(), run.output, run.error_output);
  return *json;
}

// The rewritten arguments' `key`.
[[maybe_unused]] std::string Argument(const core::Value& answer, std::string_view key) {
  const core::Value* args = answer.Find("arguments");
  REQUIRE(args != nullptr);
  REQUIRE(args->is_string());
  auto parsed = core::ParseJson(args->as_string(), "arguments");
  REQUIRE(parsed.ok());
  const core::Value* v = parsed->Find(key);
  if (v == nullptr) return "";
  return v->is_string() ? v->as_string() : core::ToJson(*v);
}

#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: a plugin keeps its state across plugline hook commands, and dispose runs when the server stops") {
  Cli cli;
  cli.server = true;
  const std::string marker = cli.home.Sub("disposed.txt");
  WriteFile(cli.home.Sub("plugins/counter.js"), CounterPlugin(marker));
  // No server yet: the first command starts one (a JS plugin is enabled, `server: auto`).
  CHECK(Status(cli).is_null());
  for (int i = 1; i <= 3; ++i) {
    auto hook = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
    REQUIRE_MESSAGE(hook.exit_status == 0, hook.error_output);
    CHECK(hook.error_output == "");
    CHECK(Argument(HookAnswer(hook), "calls") == StrCat(i));
  }
  auto denied = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("rm -rf /"));
  CHECK(denied.exit_status == 3);
  CHECK(HookAnswer(denied).Find("reason")->as_string() == "no rm -rf (call 4)");
  core::Value status = Status(cli);
  const int64_t pid = Pid(status);
  const core::Value& hosts = *status.Find("hosts");
  REQUIRE(hosts.as_array().size() == 1);
  CHECK(hosts.as_array()[0].Find("requests")->as_number() == 4);
  CHECK(hosts.as_array()[0].Find("plugins")->as_number() == 1);
  const std::string project = hosts.as_array()[0].Find("project_dir")->as_string();
  CHECK(Contains(cli.Run({"server", "status"}).output, StrCat("\n  ", project, ": 1 plugin, 4 requests, idle ")));
  CHECK(ReadFileOrEmpty(marker) == "");  // still loaded

  auto stopped = cli.Run({"server", "stop"});
  CHECK(stopped.exit_status == 0);
  CHECK(WaitGone(pid));
  CHECK(ReadFileOrEmpty(marker) == "disposed after 4\n");

  // In-process (PLUGLINE_SERVER=0) each command is the plugin's whole session, as before.
  cli.env = {{"PLUGLINE_SERVER", "0"}};
  for (int i = 0; i < 2; ++i) {
    auto hook = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
    CHECK(Argument(HookAnswer(hook), "calls") == "1");
  }
  CHECK(Status(cli).is_null());
  CHECK(ReadFileOrEmpty(marker) == "disposed after 4\ndisposed after 1\ndisposed after 1\n");
}
#endif  // PLUGLINE_TEST_WITH_V8

#if PLUGLINE_TEST_WITH_V8  // its plugin is a JS plugin
TEST_CASE("server: an OpenCode plugin that needs Node.js runs in its worker, kept warm by the server") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("plugins/node-guard.js"), R"(import os from "node:os";
import { execFileSync } from "node:child_process";
export default async () => ({
  "tool.execute.before": async (input, output) => {
    if (String(output.args.command).includes("rm -rf")) throw new Error(`not on ${os.platform()}`);
    output.args.worker = String(process.pid);
    output.args.child = execFileSync("echo", ["ok"]).toString().trim();
  },
});
)");
  auto first = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  REQUIRE_MESSAGE(first.exit_status == 0, first.error_output);
  CHECK(Argument(HookAnswer(first), "child") == "ok");
  auto second = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  // One worker for the plugin, kept by the server between commands.
  CHECK(Argument(HookAnswer(second), "worker") == Argument(HookAnswer(first), "worker"));
  auto denied = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("rm -rf /"));
  CHECK(denied.exit_status == 3);
  CHECK(HookAnswer(denied).Find("reason")->as_string() == "not on linux");
  auto listed = cli.Run({"plugins", "--info", "node-guard"});
  CHECK(Contains(listed.output, "runtime      node (Node.js in a worker process; runs as you)"));

  // In-process, each command starts its own worker and the plugin guards the same.
  cli.env = {{"PLUGLINE_SERVER", "0"}};
  auto alone = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(alone), "child") == "ok");
  CHECK(Argument(HookAnswer(alone), "worker") != Argument(HookAnswer(first), "worker"));
  CHECK(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("rm -rf /")).exit_status == 3);
}
#endif  // PLUGLINE_TEST_WITH_V8

TEST_CASE("server: whether a command starts one: auto, always, never, PLUGLINE_SERVER=0") {
  Cli cli;
  cli.server = true;
  // auto, no JS plugin: in-process, and no server is started.
  CHECK(cli.Run({"hook", "session_start"}, "", "{}").exit_status == 0);
  CHECK(cli.Run({"run", "--", "true"}).exit_status == 0);
  CHECK(Status(cli).is_null());
  SUBCASE("always") {
    WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
    CHECK(cli.Run({"hook", "session_start"}, "", "{}").exit_status == 0);
    CHECK(Status(cli).is_object());
  }
#if PLUGLINE_TEST_WITH_V8
  SUBCASE("never, and PLUGLINE_SERVER=0, keep a JS plugin in-process") {
    WriteFile(cli.home.Sub("plugins/counter.js"), CounterPlugin(cli.home.Sub("m")));
    WriteFile(cli.home.Sub("config.yaml"), "server:\n  mode: never\n");
    CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "1");
    CHECK(Status(cli).is_null());
    WriteFile(cli.home.Sub("config.yaml"), "server: auto\n");
    cli.env = {{"PLUGLINE_SERVER", "0"}};
    CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "1");
    CHECK(Status(cli).is_null());
    cli.env.clear();
    CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "1");
    CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "2");
    CHECK(Status(cli).is_object());
  }
#endif
  SUBCASE("a bad value is a warning that names the file, and auto applies") {
    WriteFile(cli.home.Sub("config.yaml"), "server: sometimes\n");
    auto plugins = cli.Run({"plugins"});
    CHECK(Contains(plugins.error_output,
                   StrCat(cli.home.Sub("config.yaml"), ": server: expected auto, always or never, got sometimes")));
    CHECK(Status(cli).is_null());
  }
}

#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: a plugin added, edited, broken or removed, and config.yaml changed, apply to the next command") {
  Cli cli;
  cli.server = true;
  const std::string plugin = cli.home.Sub("plugins/counter.js");
  WriteFile(plugin, CounterPlugin(cli.home.Sub("m"), "first"));
  auto first = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(first), "tag") == "first");
  const int64_t pid = Pid(Status(cli));

  // Added, and used at once.
  WriteFile(cli.home.Sub("plugins/zz-added.js"), R"(export default async () => ({
  "tool.execute.before": async (input, output) => { output.args = { ...output.args, added: "yes" }; },
});
)");
  auto added = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(added), "added") == "yes");
  CHECK(Argument(HookAnswer(added), "calls") == "2");  // the unchanged plugin kept its state

  // Edited: the new code runs (a fresh load: its count starts again).
  WriteFile(plugin, CounterPlugin(cli.home.Sub("m"), "second"));
  auto edited = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(edited), "tag") == "second");
  CHECK(Argument(HookAnswer(edited), "calls") == "1");

  // Broken: listed as broken with the reason.
  WriteFile(plugin, "export default async () => ({ this is not javascript");
  auto listing = cli.Run({"plugins", "--json"});
  auto plugins = core::ParseJson(listing.output, "plugins");
  REQUIRE(plugins.ok());
  bool broken = false;
  for (const core::Value& p : plugins->Find("plugins")->as_array()) {
    if (p.Find("id")->as_string() != "counter") continue;
    broken = p.Find("state")->as_string() == "broken" &&
             Contains(p.Find("reason")->as_string(), "SyntaxError");
  }
  CHECK_MESSAGE(broken, listing.output);

  // Removed: gone.
  REQUIRE(::unlink(plugin.c_str()) == 0);
  auto removed = cli.Run({"plugins", "--json"});
  CHECK_FALSE(Contains(removed.output, "\"counter\""));
  CHECK(Contains(removed.output, "\"zz-added\""));

  // config.yaml: a plugin disabled by an override.
  WriteFile(cli.home.Sub("config.yaml"), "plugins:\n  overrides:\n    zz-added: {enabled: false}\n");
  auto disabled = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(disabled), "added") == "");
  // All of it in one server, which reloaded rather than restarted.
  core::Value status = Status(cli);
  CHECK(Pid(status) == pid);
  CHECK(status.Find("hosts")->as_array()[0].Find("reloads")->as_number() >= 4);
}
#endif  // PLUGLINE_TEST_WITH_V8

// `plugline run` and `shape` print the same thing through the server as in-process (the raw
// file's name aside).
TEST_CASE("server: run and shape print what they print in-process, and the exit code is the command's") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  const std::string script =
      "for i in $(seq 1 300); do echo \"line $i of the build\"; done; "
      "echo 'src/a.c:3:5: error: expected ; before }'; echo 'FAILED test_x'; exit 7";
  auto normalize = [](std::string text) {
    return std::regex_replace(text, std::regex("outputs/[^ )\\n\"]+\\.log"), "outputs/X.log");
  };
  cli.env = {{"PLUGLINE_SERVER", "0"}};
  auto local = cli.Run({"run", "--", "sh", "-c", script});
  auto local_json = cli.Run({"run", "--json", "--", "sh", "-c", script});
  auto local_shape = cli.Run({"shape", "--command", "make", "--exit-code", "2"}, "",
                             std::string("gcc: error: x\n") + std::string(5000, 'y') + "\n");
  auto local_unknown = cli.Run({"run", "--shaper", "nope", "--", "sh", "-c", "echo hi"});
  cli.env.clear();
  auto served = cli.Run({"run", "--", "sh", "-c", script});
  REQUIRE(Status(cli).is_object());  // it went through the server
  auto served_json = cli.Run({"run", "--json", "--", "sh", "-c", script});
  auto served_shape = cli.Run({"shape", "--command", "make", "--exit-code", "2"}, "",
                              std::string("gcc: error: x\n") + std::string(5000, 'y') + "\n");
  auto served_unknown = cli.Run({"run", "--shaper", "nope", "--", "sh", "-c", "echo hi"});
  CHECK(served.exit_status == 7);
  CHECK(local.exit_status == 7);
  CHECK(normalize(served.output) == normalize(local.output));
  CHECK(served.error_output == local.error_output);
  CHECK(Contains(served.output, "error: expected ; before }"));
  CHECK(served_json.exit_status == 7);
  auto a = core::ParseJson(local_json.output, "local");
  auto b = core::ParseJson(served_json.output, "served");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(normalize(b->Find("summary")->as_string()) == normalize(a->Find("summary")->as_string()));
  CHECK(b->Find("raw_bytes")->as_number() == a->Find("raw_bytes")->as_number());
  CHECK(b->Find("tokens_raw")->as_number() == a->Find("tokens_raw")->as_number());
  CHECK(b->Find("shaper")->as_string() == a->Find("shaper")->as_string());
  // The raw file the client wrote holds the whole output.
  CHECK(ReadFileOrEmpty(b->Find("raw_path")->as_string()).size() ==
        static_cast<size_t>(b->Find("raw_bytes")->as_number()));
  CHECK(served_shape.exit_status == local_shape.exit_status);
  CHECK(normalize(served_shape.output) == normalize(local_shape.output));
  CHECK(served_unknown.exit_status == 0);
  CHECK(served_unknown.output == local_unknown.output);
  CHECK(served_unknown.error_output == local_unknown.error_output);
  CHECK(Contains(served_unknown.error_output, "nope"));
  // Statistics are recorded once per shaping, wherever it ran.
  auto stats = core::ParseJson(cli.Run({"stats", "--json"}).output, "stats");
  REQUIRE(stats.ok());
  double shapes = 0;
  for (const auto& [id, s] : stats->Find("shapers")->as_object()) {
    if (const core::Value* n = s.Find("shape_count")) shapes += n->as_number();
  }
  CHECK(shapes == 8);
}

// Shape counts in stats.json as it is on disk (no flush asked for).
double ShapesOnDisk(Cli& cli) {
  auto stats = core::ParseJson(ReadFileOrEmpty(cli.home.Sub("stats.json")), "stats.json");
  if (!stats.ok() || stats->Find("shapers") == nullptr) return 0;
  double shapes = 0;
  for (const auto& [id, s] : stats->Find("shapers")->as_object()) {
    if (const core::Value* n = s.Find("shape_count")) shapes += n->as_number();
  }
  return shapes;
}

TEST_CASE("server: statistics are written within about a second without being asked, and when it stops") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  for (int i = 0; i < 5; ++i) REQUIRE(cli.Run({"run", "--", "sh", "-c", "echo hi"}).exit_status == 0);
  double shapes = 0;
  for (int i = 0; i < 500 && (shapes = ShapesOnDisk(cli)) < 5; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  CHECK(shapes == 5);
  // Queued when the server is told to stop: written before it exits.
  for (int i = 0; i < 3; ++i) REQUIRE(cli.Run({"run", "--", "sh", "-c", "echo hi"}).exit_status == 0);
  const int64_t pid = Pid(Status(cli));
  REQUIRE(cli.Run({"server", "stop"}).exit_status == 0);
  REQUIRE(WaitGone(pid));
  CHECK(ShapesOnDisk(cli) == 8);
}

// Statistics still queued when the server stops (its writer waits about a second to write many
// shapings at once) are written before it releases its lock, not after: a caller that removes
// the home once `server stop` returns met stats.lock written under it ("Directory not empty").
TEST_CASE("server: the statistics queued when it stops are written before its lock is free") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  REQUIRE(cli.Run({"run", "--", "sh", "-c", "echo hi"}).exit_status == 0);
  const int64_t pid = Pid(Status(cli));
  REQUIRE(cli.Run({"run", "--", "sh", "-c", "echo queued"}).exit_status == 0);
  const std::vector<std::string> events =
      plugline::testing::WritesDuring(cli.home.path(), {"logs", "run"}, [&] {
        REQUIRE(cli.Run({"server", "stop"}).exit_status == 0);
        REQUIRE(WaitGone(pid));
      });
  const std::string all = absl::StrJoin(events, "\n");
  CAPTURE(all);
  auto released = std::find(events.begin(), events.end(), "run/server.lock closed");
  REQUIRE(released != events.end());
  // After it, only the exiting process's descriptors closing (logs/server.out, its stderr):
  // nothing written, created or removed.
  for (auto after = std::next(released); after != events.end(); ++after) {
    CHECK_MESSAGE(absl::EndsWith(*after, " closed"), *after);
  }
  CHECK(std::find(events.begin(), released, "/stats.json written") != released);
  CHECK(ShapesOnDisk(cli) == 2);
}

#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: output and exit code survive a server that is killed, wedged or answers garbage") {
  Cli cli;
  cli.server = true;
  const std::string marker = cli.home.Sub("m");
  WriteFile(cli.home.Sub("plugins/counter.js"), CounterPlugin(marker));
  REQUIRE(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls")).exit_status == 0);

  SUBCASE("killed in the middle of many requests") {
    std::atomic<int> checked{0};
    std::atomic<int> wrong{0};
    std::vector<std::thread> clients;
    for (int t = 0; t < 4; ++t) {
      clients.emplace_back([&, t] {
        for (int i = 0; i < 15; ++i) {
          const bool deny = (i + t) % 3 == 0;
          auto hook = cli.Run({"hook", "pre_tool_call"}, "", HookPayload(deny ? "rm -rf x" : "ls"));
          auto json = core::ParseJson(hook.output, "answer");
          const bool right = json.ok() && hook.exit_status == (deny ? 3 : 0) &&
                             json->Find("denied")->as_bool() == deny;
          if (!right) ++wrong;
          ++checked;
          auto run = cli.Run({"run", "--", "sh", "-c", "echo out-$0; exit 5"});
          if (run.exit_status != 5 || !Contains(run.output, "out-")) ++wrong;
        }
      });
    }
    // Kill whatever server serves the home a few times while they run.
    for (int kills = 0; kills < 3; ++kills) {
      absl::SleepFor(absl::Milliseconds(400));
      core::Value status = Status(cli);
      if (status.is_object()) ::kill(static_cast<pid_t>(Pid(status)), SIGKILL);
    }
    for (std::thread& c : clients) c.join();
    CHECK(checked == 60);
    CHECK(wrong == 0);
  }
  SUBCASE("wedged (stopped): the client gives up after its deadline and runs the command itself") {
    const int64_t pid = Pid(Status(cli));
    REQUIRE(::kill(static_cast<pid_t>(pid), SIGSTOP) == 0);
    cli.env = {{"PLUGLINE_SERVER_TIMEOUT_MS", "300"}};
    auto run = cli.Run({"run", "--", "sh", "-c", "echo still here; exit 9"});
    CHECK(run.exit_status == 9);
    CHECK(Contains(run.output, "still here"));
    CHECK(Contains(run.error_output, "plugline: note: the server did not serve this command ("));
    auto hook = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("rm -rf /"));
    CHECK(hook.exit_status == 3);
    CHECK(HookAnswer(hook).Find("reason")->as_string() == "no rm -rf (call 1)");
    ::kill(static_cast<pid_t>(pid), SIGCONT);
  }
}
#endif  // PLUGLINE_TEST_WITH_V8

TEST_CASE("server: one that cannot start costs no wait: the command runs in-process at once, saying why") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  // run/ is a symlink: the server refuses to use it (docs/server.md, "Security").
  REQUIRE(::symlink("/tmp", cli.home.Sub("run").c_str()) == 0);
  const absl::Time start = absl::Now();
  auto hook = cli.Run({"hook", "session_start"}, "", "{}");
  CHECK(absl::Now() - start < absl::Seconds(5));  // not the 10 s a silent server would cost
  CHECK(hook.exit_status == 0);
  CHECK(HookAnswer(hook).Find("event")->as_string() == "session_start");
  CHECK(Contains(hook.error_output, "plugline: note: the server did not serve this command (the server could not start; see "));
  CHECK(Contains(ReadFileOrEmpty(cli.home.Sub("logs/server.out")), "is a symbolic link"));
  REQUIRE(::unlink(cli.home.Sub("run").c_str()) == 0);
}

// A stand-in server on the socket that greets like the real one (same build) and then answers
// every request with bytes that are not a reply.
TEST_CASE("server: a reply that is garbage is not printed, and the command runs in-process") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  REQUIRE(cli.Run({"server", "start"}).exit_status == 0);
  const std::string build = Status(cli).Find("build_id")->as_string();
  REQUIRE(cli.Run({"server", "stop"}).exit_status == 0);
  const std::string fake = cli.home.Sub("fake.py");
  WriteFile(fake, StrCat(R"(import json, os, socket, struct, sys
path = sys.argv[1]
os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(16)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    while True:
        head = c.recv(4)
        if len(head) < 4: break
        n = struct.unpack(">I", head)[0]; body = b""
        while len(body) < n: body += c.recv(n - len(body))
        req = json.loads(body)
        if req["type"] == "hello":
            out = json.dumps({"ok": True, "pid": os.getpid(), "version": "x", "build_id": ")", build, R"("}).encode()
        else:
            out = b'{"ok": true, "exit": 0, "output": [[1, "!!! not base64"]]}'
        c.sendall(struct.pack(">I", len(out)) + out)
    c.close()
)"));
  exec::ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", fake, cli.home.Sub("run/server.sock")};
  spec.collect_output = false;
  std::atomic<bool> ready{false};
  spec.on_output = [&](std::string_view chunk) { if (Contains(chunk, "ready")) ready = true; };
  spec.timeout = absl::Seconds(30);
  std::thread server([&] { (void)exec::RunProcess(spec); });
  for (int i = 0; i < 500 && !ready; ++i) absl::SleepFor(absl::Milliseconds(10));
  REQUIRE(ready);
  auto hook = cli.Run({"hook", "session_start"}, "", "{}");
  CHECK(hook.exit_status == 0);
  CHECK(HookAnswer(hook).Find("event")->as_string() == "session_start");
  CHECK(Contains(hook.error_output, "the server's reply: output: not base64"));
  auto run = cli.Run({"run", "--", "sh", "-c", "echo kept; exit 4"});
  CHECK(run.exit_status == 4);
  CHECK(Contains(run.output, "kept"));
  CHECK_FALSE(Contains(run.output, "!!!"));
  // The stand-in goes (its socket file with it); `server stop` in the runner finds none.
  cli.server = false;
  std::system(StrCat("pkill -f '", fake, "'").c_str());
  server.join();
}

TEST_CASE("server: a client of another build retires the old server, which finishes and exits") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  REQUIRE(cli.Run({"hook", "session_start"}, "", "{}").exit_status == 0);
  core::Value old_status = Status(cli);
  const int64_t old_pid = Pid(old_status);
  // The same plugline as another file: another build id (size, mtime and inode differ).
  const std::string other = cli.home.Sub("bin/plugline");
  WriteFile(other, ReadFileOrEmpty(cli.binary));
  REQUIRE(::chmod(other.c_str(), 0755) == 0);
  const std::string backend = plugline::testing::BinDir() + "/../lib";
  REQUIRE(std::system(StrCat("ln -s '", backend, "' '", cli.home.Sub("lib"), "'").c_str()) == 0);
  cli.binary = other;
  auto hook = cli.Run({"hook", "session_start"}, "", "{}");
  CHECK(hook.exit_status == 0);
  CHECK(hook.error_output == "");
  core::Value status = Status(cli);
  CHECK(Pid(status) != old_pid);
  CHECK(status.Find("build_id")->as_string() != old_status.Find("build_id")->as_string());
  CHECK(WaitGone(old_pid));
  const std::string log = ReadFileOrEmpty(cli.home.Sub("logs/plugline.log"));
  CHECK(Contains(log, "server: retiring: a client of build"));
}

#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: past its memory ceiling it retires after answering, and the next command starts a fresh one") {
  Cli cli;
  cli.server = true;
  // 100 MiB kept alive by a plugin.
  WriteFile(cli.home.Sub("plugins/big.js"), R"(const kept = [];
export default async () => ({
  "tool.execute.before": async (input, output) => {
    for (let i = 0; i < 25; i++) kept.push(new Array(512 * 1024).fill(i));
  },
});
)");
  WriteFile(cli.home.Sub("config.yaml"),
            "server:\n  mode: always\n  max_rss_mb: 64\nplugins:\n  js:\n    heap_limit_mb: 512\n"
            "    runtime: sandboxed\n");  // in the server's own memory, not a Node.js worker's
  auto first = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(first.exit_status == 0);
  CHECK(HookAnswer(first).Find("skipped")->as_array().empty());
  bool retired = false;
  for (int i = 0; i < 200 && !retired; ++i) {
    retired = Contains(ReadFileOrEmpty(cli.home.Sub("logs/plugline.log")), "server: retiring: resident memory");
    if (!retired) absl::SleepFor(absl::Milliseconds(20));
  }
  CHECK(retired);
  auto second = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(second.exit_status == 0);
}
#endif  // PLUGLINE_TEST_WITH_V8

#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: a host unused for a while is dropped, its plugins disposed of") {
  Cli cli;
  cli.server = true;
  // Long enough that the status asked right after the hook still finds the host on a loaded
  // machine under a sanitizer (0.5 s was not: the host was already gone).
  cli.env = {{"PLUGLINE_SERVER_HOST_IDLE_S", "3"}};
  const std::string marker = cli.home.Sub("disposed.txt");
  WriteFile(cli.home.Sub("plugins/counter.js"), CounterPlugin(marker));
  REQUIRE(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls")).exit_status == 0);
  REQUIRE(Status(cli).Find("hosts")->as_array().size() == 1);
  bool dropped = false;
  for (int i = 0; i < 1000 && !dropped; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
    dropped = ReadFileOrEmpty(marker) == "disposed after 1\n";
  }
  CHECK(dropped);
  CHECK(Status(cli).Find("hosts")->as_array().empty());
  // The next command makes the host again, with fresh plugins.
  auto again = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(again), "calls") == "1");
}
#endif  // PLUGLINE_TEST_WITH_V8

#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: one host per project directory") {
  plugline::testing::TempDir a;  // outlive the runner, which stops the server from b
  plugline::testing::TempDir b;
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("plugins/counter.js"), CounterPlugin(cli.home.Sub("m")));
  cli.cwd = a.path();
  CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "1");
  CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "2");
  cli.cwd = b.path();
  CHECK(Argument(HookAnswer(cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"))), "calls") == "1");
  // A relative payload file is the client's: read from its directory.
  WriteFile(b.Sub("payload.json"), HookPayload("rm -rf y"));
  auto from_file = cli.Run({"hook", "pre_tool_call", "--payload", "payload.json"});
  CHECK(from_file.exit_status == 3);
  // So is /dev/stdin: the client's standard input (a file here), not the server's.
  WriteFile(b.Sub("other.json"), HookPayload("rm -rf z"));
  const std::string binary = cli.binary;
  cli.binary = "/bin/sh";
  auto from_stdin = cli.Run({"-c", StrCat("'", binary, "' hook pre_tool_call --payload /dev/stdin < other.json")});
  cli.binary = binary;
  CHECK(from_stdin.exit_status == 3);
  CHECK(Contains(from_stdin.output, "rm -rf z"));
  // A file that cannot be opened is reported as in-process would.
  auto missing = cli.Run({"hook", "pre_tool_call", "--payload", "nope.json"});
  CHECK(missing.exit_status == 1);
  CHECK(Contains(missing.error_output, "plugline: hook: cannot open nope.json"));
  const core::Value status = Status(cli);
  const core::Value& hosts = *status.Find("hosts");
  REQUIRE(hosts.as_array().size() == 2);
  std::set<std::string> dirs;
  for (const core::Value& host : hosts.as_array()) dirs.insert(host.Find("project_dir")->as_string());
  CHECK(dirs == std::set<std::string>{a.path(), b.path()});
}
#endif  // PLUGLINE_TEST_WITH_V8

// Agents issue tool calls in parallel: 16 clients × 200 requests against one server, every
// answer checked, and the counts (the plugin's own, the server's, the statistics) exact.
#if PLUGLINE_TEST_WITH_V8  // its plugins are JS plugins
TEST_CASE("server: 16 clients with 200 requests each get their own answers, and every count is exact") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("plugins/counter.js"), CounterPlugin(cli.home.Sub("m")));
  REQUIRE(cli.Run({"server", "start"}).exit_status == 0);
  const double requests_before = Status(cli).Find("requests")->as_number();
  plugline::testing::TempDir project;
  constexpr int kClients = 16;
  constexpr int kRequests = 200;
  std::atomic<int> wrong{0};
  std::atomic<int> hooks{0};
  std::atomic<int> shapes{0};
  std::vector<std::string> first_error(kClients);
  std::vector<std::thread> clients;
  for (int t = 0; t < kClients; ++t) {
    clients.emplace_back([&, t] {
      auto client = server::Client::Connect(cli.home.path(), absl::Seconds(10));
      if (!client.ok()) {
        wrong += kRequests;
        first_error[t] = client.status().ToString();
        return;
      }
      for (int i = 0; i < kRequests; ++i) {
        const std::string tag = StrCat(t, "-", i);
        const bool shape = i % 4 == 3;
        core::JsonWriter w;
        w.BeginObject().Key("cwd").String(project.path());
        if (shape) {
          const std::string output = StrCat("building ", tag, "\nerror: ", tag, " failed\n");
          w.Key("type").String("shape").Key("run").Bool(false).Key("command").String("make");
          w.Key("exit_code").Int(2).Key("shaper").String("").Key("json").Bool(true);
          w.Key("captured").BeginObject().Key("text").String(absl::Base64Escape(output));
          w.Key("windowed").Null().Key("raw").BeginObject().Key("path").String("");
          w.Key("store_error").String("").Key("truncated").Bool(false);
          w.Key("stored_bytes").Int(0).Key("max_file_bytes").Int(0).EndObject().EndObject();
        } else {
          w.Key("type").String("command").Key("name").String("hook");
          w.Key("args").BeginArray().String("pre_tool_call").EndArray();
          w.Key("stdin").String(absl::Base64Escape(HookPayload(StrCat("echo ", tag))));
        }
        w.EndObject();
        auto reply = client->Call(w.Take(), absl::Seconds(60));
        bool right = false;
        if (reply.ok()) {
          auto value = core::ParseJson(*reply, "reply");
          const core::Value* output = value.ok() ? value->Find("output") : nullptr;
          std::string out;
          if (output != nullptr && output->is_array() && !output->as_array().empty()) {
            absl::Base64Unescape(output->as_array()[0].as_array()[1].as_string(), &out);
          }
          auto answer = core::ParseJson(out, "answer");
          if (answer.ok() && shape) {
            right = Contains(answer->Find("summary")->as_string(), StrCat("error: ", tag, " failed"));
            if (right) ++shapes;
          } else if (answer.ok()) {
            auto args = core::ParseJson(answer->Find("arguments")->as_string(), "arguments");
            right = args.ok() && args->Find("command")->as_string() == StrCat("echo ", tag);
            if (right) ++hooks;
          }
        }
        if (!right) {
          if (first_error[t].empty()) first_error[t] = reply.ok() ? *reply : reply.status().ToString();
          ++wrong;
        }
      }
    });
  }
  for (std::thread& c : clients) c.join();
  for (const std::string& e : first_error) CHECK_MESSAGE(e.empty(), e);
  CHECK(wrong == 0);
  CHECK(hooks == kClients * kRequests * 3 / 4);
  CHECK(shapes == kClients * kRequests / 4);
  // The plugin saw every call, once: this one is the next.
  cli.cwd = project.path();
  auto next = cli.Run({"hook", "pre_tool_call"}, "", HookPayload("ls"));
  CHECK(Argument(HookAnswer(next), "calls") == StrCat(kClients * kRequests * 3 / 4 + 1));
  core::Value status = Status(cli);
  // The requests, the hook above and this status.
  CHECK(status.Find("requests")->as_number() == requests_before + kClients * kRequests + 1 + 1);
  auto stats = core::ParseJson(cli.Run({"stats", "--json"}).output, "stats");
  REQUIRE(stats.ok());
  double shaped = 0;
  for (const auto& [id, s] : stats->Find("shapers")->as_object()) {
    if (const core::Value* n = s.Find("shape_count")) shaped += n->as_number();
  }
  CHECK(shaped == kClients * kRequests / 4);
}
#endif  // PLUGLINE_TEST_WITH_V8

TEST_CASE("server: another user can neither connect to the server nor read its files") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to act as a second user (CI runs as root)");
    return;
  }
  Cli cli;
  cli.server = true;
  REQUIRE(::chmod(cli.home.path().c_str(), 0755) == 0);  // even a home others may enter
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  REQUIRE(cli.Run({"hook", "session_start"}, "", "{}").exit_status == 0);
  REQUIRE(Status(cli).is_object());
  auto as_nobody = [&](const std::string& command) {
    return std::system(StrCat("setpriv --reuid=65534 --regid=65534 --clear-groups sh -c '",
                              command, "' >/dev/null 2>&1").c_str());
  };
  const std::string sock = cli.home.Sub("run/server.sock");
  CHECK(as_nobody(StrCat("python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect(\\\"", sock,
                         "\\\")\"")) != 0);
  CHECK(as_nobody(StrCat("cat ", cli.home.Sub("logs/plugline.log"))) != 0);
  CHECK(as_nobody(StrCat("ls ", cli.home.Sub("run"))) != 0);
  // The second user's own plugline, pointed at this home, cannot use the server either.
  CHECK(as_nobody(StrCat("PLUGLINE_HOME=", cli.home.path(), " ", cli.binary, " server status")) != 0);
  struct stat st;
  REQUIRE(::stat(sock.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat(cli.home.Sub("run").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

}  // namespace
}  // namespace plugline::cli

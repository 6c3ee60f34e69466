// Isolation::kProcess: the same module interface over plugline-js-worker processes.
#include "js/process_runtime.h"

#include <dirent.h>
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "exec/process.h"
#include "js/runtime.h"
#include "js/js_test_util.h"
#include "test_util.h"

namespace plugline::js {
namespace {

#if PLUGLINE_TEST_WITH_V8

using testing::ModulePath;

Runtime* Process() {
  auto runtime = GetRuntime(Isolation::kProcess);
  REQUIRE_MESSAGE(runtime.ok(), runtime.status().ToString());
  return *runtime;
}

std::unique_ptr<js::Module> Load(std::string_view relative, ModuleOptions options = {}) {
  auto module = Process()->Load(ModulePath(relative), options);
  REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  return *std::move(module);
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

// The pids of this process's plugline-js-worker children (comm is cut to 15 characters).
std::set<int> WorkerPids() {
  std::set<int> pids;
  DIR* proc = ::opendir("/proc");
  REQUIRE(proc != nullptr);
  while (dirent* entry = ::readdir(proc)) {
    int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::string stat = plugline::testing::ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos || stat.find("(plugline-js-wor)") == std::string::npos) continue;
    // After ") ": state, then ppid.
    int ppid = std::atoi(stat.c_str() + stat.find(' ', close + 2) + 1);
    if (ppid == ::getpid() && stat[close + 2] != 'Z') pids.insert(pid);
  }
  ::closedir(proc);
  return pids;
}

TEST_CASE("process isolation: a module with a relative import is loaded, called and logs") {
  std::vector<std::string> logs;
  ModuleOptions options;
  options.log = [&](std::string_view level, std::string_view message) {
    logs.push_back(std::string(level) + ": " + std::string(message));
  };
  auto module = Load("hostile/index.js", options);
  REQUIRE_FALSE(logs.empty());
  CHECK(logs[0] == "log: hostile loaded {\"pid\":\"worker\"}");  // the backend may add debug lines

  logs.clear();
  auto matched = module->Call("match", R"(["terraform plan","Plan: 1 to add",0])", CallLimits{});
  REQUIRE_MESSAGE(matched.ok(), matched.status().ToString());
  CHECK(*matched == R"({"matched":true,"calls":1,"exitCode":0})");
  REQUIRE(logs.size() == 1);
  CHECK(logs[0] == "warn: matching terraform plan");
  // The relative import works in the worker too.
  CHECK(*module->Call("shape", R"(["a\nb\nc"])", CallLimits{}) ==
        R"({"summary":"3 lines","echo":"a\nb\nc"})");
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "1");  // state persists between calls

  std::vector<Arg> args = {Arg::String("ls"), Arg::Json(R"({"lines":2})"),
                           Arg::Number(-0.0), Arg::Bool(true),
                           Arg::Null(),       Arg{}};
  CHECK(*module->CallArgs("typeOf", args, CallLimits{}) ==
        R"(["string","object","-0","boolean","object","undefined"])");

  CHECK(*module->Get("meta") == R"({"name":"hostile","version":"1.0.0"})");
  CHECK(*module->Get("absent") == "null");
  CHECK(*module->DescribeDefault(R"(["match","shape","meta","nope"])") ==
        R"({"type":"object","functions":["match","shape"]})");
  std::vector<std::string> files = module->files();
  REQUIRE(files.size() == 2);
  CHECK(files[0] == ModulePath("hostile/index.js"));
  CHECK(files[1] == ModulePath("hostile/lib/text.js"));
  CHECK(Process()->engine().rfind("V8 10.", 0) == 0);
}

TEST_CASE("process isolation: results and errors are those of the in-process runtime") {
  auto in_process = GetRuntime(Isolation::kInProcess);
  REQUIRE_MESSAGE(in_process.ok(), in_process.status().ToString());
  auto local = (*in_process)->Load(ModulePath("calc/index.js"), {});
  REQUIRE(local.ok());
  auto remote = Load("calc/index.js");
  struct Case {
    const char* function;
    const char* args;
  };
  for (Case c :
       {Case{"sum", "[[1,2,3.5]]"}, Case{"echo", R"(["a",{"b":[null,true]},3,1e300])"},
        Case{"nothing", "[]"}, Case{"later", "[7]"}, Case{"fails", "[]"}, Case{"rejects", "[]"},
        Case{"nope", "[]"}, Case{"cyclic", "[]"}, Case{"echo", R"({"not":"an array"})"},
        Case{"echo", "[1,"}, Case{"", "[]"}, Case{"calls", "[]"}}) {
    CAPTURE(c.function);
    CAPTURE(c.args);
    auto expected = (*local)->Call(c.function, c.args, CallLimits{});
    auto actual = remote->Call(c.function, c.args, CallLimits{});
    CHECK(actual.status() == expected.status());
    if (expected.ok() && actual.ok()) CHECK(*actual == *expected);
  }
  CHECK(*remote->Get("meta") == *(*local)->Get("meta"));
  CHECK(remote->files() == (*local)->files());
}

TEST_CASE("process isolation: a throw keeps its code, file:line and message") {
  auto module = Load("hostile/index.js");
  auto thrown = module->Call("fails", "[]", CallLimits{});
  REQUIRE_FALSE(thrown.ok());
  CHECK(thrown.status().code() == absl::StatusCode::kUnknown);
  CHECK(Message(thrown.status()).find(ModulePath("hostile/index.js") + ":") == 0);
  CHECK(Message(thrown.status()).find("TypeError: hostile failure") != std::string::npos);
  CHECK(module->Call("nope", "[]", CallLimits{}).status().code() == absl::StatusCode::kNotFound);
  // A throw does not cost the worker: state is kept.
  REQUIRE(module->Call("match", R"(["x","",1])", CallLimits{}).ok());
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "1");
}

TEST_CASE("process isolation: broken modules fail to load as they do in process") {
  auto syntax = Process()->Load(ModulePath("broken/syntax.js"), {});
  REQUIRE_FALSE(syntax.ok());
  CHECK(syntax.status().code() == absl::StatusCode::kUnknown);
  CHECK(Message(syntax.status()).find(ModulePath("broken/syntax.js") + ":3:") == 0);
  auto missing = Process()->Load(ModulePath("broken/does-not-exist.js"), {});
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  auto escapes = Process()->Load(ModulePath("broken/escapes.js"), {});
  CHECK(Message(escapes.status()).find("outside the plugin's folder") != std::string::npos);
}

TEST_CASE("process isolation: an infinite loop is stopped and the next call has fresh state") {
  auto module = Load("hostile/index.js");
  REQUIRE(module->Call("match", R"(["terraform","",0])", CallLimits{}).ok());
  auto spun = module->Call("spin", "[]", CallLimits{absl::Milliseconds(100)});
  REQUIRE_FALSE(spun.ok());
  CHECK(spun.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(Message(spun.status()) == "call to spin() exceeded its time budget of 100ms");
  auto after = module->Call("calls", "[]", CallLimits{});
  REQUIRE_MESSAGE(after.ok(), after.status().ToString());
  CHECK(*after == "0");
}

TEST_CASE("process isolation: a promise that never settles is reported") {
  auto module = Load("hostile/index.js");
  auto pending = module->Call("pending", "[]", CallLimits{absl::Seconds(5)});
  REQUIRE_FALSE(pending.ok());
  CHECK(pending.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(Message(pending.status()).find("never settled") != std::string::npos);
  CHECK(module->Call("calls", "[]", CallLimits{}).ok());
}

TEST_CASE("process isolation: the heap limit stops a runaway push loop") {
  ModuleOptions options;
  options.heap_limit_bytes = 32u << 20;
  auto module = Load("hostile/index.js", options);
  auto hog = module->Call("hog", "[]", CallLimits{absl::Seconds(30)});
  REQUIRE_FALSE(hog.ok());
  CHECK(hog.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(hog.status()).find("heap limit of 32 MiB") != std::string::npos);
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "0");
}

TEST_CASE("process isolation: one huge allocation ends the worker, not the caller" *
          doctest::skip(plugline::testing::kNoDataLimitInThisBuild)) {
  ModuleOptions options;
  options.process_memory_limit_bytes = 256u << 20;
  auto module = Load("hostile/index.js", options);
  REQUIRE(module->Call("match", R"(["terraform","",0])", CallLimits{}).ok());
  auto huge = module->Call("hugeString", "[]", CallLimits{absl::Seconds(20)});
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.status().code() == absl::StatusCode::kResourceExhausted);
  std::string message = Message(huge.status());
  CHECK(message.find("call to hugeString() exceeded the worker's memory limit of 256 MiB") == 0);
  CHECK(message.find("died (signal ") != std::string::npos);
  // A fresh worker, the module loaded again: state starts over.
  auto after = module->Call("calls", "[]", CallLimits{});
  REQUIRE_MESSAGE(after.ok(), after.status().ToString());
  CHECK(*after == "0");
}

TEST_CASE("process isolation: a long built-in that V8 cannot interrupt is killed") {
  ModuleOptions options;
  options.process_memory_limit_bytes = 256u << 20;
  auto module = Load("hostile/index.js", options);
  auto fill = module->Call("hugeFill", "[]", CallLimits{absl::Milliseconds(200)});
  REQUIRE_FALSE(fill.ok());
  // Killed at the deadline, or out of memory before it on a fast machine: both are clean.
  CHECK((fill.status().code() == absl::StatusCode::kDeadlineExceeded ||
         fill.status().code() == absl::StatusCode::kResourceExhausted));
  CHECK(Message(fill.status()).find("hugeFill()") != std::string::npos);
  if (fill.status().code() == absl::StatusCode::kDeadlineExceeded) {
    CHECK(Message(fill.status()) == "call to hugeFill() exceeded its time budget of 200ms");
  }
  auto after = module->Call("match", R"(["terraform","",0])", CallLimits{});
  REQUIRE_MESSAGE(after.ok(), after.status().ToString());
  CHECK(*after == R"({"matched":true,"calls":1,"exitCode":0})");
}

TEST_CASE("process isolation: plugin code that loops where the host touches it is stopped") {
  ModuleOptions options;
  options.load_timeout = absl::Milliseconds(100);
  auto module = Load("looping/index.js", options);
  const CallLimits limits{absl::Milliseconds(100)};
  for (const char* function : {"throwsLoopingToString", "throwsLoopingMessage",
                               "throwsLoopingStack", "returnsLoopingToJSON", "slowMethod"}) {
    std::string name = function;
    CAPTURE(name);
    auto called = module->Call(function, "[]", limits);
    CHECK(called.status().code() == absl::StatusCode::kDeadlineExceeded);
  }
  CHECK(module->Get("loopingGetter").status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(*module->Call("calls", "[]", limits) == "1");
}

TEST_CASE("process isolation: the allocations that abandon an isolate in process end the worker") {
  ModuleOptions options;
  options.heap_limit_bytes = 32u << 20;
  options.array_buffer_limit_bytes = 16u << 20;
  auto module = Load("oom/index.js", options);
  // The worker's V8 dies of it (no isolate is abandoned there); the next call gets a new one.
  auto filled = module->Call("hugeFill", "[]", CallLimits{absl::Seconds(20)});
  REQUIRE_FALSE(filled.ok());
  CHECK(filled.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(filled.status()).find("call to hugeFill() exceeded the worker's memory limit") ==
        0);
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "1");
  auto many = module->Call("manyWasmMemories", "[64,16]", CallLimits{absl::Seconds(10)});
  CHECK(many.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(Message(many.status()) ==
        "call to manyWasmMemories() exceeded the ArrayBuffer and WebAssembly memory limit of "
        "16 MiB");
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "1");
}

TEST_CASE("process isolation: a worker killed from outside is an error, then recovers") {
  std::set<int> before = WorkerPids();
  auto module = Load("hostile/index.js");
  REQUIRE(module->Call("match", R"(["terraform","",0])", CallLimits{}).ok());
  std::set<int> after = WorkerPids();
  std::vector<int> started;
  for (int pid : after) {
    if (before.count(pid) == 0) started.push_back(pid);
  }
  REQUIRE(started.size() == 1);
  REQUIRE(::kill(started[0], SIGKILL) == 0);

  auto failed = module->Call("match", R"(["terraform","",0])", CallLimits{});
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.status().code() == absl::StatusCode::kUnknown);
  CHECK(Message(failed.status()).find("died (signal 9, Killed)") != std::string::npos);
  CHECK(Message(failed.status()).find("call to match()") != std::string::npos);

  auto recovered = module->Call("match", R"(["terraform","",0])", CallLimits{});
  REQUIRE_MESSAGE(recovered.ok(), recovered.status().ToString());
  CHECK(*recovered == R"({"matched":true,"calls":1,"exitCode":0})");
  CHECK(WorkerPids().count(started[0]) == 0);
}

TEST_CASE("process isolation: a 1 MiB string goes to the worker and comes back intact") {
  auto module = Load("hostile/index.js");
  std::string output;
  while (output.size() < (1u << 20)) {
    output += "line " + std::to_string(output.size()) + " \"quoted\" \\ tab\t ü €\n";
  }
  core::JsonWriter w;
  w.BeginArray().String(output).EndArray();
  auto shaped = module->Call("shape", w.str(), CallLimits{absl::Seconds(30)});
  REQUIRE_MESSAGE(shaped.ok(), shaped.status().ToString());
  auto value = core::ParseJson(*shaped, "shape()");
  REQUIRE(value.ok());
  CHECK(value->Find("echo")->as_string() == output);
  Arg typed[] = {Arg::String(output)};
  auto length = module->CallArgs("length", typed, CallLimits{absl::Seconds(30)});
  REQUIRE(length.ok());
  // UTF-16 code units: ü and € are one each, though two and three bytes in UTF-8.
  size_t multibyte = 0;
  for (unsigned char c : output) multibyte += (c & 0xC0) == 0x80 ? 1 : 0;
  CHECK(*length == std::to_string(output.size() - multibyte));
}

TEST_CASE("process isolation: modules run in separate workers") {
  auto a = Load("hostile/index.js");
  auto b = Load("hostile/index.js");
  REQUIRE(a->Call("match", R"(["x","",0])", CallLimits{}).ok());
  CHECK(*b->Call("calls", "[]", CallLimits{}) == "0");
  CHECK_FALSE(a->Call("spin", "[]", CallLimits{absl::Milliseconds(50)}).ok());
  CHECK(*b->Call("calls", "[]", CallLimits{}) == "0");
}

TEST_CASE("process isolation: a missing worker is Unavailable and says where it looked") {
  auto runtime = NewProcessRuntime("/nonexistent/plugline-js-worker");
  auto module = runtime->Load(ModulePath("hostile/index.js"), {});
  REQUIRE_FALSE(module.ok());
  CHECK(module.status().code() == absl::StatusCode::kUnavailable);
  CHECK(Message(module.status()).find("/nonexistent/plugline-js-worker") != std::string::npos);
  std::vector<std::string> candidates =
      BackendDirCandidates("plugline-js-worker", "PLUGLINE_TEST_NO_SUCH_VARIABLE");
  REQUIRE_FALSE(candidates.empty());
  CHECK(candidates.back().find("/plugline/plugline-js-worker") != std::string::npos);
}

// Runs in a child test process (see the next test): nothing has loaded V8 there before.
TEST_CASE("process isolation child: the caller never loads V8") {
  if (std::getenv("PLUGLINE_TEST_PROCESS_CHILD") == nullptr) return;
  auto module = Load("hostile/index.js");
  REQUIRE(module->Call("match", R"(["terraform","",0])", CallLimits{}).ok());
  CHECK(Process()->engine().rfind("V8 10.", 0) == 0);
  CHECK_FALSE(RuntimeLoaded());
  std::string maps = plugline::testing::ReadFileOrEmpty("/proc/self/maps");
  REQUIRE_FALSE(maps.empty());
  CHECK(maps.find("libnode") == std::string::npos);
  CHECK(maps.find("libplugline-v8") == std::string::npos);
}

TEST_CASE("process isolation: the calling process does not load libnode") {
  // Other tests in this binary load V8 in process, so check in a fresh one.
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  REQUIRE(n > 0);
  exec::ProcessSpec spec;
  spec.argv = {std::string(self, static_cast<size_t>(n)),
               "--test-case=process isolation child: the caller never loads V8"};
  spec.extra_env = {{"PLUGLINE_TEST_PROCESS_CHILD", "1"}};
  auto result = exec::RunProcess(spec);
  REQUIRE(result.ok());
  INFO(result->output);
  CHECK(result->exit_status == 0);
  CHECK(result->output.find("1 passed") != std::string::npos);
}

#else

TEST_CASE("without V8, process isolation is unavailable and says why") {
  auto runtime = GetRuntime(Isolation::kProcess);
  REQUIRE_FALSE(runtime.ok());
  CHECK(runtime.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(runtime.status().message()).find("PLUGLINE_WITH_V8=OFF") != std::string::npos);
  CHECK_FALSE(RuntimeLoaded());
}

#endif

}  // namespace
}  // namespace plugline::js

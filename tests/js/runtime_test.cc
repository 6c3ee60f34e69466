#include "js/runtime.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/json.h"
#include "js/js_test_util.h"
#include "test_util.h"

namespace plugline::js {
namespace {

#if PLUGLINE_TEST_WITH_V8

using testing::LoadModule;
using testing::ModulePath;
using testing::TheRuntime;

TEST_CASE("the runtime is V8 10 from libnode108, loaded on demand") {
  CHECK(TheRuntime()->engine().rfind("V8 10.", 0) == 0);
  CHECK(RuntimeLoaded());
}

TEST_CASE("a module with a relative import is called with JSON arguments") {
  std::vector<std::string> logs;
  ModuleOptions options;
  options.log = [&](std::string_view level, std::string_view message) {
    // The backend reports each load at level "debug" (timings, code cache).
    if (level != "debug") logs.push_back(std::string(level) + ": " + std::string(message));
  };
  auto module = LoadModule("calc/index.js", options);
  REQUIRE(logs.size() == 1);
  CHECK(logs[0] == "log: calc loaded {\"precision\":2}");

  auto result = module->Call("sum", "[[1,2,3.5]]", CallLimits{});
  REQUIRE(result.ok());
  auto value = core::ParseJson(*result, "sum()");
  REQUIRE(value.ok());
  CHECK(value->Find("total")->as_number() == 6.5);
  CHECK(value->Find("precision")->as_integer() == 2);
  CHECK(value->Find("calls")->as_integer() == 1);
  // State persists between calls of the same module.
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "1");

  CHECK(*module->Call("echo", R"(["a",{"b":[null,true]},3])", CallLimits{}) ==
        R"(["a",{"b":[null,true]},3])");
  CHECK(*module->Call("nothing", "[]", CallLimits{}) == "null");
  CHECK(*module->Get("meta") == R"({"name":"calc","version":"1.0.0","priority":120})");
  CHECK(*module->Get("absent") == "null");
  CHECK(*module->DescribeDefault(R"(["sum","meta","nope"])") ==
        R"({"type":"object","functions":["sum"]})");
}

TEST_CASE("a returned promise is awaited and import.meta.url names the file") {
  auto module = LoadModule("calc/index.js");
  auto result = module->Call("later", "[7]", CallLimits{});
  REQUIRE(result.ok());
  auto value = core::ParseJson(*result, "later()");
  CHECK(value->Find("value")->as_integer() == 7);
  CHECK(value->Find("url")->as_string() == "file://" + ModulePath("calc/index.js"));
}

TEST_CASE("exceptions and rejections carry file:line and the message") {
  auto module = LoadModule("calc/index.js");
  auto thrown = module->Call("fails", "[]", CallLimits{});
  REQUIRE_FALSE(thrown.ok());
  CHECK(thrown.status().code() == absl::StatusCode::kUnknown);
  std::string message(thrown.status().message());
  CHECK(message.find(ModulePath("calc/index.js") + ":21:") == 0);
  CHECK(message.find("RangeError: value out of range: 42") != std::string::npos);

  auto rejected = module->Call("rejects", "[]", CallLimits{});
  REQUIRE_FALSE(rejected.ok());
  CHECK(std::string(rejected.status().message()).find("Error: async failure") !=
        std::string::npos);

  auto missing = module->Call("nope", "[]", CallLimits{});
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  auto cyclic = module->Call("cyclic", "[]", CallLimits{});
  REQUIRE_FALSE(cyclic.ok());
  CHECK(std::string(cyclic.status().message()).find("not JSON-serializable") != std::string::npos);
  auto bad_args = module->Call("echo", "{\"not\":\"an array\"}", CallLimits{});
  CHECK(bad_args.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("an infinite loop is stopped at its deadline and the module works again after") {
  auto module = LoadModule("calc/index.js");
  REQUIRE(module->Call("sum", "[[1]]", CallLimits{}).ok());
  auto spun = module->Call("spin", "[]", CallLimits{absl::Milliseconds(100)});
  REQUIRE_FALSE(spun.ok());
  CHECK(spun.status().code() == absl::StatusCode::kDeadlineExceeded);
  // try/catch in JS cannot swallow the termination.
  auto caught = module->Call("catchesTermination", "[]", CallLimits{absl::Milliseconds(100)});
  CHECK(caught.status().code() == absl::StatusCode::kDeadlineExceeded);
  // The terminated isolate was discarded: the next call runs in a fresh one (state reset).
  auto after = module->Call("calls", "[]", CallLimits{});
  REQUIRE(after.ok());
  CHECK(*after == "0");
}

TEST_CASE("a promise that can never settle is reported, not waited on forever") {
  auto module = LoadModule("calc/index.js");
  auto pending = module->Call("pending", "[]", CallLimits{absl::Seconds(5)});
  REQUIRE_FALSE(pending.ok());
  CHECK(pending.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(std::string(pending.status().message()).find("never settled") != std::string::npos);
}

TEST_CASE("the heap limit stops a runaway allocation and the isolate is replaced") {
  ModuleOptions options;
  options.heap_limit_bytes = 32u << 20;
  auto module = LoadModule("calc/index.js", options);
  auto hog = module->Call("hog", "[]", CallLimits{absl::Seconds(30)});
  REQUIRE_FALSE(hog.ok());
  CHECK(hog.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(hog.status().message()).find("heap limit of 32 MiB") != std::string::npos);
  CHECK(module->Call("sum", "[[2,2]]", CallLimits{}).ok());
}

TEST_CASE("ArrayBuffer memory is capped") {
  ModuleOptions options;
  options.array_buffer_limit_bytes = 8u << 20;
  auto module = LoadModule("calc/index.js", options);
  auto buffers = module->Call("buffers", "[]", CallLimits{absl::Seconds(10)});
  REQUIRE_FALSE(buffers.ok());
  CHECK(buffers.status().code() == absl::StatusCode::kResourceExhausted);
}

// Each entry point into a plugin's code, with code of its own that loops there. Any that ran
// outside the deadline would hang this test (and ctest's timeout would fail it).
TEST_CASE("plugin code that loops is stopped wherever the host touches it") {
  ModuleOptions options;
  options.load_timeout = absl::Milliseconds(100);  // the budget of Get and DescribeDefault
  testing::LogLines logs;
  options.log = logs.Sink();  // console arguments are only formatted for a log
  auto module = LoadModule("looping/index.js", options);
  const CallLimits limits{absl::Milliseconds(100)};
  for (const char* function :
       {"throwsLoopingToString", "throwsLoopingMessage", "throwsLoopingStack",
        "rejectsLoopingToString", "returnsLoopingToJSON", "logsLoopingToJSON", "slowMethod"}) {
    std::string name = function;
    CAPTURE(name);
    auto called = module->Call(function, "[]", limits);
    REQUIRE_FALSE(called.ok());
    CHECK(called.status().code() == absl::StatusCode::kDeadlineExceeded);
    CHECK(testing::Message(called) ==
          std::string("call to ") + function + "() exceeded its time budget of 100ms");
    std::vector<Arg> no_args;
    CHECK(module->CallArgs(function, no_args, limits).status().code() ==
          absl::StatusCode::kDeadlineExceeded);
  }
  auto getter = module->Get("loopingGetter");
  CHECK(getter.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(testing::Message(getter) ==
        "reading loopingGetter of the default export exceeded its time budget of 100ms");
  CHECK(module->Get("loopingToJSON").status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(module->DescribeDefault(R"(["calls","loopingGetter"])").status().code() ==
        absl::StatusCode::kDeadlineExceeded);
  // Each stop discarded the isolate; the module still answers from a fresh one.
  CHECK(*module->Call("calls", "[]", limits) == "1");
  CHECK(*module->Get("meta") == R"({"name":"looping","version":"1.0.0"})");

  auto proxy = LoadModule("looping/proxy.js", options);
  CHECK(proxy->Get("meta").status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(proxy->DescribeDefault(R"(["match"])").status().code() ==
        absl::StatusCode::kDeadlineExceeded);
  CHECK(proxy->Call("match", "[]", limits).status().code() ==
        absl::StatusCode::kDeadlineExceeded);
}

TEST_CASE("an allocation V8 cannot stop abandons the plugin's isolate, not the process") {
  ModuleOptions options;
  options.heap_limit_bytes = 32u << 20;
  auto module = LoadModule("oom/index.js", options);
  auto other = LoadModule("calc/index.js");
  REQUIRE(*module->Call("calls", "[]", CallLimits{}) == "1");
  auto filled = module->Call("hugeFill", "[]", CallLimits{absl::Milliseconds(200)});
  REQUIRE_FALSE(filled.ok());
  CHECK(filled.status().code() == absl::StatusCode::kResourceExhausted);
  std::string message = testing::Message(filled);
  CHECK(message.find("call to hugeFill() ran out of memory in a way V8 cannot stop in process") ==
        0);
  CHECK(message.find("heap limit 32 MiB") != std::string::npos);
  CHECK(message.find("isolation: process") != std::string::npos);
  // The module does not run in this process again (each abandoned isolate keeps its heap);
  // every later call says why, and nothing else is disturbed.
  auto after = module->Call("calls", "[]", CallLimits{});
  CHECK(after.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(testing::Message(after) == message);
  CHECK(module->Get("meta").status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(*other->Call("sum", "[[1,2]]", CallLimits{}) ==
        R"({"total":3,"calls":1,"precision":2})");
  CHECK(LoadModule("oom/index.js", options)->Call("calls", "[]", CallLimits{}).ok());

  auto top_level = TheRuntime()->Load(ModulePath("oom/top_level.js"), options);
  REQUIRE_FALSE(top_level.ok());
  CHECK(top_level.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(top_level.status().message()).find("loading the module ran out of memory") ==
        0);
}

TEST_CASE("WebAssembly memory counts against the ArrayBuffer limit") {
  ModuleOptions options;
  options.array_buffer_limit_bytes = 16u << 20;
  auto module = LoadModule("oom/index.js", options);
  // One memory past the process-wide maximum is refused by V8 itself.
  auto huge = module->Call("hugeWasmMemory", "[]", CallLimits{});
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.status().code() == absl::StatusCode::kUnknown);
  CHECK(testing::Message(huge).find("RangeError: WebAssembly.Memory()") != std::string::npos);
  // Within the limit: fine.
  CHECK(*module->Call("manyWasmMemories", "[3,16]", CallLimits{}) == "3");
  // Each memory is allowed; together they are not (64 x 1 MiB, written to).
  auto many = module->Call("manyWasmMemories", "[64,16]", CallLimits{absl::Seconds(10)});
  REQUIRE_FALSE(many.ok());
  CHECK(many.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(testing::Message(many) ==
        "call to manyWasmMemories() exceeded the ArrayBuffer and WebAssembly memory limit of "
        "16 MiB");
  auto grown = module->Call("growWasmMemory", "[1024]", CallLimits{absl::Seconds(10)});
  REQUIRE_FALSE(grown.ok());
  CHECK(grown.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(*module->Call("calls", "[]", CallLimits{}) == "1");  // a fresh isolate
}

TEST_CASE("broken modules fail to load with a reason that names the file") {
  auto syntax = TheRuntime()->Load(ModulePath("broken/syntax.js"), {});
  REQUIRE_FALSE(syntax.ok());
  CHECK(std::string(syntax.status().message()).find(ModulePath("broken/syntax.js") + ":3:") == 0);
  CHECK(std::string(syntax.status().message()).find("SyntaxError") != std::string::npos);

  auto throws = TheRuntime()->Load(ModulePath("broken/throws_on_load.js"), {});
  REQUIRE_FALSE(throws.ok());
  CHECK(std::string(throws.status().message()).find("TypeError") != std::string::npos);

  auto missing = TheRuntime()->Load(ModulePath("broken/does-not-exist.js"), {});
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("imports cannot leave the plugin's folder or reach packages") {
  auto escapes = TheRuntime()->Load(ModulePath("broken/escapes.js"), {});
  REQUIRE_FALSE(escapes.ok());
  CHECK(std::string(escapes.status().message()).find("outside the plugin's folder") !=
        std::string::npos);
  auto bare = TheRuntime()->Load(ModulePath("broken/bare.js"), {});
  REQUIRE_FALSE(bare.ok());
  CHECK(std::string(bare.status().message()).find("cannot import 'fs'") != std::string::npos);
  // With the whole modules/ tree as the root, the same import is allowed.
  ModuleOptions wide;
  wide.root_dir = plugline::testing::SourceDir() + "/js/modules";
  CHECK(TheRuntime()->Load(ModulePath("broken/escapes.js"), wide).ok());
}

TEST_CASE("modules are isolated from each other") {
  auto a = LoadModule("calc/index.js");
  auto b = LoadModule("calc/index.js");
  REQUIRE(a->Call("sum", "[[1]]", CallLimits{}).ok());
  REQUIRE(a->Call("sum", "[[1]]", CallLimits{}).ok());
  CHECK(*a->Call("calls", "[]", CallLimits{}) == "2");
  CHECK(*b->Call("calls", "[]", CallLimits{}) == "0");
  // One module terminated does not disturb the other.
  CHECK_FALSE(a->Call("spin", "[]", CallLimits{absl::Milliseconds(50)}).ok());
  CHECK(*b->Call("calls", "[]", CallLimits{}) == "0");
}

#else

TEST_CASE("without V8, the runtime is unavailable and says why") {
  auto runtime = GetRuntime();
  REQUIRE_FALSE(runtime.ok());
  CHECK(runtime.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(runtime.status().message()).find("PLUGLINE_WITH_V8=OFF") != std::string::npos);
  CHECK_FALSE(RuntimeLoaded());
}

#endif

}  // namespace
}  // namespace plugline::js

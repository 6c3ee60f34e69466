// Timers and microtasks of the V8 backend (src/js/v8/event_loop.h): setTimeout, setInterval,
// clearTimeout, clearInterval, queueMicrotask, and how a pending promise is awaited.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "js/js_test_util.h"

namespace plugline::js {
namespace {

#if PLUGLINE_TEST_WITH_V8

using testing::Json;
using testing::LoadModule;
using testing::LogLines;
using testing::Message;
using testing::ModulePath;
using testing::TheRuntime;

TEST_CASE("a promise settled by setTimeout is awaited, with the timer's extra arguments") {
  auto module = LoadModule("timers/index.js");
  CHECK(*module->Call("sleep", R"([5,"woke"])", CallLimits{}) == R"("woke")");
  CHECK(*module->Call("extraArguments", "[]", CallLimits{}) == R"(["a",2])");
  CHECK(*module->Call("ids", "[]", CallLimits{}) == R"(["number",true,true])");
  CHECK(*module->Call("badCallback", "[]", CallLimits{}) == R"("TypeError")");
}

TEST_CASE("microtasks run before timers, and timers in the order they are due") {
  auto module = LoadModule("timers/index.js");
  CHECK(*module->Call("ordering", "[]", CallLimits{}) ==
        R"(["sync","microtask","promise","timeout 0","timeout 5"])");
}

TEST_CASE("setInterval repeats until clearInterval, clearTimeout cancels") {
  auto module = LoadModule("timers/index.js");
  CHECK(*module->Call("interval", "[3]", CallLimits{}) == "3");
  CHECK(*module->Call("cleared", "[]", CallLimits{}) == R"("ok")");
}

TEST_CASE("a promise only a cleared timer could settle is reported at once") {
  auto module = LoadModule("timers/index.js");
  auto stuck = module->Call("clearedOnly", "[]", CallLimits{absl::Seconds(30)});
  CHECK(stuck.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(Message(stuck).find("returned a promise that never settled") != std::string::npos);
  // Nothing was terminated: the isolate is kept.
  CHECK(*module->Call("sleep", "[1,1]", CallLimits{}) == "1");
}

TEST_CASE("a timer due after the deadline fails the call without waiting for it") {
  auto module = LoadModule("timers/index.js");
  auto late = module->Call("tooSlow", "[]", CallLimits{absl::Milliseconds(200)});
  CHECK(late.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(Message(late).find("exceeded its time budget of 200ms") != std::string::npos);
  CHECK(*module->Call("sleep", "[1,\"again\"]", CallLimits{}) == R"("again")");
}

TEST_CASE("an endless timer callback is terminated at the call's deadline") {
  auto module = LoadModule("timers/index.js");
  auto looped = module->Call("loopInTimer", "[]", CallLimits{absl::Milliseconds(100)});
  CHECK(looped.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(*module->Call("sleep", "[1,\"fresh\"]", CallLimits{}) == R"("fresh")");
}

TEST_CASE("exceptions in timer and microtask callbacks are logged and the call goes on") {
  LogLines logs;
  ModuleOptions options;
  options.log = logs.Sink();
  auto module = LoadModule("timers/index.js", options);
  CHECK(*module->Call("throwingTimer", "[]", CallLimits{}) == R"("still running")");
  std::vector<std::string> errors = logs.Of("error");
  REQUIRE(errors.size() == 2);
  CHECK(logs.Contains("uncaught exception in a timer callback: "));
  CHECK(logs.Contains("Error: timer exploded"));
  CHECK(logs.Contains("TypeError: microtask exploded"));
  CHECK(logs.Contains(ModulePath("timers/index.js") + ":"));
}

TEST_CASE("timers left pending after a call fire while a later call waits") {
  auto module = LoadModule("timers/index.js");
  CHECK(*module->Call("scheduleLeftover", "[]", CallLimits{}) == R"("scheduled")");
  CHECK(*module->Call("leftoverCount", "[]", CallLimits{}) == "1");
}

TEST_CASE("top-level await on a timer works at load time") {
  auto module = LoadModule("timers/top_level_await.js");
  auto waited = Json(module->Call("waited", "[]", CallLimits{}));
  CHECK(waited.as_number() >= 9);

  auto never = TheRuntime()->Load(ModulePath("timers/top_level_never.js"), {});
  REQUIRE_FALSE(never.ok());
  CHECK(never.status().code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(std::string(never.status().message()).find("never settles") != std::string::npos);

  auto rejects = TheRuntime()->Load(ModulePath("timers/top_level_rejects.js"), {});
  REQUIRE_FALSE(rejects.ok());
  CHECK(rejects.status().code() == absl::StatusCode::kUnknown);
  CHECK(std::string(rejects.status().message()).find("RangeError: no config") != std::string::npos);
}

size_t OpenFileDescriptors() {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

TEST_CASE("destroying a module with timers still pending closes its loop") {
  LoadModule("timers/index.js")->Call("ids", "[]", CallLimits{}).IgnoreError();  // warm up
  size_t before = OpenFileDescriptors();
  for (int i = 0; i < 20; ++i) {
    auto module = LoadModule("timers/index.js");
    CHECK(*module->Call("scheduleLeftover", "[]", CallLimits{}) == R"("scheduled")");
    CHECK(*module->Call("ids", "[]", CallLimits{}) == R"(["number",true,true])");
  }
  CHECK(OpenFileDescriptors() <= before);
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline::js

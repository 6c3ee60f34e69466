// What the runtime gives plugline's own JS layers: built-in modules by bare specifier, a
// wrapper entry that imports the plugin file, and calls from JS into the host — in both
// isolation modes.
#include <doctest/doctest.h>

#include <atomic>

#include "js/runtime.h"
#include "js_test_util.h"
#include "test_util.h"

namespace plugline::js {
namespace {

using plugline::testing::TempDir;
using plugline::testing::WriteFile;

#if PLUGLINE_TEST_WITH_V8

Runtime* RuntimeFor(Isolation isolation) {
  auto runtime = GetRuntime(isolation);
  REQUIRE_MESSAGE(runtime.ok(), runtime.status().ToString());
  return *runtime;
}

void BuiltinsWrapperAndHostCalls(Isolation isolation) {
  TempDir dir;
  WriteFile(dir.Sub("plugin.js"), R"(import { greet } from "@example/greeter";
import { twice } from "./helper.js";
export const hello = (name) => twice(greet(name));
export default "not used by the wrapper";
)");
  WriteFile(dir.Sub("helper.js"), "export const twice = (s) => s + s;\n");
  ModuleOptions options;
  options.builtin_modules.push_back(
      {"@example/greeter", "export function greet(name) { return `hi ${name}. `; }\n"});
  options.wrapper_source = R"(import * as plugin from "plugline:plugin";
let calls = 0;
export default {
  hello(name) { calls += 1; return { text: plugin.hello(name), calls }; },
  ask(question) { return JSON.parse(__plugline_host_call(JSON.stringify({ question }))); },
  async askLater(question) { await null; return this.ask(question); },
  tryAsk(question) {
    try { return this.ask(question); } catch (e) { return { caught: String(e.message) }; }
  },
};
)";
  std::atomic<int> host_calls{0};
  options.host_call = [&](std::string_view request) -> absl::StatusOr<std::string> {
    ++host_calls;
    if (request.find("fail") != std::string_view::npos) {
      return absl::NotFoundError("no answer to that");
    }
    return std::string(R"({"answer":42,"echo":)") + std::string(request) + "}";
  };
  auto module = RuntimeFor(isolation)->Load(dir.Sub("plugin.js"), options);
  REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  CallLimits limits;
  // State lives in the wrapper between calls; the plugin and its imports work as usual.
  CHECK(*(*module)->Call("hello", R"(["ana"])", limits) ==
        R"({"text":"hi ana. hi ana. ","calls":1})");
  CHECK(*(*module)->Call("hello", R"(["bo"])", limits) == R"({"text":"hi bo. hi bo. ","calls":2})");
  CHECK(*(*module)->Call("ask", R"(["why?"])", limits) ==
        R"({"answer":42,"echo":{"question":"why?"}})");
  CHECK(*(*module)->Call("askLater", R"(["later"])", limits) ==
        R"({"answer":42,"echo":{"question":"later"}})");
  // A failed host call is an exception in JS, with the host's message.
  CHECK(*(*module)->Call("tryAsk", R"(["fail"])", limits) == R"({"caught":"no answer to that"})");
  auto thrown = (*module)->Call("ask", R"(["fail"])", limits);
  CHECK(!thrown.ok());
  CHECK(std::string(thrown.status().message()).find("no answer to that") != std::string::npos);
  CHECK(host_calls.load() == 4);
  // The files of the graph are the plugin's, entry first; no built-in or wrapper names.
  std::vector<std::string> files = (*module)->files();
  REQUIRE(files.size() == 2);
  CHECK(files[0].ends_with("/plugin.js"));
  CHECK(files[1].ends_with("/helper.js"));
}

TEST_CASE("runtime: built-in modules, a wrapper entry and host calls (in process)") {
  BuiltinsWrapperAndHostCalls(Isolation::kInProcess);
}

TEST_CASE("runtime: built-in modules, a wrapper entry and host calls (process isolation)") {
  BuiltinsWrapperAndHostCalls(Isolation::kProcess);
}

TEST_CASE("runtime: without a host callback, __plugline_host_call throws, unknown packages fail") {
  TempDir dir;
  WriteFile(dir.Sub("a.js"), "export default { ask() { return __plugline_host_call('x'); } };\n");
  WriteFile(dir.Sub("b.js"), "import x from \"@example/missing\";\nexport default x;\n");
  auto module = RuntimeFor(Isolation::kInProcess)->Load(dir.Sub("a.js"), {});
  REQUIRE(module.ok());
  auto result = (*module)->Call("ask", "[]", CallLimits{});
  CHECK(std::string(result.status().message()).find("no host callback") != std::string::npos);
  auto missing = RuntimeFor(Isolation::kInProcess)->Load(dir.Sub("b.js"), {});
  CHECK(!missing.ok());
  CHECK(std::string(missing.status().message()).find("@example/missing") != std::string::npos);
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline::js

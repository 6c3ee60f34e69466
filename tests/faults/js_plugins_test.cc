// Faults of JS plugins that the host must survive, through the real `plugline` binary: code
// that loops where the host touches the plugin, allocations V8 cannot stop, WebAssembly memory.
// Rows of docs/faults.md ("JS plugins") name these test cases.
#include <doctest/doctest.h>

#include <string>

#include "absl/strings/match.h"
#include "cli/cli_runner.h"
#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline {
namespace {

#if PLUGLINE_TEST_WITH_V8

using testing::Cli;
using testing::WriteFile;

// The `skipped` entry of shaper `id` in a `plugline shape --json` result ("" when none).
std::string SkippedDetail(const std::string& json, std::string_view id) {
  auto value = core::ParseJson(json, "plugline shape --json");
  REQUIRE_MESSAGE(value.ok(), value.status().ToString());
  for (const core::Value& skipped : value->Find("skipped")->as_array()) {
    if (skipped.Find("plugin")->as_string() == id) return skipped.Find("detail")->as_string();
  }
  return "";
}

void UseIsolation(const Cli& cli, const char* isolation) {
  WriteFile(cli.home.Sub("config.yaml"),
            StrCat("plugins:\n  js:\n    isolation: ", isolation, "\n    heap_limit_mb: 32\n"));
}

constexpr std::string_view kMeta =
    R"(meta: { name: "NAME", version: "1.0.0", description: "d", tier: "community" },)";

std::string Shaper(std::string_view name, std::string_view body) {
  std::string meta(kMeta);
  meta.replace(meta.find("NAME"), 4, name);
  return StrCat("export default {\n  ", meta, "\n", body, "\n};\n");
}

TEST_CASE("a JS shaper whose thrown value or getters loop cannot hang plugline shape") {
  for (const char* isolation : {"in-process", "process"}) {
    CAPTURE(isolation);
    Cli cli;
    UseIsolation(cli, isolation);
    WriteFile(cli.home.Sub("plugins/tostring.js"),
              Shaper("tostring", R"(  match() { throw { toString() { for (;;) {} } }; },
  shape() { return { summary: "never" }; },)"));
    WriteFile(cli.home.Sub("plugins/message.js"), Shaper("message", R"(
  match() { return { matched: true, confidence: 1 }; },
  shape() {
    const e = new Error("x");
    Object.defineProperty(e, "message", { get() { for (;;) {} } });
    throw e;
  },)"));
    auto shaped = cli.Run({"shape", "--json", "--command", "make"}, "", "line one\nline two\n");
    CHECK(shaped.exit_status == 0);
    CHECK(SkippedDetail(shaped.output, "tostring") ==
          "call to match() exceeded its time budget of 200ms");
    auto value = core::ParseJson(shaped.output, "shape");
    REQUIRE(value.ok());
    CHECK(value->Find("shaper")->as_string() == "message");
    CHECK(value->Find("fallback")->as_string() ==
          "shaper timed out: call to shape() exceeded its time budget of 2s");
    CHECK(absl::StartsWith(value->Find("summary")->as_string(), "line one\nline two\n"));
  }
}

TEST_CASE("a JS plugin whose meta getter or exports loop cannot hang plugline plugins") {
  for (const char* isolation : {"in-process", "process"}) {
    CAPTURE(isolation);
    Cli cli;
    UseIsolation(cli, isolation);
    WriteFile(cli.home.Sub("plugins/meta.js"), R"(export default {
  get meta() { for (;;) {} },
  match() { return { matched: false }; },
  shape() { return { summary: "" }; },
};)");
    WriteFile(cli.home.Sub("plugins/proxy.js"),
              "const loop = () => { for (;;) {} };\n"
              "export default new Proxy({}, { get: loop, has: loop, ownKeys: loop });\n");
    auto listing = cli.Run({"plugins", "--json"});
    CHECK(listing.exit_status == 0);
    auto value = core::ParseJson(listing.output, "plugins --json");
    REQUIRE(value.ok());
    int broken = 0;
    for (const core::Value& p : value->Find("plugins")->as_array()) {
      std::string id = p.Find("id")->as_string();
      if (id != "meta" && id != "proxy") continue;
      CAPTURE(id);
      CHECK(p.Find("state")->as_string() == "broken");
      CHECK(p.Find("reason")->as_string().find("exceeded its time budget") != std::string::npos);
      ++broken;
    }
    CHECK(broken == 2);
  }
}

TEST_CASE("an OpenCode plugin whose hooks object or thrown value loops cannot hang plugline hook") {
  Cli cli;
  WriteFile(cli.home.Sub("config.yaml"), "plugins:\n  js:\n    hook_timeout_ms: 300\n");
  WriteFile(cli.home.Sub("plugins/getter.js"),
            "export default async () => ({ get \"tool.execute.before\"() { for (;;) {} } });\n");
  WriteFile(cli.home.Sub("plugins/thrower.js"), R"(export default async () => ({
  "tool.execute.after": async () => { throw { toString() { for (;;) {} } }; },
});
)");
  auto before = cli.Run({"hook", "pre_tool_call"}, "", R"({"tool":"bash","arguments":"{}"})");
  CHECK(before.exit_status == 0);
  CHECK(before.output.find(R"("plugin":"getter","why":"deadline_exceeded")") != std::string::npos);
  auto after = cli.Run({"hook", "post_tool_call"}, "",
                       R"({"tool":"bash","arguments":"{}","result":"ok"})");
  CHECK(after.exit_status == 0);
  // The wrapper describes what a hook threw in JS, under the same budget; either way the
  // plugin is skipped and the result stays.
  CHECK(after.output.find(R"("skipped":[{"plugin":"thrower")") != std::string::npos);
  CHECK(after.output.find(R"("result":"ok")") != std::string::npos);
}

TEST_CASE("a JS shaper's allocation V8 cannot stop does not kill plugline shape") {
  for (const char* isolation : {"in-process", "process"}) {
    CAPTURE(isolation);
    Cli cli;
    UseIsolation(cli, isolation);
    WriteFile(cli.home.Sub("plugins/fill.js"),
              Shaper("fill", R"(  match() { return { matched: new Array(1e8).fill(1.5).length > 0, confidence: 1 }; },
  shape() { return { summary: "never" }; },)"));
    auto shaped = cli.Run({"shape", "--json", "--command", "make"}, "", "built\n");
    CHECK(shaped.exit_status == 0);
    auto value = core::ParseJson(shaped.output, "shape");
    REQUIRE_MESSAGE(value.ok(), shaped.output);
    CHECK(value->Find("summary")->as_string() == "built\n");
    std::string detail = SkippedDetail(shaped.output, "fill");
    if (std::string_view(isolation) == "in-process") {
      CHECK(detail.find("call to match() ran out of memory in a way V8 cannot stop in process") ==
            0);
    } else {
      // The worker dies of it, or is killed at the deadline before it does.
      CHECK((detail.find("call to match() exceeded the worker's memory limit") == 0 ||
             detail == "call to match() exceeded its time budget of 200ms"));
    }
  }
}

TEST_CASE("a JS plugin's module top level that allocates without bound does not kill the host") {
  Cli cli;
  UseIsolation(cli, "in-process");
  WriteFile(cli.home.Sub("plugins/toplevel.js"),
            StrCat("const filled = new Array(1e8).fill(1.5);\n", Shaper("toplevel", R"(
  match() { return { matched: filled.length > 0, confidence: 1 }; },
  shape() { return { summary: "never" }; },)")));
  auto listing = cli.Run({"plugins", "--json"});
  CHECK(listing.exit_status == 0);
  CHECK(listing.output.find("loading the module ran out of memory") != std::string::npos);
  auto shaped = cli.Run({"shape", "--command", "make"}, "", "built\n");
  CHECK(shaped.exit_status == 0);
  CHECK(shaped.output == "built\n");
}

TEST_CASE("a JS shaper's WebAssembly memory is bounded") {
  Cli cli;
  UseIsolation(cli, "in-process");
  WriteFile(cli.home.Sub("plugins/wasm.js"), Shaper("wasm", R"(
  match(command) {
    if (command === "one") new WebAssembly.Memory({ initial: 65536 });
    const kept = [];
    for (let i = 0; i < 200; i++) {
      const memory = new WebAssembly.Memory({ initial: 16 });
      new Uint8Array(memory.buffer).fill(1);
      kept.push(memory);
    }
    return { matched: true, confidence: 1 };
  },
  shape() { return { summary: "never" }; },)"));
  auto one = cli.Run({"shape", "--json", "--command", "one"}, "", "x\n");
  CHECK(one.exit_status == 0);
  CHECK(SkippedDetail(one.output, "wasm").find("RangeError: WebAssembly.Memory()") !=
        std::string::npos);
  auto many = cli.Run({"shape", "--json", "--command", "many"}, "", "x\n");
  CHECK(many.exit_status == 0);
  CHECK(SkippedDetail(many.output, "wasm") ==
        "call to match() exceeded the ArrayBuffer and WebAssembly memory limit of 16 MiB");
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline

// One Host used from many threads at once, as a server or a multi-session agent uses it:
// shaping, hook dispatch through exec and native hooks, reloads and listings interleaved. What
// each call returns must be whole, and the counts kept across threads exact. This file is also
// the core of the ThreadSanitizer run (docs/testing.md), which sees the races a passing run
// hides.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "core/json.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::SourceDir;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

constexpr std::string_view kPayload =
    R"({"session_id":"ses_1","platform":"cli","tool":"terminal",)"
    R"("arguments":"{\"command\":\"make\"}"})";

// An exec plugin (sh) answering every pre_tool_call with a notice naming it: a oneshot one,
// or with `persistent` one long-lived process answering request lines ({"id":N,...}).
void NoticePlugin(const std::string& dir, std::string_view name, bool persistent) {
  WriteFile(dir + "/plugin.yaml",
            StrCat("name: ", name, "\ncommand: ./run.sh\nhooks: [pre_tool_call]\n",
                   persistent ? "protocol: persistent\n" : ""));
  const std::string oneshot = StrCat("cat > /dev/null\nprintf '{\"notice\":\"", name, "\"}'\n");
  const std::string line_loop =
      StrCat("while read -r line; do\n",
             "  id=${line#*\\\"id\\\":}; id=${id%%,*}\n",
             "  printf '{\"id\":%s,\"notice\":\"", name, "\"}\\n' \"$id\"\n",
             "done\n");
  WriteFile(dir + "/run.sh", StrCat("#!/bin/sh\n", persistent ? line_loop : oneshot));
  ::chmod((dir + "/run.sh").c_str(), 0755);
}

double ShapeCount(const core::Value& stats, std::string_view shaper) {
  const core::Value* shapers = stats.Find("shapers");
  const core::Value* entry = shapers != nullptr ? shapers->Find(shaper) : nullptr;
  const core::Value* count = entry != nullptr ? entry->Find("shape_count") : nullptr;
  return count != nullptr && count->is_number() ? count->as_number() : -1;
}

TEST_CASE("one host from 8 threads: Shape, Dispatch (exec and native hooks), Reload and PluginsJson") {
  TempDir home;
  NoticePlugin(home.Sub("plugins/oneshot-notice"), "oneshot-notice", /*persistent=*/false);
  NoticePlugin(home.Sub("plugins/persistent-notice"), "persistent-notice", /*persistent=*/true);
#if PLUGLINE_TEST_WITH_V8
  // A JS shaper, so shaping from several threads also goes through one V8 isolate.
  WriteFile(home.Sub("plugins/terra.js"), R"(export default {
  meta: { name: "terra", version: "1.0.0", description: "terra plan summaries", tier: "community" },
  match(command) { return /^terra\b/.test(command) ? { matched: true, confidence: 0.9 } : { matched: false, confidence: 0 }; },
  shape(output, ctx) { return { summary: `terra: ${ctx.outputLines} lines` }; },
};
)");
#endif
  HostOptions options;
  options.home = home.path();
  auto created = Host::Create(options);
  REQUIRE_MESSAGE(created.ok(), created.status().ToString());
  std::unique_ptr<Host> host = *std::move(created);

  std::atomic<int> native_calls{0};
  NativeHookOptions hook;
  hook.id = "native-notice";
  hook.events = {"pre_tool_call"};
  hook.function = [&](std::string_view, std::string_view payload) -> absl::StatusOr<HookAnswer> {
    native_calls.fetch_add(1);
    HookAnswer answer;
    answer.notice = "native-notice";
    return answer;
  };
  REQUIRE(host->AddHook(std::move(hook)).ok());

  const std::string pytest = ReadFileOrEmpty(SourceDir() + "/fixtures/test/pytest_failing.out");
  REQUIRE_FALSE(pytest.empty());
  std::string plan;
  for (int i = 0; i < 200; ++i) StrAppend(&plan, "  reading resource ", i, " ... ok\n");

  constexpr int kThreads = 8;
  constexpr int kRounds = 8;
  std::atomic<int> test_shapes{0};
  std::atomic<int> js_shapes{0};
  std::atomic<int> dispatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        switch ((t + round) % 5) {
          case 0: {
            auto shaped = host->Shape(ShapeRequest{"pytest tests", pytest, 1, ""});
            REQUIRE_MESSAGE(shaped.ok(), shaped.status().ToString());
            CHECK(shaped->shaper == "builtin-test");
            CHECK(absl::StrContains(shaped->summary, "test_discount_is_capped"));
            test_shapes.fetch_add(1);
            break;
          }
          case 1: {
            auto result = host->Dispatch("pre_tool_call", kPayload);
            REQUIRE_MESSAGE(result.ok(), result.status().ToString());
            dispatches.fetch_add(1);
            CHECK_FALSE(result->denied);
            CHECK(result->skipped.empty());
            std::vector<std::string> from;
            for (const auto& notice : result->notices) from.push_back(notice.plugin);
            // Every plugin answered, in dispatch order: plugin folder (name order), then native.
            CHECK(from == std::vector<std::string>{"oneshot-notice", "persistent-notice",
                                                   "native-notice"});
            break;
          }
          case 2:
            host->Reload();
            break;
          case 3: {
            auto listing = core::ParseJson(host->PluginsJson(), "plugins");
            REQUIRE(listing.ok());
            int found = 0;
            for (const core::Value& p : listing->Find("plugins")->as_array()) {
              const std::string& id = p.Find("id")->as_string();
              found += id == "oneshot-notice" || id == "persistent-notice" ||
                       id == "native-notice";
            }
            CHECK(found == 3);
            break;
          }
          case 4: {
#if PLUGLINE_TEST_WITH_V8
            auto shaped = host->Shape(ShapeRequest{"terra plan", plan, 0, ""});
            REQUIRE_MESSAGE(shaped.ok(), shaped.status().ToString());
            CHECK(shaped->shaper == "terra");
            CHECK(shaped->summary.starts_with("terra: 200 lines"));
            js_shapes.fetch_add(1);
#endif
            auto stats = host->StatsJson();
            CHECK(stats.ok());
            break;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  CHECK(dispatches.load() > 0);
  CHECK(native_calls.load() == dispatches.load());
  // Every shaping was counted once, whichever thread made it.
  auto stats = core::ParseJson(*host->StatsJson(), "stats");
  REQUIRE(stats.ok());
  CHECK(ShapeCount(*stats, "builtin-test") == test_shapes.load());
#if PLUGLINE_TEST_WITH_V8
  CHECK(ShapeCount(*stats, "terra") == js_shapes.load());
#endif
}

}  // namespace
}  // namespace plugline

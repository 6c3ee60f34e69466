// Hook input plugline must not read two ways, and plugin text it must not pass on raw, through
// the Host with real exec plugins in $PLUGLINE_HOME/plugins: duplicate keys in answers,
// payloads, manifests and config; unknown answer keys and near-miss event names; plugin names
// with control characters; secrets in what a failing plugin prints.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "absl/strings/match.h"
#include "core/json.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

constexpr std::string_view kPayload =
    R"({"event":"pre_tool_call","session_id":"ses_1","tool":"terminal",)"
    R"("arguments":"{\"command\":\"make\"}"})";

// A /bin/sh exec plugin in <home>/plugins/<folder> whose program prints `answer` (after reading
// stdin and touching `ran`).
void ShPlugin(const TempDir& home, std::string_view folder, std::string_view manifest,
              std::string_view body) {
  const std::string dir = home.Sub(StrCat("plugins/", folder));
  WriteFile(dir + "/plugin.yaml", manifest);
  WriteFile(dir + "/run.sh", StrCat("#!/bin/sh\nPAYLOAD=$(cat)\ntouch ran\n", body, "\n"));
  ::chmod((dir + "/run.sh").c_str(), 0755);
}

std::string Manifest(std::string_view name, std::string_view extra = "") {
  return StrCat("name: ", name, "\ncommand: ./run.sh\nhooks: [pre_tool_call, post_tool_call]\n",
                extra);
}

std::unique_ptr<Host> Open(const TempDir& home) {
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE_MESSAGE(host.ok(), host.status().ToString());
  return *std::move(host);
}

DispatchResult Dispatch(Host& host, std::string_view event = "pre_tool_call",
                        std::string_view payload = kPayload) {
  auto result = host.Dispatch(event, payload);
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  return *std::move(result);
}

core::Value Entry(Host& host, std::string_view id) {
  auto all = core::ParseJson(host.PluginsJson(), "plugins");
  REQUIRE(all.ok());
  for (const core::Value& p : all->Find("plugins")->as_array()) {
    if (p.Find("id")->is_string() && p.Find("id")->as_string() == id) return p;
  }
  FAIL("no plugin ", id, " in ", host.PluginsJson());
  return core::Value();
}

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

// --- duplicate keys ---------------------------------------------------------------------------

// First-wins here and last-wins in Python/JS readers: `{"deny":false,"deny":true}` was allowed.
TEST_CASE("hook faults: an answer with a duplicate key is a failed call; fail-closed denies") {
  TempDir home;
  ShPlugin(home, "open", Manifest("open"), R"(echo '{"deny":false,"deny":true}')");
  ShPlugin(home, "zz-after", Manifest("zz-after"), R"(echo '{"notice":"after ran"}')");
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  CHECK_FALSE(r.denied);
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].plugin == "open");
  CHECK(r.skipped[0].why == "invalid_argument");
  CHECK(Contains(r.skipped[0].detail, R"(stdout: duplicate key "deny" in the top-level object)"));
  REQUIRE(r.notices.size() == 1);  // the chain went on

  TempDir closed_home;
  ShPlugin(closed_home, "closed", Manifest("closed", "on_error: closed\n"),
           R"(echo '{"deny":true,"deny":false}')");
  auto closed = Open(closed_home);
  DispatchResult d = Dispatch(*closed);
  CHECK(d.denied);
  CHECK(d.denied_by == "closed");
  CHECK(Contains(d.reason, "plugin closed failed and fails closed"));
  CHECK(Contains(d.reason, R"(duplicate key "deny")"));
}

TEST_CASE("hook faults: a persistent plugin's answer line with a duplicate key fails the call") {
  TempDir home;
  WriteFile(home.Sub("plugins/p/plugin.yaml"),
            "name: p\ncommand: ./run.py\nhooks: [pre_tool_call]\nprotocol: persistent\n"
            "on_error: closed\n");
  WriteFile(home.Sub("plugins/p/run.py"), R"(#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    print('{"id":%d,"arguments":"{}","arguments":"{\\"command\\":\\"rm\\"}"}' % request["id"],
          flush=True)
)");
  ::chmod(home.Sub("plugins/p/run.py").c_str(), 0755);
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  CHECK(r.denied);
  CHECK(Contains(r.reason, R"(duplicate key "arguments")"));
  CHECK(Contains(*r.arguments, "make"));  // neither copy was applied
}

TEST_CASE("hook faults: a payload with a duplicate key is refused before any plugin runs") {
  TempDir home;
  ShPlugin(home, "watch", Manifest("watch"), "echo '{}'");
  auto host = Open(home);
  auto refused = host->Dispatch(
      "pre_tool_call",
      R"({"tool":"terminal","arguments":"{\"command\":\"ls\"}","arguments":"{\"command\":\"rm -rf /\"}"})");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Contains(ToStd(refused.status().message()), R"(duplicate key "arguments" in the top-level object)"));
  // Nested too: a plugin reading payload fields must see one value.
  auto nested = host->Dispatch("post_tool_call", R"({"meta":{"cwd":"/a","cwd":"/b"}})");
  REQUIRE_FALSE(nested.ok());
  CHECK(Contains(ToStd(nested.status().message()), R"(duplicate key "cwd" in the object at meta)"));
  CHECK_FALSE(::access(home.Sub("plugins/watch/ran").c_str(), F_OK) == 0);
}

TEST_CASE("hook faults: a manifest with a duplicate key is broken, naming both lines") {
  TempDir home;
  // With first-wins this guard ran fail-open.
  ShPlugin(home, "guard",
           "name: guard\non_error: open\ncommand: ./run.sh\non_error: closed\nhooks: [pre_tool_call]\n",
           "echo '{}'");
  auto host = Open(home);
  core::Value entry = Entry(*host, "guard");
  CHECK(Str(entry, "state") == "broken");
  CHECK(Contains(Str(entry, "reason"),
                 StrCat(home.Sub("plugins/guard/plugin.yaml"),
                        ":4:1: duplicate key \"on_error\" (first at line 2)")));
}

TEST_CASE("hook faults: a config.yaml with a duplicate key is a diagnostic naming the line") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "plugins:\n  enabled: false\n  enabled: true\n");
  auto host = Open(home);
  std::vector<std::string> diagnostics = host->diagnostics();
  REQUIRE(diagnostics.size() == 1);
  CHECK(Contains(diagnostics[0],
                 StrCat(home.Sub("config.yaml"), ":3:3: duplicate key \"enabled\" (first at line 2)")));
}

}  // namespace
}  // namespace plugline

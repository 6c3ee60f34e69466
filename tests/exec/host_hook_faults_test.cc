// Hook input plugline must not read two ways, and plugin text it must not pass on raw, through
// the Host with real exec plugins in $PLUGLINE_HOME/plugins: duplicate keys in answers,
// payloads, manifests and config; unknown answer keys and near-miss event names; plugin names
// with control characters; secrets in what a failing plugin prints.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "core/json.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

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
TEST_CASE("hook faults: an answer with a duplicate key is a failed call, fail-closed denies") {
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

// --- unknown answer keys and near-miss event names --------------------------------------------

TEST_CASE("hook faults: an exec plugin answering denied for deny gets a warning naming deny") {
  TempDir home;
  ShPlugin(home, "guard", Manifest("guard"), R"(echo '{"denied":true,"reason":"no"}')");
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  CHECK_FALSE(r.denied);  // still no opinion: a guessed key is never acted on
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].plugin == "guard");
  CHECK(r.warnings[0].text == R"(unknown answer key "denied" ignored (did you mean "deny"?))");
  auto json = core::ParseJson(r.ToJson(), "result");
  REQUIRE(json.ok());
  CHECK(json->Find("warnings")->as_array()[0].Find("plugin")->as_string() == "guard");
  CHECK(Contains(ReadFileOrEmpty(home.Sub("logs/plugline.log")),
                 R"(warn plugin guard: unknown answer key "denied" ignored)"));
}

TEST_CASE("hook faults: a persistent plugin's `id` is not an unknown key, a typo still is") {
  TempDir home;
  WriteFile(home.Sub("plugins/p/plugin.yaml"),
            "name: p\ncommand: ./run.py\nhooks: [pre_tool_call]\nprotocol: persistent\n");
  WriteFile(home.Sub("plugins/p/run.py"), R"(#!/usr/bin/env python3
import json, sys
for line in sys.stdin:
    print(json.dumps({"id": json.loads(line)["id"], "notcie": "hi"}), flush=True)
)");
  ::chmod(home.Sub("plugins/p/run.py").c_str(), 0755);
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].text == R"(unknown answer key "notcie" ignored (did you mean "notice"?))");
}

TEST_CASE("hook faults: dispatching pre_tool_cal warns that nothing can deny it") {
  TempDir home;
  ShPlugin(home, "guard", Manifest("guard"), R"(echo '{"deny":true}')");
  auto host = Open(home);
  REQUIRE(host->AddHook({"host-guard", {"*"}, [](std::string_view, std::string_view) {
                           HookAnswer a;
                           a.deny = true;
                           return absl::StatusOr<HookAnswer>(a);
                         }})
              .ok());
  DispatchResult r = Dispatch(*host, "pre_tool_cal");
  CHECK_FALSE(r.denied);
  REQUIRE_FALSE(r.warnings.empty());
  CHECK(r.warnings[0].plugin.empty());
  CHECK(Contains(r.warnings[0].text, R"(event "pre_tool_cal" is not a canonical event (did you )"
                                     R"(mean "pre_tool_call"?))"));
  CHECK(Contains(ReadFileOrEmpty(home.Sub("logs/plugline.log")), "warn dispatch: event"));
  CHECK(Dispatch(*host, "deploy_finished").warnings.empty());
}

TEST_CASE("hook faults: a misspelt event is named at load: exec broken with the fix, native warned") {
  TempDir home;
  ShPlugin(home, "typo", "name: typo\ncommand: ./run.sh\nhooks: [pre_tool_cal]\n", "echo '{}'");
  auto host = Open(home);
  REQUIRE(host->AddHook({"mine", {"pre_tool_cal", "deploy_done"},
                         [](std::string_view, std::string_view) {
                           return absl::StatusOr<HookAnswer>(HookAnswer{});
                         }})
              .ok());
  core::Value typo = Entry(*host, "typo");
  CHECK(Str(typo, "state") == "broken");
  CHECK(Contains(Str(typo, "reason"),
                 "unknown hook name `pre_tool_cal` (did you mean `pre_tool_call`? known: "));
  core::Value mine = Entry(*host, "mine");
  REQUIRE(mine.Find("warnings")->as_array().size() == 1);  // deploy_done is the host's own
  CHECK(Contains(mine.Find("warnings")->as_array()[0].as_string(),
                 R"(event "pre_tool_cal" is not a canonical event (did you mean "pre_tool_call"?))"));
  CHECK(Contains(ReadFileOrEmpty(home.Sub("logs/plugline.log")), "warn native hook mine: event"));
}

// --- plugin names -----------------------------------------------------------------------------

TEST_CASE("hook faults: an exec plugin named with a newline or ESC is broken, nothing forged") {
  TempDir home;
  const std::string forged = "evil\n2026-01-01T00:00:00.000Z info plugin x: all clear";
  ShPlugin(home, "newline", StrCat("name: \"", "evil\\n2026-01-01T00:00:00.000Z info plugin x: ",
                                   "all clear\"\ncommand: ./run.sh\nhooks: [pre_tool_call]\n"),
           R"(echo '{"notice":"ran"}')");
  ShPlugin(home, "escape", "name: \"x\\e]52;c;ZWNobyBoaQ==\\a\"\ncommand: ./run.sh\n"
                           "hooks: [pre_tool_call]\n",
           R"(echo '{"notice":"ran"}')");
  ShPlugin(home, "spaces", "name: two words\ncommand: ./run.sh\nhooks: [pre_tool_call]\n",
           R"(echo '{"notice":"ran"}')");
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  CHECK(r.plugins.empty());  // none of them ran
  const std::string listing = host->PluginsJson();
  CHECK_FALSE(Contains(listing, "\x1b"));  // JSON escapes, but the reason is escaped before that
  for (std::string_view folder : {"newline", "escape", "spaces"}) {
    core::Value entry = Entry(*host, folder);
    CAPTURE(folder);
    CHECK(Str(entry, "state") == "broken");
    CHECK(Contains(Str(entry, "reason"), "is not a valid id (1-64 letters, digits"));
    CHECK_FALSE(Contains(Str(entry, "reason"), "\n"));
    CHECK_FALSE(Contains(Str(entry, "reason"), "\x1b"));
  }
  CHECK(Contains(Str(Entry(*host, "newline"), "reason"),
                 R"(`name` "evil\n2026-01-01T00:00:00.000Z info plugin x: all clear" is not)"));
  CHECK(Contains(Str(Entry(*host, "escape"), "reason"), R"("x\x1b]52;c;ZWNobyBoaQ==\x07")"));
  const std::string log = ReadFileOrEmpty(home.Sub("logs/plugline.log"));
  CHECK_FALSE(Contains(log, forged));
  CHECK_FALSE(Contains(log, "\x1b"));
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    CHECK((line.empty() || absl::StartsWith(line, "20")));  // every record is one line
  }
}

// --- secrets in what a failing plugin prints ----------------------------------------------------

constexpr std::string_view kSecrets[] = {"sk-proj0123456789abcdefghij",
                                         "ghp_0123456789abcdefghijABCDEFGHIJ012345",
                                         "AKIAIOSFODNN7EXAMPLE", "hunter2hunter2"};

// Prints each secret on stderr (the last line is what a failure quotes) and fails.
constexpr std::string_view kLeaky =
    "echo 'debug: key sk-proj0123456789abcdefghij' >&2\n"
    "echo 'aws AKIAIOSFODNN7EXAMPLE' >&2\n"
    "echo 'login password=hunter2hunter2 token ghp_0123456789abcdefghijABCDEFGHIJ012345 "
    "AKIAIOSFODNN7EXAMPLE sk-proj0123456789abcdefghij' >&2\n"
    "exit 1";

void CheckMasked(std::string_view text) {
  CAPTURE(text);
  for (std::string_view secret : kSecrets) CHECK_FALSE(Contains(text, secret));
}

TEST_CASE("hook faults: a failing plugin's stderr is masked in skipped[].detail and the log") {
  TempDir home;
  ShPlugin(home, "leaky", Manifest("leaky"), kLeaky);
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  REQUIRE(r.skipped.size() == 1);
  const std::string& detail = r.skipped[0].detail;
  CHECK(Contains(detail, "exited with status 1; stderr: login password=[redacted] token "
                         "ghp_[redacted] AKIA[redacted] sk-[redacted]"));
  CheckMasked(detail);
  CheckMasked(r.ToJson());
  const std::string log = ReadFileOrEmpty(home.Sub("logs/plugline.log"));
  CHECK(Contains(log, "plugin leaky stderr"));
  CheckMasked(log);
}

TEST_CASE("hook faults: a fail-closed plugin's deny reason quoting its stderr is masked") {
  TempDir home;
  ShPlugin(home, "leaky", Manifest("leaky", "on_error: closed\n"), kLeaky);
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  CHECK(r.denied);
  CHECK(Contains(r.reason, "plugin leaky failed and fails closed: exited with status 1"));
  CHECK(Contains(r.reason, "sk-[redacted]"));
  CheckMasked(r.reason);
}

TEST_CASE("hook faults: a persistent plugin that dies printing secrets is masked too") {
  TempDir home;
  ShPlugin(home, "leaky", Manifest("leaky", "protocol: persistent\n"), "");
  // Reads its request line (not to EOF, as the oneshot helper does), then dies.
  WriteFile(home.Sub("plugins/leaky/run.sh"), StrCat("#!/bin/sh\nread line\n", kLeaky, "\n"));
  auto host = Open(home);
  DispatchResult r = Dispatch(*host);
  REQUIRE(r.skipped.size() == 1);
  CHECK(Contains(r.skipped[0].detail, "sk-[redacted]"));
  CheckMasked(r.ToJson());
}

}  // namespace
}  // namespace plugline

// Hook dispatch through the Host: exec plugins found in plugin directories, in dispatch order,
// with native hooks after them; real processes, real files.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "absl/strings/match.h"
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
    R"({"event":"pre_tool_call","session_id":"ses_1","platform":"cli","tool":"terminal",)"
    R"("arguments":"{\"command\":\"make\"}"})";

// A python3 exec plugin in `dir` that appends ` <tag>` to arguments.command (and touches
// `<dir>/ran` so a test can tell it started).
void Tagger(const std::string& dir, std::string_view name, std::string_view tag,
            std::string_view extra_yaml = "") {
  WriteFile(dir + "/plugin.yaml",
            StrCat("name: ", name, "\ncommand: ./run.py\nhooks: [pre_tool_call]\nenv:\n  TAG: \"",
                   tag, "\"\n", extra_yaml));
  WriteFile(dir + "/run.py", R"(#!/usr/bin/env python3
import json, os, sys
open("ran", "w").close()
payload = json.load(sys.stdin)
args = json.loads(payload.get("arguments") or "{}")
args["command"] = args.get("command", "") + " " + os.environ["TAG"]
print(json.dumps({"arguments": json.dumps(args)}))
)");
  ::chmod((dir + "/run.py").c_str(), 0755);
}

// A /bin/sh exec plugin in `dir` whose program is `body` (after reading stdin).
void ShPlugin(const std::string& dir, std::string_view name, std::string_view body,
              std::string_view hooks = "[pre_tool_call]", std::string_view extra_yaml = "") {
  WriteFile(dir + "/plugin.yaml", StrCat("name: ", name, "\ncommand: ./run.sh\nhooks: ", hooks,
                                         "\n", extra_yaml));
  WriteFile(dir + "/run.sh", StrCat("#!/bin/sh\nPAYLOAD=$(cat)\ntouch ran\n", body, "\n"));
  ::chmod((dir + "/run.sh").c_str(), 0755);
}

struct Fixture {
  TempDir home;
  TempDir project;
  std::unique_ptr<Host> host;

  void Open() {
    HostOptions options;
    options.home = home.path();
    options.project_dir = project.path();
    // The project's plugins are part of what these tests test: trusted as `plugline trust` does.
    plugline::testing::TrustProject(home.path(), project.path());
    auto created = Host::Create(options);
    REQUIRE_MESSAGE(created.ok(), created.status().ToString());
    host = *std::move(created);
  }
  DispatchResult Dispatch(std::string_view event = "pre_tool_call",
                          std::string_view payload = kPayload) {
    auto result = host->Dispatch(event, payload);
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    return *std::move(result);
  }
  // The listing entry with this id (the last one when shadowed).
  core::Value Entry(std::string_view id) {
    auto all = core::ParseJson(host->PluginsJson(), "plugins");
    REQUIRE(all.ok());
    core::Value found;
    for (const core::Value& p : all->Find("plugins")->as_array()) {
      if (p.Find("id")->as_string() == id) found = p;
    }
    REQUIRE_MESSAGE(!found.is_null(), "no plugin " << id << " in " << host->PluginsJson());
    return found;
  }
};

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

std::string Command(const DispatchResult& r) {
  REQUIRE(r.arguments.has_value());
  auto args = core::ParseJson(*r.arguments, "arguments");
  REQUIRE(args.ok());
  return args->Find("command")->as_string();
}

TEST_CASE("host hooks: two rewriters compose in name order") {
  Fixture f;
  Tagger(f.home.Sub("plugins/b-second"), "b-second", "--second");
  Tagger(f.home.Sub("plugins/a-first"), "a-first", "--first");
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(!r.denied);
  CHECK(Command(r) == "make --first --second");
  REQUIRE(r.plugins.size() == 2);
  CHECK(r.plugins[0].plugin == "a-first");
  CHECK(r.plugins[0].action == "rewrite");
  CHECK(r.plugins[1].plugin == "b-second");
  CHECK(r.plugins[1].ms > 0);
}

TEST_CASE("host: Plugins() lists built-in shapers, exec hooks and native hooks, typed, as PluginsJson does") {
  Fixture f;
  Tagger(f.home.Sub("plugins/tagger"), "tagger", "--t");
  ShPlugin(f.home.Sub("plugins/broken"), "broken", "exit 0", "[pre_tool_call]", "bogus: [");
  f.Open();
  REQUIRE(f.host->AddHook({"native", {"post_tool_call"}, [](std::string_view, std::string_view) {
                             return absl::StatusOr<HookAnswer>(HookAnswer{});
                           }}).ok());
  const PluginList list = f.host->Plugins();
  auto find = [&](std::string_view id) -> const PluginInfo* {
    for (const PluginInfo& info : list.plugins) {
      if (info.id == id) return &info;
    }
    return nullptr;
  };
  const PluginInfo* generic = find("builtin-generic");
  REQUIRE(generic != nullptr);
  CHECK(generic->kind == "builtin-shaper");
  CHECK(generic->state == "enabled");
  CHECK(generic->stats.has_value());  // a shaper's figures, zero so far
  const PluginInfo* tagger = find("tagger");
  REQUIRE(tagger != nullptr);
  CHECK(tagger->kind == "exec-hook");
  CHECK(tagger->source == "global");
  CHECK(tagger->events == std::vector<std::string>{"pre_tool_call"});
  CHECK_FALSE(tagger->stats.has_value());
  const PluginInfo* broken = find("broken");
  REQUIRE(broken != nullptr);
  CHECK(broken->state == "broken");
  CHECK_FALSE(broken->reason.empty());
  const PluginInfo* native = find("native");
  REQUIRE(native != nullptr);
  CHECK(native->kind == "native-hook");
  CHECK(native->source == "host");
  CHECK(list.ToJson() == f.host->PluginsJson());
}

TEST_CASE("host hooks: order is global config dirs, project config dirs, global, project") {
  Fixture f;
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  dirs: [from-global-config]\n");
  WriteFile(f.project.Sub(".plugline/config.yaml"), "plugins:\n  dirs: [from-project-config]\n");
  // Names in reverse of the expected order, so name order alone would get it wrong.
  Tagger(f.home.Sub("from-global-config/z"), "z", "1-global-config");
  Tagger(f.project.Sub("from-project-config/y"), "y", "2-project-config");
  Tagger(f.home.Sub("plugins/x"), "x", "3-global");
  Tagger(f.project.Sub(".plugline/plugins/w"), "w", "4-project");
  f.Open();
  CHECK(Command(f.Dispatch()) == "make 1-global-config 2-project-config 3-global 4-project");
  CHECK(Str(f.Entry("z"), "source") == "global-config");
  CHECK(Str(f.Entry("y"), "source") == "project-config");
  CHECK(Str(f.Entry("w"), "source") == "project");
}

TEST_CASE("host hooks: a deny ends the chain, the plugins after it never start") {
  Fixture f;
  Tagger(f.home.Sub("plugins/a-tag"), "a-tag", "--tagged");
  ShPlugin(f.home.Sub("plugins/b-deny"), "b-deny",
           R"(echo '{"deny":true,"reason":"no make on fridays"}')");
  Tagger(f.home.Sub("plugins/c-after"), "c-after", "--late");
  ShPlugin(f.home.Sub("plugins/d-after"), "d-after", R"(echo '{"deny":false}')");
  bool native_ran = false;
  f.Open();
  REQUIRE(f.host
              ->AddHook({"host-audit", {"*"},
                         [&](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
                           native_ran = true;
                           return HookAnswer{};
                         }})
              .ok());
  DispatchResult r = f.Dispatch();
  CHECK(r.denied);
  CHECK(r.denied_by == "b-deny");
  CHECK(r.reason == "no make on fridays");
  CHECK(Command(r) == "make --tagged");  // the rewrite before the deny stays visible
  CHECK(r.plugins.size() == 2);
  CHECK(::access(f.home.Sub("plugins/b-deny/ran").c_str(), F_OK) == 0);
  CHECK(::access(f.home.Sub("plugins/c-after/ran").c_str(), F_OK) != 0);
  CHECK(::access(f.home.Sub("plugins/d-after/ran").c_str(), F_OK) != 0);
  CHECK(!native_ran);
  CHECK(Contains(ReadFileOrEmpty(f.home.Sub("logs/plugline.log")), "denied: no make on fridays"));
}

TEST_CASE("host hooks: a crashing plugin between two good ones is skipped, the chain goes on") {
  Fixture f;
  Tagger(f.home.Sub("plugins/a-good"), "a-good", "--a");
  ShPlugin(f.home.Sub("plugins/b-crash"), "b-crash", "echo 'about to fail' >&2\nkill -SEGV $$");
  Tagger(f.home.Sub("plugins/c-good"), "c-good", "--c");
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(!r.denied);
  CHECK(Command(r) == "make --a --c");
  REQUIRE(r.skipped.size() == 1);
  CHECK(r.skipped[0].plugin == "b-crash");
  CHECK(Contains(r.skipped[0].detail, "SIGSEGV"));
  CHECK(Contains(r.skipped[0].detail, "about to fail"));
  CHECK(r.plugins[1].action == "skipped");
  std::string log = ReadFileOrEmpty(f.home.Sub("logs/plugline.log"));
  CHECK(Contains(log, "plugin b-crash stderr: about to fail"));
  CHECK(Contains(log, "plugin b-crash: pre_tool_call: skipped"));
}

TEST_CASE("host hooks: on_error: closed turns a failure into a deny naming the plugin") {
  Fixture f;
  ShPlugin(f.home.Sub("plugins/guard"), "guard", "echo 'not json'", "[pre_tool_call]",
           "on_error: closed\n");
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(r.denied);
  CHECK(r.denied_by == "guard");
  CHECK(Contains(r.reason, "plugin guard failed and fails closed"));
  CHECK(Contains(r.reason, "invalid JSON"));
}

TEST_CASE("host hooks: broken manifests are listed with the reason and never run") {
  Fixture f;
  ShPlugin(f.home.Sub("plugins/typo"), "typo", "echo '{}'", "[pre_tool_cal]");
  WriteFile(f.home.Sub("plugins/badyaml/plugin.yaml"), "name: badyaml\ncommand: [unclosed\n");
  WriteFile(f.home.Sub("plugins/nocommand/plugin.yaml"), "name: nocommand\nhooks: [turn_end]\n");
  WriteFile(f.home.Sub("plugins/notexec/plugin.yaml"), "name: notexec\ncommand: ./run.sh\n");
  WriteFile(f.home.Sub("plugins/notexec/run.sh"), "#!/bin/sh\necho '{}'\n");
  ShPlugin(f.home.Sub("plugins/fine"), "fine", R"(echo '{"notice":"fine ran"}')",
           "[pre_tool_call]", "colour: blue\n");
  f.Open();
  DispatchResult r = f.Dispatch();
  REQUIRE(r.plugins.size() == 1);
  CHECK(r.plugins[0].plugin == "fine");
  REQUIRE(r.notices.size() == 1);
  CHECK(r.notices[0].text == "fine ran");

  core::Value typo = f.Entry("typo");
  CHECK(Str(typo, "kind") == "exec-hook");
  CHECK(Str(typo, "state") == "broken");
  CHECK(Contains(Str(typo, "reason"), "unknown hook name `pre_tool_cal`"));
  CHECK(Contains(Str(typo, "reason"), "typo/plugin.yaml"));
  CHECK(Contains(Str(f.Entry("badyaml"), "reason"), "badyaml/plugin.yaml"));
  CHECK(Contains(Str(f.Entry("nocommand"), "reason"), "`command` is required"));
  CHECK(Contains(Str(f.Entry("notexec"), "reason"), "not executable"));
  core::Value fine = f.Entry("fine");
  CHECK(Str(fine, "state") == "enabled");
  CHECK(Str(fine, "path") == f.home.Sub("plugins/fine"));
  REQUIRE(fine.Find("events")->as_array().size() == 1);
  CHECK(fine.Find("events")->as_array()[0].as_string() == "pre_tool_call");
  REQUIRE(fine.Find("warnings")->as_array().size() == 1);
  CHECK(Contains(fine.Find("warnings")->as_array()[0].as_string(), "unknown key `colour`"));
}

TEST_CASE("host hooks: config turns plugins off, one or all, native hooks still run") {
  Fixture f;
  ShPlugin(f.home.Sub("plugins/one"), "one", R"(echo '{"notice":"one"}')");
  ShPlugin(f.home.Sub("plugins/two"), "two", R"(echo '{"notice":"two"}')");
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  overrides:\n    two: {enabled: false}\n");
  f.Open();
  REQUIRE(f.host
              ->AddHook({"native", {"pre_tool_call"},
                         [](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
                           HookAnswer a;
                           a.notice = "native";
                           return a;
                         }})
              .ok());
  DispatchResult r = f.Dispatch();
  REQUIRE(r.notices.size() == 2);
  CHECK(r.notices[0].text == "one");
  CHECK(r.notices[1].text == "native");  // native hooks run after the plugins
  CHECK(Str(f.Entry("two"), "state") == "disabled");
  CHECK(Str(f.Entry("native"), "kind") == "native-hook");

  WriteFile(f.project.Sub(".plugline/config.yaml"), "plugins:\n  enabled: false\n");
  plugline::testing::TrustProject(f.home.path(), f.project.path());  // a new file
  f.host->Reload();
  r = f.Dispatch();
  REQUIRE(r.notices.size() == 1);
  CHECK(r.notices[0].text == "native");
}

TEST_CASE("host hooks: reload picks up a dropped-in plugin and an edited manifest") {
  Fixture f;
  f.Open();
  CHECK(f.Dispatch().plugins.empty());
  ShPlugin(f.home.Sub("plugins/late"), "late", R"(echo '{"notice":"late"}')");
  f.host->Reload();
  DispatchResult r = f.Dispatch();
  REQUIRE(r.notices.size() == 1);
  // The manifest now subscribes to another event only.
  ShPlugin(f.home.Sub("plugins/late"), "late", R"(echo '{"notice":"late"}')", "[turn_end]");
  f.host->Reload();
  CHECK(f.Dispatch().plugins.empty());
  CHECK(f.Dispatch("turn_end", R"({"session_id":"s"})").notices.size() == 1);
}

TEST_CASE("host hooks: post_tool_call replacement, observe-only events ignore a deny") {
  Fixture f;
  ShPlugin(f.home.Sub("plugins/redact"), "redact",
           R"(echo '{"result":"[redacted]","deny":true}')", "[post_tool_call, session_start]");
  f.Open();
  DispatchResult r =
      f.Dispatch("post_tool_call", R"({"tool":"terminal","result":"token=sk-12345678abcdef"})");
  CHECK(!r.denied);
  REQUIRE(r.result.has_value());
  CHECK(*r.result == "[redacted]");
  CHECK(Contains(r.plugins[0].action, "ignored: deny"));
  r = f.Dispatch("session_start", R"({"session_id":"s"})");
  CHECK(!r.denied);
  CHECK(Contains(r.plugins[0].action, "ignored: deny, result on observe-only event"));
}

TEST_CASE("host hooks: native hooks: ids are unique, removal works, bad payloads fail") {
  Fixture f;
  f.Open();
  auto none = [](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
    return HookAnswer{};
  };
  CHECK(f.host->AddHook({"h", {"*"}, none}).ok());
  CHECK(absl::IsAlreadyExists(f.host->AddHook({"h", {"*"}, none})));
  CHECK(absl::IsInvalidArgument(f.host->AddHook({"", {"*"}, none})));
  CHECK(absl::IsInvalidArgument(f.host->AddHook({"nofn", {"*"}, nullptr})));
  CHECK(f.Dispatch().plugins.size() == 1);
  CHECK(f.host->RemoveHook("h").ok());
  CHECK(absl::IsNotFound(f.host->RemoveHook("h")));
  CHECK(f.Dispatch().plugins.empty());
  CHECK(absl::IsInvalidArgument(f.host->Dispatch("pre_tool_call", "[1,2]").status()));
  CHECK(absl::IsInvalidArgument(f.host->Dispatch("pre_tool_call", "{oops").status()));
  CHECK(absl::IsInvalidArgument(f.host->Dispatch("", "{}").status()));
}

}  // namespace
}  // namespace plugline

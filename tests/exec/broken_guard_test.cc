// Fail-closed plugins that become broken: they stay in the chain and deny what they could have
// denied, and every dispatch result lists the broken plugins. Real exec plugins in a temporary
// $PLUGLINE_HOME/plugins/, real processes, through Host::Dispatch.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "exec/manifest_scan.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

constexpr std::string_view kPayload =
    R"({"session_id":"ses_1","tool":"terminal","arguments":"{\"command\":\"rm -rf build\"}"})";

// A guard that allows everything (and touches `ran` so a test can tell it started), with
// `hooks` and extra manifest lines.
void Guard(const std::string& dir, std::string_view name, std::string_view hooks = "[pre_tool_call]",
           std::string_view extra = "on_error: closed\n") {
  WriteFile(dir + "/plugin.yaml",
            StrCat("name: ", name, "\ncommand: ./run.sh\nhooks: ", hooks, "\n", extra));
  WriteFile(dir + "/run.sh", "#!/bin/sh\ncat >/dev/null\ntouch ran\necho '{}'\n");
  ::chmod((dir + "/run.sh").c_str(), 0755);
}

struct Fixture {
  TempDir home;
  TempDir project;
  std::unique_ptr<Host> host;

  std::string Plugin(std::string_view name) const { return home.Sub(StrCat("plugins/", name)); }
  void Open(ProjectTrust trust = ProjectTrust::kStore) {
    HostOptions options;
    options.home = home.path();
    options.project_dir = project.path();
    options.project_trust = trust;
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
  core::Value Entry(std::string_view id, std::string_view source = "") {
    auto all = core::ParseJson(host->PluginsJson(), "plugins");
    REQUIRE(all.ok());
    core::Value found;
    for (const core::Value& p : all->Find("plugins")->as_array()) {
      if (p.Find("id")->as_string() != id) continue;
      if (!source.empty() && p.Find("source")->as_string() != source) continue;
      found = p;
    }
    REQUIRE_MESSAGE(!found.is_null(), "no plugin " << id << " in " << host->PluginsJson());
    return found;
  }
};

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

// The dispatch was denied by `id` because it is broken, and `id` is listed as broken with a
// reason containing `why`.
void CheckDeniedBroken(const DispatchResult& r, std::string_view id, std::string_view why) {
  CHECK(r.denied);
  CHECK(r.denied_by == id);
  CHECK_MESSAGE(Contains(r.reason, StrCat("plugin ", id, " is broken and fails closed")), r.reason);
  CHECK_MESSAGE(Contains(r.reason, why), r.reason);
  REQUIRE(r.broken.size() == 1);
  CHECK(r.broken[0].plugin == id);
  CHECK_MESSAGE(Contains(r.broken[0].reason, why), r.broken[0].reason);
  CHECK(Contains(r.ToJson(), R"("broken":[{"plugin":")"));
}

TEST_CASE("broken guard: a program that is not executable denies, naming the guard and why") {
  Fixture f;
  Guard(f.Plugin("guard"), "guard");
  f.Open();
  CHECK(!f.Dispatch().denied);  // loads and runs fine first
  ::chmod(StrCat(f.Plugin("guard"), "/run.sh").c_str(), 0644);
  f.host->Reload();  // a chmod changes the file's ctime: the plugin is reloaded, and breaks
  CheckDeniedBroken(f.Dispatch(), "guard", "is not executable");
  CHECK(Str(f.Entry("guard"), "state") == "broken");
  CHECK(Contains(f.Entry("guard").Find("warnings")->as_array()[0].as_string(),
                 "while it is broken it denies pre_tool_call"));
}

TEST_CASE("broken guard: a YAML syntax error denies every pre_tool_call") {
  Fixture f;
  // It subscribes to post_tool_call only, but its manifest can no longer say so.
  WriteFile(f.Plugin("guard/plugin.yaml"),
            "name: guard\ncommand: [./run.sh\nhooks: [post_tool_call]\non_error: closed\n");
  f.Open();
  DispatchResult r = f.Dispatch();
  CheckDeniedBroken(r, "guard", "invalid YAML");
  CHECK(Contains(r.reason, "plugin.yaml:"));
  // Observe-only events are never denied, and post_tool_call cannot deny.
  DispatchResult observed = f.Dispatch("session_start", R"({"session_id":"s"})");
  CHECK(!observed.denied);
  CHECK(observed.plugins.empty());
  REQUIRE(observed.broken.size() == 1);
  CHECK(!f.Dispatch("post_tool_call", R"({"tool":"t","result":"r"})").denied);
}

TEST_CASE("broken guard: a field of the wrong type denies the events it subscribed to") {
  Fixture f;
  Guard(f.Plugin("pre"), "pre", "[pre_tool_call, session_start]",
        "on_error: closed\ntimeout_ms: fast\n");
  Guard(f.Plugin("post"), "post", "[post_tool_call]", "on_error: closed\ntimeout_ms: fast\n");
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(r.denied);
  CHECK(r.denied_by == "pre");
  CHECK(Contains(r.reason, "`timeout_ms` must be a positive whole number"));
  CHECK(r.broken.size() == 2);
  // `post` subscribed to post_tool_call only, which cannot deny: it denies nothing.
  Fixture g;
  Guard(g.Plugin("post"), "post", "[post_tool_call]", "on_error: closed\ntimeout_ms: fast\n");
  g.Open();
  DispatchResult allowed = g.Dispatch();
  CHECK(!allowed.denied);
  REQUIRE(allowed.broken.size() == 1);
  CHECK(allowed.broken[0].plugin == "post");
  CHECK(!g.Dispatch("session_start", R"({"session_id":"s"})").denied);
  CHECK(!f.Dispatch("session_start", R"({"session_id":"s"})").denied);
}

TEST_CASE("broken guard: a deleted program denies") {
  Fixture f;
  Guard(f.Plugin("guard"), "guard");
  ::unlink(StrCat(f.Plugin("guard"), "/run.sh").c_str());
  f.Open();
  CheckDeniedBroken(f.Dispatch(), "guard", "command not found: ./run.sh");
}

TEST_CASE("broken guard: on_error: open is listed as broken and does not deny") {
  Fixture f;
  Guard(f.Plugin("lenient"), "lenient", "[pre_tool_call]", "on_error: open\n");
  ::chmod(StrCat(f.Plugin("lenient"), "/run.sh").c_str(), 0644);
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(!r.denied);
  CHECK(r.plugins.empty());
  REQUIRE(r.broken.size() == 1);
  CHECK(r.broken[0].plugin == "lenient");
  CHECK(Contains(r.broken[0].reason, "not executable"));
  CHECK(f.Entry("lenient").Find("warnings")->as_array().empty());
}

TEST_CASE("broken guard: the last good load keeps it failing closed when the manifest loses its "
          "on_error line") {
  Fixture f;
  Guard(f.Plugin("guard"), "guard");
  f.Open();
  CHECK(!f.Dispatch().denied);
  CHECK(Contains(ReadFileOrEmpty(f.home.Sub("guards.json")), R"("fail_closed":true)"));
  // A bad edit leaves YAML that does not parse and no on_error line at all.
  WriteFile(f.Plugin("guard/plugin.yaml"), "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call\n");
  f.host->Reload();
  CheckDeniedBroken(f.Dispatch(), "guard", "invalid YAML");
  // Emptied: the same.
  WriteFile(f.Plugin("guard/plugin.yaml"), "");
  f.host->Reload();
  CheckDeniedBroken(f.Dispatch(), "guard", "the manifest is empty");
  // Deleted while the folder stays: still a broken guard, not a plugin that went away.
  ::unlink(StrCat(f.Plugin("guard"), "/plugin.yaml").c_str());
  f.host->Reload();
  CheckDeniedBroken(f.Dispatch(), "guard", "plugin.yaml is missing");
  // A new host (the next command) reads the record from the file.
  f.Open();
  CheckDeniedBroken(f.Dispatch(), "guard", "plugin.yaml is missing");
  // Removing the folder removes the plugin (and, on the next write, its record).
  std::filesystem::remove_all(f.Plugin("guard"));
  f.host->Reload();
  DispatchResult gone = f.Dispatch();
  CHECK(!gone.denied);
  CHECK(gone.broken.empty());
}

TEST_CASE("broken guard: a parseable manifest that says on_error: open is taken at its word") {
  Fixture f;
  Guard(f.Plugin("guard"), "guard");
  f.Open();
  CHECK(!f.Dispatch().denied);
  // The user turns it fail-open and breaks the program in the same edit.
  Guard(f.Plugin("guard"), "guard", "[pre_tool_call]", "on_error: open\n");
  ::chmod(StrCat(f.Plugin("guard"), "/run.sh").c_str(), 0644);
  f.host->Reload();
  DispatchResult r = f.Dispatch();
  CHECK(!r.denied);
  CHECK(r.broken.size() == 1);
}

TEST_CASE("broken guard: its deny ends the chain: later plugins and native hooks never run") {
  Fixture f;
  Guard(f.Plugin("a-guard"), "a-guard");
  ::chmod(StrCat(f.Plugin("a-guard"), "/run.sh").c_str(), 0644);
  Guard(f.Plugin("b-after"), "b-after", "[pre_tool_call]", "");
  f.Open();
  bool native_ran = false;
  REQUIRE(f.host
              ->AddHook({"host-check", {"*"},
                         [&](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
                           native_ran = true;
                           return HookAnswer{};
                         }})
              .ok());
  DispatchResult r = f.Dispatch();
  CHECK(r.denied);
  CHECK(r.denied_by == "a-guard");
  CHECK(r.plugins.size() == 1);
  CHECK(!core::PathExists(StrCat(f.Plugin("b-after"), "/ran")));
  CHECK(!native_ran);
}

TEST_CASE("broken guard: the same id elsewhere does not remove it") {
  Fixture f;
  // A broken guard in a global config dir and a working plugin with its id in plugins/: a
  // broken plugin's id may be a guess, so it is never shadowed; it keeps denying.
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  dirs: [guards]\n");
  Guard(f.home.Sub("guards/guard"), "guard");
  ::chmod(f.home.Sub("guards/guard/run.sh").c_str(), 0644);
  Guard(f.Plugin("guard"), "guard", "[pre_tool_call]", "");
  // And a trusted project's plugin with its id: a project cannot replace a protected plugin.
  Guard(f.project.Sub(".plugline/plugins/guard"), "guard", "[pre_tool_call]", "");
  plugline::testing::TrustProject(f.home.path(), f.project.path());
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(r.denied);
  CHECK(r.denied_by == "guard");
  CHECK(Contains(r.reason, "is broken and fails closed"));
  CHECK(!core::PathExists(f.project.Sub(".plugline/plugins/guard/ran")));
  CHECK(Str(f.Entry("guard", "project"), "state") == "shadowed");
  CHECK(Contains(Str(f.Entry("guard", "project"), "reason"), "protected global plugin guard"));
}

TEST_CASE("broken guard: plugins.overrides.<id>.on_error: closed makes a broken plugin deny") {
  Fixture f;
  WriteFile(f.Plugin("plain/plugin.yaml"), "name: plain\ncommand: ./run.sh\nhooks: [turn_end]\n");
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  overrides:\n    plain: {on_error: closed}\n");
  f.Open();
  // It subscribes to turn_end only: nothing it could deny.
  CHECK(!f.Dispatch().denied);
  WriteFile(f.Plugin("plain/plugin.yaml"), "name: plain\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
  f.host->Reload();
  DispatchResult r = f.Dispatch();
  CheckDeniedBroken(r, "plain", "command not found: ./run.sh");
  // And a loaded plugin's failure denies too.
  Guard(f.Plugin("plain"), "plain", "[pre_tool_call]", "");
  WriteFile(f.Plugin("plain/run.sh"), "#!/bin/sh\nexit 4\n");
  f.host->Reload();
  DispatchResult failed = f.Dispatch();
  CHECK(failed.denied);
  CHECK(Contains(failed.reason, "plugin plain failed and fails closed: exited with status 4"));
  CHECK(failed.broken.empty());
}

TEST_CASE("broken guard: disabled by the user in the global config, it is gone") {
  Fixture f;
  Guard(f.Plugin("guard"), "guard");
  ::chmod(StrCat(f.Plugin("guard"), "/run.sh").c_str(), 0644);
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  overrides:\n    guard: {enabled: false}\n");
  f.Open();
  DispatchResult r = f.Dispatch();
  CHECK(!r.denied);
  CHECK(Str(f.Entry("guard"), "state") == "disabled");
}

TEST_CASE("broken guard: a loaded guard whose program breaks before the next reload denies") {
  Fixture f;
  Guard(f.Plugin("guard"), "guard");
  f.Open();
  CHECK(!f.Dispatch().denied);
  ::unlink(StrCat(f.Plugin("guard"), "/run.sh").c_str());
  // No reload: the plugin is still loaded and its call fails.
  DispatchResult r = f.Dispatch();
  CHECK(r.denied);
  CHECK(Contains(r.reason, "plugin guard failed and fails closed"));
  f.host->Reload();
  CheckDeniedBroken(f.Dispatch(), "guard", "command not found");
}

TEST_CASE("broken guard: a malformed guards.json is moved aside with a warning") {
  Fixture f;
  WriteFile(f.home.Sub("guards.json"), R"({"version":1,"plugins":[]})");
  WriteFile(f.Plugin("guard/plugin.yaml"), "name: guard\ncommand: [./run.sh\non_error: closed\n");
  f.Open();
  CHECK(f.Dispatch().denied);  // the scan of the text still finds on_error: closed
  bool warned = false;
  for (const std::string& d : f.host->diagnostics()) {
    warned = warned || (Contains(d, "guards.json is malformed") && Contains(d, "moved it aside"));
  }
  CHECK(warned);
  CHECK(!core::PathExists(f.home.Sub("guards.json")));
}

TEST_CASE("manifest scan: on_error and protected read from text that is not YAML") {
  using exec::ManifestTextHasKeyValue;
  CHECK(ManifestTextHasKeyValue("name: g\non_error: closed\ncommand: [x\n", "on_error", "closed"));
  CHECK(ManifestTextHasKeyValue("on_error:   \"closed\"  # yes\n", "on_error", "closed"));
  CHECK(ManifestTextHasKeyValue("{name: g, on_error: 'closed', command: [", "on_error", "closed"));
  CHECK(ManifestTextHasKeyValue("\"on_error\": closed\n", "on_error", "closed"));
  CHECK(ManifestTextHasKeyValue("protected: true\n", "protected", "true"));
  CHECK(!ManifestTextHasKeyValue("# on_error: closed\n", "on_error", "closed"));
  CHECK(!ManifestTextHasKeyValue("on_error: closedish\n", "on_error", "closed"));
  CHECK(!ManifestTextHasKeyValue("on_error: open\n", "on_error", "closed"));
  CHECK(!ManifestTextHasKeyValue("not_on_error: closed\n", "on_error", "closed"));

  TempDir dir;
  WriteFile(dir.Sub("plugin.yaml"), "name: g\ncommand: ./x\nhooks: [pre_tool_call, turn_end]\n"
                                    "on_error: closed\nprotected: true\ntimeout_ms: soon\n");
  exec::ExecManifestHints hints = exec::ScanExecManifest(dir.path());
  CHECK(hints.parsed);
  CHECK(hints.name == "g");
  CHECK(hints.fail_closed);
  CHECK(hints.protect);
  REQUIRE(hints.hooks.has_value());
  CHECK(hints.hooks->size() == 2);
  // An unknown event: the subscriptions cannot be told.
  WriteFile(dir.Sub("plugin.yaml"), "name: g\nhooks: [pre_tool_cal]\non_error: closed\n");
  CHECK(!exec::ScanExecManifest(dir.path()).hooks.has_value());
  // A parseable manifest saying open is open, whatever else its text holds.
  WriteFile(dir.Sub("plugin.yaml"), "name: g\ndescription: 'x, on_error: closed'\non_error: open\n");
  CHECK(!exec::ScanExecManifest(dir.path()).fail_closed);
  // A FIFO in place of the manifest does not block.
  ::unlink(dir.Sub("plugin.yaml").c_str());
  REQUIRE(::mkfifo(dir.Sub("plugin.yaml").c_str(), 0600) == 0);
  CHECK(!exec::ScanExecManifest(dir.path()).fail_closed);
}

}  // namespace
}  // namespace plugline

namespace plugline {
namespace {

// A guard that denies everything, in a folder the global config names under plugins.dirs.
void DenyingGuard(const std::string& dir) {
  WriteFile(dir + "/plugin.yaml",
            "name: guard\ncommand: ./run.sh\nhooks: [pre_tool_call]\non_error: closed\n");
  WriteFile(dir + "/run.sh",
            "#!/bin/sh\ncat >/dev/null\necho '{\"deny\":true,\"reason\":\"guarded\"}'\n");
  ::chmod((dir + "/run.sh").c_str(), 0755);
}

TEST_CASE("broken guard: a global config.yaml that breaks does not lose the guards its dirs held") {
  TempDir home;
  TempDir guards;
  DenyingGuard(guards.Sub("guard"));
  auto dispatch = [&]() {
    HostOptions options;
    options.home = home.path();
    auto host = Host::Create(options);
    REQUIRE(host.ok());
    auto result = (*host)->Dispatch("pre_tool_call", kPayload);
    REQUIRE(result.ok());
    return std::make_pair(*std::move(result), (*host)->diagnostics());
  };
  auto kept = [&](const std::vector<std::string>& diagnostics) {
    for (const std::string& d : diagnostics) {
      if (Contains(d, StrCat(guards.path(), ", which held the fail-closed plugin guard"))) {
        return true;
      }
    }
    return false;
  };
  WriteFile(home.Sub("config.yaml"), StrCat("plugins:\n  dirs: [", guards.path(), "]\n"));
  auto [loaded, clean] = dispatch();
  CHECK(loaded.denied_by == "guard");
  CHECK_FALSE(kept(clean));
  // Broken three ways: the guard's folder stays in use, with a diagnostic saying so.
  for (std::string broken : {StrCat("plugins:\n  dirs: [", guards.path(), "\n"),
                             StrCat("plugins:\n  dirs: ", guards.path(), "\n"),
                             std::string("plugins: [\n")}) {
    CAPTURE(broken);
    WriteFile(home.Sub("config.yaml"), broken);
    auto [result, diagnostics] = dispatch();
    CHECK(result.denied);
    CHECK(result.denied_by == "guard");
    CHECK(result.reason == "guarded");
    CHECK(kept(diagnostics));
  }
  // A file without problems that no longer names the folder: the user removed the guard.
  WriteFile(home.Sub("config.yaml"), "plugins:\n  dirs: []\n");
  auto [removed, fine] = dispatch();
  CHECK_FALSE(removed.denied);
  CHECK_FALSE(kept(fine));
}

}  // namespace
}  // namespace plugline

// JS shaper plugins through the Host, with real files, real V8, in both isolation modes.
#include "js/js_shaper.h"

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "core/plugin_state.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/text.h"
#include "js/runtime.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

// A shaper for `terra …` commands; `body` replaces the shape() body when given.
std::string TerraPlugin(std::string_view name = "terra", std::string_view shape_body = "",
                        std::string_view extra_meta = "") {
  std::string body = shape_body.empty()
                         ? std::string(R"(const lines = output.split("\n").filter((l) => l);
  const changes = lines.filter((l) => /^\s*[+~-] /.test(l));
  return { summary: `terra: ${changes.length} changes in ${ctx.outputLines} lines (exit ${ctx.exitCode})\n` +
                    changes.join("\n") };)")
                         : std::string(shape_body);
  return StrCat(R"(export default {
  meta: { name: ")", name, R"(", version: "1.2.0", description: "terra plan summaries", tier: "community")",
                extra_meta, R"( },
  match(command, snippet, exitCode) {
    if (/^terra\b/.test(command)) return { matched: true, confidence: 0.95, signals: ["terra command"] };
    return { matched: false, confidence: 0 };
  },
  shape(output, ctx) {
    )", body, R"(
  },
};
)");
}

std::string PlanOutput(int filler = 200) {
  std::string out = "Refreshing state...\n";
  for (int i = 0; i < filler; ++i) StrAppend(&out, "  reading resource ", i, " ... ok\n");
  out += "  + resource \"aws_s3_bucket\" \"logs\"\n  ~ resource \"aws_iam_role\" \"ci\"\n";
  out += "  - resource \"aws_instance\" \"old\"\nPlan: 1 to add, 1 to change, 1 to destroy.\n";
  return out;
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
  ShapeResult Shape(std::string_view command, std::string_view output, int exit_code = 0) {
    auto result = host->Shape(ShapeRequest{command, output, exit_code, ""});
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    return *result;
  }
  core::Value Plugins() {
    auto value = core::ParseJson(host->PluginsJson(), "plugins");
    REQUIRE(value.ok());
    return *std::move(value);
  }
  // The listing entry of a plugin file (by path suffix).
  core::Value Entry(std::string_view path_suffix) {
    core::Value all = Plugins();
    for (const core::Value& p : all.Find("plugins")->as_array()) {
      const core::Value* path = p.Find("path");
      if (path != nullptr && path->is_string() && absl::EndsWith(path->as_string(), ToAbsl(path_suffix))) {
        return p;
      }
    }
    FAIL("no plugin entry for " << path_suffix);
    return core::Value();
  }
  std::string Log() { return ReadFileOrEmpty(home.Sub("logs/plugline.log")); }
};

std::string Str(const core::Value& v, std::string_view key) {
  const core::Value* f = v.Find(key);
  return f != nullptr && f->is_string() ? f->as_string() : std::string("<null>");
}

#if PLUGLINE_TEST_WITH_V8

TEST_CASE("a JS shaper dropped into the plugins folder shapes the next command") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin());
  f.Open();
  ShapeResult result = f.Shape("terra plan", PlanOutput(), 2);
  CHECK(result.shaper == "terra");
  CHECK(result.confidence == doctest::Approx(0.95));
  CHECK(absl::StartsWith(result.summary, "terra: 3 changes in 205 lines (exit 2)\n"));
  CHECK(Contains(result.summary, "+ resource \"aws_s3_bucket\" \"logs\""));
  CHECK(Contains(result.summary, "full output: " + result.raw_path));
  CHECK_FALSE(result.fallback.has_value());
  // Built-ins still win their own commands.
  CHECK(f.Shape("git status", "On branch main\nnothing to commit, working tree clean\n").shaper ==
        "builtin-git-diff");
  // And the plugin's statistics are kept like a built-in's.
  auto stats = core::ParseJson(*f.host->StatsJson(), "stats");
  REQUIRE(stats.ok());
  const core::Value* terra = stats->Find("shapers")->Find("terra");
  REQUIRE(terra != nullptr);
  CHECK(terra->Find("shape_count")->as_integer() == 1);
  CHECK(terra->Find("tokens_saved")->as_number() > 0);
  // Listed with its metadata.
  core::Value entry = f.Entry("/plugins/terra.js");
  CHECK(Str(entry, "id") == "terra");
  CHECK(Str(entry, "kind") == "js-shaper");
  CHECK(Str(entry, "tier") == "community");
  CHECK(Str(entry, "state") == "enabled");
  CHECK(Str(entry, "source") == "global");
  CHECK(Str(entry, "version") == "1.2.0");
}

TEST_CASE("a JS shaper's failed: the outcome it read stands first over an output shown raw") {
  // `terra apply | tail -5`: the status is tail's 0; the plugin read a failure in the lines.
  Fixture f;
  WriteFile(
      f.home.Sub("plugins/terra.js"),
      TerraPlugin("terra", R"(const errors = output.split("\n").filter((l) => /^Error: /.test(l));
    return { summary: `terra apply: FAILED — ${errors.length} errors (exit ${ctx.exitCode})`,
             renderMode: "raw", failed: errors.length > 0 };)"));
  f.Open();
  const std::string output = "Applying...\nError: quota exceeded\nError: role not found\n";
  ShapeResult cut = f.Shape("terra apply | tail -5", output, 0);
  CHECK(cut.shaper == "terra");
  CHECK(cut.summary == "terra apply: FAILED — 2 errors (exit 0)\n" + output);
  // Its own non-zero status: the plugin's line names it, and stands first in place of plugline's.
  ShapeResult own = f.Shape("terra apply", output, 1);
  CHECK(own.summary == "terra apply: FAILED — 2 errors (exit 1)\n" + output);
  // Nothing read as failed: the output as it is.
  ShapeResult clean = f.Shape("terra apply | tail -5", "Applying...\nApply complete!\n", 0);
  CHECK(clean.summary == "Applying...\nApply complete!\n");
}

TEST_CASE("a JS shaper competes with the built-ins: confidence, then priority, then name") {
  Fixture f;
  // Claims pytest output with less confidence than builtin-test: loses.
  WriteFile(f.home.Sub("plugins/weak.js"), R"(export default {
  meta: { name: "weak", version: "1", description: "d", tier: "community", priority: 1000 },
  match() { return { matched: true, confidence: 0.3 }; },
  shape() { return { summary: "weak" }; },
};)");
  // Two plugins tie on confidence: the higher priority wins.
  WriteFile(f.home.Sub("plugins/low.js"), R"(export default {
  meta: { name: "low", version: "1", description: "d", tier: "community" },
  match(c) { return c.startsWith("tie") ? { matched: true, confidence: 0.99 } : { matched: false }; },
  shape() { return { summary: "low" }; },
};)");
  WriteFile(f.home.Sub("plugins/high.js"), R"(export default {
  meta: { name: "high", version: "1", description: "d", tier: "premium", priority: 150 },
  match(c) { return c.startsWith("tie") ? { matched: true, confidence: 0.99 } : { matched: false }; },
  shape() { return { summary: "high" }; },
};)");
  f.Open();
  std::string pytest = "============ test session starts ============\ncollected 3 items\n\n"
                       "t.py ...                                  [100%]\n\n"
                       "============ 3 passed in 0.01s ============\n";
  CHECK(f.Shape("pytest", pytest).shaper == "builtin-test");
  std::string many;
  for (int i = 0; i < 50; ++i) StrAppend(&many, "line ", i, "\n");
  ShapeResult tie = f.Shape("tie break", many);
  CHECK(tie.shaper == "high");
  CHECK(absl::StartsWith(tie.summary, "high\n"));
  // Forcing a plugin by id skips match().
  auto forced = f.host->Shape(ShapeRequest{"anything", many, 0, "low"});
  REQUIRE(forced.ok());
  CHECK(forced->shaper == "low");
}

TEST_CASE("broken plugins are listed with their reason and never run, the host carries on") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/syntax.js"), "export default {\n  meta: {,\n};\n");
  WriteFile(f.home.Sub("plugins/noexport.js"), "const x = 1;\n");
  WriteFile(f.home.Sub("plugins/fn.js"), "export default 42;\n");
  WriteFile(f.home.Sub("plugins/noshape.js"), R"(export default {
  meta: { name: "noshape", version: "1", description: "d", tier: "community" },
  match() { return { matched: true, confidence: 1 }; },
};)");
  WriteFile(f.home.Sub("plugins/throws.js"), "throw new Error('no config here');\nexport default {};\n");
  std::string badtier = TerraPlugin("badtier");
  badtier.replace(badtier.find("\"community\""), 11, "\"gold\"");
  WriteFile(f.home.Sub("plugins/badtier.js"), badtier);
  WriteFile(f.home.Sub("plugins/nometa.js"),
            "export default { match() { return {matched:false}; }, shape() { return {summary:''}; } };\n");
  WriteFile(f.home.Sub("plugins/reserved.js"), TerraPlugin("builtin-test"));
  WriteFile(f.home.Sub("plugins/badimport.js"), "import x from './missing.js';\nexport default x;\n");
  WriteFile(f.home.Sub("plugins/escape.js"), "import x from '../outside.js';\nexport default x;\n");
  WriteFile(f.home.Sub("outside.js"), "export default 1;\n");
  WriteFile(f.home.Sub("plugins/badname.js"), TerraPlugin("x\\u001b[2J\\nforged"));
  WriteFile(f.home.Sub("plugins/good.js"), TerraPlugin("good"));
  // The sandboxed runtime's reasons (escape.js would load in Node.js, which confines nothing).
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  js: {runtime: sandboxed}\n");
  f.Open();

  struct Expect {
    const char* file;
    const char* reason;
  };
  for (Expect e : {Expect{"syntax.js", "syntax.js:2:"}, Expect{"syntax.js", "SyntaxError"},
                   Expect{"noexport.js", "the module exports nothing"},
                   Expect{"fn.js", "Plugin export is not a function"},
                   Expect{"noshape.js", "has no shape() function"},
                   Expect{"throws.js", "no config here"}, Expect{"throws.js", "throws.js:1"},
                   Expect{"badtier.js", "meta.tier must be"},
                   Expect{"nometa.js", "no meta object"},
                   Expect{"reserved.js", "reserved for built-in plugins"},
                   Expect{"badimport.js", "missing.js"},
                   Expect{"escape.js", "outside the plugin's folder"},
                   // The id is quoted escaped: no ESC or newline of it reaches a listing.
                   Expect{"badname.js", R"(meta.name "x\x1b[2J\nforged" is not a valid id)"}}) {
    core::Value entry = f.Entry(StrCat("/plugins/", e.file));
    CAPTURE(e.file);
    CHECK(Str(entry, "state") == "broken");
    CHECK_MESSAGE(Contains(Str(entry, "reason"), e.reason), Str(entry, "reason"));
  }
  CHECK(Str(f.Entry("/plugins/good.js"), "state") == "enabled");
  // Broken plugins never run: only the good one shapes.
  ShapeResult result = f.Shape("terra plan", PlanOutput());
  CHECK(result.shaper == "good");
  CHECK(result.skipped.empty());
  // The reasons are in plugline's log too.
  CHECK(Contains(f.Log(), "syntax.js is broken"));
}

TEST_CASE("a project plugin with the same id shadows the global one") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin());
  WriteFile(f.project.Sub(".plugline/plugins/terra/index.js"),
            TerraPlugin("terra", R"(return { summary: "project terra" };)"));
  f.Open();
  CHECK(Str(f.Entry("/plugins/terra.js"), "state") == "shadowed");
  CHECK(Contains(Str(f.Entry("/plugins/terra.js"), "reason"), "terra/index.js"));
  CHECK(Str(f.Entry("terra/index.js"), "source") == "project");
  CHECK(absl::StartsWith(f.Shape("terra plan", PlanOutput()).summary, "project terra\n"));
}

TEST_CASE("plugins.enabled: false loads no plugin, overrides can disable one") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin());
  WriteFile(f.home.Sub("plugins/other.js"), TerraPlugin("other"));
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  overrides:\n    other: {enabled: false}\n");
  f.Open();
  CHECK(Str(f.Entry("/plugins/other.js"), "state") == "disabled");
  CHECK(f.Shape("terra plan", PlanOutput()).shaper == "terra");
  WriteFile(f.project.Sub(".plugline/config.yaml"), "plugins:\n  enabled: false\n");
  plugline::testing::TrustProject(f.home.path(), f.project.path());  // a new file
  f.host->Reload();
  CHECK(f.Shape("terra plan", PlanOutput()).shaper == "builtin-generic");
}

TEST_CASE("wrong result types are failures with a clear reason") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin("terra", "return { summary: 42 };"));
  WriteFile(f.home.Sub("plugins/badmatch.js"), R"(export default {
  meta: { name: "badmatch", version: "1", description: "d", tier: "community" },
  match() { return { matched: "yes", confidence: 1 }; },
  shape() { return { summary: "never" }; },
};)");
  f.Open();
  std::string output = PlanOutput();
  ShapeResult result = f.Shape("terra plan", output);
  CHECK(result.shaper == "terra");
  REQUIRE(result.fallback.has_value());
  CHECK(Contains(*result.fallback, "shape() returned summary as a number; expected a string"));
  CHECK(absl::StartsWith(result.summary, output.substr(0, 400)));
  REQUIRE(result.skipped.size() == 1);
  CHECK(result.skipped[0].shaper == "badmatch");
  CHECK(result.skipped[0].why == "match() failed");
  CHECK(Contains(result.skipped[0].detail, "matched as a string; expected a boolean"));
  auto json = core::ParseJson(result.ToJson(), "result");
  REQUIRE(json.ok());
  CHECK(json->Find("skipped")->as_array().size() == 1);
}

// Every failure kind, in both isolation modes: the pipeline falls back to the first 500
// characters, says why, and the next call runs in a fresh isolate.
void CheckFailureKinds(bool process_isolation) {
  Fixture f;
  if (process_isolation) {
    WriteFile(f.home.Sub("config.yaml"),
              "plugins:\n  js:\n    isolation: process\n    shape_timeout_ms: 1500\n"
              "    heap_limit_mb: 32\n");
  } else {
    WriteFile(f.home.Sub("config.yaml"),
              "plugins:\n  js:\n    shape_timeout_ms: 1500\n    heap_limit_mb: 32\n");
  }
  // The mode is chosen by the output's first line; state survives between good calls.
  WriteFile(f.home.Sub("plugins/faulty.js"), TerraPlugin("faulty", R"(
    globalThis.calls = (globalThis.calls || 0) + 1;
    const mode = output.split("\n")[0];
    if (mode === "throw") throw new TypeError("cannot read the plan");
    if (mode === "loop") { for (;;) {} }
    if (mode === "never") return new Promise(() => {});
    if (mode === "heap") { const a = []; for (;;) a.push({ x: new Array(1000).fill(a.length) }); }
    if (mode === "timer") return new Promise((r) => setTimeout(() => r({ summary: "timer ok " + globalThis.calls }), 5));
    return { summary: "ok " + globalThis.calls };)"));
  f.Open();
  std::string filler;
  for (int i = 0; i < 100; ++i) StrAppend(&filler, "resource line ", i, " with some padding text\n");
  CHECK(absl::StartsWith(f.Shape("terra plan", "ok\n" + filler).summary, "ok 1\n"));
  struct Kind {
    const char* first_line;
    const char* fallback;
  };
  for (Kind kind : {Kind{"throw", "shaper threw: "}, Kind{"loop", "shaper timed out: "},
                    Kind{"never", "never settled"}, Kind{"heap", "heap limit"}}) {
    std::string kind_name = kind.first_line;
    CAPTURE(kind_name);
    std::string output = StrCat(kind.first_line, "\n", filler);
    ShapeResult failed = f.Shape("terra plan", output);
    CHECK(failed.shaper == "faulty");
    REQUIRE(failed.fallback.has_value());
    CHECK_MESSAGE(Contains(*failed.fallback, kind.fallback), *failed.fallback);
    // AgentOps' fallback: the first 500 characters, then a count of what follows.
    CHECK(absl::StartsWith(failed.summary, output.substr(0, 500)));
    CHECK(Contains(failed.summary, "more bytes"));
    // The host carries on: the next good call works.
    ShapeResult next = f.Shape("terra plan", "ok\n" + filler);
    CHECK_FALSE(next.fallback.has_value());
    CHECK(absl::StartsWith(next.summary, "ok "));
  }
  CHECK(Contains(f.Shape("terra plan", "timer\n" + filler).summary, "timer ok"));
  CHECK(Contains(f.Log(), "cannot read the plan"));
}

TEST_CASE("JS shaper failures fall back and the host carries on (in-process)") {
  CheckFailureKinds(false);
}

TEST_CASE("JS shaper failures fall back and the host carries on (process isolation)") {
  CheckFailureKinds(true);
}

TEST_CASE("match() that loops or throws leaves that plugin out, the others compete") {
  Fixture f;
  WriteFile(f.home.Sub("config.yaml"), "plugins:\n  js:\n    match_timeout_ms: 100\n");
  WriteFile(f.home.Sub("plugins/looper.js"), R"(export default {
  meta: { name: "looper", version: "1", description: "d", tier: "community" },
  match(command) { if (command.includes("loop")) for (;;) {} throw new Error("match broke"); },
  shape() { return { summary: "never" }; },
};)");
  WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin());
  f.Open();
  ShapeResult looped = f.Shape("terra loop", PlanOutput());
  CHECK(looped.shaper == "terra");
  REQUIRE(looped.skipped.size() == 1);
  CHECK(looped.skipped[0].why == "match() timed out");
  ShapeResult threw = f.Shape("terra plan", PlanOutput());
  CHECK(threw.shaper == "terra");
  REQUIRE(threw.skipped.size() == 1);
  CHECK(threw.skipped[0].why == "match() failed");
  CHECK(Contains(threw.skipped[0].detail, "match broke"));
  auto stats = core::ParseJson(*f.host->StatsJson(), "stats");
  REQUIRE(stats.ok());
  CHECK(stats->Find("shapers")->Find("looper")->Find("match_fail_count")->as_integer() == 2);
}

TEST_CASE("console output goes to plugline's log, never into the summary") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"),
            "console.log('loading terra');\n" +
                TerraPlugin("terra", R"(console.warn("shaping", {lines: ctx.outputLines});
    return { summary: "shaped" };)"));
  f.Open();
  ShapeResult result = f.Shape("terra plan", PlanOutput());
  CHECK(absl::StartsWith(result.summary, "shaped\n"));
  CHECK_FALSE(Contains(result.summary, "loading terra"));
  std::string log = f.Log();
  CHECK(Contains(log, " log plugin terra: loading terra"));
  CHECK(Contains(log, " warn plugin terra: shaping {\"lines\":205}"));
}

TEST_CASE("reload picks up new and changed plugins without re-evaluating unchanged ones") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"),
            "console.log('evaluated terra v1');\n" + TerraPlugin("terra", "return {summary: 'v1'};"));
  f.Open();
  CHECK(absl::StartsWith(f.Shape("terra plan", PlanOutput()).summary, "v1\n"));
  // A new plugin appears; the unchanged one stays loaded (no second evaluation).
  WriteFile(f.home.Sub("plugins/other.js"),
            "console.log('evaluated other');\n" + TerraPlugin("other", "", ", priority: 50"));
  f.host->Reload();
  CHECK(Str(f.Entry("/plugins/other.js"), "state") == "enabled");
  auto evaluations = [&f] {
    size_t n = 0;
    const std::string log = f.Log();  // the lines are views into it
    for (std::string_view line : core::SplitLines(log)) n += Contains(line, " evaluated ");
    return n;
  };
  CHECK(evaluations() == 2);
  CHECK(Contains(f.Log(), "evaluated other"));
  // A changed file is evaluated again.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a distinct mtime
  WriteFile(f.home.Sub("plugins/terra.js"),
            "console.log('evaluated terra v2');\n" + TerraPlugin("terra", "return {summary: 'v2'};"));
  f.host->Reload();
  ShapeResult v2 = f.Shape("terra plan", PlanOutput());
  CHECK_MESSAGE(absl::StartsWith(v2.summary, "v2\n"), v2.summary.substr(0, 300), v2.shaper);
  CHECK(Contains(f.Log(), "evaluated terra v2"));
  CHECK(evaluations() == 3);
}

TEST_CASE("a plugin folder with index.js and relative imports") {
  Fixture f;
  WriteFile(f.project.Sub(".plugline/plugins/deploy/lib/count.js"),
            "export function count(lines) { return lines.filter((l) => l.includes('deployed')).length; }\n");
  WriteFile(f.project.Sub(".plugline/plugins/deploy/index.js"), R"(import { count } from "./lib/count.js";
export default {
  meta: { name: "deploy", version: "0.1.0", description: "deploy logs", tier: "community", outputKind: "deploy" },
  match(command) { return { matched: command.startsWith("deploy"), confidence: 0.9 }; },
  shape(output) { return { summary: `deployed ${count(output.split("\n"))} services` }; },
};)");
  f.Open();
  std::string output;
  for (int i = 0; i < 60; ++i) StrAppend(&output, "service ", i, i % 2 ? " deployed\n" : " skipped\n");
  ShapeResult result = f.Shape("deploy all", output);
  CHECK(result.shaper == "deploy");
  CHECK(absl::StartsWith(result.summary, "deployed 30 services\n"));
}

TEST_CASE("a JS shaper's escape sequences never reach the host: OSC 52, colours, BEL") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"),
            TerraPlugin("terra", R"(return { summary: "\x1b]52;c;cm0gLXJmIH4vKg==\x07" +
      "\x1b[1;31mterra: 3 changes\x1b[0m\x07\r\n\x1b]8;;https://evil.example\x1b\\plan\x1b]8;;\x1b\\" +
      " \u009b2J\x1bPdcs\x1b\\ok" };)"));
  f.Open();
  ShapeResult result = f.Shape("terra plan", PlanOutput());
  CHECK(result.shaper == "terra");
  CHECK(absl::StartsWith(result.summary, "terra: 3 changes\nplan ok\nfull output: "));
  CHECK(std::none_of(result.summary.begin(), result.summary.end(),
                     [](char c) { return c != '\n' && static_cast<unsigned char>(c) < 0x20; }));
}

// The JS workers (plugline-js-worker) that are children of this process.
int WorkerChildren() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || !std::isdigit(static_cast<unsigned char>(pid[0]))) continue;
    const std::string stat = plugline::testing::ReadFileOrEmpty(entry.path().string() + "/stat");
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string name = stat.substr(open + 1, close - open - 1);
    const std::vector<std::string> rest = absl::StrSplit(stat.substr(close + 2), ' ');
    if (rest.size() > 1 && rest[1] == std::to_string(::getpid()) &&
        absl::StartsWith(name, "plugline-js-wor")) {
      ++count;
    }
  }
  return count;
}

TEST_CASE("a plugin installed from a catalog runs in a worker process unless config.yaml says otherwise") {
  std::string filler;
  for (int i = 0; i < 100; ++i) StrAppend(&filler, "resource line ", i, " with some padding text\n");
  for (const char* config : {"", "plugins:\n  overrides:\n    terra:\n      isolation: in-process\n"}) {
    CAPTURE(config);
    Fixture f;
    WriteFile(f.home.Sub("config.yaml"), config);
    WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin());
    core::InstallRecord record;
    record.version = "1.0.0";
    record.path = f.home.Sub("plugins/terra.js");
    record.sha256 = std::string(64, 'a');
    record.format = "js";
    record.isolation = "process";
    REQUIRE(core::PluginStateStore(f.home.path()).SetInstalled("terra", record, nullptr).ok());
    const int before = WorkerChildren();
    f.Open();
    CHECK(f.Shape("terra plan", "ok\n" + filler).shaper == "terra");
    CHECK(WorkerChildren() - before == (std::string_view(config).empty() ? 1 : 0));
  }
}

#endif  // PLUGLINE_TEST_WITH_V8

TEST_CASE("match() and shape() results are checked field by field") {
  CHECK(js::ParseMatchResult(R"({"matched":true,"confidence":0.9,"signals":["a"]})").ok());
  CHECK(js::ParseMatchResult(R"({"matched":false})").ok());
  CHECK_FALSE(js::ParseMatchResult(R"({"matched":true})").ok());
  CHECK_FALSE(js::ParseMatchResult("null").ok());
  CHECK_FALSE(js::ParseMatchResult(R"({"matched":true,"confidence":"high"})").ok());
  CHECK_FALSE(js::ParseMatchResult(R"({"matched":true,"confidence":1,"signals":[1]})").ok());
  auto shaped = js::ParseShapeResult(R"({"summary":"x","renderMode":"raw"})");
  REQUIRE(shaped.ok());
  CHECK(shaped->render_mode == RenderMode::kRaw);
  CHECK_FALSE(shaped->failed);
  auto failed = js::ParseShapeResult(R"({"summary":"x: FAILED","renderMode":"raw","failed":true})");
  REQUIRE(failed.ok());
  CHECK(failed->failed);
  auto wrong = js::ParseShapeResult(R"({"summary":"x","failed":"yes"})");
  REQUIRE_FALSE(wrong.ok());
  CHECK(Contains(std::string(wrong.status().message()), "failed as a string; expected a boolean"));
  CHECK_FALSE(js::ParseShapeResult(R"({"summary":"x","renderMode":"short"})").ok());
  CHECK_FALSE(js::ParseShapeResult(R"({"text":"x"})").ok());
  CHECK_FALSE(js::ParseShapeResult(R"("x")").ok());
}

#if !PLUGLINE_TEST_WITH_V8
TEST_CASE("without V8, JS plugins are listed as broken with the reason, shaping goes on") {
  Fixture f;
  WriteFile(f.home.Sub("plugins/terra.js"), TerraPlugin());
  f.Open();
  core::Value entry = f.Entry("/plugins/terra.js");
  CHECK(Str(entry, "state") == "broken");
  CHECK(Contains(Str(entry, "reason"), "built without V8"));
  CHECK(f.Shape("terra plan", PlanOutput()).shaper == "builtin-generic");
}
#endif

}  // namespace
}  // namespace plugline

// OpenCode's own plugin locations (plugins.opencode: true): the global plugins/ and plugin/
// folders, the `plugin` list of opencode.json and opencode.jsonc with packages from OpenCode's
// cache and file:// entries, in OpenCode's order — real files, real Node.js.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <string>

#include "core/json.h"
#include "core/opencode_config.h"
#include "core/strings.h"
#include "plugline/host.h"
#include "plugins/host_helpers.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

TEST_CASE("JsoncToJson: comments and trailing commas go, strings and line numbers stay") {
  std::string json = core::JsoncToJson(
      "{\n  // a comment \"with quotes\"\n  \"url\": \"https://x.test/a//b\", /* c\n d */\n"
      "  \"list\": [1, 2,],\n  \"s\": \"a,]\\\"//\",\n}\n");
  auto value = core::ParseJson(json, "jsonc");
  REQUIRE_MESSAGE(value.ok(), json);
  CHECK(value->Find("url")->as_string() == "https://x.test/a//b");
  CHECK(value->Find("list")->as_array().size() == 2);
  CHECK(value->Find("s")->as_string() == "a,]\"//");
  CHECK(std::count(json.begin(), json.end(), '\n') == 7);
}

#if PLUGLINE_TEST_WITH_V8

// Sets an environment variable for the test's duration.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A plugin that appends `tag` (and its options' `suffix`) to chat.headers' `order`.
std::string Tagger(std::string_view tag, std::string_view types = "") {
  return StrCat("export default async (ctx", types, ", options", types, ") => ({\n"
                "  \"chat.headers\": async (input", types, ", output", types, ") => {\n"
                "    output.headers.order = (output.headers.order ?? \"\") + \"", tag,
                "\" + (options?.suffix ?? \"\");\n  },\n});\n");
}

TEST_CASE("plugins.opencode: OpenCode's global plugins load from where OpenCode keeps them, in its order") {
  TempDir home, xdg;
  ScopedEnv config_home("XDG_CONFIG_HOME", xdg.Sub("config"));
  ScopedEnv cache_home("XDG_CACHE_HOME", xdg.Sub("cache"));
  const std::string oc = xdg.Sub("config/opencode");
  const std::string cache = xdg.Sub("cache/opencode/node_modules");
  WriteFile(oc + "/opencode.jsonc",
            "{\n  // OpenCode's own settings, and its plugins\n  \"model\": \"x/y\",\n"
            "  \"plugin\": [\"cached-plugin@1.0.0\", [\"opt-plugin\", {\"suffix\": \"!\"}],\n"
            "             \"file://local/mine.js\",],\n}\n");
  WriteFile(cache + "/cached-plugin/package.json",
            R"({"name":"cached-plugin","version":"1.0.0","type":"module","main":"index.js"})");
  WriteFile(cache + "/cached-plugin/index.js", Tagger("A"));
  WriteFile(cache + "/opt-plugin/package.json",
            R"({"name":"opt-plugin","version":"2.0.0","type":"module","main":"index.js"})");
  WriteFile(cache + "/opt-plugin/index.js", Tagger("B"));
  WriteFile(oc + "/local/mine.js", Tagger("C"));
  WriteFile(home.Sub("plugins/own.js"), Tagger("D"));
  WriteFile(oc + "/plugins/folder.ts", Tagger("E", ": any"));
  WriteFile(oc + "/plugin/older.js", Tagger("F"));

  auto open = [&] {
    HostOptions options;
    options.home = home.path();
    auto host = Host::Create(options);
    REQUIRE_MESSAGE(host.ok(), host.status().ToString());
    return *std::move(host);
  };
  auto order = [](Host& host) { return plugline::testing::HeadersOrder(host); };

  // Off by default: only plugline's own.
  CHECK(order(*open()) == "D");

  WriteFile(home.Sub("config.yaml"), "plugins:\n  opencode: true\n");
  auto host = open();
  INFO(host->PluginsJson());
  CHECK(order(*host) == "AB!CDEF");
  auto plugins = core::ParseJson(host->PluginsJson(), "plugins");
  REQUIRE(plugins.ok());
  for (const core::Value& p : plugins->Find("plugins")->as_array()) {
    const std::string id = p.Find("id")->as_string();
    if (id == "cached-plugin" || id == "opt-plugin" || id == "mine") {
      CHECK(p.Find("source")->as_string() == "opencode-config");
      CHECK(p.Find("runtime")->as_string() == "node");
    }
    if (id == "folder" || id == "older") CHECK(p.Find("source")->as_string() == "opencode");
  }

  // A broken opencode.json is reported with its name; the rest still loads.
  WriteFile(oc + "/opencode.json", "{\"plugin\": [\"x\",\n");
  host->Reload();
  bool reported = false;
  for (const std::string& d : host->diagnostics()) {
    reported = reported || Contains(d, oc + "/opencode.json");
  }
  CHECK(reported);
  CHECK(order(*host) == "AB!CDEF");
}

TEST_CASE("plugins.opencode: a project's config cannot turn it on") {
  TempDir home, project;
  plugline::testing::TrustProject(home.path(), project.path());
  WriteFile(project.Sub(".plugline/config.yaml"), "plugins:\n  opencode: true\n");
  plugline::testing::TrustProject(home.path(), project.path());
  HostOptions options;
  options.home = home.path();
  options.project_dir = project.path();
  auto host = Host::Create(options);
  REQUIRE(host.ok());
  bool reported = false;
  for (const std::string& d : (*host)->diagnostics()) {
    reported = reported || Contains(d, "only the global config can turn on OpenCode's");
  }
  CHECK(reported);
}

TEST_CASE("plugins.opencode: OpenCode's tool files are tools named after the file, with the file's Zod") {
  TempDir home, xdg, project;
  ScopedEnv config_home("XDG_CONFIG_HOME", xdg.Sub("config"));
  ScopedEnv cache_home("XDG_CACHE_HOME", xdg.Sub("cache"));
  const std::string oc = xdg.Sub("config/opencode");
  WriteFile(home.Sub("config.yaml"), "plugins:\n  opencode: true\n");
  // OpenCode's documented form: a default export is the tool named after the file; named exports are
  // <file>_<export>.
  WriteFile(oc + "/tools/math.ts", R"ts(import { tool } from "@opencode-ai/plugin"
export const add = tool({
  description: "Add two numbers",
  args: { a: tool.schema.number().describe("First number"), b: tool.schema.number() },
  async execute(args: { a: number; b: number }) { return String(args.a + args.b) },
})
export default tool({
  description: "Square a number",
  args: { n: tool.schema.number() },
  async execute(args: { n: number }, context: any) { return `${args.n * args.n} in ${context.directory}` },
})
)ts");
  WriteFile(oc + "/tool/hello.js", R"js(import { tool } from "@opencode-ai/plugin";
export default tool({ description: "Greets", args: {}, async execute() { return "hello"; } });
)js");
  WriteFile(oc + "/tools/broken.js", "export const notATool = 42;\n");
  HostOptions options;
  options.home = home.path();
  options.project_dir = project.path();
  auto host = Host::Create(options);
  REQUIRE_MESSAGE(host.ok(), host.status().ToString());
  auto tools = core::ParseJson((*host)->ToolsJson(), "tools");
  REQUIRE(tools.ok());
  std::vector<std::string> names;
  for (const core::Value& t : tools->Find("tools")->as_array()) names.push_back(t.Find("name")->as_string());
  CHECK(names == std::vector<std::string>{"math_add", "math", "hello"});
  CHECK(Contains((*host)->ToolsJson(), R"("description":"First number")"));
  auto run = [&](std::string_view name, std::string_view args) {
    auto result = (*host)->ExecuteTool(name, args, "{}");
    REQUIRE_MESSAGE(result.ok(), result.status().ToString());
    auto value = core::ParseJson(result->ToJson(), "tool");
    REQUIRE(value.ok());
    return *std::move(value);
  };
  CHECK(run("math_add", R"({"a":2,"b":3})").Find("output")->as_string() == "5");
  CHECK(run("math", R"({"n":4})").Find("output")->as_string() ==
        StrCat("16 in ", project.path()));
  CHECK(run("hello", "{}").Find("output")->as_string() == "hello");
  // A file whose export is not a tool is broken, naming the export; the others work.
  auto plugins = core::ParseJson((*host)->PluginsJson(), "plugins");
  REQUIRE(plugins.ok());
  bool found = false;
  for (const core::Value& p : plugins->Find("plugins")->as_array()) {
    if (p.Find("id")->as_string() != "tools.broken") continue;
    found = true;
    CHECK(p.Find("state")->as_string() == "broken");
    CHECK(Contains(p.Find("reason")->as_string(), "export 'notATool' of tool file 'broken' is not a tool"));
    CHECK(p.Find("source")->as_string() == "opencode-tools");
  }
  CHECK(found);
}

TEST_CASE("plugins.opencode: a project's OpenCode plugins and tools load once the project is trusted, in OpenCode's order") {
  TempDir home, xdg, project;
  ScopedEnv config_home("XDG_CONFIG_HOME", xdg.Sub("config"));
  ScopedEnv cache_home("XDG_CACHE_HOME", xdg.Sub("cache"));
  WriteFile(home.Sub("config.yaml"), "plugins:\n  opencode: true\n");
  WriteFile(home.Sub("plugins/own.js"), Tagger("G"));
  WriteFile(xdg.Sub("config/opencode/plugins/theirs.js"), Tagger("O"));
  // The project: its opencode.json names a file and a package of its .opencode/node_modules,
  // its .opencode/ has a plugin and a tool file.
  WriteFile(project.Sub("opencode.json"),
            R"({"model": "x/y", "plugin": ["file://tools-free/local.js", "proj-pkg"]})");
  WriteFile(project.Sub("tools-free/local.js"), Tagger("J"));
  WriteFile(project.Sub(".opencode/node_modules/proj-pkg/package.json"),
            R"({"name":"proj-pkg","type":"module","main":"index.js"})");
  WriteFile(project.Sub(".opencode/node_modules/proj-pkg/index.js"), Tagger("K"));
  WriteFile(project.Sub(".opencode/plugins/p.js"), Tagger("P"));
  WriteFile(project.Sub(".opencode/tools/greet.js"), R"js(import { tool } from "@opencode-ai/plugin";
export default tool({ description: "Greets", args: {}, async execute() { return "hi from the project"; } });
)js");
  auto open = [&] {
    HostOptions options;
    options.home = home.path();
    options.project_dir = project.path();
    auto host = Host::Create(options);
    REQUIRE_MESSAGE(host.ok(), host.status().ToString());
    return *std::move(host);
  };
  auto order = [](Host& host) { return plugline::testing::HeadersOrder(host); };
  auto state_of = [](Host& host, std::string_view id) {
    auto plugins = core::ParseJson(host.PluginsJson(), "plugins");
    REQUIRE(plugins.ok());
    for (const core::Value& p : plugins->Find("plugins")->as_array()) {
      if (p.Find("id")->as_string() == id) {
        return StrCat(p.Find("state")->as_string(), " ", p.Find("source")->as_string());
      }
    }
    return std::string("absent");
  };

  // Untrusted: nothing of the project runs; its plugins are listed as such.
  auto host = open();
  CHECK(order(*host) == "GO");
  CHECK(state_of(*host, "p") == "untrusted project-opencode");
  CHECK(state_of(*host, "local") == "untrusted project-opencode-config");
  CHECK(state_of(*host, "tools.greet") == "untrusted project-opencode-tools");
  bool told = false;
  for (const std::string& d : host->diagnostics()) told = told || Contains(d, "plugline trust");
  CHECK(told);
  CHECK(!host->ExecuteTool("greet", "{}", "{}").ok());

  // Trusted (with OpenCode's files in what is trusted): OpenCode's order — global config,
  // project config, global folders, project folders; tools after every plugin.
  plugline::testing::TrustProject(home.path(), project.path());
  host = open();
  INFO(host->PluginsJson());
  CHECK(order(*host) == "JKGOP");
  CHECK(state_of(*host, "proj-pkg") == "enabled project-opencode-config");
  auto tool = host->ExecuteTool("greet", "{}", "{}");
  REQUIRE(tool.ok());
  CHECK(Contains(tool->output, "hi from the project"));

  // A changed plugin file un-trusts the project again.
  WriteFile(project.Sub(".opencode/plugins/p.js"), Tagger("Q"));
  host = open();
  CHECK(order(*host) == "GO");
  CHECK(state_of(*host, "p") == "untrusted project-opencode");
}

TEST_CASE("plugins.opencode: a project whose opencode.json names no plugin has nothing to trust") {
  TempDir home, xdg, project;
  ScopedEnv config_home("XDG_CONFIG_HOME", xdg.Sub("config"));
  WriteFile(home.Sub("config.yaml"), "plugins:\n  opencode: true\n");
  WriteFile(project.Sub("opencode.json"), R"({"model": "anthropic/claude"})");
  HostOptions options;
  options.home = home.path();
  options.project_dir = project.path();
  auto host = Host::Create(options);
  REQUIRE(host.ok());
  for (const std::string& d : (*host)->diagnostics()) CHECK(!Contains(d, "trust"));
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline

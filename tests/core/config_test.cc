#include "core/config.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::TempDir;
using plugline::testing::WriteFile;

TEST_CASE("config.yaml is read, and the project's file applies on top") {
  TempDir home, project;
  WriteFile(home.Sub("config.yaml"),
            "plugins:\n  enabled: true\n  dirs: [~/extra]\noutputs:\n  keep_files: 7\n");
  WriteFile(project.Sub(".plugline/config.yaml"), "outputs:\n  max_total_mb: 3\n");
  std::vector<std::string> diagnostics;
  Config config = LoadConfig(home.path(), project.path(), &diagnostics);
  CHECK(diagnostics.empty());
  CHECK(config.plugins.enabled);
  REQUIRE(config.plugins.dirs.size() == 1);
  CHECK(config.plugins.dirs[0].path == ExpandTilde("~/extra"));
  CHECK(config.outputs.keep_files == 7);
  CHECK(config.outputs.max_total_bytes == 3u << 20);
}

TEST_CASE("plugins.dirs: relative to the file's base, with the file that named them") {
  TempDir home, project;
  WriteFile(home.Sub("config.yaml"), "plugins:\n  dirs: [mine, /abs/dir]\n");
  WriteFile(project.Sub(".plugline/config.yaml"), "plugins:\n  dirs: [tools/plugins]\n");
  Config config = LoadConfig(home.path(), project.path(), nullptr);
  REQUIRE(config.plugins.dirs.size() == 3);
  CHECK(config.plugins.dirs[0] == ConfigDir{home.Sub("mine"), "global-config"});
  CHECK(config.plugins.dirs[1] == ConfigDir{"/abs/dir", "global-config"});
  CHECK(config.plugins.dirs[2] == ConfigDir{project.Sub("tools/plugins"), "project-config"});
}

TEST_CASE("plugins.packages: names or [name, options], with the file that named them") {
  TempDir home, project;
  WriteFile(home.Sub("config.yaml"),
            "plugins:\n  packages:\n    - opencode-a\n    - [\"@s/b@1.2.0\", {strict: true}]\n"
            "    - [c]\n    - 42\n    - [d, 7]\n    - [e, {}, extra]\n");
  WriteFile(project.Sub(".plugline/config.yaml"), "plugins:\n  packages: [f]\n");
  std::vector<std::string> diagnostics;
  Config config = LoadConfig(home.path(), project.path(), &diagnostics);
  REQUIRE(config.plugins.packages.size() == 4);
  CHECK(config.plugins.packages[0] == ConfigPackage{"opencode-a", "", "global-config"});
  CHECK(config.plugins.packages[1] == ConfigPackage{"@s/b@1.2.0", R"({"strict":true})", "global-config"});
  CHECK(config.plugins.packages[2] == ConfigPackage{"c", "", "global-config"});
  CHECK(config.plugins.packages[3] == ConfigPackage{"f", "", "project-config"});
  REQUIRE(diagnostics.size() == 3);
  for (const std::string& d : diagnostics) {
    CAPTURE(d);
    CHECK(d.find(home.Sub("config.yaml")) == 0);
  }
  CHECK(diagnostics[0].find("plugins.packages: every entry must be a package name or [name, options]") != std::string::npos);
  CHECK(diagnostics[1].find("plugins.packages.d: the options must be a mapping") != std::string::npos);
  CHECK(diagnostics[2].find("plugins.packages: every entry must be") != std::string::npos);

  WriteFile(home.Sub("config.yaml"), "plugins:\n  packages: opencode-a\n");
  diagnostics.clear();
  config = LoadConfig(home.path(), "", &diagnostics);
  CHECK(config.plugins.packages.empty());
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].find("plugins.packages: expected a list of npm package names") != std::string::npos);
}

TEST_CASE("plugins.overrides.<id>.options: a mapping, kept as JSON, anything else is a problem") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"),
            "plugins:\n  overrides:\n    a: {options: {n: 1, s: x}}\n    b: {options: 3}\n");
  std::vector<std::string> diagnostics;
  Config config = LoadConfig(home.path(), "", &diagnostics);
  CHECK(config.plugins.ForPlugin("a").options_json == R"({"n":1,"s":"x"})");
  CHECK(config.plugins.ForPlugin("b").options_json.empty());
  CHECK(config.plugins.ForPlugin("c").options_json.empty());
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].find("plugins.overrides.b.options: expected a mapping") != std::string::npos);
}

TEST_CASE("config problems are diagnostics that name the file and key, defaults stay") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"),
            "plugins:\n  enabled: maybe\n  colour: red\noutputs:\n  keep_files: -4\nextra: 1\n");
  std::vector<std::string> diagnostics;
  Config config = LoadConfig(home.path(), "", &diagnostics);
  REQUIRE(diagnostics.size() == 4);
  std::string file = home.Sub("config.yaml");
  CHECK(diagnostics[0] == file + ": extra: unknown key (ignored)");
  CHECK(diagnostics[1] == file + ": plugins.colour: unknown key (ignored)");
  CHECK(diagnostics[2] == file + ": plugins.enabled: expected true or false, got a string");
  CHECK(diagnostics[3] == file + ": outputs.keep_files: expected a non-negative integer");
  CHECK(config.plugins.enabled);
  CHECK(config.outputs.keep_files == OutputRetention().keep_files);
}

TEST_CASE("adapters.<agent>: shaping and shell tools, from the global file only, with clear problems") {
  TempDir home, project;
  WriteFile(home.Sub("config.yaml"),
            "adapters:\n  codex:\n    shaping: replace\n    shell_tools: [run_script, sh]\n"
            "  gemini:\n    shaping: sometimes\n    colour: red\n  claude_code:\n    shaping: off\n"
            "  cursor:\n    shell_tools: yes\n");
  WriteFile(project.Sub(".plugline/config.yaml"), "adapters:\n  claude-code:\n    shaping: wrap\n");
  std::vector<std::string> diagnostics;
  Config config = LoadConfig(home.path(), project.path(), &diagnostics);
  const std::string file = home.Sub("config.yaml");
  REQUIRE(diagnostics.size() == 5);
  CHECK(diagnostics[0] == file + ": adapters.gemini.colour: unknown key (ignored)");
  CHECK(diagnostics[1] == file + ": adapters.gemini.shaping: expected auto, replace, wrap or off");
  CHECK(diagnostics[2] == file + ": adapters.claude_code: unknown agent (known: claude-code, codex, gemini, cursor, copilot)");
  CHECK(diagnostics[3] == file + ": adapters.cursor.shell_tools: expected a list of tool names");
  CHECK(diagnostics[4] == project.Sub(".plugline/config.yaml") +
                              ": adapters: only the global config.yaml sets this (ignored)");
  CHECK(config.adapters["codex"].shaping == "replace");
  CHECK(config.adapters["codex"].shell_tools == std::vector<std::string>{"run_script", "sh"});
  CHECK(config.adapters["gemini"].shaping.empty());
  CHECK(config.adapters.count("claude-code") == 0);  // the project's file cannot set it
}

TEST_CASE("a size too large to count in bytes is a problem, not a wrapped-around limit") {
  // heap_limit_mb: 17592186044416 (2^44) times 1 MiB is 2^64: the byte count wrapped to 0.
  Config config;
  std::vector<std::string> diagnostics;
  ApplyConfigText("plugins:\n  js:\n    heap_limit_mb: 17592186044416\n"
                  "outputs:\n  max_total_mb: 9007199254740992\n",
                  "/h/config.yaml", &config, &diagnostics);
  REQUIRE(diagnostics.size() == 2);
  CHECK(diagnostics[0] == "/h/config.yaml: plugins.js.heap_limit_mb: too large");
  CHECK(diagnostics[1] == "/h/config.yaml: outputs.max_total_mb: too large");
  CHECK(config.plugins.js.heap_limit_bytes == JsPluginSettings().heap_limit_bytes);
  CHECK(config.outputs.max_total_bytes == OutputRetention().max_total_bytes);
  // The largest that fits is taken as written.
  ApplyConfigText("plugins:\n  js:\n    heap_limit_mb: 4096\n", "/h/config.yaml", &config,
                  &diagnostics);
  CHECK(config.plugins.js.heap_limit_bytes == uint64_t{4096} << 20);
}

TEST_CASE("shaping: the summary budget and the tokenizer, with problems named") {
  Config config;
  CHECK(config.max_summary_tokens == 8000);
  CHECK(config.tokenizer == "o200k_base");
  std::vector<std::string> diagnostics;
  ApplyConfigText("shaping:\n  max_summary_tokens: 3000\n  tokenizer: cl100k_base\n",
                  "/h/config.yaml", &config, &diagnostics);
  CHECK(diagnostics.empty());
  CHECK(config.max_summary_tokens == 3000);
  CHECK(config.tokenizer == "cl100k_base");
  ApplyConfigText("shaping:\n  max_summary_tokens: 0\n", "/h/config.yaml", &config, &diagnostics);
  CHECK(config.max_summary_tokens == 0);
  ApplyConfigText("shaping:\n  max_summary_tokens: 50\n  tokenizer: gpt2\n  budget: 1\n",
                  "/h/config.yaml", &config, &diagnostics);
  REQUIRE(diagnostics.size() == 3);
  CHECK(diagnostics[0] == "/h/config.yaml: shaping.budget: unknown key (ignored)");
  CHECK(diagnostics[1] ==
        "/h/config.yaml: shaping.max_summary_tokens: expected 0 (no budget) or at least 200");
  CHECK(diagnostics[2] == "/h/config.yaml: shaping.tokenizer: expected \"o200k_base\", "
                          "\"cl100k_base\" or \"estimate\"");
  CHECK(config.max_summary_tokens == 0);
  CHECK(config.tokenizer == "cl100k_base");
}

TEST_CASE("malformed YAML is one diagnostic with the file and line") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "plugins:\n  dirs: [a, b\n");
  std::vector<std::string> diagnostics;
  LoadConfig(home.path(), "", &diagnostics);
  REQUIRE(diagnostics.size() == 1);
  CHECK(diagnostics[0].find(home.Sub("config.yaml") + ":") == 0);
}

TEST_CASE("ResolveHome: explicit, then PLUGLINE_HOME, then ~/.plugline") {
  CHECK(*ResolveHome("/x/y/") == "/x/y");
  const char* saved = getenv("PLUGLINE_HOME");
  std::string saved_value = saved ? saved : "";
  setenv("PLUGLINE_HOME", "/from/env", 1);
  CHECK(*ResolveHome("") == "/from/env");
  unsetenv("PLUGLINE_HOME");
  CHECK(*ResolveHome("") == ExpandTilde("~/.plugline"));
  if (saved) setenv("PLUGLINE_HOME", saved_value.c_str(), 1);
}

}  // namespace
}  // namespace plugline::core

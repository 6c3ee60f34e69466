// Configuration files and manifests built to hurt, through the real `plugline` binary: a YAML
// alias bomb, a huge document, JSON nested past any reader's depth. The plugin is broken or the
// file a diagnostic, the command goes on, and memory is not exhausted.
// Rows of docs/faults.md ("Configuration and manifests") name these test cases.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>

#include "cli/cli_runner.h"
#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;

using testing::Cli;
using testing::WriteFile;

// Ten levels of ten aliases: 10^10 nodes once expanded, a few hundred bytes written.
std::string AliasBomb(std::string_view first_key) {
  std::string bomb = StrCat(first_key, ": &a [x, x, x, x, x, x, x, x, x, x]\n");
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += StrCat(std::string(1, c), ": &", std::string(1, c), " [");
    for (int i = 0; i < 10; ++i) bomb += StrCat(i ? ", *" : "*", std::string(1, prev));
    bomb += "]\n";
    prev = c;
  }
  return bomb;
}

TEST_CASE("a plugin.yaml that is a YAML alias bomb is a broken plugin, nothing exhausted") {
  Cli cli;
  const std::string dir = cli.home.Sub("plugins/bomb");
  WriteFile(dir + "/plugin.yaml",
            StrCat("name: bomb\ncommand: ./run.sh\nhooks: [pre_tool_call]\n", AliasBomb("x")));
  WriteFile(dir + "/run.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"deny\":true}'\n");
  ::chmod((dir + "/run.sh").c_str(), 0755);
  auto hook = cli.Run({"hook", "pre_tool_call"}, "", R"({"tool":"t","arguments":"{}"})");
  CHECK(hook.exit_status == 0);
  auto result = core::ParseJson(hook.output, "plugline hook");
  REQUIRE_MESSAGE(result.ok(), hook.output, hook.error_output);
  const core::ValueArray& broken = result->Find("broken")->as_array();
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].Find("plugin")->as_string() == "bomb");
  CHECK(Contains(broken[0].Find("reason")->as_string(), "too large"));
}

TEST_CASE("a config.yaml that is a YAML alias bomb is one warning, and the command runs") {
  Cli cli;
  WriteFile(cli.home.Sub("config.yaml"), AliasBomb("stats"));
  auto run = cli.Run({"run", "--", "echo", "still here"});
  CHECK(run.exit_status == 0);
  CHECK(Contains(run.output, "still here"));
  CHECK(Contains(run.error_output, "plugline: warning: " + cli.home.Sub("config.yaml")));
  CHECK(Contains(run.error_output, "too large"));
}

TEST_CASE("a payload nested deeper than JSON readers go is refused, not a crash") {
  Cli cli;
  std::string deep = R"({"tool":"t","arguments":"{}","meta":)";
  for (int i = 0; i < 100000; ++i) deep += "[";
  for (int i = 0; i < 100000; ++i) deep += "]";
  deep += "}";
  auto hook = cli.Run({"hook", "pre_tool_call"}, "", deep);
  CHECK(hook.exit_status == 2);
  CHECK(hook.output.empty());
  CHECK(Contains(hook.error_output, "plugline: hook: the payload (standard input):"));
  CHECK(Contains(hook.error_output, "invalid JSON"));
}

}  // namespace
}  // namespace plugline

// `plugline hook --agent X` through the real binary, in-process and through the server: an
// exec guard denies `rm -rf` in every agent's terms, an OpenCode plugin's rewrite comes back as
// the agent's rewrite, a failing pytest run's output comes back as plugline's summary (every
// failing test kept) where the agent can replace it, and plugline failing itself fails open or
// closed as asked.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "absl/strings/str_replace.h"
#include "cli/cli_runner.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"

namespace plugline::cli {
namespace {

using plugline::testing::Cli;
using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::WriteFile;

// The guard every agent gets: an exec plugin (a shell script), as a user would write one.
void InstallGuard(Cli& cli) {
  WriteFile(cli.home.Sub("plugins/no-rm/plugin.yaml"),
            "name: no-rm\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
  WriteFile(cli.home.Sub("plugins/no-rm/run.sh"), R"sh(#!/bin/sh
case "$(cat)" in
  *'"tool":"terminal"'*'rm -rf'*|*'rm -rf'*'"tool":"terminal"'*) echo '{"deny":true,"reason":"no rm -rf, use trash"}' ;;
  *) echo '{}' ;;
esac
)sh");
  ::chmod(cli.home.Sub("plugins/no-rm/run.sh").c_str(), 0755);
}

core::Value Json(const std::string& text) {
  auto v = core::ParseJson(text, "answer");
  REQUIRE_MESSAGE(v.ok(), text);
  return *v;
}

std::string Text(const core::Value& v, std::string_view key) {
  const core::Value* member = v.Find(key);
  return member != nullptr && member->is_string() ? member->as_string() : "";
}

struct AgentCall {
  std::vector<std::string> args;
  std::string input;
};

// A pre-tool call of `command` in each agent's own form.
std::vector<std::pair<std::string, AgentCall>> PreToolCalls(std::string_view command) {
  core::JsonWriter args;
  args.BeginObject().Key("command").String(command).EndObject();
  const std::string input = args.Take();
  core::JsonWriter quoted;
  quoted.String(input);
  const std::string escaped_command = [&] {
    core::JsonWriter w;
    w.String(command);
    return w.Take();
  }();
  return {
      {"claude-code",
       {{"hook", "--agent", "claude-code"},
        StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":)",
               input, R"(,"tool_use_id":"toolu_01"})")}},
      {"codex",
       {{"hook", "--agent", "codex"},
        StrCat(R"({"session_id":"s1","turn_id":"t1","cwd":"/tmp","hook_event_name":"PreToolUse","model":"m","tool_name":"Bash","tool_input":)",
               input, R"(,"tool_use_id":"call_1"})")}},
      {"gemini",
       {{"hook", "--agent", "gemini"},
        StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":)",
               input, "}")}},
      {"cursor",
       {{"hook", "--agent", "cursor"},
        StrCat(R"({"conversation_id":"c1","hook_event_name":"beforeShellExecution","command":)",
               escaped_command, R"(,"cwd":"/tmp"})")}},
      {"copilot",
       {{"hook", "--agent", "copilot", "preToolUse"},
        StrCat(R"({"sessionId":"s1","cwd":"/tmp","toolName":"bash","toolArgs":)", quoted.Take(),
               "}")}},
      // plugline's OpenCode plugin's form of OpenCode's tool.execute.before.
      {"opencode",
       {{"hook", "--agent", "opencode"},
        StrCat(R"({"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s1","callID":"c1"},"output":{"args":)",
               input, R"(},"directory":"/tmp"})")}},
  };
}

// The deny reason in an agent's answer.
std::string DenyReason(std::string_view agent, const core::Value& answer) {
  if (agent == "claude-code" || agent == "codex") {
    const core::Value* hso = answer.Find("hookSpecificOutput");
    REQUIRE(hso != nullptr);
    CHECK(Text(*hso, "permissionDecision") == "deny");
    return Text(*hso, "permissionDecisionReason");
  }
  if (agent == "gemini") {
    CHECK(Text(answer, "decision") == "deny");
    return Text(answer, "reason");
  }
  if (agent == "cursor") {
    CHECK(Text(answer, "permission") == "deny");
    return Text(answer, "agent_message");
  }
  if (agent == "opencode") return Text(answer, "deny");
  CHECK(Text(answer, "permissionDecision") == "deny");
  return Text(answer, "permissionDecisionReason");
}

void CheckGuard(Cli& cli) {
  for (const auto& [agent, call] : PreToolCalls("rm -rf build")) {
    INFO(agent);
    auto run = cli.Run(call.args, "", call.input);
    CHECK(run.exit_status == 0);
    CHECK(DenyReason(agent, Json(run.output)) == "no rm -rf, use trash");
  }
  // No opinion: nothing on stdout, exit 0.
  for (const auto& [agent, call] : PreToolCalls("ls -la")) {
    INFO(agent);
    auto run = cli.Run(call.args, "", call.input);
    CHECK(run.exit_status == 0);
    CHECK(run.output == "");
  }
}

TEST_CASE("hook --agent: an exec guard denies rm -rf in every agent's own terms, and says nothing otherwise") {
  Cli cli;
  InstallGuard(cli);
  CheckGuard(cli);
}

TEST_CASE("hook --agent: the same answers through the server") {
  Cli cli;
  cli.server = true;
  WriteFile(cli.home.Sub("config.yaml"), "server: always\n");
  InstallGuard(cli);
  CheckGuard(cli);
  auto status = cli.Run({"server", "status", "--json"});
  CHECK(Json(status.output).Find("running")->as_bool());
}

// A failing pytest run (tests/fixtures/test/pytest_large.out: 4,319 lines, really run) as each
// agent that can replace a tool's output reports it, and plugline's summary in its answer.
TEST_CASE("hook --agent: a failing pytest run comes back as plugline's summary, every failing test kept") {
  Cli cli;
  const std::string output =
      ReadFileOrEmpty(StrCat(plugline::testing::SourceDir(), "/fixtures/test/pytest_large.out"));
  const core::Value meta = Json(
      ReadFileOrEmpty(StrCat(plugline::testing::SourceDir(), "/fixtures/test/pytest_large.json")));
  REQUIRE(output.size() > 100000);
  core::JsonWriter text;
  text.String(output);
  const std::string quoted = text.Take();

  // Codex reports every Bash call as PostToolUse, failing or not, with the output as a string.
  auto codex = cli.Run({"hook", "--agent", "codex"}, "",
                       StrCat(R"({"session_id":"s1","turn_id":"t1","cwd":"/tmp","hook_event_name":"PostToolUse","model":"m","tool_name":"Bash","tool_input":{"command":"pytest"},"tool_response":)",
                              quoted, R"(,"tool_use_id":"call_1"})"));
  REQUIRE(codex.exit_status == 0);
  const core::Value answer = Json(codex.output);
  CHECK(Text(answer, "decision") == "block");
  const std::string summary = Text(answer, "reason");
  CHECK(summary.size() * 5 < output.size());
  for (const core::Value& keep : meta.Find("must_keep")->as_array()) {
    CHECK_MESSAGE(summary.find(keep.as_string()) != std::string::npos, keep.as_string());
  }
  // The raw output is kept on disk, named in the summary.
  CHECK(summary.find(cli.home.Sub("outputs/")) != std::string::npos);

  // Copilot CLI: modifiedResult.
  auto copilot = cli.Run({"hook", "--agent", "copilot", "postToolUse"}, "",
                         StrCat(R"({"sessionId":"s1","cwd":"/tmp","toolName":"bash","toolArgs":"{\"command\":\"pytest\"}","toolResult":{"resultType":"failure","textResultForLlm":)",
                                quoted, "}}"));
  REQUIRE(copilot.exit_status == 0);
  const std::string copilot_summary =
      Text(*Json(copilot.output).Find("modifiedResult"), "textResultForLlm");
  CHECK(copilot_summary.size() * 5 < output.size());
  for (const core::Value& keep : meta.Find("must_keep")->as_array()) {
    CHECK_MESSAGE(copilot_summary.find(keep.as_string()) != std::string::npos, keep.as_string());
  }

  // Claude Code: a successful Bash call's output is replaced in Bash's own shape.
  auto claude = cli.Run({"hook", "--agent", "claude-code"}, "",
                        StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"pytest"},"tool_response":{"stdout":)",
                               quoted, R"(,"stderr":"","interrupted":false,"isImage":false},"tool_use_id":"t"})"));
  REQUIRE(claude.exit_status == 0);
  const core::Value replaced =
      *Json(claude.output).Find("hookSpecificOutput")->Find("updatedToolOutput");
  CHECK(Text(replaced, "stdout").size() * 5 < output.size());

  // --shaping off: no opinion.
  auto off = cli.Run({"hook", "--agent", "codex", "--shaping", "off"}, "",
                     StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"pytest"},"tool_response":)",
                            quoted, "}"));
  CHECK(off.exit_status == 0);
  CHECK(off.output == "");
}

TEST_CASE("hook --agent: a short output that printed a secret comes back masked, one without is left alone") {
  Cli cli;
  auto claude = [&](const std::string& stdout_text) {
    core::JsonWriter text;
    text.String(stdout_text);
    return cli.Run({"hook", "--agent", "claude-code"}, "",
                   StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cat .env"},"tool_response":{"stdout":)",
                          text.Take(), R"(,"stderr":"","interrupted":false,"isImage":false},"tool_use_id":"t"})"));
  };
  // Three lines: shown as they are, but for the password.
  auto masked = claude("DEBUG=1\nDB_PASSWORD=hunter2-prod\nPORT=8080\n");
  REQUIRE(masked.exit_status == 0);
  const core::Value replaced =
      *Json(masked.output).Find("hookSpecificOutput")->Find("updatedToolOutput");
  CHECK(Text(replaced, "stdout") == "DEBUG=1\nDB_PASSWORD=[redacted]\nPORT=8080\n");
  // Nothing to mask, nothing to shorten: no opinion.
  auto plain = claude("DEBUG=1\nPORT=8080\n");
  CHECK(plain.exit_status == 0);
  CHECK(plain.output == "");
}

#if PLUGLINE_TEST_WITH_V8  // an OpenCode plugin
TEST_CASE("hook --agent: an OpenCode plugin sees the shell tool as bash, and its rewrite is the agent's rewrite") {
  Cli cli;
  WriteFile(cli.home.Sub("plugins/rewrite.js"), R"JS(export default async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash" && output.args.command === "make") output.args.command = "make -j2";
  },
}))JS");
  auto claude = cli.Run({"hook", "--agent", "claude-code"}, "",
                        R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make","description":"build"},"tool_use_id":"t"})");
  REQUIRE(claude.exit_status == 0);
  const core::Value answer = Json(claude.output);
  const core::Value* hso = answer.Find("hookSpecificOutput");
  REQUIRE_MESSAGE(hso != nullptr, claude.output, claude.error_output);
  REQUIRE(hso->Find("updatedInput") != nullptr);
  CHECK(core::ToJson(*hso->Find("updatedInput")) == R"({"command":"make -j2","description":"build"})");
  auto gemini = cli.Run({"hook", "--agent", "gemini"}, "",
                        R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"make"}})");
  REQUIRE(gemini.exit_status == 0);
  const core::Value gemini_answer = Json(gemini.output);
  REQUIRE(gemini_answer.Find("hookSpecificOutput") != nullptr);
  CHECK(core::ToJson(*gemini_answer.Find("hookSpecificOutput")->Find("tool_input")) ==
        R"({"command":"make -j2"})");
}
#endif

TEST_CASE("hook --agent: plugline failing itself fails open, or closed with --fail-closed") {
  Cli cli;
  InstallGuard(cli);
  for (const std::string agent : {"claude-code", "codex", "gemini", "cursor", "copilot"}) {
    INFO(agent);
    auto open = cli.Run({"hook", "--agent", agent, "preToolUse"}, "", "{not json");
    CHECK(open.exit_status == (agent == "copilot" ? 0 : 1));
    CHECK(open.output == "");
    CHECK(open.error_output.find("plugline: hook --agent") == 0);
    auto closed = cli.Run({"hook", "--agent", agent, "--fail-closed", "preToolUse"}, "", "{not json");
    CHECK(closed.exit_status == 2);
    CHECK(closed.output == "");
    CHECK(closed.error_output.find("invalid JSON") != std::string::npos);
  }
  auto unknown = cli.Run({"hook", "--agent", "clippy"}, "", "{}");
  CHECK(unknown.exit_status == 2);
  CHECK(unknown.error_output.find("unknown agent \"clippy\"") != std::string::npos);
  auto stray = cli.Run({"hook", "pre_tool_call", "--fail-closed"}, "", "{}");
  CHECK(stray.exit_status == 2);
}

// Claude Code's PreToolUse of `command` from a project in `cwd`, with `permission_mode`.
std::string ClaudePre(std::string_view command, std::string_view cwd,
                      std::string_view permission_mode = "default") {
  core::JsonWriter w;
  w.BeginObject().Key("session_id").String("s1").Key("cwd").String(cwd);
  w.Key("permission_mode").String(permission_mode).Key("hook_event_name").String("PreToolUse");
  w.Key("tool_name").String("Bash").Key("tool_input").BeginObject().Key("command").String(command);
  w.EndObject().Key("tool_use_id").String("t").EndObject();
  return w.Take();
}

// The command of a Claude Code answer's updatedInput, or "" when there is none.
std::string UpdatedCommand(const std::string& answer) {
  if (answer.empty()) return "";
  const core::Value doc = Json(answer);
  const core::Value* hso = doc.Find("hookSpecificOutput");
  if (hso == nullptr || hso->Find("updatedInput") == nullptr) return "";
  return Text(*hso->Find("updatedInput"), "command");
}

TEST_CASE("hook --agent: a shell command is wrapped in plugline run only where the agent would not have asked") {
  Cli cli;
  plugline::testing::TempDir user;
  cli.env = {{"HOME", user.path()}};
  const std::string project = user.Sub("proj");
  WriteFile(project + "/README", "");
  const std::string wrapped_prefix = StrCat(cli.binary, " run -- \"${SHELL:-/bin/sh}\" -c '");
  auto pre = [&](std::string_view command, std::string_view mode = "default") {
    auto run = cli.Run({"hook", "--agent", "claude-code"}, "", ClaudePre(command, project, mode));
    CHECK(run.exit_status == 0);
    return UpdatedCommand(run.output);
  };
  // No rule lets it run without asking: not wrapped (a wrapped call is an approved one).
  CHECK(pre("ls -la") == "");
  // bypassPermissions asks nothing anyway.
  CHECK(pre("ls -la", "bypassPermissions") == wrapped_prefix + "ls -la'");
  // The user's own rules.
  WriteFile(user.Sub(".claude/settings.json"),
            R"J({"permissions":{"allow":["Bash(ls:*)","Bash(git log:*)"],"deny":["Bash(git log -p:*)"]}})J");
  CHECK(pre("ls -la") == wrapped_prefix + "ls -la'");
  CHECK(pre("ls -la && wc -l README") == "");  // wc is not allowed: Claude would ask
  CHECK(pre("git log -p") == "");              // denied by a rule: Claude's to refuse
  WriteFile(project + "/.claude/settings.local.json", R"J({"permissions":{"allow":["Bash(wc:*)"]}})J");
  CHECK(pre("ls -la && wc -l README") == wrapped_prefix + "ls -la && wc -l README'");
  // The rule for what is wrapped: cd and the like change the agent's shell.
  CHECK(pre("cd /tmp", "bypassPermissions") == "");
  // A leading cd stays in the agent's shell; what follows it is wrapped, and runs there.
  ::mkdir((project + "/sub").c_str(), 0755);
  for (int i = 0; i < 300; ++i) WriteFile(StrCat(project, "/sub/f", i, ".txt"), "");
  const std::string cd_ls = pre("cd sub && ls -1", "bypassPermissions");
  CHECK(cd_ls == StrCat("cd sub && ", wrapped_prefix, "ls -1'"));
  {
    // The agent's shell: the wrapped command, then where the shell is after it.
    exec::ProcessSpec shell;
    shell.argv = {"/bin/sh", "-c", StrCat(cd_ls, "; echo \"exit $?\"; pwd")};
    shell.cwd = project;
    shell.extra_env = {{"PLUGLINE_HOME", cli.home.path()}, {"PLUGLINE_SERVER", "0"}};
    auto ran = exec::RunProcess(shell);
    REQUIRE(ran.ok());
    INFO(ran->output);
    CHECK(ran->output.starts_with("ls: exit 0, 300 lines\n"));  // the summary, in sub
    CHECK(Contains(ran->output, "\nf0.txt\n"));
    CHECK(Contains(ran->output, "\nexit 0\n"));
    CHECK(ran->output.ends_with(StrCat("/sub\n")));  // the cd stayed in the agent's shell
  }
  auto said = cli.Run({"hook", "--agent", "claude-code", "--shaping", "wrap"}, "",
                      ClaudePre("cd /tmp", project, "bypassPermissions"));
  CHECK(said.error_output.find("not wrapped: `cd` changes the agent's shell") != std::string::npos);
  CHECK(cli.Run({"hook", "--agent", "claude-code", "--shaping", "off"}, "",
                ClaudePre("ls", project, "bypassPermissions")).output == "");
  // Codex: only when it asks nothing (approval never, full access).
  auto codex = cli.Run({"hook", "--agent", "codex"}, "",
                       R"({"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"ls"}})");
  CHECK(UpdatedCommand(codex.output) == wrapped_prefix + "ls'");
  auto asking = cli.Run({"hook", "--agent", "codex"}, "",
                        R"({"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}})");
  CHECK(asking.output == "");
}

TEST_CASE("hook --agent: after a wrapped command, plugins see the original and nothing is shaped twice") {
  Cli cli;
  const std::string seen = cli.home.Sub("seen.txt");
  cli.Run({"version"});
  WriteFile(cli.home.Sub("plugins/seen/plugin.yaml"), "name: seen\ncommand: ./run.sh\nhooks: [post_tool_call]\n");
  WriteFile(cli.home.Sub("plugins/seen/run.sh"), StrCat("#!/bin/sh\ncat > '", seen, "'\necho '{}'\n"));
  ::chmod(cli.home.Sub("plugins/seen/run.sh").c_str(), 0755);
  const std::string wrapped = StrCat(cli.binary, " run -- \"${SHELL:-/bin/sh}\" -c 'seq 1 5000'");
  core::JsonWriter w;
  w.BeginObject().Key("session_id").String("s").Key("cwd").String("/tmp");
  w.Key("hook_event_name").String("PostToolUse").Key("tool_name").String("Bash");
  w.Key("tool_input").BeginObject().Key("command").String(wrapped).EndObject();
  w.Key("tool_response").BeginObject().Key("stdout").String("seq: 5,000 lines (summary)").Key("stderr").String("");
  w.Key("interrupted").Bool(false).Key("isImage").Bool(false).EndObject().EndObject();
  auto run = cli.Run({"hook", "--agent", "claude-code", "--shaping", "replace"}, "", w.Take());
  CHECK(run.exit_status == 0);
  CHECK(run.output == "");  // the output is plugline's summary already
  const core::Value payload = Json(ReadFileOrEmpty(seen));
  CHECK(Text(Json(Text(payload, "arguments")), "command") == "seq 1 5000");
  CHECK(payload.Find("wrapped")->as_bool());
}

TEST_CASE("hook --agent: adapters.<agent> in config.yaml sets the shaping and more shell tools") {
  Cli cli;
  InstallGuard(cli);
  WriteFile(cli.home.Sub("config.yaml"),
            "adapters:\n  codex:\n    shaping: off\n  claude-code:\n    shell_tools: [RunScript]\n");
  const std::string output = StrCat("FAILED test_x\n", std::string(20000, 'y'), "\n");
  core::JsonWriter text;
  text.String(output);
  auto codex = cli.Run({"hook", "--agent", "codex"}, "",
                       StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_response":)",
                              text.Take(), "}"));
  CHECK(codex.exit_status == 0);
  CHECK(codex.output == "");  // shaping: off
  auto forced = cli.Run({"hook", "--agent", "codex", "--shaping", "replace"}, "",
                        StrCat(R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make"},"tool_response":)",
                               [&] { core::JsonWriter w; w.String(output); return w.Take(); }(), "}"));
  CHECK(Text(Json(forced.output), "decision") == "block");  // the command line wins
  // RunScript counts as the shell: the guard sees it as `terminal`.
  auto script = cli.Run({"hook", "--agent", "claude-code"}, "",
                        R"({"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"RunScript","tool_input":{"command":"rm -rf build"}})");
  CHECK(DenyReason("claude-code", Json(script.output)) == "no rm -rf, use trash");
}

TEST_CASE("plugline install --agent: dry run, install with a backup, again, uninstall, and a bad file refused") {
  Cli cli;
  plugline::testing::TempDir user;
  cli.env = {{"HOME", user.path()}};
  cli.cwd = user.path();
  const std::string settings = user.Sub(".claude/settings.json");
  const std::string theirs = R"({"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}})";
  WriteFile(settings, theirs);

  auto dry = cli.Run({"install", "--agent", "claude-code", "--dry-run"});
  REQUIRE_MESSAGE(dry.exit_status == 0, dry.error_output);
  CHECK(dry.output.find("+++ " + settings + " (after install)") != std::string::npos);
  CHECK(dry.output.find(StrCat("+            \"command\": \"", cli.binary,
                               " hook --agent claude-code\"")) != std::string::npos);
  CHECK(ReadFileOrEmpty(settings) == theirs);  // a dry run changes nothing

  auto installed = cli.Run({"install", "--agent", "claude-code"});
  REQUIRE_MESSAGE(installed.exit_status == 0, installed.error_output);
  CHECK(installed.output.find("added plugline's hook to 8 events of claude-code in " + settings) == 0);
  const size_t at = installed.output.find("the file as it was: ");
  REQUIRE(at != std::string::npos);
  const std::string backup = installed.output.substr(at + 20, installed.output.find(')', at) - at - 20);
  CHECK(ReadFileOrEmpty(backup) == theirs);
  CHECK(ReadFileOrEmpty(settings).find("notify-send done") != std::string::npos);

  auto again = cli.Run({"install", "--agent", "claude-code"});
  CHECK(again.exit_status == 0);
  CHECK(again.output.find("already there; nothing to do") != std::string::npos);

  auto removed = cli.Run({"install", "--agent", "claude-code", "--uninstall"});
  CHECK(removed.exit_status == 0);
  CHECK(removed.output.find("took plugline's hook out of 8 events") == 0);
  auto after = core::ParseJson(ReadFileOrEmpty(settings), "settings");
  REQUIRE(after.ok());
  CHECK(core::ToJson(*after) == theirs);

  // Codex: what is left to do by hand is said. The project's file with --project.
  auto codex = cli.Run({"install", "--agent", "codex", "--project"});
  CHECK(codex.exit_status == 0);
  CHECK(codex.output.find("still to do by hand: Codex runs a hook only once you have trusted it") !=
        std::string::npos);
  CHECK(ReadFileOrEmpty(user.Sub(".codex/hooks.json")).find("hook --agent codex") != std::string::npos);

  WriteFile(user.Sub(".gemini/settings.json"), "{\"hooks\": [}");
  auto bad = cli.Run({"install", "--agent", "gemini"});
  CHECK(bad.exit_status == 1);
  CHECK(bad.error_output.find(user.Sub(".gemini/settings.json")) != std::string::npos);
  CHECK(ReadFileOrEmpty(user.Sub(".gemini/settings.json")) == "{\"hooks\": [}");
  CHECK(cli.Run({"install", "--agent", "nope"}).exit_status == 2);
  CHECK(cli.Run({"install"}).exit_status == 2);
}

TEST_CASE("plugline install --agent opencode: plugline's OpenCode plugin in OpenCode's plugin folder, pointed at this plugline") {
  Cli cli;
  plugline::testing::TempDir user;
  cli.env = {{"HOME", user.path()}, {"XDG_CONFIG_HOME", user.Sub("config")}};
  cli.cwd = user.path();
  const std::string plugin = user.Sub("config/opencode/plugins/plugline.js");
  auto dry = cli.Run({"install", "--agent", "opencode", "--dry-run"});
  REQUIRE_MESSAGE(dry.exit_status == 0, dry.error_output);
  CHECK(dry.output.find("+// plugline-opencode-bridge") != std::string::npos);
  CHECK_FALSE(core::PathExists(plugin));

  auto installed = cli.Run({"install", "--agent", "opencode"});
  REQUIRE_MESSAGE(installed.exit_status == 0, installed.error_output);
  CHECK(installed.output.find("added plugline's OpenCode plugin (tool.execute.before") == 0);
  CHECK(installed.output.find(plugin) != std::string::npos);
  CHECK(ReadFileOrEmpty(plugin).find(StrCat("const DEFAULT_BINARY = \"", cli.binary, "\";")) !=
        std::string::npos);
  CHECK(cli.Run({"install", "--agent", "opencode"}).output.find("nothing to do") != std::string::npos);

  // The project's folder with --project; someone else's plugline.js there is left alone.
  const std::string theirs = user.Sub(".opencode/plugins/plugline.js");
  WriteFile(theirs, "export const Mine = async () => ({});\n");
  auto refused = cli.Run({"install", "--agent", "opencode", "--project"});
  CHECK(refused.exit_status == 1);
  CHECK(refused.error_output.find(theirs) != std::string::npos);
  CHECK(ReadFileOrEmpty(theirs) == "export const Mine = async () => ({});\n");
  CHECK(cli.Run({"install", "--agent", "opencode", "--project", "--uninstall"}).output.find(
            "nothing to do") != std::string::npos);
  CHECK(ReadFileOrEmpty(theirs) == "export const Mine = async () => ({});\n");

  auto removed = cli.Run({"install", "--agent", "opencode", "--uninstall"});
  CHECK(removed.exit_status == 0);
  CHECK(removed.output.find("removed plugline's OpenCode plugin") == 0);
  CHECK_FALSE(core::PathExists(plugin));
  // The file as it was is kept beside it.
  const size_t at = removed.output.find("the file as it was: ");
  REQUIRE(at != std::string::npos);
  CHECK(ReadFileOrEmpty(removed.output.substr(at + 20, removed.output.find(')', at) - at - 20))
            .starts_with("// plugline-opencode-bridge"));
}

}  // namespace
}  // namespace plugline::cli

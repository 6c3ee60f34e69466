// The agents' hook dialects (src/agents/dialect.h) on recorded hook calls of every agent
// (tests/fixtures/agents/, see its README): how each call maps onto plugline's events and
// payload, and what each agent is answered for a deny, a rewrite, a replacement, a notice and
// no opinion — only fields the agent reads, and nothing at all for no opinion.
#include "agents/dialect.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::agents {
namespace {

using core::Value;

constexpr Agent kAll[] = {Agent::kClaudeCode, Agent::kCodex,   Agent::kGemini,
                          Agent::kCursor,     Agent::kCopilot, Agent::kOpenCode};

struct Recorded {
  std::string source;
  std::string event_arg;
  std::string input;  // the agent's JSON, as it wrote it
};

std::vector<Recorded> Calls(std::string_view agent) {
  const std::string path = StrCat(plugline::testing::SourceDir(), "/fixtures/agents/", agent, ".jsonl");
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  std::vector<Recorded> calls;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    absl::StatusOr<Value> entry = core::ParseJson(line, path);
    REQUIRE_MESSAGE(entry.ok(), entry.status().ToString());
    calls.push_back({entry->Find("source")->as_string(), entry->Find("event_arg")->as_string(),
                     core::ToJson(*entry->Find("input"))});
  }
  return calls;
}

HookCall Read(Agent agent, const Recorded& recorded) {
  absl::StatusOr<HookCall> call = ReadHookCall(agent, recorded.input, recorded.event_arg);
  REQUIRE_MESSAGE(call.ok(), recorded.input, ": ", call.status().ToString());
  return *std::move(call);
}

HookCall Find(Agent agent, std::string_view agent_event, std::string_view tool = "") {
  for (const Recorded& recorded : Calls(AgentName(agent))) {
    HookCall call = Read(agent, recorded);
    if (call.agent_event == agent_event && (tool.empty() || call.agent_tool == tool)) return call;
  }
  FAIL("no recorded ", agent_event, " call of ", AgentName(agent));
  return HookCall{};
}

Value Payload(const HookCall& call) {
  absl::StatusOr<Value> payload = core::ParseJson(call.payload_json, "payload");
  REQUIRE(payload.ok());
  return *payload;
}

std::string Text(const Value& v, std::string_view key) {
  const Value* member = v.Find(key);
  return member != nullptr && member->is_string() ? member->as_string() : "";
}

Value Json(const std::string& text) {
  absl::StatusOr<Value> v = core::ParseJson(text, "answer");
  REQUIRE_MESSAGE(v.ok(), text);
  return *v;
}

DispatchResult Denied(std::string reason) {
  DispatchResult r;
  r.denied = true;
  r.denied_by = "guard";
  r.reason = std::move(reason);
  r.plugins.push_back({"guard", "deny", 1});
  return r;
}

DispatchResult Rewritten(std::string arguments) {
  DispatchResult r;
  r.arguments = std::move(arguments);
  r.plugins.push_back({"rewriter", "rewrite", 1});
  return r;
}

DispatchResult Noticed(std::string text) {
  DispatchResult r;
  r.notices.push_back({"audit", std::move(text)});
  r.plugins.push_back({"audit", "notice", 1});
  return r;
}

TEST_CASE("agents: every recorded hook call maps onto a canonical event, with the agent's names kept") {
  // agent event (and tool) → canonical event, tool
  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {"claude-code PreToolUse", {"pre_tool_call", "terminal"}},
      {"claude-code PostToolUse", {"post_tool_call", "terminal"}},
      {"claude-code PostToolUseFailure", {"post_tool_call", "terminal"}},
      {"claude-code SessionStart", {"session_start", ""}},
      {"claude-code UserPromptSubmit", {"user_prompt", ""}},
      {"claude-code Stop", {"turn_end", ""}},
      {"claude-code SessionEnd", {"session_end", ""}},
      {"claude-code PreCompact", {"pre_compact", ""}},
      {"claude-code Notification", {"notification", ""}},
      {"claude-code PermissionRequest", {"permission_request", "terminal"}},
      {"codex PreToolUse", {"pre_tool_call", ""}},  // terminal, or apply_patch
      {"codex PostToolUse", {"post_tool_call", "terminal"}},
      {"codex SessionStart", {"session_start", ""}},
      {"codex UserPromptSubmit", {"user_prompt", ""}},
      {"codex Stop", {"turn_end", ""}},
      {"gemini BeforeTool", {"pre_tool_call", "terminal"}},
      {"gemini AfterTool", {"post_tool_call", "terminal"}},
      {"gemini BeforeAgent", {"user_prompt", ""}},
      {"gemini AfterAgent", {"turn_end", ""}},
      {"gemini SessionStart", {"session_start", ""}},
      {"gemini PreCompress", {"pre_compact", ""}},
      {"gemini SessionEnd", {"session_end", ""}},
      {"gemini BeforeModel", {"before_model", ""}},
      {"cursor preToolUse", {"pre_tool_call", "terminal"}},
      {"cursor postToolUse", {"post_tool_call", "terminal"}},
      {"cursor postToolUseFailure", {"post_tool_call", "terminal"}},
      {"cursor beforeShellExecution", {"pre_tool_call", "terminal"}},
      {"cursor afterShellExecution", {"post_tool_call", "terminal"}},
      {"cursor beforeReadFile", {"pre_tool_call", "read"}},
      {"cursor beforeSubmitPrompt", {"user_prompt", ""}},
      {"cursor stop", {"turn_end", ""}},
      {"cursor sessionStart", {"session_start", ""}},
      {"copilot preToolUse", {"pre_tool_call", "terminal"}},
      {"copilot postToolUse", {"post_tool_call", "terminal"}},
      {"copilot postToolUseFailure", {"post_tool_call", "terminal"}},
      {"copilot sessionStart", {"session_start", ""}},
      {"copilot userPromptSubmitted", {"user_prompt", ""}},
      {"copilot PreToolUse", {"pre_tool_call", "terminal"}},
      {"copilot PostToolUse", {"post_tool_call", "terminal"}},
      {"copilot agentStop", {"turn_end", ""}},
      {"copilot sessionEnd", {"session_end", ""}},
      {"opencode session.created", {"session_start", ""}},
      {"opencode chat.message", {"user_prompt", ""}},
      {"opencode tool.execute.before", {"pre_tool_call", ""}},  // terminal, or read
      {"opencode tool.execute.after", {"post_tool_call", "terminal"}},
      {"opencode session.idle", {"turn_end", ""}},
      {"opencode experimental.session.compacting", {"pre_compact", ""}},
      {"opencode session.deleted", {"session_end", ""}},
  };
  size_t seen = 0;
  for (Agent agent : kAll) {
    for (const Recorded& recorded : Calls(AgentName(agent))) {
      const HookCall call = Read(agent, recorded);
      const std::string key = StrCat(AgentName(agent), " ", call.agent_event);
      INFO(key, " (", recorded.source, ")");
      auto want = expected.find(key);
      REQUIRE_MESSAGE(want != expected.end(), "no expectation for ", key);
      ++seen;
      CHECK(call.event == want->second.first);
      if (!want->second.second.empty()) CHECK(call.tool == want->second.second);
      const Value payload = Payload(call);
      CHECK(Text(payload, "event") == call.event);
      CHECK(Text(payload, "platform") == AgentName(agent));
      CHECK(Text(payload, "agent_event") == call.agent_event);
      CHECK_FALSE(Text(payload, "session_id").empty());
      if (!call.agent_tool.empty()) CHECK(Text(payload, "agent_tool") == call.agent_tool);
      if (call.event == "pre_tool_call" || call.event == "post_tool_call") {
        // The tool's input, as the agent gave it, is the JSON text of `arguments`.
        const Value args = Json(Text(payload, "arguments"));
        CHECK(args.is_object());
        if (call.shell) CHECK(Text(args, "command") == call.command);
        CHECK(payload.Find("tool_input") == nullptr);  // not sent twice
        CHECK(payload.Find("tool_response") == nullptr);
      }
      if (call.event == "post_tool_call") CHECK(Text(payload, "result") == call.output);
    }
  }
  CHECK(seen == 80);
}

TEST_CASE("agents: the tool's output and exit code are read from each agent's own shape") {
  HookCall claude = Find(Agent::kClaudeCode, "PostToolUse");
  CHECK(claude.output == "ORIGINAL\n1\n2\n3");
  CHECK(claude.output_is_bash);
  CHECK(claude.exit_code == 0);
  HookCall failure = Find(Agent::kClaudeCode, "PostToolUseFailure");
  CHECK(failure.failed);
  CHECK(failure.exit_code == 1);
  CHECK(failure.output.find("F.\nFAILED tests/test_a.py::test_x") == 0);  // "Exit code 1" line gone
  CHECK(failure.command == "pytest -q");
  HookCall codex = Find(Agent::kCodex, "PostToolUse");
  CHECK(codex.output == "ORIGINAL\n1\n2\n3\n");
  CHECK_FALSE(codex.exit_code.has_value());  // Codex does not say
  HookCall cursor = Find(Agent::kCursor, "postToolUse");
  CHECK(cursor.output == "ORIGINAL\n1\n2\n3\n");
  CHECK(cursor.exit_code == 0);
  HookCall copilot = Find(Agent::kCopilot, "postToolUse");
  CHECK(copilot.copilot_camel);
  CHECK(copilot.command == "echo ORIGINAL; seq 1 3");
  CHECK(copilot.output == "ORIGINAL\n1\n2\n3\n");
  CHECK(Find(Agent::kCopilot, "postToolUseFailure").failed);
  // Copilot CLI 1.0.102's shell: the exit code is in the line it ends the output with, and a
  // failing command's resultType is still "success".
  bool saw_copilot_failure = false;
  for (const Recorded& recorded : Calls("copilot")) {
    if (recorded.source.find("recorded, Copilot CLI") == std::string::npos) continue;
    HookCall call = Read(Agent::kCopilot, recorded);
    if (call.agent_event != "postToolUse") continue;
    if (call.command == "ls /nonexistent") {
      saw_copilot_failure = true;
      CHECK(call.exit_code == 2);
      CHECK(call.failed);
      CHECK(call.output == "ls: cannot access '/nonexistent': No such file or directory\n");
      CHECK(call.output_trailer == "<shellId: 1 completed with exit code 2>");
      // A replacement keeps the line, under the summary.
      Value p = Json(Respond(call, {}, std::optional<std::string>("SHAPED")).out);
      CHECK(Text(*p.Find("modifiedResult"), "textResultForLlm") ==
            "SHAPED\n<shellId: 1 completed with exit code 2>");
    } else {
      CHECK(call.exit_code == 0);
      CHECK(call.output == "ORIGINAL\n1\n2\n3\n");
    }
  }
  CHECK(saw_copilot_failure);
  // Gemini CLI: a failing command's exit code is in the text the model reads.
  bool saw_failure = false;
  for (const Recorded& recorded : Calls("gemini")) {
    HookCall call = Read(Agent::kGemini, recorded);
    if (call.agent_event == "AfterTool" && call.command == "false") {
      saw_failure = true;
      CHECK(call.exit_code == 1);
      CHECK(call.failed);
    }
  }
  CHECK(saw_failure);
}

TEST_CASE("agents: a deny is answered in each agent's own terms") {
  Value a = Json(Respond(Find(Agent::kClaudeCode, "PreToolUse"), Denied("no rm -rf"), {}).out);
  CHECK(Text(*a.Find("hookSpecificOutput"), "permissionDecision") == "deny");
  CHECK(Text(*a.Find("hookSpecificOutput"), "permissionDecisionReason") == "no rm -rf");
  CHECK(Text(*a.Find("hookSpecificOutput"), "hookEventName") == "PreToolUse");
  Value c = Json(Respond(Find(Agent::kCodex, "PreToolUse", "Bash"), Denied("no rm -rf"), {}).out);
  CHECK(Text(*c.Find("hookSpecificOutput"), "permissionDecision") == "deny");
  CHECK(c.as_object().size() == 1);
  Value g = Json(Respond(Find(Agent::kGemini, "BeforeTool"), Denied("no rm -rf"), {}).out);
  CHECK(Text(g, "decision") == "deny");
  CHECK(Text(g, "reason") == "no rm -rf");
  for (std::string_view event : {"preToolUse", "beforeShellExecution", "beforeReadFile"}) {
    Value u = Json(Respond(Find(Agent::kCursor, event), Denied("no rm -rf"), {}).out);
    CHECK(Text(u, "permission") == "deny");
    CHECK(Text(u, "agent_message") == "no rm -rf");
  }
  Value p = Json(Respond(Find(Agent::kCopilot, "preToolUse"), Denied("no rm -rf"), {}).out);
  CHECK(Text(p, "permissionDecision") == "deny");
  CHECK(Text(p, "permissionDecisionReason") == "no rm -rf");
  for (Agent agent : {Agent::kClaudeCode, Agent::kCodex, Agent::kGemini, Agent::kCursor,
                      Agent::kCopilot}) {
    CHECK(Respond(Find(agent, agent == Agent::kGemini ? "BeforeTool"
                              : agent == Agent::kCursor || agent == Agent::kCopilot
                                  ? "preToolUse"
                                  : "PreToolUse"),
                  Denied("x"), {})
              .exit_code == 0);
  }
}

TEST_CASE("agents: a rewrite replaces the whole input where the agent replaces, and is refused where it cannot apply") {
  const std::string rewritten = R"({"command":"echo REWRITTEN"})";
  Value a = Json(Respond(Find(Agent::kClaudeCode, "PreToolUse"), Rewritten(rewritten), {}).out);
  const Value& hso = *a.Find("hookSpecificOutput");
  CHECK(Text(hso, "permissionDecision") == "allow");
  CHECK(core::ToJson(*hso.Find("updatedInput")) == rewritten);
  Value c = Json(Respond(Find(Agent::kCodex, "PreToolUse", "Bash"), Rewritten(rewritten), {}).out);
  CHECK(core::ToJson(*c.Find("hookSpecificOutput")->Find("updatedInput")) == rewritten);
  // Codex refuses a shell rewrite without a string command: plugline denies, naming it.
  Value bad = Json(Respond(Find(Agent::kCodex, "PreToolUse", "Bash"),
                           Rewritten(R"({"cmd":"echo REWRITTEN"})"), {}).out);
  CHECK(Text(*bad.Find("hookSpecificOutput"), "permissionDecision") == "deny");
  Value g = Json(Respond(Find(Agent::kGemini, "BeforeTool"), Rewritten(rewritten), {}).out);
  CHECK(core::ToJson(*g.Find("hookSpecificOutput")->Find("tool_input")) == rewritten);
  CHECK(g.Find("decision") == nullptr);
  Value u = Json(Respond(Find(Agent::kCursor, "preToolUse"), Rewritten(rewritten), {}).out);
  CHECK(core::ToJson(*u.Find("updated_input")) == rewritten);
  // beforeShellExecution cannot rewrite: the call is refused, with the rewritten call named.
  Value refused =
      Json(Respond(Find(Agent::kCursor, "beforeShellExecution"), Rewritten(rewritten), {}).out);
  CHECK(Text(refused, "permission") == "deny");
  CHECK(Text(refused, "agent_message").find("echo REWRITTEN") != std::string::npos);
  Value p = Json(Respond(Find(Agent::kCopilot, "preToolUse"), Rewritten(rewritten), {}).out);
  CHECK(core::ToJson(*p.Find("modifiedArgs")) == rewritten);
  // Arguments a plugin handed back unchanged are no rewrite (and no approval).
  HookCall same = Find(Agent::kClaudeCode, "PreToolUse");
  CHECK(Respond(same, Rewritten(core::ToJson(same.tool_input)), {}).out.empty());
}

TEST_CASE("agents: a replaced output is what the model reads, where the agent allows it") {
  const std::optional<std::string> shaped = "SHAPED";
  Value a = Json(Respond(Find(Agent::kClaudeCode, "PostToolUse"), {}, shaped).out);
  const Value& out = *a.Find("hookSpecificOutput")->Find("updatedToolOutput");
  CHECK(Text(out, "stdout") == "SHAPED");  // Bash's own shape, or Claude Code ignores it
  CHECK(out.Find("interrupted") != nullptr);
  // PostToolUseFailure cannot replace: the text is added as context, and the user is told.
  Answer failure = Respond(Find(Agent::kClaudeCode, "PostToolUseFailure"), {}, shaped);
  CHECK(Text(*Json(failure.out).Find("hookSpecificOutput"), "additionalContext") == "SHAPED");
  CHECK_FALSE(failure.err.empty());
  Value c = Json(Respond(Find(Agent::kCodex, "PostToolUse"), {}, shaped).out);
  CHECK(Text(c, "decision") == "block");
  CHECK(Text(c, "reason") == "SHAPED");
  CHECK(c.Find("hookSpecificOutput") == nullptr);
  Value g = Json(Respond(Find(Agent::kGemini, "AfterTool"), {}, shaped).out);
  CHECK(Text(g, "decision") == "deny");
  CHECK(Text(g, "reason") == "SHAPED");
  Answer cursor = Respond(Find(Agent::kCursor, "postToolUse"), {}, shaped);
  CHECK(Text(Json(cursor.out), "additional_context") == "SHAPED");
  CHECK_FALSE(cursor.err.empty());
  Value p = Json(Respond(Find(Agent::kCopilot, "postToolUse"), {}, shaped).out);
  CHECK(Text(*p.Find("modifiedResult"), "textResultForLlm") == "SHAPED");
  CHECK(Text(*p.Find("modifiedResult"), "resultType") == "success");
}

TEST_CASE("agents: notices reach the model where the event has a field for them, and no opinion is silence") {
  Value a = Json(Respond(Find(Agent::kClaudeCode, "UserPromptSubmit"), Noticed("remember X"), {}).out);
  CHECK(Text(*a.Find("hookSpecificOutput"), "additionalContext") == "remember X");
  Value stop = Json(Respond(Find(Agent::kClaudeCode, "Stop"), Noticed("remember X"), {}).out);
  CHECK(Text(stop, "systemMessage") == "remember X");
  // Codex has no field for it on Stop (and drops an answer with one it does not know).
  Answer codex_stop = Respond(Find(Agent::kCodex, "Stop"), Noticed("remember X"), {});
  CHECK(codex_stop.out.empty());
  CHECK(codex_stop.err == "remember X\n");
  Value g = Json(Respond(Find(Agent::kGemini, "BeforeAgent"), Noticed("remember X"), {}).out);
  CHECK(Text(*g.Find("hookSpecificOutput"), "additionalContext") == "remember X");
  for (Agent agent : kAll) {
    for (const Recorded& recorded : Calls(AgentName(agent))) {
      const Answer nothing = Respond(Read(agent, recorded), DispatchResult{}, std::nullopt);
      INFO(AgentName(agent), " ", recorded.input);
      CHECK(nothing.out.empty());
      CHECK(nothing.err.empty());
      CHECK(nothing.exit_code == 0);
    }
  }
}

TEST_CASE("agents: plugline's own failure fails open by default and closed when asked, per agent") {
  CHECK(FailureAnswer(Agent::kClaudeCode, "bad input", false).exit_code == 1);
  CHECK(FailureAnswer(Agent::kCodex, "bad input", false).exit_code == 1);
  CHECK(FailureAnswer(Agent::kGemini, "bad input", false).exit_code == 1);
  CHECK(FailureAnswer(Agent::kCursor, "bad input", false).exit_code == 1);
  // Copilot CLI denies a preToolUse whose hook exits non-zero: open is 0 there.
  CHECK(FailureAnswer(Agent::kCopilot, "bad input", false).exit_code == 0);
  CHECK(FailureAnswer(Agent::kOpenCode, "bad input", false).exit_code == 1);
  for (Agent agent : kAll) {
    const Answer closed = FailureAnswer(agent, "bad input", true);
    CHECK(closed.exit_code == 2);
    CHECK(closed.out.empty());
    CHECK(closed.err == "plugline: bad input\n");
  }
}

TEST_CASE("agents: OpenCode's hook calls, as plugline's OpenCode plugin hands them over, and the answers it applies") {
  // Reading: the tool's input is output.args before and input.args after; the output and exit
  // code are OpenCode's; the prompt is the message's text parts; the session is OpenCode's.
  HookCall before = Find(Agent::kOpenCode, "tool.execute.before", "bash");
  CHECK(before.shell);
  CHECK(before.tool == "terminal");
  CHECK(before.command == "echo ORIGINAL; seq 1 3");
  CHECK(before.cwd == "/tmp/ocs/proj");
  const Value payload = Payload(before);
  CHECK(Text(payload, "call_id") == "call_1");
  CHECK(Text(payload, "session_id") == "ses_dcc6d901dffeUllY3VKt2nuPGt");
  HookCall read = Find(Agent::kOpenCode, "tool.execute.before", "read");
  CHECK_FALSE(read.shell);
  CHECK(read.tool == "read");
  bool saw_failure = false;
  for (const Recorded& recorded : Calls("opencode")) {
    HookCall call = Read(Agent::kOpenCode, recorded);
    if (call.agent_event != "tool.execute.after") continue;
    if (call.command == "ls /nonexistent") {
      saw_failure = true;
      CHECK(call.exit_code == 2);
      CHECK(call.failed);
      CHECK(call.output.find("No such file or directory") != std::string::npos);
      CHECK(Payload(call).Find("exit_code")->as_integer() == 2);
    } else {
      CHECK(call.exit_code == 0);
      CHECK_FALSE(call.failed);
      CHECK(call.output == "ORIGINAL\n1\n2\n3\n");
    }
  }
  CHECK(saw_failure);
  CHECK(Text(Payload(Find(Agent::kOpenCode, "chat.message")), "prompt") == "\"go and list\"");
  CHECK(Text(Payload(Find(Agent::kOpenCode, "session.created")), "session_id") ==
        "ses_dcc6d901dffeUllY3VKt2nuPGt");
  // Bus events plugline has no name for keep theirs, with `_` for `.`, observe-only.
  absl::StatusOr<HookCall> edited = ReadHookCall(
      Agent::kOpenCode, R"({"hook":"event","input":{"event":{"type":"file.edited","properties":{"file":"a.py"}}}})", "");
  REQUIRE(edited.ok());
  CHECK(edited->event == "file_edited");
  CHECK(Text(*Payload(*edited).Find("properties"), "file") == "a.py");
  CHECK_FALSE(ReadHookCall(Agent::kOpenCode, R"({"input":{}})", "").ok());
  CHECK_FALSE(ReadHookCall(Agent::kOpenCode, R"({"hook":"event","input":{}})", "").ok());

  // Answering: a deny's reason (the plugin throws it), the whole new arguments, the output the
  // model reads, a notice; nothing for no opinion.
  Value deny = Json(Respond(before, Denied("no rm -rf"), {}).out);
  CHECK(Text(deny, "deny") == "no rm -rf");
  CHECK(deny.as_object().size() == 1);
  Value rewrite = Json(Respond(before, Rewritten(R"({"command":"echo REWRITTEN"})"), {}).out);
  CHECK(core::ToJson(*rewrite.Find("args")) == R"({"command":"echo REWRITTEN"})");
  HookCall after = Find(Agent::kOpenCode, "tool.execute.after");
  Value replaced = Json(Respond(after, {}, std::optional<std::string>("SHAPED")).out);
  CHECK(Text(replaced, "output") == "SHAPED");
  Value noticed = Json(Respond(after, Noticed("remember X"), {}).out);
  CHECK(Text(noticed, "notice") == "remember X");
  CHECK(noticed.Find("output") == nullptr);
  CHECK(AgentNamed("opencode").value() == Agent::kOpenCode);
}

TEST_CASE("agents: bad input, unknown agents and forks that share a dialect") {
  CHECK_FALSE(ReadHookCall(Agent::kClaudeCode, "not json", "").ok());
  CHECK_FALSE(ReadHookCall(Agent::kClaudeCode, "[1]", "").ok());
  absl::StatusOr<HookCall> unnamed = ReadHookCall(Agent::kCopilot, R"({"toolName":"bash"})", "");
  REQUIRE_FALSE(unnamed.ok());
  CHECK(std::string(unnamed.status().message()).find("--agent copilot preToolUse") !=
        std::string::npos);
  CHECK(AgentNamed("qwen-code").value() == Agent::kGemini);
  CHECK(AgentNamed("droid").value() == Agent::kClaudeCode);
  absl::StatusOr<Agent> unknown = AgentNamed("clippy");
  REQUIRE_FALSE(unknown.ok());
  CHECK(std::string(unknown.status().message()).find("claude-code, codex") != std::string::npos);
  // An agent's own `result` that is not a string does not break the dispatch's payload rules.
  absl::StatusOr<HookCall> odd = ReadHookCall(
      Agent::kGemini, R"({"hook_event_name":"AfterModel","result":{"x":1},"arguments":[1]})", "");
  REQUIRE(odd.ok());
  const Value odd_payload = Payload(*odd);
  CHECK(odd_payload.Find("result") == nullptr);
  CHECK(core::ToJson(*odd_payload.Find("agent_result")) == R"({"x":1})");
  CHECK(core::ToJson(*odd_payload.Find("agent_arguments")) == "[1]");
  // An event the dialect does not know, spelled like a canonical one, stays observe-only.
  absl::StatusOr<HookCall> lookalike =
      ReadHookCall(Agent::kClaudeCode, R"({"hook_event_name":"PreToolCall"})", "");
  REQUIRE(lookalike.ok());
  CHECK(lookalike->event == "PreToolCall");
}

}  // namespace
}  // namespace plugline::agents

// The hook dialects of the agents plugline serves as a hook command (`plugline hook --agent X`):
// reading an agent's hook call (its stdin JSON) as one of plugline's canonical events with a
// canonical payload, and writing the agent's own answer to what the plugins decided. No I/O:
// the command line reads, dispatches and prints (src/cli/agent_hook.cc).
//
// What each agent accepts is in docs/agents.md; the rules every dialect follows:
// - every shell tool is the canonical tool `terminal`, with `arguments` the tool's input as
//   the agent gave it (a JSON object with a `command`), the agent's own names kept in the
//   payload (`agent`, `agent_event`, `agent_tool`);
// - an answer carries only fields the agent reads on that event (Codex drops an answer with
//   one it does not know), and "no opinion" is no output at all;
// - a decision the agent cannot carry out is never dropped silently: a rewrite the event cannot
//   apply becomes a deny that names the rewritten call, a replacement it cannot apply becomes
//   added context where the agent has it, and a warning on stderr.
#ifndef PLUGLINE_AGENTS_DIALECT_H_
#define PLUGLINE_AGENTS_DIALECT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/json.h"
#include "plugline/hooks.h"

namespace plugline::agents {

// kOpenCode: plugline's OpenCode plugin (bindings/opencode/plugline.js), which hands each of
// OpenCode's hook calls over as {hook, input, output, directory}.
enum class Agent { kClaudeCode, kCodex, kGemini, kCursor, kCopilot, kOpenCode };

// The agent called `name`: claude-code, codex, gemini, cursor, copilot, opencode, or a fork
// that speaks one of their dialects (claude and factory/droid: Claude Code's; qwen/qwen-code: Gemini CLI's).
// InvalidArgument naming the known names otherwise.
absl::StatusOr<Agent> AgentNamed(std::string_view name);
std::string_view AgentName(Agent agent);
// "claude-code, codex, gemini, cursor, copilot, opencode" (for messages and usage).
std::string_view AgentNames();

// One hook call of an agent, read as plugline sees it.
struct HookCall {
  Agent agent = Agent::kClaudeCode;
  std::string agent_event;  // the agent's name of the event ("PreToolUse")
  std::string event;        // canonical ("pre_tool_call")
  std::string agent_tool;   // the agent's name of the tool ("Bash"); "" off tool events
  std::string tool;         // canonical ("terminal" for every shell tool)
  bool shell = false;       // the tool runs a shell command
  std::string command;      // that command, when shell (the original, when plugline wrapped it)
  bool wrapped = false;     // plugline wrapped it in `plugline run --` (agents/wrap.h)
  std::string cwd;               // the agent's working directory, when it says
  std::string permission_mode;   // Claude Code's and Codex's `permission_mode`, when given
  std::string output;       // post_tool_call: the tool's output as the model would read it
  std::optional<int> exit_code;  // post_tool_call: when the agent says
  bool failed = false;           // post_tool_call: the agent reports the call as failed
  // The canonical payload (a JSON object) to dispatch.
  std::string payload_json;

  // What the answer needs to know of the call.
  core::Value tool_input;        // the tool's input object as the agent gave it
  bool copilot_camel = false;    // Copilot's camelCase dialect (else its Claude-compatible one)
  bool output_is_bash = false;   // Claude Code: the tool's output is Bash's object shape
  bool output_is_string = false; // Claude Code: the tool's output is a plain string
  // Copilot CLI's shell: the "<shellId: N completed with exit code X>" line it ends the output
  // with, taken off `output` (its exit code read) and put back after a replacement.
  std::string output_trailer;
  // The agent handed over only a preview of a long output, with where it saved the whole of it
  // (Copilot CLI: "Output too large to read at once (25.2 KB). Saved to: …"): a summary of the
  // preview would lose that, so it is not shaped.
  bool output_is_preview = false;
};

// Reads an agent's hook call. `event_arg`, when not empty, is the event named on the command
// line (Copilot's camelCase payloads carry none); the payload's own name wins when it has one.
// InvalidArgument naming what is wrong (not JSON, not an object, no event).
// `shell_tools`: more tool names that run shell commands (adapters.<agent>.shell_tools).
absl::StatusOr<HookCall> ReadHookCall(Agent agent, std::string_view input,
                                      std::string_view event_arg,
                                      const std::vector<std::string>& shell_tools = {});

// What plugline prints and exits with.
struct Answer {
  std::string out;   // stdout: the agent's JSON, or nothing
  std::string err;   // stderr: notes for the user
  int exit_code = 0;
};

// The agent's answer to `result`. `replacement`: what the model should read instead of the
// tool's output (a plugin's replaced result, or plugline's shaped summary), on post_tool_call.
Answer Respond(const HookCall& call, const DispatchResult& result,
               const std::optional<std::string>& replacement);

// What plugline answers when it cannot do its work (unreadable stdin, no host): fail open —
// the agent goes on, and the message reaches the user as the agent shows a hook's error — or,
// with `fail_closed`, block the call with the message as the reason (exit 2, which every one of
// these agents reads as a block on the events that can be blocked).
Answer FailureAnswer(Agent agent, std::string_view why, bool fail_closed);

}  // namespace plugline::agents

#endif  // PLUGLINE_AGENTS_DIALECT_H_

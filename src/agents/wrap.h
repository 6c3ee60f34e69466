// Wrapping an agent's shell command in `plugline run --`, so that plugline runs it, stores the
// whole output and prints the summary with the command's exit code — for the agents and events
// where a hook cannot replace what the model reads (docs/agents.md, "Wrapping"). Only where it
// cannot change what the command does; never twice; and a later hook still sees the original.
#ifndef PLUGLINE_AGENTS_WRAP_H_
#define PLUGLINE_AGENTS_WRAP_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::agents {

struct WrapCheck {
  bool ok = false;
  std::string why_not;                // when not ok: the rule that keeps it as it is
  std::vector<std::string> segments;  // the simple commands of a pipeline or list, trimmed
  // How much of the command stays in the agent's shell, before the wrap: its leading `cd DIR`,
  // `pushd DIR` and `export NAME=value` commands with the `&&` or `;` after each ("cd app && ").
  size_t kept_in_shell = 0;
};

// Whether `command` can run under `plugline run -- $SHELL -c '…'` exactly as in the agent's own
// shell — after its leading `cd`/`pushd`/`export` commands, which stay in the agent's shell
// (`cd app && plugline run -- … 'npm test'`: the directory the model meant to keep): one line
// of simple commands, pipelines and `&&`/`||`/`;` lists whose programs are on PATH (`is_program`: an alias or function of the agent's shell would be missing), none of them
// changing the shell itself (cd, export, source, …, or a bare assignment), none interactive
// (editors, pagers, ssh, a REPL or shell without arguments), nothing in the background, no
// heredoc, and not plugline already.
WrapCheck CheckWrappable(std::string_view command,
                         const std::function<bool(std::string_view)>& is_program);

// `<plugline> run -- "${SHELL:-/bin/sh}" -c '<command>'` (the agent's shell expands $SHELL);
// the first `kept_in_shell` bytes (WrapCheck) before it, as they are: `cd app && <plugline> …`.
std::string Wrap(std::string_view command, std::string_view plugline, size_t kept_in_shell = 0);
// The command a Wrap() made, or nullopt for any other command.
std::optional<std::string> Unwrap(std::string_view command);

// Whether Claude Code's permission rules (`permissions.allow`, `.deny`, `.ask` of its settings:
// `Bash`, `Bash(*)`, `Bash(npm test)`, `Bash(npm run:*)`, `Bash(git log *)`) let every one of
// `segments` run without asking: a wrapped command is approved by the hook's answer, so it is
// wrapped only when the agent would not have asked anyway.
bool ClaudeRulesAllow(const std::vector<std::string>& segments,
                      const std::vector<std::string>& allow, const std::vector<std::string>& deny,
                      const std::vector<std::string>& ask);

}  // namespace plugline::agents

#endif  // PLUGLINE_AGENTS_WRAP_H_

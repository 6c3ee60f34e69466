// What a command line runs, as the shapers and the shaping pipeline read it: its words (shell
// quoting removed, no expansion) and the tool it runs, seen through wrappers.
#ifndef PLUGLINE_CORE_COMMAND_LINE_H_
#define PLUGLINE_CORE_COMMAND_LINE_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::core {

// The words of a command line (shell quoting removed, no expansion).
std::vector<std::string> CommandWords(std::string_view command);

// The tool a command runs, seen through wrappers: "python3 -m pytest -q" -> "pytest",
// "npx jest" -> "jest", "FOO=1 sudo /usr/bin/make -j8" -> "make", "go test ./..." -> "go",
// "npm run test" -> "npm", "timeout -s KILL 5 python3 x.py" -> "python", "find . | xargs -0 -n 1
// gzip" -> "gzip" (the command a pipeline's last stage, xargs, runs). Lower case, no directory.
std::string ToolName(std::string_view command);

// The words after the tool: "go test ./..." -> {"test", "./..."}.
std::vector<std::string> ToolArgs(std::string_view command);

// What statistics group a command under, revealing none of its arguments' values: the tool,
// and for tools that take a subcommand (git, npm, cargo, go, docker, make, ...) that word when
// it is a plain one ("git diff --stat HEAD~3" -> "git diff", "python3 -m pytest tests/" ->
// "pytest", "npm run build" -> "npm run", "grep secret f" -> "grep"). "" when there is no tool.
std::string CommandKey(std::string_view command);

// What a summary calls a command: its CommandKey, with the script a package manager runs
// ("npm run build", "yarn run lint"; "npm start", "npm test" as they are), "" when there is no
// tool.
std::string CommandLabel(std::string_view command);

// What a summary says of the command's exit with `exit_code` (not 0): "FAILED (exit 2)",
// "FAILED (exit 139: SIGSEGV)"; "exit 1" alone for a tool whose exit 1 is an answer, not a
// failure (grep, rg, ag, ack: nothing found; diff, cmp: the files differ; test, [: false;
// npm, pnpm and yarn outdated: packages are out of date; git diff --exit-code, --quiet: the
// trees differ). A command run under `timeout` that exited 124 timed out: "FAILED (exit 124:
// timed out)".
std::string FailureText(std::string_view command, int exit_code);

// Whether any word from the tool on is one of `names` (by base name, lower case).
bool CommandMentions(std::string_view command, std::initializer_list<std::string_view> names);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_COMMAND_LINE_H_

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
// failure (grep, rg, ag, ack, git grep: nothing found; diff, cmp: the files differ; test, [: false;
// npm, pnpm and yarn outdated: packages are out of date; git diff --exit-code, --quiet: the
// trees differ). A command run under `timeout` that exited 124 timed out: "FAILED (exit 124:
// timed out)".
std::string FailureText(std::string_view command, int exit_code);

// Whether any word from the tool on is one of `names` (by base name, lower case).
bool CommandMentions(std::string_view command, std::initializer_list<std::string_view> names);

// The command's last pipeline, and the command that reports after it when there is one: `echo`,
// `printf`, `true` or `:` after `;`, a newline or `||` ("make 2>&1 | tail -20; echo "exit=$?"":
// the output is make's pipeline's and a line, the status echo's). After `&&` the reporter runs
// only when the pipeline succeeded: its status is the pipeline's too.
struct LastPipeline {
  std::vector<std::string_view> stages;  // views into the command
  std::string reporter;                  // the reporter's tool, or empty
};
LastPipeline SplitLastPipeline(std::string_view command);

// The stages of the command's last pipeline, split at unquoted `|`: the output a shaper sees
// is that pipeline's. Earlier commands joined by `&&`, `||`, `;`, `&` or newlines are dropped:
// "cd src && grep -rn x . | head -50" -> {"grep -rn x .", "head -50"}. Stages are trimmed.
// A shell given a script, "bash -lc 'pytest | tail -20'", is read as the script.
std::vector<std::string_view> PipelineStages(std::string_view command);

// Whether the command prints a file's source rather than a tool's report: git blame/annotate,
// `git show REV:path`, or cat/head/tail/less/bat/nl/`sed -n` of a file whose extension is a
// programming language's, markup's or config's (not .log, .out, .txt: saved output). Quoted
// compiler messages, test names or a document's example commands in such text are not the
// tool's own.
bool PrintsSourceFile(std::string_view command);

// Whether the command is run for the data it prints, which is its answer: a query (sqlite3,
// psql, mysql, duckdb, jq, yq), the environment (printenv, env alone), an interpreter's
// one-liner (`python3 -c '…'`, `node -e|-p '…'`, `ruby -e`, `perl -e`, `php -r`), or a data
// file viewed (cat/head/tail/… of .csv, .tsv, .jsonl, .ndjson). Its rows, numbers and values
// are what was asked for: none is more telling than another. (A URL's body is a document the
// shapers read by its structure: not so.)
bool FetchesData(std::string_view command);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_COMMAND_LINE_H_

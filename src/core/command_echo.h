// The commands a script, a make target or a task runner echoes before their output, and the
// output split at them.
//
// `./ci.sh`, `npm run check`, `tox` run several tools one after another, and most say which
// before each one's output: a shell's trace (`+ flake8 src`, `set -x`), npm's script header
// (`> app@1.0.0 lint` then `> eslint .`), Nx's task header (`> nx run app:test`), a prompt
// (`$ pytest -q`, yarn's `$ jest`), tox's
// `py311: commands[0]> pytest` (tox 3: `py311 run-test: commands[0] | pytest`), a CI log's
// `##[group]Run pytest -q`. Shaped as one output, the tool that wins the match explains its own
// lines and the others' are lost among "other lines"; split at the echoes, each part is shaped
// as the output of the command it echoes (the shaping pipeline decides whether to: only when
// at least two parts are recognized as a tool's output, core/shaping_pipeline.cc).
#ifndef PLUGLINE_CORE_COMMAND_ECHO_H_
#define PLUGLINE_CORE_COMMAND_ECHO_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::core {

struct EchoedPart {
  std::string_view echo;  // the echo line(s), as printed; empty for the lines before the first
  std::string command;    // the command it echoes; empty for the lines before the first echo
  std::string_view text;  // the part's output: the lines after the echo, up to the next one
  size_t commands = 1;    // how many commands `echo` echoes (those before printed nothing)
};

// The echoed command of `line`, or empty when it echoes none. `next` is the line after it
// (npm's header is two lines: `> app@1.0.0 lint`, then `> eslint .`); `*lines` is set to how
// many lines the echo takes.
std::string EchoedCommand(std::string_view line, std::string_view next, int* lines);

// True when `echo` (an EchoedPart's) ends with a package manager's script header, two lines:
// npm's and pnpm's "> app@1.0.0 test" (pnpm adds the folder), then "> jest" (Nx's "> nx run
// app:test" may come before them). Unlike a shell's trace or a prompt, it is not taken for
// anything else: one is enough to split at.
bool IsPackageScriptHeader(std::string_view echo);

// Whether a split into this one part is a split: its echo is a package manager's script header
// (IsPackageScriptHeader), or it echoes more than one command, those before the last having
// printed nothing (`+ eslint src` passing, then `+ oxlint src` and its problems).
bool IsOnePartSplit(const EchoedPart& part);

// A package manager's own line about a script it ran: npm's report of the script's failure
// ("npm error Lifecycle script `test` failed with error:", "npm error code 1", npm 6's "npm
// ERR! …"), pnpm's "ELIFECYCLE  Command failed with exit code 1.", yarn's "error Command failed
// with exit code 1." and "info Visit https://yarnpkg.com/…".
bool IsPackageManagerLine(std::string_view line);

// Where the package manager's lines at the end of a script's output start (and the few lines
// of a runner after them, up to 20: Nx's "✔  nx run lib:test", its summary), or text.size()
// when it has none. They are not the command's: they would have its output read as an npm
// failure's.
size_t PackageManagerTrailer(std::string_view text);

// Those lines as a summary shows them: the report's first line (what failed, "npm error
// Lifecycle script `test` failed with error:"), the rest of the report counted ("… 6 more lines
// of the package manager's report omitted": the code, the folder, the command echoed above),
// a runner's lines after it as they are.
std::string ShownPackageManagerReport(std::string_view trailer);

// True when `command` runs a package manager itself (`npm ci`, `pnpm install`): its "npm
// error" lines are its output, not a report on a script.
bool RunsPackageManager(std::string_view command);

// More parts than this are not taken for a script's commands (a diff's added lines can read
// like a shell's trace), and each part costs a match of every shaper.
inline constexpr size_t kMaxEchoedParts = 32;

// `output` split at its echo lines: the lines before the first echo (when there are any that
// are not blank), then a part per echo. None when there is nothing to split (one part, unless a
// package manager's header names its command), or more than kMaxEchoedParts parts.
// An echo whose part is blank (`+ cd app`, `+ export CI=1`) joins the part after it, whose
// command it does not change. Echo lines are at most 1 in 4 of the output's lines, else none is
// taken for one (a diff's added lines, `+ x`, are not a trace).
std::vector<EchoedPart> SplitAtEchoes(std::string_view output);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_COMMAND_ECHO_H_

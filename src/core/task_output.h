// A workspace task runner's output, split into the output of each package's task.
//
// `pnpm -r test`, `turbo run test` and `yarn workspaces foreach -pv run test` run a script in
// every package of a monorepo, several at once, and put before each line of a task's output the
// package (and the task) it came from: pnpm "packages/csv test: ok 1 - parses" (after a header
// naming the command, "packages/csv test$ node --test"), turbo "csv-lite:test: ok 1 - parses",
// yarn "[csv-lite]: ok 1 - parses". The lines of several tasks are interleaved as they were
// printed. Shaped as they are, no shaper recognizes a test run or a compiler's output under
// those prefixes. Split, each task's lines together and without the prefix, each is shaped as
// the output of the command it ran (core/shaping_pipeline.cc), under a line that names its
// package and task.
//
// The runner's own lines, those without a task's prefix (its banner, pnpm's "[ELIFECYCLE] Test
// failed", turbo's "csv-lite#test:  ERROR  command … exited (1)" and its totals), and pnpm's
// last word on each task ("packages/csv test: Failed", "… Done"), are kept in order: those
// printed before any task's line come first, the others after the tasks.
//
// A line is a task's when
// - pnpm: "NAME SCRIPT: " or "NAME SCRIPT:" at the line's end, where NAME (a folder or a
//   package) and SCRIPT are single words, and pnpm printed the header "NAME SCRIPT$ COMMAND"
//   for that task (prose, "Build failed: x", has none);
// - turbo: "PACKAGE:TASK: " (or ':' at the line's end), one word, a task's name starting with
//   a letter (a compiler's "a.c:12:5: " is not one); "PACKAGE#TASK: " is turbo's own line
//   about a task;
// - yarn (`yarn workspaces foreach --parallel --verbose`): "[PACKAGE]: ", a package's name in
//   lower case, as npm's are, and not a log's level ("[info]: "); only when the command is
//   yarn's or the output ends as yarn's does ("Done in 1s 2ms", "Failed with errors in …",
//   "The command failed in workspace …"): a program's own log may print "[main]: started".
// The output is taken for a runner's when the lines of tasks are half or more of its lines
// that are not blank, two or more, from at most kMaxTasks tasks.
#ifndef PLUGLINE_CORE_TASK_OUTPUT_H_
#define PLUGLINE_CORE_TASK_OUTPUT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::core {

struct TaskPart {
  std::string name;     // the package and the task, as the runner writes them: "packages/csv
                        // test", "csv-lite:test"
  std::string header;   // the line naming it in a summary: pnpm's "packages/csv test$ node
                        // --test", else its prefix ("csv-lite:test:", "[csv-lite]:") and the
                        // command npm's header named ("csv-lite:test: > node --test")
  std::string command;  // the command the task ran when the runner or npm printed it, else empty
  std::string text;     // its lines, in the order printed, without the prefix
};

struct TaskOutput {
  std::string before;           // the runner's lines printed before any task's
  std::vector<TaskPart> tasks;  // in the order each first printed
  std::string after;            // the runner's other lines, in order
};

inline constexpr size_t kMaxTasks = 30;

// True, with `*out` set, when `output` (of `command`) is a task runner's (above); false, `*out`
// untouched, when it is not.
bool SplitTaskOutput(std::string_view command, std::string_view output, TaskOutput* out);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_TASK_OUTPUT_H_

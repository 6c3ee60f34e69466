// The `plugline` commands that work with a host's plugins — plugins, hook, trigger, tools,
// tool — and the printing of a shaping result, written once for both places they run: in the
// `plugline` process itself, and in the server for a client (src/cli/serve.h), which prints
// the reply. Both print the same bytes in the same order.
#ifndef PLUGLINE_CLI_COMMANDS_H_
#define PLUGLINE_CLI_COMMANDS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli/output.h"
#include "plugline/host.h"

namespace plugline::cli {

inline constexpr int kExitDenied = 3;
// `plugline hook` reads at most this much payload (docs/hooks.md).
inline constexpr size_t kMaxPayloadBytes = 16u << 20;

// What a command runs with.
struct CommandEnv {
  Output* io = nullptr;
  // The directory the command was run in: the project, and where relative paths start.
  std::string cwd;
  // Opens the host of `cwd` (called at most once per command).
  std::function<absl::StatusOr<Host*>()> open_host;
  // The command's input as the client read it (the server runs the command): for `hook`, the
  // payload, from standard input or the --payload file. Null: the command reads it itself.
  const std::string* stdin_data = nullptr;
};

// One command's use of its host: opened on first Get(), when its diagnostics are printed
// ("plugline: warning: ..."); PrintNewDiagnostics() prints those added since.
class HostSession {
 public:
  explicit HostSession(CommandEnv& env);
  absl::StatusOr<Host*> Get();
  void PrintNewDiagnostics();

 private:
  CommandEnv& env_;
  bool opened_ = false;
  absl::StatusOr<Host*> host_ = absl::UnavailableError("not opened");
  size_t printed_ = 0;
};

// The in-process host whose project is `dir` (the command's directory), as the `plugline`
// command line opens it.
absl::StatusOr<std::unique_ptr<Host>> OpenHostFor(const std::string& dir);

bool IsHostCommand(std::string_view name);
// Runs one of those commands (`args`: what follows its name); returns its exit status.
int RunHostCommand(std::string_view name, const std::vector<std::string>& args, CommandEnv& env);

struct ShapeFlags {
  bool json = false;
  std::string shaper;
  std::optional<uint64_t> max_tokens;  // --max-tokens; nullopt: config's budget
};

// Parses --max-tokens N (0: no budget); false (with the message printed) when N is not a
// whole number.
bool ParseMaxTokens(std::string_view value, ShapeFlags* flags);

// Prints a shaping result: the summary (ending in a newline) or its JSON.
void PrintResult(Output& io, const ShapeResult& result, const ShapeFlags& flags);

// Shapes a finished output with `shape` (given the shaper id; "" for the best match) and
// prints the result. For `plugline run` (`run`), an unknown --shaper is reported and the best
// match used instead, so the output is never lost, and the status is always `exit_code`, the
// command's; for `plugline shape` an unknown shaper is a usage error.
using ShapeFunction = std::function<absl::StatusOr<ShapeResult>(std::string_view shaper)>;
int ShapeAndPrint(Output& io, const ShapeFunction& shape, const ShapeFlags& flags, bool run,
                  int exit_code);

// Reads `fd` (`name` in messages) to its end, giving each chunk to `consume`, which returns
// false to stop early. A read error is a Status naming `name`.
absl::Status ReadInChunks(int fd, std::string_view name,
                          const std::function<bool(std::string_view)>& consume);
// All of `fd` when it holds at most `limit` bytes; ResourceExhausted (having read no more than
// limit + one chunk) when it holds more.
absl::StatusOr<std::string> ReadAtMost(int fd, std::string_view name, size_t limit);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_COMMANDS_H_

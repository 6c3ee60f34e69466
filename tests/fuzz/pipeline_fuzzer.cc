// The whole shaping pipeline with the built-in shapers on arbitrary bytes — a carrier's prefix
// removed, an output split at the commands it echoes or by a runner's tasks, each part shaped,
// the budget — and the text functions behind the first steps on their own. The first byte is the
// exit code (255: unknown), the second picks a budget (0: none), then the command line up to the
// first
// '\n', then the output.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "builtin/builtin_shapers.h"
#include "core/command_echo.h"
#include "core/line_prefix.h"
#include "core/shaping_pipeline.h"
#include "core/task_output.h"
#include "core/tokens.h"
#include "fuzz_check.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<plugline::core::TokenCounter> counter =
      plugline::core::MakeEstimateTokenCounter();
  static plugline::core::ShaperPipeline* pipeline = [] {
    auto* made = new plugline::core::ShaperPipeline(counter.get());
    for (auto& shaper : plugline::builtin::MakeBuiltinShapers()) made->Add(shaper);
    return made;
  }();
  plugline::fuzz::FuzzInput input(data, size);
  std::optional<int> exit_code = input.ExitCode();
  const uint64_t budget = input.Byte() * uint64_t{32};
  std::string_view command = input.Line();
  std::string_view output = input.Rest();

  // A prefix removed leaves each line's end: never longer, and said what it was.
  std::string stripped, what;
  if (plugline::core::StripCarrierPrefixes(output, &stripped, &what)) {
    FUZZ_CHECK(stripped.size() < output.size());
    FUZZ_CHECK(!what.empty());
  }
  // The parts are pieces of the output, in order, none overlapping.
  // One part only under a package manager's script header, or after commands that printed
  // nothing.
  const std::vector<plugline::core::EchoedPart> parts = plugline::core::SplitAtEchoes(output);
  FUZZ_CHECK(parts.empty() || (parts.size() == 1 && plugline::core::IsOnePartSplit(parts[0])) ||
             (parts.size() >= 2 && parts.size() <= plugline::core::kMaxEchoedParts));
  for (const plugline::core::EchoedPart& part : parts) {
    FUZZ_CHECK(plugline::core::PackageManagerTrailer(part.text) <= part.text.size());
  }
  // A runner's tasks: at least one, at most kMaxTasks, their lines no more than the output's.
  plugline::core::TaskOutput tasks;
  if (plugline::core::SplitTaskOutput(command, output, &tasks)) {
    FUZZ_CHECK(!tasks.tasks.empty() && tasks.tasks.size() <= plugline::core::kMaxTasks);
    size_t bytes = tasks.before.size() + tasks.after.size();
    for (const plugline::core::TaskPart& task : tasks.tasks) bytes += task.text.size();
    // (Each line ends with a newline; the last may have had none.)
    FUZZ_CHECK(bytes <= output.size() + 1);
  }
  const char* at = output.data();
  for (const plugline::core::EchoedPart& part : parts) {
    for (std::string_view piece : {part.echo, part.text}) {
      if (piece.empty()) continue;
      FUZZ_CHECK(piece.data() >= at &&
                 piece.data() + piece.size() <= output.data() + output.size());
      at = piece.data() + piece.size();
    }
  }

  plugline::ShapeRequest request{command, output, exit_code, "", budget};
  absl::StatusOr<plugline::ShapeResult> result =
      pipeline->Run(request, plugline::core::RawOutputLocation{"/fuzz/outputs/raw.txt", ""});
  FUZZ_CHECK(result.ok());
  // No terminal control sequence leaves the pipeline.
  FUZZ_CHECK(result->summary.find('\x1b') == std::string::npos);
  return 0;
}

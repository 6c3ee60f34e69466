// Each built-in shaper on arbitrary bytes: the first byte picks the shaper (in the order of
// builtin::MakeBuiltinShapers), the second is the exit code (255: unknown), then the command
// line up to the first '\n', then the output. match() sees the snippet the pipeline would give
// it, shape() the output as the pipeline normalizes it, whatever match() said (a forced
// shaper, `plugline shape --shaper`, skips match()).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "builtin/builtin_shapers.h"
#include "core/shaping_pipeline.h"
#include "core/text.h"
#include "fuzz_check.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::shared_ptr<plugline::core::Shaper>> shapers =
      plugline::builtin::MakeBuiltinShapers();
  plugline::fuzz::FuzzInput input(data, size);
  plugline::core::Shaper& shaper = *shapers[input.Byte() % shapers.size()];
  std::optional<int> exit_code = input.ExitCode();
  std::string_view command = input.Line();
  std::string_view raw = input.Rest();

  std::string normalized;
  std::string_view output =
      plugline::core::NormalizeTerminalOutput(raw, &normalized) ? normalized : raw;

  const std::string snippet = plugline::core::MakeSnippet(output);
  absl::StatusOr<plugline::core::MatchResult> match = shaper.Match(command, snippet, exit_code);
  FUZZ_CHECK(match.ok());  // built-ins do not fail
  FUZZ_CHECK(std::isfinite(match->confidence));
  FUZZ_CHECK(match->confidence >= 0 && match->confidence <= 1);

  plugline::core::ShapeContext context;
  context.command = command;
  context.exit_code = exit_code;
  context.output_bytes = raw.size();
  context.output_lines = plugline::core::CountLines(raw);
  context.raw_path = "/fuzz/outputs/raw.txt";
  absl::StatusOr<plugline::core::ShapeOutput> shaped = shaper.Shape(output, context);
  FUZZ_CHECK(shaped.ok());
  return 0;
}

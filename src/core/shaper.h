// The shaper interface: what the pipeline asks of every shaper, whatever it is written in
// (built-in C++, a JS module, a host callback). Mirrors the AgentOps plugin contract.
#ifndef PLUGLINE_CORE_SHAPER_H_
#define PLUGLINE_CORE_SHAPER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "plugline/host.h"

namespace plugline::core {

struct ShaperMeta {
  std::string id;           // unique in a registry: "builtin-test", "prisma"
  std::string name;
  std::string version;
  std::string description;
  std::string author;
  std::string tier;         // "built-in" | "community" | "premium"
  std::string output_kind;
  int priority = 100;       // higher wins a confidence tie
};

struct MatchResult {
  bool matched = false;
  double confidence = 0;    // 0..1
  std::vector<std::string> signals;
};

struct ShapeContext {
  std::string_view command;
  std::optional<int> exit_code;
  uint64_t output_bytes = 0;
  uint64_t output_lines = 0;
  // Where the raw output is stored, for elision markers; empty when it is not stored, in
  // which case a shaper must not elide (the pipeline shows the raw output anyway).
  std::string_view raw_path;
  // The summary's token budget (0: none). The pipeline cuts a summary over it anyway
  // (core/summary_budget.h); a shaper that knows its output spends it better itself.
  uint64_t max_tokens = 0;
};

struct ShapeOutput {
  std::string summary;
  RenderMode render_mode = RenderMode::kSummary;
  // The output itself shows a failed run (failures, errors), whatever the exit status says: a
  // run read through a filter (`pytest | tail -20`) exits with the filter's 0. The summary's
  // first line then says so, and an output shown as it is starts with that line too (a shaper
  // that returns kRaw may put only that line in `summary`).
  bool failed = false;
};

class Shaper {
 public:
  virtual ~Shaper() = default;
  virtual const ShaperMeta& meta() const = 0;
  // `snippet` is the bounded view of the output described in docs/shaping.md.
  virtual absl::StatusOr<MatchResult> Match(std::string_view command, std::string_view snippet,
                                            std::optional<int> exit_code) = 0;
  virtual absl::StatusOr<ShapeOutput> Shape(std::string_view output,
                                            const ShapeContext& context) = 0;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_SHAPER_H_

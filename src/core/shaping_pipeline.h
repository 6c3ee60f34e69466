// The shaping pipeline: ask every shaper whether it recognizes an output, let the winner
// summarize it, and enforce the rules that make a summary trustworthy (docs/shaping.md).
#ifndef PLUGLINE_CORE_SHAPING_PIPELINE_H_
#define PLUGLINE_CORE_SHAPING_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/shaper.h"
#include "core/stats.h"
#include "core/tokens.h"
#include "plugline/host.h"

namespace plugline::core {

struct TaskOutput;

// The part of an output that match() sees: all of it when it is at most
// kSnippetHeadBytes + kSnippetTailBytes, otherwise the first kSnippetHeadBytes and the last
// kSnippetTailBytes joined by one "\n", each cut at a line boundary when one is near.
inline constexpr size_t kSnippetHeadBytes = 4096;
inline constexpr size_t kSnippetTailBytes = 4096;
std::string MakeSnippet(std::string_view output);

// How many characters of raw output a failed shaper's fallback shows (AgentOps' rule).
inline constexpr size_t kFallbackChars = 500;

// Where the raw output of one shaping request went.
struct RawOutputLocation {
  std::string path;         // empty when not stored
  std::string store_error;  // why storing failed; empty when it did not fail or was off
  // The file holds only the first `stored_bytes` bytes: the per-output cap
  // (outputs.max_file_mb, `max_file_bytes`) was reached.
  bool truncated = false;
  uint64_t stored_bytes = 0;
  uint64_t max_file_bytes = 0;
};

// The whole output, when the request carries only its window (output_window.h).
struct WindowedOutput {
  uint64_t bytes = 0;  // of the whole output
  uint64_t lines = 0;
  uint64_t tokens = 0;
  uint64_t window_bytes = 0;  // the window's size (what fits is shaped whole)
  uint64_t kept_bytes = 0;    // bytes of the output in the window
  uint64_t head_bytes = 0;
  uint64_t tail_bytes = 0;
  uint64_t middle_lines = 0;
};

class ShaperPipeline {
 public:
  explicit ShaperPipeline(const TokenCounter* counter) : counter_(counter) {}
  const TokenCounter* counter() const { return counter_; }

  void Add(std::shared_ptr<Shaper> shaper) { shapers_.push_back(std::move(shaper)); }
  const std::vector<std::shared_ptr<Shaper>>& shapers() const { return shapers_; }

  // Runs match over every shaper (or uses request.shaper), shapes with the winner and applies
  // the fallback and never-worse-than-raw rules; the summary (and every message in the
  // result) leaves without terminal control sequences. InvalidArgument for an unknown forced
  // shaper. `trace`, when given, receives what happened, for the stats. `window`, when given,
  // says that request.output is only the window of a larger output, described there: the
  // counts of the result are the whole output's, and the summary says what it was made from.
  absl::StatusOr<ShapeResult> Run(const ShapeRequest& request, const RawOutputLocation& raw,
                                  ShapeTrace* trace = nullptr,
                                  const WindowedOutput* window = nullptr);

  // OK when `id` names a shaper of the pipeline (by id or name); otherwise the
  // InvalidArgument Run() would return, for checking a forced shaper before anything is done.
  absl::Status CheckShaper(std::string_view id) const;

 private:
  // The shaper whose match() is the most confident (ties: priority, then id), with its
  // confidence; nullptr when none matched. A match() that fails is recorded in `result` and
  // `trace` when they are given.
  Shaper* Choose(std::string_view command, std::string_view output,
                 std::optional<int> exit_code, double* confidence, ShapeResult* result,
                 ShapeTrace* trace);
  // The summary of an output that echoes the commands it ran (core/command_echo.h) as its
  // parts' summaries, each by the shaper of the command it echoes, under one header, sharing
  // `budget` tokens (0: none); nullopt when fewer than two parts are recognized as a tool's
  // output. A task runner's output (`tasks` not null, core/task_output.h) is its tasks, each
  // a part, and its own lines before and after them. `ids` gets their shapers,
  // `lines_left_out` what their shares of the budget cut.
  std::optional<std::string> ShapeParts(const ShapeRequest& request, std::string_view output,
                                        const TaskOutput* tasks, std::string_view raw_path,
                                        uint64_t budget, std::string* ids,
                                        uint64_t* lines_left_out);

  std::vector<std::shared_ptr<Shaper>> shapers_;
  const TokenCounter* counter_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_SHAPING_PIPELINE_H_

#include "builtin/builtin_shapers.h"

#include <algorithm>

#include "builtin/common.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

// A built-in that reads a tool's report from its output's signals does not read one in a
// file's source (builtin/common.h PrintsSourceFile: `git blame build_shaper.cc`, `cat a.py`):
// there, only a match by the command (0.9 and up) counts, and the generic shaper shows it.
// And a short output grep chose the lines of (`npx mocha 2>&1 | grep -E 'Error|failing'`, under
// kChosenRawLines lines) is what the agent asked to see: shown as it is, under the shaper's
// verdict when that says the run failed, where a summary would leave out lines the filter kept
// (the errors' messages, whose blocks' headings it dropped).
class BuiltinRules final : public core::Shaper {
 public:
  explicit BuiltinRules(std::shared_ptr<core::Shaper> inner) : inner_(std::move(inner)) {}
  const core::ShaperMeta& meta() const override { return inner_->meta(); }
  absl::StatusOr<core::MatchResult> Match(std::string_view command, std::string_view snippet,
                                          std::optional<int> exit_code) override {
    absl::StatusOr<core::MatchResult> match = inner_->Match(command, snippet, exit_code);
    if (match.ok() && match->matched && match->confidence < kByCommand &&
        PrintsSourceFile(command)) {
      return core::MatchResult{false, 0, {"the command prints a file's source"}};
    }
    return match;
  }
  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    absl::StatusOr<core::ShapeOutput> shaped = inner_->Shape(output, context);
    if (!shaped.ok() || shaped->render_mode != RenderMode::kSummary ||
        output.size() > kChosenRawBytes || !ChosenByGrep(context.command) ||
        std::max<uint64_t>(context.output_lines, core::CountLines(output)) >= kChosenRawLines) {
      return shaped;
    }
    const std::string_view summary = shaped->summary;
    return core::ShapeOutput{
        shaped->failed ? std::string(summary.substr(0, summary.find('\n'))) : std::string(),
        RenderMode::kRaw, shaped->failed};
  }

 private:
  static constexpr double kByCommand = 0.9;
  static constexpr uint64_t kChosenRawLines = 30;  // as the generic shaper shows raw
  static constexpr size_t kChosenRawBytes = 64 * 1024;
  std::shared_ptr<core::Shaper> inner_;
};

}  // namespace

std::vector<std::shared_ptr<core::Shaper>> MakeBuiltinShapers() {
  std::vector<std::shared_ptr<core::Shaper>> shapers;
  for (auto& shaper :
       {MakeTestShaper(), MakeTypescriptShaper(), MakeEslintShaper(), MakeBuildShaper(),
        MakeGitDiffShaper(), MakeSearchShaper(), MakeLintShaper(), MakeLogsShaper()}) {
    shapers.push_back(std::make_shared<BuiltinRules>(shaper));
  }
  shapers.push_back(MakeGenericShaper());
  return shapers;
}

}  // namespace plugline::builtin

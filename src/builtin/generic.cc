// builtin-generic: for output no other shaper recognizes. It cannot know what matters, so it
// keeps the head (where commands announce what they do) and the tail (where they say how it
// ended) and counts what it hides.
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "builtin/builtin_shapers.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

constexpr size_t kHeadLines = 30;
constexpr size_t kTailLines = 30;
// Below this many hidden lines eliding is not worth a marker: show everything.
constexpr size_t kMinHiddenLines = 10;

class GenericShaper final : public core::Shaper {
 public:
  GenericShaper() {
    meta_.id = "builtin-generic";
    meta_.name = "generic";
    meta_.version = "1.0.0";
    meta_.description = "Any output: keeps the first and last 30 lines, counts what it hides";
    meta_.author = "plugline";
    meta_.tier = "built-in";
    meta_.output_kind = "generic";
    meta_.priority = 0;
  }

  const core::ShaperMeta& meta() const override { return meta_; }

  absl::StatusOr<core::MatchResult> Match(std::string_view, std::string_view,
                                          std::optional<int>) override {
    return core::MatchResult{true, 0.1, {"fallback for any output"}};
  }

  absl::StatusOr<core::ShapeOutput> Shape(std::string_view output,
                                          const core::ShapeContext& context) override {
    std::vector<std::string_view> lines = core::SplitLines(output);
    if (lines.size() < kHeadLines + kTailLines + kMinHiddenLines || context.raw_path.empty()) {
      return core::ShapeOutput{"", RenderMode::kRaw};
    }
    const size_t hidden = lines.size() - kHeadLines - kTailLines;
    std::string summary;
    summary.reserve(4096);
    for (size_t i = 0; i < kHeadLines; ++i) StrAppend(&summary, lines[i], "\n");
    // The pipeline ends the summary with "full output: <path>".
    StrAppend(&summary, "… ", core::FormatCount(hidden), " lines hidden (lines ",
                    core::FormatCount(kHeadLines + 1), "–",
                    core::FormatCount(kHeadLines + hidden), " of ",
                    core::FormatCount(lines.size()), ")\n");
    for (size_t i = lines.size() - kTailLines; i < lines.size(); ++i) {
      StrAppend(&summary, lines[i], "\n");
    }
    return core::ShapeOutput{std::move(summary), RenderMode::kSummary};
  }

 private:
  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeGenericShaper() { return std::make_shared<GenericShaper>(); }

std::vector<std::shared_ptr<core::Shaper>> MakeBuiltinShapers() {
  return {MakeGenericShaper()};
}

}  // namespace plugline::builtin

// builtin-typescript: PLACEHOLDER being written (not yet a shaper: it never matches).
#include "builtin/builtin_shapers.h"
#include "builtin/common.h"

namespace plugline::builtin {
namespace {

class TypescriptShaper final : public core::Shaper {
 public:
  TypescriptShaper() {
    meta_.id = "builtin-typescript";
    meta_.name = "typescript";
    meta_.version = "1.0.0";
    meta_.tier = "built-in";
    meta_.author = "plugline";
  }
  const core::ShaperMeta& meta() const override { return meta_; }
  absl::StatusOr<core::MatchResult> Match(std::string_view, std::string_view,
                                          std::optional<int>) override {
    return core::MatchResult{false, 0, {}};
  }
  absl::StatusOr<core::ShapeOutput> Shape(std::string_view, const core::ShapeContext&) override {
    return core::ShapeOutput{"", RenderMode::kRaw};
  }

 private:
  core::ShaperMeta meta_;
};

}  // namespace

std::shared_ptr<core::Shaper> MakeTypescriptShaper() { return std::make_shared<TypescriptShaper>(); }

}  // namespace plugline::builtin

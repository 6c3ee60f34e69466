// The shipped shapers (tier "built-in", ids "builtin-<name>").
#ifndef PLUGLINE_BUILTIN_BUILTIN_SHAPERS_H_
#define PLUGLINE_BUILTIN_BUILTIN_SHAPERS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/shaper.h"

namespace plugline::builtin {

// Every built-in shaper, in a fixed order.
std::vector<std::shared_ptr<core::Shaper>> MakeBuiltinShapers();

// Each built-in (see docs/shaping.md for what each keeps).
std::shared_ptr<core::Shaper> MakeTestShaper();
std::shared_ptr<core::Shaper> MakeTypescriptShaper();
std::shared_ptr<core::Shaper> MakeEslintShaper();
std::shared_ptr<core::Shaper> MakeBuildShaper();
std::shared_ptr<core::Shaper> MakeGitDiffShaper();
std::shared_ptr<core::Shaper> MakeSearchShaper();
std::shared_ptr<core::Shaper> MakeLintShaper();
std::shared_ptr<core::Shaper> MakeLogsShaper();
// The generic shaper: matches anything at low confidence; keeps the head, the tail and the
// error lines between.
std::shared_ptr<core::Shaper> MakeGenericShaper();
// builtin-generic's summary of a tree drawing (`npm ls --all`, `tree`, `cargo tree`), the
// output's `lines`: its top levels and the entries marked as problems; nullopt for an output
// that is no tree drawing, or a small one.
std::optional<core::ShapeOutput> ShapeTreeDrawing(const std::vector<std::string_view>& lines,
                                                  const core::ShapeContext& context,
                                                  const std::string& label);

// The generic shaper's summary of an output, its header naming `label` ("cargo run"): what a
// shaper gives an output it does not read (its head and tail, the trouble and the frames in
// the user's code between; raw when short).
core::ShapeOutput ShapeUnread(std::string_view output, const core::ShapeContext& context,
                              const std::string& label);

}  // namespace plugline::builtin

#endif  // PLUGLINE_BUILTIN_BUILTIN_SHAPERS_H_

#include "builtin/builtin_shapers.h"

namespace plugline::builtin {

std::vector<std::shared_ptr<core::Shaper>> MakeBuiltinShapers() {
  return {MakeTestShaper(),  MakeTypescriptShaper(), MakeEslintShaper(),
          MakeBuildShaper(), MakeGitDiffShaper(),    MakeSearchShaper(),
          MakeLintShaper(),  MakeLogsShaper(),       MakeGenericShaper()};
}

}  // namespace plugline::builtin

#include "js/node_imports.h"

#include <utility>

#include "core/node_resolve.h"
#include "core/strings.h"

namespace plugline::js {

void AddNodeImports(ModuleOptions* options, std::vector<std::string> node_modules_dirs) {
  options->node_modules_dirs = node_modules_dirs;
  options->resolve_import = [dirs = std::move(node_modules_dirs)](
                                std::string_view specifier,
                                std::string_view referrer) -> absl::StatusOr<ResolvedImport> {
    // plugline serves "@opencode-ai/plugin", "/tool" and "/v2/promise" itself
    // (AddPluginModules); anything else of that package (the V2 Effect API, the TUI API) is
    // not an installed copy to load.
    if (specifier.starts_with("@opencode-ai/plugin/")) {
      return absl::UnimplementedError(StrCat(
          "'", specifier, "' is not provided: plugline runs OpenCode's V1 plugin API and the V2 "
          "Promise API (@opencode-ai/plugin/v2/promise) (docs/plugins-opencode.md)"));
    }
    absl::StatusOr<core::NodeImport> found = core::ResolveNodeImport(specifier, referrer, dirs);
    if (!found.ok()) return found.status();
    return ResolvedImport{std::move(found->path), std::move(found->root)};
  };
}

}  // namespace plugline::js

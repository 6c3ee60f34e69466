// npm packages for JS plugins (docs/plugins-opencode.md "npm packages"): Node's resolution of
// ES module imports, for what plugline needs and nothing more.
//
// - A package named in config (`plugins.packages`) is found in node_modules folders the caller
//   names, and its ES module entry is read from package.json: `exports` (conditions "import",
//   "module", "default", in the package's order), else `module`, else `main`, else index.js.
// - A bare import inside a plugin or a package (`import { z } from "zod"`) is looked up as Node
//   does: node_modules folders from the importing file's directory up to the root, then the
//   caller's fallback folders. Package subpaths ("pkg/sub"), `exports` subpath patterns
//   ("./*") and package imports ("#internal") resolve as in Node; an imports target is a
//   "./" path or a package name, never another "#" import.
// - ES modules only: a `.cjs` file, or a `.js` file of a package without "type": "module" that
//   is reached by neither an "import"/"module" condition nor the `module` field and reads like
//   CommonJS (module.exports, require() and no import/export), is refused with a message that
//   says so. Node's built-in modules ("fs", "node:path") and Bun's are refused by name: plugins
//   run in V8 without them.
//
// Reads the file system only; every path returned is a real path (symlinks resolved).
#ifndef PLUGLINE_CORE_NODE_RESOLVE_H_
#define PLUGLINE_CORE_NODE_RESOLVE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace plugline::core {

// "name", "name@1.2.3", "@scope/name@^2" -> {name, version range ("" when none)}.
struct PackageSpec {
  std::string name;
  std::string version;
};
// Fails when the name is not a valid npm package name (this also keeps "..", "/x" and other
// paths out of a node_modules folder).
absl::StatusOr<PackageSpec> ParsePackageSpec(std::string_view spec);

// "fs", "node:fs", "path/posix", "bun", "bun:sqlite", ...
bool IsRuntimeBuiltinModule(std::string_view specifier);

struct NodePackage {
  std::string name;
  std::string version;  // package.json "version"; "" when absent
  std::string root;     // the package's folder
  std::string entry;    // the file `import "<name>"` loads
  // Non-empty: the entry is not an ES module (CommonJS, JSON, an addon), and why plugline's
  // sandboxed runtime cannot load it; Node.js can.
  std::string not_esm;
};

// The package `name` in the first of `node_modules_dirs` that holds it, with its entry as
// OpenCode picks a plugin package's: `exports["./server"]` when there is one, else the
// package's own entry (an ES module's, preferred, else what Node would load: see `not_esm`). NotFound names every folder
// looked in.
absl::StatusOr<NodePackage> FindNodePackage(std::string_view name,
                                            const std::vector<std::string>& node_modules_dirs);

struct NodeImport {
  std::string path;  // the file to load
  std::string root;  // the package folder its relative imports must stay inside
};

// Resolves a bare specifier ("zod", "@scope/pkg/sub", "#internal") imported by the file
// `referrer`, as described above.
absl::StatusOr<NodeImport> ResolveNodeImport(std::string_view specifier, std::string_view referrer,
                                             const std::vector<std::string>& fallback_dirs);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_NODE_RESOLVE_H_

// npm packages in JS plugin modules: ModuleOptions::resolve_import made from
// core/node_resolve.h, for the host and for a worker process alike.
#ifndef PLUGLINE_JS_NODE_IMPORTS_H_
#define PLUGLINE_JS_NODE_IMPORTS_H_

#include <string>
#include <vector>

#include "js/runtime.h"

namespace plugline::js {

// Bare imports of the module resolve as Node's do: from the node_modules folders above the
// importing file, then from `node_modules_dirs`.
void AddNodeImports(ModuleOptions* options, std::vector<std::string> node_modules_dirs);

}  // namespace plugline::js

#endif  // PLUGLINE_JS_NODE_IMPORTS_H_

// plugline's own JS modules, embedded at build time (cmake/PluglineEmbed.cmake) from
// src/js/modules/.
#ifndef PLUGLINE_JS_EMBEDDED_H_
#define PLUGLINE_JS_EMBEDDED_H_

#include <string_view>

namespace plugline::embedded {

// src/js/modules/opencode_plugin.mjs: served as "@opencode-ai/plugin" (tool(), tool.schema).
extern const std::string_view kOpenCodePluginModule;
// src/js/modules/url.mjs: URL and URLSearchParams, served as "plugline:url".
extern const std::string_view kUrlModule;
// src/js/modules/node_path.mjs: Node's POSIX `path` and url's file-path helpers, behind
// "path", "node:path", "url", ... (AddPluginModules).
extern const std::string_view kNodePathModule;
// src/js/modules/opencode_client_tree.mjs: the methods of OpenCode's plugin `client`,
// generated from @opencode-ai/sdk (scripts/gen-opencode-client.mjs); "plugline:client-tree".
extern const std::string_view kOpenCodeClientTree;
// src/js/modules/opencode_v2.mjs: OpenCode's V2 Promise API for the wrapper,
// "plugline:opencode-v2".
extern const std::string_view kOpenCodeV2Module;
// src/js/modules/shell.mjs: Bun's shell (`$`), "plugline:shell".
extern const std::string_view kShellModule;
// src/js/modules/opencode_common.mjs: OpenCode's hook names, thrown-error messages and tool
// arguments without the package's converters, "plugline:opencode-common".
extern const std::string_view kOpenCodeCommonModule;
// src/js/modules/bun.mjs: Bun's global in the node runtime, "plugline:bun".
extern const std::string_view kBunModule;
// src/js/modules/opencode_host.mjs: the wrapper entry of every JS plugin module.
extern const std::string_view kOpenCodeHostModule;

}  // namespace plugline::embedded

#endif  // PLUGLINE_JS_EMBEDDED_H_

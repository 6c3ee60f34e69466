// OpenCode-style JS plugins (docs/plugins-opencode.md): a module exporting async
// (ctx, options) => hooks, adapted to core::HookPlugin (canonical events), NamedHookPlugin
// (any OpenCode hook by name) and ToolProvider (custom tools). The JS half is
// src/js/modules/opencode_host.mjs, which holds the hooks objects in the plugin's isolate.
#ifndef PLUGLINE_JS_OPENCODE_PLUGIN_H_
#define PLUGLINE_JS_OPENCODE_PLUGIN_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/config.h"
#include "core/hooks.h"
#include "core/log.h"
#include "core/plugins.h"
#include "js/runtime.h"

namespace plugline::js {

// Forwards `client.<path>(...args)` of a plugin to the host: `args_json` is the JSON array of
// arguments; the answer (JSON) resolves the plugin's promise, an error rejects it.
using ClientFunction = std::function<absl::StatusOr<std::string>(std::string_view path,
                                                                 std::string_view args_json)>;

// What an OpenCode plugin's context is made of.
struct JsHostContext {
  std::string directory;   // ctx.directory: the project directory (or the working directory)
  std::string worktree;    // ctx.worktree: the git work tree holding it, else `directory`
  std::string server_url;  // ctx.serverUrl when non-empty
  ClientFunction client;   // empty: client calls reject with a clear message
  std::string config_json = "{}";  // what the `config` hook receives
};

// The ModuleOptions pieces every JS plugin module is loaded with: the wrapper entry, URL and
// URLSearchParams ("plugline:url"), the "@opencode-ai/plugin" module, and Node's pure `path`
// and `url` helpers ("path", "node:path", "path/posix", "url", ...), whose path.resolve()
// resolves against `directory` (as process.cwd() in Node).
void AddPluginModules(ModuleOptions* options, std::string_view directory);

// The host side of __plugline_host_call for a plugin: `client` calls and `$` commands
// ({kind:"shell", script, args, cwd, env}: `sh -c script sh args...`, bounded by `timeout`).
HostCallFunction MakeHostCall(const JsHostContext& context, std::string plugin_id,
                              absl::Duration timeout);

// Turns a loaded module whose wrapper says it is an OpenCode plugin into registry parts: calls
// init (every plugin function with the context), then the `config` hooks. Errors: the reason
// the plugin is broken ("Plugin export is not a function", a throw in the plugin function).
absl::StatusOr<core::LoadedPlugin> MakeOpenCodePlugin(const core::PluginFile& file,
                                                      const core::JsPluginSettings& settings,
                                                      const JsHostContext& context,
                                                      const core::Log* log,
                                                      std::unique_ptr<Module> module);

}  // namespace plugline::js

#endif  // PLUGLINE_JS_OPENCODE_PLUGIN_H_

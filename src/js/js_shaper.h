// JS plugins: an ES module that default-exports {meta, match, shape} (the AgentOps contract,
// docs/plugins-shapers.md), adapted to core::Shaper over a js::Module — or, for any other
// module, an OpenCode plugin (js/opencode_plugin.h, docs/plugins-opencode.md).
#ifndef PLUGLINE_JS_JS_SHAPER_H_
#define PLUGLINE_JS_JS_SHAPER_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/config.h"
#include "core/log.h"
#include "core/plugins.h"
#include "js/opencode_plugin.h"

namespace plugline::js {

struct JsShaperOptions {
  std::string code_cache_dir;        // "" = no V8 code cache
  const core::Log* log = nullptr;    // console.* of the plugin; may be null
  JsHostContext host;                // the context OpenCode plugins get
};

// Loads and validates one plugin file: a shaper, or an OpenCode plugin (whose plugin functions
// run here, once). Errors are the reason the plugin is broken: the runtime is unavailable, the
// file does not compile (file:line), its top level threw, a shaper's `meta` is invalid (the
// field is named), an OpenCode export is not a function or its plugin function threw.
absl::StatusOr<core::LoadedPlugin> LoadJsShaper(const core::PluginFile& file,
                                                const core::JsPluginSettings& settings,
                                                const JsShaperOptions& options);

// Checks a match() result: {matched: boolean, confidence: number, signals?: string[]}
// (confidence may be omitted when matched is false). Exposed for tests.
absl::StatusOr<core::MatchResult> ParseMatchResult(std::string_view json);

// Checks a shape() result: {summary: string, renderMode?: "summary" | "raw"}.
absl::StatusOr<core::ShapeOutput> ParseShapeResult(std::string_view json);

}  // namespace plugline::js

#endif  // PLUGLINE_JS_JS_SHAPER_H_

// Configuration: <home>/config.yaml, then <project>/.plugline/config.yaml on top of it.
//
//   plugins:
//     enabled: true          # false: no plugin from any directory is loaded
//     opencode: false        # true: also OpenCode's global plugins (~/.config/opencode: its
//                            # plugins/ folder and opencode.json's `plugin` list); global file only
//     dirs: [~/more-plugins] # extra plugin directories; a relative one is relative to the
//                            # file's base: <home> for the global file, <project> for the
//                            # project's. Loaded before the default ones (plugins.h)
//     packages:              # npm packages that are OpenCode plugins, installed with npm in
//       - opencode-some-plugin  # <home>/node_modules (global file; the project's file looks in
//       - ["@acme/guard@1.2", {strict: true}]  # <project>/.plugline/node_modules and
//                            # <project>/node_modules first); [name, options] as in OpenCode
//     js:                    # limits of every JS plugin (docs/plugins-shapers.md)
//       runtime: auto        # or "node" (Node.js in a worker process) or "sandboxed"
//                            # (plugline's V8 runtime); auto: node for OpenCode plugins of
//                            # your folders and packages, sandboxed for shapers and catalog
//                            # installs (docs/plugins-opencode.md "Runtimes")
//       isolation: in-process  # or "process": each sandboxed plugin in a worker process
//       match_timeout_ms: 200
//       shape_timeout_ms: 2000
//       load_timeout_ms: 2000
//       hook_timeout_ms: 5000  # an OpenCode plugin's hook call or tool (incl. its `$` commands)
//       heap_limit_mb: 64
//     overrides:             # per plugin id: enabled, options (an OpenCode plugin's second
//                            # argument), on_error (open|closed), protected (global file
//                            # only), and any key of `js`
//       prisma: {isolation: process, shape_timeout_ms: 5000}
//   outputs:
//     keep_files: 500        # raw outputs kept under <home>/outputs
//     max_total_mb: 512      # and at most this many MiB in all
//     max_file_mb: 256       # one output's file holds at most its first this many MiB
//     window_mb: 8           # outputs up to this size are shaped whole; larger ones from a
//                            # window of this size (docs/shaping.md), 1 to 256
//   shaping:
//     max_summary_tokens: 8000  # a summary holds at most this many tokens (0: no budget;
//                            # else at least 200); docs/shaping.md "The budget"
//     tokenizer: o200k_base  # or cl100k_base, or estimate (docs/tokens.md)
//   stats:
//     enabled: true          # per-shaper statistics in <home>/stats.json
//   server:                  # the per-user server (docs/server.md); global file only
//     mode: auto             # auto: used when one runs, started when a JS plugin is enabled;
//                            # always: started when none runs; never: commands in-process.
//                            # `server: never` is short for this key
//     idle_timeout_minutes: 15  # the server exits after this long without a request
//     max_rss_mb: 1024       # a server past this much resident memory restarts when idle
//
// A problem in a file (bad YAML, a wrong type, an unknown key) never stops plugline: it is
// reported as a diagnostic that names the file and the key, and the default is used.
//
// What the project's file may change is limited (docs/security.md): its `plugins.enabled`,
// `plugins.js` and `plugins.overrides` are kept apart from the global file's, so that a
// protected global plugin gets the global file's settings only (ForPlugin). Whether the
// project's file is read at all is the host's decision (project trust, core/trust.h).
#ifndef PLUGLINE_CORE_CONFIG_H_
#define PLUGLINE_CORE_CONFIG_H_

#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/json.h"
#include "core/output_store.h"
#include "core/tokens.h"
#include "core/output_window.h"

namespace plugline::core {

// Which JS runtime runs a plugin (docs/plugins-opencode.md "Runtimes").
enum class JsRuntime {
  kAuto,       // by kind and source: Node.js for OpenCode plugins of the user's own folders and
               // packages, sandboxed for shapers and for plugins installed from a catalog
  kNode,       // Node.js in a worker process: runs as the user, with everything Node has
  kSandboxed,  // plugline's V8 runtime: ECMAScript, and `$` and `client` as the only way out
};

// "auto", "node" or "sandboxed".
std::string_view JsRuntimeName(JsRuntime runtime);

// Limits and isolation of one JS plugin.
struct JsPluginSettings {
  bool enabled = true;
  bool process_isolation = false;  // sandboxed: in a worker process (node always is)
  JsRuntime runtime = JsRuntime::kAuto;
  uint64_t match_timeout_ms = 200;
  uint64_t shape_timeout_ms = 2000;
  uint64_t load_timeout_ms = 2000;
  uint64_t hook_timeout_ms = 5000;  // one hook call, a tool's execute, a `$` command
  uint64_t heap_limit_bytes = 64ull << 20;
  std::string options_json;  // plugins.overrides.<id>.options as JSON ("" when none)
  // plugins.overrides.<id>.on_error: true for "closed", false for "open"; nullopt when unset
  // (an exec plugin's manifest decides; a JS plugin fails open).
  std::optional<bool> fail_closed;
  // plugins.overrides.<id>.protected of the global file; nullopt when unset.
  std::optional<bool> protect;
};

// A mapping under plugins.overrides.<id>, and the file that gave it.
struct ConfigOverride {
  std::string id;
  Value value;
  std::string source;  // "global-config" or "project-config"
};

// A directory named under plugins.dirs, and which file named it.
struct ConfigDir {
  std::string path;    // absolute (tilde expanded, relative ones joined to the file's base)
  std::string source;  // "global-config" or "project-config"
  bool operator==(const ConfigDir&) const = default;
};

// An npm package named under plugins.packages: "name" or "name@version", with the options
// the plugin function receives (`[name, options]`).
struct ConfigPackage {
  std::string spec;          // as written: "name", "@scope/name@^1.2"
  std::string options_json;  // "" when none
  std::string source;        // "global-config" or "project-config"
  bool operator==(const ConfigPackage&) const = default;
};

struct PluginsConfig {
  bool enabled = true;          // plugins.enabled of the global file: false loads nothing
  // plugins.opencode of the global file: also load OpenCode's own global plugin locations
  // (core/opencode_config.h).
  bool opencode = false;
  bool project_enabled = true;  // plugins.enabled of the project's file
  std::string project_file;     // the project's config.yaml when it was applied, else ""
  // The global config.yaml could not be read, or some of it was not understood (each problem
  // is a diagnostic): what it meant to name may be missing from `dirs`.
  bool global_file_problems = false;
  std::vector<ConfigDir> dirs;  // in file order, the global file's first
  std::vector<ConfigPackage> packages;  // in file order, the global file's first
  JsPluginSettings js;          // the defaults, both files applied
  JsPluginSettings global_js;   // the defaults of the global file alone
  // Per plugin id, in file order (the global file's first): plugins.overrides.<id>.
  std::vector<ConfigOverride> overrides;
  // `plugline plugins --enable/--disable` (core/plugin_state.h): by id, over `enabled` of
  // the overrides; `toggles_file` is where they were read ("" when none were).
  std::map<std::string, bool> toggles;
  std::string toggles_file;
  // Plugins installed from a catalog: how each runs ("process" or "in-process"), unless
  // plugins.overrides.<id>.isolation says otherwise. They run sandboxed unless
  // plugins.overrides.<id>.runtime says otherwise.
  std::map<std::string, std::string> installed_isolation;

  // Whether a built-in shaper is enabled: its toggle, else plugins.overrides.<id>.enabled of
  // either file; `why` (may be null) gets what disabled it.
  bool BuiltinEnabled(std::string_view id, std::string* why = nullptr) const;

  // The settings of one plugin: the defaults with its overrides applied. `protect`: the
  // plugin is a protected global one, so only the global file's defaults and overrides apply.
  JsPluginSettings ForPlugin(std::string_view id, bool protect = false) const;
  // The keys the project's file sets under plugins.overrides.<id> ("enabled", "isolation",
  // ...), in file order; empty when it sets none.
  std::vector<std::string> ProjectOverrideKeys(std::string_view id) const;
};

// outputs.window_mb is at most this: it is memory held per output.
inline constexpr uint64_t kMaxWindowMb = 256;

enum class ServerMode { kAuto, kAlways, kNever };

struct ServerConfig {
  ServerMode mode = ServerMode::kAuto;
  uint64_t idle_timeout_minutes = 15;
  uint64_t max_rss_bytes = 1024ull << 20;
};

// adapters.<agent> (docs/agents.md): how `plugline hook --agent <agent>` shapes shell output,
// and which more of the agent's tools run shell commands. Global file only.
struct AdapterConfig {
  std::string shaping;                   // auto | replace | wrap | off; "" = the default
  std::vector<std::string> shell_tools;  // tool names that count as the shell, besides the agent's own
};

// shaping.max_summary_tokens: the default budget, and the smallest one that still has room for
// the outcome, the counts and a few identifiers.
inline constexpr uint64_t kDefaultSummaryTokens = 8000;
inline constexpr uint64_t kMinSummaryTokens = 200;

// catalog (docs/catalog.md): where `plugline plugins --available/--install` look, in order.
// Global file only.
struct CatalogSource {
  std::string url;         // of the index: https://, http:// or file://
  std::string public_key;  // Ed25519 (base64 of 32 bytes, or a PEM block); "" when unsigned
  bool operator==(const CatalogSource&) const = default;
};

struct Config {
  PluginsConfig plugins;
  std::vector<CatalogSource> catalogs;
  ServerConfig server;
  std::map<std::string, AdapterConfig> adapters;  // by agent name (claude-code, codex, ...)
  OutputRetention outputs;
  uint64_t window_bytes = kDefaultWindowBytes;  // outputs.window_mb (output_window.h)
  uint64_t max_summary_tokens = kDefaultSummaryTokens;  // shaping.max_summary_tokens; 0: none
  std::string tokenizer = std::string(kDefaultEncoding);  // shaping.tokenizer (tokens.h)
  bool stats_enabled = true;
};

// Where plugline keeps its state: `explicit_home` if non-empty, else $PLUGLINE_HOME, else
// ~/.plugline. A leading "~/" is expanded. The directory is not created here.
absl::StatusOr<std::string> ResolveHome(std::string_view explicit_home);

// "~/x" -> "$HOME/x"; other paths unchanged.
std::string ExpandTilde(std::string_view path);

// Loads the configuration files that exist. Appends one message per problem to `diagnostics`.
Config LoadConfig(const std::string& home, const std::string& project_dir,
                  std::vector<std::string>* diagnostics);

// Applies one parsed document (the text of the file `source`) on top of `config`. Relative
// plugins.dirs are joined to `base_dir` (when not empty) and recorded with `dir_source`.
void ApplyConfigText(std::string_view text, std::string_view source, Config* config,
                     std::vector<std::string>* diagnostics, std::string_view base_dir = {},
                     std::string_view dir_source = "global-config");

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_CONFIG_H_

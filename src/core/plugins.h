// Plugin discovery and the registry of plugins a host runs.
//
// Where plugins come from, in this order (docs/hooks.md "Order and rules"): the `plugins.packages`
// then the `plugins.dirs` of <home>/config.yaml, the same of <project>/.plugline/config.yaml,
// <home>/plugins, then <project>/.plugline/plugins. Hooks run in that order (name order inside a
// directory), and a later plugin with the same id shadows an earlier one. A package (an
// OpenCode plugin published on npm) is found in <home>/node_modules, for the project's file in
// <project>/.plugline/node_modules, then <project>/node_modules, first (core/node_resolve.h);
// its id is its name. In a
// directory, a plugin is
//   - a folder `<name>/` with `plugin.yaml`: an exec hook plugin (src/exec, docs/plugins-exec.md);
//   - a file `<name>.js` or `<name>.mjs`: its imports are confined to that directory;
//   - a file `<name>.ts` or `<name>.mts`: the same, TypeScript (its types are stripped when it
//     loads, src/js/v8/typescript.h; declaration files `<name>.d.ts` are not plugins);
//   - a folder `<name>/` with `index.js`, `index.mjs`, `index.ts` or `index.mts` (the first that
//     exists, in that order): its imports are confined to the folder.
// Hidden entries (".x") are ignored; folders with neither (e.g. shared helpers of single-file
// plugins) too. A folder with both plugin.yaml and an index is an exec plugin.
//
// The registry loads plugins lazily (the first time a shaper list, hook list or listing is
// asked for), several at once, and on Refresh() keeps every loaded plugin whose files are
// unchanged: a new or edited file is picked up without re-evaluating the others.
//
// Trust and protection (docs/security.md):
// - A directory marked `untrusted` (a project the user has not trusted) is listed, never
//   loaded: its plugins are in state "untrusted" with the command to run as the reason.
// - A global plugin (from the global config's packages and dirs, or <home>/plugins) is
//   protected when the global config says so (plugins.overrides.<id>.protected), else when its
//   manifest says `protected: true`, else when it fails closed. A project cannot disable it
//   (neither its plugins.enabled: false nor an override of the project's file applies to it;
//   the project's plugins.js defaults neither), nor replace it: a project plugin with its id is
//   "shadowed" instead of shadowing it. Each ignored attempt is a warning of the plugin (and a
//   diagnostic of Refresh when it can be told before loading).
// - A broken plugin that fails closed stays in the hook chain as a guard that denies the
//   deny-capable events it subscribed to (every pre_tool_call when those cannot be told), with a
//   reason naming it and why it is broken. Broken plugins never shadow and are never shadowed:
//   a broken plugin's id may be a guess. Every broken plugin is in HookChain::broken.
#ifndef PLUGLINE_CORE_PLUGINS_H_
#define PLUGLINE_CORE_PLUGINS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/config.h"
#include "core/hooks.h"
#include "core/plugin_state.h"
#include "core/shaper.h"

namespace plugline::core {

// A directory of plugins, or one npm package.
struct PluginDir {
  std::string path;    // the directory ("" for a package)
  // "global-config", "project-config", "global", "project", and with plugins.opencode
  // "opencode-config" (OpenCode's opencode.json), "opencode" (its plugins/ folder) and
  // "opencode-tools" (its tools/ folder), and a project's "project-opencode-config" (its
  // opencode.json files), "project-opencode" (.opencode/plugins/) and "project-opencode-tools"
  // (.opencode/tools/)
  std::string source;
  // Where bare imports ("zod") are looked for after the node_modules folders above the
  // importing file; for a package, also where the package itself is looked for, first first.
  std::vector<std::string> node_modules;
  std::string package;       // non-empty: this entry is the npm package "name[@version]"
  std::string options_json;  // a package's [name, options]; "" when none
  // Non-empty: the directory belongs to a project that is not trusted, and this says why and
  // what to run; its plugins are listed as "untrusted" and never loaded.
  std::string untrusted;
  // Non-empty: this entry is one plugin, this file (an opencode.json `file://` entry); a folder
  // stands for its index file.
  std::string file;
};

// Whether plugins of `source` are OpenCode custom tool files (its tools/ folders): each file's
// exports are tools (`export default tool({...})` is the tool named after the file, a named
// export `x` the tool `<file>_x`), not plugin functions.
inline bool IsOpenCodeToolsSource(std::string_view source) {
  return source == "opencode-tools" || source == "project-opencode-tools";
}

// Whether plugins of `source` belong to the project (they load only once it is trusted).
bool IsProjectSource(std::string_view source);

// The plugin directories of a home, a project and a configuration, in load order.
std::vector<PluginDir> PluginDirs(const std::string& home, const std::string& project_dir,
                                  const Config& config,
                                  std::vector<std::string>* diagnostics = nullptr);

enum class PluginKind { kJsModule, kExec };

struct PluginFile {
  std::string entry;   // absolute path of the file to load (an exec plugin's plugin.yaml)
  std::string root;    // the directory its imports (or command) must stay inside
  std::string name;    // file stem or folder name
  std::string source;  // of its PluginDir
  PluginKind kind = PluginKind::kJsModule;
  std::vector<std::string> node_modules;  // of its PluginDir
  std::string options_json;  // a package's options, over plugins.overrides.<id>.options
  // Non-empty: the plugin cannot load, and why (a package that is not installed); listed as
  // broken, and looked for again on every refresh.
  std::string error;
  std::vector<std::string> warnings;  // found while discovering it (a version mismatch)
  bool package = false;               // an npm package named in config
  std::string not_esm;                // a package whose entry is not an ES module: why the
                                      // sandboxed runtime cannot load it (Node.js can)
  std::string package_version;        // its package.json version
  std::string untrusted;              // of its PluginDir
};

// Tells whether a folder held a fail-closed exec plugin when it last loaded (core/guard_records.h).
using KnownGuardFolder = std::function<bool(const std::string& folder)>;

// The candidate plugins of `dirs`, in load order (directory order, then name order). A
// directory that does not exist is skipped silently; one that cannot be read is reported. A
// folder with neither plugin.yaml nor an index file is skipped, unless `known_guard` says it
// held a fail-closed exec plugin: it is then a broken exec plugin ("plugin.yaml is missing").
std::vector<PluginFile> DiscoverPlugins(const std::vector<PluginDir>& dirs,
                                        std::vector<std::string>* diagnostics,
                                        const KnownGuardFolder& known_guard = nullptr);

// What can be told about a plugin before (or without) loading it: for an exec plugin, what
// its manifest says even when it is broken (exec/manifest_scan.h, core/guard_records.h).
struct PluginHints {
  std::string id;            // its id when known ("" = the file name)
  bool fail_closed = false;  // on_error: closed
  bool protect = false;      // protected: true
  // The events it subscribes to; nullopt when they cannot be told (a broken guard then denies
  // every deny-capable event).
  std::optional<std::vector<std::string>> events;
};

// What a loader returns for a plugin that loaded: a shaper, a hook plugin, or both.
struct LoadedPlugin {
  std::shared_ptr<Shaper> shaper;
  std::shared_ptr<HookPlugin> hook;
  std::shared_ptr<NamedHookPlugin> named_hooks;  // OpenCode plugins (the same object as hook)
  std::shared_ptr<ToolProvider> tools;           // plugins that add tools
  std::vector<std::string> files;  // every file it read: a change to one reloads it
  // For the listing. With a shaper, id/tier/version/description default to its meta.
  std::string id;
  std::string kind;                 // "js-shaper", "exec-hook", "opencode"
  std::string runtime;              // a JS plugin's: "node" or "sandboxed"
  std::string tier, version, description;
  std::vector<std::string> events;  // the events a hook plugin subscribes to
  std::vector<std::string> warnings;  // e.g. unknown manifest keys
};

// One plugin, built-in shaper or native hook of a host (include/plugline/plugins.h).
using PluginInfo = plugline::PluginInfo;

// {"plugins": [{"id", "kind", "tier", "state", "reason", "path", "source", "runtime",
// "version", "description", "events", "warnings", "protected", "stats"}]}, null for empty
// reason/path/runtime/tier/version/description and absent stats; stats: {"match_count",
// "shape_count", "fail_count", "tokens_saved", "average_shape_ms"}; "install" (null unless
// installed from a catalog): {"version", "catalog", "url", "sha256", "size", "verified",
// "signed", "installed_at", "author", "homepage", "isolation", "path"}.
std::string PluginListJson(const std::vector<PluginInfo>& plugins);

// The hook chain of one dispatch and the broken plugins it was made without (or with, as
// guards), from the same state of the registry.
struct HookChain {
  std::vector<std::shared_ptr<HookPlugin>> hooks;
  std::vector<DispatchResult::Broken> broken;
};

class PluginRegistry {
 public:
  using Loader = std::function<absl::StatusOr<LoadedPlugin>(const PluginFile& file,
                                                            const JsPluginSettings& settings)>;

  // Tells what can be known of a plugin before loading it (called at every Refresh for every
  // plugin found in a trusted directory; must be cheap and run no plugin code).
  using Prober = std::function<PluginHints(const PluginFile& file)>;

  explicit PluginRegistry(Loader loader, Prober prober = nullptr,
                          KnownGuardFolder known_guard = nullptr)
      : loader_(std::move(loader)), prober_(std::move(prober)), known_guard_(std::move(known_guard)) {}

  // Rescans `dirs` (nothing is loaded here). Plugins whose files did not change keep their
  // loaded state; broken ones are retried. What a project's config tries to do to a
  // protected plugin, as far as it can be told without loading, goes to `diagnostics`.
  void Refresh(const std::vector<PluginDir>& dirs, const PluginsConfig& config,
               std::vector<std::string>* diagnostics);

  // Loads whatever is not loaded yet, then returns the enabled shapers in load order.
  std::vector<std::shared_ptr<Shaper>> Shapers();

  // Loads the plugins not loaded yet, then returns the enabled hook plugins in dispatch order
  // (exec plugins and OpenCode JS plugins) with broken fail-closed plugins as guards in their
  // place, and every broken plugin.
  HookChain Chain();
  // The enabled plugins with named hooks (OpenCode), in dispatch order.
  std::vector<std::shared_ptr<NamedHookPlugin>> NamedHooks();
  // The enabled plugins that add tools, in dispatch order.
  std::vector<std::shared_ptr<ToolProvider>> ToolProviders();
  // Disposes of every loaded hook plugin, in dispatch order (the host is closing); a plugin
  // already disposed of is not disposed of again.
  void DisposeAll();

  // Loads plugins one after another on the thread that asks for them, instead of on up to
  // two threads: for a host whose callbacks plugins call while loading (an OpenCode plugin
  // awaiting its `client`) are bound to the thread that calls the host.
  void LoadOnCallingThread() {
    absl::MutexLock lock(&mu_);
    load_on_caller_ = true;
  }

  // Whether a plugin of `kind` that is not disabled by name was found in a trusted place
  // (broken or not: it would be tried). Loads nothing.
  bool HasEnabled(PluginKind kind) const;
  // How many plugins were found (loaded or not).
  size_t size() const {
    absl::MutexLock lock(&mu_);
    return entries_.size();
  }

  // Loads whatever is not loaded yet, then describes every plugin found.
  std::vector<PluginInfo> List();

 private:
  struct FileStamp {
    std::string path;
    int64_t size = -1;
    int64_t mtime_ns = -1;
    uint64_t inode = 0;
    int64_t ctime_ns = -1;
    uint32_t mode = 0;
    bool operator==(const FileStamp&) const = default;
  };
  struct Entry {
    PluginFile file;
    JsPluginSettings settings;
    PluginHints hints;
    bool protect = false;       // a protected global plugin
    bool fail_closed = false;   // manifest or override: on_error: closed
    std::string disabled_by;    // the project's file disabled it (plugins.enabled: false)
    std::vector<std::string> ignored;  // what the project's file tried and could not do
    bool loaded = false;  // the loader ran (successfully or not)
    bool disposed = false;  // DisposeAll ran its dispose hook
    LoadedPlugin plugin;
    std::shared_ptr<HookPlugin> chain_hook;  // what the chain runs: plugin.hook or a wrapper
    std::string error;    // the loader's error: the plugin is broken
    std::vector<FileStamp> stamps;
  };

  static FileStamp Stamp(const std::string& path);
  // The enabled plugins of each role, in order, once everything is loaded.
  struct EnabledLists {
    std::vector<std::shared_ptr<Shaper>> shapers;
    std::vector<std::shared_ptr<HookPlugin>> hooks;  // broken fail-closed ones as guards
    std::vector<DispatchResult::Broken> broken;
    std::vector<std::shared_ptr<NamedHookPlugin>> named_hooks;
    std::vector<std::shared_ptr<ToolProvider>> tools;
  };
  // Loads what is pending and computes the lists the first time after a Refresh().
  const EnabledLists& LoadedEnabled() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Loads the pending entries of `kind` (every kind when nullopt).
  void LoadPending(std::optional<PluginKind> kind) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Calls HookPlugin::AfterLoad of the plugins just loaded, in order.
  void AfterLoad(const std::vector<Entry*>& loaded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ids, shadowing, protection and reserved names. An entry not loaded yet is "pending", known
  // by its hinted id or name. What a project tried against protected plugins is appended to
  // `protection_notes` (may be null) as well as to the plugins' warnings.
  std::vector<PluginInfo> Describe(std::vector<std::string>* protection_notes = nullptr) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Settings, protection and fail-closedness of `entry` known as `id` under `config`.
  static void Resolve(const PluginsConfig& config, Entry& entry, std::string_view id);

  Loader loader_;
  Prober prober_;
  KnownGuardFolder known_guard_;
  mutable absl::Mutex mu_;
  PluginsConfig config_ ABSL_GUARDED_BY(mu_);
  std::vector<Entry> entries_ ABSL_GUARDED_BY(mu_);
  bool load_on_caller_ ABSL_GUARDED_BY(mu_) = false;
  // The enabled plugins once everything is loaded; reset by Refresh().
  std::optional<EnabledLists> enabled_ ABSL_GUARDED_BY(mu_);
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_PLUGINS_H_

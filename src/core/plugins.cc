#include "core/plugins.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/dispatcher.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/node_resolve.h"
#include "core/opencode_config.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

// "x.js", "x.mjs", "x.ts", "x.mts" → "x"; anything else (a declaration file "x.d.ts" too) → "".
std::string_view StripJsExtension(std::string_view name) {
  for (std::string_view declaration : {".d.ts", ".d.mts"}) {
    if (absl::EndsWith(ToAbsl(name), ToAbsl(declaration))) return {};
  }
  for (std::string_view ext : {".mjs", ".js", ".mts", ".ts"}) {
    if (absl::EndsWith(ToAbsl(name), ToAbsl(ext)) && name.size() > ext.size()) {
      return name.substr(0, name.size() - ext.size());
    }
  }
  return {};
}

constexpr std::string_view kReservedPrefix = "builtin-";

// A loaded plugin's id: what the loader said, else its shaper's meta id, else the file name.
std::string IdOf(const LoadedPlugin& plugin, const std::string& file_name) {
  if (!plugin.id.empty()) return plugin.id;
  if (plugin.shaper != nullptr) return plugin.shaper->meta().id;
  return file_name;
}

bool IsGlobalSource(std::string_view source) {
  return source == "global" || source == "global-config" || source == "opencode" ||
         source == "opencode-config" || source == "opencode-tools";
}

// A hinted id is used only when it looks like one (a text scan of a broken manifest may find
// anything after `name:`).
bool LooksLikeId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
          c == '.' || c == '@' || c == '/')) {
      return false;
    }
  }
  return true;
}

// What a broken plugin that fails closed becomes in the chain: it cannot tell what it would have
// answered, so it denies every deny-capable event it subscribed to (all of them when its
// subscriptions cannot be read).
class BrokenGuard final : public HookPlugin {
 public:
  BrokenGuard(std::string id, std::optional<std::vector<std::string>> events, std::string why)
      : id_(std::move(id)), events_(std::move(events)), why_(std::move(why)) {}

  const std::string& id() const override { return id_; }
  bool Handles(std::string_view event) const override {
    if (!CapabilitiesOf(event).can_deny) return false;
    return !events_.has_value() ||
           std::find(events_->begin(), events_->end(), event) != events_->end();
  }
  bool fail_closed() const override { return true; }
  absl::StatusOr<HookAnswer> Call(std::string_view, std::string_view) override {
    HookAnswer answer;
    answer.deny = true;
    answer.reason = StrCat("plugin ", id_, " is broken and fails closed: ", why_);
    return answer;
  }

 private:
  const std::string id_;
  const std::optional<std::vector<std::string>> events_;
  const std::string why_;
};

// A loaded hook whose fail-closedness the configuration sets (plugins.overrides.<id>.on_error).
// Loading and disposing stay with the plugin itself.
class FailClosedAs final : public HookPlugin {
 public:
  FailClosedAs(std::shared_ptr<HookPlugin> inner, bool fail_closed)
      : inner_(std::move(inner)), fail_closed_(fail_closed) {}
  const std::string& id() const override { return inner_->id(); }
  bool Handles(std::string_view event) const override { return inner_->Handles(event); }
  bool fail_closed() const override { return fail_closed_; }
  absl::StatusOr<HookAnswer> Call(std::string_view event, std::string_view payload) override {
    return inner_->Call(event, payload);
  }

 private:
  const std::shared_ptr<HookPlugin> inner_;
  const bool fail_closed_;
};

// Whether a plugin loaded with `a` must be loaded again to run with `b` (`enabled` only
// decides whether it runs; exec plugins use none of the JS settings).
bool SameLoadSettings(PluginKind kind, const JsPluginSettings& a, const JsPluginSettings& b) {
  if (kind == PluginKind::kExec) return true;
  return a.process_isolation == b.process_isolation && a.runtime == b.runtime &&
         a.heap_limit_bytes == b.heap_limit_bytes &&
         a.load_timeout_ms == b.load_timeout_ms && a.match_timeout_ms == b.match_timeout_ms &&
         a.shape_timeout_ms == b.shape_timeout_ms && a.hook_timeout_ms == b.hook_timeout_ms &&
         a.options_json == b.options_json;
}

// A JS plugin named one by one (a package, an opencode.json `file://` entry), before its
// entry is known.
PluginFile NamedJsPlugin(const PluginDir& dir) {
  PluginFile file;
  file.source = dir.source;
  file.kind = PluginKind::kJsModule;
  file.node_modules = dir.node_modules;
  file.options_json = dir.options_json;
  file.untrusted = dir.untrusted;
  return file;
}

// A package named in config: its entry file, or why it cannot load.
PluginFile DiscoverPackage(const PluginDir& dir) {
  PluginFile file = NamedJsPlugin(dir);
  file.package = true;
  absl::StatusOr<PackageSpec> spec = ParsePackageSpec(dir.package);
  if (!spec.ok()) {
    file.name = dir.package;
    file.error = StrCat("plugins.packages: ", spec.status().message());
    return file;
  }
  file.name = spec->name;
  absl::StatusOr<NodePackage> package = FindNodePackage(spec->name, dir.node_modules);
  if (!package.ok()) {
    file.error = std::string(package.status().message());
    if (absl::IsNotFound(package.status()) && !dir.node_modules.empty()) {
      // <dir>/node_modules -> npm install --prefix <dir>
      std::string prefix = dir.node_modules.front();
      prefix.resize(prefix.size() - std::string_view("/node_modules").size());
      absl::StrAppend(&file.error, "; install it with: npm install --prefix ", prefix, " ",
                      dir.package);
    }
    return file;
  }
  file.entry = package->entry;
  file.not_esm = package->not_esm;
  file.root = package->root;
  file.package_version = package->version;
  // npm resolves ranges when it installs; plugline checks only an exact version.
  if (!spec->version.empty() && !package->version.empty() &&
      spec->version.find_first_not_of("0123456789.") == std::string::npos &&
      spec->version != package->version) {
    file.warnings.push_back(StrCat("config asks for ", spec->name, "@", spec->version,
                                   ", the installed version is ", package->version));
  }
  return file;
}

// A single plugin named by path (an opencode.json `file://` entry): the file, or a folder's
// index file.
PluginFile DiscoverFile(const PluginDir& dir) {
  PluginFile file = NamedJsPlugin(dir);
  std::string entry = dir.file;
  if (IsDirectory(entry)) {
    for (const char* index : {"index.ts", "index.js", "index.mjs", "index.mts"}) {
      if (PathExists(JoinPath(dir.file, index))) {
        entry = JoinPath(dir.file, index);
        break;
      }
    }
  }
  std::string_view base = std::string_view(dir.file).substr(dir.file.find_last_of('/') + 1);
  file.name = std::string(base.substr(0, base.find('.')));
  if (entry == dir.file && IsDirectory(entry)) {
    file.error = StrCat(dir.file, " has no index.ts, index.js or index.mjs");
  } else if (!PathExists(entry)) {
    file.error = StrCat("opencode.json names ", dir.file, ", which does not exist");
  }
  file.entry = entry;
  file.root = entry.substr(0, entry.find_last_of('/'));
  return file;
}

}  // namespace

bool IsProjectSource(std::string_view source) {
  return source == "project" || source == "project-config" || source == "project-opencode" ||
         source == "project-opencode-config" || source == "project-opencode-tools";
}

std::vector<PluginDir> PluginDirs(const std::string& home, const std::string& project_dir,
                                  const Config& config, std::vector<std::string>* diagnostics) {
  std::vector<PluginDir> dirs;
  if (!config.plugins.enabled) return dirs;
  const std::string home_modules = JoinPath(home, "node_modules");
  const std::vector<std::string> global_modules = {home_modules};
  std::vector<std::string> project_modules = {home_modules};
  if (!project_dir.empty()) {
    // The project's own node_modules too: a JS project may `npm install -D` its plugins.
    project_modules.insert(project_modules.begin(), {JoinPath(project_dir, ".plugline/node_modules"),
                                                     JoinPath(project_dir, "node_modules")});
  }
  // OpenCode's global locations (plugins.opencode), in OpenCode's order: its config's `plugin`
  // list after plugline's global config, its plugins/ folder after plugline's.
  const std::string opencode_dir = config.plugins.opencode ? OpenCodeConfigDir() : "";
  const std::vector<std::string> opencode_modules = {OpenCodeCacheModules(), home_modules};
  // And a project's (its opencode.json files, its .opencode/ folder), once it is trusted.
  const bool project_opencode =
      !opencode_dir.empty() && !project_dir.empty() && config.plugins.project_enabled;
  const std::string dot_opencode = project_opencode ? JoinPath(project_dir, ".opencode") : "";
  const std::vector<std::string> project_opencode_modules = {
      JoinPath(dot_opencode, "node_modules"), OpenCodeCacheModules(), home_modules};
  // Each config file's packages, then its directories; the global file's first.
  for (std::string_view source : {"global-config", "project-config"}) {
    if (source == "project-config" && !config.plugins.project_enabled) continue;
    const std::vector<std::string>& modules =
        source == "global-config" ? global_modules : project_modules;
    for (const ConfigPackage& package : config.plugins.packages) {
      if (package.source != source) continue;
      dirs.push_back({"", package.source, modules, package.spec, package.options_json, "", ""});
    }
    for (const ConfigDir& dir : config.plugins.dirs) {
      if (dir.source == source) dirs.push_back({dir.path, dir.source, {home_modules}, "", "", "", ""});
    }
    if (source == "global-config" && !opencode_dir.empty()) {
      for (const OpenCodePluginEntry& entry : ReadOpenCodePlugins(opencode_dir, diagnostics)) {
        dirs.push_back({"", "opencode-config", opencode_modules, entry.package, entry.options_json,
                        "", entry.path});
      }
    }
    if (source == "project-config" && project_opencode) {
      for (const std::string& dir : {project_dir, dot_opencode}) {
        for (const OpenCodePluginEntry& entry : ReadOpenCodePlugins(dir, diagnostics)) {
          dirs.push_back({"", "project-opencode-config", project_opencode_modules, entry.package,
                          entry.options_json, "", entry.path});
        }
      }
    }
  }
  dirs.push_back({JoinPath(home, "plugins"), "global", {home_modules}, "", "", "", ""});
  if (!opencode_dir.empty()) {
    for (const char* folder : {"plugins", "plugin"}) {
      dirs.push_back({JoinPath(opencode_dir, folder), "opencode", opencode_modules, "", "", "", ""});
    }
  }
  if (!project_dir.empty() && config.plugins.project_enabled) {
    dirs.push_back(
        {JoinPath(project_dir, ".plugline/plugins"), "project", {home_modules}, "", "", "", ""});
  }
  if (project_opencode) {
    for (const char* folder : {"plugins", "plugin"}) {
      dirs.push_back({JoinPath(dot_opencode, folder), "project-opencode", project_opencode_modules,
                      "", "", "", ""});
    }
  }
  // Custom tool files, after every plugin (OpenCode registers them after plugins' tools): the
  // global ones, then the project's.
  if (!opencode_dir.empty()) {
    for (const char* folder : {"tools", "tool"}) {
      dirs.push_back(
          {JoinPath(opencode_dir, folder), "opencode-tools", opencode_modules, "", "", "", ""});
    }
  }
  if (project_opencode) {
    for (const char* folder : {"tools", "tool"}) {
      dirs.push_back({JoinPath(dot_opencode, folder), "project-opencode-tools",
                      project_opencode_modules, "", "", "", ""});
    }
  }
  return dirs;
}

std::vector<PluginFile> DiscoverPlugins(const std::vector<PluginDir>& dirs,
                                        std::vector<std::string>* diagnostics,
                                        const KnownGuardFolder& known_guard) {
  std::vector<PluginFile> found;
  std::vector<std::string> seen_dirs;
  for (const PluginDir& dir : dirs) {
    const size_t first = found.size();
    if (!dir.package.empty() || !dir.file.empty()) {
      found.push_back(!dir.package.empty() ? DiscoverPackage(dir) : DiscoverFile(dir));
      continue;
    }
    // The same directory named twice (a config dir that is the global one) loads once.
    if (std::find(seen_dirs.begin(), seen_dirs.end(), dir.path) != seen_dirs.end()) continue;
    seen_dirs.push_back(dir.path);
    absl::StatusOr<std::vector<std::string>> names = ListDir(dir.path);
    if (!names.ok()) {
      if (!absl::IsNotFound(names.status()) && diagnostics != nullptr) {
        diagnostics->push_back(StrCat("plugin directory ", dir.path, ": ",
                                      names.status().message()));
      }
      continue;
    }
    std::sort(names->begin(), names->end());
    const bool tool_files = IsOpenCodeToolsSource(dir.source);
    for (const std::string& name : *names) {
      if (name.empty() || name[0] == '.') continue;
      std::string path = JoinPath(dir.path, name);
      if (std::string_view stem = StripJsExtension(name); !stem.empty()) {
        if (IsRegularFile(path)) {
          PluginFile file;
          file.entry = path;
          file.root = dir.path;
          // A tool file's id is apart from plugins' ("tools.add" beside a plugin "add").
          file.name = tool_files ? StrCat("tools.", stem) : std::string(stem);
          file.source = dir.source;
          file.node_modules = dir.node_modules;
          found.push_back(std::move(file));
        }
        continue;
      }
      if (tool_files || !IsDirectory(path)) continue;  // tool files are files only
      const std::string manifest = JoinPath(path, "plugin.yaml");
      if (IsRegularFile(manifest)) {
        PluginFile file;
        file.entry = manifest;
        file.root = path;
        file.name = name;
        file.source = dir.source;
        file.kind = PluginKind::kExec;
        found.push_back(std::move(file));
        continue;
      }
      bool is_js = false;
      for (const char* index : {"index.js", "index.mjs", "index.ts", "index.mts"}) {
        std::string entry = JoinPath(path, index);
        if (IsRegularFile(entry)) {
          PluginFile file;
          file.entry = entry;
          file.root = path;
          file.name = name;
          file.source = dir.source;
          file.node_modules = dir.node_modules;
          found.push_back(std::move(file));
          is_js = true;
          break;
        }
      }
      // A guard whose plugin.yaml vanished while its folder stayed is a broken guard, not
      // a plugin that is no longer there.
      if (!is_js && dir.untrusted.empty() && known_guard && known_guard(path)) {
        PluginFile file;
        file.entry = manifest;
        file.root = path;
        file.name = name;
        file.source = dir.source;
        file.kind = PluginKind::kExec;
        file.error = StrCat(manifest, " is missing; the folder held a fail-closed plugin (remove "
                                      "the folder to remove the plugin)");
        found.push_back(std::move(file));
      }
    }
    for (size_t i = first; i < found.size(); ++i) found[i].untrusted = dir.untrusted;
  }
  return found;
}

std::string PluginListJson(const std::vector<PluginInfo>& plugins) {
  JsonWriter w;
  auto optional = [&](std::string_view key, const std::string& value) {
    w.Key(key);
    if (value.empty()) {
      w.Null();
    } else {
      w.String(value);
    }
  };
  w.BeginObject();
  w.Key("plugins").BeginArray();
  for (const PluginInfo& p : plugins) {
    w.BeginObject();
    w.Key("id").String(p.id);
    w.Key("kind").String(p.kind);
    optional("tier", p.tier);
    w.Key("state").String(p.state);
    optional("reason", p.reason);
    optional("path", p.path);
    w.Key("source").String(p.source);
    optional("runtime", p.runtime);
    optional("version", p.version);
    optional("description", p.description);
    w.Key("events").BeginArray();
    for (const std::string& e : p.events) w.String(e);
    w.EndArray();
    w.Key("warnings").BeginArray();
    for (const std::string& warning : p.warnings) w.String(warning);
    w.EndArray();
    w.Key("protected").Bool(p.protect);
    w.Key("install");
    if (p.install.has_value()) {
      WriteInstallRecord(w, *p.install);
    } else {
      w.Null();
    }
    w.Key("stats");
    if (p.stats.has_value()) {
      w.BeginObject();
      w.Key("match_count").Int(p.stats->match_count);
      w.Key("shape_count").Int(p.stats->shape_count);
      w.Key("fail_count").Int(p.stats->fail_count);
      w.Key("tokens_saved").Int(p.stats->tokens_saved);
      w.Key("average_shape_ms").Double(p.stats->average_shape_ms);
      w.EndObject();
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

PluginRegistry::FileStamp PluginRegistry::Stamp(const std::string& path) {
  FileStamp stamp;
  stamp.path = path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    stamp.size = st.st_size;
    stamp.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    stamp.inode = st.st_ino;
    // chmod changes neither size nor mtime: a program made non-executable must reload.
    stamp.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
    stamp.mode = st.st_mode;
  }
  return stamp;
}

void PluginRegistry::Resolve(const PluginsConfig& config, Entry& entry, std::string_view id) {
  const bool global = IsGlobalSource(entry.file.source);
  entry.protect = false;
  entry.ignored.clear();
  entry.disabled_by.clear();
  if (global) {
    // The user's own word first (the global file), then the manifest; a fail-closed plugin is
    // protected unless the global file says otherwise.
    JsPluginSettings user = config.ForPlugin(id, /*protect=*/true);
    const bool fails_closed = user.fail_closed.value_or(entry.hints.fail_closed);
    entry.protect = user.protect.value_or(entry.hints.protect || fails_closed);
  }
  entry.settings = config.ForPlugin(id, entry.protect);
  if (!entry.file.options_json.empty()) entry.settings.options_json = entry.file.options_json;
  entry.fail_closed = entry.settings.fail_closed.value_or(entry.hints.fail_closed);
  // A plugin installed from a catalog runs as its install recorded (docs/managing-plugins.md),
  // unless config.yaml sets its isolation.
  if (auto installed = config.installed_isolation.find(std::string(id));
      installed != config.installed_isolation.end()) {
    auto explicitly = [&](std::string_view key) {
      for (const ConfigOverride& o : config.overrides) {
        if (o.id == id && o.value.is_object() && o.value.Find(key) != nullptr &&
            (o.source == "global-config" || !entry.protect)) {
          return true;
        }
      }
      return false;
    };
    if (!explicitly("isolation")) entry.settings.process_isolation = installed->second != "in-process";
    // Code from a catalog runs sandboxed unless the user said otherwise for this plugin.
    if (!explicitly("runtime")) entry.settings.runtime = JsRuntime::kSandboxed;
  }
  // The user's latest word from the command line, over config.yaml.
  if (auto toggle = config.toggles.find(std::string(id)); toggle != config.toggles.end()) {
    entry.settings.enabled = toggle->second;
    if (!toggle->second) {
      entry.disabled_by = StrCat("`plugline plugins --disable ", id, "` (", config.toggles_file, ")");
    }
  }
  if (global && !config.project_enabled) {
    if (entry.protect) {
      entry.ignored.push_back("plugins.enabled: false");
    } else {
      entry.settings.enabled = false;
      entry.disabled_by = StrCat(config.project_file, " (plugins.enabled: false)");
    }
  }
  if (entry.protect) {
    for (const std::string& key : config.ProjectOverrideKeys(id)) {
      entry.ignored.push_back(StrCat("plugins.overrides.", id, ".", key));
    }
  }
}

void PluginRegistry::Refresh(const std::vector<PluginDir>& dirs, const PluginsConfig& config,
                             std::vector<std::string>* diagnostics) {
  std::vector<PluginFile> files = DiscoverPlugins(dirs, diagnostics, known_guard_);
  // Hints read manifests: outside the lock, and never for untrusted files.
  std::vector<PluginHints> hints(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].untrusted.empty() && prober_) hints[i] = prober_(files[i]);
  }
  absl::MutexLock lock(&mu_);
  std::vector<Entry> previous = std::move(entries_);
  entries_.clear();
  enabled_.reset();
  config_ = config;
  for (size_t i = 0; i < files.size(); ++i) {
    PluginFile& file = files[i];
    Entry entry;
    entry.file = file;
    entry.hints = std::move(hints[i]);
    const std::string guess = LooksLikeId(entry.hints.id) ? entry.hints.id : file.name;
    Resolve(config_, entry, guess);
    // Keep a loaded plugin whose files and settings are unchanged.
    for (Entry& old : previous) {
      if (!file.untrusted.empty()) break;
      if (old.file.entry != file.entry || !old.loaded || !old.error.empty()) continue;
      bool unchanged = old.file.root == file.root && old.stamps.size() > 0 &&
                       old.file.source == file.source;
      for (const FileStamp& stamp : old.stamps) {
        unchanged = unchanged && Stamp(stamp.path) == stamp;
      }
      Entry now;
      now.file = file;
      now.hints = entry.hints;
      Resolve(config_, now, IdOf(old.plugin, file.name));
      unchanged = unchanged && SameLoadSettings(file.kind, now.settings, old.settings);
      if (unchanged) {
        Entry kept = std::move(old);
        kept.file = std::move(now.file);
        kept.hints = std::move(now.hints);
        kept.settings.enabled = now.settings.enabled;
        kept.settings.fail_closed = now.settings.fail_closed;
        kept.settings.protect = now.settings.protect;
        kept.protect = now.protect;
        kept.fail_closed = now.fail_closed;
        kept.disabled_by = std::move(now.disabled_by);
        kept.ignored = std::move(now.ignored);
        kept.chain_hook.reset();
        entry = std::move(kept);
      }
      break;
    }
    entries_.push_back(std::move(entry));
  }
  // What the project's file tried against protected plugins, as far as names tell before
  // loading.
  Describe(diagnostics);
  // Plugins not kept (removed, changed, reconfigured) are disposed of, in order.
  for (Entry& old : previous) {
    if (old.plugin.hook != nullptr && !old.disposed) old.plugin.hook->Dispose();
  }
}

bool PluginRegistry::HasEnabled(PluginKind kind) const {
  absl::MutexLock lock(&mu_);
  return std::any_of(entries_.begin(), entries_.end(), [kind](const Entry& entry) {
    return entry.file.kind == kind && entry.file.untrusted.empty() && entry.settings.enabled;
  });
}

void PluginRegistry::LoadPending(std::optional<PluginKind> kind) {
  std::vector<Entry*> pending;
  for (Entry& entry : entries_) {
    if (entry.loaded) continue;
    if (!entry.file.untrusted.empty()) continue;  // a project the user has not trusted
    if (kind.has_value() && entry.file.kind != *kind) continue;
    if (!entry.settings.enabled) continue;  // disabled by its file name: never loaded
    pending.push_back(&entry);
  }
  if (pending.empty()) return;
  auto load_one = [this](Entry* entry) {
    if (!entry->file.error.empty()) {  // found broken (a package that is not installed)
      entry->loaded = true;
      entry->error = entry->file.error;
      return;
    }
    absl::StatusOr<LoadedPlugin> loaded = loader_(entry->file, entry->settings);
    if (loaded.ok()) {
      const std::string id = IdOf(*loaded, entry->file.name);
      // Settings are keyed by id; the hint or file name was only a guess before loading.
      const JsPluginSettings guessed = entry->settings;
      Resolve(config_, *entry, id);
      if (!SameLoadSettings(entry->file.kind, guessed, entry->settings)) {
        loaded = loader_(entry->file, entry->settings);
      }
    }
    entry->loaded = true;
    if (loaded.ok()) {
      entry->plugin = *std::move(loaded);
      entry->error.clear();
      for (const std::string& path : entry->plugin.files) entry->stamps.push_back(Stamp(path));
      if (entry->stamps.empty()) entry->stamps.push_back(Stamp(entry->file.entry));
    } else {
      entry->error = std::string(loaded.status().message());
    }
  };
  // Isolates are independent: load on up to two threads (the machines this targets have few
  // cores, and loading is CPU-bound).
  size_t threads = load_on_caller_ ? 1
                                   : std::min<size_t>(pending.size(),
                                                      std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
  if (threads <= 1) {
    for (Entry* entry : pending) load_one(entry);
    AfterLoad(pending);
    return;
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < pending.size(); i = next++) load_one(pending[i]);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  AfterLoad(pending);
}

void PluginRegistry::AfterLoad(const std::vector<Entry*>& loaded) {
  // In dispatch order, once the whole pass has loaded (loading ran on several threads).
  for (Entry* entry : loaded) {
    if (entry->error.empty() && entry->plugin.hook != nullptr) entry->plugin.hook->AfterLoad();
  }
}

std::vector<PluginInfo> PluginRegistry::Describe(std::vector<std::string>* protection_notes) const {
  std::vector<PluginInfo> out;
  for (const Entry& entry : entries_) {
    PluginInfo info;
    info.kind = entry.file.kind == PluginKind::kExec ? "exec-hook"
                : entry.file.package                 ? "opencode"
                                                     : "js-shaper";
    // An exec plugin is its folder; a JS plugin its file.
    info.path = entry.file.kind == PluginKind::kExec ? entry.file.root : entry.file.entry;
    info.source = entry.file.source;
    info.id = LooksLikeId(entry.hints.id) ? entry.hints.id : entry.file.name;
    info.version = entry.file.package_version;
    info.warnings = entry.file.warnings;
    info.protect = entry.protect;
    auto disabled_reason = [&entry](std::string_view id) {
      if (!entry.disabled_by.empty()) return StrCat("disabled by ", entry.disabled_by);
      return StrCat("disabled in config (plugins.overrides.", id, ".enabled: false)");
    };
    if (!entry.file.untrusted.empty()) {
      info.state = "untrusted";
      info.reason = entry.file.untrusted;
    } else if (!entry.error.empty()) {
      info.state = "broken";
      info.reason = entry.error;
      if (entry.fail_closed && entry.settings.enabled) {
        std::string events = "every pre_tool_call";
        if (entry.hints.events.has_value()) {
          events.clear();
          for (const std::string& e : *entry.hints.events) {
            if (CapabilitiesOf(e).can_deny) StrAppend(&events, events.empty() ? "" : ", ", e);
          }
          if (events.empty()) events = "nothing (it subscribes to no event that can deny)";
        }
        info.warnings.push_back(StrCat("it fails closed: while it is broken it denies ", events));
      }
    } else if (!entry.loaded && !entry.settings.enabled) {
      info.state = "disabled";
      info.reason = disabled_reason(info.id);
    } else if (!entry.loaded) {
      info.state = "pending";  // never returned by List(), which loads everything
    } else {
      const LoadedPlugin& plugin = entry.plugin;
      info.id = IdOf(plugin, entry.file.name);
      if (!plugin.kind.empty()) info.kind = plugin.kind;
      info.runtime = plugin.runtime;
      const ShaperMeta* meta = plugin.shaper ? &plugin.shaper->meta() : nullptr;
      info.tier = !plugin.tier.empty() || meta == nullptr ? plugin.tier : meta->tier;
      if (!plugin.version.empty() || meta != nullptr) {
        info.version = !plugin.version.empty() || meta == nullptr ? plugin.version : meta->version;
      }
      info.description = !plugin.description.empty() || meta == nullptr ? plugin.description
                                                                          : meta->description;
      info.events = plugin.events;
      info.warnings.insert(info.warnings.end(), plugin.warnings.begin(), plugin.warnings.end());
      if (info.id.starts_with(kReservedPrefix)) {
        info.state = "broken";
        info.reason = StrCat("the id '", info.id, "' is reserved for built-in plugins (",
                             kReservedPrefix, "*)");
      } else if (!entry.settings.enabled) {
        info.state = "disabled";
        info.reason = disabled_reason(info.id);
      } else {
        info.state = "enabled";
      }
    }
    // What a person puts in a plugin folder is community work unless it says otherwise (a JS
    // shaper's meta.tier); a broken plugin's tier cannot be told.
    if (info.tier.empty() && info.state != "broken") info.tier = "community";
    out.push_back(std::move(info));
  }
  auto note = [&](PluginInfo& info, std::string text) {
    if (protection_notes != nullptr) protection_notes->push_back(StrCat("plugin ", info.id, ": ", text));
    info.warnings.push_back(std::move(text));
  };
  // What the project's file tried against protected plugins.
  for (size_t i = 0; i < out.size(); ++i) {
    const Entry& entry = entries_[i];
    if (entry.ignored.empty()) continue;
    std::string keys;
    for (const std::string& key : entry.ignored) StrAppend(&keys, keys.empty() ? "" : ", ", key);
    note(out[i], StrCat(config_.project_file, " sets ", keys,
                        "; ignored: a project cannot change a protected global plugin"));
  }
  auto live = [](const PluginInfo& info) {
    return info.state == "enabled" || info.state == "pending";
  };
  // A project plugin never replaces a protected global one (whatever its state: a broken or
  // disabled guard is still the user's).
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].protect) continue;
    for (size_t j = 0; j < out.size(); ++j) {
      if (!IsProjectSource(out[j].source) || !live(out[j]) || out[j].id != out[i].id) continue;
      out[j].state = "shadowed";
      out[j].reason = StrCat("a project plugin cannot replace the protected global plugin ",
                             out[i].id, " (", out[i].path, ")");
      note(out[i], StrCat(out[j].path, " has the same id; ignored: a project cannot replace a "
                                       "protected global plugin"));
    }
  }
  // The same id twice: the one found last (project over global) wins.
  for (size_t i = 0; i < out.size(); ++i) {
    if (!live(out[i])) continue;
    for (size_t j = i + 1; j < out.size(); ++j) {
      if (live(out[j]) && out[j].id == out[i].id) {
        out[i].state = "shadowed";
        out[i].reason = StrCat("shadowed by ", out[j].path);
        break;
      }
    }
  }
  return out;
}

const PluginRegistry::EnabledLists& PluginRegistry::LoadedEnabled() {
  // Asked on every shaping and every dispatch; the answer changes only when Refresh() runs.
  if (enabled_) return *enabled_;
  // Any JS module may be an OpenCode plugin (and exec manifests parse in microseconds):
  // everything loads before anything is known to be enabled.
  LoadPending(std::nullopt);
  std::vector<PluginInfo> infos = Describe();
  EnabledLists& lists = enabled_.emplace();
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& entry = entries_[i];
    const PluginInfo& info = infos[i];
    if (info.state == "broken") {
      lists.broken.push_back({info.id, info.reason});
      // It cannot tell what it would have answered: it denies what it could have denied.
      if (entry.fail_closed && entry.settings.enabled) {
        std::optional<std::vector<std::string>> events = entry.hints.events;
        if (entry.loaded && entry.error.empty()) events = entry.plugin.events;  // a reserved id
        if (entry.chain_hook == nullptr) {
          entry.chain_hook = std::make_shared<BrokenGuard>(info.id, std::move(events), info.reason);
        }
        lists.hooks.push_back(entry.chain_hook);
      }
      continue;
    }
    if (info.state != "enabled") continue;
    const LoadedPlugin& plugin = entry.plugin;
    if (plugin.shaper != nullptr) lists.shapers.push_back(plugin.shaper);
    if (plugin.hook != nullptr) {
      if (entry.chain_hook == nullptr) {
        const bool fail_closed = entry.settings.fail_closed.value_or(plugin.hook->fail_closed());
        entry.chain_hook = fail_closed == plugin.hook->fail_closed()
                               ? plugin.hook
                               : std::make_shared<FailClosedAs>(plugin.hook, fail_closed);
      }
      lists.hooks.push_back(entry.chain_hook);
    }
    if (plugin.named_hooks != nullptr) lists.named_hooks.push_back(plugin.named_hooks);
    if (plugin.tools != nullptr) lists.tools.push_back(plugin.tools);
  }
  return lists;
}

std::vector<std::shared_ptr<Shaper>> PluginRegistry::Shapers() {
  absl::MutexLock lock(&mu_);
  return LoadedEnabled().shapers;
}

HookChain PluginRegistry::Chain() {
  absl::MutexLock lock(&mu_);
  const EnabledLists& lists = LoadedEnabled();
  return {lists.hooks, lists.broken};
}

std::vector<std::shared_ptr<NamedHookPlugin>> PluginRegistry::NamedHooks() {
  absl::MutexLock lock(&mu_);
  return LoadedEnabled().named_hooks;
}

std::vector<std::shared_ptr<ToolProvider>> PluginRegistry::ToolProviders() {
  absl::MutexLock lock(&mu_);
  return LoadedEnabled().tools;
}

void PluginRegistry::DisposeAll() {
  absl::MutexLock lock(&mu_);
  for (Entry& entry : entries_) {
    if (entry.plugin.hook == nullptr || entry.disposed) continue;
    entry.plugin.hook->Dispose();
    entry.disposed = true;
  }
}

std::vector<PluginInfo> PluginRegistry::List() {
  absl::MutexLock lock(&mu_);
  LoadPending(std::nullopt);
  return Describe();
}

}  // namespace plugline::core

#include "core/plugins.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/node_resolve.h"
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

// Whether a plugin loaded with `a` must be loaded again to run with `b` (`enabled` only
// decides whether it runs; exec plugins use none of the JS settings).
bool SameLoadSettings(PluginKind kind, const JsPluginSettings& a, const JsPluginSettings& b) {
  if (kind == PluginKind::kExec) return true;
  return a.process_isolation == b.process_isolation && a.heap_limit_bytes == b.heap_limit_bytes &&
         a.load_timeout_ms == b.load_timeout_ms && a.match_timeout_ms == b.match_timeout_ms &&
         a.shape_timeout_ms == b.shape_timeout_ms && a.hook_timeout_ms == b.hook_timeout_ms &&
         a.options_json == b.options_json;
}

// The settings of plugin `id` found as `file`: a package's own options win over
// plugins.overrides.<id>.options.
JsPluginSettings SettingsFor(const PluginsConfig& config, const PluginFile& file,
                             std::string_view id) {
  JsPluginSettings settings = config.ForPlugin(id);
  if (!file.options_json.empty()) settings.options_json = file.options_json;
  return settings;
}

// A package named in config: its entry file, or why it cannot load.
PluginFile DiscoverPackage(const PluginDir& dir) {
  PluginFile file;
  file.source = dir.source;
  file.kind = PluginKind::kJsModule;
  file.node_modules = dir.node_modules;
  file.options_json = dir.options_json;
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

}  // namespace

std::vector<PluginDir> PluginDirs(const std::string& home, const std::string& project_dir,
                                  const Config& config) {
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
  // Each config file's packages, then its directories; the global file's first.
  for (std::string_view source : {"global-config", "project-config"}) {
    const std::vector<std::string>& modules =
        source == "global-config" ? global_modules : project_modules;
    for (const ConfigPackage& package : config.plugins.packages) {
      if (package.source != source) continue;
      dirs.push_back({"", package.source, modules, package.spec, package.options_json});
    }
    for (const ConfigDir& dir : config.plugins.dirs) {
      if (dir.source == source) dirs.push_back({dir.path, dir.source, {home_modules}, "", ""});
    }
  }
  dirs.push_back({JoinPath(home, "plugins"), "global", {home_modules}, "", ""});
  if (!project_dir.empty()) {
    dirs.push_back({JoinPath(project_dir, ".plugline/plugins"), "project", {home_modules}, "", ""});
  }
  return dirs;
}

std::vector<PluginFile> DiscoverPlugins(const std::vector<PluginDir>& dirs,
                                        std::vector<std::string>* diagnostics) {
  std::vector<PluginFile> found;
  std::vector<std::string> seen_dirs;
  for (const PluginDir& dir : dirs) {
    if (!dir.package.empty()) {
      found.push_back(DiscoverPackage(dir));
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
    for (const std::string& name : *names) {
      if (name.empty() || name[0] == '.') continue;
      std::string path = JoinPath(dir.path, name);
      if (std::string_view stem = StripJsExtension(name); !stem.empty()) {
        if (IsRegularFile(path)) {
          PluginFile file;
          file.entry = path;
          file.root = dir.path;
          file.name = std::string(stem);
          file.source = dir.source;
          file.node_modules = dir.node_modules;
          found.push_back(std::move(file));
        }
        continue;
      }
      if (!IsDirectory(path)) continue;
      if (std::string manifest = JoinPath(path, "plugin.yaml"); IsRegularFile(manifest)) {
        PluginFile file;
        file.entry = manifest;
        file.root = path;
        file.name = name;
        file.source = dir.source;
        file.kind = PluginKind::kExec;
        found.push_back(std::move(file));
        continue;
      }
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
          break;
        }
      }
    }
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
    optional("version", p.version);
    optional("description", p.description);
    w.Key("events").BeginArray();
    for (const std::string& e : p.events) w.String(e);
    w.EndArray();
    w.Key("warnings").BeginArray();
    for (const std::string& warning : p.warnings) w.String(warning);
    w.EndArray();
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
  }
  return stamp;
}

void PluginRegistry::Refresh(const std::vector<PluginDir>& dirs, const PluginsConfig& config,
                             std::vector<std::string>* diagnostics) {
  std::vector<PluginFile> files = DiscoverPlugins(dirs, diagnostics);
  absl::MutexLock lock(&mu_);
  std::vector<Entry> previous = std::move(entries_);
  entries_.clear();
  enabled_.reset();
  config_ = config;
  for (PluginFile& file : files) {
    Entry entry;
    entry.settings = SettingsFor(config, file, file.name);
    // Keep a loaded plugin whose files and settings are unchanged.
    for (Entry& old : previous) {
      if (old.file.entry != file.entry || !old.loaded || !old.error.empty()) continue;
      bool unchanged = old.file.root == file.root && old.stamps.size() > 0;
      for (const FileStamp& stamp : old.stamps) {
        unchanged = unchanged && Stamp(stamp.path) == stamp;
      }
      JsPluginSettings now = SettingsFor(config, file, IdOf(old.plugin, file.name));
      unchanged = unchanged && SameLoadSettings(file.kind, now, old.settings);
      if (unchanged) {
        entry = std::move(old);
        entry.settings.enabled = now.enabled;
      }
      break;
    }
    entry.file = std::move(file);
    entries_.push_back(std::move(entry));
  }
  // Plugins not kept (removed, changed, reconfigured) are disposed of, in order.
  for (Entry& old : previous) {
    if (old.plugin.hook != nullptr && !old.disposed) old.plugin.hook->Dispose();
  }
}

void PluginRegistry::LoadPending(std::optional<PluginKind> kind) {
  std::vector<Entry*> pending;
  for (Entry& entry : entries_) {
    if (entry.loaded) continue;
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
      if (id != entry->file.name) {
        // Settings are keyed by id; the file name was only a guess before loading.
        JsPluginSettings by_id = SettingsFor(config_, entry->file, id);
        if (!SameLoadSettings(entry->file.kind, by_id, entry->settings)) {
          entry->settings = by_id;
          loaded = loader_(entry->file, entry->settings);
        } else {
          entry->settings.enabled = by_id.enabled;
        }
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
  size_t threads = std::min<size_t>(pending.size(),
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

std::vector<PluginInfo> PluginRegistry::Describe() const {
  std::vector<PluginInfo> out;
  for (const Entry& entry : entries_) {
    PluginInfo info;
    info.kind = entry.file.kind == PluginKind::kExec ? "exec-hook"
                : entry.file.package                 ? "opencode"
                                                     : "js-shaper";
    // An exec plugin is its folder; a JS plugin its file.
    info.path = entry.file.kind == PluginKind::kExec ? entry.file.root : entry.file.entry;
    info.source = entry.file.source;
    info.id = entry.file.name;
    info.version = entry.file.package_version;
    info.warnings = entry.file.warnings;
    if (!entry.error.empty()) {
      info.state = "broken";
      info.reason = entry.error;
    } else if (!entry.loaded && !entry.settings.enabled) {
      info.state = "disabled";
      info.reason = StrCat("disabled in config (plugins.overrides.", entry.file.name,
                           ".enabled: false)");
    } else if (!entry.loaded) {
      info.state = "pending";  // never returned by List(), which loads everything
    } else {
      const LoadedPlugin& plugin = entry.plugin;
      info.id = IdOf(plugin, entry.file.name);
      if (!plugin.kind.empty()) info.kind = plugin.kind;
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
        info.reason = StrCat("disabled in config (plugins.overrides.", info.id,
                             ".enabled: false)");
      } else {
        info.state = "enabled";
      }
    }
    out.push_back(std::move(info));
  }
  // The same id twice: the one found last (project over global) wins.
  auto live = [](const PluginInfo& info) {
    return info.state == "enabled" || info.state == "pending";
  };
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
    if (infos[i].state != "enabled") continue;
    const LoadedPlugin& plugin = entries_[i].plugin;
    if (plugin.shaper != nullptr) lists.shapers.push_back(plugin.shaper);
    if (plugin.hook != nullptr) lists.hooks.push_back(plugin.hook);
    if (plugin.named_hooks != nullptr) lists.named_hooks.push_back(plugin.named_hooks);
    if (plugin.tools != nullptr) lists.tools.push_back(plugin.tools);
  }
  return lists;
}

std::vector<std::shared_ptr<Shaper>> PluginRegistry::Shapers() {
  absl::MutexLock lock(&mu_);
  return LoadedEnabled().shapers;
}

std::vector<std::shared_ptr<HookPlugin>> PluginRegistry::Hooks() {
  absl::MutexLock lock(&mu_);
  return LoadedEnabled().hooks;
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

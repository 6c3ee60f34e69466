// Host::Create: the composition of a Host from core and the real backends — the built-in
// shapers (src/builtin), exec hook plugins (src/exec) and JS plugins (src/js).
#include <unistd.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builtin/builtin_shapers.h"
#include "core/backends.h"
#include "core/fs.h"
#include "core/guard_records.h"
#include "core/log.h"
#include "core/plugins.h"
#include "exec/exec_plugin.h"
#include "exec/manifest_scan.h"
#include "js/js_shaper.h"
#include "plugline/host.h"

namespace plugline {
namespace {

using absl::StrCat;

// An exec plugin folder (src/exec) as a registry entry. What the plugin writes to stderr goes
// to the log, one record per call.
absl::StatusOr<core::LoadedPlugin> LoadExecHook(const core::PluginFile& file,
                                                const core::Log* log, core::GuardRecords* guards,
                                                std::vector<std::string>* state_warnings) {
  core::LoadedPlugin loaded;
  absl::StatusOr<exec::ExecPluginManifest> manifest =
      exec::LoadExecPluginManifest(file.root, &loaded.warnings);
  if (!manifest.ok()) return manifest.status();
  // Remembered, so that the plugin still fails closed if its manifest later stops parsing.
  guards->Loaded(file.root,
                 {manifest->name, manifest->fail_closed, manifest->protect, file.source},
                 state_warnings);
  for (const std::string& warning : loaded.warnings) {
    log->Write("warn", StrCat("plugin ", manifest->name), warning);
  }
  exec::ExecPluginStderrSink sink = [log](const std::string& id, std::string_view text) {
    log->Write("info", StrCat("plugin ", id, " stderr"), text);
  };
  absl::StatusOr<std::shared_ptr<core::HookPlugin>> hook =
      exec::LoadExecPlugin(file.root, nullptr, std::move(sink));
  if (!hook.ok()) return hook.status();
  loaded.hook = *std::move(hook);
  loaded.id = manifest->name;
  loaded.kind = "exec-hook";
  loaded.version = manifest->version;
  loaded.description = manifest->description;
  loaded.events = manifest->hooks;
  // A changed manifest or program reloads the plugin (and restarts a persistent one).
  loaded.files.push_back(manifest->manifest_path);
  if (manifest->resolved_command.starts_with(StrCat(manifest->dir, "/"))) {
    loaded.files.push_back(manifest->resolved_command);
  }
  return loaded;
}

// What an exec manifest says even when it is broken, and what the last good load said when it
// no longer parses.
core::PluginHints ProbeExecManifest(const core::PluginFile& file, core::GuardRecords* guards) {
  core::PluginHints hints;
  if (file.kind != core::PluginKind::kExec) return hints;
  exec::ExecManifestHints scan = exec::ScanExecManifest(file.root);
  hints.id = scan.name;
  hints.fail_closed = scan.fail_closed;
  hints.protect = scan.protect;
  hints.events = scan.hooks;
  // The records were read (and their problems reported) when the configuration loaded.
  if (!scan.parsed) {
    if (std::optional<core::GuardRecord> record = guards->Find(file.root, nullptr)) {
      hints.fail_closed = hints.fail_closed || record->fail_closed;
      hints.protect = hints.protect || record->protect;
      if (hints.id.empty()) hints.id = record->id;
    }
  }
  return hints;
}

// The real backends of a host.
core::Backends RealBackends(const core::BackendContext& context) {
  core::Backends backends;
  for (auto& shaper : builtin::MakeBuiltinShapers()) {
    backends.builtin_shapers.push_back(std::move(shaper));
  }
  const HostOptions& options = *context.options;
  js::JsShaperOptions js_options;
  js_options.code_cache_dir = core::JoinPath(context.home, "cache/v8");
  js_options.log = context.log;
  js_options.host.directory = options.project_dir;
  if (js_options.host.directory.empty()) {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) != nullptr) js_options.host.directory = cwd;
  }
  js_options.host.server_url = options.server_url;
  js_options.host.client = options.client;
  js_options.host.config_json =
      options.plugin_config_json.empty() ? "{}" : options.plugin_config_json;
  const core::Log* log = context.log;
  core::GuardRecords* guards = context.guards;
  auto warn = context.warn;
  backends.load = [js_options, log, guards, warn](const core::PluginFile& file,
                                                  const core::JsPluginSettings& settings)
      -> absl::StatusOr<core::LoadedPlugin> {
    if (file.kind != core::PluginKind::kExec) return js::LoadJsShaper(file, settings, js_options);
    std::vector<std::string> warnings;
    absl::StatusOr<core::LoadedPlugin> loaded = LoadExecHook(file, log, guards, &warnings);
    if (warn) warn("plugins", warnings);
    return loaded;
  };
  backends.probe = [guards](const core::PluginFile& file) {
    return ProbeExecManifest(file, guards);
  };
  return backends;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Host>> Host::Create(HostOptions options) {
  return core::CreateHost(std::move(options), RealBackends);
}

}  // namespace plugline

// plugline::Host: configuration, the output store, the token counter, the shapers and the hook
// chain. The backends (built-in shapers, exec and JS plugin loaders) come in through
// core/backends.h; src/host/ wires the real ones into Host::Create.
#include "plugline/host.h"


#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/strings.h"
#include "absl/time/clock.h"
#include "core/backends.h"
#include "core/config.h"
#include "core/dispatcher.h"
#include "core/fs.h"
#include "core/guard_records.h"
#include "core/host_internal.h"
#include "core/host_opencode_plugin.h"
#include "core/json.h"
#include "core/log.h"
#include "core/node_resolve.h"
#include "core/output_capture.h"
#include "core/opencode_config.h"
#include "core/output_store.h"
#include "core/output_window.h"
#include "core/plugin_id.h"
#include "core/plugin_state.h"
#include "core/plugins.h"
#include "core/redact.h"
#include "core/shaping_pipeline.h"
#include "core/stats.h"
#include "core/suggest.h"
#include "core/text.h"
#include "core/tokens.h"
#include "core/trust.h"
#include "core/version.h"

namespace plugline {

namespace {

// A shaping's command and budget, checked before anything is stored: the command is UTF-8; the
// budget is as the command line and config.yaml take it, 0 (none) or at least
// core::kMinSummaryTokens (room for a summary's outcome line, the path to the full output and
// the statement of what was cut).
absl::Status CheckShapeArguments(std::string_view command, std::optional<uint64_t> max_tokens) {
  if (!core::IsValidUtf8(command)) return absl::InvalidArgumentError("command is not valid UTF-8");
  if (!max_tokens || *max_tokens == 0 || *max_tokens >= core::kMinSummaryTokens) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(StrCat("max_tokens ", *max_tokens,
                                           ": expected 0 (no budget) or at least ",
                                           core::kMinSummaryTokens));
}

}  // namespace

std::string_view VersionString() { return core::kVersionString; }

std::string ShapeResult::ToJson() const {
  core::JsonWriter w;
  w.BeginObject();
  w.Key("summary").String(summary);
  w.Key("render_mode").String(render_mode == RenderMode::kRaw ? "raw" : "summary");
  w.Key("shaper").String(shaper);
  w.Key("confidence").Double(confidence);
  w.Key("raw_path");
  if (raw_path.empty()) {
    w.Null();
  } else {
    w.String(raw_path);
  }
  w.Key("raw_bytes").Int(static_cast<int64_t>(raw_bytes));
  w.Key("raw_lines").Int(static_cast<int64_t>(raw_lines));
  w.Key("raw_stored_bytes").Int(static_cast<int64_t>(raw_stored_bytes));
  w.Key("shaped_bytes").Int(static_cast<int64_t>(shaped_bytes));
  w.Key("tokens_raw").Int(static_cast<int64_t>(tokens_raw));
  w.Key("tokens_summary").Int(static_cast<int64_t>(tokens_summary));
  w.Key("tokens_saved").Int(static_cast<int64_t>(tokens_raw) - static_cast<int64_t>(tokens_summary));
  w.Key("token_counter").String(token_counter);
  w.Key("max_tokens").Int(static_cast<int64_t>(max_tokens));
  w.Key("budget_lines_left_out").Int(static_cast<int64_t>(budget_lines_left_out));
  w.Key("secrets_masked").Bool(secrets_masked);
  w.Key("fallback");
  if (fallback) {
    w.String(*fallback);
  } else {
    w.Null();
  }
  w.Key("skipped").BeginArray();
  for (const Skipped& s : skipped) {
    w.BeginObject();
    w.Key("plugin").String(s.shaper);
    w.Key("why").String(s.why);
    w.Key("detail").String(s.detail);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

struct Host::Impl {
  HostOptions options;
  std::string home;
  std::unique_ptr<core::TokenCounter> host_counter;  // the host's own, or null
  std::unique_ptr<core::StatsStore> stats;
  std::unique_ptr<core::Log> log;
  std::vector<std::shared_ptr<core::Shaper>> builtins;
  std::unique_ptr<core::GuardRecords> guards;
  std::unique_ptr<core::PluginRegistry> plugins;

  absl::Mutex hooks_mu;  // guards native_hooks and opencode_plugins
  std::vector<std::shared_ptr<core::NativeHook>> native_hooks ABSL_GUARDED_BY(hooks_mu);
  std::vector<std::shared_ptr<core::HostOpenCodePlugin>> opencode_plugins ABSL_GUARDED_BY(hooks_mu);

  // Whether the host's own hooks or OpenCode plugins have `id`.
  bool HostIdTaken(std::string_view id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(hooks_mu) {
    for (const auto& hook : native_hooks) {
      if (hook->id() == id) return true;
    }
    for (const auto& plugin : opencode_plugins) {
      if (plugin->id() == id) return true;
    }
    return false;
  }
  // The plugins' named hooks and tools, then the host's OpenCode plugins'.
  std::vector<std::shared_ptr<core::NamedHookPlugin>> NamedHooks() {
    std::vector<std::shared_ptr<core::NamedHookPlugin>> all = plugins->NamedHooks();
    absl::MutexLock lock(&hooks_mu);
    all.insert(all.end(), opencode_plugins.begin(), opencode_plugins.end());
    return all;
  }
  std::vector<std::shared_ptr<core::ToolProvider>> ToolProviders() {
    std::vector<std::shared_ptr<core::ToolProvider>> all = plugins->ToolProviders();
    absl::MutexLock lock(&hooks_mu);
    all.insert(all.end(), opencode_plugins.begin(), opencode_plugins.end());
    return all;
  }

  mutable absl::Mutex mu;  // guards what Reload() replaces
  std::vector<std::string> diagnostics ABSL_GUARDED_BY(mu);
  core::Config config ABSL_GUARDED_BY(mu);
  std::shared_ptr<core::OutputStore> outputs ABSL_GUARDED_BY(mu);
  std::vector<core::WatchedPath> watched ABSL_GUARDED_BY(mu);

  // Whether the project's .plugline/ may load, and if not, why (for diagnostics and listing).
  struct ProjectDecision {
    bool load = false;
    std::string untrusted;  // non-empty: the project has content that must not load
  };
  ProjectDecision DecideProject(std::vector<std::string>* diagnostics) {
    ProjectDecision decision;
    const std::string project = core::EffectiveProjectDir(home, options.project_dir);
    if (project.empty()) return decision;
    core::TrustCheck check;
    switch (options.project_trust) {
      case ProjectTrust::kTrusted:
        decision.load = true;
        return decision;
      case ProjectTrust::kUntrusted: {
        absl::StatusOr<core::ProjectContent> content =
            core::ScanProjectContent(project, nullptr, core::OpenCodeLocationsOn(home));
        if (content.ok() && content->files.empty()) return decision;
        decision.untrusted = StrCat("the host does not trust project ", project,
                                    ", so its .plugline/ config and plugins are ignored");
        return decision;
      }
      case ProjectTrust::kStore:
        check = core::TrustStore(home, core::OpenCodeLocationsOn(home)).Check(project, diagnostics);
        break;
    }
    if (check.state == core::TrustState::kTrusted) decision.load = true;
    decision.untrusted = core::UntrustedReason(check);
    return decision;
  }

  void LoadConfiguration() ABSL_LOCKS_EXCLUDED(mu) {
    std::vector<std::string> diagnostics;
    guards->Load(&diagnostics);
    ProjectDecision project = DecideProject(&diagnostics);
    const std::string project_dir = project.load ? options.project_dir : std::string();
    core::Config config = core::LoadConfig(home, project_dir, &diagnostics);
    ReadToggles(&config, &diagnostics);
    std::vector<core::PluginDir> dirs = core::PluginDirs(home, project_dir, config, &diagnostics);
    KeepGuardFolders(config, &dirs, &diagnostics);
    if (!project.untrusted.empty()) {
      // Listed, never loaded: the project's plugins as its config would name them.
      diagnostics.push_back(project.untrusted);
      core::Config view = core::LoadConfig(home, options.project_dir, nullptr);
      view.plugins.enabled = view.plugins.project_enabled = true;
      for (core::PluginDir& dir : core::PluginDirs(home, options.project_dir, view)) {
        if (!core::IsProjectSource(dir.source)) continue;
        dir.untrusted = project.untrusted;
        dirs.push_back(std::move(dir));
      }
    }
    plugins->Refresh(dirs, config.plugins, &diagnostics);
    std::vector<core::WatchedPath> watched = WatchList(dirs, config);
    std::shared_ptr<core::OutputStore> store;
    if (options.store_outputs) {
      store = std::make_shared<core::OutputStore>(core::JoinPath(home, "outputs"),
                                                  config.outputs);
    }
    absl::MutexLock lock(&mu);
    this->diagnostics = std::move(diagnostics);
    this->config = std::move(config);
    this->watched = std::move(watched);
    outputs = std::move(store);
  }

  // `plugline plugins --enable/--disable` (core/plugin_state.h). Unreadable or newer: none
  // apply, and the host says so.
  void ReadToggles(core::Config* config, std::vector<std::string>* diagnostics) {
    core::PluginStateStore store(home);
    absl::StatusOr<core::PluginStateStore::State> state = store.Load(diagnostics);
    if (!state.ok()) {
      diagnostics->push_back(StrCat("plugin toggles are not applied: ", state.status().message()));
      return;
    }
    for (const auto& [id, toggle] : state->toggles) config->plugins.toggles[id] = toggle.enabled;
    if (!state->toggles.empty()) config->plugins.toggles_file = store.path();
    for (const auto& [id, record] : state->installed) {
      config->plugins.installed_isolation[id] = record.isolation;
    }
  }


  // What LoadConfiguration read: the config files, the state files that decide what loads
  // (trust, guard records), the project's .plugline/, each plugin folder three levels down
  // (a plugin folder's files and one more level) and each package's folder two levels down.
  std::vector<core::WatchedPath> WatchList(const std::vector<core::PluginDir>& dirs,
                                           const core::Config& config) const {
    std::vector<core::WatchedPath> watched = {{core::JoinPath(home, "config.yaml"), 0},
                                              {core::JoinPath(home, "trust.json"), 0},
                                              {core::JoinPath(home, "guards.json"), 0},
                                              {core::JoinPath(home, "plugins.json"), 0}};
    if (!options.project_dir.empty()) {
      const std::string project = core::EffectiveProjectDir(home, options.project_dir);
      if (!project.empty()) watched.push_back({core::JoinPath(project, ".plugline"), 1});
    }
    if (config.plugins.opencode) {  // OpenCode's config files name plugins too
      std::vector<std::string> folders = {core::OpenCodeConfigDir()};
      const std::string project = core::EffectiveProjectDir(home, options.project_dir);
      if (!project.empty()) {  // and a project's (watched trusted or not: they change its trust)
        folders.push_back(project);
        folders.push_back(core::JoinPath(project, ".opencode"));
      }
      for (const std::string& folder : folders) {
        for (const char* file : {"opencode.json", "opencode.jsonc"}) {
          watched.push_back({core::JoinPath(folder, file), 0});
        }
      }
    }
    for (const core::PluginDir& dir : dirs) {
      if (!dir.file.empty()) {
        watched.push_back({dir.file, 1});
        continue;
      }
      if (dir.package.empty()) {
        watched.push_back({dir.path, 3});
        continue;
      }
      absl::StatusOr<core::PackageSpec> spec = core::ParsePackageSpec(dir.package);
      if (!spec.ok()) continue;
      for (const std::string& modules : dir.node_modules) {
        watched.push_back({core::JoinPath(modules, spec->name), 2});
      }
    }
    return watched;
  }

  // A global config.yaml that cannot be read (or that has a problem) may have lost the
  // plugins.dirs that held a fail-closed guard: such a guard would vanish, and the calls it
  // denied would be allowed, with a warning the agent's user may never see. So while the file
  // has problems, the folders of the fail-closed plugins last loaded (guards.json) stay in use:
  // their directories are scanned as if the file still named them. A file without problems
  // that no longer names a directory removes its plugins, as the user meant.
  void KeepGuardFolders(const core::Config& config, std::vector<core::PluginDir>* dirs,
                        std::vector<std::string>* diagnostics) {
    if (!config.plugins.global_file_problems || !config.plugins.enabled) return;
    // Before the home's plugins folder, where the file's own directories would have been.
    auto position = std::find_if(dirs->begin(), dirs->end(),
                                 [](const core::PluginDir& d) { return d.source == "global"; });
    for (const auto& [folder, record] : guards->FailClosed(diagnostics)) {
      // Only what the global file named: a project's folders are the project's (and its trust's).
      if (record.source != "global-config") continue;
      const size_t slash = folder.rfind('/');
      if (slash == std::string::npos || slash == 0) continue;
      const std::string parent = folder.substr(0, slash);
      bool scanned = std::any_of(dirs->begin(), dirs->end(), [&](const core::PluginDir& d) {
        return d.package.empty() && d.path == parent;
      });
      if (scanned) continue;
      position = dirs->insert(position, core::PluginDir{parent, "global-config",
                                                        {core::JoinPath(home, "node_modules")},
                                                        "", "", "", ""}) + 1;
      diagnostics->push_back(StrCat(
          core::JoinPath(home, "config.yaml"), " has problems, so ", parent,
          ", which held the fail-closed plugin ", record.id,
          " when it last loaded, is still used as a plugin directory; fix the file to change that"));
    }
  }

  // Problems with state files found while working (a malformed stats.json moved aside, a newer
  // one left alone): logged, and added to diagnostics() so the host can show them. A message
  // already there is not added again, and the list stays bounded, so a host that meets the same
  // problem on every call does not grow.
  void Warn(std::string_view source, const std::vector<std::string>& warnings)
      ABSL_LOCKS_EXCLUDED(mu) {
    if (warnings.empty()) return;
    for (const std::string& warning : warnings) log->Write("warn", source, warning);
    absl::MutexLock lock(&mu);
    for (const std::string& warning : warnings) {
      if (diagnostics.size() >= kMaxDiagnostics) break;
      if (std::find(diagnostics.begin(), diagnostics.end(), warning) == diagnostics.end()) {
        diagnostics.push_back(warning);
      }
    }
  }
  static constexpr size_t kMaxDiagnostics = 256;

  // The built-in shapers, then the plugins' (loading them if they are not loaded yet).
  core::ShaperPipeline Pipeline() {
    core::ShaperPipeline pipeline(Counter());
    {
      absl::MutexLock lock(&mu);
      for (const auto& s : builtins) {
        if (config.plugins.BuiltinEnabled(s->meta().id)) pipeline.Add(s);
      }
    }
    for (auto& s : plugins->Shapers()) pipeline.Add(std::move(s));
    return pipeline;
  }

  absl::Status CheckShaper(std::string_view shaper) {
    absl::Status known = Pipeline().CheckShaper(shaper);
    if (known.ok()) return known;
    absl::MutexLock lock(&mu);
    for (const auto& s : builtins) {
      std::string why;
      if (s->meta().id != shaper || config.plugins.BuiltinEnabled(shaper, &why)) continue;
      return absl::InvalidArgumentError(StrCat("shaper '", shaper, "' is ", why,
                                               "; `plugline plugins --enable ", shaper,
                                               "` turns it back on"));
    }
    return known;
  }

  // The host's counter, else the one shaping.tokenizer names (process-wide, never freed).
  const core::TokenCounter* Counter() ABSL_LOCKS_EXCLUDED(mu) {
    if (host_counter != nullptr) return host_counter.get();
    absl::MutexLock lock(&mu);
    return core::DefaultTokenCounter(config.tokenizer, home);
  }

  // Statistics are best effort: a read-only home or a bad stats file must not fail shaping,
  // but the host hears about it.
  void RecordStats(const core::ShapeTrace& trace) {
    std::vector<std::string> warnings;
    absl::Status recorded = stats->Record(trace, absl::Now(), &warnings);
    if (!recorded.ok()) warnings.push_back(StrCat("statistics not recorded: ", recorded.message()));
    Warn("stats", warnings);
  }
  void FlushQueuedStats() {
    std::vector<std::string> warnings;
    absl::Status recorded = stats->FlushQueued(&warnings);
    if (!recorded.ok()) warnings.push_back(StrCat("statistics not recorded: ", recorded.message()));
    Warn("stats", warnings);
  }

  // Shapes a captured output (`output`: its text, or the whole output its caller holds), masks
  // what shapers' failures said, logs them and records statistics (or, with `queue_stats`,
  // queues them for FlushQueuedStats).
  absl::StatusOr<ShapeResult> ShapeCaptured(std::string_view command,
                                            std::optional<int> exit_code,
                                            std::string_view shaper,
                                            const core::CapturedOutput& captured,
                                            std::string_view output, bool stats_enabled,
                                            bool queue_stats = false,
                                            std::optional<uint64_t> max_tokens = std::nullopt) {
    core::ShaperPipeline pipeline = Pipeline();
    ShapeRequest request;
    if (max_tokens) {
      request.max_tokens = max_tokens;
    } else {
      absl::MutexLock lock(&mu);
      request.max_tokens = config.max_summary_tokens;
    }
    request.command = command;
    request.output = output;
    request.exit_code = exit_code;
    request.shaper = shaper;
    core::ShapeTrace trace;
    absl::StatusOr<ShapeResult> result = pipeline.Run(
        request, captured.raw, &trace, captured.windowed ? &*captured.windowed : nullptr);
    if (std::string problem = pipeline.counter()->problem(); !problem.empty()) {
      Warn("tokens", {problem});
    }
    if (result.ok()) {
      // What a shaper's failure said (a thrown error may quote the output or its environment)
      // reaches the agent: secrets are masked here, where it enters the host's result.
      for (ShapeResult::Skipped& skipped : result->skipped) {
        skipped.detail = core::RedactSecrets(skipped.detail);
      }
      if (result->fallback) result->fallback = core::RedactSecrets(*result->fallback);
      for (const ShapeResult::Skipped& skipped : result->skipped) {
        log->Write("warn", StrCat("shaper ", skipped.shaper),
                   StrCat(skipped.why, ": ", skipped.detail));
      }
      if (result->fallback && !result->shaper.empty()) {
        log->Write("warn", StrCat("shaper ", result->shaper), *result->fallback);
      }
    }
    if (result.ok() && options.record_stats && stats_enabled) {
      if (queue_stats) {
        stats->Enqueue(std::move(trace), absl::Now());
      } else {
        RecordStats(trace);
      }
    }
    return result;
  }
};

Host::Host(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Host::~Host() {
  // OpenCode plugins' dispose hooks, in order, before their isolates go.
  DisposePlugins();
  // Statistics queued by the server are written, not lost with the host.
  if (impl_ != nullptr && impl_->stats != nullptr) impl_->FlushQueuedStats();
}

void Host::DisposePlugins() {
  if (impl_ != nullptr && impl_->plugins != nullptr) impl_->plugins->DisposeAll();
}

absl::StatusOr<std::unique_ptr<Host>> internal::HostAccess::Create(
    HostOptions options, const core::BackendFactory& backends) {
  auto impl = std::make_unique<Host::Impl>();
  absl::StatusOr<std::string> home = core::ResolveHome(options.home);
  if (!home.ok()) return home.status();
  impl->home = *home;
  if (options.token_counter) {
    impl->host_counter = core::MakeFunctionTokenCounter(options.token_counter);
  }
  impl->stats = std::make_unique<core::StatsStore>(impl->home);
  impl->log = std::make_unique<core::Log>(core::JoinPath(impl->home, "logs"));
  impl->guards = std::make_unique<core::GuardRecords>(impl->home);
  impl->options = std::move(options);
  Host::Impl* state = impl.get();
  const core::Log* log = impl->log.get();
  core::BackendContext context;
  context.options = &impl->options;
  context.home = impl->home;
  context.log = log;
  context.guards = impl->guards.get();
  context.warn = [state](std::string_view source, const std::vector<std::string>& warnings) {
    state->Warn(source, warnings);
  };
  core::Backends made = backends(context);
  impl->builtins = std::move(made.builtin_shapers);
  core::PluginRegistry::Loader load = std::move(made.load);
  core::GuardRecords* guards = impl->guards.get();
  impl->plugins = std::make_unique<core::PluginRegistry>(
      [load, log](const core::PluginFile& file,
                  const core::JsPluginSettings& settings) -> absl::StatusOr<core::LoadedPlugin> {
        absl::StatusOr<core::LoadedPlugin> loaded =
            load ? load(file, settings)
                 : absl::StatusOr<core::LoadedPlugin>(
                       absl::UnimplementedError("this host loads no plugin files"));
        if (!loaded.ok()) {
          log->Write("error", StrCat("plugin ", file.name),
                     StrCat(file.entry, " is broken: ", loaded.status().message()));
        }
        return loaded;
      },
      std::move(made.probe),
      [guards](const std::string& folder) {
        std::optional<core::GuardRecord> record = guards->Find(folder, nullptr);
        return record.has_value() && (record->fail_closed || record->protect);
      });
  // A host's client is called on the thread running the plugin: while loading too.
  if (impl->options.client && !impl->options.client_thread_safe) {
    impl->plugins->LoadOnCallingThread();
  }
  impl->LoadConfiguration();
  return std::unique_ptr<Host>(new Host(std::move(impl)));
}

namespace core {

absl::StatusOr<std::unique_ptr<Host>> CreateHost(HostOptions options,
                                                 const BackendFactory& backends) {
  return internal::HostAccess::Create(std::move(options), backends);
}

}  // namespace core

void Host::Reload() { impl_->LoadConfiguration(); }

void Host::Preload() { impl_->plugins->Shapers(); }

// The state of one capture: its raw file and window, and the host that shapes it.
struct OutputCapture::Impl {
  Host::Impl* host = nullptr;
  // Made with the store of the configuration at the start: a Reload() may replace the host's,
  // and the writer must still be able to commit into (and prune) the one it started in.
  std::unique_ptr<core::RawCapture> raw;
  bool stats_enabled = true;
  bool finished = false;

  // Shapes what was captured; `whole`, when given, is the entire output, which the caller
  // holds (Host::Shape): it is stored and shaped as it is, with no window and no copy.
  absl::StatusOr<ShapeResult> Finish(std::string_view command, std::optional<int> exit_code,
                                     std::string_view shaper, const std::string_view* whole,
                                     std::optional<uint64_t> max_tokens);
};

OutputCapture::OutputCapture(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OutputCapture::~OutputCapture() = default;

void OutputCapture::Append(std::string_view chunk) {
  if (impl_->finished) return;
  impl_->raw->Append(chunk);
}

uint64_t OutputCapture::bytes() const { return impl_->raw->bytes(); }
uint64_t OutputCapture::lines() const { return impl_->raw->lines(); }

absl::StatusOr<ShapeResult> OutputCapture::Finish(std::string_view command,
                                                  std::optional<int> exit_code,
                                                  std::string_view shaper,
                                                  std::optional<uint64_t> max_tokens) {
  return impl_->Finish(command, exit_code, shaper, nullptr, max_tokens);
}

std::unique_ptr<OutputCapture> Host::StartCapture() {
  auto capture = std::make_unique<OutputCapture::Impl>();
  capture->host = impl_.get();
  std::shared_ptr<core::OutputStore> store;
  uint64_t window_bytes;
  {
    absl::MutexLock lock(&impl_->mu);
    store = impl_->outputs;
    capture->stats_enabled = impl_->config.stats_enabled;
    window_bytes = impl_->config.window_bytes;
  }
  capture->raw = std::make_unique<core::RawCapture>(std::move(store), window_bytes,
                                                    impl_->Counter());
  return std::unique_ptr<OutputCapture>(new OutputCapture(std::move(capture)));
}

absl::StatusOr<ShapeResult> OutputCapture::Impl::Finish(std::string_view command,
                                                        std::optional<int> exit_code,
                                                        std::string_view shaper,
                                                        const std::string_view* whole,
                                                        std::optional<uint64_t> max_tokens) {
  if (finished) return absl::FailedPreconditionError("this output was already shaped");
  // Checked before anything is committed, so that the caller can try again.
  if (absl::Status checked = CheckShapeArguments(command, max_tokens); !checked.ok()) {
    return checked;
  }
  if (!shaper.empty()) {
    absl::Status known = host->CheckShaper(shaper);
    if (!known.ok()) return known;
  }
  finished = true;
  core::CapturedOutput captured = raw->Take(whole);
  return host->ShapeCaptured(command, exit_code, shaper, captured,
                             whole != nullptr ? *whole : std::string_view(captured.text),
                             stats_enabled, /*queue_stats=*/false, max_tokens);
}

absl::StatusOr<ShapeResult> Host::Shape(const ShapeRequest& request) {
  std::unique_ptr<OutputCapture> capture = StartCapture();
  if (request.output.size() <= capture->impl_->raw->window_bytes()) {
    // The common case: the caller holds the whole output and it fits the window.
    return capture->impl_->Finish(request.command, request.exit_code, request.shaper,
                                  &request.output, request.max_tokens);
  }
  if (absl::Status checked = CheckShapeArguments(request.command, request.max_tokens);
      !checked.ok()) {
    return checked;
  }
  capture->Append(request.output);
  return capture->Finish(request.command, request.exit_code, request.shaper, request.max_tokens);
}

absl::StatusOr<DispatchResult> Host::Dispatch(std::string_view event,
                                              std::string_view payload_json) {
  // Plugins in dispatch order (broken fail-closed ones as guards), the host's OpenCode
  // plugins, then the host's own hooks, each in the order they were added.
  core::HookChain chain = impl_->plugins->Chain();
  {
    absl::MutexLock lock(&impl_->hooks_mu);
    chain.hooks.insert(chain.hooks.end(), impl_->opencode_plugins.begin(),
                       impl_->opencode_plugins.end());
    chain.hooks.insert(chain.hooks.end(), impl_->native_hooks.begin(), impl_->native_hooks.end());
  }
  absl::StatusOr<DispatchResult> result = core::Dispatch(event, payload_json, chain.hooks);
  if (!result.ok()) return result;
  result->broken = std::move(chain.broken);
  // The log names plugins and what they did, never payload contents.
  for (const DispatchResult::Skipped& skipped : result->skipped) {
    impl_->log->Write("warn", StrCat("plugin ", skipped.plugin),
                      StrCat(event, ": skipped (", skipped.why, "): ", skipped.detail));
  }
  if (result->denied) {
    impl_->log->Write("info", StrCat("plugin ", result->denied_by),
                      StrCat(event, ": denied: ", result->reason));
  }
  for (const DispatchResult::Warning& warning : result->warnings) {
    impl_->log->Write("warn", warning.plugin.empty() ? "dispatch" : StrCat("plugin ", warning.plugin),
                      warning.text);
  }
  return result;
}

absl::Status Host::AddHook(NativeHookOptions hook) {
  if (hook.id.empty()) return absl::InvalidArgumentError("a native hook needs an id");
  if (!hook.function) {
    return absl::InvalidArgumentError(StrCat("native hook ", hook.id, " has no function"));
  }
  absl::MutexLock lock(&impl_->hooks_mu);
  if (impl_->HostIdTaken(hook.id)) {
    return absl::AlreadyExistsError(
        StrCat("a native hook or host OpenCode plugin with id ", hook.id, " exists"));
  }
  for (const std::string& event : hook.events) {
    if (std::optional<std::string> near = core::NearCanonicalEventWarning(event)) {
      impl_->log->Write("warn", StrCat("native hook ", hook.id), *near);
    }
  }
  impl_->native_hooks.push_back(std::make_shared<core::NativeHook>(
      std::move(hook.id), std::move(hook.events), std::move(hook.function), hook.fail_closed));
  return absl::OkStatus();
}

absl::Status Host::RemoveHook(std::string_view id) {
  absl::MutexLock lock(&impl_->hooks_mu);
  auto& hooks = impl_->native_hooks;
  auto it = std::find_if(hooks.begin(), hooks.end(),
                         [id](const auto& hook) { return hook->id() == id; });
  if (it == hooks.end()) return absl::NotFoundError(StrCat("no native hook with id ", id));
  hooks.erase(it);
  return absl::OkStatus();
}

absl::Status Host::AddOpenCodePlugin(OpenCodePluginOptions plugin) {
  if (plugin.id.empty()) return absl::InvalidArgumentError("an OpenCode plugin needs an id");
  if (!plugin.trigger) {
    return absl::InvalidArgumentError(
        StrCat("OpenCode plugin ", plugin.id, " has no function to run its hooks"));
  }
  if (!plugin.tools.empty() && !plugin.execute_tool) {
    return absl::InvalidArgumentError(
        StrCat("OpenCode plugin ", plugin.id, " has tools but no function to run them"));
  }
  for (const ToolInfo& tool : plugin.tools) {
    if (tool.name.empty()) {
      return absl::InvalidArgumentError(
          StrCat("OpenCode plugin ", plugin.id, " has a tool without a name"));
    }
    if (!tool.parameters_json.empty()) {
      absl::StatusOr<core::Value> schema =
          core::ParseJson(tool.parameters_json, StrCat("tool ", tool.name, " parameters"));
      if (!schema.ok() || !schema->is_object()) {
        return absl::InvalidArgumentError(
            StrCat("OpenCode plugin ", plugin.id, ": the parameters of tool ", tool.name,
                   " are not a JSON Schema object"));
      }
    }
  }
  absl::MutexLock lock(&impl_->hooks_mu);
  if (impl_->HostIdTaken(plugin.id)) {
    return absl::AlreadyExistsError(
        StrCat("a native hook or host OpenCode plugin with id ", plugin.id, " exists"));
  }
  impl_->opencode_plugins.push_back(std::make_shared<core::HostOpenCodePlugin>(std::move(plugin)));
  return absl::OkStatus();
}

absl::Status Host::RemoveOpenCodePlugin(std::string_view id) {
  absl::MutexLock lock(&impl_->hooks_mu);
  auto& plugins = impl_->opencode_plugins;
  auto it = std::find_if(plugins.begin(), plugins.end(),
                         [id](const auto& plugin) { return plugin->id() == id; });
  if (it == plugins.end()) return absl::NotFoundError(StrCat("no host OpenCode plugin with id ", id));
  plugins.erase(it);
  return absl::OkStatus();
}

std::string TriggerResult::ToJson() const {
  core::JsonWriter w;
  w.BeginObject();
  w.Key("name").String(name);
  absl::StatusOr<core::Value> output = core::ParseJson(output_json, "output");
  w.Key("output");
  if (output.ok()) {
    w.Value(*output);
  } else {
    w.Null();
  }
  w.Key("errors").BeginArray();
  for (const Error& e : errors) {
    w.BeginObject().Key("plugin").String(e.plugin).Key("message").String(e.message).EndObject();
  }
  w.EndArray();
  w.Key("plugins").BeginArray();
  for (const PluginRecord& p : plugins) {
    w.BeginObject().Key("plugin").String(p.plugin).Key("ms").Double(p.ms).EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

absl::StatusOr<TriggerResult> Host::Trigger(std::string_view name, std::string_view input_json,
                                            std::string_view output_json) {
  if (name.empty()) return absl::InvalidArgumentError("trigger: the hook name is empty");
  for (auto [what, text] : {std::pair{"input", input_json}, std::pair{"output", output_json}}) {
    absl::StatusOr<core::Value> value = core::ParseJson(text, StrCat("trigger ", name, " ", what));
    if (!value.ok()) return absl::InvalidArgumentError(value.status().message());
    if (!value->is_object()) {
      return absl::InvalidArgumentError(
          StrCat("trigger ", name, ": the ", what, " must be a JSON object"));
    }
  }
  TriggerResult result;
  result.name = std::string(name);
  result.output_json = std::string(output_json);
  for (const auto& plugin : impl_->NamedHooks()) {
    if (!plugin->HasNamedHook(name)) continue;
    const auto start = absl::Now();
    absl::StatusOr<core::NamedHookResult> ran =
        plugin->TriggerNamed(name, input_json, result.output_json);
    result.plugins.push_back(
        {plugin->named_hooks_id(), absl::ToDoubleMilliseconds(absl::Now() - start)});
    // A hook's thrown error goes to the host as it goes to the log: secrets masked.
    if (!ran.ok()) {
      result.errors.push_back(
          {plugin->named_hooks_id(), core::RedactSecrets(ToStd(ran.status().message()))});
    } else {
      result.output_json = std::move(ran->output_json);
      if (!ran->error.empty()) {
        result.errors.push_back({plugin->named_hooks_id(), core::RedactSecrets(ran->error)});
      }
    }
  }
  for (const TriggerResult::Error& error : result.errors) {
    impl_->log->Write("warn", StrCat("plugin ", error.plugin), StrCat(name, ": ", error.message));
  }
  return result;
}

ToolList Host::Tools(const std::vector<std::string>& builtin_tools) {
  // Later plugins win a name; the listing keeps one entry per name, in first-seen order.
  ToolList list;
  for (const auto& provider : impl_->ToolProviders()) {
    for (ToolInfo& tool : provider->Tools()) {
      auto same = std::find_if(list.tools.begin(), list.tools.end(),
                               [&](const ToolInfo& t) { return t.name == tool.name; });
      if (same != list.tools.end()) {
        *same = std::move(tool);
      } else {
        list.tools.push_back(std::move(tool));
      }
    }
  }
  for (ToolInfo& tool : list.tools) {
    tool.overrides_builtin = std::find(builtin_tools.begin(), builtin_tools.end(), tool.name) !=
                             builtin_tools.end();
  }
  return list;
}

std::string Host::ToolsJson(const std::vector<std::string>& builtin_tools) {
  return Tools(builtin_tools).ToJson();
}

std::string ToolList::ToJson() const {
  core::JsonWriter w;
  w.BeginObject().Key("tools").BeginArray();
  for (const ToolInfo& tool : tools) {
    w.BeginObject();
    w.Key("name").String(tool.name);
    w.Key("description").String(tool.description);
    absl::StatusOr<core::Value> parameters = core::ParseJson(tool.parameters_json, "parameters");
    w.Key("parameters");
    if (parameters.ok()) {
      w.Value(*parameters);
    } else {
      w.Null();
    }
    w.Key("plugin").String(tool.plugin);
    w.Key("overrides_builtin").Bool(tool.overrides_builtin);
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

absl::StatusOr<ToolResult> Host::ExecuteTool(std::string_view name, std::string_view args_json,
                                             std::string_view context_json) {
  std::shared_ptr<core::ToolProvider> owner;
  std::string plugin;
  for (const auto& provider : impl_->ToolProviders()) {
    for (const ToolInfo& tool : provider->Tools()) {
      if (tool.name == name) {
        owner = provider;  // the last one wins, as in Tools()
        plugin = tool.plugin;
      }
    }
  }
  if (owner == nullptr) return absl::NotFoundError(StrCat("no plugin tool named ", name));
  absl::StatusOr<ToolResult> result = owner->ExecuteTool(name, args_json, context_json);
  if (!result.ok()) {  // the plugin itself failed (time budget, heap): an error result too
    ToolResult failed;
    failed.error = std::string(result.status().message());
    result = std::move(failed);
  }
  // A tool's thrown error, masked as the log masks it (its output is the tool's answer).
  if (!result->ok) result->error = core::RedactSecrets(result->error);
  result->plugin = plugin;
  if (!result->ok) {
    impl_->log->Write("warn", StrCat("tool ", name), StrCat("failed: ", result->error));
  }
  return result;
}

std::string ToolResult::ToJson() const {
  core::JsonWriter w;
  w.BeginObject();
  w.Key("ok").Bool(ok);
  w.Key("output").String(output);
  w.Key("error");
  if (ok) {
    w.Null();
  } else {
    w.String(error);
  }
  w.Key("title").String(title);
  absl::StatusOr<core::Value> metadata =
      metadata_json.empty() ? absl::StatusOr<core::Value>(core::Value())
                            : core::ParseJson(metadata_json, "metadata");
  w.Key("metadata");
  if (metadata.ok()) {
    w.Value(*metadata);
  } else {
    w.Null();
  }
  w.Key("plugin").String(plugin);
  w.EndObject();
  return w.Take();
}

std::string Host::PluginsJson() { return Plugins().ToJson(); }

std::string PluginList::ToJson() const { return core::PluginListJson(plugins); }

PluginList Host::Plugins() {
  std::vector<core::PluginInfo> infos;
  {
    absl::MutexLock lock(&impl_->mu);
    for (const auto& shaper : impl_->builtins) {
      const core::ShaperMeta& meta = shaper->meta();
      std::string why;
      const bool enabled = impl_->config.plugins.BuiltinEnabled(meta.id, &why);
      core::PluginInfo info;
      info.id = meta.id;
      info.kind = "builtin-shaper";
      info.tier = meta.tier;
      info.state = enabled ? "enabled" : "disabled";
      info.reason = std::move(why);
      info.source = "built-in";
      info.version = meta.version;
      info.description = meta.description;
      infos.push_back(std::move(info));
    }
  }
  for (core::PluginInfo& info : impl_->plugins->List()) {
    // Why a plugin is broken can quote its code or its output (a syntax error's line, a
    // module's throw): masked as the log is.
    info.reason = core::RedactSecrets(info.reason);
    for (std::string& warning : info.warnings) warning = core::RedactSecrets(warning);
    infos.push_back(std::move(info));
  }
  // Where installed plugins came from (a global plugin in <home>/plugins with the record's id).
  {
    absl::StatusOr<std::map<std::string, core::InstallRecord>> installed =
        core::PluginStateStore(impl_->home).Installed(nullptr);
    for (core::PluginInfo& info : infos) {
      if (!installed.ok() || info.source != "global") continue;
      auto record = installed->find(info.id);
      if (record == installed->end()) continue;
      const std::string& path = record->second.path;
      if (info.path == path || info.path.starts_with(path + "/")) info.install = record->second;
    }
  }
  // Statistics are optional here: a malformed stats file must not hide the listing.
  absl::StatusOr<plugline::Stats> stats = Stats();
  for (core::PluginInfo& info : infos) {
    if (info.kind != "builtin-shaper" && info.kind != "js-shaper") continue;
    core::PluginInfo::Stats figures;
    if (stats.ok()) {
      for (const ShaperStats& s : stats->shapers) {
        if (s.id != info.id) continue;
        figures.match_count = s.match_count;
        figures.shape_count = s.shape_count;
        figures.fail_count = s.fail_count;
        figures.tokens_saved = s.tokens_saved;
        figures.average_shape_ms = s.average_shape_ms;
      }
    }
    info.stats = figures;
  }
  absl::MutexLock lock(&impl_->hooks_mu);
  for (const auto& plugin : impl_->opencode_plugins) {
    core::PluginInfo info;
    info.id = plugin->id();
    info.kind = "opencode";
    info.state = "enabled";
    info.source = "host";
    // As for an OpenCode plugin file: its hooks, but not `tool`, `auth` or `provider`.
    for (const std::string& hook : plugin->hooks()) {
      if (hook != "tool" && hook != "auth" && hook != "provider") info.events.push_back(hook);
    }
    infos.push_back(std::move(info));
  }
  for (const auto& hook : impl_->native_hooks) {
    core::PluginInfo info;
    info.id = hook->id();
    info.kind = "native-hook";
    info.state = "enabled";
    info.source = "host";
    info.events = hook->events();
    for (const std::string& event : info.events) {
      if (std::optional<std::string> near = core::NearCanonicalEventWarning(event)) {
        info.warnings.push_back(*std::move(near));
      }
    }
    infos.push_back(std::move(info));
  }
  return PluginList{std::move(infos)};
}

absl::Status Host::SetPluginEnabled(std::string_view id, bool enabled) {
  std::vector<std::string> ids;
  for (const auto& shaper : impl_->builtins) ids.push_back(shaper->meta().id);
  for (const core::PluginInfo& info : impl_->plugins->List()) ids.push_back(info.id);
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
    {
      absl::MutexLock lock(&impl_->hooks_mu);
      if (impl_->HostIdTaken(id)) {
        return absl::InvalidArgumentError(
            StrCat("'", core::EscapeControl(id),
                   "' is the host's own native hook or OpenCode plugin: the host adds and "
                   "removes it"));
      }
    }
    std::vector<std::string_view> known(ids.begin(), ids.end());
    std::optional<std::string_view> near = core::SuggestKnown(id, known);
    return absl::NotFoundError(StrCat("no plugin has the id '", core::EscapeControl(id), "'",
                                      near ? StrCat(" (did you mean '", *near, "'?)") : "",
                                      "; `plugline plugins` lists them"));
  }
  std::vector<std::string> warnings;
  absl::Status status =
      core::PluginStateStore(impl_->home).SetEnabled(id, enabled, absl::Now(), &warnings);
  impl_->Warn("plugins", warnings);
  if (!status.ok()) return status;
  Reload();
  return absl::OkStatus();
}

absl::StatusOr<plugline::Stats> Host::Stats() const {
  std::vector<std::string> warnings;
  absl::StatusOr<core::Value> stats = impl_->stats->Load(&warnings);
  impl_->Warn("stats", warnings);
  if (!stats.ok()) return stats.status();
  return core::StatsFromValue(*stats);
}

absl::StatusOr<std::string> Host::StatsJson() const {
  absl::StatusOr<plugline::Stats> stats = Stats();
  if (!stats.ok()) return stats.status();
  return stats->ToJson();
}

const std::string& Host::home() const { return impl_->home; }
std::vector<std::string> Host::diagnostics() const {
  absl::MutexLock lock(&impl_->mu);
  return impl_->diagnostics;
}

}  // namespace plugline

namespace plugline::internal {

core::CaptureSettings HostAccess::CaptureSettings(Host& host) {
  Host::Impl& impl = *host.impl_;
  absl::MutexLock lock(&impl.mu);
  core::CaptureSettings settings;
  settings.store_outputs = impl.outputs != nullptr;
  if (impl.outputs != nullptr) {
    settings.outputs_dir = impl.outputs->dir();
    settings.retention = impl.outputs->retention();
  }
  settings.window_bytes = impl.config.window_bytes;
  settings.tokenizer = impl.host_counter != nullptr ? "estimate" : impl.config.tokenizer;
  return settings;
}

absl::StatusOr<ShapeResult> HostAccess::ShapeCaptured(Host& host, std::string_view command,
                                                      std::optional<int> exit_code,
                                                      std::string_view shaper,
                                                      const core::CapturedOutput& captured,
                                                      bool queue_stats,
                                                      std::optional<uint64_t> max_tokens) {
  Host::Impl& impl = *host.impl_;
  if (absl::Status checked = CheckShapeArguments(command, max_tokens); !checked.ok()) {
    return checked;
  }
  if (!shaper.empty()) {
    absl::Status known = impl.CheckShaper(shaper);
    if (!known.ok()) return known;
  }
  bool stats_enabled;
  {
    absl::MutexLock lock(&impl.mu);
    stats_enabled = impl.config.stats_enabled;
  }
  return impl.ShapeCaptured(command, exit_code, shaper, captured, captured.text, stats_enabled,
                            queue_stats, max_tokens);
}

void HostAccess::FlushStats(Host& host) { host.impl_->FlushQueuedStats(); }

core::AdapterConfig HostAccess::Adapter(Host& host, std::string_view agent) {
  absl::MutexLock lock(&host.impl_->mu);
  auto it = host.impl_->config.adapters.find(std::string(agent));
  return it != host.impl_->config.adapters.end() ? it->second : core::AdapterConfig{};
}

std::vector<core::WatchedPath> HostAccess::WatchedPaths(Host& host) {
  absl::MutexLock lock(&host.impl_->mu);
  return host.impl_->watched;
}

bool HostAccess::HasJsPlugins(Host& host) {
  return host.impl_->plugins->HasEnabled(core::PluginKind::kJsModule);
}

size_t HostAccess::PluginCount(Host& host) { return host.impl_->plugins->size(); }

}  // namespace plugline::internal

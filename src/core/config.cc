#include "core/config.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/fs.h"
#include "core/json.h"

namespace plugline::core {

std::string ExpandTilde(std::string_view path) {
  if (path != "~" && !path.starts_with("~/")) return std::string(path);
  const char* home = std::getenv("HOME");
  std::string base;
  if (home != nullptr && *home != '\0') {
    base = home;
  } else if (const struct passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir) {
    base = pw->pw_dir;
  }
  return StrCat(base, path.substr(1));
}

absl::StatusOr<std::string> ResolveHome(std::string_view explicit_home) {
  std::string home;
  if (!explicit_home.empty()) {
    home = ExpandTilde(explicit_home);
  } else if (const char* env = std::getenv("PLUGLINE_HOME"); env != nullptr && *env != '\0') {
    home = ExpandTilde(env);
  } else {
    home = ExpandTilde("~/.plugline");
    if (home == "/.plugline") {
      return absl::FailedPreconditionError(
          "cannot find a home directory for ~/.plugline: set PLUGLINE_HOME");
    }
  }
  if (!absl::StartsWith(home, "/")) {
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) != nullptr) home = JoinPath(cwd, home);
  }
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  return home;
}

namespace {

class Reader {
 public:
  Reader(std::string_view source, std::vector<std::string>* diagnostics)
      : source_(source), diagnostics_(diagnostics) {}

  void Problem(std::string_view key, std::string_view what) {
    if (diagnostics_) diagnostics_->push_back(StrCat(source_, ": ", key, ": ", what));
  }

  void UnknownKeys(const Value& object, std::string_view prefix,
                   std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : object.as_object()) {
      bool found = false;
      for (std::string_view k : known) found = found || k == key;
      if (!found) {
        Problem(StrCat(prefix, key), "unknown key (ignored)");
      }
    }
  }

  void Bool(const Value& object, std::string_view key, std::string_view path, bool* out) {
    const Value* v = object.Find(key);
    if (v == nullptr) return;
    if (!v->is_bool()) {
      Problem(path, StrCat("expected true or false, got ", Value::KindName(v->kind())));
      return;
    }
    *out = v->as_bool();
  }

  void Isolation(const Value& object, std::string_view path, bool* process) {
    const Value* v = object.Find("isolation");
    if (v == nullptr) return;
    if (v->is_string() && (v->as_string() == "in-process" || v->as_string() == "process")) {
      *process = v->as_string() == "process";
      return;
    }
    Problem(path, "expected \"in-process\" or \"process\"");
  }

  void Runtime(const Value& object, std::string_view path, JsRuntime* runtime) {
    const Value* v = object.Find("runtime");
    if (v == nullptr) return;
    if (v->is_string()) {
      for (JsRuntime r : {JsRuntime::kAuto, JsRuntime::kNode, JsRuntime::kSandboxed}) {
        if (v->as_string() == JsRuntimeName(r)) {
          *runtime = r;
          return;
        }
      }
    }
    Problem(path, "expected \"auto\", \"node\" or \"sandboxed\"");
  }

  void Count(const Value& object, std::string_view key, std::string_view path, uint64_t scale,
             uint64_t* out) {
    const Value* v = object.Find(key);
    if (v == nullptr) return;
    std::optional<int64_t> i = v->as_integer();
    if (!i || *i < 0) {
      Problem(path, "expected a non-negative integer");
      return;
    }
    if (static_cast<uint64_t>(*i) > UINT64_MAX / scale) {  // the byte count would wrap around
      Problem(path, "too large");
      return;
    }
    *out = static_cast<uint64_t>(*i) * scale;
  }

 private:
  std::string_view source_;
  std::vector<std::string>* diagnostics_;
};

// Applies the keys of a `js` or `overrides.<id>` mapping. `prefix` names it in diagnostics.
// `from_project`: the mapping is in the project's file, which cannot protect a plugin.
void ApplyJsSettings(const Value& object, std::string_view prefix, bool allow_enabled,
                     Reader* reader, JsPluginSettings* settings, bool from_project = false) {
  if (allow_enabled) {
    reader->UnknownKeys(object, prefix,
                        {"enabled", "isolation", "runtime", "match_timeout_ms", "shape_timeout_ms",
                         "load_timeout_ms", "hook_timeout_ms", "heap_limit_mb", "options",
                         "on_error", "protected"});
    reader->Bool(object, "enabled", StrCat(prefix, "enabled"), &settings->enabled);
    if (const Value* on_error = object.Find("on_error"); on_error != nullptr) {
      if (on_error->is_string() &&
          (on_error->as_string() == "open" || on_error->as_string() == "closed")) {
        settings->fail_closed = on_error->as_string() == "closed";
      } else {
        reader->Problem(StrCat(prefix, "on_error"), "expected \"open\" or \"closed\"");
      }
    }
    if (const Value* protect = object.Find("protected"); protect != nullptr) {
      if (from_project) {
        reader->Problem(StrCat(prefix, "protected"),
                        "only the global config can protect a plugin (ignored)");
      } else if (!protect->is_bool()) {
        reader->Problem(StrCat(prefix, "protected"),
                        StrCat("expected true or false, got ", Value::KindName(protect->kind())));
      } else {
        settings->protect = protect->as_bool();
      }
    }
    // An OpenCode plugin's options (its second argument): any mapping.
    if (const Value* options = object.Find("options"); options != nullptr && !options->is_null()) {
      if (options->is_object()) {
        settings->options_json = ToJson(*options);
      } else {
        reader->Problem(StrCat(prefix, "options"), "expected a mapping");
      }
    }
  } else {
    reader->UnknownKeys(object, prefix,
                        {"isolation", "runtime", "match_timeout_ms", "shape_timeout_ms", "load_timeout_ms",
                         "hook_timeout_ms", "heap_limit_mb"});
  }
  reader->Isolation(object, StrCat(prefix, "isolation"), &settings->process_isolation);
  reader->Runtime(object, StrCat(prefix, "runtime"), &settings->runtime);
  reader->Count(object, "match_timeout_ms", StrCat(prefix, "match_timeout_ms"), 1,
                &settings->match_timeout_ms);
  reader->Count(object, "shape_timeout_ms", StrCat(prefix, "shape_timeout_ms"), 1,
                &settings->shape_timeout_ms);
  reader->Count(object, "load_timeout_ms", StrCat(prefix, "load_timeout_ms"), 1,
                &settings->load_timeout_ms);
  reader->Count(object, "hook_timeout_ms", StrCat(prefix, "hook_timeout_ms"), 1,
                &settings->hook_timeout_ms);
  reader->Count(object, "heap_limit_mb", StrCat(prefix, "heap_limit_mb"), 1ull << 20,
                &settings->heap_limit_bytes);
}

}  // namespace

std::string_view JsRuntimeName(JsRuntime runtime) {
  switch (runtime) {
    case JsRuntime::kNode:
      return "node";
    case JsRuntime::kSandboxed:
      return "sandboxed";
    case JsRuntime::kAuto:
      break;
  }
  return "auto";
}

JsPluginSettings PluginsConfig::ForPlugin(std::string_view id, bool protect) const {
  JsPluginSettings settings = protect ? global_js : js;
  Reader quiet("", nullptr);  // problems were reported when the file was read
  for (const ConfigOverride& o : overrides) {
    if (o.id != id) continue;
    const bool from_project = o.source == "project-config";
    if (protect && from_project) continue;
    ApplyJsSettings(o.value, "", true, &quiet, &settings, from_project);
  }
  return settings;
}

bool PluginsConfig::BuiltinEnabled(std::string_view id, std::string* why) const {
  if (auto toggle = toggles.find(std::string(id)); toggle != toggles.end()) {
    if (!toggle->second && why != nullptr) {
      *why = StrCat("disabled by `plugline plugins --disable ", id, "` (", toggles_file, ")");
    }
    return toggle->second;
  }
  const bool enabled = ForPlugin(id).enabled;
  if (!enabled && why != nullptr) {
    *why = StrCat("disabled in config (plugins.overrides.", id, ".enabled: false)");
  }
  return enabled;
}

std::vector<std::string> PluginsConfig::ProjectOverrideKeys(std::string_view id) const {
  std::vector<std::string> keys;
  for (const ConfigOverride& o : overrides) {
    if (o.id != id || o.source != "project-config" || !o.value.is_object()) continue;
    for (const auto& [key, value] : o.value.as_object()) keys.push_back(key);
  }
  return keys;
}

namespace {

// catalog: {url, public_key}, or a list of them.
void ReadCatalogs(const Value& catalog, Reader& reader, std::vector<CatalogSource>* out) {
  std::vector<std::pair<std::string, const Value*>> specs;
  if (catalog.is_array()) {
    for (size_t i = 0; i < catalog.as_array().size(); ++i) {
      specs.emplace_back(StrCat("catalog[", i, "]"), &catalog.as_array()[i]);
    }
  } else {
    specs.emplace_back("catalog", &catalog);
  }
  for (const auto& [path, spec] : specs) {
    if (!spec->is_object()) {
      reader.Problem(path, "expected a mapping with url (and public_key), or a list of them");
      continue;
    }
    reader.UnknownKeys(*spec, StrCat(path, "."), {"url", "public_key"});
    CatalogSource source;
    const Value* url = spec->Find("url");
    if (url == nullptr || !url->is_string()) {
      reader.Problem(StrCat(path, ".url"), "expected the index's URL (https://, http:// or file://)");
      continue;
    }
    source.url = url->as_string();
    const std::string lower = absl::AsciiStrToLower(source.url.substr(0, 8));
    if (!lower.starts_with("https://") && !lower.starts_with("http://") &&
        !lower.starts_with("file://")) {
      reader.Problem(StrCat(path, ".url"), "expected an https://, http:// or file:// URL");
      continue;
    }
    if (const Value* key = spec->Find("public_key"); key != nullptr && !key->is_null()) {
      if (!key->is_string() || key->as_string().empty()) {
        reader.Problem(StrCat(path, ".public_key"),
                       "expected an Ed25519 public key (base64 of 32 bytes, or PEM)");
        continue;  // never fall back to an unsigned catalog the user meant to be signed
      }
      source.public_key = key->as_string();
    }
    out->push_back(std::move(source));
  }
}

}  // namespace

void ApplyConfigText(std::string_view text, std::string_view source, Config* config,
                     std::vector<std::string>* diagnostics, std::string_view base_dir,
                     std::string_view dir_source) {
  absl::StatusOr<Value> doc = ParseYaml(text, source);
  if (!doc.ok()) {
    if (diagnostics) diagnostics->push_back(std::string(doc.status().message()));
    return;
  }
  if (doc->is_null()) return;  // an empty file
  Reader reader(source, diagnostics);
  Reader quiet(source, nullptr);  // a second pass over what `reader` already reported
  const bool from_project = dir_source == "project-config";
  if (from_project) config->plugins.project_file = std::string(source);
  if (!doc->is_object()) {
    reader.Problem("(top level)", StrCat("expected a mapping, got ",
                                               Value::KindName(doc->kind())));
    return;
  }
  reader.UnknownKeys(*doc, "",
                     {"plugins", "outputs", "shaping", "stats", "server", "adapters", "catalog"});
  if (const Value* plugins = doc->Find("plugins"); plugins != nullptr && !plugins->is_null()) {
    if (!plugins->is_object()) {
      reader.Problem("plugins", "expected a mapping");
    } else {
      reader.UnknownKeys(*plugins, "plugins.",
                         {"enabled", "opencode", "dirs", "packages", "js", "overrides"});
      if (from_project && plugins->Find("opencode") != nullptr) {
        reader.Problem("plugins.opencode", "only the global config can turn on OpenCode's "
                                           "plugin locations (ignored)");
      } else {
        reader.Bool(*plugins, "opencode", "plugins.opencode", &config->plugins.opencode);
      }
      reader.Bool(*plugins, "enabled", "plugins.enabled",
                  from_project ? &config->plugins.project_enabled : &config->plugins.enabled);
      if (const Value* dirs = plugins->Find("dirs"); dirs != nullptr) {
        if (!dirs->is_array()) {
          reader.Problem("plugins.dirs", "expected a list of directories");
        } else {
          for (const Value& dir : dirs->as_array()) {
            if (!dir.is_string() || dir.as_string().empty()) {
              reader.Problem("plugins.dirs", "every entry must be a non-empty string");
              continue;
            }
            std::string path = ExpandTilde(dir.as_string());
            if (!path.starts_with("/") && !base_dir.empty()) {
              path = JoinPath(std::string(base_dir), path);
            }
            config->plugins.dirs.push_back({std::move(path), std::string(dir_source)});
          }
        }
      }
      if (const Value* packages = plugins->Find("packages");
          packages != nullptr && !packages->is_null()) {
        if (!packages->is_array()) {
          reader.Problem("plugins.packages", "expected a list of npm package names");
        } else {
          for (const Value& entry : packages->as_array()) {
            // "name" or [name, options], as OpenCode's `plugin` list.
            const Value* name = &entry;
            const Value* options = nullptr;
            if (entry.is_array() && !entry.as_array().empty() && entry.as_array().size() <= 2) {
              name = &entry.as_array()[0];
              if (entry.as_array().size() == 2) options = &entry.as_array()[1];
            }
            if (!name->is_string() || name->as_string().empty()) {
              reader.Problem("plugins.packages",
                             "every entry must be a package name or [name, options]");
              continue;
            }
            if (options != nullptr && !options->is_object() && !options->is_null()) {
              reader.Problem(StrCat("plugins.packages.", name->as_string()),
                             "the options must be a mapping");
              continue;
            }
            config->plugins.packages.push_back(
                {name->as_string(),
                 options != nullptr && options->is_object() ? ToJson(*options) : std::string(),
                 std::string(dir_source)});
          }
        }
      }
      if (const Value* js = plugins->Find("js"); js != nullptr && !js->is_null()) {
        if (!js->is_object()) {
          reader.Problem("plugins.js", "expected a mapping");
        } else {
          ApplyJsSettings(*js, "plugins.js.", false, &reader, &config->plugins.js);
          if (!from_project) {
            ApplyJsSettings(*js, "plugins.js.", false, &quiet, &config->plugins.global_js);
          }
        }
      }
      if (const Value* overrides = plugins->Find("overrides");
          overrides != nullptr && !overrides->is_null()) {
        if (!overrides->is_object()) {
          reader.Problem("plugins.overrides", "expected a mapping of plugin ids");
        } else {
          for (const auto& [id, value] : overrides->as_object()) {
            std::string prefix = StrCat("plugins.overrides.", id, ".");
            if (!value.is_object()) {
              reader.Problem(StrCat("plugins.overrides.", id), "expected a mapping");
              continue;
            }
            JsPluginSettings scratch;  // only to report problems now
            ApplyJsSettings(value, prefix, true, &reader, &scratch, from_project);
            config->plugins.overrides.push_back({id, value, std::string(dir_source)});
          }
        }
      }
    }
  }
  if (const Value* outputs = doc->Find("outputs"); outputs != nullptr && !outputs->is_null()) {
    if (!outputs->is_object()) {
      reader.Problem("outputs", "expected a mapping");
    } else {
      reader.UnknownKeys(*outputs, "outputs.",
                         {"keep_files", "max_total_mb", "max_file_mb", "window_mb"});
      reader.Count(*outputs, "keep_files", "outputs.keep_files", 1,
                   &config->outputs.keep_files);
      reader.Count(*outputs, "max_total_mb", "outputs.max_total_mb", 1ull << 20,
                   &config->outputs.max_total_bytes);
      reader.Count(*outputs, "max_file_mb", "outputs.max_file_mb", 1ull << 20,
                   &config->outputs.max_file_bytes);
      // The window is what plugline holds in memory per output: bounded both ways.
      uint64_t window_mb = config->window_bytes >> 20;
      reader.Count(*outputs, "window_mb", "outputs.window_mb", 1, &window_mb);
      if (window_mb < 1 || window_mb > kMaxWindowMb) {
        reader.Problem("outputs.window_mb", StrCat("expected 1 to ", kMaxWindowMb, " (MiB)"));
      } else {
        config->window_bytes = window_mb << 20;
      }
    }
  }
  if (const Value* shaping = doc->Find("shaping"); shaping != nullptr && !shaping->is_null()) {
    if (!shaping->is_object()) {
      reader.Problem("shaping", "expected a mapping");
    } else {
      reader.UnknownKeys(*shaping, "shaping.", {"max_summary_tokens", "tokenizer"});
      uint64_t budget = config->max_summary_tokens;
      reader.Count(*shaping, "max_summary_tokens", "shaping.max_summary_tokens", 1, &budget);
      if (budget != 0 && budget < kMinSummaryTokens) {
        reader.Problem("shaping.max_summary_tokens",
                       StrCat("expected 0 (no budget) or at least ", kMinSummaryTokens));
      } else {
        config->max_summary_tokens = budget;
      }
      if (const Value* tokenizer = shaping->Find("tokenizer"); tokenizer != nullptr) {
        if (tokenizer->is_string() && IsKnownTokenizer(tokenizer->as_string())) {
          config->tokenizer = tokenizer->as_string();
        } else {
          reader.Problem("shaping.tokenizer",
                         "expected \"o200k_base\", \"cl100k_base\" or \"estimate\"");
        }
      }
    }
  }
  if (const Value* stats = doc->Find("stats"); stats != nullptr && !stats->is_null()) {
    if (!stats->is_object()) {
      reader.Problem("stats", "expected a mapping");
    } else {
      reader.UnknownKeys(*stats, "stats.", {"enabled"});
      reader.Bool(*stats, "enabled", "stats.enabled", &config->stats_enabled);
    }
  }
  if (const Value* catalog = doc->Find("catalog"); catalog != nullptr && !catalog->is_null()) {
    // Where plugins are installed from is the user's choice, not a repository's.
    if (from_project) {
      reader.Problem("catalog", "only the global config.yaml sets this (ignored)");
    } else {
      ReadCatalogs(*catalog, reader, &config->catalogs);
    }
  }
  if (const Value* adapters = doc->Find("adapters"); adapters != nullptr && !adapters->is_null()) {
    // How the user's agents run commands is the user's choice, not a repository's.
    static constexpr std::string_view kAgents[] = {"claude-code", "codex", "gemini", "cursor",
                                                   "copilot"};
    if (from_project) {
      reader.Problem("adapters", "only the global config.yaml sets this (ignored)");
    } else if (!adapters->is_object()) {
      reader.Problem("adapters", "expected a mapping of agent names");
    } else {
      for (const auto& [agent, spec] : adapters->as_object()) {
        const std::string path = StrCat("adapters.", agent);
        if (std::find(std::begin(kAgents), std::end(kAgents), agent) == std::end(kAgents)) {
          reader.Problem(path, "unknown agent (known: claude-code, codex, gemini, cursor, copilot)");
          continue;
        }
        if (!spec.is_object()) {
          reader.Problem(path, "expected a mapping");
          continue;
        }
        reader.UnknownKeys(spec, StrCat(path, "."), {"shaping", "shell_tools"});
        AdapterConfig adapter;
        if (const Value* shaping = spec.Find("shaping"); shaping != nullptr && !shaping->is_null()) {
          const std::string mode = shaping->is_string() ? shaping->as_string() : "";
          if (mode == "auto" || mode == "replace" || mode == "wrap" || mode == "off") {
            adapter.shaping = mode;
          } else {
            reader.Problem(StrCat(path, ".shaping"), "expected auto, replace, wrap or off");
          }
        }
        if (const Value* tools = spec.Find("shell_tools"); tools != nullptr && !tools->is_null()) {
          bool ok = tools->is_array();
          if (ok) {
            for (const Value& tool : tools->as_array()) {
              if (tool.is_string() && !tool.as_string().empty()) {
                adapter.shell_tools.push_back(tool.as_string());
              } else {
                ok = false;
              }
            }
          }
          if (!ok) reader.Problem(StrCat(path, ".shell_tools"), "expected a list of tool names");
        }
        config->adapters[agent] = std::move(adapter);
      }
    }
  }
  if (const Value* server = doc->Find("server"); server != nullptr && !server->is_null()) {
    // How this user's commands run is the user's choice, not a repository's.
    if (from_project) {
      reader.Problem("server", "only the global config.yaml sets this (ignored)");
      return;
    }
    const Value* mode = server->is_object() ? server->Find("mode") : server;
    if (!server->is_object() && !server->is_string()) {
      reader.Problem("server", "expected auto, always, never or a mapping");
    } else if (mode != nullptr) {
      const std::string path = server->is_object() ? "server.mode" : "server";
      if (!mode->is_string()) {
        reader.Problem(path, "expected auto, always or never");
      } else if (mode->as_string() == "auto") {
        config->server.mode = ServerMode::kAuto;
      } else if (mode->as_string() == "always") {
        config->server.mode = ServerMode::kAlways;
      } else if (mode->as_string() == "never") {
        config->server.mode = ServerMode::kNever;
      } else {
        reader.Problem(path, StrCat("expected auto, always or never, got ", mode->as_string()));
      }
    }
    if (server->is_object()) {
      reader.UnknownKeys(*server, "server.", {"mode", "idle_timeout_minutes", "max_rss_mb"});
      uint64_t idle = config->server.idle_timeout_minutes;
      reader.Count(*server, "idle_timeout_minutes", "server.idle_timeout_minutes", 1, &idle);
      if (idle < 1) {
        reader.Problem("server.idle_timeout_minutes", "expected at least 1");
      } else {
        config->server.idle_timeout_minutes = idle;
      }
      uint64_t rss = config->server.max_rss_bytes;
      reader.Count(*server, "max_rss_mb", "server.max_rss_mb", 1ull << 20, &rss);
      if (rss < (64ull << 20)) {
        reader.Problem("server.max_rss_mb", "expected at least 64");
      } else {
        config->server.max_rss_bytes = rss;
      }
    }
  }
}

Config LoadConfig(const std::string& home, const std::string& project_dir,
                  std::vector<std::string>* diagnostics) {
  Config config;
  struct File {
    std::string path;
    std::string base;
    std::string_view source;
  };
  std::vector<File> files = {{JoinPath(home, "config.yaml"), home, "global-config"}};
  if (!project_dir.empty()) {
    files.push_back({JoinPath(project_dir, ".plugline/config.yaml"), project_dir, "project-config"});
  }
  for (const auto& [file, base, source] : files) {
    std::vector<std::string> problems;
    absl::StatusOr<std::string> text = ReadFile(file);
    if (!text.ok()) {
      if (!absl::IsNotFound(text.status())) problems.push_back(std::string(text.status().message()));
    } else {
      ApplyConfigText(*text, file, &config, &problems, base, source);
    }
    if (source == "global-config" && !problems.empty()) config.plugins.global_file_problems = true;
    if (diagnostics) diagnostics->insert(diagnostics->end(), problems.begin(), problems.end());
  }
  return config;
}

}  // namespace plugline::core

// The C ABI (include/plugline/plugline.h) over the C++ API. Every extern "C" body runs
// through Guard(), so no C++ exception crosses the boundary, and every absl::Status becomes a
// plugline_status through one table, StatusToCode().
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "catalog/manager.h"
#include "core/config.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/suggest.h"
#include "absl/time/clock.h"
#include "core/json.h"
#include "core/text.h"
#include "core/hooks.h"
#include "js/runtime.h"
#include "plugline/host.h"
#include "plugline/plugline.h"

struct plugline_config {
  plugline::HostOptions options;
  // Shared by every host created from this config; user_data_free runs when the last owner
  // goes away.
  std::shared_ptr<void> token_user_data;
  std::shared_ptr<void> client_user_data;
};

struct plugline_host {
  std::unique_ptr<plugline::Host> host;
  std::shared_ptr<void> token_user_data;
  std::shared_ptr<void> client_user_data;
};

struct plugline_capture {
  std::unique_ptr<plugline::OutputCapture> capture;
  bool finished = false;
};

struct plugline_reply {
  std::string json;
  bool has_json = false;
};

struct plugline_hook_answer {
  std::string json;          // set by plugline_hook_answer_set
  bool has_json = false;
  std::string failure;       // set by plugline_hook_answer_fail
  std::string invalid;       // why the JSON given to plugline_hook_answer_set was refused
};

using plugline::StrCat;

namespace {

thread_local std::string t_last_error;

// The one table from absl::StatusCode to plugline_status.
plugline_status StatusToCode(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk: return PLUGLINE_OK;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return PLUGLINE_EINVALID;
    case absl::StatusCode::kNotFound: return PLUGLINE_ENOTFOUND;
    case absl::StatusCode::kAlreadyExists: return PLUGLINE_EEXISTS;
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kUnauthenticated: return PLUGLINE_EPERMISSION;
    case absl::StatusCode::kDeadlineExceeded: return PLUGLINE_ETIMEOUT;
    case absl::StatusCode::kResourceExhausted: return PLUGLINE_ERESOURCE;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kUnimplemented: return PLUGLINE_EUNAVAILABLE;
    case absl::StatusCode::kFailedPrecondition: return PLUGLINE_ESTATE;
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kAborted: return PLUGLINE_ECANCELLED;
    case absl::StatusCode::kDataLoss: return PLUGLINE_EIO;
    case absl::StatusCode::kUnknown: return PLUGLINE_EPLUGIN;  // a plugin threw or crashed
    case absl::StatusCode::kInternal:
    default: return PLUGLINE_EINTERNAL;
  }
}

plugline_status Fail(plugline_status code, std::string message) {
  t_last_error = std::move(message);
  return code;
}

plugline_status FromStatus(const absl::Status& status) {
  if (status.ok()) return PLUGLINE_OK;
  return Fail(StatusToCode(status), std::string(status.message()));
}

template <typename Body>
plugline_status Guard(const char* function, Body body) noexcept {
  try {
    t_last_error.clear();
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(PLUGLINE_ERESOURCE, StrCat(function, ": out of memory"));
  } catch (const std::exception& e) {
    return Fail(PLUGLINE_EINTERNAL, StrCat(function, ": internal error: ", e.what()));
  } catch (...) {
    return Fail(PLUGLINE_EINTERNAL, StrCat(function, ": internal error"));
  }
}

// The hosts whose callbacks (native hooks, the client) run on this thread now, innermost last.
thread_local std::vector<const plugline_host*> t_in_callbacks;

// Marks a host's callback as running on this thread while it lives.
class CallbackScope {
 public:
  explicit CallbackScope(const plugline_host* host) { t_in_callbacks.push_back(host); }
  ~CallbackScope() { t_in_callbacks.pop_back(); }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;
};

bool InCallbackOf(const plugline_host* host) {
  return std::find(t_in_callbacks.begin(), t_in_callbacks.end(), host) != t_in_callbacks.end();
}

plugline_status Reentered(const char* function) {
  return Fail(PLUGLINE_ESTATE,
              StrCat(function, ": called from inside one of this host's own callbacks (a native "
                               "hook, an OpenCode plugin or the client), which would re-enter the call that is "
                               "running it; answer first, and call the host afterwards"));
}

plugline_status NullArgument(const char* function, const char* name) {
  return Fail(PLUGLINE_EINVALID, StrCat(function, ": ", name, " must not be NULL"));
}

// A callback's user data, released with `user_data_free` (may be null) when the last owner
// (config, host, hook) lets go of it.
std::shared_ptr<void> OwnUserData(void* user_data, void (*user_data_free)(void*)) {
  return std::shared_ptr<void>(user_data, [user_data_free](void* p) {
    if (user_data_free != nullptr) user_data_free(p);
  });
}

// Copies `text` into a malloc'ed, NUL-terminated buffer the caller frees with plugline_free.
plugline_status ReturnBuffer(const std::string& text, char** out, size_t* out_len) {
  char* buffer = static_cast<char*>(std::malloc(text.size() + 1));
  if (buffer == nullptr) return Fail(PLUGLINE_ERESOURCE, "out of memory");
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  *out = buffer;
  if (out_len != nullptr) *out_len = text.size();
  return PLUGLINE_OK;
}

// A list of names given as text: a JSON array of strings (["pre_tool_call","turn_end"]), or
// the comma-separated form of ABI version 1 ("pre_tool_call,turn_end"), still read. `what`
// names the argument in errors. Surrounding spaces are trimmed; empty names are dropped.
absl::StatusOr<std::vector<std::string>> ReadNameList(std::string_view text,
                                                      std::string_view what) {
  std::vector<std::string> names;
  const std::string_view trimmed = plugline::ToStd(absl::StripLeadingAsciiWhitespace(
      plugline::ToAbsl(text)));
  if (!trimmed.starts_with('[')) {
    for (absl::string_view name : absl::StrSplit(plugline::ToAbsl(text), ',',
                                                 absl::SkipWhitespace())) {
      names.push_back(std::string(absl::StripAsciiWhitespace(name)));
    }
    return names;
  }
  absl::StatusOr<plugline::core::Value> list = plugline::core::ParseJson(text, what);
  if (!list.ok()) return list.status();
  if (!list->is_array()) {
    return absl::InvalidArgumentError(StrCat(what, ": not a JSON array of names"));
  }
  for (const plugline::core::Value& item : list->as_array()) {
    if (!item.is_string()) {
      return absl::InvalidArgumentError(StrCat(what, ": every item must be a string, not ",
                                               plugline::core::Value::KindName(item.kind())));
    }
    std::string name(absl::StripAsciiWhitespace(item.as_string()));
    if (!name.empty()) names.push_back(std::move(name));
  }
  return names;
}

// A callback's failure: the JSON string it replied, else `fallback`.
absl::Status CallbackFailure(const plugline_reply& reply, std::string fallback) {
  if (reply.has_json) {
    absl::StatusOr<plugline::core::Value> value = plugline::core::ParseJson(reply.json, "reply");
    if (value.ok() && value->is_string()) return absl::UnknownError(value->as_string());
  }
  return absl::UnknownError(fallback);
}

// The tools of plugline_opencode_plugin_options: [{"name", "description", "parameters"}].
absl::StatusOr<std::vector<plugline::ToolInfo>> ReadTools(std::string_view text,
                                                         std::string_view where) {
  absl::StatusOr<plugline::core::Value> value = plugline::core::ParseJson(text, where);
  if (!value.ok()) return absl::InvalidArgumentError(value.status().message());
  if (!value->is_array()) return absl::InvalidArgumentError(StrCat(where, " must be a JSON array"));
  std::vector<plugline::ToolInfo> tools;
  for (const plugline::core::Value& entry : value->as_array()) {
    const plugline::core::Value* name = entry.is_object() ? entry.Find("name") : nullptr;
    if (name == nullptr || !name->is_string()) {
      return absl::InvalidArgumentError(
          StrCat(where, ": each tool must be an object with a string \"name\""));
    }
    plugline::ToolInfo tool;
    tool.name = name->as_string();
    if (const plugline::core::Value* d = entry.Find("description"); d != nullptr && d->is_string()) {
      tool.description = d->as_string();
    }
    if (const plugline::core::Value* p = entry.Find("parameters"); p != nullptr && !p->is_null()) {
      tool.parameters_json = plugline::core::ToJson(*p);
    }
    tools.push_back(std::move(tool));
  }
  return tools;
}

}  // namespace

extern "C" {

const char* plugline_status_str(int status) {
  switch (status) {
    case PLUGLINE_OK: return "PLUGLINE_OK";
    case PLUGLINE_EINVALID: return "PLUGLINE_EINVALID";
    case PLUGLINE_ENOTFOUND: return "PLUGLINE_ENOTFOUND";
    case PLUGLINE_EEXISTS: return "PLUGLINE_EEXISTS";
    case PLUGLINE_EPERMISSION: return "PLUGLINE_EPERMISSION";
    case PLUGLINE_ETIMEOUT: return "PLUGLINE_ETIMEOUT";
    case PLUGLINE_ERESOURCE: return "PLUGLINE_ERESOURCE";
    case PLUGLINE_EUNAVAILABLE: return "PLUGLINE_EUNAVAILABLE";
    case PLUGLINE_ESTATE: return "PLUGLINE_ESTATE";
    case PLUGLINE_ECANCELLED: return "PLUGLINE_ECANCELLED";
    case PLUGLINE_EIO: return "PLUGLINE_EIO";
    case PLUGLINE_EINTERNAL: return "PLUGLINE_EINTERNAL";
    case PLUGLINE_EPLUGIN: return "PLUGLINE_EPLUGIN";
    default: return "PLUGLINE_UNKNOWN";
  }
}

const char* plugline_last_error_message(void) { return t_last_error.c_str(); }

int plugline_version_major(void) { return PLUGLINE_VERSION_MAJOR; }
int plugline_version_minor(void) { return PLUGLINE_VERSION_MINOR; }
int plugline_version_patch(void) { return PLUGLINE_VERSION_PATCH; }
const char* plugline_version_string(void) {
  static const std::string version(plugline::VersionString());
  return version.c_str();
}
int plugline_abi_version(void) { return PLUGLINE_ABI_VERSION; }

void plugline_free(void* buffer) { std::free(buffer); }

plugline_status plugline_config_new(plugline_config** out) {
  return Guard(__func__, [&] {
    if (out == nullptr) return NullArgument(__func__, "out");
    *out = new plugline_config();
    return PLUGLINE_OK;
  });
}

void plugline_config_free(plugline_config* config) { delete config; }

plugline_status plugline_config_set_home(plugline_config* config, const char* path) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    config->options.home = path == nullptr ? "" : path;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_project_dir(plugline_config* config, const char* path) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    config->options.project_dir = path == nullptr ? "" : path;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_project_trust(plugline_config* config, int trust) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    switch (trust) {
      case PLUGLINE_PROJECT_TRUST_STORE:
        config->options.project_trust = plugline::ProjectTrust::kStore;
        return PLUGLINE_OK;
      case PLUGLINE_PROJECT_TRUST_TRUSTED:
        config->options.project_trust = plugline::ProjectTrust::kTrusted;
        return PLUGLINE_OK;
      case PLUGLINE_PROJECT_TRUST_UNTRUSTED:
        config->options.project_trust = plugline::ProjectTrust::kUntrusted;
        return PLUGLINE_OK;
      default:
        return Fail(PLUGLINE_EINVALID,
                    StrCat(__func__, ": trust must be PLUGLINE_PROJECT_TRUST_STORE, _TRUSTED or "
                                     "_UNTRUSTED, not ", trust));
    }
  });
}

plugline_status plugline_config_set_store_outputs(plugline_config* config, int enabled) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    config->options.store_outputs = enabled != 0;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_record_stats(plugline_config* config, int enabled) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    config->options.record_stats = enabled != 0;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_token_counter(plugline_config* config,
                                                  plugline_token_count_fn fn, void* user_data,
                                                  void (*user_data_free)(void*)) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    if (fn == nullptr) {
      config->options.token_counter = nullptr;
      config->token_user_data.reset();
      if (user_data_free != nullptr && user_data != nullptr) user_data_free(user_data);
      return PLUGLINE_OK;
    }
    std::shared_ptr<void> owned = OwnUserData(user_data, user_data_free);
    config->token_user_data = owned;
    // The function holds the user data alive as long as any host uses it.
    config->options.token_counter = [fn, owned](std::string_view text) -> uint64_t {
      return fn(text.data(), text.size(), owned.get());
    };
    return PLUGLINE_OK;
  });
}

plugline_status plugline_host_new(plugline_host** out, const plugline_config* config) {
  return Guard(__func__, [&] {
    if (out == nullptr) return NullArgument(__func__, "out");
    plugline::HostOptions options = config != nullptr ? config->options : plugline::HostOptions();
    // The client knows its host once it exists: a call into that host from the client is refused.
    auto self = std::make_shared<const plugline_host*>(nullptr);
    if (options.client) {
      options.client = [inner = std::move(options.client), self](std::string_view path,
                                                                 std::string_view args) {
        CallbackScope scope(*self);
        return inner(path, args);
      };
    }
    absl::StatusOr<std::unique_ptr<plugline::Host>> host =
        plugline::Host::Create(std::move(options));
    if (!host.ok()) return FromStatus(host.status());
    auto* handle = new plugline_host();
    *self = handle;
    handle->host = *std::move(host);
    if (config != nullptr) {
      handle->token_user_data = config->token_user_data;
      handle->client_user_data = config->client_user_data;
    }
    *out = handle;
    return PLUGLINE_OK;
  });
}

void plugline_host_free(plugline_host* host) { delete host; }

plugline_status plugline_host_diagnostics(char** out_json, size_t* out_len, plugline_host* host) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    plugline::core::JsonWriter writer;
    writer.BeginArray();
    for (const std::string& message : host->host->diagnostics()) writer.String(message);
    writer.EndArray();
    return ReturnBuffer(writer.str(), out_json, out_len);
  });
}

plugline_status plugline_host_stats(char** out_json, size_t* out_len, plugline_host* host) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    absl::StatusOr<std::string> stats = host->host->StatsJson();
    if (!stats.ok()) return FromStatus(stats.status());
    return ReturnBuffer(*stats, out_json, out_len);
  });
}

plugline_status plugline_host_plugins(char** out_json, size_t* out_len, plugline_host* host) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    return ReturnBuffer(host->host->PluginsJson(), out_json, out_len);
  });
}

namespace {

// The catalogs of the host's home, as its global config.yaml names them. (Out parameters:
// this file's functions have C linkage, which cannot return a C++ type.)
void Catalogs(plugline_host* host, std::optional<plugline::catalog::CatalogManager>* out) {
  plugline::core::Config config = plugline::core::LoadConfig(host->host->home(), "", nullptr);
  out->emplace(host->host->home(), config.catalogs);
}

void Progress(plugline_progress_fn progress, void* user_data, plugline::catalog::ProgressFn* out) {
  if (progress == nullptr) return;
  *out = [progress, user_data](std::string_view url, uint64_t received, uint64_t total) {
    const std::string text(url);
    progress(user_data, text.c_str(), received, total);
  };
}

plugline_status CheckId(const char* function, const char* id) {
  if (id == nullptr) return NullArgument(function, "id");
  if (!plugline::core::IsValidUtf8(id)) return Fail(PLUGLINE_EINVALID, StrCat(function, ": id is not UTF-8"));
  return PLUGLINE_OK;
}

}  // namespace

plugline_status plugline_plugins_list(char** out_json, size_t* out_len, plugline_host* host) {
  return plugline_host_plugins(out_json, out_len, host);
}

plugline_status plugline_plugins_info(char** out_json, size_t* out_len, plugline_host* host,
                                      const char* id) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (plugline_status bad = CheckId(__func__, id); bad != PLUGLINE_OK) return bad;
    absl::StatusOr<plugline::core::Value> listing = plugline::core::ParseJson(host->host->PluginsJson(), "plugins");
    if (!listing.ok()) return FromStatus(listing.status());
    plugline::core::JsonWriter w;
    w.BeginObject().Key("plugins").BeginArray();
    std::vector<std::string> ids;
    bool found = false;
    for (const plugline::core::Value& p : listing->Find("plugins")->as_array()) {
      const plugline::core::Value* pid = p.Find("id");
      if (pid == nullptr || !pid->is_string()) continue;
      ids.push_back(pid->as_string());
      if (pid->as_string() != id) continue;
      found = true;
      w.Value(p);
    }
    w.EndArray().EndObject();
    if (!found) {
      std::vector<std::string_view> known(ids.begin(), ids.end());
      std::optional<std::string_view> near = plugline::core::SuggestKnown(id, known);
      return Fail(PLUGLINE_ENOTFOUND,
                  StrCat("no plugin has the id '", plugline::core::EscapeControl(id), "'",
                         near ? StrCat(" (did you mean '", *near, "'?)") : ""));
    }
    return ReturnBuffer(w.str(), out_json, out_len);
  });
}

plugline_status plugline_plugins_enable(plugline_host* host, const char* id) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (plugline_status bad = CheckId(__func__, id); bad != PLUGLINE_OK) return bad;
    return FromStatus(host->host->SetPluginEnabled(id, true));
  });
}

plugline_status plugline_plugins_disable(plugline_host* host, const char* id) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (plugline_status bad = CheckId(__func__, id); bad != PLUGLINE_OK) return bad;
    return FromStatus(host->host->SetPluginEnabled(id, false));
  });
}

plugline_status plugline_plugins_sync(char** out_json, size_t* out_len, plugline_host* host,
                                      plugline_progress_fn progress, void* user_data) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    std::optional<plugline::catalog::CatalogManager> catalogs;
    Catalogs(host, &catalogs);
    plugline::catalog::ProgressFn report;
    Progress(progress, user_data, &report);
    std::vector<plugline::catalog::SyncReport> reports = catalogs->Sync(report);
    return ReturnBuffer(plugline::catalog::SyncReportsJson(reports), out_json, out_len);
  });
}

plugline_status plugline_plugins_available(char** out_json, size_t* out_len, plugline_host* host) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    std::optional<plugline::catalog::CatalogManager> catalogs;
    Catalogs(host, &catalogs);
    plugline::catalog::Availability offer = catalogs->Available("", nullptr);
    return ReturnBuffer(plugline::catalog::AvailabilityJson(offer, absl::Now()), out_json, out_len);
  });
}

plugline_status plugline_plugins_install(char** out_json, size_t* out_len, plugline_host* host,
                                         const char* id, const char* version,
                                         plugline_progress_fn progress, void* user_data) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (plugline_status bad = CheckId(__func__, id); bad != PLUGLINE_OK) return bad;
    std::optional<plugline::catalog::CatalogManager> catalogs;
    Catalogs(host, &catalogs);
    plugline::catalog::ProgressFn report;
    Progress(progress, user_data, &report);
    absl::StatusOr<plugline::catalog::InstallOutcome> outcome =
        catalogs->Install(id, version != nullptr ? version : "", report);
    if (!outcome.ok()) return FromStatus(outcome.status());
    host->host->Reload();
    return ReturnBuffer(plugline::catalog::InstallRecordJson(id, outcome->record, outcome->previous_version),
                        out_json, out_len);
  });
}

plugline_status plugline_plugins_remove(char** out_json, size_t* out_len, plugline_host* host,
                                        const char* id) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (plugline_status bad = CheckId(__func__, id); bad != PLUGLINE_OK) return bad;
    std::optional<plugline::catalog::CatalogManager> catalogs;
    Catalogs(host, &catalogs);
    absl::StatusOr<plugline::core::InstallRecord> removed = catalogs->Remove(id);
    if (!removed.ok()) return FromStatus(removed.status());
    host->host->Reload();
    return ReturnBuffer(plugline::catalog::InstallRecordJson(id, *removed, ""), out_json, out_len);
  });
}

plugline_status plugline_host_reload(plugline_host* host) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    host->host->Reload();
    return PLUGLINE_OK;
  });
}

namespace {

// The shaper and budget a caller's plugline_shape_options set; fields beyond its struct_size
// are unset.
struct ShapeOptionValues {
  std::string_view shaper;
  std::optional<uint64_t> max_tokens;
};
// (An out parameter: this file's functions have C linkage, which cannot return a C++ type.)
void ReadShapeOptions(const plugline_shape_options* options, ShapeOptionValues* out) {
  ShapeOptionValues& values = *out;
  values = ShapeOptionValues();
  if (options == nullptr) return;
  auto covers = [&](size_t offset, size_t size) { return options->struct_size >= offset + size; };
  if (covers(offsetof(plugline_shape_options, shaper), sizeof(char*)) &&
      options->shaper != nullptr) {
    values.shaper = options->shaper;
  }
  if (covers(offsetof(plugline_shape_options, max_tokens), sizeof(uint64_t)) &&
      options->max_tokens != 0) {
    values.max_tokens =
        options->max_tokens == PLUGLINE_NO_TOKEN_BUDGET ? 0 : options->max_tokens;
  }
}

}  // namespace

plugline_status plugline_host_shape(char** out_json, size_t* out_len, plugline_host* host,
                                    const char* command, size_t command_len, const char* output,
                                    size_t output_len, int exit_code,
                                    const plugline_shape_options* options) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (command == nullptr && command_len != 0) return NullArgument(__func__, "command");
    if (output == nullptr && output_len != 0) return NullArgument(__func__, "output");
    plugline::ShapeRequest request;
    request.command = std::string_view(command == nullptr ? "" : command, command_len);
    request.output = std::string_view(output == nullptr ? "" : output, output_len);
    if (exit_code != PLUGLINE_EXIT_CODE_UNKNOWN) request.exit_code = exit_code;
    ShapeOptionValues values;
    ReadShapeOptions(options, &values);
    request.shaper = values.shaper;
    request.max_tokens = values.max_tokens;
    absl::StatusOr<plugline::ShapeResult> result = host->host->Shape(request);
    if (!result.ok()) return FromStatus(result.status());
    return ReturnBuffer(result->ToJson(), out_json, out_len);
  });
}

plugline_status plugline_capture_new(plugline_capture** out, plugline_host* host) {
  return Guard(__func__, [&] {
    if (out == nullptr) return NullArgument(__func__, "out");
    *out = nullptr;
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    auto capture = std::make_unique<plugline_capture>();
    capture->capture = host->host->StartCapture();
    *out = capture.release();
    return PLUGLINE_OK;
  });
}

plugline_status plugline_capture_append(plugline_capture* capture, const char* data, size_t len) {
  return Guard(__func__, [&] {
    if (capture == nullptr) return NullArgument(__func__, "capture");
    if (data == nullptr && len != 0) return NullArgument(__func__, "data");
    if (capture->finished) {
      return FromStatus(absl::FailedPreconditionError(
          "plugline_capture_append: the capture was already finished"));
    }
    capture->capture->Append(std::string_view(data == nullptr ? "" : data, len));
    return PLUGLINE_OK;
  });
}

plugline_status plugline_capture_finish(char** out_json, size_t* out_len,
                                        plugline_capture* capture, const char* command,
                                        size_t command_len, int exit_code,
                                        const plugline_shape_options* options) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (capture == nullptr) return NullArgument(__func__, "capture");
    if (command == nullptr && command_len != 0) return NullArgument(__func__, "command");
    std::optional<int> code;
    if (exit_code != PLUGLINE_EXIT_CODE_UNKNOWN) code = exit_code;
    ShapeOptionValues values;
    ReadShapeOptions(options, &values);
    absl::StatusOr<plugline::ShapeResult> result = capture->capture->Finish(
        std::string_view(command == nullptr ? "" : command, command_len), code, values.shaper,
        values.max_tokens);
    if (!result.ok()) return FromStatus(result.status());
    capture->finished = true;
    return ReturnBuffer(result->ToJson(), out_json, out_len);
  });
}

void plugline_capture_free(plugline_capture* capture) { delete capture; }

plugline_status plugline_host_dispatch(char** out_json, size_t* out_len, plugline_host* host,
                                       const char* event, const char* payload_json,
                                       size_t payload_len) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (event == nullptr) return NullArgument(__func__, "event");
    if (payload_json == nullptr) return NullArgument(__func__, "payload_json");
    absl::StatusOr<plugline::DispatchResult> result =
        host->host->Dispatch(event, std::string_view(payload_json, payload_len));
    if (!result.ok()) return FromStatus(result.status());
    return ReturnBuffer(result->ToJson(), out_json, out_len);
  });
}

plugline_status plugline_hook_answer_set(plugline_hook_answer* answer, const char* answer_json,
                                         size_t len) {
  return Guard(__func__, [&] {
    if (answer == nullptr) return NullArgument(__func__, "answer");
    if (answer_json == nullptr) return NullArgument(__func__, "answer_json");
    std::string_view text(answer_json, len);
    absl::StatusOr<plugline::HookAnswer> parsed = plugline::core::ParseHookAnswer(text, "answer");
    if (!parsed.ok()) {
      answer->invalid = std::string(parsed.status().message());
      return Fail(PLUGLINE_EINVALID, StrCat(__func__, ": ", answer->invalid));
    }
    answer->json = std::string(text);
    answer->has_json = true;
    answer->invalid.clear();
    return PLUGLINE_OK;
  });
}

plugline_status plugline_hook_answer_fail(plugline_hook_answer* answer, const char* message) {
  return Guard(__func__, [&] {
    if (answer == nullptr) return NullArgument(__func__, "answer");
    answer->failure = message == nullptr ? "" : message;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_host_add_hook(plugline_host* host, const plugline_hook_options* options,
                                       plugline_hook_fn fn, void* user_data,
                                       void (*user_data_free)(void*)) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (options == nullptr) return NullArgument(__func__, "options");
    if (fn == nullptr) return NullArgument(__func__, "fn");
    auto covers = [&](size_t offset, size_t size) { return options->struct_size >= offset + size; };
    plugline::NativeHookOptions hook;
    if (covers(offsetof(plugline_hook_options, id), sizeof(char*)) && options->id != nullptr) {
      hook.id = options->id;
    }
    if (hook.id.empty()) return Fail(PLUGLINE_EINVALID, StrCat(__func__, ": the id is empty"));
    if (covers(offsetof(plugline_hook_options, events), sizeof(char*)) &&
        options->events != nullptr) {
      absl::StatusOr<std::vector<std::string>> events =
          ReadNameList(options->events, StrCat(__func__, ": events"));
      if (!events.ok()) return FromStatus(events.status());
      hook.events = *std::move(events);
    }
    if (covers(offsetof(plugline_hook_options, fail_closed), sizeof(int))) {
      hook.fail_closed = options->fail_closed != 0;
    }
    // user_data is released with the hook (removal or the host's end), not on failure here.
    auto owned = std::make_shared<std::unique_ptr<void, void (*)(void*)>>(
        std::unique_ptr<void, void (*)(void*)>(nullptr, +[](void*) {}));
    const std::string id = hook.id;
    hook.function = [fn, user_data, owned, id, host](std::string_view event,
                                                     std::string_view payload)
        -> absl::StatusOr<plugline::HookAnswer> {
      CallbackScope scope(host);
      plugline_hook_answer answer;
      const std::string event_text(event);  // NUL-terminated for C
      const std::string payload_text(payload);
      int rc = fn(event_text.c_str(), payload_text.c_str(), payload_text.size(), &answer,
                  user_data);
      if (rc != 0) {
        // A hook that fails because plugline_hook_answer_set refused its answer: say why.
        if (answer.failure.empty() && !answer.invalid.empty()) {
          return absl::InvalidArgumentError(
              StrCat("native hook ", id, " answered: ", answer.invalid));
        }
        return absl::UnknownError(answer.failure.empty()
                                      ? StrCat("native hook ", id, " returned ", rc)
                                      : answer.failure);
      }
      if (!answer.invalid.empty()) {
        return absl::InvalidArgumentError(StrCat("native hook ", id, " answered: ", answer.invalid));
      }
      if (!answer.has_json) return plugline::HookAnswer{};
      return plugline::core::ParseHookAnswer(answer.json, "answer");
    };
    absl::Status added = host->host->AddHook(std::move(hook));
    if (!added.ok()) return FromStatus(added);
    if (user_data_free != nullptr) {
      *owned = std::unique_ptr<void, void (*)(void*)>(user_data, user_data_free);
    }
    return PLUGLINE_OK;
  });
}

plugline_status plugline_host_remove_hook(plugline_host* host, const char* id) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (id == nullptr) return NullArgument(__func__, "id");
    return FromStatus(host->host->RemoveHook(id));
  });
}

plugline_status plugline_host_trigger(char** out_json, size_t* out_len, plugline_host* host,
                                      const char* name, const char* input_json, size_t input_len,
                                      const char* output_json, size_t output_len) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (name == nullptr) return NullArgument(__func__, "name");
    if (input_json == nullptr) return NullArgument(__func__, "input_json");
    if (output_json == nullptr) return NullArgument(__func__, "output_json");
    absl::StatusOr<plugline::TriggerResult> result =
        host->host->Trigger(name, std::string_view(input_json, input_len),
                            std::string_view(output_json, output_len));
    if (!result.ok()) return FromStatus(result.status());
    return ReturnBuffer(result->ToJson(), out_json, out_len);
  });
}

plugline_status plugline_host_tools(char** out_json, size_t* out_len, plugline_host* host,
                                    const char* builtin_tools) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    std::vector<std::string> names;
    if (builtin_tools != nullptr) {
      absl::StatusOr<std::vector<std::string>> listed =
          ReadNameList(builtin_tools, StrCat(__func__, ": builtin_tools"));
      if (!listed.ok()) return FromStatus(listed.status());
      names = *std::move(listed);
    }
    return ReturnBuffer(host->host->ToolsJson(names), out_json, out_len);
  });
}

plugline_status plugline_host_execute_tool(char** out_json, size_t* out_len, plugline_host* host,
                                           const char* name, const char* args_json,
                                           size_t args_len, const char* context_json,
                                           size_t context_len) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (name == nullptr) return NullArgument(__func__, "name");
    std::string_view args = args_json == nullptr ? "{}" : std::string_view(args_json, args_len);
    std::string_view context =
        context_json == nullptr ? "{}" : std::string_view(context_json, context_len);
    for (auto [what, text] : {std::pair{"args_json", args}, std::pair{"context_json", context}}) {
      absl::StatusOr<plugline::core::Value> value = plugline::core::ParseJson(text, what);
      if (!value.ok()) return FromStatus(value.status());
      if (!value->is_object()) {
        return Fail(PLUGLINE_EINVALID, StrCat(__func__, ": ", what, " must be a JSON object"));
      }
    }
    absl::StatusOr<plugline::ToolResult> result = host->host->ExecuteTool(name, args, context);
    if (!result.ok()) return FromStatus(result.status());
    return ReturnBuffer(result->ToJson(), out_json, out_len);
  });
}


plugline_status plugline_host_add_opencode_plugin(plugline_host* host,
                                                  const plugline_opencode_plugin_options* options,
                                                  plugline_named_hook_fn hook_fn,
                                                  plugline_tool_fn tool_fn, void* user_data,
                                                  void (*user_data_free)(void*)) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (options == nullptr) return NullArgument(__func__, "options");
    if (hook_fn == nullptr) return NullArgument(__func__, "hook_fn");
    auto covers = [&](size_t offset, size_t size) { return options->struct_size >= offset + size; };
    plugline::OpenCodePluginOptions plugin;
    if (covers(offsetof(plugline_opencode_plugin_options, id), sizeof(char*)) &&
        options->id != nullptr) {
      plugin.id = options->id;
    }
    if (plugin.id.empty()) return Fail(PLUGLINE_EINVALID, StrCat(__func__, ": the id is empty"));
    if (covers(offsetof(plugline_opencode_plugin_options, hooks), sizeof(char*)) &&
        options->hooks != nullptr) {
      absl::StatusOr<std::vector<std::string>> hooks =
          ReadNameList(options->hooks, StrCat(__func__, ": hooks"));
      if (!hooks.ok()) return FromStatus(hooks.status());
      plugin.hooks = *std::move(hooks);
    }
    if (covers(offsetof(plugline_opencode_plugin_options, tools), sizeof(char*)) &&
        options->tools != nullptr && *options->tools != '\0') {
      absl::StatusOr<std::vector<plugline::ToolInfo>> tools =
          ReadTools(options->tools, StrCat(__func__, ": tools"));
      if (!tools.ok()) return FromStatus(tools.status());
      plugin.tools = *std::move(tools);
    }
    if (covers(offsetof(plugline_opencode_plugin_options, fail_closed), sizeof(int))) {
      plugin.fail_closed = options->fail_closed != 0;
    }
    if (!plugin.tools.empty() && tool_fn == nullptr) {
      return Fail(PLUGLINE_EINVALID,
                  StrCat(__func__, ": plugin ", plugin.id, " has tools but tool_fn is NULL"));
    }
    // user_data is released with the plugin (removal or the host's end), not on failure here.
    auto owned = std::make_shared<std::unique_ptr<void, void (*)(void*)>>(
        std::unique_ptr<void, void (*)(void*)>(nullptr, +[](void*) {}));
    const std::string id = plugin.id;
    plugin.trigger = [hook_fn, user_data, owned, id, host](
                         std::string_view name, std::string_view input,
                         std::string_view output) -> absl::StatusOr<plugline::NamedHookRun> {
      CallbackScope scope(host);
      plugline_reply reply;
      const std::string name_text(name), input_text(input), output_text(output);
      int rc = hook_fn(name_text.c_str(), input_text.c_str(), input_text.size(),
                       output_text.c_str(), output_text.size(), &reply, user_data);
      if (rc != 0) return CallbackFailure(reply, StrCat("OpenCode plugin ", id, " returned ", rc));
      plugline::NamedHookRun run{output_text, ""};
      if (!reply.has_json) return run;
      absl::StatusOr<plugline::core::Value> value =
          plugline::core::ParseJson(reply.json, StrCat(id, " reply"));
      if (!value.ok() || !value->is_object()) {
        return absl::InvalidArgumentError(
            StrCat("OpenCode plugin ", id, " replied to ", name_text,
                   " with something other than {\"output\": …}"));
      }
      if (const plugline::core::Value* out = value->Find("output"); out != nullptr) {
        run.output_json = plugline::core::ToJson(*out);
      }
      if (const plugline::core::Value* error = value->Find("error");
          error != nullptr && !error->is_null()) {
        run.error = error->is_string() ? error->as_string() : plugline::core::ToJson(*error);
        if (run.error.empty()) run.error = "the hook threw";
      }
      return run;
    };
    if (tool_fn != nullptr) {
      plugin.execute_tool = [tool_fn, user_data, owned, id, host](
                                std::string_view name, std::string_view args,
                                std::string_view context) -> absl::StatusOr<plugline::ToolResult> {
        CallbackScope scope(host);
        plugline_reply reply;
        const std::string name_text(name), args_text(args), context_text(context);
        int rc = tool_fn(name_text.c_str(), args_text.c_str(), args_text.size(),
                         context_text.c_str(), context_text.size(), &reply, user_data);
        if (rc != 0) return CallbackFailure(reply, StrCat("OpenCode plugin ", id, " returned ", rc));
        absl::StatusOr<plugline::core::Value> value =
            plugline::core::ParseJson(reply.has_json ? reply.json : "null", StrCat(id, " reply"));
        if (!value.ok() || !value->is_object()) {
          return absl::InvalidArgumentError(StrCat("OpenCode plugin ", id, " replied to tool ",
                                                   name_text, " with something other than an object"));
        }
        auto text = [&](std::string_view key) {
          const plugline::core::Value* v = value->Find(key);
          return v != nullptr && v->is_string() ? v->as_string() : std::string();
        };
        plugline::ToolResult result;
        const plugline::core::Value* ok = value->Find("ok");
        result.ok = ok != nullptr && ok->is_bool() && ok->as_bool();
        result.output = text("output");
        result.error = text("error");
        result.title = text("title");
        if (const plugline::core::Value* m = value->Find("metadata"); m != nullptr && !m->is_null()) {
          result.metadata_json = plugline::core::ToJson(*m);
        }
        return result;
      };
    }
    absl::Status added = host->host->AddOpenCodePlugin(std::move(plugin));
    if (!added.ok()) return FromStatus(added);
    if (user_data_free != nullptr) {
      *owned = std::unique_ptr<void, void (*)(void*)>(user_data, user_data_free);
    }
    return PLUGLINE_OK;
  });
}

plugline_status plugline_host_remove_opencode_plugin(plugline_host* host, const char* id) {
  return Guard(__func__, [&] {
    if (host == nullptr) return NullArgument(__func__, "host");
    if (InCallbackOf(host)) return Reentered(__func__);
    if (id == nullptr) return NullArgument(__func__, "id");
    return FromStatus(host->host->RemoveOpenCodePlugin(id));
  });
}

plugline_status plugline_reply_set(plugline_reply* reply, const char* json, size_t len) {
  return Guard(__func__, [&] {
    if (reply == nullptr) return NullArgument(__func__, "reply");
    if (json == nullptr) return NullArgument(__func__, "json");
    std::string_view text(json, len);
    absl::StatusOr<plugline::core::Value> parsed = plugline::core::ParseJson(text, "reply");
    if (!parsed.ok()) return FromStatus(parsed.status());
    reply->json = std::string(text);
    reply->has_json = true;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_client(plugline_config* config, plugline_client_fn fn,
                                           void* user_data, void (*user_data_free)(void*)) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    if (fn == nullptr) {
      config->options.client = nullptr;
      config->client_user_data.reset();
      if (user_data_free != nullptr && user_data != nullptr) user_data_free(user_data);
      return PLUGLINE_OK;
    }
    std::shared_ptr<void> owned = OwnUserData(user_data, user_data_free);
    config->client_user_data = owned;
    config->options.client = [fn, owned](std::string_view path,
                                         std::string_view args) -> absl::StatusOr<std::string> {
      plugline_reply reply;
      const std::string path_text(path);
      const std::string args_text(args);
      int rc = fn(path_text.c_str(), args_text.c_str(), args_text.size(), &reply, owned.get());
      if (rc != 0) {
        return CallbackFailure(reply, StrCat("the host's client callback failed (", rc, ")"));
      }
      return reply.has_json ? reply.json : std::string("null");
    };
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_server_url(plugline_config* config, const char* url) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    config->options.server_url = url == nullptr ? "" : url;
    return PLUGLINE_OK;
  });
}

plugline_status plugline_config_set_plugin_config(plugline_config* config, const char* json) {
  return Guard(__func__, [&] {
    if (config == nullptr) return NullArgument(__func__, "config");
    std::string text = json == nullptr ? "{}" : json;
    absl::StatusOr<plugline::core::Value> value = plugline::core::ParseJson(text, "plugin config");
    if (!value.ok()) return FromStatus(value.status());
    if (!value->is_object()) {
      return Fail(PLUGLINE_EINVALID, StrCat(__func__, ": the configuration must be a JSON object"));
    }
    config->options.plugin_config_json = std::move(text);
    return PLUGLINE_OK;
  });
}

plugline_status plugline_js_call(char** out_json, size_t* out_len, const char* module_path,
                                 const char* function, const char* args_json, size_t args_len,
                                 uint32_t timeout_ms) {
  return Guard(__func__, [&] {
    if (out_json == nullptr) return NullArgument(__func__, "out_json");
    if (module_path == nullptr) return NullArgument(__func__, "module_path");
    if (args_json == nullptr && args_len != 0) return NullArgument(__func__, "args_json");
    std::string_view args(args_json == nullptr ? "[]" : args_json,
                          args_json == nullptr ? 2 : args_len);
    if (!plugline::core::IsValidUtf8(args)) {
      return Fail(PLUGLINE_EINVALID, "plugline_js_call: args_json is not valid UTF-8");
    }
    absl::StatusOr<plugline::core::Value> parsed = plugline::core::ParseJson(args, "args_json");
    if (!parsed.ok()) return FromStatus(parsed.status());
    if (!parsed->is_array()) {
      return Fail(PLUGLINE_EINVALID, "plugline_js_call: args_json must be a JSON array");
    }
    std::string path = module_path;
    if (!path.empty() && path[0] != '/') {
      char cwd[4096];
      if (getcwd(cwd, sizeof cwd) != nullptr) path = StrCat(cwd, "/", path);
    }
    absl::StatusOr<plugline::js::Runtime*> runtime = plugline::js::GetRuntime();
    if (!runtime.ok()) return FromStatus(runtime.status());
    // The budget bounds the module's top level and, separately, the call: a message then
    // always names the budget the caller gave.
    const absl::Duration budget = absl::Milliseconds(timeout_ms == 0 ? 5000 : timeout_ms);
    plugline::js::ModuleOptions module_options;
    module_options.load_timeout = budget;
    absl::StatusOr<std::unique_ptr<plugline::js::Module>> module =
        (*runtime)->Load(path, module_options);
    if (!module.ok()) return FromStatus(module.status());
    plugline::js::CallLimits limits;
    limits.timeout = budget;
    absl::StatusOr<std::string> result =
        (*module)->Call(function == nullptr ? "" : function, args, limits);
    if (!result.ok()) return FromStatus(result.status());
    return ReturnBuffer(*result, out_json, out_len);
  });
}

}  // extern "C"

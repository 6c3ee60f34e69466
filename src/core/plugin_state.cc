#include "core/plugin_state.h"

#include <utility>

#include "core/fs.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

constexpr std::string_view kRecordStrings[] = {
    "version", "catalog", "url", "sha256", "kind", "tier", "format", "path", "installed_at",
    "name", "author", "description", "homepage", "isolation"};

absl::Status ValidateState(const Value& doc) {
  const Value* plugins = doc.Find("plugins");
  if (plugins == nullptr) return absl::OkStatus();
  if (absl::Status s = ExpectObject(*plugins, "plugins"); !s.ok()) return s;
  for (const auto& [id, entry] : plugins->as_object()) {
    const std::string where = StrCat("plugins.", EscapeControl(id));
    if (!IsValidPluginId(id)) {
      return absl::InvalidArgumentError(InvalidPluginIdMessage("plugins", id));
    }
    if (absl::Status s = ExpectObject(entry, where); !s.ok()) return s;
    if (const Value* enabled = entry.Find("enabled"); enabled != nullptr) {
      if (absl::Status s = ExpectBool(*enabled, StrCat(where, ".enabled")); !s.ok()) return s;
    }
    if (const Value* at = entry.Find("changed_at"); at != nullptr) {
      if (absl::Status s = ExpectString(*at, StrCat(where, ".changed_at")); !s.ok()) return s;
    }
    const Value* installed = entry.Find("installed");
    if (installed == nullptr) continue;
    const std::string at = StrCat(where, ".installed");
    if (absl::Status s = ExpectObject(*installed, at); !s.ok()) return s;
    for (std::string_view key : kRecordStrings) {
      const Value* v = installed->Find(key);
      if (v == nullptr) continue;
      if (absl::Status s = ExpectString(*v, StrCat(at, ".", key)); !s.ok()) return s;
    }
    for (std::string_view key : {"version", "path", "sha256"}) {
      if (installed->Find(key) == nullptr) {
        return absl::InvalidArgumentError(StrCat("`", at, ".", key, "` is missing"));
      }
    }
    if (const Value* size = installed->Find("size"); size != nullptr) {
      if (absl::Status s = ExpectCount(*size, StrCat(at, ".size")); !s.ok()) return s;
    }
    for (std::string_view key : {"verified", "signed"}) {
      if (const Value* v = installed->Find(key); v != nullptr) {
        if (absl::Status s = ExpectBool(*v, StrCat(at, ".", key)); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

InstallRecord RecordFrom(const Value& v) {
  InstallRecord r;
  r.version = v.StringMember("version");
  r.catalog = v.StringMember("catalog");
  r.url = v.StringMember("url");
  r.sha256 = v.StringMember("sha256");
  r.kind = v.StringMember("kind");
  r.tier = v.StringMember("tier");
  r.format = v.StringMember("format");
  r.path = v.StringMember("path");
  r.installed_at = v.StringMember("installed_at");
  r.name = v.StringMember("name");
  r.author = v.StringMember("author");
  r.description = v.StringMember("description");
  r.homepage = v.StringMember("homepage");
  r.isolation = v.StringMember("isolation");
  if (const Value* size = v.Find("size"); size != nullptr) {
    r.size = static_cast<uint64_t>(size->as_integer().value_or(0));
  }
  if (const Value* f = v.Find("verified"); f != nullptr) r.verified = f->as_bool();
  if (const Value* f = v.Find("signed"); f != nullptr) r.signed_index = f->as_bool();
  return r;
}

Value RecordValue(const InstallRecord& r) {
  Value v = ValueObject();
  for (auto [key, value] : {std::pair<std::string_view, const std::string*>{"version", &r.version},
                            {"catalog", &r.catalog}, {"url", &r.url}, {"sha256", &r.sha256},
                            {"kind", &r.kind}, {"tier", &r.tier}, {"format", &r.format},
                            {"path", &r.path}, {"installed_at", &r.installed_at},
                            {"name", &r.name}, {"author", &r.author},
                            {"description", &r.description}, {"homepage", &r.homepage},
                            {"isolation", &r.isolation}}) {
    if (!value->empty() || key == "version" || key == "path" || key == "sha256") {
      v.Set(key, Value(*value));
    }
  }
  v.Set("size", Value(static_cast<int64_t>(r.size)));
  v.Set("verified", Value(r.verified));
  v.Set("signed", Value(r.signed_index));
  return v;
}

StateFileOptions Options(const std::string& home) {
  StateFileOptions options;
  options.path = JoinPath(home, "plugins.json");
  options.version = 1;
  options.validate = ValidateState;
  options.max_bytes = size_t{16} << 20;
  return options;
}

}  // namespace

PluginStateStore::PluginStateStore(const std::string& home) : file_(Options(home)) {}

absl::StatusOr<PluginStateStore::State> PluginStateStore::Load(
    std::vector<std::string>* warnings) const {
  absl::StatusOr<Value> doc = file_.Read(warnings);
  if (!doc.ok()) return doc.status();
  State state;
  const Value* plugins = doc->Find("plugins");
  if (plugins == nullptr) return state;
  for (const auto& [id, entry] : plugins->as_object()) {
    if (const Value* enabled = entry.Find("enabled"); enabled != nullptr) {
      PluginToggle toggle;
      toggle.enabled = enabled->as_bool();
      if (const Value* at = entry.Find("changed_at"); at != nullptr) toggle.changed_at = at->as_string();
      state.toggles.emplace(id, std::move(toggle));
    }
    if (const Value* installed = entry.Find("installed"); installed != nullptr) {
      state.installed.emplace(id, RecordFrom(*installed));
    }
  }
  return state;
}

absl::StatusOr<std::map<std::string, PluginToggle>> PluginStateStore::Toggles(
    std::vector<std::string>* warnings) const {
  absl::StatusOr<State> state = Load(warnings);
  if (!state.ok()) return state.status();
  return std::move(state->toggles);
}

absl::StatusOr<std::map<std::string, InstallRecord>> PluginStateStore::Installed(
    std::vector<std::string>* warnings) const {
  absl::StatusOr<State> state = Load(warnings);
  if (!state.ok()) return state.status();
  return std::move(state->installed);
}

absl::Status PluginStateStore::SetInstalled(std::string_view id, const InstallRecord& record,
                                            std::vector<std::string>* warnings) const {
  return UpdateEntry(id, warnings, [&](Value& entry) { entry.Set("installed", RecordValue(record)); });
}

absl::Status PluginStateStore::Forget(std::string_view id,
                                      std::vector<std::string>* warnings) const {
  return file_.Update(
      [&](Value& doc) {
        const Value* plugins = doc.Find("plugins");
        if (plugins == nullptr) return absl::OkStatus();
        Value kept = ValueObject();
        for (const auto& [key, entry] : plugins->as_object()) {
          if (key != id) kept.Set(key, entry);
        }
        doc.Set("plugins", std::move(kept));
        return absl::OkStatus();
      },
      warnings);
}

absl::Status PluginStateStore::SetEnabled(std::string_view id, bool enabled, absl::Time now,
                                          std::vector<std::string>* warnings) const {
  return UpdateEntry(id, warnings, [&](Value& entry) {
    entry.Set("enabled", Value(enabled));
    entry.Set("changed_at", Value(absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone())));
  });
}

absl::Status PluginStateStore::UpdateEntry(std::string_view id, std::vector<std::string>* warnings,
                                           absl::FunctionRef<void(Value& entry)> change) const {
  if (!IsValidPluginId(id)) return absl::InvalidArgumentError(InvalidPluginIdMessage("id", id));
  return file_.Update(
      [&](Value& doc) {
        Value plugins = doc.Find("plugins") != nullptr ? *doc.Find("plugins") : Value(ValueObject());
        Value entry = plugins.Find(id) != nullptr ? *plugins.Find(id) : Value(ValueObject());
        change(entry);
        plugins.Set(id, std::move(entry));
        doc.Set("plugins", std::move(plugins));
        return absl::OkStatus();
      },
      warnings);
}

void WriteInstallRecord(JsonWriter& w, const InstallRecord& r) {
  w.BeginObject();
  WriteInstallRecordMembers(w, r);
  w.EndObject();
}

void WriteInstallRecordMembers(JsonWriter& w, const InstallRecord& r) {
  w.Key("version").String(r.version);
  w.Key("catalog").String(r.catalog);
  w.Key("url").String(r.url);
  w.Key("sha256").String(r.sha256);
  w.Key("size").Int(static_cast<int64_t>(r.size));
  w.Key("verified").Bool(r.verified);
  w.Key("signed").Bool(r.signed_index);
  w.Key("installed_at").String(r.installed_at);
  w.Key("author").String(r.author);
  w.Key("homepage").String(r.homepage);
  w.Key("isolation").String(r.isolation);
  w.Key("path").String(r.path);
}

}  // namespace plugline::core

#include "core/plugin_state.h"

#include <utility>

#include "core/fs.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

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
  }
  return absl::OkStatus();
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

absl::StatusOr<std::map<std::string, PluginToggle>> PluginStateStore::Toggles(
    std::vector<std::string>* warnings) const {
  absl::StatusOr<Value> doc = file_.Read(warnings);
  if (!doc.ok()) return doc.status();
  std::map<std::string, PluginToggle> toggles;
  const Value* plugins = doc->Find("plugins");
  if (plugins == nullptr) return toggles;
  for (const auto& [id, entry] : plugins->as_object()) {
    const Value* enabled = entry.Find("enabled");
    if (enabled == nullptr) continue;
    PluginToggle toggle;
    toggle.enabled = enabled->as_bool();
    if (const Value* at = entry.Find("changed_at"); at != nullptr) toggle.changed_at = at->as_string();
    toggles.emplace(id, std::move(toggle));
  }
  return toggles;
}

absl::Status PluginStateStore::SetEnabled(std::string_view id, bool enabled, absl::Time now,
                                          std::vector<std::string>* warnings) const {
  if (!IsValidPluginId(id)) return absl::InvalidArgumentError(InvalidPluginIdMessage("id", id));
  return file_.Update(
      [&](Value& doc) {
        Value plugins = doc.Find("plugins") != nullptr ? *doc.Find("plugins") : Value(ValueObject());
        Value entry = plugins.Find(id) != nullptr ? *plugins.Find(id) : Value(ValueObject());
        entry.Set("enabled", Value(enabled));
        entry.Set("changed_at",
                  Value(absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone())));
        plugins.Set(id, std::move(entry));
        doc.Set("plugins", std::move(plugins));
        return absl::OkStatus();
      },
      warnings);
}

}  // namespace plugline::core

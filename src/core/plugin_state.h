// What the user decided about plugins from the command line (`plugline plugins --enable ID`,
// `--disable ID`), kept in <home>/plugins.json: a state file (core/state_file.h: versioned,
// written atomically under a lock, a malformed one moved aside with a warning naming it, a
// newer one never overwritten).
//
//   {"version": 1,
//    "plugins": {"builtin-git-diff": {"enabled": false, "changed_at": "2026-12-03T12:00:00Z"},
//                "terraform-plan": {"installed": {"version": "1.2.0", "catalog": "<index URL>",
//                    "url": "<download URL>", "sha256": "...", "size": 1234, "verified": true,
//                    "signed": false, "kind": "js-shaper", "tier": "community", "format": "js",
//                    "path": "<home>/plugins/terraform-plan.js", "installed_at": "...", ...}}}}
//
// An install record says a plugin came from a catalog (`plugline plugins --install`): only
// such plugins can be removed with `--remove`, and they run with the isolation recorded.
//
// A toggle is the user's latest word on a plugin and wins over config.yaml's
// plugins.overrides.<id>.enabled (docs/managing-plugins.md). Built-in shapers are toggled the
// same way as plugins. An id with no entry follows config.yaml.
#ifndef PLUGLINE_CORE_PLUGIN_STATE_H_
#define PLUGLINE_CORE_PLUGIN_STATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/functional/function_ref.h"
#include "core/json.h"
#include "core/state_file.h"
#include "plugline/plugins.h"

namespace plugline::core {

struct PluginToggle {
  bool enabled = true;
  std::string changed_at;  // RFC 3339, UTC
};

// What `plugline plugins --install` put in place (include/plugline/plugins.h).
using InstallRecord = plugline::InstallRecord;

class PluginStateStore {
 public:
  // The store of `home` (<home>/plugins.json).
  explicit PluginStateStore(const std::string& home);

  // Both, from one read of the file (as Toggles() reads it).
  struct State {
    std::map<std::string, PluginToggle> toggles;
    std::map<std::string, InstallRecord> installed;
  };
  absl::StatusOr<State> Load(std::vector<std::string>* warnings) const;

  // Every toggle, by plugin id. An absent file has none; a malformed one is moved aside (its
  // warning in `warnings`) and has none; a newer one is FailedPrecondition.
  absl::StatusOr<std::map<std::string, PluginToggle>> Toggles(
      std::vector<std::string>* warnings) const;

  // Records that plugin `id` is enabled or disabled from `now` on.
  absl::Status SetEnabled(std::string_view id, bool enabled, absl::Time now,
                          std::vector<std::string>* warnings) const;

  // Every install record, by plugin id (as Toggles() reads the file).
  absl::StatusOr<std::map<std::string, InstallRecord>> Installed(
      std::vector<std::string>* warnings) const;

  // Records that plugin `id` was installed as `record` (replacing an earlier record).
  absl::Status SetInstalled(std::string_view id, const InstallRecord& record,
                            std::vector<std::string>* warnings) const;

  // Forgets plugin `id`: its install record and its toggle.
  absl::Status Forget(std::string_view id, std::vector<std::string>* warnings) const;

  const std::string& path() const { return file_.path(); }

 private:
  // Under the file's lock: `change` edits plugin `id`'s entry (an empty object when new).
  absl::Status UpdateEntry(std::string_view id, std::vector<std::string>* warnings,
                           absl::FunctionRef<void(Value& entry)> change) const;

  StateFile file_;
};

// An install record as JSON, the form every listing and answer uses: {"version", "catalog",
// "url", "sha256", "size", "verified", "signed", "installed_at", "author", "homepage",
// "isolation", "path"}.
void WriteInstallRecord(JsonWriter& w, const InstallRecord& record);
// The same members, into an object the caller has begun.
void WriteInstallRecordMembers(JsonWriter& w, const InstallRecord& record);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_PLUGIN_STATE_H_

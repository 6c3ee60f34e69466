// What the user decided about plugins from the command line (`plugline plugins --enable ID`,
// `--disable ID`), kept in <home>/plugins.json: a state file (core/state_file.h: versioned,
// written atomically under a lock, a malformed one moved aside with a warning naming it, a
// newer one never overwritten).
//
//   {"version": 1,
//    "plugins": {"builtin-git-diff": {"enabled": false, "changed_at": "2026-12-03T12:00:00Z"}}}
//
// A toggle is the user's latest word on a plugin and wins over config.yaml's
// plugins.overrides.<id>.enabled (docs/managing-plugins.md). Built-in shapers are toggled the
// same way as plugins. An id with no entry follows config.yaml.
#ifndef PLUGLINE_CORE_PLUGIN_STATE_H_
#define PLUGLINE_CORE_PLUGIN_STATE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/state_file.h"

namespace plugline::core {

struct PluginToggle {
  bool enabled = true;
  std::string changed_at;  // RFC 3339, UTC
};

class PluginStateStore {
 public:
  // The store of `home` (<home>/plugins.json).
  explicit PluginStateStore(const std::string& home);

  // Every toggle, by plugin id. An absent file has none; a malformed one is moved aside (its
  // warning in `warnings`) and has none; a newer one is FailedPrecondition.
  absl::StatusOr<std::map<std::string, PluginToggle>> Toggles(
      std::vector<std::string>* warnings) const;

  // Records that plugin `id` is enabled or disabled from `now` on.
  absl::Status SetEnabled(std::string_view id, bool enabled, absl::Time now,
                          std::vector<std::string>* warnings) const;

  const std::string& path() const { return file_.path(); }

 private:
  StateFile file_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_PLUGIN_STATE_H_

// What plugline remembers of the fail-closed and protected exec plugins that loaded, in
// <home>/guards.json: a plugin whose plugin.yaml later stops parsing, loses its `on_error` line
// or disappears while its folder stays is still known to fail closed, and keeps denying
// (docs/security.md "Broken guards").
//
//   {"version": 1,
//    "plugins": {"/home/u/.plugline/plugins/guard": {"id": "guard", "fail_closed": true,
//                                                    "protected": true, "source": "global"}}}
//
// A state file (core/state_file.h). Written only when what a load says differs from the record,
// so a command that loads unchanged plugins writes nothing; records of folders that no longer
// exist are dropped on the next write (removing a plugin's folder removes the plugin).
#ifndef PLUGLINE_CORE_GUARD_RECORDS_H_
#define PLUGLINE_CORE_GUARD_RECORDS_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/json.h"

namespace plugline::core {

struct GuardRecord {
  std::string id;
  bool fail_closed = false;
  bool protect = false;
  // Where its folder was found (core/plugins.h PluginDir::source: "global-config", "global",
  // "project-config", "project"); "" in records written before it was kept.
  std::string source;
  bool operator==(const GuardRecord&) const = default;
};

// Thread-safe: plugins load on several threads.
class GuardRecords {
 public:
  explicit GuardRecords(std::string home);

  // The record of the exec plugin in `folder`, if one was made.
  std::optional<GuardRecord> Find(const std::string& folder, std::vector<std::string>* warnings);

  // The plugin in `folder` loaded and is `record`: remembered when it fails closed or is
  // protected, forgotten otherwise. Errors (an unwritable home, a newer guards.json) are
  // warnings: the record is a safety net, not a requirement.
  void Loaded(const std::string& folder, const GuardRecord& record,
              std::vector<std::string>* warnings);

  // Every recorded fail-closed plugin whose folder still exists, by folder, in folder order.
  std::vector<std::pair<std::string, GuardRecord>> FailClosed(std::vector<std::string>* warnings);

  // Reads the file again (a reload); what is wrong with it (malformed: moved aside; newer:
  // not read) goes to `warnings`. Find() and Loaded() read it themselves when this has not run.
  void Load(std::vector<std::string>* warnings);

 private:
  // The document, read once.
  const Value& Doc(std::vector<std::string>* warnings) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  std::string home_;
  std::string path_;
  absl::Mutex mu_;
  std::optional<Value> doc_ ABSL_GUARDED_BY(mu_);
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_GUARD_RECORDS_H_

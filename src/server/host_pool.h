// The hosts a server keeps: one per project directory, made on first use, kept loaded while
// the files they were loaded from stay as they were, dropped after a while unused.
//
// Before a host is handed out, a fingerprint of everything it read (config files, the trust
// store and guard records, each plugin folder and package: names, sizes, modification times,
// inodes; core::WatchedPath) is taken again; when it differs, the host reloads (Host::Reload:
// unchanged plugins stay loaded, with their state), so a plugin dropped into a folder is used
// by the next command, as it would be without a server. Thread-safe.
#ifndef PLUGLINE_SERVER_HOST_POOL_H_
#define PLUGLINE_SERVER_HOST_POOL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/config.h"
#include "core/host_internal.h"
#include "core/json.h"
#include "plugline/host.h"

namespace plugline::server {

// Names, sizes, modification times and inodes of `paths` (folders `depth` levels down, at
// most 4096 entries in all). Equal fingerprints: nothing there changed that these show.
std::string Fingerprint(const std::vector<core::WatchedPath>& paths);

class HostPool {
 public:
  struct Options {
    std::string home;
    absl::Duration unused_after = absl::Minutes(10);  // DropUnused() drops hosts idle longer
    size_t max_hosts = 32;  // past this, the least recently used idle host is dropped
  };
  explicit HostPool(Options options);
  ~HostPool();

  // The host of `project_dir`, current; it is not dropped while the caller holds it. The error
  // is Host::Create's.
  absl::StatusOr<std::shared_ptr<Host>> Get(const std::string& project_dir);

  // Drops the hosts unused for longer than unused_after and not in use: their plugins'
  // dispose hooks run, then their isolates and worker processes go.
  void DropUnused();
  // Drops every host (the server stops).
  void DropAll();

  // The global config.yaml's `server:` mode, read again when the file changes.
  core::ServerMode Mode();

  // JSON: [{"project_dir", "requests", "reloads", "idle_ms", "plugins"}], for `server status`.
  std::string Describe() const;

 private:
  struct Entry {
    std::string project_dir;
    absl::Mutex load_mu;  // creating or reloading the host
    std::shared_ptr<Host> host ABSL_GUARDED_BY(load_mu);
    std::string fingerprint ABSL_GUARDED_BY(load_mu);
    // Read by Describe() without load_mu.
    std::atomic<uint64_t> requests{0};
    std::atomic<uint64_t> reloads{0};
    std::atomic<int64_t> last_used_ns{0};
    std::atomic<uint64_t> plugins{0};
    std::atomic<int> users{0};  // hosts handed out by Get() and not yet released
  };
  // Drops the entries `pick` chooses among those nobody uses, outside the pool's lock.
  void Drop(const std::function<bool(const Entry&)>& pick);

  const Options options_;
  absl::Mutex mode_mu_;
  std::string mode_stamp_ ABSL_GUARDED_BY(mode_mu_);
  core::ServerMode mode_ ABSL_GUARDED_BY(mode_mu_) = core::ServerMode::kAuto;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace plugline::server

#endif  // PLUGLINE_SERVER_HOST_POOL_H_

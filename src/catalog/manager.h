// The catalogs of a home and the plugins installed from them (docs/managing-plugins.md,
// docs/catalog.md): syncing each configured catalog's index into a local copy, reading those
// copies offline, installing a plugin (download within bounds, size and SHA-256 checked, then
// moved into place atomically) and removing one.
//
// Where things live:
//   <home>/catalog/<first 16 hex digits of SHA-256(index URL)>.json — the last synced copy of
//     one catalog: {"version": 1, "url", "etag", "last_modified", "fetched_at", "index" (the
//     index's exact text), "signature" (index.json.sig's text, or "")}, written atomically;
//   <home>/plugins/<id>.<js|mjs|ts|mts> or <home>/plugins/<id>/ — an installed plugin, where
//     the host finds plugins anyway;
//   <home>/plugins.json — its install record (core/plugin_state.h).
// Installs and removals of one home take an exclusive lock (<home>/catalog/install.lock), so
// two at once never interleave.
#ifndef PLUGLINE_CATALOG_MANAGER_H_
#define PLUGLINE_CATALOG_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "catalog/index.h"
#include "core/config.h"
#include "core/plugin_state.h"

namespace plugline::catalog {

// Told what is being downloaded and how far it got (total 0: unknown).
using ProgressFn = std::function<void(std::string_view url, uint64_t received, uint64_t total)>;

struct Limits {
  absl::Duration timeout = absl::Seconds(60);     // per download
  uint64_t max_index_bytes = uint64_t{16} << 20;  // an index larger than this is refused
  uint64_t max_plugin_bytes = uint64_t{64} << 20;  // a download larger than this is refused
};

// The last synced copy of one catalog.
struct CatalogCopy {
  core::CatalogSource source;
  CatalogIndex index;
  std::string fetched_at;  // RFC 3339, UTC: when it was last fetched or found unchanged
  absl::Time fetched;
  bool signature_verified = false;  // the source has a public key and the signature matched
};

struct SyncReport {
  std::string url;
  absl::Status status;        // the catalog's own failure (the others still sync)
  bool not_modified = false;  // the server said the copy is current (304)
  size_t plugins = 0;
  bool signature_verified = false;
  std::vector<std::string> skipped;  // malformed entries left out
};

// What Install did.
struct InstallOutcome {
  CatalogEntry entry;
  core::InstallRecord record;
  std::string previous_version;  // "" when it was not installed before
};

// What the catalogs offer: the newest version of each id, the first catalog (in config order)
// that lists an id winning, with what is installed of it.
struct Availability {
  std::vector<absl::StatusOr<CatalogCopy>> copies;  // in catalog order
  struct Row {
    CatalogEntry entry;
    std::string catalog;  // its index URL
    std::optional<core::InstallRecord> installed;
    bool update_available = false;  // the entry is newer than what is installed
  };
  std::vector<Row> rows;
};

class CatalogManager {
 public:
  CatalogManager(std::string home, std::vector<core::CatalogSource> sources, Limits limits = {});

  // Fetches every catalog's index (a conditional request when there is a copy), checks its
  // signature when the catalog has a public key, and replaces the copy. One report per
  // catalog, in order.
  std::vector<SyncReport> Sync(const ProgressFn& progress = nullptr) const;

  // The copies, in catalog order, read without the network. A catalog never synced, or whose
  // copy does not verify against its public key, is an error in its slot naming the catalog.
  std::vector<absl::StatusOr<CatalogCopy>> Copies() const;

  // Installs plugin `id` from the first catalog that lists it: `version`, or the newest when
  // empty. Syncs first when no copy lists it. Reinstalling or upgrading replaces the plugin in
  // one rename, after the new download verified: until then the old one stays and runs.
  // Errors: NotFound (no catalog lists it, or not that version), FailedPrecondition (a plugin
  // the user put in the folder by hand has its place; a catalog's signature problem), DataLoss
  // (size or checksum mismatch: expected and actual given), and the download's errors.
  absl::StatusOr<InstallOutcome> Install(std::string_view id, std::string_view version,
                                         const ProgressFn& progress = nullptr) const;

  // The offer of the synced copies (`tier` "" for every tier). When no catalog was ever synced
  // it syncs first (the only time it uses the network). Install records it cannot read are
  // warnings.
  Availability Available(std::string_view tier, std::vector<std::string>* warnings,
                         const ProgressFn& progress = nullptr) const;

  // Removes an installed plugin's file or folder and forgets it. FailedPrecondition for a
  // built-in shaper or a plugin that was not installed from a catalog, saying what to do.
  absl::StatusOr<core::InstallRecord> Remove(std::string_view id) const;

  // The install records, by id.
  absl::StatusOr<std::map<std::string, core::InstallRecord>> Installed(
      std::vector<std::string>* warnings) const;

  const std::string& home() const { return home_; }
  // Where a catalog's copy is kept.
  std::string CopyPath(std::string_view url) const;

 private:
  SyncReport SyncOne(const core::CatalogSource& source, const ProgressFn& progress) const;
  absl::StatusOr<CatalogCopy> ReadCopy(const core::CatalogSource& source) const;

  std::string home_;
  std::vector<core::CatalogSource> sources_;
  Limits limits_;
};

// The JSON forms the command line (--json) and the C ABI share (docs/managing-plugins.md):
// {"catalogs": [{"url", "fetched_at", "age_seconds", "signature_verified", "error"}],
//  "plugins": [{"id", "name", "version", "tier", "kind", "description", "author", "homepage",
//               "catalog", "installed_version", "update_available"}]}
std::string AvailabilityJson(const Availability& availability, absl::Time now);
// {"catalogs": [{"url", "ok", "error", "not_modified", "plugins", "signature_verified",
//                "skipped"}]}
std::string SyncReportsJson(const std::vector<SyncReport>& reports);
// {"id", "previous_version", and the members of core::WriteInstallRecord}
std::string InstallRecordJson(std::string_view id, const core::InstallRecord& record,
                              std::string_view previous_version);

// Where an entry lives once installed: <plugins>/<id>.<format>, or <plugins>/<id> for an
// archive.
std::string InstallPath(const std::string& plugins_dir, const CatalogEntry& entry);

}  // namespace plugline::catalog

#endif  // PLUGLINE_CATALOG_MANAGER_H_

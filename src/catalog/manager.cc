#include "catalog/manager.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <utility>

#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "catalog/archive.h"
#include "catalog/download.h"
#include "catalog/signature.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/plugin_id.h"
#include "core/strings.h"

namespace plugline::catalog {
namespace {

using core::Sha256Hex;

constexpr int64_t kCopyFormat = 1;
constexpr std::string_view kModuleFormats[] = {"js", "mjs", "ts", "mts"};

std::string Rfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// An exclusive flock(2) held while it lives.
class FileLock {
 public:
  static absl::StatusOr<FileLock> Take(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (absl::Status made = core::MakeDirs(path.substr(0, slash)); !made.ok()) return made;
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return core::ErrnoToStatus(errno, StrCat("cannot open ", path));
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return core::ErrnoToStatus(err, StrCat("cannot lock ", path));
    }
    return FileLock(fd);
  }
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

// Installs and removals of one home take turns on this lock.
std::string InstallLockPath(const std::string& home) {
  return core::JoinPath(core::JoinPath(home, "catalog"), "install.lock");
}

// The catalog a message names: its URL.
std::string Named(const core::CatalogSource& source) { return StrCat("catalog ", source.url); }

}  // namespace

std::string InstallPath(const std::string& plugins_dir, const CatalogEntry& entry) {
  return entry.IsArchive() ? core::JoinPath(plugins_dir, entry.id)
                           : core::JoinPath(plugins_dir, StrCat(entry.id, ".", entry.format));
}

CatalogManager::CatalogManager(std::string home, std::vector<core::CatalogSource> sources,
                               Limits limits)
    : home_(std::move(home)), sources_(std::move(sources)), limits_(limits) {}

std::string CatalogManager::CopyPath(std::string_view url) const {
  return core::JoinPath(core::JoinPath(home_, "catalog"),
                        StrCat(Sha256Hex(url).substr(0, 16), ".json"));
}

std::vector<SyncReport> CatalogManager::Sync(const ProgressFn& progress) const {
  std::vector<SyncReport> reports;
  for (const core::CatalogSource& source : sources_) reports.push_back(SyncOne(source, progress));
  return reports;
}

SyncReport CatalogManager::SyncOne(const core::CatalogSource& source,
                                   const ProgressFn& progress) const {
  SyncReport report;
  report.url = source.url;
  // The copy we have, for a conditional request (only when it is of this URL and readable).
  core::Value previous;
  if (absl::StatusOr<std::string> text = core::ReadFile(CopyPath(source.url), limits_.max_index_bytes * 2 + (1 << 20));
      text.ok()) {
    absl::StatusOr<core::Value> doc = core::ParseJson(*text, CopyPath(source.url));
    if (doc.ok() && doc->StringMember("url") == source.url) previous = *std::move(doc);
  }
  DownloadOptions options;
  options.max_bytes = limits_.max_index_bytes;
  options.timeout = limits_.timeout;
  options.if_none_match = previous.StringMember("etag");
  options.if_modified_since = previous.StringMember("last_modified");
  if (progress) {
    options.progress = [&](uint64_t received, uint64_t total) { progress(source.url, received, total); };
  }
  absl::StatusOr<Downloaded> fetched = Fetch(source.url, options);
  if (!fetched.ok()) {
    report.status = absl::Status(fetched.status().code(),
                                 StrCat(Named(source), ": ", fetched.status().message()));
    return report;
  }
  std::string index_text, signature_text;
  if (fetched->not_modified && previous.is_object()) {
    report.not_modified = true;
    index_text = previous.StringMember("index");
    signature_text = previous.StringMember("signature");
  } else {
    index_text = std::move(fetched->content);
    if (!source.public_key.empty()) {
      DownloadOptions sig_options;
      sig_options.max_bytes = 4096;
      sig_options.timeout = limits_.timeout;
      absl::StatusOr<Downloaded> sig = Fetch(StrCat(source.url, ".sig"), sig_options);
      if (!sig.ok()) {
        report.status = absl::FailedPreconditionError(StrCat(
            Named(source), " has a public_key in config.yaml, but its signature could not be "
                           "fetched, so the index is refused: ",
            sig.status().message()));
        return report;
      }
      signature_text = std::move(sig->content);
    }
  }
  if (!source.public_key.empty()) {
    if (absl::Status verified = Verify(index_text, signature_text, source.public_key);
        !verified.ok()) {
      report.status = absl::FailedPreconditionError(
          StrCat(Named(source), ": the index is refused: ", verified.message()));
      return report;
    }
    report.signature_verified = true;
  }
  absl::StatusOr<CatalogIndex> index = ParseIndex(index_text, source.url, source.url);
  if (!index.ok()) {
    report.status = absl::Status(index.status().code(), StrCat(Named(source), ": ", index.status().message()));
    return report;
  }
  report.plugins = index->plugins.size();
  report.skipped = index->skipped;
  core::JsonWriter w;
  w.BeginObject();
  w.Key("version").Int(kCopyFormat);
  w.Key("url").String(source.url);
  w.Key("etag").String(report.not_modified ? previous.StringMember("etag") : fetched->etag);
  w.Key("last_modified")
      .String(report.not_modified ? previous.StringMember("last_modified")
                                  : fetched->last_modified);
  w.Key("fetched_at").String(Rfc3339(absl::Now()));
  w.Key("index").String(index_text);
  w.Key("signature").String(signature_text);
  w.EndObject();
  const std::string path = CopyPath(source.url);
  if (absl::Status made = core::MakeDirs(core::JoinPath(home_, "catalog")); !made.ok()) {
    report.status = made;
    return report;
  }
  if (absl::Status written = core::WriteFileAtomic(path, w.str()); !written.ok()) {
    report.status = written;
  }
  return report;
}

absl::StatusOr<CatalogCopy> CatalogManager::ReadCopy(const core::CatalogSource& source) const {
  const std::string path = CopyPath(source.url);
  absl::StatusOr<std::string> text = core::ReadFile(path, limits_.max_index_bytes * 2 + (1 << 20));
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      return absl::NotFoundError(StrCat(Named(source), " has not been synced yet: run `plugline "
                                                       "plugins --sync`"));
    }
    return text.status();
  }
  absl::StatusOr<core::Value> doc = core::ParseJson(*text, path);
  if (!doc.ok() || !doc->is_object() || doc->StringMember("url") != source.url) {
    return absl::DataLossError(StrCat(Named(source), ": its copy ", path,
                                      " is damaged; run `plugline plugins --sync` to fetch it again"));
  }
  CatalogCopy copy;
  copy.source = source;
  const std::string index_text = doc->StringMember("index");
  if (!source.public_key.empty()) {
    // Checked on every read: a copy synced before the key was configured, or changed on disk,
    // is not trusted.
    if (absl::Status verified =
            Verify(index_text, doc->StringMember("signature"), source.public_key);
        !verified.ok()) {
      return absl::FailedPreconditionError(
          StrCat(Named(source), ": the synced copy is refused (", verified.message(),
                 "); run `plugline plugins --sync`"));
    }
    copy.signature_verified = true;
  }
  absl::StatusOr<CatalogIndex> index = ParseIndex(index_text, source.url, source.url);
  if (!index.ok()) return index.status();
  copy.index = *std::move(index);
  copy.fetched_at = doc->StringMember("fetched_at");
  std::string error;
  if (!absl::ParseTime("%Y-%m-%dT%H:%M:%SZ", copy.fetched_at, absl::UTCTimeZone(), &copy.fetched,
                       &error)) {
    copy.fetched = absl::InfinitePast();
  }
  return copy;
}

std::vector<absl::StatusOr<CatalogCopy>> CatalogManager::Copies() const {
  std::vector<absl::StatusOr<CatalogCopy>> copies;
  for (const core::CatalogSource& source : sources_) copies.push_back(ReadCopy(source));
  return copies;
}

absl::StatusOr<std::map<std::string, core::InstallRecord>> CatalogManager::Installed(
    std::vector<std::string>* warnings) const {
  return core::PluginStateStore(home_).Installed(warnings);
}

absl::StatusOr<InstallOutcome> CatalogManager::Install(std::string_view id,
                                                       std::string_view version,
                                                       const ProgressFn& progress) const {
  if (!core::IsValidPluginId(id)) {
    return absl::InvalidArgumentError(core::InvalidPluginIdMessage("plugin id", id));
  }
  if (!version.empty() && !IsValidVersion(version)) {
    return absl::InvalidArgumentError(StrCat("'", core::EscapeControl(version),
                                             "' is not a version"));
  }
  if (sources_.empty()) {
    return absl::FailedPreconditionError(
        "no catalog is configured: add `catalog: {url: ...}` to config.yaml (docs/catalog.md)");
  }
  // The entry: from the copies, else after a sync.
  struct Found {
    CatalogEntry entry;
    core::CatalogSource source;
    bool signature_verified = false;
  };
  auto find = [&](std::vector<std::string>* problems) -> std::optional<Found> {
    for (absl::StatusOr<CatalogCopy>& copy : Copies()) {
      if (!copy.ok()) {
        problems->push_back(std::string(copy.status().message()));
        continue;
      }
      const CatalogEntry* best = nullptr;
      for (const CatalogEntry& entry : copy->index.plugins) {
        if (entry.id != id) continue;
        if (!version.empty() ? entry.version == version
                             : best == nullptr || CompareVersions(entry.version, best->version) > 0) {
          best = &entry;
        }
      }
      if (best != nullptr) return Found{*best, copy->source, copy->signature_verified};
    }
    return std::nullopt;
  };
  std::vector<std::string> problems;
  std::optional<Found> found = find(&problems);
  if (!found.has_value()) {
    problems.clear();
    for (const SyncReport& report : Sync(progress)) {
      if (!report.status.ok()) problems.push_back(std::string(report.status.message()));
    }
    std::vector<std::string> unused;
    found = find(&unused);
  }
  if (!found.has_value()) {
    std::string what = version.empty() ? StrCat("'", id, "'")
                                        : StrCat("'", id, "' at version ", version);
    return absl::NotFoundError(StrCat("no catalog lists ", what,
                                      problems.empty() ? "" : StrCat(" (", absl::StrJoin(problems, "; "), ")"),
                                      "; `plugline plugins --available` lists what they offer"));
  }
  const CatalogEntry& entry = found->entry;

  const std::string plugins_dir = core::JoinPath(home_, "plugins");
  absl::StatusOr<FileLock> lock = FileLock::Take(InstallLockPath(home_));
  if (!lock.ok()) return lock.status();
  core::PluginStateStore store(home_);
  std::vector<std::string> warnings;
  absl::StatusOr<std::map<std::string, core::InstallRecord>> records = store.Installed(&warnings);
  if (!records.ok()) return records.status();
  auto record = records->find(std::string(id));
  // A plugin the user put in the folder by hand is never replaced or shadowed.
  if (record == records->end()) {
    std::vector<std::string> taken = {core::JoinPath(plugins_dir, std::string(id))};
    for (std::string_view format : kModuleFormats) {
      taken.push_back(core::JoinPath(plugins_dir, StrCat(id, ".", format)));
    }
    for (const std::string& path : taken) {
      if (core::PathExists(path) || std::filesystem::is_symlink(path)) {
        return absl::FailedPreconditionError(StrCat(
            path, " is a plugin you put there yourself (not installed from a catalog), so '", id,
            "' is not installed over it: remove or rename it first"));
      }
    }
  }

  // Download within bounds, then check size and digest before anything is put in place.
  if (entry.size > limits_.max_plugin_bytes) {
    return absl::ResourceExhaustedError(
        StrCat(entry.url, ": the catalog lists ", entry.size, " bytes, over the limit of ",
               limits_.max_plugin_bytes));
  }
  DownloadOptions options;
  options.max_bytes = entry.size;
  options.timeout = limits_.timeout;
  if (progress) {
    options.progress = [&](uint64_t received, uint64_t total) { progress(entry.url, received, total); };
  }
  absl::StatusOr<Downloaded> fetched = Fetch(entry.url, options);
  if (!fetched.ok()) {
    if (absl::IsResourceExhausted(fetched.status())) {
      return absl::DataLossError(StrCat(entry.url, ": size mismatch: the catalog lists ",
                                        entry.size, " bytes, the download is larger; nothing was installed"));
    }
    return absl::Status(fetched.status().code(),
                        StrCat(fetched.status().message(), "; nothing was installed"));
  }
  if (fetched->content.size() != entry.size) {
    return absl::DataLossError(StrCat(entry.url, ": size mismatch: the catalog lists ", entry.size,
                                      " bytes, the download has ", fetched->content.size(),
                                      "; nothing was installed"));
  }
  if (fetched->sha256 != entry.sha256) {
    return absl::DataLossError(StrCat(entry.url, ": checksum mismatch: expected sha256 ",
                                      entry.sha256, ", got ", fetched->sha256,
                                      "; nothing was installed"));
  }

  // In place: one rename replaces what was there.
  const std::string dest = InstallPath(plugins_dir, entry);
  if (absl::Status made = core::MakeDirs(plugins_dir); !made.ok()) return made;
  if (entry.IsArchive()) {
    if (absl::Status unpacked = InstallArchive(fetched->content, entry.format, dest);
        !unpacked.ok()) {
      return absl::Status(unpacked.code(), StrCat(entry.url, ": ", unpacked.message(),
                                                  "; nothing was installed"));
    }
  } else if (absl::Status written = core::WriteFileAtomic(dest, fetched->content); !written.ok()) {
    return written;
  }
  InstallOutcome outcome;
  outcome.entry = entry;
  if (record != records->end()) {
    outcome.previous_version = record->second.version;
    // The older one had another form (a file then, a folder now): it goes once the new one is
    // in place.
    const std::string old_path = record->second.path;
    const bool ours = old_path.starts_with(StrCat(plugins_dir, "/")) &&
                      old_path.find("/..") == std::string::npos && old_path != dest;
    if (ours) {
      std::error_code ignored;
      std::filesystem::remove_all(old_path, ignored);
    }
  }
  core::InstallRecord& r = outcome.record;
  r.version = entry.version;
  r.catalog = found->source.url;
  r.url = entry.url;
  r.sha256 = fetched->sha256;
  r.size = fetched->content.size();
  r.verified = true;
  r.signed_index = found->signature_verified;
  r.kind = entry.kind;
  r.tier = entry.tier;
  r.format = entry.format;
  r.path = dest;
  r.installed_at = Rfc3339(absl::Now());
  r.name = entry.name;
  r.author = entry.author;
  r.description = entry.description;
  r.homepage = entry.homepage;
  r.isolation = entry.isolation.empty() ? "process" : entry.isolation;
  if (absl::Status saved = store.SetInstalled(id, r, &warnings); !saved.ok()) return saved;
  return outcome;
}

Availability CatalogManager::Available(std::string_view tier, std::vector<std::string>* warnings,
                                       const ProgressFn& progress) const {
  Availability out;
  out.copies = Copies();
  bool none = !out.copies.empty();
  for (const auto& copy : out.copies) none = none && absl::IsNotFound(copy.status());
  if (none) {
    for (const SyncReport& report : Sync(progress)) {
      if (!report.status.ok() && warnings != nullptr) {
        warnings->push_back(std::string(report.status.message()));
      }
    }
    out.copies = Copies();
  }
  absl::StatusOr<std::map<std::string, core::InstallRecord>> installed = Installed(warnings);
  std::set<std::string> seen;
  for (const auto& copy : out.copies) {
    if (!copy.ok()) continue;
    std::map<std::string, const CatalogEntry*> newest;
    for (const CatalogEntry& e : copy->index.plugins) {
      const CatalogEntry*& best = newest[e.id];
      if (best == nullptr || CompareVersions(e.version, best->version) > 0) best = &e;
    }
    for (const CatalogEntry& e : copy->index.plugins) {
      if (newest[e.id] != &e || !seen.insert(e.id).second) continue;
      if (!tier.empty() && e.tier != tier) continue;
      Availability::Row row;
      row.entry = e;
      row.catalog = copy->source.url;
      if (installed.ok()) {
        if (auto r = installed->find(e.id); r != installed->end()) {
          row.installed = r->second;
          row.update_available = CompareVersions(e.version, r->second.version) > 0;
        }
      }
      out.rows.push_back(std::move(row));
    }
  }
  return out;
}

std::string AvailabilityJson(const Availability& availability, absl::Time now) {
  core::JsonWriter w;
  w.BeginObject().Key("catalogs").BeginArray();
  for (const auto& copy : availability.copies) {
    w.BeginObject();
    if (copy.ok()) {
      w.Key("url").String(copy->source.url);
      w.Key("fetched_at").String(copy->fetched_at);
      w.Key("age_seconds").Int(copy->fetched == absl::InfinitePast()
                                   ? -1
                                   : absl::ToInt64Seconds(now - copy->fetched));
      w.Key("signature_verified").Bool(copy->signature_verified);
      w.Key("error").Null();
    } else {
      w.Key("error").String(ToStd(copy.status().message()));
    }
    w.EndObject();
  }
  w.EndArray().Key("plugins").BeginArray();
  for (const Availability::Row& row : availability.rows) {
    const CatalogEntry& e = row.entry;
    w.BeginObject();
    w.Key("id").String(e.id);
    w.Key("name").String(e.name);
    w.Key("version").String(e.version);
    w.Key("tier").String(e.tier);
    w.Key("kind").String(e.kind);
    w.Key("description").String(e.description);
    w.Key("author").String(e.author);
    w.Key("homepage").String(e.homepage);
    w.Key("catalog").String(row.catalog);
    w.Key("installed_version");
    if (row.installed.has_value()) {
      w.String(row.installed->version);
    } else {
      w.Null();
    }
    w.Key("update_available").Bool(row.update_available);
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

std::string SyncReportsJson(const std::vector<SyncReport>& reports) {
  core::JsonWriter w;
  w.BeginObject().Key("catalogs").BeginArray();
  for (const SyncReport& r : reports) {
    w.BeginObject();
    w.Key("url").String(r.url);
    w.Key("ok").Bool(r.status.ok());
    w.Key("error");
    if (r.status.ok()) {
      w.Null();
    } else {
      w.String(ToStd(r.status.message()));
    }
    w.Key("not_modified").Bool(r.not_modified);
    w.Key("plugins").Int(static_cast<int64_t>(r.plugins));
    w.Key("signature_verified").Bool(r.signature_verified);
    w.Key("skipped").BeginArray();
    for (const std::string& s : r.skipped) w.String(s);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray().EndObject();
  return w.Take();
}

std::string InstallRecordJson(std::string_view id, const core::InstallRecord& r,
                              std::string_view previous_version) {
  core::JsonWriter w;
  w.BeginObject();
  w.Key("id").String(id);
  w.Key("previous_version");
  if (previous_version.empty()) {
    w.Null();
  } else {
    w.String(previous_version);
  }
  core::WriteInstallRecordMembers(w, r);
  w.EndObject();
  return w.Take();
}

absl::StatusOr<core::InstallRecord> CatalogManager::Remove(std::string_view id) const {
  if (id.starts_with("builtin-")) {
    return absl::FailedPreconditionError(
        StrCat("'", core::EscapeControl(id), "' is built in and cannot be removed; `plugline plugins --disable ",
               core::EscapeControl(id), "` turns it off"));
  }
  absl::StatusOr<FileLock> lock = FileLock::Take(InstallLockPath(home_));
  if (!lock.ok()) return lock.status();
  core::PluginStateStore store(home_);
  std::vector<std::string> warnings;
  absl::StatusOr<std::map<std::string, core::InstallRecord>> records = store.Installed(&warnings);
  if (!records.ok()) return records.status();
  auto record = records->find(std::string(id));
  if (record == records->end()) {
    return absl::FailedPreconditionError(StrCat(
        "'", core::EscapeControl(id),
        "' was not installed from a catalog, so plugline does not remove it: if it is a plugin "
        "you put in a plugins folder, delete its file or folder yourself, or `plugline plugins "
        "--disable ",
        core::EscapeControl(id), "` to turn it off"));
  }
  // The path is recomputed, never taken from the record: a record edited by hand cannot make
  // plugline delete anything outside the plugins folder.
  CatalogEntry shape;
  shape.id = std::string(id);
  shape.format = record->second.format.empty() ? "js" : record->second.format;
  const std::string path = InstallPath(core::JoinPath(home_, "plugins"), shape);
  std::error_code error;
  std::filesystem::remove_all(path, error);
  if (error) {
    return absl::InternalError(StrCat("cannot remove ", path, ": ", error.message()));
  }
  if (absl::Status forgot = store.Forget(id, &warnings); !forgot.ok()) return forgot;
  return record->second;
}

}  // namespace plugline::catalog

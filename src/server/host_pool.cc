#include "server/host_pool.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "core/fs.h"
#include "core/strings.h"

namespace plugline::server {
namespace {

constexpr size_t kMaxFingerprintEntries = 4096;

int64_t NowNs() { return absl::ToUnixNanos(absl::Now()); }

void AddStamp(const std::string& path, int depth, size_t* entries, std::string* out) {
  if (++*entries > kMaxFingerprintEntries) return;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    StrAppend(out, path, "|-\n");
    return;
  }
  StrAppend(out, path, "|", st.st_size, "|", st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec, "|",
            st.st_ctim.tv_sec, ".", st.st_ctim.tv_nsec, "|", st.st_ino, "|", st.st_mode, "\n");
  // A symbolic link to a folder (a plugin folder linked in) is followed, once per level.
  const bool folder = S_ISDIR(st.st_mode) ||
                      (S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
  if (!folder || depth <= 0) return;
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    // A package's own dependencies are not its plugin: the package folder is what changes.
    if (name == "node_modules") continue;
    AddStamp(core::JoinPath(path, name), depth - 1, entries, out);
  }
}

}  // namespace

std::string Fingerprint(const std::vector<core::WatchedPath>& paths) {
  std::string out;
  size_t entries = 0;
  for (const core::WatchedPath& watched : paths) {
    AddStamp(watched.path, watched.depth, &entries, &out);
  }
  // Past the bound the rest is not looked at: the host then reloads on every use (Reload
  // itself keeps what did not change), rather than miss a change.
  if (entries > kMaxFingerprintEntries) StrAppend(&out, "|more|", NowNs());
  return out;
}

HostPool::HostPool(Options options) : options_(std::move(options)) {}

HostPool::~HostPool() { DropAll(); }

absl::StatusOr<std::shared_ptr<Host>> HostPool::Get(const std::string& project_dir) {
  std::shared_ptr<Entry> entry;
  const Entry* evict = nullptr;  // past max_hosts: the least recently used host nobody uses
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<Entry>& slot = entries_[project_dir];
    if (slot == nullptr) {
      slot = std::make_shared<Entry>();
      slot->project_dir = project_dir;
      slot->last_used_ns.store(NowNs());
    }
    entry = slot;
    ++entry->users;
    if (entries_.size() > options_.max_hosts) {
      int64_t oldest = INT64_MAX;
      for (const auto& [dir, candidate] : entries_) {
        if (candidate == entry || candidate->users.load() > 0) continue;
        if (const int64_t used = candidate->last_used_ns.load(); used < oldest) {
          oldest = used;
          evict = candidate.get();
        }
      }
    }
  }
  if (evict != nullptr) Drop([evict](const Entry& e) { return &e == evict; });
  // Handed out with a token that says when the caller is done with it.
  auto hand_out = [&entry](std::shared_ptr<Host> host) {
    std::shared_ptr<void> token(nullptr, [entry, host](void*) { --entry->users; });
    return std::shared_ptr<Host>(token, host.get());
  };
  auto release = [&entry] { --entry->users; };
  entry->requests.fetch_add(1);
  entry->last_used_ns.store(NowNs());
  absl::MutexLock lock(&entry->load_mu);
  if (entry->host == nullptr) {
    HostOptions host_options;
    host_options.home = options_.home;
    host_options.project_dir = project_dir;
    absl::StatusOr<std::unique_ptr<Host>> host = Host::Create(std::move(host_options));
    if (!host.ok()) {
      release();
      return host.status();
    }
    entry->host = std::shared_ptr<Host>(*std::move(host));
    entry->fingerprint = Fingerprint(internal::HostAccess::WatchedPaths(*entry->host));
  } else {
    std::string now = Fingerprint(internal::HostAccess::WatchedPaths(*entry->host));
    if (now != entry->fingerprint) {
      entry->host->Reload();
      entry->reloads.fetch_add(1);
      // What the reload read may be more (a new plugin folder named in config.yaml).
      entry->fingerprint = Fingerprint(internal::HostAccess::WatchedPaths(*entry->host));
    }
  }
  entry->plugins.store(internal::HostAccess::PluginCount(*entry->host));
  return hand_out(entry->host);
}

void HostPool::Drop(const std::function<bool(const Entry&)>& pick) {
  std::vector<std::shared_ptr<Entry>> dropped;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (pick(*it->second)) {
        dropped.push_back(std::move(it->second));
        entries_.erase(it++);
      } else {
        ++it;
      }
    }
  }
  for (const std::shared_ptr<Entry>& entry : dropped) {
    std::shared_ptr<Host> host;
    {
      absl::MutexLock lock(&entry->load_mu);
      host = std::move(entry->host);
    }
    // The last user (this, or a request still running on it) disposes of its plugins.
    if (host != nullptr) host->DisposePlugins();
  }
}

core::ServerMode HostPool::Mode() {
  const std::string stamp = Fingerprint({{core::JoinPath(options_.home, "config.yaml"), 0}});
  absl::MutexLock lock(&mode_mu_);
  if (stamp != mode_stamp_) {
    mode_ = core::LoadConfig(options_.home, "", nullptr).server.mode;
    mode_stamp_ = stamp;
  }
  return mode_;
}

void HostPool::DropUnused() {
  const int64_t before = NowNs() - absl::ToInt64Nanoseconds(options_.unused_after);
  Drop([before](const Entry& e) { return e.users.load() == 0 && e.last_used_ns.load() < before; });
}

void HostPool::DropAll() {
  Drop([](const Entry&) { return true; });
}

std::string HostPool::Describe() const {
  const int64_t now = NowNs();
  std::vector<std::shared_ptr<Entry>> sorted;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [dir, entry] : entries_) sorted.push_back(entry);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a->project_dir < b->project_dir; });
  core::JsonWriter w;
  w.BeginArray();
  for (const std::shared_ptr<Entry>& entry : sorted) {
    w.BeginObject();
    w.Key("project_dir").String(entry->project_dir);
    w.Key("requests").Int(static_cast<int64_t>(entry->requests.load()));
    w.Key("reloads").Int(static_cast<int64_t>(entry->reloads.load()));
    w.Key("idle_ms").Int((now - entry->last_used_ns.load()) / 1000000);
    w.Key("plugins").Int(static_cast<int64_t>(entry->plugins.load()));
    w.EndObject();
  }
  w.EndArray();
  return w.Take();
}

}  // namespace plugline::server

#include "core/trust.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/digest.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/node_resolve.h"
#include "core/opencode_config.h"
#include "core/state_file.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

std::optional<std::string> RealPath(const std::string& path) {
  char buffer[PATH_MAX];
  if (::realpath(path.c_str(), buffer) == nullptr) return std::nullopt;
  return std::string(buffer);
}

std::string StampOf(const struct stat& st) {
  return StrCat(static_cast<int64_t>(st.st_size), ":",
                static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, ":",
                static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec, ":",
                static_cast<uint64_t>(st.st_dev), ":", static_cast<uint64_t>(st.st_ino));
}

// Walks directories and hashes what it finds, within the bounds.
class ContentWalker {
 public:
  ContentWalker(std::string project, const std::vector<ContentFile>* known)
      : project_(std::move(project)) {
    if (known != nullptr) {
      for (const ContentFile& file : *known) known_.emplace(file.path, &file);
    }
  }

  // `path` is absolute; what is recorded is relative to the project when under it.
  absl::Status AddFile(const std::string& path, const struct stat& st) {
    std::string shown = Shown(path);
    if (seen_files_.contains(shown)) return absl::OkStatus();
    if (files_.size() >= kTrustMaxFiles) {
      return absl::ResourceExhaustedError(
          StrCat("project ", project_, " has more than ", kTrustMaxFiles,
                 " files to trust (at ", path, "); plugline does not trust a project that large"));
    }
    bytes_ += static_cast<uint64_t>(st.st_size);
    if (bytes_ > kTrustMaxBytes) {
      return absl::ResourceExhaustedError(
          StrCat("project ", project_, " has more than ", kTrustMaxBytes >> 20,
                 " MiB of files to trust (at ", path, "); plugline does not trust a project that large"));
    }
    ContentFile file;
    file.path = shown;
    file.stamp = StampOf(st);
    if (auto it = known_.find(shown); it != known_.end() && it->second->stamp == file.stamp) {
      file.sha256 = it->second->sha256;
    } else {
      absl::StatusOr<std::string> sha = core::Sha256FileHex(path, kTrustMaxBytes);
      if (!sha.ok()) {
        if (absl::IsNotFound(sha.status())) return absl::OkStatus();  // gone meanwhile
        return sha.status();
      }
      file.sha256 = *std::move(sha);
    }
    seen_files_.insert(file.path);
    files_.push_back(std::move(file));
    return absl::OkStatus();
  }

  // Every regular file under `dir` (which may not exist), symlinks followed.
  absl::Status AddTree(const std::string& dir) {
    struct stat st;
    if (::stat(dir.c_str(), &st) != 0) return absl::OkStatus();
    if (S_ISREG(st.st_mode)) return AddFile(dir, st);
    if (!S_ISDIR(st.st_mode)) return absl::OkStatus();
    if (!seen_dirs_.insert({static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)})
             .second) {
      return absl::OkStatus();  // a link back up, or the same folder twice
    }
    absl::StatusOr<std::vector<std::string>> names = ListDir(dir);
    if (!names.ok()) {
      if (absl::IsNotFound(names.status())) return absl::OkStatus();
      return names.status();
    }
    std::sort(names->begin(), names->end());
    for (const std::string& name : *names) {
      if (absl::Status s = AddTree(JoinPath(dir, name)); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  ProjectContent Finish() && {
    std::sort(files_.begin(), files_.end(),
              [](const ContentFile& a, const ContentFile& b) { return a.path < b.path; });
    ProjectContent content;
    content.project = project_;
    std::string listing;
    for (const ContentFile& file : files_) StrAppend(&listing, file.sha256, "  ", file.path, "\n");
    // SHA-256 of nothing, without starting OpenSSL (whose first digest costs a process more
    // than a millisecond) for the common project with nothing to trust.
    content.digest = listing.empty()
                         ? "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
                         : core::Sha256Hex(listing);
    content.files = std::move(files_);
    return content;
  }

 private:
  std::string Shown(const std::string& path) const {
    if (path.size() > project_.size() + 1 && path.starts_with(project_) &&
        path[project_.size()] == '/') {
      return path.substr(project_.size() + 1);
    }
    return path;
  }

  std::string project_;
  absl::flat_hash_map<std::string, const ContentFile*> known_;
  std::vector<ContentFile> files_;
  std::set<std::string> seen_files_;
  std::set<std::pair<uint64_t, uint64_t>> seen_dirs_;
  uint64_t bytes_ = 0;
};

// The folder of package `name` as Node would find it from `from` (a package folder): the
// node_modules folders from `from` up to `project`, then `fallback`. "" when none holds it.
std::string FindPackageFolder(std::string_view name, const std::string& from,
                              const std::string& project, const std::vector<std::string>& fallback) {
  std::vector<std::string> dirs;
  for (std::string dir = from; dir.size() >= project.size() && dir.starts_with(project);) {
    if (!dir.ends_with("/node_modules")) dirs.push_back(JoinPath(dir, "node_modules"));
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    dir.resize(slash);
  }
  dirs.insert(dirs.end(), fallback.begin(), fallback.end());
  for (const std::string& dir : dirs) {
    std::string folder = JoinPath(dir, name);
    if (IsRegularFile(JoinPath(folder, "package.json"))) {
      return RealPath(folder).value_or(folder);
    }
  }
  return "";
}

// The names a package.json declares it needs.
std::vector<std::string> DeclaredDependencies(const std::string& folder) {
  std::vector<std::string> names;
  absl::StatusOr<std::string> text = ReadFile(JoinPath(folder, "package.json"));
  if (!text.ok()) return names;
  absl::StatusOr<Value> doc = ParseJson(*text, "package.json");
  if (!doc.ok() || !doc->is_object()) return names;
  for (std::string_view key : {"dependencies", "optionalDependencies", "peerDependencies"}) {
    const Value* deps = doc->Find(key);
    if (deps == nullptr || !deps->is_object()) continue;
    for (const auto& [name, version] : deps->as_object()) {
      // Only valid npm names: a name is joined to a folder.
      if (ParsePackageSpec(name).ok() && ParsePackageSpec(name)->name == name) {
        names.push_back(name);
      }
    }
  }
  return names;
}

constexpr std::string_view kTrustFile = "trust.json";

absl::Status ValidateStore(const Value& doc) {
  const Value* projects = doc.Find("projects");
  if (projects == nullptr) return absl::OkStatus();
  if (absl::Status s = ExpectObject(*projects, "projects"); !s.ok()) return s;
  for (const auto& [path, record] : projects->as_object()) {
    std::string where = StrCat("projects.", path);
    if (absl::Status s = ExpectObject(record, where); !s.ok()) return s;
    for (std::string_view key : {"trusted_at", "digest"}) {
      const Value* v = record.Find(key);
      if (v == nullptr) return absl::InvalidArgumentError(StrCat("`", where, ".", key, "` is missing"));
      if (absl::Status s = ExpectString(*v, StrCat(where, ".", key)); !s.ok()) return s;
    }
    const Value* files = record.Find("files");
    if (files == nullptr) return absl::InvalidArgumentError(StrCat("`", where, ".files` is missing"));
    if (absl::Status s = ExpectArray(*files, StrCat(where, ".files")); !s.ok()) return s;
    for (size_t i = 0; i < files->as_array().size(); ++i) {
      const Value& file = files->as_array()[i];
      std::string at = StrCat(where, ".files[", i, "]");
      if (absl::Status s = ExpectObject(file, at); !s.ok()) return s;
      for (std::string_view key : {"path", "sha256", "stamp"}) {
        const Value* v = file.Find(key);
        if (v == nullptr) return absl::InvalidArgumentError(StrCat("`", at, ".", key, "` is missing"));
        if (absl::Status s = ExpectString(*v, StrCat(at, ".", key)); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

StateFile Store(const std::string& path) {
  StateFileOptions options;
  options.path = path;
  options.version = 1;
  options.validate = ValidateStore;
  return StateFile(std::move(options));
}

TrustStore::Record RecordFrom(const std::string& project, const Value& value) {
  TrustStore::Record record;
  record.project = project;
  record.trusted_at = value.Find("trusted_at")->as_string();
  record.digest = value.Find("digest")->as_string();
  for (const Value& file : value.Find("files")->as_array()) {
    record.files.push_back({file.Find("path")->as_string(), file.Find("sha256")->as_string(),
                            file.Find("stamp")->as_string()});
  }
  return record;
}

// The absolute form of a project path that may no longer exist (for --revoke).
std::string AbsolutePath(const std::string& path) {
  if (std::optional<std::string> real = RealPath(path)) return *real;
  if (path.starts_with("/")) return path;
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  return JoinPath(cwd, path);
}

}  // namespace

absl::StatusOr<ProjectContent> ScanProjectContent(const std::string& project_dir,
                                                  const std::vector<ContentFile>* known,
                                                  bool opencode) {
  std::optional<std::string> project = RealPath(project_dir);
  if (!project.has_value() || !IsDirectory(*project)) {
    return absl::NotFoundError(StrCat("project directory ", project_dir, " does not exist"));
  }
  ContentWalker walker(*project, known);
  const std::string dot = JoinPath(*project, ".plugline");
  const std::string config_path = JoinPath(dot, "config.yaml");
  if (absl::Status s = walker.AddTree(config_path); !s.ok()) return s;
  if (absl::Status s = walker.AddTree(JoinPath(dot, "plugins")); !s.ok()) return s;
  // What the config file adds; read quietly (problems are reported when it is used).
  Config config;
  absl::StatusOr<std::string> text = IsRegularFile(config_path)
                                         ? ReadFile(config_path)
                                         : absl::StatusOr<std::string>(absl::NotFoundError(""));
  if (text.ok()) {
    ApplyConfigText(*text, config_path, &config, nullptr, *project, "project-config");
  }
  for (const ConfigDir& dir : config.plugins.dirs) {
    if (absl::Status s = walker.AddTree(dir.path); !s.ok()) return s;
  }
  const std::vector<std::string> project_modules = {JoinPath(dot, "node_modules"),
                                                    JoinPath(*project, "node_modules")};
  std::vector<std::string> pending;
  for (const ConfigPackage& package : config.plugins.packages) {
    absl::StatusOr<PackageSpec> spec = ParsePackageSpec(package.spec);
    if (!spec.ok()) continue;
    std::string folder = FindPackageFolder(spec->name, "", *project, project_modules);
    if (!folder.empty()) pending.push_back(folder);
  }
  if (opencode) {
    const std::string dot_opencode = JoinPath(*project, ".opencode");
    const std::vector<std::string> opencode_modules = {JoinPath(dot_opencode, "node_modules")};
    for (const std::string& dir : {*project, dot_opencode}) {
      // OpenCode's config files matter only when they name plugins: a project whose
      // opencode.json only picks a model has nothing of it to trust.
      const std::vector<OpenCodePluginEntry> entries = ReadOpenCodePlugins(dir, nullptr);
      if (entries.empty()) continue;
      for (const char* name : {"opencode.json", "opencode.jsonc"}) {
        if (absl::Status s = walker.AddTree(JoinPath(dir, name)); !s.ok()) return s;
      }
      for (const OpenCodePluginEntry& entry : entries) {
        if (!entry.path.empty()) {
          // A file:// entry inside the project is the project's; one outside is the user's.
          if (entry.path.starts_with(StrCat(*project, "/"))) {
            if (absl::Status s = walker.AddTree(entry.path); !s.ok()) return s;
          }
          continue;
        }
        absl::StatusOr<PackageSpec> spec = ParsePackageSpec(entry.package);
        if (!spec.ok()) continue;
        std::string folder = FindPackageFolder(spec->name, "", *project, opencode_modules);
        if (!folder.empty() && folder.starts_with(StrCat(*project, "/"))) pending.push_back(folder);
      }
    }
    for (const char* folder : {"plugins", "plugin", "tools", "tool"}) {
      if (absl::Status s = walker.AddTree(JoinPath(dot_opencode, folder)); !s.ok()) return s;
    }
  }
  std::set<std::string> done;
  while (!pending.empty()) {
    std::string folder = std::move(pending.back());
    pending.pop_back();
    if (!done.insert(folder).second) continue;
    if (absl::Status s = walker.AddTree(folder); !s.ok()) return s;
    for (const std::string& dep : DeclaredDependencies(folder)) {
      std::string found = FindPackageFolder(dep, folder, *project, project_modules);
      // Only what the project holds: a dependency elsewhere is the user's own.
      if (!found.empty() && found.starts_with(StrCat(*project, "/"))) pending.push_back(found);
    }
  }
  return std::move(walker).Finish();
}

std::string EffectiveProjectDir(const std::string& home, const std::string& project_dir) {
  if (project_dir.empty()) return "";
  std::optional<std::string> project = RealPath(project_dir);
  if (!project.has_value() || !IsDirectory(*project)) return "";
  std::optional<std::string> dot = RealPath(JoinPath(*project, ".plugline"));
  std::optional<std::string> real_home = RealPath(home);
  if (dot.has_value() && real_home.has_value() && *dot == *real_home) return "";
  return *project;
}

std::string UntrustedReason(const TrustCheck& check) {
  // The path as a shell would need it typed.
  std::string shown = check.project;
  if (shown.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "-_./=:,+@%") != std::string::npos) {
    shown = "'";
    for (char c : check.project) shown += c == '\'' ? std::string("'\\''") : std::string(1, c);
    shown += "'";
  }
  const std::string command = StrCat("`plugline trust ", shown, "`");
  switch (check.state) {
    case TrustState::kNothingToTrust:
    case TrustState::kTrusted:
      return "";
    case TrustState::kUntrusted:
      return StrCat("project ", check.project,
                    " is not trusted, so its .plugline/ config and plugins are ignored: review "
                    "them with `plugline trust --show ", shown, "`, then run ", command);
    case TrustState::kChanged: {
      std::string what;
      auto add = [&](std::string_view verb, const std::vector<std::string>& paths) {
        if (paths.empty()) return;
        StrAppend(&what, what.empty() ? "" : ", ", paths.size(), " ", verb, " (", paths.front(),
                  paths.size() > 1 ? ", …" : "", ")");
      };
      add("added", check.added);
      add("changed", check.changed);
      add("removed", check.removed);
      return StrCat("project ", check.project, " changed since it was trusted (", what,
                    "), so its .plugline/ config and plugins are ignored: review them with "
                    "`plugline trust --show ", shown, "`, then run ", command, " again");
    }
    case TrustState::kUnknown:
      return StrCat("project ", check.project, " cannot be checked (", check.problem,
                    "), so its .plugline/ config and plugins are ignored");
  }
  return "";
}

TrustStore::TrustStore(std::string home, bool opencode)
    : home_(std::move(home)), path_(JoinPath(home_, kTrustFile)), opencode_(opencode) {}

bool OpenCodeLocationsOn(const std::string& home) {
  return LoadConfig(home, "", nullptr).plugins.opencode;
}

TrustCheck TrustStore::Check(const std::string& project_dir,
                             std::vector<std::string>* warnings) const {
  TrustCheck check;
  check.project = AbsolutePath(project_dir);
  std::optional<Record> record;
  absl::StatusOr<Value> doc = Store(path_).Read(warnings);
  if (!doc.ok()) {
    if (warnings != nullptr) {
      warnings->push_back(StrCat(doc.status().message(), "; no project is trusted"));
    }
  } else if (const Value* projects = doc->Find("projects"); projects != nullptr) {
    if (const Value* found = projects->Find(check.project); found != nullptr) {
      record = RecordFrom(check.project, *found);
    }
  }
  absl::StatusOr<ProjectContent> content =
      ScanProjectContent(check.project, record.has_value() ? &record->files : nullptr, opencode_);
  if (!content.ok()) {
    check.state = TrustState::kUnknown;
    check.problem = std::string(content.status().message());
    return check;
  }
  check.content = *std::move(content);
  if (check.content.files.empty()) {
    check.state = TrustState::kNothingToTrust;
    return check;
  }
  if (!record.has_value()) {
    check.state = TrustState::kUntrusted;
    return check;
  }
  check.trusted_at = record->trusted_at;
  absl::flat_hash_map<std::string, const ContentFile*> before;
  for (const ContentFile& file : record->files) before.emplace(file.path, &file);
  for (const ContentFile& file : check.content.files) {
    auto it = before.find(file.path);
    if (it == before.end()) {
      check.added.push_back(file.path);
    } else {
      if (it->second->sha256 != file.sha256) check.changed.push_back(file.path);
      before.erase(it);
    }
  }
  for (const ContentFile& file : record->files) {
    if (before.contains(file.path)) check.removed.push_back(file.path);
  }
  check.state = check.added.empty() && check.changed.empty() && check.removed.empty()
                    ? TrustState::kTrusted
                    : TrustState::kChanged;
  return check;
}

absl::StatusOr<ProjectContent> TrustStore::Trust(const std::string& project_dir,
                                                 std::vector<std::string>* warnings) {
  absl::StatusOr<ProjectContent> content = ScanProjectContent(project_dir, nullptr, opencode_);
  if (!content.ok()) return content.status();
  if (content->files.empty()) {
    return absl::FailedPreconditionError(
        StrCat("project ", content->project,
               " has nothing to trust (no .plugline/config.yaml, no .plugline/plugins/",
               opencode_ ? ", no OpenCode plugins" : "", ")"));
  }
  if (absl::Status s = MakeDirs(home_); !s.ok()) return s;
  const std::string when = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone());
  absl::Status written = Store(path_).Update(
      [&](Value& doc) {
        Value record(ValueObject{});
        record.Set("trusted_at", Value(when));
        record.Set("digest", Value(content->digest));
        ValueArray files;
        for (const ContentFile& file : content->files) {
          Value entry(ValueObject{});
          entry.Set("path", Value(file.path));
          entry.Set("sha256", Value(file.sha256));
          entry.Set("stamp", Value(file.stamp));
          files.push_back(std::move(entry));
        }
        record.Set("files", Value(std::move(files)));
        Value projects = doc.Find("projects") != nullptr ? *doc.Find("projects") : Value(ValueObject{});
        projects.Set(content->project, std::move(record));
        doc.Set("projects", std::move(projects));
        return absl::OkStatus();
      },
      warnings);
  if (!written.ok()) return written;
  return content;
}

absl::Status TrustStore::Revoke(const std::string& project_dir,
                                std::vector<std::string>* warnings) {
  const std::string project = AbsolutePath(project_dir);
  bool found = false;
  absl::Status written = Store(path_).Update(
      [&](Value& doc) {
        Value* projects = nullptr;
        for (auto& [key, value] : doc.as_object()) {
          if (key == "projects" && value.is_object()) projects = &value;
        }
        if (projects == nullptr) return absl::OkStatus();
        ValueObject& members = projects->as_object();
        auto it = std::find_if(members.begin(), members.end(),
                               [&](const auto& member) { return member.first == project; });
        if (it != members.end()) {
          members.erase(it);
          found = true;
        }
        return absl::OkStatus();
      },
      warnings);
  if (!written.ok()) return written;
  if (!found) return absl::NotFoundError(StrCat("project ", project, " is not trusted"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TrustStore::Record>> TrustStore::List(
    std::vector<std::string>* warnings) const {
  absl::StatusOr<Value> doc = Store(path_).Read(warnings);
  if (!doc.ok()) return doc.status();
  std::vector<Record> records;
  if (const Value* projects = doc->Find("projects"); projects != nullptr) {
    for (const auto& [path, value] : projects->as_object()) {
      records.push_back(RecordFrom(path, value));
    }
  }
  std::sort(records.begin(), records.end(),
            [](const Record& a, const Record& b) { return a.project < b.project; });
  return records;
}

}  // namespace plugline::core

// Project trust (docs/security.md): a project's .plugline/ configuration and plugins are inert
// until the user trusts the project (`plugline trust`), as direnv's `direnv allow` and editors'
// workspace trust do. Trust is recorded in <home>/trust.json by content: the SHA-256 of every
// file that would load from the project, so a changed or added file needs trusting again.
//
// What a project's content is (ScanProjectContent), every regular file under:
//   <project>/.plugline/config.yaml (the file itself);
//   <project>/.plugline/plugins/, recursively;
//   each `plugins.dirs` entry of that config file, recursively;
//   each `plugins.packages` entry of that file found in <project>/.plugline/node_modules or
//   <project>/node_modules: the package's folder, recursively, and the folders of the
//   packages it declares (dependencies, optionalDependencies, peerDependencies), transitively,
//   found as Node finds them (node_modules folders from the package up to the project, then
//   the project's two). A package found only in <home>/node_modules is the user's own and is
//   not part of the project.
// With OpenCode's locations on (the global config's `plugins.opencode`), also:
//   <project>/opencode.json and opencode.jsonc, and .opencode/opencode.json and
//   .opencode/opencode.jsonc, when that folder's files name plugins (a `plugin` list);
//   <project>/.opencode/plugins/, plugin/, tools/ and tool/, recursively;
//   the `file://` entries of those files' `plugin` lists that are inside the project, and their
//   packages found in <project>/.opencode/node_modules (as above; OpenCode's own cache is the
//   user's).
// Symlinks are followed (a file is recorded under the path it is reached by, with the
// content of its target); a directory reached twice is walked once; anything but regular files
// and directories (FIFOs, sockets, devices, dangling links) never loads and is not recorded.
// A project with none of these files has nothing to trust.
//
// Checking costs one stat per file: a file whose size, mtime, ctime, device and inode are those
// recorded when it was hashed keeps its recorded hash (ctime cannot be set back from user
// space); any other file is hashed again.
//
// trust.json, a state file (core/state_file.h: versioned, written atomically under a lock, a
// malformed one moved aside with a warning, a newer one never overwritten):
//   {"version": 1,
//    "projects": {"/real/path/of/project": {
//        "trusted_at": "2026-11-29T12:00:00Z", "digest": "<sha256 of the listing>",
//        "files": [{"path": ".plugline/config.yaml", "sha256": "...", "stamp": "..."}]}}}
#ifndef PLUGLINE_CORE_TRUST_H_
#define PLUGLINE_CORE_TRUST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace plugline::core {

// Bounds of one project's content: past them the project cannot be trusted (the error says
// which bound and where).
inline constexpr size_t kTrustMaxFiles = 20000;
inline constexpr uint64_t kTrustMaxBytes = uint64_t{1} << 30;

struct ContentFile {
  // Relative to the project when reached through it (".plugline/plugins/guard.js"), else
  // absolute (a `plugins.dirs` entry outside the project).
  std::string path;
  std::string sha256;  // lower-case hex
  std::string stamp;   // "size:mtime_ns:ctime_ns:device:inode" when it was hashed
  bool operator==(const ContentFile& other) const {
    return path == other.path && sha256 == other.sha256;
  }
};

struct ProjectContent {
  std::string project;             // the project's real path
  std::vector<ContentFile> files;  // sorted by path
  std::string digest;              // SHA-256 of "<sha256>  <path>\n" for every file, in order
};

// The content of `project_dir` now. `known` (may be null): files hashed before, whose hash is
// reused when their stamp has not changed. Errors: NotFound (no such directory),
// ResourceExhausted (past kTrustMaxFiles or kTrustMaxBytes), PermissionDenied (a file that
// cannot be read) — each naming the path.
absl::StatusOr<ProjectContent> ScanProjectContent(const std::string& project_dir,
                                                  const std::vector<ContentFile>* known = nullptr,
                                                  bool opencode = false);

// The real path of `project_dir` when it is a project of its own; "" when it is empty, does not
// exist, or its .plugline/ is the home itself (running plugline in the folder that holds
// ~/.plugline: that configuration is the user's own, not a project's).
std::string EffectiveProjectDir(const std::string& home, const std::string& project_dir);

enum class TrustState {
  kNothingToTrust,  // the project has no .plugline/ content
  kTrusted,         // recorded, and the content is what was recorded
  kUntrusted,       // never trusted (or revoked)
  kChanged,         // trusted, but files were added, changed or removed since
  kUnknown,         // could not be checked (content unreadable or too large, store unreadable)
};

struct TrustCheck {
  TrustState state = TrustState::kNothingToTrust;
  std::string project;     // real path
  ProjectContent content;  // what is there now (empty when it could not be scanned)
  std::vector<std::string> added, changed, removed;  // kChanged: paths, against the record
  std::string problem;     // kUnknown: why
  std::string trusted_at;  // kTrusted, kChanged: when it was trusted
};

// "project /p is not trusted: run `plugline trust /p`" and the like: one line saying why a
// project's content is inert and what to run; "" for kNothingToTrust and kTrusted.
std::string UntrustedReason(const TrustCheck& check);

class TrustStore {
 public:
  // `opencode`: whether the project's OpenCode locations are part of its content (the global
  // config's plugins.opencode; OpenCodeLocationsOn).
  explicit TrustStore(std::string home, bool opencode = false);

  // Whether the content of `project_dir` (a real path, EffectiveProjectDir) is trusted now.
  // Problems with trust.json (malformed: moved aside; newer: not read) go to `warnings`.
  TrustCheck Check(const std::string& project_dir, std::vector<std::string>* warnings) const;

  // Records the content of `project_dir` as it is now as trusted (replacing an earlier
  // record). Errors: those of ScanProjectContent; FailedPrecondition when the project has
  // nothing to trust or trust.json is of a newer version; the store's write errors.
  absl::StatusOr<ProjectContent> Trust(const std::string& project_dir,
                                       std::vector<std::string>* warnings);

  // Forgets the project. NotFound when it is not trusted.
  absl::Status Revoke(const std::string& project_dir, std::vector<std::string>* warnings);

  struct Record {
    std::string project;
    std::string trusted_at;
    std::string digest;
    std::vector<ContentFile> files;
  };
  // Every trusted project, by path.
  absl::StatusOr<std::vector<Record>> List(std::vector<std::string>* warnings) const;

  const std::string& path() const { return path_; }

 private:
  std::string home_;
  std::string path_;
  bool opencode_ = false;
};

// Whether the global config of `home` turns OpenCode's locations on (plugins.opencode), read
// quietly (problems are reported when the config is loaded for use).
bool OpenCodeLocationsOn(const std::string& home);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_TRUST_H_

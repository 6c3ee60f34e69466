// Small filesystem helpers with absl::Status errors that name the path.
#ifndef PLUGLINE_CORE_FS_H_
#define PLUGLINE_CORE_FS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace plugline::core {

enum class Durability {
  kNone,   // rename is atomic for readers; contents may be lost on power failure
  kFsync,  // also fsync the file and its directory before returning
};

// Writes `data` to `path` atomically: readers see the old file or the whole new one, never a
// part. Writes a temporary file in the same directory and renames it over `path`.
absl::Status WriteFileAtomic(const std::string& path, std::string_view data,
                             Durability durability = Durability::kFsync);

// Reads a whole file, or its first `max_bytes` + 1 bytes when it is longer (so a caller with a
// bound can tell that it was exceeded without reading more). NotFound when it does not exist,
// FailedPrecondition for a directory.
absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes = SIZE_MAX);

// mkdir -p with mode 0700 for directories it creates. FailedPrecondition when a component
// exists and is not a directory.
absl::Status MakeDirs(const std::string& path);

// True when `path` names an existing file or directory.
bool PathExists(const std::string& path);
// True when `path` names a regular file / a directory (symlinks followed).
bool IsRegularFile(const std::string& path);
bool IsDirectory(const std::string& path);

// Names of the entries of a directory (no "." or ".."), unsorted.
absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path);

// Joins path components with exactly one '/' between them.
std::string JoinPath(std::string_view a, std::string_view b);

// Converts an errno value into a Status whose message is "<what>: <strerror>".
absl::Status ErrnoToStatus(int err, std::string_view what);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_FS_H_

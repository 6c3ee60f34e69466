// V8 code caches on disk, keyed by content: one file per compiled source,
//   <dir>/<SHA-256 of the source, hex>-<ScriptCompiler::CachedDataVersionTag(), hex>.v8cache
// so an unchanged plugin compiles from cache in a new process, and an edited one (or another
// V8 build) simply misses. Each file is a small header (magic, payload length, SHA-256 of the
// payload) followed by V8's bytes: a truncated or corrupted file is detected here and never
// handed to V8, whose own checks are partly compiled out of release builds.
//
// Files are written atomically (a temporary file in the same directory, then rename), so
// concurrent processes see either no file or a whole one. Nothing here touches V8.
#ifndef PLUGLINE_JS_V8_CODE_CACHE_H_
#define PLUGLINE_JS_V8_CODE_CACHE_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace plugline::js::v8backend {

// Lowercase hex of the SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// mkdir -p; every directory it creates gets mode 0700.
absl::Status MakeDirs(const std::string& dir);

// A file's content; nullopt when it does not exist (*why stays as it was) or cannot be read
// (*why says why). Shared by the code cache and the TypeScript cache.
std::optional<std::string> ReadFileIfAny(const std::string& path, std::string* why);

// Writes the concatenation of `parts` to `path` atomically: a temporary file beside it (mode
// 0600), then rename, so a concurrent reader sees no file or the whole file. The directory
// must exist.
absl::Status WriteFileAtomic(const std::string& path,
                             std::initializer_list<std::string_view> parts);

class CodeCacheStore {
 public:
  // `dir` need not exist yet; it is created (mode 0700) on the first write.
  CodeCacheStore(std::string dir, uint32_t version_tag);

  // The cache file for a source text.
  std::string PathFor(std::string_view source) const;

  // The V8 payload stored at `path`, or nullopt when there is none or the file is damaged
  // (then *why says what was wrong; empty when the file does not exist).
  std::optional<std::string> Read(const std::string& path, std::string* why) const;

  // Stores `payload` at `path` atomically.
  absl::Status Write(const std::string& path, std::string_view payload) const;

 private:
  std::string dir_;
  uint32_t version_tag_;
};

}  // namespace plugline::js::v8backend

#endif  // PLUGLINE_JS_V8_CODE_CACHE_H_

// SHA-256 of bytes, and of a file read in pieces (OpenSSL): what project trust records for
// every file it trusts (core/trust.h), and what the catalog checks downloads against.
#ifndef PLUGLINE_CORE_DIGEST_H_
#define PLUGLINE_CORE_DIGEST_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace plugline::core {

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// Lower-case hex SHA-256 of the regular file at `path` (symlinks followed), read 64 KiB at a
// time so memory stays flat whatever its size. Opened with O_NONBLOCK and checked to be a
// regular file after opening, so a FIFO or device put in its place never blocks the caller.
// Errors name the path: NotFound, PermissionDenied, FailedPrecondition (not a regular file),
// ResourceExhausted (larger than `max_bytes`).
absl::StatusOr<std::string> Sha256FileHex(const std::string& path,
                                          uint64_t max_bytes = UINT64_MAX);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_DIGEST_H_

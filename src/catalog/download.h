// Downloading catalog files (file://, http://, https://) with checksum verification.
#ifndef PLUGLINE_CATALOG_DOWNLOAD_H_
#define PLUGLINE_CATALOG_DOWNLOAD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "catalog/digest.h"  // Sha256Hex, for callers that check what they fetched

namespace plugline::catalog {

struct DownloadOptions {
  // Lower-case hex SHA-256 the content must have; empty: not checked.
  std::string expected_sha256;
  // Larger downloads are refused (ResourceExhausted) without keeping anything.
  uint64_t max_bytes = 64ull << 20;
  absl::Duration timeout = absl::Seconds(60);
};

struct Downloaded {
  std::string content;
  std::string sha256;  // lower-case hex of content
};

// Fetches `url` into memory. Errors: InvalidArgument (unsupported scheme), NotFound (HTTP 404
// or a missing file), Unavailable (network failure, other HTTP errors), DeadlineExceeded,
// ResourceExhausted (over max_bytes), DataLoss (checksum mismatch: the message shows both
// digests). Every message names the URL.
absl::StatusOr<Downloaded> Fetch(const std::string& url, const DownloadOptions& options);

// Fetch() then write the content to `dest_path` atomically. On any failure nothing is left at
// `dest_path` (an existing file there is untouched) and no temporary file remains.
absl::StatusOr<Downloaded> DownloadToFile(const std::string& url, const std::string& dest_path,
                                          const DownloadOptions& options);


}  // namespace plugline::catalog

#endif  // PLUGLINE_CATALOG_DOWNLOAD_H_

// Downloading catalog files (file://, http://, https://) with checksum verification.
#ifndef PLUGLINE_CATALOG_DOWNLOAD_H_
#define PLUGLINE_CATALOG_DOWNLOAD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/digest.h"  // Sha256Hex, for callers that check what they fetched

namespace plugline::catalog {

struct DownloadOptions {
  // Lower-case hex SHA-256 the content must have; empty: not checked.
  std::string expected_sha256;
  // Larger downloads are refused (ResourceExhausted) without keeping anything.
  uint64_t max_bytes = 64ull << 20;
  absl::Duration timeout = absl::Seconds(60);
  // A conditional request (HTTP only): the ETag and Last-Modified of the copy the caller has.
  // A server that answers 304 gives Downloaded::not_modified and no content.
  std::string if_none_match;
  std::string if_modified_since;
  // Called as bytes arrive: received so far, and the total when the server said (else 0).
  std::function<void(uint64_t received, uint64_t total)> progress;
};

struct Downloaded {
  std::string content;
  std::string sha256;  // lower-case hex of content
  bool not_modified = false;  // 304: the caller's copy is current (content is empty)
  std::string etag;           // the response's ETag and Last-Modified ("" when none)
  std::string last_modified;
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

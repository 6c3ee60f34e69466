#include "catalog/download.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include "absl/base/call_once.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/fs.h"

namespace plugline::catalog {
namespace {

using core::Sha256Hex;

struct Sink {
  std::string data;
  uint64_t max_bytes = 0;
  bool overflow = false;
  const std::function<void(uint64_t, uint64_t)>* progress = nullptr;
  uint64_t total = 0;  // Content-Length, when sent
  std::string etag, last_modified;
};

size_t OnData(char* ptr, size_t size, size_t nmemb, void* user) {
  auto* sink = static_cast<Sink*>(user);
  size_t n = size * nmemb;
  if (sink->data.size() + n > sink->max_bytes) {
    sink->overflow = true;
    return 0;  // makes curl abort with CURLE_WRITE_ERROR
  }
  sink->data.append(ptr, n);
  if (sink->progress != nullptr && *sink->progress) (*sink->progress)(sink->data.size(), sink->total);
  return n;
}

// Keeps the headers a cache needs: ETag, Last-Modified, Content-Length. A redirect's headers
// come first and are replaced by the final response's.
size_t OnHeader(char* ptr, size_t size, size_t nmemb, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const size_t n = size * nmemb;
  std::string_view line(ptr, n);
  if (line.starts_with("HTTP/")) {
    sink->etag.clear();
    sink->last_modified.clear();
    sink->total = 0;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  const std::string name = absl::AsciiStrToLower(ToAbsl(line.substr(0, colon)));
  const std::string value(absl::StripAsciiWhitespace(ToAbsl(line.substr(colon + 1))));
  if (name == "etag") sink->etag = value;
  if (name == "last-modified") sink->last_modified = value;
  if (name == "content-length") (void)absl::SimpleAtoi(value, &sink->total);
  return n;
}

void GlobalInitOnce() {
  static absl::once_flag once;
  absl::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

absl::StatusOr<Downloaded> Fetch(const std::string& url, const DownloadOptions& options) {
  std::string lower = absl::AsciiStrToLower(url);
  if (!absl::StartsWith(lower, "file://") && !absl::StartsWith(lower, "http://") &&
      !absl::StartsWith(lower, "https://")) {
    return absl::InvalidArgumentError(
        StrCat(url, ": unsupported URL (use file://, http:// or https://)"));
  }
  GlobalInitOnce();
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::ResourceExhaustedError("curl_easy_init failed");
  Sink sink;
  sink.max_bytes = options.max_bytes;
  sink.progress = &options.progress;
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "file,http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  // An error status ends the transfer before its body (a 404 page is not the file).
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options.timeout)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnData);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &sink);
  struct curl_slist* headers = nullptr;
  if (!options.if_none_match.empty()) {
    headers = curl_slist_append(headers, StrCat("If-None-Match: ", options.if_none_match).c_str());
  }
  if (!options.if_modified_since.empty()) {
    headers = curl_slist_append(headers,
                                StrCat("If-Modified-Since: ", options.if_modified_since).c_str());
  }
  if (headers != nullptr) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "plugline");
  if (options.max_bytes > 0) {
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE,
                     static_cast<curl_off_t>(options.max_bytes));
  }
  CURLcode rc = curl_easy_perform(curl);
  long http_status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http_status);
  curl_easy_cleanup(curl);
  curl_slist_free_all(headers);

  if (http_status >= 400) {
    std::string what = StrCat(url, ": HTTP ", http_status);
    return http_status == 404 ? absl::NotFoundError(what) : absl::UnavailableError(what);
  }
  if (sink.overflow || rc == CURLE_FILESIZE_EXCEEDED) {
    return absl::ResourceExhaustedError(
        StrCat(url, ": larger than the limit of ", options.max_bytes, " bytes"));
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    return absl::DeadlineExceededError(StrCat(url, ": timed out after ",
                                                    absl::FormatDuration(options.timeout)));
  }
  if (rc == CURLE_FILE_COULDNT_READ_FILE) {
    return absl::NotFoundError(StrCat(url, ": ", error[0] ? error : "cannot read file"));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(
        StrCat(url, ": ", error[0] ? error : curl_easy_strerror(rc)));
  }
  Downloaded result;
  result.etag = std::move(sink.etag);
  result.last_modified = std::move(sink.last_modified);
  if (http_status == 304) {
    result.not_modified = true;
    return result;
  }
  result.sha256 = Sha256Hex(sink.data);
  result.content = std::move(sink.data);
  if (!options.expected_sha256.empty() &&
      absl::AsciiStrToLower(options.expected_sha256) != result.sha256) {
    return absl::DataLossError(StrCat(url, ": checksum mismatch: expected sha256 ",
                                            options.expected_sha256, ", got ", result.sha256));
  }
  return result;
}

absl::StatusOr<Downloaded> DownloadToFile(const std::string& url, const std::string& dest_path,
                                          const DownloadOptions& options) {
  absl::StatusOr<Downloaded> fetched = Fetch(url, options);
  if (!fetched.ok()) return fetched.status();
  absl::Status written = core::WriteFileAtomic(dest_path, fetched->content);
  if (!written.ok()) return written;
  return fetched;
}

}  // namespace plugline::catalog

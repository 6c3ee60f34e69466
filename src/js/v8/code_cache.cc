#include "js/v8/code_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "core/strings.h"

namespace plugline::js::v8backend {
namespace {

// File layout: magic (8) | payload length (8, little endian) | SHA-256 of payload (32) | payload
constexpr char kMagic[8] = {'P', 'L', 'V', '8', 'C', 'C', '0', '1'};
constexpr size_t kDigestSize = 32;
constexpr size_t kHeaderSize = sizeof kMagic + 8 + kDigestSize;

void Sha256(std::string_view data, unsigned char out[kDigestSize]) {
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), out, &size, EVP_sha256(), nullptr);
}

std::string Hex(const unsigned char* bytes, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(size * 2, '0');
  for (size_t i = 0; i < size; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::Status MakeDirs(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    return S_ISDIR(st.st_mode) ? absl::OkStatus()
                               : absl::FailedPreconditionError(StrCat(dir, " is not a directory"));
  }
  size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    absl::Status parent = MakeDirs(dir.substr(0, slash));
    if (!parent.ok()) return parent;
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(StrCat("cannot create ", dir, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

std::optional<std::string> ReadFileIfAny(const std::string& path, std::string* why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) *why = StrCat("cannot read: ", strerror(errno));
    return std::nullopt;
  }
  std::string data;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0) data.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *why = StrCat("cannot read: ", strerror(errno));
      close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return data;
}

absl::Status WriteFileAtomic(const std::string& path,
                             std::initializer_list<std::string_view> parts) {
  std::string temp = StrCat(path, ".tmp-XXXXXX");
  int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0)
    return absl::PermissionDeniedError(StrCat("cannot create ", temp, ": ", strerror(errno)));
  bool written = true;
  for (std::string_view part : parts) {
    if (written) written = WriteAll(fd, part.data(), part.size());
  }
  int saved_errno = errno;
  if (close(fd) != 0 && written) {
    written = false;
    saved_errno = errno;
  }
  if (!written || rename(temp.c_str(), path.c_str()) != 0) {
    if (written) saved_errno = errno;
    unlink(temp.c_str());
    return absl::InternalError(StrCat("cannot write ", path, ": ", strerror(saved_errno)));
  }
  return absl::OkStatus();
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[kDigestSize];
  Sha256(data, digest);
  return Hex(digest, kDigestSize);
}

CodeCacheStore::CodeCacheStore(std::string dir, uint32_t version_tag)
    : dir_(std::move(dir)), version_tag_(version_tag) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
}

std::string CodeCacheStore::PathFor(std::string_view source) const {
  char tag[16];
  snprintf(tag, sizeof tag, "%08x", version_tag_);
  return StrCat(dir_, "/", Sha256Hex(source), "-", tag, ".v8cache");
}

std::optional<std::string> CodeCacheStore::Read(const std::string& path, std::string* why) const {
  why->clear();
  std::optional<std::string> read = ReadFileIfAny(path, why);
  if (!read.has_value()) return std::nullopt;
  std::string& data = *read;
  if (data.size() < kHeaderSize || memcmp(data.data(), kMagic, sizeof kMagic) != 0) {
    *why = "not a plugline code cache file";
    return std::nullopt;
  }
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) {
    length = (length << 8) | static_cast<unsigned char>(data[sizeof kMagic + i]);
  }
  if (length != data.size() - kHeaderSize) {
    *why = "truncated";
    return std::nullopt;
  }
  unsigned char digest[kDigestSize];
  Sha256(std::string_view(data).substr(kHeaderSize), digest);
  if (memcmp(digest, data.data() + sizeof kMagic + 8, kDigestSize) != 0) {
    *why = "checksum mismatch";
    return std::nullopt;
  }
  data.erase(0, kHeaderSize);
  return data;
}

absl::Status CodeCacheStore::Write(const std::string& path, std::string_view payload) const {
  absl::Status made = MakeDirs(dir_);
  if (!made.ok()) return made;
  std::string header(kHeaderSize, '\0');
  memcpy(header.data(), kMagic, sizeof kMagic);
  uint64_t length = payload.size();
  for (int i = 0; i < 8; ++i)
    header[sizeof kMagic + i] = static_cast<char>((length >> (8 * i)) & 0xff);
  Sha256(payload, reinterpret_cast<unsigned char*>(header.data() + sizeof kMagic + 8));

  return WriteFileAtomic(path, {header, payload});
}

}  // namespace plugline::js::v8backend

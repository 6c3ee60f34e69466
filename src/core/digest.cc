#include "core/digest.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "absl/strings/escaping.h"
#include "core/fs.h"
#include "core/strings.h"

namespace plugline::core {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), length));
}

absl::StatusOr<std::string> Sha256FileHex(const std::string& path, uint64_t max_bytes) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return core::ErrnoToStatus(errno, StrCat("cannot read ", path));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return core::ErrnoToStatus(errno, StrCat("cannot stat ", path));
  if (!S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(StrCat(path, " is not a regular file"));
  }
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (ctx == nullptr || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return absl::ResourceExhaustedError(StrCat("cannot hash ", path, ": out of memory"));
  }
  char buffer[65536];
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return core::ErrnoToStatus(errno, StrCat("cannot read ", path));
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > max_bytes) {
      return absl::ResourceExhaustedError(
          StrCat(path, " is larger than ", max_bytes, " bytes"));
    }
    EVP_DigestUpdate(ctx.get(), buffer, static_cast<size_t>(n));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &length);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace plugline::core

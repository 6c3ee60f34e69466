#include "server/socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/fs.h"
#include "core/strings.h"

namespace plugline::server {
namespace {

std::string Errno() { return std::strerror(errno); }

}  // namespace

std::string RunDir(const std::string& home) { return home + "/run"; }
std::string SocketPath(const std::string& home) { return RunDir(home) + "/server.sock"; }

absl::Status PrepareRunDir(const std::string& dir) {
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT) {
      return absl::FailedPreconditionError(StrCat(dir, ": ", Errno()));
    }
    const size_t slash = dir.rfind('/');
    if (slash != std::string::npos && slash > 0) {
      absl::Status parents = core::MakeDirs(dir.substr(0, slash));
      if (!parents.ok()) return parents;
    }
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(StrCat("cannot create ", dir, ": ", Errno()));
    }
    if (::lstat(dir.c_str(), &st) != 0) {
      return absl::FailedPreconditionError(StrCat(dir, ": ", Errno()));
    }
  }
  if (S_ISLNK(st.st_mode)) {
    return absl::FailedPreconditionError(
        StrCat(dir, " is a symbolic link; the server's folder must be a real folder"));
  }
  if (!S_ISDIR(st.st_mode)) return absl::FailedPreconditionError(StrCat(dir, " is not a folder"));
  if (st.st_uid != ::geteuid()) {
    return absl::FailedPreconditionError(StrCat(dir, " belongs to uid ", st.st_uid, ", not to uid ",
                                                ::geteuid(), " who runs plugline"));
  }
  if ((st.st_mode & 0777) != 0700 && ::chmod(dir.c_str(), 0700) != 0) {
    return absl::FailedPreconditionError(StrCat("cannot make ", dir, " private: ", Errno()));
  }
  return absl::OkStatus();
}

absl::StatusOr<SocketName> SocketName::For(const std::string& path) {
  if (path.size() < sizeof(sockaddr_un::sun_path)) return SocketName(path, -1);
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const int fd = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::FailedPreconditionError(StrCat(dir, ": ", Errno()));
  std::string name = StrCat("/proc/self/fd/", fd, "/", base);
  if (name.size() >= sizeof(sockaddr_un::sun_path)) {
    ::close(fd);
    return absl::InvalidArgumentError(
        StrCat("the socket's file name is too long for a Unix socket: ", base));
  }
  return SocketName(std::move(name), fd);
}

sockaddr_un SocketName::address() const {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, name_.data(), name_.size());  // For() keeps it short enough
  return address;
}

SocketName::SocketName(SocketName&& other) noexcept
    : name_(std::move(other.name_)), dir_fd_(other.dir_fd_) {
  other.dir_fd_ = -1;
}

SocketName& SocketName::operator=(SocketName&& other) noexcept {
  if (this != &other) {
    if (dir_fd_ >= 0) ::close(dir_fd_);
    name_ = std::move(other.name_);
    dir_fd_ = other.dir_fd_;
    other.dir_fd_ = -1;
  }
  return *this;
}

SocketName::~SocketName() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

absl::StatusOr<uid_t> PeerUid(int fd) {
  struct ucred cred;
  socklen_t size = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0) {
    return absl::InternalError(StrCat("cannot read the peer's credentials: ", Errno()));
  }
  return cred.uid;
}

absl::Status CheckPeerIsSelf(int fd) {
  absl::StatusOr<uid_t> uid = PeerUid(fd);
  if (!uid.ok()) return uid.status();
  if (*uid != ::geteuid()) {
    return absl::PermissionDeniedError(
        StrCat("a connection from uid ", *uid, " refused: this server serves uid ", ::geteuid()));
  }
  return absl::OkStatus();
}

}  // namespace plugline::server

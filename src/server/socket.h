// Where the server listens and who may talk to it: a Unix domain socket in
// $PLUGLINE_HOME/run/ (a folder only its user can enter), and the peer's uid checked on every
// connection.
#ifndef PLUGLINE_SERVER_SOCKET_H_
#define PLUGLINE_SERVER_SOCKET_H_

#include <sys/types.h>
#include <sys/un.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace plugline::server {

// $PLUGLINE_HOME/run and the socket in it.
std::string RunDir(const std::string& home);
std::string SocketPath(const std::string& home);

// Makes `dir` (and its parents) if missing, as a folder of the effective user with mode 0700.
// An existing one must be a real folder (not a symlink) owned by that user; group or other
// permissions on it are taken away. Anything else is FailedPrecondition naming the folder and
// what is wrong with it.
absl::Status PrepareRunDir(const std::string& dir);

// A name for a Unix socket at `path` that bind() and connect() (and libuv's pipe calls) take
// even when `path` is longer than sockaddr_un's sun_path allows: the folder is then opened and
// held, and the name reaches the socket through /proc/self/fd/<n>/. Valid while the object
// lives.
class SocketName {
 public:
  static absl::StatusOr<SocketName> For(const std::string& path);
  SocketName(SocketName&& other) noexcept;
  SocketName& operator=(SocketName&& other) noexcept;
  SocketName(const SocketName&) = delete;
  SocketName& operator=(const SocketName&) = delete;
  ~SocketName();

  const std::string& name() const { return name_; }
  // The name as the address bind() and connect() take.
  sockaddr_un address() const;
  // True when the name goes through a held folder descriptor.
  bool via_folder() const { return dir_fd_ >= 0; }

 private:
  SocketName(std::string name, int dir_fd) : name_(std::move(name)), dir_fd_(dir_fd) {}
  std::string name_;
  int dir_fd_ = -1;
};

// The uid of the process at the other end of the connected Unix socket `fd` (SO_PEERCRED).
absl::StatusOr<uid_t> PeerUid(int fd);

// OK when the peer of `fd` is the effective user; PermissionDenied naming both uids otherwise.
absl::Status CheckPeerIsSelf(int fd);

}  // namespace plugline::server

#endif  // PLUGLINE_SERVER_SOCKET_H_

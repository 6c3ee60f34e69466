#include "server/socket.h"

#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/fs.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::server {
namespace {

using plugline::testing::Contains;
using plugline::testing::TempDir;

uint32_t Mode(const std::string& path) {
  struct stat st;
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// A listening socket bound at `path` (through SocketName), or -1.
int Listen(const std::string& path) {
  auto name = SocketName::For(path);
  REQUIRE_MESSAGE(name.ok(), name.status().ToString());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_un address = name->address();
  REQUIRE_MESSAGE(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0,
                  std::strerror(errno));
  REQUIRE(::listen(fd, 4) == 0);
  return fd;
}

// connect() to `path` through SocketName; the errno when it fails, 0 when it works.
int ConnectErrno(const std::string& path, int* fd_out = nullptr) {
  auto name = SocketName::For(path);
  if (!name.ok()) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_un address = name->address();
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    int error = errno;
    ::close(fd);
    return error;
  }
  if (fd_out != nullptr) {
    *fd_out = fd;
  } else {
    ::close(fd);
  }
  return 0;
}

TEST_CASE("the run folder is made private, and a folder that is not ours is refused") {
  TempDir home;
  const std::string run = RunDir(home.Sub("nested/home"));
  CHECK(SocketPath(home.Sub("nested/home")) == run + "/server.sock");
  REQUIRE(PrepareRunDir(run).ok());
  CHECK(Mode(run) == 0700);
  // One that others could enter is made private.
  REQUIRE(::chmod(run.c_str(), 0755) == 0);
  REQUIRE(PrepareRunDir(run).ok());
  CHECK(Mode(run) == 0700);
  // A symlink, a file: refused, naming the path.
  REQUIRE(::symlink(run.c_str(), home.Sub("link").c_str()) == 0);
  absl::Status link = PrepareRunDir(home.Sub("link"));
  CHECK(absl::IsFailedPrecondition(link));
  CHECK(Contains(ToStd(link.message()), "/link is a symbolic link"));
  plugline::testing::WriteFile(home.Sub("file"), "x");
  CHECK(Contains(ToStd(PrepareRunDir(home.Sub("file")).message()), "/file is not a folder"));
  if (::geteuid() == 0) {
    // Another user's folder (as root, CI: chown it to nobody).
    REQUIRE(::chown(run.c_str(), 65534, 65534) == 0);
    absl::Status theirs = PrepareRunDir(run);
    CHECK(absl::IsFailedPrecondition(theirs));
    CHECK(Contains(ToStd(theirs.message()), "belongs to uid 65534, not to uid 0"));
  }
}

TEST_CASE("a socket path longer than sun_path is bound and reached through its folder") {
  TempDir home;
  std::string dir = home.path();
  while (dir.size() < 200) dir += "/a-rather-long-folder-name";
  REQUIRE(plugline::core::MakeDirs(dir).ok());
  const std::string path = dir + "/server.sock";
  REQUIRE(path.size() >= sizeof(sockaddr_un::sun_path));
  auto name = SocketName::For(path);
  REQUIRE(name.ok());
  CHECK(name->via_folder());
  CHECK(name->name().starts_with("/proc/self/fd/"));

  const int listener = Listen(path);
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);  // the socket is where the long path says
  CHECK(S_ISSOCK(st.st_mode));
  int client = -1;
  REQUIRE(ConnectErrno(path, &client) == 0);
  const int served = ::accept(listener, nullptr, nullptr);
  REQUIRE(served >= 0);
  auto uid = PeerUid(served);
  REQUIRE(uid.ok());
  CHECK(*uid == ::geteuid());
  CHECK(CheckPeerIsSelf(served).ok());
  ::close(served);
  ::close(client);
  ::close(listener);

  // A short path is used as it is.
  auto short_name = SocketName::For("/tmp/x.sock");
  REQUIRE(short_name.ok());
  CHECK_FALSE(short_name->via_folder());
  CHECK(short_name->name() == "/tmp/x.sock");
}

// In a child process running as `uid`: connect to `path`; exits with connect()'s errno (0 when
// it connected, then waits for the server to hang up).
int ConnectAs(uid_t uid, const std::string& path) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::setresgid(uid, uid, uid) != 0 || ::setresuid(uid, uid, uid) != 0) ::_exit(120);
    int fd = -1;
    const int error = ConnectErrno(path, &fd);
    if (error == 0) {
      char byte;
      (void)::read(fd, &byte, 1);
    }
    ::_exit(error == 0 ? 0 : (error > 0 && error < 100 ? error : 121));
  }
  return pid;
}

int ExitCode(pid_t pid) {
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

TEST_CASE("another user can neither enter the run folder nor pass the peer check") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to act as a second user (CI runs as root)");
    return;
  }
  TempDir home;
  REQUIRE(::chmod(home.path().c_str(), 0755) == 0);
  const std::string run = RunDir(home.path());
  REQUIRE(PrepareRunDir(run).ok());
  const int listener = Listen(SocketPath(home.path()));
  // The run folder is 0700: uid 65534 cannot even reach the socket.
  CHECK(ExitCode(ConnectAs(65534, SocketPath(home.path()))) == EACCES);

  // A socket others can reach (as if the folder's mode were wrong): the peer check refuses.
  const std::string open_dir = home.Sub("open");
  REQUIRE(plugline::core::MakeDirs(open_dir).ok());
  REQUIRE(::chmod(open_dir.c_str(), 0777) == 0);
  const int open_listener = Listen(open_dir + "/server.sock");
  REQUIRE(::chmod((open_dir + "/server.sock").c_str(), 0777) == 0);
  const pid_t child = ConnectAs(65534, open_dir + "/server.sock");
  const int served = ::accept(open_listener, nullptr, nullptr);
  REQUIRE(served >= 0);
  auto uid = PeerUid(served);
  REQUIRE(uid.ok());
  CHECK(*uid == 65534);
  absl::Status refused = CheckPeerIsSelf(served);
  CHECK(absl::IsPermissionDenied(refused));
  CHECK(refused.message() == "a connection from uid 65534 refused: this server serves uid 0");
  ::close(served);
  CHECK(ExitCode(child) == 0);
  ::close(open_listener);
  ::close(listener);
}

}  // namespace
}  // namespace plugline::server

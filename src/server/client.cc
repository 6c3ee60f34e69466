#include "server/client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/time/clock.h"
#include "core/strings.h"
#include "server/protocol.h"
#include "server/socket.h"

namespace plugline::server {
namespace {

// Waits until `fd` is ready for `events` or `deadline` passes.
absl::Status WaitFor(int fd, short events, absl::Time deadline) {
  for (;;) {
    const int64_t ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (ms <= 0) return absl::DeadlineExceededError("the server did not answer in time");
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
    if (rc > 0) return absl::OkStatus();
    if (rc < 0 && errno != EINTR) {
      return absl::UnavailableError(StrCat("poll: ", std::strerror(errno)));
    }
  }
}

}  // namespace

absl::StatusOr<Client> Client::Connect(const std::string& home, absl::Duration timeout) {
  const std::string path = SocketPath(home);
  absl::StatusOr<SocketName> name = SocketName::For(path);
  if (!name.ok()) return absl::UnavailableError(name.status().message());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return absl::UnavailableError(StrCat("socket: ", std::strerror(errno)));
  Client client(fd);
  const sockaddr_un address = name->address();
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    if (errno != EAGAIN && errno != EINPROGRESS) {
      return absl::UnavailableError(
          StrCat("no server listens on ", path, ": ", std::strerror(errno)));
    }
    // The server's backlog is full: wait for it to accept.
    absl::Status ready = WaitFor(fd, POLLOUT, absl::Now() + timeout);
    if (!ready.ok()) return ready;
    int error = 0;
    socklen_t size = sizeof error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) {
      return absl::UnavailableError(StrCat("no server listens on ", path, ": ", std::strerror(error)));
    }
  }
  // The other end must be this user's (a socket another user put there is not our server).
  absl::Status peer = CheckPeerIsSelf(fd);
  if (!peer.ok()) return peer;
  return client;
}

Client& Client::operator=(Client&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Client::~Client() {
  if (fd_ >= 0) ::close(fd_);
}

absl::StatusOr<std::string> Client::Call(std::string_view request_json, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status sent = Send(request_json, deadline);
  if (!sent.ok()) return sent;
  return Receive(deadline);
}

absl::Status Client::Send(std::string_view request_json, absl::Time deadline) {
  if (fd_ < 0) return absl::FailedPreconditionError("not connected");
  const std::string frame = EncodeFrame(request_json);
  size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t n = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      absl::Status ready = WaitFor(fd_, POLLOUT, deadline);
      if (!ready.ok()) return ready;
    } else {
      return absl::UnavailableError(StrCat("the server hung up: ", std::strerror(errno)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Client::Receive(absl::Time deadline) {
  if (fd_ < 0) return absl::FailedPreconditionError("not connected");
  FrameReader reader;
  std::vector<std::string> frames;
  char buf[65536];
  while (frames.empty()) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) {
      absl::Status fed = reader.Feed(std::string_view(buf, static_cast<size_t>(n)), &frames);
      if (!fed.ok()) return fed;
    } else if (n == 0) {
      return absl::UnavailableError("the server hung up before it answered");
    } else if (errno == EAGAIN || errno == EINTR) {
      absl::Status ready = WaitFor(fd_, POLLIN, deadline);
      if (!ready.ok()) return ready;
    } else {
      return absl::UnavailableError(StrCat("reading the server's answer: ", std::strerror(errno)));
    }
  }
  return std::move(frames.front());
}

}  // namespace plugline::server

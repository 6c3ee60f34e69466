// The thin client's side of the server protocol: a blocking connection to the server of a
// home, one request and its reply at a time, every step under a deadline. No libuv: a client
// is a short-lived command and pays only for a socket.
#ifndef PLUGLINE_SERVER_CLIENT_H_
#define PLUGLINE_SERVER_CLIENT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace plugline::server {

class Client {
 public:
  // Connects to the server of `home`. Unavailable when none listens there (no socket, or a
  // stale one); DeadlineExceeded when it does not accept in time.
  static absl::StatusOr<Client> Connect(const std::string& home, absl::Duration timeout);
  Client(Client&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Client& operator=(Client&& other) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client();

  // Sends one request (a JSON object) and returns the reply's JSON text. Unavailable when the
  // server hangs up, DeadlineExceeded when the whole exchange takes longer than `timeout`,
  // ResourceExhausted when a reply is over the frame limit.
  absl::StatusOr<std::string> Call(std::string_view request_json, absl::Duration timeout);
  // Call in two halves, for a caller with other work to do meanwhile: one request sent, then
  // its reply read. The errors are Call's.
  absl::Status Send(std::string_view request_json, absl::Time deadline);
  absl::StatusOr<std::string> Receive(absl::Time deadline);

 private:
  explicit Client(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace plugline::server

#endif  // PLUGLINE_SERVER_CLIENT_H_

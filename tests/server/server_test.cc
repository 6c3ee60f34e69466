// The server loop against real Unix sockets: the handshake, status and stop, one server per
// home, stale sockets, bounded requests, errors that name the problem, idle exit.
#include "server/server.h"

#include <doctest/doctest.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/version.h"
#include "server/client.h"
#include "server/protocol.h"
#include "server/socket.h"
#include "test_util.h"

namespace plugline::server {
namespace {

using plugline::testing::Contains;
using plugline::testing::TempDir;

// A server of `home` on its own thread, running until stopped.
class RunningServer {
 public:
  explicit RunningServer(ServerOptions options) : home_(options.home) {
    options.on_listening = [this] { listening_.Notify(); };
    thread_ = std::thread([this, options] {
      status_ = RunServer(options);
      if (!listening_.HasBeenNotified()) listening_.Notify();  // a server that could not start
      done_.Notify();
    });
    REQUIRE(listening_.WaitForNotificationWithTimeout(absl::Seconds(10)));
  }
  // A test that failed before stopping its server stops it here, so that nothing hangs.
  ~RunningServer() {
    if (!done_.HasBeenNotified()) {
      if (auto client = Client::Connect(home_, absl::Seconds(5)); client.ok()) {
        (void)client->Call(R"({"type":"stop"})", absl::Seconds(5));
      }
    }
    thread_.join();
  }
  bool WaitDone(absl::Duration timeout) { return done_.WaitForNotificationWithTimeout(timeout); }
  const absl::Status& status() const { return status_; }

 private:
  std::string home_;
  absl::Notification listening_;
  absl::Notification done_;
  absl::Status status_;
  std::thread thread_;
};

core::Value Call(const std::string& home, std::string_view request) {
  auto client = Client::Connect(home, absl::Seconds(5));
  REQUIRE_MESSAGE(client.ok(), client.status().ToString());
  auto reply = client->Call(request, absl::Seconds(5));
  REQUIRE_MESSAGE(reply.ok(), reply.status().ToString());
  auto value = core::ParseJson(*reply, "reply");
  REQUIRE_MESSAGE(value.ok(), *reply);
  return *value;
}

std::string ErrorMessage(const core::Value& reply) {
  const core::Value* error = reply.Find("error");
  return error != nullptr && error->Find("message") != nullptr
             ? error->Find("message")->as_string()
             : "";
}

void Stop(const std::string& home, RunningServer& server) {
  core::Value stopped = Call(home, R"({"type":"stop"})");
  CHECK(stopped.Find("ok")->as_bool());
  REQUIRE(server.WaitDone(absl::Seconds(10)));
  CHECK(server.status().ok());
}

TEST_CASE("server: hello, status and stop over the socket") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  RunningServer server(options);
  struct stat st;
  REQUIRE(::stat(SocketPath(home.path()).c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(ServerAlive(home.path()));

  core::Value hello = Call(home.path(), R"({"type":"hello"})");
  CHECK(hello.Find("ok")->as_bool());
  CHECK(hello.Find("version")->as_string() == core::kVersionString);
  CHECK(hello.Find("build_id")->as_string() == BuildId());
  CHECK(hello.Find("pid")->as_number() == ::getpid());

  // Several requests on one connection, each answered in order.
  auto client = Client::Connect(home.path(), absl::Seconds(5));
  REQUIRE(client.ok());
  for (int i = 0; i < 3; ++i) {
    auto reply = client->Call(R"({"type":"status"})", absl::Seconds(5));
    REQUIRE(reply.ok());
    auto status = core::ParseJson(*reply, "status");
    REQUIRE(status.ok());
    CHECK(status->Find("requests")->as_number() == 2 + i);
    CHECK(status->Find("connections")->as_number() == 1);  // this one (the Call's has closed)
    CHECK(status->Find("rss_bytes")->as_number() > 1 << 20);
    CHECK(status->Find("home")->as_string() == home.path());
  }
  Stop(home.path(), server);
  // Gone: no socket, no lock held, and a client says there is nobody.
  CHECK(::lstat(SocketPath(home.path()).c_str(), &st) != 0);
  CHECK_FALSE(ServerAlive(home.path()));
  auto none = Client::Connect(home.path(), absl::Seconds(1));
  CHECK(absl::IsUnavailable(none.status()));
  CHECK(Contains(ToStd(none.status().message()), "no server listens on"));
}

TEST_CASE("server: one per home, and a socket a killed server left is replaced") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  {
    RunningServer first(options);
    absl::Status second = RunServer(options);
    CHECK(absl::IsAlreadyExists(second));
    CHECK(ToStd(second.message()) ==
          StrCat("a server already serves ", home.path(), " (pid ", ::getpid(), ")"));
    Stop(home.path(), first);
  }
  // A stale socket (bound, nobody listening) and an unheld lock, as a SIGKILL leaves them.
  const std::string path = SocketPath(home.path());
  const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
  const sockaddr_un address = SocketName::For(path)->address();
  REQUIRE(::bind(stale, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  ::close(stale);
  CHECK_FALSE(ServerAlive(home.path()));
  CHECK(absl::IsUnavailable(Client::Connect(home.path(), absl::Seconds(1)).status()));
  RunningServer again(options);
  CHECK(Call(home.path(), R"({"type":"hello"})").Find("ok")->as_bool());
  Stop(home.path(), again);
}

TEST_CASE("server: bad requests get an error reply that names the problem") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  options.max_request_bytes = 1024;
  RunningServer server(options);
  core::Value garbage = Call(home.path(), "not json");
  CHECK_FALSE(garbage.Find("ok")->as_bool());
  CHECK(garbage.Find("error")->Find("code")->as_string() == "invalid_argument");
  CHECK(Contains(ErrorMessage(garbage), "request"));
  core::Value untyped = Call(home.path(), R"({"kind":"hello"})");
  CHECK(ErrorMessage(untyped) == "a request is a JSON object with a string `type`");
  core::Value unknown = Call(home.path(), R"({"type":"shape"})");
  CHECK(unknown.Find("error")->Find("code")->as_string() == "unimplemented");
  CHECK(ErrorMessage(unknown) == "this server does not serve `shape` requests");

  // Over the limit: refused from the header (the body never comes), and the connection closes.
  auto client = Client::Connect(home.path(), absl::Seconds(5));
  REQUIRE(client.ok());
  auto refused = client->Call(std::string(4096, ' '), absl::Seconds(5));
  REQUIRE(refused.ok());
  auto value = core::ParseJson(*refused, "refusal");
  REQUIRE(value.ok());
  CHECK(value->Find("error")->Find("code")->as_string() == "resource_exhausted");
  CHECK(ErrorMessage(*value) == "request refused: a message of 4.0 KiB is over the limit of 1.0 KiB");
  auto after = client->Call(R"({"type":"hello"})", absl::Seconds(5));
  CHECK(absl::IsUnavailable(after.status()));
  // The server carries on for everyone else.
  CHECK(Call(home.path(), R"({"type":"hello"})").Find("ok")->as_bool());
  Stop(home.path(), server);
}

TEST_CASE("server: a client that sends half a request and waits does not block the others") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  RunningServer server(options);
  // A header announcing 100 bytes and 6 of them, then nothing, on a raw connection.
  const int stuck = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_un address = SocketName::For(SocketPath(home.path()))->address();
  REQUIRE(::connect(stuck, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  const std::string partial = EncodeFrame(std::string(100, ' ')).substr(0, 10);
  REQUIRE(::write(stuck, partial.data(), partial.size()) == 10);
  CHECK(Call(home.path(), R"({"type":"status"})").Find("ok")->as_bool());
  Stop(home.path(), server);  // with the stuck connection still open
  // The server closed it on the way out.
  char byte;
  CHECK(::read(stuck, &byte, 1) == 0);
  ::close(stuck);
}

TEST_CASE("server: it stops by itself after its idle timeout") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  options.idle_timeout = absl::Milliseconds(300);
  RunningServer server(options);
  CHECK(Call(home.path(), R"({"type":"hello"})").Find("ok")->as_bool());
  REQUIRE(server.WaitDone(absl::Seconds(20)));
  CHECK(server.status().ok());
  CHECK_FALSE(ServerAlive(home.path()));
  CHECK(Contains(plugline::testing::ReadFileOrEmpty(home.Sub("logs/plugline.log")),
                 "server: stopping: idle"));
}

// A `server stop` returns once the lock is free, and its caller may remove the home then: the
// server's last write into the home (its log's "stopped") comes before it lets the lock go.
// inotify reports a folder's events in the order they happened; the lock's descriptor is the
// only one opened for writing, so its IN_CLOSE_WRITE is the moment the lock is released.
TEST_CASE("server: once its lock is free a stopped server writes nothing more into the home") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  RunningServer server(options);
  const std::vector<std::string> events = plugline::testing::WritesDuring(
      home.path(), {"logs", "run"}, [&] { Stop(home.path(), server); });
  const std::string all = absl::StrJoin(events, "\n");
  CAPTURE(all);
  auto released = std::find(events.begin(), events.end(), "run/server.lock closed");
  REQUIRE(released != events.end());
  CHECK(std::next(released) == events.end());
  CHECK(std::find(events.begin(), released, "logs/plugline.log written") != released);
}

TEST_CASE("server: a home whose socket path is longer than sun_path") {
  TempDir base;
  std::string home = base.path();
  while (home.size() < 180) home += "/a-long-home-folder";
  REQUIRE(core::MakeDirs(home).ok());
  REQUIRE(SocketPath(home).size() >= sizeof(sockaddr_un::sun_path));
  ServerOptions options;
  options.home = home;
  RunningServer server(options);
  CHECK(Call(home, R"({"type":"hello"})").Find("ok")->as_bool());
  Stop(home, server);
}

}  // namespace
}  // namespace plugline::server

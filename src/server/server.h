// The per-user server's loop: one libuv loop listening on $PLUGLINE_HOME/run/server.sock,
// one process per home (a lock file held for the server's life), connections from the
// server's own uid only, framed bounded requests (protocol.h).
//
// The loop answers the requests that concern the server itself — `hello` (the handshake:
// version and build), `status`, `stop`, `retire` — and gives every other request to
// ServerOptions::handle on one of libuv's pool threads, so that requests from different
// connections are served at once. What those requests are (hosts, shaping, hooks) is the
// handler's business: the `plugline` command line supplies it (src/cli/serve.h).
#ifndef PLUGLINE_SERVER_SERVER_H_
#define PLUGLINE_SERVER_SERVER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/json.h"

namespace plugline::server {

struct ServerOptions {
  std::string home;  // $PLUGLINE_HOME
  // The server stops after this long without a request (and with no connection open).
  absl::Duration idle_timeout = absl::Minutes(15);
  // The largest request accepted; a larger one gets an error reply and the connection closes.
  size_t max_request_bytes = 0;  // 0: kMaxFrameBytes
  // Past this much resident memory the server retires once it has answered (0: no ceiling).
  uint64_t max_rss_bytes = 0;
  // A retired server closes the connections still open after this long.
  absl::Duration drain_deadline = absl::Seconds(60);
  // How often `maintain` runs.
  absl::Duration maintenance_interval = absl::Seconds(30);
  // Called once the socket listens (on the server's thread), e.g. to say so.
  std::function<void()> on_listening;
  // The reply (a JSON object) to a request of any other type; runs on a pool thread, several
  // at once. What it adds to `later` runs on a pool thread once the reply is sent (work the
  // client need not wait for). Null: such requests get an `unimplemented` error.
  std::function<std::string(const core::Value& request, std::vector<std::function<void()>>* later)>
      handle;
  // Added to `status` as its "hosts": a JSON array (on the loop thread; must not wait for a
  // handler).
  std::function<std::string()> describe;
  // Runs every maintenance_interval on a pool thread (e.g. to drop hosts left unused).
  std::function<void()> maintain;
  // Runs once no request is in flight any more, before RunServer returns.
  std::function<void()> on_stop;
};

// This build's identity, as the handshake compares it: the version and an id of the running
// executable (its size, modification time and inode), so that a rebuilt plugline is another
// build even at the same version.
std::string BuildId();

// True while a server of `home` is alive: a process holds its lock (a socket without one is
// stale, left by a server that was killed).
bool ServerAlive(const std::string& home);

// The server's lock file, <home>/run/server.lock: it holds the pid of the server that holds it.
std::string LockPath(const std::string& home);

// Runs the server in this thread until a `stop` request, SIGTERM, SIGINT or the idle timeout;
// then runs on_stop, logs that it stopped, removes the socket, releases the lock (nothing is
// written into the home after that: once ServerAlive() is false the home may be removed) and
// returns OK. A `retire` request (a client of another build) or
// the memory ceiling retires it instead: it stops listening and gives up its lock and socket
// at once, so that a fresh server can start, and exits once its open connections are done. AlreadyExists (naming the pid in the lock file) when
// another server serves this home; FailedPrecondition when the run folder is unsafe.
absl::Status RunServer(const ServerOptions& options);

}  // namespace plugline::server

#endif  // PLUGLINE_SERVER_SERVER_H_

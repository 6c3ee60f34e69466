// The per-user server's loop: one libuv loop listening on $PLUGLINE_HOME/run/server.sock,
// one process per home (a lock file held for the server's life), connections from the
// server's own uid only, framed bounded requests (protocol.h).
//
// So far it answers the requests that concern the server itself — `hello` (the handshake:
// version and build), `status`, `stop` — and refuses every other type with an error reply;
// the plugin work (hosts per project, shaping, hooks) comes next (README.md).
#ifndef PLUGLINE_SERVER_SERVER_H_
#define PLUGLINE_SERVER_SERVER_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace plugline::server {

struct ServerOptions {
  std::string home;  // $PLUGLINE_HOME
  // The server stops after this long without a request (and with no connection open).
  absl::Duration idle_timeout = absl::Minutes(15);
  // The largest request accepted; a larger one gets an error reply and the connection closes.
  size_t max_request_bytes = 0;  // 0: kMaxFrameBytes
  // Called once the socket listens (on the server's thread), e.g. to say so.
  std::function<void()> on_listening;
};

// This build's identity, as the handshake compares it: the version and an id of the running
// executable (its size, modification time and inode), so that a rebuilt plugline is another
// build even at the same version.
std::string BuildId();

// True while a server of `home` is alive: a process holds its lock (a socket without one is
// stale, left by a server that was killed).
bool ServerAlive(const std::string& home);

// Runs the server in this thread until a `stop` request, SIGTERM, SIGINT or the idle timeout;
// then removes the socket and returns OK. AlreadyExists (naming the pid in the lock file) when
// another server serves this home; FailedPrecondition when the run folder is unsafe.
absl::Status RunServer(const ServerOptions& options);

}  // namespace plugline::server

#endif  // PLUGLINE_SERVER_SERVER_H_

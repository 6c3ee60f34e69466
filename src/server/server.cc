#include "server/server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/log.h"
#include "core/strings.h"
#include "core/version.h"
#include "server/protocol.h"
#include "server/socket.h"

namespace plugline::server {
namespace {

using core::Value;
using core::ValueObject;

// Resident memory of this process (libuv reads /proc/self/statm); 0 when unknown.
uint64_t ResidentBytes() {
  size_t rss = 0;
  return uv_resident_set_memory(&rss) == 0 ? rss : 0;
}

std::string ErrorReply(std::string_view code, std::string_view message) {
  return core::ToJson(Value(ValueObject{
      {"ok", Value(false)},
      {"error", Value(ValueObject{{"code", Value(std::string(code))},
                                  {"message", Value(std::string(message))}})}}));
}

struct Server;
struct Connection;
void CloseConnection(Connection* connection);

struct Connection {
  uv_pipe_t pipe;
  Server* server = nullptr;
  FrameReader reader;
  int in_flight = 0;     // requests being handled on pool threads
  bool closing = false;  // to be closed once nothing is in flight
  bool closed = false;   // uv_close called
  explicit Connection(size_t max_bytes) : reader(max_bytes) {}
};

struct Server {
  ServerOptions options;
  core::Log log;
  uv_loop_t loop;
  uv_pipe_t listener;
  uv_timer_t idle;
  uv_timer_t maintenance;
  uv_timer_t drain;  // a retired server's deadline for its last connections
  uv_signal_t sigterm;
  uv_signal_t sigint;
  std::string socket_path;
  ino_t socket_inode = 0;
  int lock_fd = -1;
  const std::string build_id = BuildId();  // the executable does not change while it runs
  uint64_t started_ns = 0;
  uint64_t requests = 0;
  uint64_t connections_served = 0;
  int open_connections = 0;
  int in_flight = 0;
  bool maintaining = false;
  absl::flat_hash_set<Connection*> connections;
  bool stopping = false;  // no new connections; the loop ends once everything is closed
  bool retired = false;   // the lock and the socket are given up: they may be another's now

  explicit Server(ServerOptions o) : options(std::move(o)), log(options.home + "/logs") {}

  void CloseHandles() {
    uv_close(reinterpret_cast<uv_handle_t*>(&listener), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&idle), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&maintenance), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&sigterm), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&sigint), nullptr);
  }

  void CloseDrain() {
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&drain))) {
      uv_close(reinterpret_cast<uv_handle_t*>(&drain), nullptr);
    }
  }

  void Stop(std::string_view why) {
    if (stopping) return;
    stopping = true;
    log.Write("info", "server", StrCat("stopping: ", why));
    CloseHandles();
    CloseDrain();
    // Open connections are closed once their requests are answered (a stop request's reply
    // is written before this runs); the loop ends when the last handle has closed.
    std::vector<Connection*> open(connections.begin(), connections.end());
    for (Connection* connection : open) CloseConnection(connection);
  }

  // Gives the home to a fresh server: the socket and the lock go now, the connections that
  // are open are served until their clients close them.
  void Retire(std::string_view why) {
    if (stopping) return;
    stopping = true;
    retired = true;
    log.Write("info", "server", StrCat("retiring: ", why));
    CloseHandles();
    ::unlink(socket_path.c_str());
    if (lock_fd >= 0) ::close(lock_fd);
    lock_fd = -1;
    if (connections.empty()) {
      CloseDrain();
    } else {
      // A client that keeps its connection open and idle must not keep this process forever.
      uv_timer_start(&drain, OnDrainDeadline,
                     std::max<int64_t>(1, absl::ToInt64Milliseconds(options.drain_deadline)), 0);
    }
  }

  static void OnDrainDeadline(uv_timer_t* timer);

  void ResetIdle() {
    if (!stopping) {
      uv_timer_start(&idle, OnIdle, absl::ToInt64Milliseconds(options.idle_timeout), 0);
    }
  }

  static void OnIdle(uv_timer_t* timer) {
    auto* self = static_cast<Server*>(timer->data);
    if (self->open_connections > 0) {
      self->ResetIdle();
      return;
    }
    self->Stop("idle");
  }

  // After a request: a server past its memory ceiling hands over to a fresh one.
  void CheckMemory() {
    if (options.max_rss_bytes == 0 || stopping) return;
    const uint64_t rss = ResidentBytes();
    if (rss > options.max_rss_bytes) {
      Retire(StrCat("resident memory ", rss >> 20, " MiB is over the ceiling of ",
                    options.max_rss_bytes >> 20, " MiB"));
    }
  }

  // What `hello` answers, and what `status` starts with.
  ValueObject Identity() const {
    return ValueObject{{"ok", Value(true)},
                       {"pid", Value(static_cast<double>(::getpid()))},
                       {"version", Value(std::string(core::kVersionString))},
                       {"build_id", Value(build_id)}};
  }

  std::string Status() const {
    const double uptime_ms = static_cast<double>(uv_hrtime() - started_ns) / 1e6;
    ValueObject status = Identity();
    status.insert(status.end(), {
        {"home", Value(options.home)},
        {"uptime_ms", Value(uptime_ms)},
        {"requests", Value(static_cast<double>(requests))},
        {"in_flight", Value(static_cast<double>(in_flight))},
        {"connections", Value(static_cast<double>(open_connections))},
        {"connections_served", Value(static_cast<double>(connections_served))},
        {"rss_bytes", Value(static_cast<double>(ResidentBytes()))},
        {"max_rss_bytes", Value(static_cast<double>(options.max_rss_bytes))},
        {"idle_timeout_ms", Value(static_cast<double>(absl::ToInt64Milliseconds(options.idle_timeout)))},
    });
    absl::StatusOr<Value> hosts =
        options.describe ? core::ParseJson(options.describe(), "hosts") : Value(core::ValueArray{});
    status.emplace_back("hosts", hosts.ok() ? *std::move(hosts) : Value(core::ValueArray{}));
    return core::ToJson(Value(std::move(status)));
  }
};

void Server::OnDrainDeadline(uv_timer_t* timer) {
  auto* self = static_cast<Server*>(timer->data);
  self->log.Write("info", "server", "retired: closing the connections still open");
  std::vector<Connection*> open(self->connections.begin(), self->connections.end());
  for (Connection* connection : open) CloseConnection(connection);
  self->CloseDrain();
}

struct WriteRequest {
  uv_write_t write;
  std::string frame;
  Connection* connection;
  bool close_after;
  bool stop_after;
};

void FinishClose(Connection* connection) {
  if (connection->closed) return;
  connection->closed = true;
  uv_close(reinterpret_cast<uv_handle_t*>(&connection->pipe), [](uv_handle_t* handle) {
    auto* closed = static_cast<Connection*>(handle->data);
    Server* server = closed->server;
    --server->open_connections;
    server->connections.erase(closed);
    delete closed;
    // A retired server ends with its last connection.
    if (server->retired && server->connections.empty()) server->CloseDrain();
  });
}

void CloseConnection(Connection* connection) {
  if (connection->closing) {
    if (connection->in_flight == 0) FinishClose(connection);
    return;
  }
  connection->closing = true;
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&connection->pipe));
  // A request still being handled finishes first; its reply is dropped.
  if (connection->in_flight == 0) FinishClose(connection);
}

void Send(Connection* connection, std::string_view reply, bool close_after, bool stop_after) {
  if (connection->closing) return;
  auto* request = new WriteRequest{{}, EncodeFrame(reply), connection, close_after, stop_after};
  uv_buf_t buf = uv_buf_init(request->frame.data(), static_cast<unsigned>(request->frame.size()));
  const int rc = uv_write(&request->write, reinterpret_cast<uv_stream_t*>(&connection->pipe),
                          &buf, 1, [](uv_write_t* write, int status) {
                            auto* done = reinterpret_cast<WriteRequest*>(write);
                            Server* server = done->connection->server;
                            if (status != 0 || done->close_after) CloseConnection(done->connection);
                            if (done->stop_after) server->Stop("a stop request");
                            delete done;
                          });
  if (rc != 0) {
    CloseConnection(connection);
    if (stop_after) connection->server->Stop("a stop request");
    delete request;
  }
}

// One request handed to a pool thread.
struct Work {
  uv_work_t work;
  Connection* connection;
  Value request;
  std::string reply;
  std::vector<std::function<void()>> later;
};

// Runs what a handler left for after its reply, on a pool thread.
void RunLater(Server* server, std::vector<std::function<void()>> later) {
  struct Later {
    uv_work_t work;
    Server* server;
    std::vector<std::function<void()>> tasks;
  };
  auto* work = new Later{{}, server, std::move(later)};
  work->work.data = work;
  ++server->in_flight;
  const int rc = uv_queue_work(
      &server->loop, &work->work,
      [](uv_work_t* w) {
        for (auto& task : static_cast<Later*>(w->data)->tasks) {
          try {
            task();
          } catch (const std::exception&) {
          }
        }
      },
      [](uv_work_t* w, int) {
        std::unique_ptr<Later> done(static_cast<Later*>(w->data));
        --done->server->in_flight;
      });
  if (rc != 0) {
    --server->in_flight;
    for (auto& task : work->tasks) task();  // the loop is going: do it here
    delete work;
  }
}

void Dispatch(Connection* connection, Value request) {
  Server* server = connection->server;
  auto* work = new Work{{}, connection, std::move(request), {}, {}};
  work->work.data = work;
  ++connection->in_flight;
  ++server->in_flight;
  const int rc = uv_queue_work(
      &server->loop, &work->work,
      [](uv_work_t* w) {
        auto* self = static_cast<Work*>(w->data);
        const ServerOptions& options = self->connection->server->options;
        try {
          self->reply = options.handle(self->request, &self->later);
        } catch (const std::exception& e) {
          self->reply = ErrorReply("internal", StrCat("the request failed: ", e.what()));
        }
      },
      [](uv_work_t* w, int) {
        std::unique_ptr<Work> self(static_cast<Work*>(w->data));
        Connection* connection = self->connection;
        Server* server = connection->server;
        --server->in_flight;
        --connection->in_flight;
        if (connection->closing) {
          CloseConnection(connection);
        } else {
          Send(connection, self->reply, /*close_after=*/false, false);
        }
        if (!self->later.empty()) RunLater(server, std::move(self->later));
        server->ResetIdle();
        server->CheckMemory();
      });
  if (rc != 0) {
    delete work;
    --connection->in_flight;
    --server->in_flight;
    Send(connection, ErrorReply("unavailable", uv_strerror(rc)), false, false);
  }
}

// Answers one request frame: the server's own requests at once, the rest on a pool thread.
void Handle(Connection* connection, std::string_view frame) {
  Server* server = connection->server;
  ++server->requests;
  absl::StatusOr<Value> request = core::ParseJson(frame, "request");
  if (!request.ok()) {
    Send(connection, ErrorReply("invalid_argument", ToStd(request.status().message())), false,
         false);
    return;
  }
  const Value* type = request->is_object() ? request->Find("type") : nullptr;
  if (type == nullptr || !type->is_string()) {
    Send(connection, ErrorReply("invalid_argument", "a request is a JSON object with a string `type`"),
         false, false);
    return;
  }
  const std::string& name = type->as_string();
  if (name == "hello") return Send(connection, core::ToJson(Value(server->Identity())), false, false);
  if (name == "status") return Send(connection, server->Status(), false, false);
  auto pid_reply = [] {
    return core::ToJson(Value(
        ValueObject{{"ok", Value(true)}, {"pid", Value(static_cast<double>(::getpid()))}}));
  };
  if (name == "stop") return Send(connection, pid_reply(), false, /*stop_after=*/true);
  if (name == "retire") {
    const Value* why = request->Find("reason");
    server->Retire(why != nullptr && why->is_string() ? why->as_string() : "a retire request");
    return Send(connection, pid_reply(), false, false);
  }
  // A request of a client of another build (plugline upgraded or rebuilt while this server
  // ran) is refused: the client retires this server and starts its own.
  if (const Value* build = request->Find("build_id");
      build != nullptr && build->is_string() && build->as_string() != server->build_id) {
    return Send(connection,
                ErrorReply("other_build", StrCat("this server (pid ", ::getpid(), ") is build ",
                                                 server->build_id)),
                false, false);
  }
  if (!server->options.handle) {
    return Send(connection,
                ErrorReply("unimplemented", StrCat("this server does not serve `", name, "` requests")),
                false, false);
  }
  Dispatch(connection, *std::move(request));
}

void OnAlloc(uv_handle_t*, size_t suggested, uv_buf_t* buf) {
  const size_t size = std::min<size_t>(suggested, 64 * 1024);
  buf->base = new char[size];
  buf->len = size;
}

void OnRead(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
  std::unique_ptr<char[]> owned(buf->base);
  auto* connection = static_cast<Connection*>(stream->data);
  Server* server = connection->server;
  if (nread < 0) {
    CloseConnection(connection);
    return;
  }
  if (nread == 0 || connection->closing) return;
  std::vector<std::string> frames;
  absl::Status fed =
      connection->reader.Feed(std::string_view(buf->base, static_cast<size_t>(nread)), &frames);
  for (const std::string& frame : frames) {
    server->ResetIdle();
    Handle(connection, frame);
  }
  if (!fed.ok()) {
    server->log.Write("warning", "server", StrCat("a request refused: ", fed.message()));
    uv_read_stop(stream);
    Send(connection, ErrorReply("resource_exhausted", StrCat("request refused: ", fed.message())),
         /*close_after=*/true, false);
  }
}

void OnConnection(uv_stream_t* listener, int status) {
  auto* server = static_cast<Server*>(listener->data);
  if (status != 0 || server->stopping) return;
  auto* connection = new Connection(server->options.max_request_bytes == 0
                                        ? kMaxFrameBytes
                                        : server->options.max_request_bytes);
  connection->server = server;
  uv_pipe_init(&server->loop, &connection->pipe, 0);
  connection->pipe.data = connection;
  ++server->open_connections;
  server->connections.insert(connection);
  if (uv_accept(listener, reinterpret_cast<uv_stream_t*>(&connection->pipe)) != 0) {
    CloseConnection(connection);
    return;
  }
  uv_os_fd_t fd = -1;
  uv_fileno(reinterpret_cast<uv_handle_t*>(&connection->pipe), &fd);
  absl::Status peer = CheckPeerIsSelf(fd);
  if (!peer.ok()) {
    server->log.Write("warning", "server", ToStd(peer.message()));
    CloseConnection(connection);
    return;
  }
  ++server->connections_served;
  uv_read_start(reinterpret_cast<uv_stream_t*>(&connection->pipe), OnAlloc, OnRead);
}

void OnMaintenance(uv_timer_t* timer) {
  auto* server = static_cast<Server*>(timer->data);
  if (server->stopping) return;
  // A socket removed or replaced (the home deleted, or a fresh server started by hand on a
  // copy of it) leaves this server unreachable: it goes.
  struct stat st;
  if (::lstat(server->socket_path.c_str(), &st) != 0 || st.st_ino != server->socket_inode) {
    server->Stop("its socket is gone");
    return;
  }
  if (!server->options.maintain || server->maintaining) return;
  server->maintaining = true;
  auto* work = new uv_work_t;
  work->data = server;
  if (uv_queue_work(&server->loop, work,
                    [](uv_work_t* w) { static_cast<Server*>(w->data)->options.maintain(); },
                    [](uv_work_t* w, int) {
                      static_cast<Server*>(w->data)->maintaining = false;
                      delete w;
                    }) != 0) {
    server->maintaining = false;
    delete work;
  }
}

std::string Errno() { return std::strerror(errno); }

}  // namespace

std::string BuildId() {
  struct stat st;
  if (::stat("/proc/self/exe", &st) != 0) return std::string(core::kVersionString);
  return StrCat(core::kVersionString, "-", st.st_size, "-", st.st_mtim.tv_sec, ".",
                st.st_mtim.tv_nsec, "-", st.st_ino);
}

std::string LockPath(const std::string& home) { return RunDir(home) + "/server.lock"; }

bool ServerAlive(const std::string& home) {
  const int fd = ::open(LockPath(home).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  // A shared lock is refused while the server holds its exclusive one.
  const bool alive = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the shared lock, if taken
  return alive;
}

absl::Status RunServer(const ServerOptions& options) {
  const std::string run = RunDir(options.home);
  if (absl::Status prepared = PrepareRunDir(run); !prepared.ok()) return prepared;

  // One server per home: the lock is held for the server's life, and released by the kernel
  // however the process ends, so a socket left by a killed server is known to be stale.
  const std::string lock_path = LockPath(options.home);
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (lock < 0) return absl::FailedPreconditionError(StrCat(lock_path, ": ", Errno()));
  // ServerAlive() takes a shared lock for an instant: a start that meets one tries again.
  int locked = ::flock(lock, LOCK_EX | LOCK_NB);
  for (int retry = 0; locked != 0 && retry < 20; ++retry) {
    ::usleep(5000);
    locked = ::flock(lock, LOCK_EX | LOCK_NB);
  }
  if (locked != 0) {
    absl::StatusOr<std::string> pid = core::ReadFile(lock_path, 64);
    ::close(lock);
    return absl::AlreadyExistsError(
        StrCat("a server already serves ", options.home, " (pid ",
               pid.ok() ? ToStd(absl::StripAsciiWhitespace(*pid)) : std::string_view("?"), ")"));
  }
  const std::string pid_text = StrCat(::getpid(), "\n");
  if (::ftruncate(lock, 0) != 0 || ::write(lock, pid_text.data(), pid_text.size()) < 0) {
    ::close(lock);
    return absl::FailedPreconditionError(StrCat(lock_path, ": ", Errno()));
  }

  // Requests from different clients run at once on libuv's pool; its default of 4 threads
  // would make the fifth parallel hook wait for a slow one.
  if (std::getenv("UV_THREADPOOL_SIZE") == nullptr) ::setenv("UV_THREADPOOL_SIZE", "16", 0);
  auto server = std::make_unique<Server>(options);
  server->lock_fd = lock;
  server->socket_path = SocketPath(options.home);
  absl::StatusOr<SocketName> name = SocketName::For(server->socket_path);
  if (!name.ok()) {
    ::close(lock);
    return name.status();
  }
  // Whatever is at the socket's path is stale: the lock says no server is alive.
  ::unlink(server->socket_path.c_str());

  uv_loop_init(&server->loop);
  uv_pipe_init(&server->loop, &server->listener, 0);
  server->listener.data = server.get();
  int rc = uv_pipe_bind(&server->listener, name->name().c_str());
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(&server->listener), 128, OnConnection);
  if (rc != 0) {
    uv_close(reinterpret_cast<uv_handle_t*>(&server->listener), nullptr);
    uv_run(&server->loop, UV_RUN_DEFAULT);
    uv_loop_close(&server->loop);
    ::close(lock);
    return absl::FailedPreconditionError(
        StrCat("cannot listen on ", server->socket_path, ": ", uv_strerror(rc)));
  }
  ::chmod(server->socket_path.c_str(), 0600);
  struct stat bound;
  if (::lstat(server->socket_path.c_str(), &bound) == 0) server->socket_inode = bound.st_ino;
  server->started_ns = uv_hrtime();

  uv_timer_init(&server->loop, &server->idle);
  server->idle.data = server.get();
  server->ResetIdle();
  uv_timer_init(&server->loop, &server->drain);
  server->drain.data = server.get();
  uv_timer_init(&server->loop, &server->maintenance);
  server->maintenance.data = server.get();
  const uint64_t every = std::max<int64_t>(1, absl::ToInt64Milliseconds(options.maintenance_interval));
  uv_timer_start(&server->maintenance, OnMaintenance, every, every);
  uv_signal_init(&server->loop, &server->sigterm);
  uv_signal_init(&server->loop, &server->sigint);
  server->sigterm.data = server.get();
  server->sigint.data = server.get();
  uv_signal_start(&server->sigterm, [](uv_signal_t* s, int) {
    static_cast<Server*>(s->data)->Stop("SIGTERM");
  }, SIGTERM);
  uv_signal_start(&server->sigint, [](uv_signal_t* s, int) {
    static_cast<Server*>(s->data)->Stop("SIGINT");
  }, SIGINT);
  server->log.Write("info", "server",
                    StrCat("serving ", options.home, " on ", server->socket_path, " (pid ",
                           ::getpid(), ", ", server->build_id, ")"));

  if (options.on_listening) options.on_listening();
  uv_run(&server->loop, UV_RUN_DEFAULT);
  // Every request has been answered (or its client left): plugins may go now.
  if (options.on_stop) options.on_stop();
  uv_loop_close(&server->loop);
  // The last write into the home: a `server stop` returns once the lock is free, and its
  // caller may then remove the home.
  server->log.Write("info", "server", "stopped");
  if (!server->retired) {
    ::unlink(server->socket_path.c_str());
    ::close(server->lock_fd);  // releases the lock
  }
  return absl::OkStatus();
}

}  // namespace plugline::server

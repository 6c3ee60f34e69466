// What `plugline server` serves: the commands of commands.h and the shaping of outputs that
// clients captured, each with the host of the client's directory from the server's pool.
// What a client need not wait for (recording statistics, pruning stored outputs) runs after
// the reply; `flush` waits until it has, so that `plugline stats` reads every shaping.
#ifndef PLUGLINE_CLI_SERVE_H_
#define PLUGLINE_CLI_SERVE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

#include "core/json.h"
#include "server/host_pool.h"

namespace plugline::cli {

class Service {
 public:
  explicit Service(server::HostPool::Options options) : pool_(std::move(options)) {}
  server::HostPool& pool() { return pool_; }

  // The reply to a `command`, `capture`, `shape` or `flush` request (docs/server.md);
  // statistics and the pruning of stored outputs go to `later`, after the reply.
  // Thread-safe.
  std::string Handle(const core::Value& request, std::vector<std::function<void()>>* later);

 private:
  // Wraps work for `later`, counted so that `flush` can wait for it.
  std::function<void()> Deferred(std::function<void()> task);

  server::HostPool pool_;
  absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_SERVE_H_

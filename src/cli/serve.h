// What `plugline server` serves: the commands of commands.h and the shaping of outputs that
// clients captured, each with the host of the client's directory from the server's pool.
// What a client need not wait for runs after the reply: the pruning of stored outputs, and the
// statistics, which are written together for all the shapings of a second (kStatsInterval), so
// that a busy server writes stats.json about once a second, not once per command. `flush`
// waits for both, so that `plugline stats` reads every shaping; the statistics still queued
// when the server stops are written then.
#ifndef PLUGLINE_CLI_SERVE_H_
#define PLUGLINE_CLI_SERVE_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#include "core/json.h"
#include "server/host_pool.h"

namespace plugline::cli {

// How long the statistics of a shaping may wait to be written with others.
inline constexpr absl::Duration kStatsInterval = absl::Seconds(1);

class Service {
 public:
  explicit Service(server::HostPool::Options options);
  ~Service();
  server::HostPool& pool() { return pool_; }
  // Writes the statistics still queued and stops the thread that writes them; nothing is
  // written after it returns. The server calls it before it releases its lock (once that is
  // free, the home may be removed). Idempotent; the destructor calls it too.
  void Stop();

  // The reply to a `command`, `capture`, `shape` or `flush` request (docs/server.md);
  // statistics and the pruning of stored outputs go to `later`, after the reply.
  // Thread-safe.
  std::string Handle(const core::Value& request, std::vector<std::function<void()>>* later);

 private:
  // Wraps work for `later`, counted so that `flush` can wait for it.
  std::function<void()> Deferred(std::function<void()> task);

  // A host whose shaping queued statistics; WriteStats writes those of every such host.
  void QueuedStats(std::shared_ptr<Host> host);
  void WriteStats();
  void StatsWriter();  // the thread that calls WriteStats, about once per kStatsInterval

  server::HostPool pool_;
  absl::Mutex mu_;
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Mutex write_mu_;  // held while writing, so that a flush waits for a write under way
  absl::Mutex stats_mu_;
  std::vector<std::shared_ptr<Host>> stats_hosts_ ABSL_GUARDED_BY(stats_mu_);
  bool stopping_ ABSL_GUARDED_BY(stats_mu_) = false;
  std::thread stats_writer_;  // last: started once the rest is made
};

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_SERVE_H_

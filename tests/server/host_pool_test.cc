// The server's hosts (HostPool) and its handler path, against real files and real sockets: the
// fingerprint sees what a user changes, a host is kept, reloaded or dropped as its files say,
// hosts and handlers are used from many threads at once (this file joins the TSan run), and
// a client that hangs up while its request runs does not take the server down.
#include "server/host_pool.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "core/json.h"
#include "core/strings.h"
#include "server/client.h"
#include "server/server.h"
#include "test_util.h"

namespace plugline::server {
namespace {

using plugline::testing::Contains;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

TEST_CASE("host pool: the fingerprint changes when a file is added, edited or removed, down to its depth") {
  TempDir dir;
  WriteFile(dir.Sub("plugins/a.js"), "export default {}\n");
  WriteFile(dir.Sub("plugins/folder/index.js"), "export default {}\n");
  WriteFile(dir.Sub("plugins/folder/lib/deep/far.js"), "x\n");
  const std::vector<core::WatchedPath> watched = {{dir.Sub("config.yaml"), 0},
                                                  {dir.Sub("plugins"), 3}};
  const std::string before = Fingerprint(watched);
  CHECK(Fingerprint(watched) == before);  // nothing changed

  WriteFile(dir.Sub("config.yaml"), "stats: {enabled: false}\n");  // a file that was missing
  const std::string with_config = Fingerprint(watched);
  CHECK(with_config != before);
  WriteFile(dir.Sub("plugins/folder/index.js"), "export default { edited: true }\n");
  const std::string edited = Fingerprint(watched);
  CHECK(edited != with_config);
  WriteFile(dir.Sub("plugins/b.js"), "export default {}\n");
  const std::string added = Fingerprint(watched);
  CHECK(added != edited);
  REQUIRE(::unlink(dir.Sub("plugins/a.js").c_str()) == 0);
  CHECK(Fingerprint(watched) != added);
  // Past the depth asked for, a change is not looked at (plugins/folder/lib/deep is level 4).
  const std::string now = Fingerprint(watched);
  WriteFile(dir.Sub("plugins/folder/lib/deep/far.js"), "a longer line\n");
  CHECK(Fingerprint(watched) == now);
  // A package's own node_modules is never walked.
  WriteFile(dir.Sub("plugins/folder/node_modules/dep/index.js"), "x\n");
  const std::string with_modules = Fingerprint(watched);
  WriteFile(dir.Sub("plugins/folder/node_modules/dep/index.js"), "changed\n");
  CHECK(Fingerprint(watched) == with_modules);
}

TEST_CASE("host pool: a host is kept while its files stay, reloaded when they change, dropped when unused") {
  TempDir home;
  TempDir project;
  HostPool::Options options;
  options.home = home.path();
  options.unused_after = absl::ZeroDuration();
  HostPool pool(options);
  auto first = pool.Get(project.path());
  REQUIRE(first.ok());
  auto again = pool.Get(project.path());
  REQUIRE(again.ok());
  CHECK(first->get() == again->get());
  auto describe = [&] {
    auto hosts = core::ParseJson(pool.Describe(), "hosts");
    REQUIRE(hosts.ok());
    return *hosts;
  };
  core::Value hosts = describe();
  REQUIRE(hosts.as_array().size() == 1);
  CHECK(hosts.as_array()[0].Find("requests")->as_number() == 2);
  CHECK(hosts.as_array()[0].Find("reloads")->as_number() == 0);

  // A config change reloads the same host: its diagnostics say what the new file holds.
  WriteFile(home.Sub("config.yaml"), "nonsense_key: 1\n");
  auto reloaded = pool.Get(project.path());
  REQUIRE(reloaded.ok());
  CHECK(reloaded->get() == first->get());
  CHECK(describe().as_array()[0].Find("reloads")->as_number() == 1);
  bool warned = false;
  for (const std::string& d : (*reloaded)->diagnostics()) warned = warned || Contains(d, "nonsense_key");
  CHECK(warned);

  // In use, a host is not dropped from under its user... but once unused, it goes.
  first = absl::UnavailableError("released");
  again = absl::UnavailableError("released");
  reloaded = absl::UnavailableError("released");
  pool.DropUnused();
  CHECK(describe().as_array().empty());
  auto fresh = pool.Get(project.path());
  REQUIRE(fresh.ok());
  CHECK(describe().as_array()[0].Find("requests")->as_number() == 1);

  // One host per directory, at most max_hosts of them.
  HostPool::Options small = options;
  small.max_hosts = 2;
  HostPool bounded(small);
  TempDir a, b, c;
  for (const TempDir* dir : {&a, &b, &c}) REQUIRE(bounded.Get(dir->path()).ok());
  auto listed = core::ParseJson(bounded.Describe(), "hosts");
  REQUIRE(listed.ok());
  CHECK(listed->as_array().size() == 2);
}

TEST_CASE("host pool: 8 threads get and use hosts while the config changes under them") {
  TempDir home;
  TempDir project;
  HostPool::Options options;
  options.home = home.path();
  HostPool pool(options);
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; !done; ++i) {
      WriteFile(home.Sub("config.yaml"), StrCat("outputs:\n  keep_files: ", 100 + i % 7, "\n"));
      absl::SleepFor(absl::Milliseconds(2));
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 40; ++i) {
        auto host = pool.Get(project.path());
        if (!host.ok()) {
          ++failures;
          continue;
        }
        auto result = (*host)->Dispatch("session_start", "{}");
        if (!result.ok() || result->denied) ++failures;
        ShapeRequest request;
        request.command = "make";
        request.output = "error: x\n";
        if (!(*host)->Shape(request).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  done = true;
  writer.join();
  CHECK(failures == 0);
  auto hosts = core::ParseJson(pool.Describe(), "hosts");
  REQUIRE(hosts.ok());
  CHECK(hosts->as_array()[0].Find("requests")->as_number() == 320);
  pool.DropAll();
}

TEST_CASE("server: a handler's later work runs after its reply, and a client that hangs up mid-request does no harm") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  std::atomic<int> later_ran{0};
  absl::Notification slow_started;
  options.handle = [&](const core::Value& request, std::vector<std::function<void()>>* later) {
    if (request.Find("slow") != nullptr) {
      slow_started.Notify();
      absl::SleepFor(absl::Milliseconds(300));
    }
    later->push_back([&] { ++later_ran; });
    return std::string(R"({"ok":true,"handled":true})");
  };
  absl::Notification listening;
  options.on_listening = [&] { listening.Notify(); };
  absl::Status status;
  std::thread server([&] { status = RunServer(options); });
  REQUIRE(listening.WaitForNotificationWithTimeout(absl::Seconds(10)));

  auto client = Client::Connect(home.path(), absl::Seconds(5));
  REQUIRE(client.ok());
  auto reply = client->Call(R"({"type":"work"})", absl::Seconds(5));
  REQUIRE(reply.ok());
  CHECK(Contains(*reply, "\"handled\":true"));
  // A request of another build is refused before the handler sees it.
  auto other = client->Call(R"({"type":"work","build_id":"0.0.0-other"})", absl::Seconds(5));
  REQUIRE(other.ok());
  CHECK(Contains(*other, "\"code\":\"other_build\""));

  {
    // Hang up while the handler runs: its reply has nowhere to go, and is dropped.
    auto leaving = Client::Connect(home.path(), absl::Seconds(5));
    REQUIRE(leaving.ok());
    std::thread caller([&] { (void)leaving->Call(R"({"type":"work","slow":1})", absl::Milliseconds(50)); });
    caller.join();
    REQUIRE(slow_started.WaitForNotificationWithTimeout(absl::Seconds(5)));
  }
  absl::SleepFor(absl::Milliseconds(400));
  auto after = client->Call(R"({"type":"status"})", absl::Seconds(5));
  REQUIRE(after.ok());
  CHECK(Contains(*after, "\"in_flight\":0"));
  CHECK(later_ran == 2);
  (void)client->Call(R"({"type":"stop"})", absl::Seconds(5));
  server.join();
  CHECK(status.ok());
}

TEST_CASE("server: a retired server frees the home at once and exits once its connections close, or at its drain deadline") {
  TempDir home;
  ServerOptions options;
  options.home = home.path();
  options.drain_deadline = absl::Milliseconds(300);
  absl::Notification listening;
  options.on_listening = [&] { listening.Notify(); };
  absl::Notification done;
  std::thread server([&] {
    (void)RunServer(options);
    done.Notify();
  });
  REQUIRE(listening.WaitForNotificationWithTimeout(absl::Seconds(10)));
  auto idle = Client::Connect(home.path(), absl::Seconds(5));  // connected, and silent
  REQUIRE(idle.ok());
  auto client = Client::Connect(home.path(), absl::Seconds(5));
  REQUIRE(client.ok());
  auto retired = client->Call(R"({"type":"retire","reason":"a test"})", absl::Seconds(5));
  REQUIRE(retired.ok());
  CHECK(Contains(*retired, "\"ok\":true"));
  // The home is free for a fresh server at once: no lock, no socket.
  CHECK_FALSE(ServerAlive(home.path()));
  CHECK_FALSE(Client::Connect(home.path(), absl::Milliseconds(200)).ok());
  // The retiring server still answers the connections it has.
  auto still = client->Call(R"({"type":"hello"})", absl::Seconds(5));
  CHECK(still.ok());
  { auto gone = std::move(*client); }
  // The silent one keeps it alive until the deadline closes it.
  CHECK(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  server.join();
  const std::string log = plugline::testing::ReadFileOrEmpty(home.Sub("logs/plugline.log"));
  CHECK(Contains(log, "server: retiring: a test"));
  CHECK(Contains(log, "server: retired: closing the connections still open"));
}

}  // namespace
}  // namespace plugline::server

// A real HTTP server (tests/catalog/serve.py: python3's http.server) on 127.0.0.1, started and
// stopped by a test.
#ifndef PLUGLINE_TESTS_CATALOG_LOOPBACK_SERVER_H_
#define PLUGLINE_TESTS_CATALOG_LOOPBACK_SERVER_H_

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <thread>

#include "absl/time/clock.h"
#include "catalog/download.h"
#include "core/fs.h"
#include "exec/process.h"
#include "test_util.h"

namespace plugline::catalog {

// A real HTTP server (python3 http.server) on 127.0.0.1, for the duration of a test.
class LoopbackServer {
 public:
  explicit LoopbackServer(const std::string& directory) : port_file_(tmp_.Sub("port")) {
    thread_ = std::thread([this, directory] {
      exec::ProcessSpec spec;
      spec.argv = {"python3", plugline::testing::SourceDir() + "/catalog/serve.py", directory,
                   port_file_};
      spec.timeout = absl::Seconds(120);
      result_ = exec::RunProcess(spec);
    });
    absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (!core::PathExists(port_file_) && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    port_ = plugline::testing::ReadFileOrEmpty(port_file_);
    REQUIRE_MESSAGE(!port_.empty(), "the loopback HTTP server did not start");
  }
  ~LoopbackServer() { Stop(); }
  // Stops it now (a server that went away); later calls do nothing.
  void Stop() {
    if (!thread_.joinable()) return;
    Fetch(Url("/quit"), DownloadOptions{}).IgnoreError();
    thread_.join();
  }
  std::string Url(std::string_view path) const {
    return "http://127.0.0.1:" + port_ + std::string(path);
  }

 private:
  plugline::testing::TempDir tmp_;
  std::string port_file_;
  std::string port_;
  std::thread thread_;
  absl::StatusOr<exec::ProcessResult> result_;
};

}  // namespace plugline::catalog

#endif  // PLUGLINE_TESTS_CATALOG_LOOPBACK_SERVER_H_

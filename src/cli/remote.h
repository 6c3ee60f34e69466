// The client side of `plugline`'s server: whether a command talks to a server, starting one
// when the configuration asks for it, and the requests it sends. Every failure here is an
// error the caller answers by running the command in-process: output is never lost.
#ifndef PLUGLINE_CLI_REMOTE_H_
#define PLUGLINE_CLI_REMOTE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/commands.h"
#include "core/output_capture.h"
#include "plugline/host.h"
#include "server/client.h"

namespace plugline::cli {

// Starts `plugline server` for `home` in the background (its own session, output in
// logs/server.out) and waits until it answers, at most `wait`. `idle_timeout` is passed on
// when given. Returns the server's pid.
absl::StatusOr<int64_t> StartServerProcess(const std::string& home,
                                           std::optional<absl::Duration> idle_timeout,
                                           absl::Duration wait);

class Remote {
 public:
  // Where a command that loads plugins runs: a Remote when a server of this build serves
  // `home` (or was started for this command); nullopt to run in-process. Deciding may open the
  // in-process host (`server: auto` asks whether a JS plugin is enabled): then it is left in
  // `*host` for the caller to use.
  static std::optional<Remote> Choose(const std::string& home, const std::string& cwd,
                                      std::unique_ptr<Host>* host);

  // Each request is checked by the server: a server of another build retires and a fresh one
  // is started (the request is sent again), and `server: never` in config.yaml is Cancelled
  // (the caller runs the command in-process, saying nothing).
  //
  // Runs a host command (commands.h) in the server and prints its output; returns its status.
  absl::StatusOr<int> Command(std::string_view name, const std::vector<std::string>& args,
                              const std::string* stdin_data);
  // How the host of the directory captures outputs. RequestCaptureSettings sends the request
  // without waiting, so that the command can start meanwhile; CaptureSettings then reads the
  // answer (or, without a request sent, asks and waits).
  absl::Status RequestCaptureSettings();
  absl::StatusOr<core::CaptureSettings> CaptureSettings();
  // Shapes a captured output in the server and prints the result; returns the status.
  absl::StatusOr<int> Shape(bool run, std::string_view command, std::optional<int> exit_code,
                            const ShapeFlags& flags, const core::CapturedOutput& captured);

 private:
  Remote(server::Client client, std::string home, std::string cwd)
      : client_(std::move(client)), home_(std::move(home)), cwd_(std::move(cwd)) {}
  // Starts a server (or finds the one another command started) and connects to it.
  static absl::StatusOr<server::Client> StartAndConnect(const std::string& home);
  // Sends a request, checks the reply and prints its output. Nothing is printed on error.
  absl::StatusOr<int> CallAndPrint(const std::string& request);
  // With `sent`, the request went out already (its reply is read first).
  absl::StatusOr<core::Value> Call(const std::string& request, bool sent = false);
  std::string CaptureRequest() const;

  server::Client client_;
  std::string home_;
  std::string cwd_;
  bool capture_requested_ = false;
};

// Says on stderr that the server failed and the command runs in-process, and logs it.
void NoteFallback(const std::string& home, const absl::Status& why);

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_REMOTE_H_

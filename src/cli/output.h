// Where a `plugline` command prints: the terminal (a command run in this process) or a buffer
// that keeps the order of its writes (a command the server runs for a client, whose reply
// the client prints as it would have been printed).
#ifndef PLUGLINE_CLI_OUTPUT_H_
#define PLUGLINE_CLI_OUTPUT_H_

#include <unistd.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli_io.h"
#include "core/strings.h"

namespace plugline::cli {

class Output {
 public:
  virtual ~Output() = default;
  virtual void Write(int fd, std::string_view text) = 0;
  void Out(std::string_view text) { Write(STDOUT_FILENO, text); }
  // "plugline: <message>" on stderr.
  void Error(std::string_view message) {
    Write(STDERR_FILENO, StrCat("plugline: ", message, "\n"));
  }
};

class FdOutput final : public Output {
 public:
  void Write(int fd, std::string_view text) override { WriteAll(fd, text); }
};

class BufferOutput final : public Output {
 public:
  // Consecutive writes to one descriptor are one chunk.
  void Write(int fd, std::string_view text) override {
    if (text.empty()) return;
    if (!chunks_.empty() && chunks_.back().first == fd) {
      chunks_.back().second.append(text);
    } else {
      chunks_.emplace_back(fd, std::string(text));
    }
  }
  const std::vector<std::pair<int, std::string>>& chunks() const { return chunks_; }

 private:
  std::vector<std::pair<int, std::string>> chunks_;
};

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_OUTPUT_H_

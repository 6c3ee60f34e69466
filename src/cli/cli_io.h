// What every `plugline` subcommand prints with: whole writes to a descriptor, error lines on
// stderr, and the usage exit status.
#ifndef PLUGLINE_CLI_CLI_IO_H_
#define PLUGLINE_CLI_CLI_IO_H_

#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "core/strings.h"

namespace plugline::cli {

inline constexpr int kExitUsage = 2;

// Writes all of `data` to `fd` (retrying short writes and EINTR); a write error drops the rest.
inline void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// "plugline: <message>" on stderr.
inline void Error(std::string_view message) {
  WriteAll(STDERR_FILENO, StrCat("plugline: ", message, "\n"));
}

// The working directory, or "" when it cannot be told (removed, too long).
inline std::string CurrentDir() {
  char buf[4096];
  return ::getcwd(buf, sizeof buf) != nullptr ? std::string(buf) : std::string();
}

// This executable's absolute path (what an agent's hook settings and a wrapped command run).
inline std::string SelfPath() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("plugline");
}

}  // namespace plugline::cli

#endif  // PLUGLINE_CLI_CLI_IO_H_

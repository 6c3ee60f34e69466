#include "core/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/fs.h"
#include "core/plugin_id.h"
#include "core/redact.h"
#include "core/strings.h"

namespace plugline::core {

Log::Log(std::string dir) : dir_(std::move(dir)) {
  if (!dir_.empty()) path_ = JoinPath(dir_, "plugline.log");
  const char* debug = std::getenv("PLUGLINE_DEBUG");
  debug_ = debug != nullptr && *debug != '\0' && std::string_view(debug) != "0";
}

void Log::Write(std::string_view level, std::string_view source,
                std::string_view message) const {
  if (path_.empty() || (level == "debug" && !debug_)) return;
  // A plugin's stderr or error may quote its payload: secrets are masked before they are kept.
  // Control characters are escaped in the source too (it names a plugin): a line is one record,
  // and `cat`ing the log never replays a plugin's escape sequences on a terminal.
  std::string line = StrCat(absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(),
                                             absl::UTCTimeZone()),
                            " ", level, " ", EscapeControl(source), ": ",
                            EscapeControl(RedactSecrets(message)));
  line += '\n';
  int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 && errno == ENOENT) {
    if (!MakeDirs(dir_).ok()) return;
    fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  }
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= kMaxLogBytes) {
    // Another process may rotate at the same moment; renaming twice loses at most one
    // generation, never a line being written (writers hold their own descriptors).
    ::rename(path_.c_str(), StrCat(path_, ".1").c_str());
    ::close(fd);
    fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
  }
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(fd, line.data() + off, line.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    off += static_cast<size_t>(n);
  }
  ::close(fd);
}

}  // namespace plugline::core

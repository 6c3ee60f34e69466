#include "core/output_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/fs.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

// Temporary files of writers: hidden, so that listings and pruning of .log files skip them.
constexpr absl::string_view kTempSuffix = ".partial";
// A temporary file no writer holds is removed once it is this old (a writer that has just
// created its file may not hold its lock yet).
constexpr absl::Duration kStaleTempAge = absl::Minutes(1);

// <UTC time>-<pid>-<n>.log: the time prefix makes names sort oldest-first, which is what
// pruning relies on; pid and sequence keep concurrent writers (threads or processes) apart.
std::string NewName() {
  static std::atomic<uint64_t> process_sequence{0};
  const uint64_t sequence = process_sequence.fetch_add(1) + 1;
  return StrCat(absl::FormatTime("%Y%m%dT%H%M%E3SZ", absl::Now(), absl::UTCTimeZone()), "-",
                ::getpid(), "-", sequence, ".log");
}

// A writer's temporary file: hidden, with a counter of its own.
std::string NewTempName() {
  static std::atomic<uint64_t> temp_sequence{0};
  return StrCat(".", absl::FormatTime("%Y%m%dT%H%M%E3SZ", absl::Now(), absl::UTCTimeZone()), "-",
                ::getpid(), "-", temp_sequence.fetch_add(1) + 1, kTempSuffix);
}

// Newest first: by time, then pid and sequence as numbers, so that the 10th output of a
// millisecond is newer than the 9th (as names they would sort the other way).
bool NewerName(const std::string& a, const std::string& b) {
  auto key = [](const std::string& name) {
    std::string_view rest(name);
    const size_t time_end = rest.find('-');
    std::string_view time = rest.substr(0, time_end);
    uint64_t pid = 0, sequence = 0;
    if (time_end != std::string_view::npos) {
      rest.remove_prefix(time_end + 1);
      const size_t pid_end = rest.find('-');
      if (!absl::SimpleAtoi(ToAbsl(rest.substr(0, pid_end)), &pid)) pid = 0;
      if (pid_end != std::string_view::npos) {
        rest.remove_prefix(pid_end + 1);
        if (!absl::SimpleAtoi(ToAbsl(rest.substr(0, rest.find('.'))), &sequence)) sequence = 0;
      }
    }
    return std::tuple(time, pid, sequence);
  };
  const auto ka = key(a), kb = key(b);
  return ka != kb ? ka > kb : a > b;
}

}  // namespace

RawOutputWriter::RawOutputWriter(OutputStore* store, uint64_t max_file_bytes)
    : store_(store), max_file_bytes_(max_file_bytes) {
  absl::Status status = MakeDirs(store_->dir_);
  if (!status.ok()) {
    Fail(std::move(status));
    return;
  }
  temp_path_ = JoinPath(store_->dir_, NewTempName());
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    Fail(ErrnoToStatus(errno, StrCat("cannot create ", temp_path_)));
    temp_path_.clear();
    return;
  }
  // Held while the file is written: pruning in any process leaves a held file alone.
  ::flock(fd_, LOCK_EX | LOCK_NB);
}

RawOutputWriter::~RawOutputWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void RawOutputWriter::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }
}

void RawOutputWriter::Write(std::string_view chunk) {
  bytes_ += chunk.size();
  if (fd_ < 0) return;
  if (max_file_bytes_ != 0) {
    chunk = chunk.substr(
        0, static_cast<size_t>(std::min<uint64_t>(chunk.size(), max_file_bytes_ - written_)));
  }
  while (!chunk.empty()) {
    ssize_t n = ::write(fd_, chunk.data(), chunk.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      Fail(ErrnoToStatus(errno, StrCat("cannot write ", temp_path_)));
      return;
    }
    written_ += static_cast<uint64_t>(n);
    chunk.remove_prefix(static_cast<size_t>(n));
  }
}

absl::StatusOr<std::string> RawOutputWriter::Commit() {
  if (committed_) return absl::FailedPreconditionError("the raw output was already committed");
  if (!status_.ok()) return status_;
  std::string path = JoinPath(store_->dir_, NewName());
  // Renamed while the file is still open and locked, so no pruner can take it for stale.
  if (::rename(temp_path_.c_str(), path.c_str()) != 0) {
    absl::Status status = ErrnoToStatus(errno, StrCat("cannot rename ", temp_path_, " to ", path));
    Fail(status);
    return status;
  }
  committed_ = true;
  temp_path_.clear();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    absl::Status status = ErrnoToStatus(errno, StrCat("cannot close ", path));
    ::unlink(path.c_str());
    status_ = status;
    return status;
  }
  if (prune_) store_->Prune(path);
  return path;
}

OutputStore::OutputStore(std::string dir, OutputRetention retention)
    : dir_(std::move(dir)), retention_(retention) {}

std::unique_ptr<RawOutputWriter> OutputStore::Begin() {
  return std::unique_ptr<RawOutputWriter>(new RawOutputWriter(this, retention_.max_file_bytes));
}

absl::StatusOr<std::string> OutputStore::Store(std::string_view output) {
  std::unique_ptr<RawOutputWriter> writer = Begin();
  writer->Write(output);
  return writer->Commit();
}

void OutputStore::Prune(const std::string& keep) {
  auto names = ListDir(dir_);
  if (!names.ok()) return;
  std::vector<std::string> logs;
  const absl::Time now = absl::Now();
  for (const std::string& name : *names) {
    if (name[0] == '.') {
      // A temporary file of a writer that died (SIGKILL, power loss) would stay forever.
      if (!absl::EndsWith(name, kTempSuffix) && name.find(".log.tmp-") == std::string::npos) {
        continue;
      }
      std::string path = JoinPath(dir_, name);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0) continue;
      struct stat st;
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
          now - absl::FromTimeT(st.st_mtime) > kStaleTempAge &&
          ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        ::unlink(path.c_str());
      }
      ::close(fd);
      continue;
    }
    if (absl::EndsWith(name, ".log")) logs.push_back(name);
  }
  if (logs.size() <= retention_.keep_files && retention_.max_total_bytes == 0) return;
  std::sort(logs.begin(), logs.end(), NewerName);
  uint64_t total = 0;
  uint64_t kept = 0;
  for (const std::string& name : logs) {
    std::string path = JoinPath(dir_, name);
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;  // a concurrent prune removed it
    uint64_t bytes = static_cast<uint64_t>(st.st_size);
    bool within = kept < retention_.keep_files &&
                  (retention_.max_total_bytes == 0 || total + bytes <= retention_.max_total_bytes);
    if (within || path == keep) {
      total += bytes;
      ++kept;
      continue;
    }
    ::unlink(path.c_str());
  }
}

}  // namespace plugline::core

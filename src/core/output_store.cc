#include "core/output_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <functional>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
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

// The order of outputs, newest first: by time, then pid and sequence as numbers, so that the
// 10th output of a millisecond is newer than the 9th (as names they would sort the other way).
struct OutputKey {
  std::string_view time;
  uint64_t pid = 0;
  uint64_t sequence = 0;
  std::string_view name;
  bool operator>(const OutputKey& other) const {
    return std::tie(time, pid, sequence, name) >
           std::tie(other.time, other.pid, other.sequence, other.name);
  }
};

OutputKey KeyOf(std::string_view name) {
  OutputKey key;
  key.name = name;
  std::string_view rest = name;
  const size_t time_end = rest.find('-');
  key.time = rest.substr(0, time_end);
  if (time_end == std::string_view::npos) return key;
  rest.remove_prefix(time_end + 1);
  const size_t pid_end = rest.find('-');
  if (!absl::SimpleAtoi(ToAbsl(rest.substr(0, pid_end)), &key.pid)) key.pid = 0;
  if (pid_end == std::string_view::npos) return key;
  rest.remove_prefix(pid_end + 1);
  if (!absl::SimpleAtoi(ToAbsl(rest.substr(0, rest.find('.'))), &key.sequence)) key.sequence = 0;
  return key;
}

// What the store holds, kept in <dir>/.usage so that a store need not stat every file after
// every output: a full prune writes "<files> <bytes> <unix time>" as it left the store, and
// every output stored since appends a line with its size. The count is exact but for outputs
// stored while a full prune rewrote the file (those are missing until the next full prune), so
// a full prune also runs when the file is older than kFullPruneInterval.
constexpr std::string_view kUsageName = ".usage";
constexpr absl::Duration kFullPruneInterval = absl::Minutes(10);
constexpr size_t kMaxUsageBytes = 64 << 10;

// Within the bounds, counting an output of `bytes` just stored: then appends it and says true.
// False when a full prune is due (no usage file, a bad or old one, or a bound reached).
bool AppendUsage(const std::string& path, const OutputRetention& retention, uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  std::string text;
  struct stat st;
  bool within = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                static_cast<uint64_t>(st.st_size) <= kMaxUsageBytes;
  if (within) {
    text.resize(static_cast<size_t>(st.st_size));
    within = ::pread(fd, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
  }
  uint64_t files = 0, total = 0;
  if (within) {
    std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
    std::vector<absl::string_view> header =
        lines.empty() ? std::vector<absl::string_view>{} : absl::StrSplit(lines[0], ' ');
    int64_t when = 0;
    within = header.size() == 3 && absl::SimpleAtoi(header[0], &files) &&
             absl::SimpleAtoi(header[1], &total) && absl::SimpleAtoi(header[2], &when);
    const absl::Time written = absl::FromUnixSeconds(when), now = absl::Now();
    within = within && now - written < kFullPruneInterval && written - now < absl::Minutes(1);
    for (size_t i = 1; within && i < lines.size(); ++i) {
      uint64_t size = 0;
      within = absl::SimpleAtoi(lines[i], &size);
      total += size;
      ++files;
    }
  }
  ++files;
  total += bytes;
  within = within && files <= retention.keep_files &&
           (retention.max_total_bytes == 0 || total <= retention.max_total_bytes);
  if (within) {
    const std::string line = StrCat(bytes, "\n");
    within = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  }
  ::close(fd);
  return within;
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
  written_ += chunk.size();
  std::string masked;
  masker_.Feed(chunk, &masked);
  WriteFile(masked);
}

void RawOutputWriter::WriteFile(std::string_view text) {
  while (fd_ >= 0 && !text.empty()) {
    ssize_t n = ::write(fd_, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      Fail(ErrnoToStatus(errno, StrCat("cannot write ", temp_path_)));
      return;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
}

absl::StatusOr<std::string> RawOutputWriter::Commit() {
  if (committed_) return absl::FailedPreconditionError("the raw output was already committed");
  std::string rest;
  masker_.Finish(&rest);
  WriteFile(rest);
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
  struct stat st;
  const uint64_t keep_bytes =
      !keep.empty() && ::stat(keep.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  const std::string usage = JoinPath(dir_, kUsageName);
  if (AppendUsage(usage, retention_, keep_bytes)) return;

  auto names = ListDir(dir_);
  if (!names.ok()) return;
  std::vector<OutputKey> logs;
  const absl::Time now = absl::Now();
  for (const std::string& name : *names) {
    if (name[0] == '.') {
      // A temporary file of a writer that died (SIGKILL, power loss) would stay forever.
      if (!absl::EndsWith(name, kTempSuffix) && name.find(".log.tmp-") == std::string::npos &&
          !absl::StartsWith(name, StrCat(".", kUsageName, ".tmp-"))) {
        continue;
      }
      std::string path = JoinPath(dir_, name);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (fd < 0) continue;
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
          now - absl::FromTimeT(st.st_mtime) > kStaleTempAge &&
          ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
        ::unlink(path.c_str());
      }
      ::close(fd);
      continue;
    }
    if (absl::EndsWith(name, ".log")) logs.push_back(KeyOf(name));
  }
  std::sort(logs.begin(), logs.end(), std::greater<>());
  struct Kept {
    std::string path;
    uint64_t bytes;
  };
  std::vector<Kept> files;
  files.reserve(logs.size());
  uint64_t total = 0;
  for (const OutputKey& key : logs) {
    std::string path = JoinPath(dir_, key.name);
    if (::stat(path.c_str(), &st) != 0) continue;  // a concurrent prune removed it
    files.push_back({std::move(path), static_cast<uint64_t>(st.st_size)});
    total += files.back().bytes;
  }
  // A store over a bound loses its oldest files down to nine tenths of the bounds at once, so
  // that the next outputs find room without another full prune.
  uint64_t keep_files = retention_.keep_files, max_bytes = retention_.max_total_bytes;
  if (files.size() > keep_files || (max_bytes != 0 && total > max_bytes)) {
    keep_files -= keep_files / 10;
    max_bytes -= max_bytes / 10;
  }
  uint64_t kept_files = 0, kept_bytes = 0;
  for (const Kept& file : files) {
    const bool within = kept_files < keep_files &&
                        (max_bytes == 0 || kept_bytes + file.bytes <= max_bytes);
    if (within || file.path == keep) {
      kept_bytes += file.bytes;
      ++kept_files;
      continue;
    }
    ::unlink(file.path.c_str());
  }
  // Best effort: without the file the next output prunes in full again.
  WriteFileAtomic(usage, StrCat(kept_files, " ", kept_bytes, " ", absl::ToUnixSeconds(now), "\n"),
                  Durability::kNone)
      .IgnoreError();
}

}  // namespace plugline::core

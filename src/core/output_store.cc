#include "core/output_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/fs.h"

namespace plugline::core {

OutputStore::OutputStore(std::string dir, OutputRetention retention)
    : dir_(std::move(dir)), retention_(retention) {}

absl::StatusOr<std::string> OutputStore::Store(std::string_view output) {
  absl::Status status = MakeDirs(dir_);
  if (!status.ok()) return status;
  static std::atomic<uint64_t> process_sequence{0};
  const uint64_t sequence = process_sequence.fetch_add(1) + 1;
  // The time prefix makes names sort oldest-first, which is what pruning relies on; pid and
  // sequence keep concurrent writers (threads or processes) apart.
  std::string name = StrCat(
      absl::FormatTime("%Y%m%dT%H%M%E3SZ", absl::Now(), absl::UTCTimeZone()), "-", ::getpid(),
      "-", sequence, ".log");
  std::string path = JoinPath(dir_, name);
  status = WriteFileAtomic(path, output, Durability::kNone);
  if (!status.ok()) return status;
  Prune(path);
  return path;
}

void OutputStore::Prune(const std::string& keep) {
  auto names = ListDir(dir_);
  if (!names.ok()) return;
  std::vector<std::string> logs;
  for (const std::string& name : *names) {
    if (absl::EndsWith(name, ".log") && name[0] != '.') logs.push_back(name);
  }
  if (logs.size() <= retention_.keep_files && retention_.max_total_bytes == 0) return;
  std::sort(logs.begin(), logs.end(), std::greater<>());  // newest first
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

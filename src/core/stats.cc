#include "core/stats.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/time/clock.h"
#include "core/fs.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

// Holds an exclusive flock for its lifetime.
class FileLock {
 public:
  static absl::StatusOr<FileLock> Acquire(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return ErrnoToStatus(errno, StrCat("cannot open ", path));
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoToStatus(err, StrCat("cannot lock ", path));
    }
    return FileLock(fd);
  }
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

Value* Child(Value& parent, std::string_view key) {
  if (parent.Find(key) == nullptr) parent.Set(key, Value(ValueObject{}));
  for (auto& [k, v] : parent.as_object()) {
    if (k == key) return &v;
  }
  return nullptr;
}

void AddNumber(Value& object, std::string_view key, double delta) {
  const Value* old = object.Find(key);
  double base = old != nullptr && old->is_number() ? old->as_number() : 0;
  object.Set(key, Value(base + delta));
}

absl::StatusOr<Value> ReadStats(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      Value empty(ValueObject{});
      empty.Set("version", 1);
      return empty;
    }
    return text.status();
  }
  absl::StatusOr<Value> value = ParseJson(*text, path);
  if (!value.ok()) return value.status();
  if (!value->is_object()) {
    return absl::InvalidArgumentError(StrCat(path, ": expected a JSON object"));
  }
  return value;
}

}  // namespace

StatsStore::StatsStore(std::string home)
    : home_(std::move(home)),
      path_(JoinPath(home_, "stats.json")),
      lock_path_(JoinPath(home_, "stats.lock")) {}

absl::Status StatsStore::Record(const ShapeTrace& trace, absl::Time when) {
  if (trace.matched.empty() && trace.shaper.empty() && trace.match_failed.empty()) {
    return absl::OkStatus();
  }
  absl::Status made = MakeDirs(home_);
  if (!made.ok()) return made;
  absl::StatusOr<FileLock> lock = FileLock::Acquire(lock_path_);
  if (!lock.ok()) return lock.status();
  absl::StatusOr<Value> stats = ReadStats(path_);
  if (!stats.ok()) {
    // A corrupt file is set aside, not lost, and counting starts again.
    std::string aside = StrCat(path_, ".corrupt-", absl::ToUnixSeconds(when));
    ::rename(path_.c_str(), aside.c_str());
    stats = ReadStats(path_);
    if (!stats.ok()) return stats.status();
  }
  Value& root = *stats;
  root.Set("version", 1);
  Value* shapers = Child(root, "shapers");
  for (const std::string& id : trace.matched) AddNumber(*Child(*shapers, id), "match_count", 1);
  for (const std::string& id : trace.match_failed) {
    AddNumber(*Child(*shapers, id), "match_fail_count", 1);
  }
  if (!trace.shaper.empty()) {
    Value* s = Child(*shapers, trace.shaper);
    const double saved = static_cast<double>(trace.tokens_raw) -
                         static_cast<double>(trace.tokens_shaper_summary);
    if (trace.failed) {
      AddNumber(*s, "fail_count", 1);
    } else {
      AddNumber(*s, "shape_count", 1);
      AddNumber(*s, "tokens_saved", saved);
    }
    AddNumber(*s, "shape_ms_total", trace.shape_ms);

    std::string day = absl::FormatTime("%Y-%m-%d", when, absl::UTCTimeZone());
    Value* daily = Child(root, "daily");
    Value* bucket = Child(*Child(*daily, day), trace.shaper);
    AddNumber(*bucket, "shapes", 1);
    AddNumber(*bucket, "tokens_raw", static_cast<double>(trace.tokens_raw));
    if (!trace.failed) AddNumber(*bucket, "tokens_saved", saved);
    // Bounded: the oldest days go first (keys are ISO dates, so they sort by time).
    ValueObject& days = daily->as_object();
    if (days.size() > static_cast<size_t>(kStatsDaysKept)) {
      std::sort(days.begin(), days.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      days.erase(days.begin(), days.end() - kStatsDaysKept);
    }
  }
  return WriteFileAtomic(path_, ToJson(root), Durability::kNone);
}

absl::StatusOr<Value> StatsStore::Load() const {
  absl::StatusOr<Value> stats = ReadStats(path_);
  if (!stats.ok()) return stats;
  Value* shapers = Child(*stats, "shapers");
  for (auto& [id, s] : shapers->as_object()) {
    const Value* count = s.Find("shape_count");
    const Value* total = s.Find("shape_ms_total");
    double n = count != nullptr && count->is_number() ? count->as_number() : 0;
    double ms = total != nullptr && total->is_number() ? total->as_number() : 0;
    s.Set("average_shape_ms", Value(n > 0 ? ms / n : 0.0));
  }
  return stats;
}

}  // namespace plugline::core

#include "core/state_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
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
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_;
};

// rename(2) that never replaces `to`; EEXIST when it exists.
int RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return -1;
  // A filesystem without RENAME_NOREPLACE. The caller holds the file's lock, so no plugline
  // process renames to the same name between the check and the rename.
  if (PathExists(to)) {
    errno = EEXIST;
    return -1;
  }
  return ::rename(from.c_str(), to.c_str());
}

std::string KindOf(const Value& value) { return std::string(Value::KindName(value.kind())); }

absl::Status Mismatch(std::string_view where, std::string_view expected, const Value& value) {
  std::string got = KindOf(value);
  if (value.is_number()) {
    // The number itself says more than "a number" when it is out of range.
    const double d = value.as_number();
    got = std::isfinite(d) ? ToJson(value) : std::isnan(d) ? "NaN" : d > 0 ? "infinity" : "-infinity";
  }
  return absl::InvalidArgumentError(StrCat("`", where, "` must be ", expected, ", not ", got));
}

}  // namespace

StateFile::StateFile(StateFileOptions options) : options_(std::move(options)) {
  if (options_.lock_path.empty()) options_.lock_path = StrCat(options_.path, ".lock");
}

Value StateFile::Empty() const {
  Value empty(ValueObject{});
  empty.Set("version", Value(options_.version));
  return empty;
}

absl::StatusOr<StateFile::Loaded> StateFile::Load() const {
  Loaded loaded;
  absl::StatusOr<std::string> text = ReadFile(options_.path, options_.max_bytes);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) return loaded;  // kAbsent
    return text.status();
  }
  loaded.verdict = Verdict::kMalformed;
  if (text->size() > options_.max_bytes) {
    loaded.problem = StrCat("larger than ", options_.max_bytes, " bytes");
    return loaded;
  }
  absl::StatusOr<Value> doc = ParseJson(*text, options_.path);
  if (!doc.ok()) {
    // "<path>: invalid JSON: ..." -> "invalid JSON: ...": the warning names the path once.
    std::string_view message = ToStd(doc.status().message());
    const std::string prefix = StrCat(options_.path, ": ");
    if (absl::StartsWith(ToAbsl(message), prefix)) message.remove_prefix(prefix.size());
    loaded.problem = std::string(message);
    return loaded;
  }
  if (!doc->is_object()) {
    loaded.problem = StrCat("the document must be a JSON object, not ", KindOf(*doc));
    return loaded;
  }
  const Value* version = doc->Find("version");
  if (version == nullptr) {
    loaded.problem = "`version` is missing";
    return loaded;
  }
  std::optional<int64_t> number = version->as_integer();
  if (!number.has_value() || *number < 1) {
    loaded.problem = std::string(Mismatch("version", "a whole number >= 1", *version).message());
    return loaded;
  }
  if (*number > options_.version) {
    loaded.verdict = Verdict::kNewer;
    loaded.problem = StrCat(options_.path, " has version ", *number,
                            ", newer than this plugline's (", options_.version,
                            "): left untouched");
    return loaded;
  }
  if (options_.validate) {
    absl::Status valid = options_.validate(*doc);
    if (!valid.ok()) {
      loaded.problem = std::string(valid.message());
      return loaded;
    }
  }
  loaded.verdict = Verdict::kValid;
  loaded.doc = *std::move(doc);
  return loaded;
}

StateFile::Aside StateFile::MoveAside(std::string_view problem) const {
  const std::string stem =
      StrCat(options_.path, ".corrupt-",
             absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone()));
  for (int n = 1; n <= 1000; ++n) {
    std::string aside = n == 1 ? stem : StrCat(stem, "-", n);
    if (RenameNoReplace(options_.path, aside) == 0) {
      return {true, StrCat(options_.path, " is malformed (", problem, "); moved it aside to ",
                           aside, " and started afresh")};
    }
    if (errno != EEXIST) {
      return {false, StrCat(options_.path, " is malformed (", problem,
                            "); could not move it aside (", std::strerror(errno),
                            "), so it is left as it is")};
    }
  }
  return {false, StrCat(options_.path, " is malformed (", problem,
                        "); could not move it aside (1000 names taken), so it is left as it is")};
}

absl::StatusOr<Value> StateFile::Read(std::vector<std::string>* warnings) const {
  absl::StatusOr<Loaded> loaded = Load();
  if (!loaded.ok()) return loaded.status();
  if (loaded->verdict == Verdict::kMalformed) {
    // Checked again under the lock: a writer may have replaced the file since.
    absl::StatusOr<FileLock> lock = FileLock::Acquire(options_.lock_path);
    if (lock.ok()) {
      loaded = Load();
      if (!loaded.ok()) return loaded.status();
    }
    if (loaded->verdict == Verdict::kMalformed) {
      std::string warning =
          lock.ok() ? MoveAside(loaded->problem).warning
                    : StrCat(options_.path, " is malformed (", loaded->problem,
                             "); could not move it aside (", lock.status().message(),
                             "), so it is left as it is");
      if (warnings != nullptr) warnings->push_back(std::move(warning));
      return Empty();
    }
  }
  switch (loaded->verdict) {
    case Verdict::kAbsent: return Empty();
    case Verdict::kNewer: return absl::FailedPreconditionError(loaded->problem);
    default: return std::move(loaded->doc);
  }
}

absl::Status StateFile::Update(absl::FunctionRef<absl::Status(Value& doc)> update,
                               std::vector<std::string>* warnings) const {
  absl::StatusOr<FileLock> lock = FileLock::Acquire(options_.lock_path);
  if (!lock.ok()) return lock.status();
  absl::StatusOr<Loaded> loaded = Load();
  if (!loaded.ok()) return loaded.status();
  Value doc;
  switch (loaded->verdict) {
    case Verdict::kNewer: return absl::FailedPreconditionError(loaded->problem);
    case Verdict::kValid: doc = std::move(loaded->doc); break;
    case Verdict::kAbsent: doc = Empty(); break;
    case Verdict::kMalformed: {
      Aside aside = MoveAside(loaded->problem);
      // Writing now would replace the file that could not be kept.
      if (!aside.moved) return absl::FailedPreconditionError(aside.warning);
      if (warnings != nullptr) warnings->push_back(std::move(aside.warning));
      doc = Empty();
      break;
    }
  }
  if (absl::Status s = update(doc); !s.ok()) return s;
  if (!doc.is_object()) {
    return absl::InternalError(StrCat(options_.path, ": the update left ", KindOf(doc),
                                      ", not an object; nothing written"));
  }
  doc.Set("version", Value(options_.version));
  if (options_.validate) {
    if (absl::Status valid = options_.validate(doc); !valid.ok()) {
      return absl::InternalError(StrCat(options_.path, ": the update would write a document this ",
                                        "plugline cannot read back (", valid.message(),
                                        "); nothing written"));
    }
  }
  return WriteFileAtomic(options_.path, ToJson(doc), options_.durability);
}

absl::Status ExpectObject(const Value& value, std::string_view where) {
  return value.is_object() ? absl::OkStatus() : Mismatch(where, "an object", value);
}

absl::Status ExpectArray(const Value& value, std::string_view where) {
  return value.is_array() ? absl::OkStatus() : Mismatch(where, "an array", value);
}

absl::Status ExpectString(const Value& value, std::string_view where) {
  return value.is_string() ? absl::OkStatus() : Mismatch(where, "a string", value);
}

absl::Status ExpectBool(const Value& value, std::string_view where) {
  return value.is_bool() ? absl::OkStatus() : Mismatch(where, "true or false", value);
}

absl::Status ExpectCount(const Value& value, std::string_view where) {
  std::optional<int64_t> n = value.as_integer();
  if (n.has_value() && *n >= 0) return absl::OkStatus();
  return Mismatch(where, "a whole number >= 0", value);
}

absl::Status ExpectInteger(const Value& value, std::string_view where) {
  if (value.as_integer().has_value()) return absl::OkStatus();
  return Mismatch(where, "a whole number", value);
}

absl::Status ExpectNonNegative(const Value& value, std::string_view where) {
  if (value.is_number() && std::isfinite(value.as_number()) && value.as_number() >= 0) {
    return absl::OkStatus();
  }
  return Mismatch(where, "a number >= 0", value);
}

}  // namespace plugline::core

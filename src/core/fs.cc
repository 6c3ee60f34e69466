#include "core/fs.h"

#include <algorithm>
#include <cstdint>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/strings.h"

namespace plugline::core {

absl::Status ErrnoToStatus(int err, std::string_view what) {
  std::string message = StrCat(what, ": ", std::strerror(err));
  switch (err) {
    case ENOENT: return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS: return absl::PermissionDeniedError(message);
    case EEXIST: return absl::AlreadyExistsError(message);
    case ENOSPC:
    case EDQUOT:
    case ENOMEM: return absl::ResourceExhaustedError(message);
    case ENOTDIR:
    case EISDIR: return absl::FailedPreconditionError(message);
    default: return absl::InternalError(message);
  }
}

namespace {

absl::Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoToStatus(errno, StrCat("cannot write ", path));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return absl::OkStatus();
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

absl::Status WriteFileAtomic(const std::string& path, std::string_view data,
                             Durability durability) {
  static std::atomic<uint64_t> counter{0};
  std::string tmp = StrCat(DirName(path), "/.", path.substr(path.rfind('/') + 1), ".tmp-",
                                 ::getpid(), "-", counter.fetch_add(1));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoToStatus(errno, StrCat("cannot create ", tmp));
  absl::Status status = WriteAll(fd, data, tmp);
  if (status.ok() && durability == Durability::kFsync && ::fsync(fd) != 0) {
    status = ErrnoToStatus(errno, StrCat("cannot fsync ", tmp));
  }
  if (::close(fd) != 0 && status.ok()) {
    status = ErrnoToStatus(errno, StrCat("cannot close ", tmp));
  }
  if (status.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
    status = ErrnoToStatus(errno, StrCat("cannot rename ", tmp, " to ", path));
  }
  if (!status.ok()) {
    ::unlink(tmp.c_str());
    return status;
  }
  if (durability == Durability::kFsync) {
    int dir = ::open(DirName(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoToStatus(errno, StrCat("cannot open ", path));
  std::string data;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(StrCat("cannot read ", path, ": is a directory"));
  }
  // Never more than the bound + 1 bytes, so a huge file costs no more than the bound to refuse.
  const size_t limit = max_bytes == SIZE_MAX ? SIZE_MAX : max_bytes + 1;
  if (st.st_size > 0) data.reserve(std::min(static_cast<size_t>(st.st_size), limit));
  char buf[65536];
  while (data.size() < limit) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, limit - data.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoToStatus(err, StrCat("cannot read ", path));
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

absl::Status MakeDirs(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("empty directory path");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(StrCat(path, " exists and is not a directory"));
  }
  std::string parent = DirName(path);
  if (parent != path && parent != "/" && parent != ".") {
    absl::Status status = MakeDirs(parent);
    if (!status.ok()) return status;
  }
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return ErrnoToStatus(errno, StrCat("cannot create directory ", path));
  }
  return absl::OkStatus();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

absl::StatusOr<std::vector<std::string>> ListDir(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return ErrnoToStatus(errno, StrCat("cannot list ", path));
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    names.emplace_back(name);
  }
  ::closedir(dir);
  return names;
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out.push_back('/');
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  out.append(b);
  return out;
}

}  // namespace plugline::core

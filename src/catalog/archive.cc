#include "catalog/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <vector>

#include "absl/time/clock.h"
#include "absl/strings/str_split.h"
#include "core/fs.h"
#include "core/plugin_id.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::catalog {
namespace {

struct ArchiveDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
using Reader = std::unique_ptr<struct archive, ArchiveDeleter>;

absl::StatusOr<Reader> Open(std::string_view data, std::string_view format) {
  Reader a(archive_read_new());
  if (a == nullptr) return absl::ResourceExhaustedError("archive_read_new failed");
  if (format == "zip") {
    archive_read_support_format_zip(a.get());
  } else {
    archive_read_support_format_tar(a.get());
    archive_read_support_format_gnutar(a.get());
    if (format != "tar") archive_read_support_filter_gzip(a.get());
  }
  if (archive_read_open_memory(a.get(), data.data(), data.size()) != ARCHIVE_OK) {
    return absl::InvalidArgumentError(
        StrCat("not a ", format, " archive: ", archive_error_string(a.get())));
  }
  return a;
}

// The path's segments, "." dropped; an error for an absolute path or a ".." segment.
absl::StatusOr<std::vector<std::string>> Segments(std::string_view path) {
  if (path.starts_with("/")) {
    return absl::PermissionDeniedError(StrCat("the absolute path '", core::EscapeControl(path),
                                              "' is refused"));
  }
  std::vector<std::string> out;
  for (absl::string_view s : absl::StrSplit(ToAbsl(path), '/', absl::SkipEmpty())) {
    if (s == ".") continue;
    if (s == "..") {
      return absl::PermissionDeniedError(
          StrCat("the path '", core::EscapeControl(path), "' climbs out of the plugin folder"));
    }
    out.emplace_back(s);
  }
  return out;
}

// Whether a link at `link` (segments) pointing to `target` stays inside the folder.
bool TargetStaysInside(const std::vector<std::string>& link, std::string_view target) {
  if (target.empty() || target.starts_with("/")) return false;
  std::vector<std::string> at(link.begin(), link.end() - 1);  // the link's directory
  for (absl::string_view s : absl::StrSplit(ToAbsl(target), '/', absl::SkipEmpty())) {
    if (s == ".") continue;
    if (s == "..") {
      if (at.empty()) return false;
      at.pop_back();
      continue;
    }
    at.emplace_back(s);
  }
  return true;
}

struct Planned {
  size_t ordinal = 0;  // which header of the archive, from 0
  std::vector<std::string> segments;  // after the common top folder is dropped
  mode_t type = 0;
  mode_t mode = 0;
  std::string link_target;
};

std::string Join(const std::vector<std::string>& segments) {
  std::string out;
  for (const std::string& s : segments) StrAppend(&out, out.empty() ? "" : "/", s);
  return out;
}

// Pass 1: every header checked before anything is written.
absl::StatusOr<std::vector<Planned>> Plan(std::string_view data, std::string_view format,
                                          const ArchiveLimits& limits) {
  absl::StatusOr<Reader> a = Open(data, format);
  if (!a.ok()) return a.status();
  std::vector<Planned> plan;
  uint64_t declared = 0;
  struct archive_entry* entry = nullptr;
  for (size_t ordinal = 0;; ++ordinal) {
    int rc = archive_read_next_header(a->get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
      return absl::InvalidArgumentError(StrCat("unreadable archive: ", archive_error_string(a->get())));
    }
    if (ordinal >= limits.max_entries) {
      return absl::ResourceExhaustedError(
          StrCat("the archive has more than ", limits.max_entries, " entries"));
    }
    const char* name = archive_entry_pathname(entry);
    if (name == nullptr) return absl::InvalidArgumentError("an archive entry without a name");
    absl::StatusOr<std::vector<std::string>> segments = Segments(name);
    if (!segments.ok()) return segments.status();
    Planned p;
    p.ordinal = ordinal;
    p.segments = *std::move(segments);
    p.type = archive_entry_filetype(entry);
    p.mode = archive_entry_perm(entry);
    if (archive_entry_hardlink(entry) != nullptr) {
      return absl::PermissionDeniedError(
          StrCat("the hard link '", core::EscapeControl(name), "' is refused"));
    }
    if (p.type == AE_IFLNK) {
      const char* target = archive_entry_symlink(entry);
      p.link_target = target != nullptr ? target : "";
      if (!TargetStaysInside(p.segments, p.link_target)) {
        return absl::PermissionDeniedError(StrCat("the link '", core::EscapeControl(name), "' -> '",
                                                  core::EscapeControl(p.link_target),
                                                  "' points outside the plugin folder"));
      }
    } else if (p.type != AE_IFREG && p.type != AE_IFDIR) {
      return absl::PermissionDeniedError(StrCat(
          "'", core::EscapeControl(name), "' is a device, FIFO or socket, which a plugin never needs"));
    }
    if (archive_entry_size_is_set(entry)) declared += static_cast<uint64_t>(archive_entry_size(entry));
    if (declared > limits.max_unpacked_bytes) {
      return absl::ResourceExhaustedError(StrCat("the archive unpacks to more than ",
                                                 core::FormatBytes(limits.max_unpacked_bytes)));
    }
    if (p.segments.empty()) continue;  // "./"
    plan.push_back(std::move(p));
    archive_read_data_skip(a->get());
  }
  if (plan.empty()) return absl::InvalidArgumentError("the archive is empty");
  // One top-level folder holding everything is the plugin folder itself.
  const std::string& top = plan[0].segments[0];
  bool single_top = true;
  for (const Planned& p : plan) {
    single_top = single_top && p.segments[0] == top &&
                 (p.segments.size() > 1 || p.type == AE_IFDIR);
  }
  if (single_top) {
    std::vector<Planned> inner;
    for (Planned& p : plan) {
      if (p.segments.size() == 1) continue;
      p.segments.erase(p.segments.begin());
      if (p.type == AE_IFLNK && !TargetStaysInside(p.segments, p.link_target)) {
        return absl::PermissionDeniedError(StrCat("the link '", Join(p.segments), "' -> '",
                                                  core::EscapeControl(p.link_target),
                                                  "' points outside the plugin folder"));
      }
      inner.push_back(std::move(p));
    }
    plan = std::move(inner);
  }
  // Nothing is written through a link the archive made.
  std::set<std::string> links;
  for (const Planned& p : plan) {
    std::string prefix;
    for (size_t i = 0; i + 1 < p.segments.size(); ++i) {
      StrAppend(&prefix, i == 0 ? "" : "/", p.segments[i]);
      if (links.count(prefix)) {
        return absl::PermissionDeniedError(
            StrCat("'", Join(p.segments), "' would be written through the link '", prefix, "'"));
      }
    }
    if (p.type == AE_IFLNK) links.insert(Join(p.segments));
  }
  return plan;
}

absl::Status Extract(std::string_view data, std::string_view format, const std::string& root,
                     const ArchiveLimits& limits) {
  absl::StatusOr<Reader> a = Open(data, format);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::vector<Planned>> plan = Plan(data, format, limits);
  if (!plan.ok()) return plan.status();
  // Pass 2 reads the same headers in the same order and writes the planned ones.
  uint64_t written = 0;
  size_t next = 0;
  struct archive_entry* entry = nullptr;
  for (size_t ordinal = 0; next < plan->size(); ++ordinal) {
    int rc = archive_read_next_header(a->get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
      return absl::InvalidArgumentError(StrCat("unreadable archive: ", archive_error_string(a->get())));
    }
    if ((*plan)[next].ordinal != ordinal) continue;
    const Planned& p = (*plan)[next++];
    const std::string path = core::JoinPath(root, Join(p.segments));
    const size_t slash = path.rfind('/');
    if (absl::Status made = core::MakeDirs(path.substr(0, slash)); !made.ok()) return made;
    if (p.type == AE_IFDIR) {
      if (absl::Status made = core::MakeDirs(path); !made.ok()) return made;
      continue;
    }
    if (p.type == AE_IFLNK) {
      if (::symlink(p.link_target.c_str(), path.c_str()) != 0) {
        return core::ErrnoToStatus(errno, StrCat("cannot make the link ", path));
      }
      continue;
    }
    // Owner read/write always, execute when the archive says; never setuid, setgid or sticky.
    const mode_t mode = 0644 | ((p.mode & 0100) != 0 ? 0111 : 0);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return core::ErrnoToStatus(errno, StrCat("cannot create ", path));
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    absl::Status status;
    for (;;) {
      int rc = archive_read_data_block(a->get(), &block, &size, &offset);
      if (rc == ARCHIVE_EOF) break;
      if (rc != ARCHIVE_OK) {
        status = absl::InvalidArgumentError(StrCat("unreadable archive: ", archive_error_string(a->get())));
        break;
      }
      written += size;
      if (written > limits.max_unpacked_bytes) {
        status = absl::ResourceExhaustedError(StrCat("the archive unpacks to more than ",
                                                     core::FormatBytes(limits.max_unpacked_bytes)));
        break;
      }
      if (::pwrite(fd, block, size, offset) != static_cast<ssize_t>(size)) {
        status = core::ErrnoToStatus(errno, StrCat("cannot write ", path));
        break;
      }
    }
    if (status.ok() && ::fsync(fd) != 0) status = core::ErrnoToStatus(errno, StrCat("cannot sync ", path));
    ::close(fd);
    if (!status.ok()) return status;
  }
  if (next != plan->size()) return absl::InvalidArgumentError("the archive changed while it was read");
  return absl::OkStatus();
}

std::string Hidden(const std::string& dest, std::string_view what) {
  const size_t slash = dest.rfind('/');
  return StrCat(dest.substr(0, slash + 1), ".", what, "-", dest.substr(slash + 1), "-",
                ::getpid(), "-", absl::ToUnixNanos(absl::Now()));
}

}  // namespace

absl::Status InstallArchive(std::string_view data, std::string_view format, const std::string& dest,
                            const ArchiveLimits& limits) {
  const std::string staging = Hidden(dest, "install");
  std::error_code ignored;
  if (::mkdir(staging.c_str(), 0755) != 0) {
    return core::ErrnoToStatus(errno, StrCat("cannot create ", staging));
  }
  if (absl::Status extracted = Extract(data, format, staging, limits); !extracted.ok()) {
    std::filesystem::remove_all(staging, ignored);
    return extracted;
  }
  std::string aside;
  if (std::filesystem::exists(std::filesystem::symlink_status(dest))) {
    aside = Hidden(dest, "old");
    if (::rename(dest.c_str(), aside.c_str()) != 0) {
      const int err = errno;
      std::filesystem::remove_all(staging, ignored);
      return core::ErrnoToStatus(err, StrCat("cannot move ", dest, " aside"));
    }
  }
  if (::rename(staging.c_str(), dest.c_str()) != 0) {
    const int err = errno;
    if (!aside.empty()) (void)::rename(aside.c_str(), dest.c_str());
    std::filesystem::remove_all(staging, ignored);
    return core::ErrnoToStatus(err, StrCat("cannot put the new plugin at ", dest));
  }
  if (!aside.empty()) std::filesystem::remove_all(aside, ignored);
  return absl::OkStatus();
}

}  // namespace plugline::catalog

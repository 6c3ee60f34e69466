// Folder plugins from a catalog arrive as archives (tar.gz, tgz, tar, zip), read with
// libarchive. Nothing in an archive may write outside the plugin's folder.
#ifndef PLUGLINE_CATALOG_ARCHIVE_H_
#define PLUGLINE_CATALOG_ARCHIVE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace plugline::catalog {

struct ArchiveLimits {
  uint64_t max_unpacked_bytes = uint64_t{256} << 20;  // all files together (zip bombs)
  uint64_t max_entries = 10000;
};

// Unpacks `data` (an archive of `format`) into a new hidden folder beside `dest`, checks it,
// then puts it at `dest` in one rename (an existing `dest` is moved aside first and deleted
// once the new one is in place; on failure it is put back). Refused, with nothing left
// behind: absolute paths, ".." segments, device files, FIFOs and sockets, hard links, symbolic
// links that point outside the folder (absolute, or climbing out), more than
// `limits.max_entries` entries, or more than `limits.max_unpacked_bytes` unpacked. A single
// top-level folder holding everything (how `tar czf x.tgz name/` packs) is the plugin folder
// itself. Files keep their owner's execute bit; nothing is setuid.
absl::Status InstallArchive(std::string_view data, std::string_view format, const std::string& dest,
                            const ArchiveLimits& limits = {});

}  // namespace plugline::catalog

#endif  // PLUGLINE_CATALOG_ARCHIVE_H_

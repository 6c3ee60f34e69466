// Raw command outputs on disk, so a summary can say where the full output is.
#ifndef PLUGLINE_CORE_OUTPUT_STORE_H_
#define PLUGLINE_CORE_OUTPUT_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace plugline::core {

struct OutputRetention {
  uint64_t keep_files = 500;                   // newest files kept
  uint64_t max_total_bytes = 512ull << 20;     // and at most this much in all
};

// Stores outputs as <dir>/<UTC time>-<pid>-<n>.log, byte for byte, each written atomically;
// n counts per process, so hosts in one process and processes on one machine never collide.
// After each store, the oldest files beyond the retention bounds are deleted (the file just
// written is always kept). Safe to use from several threads and several processes.
class OutputStore {
 public:
  OutputStore(std::string dir, OutputRetention retention);

  // Writes `output` and returns the file's absolute path.
  absl::StatusOr<std::string> Store(std::string_view output);

  const std::string& dir() const { return dir_; }

 private:
  void Prune(const std::string& keep);

  std::string dir_;
  OutputRetention retention_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_OUTPUT_STORE_H_

// Raw command outputs on disk, so a summary can say where the full output is.
#ifndef PLUGLINE_CORE_OUTPUT_STORE_H_
#define PLUGLINE_CORE_OUTPUT_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/redact.h"

namespace plugline::core {

struct OutputRetention {
  uint64_t keep_files = 500;                   // newest files kept
  uint64_t max_total_bytes = 512ull << 20;     // and at most this much in all; 0 = no bound
  // One output's file holds at most its first this many bytes; 0 = no cap. The output itself
  // is still counted and shaped whole (its window, output_window.h).
  uint64_t max_file_bytes = 256ull << 20;
};

// One output being written as it arrives. The bytes go to a hidden temporary file in the
// store's directory, which Commit() renames to its final name: readers (and the pruning of
// other writers) only ever see whole files. Secrets are masked on the way (core/redact.h,
// SecretMasker: a line is written once it is complete). Past the file cap the bytes are
// counted, not written. A write error ends the writing; Commit() then reports it. Destroyed
// without a Commit(), the temporary file is removed. One thread at a time.
class RawOutputWriter {
 public:
  ~RawOutputWriter();
  RawOutputWriter(const RawOutputWriter&) = delete;
  RawOutputWriter& operator=(const RawOutputWriter&) = delete;

  void Write(std::string_view chunk);
  // Moves the file into place, prunes the store (unless set_prune(false): whoever commits
  // then calls OutputStore::Prune later) and returns the file's absolute path.
  absl::StatusOr<std::string> Commit();
  void set_prune(bool prune) { prune_ = prune; }

  // Bytes given to Write(), and how many of the first of them the file holds (as written to
  // it, secrets masked: the file's size may differ).
  uint64_t bytes() const { return bytes_; }
  uint64_t written() const { return written_; }
  // True when the cap kept bytes out of the file.
  bool truncated() const { return written_ < bytes_; }
  uint64_t max_file_bytes() const { return max_file_bytes_; }
  // The first error (creating or writing the file); OK while all is well.
  const absl::Status& status() const { return status_; }

 private:
  friend class OutputStore;
  RawOutputWriter(class OutputStore* store, uint64_t max_file_bytes);
  void Fail(absl::Status status);
  void WriteFile(std::string_view text);

  OutputStore* store_;
  uint64_t max_file_bytes_;
  int fd_ = -1;
  std::string temp_path_;
  uint64_t bytes_ = 0;
  uint64_t written_ = 0;
  bool committed_ = false;
  bool prune_ = true;
  SecretMasker masker_;
  absl::Status status_;
};

// Stores outputs as <dir>/<UTC time>-<pid>-<n>.log, byte for byte but for masked secrets (up
// to the file cap), each appearing whole; n counts per process, so hosts in one process and
// processes on one machine never collide. After each store, the oldest files beyond the
// retention bounds are deleted (the file just written is always kept), and so are temporary
// files that no live writer holds (left by a process that was killed). Safe to use from
// several threads and several processes.
class OutputStore {
 public:
  OutputStore(std::string dir, OutputRetention retention);

  // Starts writing one output. Never null; a directory that cannot be made or written shows
  // in the writer's status().
  std::unique_ptr<RawOutputWriter> Begin();

  // Writes `output` whole (through Begin()) and returns the file's absolute path.
  absl::StatusOr<std::string> Store(std::string_view output);

  const std::string& dir() const { return dir_; }
  const OutputRetention& retention() const { return retention_; }

  // Deletes the oldest files beyond the retention bounds, never `keep`, and temporary files
  // no live writer holds.
  void Prune(const std::string& keep);

 private:
  friend class RawOutputWriter;

  std::string dir_;
  OutputRetention retention_;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_OUTPUT_STORE_H_

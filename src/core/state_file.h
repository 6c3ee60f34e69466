// Versioned JSON state files under $PLUGLINE_HOME (stats.json, and any new file plugline keeps
// between runs): one helper, so that every such file is read, checked, set aside and written
// the same way, and none can stop a command.
//
// A state file holds one JSON object with an integer "version" (1, 2, ...): the format it is
// written in. What happens when a command reads it:
//
//   the file is                         Read()                      Update()
//   absent                              {"version": <version>}      creates it
//   malformed (see below)               moved aside, warning,       moved aside, warning,
//                                       {"version": <version>}      starts from the empty document
//   of a newer version                  FailedPrecondition          FailedPrecondition, nothing
//                                       (left untouched)            written (left untouched)
//   of this or an older version, valid  the document                `update` on it, written back
//   unreadable (permissions, a          the error                   the error
//   directory in its place)
//
// Malformed: larger than `max_bytes`, not valid JSON (a duplicate key counts: ParseJson rejects
// them), not an object, "version" missing or not a whole number >= 1, or rejected by
// `validate`. Such a file is renamed to "<path>.corrupt-<UTC time>" (e.g.
// "stats.json.corrupt-20261129T120000Z"; "-2", "-3", ... when that name is taken) — kept for a
// person to look at, never deleted — and a warning naming both paths and the problem is
// appended to `warnings`. A file that cannot be moved aside (a read-only home) is left where it
// is and the warning says so; Read() still returns the empty document, Update() fails.
//
// A newer version is never overwritten or moved aside: a newer plugline sharing the home owns
// it. The caller decides what to do without it (stats: not recorded, and the host warns).
//
// Writes are read-modify-write under an exclusive flock(2) on `lock_path`, held across the
// read, `update` and the atomic write (temporary file + rename, fs.h), so concurrent processes
// never lose an update. Readers take no lock: the rename makes every read see a whole file.
// Moving a malformed file aside takes the lock and checks the file again first, so a file
// another process has just rewritten is never moved.
//
// Thread safety: a StateFile is immutable; any number of threads and processes may use the
// same file at once.
#ifndef PLUGLINE_CORE_STATE_FILE_H_
#define PLUGLINE_CORE_STATE_FILE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/fs.h"
#include "core/json.h"

namespace plugline::core {

struct StateFileOptions {
  std::string path;       // the file, e.g. <home>/stats.json
  std::string lock_path;  // the flock file; empty: path + ".lock"
  int64_t version = 1;    // the version this build reads and writes
  // Checks a parsed document whose "version" is at most `version` (it may be older: the
  // callback decides whether it can read it). Returns InvalidArgument naming the member that is
  // wrong ("shapers.x.match_count must be a whole number >= 0, not -1"); the file is then
  // malformed. Null: any object is accepted. The Expect* helpers below are its vocabulary.
  std::function<absl::Status(const Value& doc)> validate;
  Durability durability = Durability::kFsync;
  size_t max_bytes = size_t{64} << 20;
};

class StateFile {
 public:
  explicit StateFile(StateFileOptions options);

  // The document (see the table above). Warnings about a malformed file go to `warnings`
  // (may be null).
  absl::StatusOr<Value> Read(std::vector<std::string>* warnings) const;

  // Under the lock: reads the document as Read() does (a malformed file is moved aside and the
  // empty document used), lets `update` change it, sets "version" to this build's, checks the
  // result with `validate` (a document this build would not read back is never written:
  // Internal), and writes it atomically. An error from `update` is returned and nothing is
  // written. A newer version: FailedPrecondition, `update` not called, nothing written.
  absl::Status Update(absl::FunctionRef<absl::Status(Value& doc)> update,
                      std::vector<std::string>* warnings) const;

  const std::string& path() const { return options_.path; }

 private:
  enum class Verdict { kAbsent, kValid, kMalformed, kNewer };
  struct Loaded {
    Verdict verdict = Verdict::kAbsent;
    Value doc;            // kValid: the document
    std::string problem;  // kMalformed: why; kNewer: the message
  };
  // Reads and classifies the file; an error only when it cannot be read at all.
  absl::StatusOr<Loaded> Load() const;
  // Renames the malformed file aside (the lock is held), and says what happened.
  struct Aside {
    bool moved = false;
    std::string warning;
  };
  Aside MoveAside(std::string_view problem) const;
  Value Empty() const;

  StateFileOptions options_;
};

// Checks for StateFileOptions::validate. `where` names the member as a path from the root
// ("shapers.builtin-test.match_count"); the message is "`<where>` must be ..., not ...".
absl::Status ExpectObject(const Value& value, std::string_view where);
absl::Status ExpectArray(const Value& value, std::string_view where);
absl::Status ExpectString(const Value& value, std::string_view where);
absl::Status ExpectBool(const Value& value, std::string_view where);
// A whole number in [0, 2^53] (what a double counts exactly).
absl::Status ExpectCount(const Value& value, std::string_view where);
// A whole number in [-2^53, 2^53].
absl::Status ExpectInteger(const Value& value, std::string_view where);
// A finite number >= 0 (a total of milliseconds).
absl::Status ExpectNonNegative(const Value& value, std::string_view where);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_STATE_FILE_H_

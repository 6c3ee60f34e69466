// Finding a key that appears twice in one JSON object or YAML mapping, for ParseJson and
// ParseYaml: readers disagree on which copy wins (simdjson's and our lookups take the first,
// Python's json and JavaScript's JSON.parse the last), so plugline rejects such documents
// rather than let a plugin and the host read different values.
//
// Cost: a linear scan while an object is small (most protocol and configuration objects), a
// hash map past kLinearMax keys, so an object with a million keys is still linear overall.
#ifndef PLUGLINE_FORMATS_DUPLICATE_KEYS_H_
#define PLUGLINE_FORMATS_DUPLICATE_KEYS_H_

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"

namespace plugline::formats {

// The keys of one object seen so far, each with `Info` (its index, its line). The views must
// outlive the set (they point into the parser's document).
template <typename Info>
class KeySet {
 public:
  static constexpr size_t kLinearMax = 16;

  // `expected`: how many keys the object has, when known, so the map is sized once.
  explicit KeySet(size_t expected = 0) : expected_(expected) {}

  // Adds `key`; when an equal key was added before, returns its Info instead (and adds nothing).
  const Info* Insert(std::string_view key, Info info) {
    if (map_.empty()) {
      for (const auto& [seen, seen_info] : small_) {
        if (seen == key) return &seen_info;
      }
      if (small_.size() < kLinearMax) {
        small_.emplace_back(key, std::move(info));
        return nullptr;
      }
      map_.reserve(std::max(expected_, kLinearMax * 2));
      for (auto& [seen, seen_info] : small_) map_.emplace(ToAbsl(seen), std::move(seen_info));
      small_.clear();
    }
    auto [it, inserted] = map_.emplace(ToAbsl(key), std::move(info));
    return inserted ? nullptr : &it->second;
  }

 private:
  static absl::string_view ToAbsl(std::string_view v) { return absl::string_view(v.data(), v.size()); }

  size_t expected_;
  // Inline: most objects are small, and an allocation per object would cost more than the scan.
  absl::InlinedVector<std::pair<std::string_view, Info>, kLinearMax> small_;
  absl::flat_hash_map<absl::string_view, Info> map_;
};

}  // namespace plugline::formats

#endif  // PLUGLINE_FORMATS_DUPLICATE_KEYS_H_

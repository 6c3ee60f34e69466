#include "core/suggest.h"

namespace plugline::core {

bool IsOneEditApart(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);  // a is the longer
  if (a.size() - b.size() > 1 || a == b) return false;
  size_t i = 0;
  while (i < b.size() && a[i] == b[i]) ++i;  // the first difference
  if (a.size() != b.size()) return a.substr(i + 1) == b.substr(i);  // one inserted
  if (a.substr(i + 1) == b.substr(i + 1)) return true;                // one replaced
  return i + 1 < a.size() && a[i] == b[i + 1] && a[i + 1] == b[i] &&  // two swapped
         a.substr(i + 2) == b.substr(i + 2);
}

std::optional<std::string_view> SuggestKnown(
    std::string_view word, std::span<const std::string_view> known,
    std::span<const std::pair<std::string_view, std::string_view>> aliases) {
  for (const auto& [alias, target] : aliases) {
    if (word == alias) return target;
  }
  for (std::string_view name : known) {
    if (IsOneEditApart(word, name)) return name;
  }
  return std::nullopt;
}

}  // namespace plugline::core

// "Did you mean ...?": the known name a misspelt one was probably meant to be, for warnings
// about answer keys and event names that plugline would otherwise ignore in silence.
#ifndef PLUGLINE_CORE_SUGGEST_H_
#define PLUGLINE_CORE_SUGGEST_H_

#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace plugline::core {

// True when `a` becomes `b` with exactly one edit: one character inserted, deleted or replaced,
// or two adjacent characters swapped (a Damerau-Levenshtein distance of 1). Equal strings are
// not one edit apart. Linear in the length.
bool IsOneEditApart(std::string_view a, std::string_view b);

// What `word` (not itself in `known`) was probably meant to be: the target of an alias in
// `aliases` ({"denied", "deny"}), else the first entry of `known` one edit away from it.
// nullopt when neither.
std::optional<std::string_view> SuggestKnown(
    std::string_view word, std::span<const std::string_view> known,
    std::span<const std::pair<std::string_view, std::string_view>> aliases = {});

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_SUGGEST_H_

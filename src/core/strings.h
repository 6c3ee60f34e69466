// StrCat and StrAppend that accept std::string_view.
//
// Debian 12's Abseil is built with its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW
// is 0), which absl::StrCat's arguments cannot be built from a std::string_view. plugline's
// interfaces use std::string_view; these wrappers convert it, and pass everything else to
// Abseil unchanged. Header-only, so the V8 backend may use it too.
#ifndef PLUGLINE_CORE_STRINGS_H_
#define PLUGLINE_CORE_STRINGS_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace plugline {
namespace strings_internal {

inline absl::string_view Piece(std::string_view v) { return absl::string_view(v.data(), v.size()); }
template <typename T>
const T& Piece(const T& v) {
  return v;
}

}  // namespace strings_internal

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(strings_internal::Piece(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, strings_internal::Piece(args)...);
}

inline absl::string_view ToAbsl(std::string_view v) { return absl::string_view(v.data(), v.size()); }
inline std::string_view ToStd(absl::string_view v) { return std::string_view(v.data(), v.size()); }

}  // namespace plugline

#endif  // PLUGLINE_CORE_STRINGS_H_

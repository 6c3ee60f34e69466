// The library version, from the C header's macros (the single source of truth).
#ifndef PLUGLINE_CORE_VERSION_H_
#define PLUGLINE_CORE_VERSION_H_

#include <string_view>

#include "plugline/plugline.h"

namespace plugline::core {

#define PLUGLINE_STRINGIFY_INNER_(x) #x
#define PLUGLINE_STRINGIFY_(x) PLUGLINE_STRINGIFY_INNER_(x)
inline constexpr std::string_view kVersionString =
    PLUGLINE_STRINGIFY_(PLUGLINE_VERSION_MAJOR) "." PLUGLINE_STRINGIFY_(
        PLUGLINE_VERSION_MINOR) "." PLUGLINE_STRINGIFY_(PLUGLINE_VERSION_PATCH);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_VERSION_H_

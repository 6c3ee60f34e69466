// The shipped shapers (tier "built-in", ids "builtin-<name>").
#ifndef PLUGLINE_BUILTIN_BUILTIN_SHAPERS_H_
#define PLUGLINE_BUILTIN_BUILTIN_SHAPERS_H_

#include <memory>
#include <vector>

#include "core/shaper.h"

namespace plugline::builtin {

// Every built-in shaper, in a fixed order.
std::vector<std::shared_ptr<core::Shaper>> MakeBuiltinShapers();

// The generic shaper: matches anything at low confidence; keeps the head and the tail.
std::shared_ptr<core::Shaper> MakeGenericShaper();

}  // namespace plugline::builtin

#endif  // PLUGLINE_BUILTIN_BUILTIN_SHAPERS_H_

// Early-return helpers for absl::Status / absl::StatusOr. Abseil 20220623 (Debian 12) predates
// ABSL_RETURN_IF_ERROR and ABSL_ASSIGN_OR_RETURN, so the project defines its own two, once.
#ifndef PLUGLINE_CORE_STATUS_MACROS_H_
#define PLUGLINE_CORE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PLUGLINE_RETURN_IF_ERROR(expr)                  \
  do {                                                  \
    ::absl::Status plugline_status_ = (expr);           \
    if (!plugline_status_.ok()) return plugline_status_; \
  } while (0)

#define PLUGLINE_STATUS_CONCAT_INNER_(a, b) a##b
#define PLUGLINE_STATUS_CONCAT_(a, b) PLUGLINE_STATUS_CONCAT_INNER_(a, b)

// PLUGLINE_ASSIGN_OR_RETURN(auto value, MaybeValue()); `lhs` may declare a variable.
#define PLUGLINE_ASSIGN_OR_RETURN(lhs, expr)                                            \
  PLUGLINE_ASSIGN_OR_RETURN_IMPL_(PLUGLINE_STATUS_CONCAT_(plugline_statusor_, __LINE__), \
                                  lhs, expr)
#define PLUGLINE_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                    \
  if (!statusor.ok()) return std::move(statusor).status();   \
  lhs = std::move(statusor).value()

#endif  // PLUGLINE_CORE_STATUS_MACROS_H_

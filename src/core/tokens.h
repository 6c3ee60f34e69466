// Token counting for the savings figures in shaping results and stats.
#ifndef PLUGLINE_CORE_TOKENS_H_
#define PLUGLINE_CORE_TOKENS_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "plugline/host.h"

namespace plugline::core {

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  virtual uint64_t Count(std::string_view text) const = 0;
  // "host" for a host-supplied counter, "estimate" for the built-in one.
  virtual std::string_view name() const = 0;
};

// The documented default (docs/tokens.md): an estimate that follows how BPE tokenizers split
// text — words, digit groups, punctuation, whitespace — instead of dividing bytes by four.
std::unique_ptr<TokenCounter> MakeEstimateTokenCounter();

// Wraps a host's function.
std::unique_ptr<TokenCounter> MakeFunctionTokenCounter(TokenCountFunction function);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_TOKENS_H_

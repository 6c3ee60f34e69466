// Token counting for the savings figures in shaping results and stats.
#ifndef PLUGLINE_CORE_TOKENS_H_
#define PLUGLINE_CORE_TOKENS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "plugline/host.h"

namespace plugline::core {

class TokenCounter {
 public:
  virtual ~TokenCounter() = default;
  virtual uint64_t Count(std::string_view text) const = 0;
  // "host" for a host-supplied counter, "o200k_base" / "cl100k_base" for a real BPE
  // vocabulary, "estimate" for the built-in estimate.
  virtual std::string_view name() const = 0;
  // Why this counter counts with the estimate instead of the encoding it was asked for; empty
  // when it does not.
  virtual std::string problem() const { return ""; }
};

// The encodings plugline counts with. kDefaultEncoding is what config's shaping.tokenizer
// defaults to; "estimate" is also accepted there.
inline constexpr std::string_view kDefaultEncoding = "o200k_base";
bool IsKnownTokenizer(std::string_view name);

// A real BPE vocabulary ("o200k_base" or "cl100k_base") with its ranks read from
// `ranks_path` (tiktoken's format: "<base64 token> <rank>" per line). The counts are
// tiktoken's ordinary encoding. `cache_path` (may be empty) holds the ranks as a table that
// the next process maps instead of parsing them again; it is rebuilt when `ranks_path`
// changes. Implemented in src/tokenizer/ (PCRE2).
absl::StatusOr<std::unique_ptr<TokenCounter>> MakeBpeTokenCounter(std::string_view encoding,
                                                                  const std::string& ranks_path,
                                                                  const std::string& cache_path);

// Where <encoding>.tiktoken is looked for, in order: $PLUGLINE_TOKENIZER_DIR when set (then
// only there), <home>/tokenizers when `home` is not empty, then share/plugline/tokenizers
// beside the library or program (the build tree's and an installed one's), then the install
// prefix's.
std::vector<std::string> TokenizerDirs(std::string_view home);

// The counter plugline uses when the host gives none, shared by the whole process and never
// freed: `name` is an encoding, or "estimate". An encoding's ranks load on its first count;
// when they cannot be found or read, it counts with the estimate, its name() is "estimate"
// and problem() says why.
const TokenCounter* DefaultTokenCounter(std::string_view name, std::string_view home = {});

// The documented default (docs/tokens.md): an estimate that follows how BPE tokenizers split
// text — words, digit groups, punctuation, whitespace — instead of dividing bytes by four.
std::unique_ptr<TokenCounter> MakeEstimateTokenCounter();

// Wraps a host's function.
std::unique_ptr<TokenCounter> MakeFunctionTokenCounter(TokenCountFunction function);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_TOKENS_H_

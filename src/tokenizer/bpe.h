// What src/tokenizer/ offers besides core::MakeBpeTokenCounter (core/tokens.h): the
// pre-tokenization itself, for tests that hold the fast ASCII path to PCRE2's matches.
#ifndef PLUGLINE_TOKENIZER_BPE_H_
#define PLUGLINE_TOKENIZER_BPE_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace plugline::core {

// The pieces `encoding`'s pattern splits `text` into, in order (views into `text`); with
// `fast` false every piece is PCRE2's.
absl::StatusOr<std::vector<std::string_view>> SplitPieces(std::string_view encoding,
                                                          std::string_view text, bool fast);

}  // namespace plugline::core

#endif  // PLUGLINE_TOKENIZER_BPE_H_

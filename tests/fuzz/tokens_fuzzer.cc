// Token counting and the summary budget on arbitrary bytes: byte 0 picks the encoding
// (o200k_base, cl100k_base), byte 1 the budget (200 + 40 × byte), then the text.
// Invariants: the ASCII fast path splits exactly as PCRE2 does and the pieces cover the text;
// the real count is positive for a non-empty text; a text within the budget is left as it is;
// a cut keeps only lines of the text, in order (the first maybe shortened), or "… " lines.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/summary_budget.h"
#include "core/text.h"
#include "core/tokens.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "tokenizer/bpe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  plugline::fuzz::FuzzInput input(data, size);
  const std::string_view encoding = input.Byte() % 2 == 0 ? "o200k_base" : "cl100k_base";
  const uint64_t budget = 200 + 40 * static_cast<uint64_t>(input.Byte());
  const std::string_view text = input.Rest();

  absl::StatusOr<std::vector<std::string_view>> fast = plugline::core::SplitPieces(encoding, text, true);
  absl::StatusOr<std::vector<std::string_view>> pcre = plugline::core::SplitPieces(encoding, text, false);
  FUZZ_CHECK(fast.ok() && pcre.ok());
  FUZZ_CHECK(*fast == *pcre);
  size_t covered = 0;
  for (std::string_view piece : *fast) {
    FUZZ_CHECK(piece.data() == text.data() + covered);
    covered += piece.size();
  }
  FUZZ_CHECK(covered == text.size());

  const plugline::core::TokenCounter* counter = plugline::core::DefaultTokenCounter(encoding);
  const uint64_t tokens = counter->Count(text);
  FUZZ_CHECK(text.empty() == (tokens == 0));

  plugline::core::BudgetCut cut = plugline::core::FitToBudget(text, budget, 20, *counter);
  if (tokens + 20 <= budget) {
    FUZZ_CHECK(!cut.cut && cut.summary == text);
  } else {
    FUZZ_CHECK(cut.cut);
    std::vector<std::string_view> lines = plugline::core::SplitLines(text);
    std::vector<std::string_view> kept = plugline::core::SplitLines(cut.summary);
    size_t at = 0;  // kept lines are the text's, in order
    for (size_t i = 0; i < kept.size(); ++i) {
      if (kept[i].starts_with("… ")) continue;
      if (i == 0 && !lines.empty() && kept[0] != lines[0]) {
        FUZZ_CHECK(kept[0].find(" more bytes of this line)") != std::string_view::npos);
        at = 1;
        continue;
      }
      while (at < lines.size() && lines[at] != kept[i]) ++at;
      FUZZ_CHECK(at < lines.size());
      ++at;
    }
  }
  return 0;
}

#include "core/tokens.h"

namespace plugline::core {
namespace {

enum class CharClass : unsigned char { kSpace, kNewline, kLetter, kDigit, kPunct, kOther };

constexpr CharClass ClassifySlow(unsigned char c) {
  if (c == '\n' || c == '\r') return CharClass::kNewline;
  if (c == ' ' || c == '\t' || c == '\v' || c == '\f') return CharClass::kSpace;
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return CharClass::kLetter;
  if (c >= '0' && c <= '9') return CharClass::kDigit;
  if (c < 0x80) return CharClass::kPunct;
  return CharClass::kOther;
}

// Counting runs over every byte of large outputs: classify through a table.
struct ClassTable {
  CharClass classes[256];
  constexpr ClassTable() : classes() {
    for (int c = 0; c < 256; ++c) classes[c] = ClassifySlow(static_cast<unsigned char>(c));
  }
};
constexpr ClassTable kClassTable;

inline CharClass Classify(unsigned char c) { return kClassTable.classes[c]; }

// Mirrors the pre-tokenization of GPT-style BPE vocabularies (o200k_base, cl100k_base): text
// splits into letter runs (with their leading space), digit runs of at most three,
// punctuation runs and newline runs; words and identifiers up to about eight letters are one
// token, and non-ASCII text costs about one token per character. docs/tokens.md has the
// rules and how far they are from real o200k_base counts; a host that needs exact numbers
// passes its own counter.
class EstimateTokenCounter final : public TokenCounter {
 public:
  uint64_t Count(std::string_view text) const override {
    uint64_t tokens = 0;
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    size_t i = 0;
    while (i < n) {
      CharClass cls = Classify(s[i]);
      size_t j = i + 1;
      switch (cls) {
        case CharClass::kLetter:
          while (j < n && Classify(s[j]) == CharClass::kLetter) ++j;
          tokens += (j - i + 7) / 8;
          break;
        case CharClass::kDigit:
          while (j < n && Classify(s[j]) == CharClass::kDigit) ++j;
          tokens += (j - i + 2) / 3;
          break;
        case CharClass::kNewline:
          while (j < n && Classify(s[j]) == CharClass::kNewline) ++j;
          tokens += 1;
          break;
        case CharClass::kSpace:
          // A single space joins the next word; a run of indentation is about one token.
          while (j < n && Classify(s[j]) == CharClass::kSpace) ++j;
          if (j - i > 1) tokens += (j - i + 15) / 16;
          break;
        case CharClass::kPunct:
          // Punctuation merges in BPE vocabularies: "::", "();", "=====", "-->".
          while (j < n && Classify(s[j]) == CharClass::kPunct) ++j;
          tokens += (j - i + 1) / 2;
          break;
        case CharClass::kOther:
          // One UTF-8 code point: skip its continuation bytes.
          while (j < n && (s[j] & 0xC0) == 0x80) ++j;
          tokens += 1;
          break;
      }
      i = j;
    }
    return tokens;
  }
  std::string_view name() const override { return "estimate"; }
};

class FunctionTokenCounter final : public TokenCounter {
 public:
  explicit FunctionTokenCounter(TokenCountFunction function) : function_(std::move(function)) {}
  uint64_t Count(std::string_view text) const override { return function_(text); }
  std::string_view name() const override { return "host"; }

 private:
  TokenCountFunction function_;
};

}  // namespace

std::unique_ptr<TokenCounter> MakeEstimateTokenCounter() {
  return std::make_unique<EstimateTokenCounter>();
}

std::unique_ptr<TokenCounter> MakeFunctionTokenCounter(TokenCountFunction function) {
  return std::make_unique<FunctionTokenCounter>(std::move(function));
}

}  // namespace plugline::core

// The terminal normalizer (core::NormalizeTerminalOutput) and the text helpers the pipeline
// feeds its result to: the match() snippet, UTF-8 validation and repair, line splitting and
// counting, the token estimate, secret masking, and the control-sequence stripping every
// summary goes through before it reaches a terminal.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/redact.h"
#include "core/shaping_pipeline.h"
#include "core/text.h"
#include "core/tokens.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plugline::core;
  static const std::unique_ptr<TokenCounter> tokens = MakeEstimateTokenCounter();
  std::string_view raw(reinterpret_cast<const char*>(data), size);

  std::string normalized = "untouched";
  const bool changed = NormalizeTerminalOutput(raw, &normalized);
  if (!changed) FUZZ_CHECK(normalized == "untouched");  // false leaves *out alone
  std::string_view text = changed ? std::string_view(normalized) : raw;

  const std::string snippet = MakeSnippet(text);
  FUZZ_CHECK(snippet.size() <= kSnippetHeadBytes + kSnippetTailBytes + 1);
  if (text.size() <= kSnippetHeadBytes + kSnippetTailBytes) FUZZ_CHECK(snippet == text);

  // SanitizeUtf8 always yields valid UTF-8 and leaves valid UTF-8 alone.
  const std::string sane = SanitizeUtf8(text);
  FUZZ_CHECK(IsValidUtf8(sane));
  if (IsValidUtf8(text)) FUZZ_CHECK(sane == text);

  // A person's line count is the number of lines SplitLines gives.
  const std::vector<std::string_view> lines = SplitLines(text);
  FUZZ_CHECK(CountLines(text) == lines.size());
  for (std::string_view line : lines) {
    FUZZ_CHECK(line.data() >= text.data() && line.data() + line.size() <= text.data() + text.size());
    FUZZ_CHECK(line.find('\n') == std::string_view::npos);
  }

  const uint64_t count = tokens->Count(text);
  (void)count;

  // Masking leaves nothing that one more pass would mask: no secret survives a pass.
  const std::string masked = RedactSecrets(text);
  FUZZ_CHECK(RedactSecrets(masked) == masked);
  // The same for command output, whole or streamed: cut in two where the input says, it is
  // masked as the whole is (lines here are shorter than what the masker holds).
  std::string output_masked = "untouched";
  if (MaskSecrets(text, &output_masked)) {
    std::string again = "untouched";
    FUZZ_CHECK(!MaskSecrets(output_masked, &again));
  } else {
    FUZZ_CHECK(output_masked == "untouched");
    output_masked.assign(text);
  }
  if (text.size() < SecretMasker::kMaxHeldBytes) {
    const size_t cut = size == 0 ? 0 : data[0] % (text.size() + 1);
    SecretMasker masker;
    std::string streamed;
    masker.Feed(text.substr(0, cut), &streamed);
    masker.Feed(text.substr(cut), &streamed);
    masker.Finish(&streamed);
    FUZZ_CHECK(streamed == output_masked);
  }
  // Stripping leaves no byte that drives a terminal: no ESC, no C0 control but \n and \t, no
  // DEL, no C1 control in its UTF-8 form. It never adds a byte, and a second pass finds
  // nothing to remove.
  std::string stripped = "untouched";
  if (StripControlSequences(raw, &stripped)) {
    FUZZ_CHECK(stripped.size() < raw.size());
    std::string again = "untouched";
    FUZZ_CHECK(!StripControlSequences(stripped, &again));
    FUZZ_CHECK(again == "untouched");
  } else {
    FUZZ_CHECK(stripped == "untouched");
    stripped.assign(raw);
  }
  for (size_t i = 0; i < stripped.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(stripped[i]);
    FUZZ_CHECK(c >= 0x20 || c == '\n' || c == '\t');
    FUZZ_CHECK(c != 0x7f);
    if (c == 0xC2 && i + 1 < stripped.size()) {
      const unsigned char next = static_cast<unsigned char>(stripped[i + 1]);
      FUZZ_CHECK(next < 0x80 || next > 0x9f);
    }
  }

  (void)FormatCount(size);
  (void)FormatBytes(size);
  return 0;
}

#include "core/tokens.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "core/fs.h"

namespace plugline::core {
namespace {

using absl::StrCat;

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

std::string DirOf(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? "." : std::string(path.substr(0, slash));
}

// The file that holds this code: libplugline.so, or the program that links plugline in.
std::string SelfPath() {
  Dl_info info;
  auto anchor = &DefaultTokenCounter;
  if (::dladdr(reinterpret_cast<void*>(anchor), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  std::string self = info.dli_fname;
  if (self.find('/') == std::string::npos) {
    // The main program reports a bare name; /proc/self/exe has the real path.
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) self.assign(buf, static_cast<size_t>(n));
  }
  return self;
}

// An encoding whose ranks load on the first count; the estimate when they cannot.
class DefaultBpeCounter final : public TokenCounter {
 public:
  DefaultBpeCounter(std::string encoding, std::vector<std::string> dirs, std::string cache)
      : encoding_(std::move(encoding)), dirs_(std::move(dirs)), cache_(std::move(cache)) {}

  uint64_t Count(std::string_view text) const override { return Loaded().Count(text); }
  std::string_view name() const override { return Loaded().name(); }
  std::string problem() const override {
    Loaded();
    return problem_;
  }

 private:
  // Loads on first use. A mutex, not a once flag: Debian's Abseil is not built for
  // ThreadSanitizer, and a thread that waited in absl::call_once's spin lock would show no
  // synchronization with the one that loaded (absl::Mutex is annotated, tests/sanitizers/).
  const TokenCounter& Loaded() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    if (counter_ == nullptr) Load();
    return *counter_;
  }

  void Load() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    {
      std::vector<std::string> tried;
      for (const std::string& dir : dirs_) {
        const std::string path = JoinPath(dir, StrCat(encoding_, ".tiktoken"));
        if (!PathExists(path)) {
          tried.push_back(path);
          continue;
        }
        absl::StatusOr<std::unique_ptr<TokenCounter>> bpe = MakeBpeTokenCounter(encoding_, path, cache_);
        if (bpe.ok()) {
          counter_ = std::move(*bpe);
          return;
        }
        problem_ = StrCat("cannot read ", encoding_, "'s ranks: ", bpe.status().message());
        break;
      }
      if (problem_.empty()) {
        problem_ = StrCat("no ranks for ", encoding_, " (tried ", absl::StrJoin(tried, ", "),
                          "); counting with the estimate");
      }
      counter_ = MakeEstimateTokenCounter();
    }
  }

  const std::string encoding_;
  const std::vector<std::string> dirs_;
  const std::string cache_;
  mutable absl::Mutex mu_;
  mutable std::unique_ptr<TokenCounter> counter_ ABSL_GUARDED_BY(mu_);
  mutable std::string problem_;  // written once, under mu_, before counter_
};

}  // namespace

bool IsKnownTokenizer(std::string_view name) {
  return name == "o200k_base" || name == "cl100k_base" || name == "estimate";
}

std::vector<std::string> TokenizerDirs(std::string_view home) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("PLUGLINE_TOKENIZER_DIR"); env != nullptr && *env != '\0') {
    dirs.emplace_back(env);
    return dirs;
  }
  if (!home.empty()) dirs.push_back(JoinPath(home, "tokenizers"));
  if (std::string self = SelfPath(); !self.empty()) {
    const std::string dir = DirOf(self);
    // bin/plugline and lib/libplugline.so: share/ is their parent's.
    dirs.push_back(StrCat(dir, "/../share/plugline/tokenizers"));
    // lib/<multiarch>/libplugline.so.
    dirs.push_back(StrCat(dir, "/../../share/plugline/tokenizers"));
  }
  dirs.push_back(StrCat(PLUGLINE_INSTALL_DATADIR, "/plugline/tokenizers"));
  return dirs;
}

const TokenCounter* DefaultTokenCounter(std::string_view name, std::string_view home) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* counters = new std::map<std::pair<std::string, std::string>,
                                       std::unique_ptr<TokenCounter>>();
  absl::MutexLock lock(&mu);
  const bool estimate = name == "estimate" || !IsKnownTokenizer(name);
  auto key = std::make_pair(std::string(estimate ? "estimate" : name),
                            estimate ? std::string() : std::string(home));
  std::unique_ptr<TokenCounter>& counter = (*counters)[key];
  if (counter == nullptr) {
    if (estimate) {
      counter = MakeEstimateTokenCounter();
    } else {
      counter = std::make_unique<DefaultBpeCounter>(
          key.first, TokenizerDirs(home),
          home.empty() ? std::string()
                       : JoinPath(home, StrCat("cache/tokenizers/", key.first, ".table")));
    }
  }
  return counter.get();
}

std::unique_ptr<TokenCounter> MakeEstimateTokenCounter() {
  return std::make_unique<EstimateTokenCounter>();
}

std::unique_ptr<TokenCounter> MakeFunctionTokenCounter(TokenCountFunction function) {
  return std::make_unique<FunctionTokenCounter>(std::move(function));
}

}  // namespace plugline::core

#include "tokenizer/bpe.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/strings.h"
#include "core/fs.h"
#include "core/tokens.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using testing::TempDir;

// The vocabularies the build copied to <build>/share/plugline/tokenizers (from js-tiktoken,
// scripts/bootstrap-debian.sh). The tests need them: without them plugline counts with its
// estimate, and these tests fail rather than pass on the estimate.
std::string RanksPath(std::string_view encoding) {
  return testing::BinDir() + "/../share/plugline/tokenizers/" + std::string(encoding) + ".tiktoken";
}

std::vector<std::string> FixtureOutputs() {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(testing::SourceDir() + "/fixtures")) {
    if (entry.is_regular_file() && entry.path().extension() == ".out") {
      files.push_back(entry.path().string());
    }
  }
  return files;
}

TEST_CASE("o200k_base and cl100k_base count as tiktoken does") {
  for (std::string_view encoding : {"o200k_base", "cl100k_base"}) {
    CAPTURE(encoding);
    absl::StatusOr<std::unique_ptr<TokenCounter>> counter =
        MakeBpeTokenCounter(encoding, RanksPath(encoding), "");
    REQUIRE_MESSAGE(counter.ok(), counter.status().ToString());
    CHECK((*counter)->name() == encoding);
    CHECK((*counter)->Count("") == 0);
    CHECK((*counter)->Count("hello world") == 2);
    // Counts js-tiktoken 1.0.21 gives (encode(text, [], []).length).
    const bool o200k = encoding == "o200k_base";
    CHECK((*counter)->Count("FAILED tests/test_math.py::test_divide - ZeroDivisionError: "
                            "division by zero") == 17u);
    CHECK((*counter)->Count("    def test_x(self):\n        assert 1 == 2\n") == 14u);
    CHECK((*counter)->Count("Grüße, 世界! naïve café") == (o200k ? 9u : 12u));
    CHECK((*counter)->Count(std::string(5000, '=')) == (o200k ? 78u : 79u));
    // Special tokens are plain text in counts.
    CHECK((*counter)->Count("<|endoftext|>") == 7u);
  }
}

TEST_CASE("the ASCII fast path splits exactly as the pattern does") {
  std::vector<std::string> texts;
  for (const std::string& file : FixtureOutputs()) texts.push_back(testing::ReadFileOrEmpty(file));
  // And random text over the characters the pattern treats differently.
  std::mt19937 random(20261201);
  const std::string alphabet = "aZ9 \t\n\r\v\f'sStTrRvVeEmMlLdD._/(-:=\"\x01\x7f" "\xc3\xa9\xe2\x94\x81";
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int length = static_cast<int>(random() % 40);
    for (int j = 0; j < length; ++j) text += alphabet[random() % alphabet.size()];
    texts.push_back(std::move(text));
  }
  for (std::string_view encoding : {"o200k_base", "cl100k_base"}) {
    size_t differing = 0;
    for (const std::string& text : texts) {
      absl::StatusOr<std::vector<std::string_view>> fast = SplitPieces(encoding, text, true);
      absl::StatusOr<std::vector<std::string_view>> pcre = SplitPieces(encoding, text, false);
      REQUIRE(fast.ok());
      REQUIRE(pcre.ok());
      if (*fast != *pcre) {
        if (++differing <= 3) {
          std::string a, b;
          for (std::string_view p : *fast) a += "[" + std::string(p) + "]";
          for (std::string_view p : *pcre) b += "[" + std::string(p) + "]";
          MESSAGE(encoding, ": fast ", a, " vs PCRE2 ", b);
        }
      }
    }
    CAPTURE(encoding);
    CHECK(differing == 0);
  }
}

TEST_CASE("bytes that are not UTF-8 are counted, not dropped") {
  absl::StatusOr<std::unique_ptr<TokenCounter>> counter =
      MakeBpeTokenCounter("o200k_base", RanksPath("o200k_base"), "");
  REQUIRE(counter.ok());
  const uint64_t clean = (*counter)->Count("abc def");
  CHECK((*counter)->Count("abc \xff\xfe def") > clean);
  CHECK((*counter)->Count("\x80") == 1);
}

TEST_CASE("a broken rank file is an error that names the file and line") {
  TempDir dir;
  const std::string path = dir.Sub("o200k_base.tiktoken");
  testing::WriteFile(path, "IQ== 0\nnot-base64!! 1\n");
  absl::StatusOr<std::unique_ptr<TokenCounter>> counter = MakeBpeTokenCounter("o200k_base", path, "");
  REQUIRE_FALSE(counter.ok());
  CHECK(testing::Contains(ToStd(counter.status().message()), path + ":2: bad base64"));
  testing::WriteFile(path, "IQ== 0\n");
  counter = MakeBpeTokenCounter("o200k_base", path, "");
  REQUIRE_FALSE(counter.ok());
  CHECK(testing::Contains(ToStd(counter.status().message()), "not a byte-level BPE vocabulary"));
  CHECK_FALSE(MakeBpeTokenCounter("p50k_base", path, "").ok());
}

TEST_CASE("the mapped table is made once, used after, and rebuilt when it does not fit") {
  TempDir dir;
  const std::string cache = dir.Sub("cache/o200k_base.table");
  const std::string ranks = RanksPath("o200k_base");
  {
    absl::StatusOr<std::unique_ptr<TokenCounter>> counter = MakeBpeTokenCounter("o200k_base", ranks, cache);
    REQUIRE(counter.ok());
    CHECK((*counter)->Count("hello world") == 2);
  }
  REQUIRE(IsRegularFile(cache));
  struct stat before;
  REQUIRE(::stat(cache.c_str(), &before) == 0);
  {
    absl::StatusOr<std::unique_ptr<TokenCounter>> counter = MakeBpeTokenCounter("o200k_base", ranks, cache);
    REQUIRE(counter.ok());
    CHECK((*counter)->Count("hello world") == 2);
  }
  struct stat after;
  REQUIRE(::stat(cache.c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);  // mapped, not written again
  // A damaged table is not used: the ranks are read again and the table replaced.
  std::string table = testing::ReadFileOrEmpty(cache);
  table.resize(table.size() / 2);
  testing::WriteFile(cache, table);
  absl::StatusOr<std::unique_ptr<TokenCounter>> counter = MakeBpeTokenCounter("o200k_base", ranks, cache);
  REQUIRE(counter.ok());
  CHECK((*counter)->Count("hello world") == 2);
  CHECK(testing::ReadFileOrEmpty(cache).size() == static_cast<size_t>(before.st_size));
}

TEST_CASE("the default counter finds the build's ranks, and is the estimate without them") {
  TempDir home;
  const TokenCounter* counter = DefaultTokenCounter("cl100k_base", home.path());
  CHECK(counter->name() == "cl100k_base");
  CHECK(counter->problem().empty());
  CHECK(counter->Count("hello world") == 2);
  CHECK(DefaultTokenCounter("estimate")->name() == "estimate");

  TempDir empty;
  ::setenv("PLUGLINE_TOKENIZER_DIR", empty.path().c_str(), 1);
  const TokenCounter* missing = DefaultTokenCounter("o200k_base", empty.path());
  ::unsetenv("PLUGLINE_TOKENIZER_DIR");
  CHECK(missing->Count("hello world") == 2);
  CHECK(missing->name() == "estimate");
  CHECK(testing::Contains(missing->problem(), "no ranks for o200k_base"));
  CHECK(testing::Contains(missing->problem(), empty.path() + "/o200k_base.tiktoken"));
}

}  // namespace
}  // namespace plugline::core

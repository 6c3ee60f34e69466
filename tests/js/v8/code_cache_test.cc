// The V8 backend's code cache (src/js/v8/code_cache.h): one file per compiled source, named by
// the SHA-256 of its content and V8's cache version tag, consumed on the next load in a fresh
// isolate; damaged or mismatched files are ignored and rewritten.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "js/js_test_util.h"

namespace plugline::js {
namespace {

#if PLUGLINE_TEST_WITH_V8

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;
using testing::LoadModule;
using testing::LogLines;

std::vector<std::string> CacheFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Loads `relative` with a code cache in `dir` and returns the backend's "code cache: ..."
// summary of that load ("2 hit, 0 missed, 0 rejected, 0 written in 0.1 ms" → without timing).
std::string LoadWithCache(const char* relative, const std::string& dir, LogLines* logs) {
  ModuleOptions options;
  options.code_cache_dir = dir;
  options.log = logs->Sink();
  auto module = LoadModule(relative, options);
  for (const std::string& line : logs->Of("debug")) {
    size_t at = line.find("; code cache: ");
    if (at == std::string::npos) continue;
    std::string summary = line.substr(at + 14);
    return summary.substr(0, summary.find(" written") + 8);
  }
  FAIL("no load summary in the log");
  return "";
}

TEST_CASE("a second load in a fresh isolate compiles from the code cache") {
  TempDir tmp;
  std::string dir = tmp.Sub("cache/v8");  // created, with its parent, on the first write
  LogLines logs;
  CHECK(LoadWithCache("calc/index.js", dir, &logs) == "0 hit, 2 missed, 0 rejected, 2 written");
  std::vector<std::string> files = CacheFiles(dir);
  REQUIRE(files.size() == 2);
  std::regex name(".*/[0-9a-f]{64}-[0-9a-f]{8}\\.v8cache");
  for (const std::string& file : files) CHECK(std::regex_match(file, name));
  struct stat st;
  REQUIRE(stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  LogLines again;
  CHECK(LoadWithCache("calc/index.js", dir, &again) == "2 hit, 0 missed, 0 rejected, 0 written");
  CHECK(again.Of("log") == std::vector<std::string>{"calc loaded {\"precision\":2}"});
  CHECK(CacheFiles(dir) == files);  // nothing rewritten, no temporary files left
  // The module compiled from cache works.
  ModuleOptions options;
  options.code_cache_dir = dir;
  auto module = LoadModule("calc/index.js", options);
  CHECK(module->Call("sum", "[[1,2]]", CallLimits{}).ok());
}

TEST_CASE("a damaged code cache file never breaks loading and is rewritten") {
  TempDir tmp;
  std::string dir = tmp.path();
  LogLines logs;
  REQUIRE(LoadWithCache("cache/one.js", dir, &logs) == "0 hit, 1 missed, 0 rejected, 1 written");
  std::string file = CacheFiles(dir).at(0);
  const std::string good = ReadFileOrEmpty(file);
  REQUIRE(good.size() > 100);

  struct Damage {
    const char* name;
    std::string content;
    const char* reason;
  };
  std::string flipped = good;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5a);
  for (const Damage& damage :
       {Damage{"one byte flipped", flipped, "checksum mismatch"},
        Damage{"truncated", good.substr(0, good.size() - 7), "truncated"},
        Damage{"not a cache file", "garbage", "not a plugline code cache file"},
        Damage{"empty", "", "not a plugline code cache file"}}) {
    INFO(damage.name);
    WriteFile(file, damage.content);
    LogLines damaged;
    CHECK(LoadWithCache("cache/one.js", dir, &damaged) == "0 hit, 1 missed, 0 rejected, 1 written");
    CHECK(damaged.Contains(std::string("ignored: ") + damage.reason));
    // Rewritten whole (V8's bytes need not be identical from one compile to the next).
    CHECK(ReadFileOrEmpty(file).size() > 100);
    LogLines healed;
    CHECK(LoadWithCache("cache/one.js", dir, &healed) == "1 hit, 0 missed, 0 rejected, 0 written");
    CHECK(CacheFiles(dir).size() == 1);  // no temporary file left behind
  }
}

TEST_CASE("a code cache that V8 rejects is compiled normally and replaced") {
  TempDir tmp;
  std::string dir = tmp.path();
  LogLines logs;
  REQUIRE(LoadWithCache("cache/one.js", dir, &logs) == "0 hit, 1 missed, 0 rejected, 1 written");
  std::string one = CacheFiles(dir).at(0);
  REQUIRE(LoadWithCache("cache/two.js", dir, &logs) == "0 hit, 1 missed, 0 rejected, 1 written");
  std::string two;
  for (const std::string& file : CacheFiles(dir)) {
    if (file != one) two = file;
  }
  REQUIRE_FALSE(two.empty());
  // A well-formed file holding another script's cache: only V8 can tell.
  std::string foreign = ReadFileOrEmpty(one);
  WriteFile(two, foreign);
  LogLines rejected;
  CHECK(LoadWithCache("cache/two.js", dir, &rejected) == "0 hit, 0 missed, 1 rejected, 1 written");
  CHECK(rejected.Contains("rejected by V8"));
  CHECK(ReadFileOrEmpty(two) != foreign);
  LogLines hit;
  CHECK(LoadWithCache("cache/two.js", dir, &hit) == "1 hit, 0 missed, 0 rejected, 0 written");
}

TEST_CASE("a code cache directory that cannot be created only costs the cache") {
  LogLines logs;
  CHECK(LoadWithCache("cache/one.js", "/proc/plugline-no-such-dir/cache", &logs) ==
        "0 hit, 1 missed, 0 rejected, 0 written");
  CHECK(logs.Contains("not written"));
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline::js

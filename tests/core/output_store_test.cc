#include "core/output_store.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "core/fs.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;

TEST_CASE("outputs are stored byte for byte, NUL and invalid UTF-8 included") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{});
  std::string output("head\0\xff\xfe tail\r\n", 14);
  auto path = store.Store(output);
  REQUIRE(path.ok());
  CHECK(path->find(dir.Sub("outputs") + "/") == 0);
  CHECK(ReadFileOrEmpty(*path) == output);
}

TEST_CASE("retention keeps the newest files and deletes the oldest") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{3, 0});
  std::vector<std::string> paths;
  for (int i = 0; i < 5; ++i) paths.push_back(*store.Store("output " + std::to_string(i)));
  auto names = ListDir(dir.Sub("outputs"));
  REQUIRE(names.ok());
  CHECK(names->size() == 3);
  CHECK_FALSE(PathExists(paths[0]));
  CHECK_FALSE(PathExists(paths[1]));
  CHECK(PathExists(paths[4]));
  CHECK(ReadFileOrEmpty(paths[4]) == "output 4");
}

TEST_CASE("retention by total size never deletes the file just written") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{100, 10});
  auto first = store.Store("12345678");
  auto second = store.Store("abcdefgh");  // 16 bytes in all: the first must go
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK_FALSE(PathExists(*first));
  CHECK(PathExists(*second));
  auto big = store.Store(std::string(50, 'x'));  // alone over the bound, still kept
  CHECK(PathExists(*big));
}

TEST_CASE("a store in an impossible place fails with a message naming it") {
  TempDir dir;
  plugline::testing::WriteFile(dir.Sub("file"), "not a directory");
  OutputStore store(dir.Sub("file/outputs"), OutputRetention{});
  auto path = store.Store("x");
  REQUIRE_FALSE(path.ok());
  CHECK(std::string(path.status().message()).find(dir.Sub("file")) != std::string::npos);
}

TEST_CASE("WriteFileAtomic replaces the whole file and leaves no temporary behind") {
  TempDir dir;
  std::string path = dir.Sub("state.json");
  REQUIRE(WriteFileAtomic(path, "old contents, longer").ok());
  REQUIRE(WriteFileAtomic(path, "new").ok());
  CHECK(ReadFileOrEmpty(path) == "new");
  auto names = ListDir(dir.path());
  REQUIRE(names.ok());
  CHECK(names->size() == 1);
}

}  // namespace
}  // namespace plugline::core

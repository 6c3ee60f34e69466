#include "core/output_store.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

#include "absl/strings/match.h"
#include "core/fs.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;

// Names of the entries of `dir`, hidden ones included, but for the store's own usage file.
std::vector<std::string> Entries(const std::string& dir) {
  auto names = ListDir(dir);
  std::vector<std::string> entries;
  for (const std::string& name : names.ok() ? *names : std::vector<std::string>{}) {
    if (name != ".usage") entries.push_back(name);
  }
  return entries;
}

size_t LogCount(const std::string& dir) {
  size_t count = 0;
  for (const std::string& name : Entries(dir)) count += absl::EndsWith(name, ".log") ? 1 : 0;
  return count;
}


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
  CHECK(Entries(dir.Sub("outputs")).size() == 3);
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

TEST_CASE("a streamed output appears only once committed, whole, and nothing else is left") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{});
  auto writer = store.Begin();
  REQUIRE(writer->status().ok());
  writer->Write("first part, ");
  writer->Write(std::string("NUL \0 and \xff\n", 12));
  // While it is written the store shows no .log file: readers never see a part.
  for (const std::string& name : Entries(dir.Sub("outputs"))) {
    CHECK(name[0] == '.');
    CHECK_FALSE(absl::EndsWith(name, ".log"));
  }
  auto path = writer->Commit();
  REQUIRE(path.ok());
  CHECK(ReadFileOrEmpty(*path) == std::string("first part, NUL \0 and \xff\n", 24));
  CHECK(writer->written() == 24);
  CHECK_FALSE(writer->truncated());
  CHECK(Entries(dir.Sub("outputs")).size() == 1);
  CHECK_FALSE(writer->Commit().ok());  // once only
}

TEST_CASE("the per-output cap keeps the file to its first bytes and counts the rest") {
  TempDir dir;
  OutputRetention retention;
  retention.max_file_bytes = 10;
  OutputStore store(dir.Sub("outputs"), retention);
  auto writer = store.Begin();
  writer->Write("0123456");
  writer->Write("789abcdef");
  writer->Write("ghij");
  auto path = writer->Commit();
  REQUIRE(path.ok());
  CHECK(ReadFileOrEmpty(*path) == "0123456789");
  CHECK(writer->bytes() == 20);
  CHECK(writer->written() == 10);
  CHECK(writer->truncated());
}

TEST_CASE("a stored output keeps no secret the command printed, wherever its chunks were cut") {
  TempDir dir;
  OutputRetention retention;
  retention.max_file_bytes = 84;  // counted in the output's bytes, not the file's
  OutputStore store(dir.Sub("outputs"), retention);
  auto writer = store.Begin();
  writer->Write("PATH=/usr/bin\nGITHUB_TOKEN=ghp_a1B2c3D4e5");
  // Before the line ends nothing of it is in the file: the whole line is needed to mask it.
  for (const std::string& name : Entries(dir.Sub("outputs"))) {
    CHECK(ReadFileOrEmpty(dir.Sub("outputs") + "/" + name).find("ghp_") == std::string::npos);
  }
  writer->Write("F6g7H8i9J0k1L2m3N4o5P6\nDB_PASSWORD=hunter2\nand more after the cap\n");
  auto path = writer->Commit();
  REQUIRE(path.ok());
  CHECK(ReadFileOrEmpty(*path) ==
        "PATH=/usr/bin\nGITHUB_TOKEN=[redacted]\nDB_PASSWORD=[redacted]\n");
  CHECK(writer->written() == 84);
  CHECK(writer->truncated());
}

TEST_CASE("a writer dropped without a commit leaves nothing behind") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{});
  {
    auto writer = store.Begin();
    writer->Write("never committed");
    CHECK(Entries(dir.Sub("outputs")).size() == 1);  // its temporary file
  }
  CHECK(Entries(dir.Sub("outputs")).empty());
}

TEST_CASE("temporary files of killed writers are pruned, a live writer's file is not") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{});
  REQUIRE(store.Store("make the directory").ok());
  // A killed writer's file: old, and held by nobody.
  const std::string stale = dir.Sub("outputs/.20260101T000000.000Z-1-1.log.partial");
  plugline::testing::WriteFile(stale, "left by a SIGKILLed plugline");
  struct timespec old_times[2] = {{std::time(nullptr) - 3600, 0}, {std::time(nullptr) - 3600, 0}};
  REQUIRE(::utimensat(AT_FDCWD, stale.c_str(), old_times, 0) == 0);
  // A writer still at work (a command running for an hour): old too, but locked.
  auto live = store.Begin();
  live->Write("still running");
  std::string live_temp;
  for (const std::string& name : Entries(dir.Sub("outputs"))) {
    if (name[0] == '.' && dir.Sub("outputs/" + name) != stale)
      live_temp = dir.Sub("outputs/" + name);
  }
  REQUIRE_FALSE(live_temp.empty());
  REQUIRE(::utimensat(AT_FDCWD, live_temp.c_str(), old_times, 0) == 0);
  // A fresh unlocked file (a writer that has only just created it) is left alone too.
  const std::string fresh = dir.Sub("outputs/.20260101T000000.000Z-2-1.log.partial");
  plugline::testing::WriteFile(fresh, "just created");

  // Stale temporary files go at the next full prune (one runs at least every ten minutes, and
  // at once without a usage file).
  REQUIRE(store.Store("the next output").ok());
  CHECK(PathExists(stale));
  ::unlink(dir.Sub("outputs/.usage").c_str());
  REQUIRE(store.Store("the next output").ok());
  CHECK_FALSE(PathExists(stale));
  CHECK(PathExists(live_temp));
  CHECK(PathExists(fresh));
  auto committed = live->Commit();
  REQUIRE(committed.ok());
  CHECK(ReadFileOrEmpty(*committed) == "still running");
}

TEST_CASE("retention still holds for streamed outputs") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{2, 0});
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) {
    auto writer = store.Begin();
    for (int j = 0; j < 100; ++j) writer->Write("some bytes\n");
    paths.push_back(*writer->Commit());
  }
  CHECK(Entries(dir.Sub("outputs")).size() == 2);
  CHECK_FALSE(PathExists(paths[0]));
  CHECK(PathExists(paths[3]));
}

TEST_CASE("retention orders outputs of one millisecond by their sequence as a number") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{3, 0});
  // Three outputs of one process in one millisecond: the 10th and 11th are newer than the 9th,
  // though as names they sort before it.
  for (const char* name : {"20260101T000000.000Z-5-9.log", "20260101T000000.000Z-5-10.log",
                           "20260101T000000.000Z-5-11.log"}) {
    plugline::testing::WriteFile(dir.Sub(std::string("outputs/") + name), name);
  }
  auto latest = store.Store("the latest");
  REQUIRE(latest.ok());
  CHECK(PathExists(*latest));
  CHECK_FALSE(PathExists(dir.Sub("outputs/20260101T000000.000Z-5-9.log")));
  CHECK(PathExists(dir.Sub("outputs/20260101T000000.000Z-5-10.log")));
  CHECK(PathExists(dir.Sub("outputs/20260101T000000.000Z-5-11.log")));
}

TEST_CASE("a full store drops its oldest tenth at once, then fills again without deleting") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{20, 0});
  std::vector<std::string> paths;
  for (int i = 0; i < 20; ++i) paths.push_back(*store.Store("output " + std::to_string(i)));
  CHECK(LogCount(dir.Sub("outputs")) == 20);
  paths.push_back(*store.Store("output 20"));  // over the bound: down to 18, the newest
  CHECK(LogCount(dir.Sub("outputs")) == 18);
  CHECK_FALSE(PathExists(paths[2]));
  CHECK(PathExists(paths[3]));
  CHECK(PathExists(paths[20]));
  paths.push_back(*store.Store("output 21"));
  paths.push_back(*store.Store("output 22"));
  CHECK(LogCount(dir.Sub("outputs")) == 20);  // room was left: nothing deleted
  CHECK(PathExists(paths[3]));
  paths.push_back(*store.Store("output 23"));
  CHECK(LogCount(dir.Sub("outputs")) == 18);
  CHECK_FALSE(PathExists(paths[5]));
  CHECK(PathExists(paths[6]));
}

TEST_CASE("the size bound holds over many outputs counted in the usage file") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{1000, 1000});
  for (int i = 0; i < 300; ++i) {
    REQUIRE(store.Store(std::string(static_cast<size_t>(7 + i % 13), 'x')).ok());
    uint64_t total = 0;
    for (const std::string& name : Entries(dir.Sub("outputs"))) {
      struct stat st;
      if (absl::EndsWith(name, ".log") && ::stat(dir.Sub("outputs/" + name).c_str(), &st) == 0)
        total += static_cast<uint64_t>(st.st_size);
    }
    REQUIRE(total <= 1000);
  }
  CHECK(LogCount(dir.Sub("outputs")) > 50);
}

TEST_CASE("a usage file that is damaged, stale or missing costs one full prune, never a file") {
  TempDir dir;
  OutputStore store(dir.Sub("outputs"), OutputRetention{5, 0});
  for (int i = 0; i < 5; ++i) REQUIRE(store.Store("output").ok());
  const std::string usage = dir.Sub("outputs/.usage");
  REQUIRE(PathExists(usage));
  // Files another tool put there, unknown to the usage file, and a damaged one: the next store
  // counts the directory again.
  plugline::testing::WriteFile(dir.Sub("outputs/20200101T000000.000Z-1-1.log"), "old");
  plugline::testing::WriteFile(usage, "five files\n");
  REQUIRE(store.Store("output").ok());
  CHECK(LogCount(dir.Sub("outputs")) == 5);
  CHECK_FALSE(PathExists(dir.Sub("outputs/20200101T000000.000Z-1-1.log")));
  // An old usage file (written long ago) does not hide files either.
  plugline::testing::WriteFile(dir.Sub("outputs/20200101T000000.000Z-1-2.log"), "old");
  plugline::testing::WriteFile(dir.Sub("outputs/20200101T000000.000Z-1-3.log"), "old");
  plugline::testing::WriteFile(usage, "1 6 1000000000\n");
  REQUIRE(store.Store("output").ok());
  CHECK(LogCount(dir.Sub("outputs")) == 5);
  ::unlink(usage.c_str());
  plugline::testing::WriteFile(dir.Sub("outputs/20200101T000000.000Z-1-4.log"), "old");
  REQUIRE(store.Store("output").ok());
  CHECK(LogCount(dir.Sub("outputs")) == 5);
  CHECK(PathExists(usage));
}

}  // namespace
}  // namespace plugline::core

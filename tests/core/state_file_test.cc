#include "core/state_file.h"

#include <doctest/doctest.h>

#include <thread>

#include "absl/strings/match.h"
#include "core/fs.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

// A state file whose documents hold `count`, a whole number >= 0.
StateFileOptions CounterOptions(const TempDir& dir, int64_t version = 2) {
  StateFileOptions options;
  options.path = dir.Sub("state.json");
  options.version = version;
  options.validate = [](const Value& doc) -> absl::Status {
    const Value* count = doc.Find("count");
    return count == nullptr ? absl::OkStatus() : ExpectCount(*count, "count");
  };
  options.max_bytes = 4096;
  return options;
}

absl::Status Increment(Value& doc) {
  const Value* count = doc.Find("count");
  doc.Set("count", Value((count != nullptr ? count->as_number() : 0) + 1));
  return absl::OkStatus();
}

// The names in `dir` that start with `prefix`.
std::vector<std::string> NamesStartingWith(const TempDir& dir, std::string_view prefix) {
  std::vector<std::string> found;
  absl::StatusOr<std::vector<std::string>> names = ListDir(dir.path());
  REQUIRE(names.ok());
  for (const std::string& name : *names) {
    if (absl::StartsWith(name, ToAbsl(prefix))) found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

TEST_CASE("a state file: absent is the empty document, Update creates it, Read reads it back") {
  TempDir dir;
  StateFile file(CounterOptions(dir));
  std::vector<std::string> warnings;
  auto empty = file.Read(&warnings);
  REQUIRE(empty.ok());
  CHECK(ToJson(*empty) == R"({"version":2})");
  REQUIRE(file.Update(Increment, &warnings).ok());
  REQUIRE(file.Update(Increment, &warnings).ok());
  CHECK(ReadFileOrEmpty(file.path()) == R"({"version":2,"count":2})");
  CHECK(warnings.empty());
  CHECK(PathExists(dir.Sub("state.json.lock")));  // the default lock path
}

TEST_CASE("a state file of an older version is passed to validate and rewritten in this one") {
  TempDir dir;
  StateFile file(CounterOptions(dir, 2));
  WriteFile(file.path(), R"({"version":1,"count":5})");
  REQUIRE(file.Update(Increment, nullptr).ok());
  CHECK(ReadFileOrEmpty(file.path()) == R"({"version":2,"count":6})");
}

// Every way a document can be malformed: Read moves it aside (kept byte for byte), warns with
// the path, the aside path and the problem, and gives the empty document; Update then starts
// afresh.
TEST_CASE("a malformed state file is moved aside with a warning, and the command goes on") {
  struct Case {
    std::string text;
    std::string problem;  // part of the warning
  };
  const std::vector<Case> cases = {
      {"", "empty input"},
      {"{not json", "invalid JSON"},
      {R"({"version":1,"count":1)", "invalid JSON"},
      {R"({"version":1,"count":NaN})", "invalid JSON"},
      {R"({"version":1,"count":Infinity})", "invalid JSON"},
      {R"({"version":1,"count":1e400})", "invalid JSON"},
      {"[]", "must be a JSON object, not an array"},
      {"null", "must be a JSON object, not null"},
      {R"("version")", "must be a JSON object, not a string"},
      {"{}", "`version` is missing"},
      {R"({"version":"1"})", "`version` must be a whole number >= 1, not a string"},
      {R"({"version":0})", "`version` must be a whole number >= 1, not 0"},
      {R"({"version":-3})", "`version` must be a whole number >= 1, not -3"},
      {R"({"version":1.5})", "`version` must be a whole number >= 1, not 1.5"},
      {R"({"version":null})", "`version` must be a whole number >= 1, not null"},
      {R"({"version":1,"version":1})", "duplicate key \"version\""},
      {R"({"version":1,"count":-1})", "`count` must be a whole number >= 0, not -1"},
      {R"({"version":1,"count":0.5})", "`count` must be a whole number >= 0, not 0.5"},
      {R"({"version":1,"count":1e300})", "`count` must be a whole number >= 0, not 1e+300"},
      {R"({"version":1,"count":"7"})", "`count` must be a whole number >= 0, not a string"},
      {R"({"version":1,"count":{}})", "`count` must be a whole number >= 0, not an object"},
      {std::string(5000, ' ') + "{}", "larger than 4096 bytes"},
      {std::string("{\"version\":1,\"x\":\"\xff\"}"), "invalid JSON"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text.substr(0, 60));
    TempDir dir;
    StateFile file(CounterOptions(dir));
    WriteFile(file.path(), c.text);
    std::vector<std::string> warnings;
    auto doc = file.Read(&warnings);
    REQUIRE(doc.ok());
    CHECK(ToJson(*doc) == R"({"version":2})");
    REQUIRE(warnings.size() == 1);
    CHECK(absl::StartsWith(warnings[0], StrCat(file.path(), " is malformed (")));
    CHECK_MESSAGE(warnings[0].find(c.problem) != std::string::npos, warnings[0]);
    std::vector<std::string> aside = NamesStartingWith(dir, "state.json.corrupt-");
    REQUIRE(aside.size() == 1);
    CHECK(warnings[0].find(StrCat("moved it aside to ", dir.Sub(aside[0]))) != std::string::npos);
    CHECK(ReadFileOrEmpty(dir.Sub(aside[0])) == c.text);  // kept, not lost
    CHECK_FALSE(PathExists(file.path()));

    // Update on a malformed file: moved aside the same way, counting starts again.
    WriteFile(file.path(), c.text);
    warnings.clear();
    REQUIRE(file.Update(Increment, &warnings).ok());
    CHECK(warnings.size() == 1);
    CHECK(ReadFileOrEmpty(file.path()) == R"({"version":2,"count":1})");
    CHECK(NamesStartingWith(dir, "state.json.corrupt-").size() == 2);  // never overwritten
  }
}

TEST_CASE("a state file of a newer version is never overwritten nor moved aside") {
  TempDir dir;
  StateFile file(CounterOptions(dir, 2));
  const std::string newer = R"({"version":3,"count":"a format this build does not know"})";
  WriteFile(file.path(), newer);
  std::vector<std::string> warnings;
  auto read = file.Read(&warnings);
  REQUIRE_FALSE(read.ok());
  CHECK(read.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(read.status().message()) ==
        StrCat(file.path(), " has version 3, newer than this plugline's (2): left untouched"));
  bool called = false;
  absl::Status updated = file.Update(
      [&](Value&) {
        called = true;
        return absl::OkStatus();
      },
      &warnings);
  CHECK(updated.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_FALSE(called);
  CHECK(ReadFileOrEmpty(file.path()) == newer);
  CHECK(NamesStartingWith(dir, "state.json.corrupt-").empty());
  CHECK(warnings.empty());
}

TEST_CASE("an update that would write a document this build cannot read back writes nothing") {
  TempDir dir;
  StateFile file(CounterOptions(dir));
  WriteFile(file.path(), R"({"version":2,"count":4})");
  absl::Status bad = file.Update(
      [](Value& doc) {
        doc.Set("count", Value(-1));
        return absl::OkStatus();
      },
      nullptr);
  CHECK(bad.code() == absl::StatusCode::kInternal);
  CHECK(std::string(bad.message()).find("`count` must be a whole number >= 0") != std::string::npos);
  absl::Status refused = file.Update(
      [](Value&) { return absl::AbortedError("changed my mind"); }, nullptr);
  CHECK(refused.code() == absl::StatusCode::kAborted);
  CHECK(ReadFileOrEmpty(file.path()) == R"({"version":2,"count":4})");
}

TEST_CASE("a malformed state file that cannot be moved aside is left alone and not overwritten") {
  TempDir dir;
  StateFileOptions options = CounterOptions(dir);
  options.lock_path = dir.Sub("no-such-dir/state.lock");  // the lock cannot be taken
  StateFile file(options);
  WriteFile(file.path(), "{garbage");
  std::vector<std::string> warnings;
  auto read = file.Read(&warnings);
  REQUIRE(read.ok());
  CHECK(ToJson(*read) == R"({"version":2})");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("could not move it aside") != std::string::npos);
  CHECK_FALSE(file.Update(Increment, &warnings).ok());
  CHECK(ReadFileOrEmpty(file.path()) == "{garbage");
}

TEST_CASE("a directory where a state file should be is an error, not a crash, and kept") {
  TempDir dir;
  StateFile file(CounterOptions(dir));
  REQUIRE(MakeDirs(file.path()).ok());
  CHECK(file.Read(nullptr).status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_FALSE(file.Update(Increment, nullptr).ok());
  CHECK(IsDirectory(file.path()));
}

TEST_CASE("two malformed files moved aside in the same second get different names") {
  TempDir dir;
  StateFile file(CounterOptions(dir));
  for (int i = 0; i < 3; ++i) {
    WriteFile(file.path(), StrCat("{broken ", i));
    REQUIRE(file.Read(nullptr).ok());
  }
  std::vector<std::string> aside = NamesStartingWith(dir, "state.json.corrupt-");
  REQUIRE(aside.size() == 3);
  std::vector<std::string> contents;
  for (const std::string& name : aside) contents.push_back(ReadFileOrEmpty(dir.Sub(name)));
  std::sort(contents.begin(), contents.end());
  CHECK(contents == std::vector<std::string>{"{broken 0", "{broken 1", "{broken 2"});
}

TEST_CASE("concurrent updates of a state file lose nothing") {
  TempDir dir;
  constexpr int kThreads = 6, kEach = 30;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      StateFile file(CounterOptions(dir));  // one per thread, as separate processes have
      for (int i = 0; i < kEach; ++i) CHECK(file.Update(Increment, nullptr).ok());
    });
  }
  for (auto& thread : threads) thread.join();
  auto doc = StateFile(CounterOptions(dir)).Read(nullptr);
  REQUIRE(doc.ok());
  CHECK(doc->Find("count")->as_integer() == kThreads * kEach);
}

TEST_CASE("the Expect helpers name the member and what it holds") {
  CHECK(ExpectObject(Value(ValueArray{}), "a.b").message() == "`a.b` must be an object, not an array");
  CHECK(ExpectCount(Value(-2), "n").message() == "`n` must be a whole number >= 0, not -2");
  CHECK(ExpectCount(Value(9007199254740992.0), "n").ok());
  CHECK_FALSE(ExpectCount(Value(18014398509481984.0), "n").ok());
  CHECK(ExpectInteger(Value(-5), "n").ok());
  CHECK(ExpectNonNegative(Value(2.5), "ms").ok());
  CHECK(ExpectNonNegative(Value(std::numeric_limits<double>::infinity()), "ms").message() ==
        "`ms` must be a number >= 0, not infinity");
  CHECK(ExpectString(Value(true), "s").message() == "`s` must be a string, not a boolean");
  CHECK(ExpectBool(Value("x"), "b").message() == "`b` must be true or false, not a string");
  CHECK(ExpectArray(Value(), "l").message() == "`l` must be an array, not null");
}

}  // namespace
}  // namespace plugline::core

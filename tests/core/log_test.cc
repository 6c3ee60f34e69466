#include "core/log.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <string>

#include "core/text.h"
#include "test_util.h"

namespace plugline::core {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;

TEST_CASE("the log appends one line per message, escapes newlines, skips debug by default") {
  TempDir dir;
  ::unsetenv("PLUGLINE_DEBUG");
  Log log(dir.Sub("logs"));  // created on the first write
  log.Write("warn", "plugin terra", "two\nlines");
  log.Write("debug", "plugin terra", "timings");
  std::string text = ReadFileOrEmpty(dir.Sub("logs/plugline.log"));
  auto lines = SplitLines(text);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find(" warn plugin terra: two\\nlines") != std::string_view::npos);
  CHECK(lines[0].size() > 24);  // starts with a UTC time
  CHECK(lines[0][4] == '-');

  ::setenv("PLUGLINE_DEBUG", "1", 1);
  Log debug(dir.Sub("logs"));
  debug.Write("debug", "plugin terra", "timings");
  ::unsetenv("PLUGLINE_DEBUG");
  CHECK(SplitLines(ReadFileOrEmpty(dir.Sub("logs/plugline.log"))).size() == 2);
}

TEST_CASE("a log that cannot be written costs nothing") {
  TempDir dir;
  plugline::testing::WriteFile(dir.Sub("file"), "x");
  Log log(dir.Sub("file/logs"));  // a file where the directory should be
  log.Write("error", "core", "lost");
  Log off("");
  off.Write("error", "core", "lost");
  CHECK(off.path().empty());
}

TEST_CASE("the log rotates once past its size bound") {
  TempDir dir;
  Log log(dir.Sub("logs"));
  std::string big(64 * 1024, 'x');
  for (uint64_t written = 0; written <= kMaxLogBytes; written += big.size()) {
    log.Write("info", "bench", big);
  }
  log.Write("info", "bench", "after rotation");
  CHECK(!ReadFileOrEmpty(dir.Sub("logs/plugline.log.1")).empty());
  CHECK(SplitLines(ReadFileOrEmpty(dir.Sub("logs/plugline.log"))).size() <= 2);
}

}  // namespace
}  // namespace plugline::core

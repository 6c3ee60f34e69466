#include "plugline/host.h"

#include <doctest/doctest.h>

#include "core/json.h"
#include "core/strings.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

std::string Numbered(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) StrAppend(&out, "row ", testing::Letters(i), "\n");
  return out;
}

TEST_CASE("Host shapes with the generic shaper, stores the raw output and reports JSON") {
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  CHECK((*host)->home() == home.path());
  std::string output = Numbered(500);
  auto result = (*host)->Shape(ShapeRequest{"seq 500", output, 2, ""});
  REQUIRE(result.ok());
  CHECK(result->shaper == "builtin-generic");
  CHECK(result->render_mode == RenderMode::kSummary);
  CHECK(result->raw_path.find(home.path() + "/outputs/") == 0);
  CHECK(ReadFileOrEmpty(result->raw_path) == output);
  CHECK(result->summary.find("… 440 lines omitted (lines 31–470 of 500)") != std::string::npos);

  auto json = core::ParseJson(result->ToJson(), "result");
  REQUIRE(json.ok());
  for (const char* key : {"summary", "render_mode", "shaper", "confidence", "raw_path",
                          "raw_bytes", "raw_lines", "tokens_raw", "tokens_summary", "fallback"}) {
    CHECK_MESSAGE(json->Find(key) != nullptr, key);
  }
  CHECK(json->Find("render_mode")->as_string() == "summary");
  CHECK(json->Find("raw_lines")->as_integer() == 500);
  CHECK(json->Find("fallback")->is_null());
}

TEST_CASE("Host rejects a command that is not UTF-8") {
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  auto result = (*host)->Shape(ShapeRequest{"ls \xff", "x", 0, ""});
  REQUIRE_FALSE(result.ok());
  CHECK(result.status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE(
    "Host rejects a budget of 1 to 199 tokens, as config.yaml does, and takes 0 (none) and 200") {
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  std::string output;
  for (int i = 0; i < 500; ++i) output += "line " + std::to_string(i) + "\n";
  for (uint64_t tiny : {uint64_t{1}, uint64_t{150}, uint64_t{199}}) {
    CAPTURE(tiny);
    ShapeRequest request{"seq 500", output, 0, ""};
    request.max_tokens = tiny;
    auto result = (*host)->Shape(request);
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(result.status().message()).starts_with("max_tokens "));
  }
  for (uint64_t fine : {uint64_t{0}, uint64_t{200}}) {
    ShapeRequest request{"seq 500", output, 0, ""};
    request.max_tokens = fine;
    auto result = (*host)->Shape(request);
    REQUIRE(result.ok());
    CHECK(result->max_tokens == fine);
  }
}

TEST_CASE("a home that cannot hold outputs: the output is shown in full, with the reason") {
  TempDir dir;
  WriteFile(dir.Sub("not-a-dir"), "x");
  auto host = Host::Create(HostOptions{dir.Sub("not-a-dir"), "", true, nullptr});
  REQUIRE(host.ok());
  std::string output = Numbered(500);
  auto result = (*host)->Shape(ShapeRequest{"seq 500", output, 0, ""});
  REQUIRE(result.ok());
  CHECK(result->render_mode == RenderMode::kRaw);
  CHECK(result->summary == output);
  CHECK(result->raw_path.empty());
  REQUIRE(result->fallback.has_value());
  CHECK(result->fallback->find("raw output could not be stored") == 0);
}

TEST_CASE("store_outputs=false: summaries elide and name no file") {
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", false, nullptr});
  auto result = (*host)->Shape(ShapeRequest{"seq 500", Numbered(500), 0, ""});
  REQUIRE(result.ok());
  CHECK(result->raw_path.empty());
  CHECK(result->render_mode == RenderMode::kRaw);  // generic elides only with a stored copy
}

TEST_CASE("a host token counter is used for both counts") {
  TempDir home;
  HostOptions options{home.path(), "", true, [](std::string_view t) { return t.size(); }};
  auto host = Host::Create(options);
  std::string output = Numbered(500);
  auto result = (*host)->Shape(ShapeRequest{"seq 500", output, 0, ""});
  CHECK(result->tokens_raw == output.size());
  CHECK(result->tokens_summary == result->summary.size());
}

TEST_CASE("config problems become diagnostics, not failures") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "plugins: [oops\n");
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());
  REQUIRE((*host)->diagnostics().size() == 1);
  CHECK((*host)->diagnostics()[0].find(home.Sub("config.yaml")) == 0);
}

TEST_CASE("empty output and binary output do not break shaping") {
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  auto empty = (*host)->Shape(ShapeRequest{"true", "", 0, ""});
  REQUIRE(empty.ok());
  CHECK(empty->summary.empty());
  CHECK(empty->raw_lines == 0);
  std::string binary;
  for (int i = 0; i < 200000; ++i) binary.push_back(static_cast<char>(i * 7919 % 256));
  auto shaped = (*host)->Shape(ShapeRequest{"cat /bin/true", binary, 0, ""});
  REQUIRE(shaped.ok());
  CHECK(ReadFileOrEmpty(shaped->raw_path) == binary);
  CHECK(core::ParseJson(shaped->ToJson(), "binary result").ok());
}

}  // namespace
}  // namespace plugline

namespace plugline {
namespace {

TEST_CASE("bad input: one 50 MB line, binary, CRLF, look-alike output") {
  TempDir home;
  auto host = Host::Create(HostOptions{home.path(), "", true, nullptr});
  REQUIRE(host.ok());

  // A single 50 MB line: cut, counted, never shown whole.
  std::string line(50u << 20, 'x');
  line += "END";
  auto huge = (*host)->Shape(ShapeRequest{"node build.js", line, 0, ""});
  REQUIRE(huge.ok());
  CHECK(huge->render_mode == RenderMode::kSummary);
  CHECK(huge->summary.size() < 8192);
  CHECK(huge->summary.find("bytes of this line omitted") != std::string::npos);
  CHECK(huge->summary.find("xEND") != std::string::npos);  // the line's end is kept
  CHECK(ReadFileOrEmpty(huge->raw_path).size() == line.size());

  // Binary output: valid JSON, nothing crashes, raw kept exactly.
  std::string binary;
  for (int i = 0; i < 300000; ++i) binary.push_back(static_cast<char>((i * 131) % 256));
  auto shaped = (*host)->Shape(ShapeRequest{"cat /usr/bin/true", binary, 0, ""});
  REQUIRE(shaped.ok());
  CHECK(core::ParseJson(shaped->ToJson(), "binary").ok());
  CHECK(shaped->summary.size() < binary.size());

  // CRLF output is read like LF output.
  std::string crlf;
  for (int i = 1; i <= 500; ++i) StrAppend(&crlf, "row ", testing::Letters(i), "\r\n");
  auto windows = (*host)->Shape(ShapeRequest{"type rows.txt", crlf, 0, ""});
  REQUIRE(windows.ok());
  CHECK(windows->summary.find("\r") == std::string::npos);
  CHECK(windows->summary.find("… 440 lines omitted (lines 31–470 of 500)") != std::string::npos);

  // pytest output printed by `cat`: recognized by its content, at lower confidence, and the
  // summary says only what the output says.
  std::string saved =
      "============================= test session starts ==============================\n"
      "collected 2 items\n\n"
      "tests/test_a.py .F                                                       [100%]\n\n"
      "=================================== FAILURES ===================================\n"
      "___________________________________ test_b ____________________________________\n\n"
      "    def test_b():\n"
      ">       assert 1 + 1 == 3\n"
      "E       assert (1 + 1) == 3\n\n"
      "tests/test_a.py:5: AssertionError\n"
      "=========================== short test summary info ============================\n"
      "FAILED tests/test_a.py::test_b - assert (1 + 1) == 3\n"
      "========================= 1 failed, 1 passed in 0.02s ==========================\n";
  auto cat = (*host)->Shape(ShapeRequest{"cat last-run.log", saved, 0, ""});
  REQUIRE(cat.ok());
  CHECK(cat->shaper == "builtin-test");
  CHECK(cat->confidence < 0.9);
}

}  // namespace
}  // namespace plugline

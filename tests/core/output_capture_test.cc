// Outputs larger than the shaping window, through Host::Shape and OutputCapture: the raw file
// is complete (up to the cap), the summary is made from the window and says so.
#include <doctest/doctest.h>

#include "absl/strings/match.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"
#include "core/text.h"
#include "plugline/host.h"
#include "test_util.h"

namespace plugline {
namespace {

using plugline::testing::Contains;
using plugline::testing::ReadFileOrEmpty;
using plugline::testing::TempDir;
using plugline::testing::WriteFile;

constexpr uint64_t kWindow = 8u << 20;  // the default outputs.window_mb

std::unique_ptr<Host> OpenHost(const TempDir& home, bool store = true) {
  HostOptions options;
  options.home = home.path();
  options.store_outputs = store;
  auto host = Host::Create(std::move(options));
  REQUIRE(host.ok());
  return *std::move(host);
}

// `n` lines of exactly `width` bytes, numbered in letters (not alike but for their numbers,
// which shapers fold): "line bh ......\n" is line 17.
std::string Lines(uint64_t first, uint64_t n, size_t width = 64) {
  std::string out;
  out.reserve(n * width);
  for (uint64_t i = first; i < first + n; ++i) {
    std::string line = StrCat("line ", testing::Letters(i), " ");
    line.resize(width - 1, '.');
    StrAppend(&out, line, "\n");
  }
  return out;
}

TEST_CASE("an output of exactly the window's size is shaped as a whole output always was") {
  TempDir home;
  auto host = OpenHost(home);
  const std::string output = Lines(1, kWindow / 64);
  REQUIRE(output.size() == kWindow);
  auto shaped = host->Shape(ShapeRequest{"./run.sh", output, 0, ""});
  REQUIRE(shaped.ok());
  CHECK(shaped->raw_bytes == kWindow);
  CHECK(shaped->shaped_bytes == kWindow);
  CHECK(shaped->raw_stored_bytes == kWindow);
  CHECK(Contains(shaped->summary, "… 131,012 lines omitted (lines 31–131,042 of 131,072)"));
  CHECK_FALSE(Contains(shaped->summary, "shaping window"));
  CHECK(ReadFileOrEmpty(shaped->raw_path) == output);

  // The same output fed in pieces gives the same result.
  auto capture = host->StartCapture();
  for (size_t at = 0; at < output.size(); at += 100000) {
    capture->Append(std::string_view(output).substr(at, 100000));
  }
  CHECK(capture->bytes() == kWindow);
  CHECK(capture->lines() == kWindow / 64);
  auto streamed = capture->Finish("./run.sh", 0);
  REQUIRE(streamed.ok());
  CHECK(streamed->raw_path != shaped->raw_path);
  std::string summary = streamed->summary;
  summary.resize(summary.rfind("full output: "));
  CHECK(absl::StartsWith(shaped->summary, summary));
  CHECK(streamed->tokens_raw == shaped->tokens_raw);
  CHECK(ReadFileOrEmpty(streamed->raw_path) == output);
}

TEST_CASE("one byte over the window: shaped from the window, the result describes it all") {
  TempDir home;
  auto host = OpenHost(home);
  std::string output = Lines(1, kWindow / 64);
  output += "!";
  auto shaped = host->Shape(ShapeRequest{"./run.sh", output, 0, ""});
  REQUIRE(shaped.ok());
  CHECK(shaped->raw_bytes == kWindow + 1);
  CHECK(shaped->raw_lines == kWindow / 64 + 1);
  CHECK(shaped->raw_stored_bytes == kWindow + 1);
  CHECK(shaped->shaped_bytes < shaped->raw_bytes);
  CHECK(shaped->render_mode == RenderMode::kSummary);
  CHECK(ReadFileOrEmpty(shaped->raw_path) == output);
  auto lines = core::SplitLines(shaped->summary);
  REQUIRE(lines.size() > 3);
  CHECK(lines[0] == "run.sh: exit 0, 131,073 lines");
  CHECK(lines[lines.size() - 2] ==
        "… the output (8.0 MiB, 131,073 lines) was larger than the 8.0 MiB shaping window: "
        "shaped from its first 2.0 MiB, its last 2.0 MiB and 0 lines of errors and their "
        "context from the middle");
  CHECK(lines.back() == StrCat("full output: ", shaped->raw_path));
  CHECK(Contains(shaped->summary, "MiB) omitted from the shaping window"));
  auto json = core::ParseJson(shaped->ToJson(), "result");
  REQUIRE(json.ok());
  CHECK(json->Find("shaped_bytes")->as_integer() == static_cast<int64_t>(shaped->shaped_bytes));
  CHECK(json->Find("raw_stored_bytes")->as_integer() == static_cast<int64_t>(kWindow + 1));
}

TEST_CASE("a failure block in the middle of a huge output reaches the summary") {
  TempDir home;
  auto host = OpenHost(home);
  auto capture = host->StartCapture();
  const std::string passing = Lines(1, 200000);  // 12.8 MB before and after
  capture->Append(
      "============================= test session starts ==============================\n"
      "collected 400001 items\n\n");
  capture->Append(passing);
  capture->Append(
      "=================================== FAILURES ===================================\n"
      "_________________________________ test_refund _________________________________\n"
      "\n"
      "    def test_refund():\n"
      ">       assert refund(10) == 12\n"
      "E       assert 10 == 12\n"
      "E        +  where 10 = refund(10)\n"
      "\n"
      "tests/test_refund.py:7: AssertionError\n");
  capture->Append(passing);
  capture->Append(
      "=========================== short test summary info ============================\n"
      "FAILED tests/test_refund.py::test_refund - assert 10 == 12\n"
      "================== 1 failed, 400000 passed in 61.20s (0:01:01) ==================\n");
  auto shaped = capture->Finish("python3 -m pytest -q", 1);
  REQUIRE(shaped.ok());
  CHECK(shaped->shaper == "builtin-test");
  CHECK(Contains(shaped->summary, "test_refund"));
  CHECK(Contains(shaped->summary, "E       assert 10 == 12"));
  CHECK(Contains(shaped->summary, "tests/test_refund.py:7"));
  CHECK(Contains(shaped->summary, "1 failed, 400000 passed"));
  CHECK(Contains(shaped->summary, "was larger than the 8.0 MiB shaping window"));
  CHECK(shaped->raw_bytes == ReadFileOrEmpty(shaped->raw_path).size());
}

TEST_CASE("the per-output disk cap: the file keeps the first bytes, the summary says so") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "outputs:\n  max_file_mb: 1\n");
  auto host = OpenHost(home);
  const std::string output = Lines(1, 60000);  // 3.84 MB: shaped whole, stored capped
  auto shaped = host->Shape(ShapeRequest{"./run.sh", output, 0, ""});
  REQUIRE(shaped.ok());
  CHECK(shaped->raw_bytes == output.size());
  CHECK(shaped->raw_stored_bytes == 1u << 20);
  CHECK(ReadFileOrEmpty(shaped->raw_path) == output.substr(0, 1u << 20));
  CHECK(core::SplitLines(shaped->summary).back() ==
        StrCat("full output (the file holds only its first 1.0 MiB: outputs.max_file_mb caps "
               "it at 1.0 MiB): ",
               shaped->raw_path));
}

TEST_CASE("outputs.window_mb sets the window, out-of-range values are diagnosed") {
  TempDir home;
  WriteFile(home.Sub("config.yaml"), "outputs:\n  window_mb: 1\n");
  auto host = OpenHost(home);
  CHECK(host->diagnostics().empty());
  auto shaped = host->Shape(ShapeRequest{"./run.sh", Lines(1, 20000), 0, ""});
  REQUIRE(shaped.ok());
  CHECK(Contains(shaped->summary, "larger than the 1.0 MiB shaping window"));

  TempDir bad;
  WriteFile(bad.Sub("config.yaml"), "outputs:\n  window_mb: 100000\n");
  auto defaulted = OpenHost(bad);
  REQUIRE(defaulted->diagnostics().size() == 1);
  CHECK(Contains(defaulted->diagnostics()[0], "outputs.window_mb: expected 1 to 256 (MiB)"));
}

TEST_CASE("when the raw output cannot be stored, what the window kept is shown and why") {
  TempDir home;
  WriteFile(home.Sub("outputs"), "a file where the directory should be");
  auto host = OpenHost(home);
  auto shaped = host->Shape(ShapeRequest{"./run.sh", Lines(1, 200000), 0, ""});
  REQUIRE(shaped.ok());
  CHECK(shaped->raw_path.empty());
  CHECK(shaped->raw_stored_bytes == 0);
  REQUIRE(shaped->fallback.has_value());
  CHECK(Contains(*shaped->fallback, "raw output could not be stored"));
  CHECK(Contains(*shaped->fallback, "larger than the shaping window"));
  CHECK(Contains(shaped->summary, "line b ..."));       // 1
  CHECK(Contains(shaped->summary, "line caaaaa ..."));  // 200000
  CHECK(core::SplitLines(shaped->summary).back() ==
        "… the rest of the output is lost: it could not be stored");
}

TEST_CASE(
    "a capture: unknown shaper, bad command and tiny budget leave it usable, a second Finish "
    "fails") {
  TempDir home;
  auto host = OpenHost(home);
  auto capture = host->StartCapture();
  capture->Append(Lines(1, 500));
  auto unknown = capture->Finish("./run.sh", 0, "no-such-shaper");
  REQUIRE_FALSE(unknown.ok());
  CHECK(absl::IsInvalidArgument(unknown.status()));
  CHECK(Contains(ToStd(unknown.status().message()), "unknown shaper 'no-such-shaper'; known: "));
  auto not_utf8 = capture->Finish("\xff", 0);
  CHECK(absl::IsInvalidArgument(not_utf8.status()));
  auto tiny = capture->Finish("./run.sh", 0, "", 199);
  CHECK(absl::IsInvalidArgument(tiny.status()));
  CHECK(ToStd(tiny.status().message()) == "max_tokens 199: expected 0 (no budget) or at least 200");
  auto shaped = capture->Finish("./run.sh", 0, "builtin-generic");
  REQUIRE(shaped.ok());
  CHECK(shaped->shaper == "builtin-generic");
  CHECK(ReadFileOrEmpty(shaped->raw_path) == Lines(1, 500));
  CHECK(absl::IsFailedPrecondition(capture->Finish("./run.sh", 0).status()));
}

TEST_CASE("a capture that is never finished leaves no file") {
  TempDir home;
  auto host = OpenHost(home);
  {
    auto capture = host->StartCapture();
    capture->Append(Lines(1, 1000));
  }
  auto names = core::ListDir(home.Sub("outputs"));
  CHECK((!names.ok() || names->empty()));
}

TEST_CASE("store_outputs=false: a huge output is still shaped from its window, naming no file") {
  TempDir home;
  auto host = OpenHost(home, false);
  auto capture = host->StartCapture();
  for (int i = 0; i < 40; ++i) capture->Append(Lines(static_cast<uint64_t>(i) * 10000 + 1, 10000));
  auto shaped = capture->Finish("./run.sh", 0);
  REQUIRE(shaped.ok());
  CHECK(shaped->raw_path.empty());
  CHECK(shaped->raw_bytes == 40u * 10000 * 64);
  CHECK(Contains(shaped->summary, "was larger than the 8.0 MiB shaping window"));
  CHECK_FALSE(Contains(shaped->summary, "full output"));
  CHECK_FALSE(core::PathExists(home.Sub("outputs")));
}

TEST_CASE("a capture survives a Reload() of its host while the output streams in") {
  TempDir home;
  auto host = OpenHost(home);
  auto capture = host->StartCapture();
  capture->Append(Lines(1, 1000));
  WriteFile(home.Sub("config.yaml"), "outputs:\n  keep_files: 3\n");
  host->Reload();  // replaces the host's output store
  capture->Append(Lines(1001, 1000));
  auto shaped = capture->Finish("./run.sh", 0);
  REQUIRE(shaped.ok());
  CHECK(ReadFileOrEmpty(shaped->raw_path) == Lines(1, 2000));
}

}  // namespace
}  // namespace plugline

#include "core/shaping_pipeline.h"

#include <doctest/doctest.h>

#include "absl/strings/str_cat.h"
#include "builtin/builtin_shapers.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {
namespace {

// A shaper whose answers a test sets directly.
class FakeShaper : public Shaper {
 public:
  FakeShaper(std::string id, double confidence, int priority = 100) {
    meta_.id = std::move(id);
    meta_.name = meta_.id;
    meta_.priority = priority;
    confidence_ = confidence;
  }
  const ShaperMeta& meta() const override { return meta_; }
  absl::StatusOr<MatchResult> Match(std::string_view, std::string_view snippet,
                                    std::optional<int>) override {
    last_snippet = std::string(snippet);
    if (match_error) return absl::UnknownError("match threw");
    return MatchResult{confidence_ > 0, confidence_, {}};
  }
  absl::StatusOr<ShapeOutput> Shape(std::string_view output, const ShapeContext& ctx) override {
    ++shape_calls;
    last_context_lines = ctx.output_lines;
    last_output = std::string(output);
    if (!shape_error.ok()) return shape_error;
    return ShapeOutput{summary, mode, failed};
  }

  ShaperMeta meta_;
  double confidence_;
  bool match_error = false;
  absl::Status shape_error;
  std::string summary = "short summary";
  RenderMode mode = RenderMode::kSummary;
  bool failed = false;
  int shape_calls = 0;
  uint64_t last_context_lines = 0;
  std::string last_snippet;
  std::string last_output;
};

std::string Lines(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) StrAppend(&out, "line ", i, " of the output\n");
  return out;
}

struct Fixture {
  std::unique_ptr<TokenCounter> counter = MakeEstimateTokenCounter();
  ShaperPipeline pipeline{counter.get()};
  RawOutputLocation raw{"/state/outputs/x.log", ""};
};

TEST_CASE("the match snippet's tail starts at a character, and is never longer than its cap") {
  // The byte kSnippetTailBytes from the end falls inside "é" (2 bytes): the tail starts after it.
  std::string text(kSnippetHeadBytes + 100, 'a');
  text += "\xC3\xA9";
  text += std::string(kSnippetTailBytes - 1, 'b');
  const std::string snippet = MakeSnippet(text);
  CHECK(snippet.size() <= kSnippetHeadBytes + kSnippetTailBytes + 1);
  CHECK(snippet.ends_with(std::string(kSnippetTailBytes - 1, 'b')));
  CHECK(IsValidUtf8(snippet));
}

TEST_CASE("highest confidence wins, ties go to priority, then id") {
  Fixture f;
  auto low = std::make_shared<FakeShaper>("low", 0.5);
  auto high = std::make_shared<FakeShaper>("high", 0.9);
  auto tie_a = std::make_shared<FakeShaper>("tie-a", 0.9);
  f.pipeline.Add(low);
  f.pipeline.Add(tie_a);
  f.pipeline.Add(high);
  std::string output = Lines(200);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->shaper == "high");  // same confidence and priority: "high" < "tie-a"
  CHECK(result->confidence == 0.9);
  CHECK(high->shape_calls == 1);
  CHECK(high->last_context_lines == 200);

  auto favoured = std::make_shared<FakeShaper>("zz-favoured", 0.9, 150);
  f.pipeline.Add(favoured);
  result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw);
  CHECK(result->shaper == "zz-favoured");
}

TEST_CASE("the summary's last line names the raw output, counts are filled in") {
  Fixture f;
  f.pipeline.Add(std::make_shared<FakeShaper>("s", 0.9));
  std::string output = Lines(300);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 1, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->render_mode == RenderMode::kSummary);
  CHECK(result->summary == "short summary\nfull output: /state/outputs/x.log");
  CHECK(result->raw_bytes == output.size());
  CHECK(result->raw_lines == 300);
  CHECK(result->tokens_raw > 10 * result->tokens_summary);
  CHECK_FALSE(result->fallback.has_value());
}

TEST_CASE("binary data is said with its size and first bytes, not shown or shaped") {
  Fixture f;
  auto shaper = std::make_shared<FakeShaper>("s", 0.9);
  f.pipeline.Add(shaper);
  // An ELF header and what follows it: NULs, control bytes, bytes no UTF-8 sequence has.
  std::string binary(
      "\x7f"
      "ELF\x02\x01\x01\x00",
      8);
  for (int i = 0; i < 3000; ++i) binary += static_cast<char>((i * 37 + 11) % 256);
  auto result = f.pipeline.Run(ShapeRequest{"cat ./build/app", binary, 0, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->summary ==
        "cat: binary output, 3,008 bytes, not shown (it starts 7f 45 4c 46 02 01 01 00 0b 30 55 "
        "7a 9f c4 e9 0e)\nfull output: /state/outputs/x.log");
  CHECK(shaper->last_output.empty());  // no shaper saw it
  CHECK(result->fallback == "binary output: not shown");
  // Failing: the status said first.
  result = f.pipeline.Run(ShapeRequest{"./dump", binary, 2, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->summary.starts_with("dump: FAILED (exit 2), binary output, 3,008 bytes"));
  // Names separated by NULs (`find -print0`), and text in another script, are text.
  std::string names;
  for (int i = 0; i < 200; ++i)
    absl::StrAppend(&names, "./src/module_", i, ".py", std::string(1, '\0'));
  CHECK_FALSE(LooksBinary(names));
  CHECK_FALSE(LooksBinary("Прывітанне, свет — 你好，世界 — مرحبا بالعالم\n"));
  CHECK(LooksBinary(binary));
}

TEST_CASE("no shaper sees a secret the command printed, and the result says one was masked") {
  Fixture f;
  auto shaper = std::make_shared<FakeShaper>("s", 0.9);
  shaper->mode = RenderMode::kRaw;
  f.pipeline.Add(shaper);
  const std::string output = "deploying\nexport API_TOKEN=tok_8f3a9c2e71\nError: 403\n";
  auto result = f.pipeline.Run(ShapeRequest{"./deploy.sh", output, 1, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(shaper->last_output == "deploying\nexport API_TOKEN=[redacted]\nError: 403\n");
  CHECK(shaper->last_snippet.find("8f3a9c2e71") == std::string::npos);
  CHECK(result->render_mode == RenderMode::kRaw);
  CHECK(result->summary ==
        "deploy.sh: FAILED (exit 1)\ndeploying\nexport API_TOKEN=[redacted]\nError: 403\n");
  CHECK(result->secrets_masked);
  CHECK(result->ToJson().find(R"("secrets_masked":true)") != std::string::npos);
  // Counted as the command printed it.
  CHECK(result->raw_bytes == output.size());
  result = f.pipeline.Run(ShapeRequest{"./deploy.sh", "deploying\nError: 403\n", 1, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK_FALSE(result->secrets_masked);
  CHECK(result->ToJson().find(R"("secrets_masked":false)") != std::string::npos);
}

TEST_CASE("a tally of problems by code is kept only when the budget cuts the summary") {
  Fixture f;
  auto shaper = std::make_shared<FakeShaper>("s", 0.9);
  std::string summary =
      "lint: FAILED — 40 problems\n… 40 problems by code: E501 20, W291 10, E302 6, F401 4\n";
  for (int i = 1; i <= 40; ++i) {
    StrAppend(&summary, "src/m", i, ".py:", i, ":1: E501 line too long (", 80 + i, " > 79 characters)\n");
  }
  shaper->summary = summary;
  f.pipeline.Add(shaper);
  const std::string output = Lines(2000);
  // It fits (or there is no budget): every problem is there, the tally is not needed.
  for (uint64_t budget : {uint64_t{8000}, uint64_t{0}}) {
    auto fits = f.pipeline.Run(ShapeRequest{"lint", output, 1, "", budget}, f.raw);
    REQUIRE(fits.ok());
    CHECK(fits->summary.starts_with("lint: FAILED — 40 problems\nsrc/m1.py:1:1: E501 "));
    CHECK(fits->summary.find(" by code: ") == std::string::npos);
    CHECK(fits->summary.find("src/m40.py:40:1: E501 ") != std::string::npos);
  }
  // Cut: the tally names the codes of the problems left out.
  auto cut = f.pipeline.Run(ShapeRequest{"lint", output, 1, "", 300}, f.raw);
  REQUIRE(cut.ok());
  INFO(cut->summary);
  CHECK(cut->budget_lines_left_out > 0);
  CHECK(cut->summary.find("\n… 40 problems by code: E501 20, W291 10, E302 6, F401 4\n") !=
        std::string::npos);
}

TEST_CASE("a shaper that fails shows the first 500 characters and says why") {
  Fixture f;
  auto broken = std::make_shared<FakeShaper>("broken", 0.9);
  broken->shape_error = absl::UnknownError("plugin.js:3: TypeError: x is undefined");
  f.pipeline.Add(broken);
  std::string output = Lines(300);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 1, ""}, f.raw);
  REQUIRE(result.ok());
  REQUIRE(result->fallback.has_value());
  CHECK(*result->fallback == "shaper threw: plugin.js:3: TypeError: x is undefined");
  CHECK(result->summary.substr(0, 500) == output.substr(0, 500));
  CHECK(result->summary.find(StrCat("… ", FormatCount(output.size() - 500), " more bytes")) !=
        std::string::npos);
  CHECK(result->summary.find("full output: /state/outputs/x.log") != std::string::npos);

  broken->shape_error = absl::DeadlineExceededError("shape() exceeded 1s");
  result = f.pipeline.Run(ShapeRequest{"cmd", output, 1, ""}, f.raw);
  CHECK(*result->fallback == "shaper timed out: shape() exceeded 1s");
}

TEST_CASE("the fallback cuts at a character, never inside a UTF-8 sequence") {
  Fixture f;
  auto broken = std::make_shared<FakeShaper>("broken", 0.9);
  broken->shape_error = absl::UnknownError("boom");
  f.pipeline.Add(broken);
  std::string output;
  for (int i = 0; i < 400; ++i) output += "é✓";  // 2- and 3-byte characters
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(IsValidUtf8(result->summary));
  CHECK(result->summary.rfind("é✓", 0) == 0);
}

TEST_CASE("never worse than raw: a summary that is not smaller shows the raw output") {
  Fixture f;
  auto verbose = std::make_shared<FakeShaper>("verbose", 0.9);
  verbose->summary = std::string(5000, 'x');
  f.pipeline.Add(verbose);
  std::string output = Lines(20);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->render_mode == RenderMode::kRaw);
  CHECK(result->summary == output);
  CHECK(result->tokens_summary == result->tokens_raw);
}

TEST_CASE("renderMode raw from a shaper shows the raw output") {
  Fixture f;
  auto raw = std::make_shared<FakeShaper>("raw", 0.9);
  raw->mode = RenderMode::kRaw;
  f.pipeline.Add(raw);
  std::string output = Lines(100);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw);
  CHECK(result->render_mode == RenderMode::kRaw);
  CHECK(result->summary == output);
  CHECK(result->shaper == "raw");
}

TEST_CASE("a failing run shown raw is preceded by its outcome, named by the tool and its subcommand") {
  Fixture f;
  auto raw = std::make_shared<FakeShaper>("raw", 0.9);
  raw->mode = RenderMode::kRaw;
  f.pipeline.Add(raw);
  const std::string output = "short\n";
  const std::pair<std::string, std::string> cases[] = {
      {"go vet ./...", "go vet: FAILED (exit 2)"},
      {"sudo cargo build --release", "cargo build: FAILED (exit 2)"},
      {"npm run build -- --watch", "npm run build: FAILED (exit 2)"},
      {"python3 -m pytest -q", "pytest: FAILED (exit 2)"},
      {"./run.sh", "run.sh: FAILED (exit 2)"},
  };
  for (const auto& [command, outcome] : cases) {
    auto result = f.pipeline.Run(ShapeRequest{command, output, 2, ""}, f.raw);
    REQUIRE(result.ok());
    CHECK(result->summary == outcome + "\n" + output);
  }
  // grep's exit 1 is an answer (nothing matched), not a failure.
  auto grep = f.pipeline.Run(ShapeRequest{"grep -rn needle src", output, 1, ""}, f.raw);
  CHECK(grep->summary == "grep: exit 1\n" + output);
  // A command a signal ended: the signal, by its name.
  auto crash = f.pipeline.Run(ShapeRequest{"./server", output, 139, ""}, f.raw);
  CHECK(crash->summary == "server: FAILED (exit 139: SIGSEGV)\n" + output);
}

TEST_CASE(
    "an output shown raw starts with its shaper's verdict: through a filter, or naming its "
    "status") {
  // `pytest | tail -20`: the status is tail's 0; the shaper read failures in the output.
  Fixture f;
  auto shaper = std::make_shared<FakeShaper>("s", 0.9);
  shaper->summary = "pytest: FAILED — 2 failed\n" + std::string(5000, 'x');  // larger than raw
  shaper->failed = true;
  f.pipeline.Add(shaper);
  const std::string output = Lines(20);
  for (const std::optional<int> status : {std::optional<int>(0), std::optional<int>()}) {
    auto result = f.pipeline.Run(ShapeRequest{"pytest | tail -20", output, status, ""}, f.raw);
    REQUIRE(result.ok());
    CHECK(result->render_mode == RenderMode::kRaw);
    CHECK(result->summary == "pytest: FAILED — 2 failed\n" + output);
  }
  // A shaper returning raw may give that line alone.
  shaper->mode = RenderMode::kRaw;
  shaper->summary = "ruff: 3 problems in 1 file";
  auto raw = f.pipeline.Run(ShapeRequest{"ruff check . | tail", output, 0, ""}, f.raw);
  CHECK(raw->summary == "ruff: 3 problems in 1 file\n" + output);
  // The command's own failing status is stated as before, not the shaper's line.
  auto failing = f.pipeline.Run(ShapeRequest{"ruff check .", output, 1, ""}, f.raw);
  CHECK(failing->summary == "ruff: FAILED (exit 1)\n" + output);
  // A shaper's line that says FAILED and names that status says more: it stands first.
  shaper->summary = "ruff: FAILED — 3 errors in 1 file (exit 1)";
  failing = f.pipeline.Run(ShapeRequest{"ruff check .", output, 1, ""}, f.raw);
  CHECK(failing->summary == "ruff: FAILED — 3 errors in 1 file (exit 1)\n" + output);
  failing = f.pipeline.Run(ShapeRequest{"ruff check .", output, 2, ""}, f.raw);
  CHECK(failing->summary == "ruff: FAILED (exit 2)\n" + output);
  // Nothing read as failed: the output as it is.
  shaper->failed = false;
  auto passed = f.pipeline.Run(ShapeRequest{"ruff check . | tail", output, 0, ""}, f.raw);
  CHECK(passed->summary == output);
}

TEST_CASE("shapers see an output without a CI log's prefixes, and the summary says so") {
  Fixture f;
  auto shaper = std::make_shared<FakeShaper>("s", 0.9);
  f.pipeline.Add(shaper);
  std::string output, lines;
  for (int i = 1; i <= 40; ++i) {
    StrAppend(&output, "build\tRun tests\t2026-12-06T01:18:", 10 + i, ".1234567Z line ", i, "\n");
    StrAppend(&lines, "line ", i, "\n");
  }
  auto result = f.pipeline.Run(ShapeRequest{"gh run view 42 --log", output, 1, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(shaper->last_output == lines);
  CHECK(shaper->last_context_lines == 40);
  CHECK(result->summary ==
        "short summary\n(each line's prefix, a CI log's job, step and timestamp, is left out "
        "above)\nfull output: /state/outputs/x.log");
  // A shaper that shows the output as it is gets the lines without their prefixes, the outcome
  // first; so does one whose summary is not smaller than they are.
  shaper->mode = RenderMode::kRaw;
  result = f.pipeline.Run(ShapeRequest{"gh run view 42 --log", output, 1, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->render_mode == RenderMode::kSummary);
  CHECK(result->summary == "gh run view: FAILED (exit 1)\n" + lines +
                               "(each line's prefix, a CI log's job, step and timestamp, is left "
                               "out above)\nfull output: /state/outputs/x.log");
  shaper->mode = RenderMode::kSummary;
  shaper->summary = lines + lines;
  result = f.pipeline.Run(ShapeRequest{"gh run view 42 --log", output, 0, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->summary.starts_with(lines + "(each line's prefix"));
  // Never worse than raw, prefixes and all: a line or two is shown as it is.
  const std::string one = "app-1  | ok\napp-1  | done\n";
  result = f.pipeline.Run(ShapeRequest{"docker compose logs app", one, 0, ""}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->render_mode == RenderMode::kRaw);
  CHECK(result->summary == one);
}

TEST_CASE("when the raw output could not be stored nothing is elided") {
  Fixture f;
  f.pipeline.Add(std::make_shared<FakeShaper>("s", 0.9));
  std::string output = Lines(300);
  auto result =
      f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, RawOutputLocation{"", "disk full"});
  REQUIRE(result.ok());
  CHECK(result->render_mode == RenderMode::kRaw);
  CHECK(result->summary == output);
  REQUIRE(result->fallback.has_value());
  CHECK(result->fallback->find("disk full") != std::string::npos);
}

TEST_CASE("a forced shaper skips match, an unknown one is an error that lists the known") {
  Fixture f;
  auto a = std::make_shared<FakeShaper>("a", 0.9);
  auto b = std::make_shared<FakeShaper>("b", 0.0);  // would never match
  f.pipeline.Add(a);
  f.pipeline.Add(b);
  std::string output = Lines(100);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, "b"}, f.raw);
  REQUIRE(result.ok());
  CHECK(result->shaper == "b");
  CHECK(b->shape_calls == 1);
  auto unknown = f.pipeline.Run(ShapeRequest{"cmd", output, 0, "nope"}, f.raw);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(unknown.status().message()) == "unknown shaper 'nope'; known: a, b");
}

TEST_CASE("a shaper whose match fails is passed over") {
  Fixture f;
  auto failing = std::make_shared<FakeShaper>("failing", 0.99);
  failing->match_error = true;
  f.pipeline.Add(failing);
  f.pipeline.Add(builtin::MakeGenericShaper());
  std::string output = Lines(500);
  auto result = f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw);
  CHECK(result->shaper == "builtin-generic");
}

TEST_CASE("the snippet is bounded: head and tail of a large output") {
  Fixture f;
  auto spy = std::make_shared<FakeShaper>("spy", 0.9);
  f.pipeline.Add(spy);
  std::string output = Lines(5000);
  REQUIRE(f.pipeline.Run(ShapeRequest{"cmd", output, 0, ""}, f.raw).ok());
  CHECK(spy->last_snippet.size() <= kSnippetHeadBytes + kSnippetTailBytes + 1);
  CHECK(spy->last_snippet.rfind("line 1 of the output\n", 0) == 0);
  CHECK(spy->last_snippet.find("line 5000 of the output\n") != std::string::npos);
  CHECK(spy->last_snippet.find("line 2500 of") == std::string::npos);
  std::string small = Lines(10);
  REQUIRE(f.pipeline.Run(ShapeRequest{"cmd", small, 0, ""}, f.raw).ok());
  CHECK(spy->last_snippet == small);
}

TEST_CASE("no summary leaves the pipeline with terminal control sequences") {
  const std::string hostile =
      "\x1b]52;c;cm0gLXJmIH4vKg==\x07\x1b[31mred\x1b[0m done\a\r\n\x1b]8;;https://x.example\x1b\\"
      "link\x1b]8;;\x1b\\ \xC2\x9B"
      "2J\n";
  SUBCASE("a shaper's summary") {
    Fixture f;
    auto shaper = std::make_shared<FakeShaper>("s", 0.9);
    shaper->summary = hostile;
    f.pipeline.Add(shaper);
    auto result = f.pipeline.Run(ShapeRequest{"cmd", Lines(300), 0, ""}, f.raw);
    REQUIRE(result.ok());
    CHECK(result->summary == "red done\nlink \nfull output: /state/outputs/x.log");
  }
  SUBCASE("the raw output, when it is shown (renderMode raw, no shaper, no store)") {
    Fixture f;
    auto raw = std::make_shared<FakeShaper>("raw", 0.9);
    raw->mode = RenderMode::kRaw;
    f.pipeline.Add(raw);
    auto result = f.pipeline.Run(ShapeRequest{"cmd", hostile, 0, ""}, f.raw);
    REQUIRE(result.ok());
    CHECK(result->render_mode == RenderMode::kRaw);
    CHECK(result->summary == "red done\nlink \n");
    Fixture none;
    auto unmatched = none.pipeline.Run(ShapeRequest{"cmd", hostile, 0, ""}, none.raw);
    REQUIRE(unmatched.ok());
    CHECK(unmatched->summary == "red done\nlink \n");
  }
  SUBCASE("a failed shaper's fallback text and its error message") {
    Fixture f;
    auto broken = std::make_shared<FakeShaper>("broken", 0.9);
    broken->shape_error = absl::UnknownError("boom \x1b]52;c;eA==\x07\x1b[2J");
    f.pipeline.Add(broken);
    auto result = f.pipeline.Run(ShapeRequest{"cmd", hostile + Lines(300), 0, ""}, f.raw);
    REQUIRE(result.ok());
    CHECK(result->summary.find('\x1b') == std::string::npos);
    CHECK(result->summary.find('\a') == std::string::npos);
    CHECK(result->summary.starts_with("red done\nlink \nline 1 of the output\n"));
    REQUIRE(result->fallback.has_value());
    CHECK(*result->fallback == "shaper threw: boom ");
  }
}

}  // namespace
}  // namespace plugline::core

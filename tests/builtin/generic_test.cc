#include <doctest/doctest.h>

#include "builtin/builtin_shapers.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::builtin {
namespace {

TEST_CASE("generic keeps 30 head and 30 tail lines and counts the rest") {
  auto generic = MakeGenericShaper();
  CHECK(generic->meta().id == "builtin-generic");
  CHECK(generic->meta().tier == "built-in");
  auto match = generic->Match("anything", "whatever", 0);
  REQUIRE(match.ok());
  CHECK(match->matched);
  CHECK(match->confidence < 0.2);

  std::string output;
  for (int i = 1; i <= 3962; ++i) StrAppend(&output, "entry ", i, "\n");
  core::ShapeContext ctx{"cmd", 0, output.size(), 3962, "/s/outputs/a.log"};
  auto shaped = generic->Shape(output, ctx);
  REQUIRE(shaped.ok());
  auto lines = core::SplitLines(shaped->summary);
  REQUIRE(lines.size() == 61);
  CHECK(lines[0] == "entry 1");
  CHECK(lines[29] == "entry 30");
  CHECK(lines[30] == "… 3,902 lines hidden (lines 31–3,932 of 3,962)");
  CHECK(lines[31] == "entry 3933");
  CHECK(lines[60] == "entry 3962");
}

TEST_CASE("generic shows short outputs and unstored outputs raw") {
  auto generic = MakeGenericShaper();
  std::string output;
  for (int i = 1; i <= 69; ++i) StrAppend(&output, "entry ", i, "\n");
  core::ShapeContext ctx{"cmd", 0, output.size(), 69, "/s/a.log"};
  CHECK(generic->Shape(output, ctx)->render_mode == RenderMode::kRaw);
  for (int i = 70; i <= 500; ++i) StrAppend(&output, "entry ", i, "\n");
  core::ShapeContext unstored{"cmd", 0, output.size(), 500, ""};
  CHECK(generic->Shape(output, unstored)->render_mode == RenderMode::kRaw);
}

}  // namespace
}  // namespace plugline::builtin

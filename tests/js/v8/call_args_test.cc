// Module::CallArgs (typed arguments, no JSON on the way in) and Module::files() of the V8
// backend, on the modules in tests/js/modules/.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "js/js_test_util.h"

namespace plugline::js {
namespace {

#if PLUGLINE_TEST_WITH_V8

using testing::Json;
using testing::LoadModule;
using testing::Message;
using testing::ModulePath;

TEST_CASE("CallArgs passes each kind of argument as the JS value it names") {
  auto module = LoadModule("shaper/index.js");
  const Arg args[] = {Arg{},
                      Arg::Null(),
                      Arg::Bool(true),
                      Arg::Number(2.5),
                      Arg::String("text"),
                      Arg::Json(R"({"a":[1,2]})")};
  CHECK(*module->CallArgs("types", args, CallLimits{}) ==
        R"(["undefined","null","boolean","number","string","object"])");
  CHECK(*module->CallArgs("echo", args, CallLimits{}) ==
        R"([null,null,true,2.5,"text",{"a":[1,2]}])");
  // Strings arrive as they are: quotes, backslashes, control characters, NUL, non-ASCII.
  std::string tricky = std::string("a\"b\\c\n\td\x01 é 😀 ") + std::string(1, '\0') + "end";
  const Arg one[] = {Arg::String(tricky)};
  auto echoed = Json(module->CallArgs("echo", one, CallLimits{}));
  REQUIRE(echoed.as_array().size() == 1);
  CHECK(echoed.as_array()[0].as_string() == tricky);
  // No arguments at all.
  CHECK(*module->CallArgs("echo", {}, CallLimits{}) == "[]");
}

TEST_CASE("CallArgs and Call share one path: same results, state and errors") {
  auto module = LoadModule("shaper/index.js");
  const Arg args[] = {Arg::String("terraform plan"), Arg::String("Plan: 1 to add"), Arg::Number(0)};
  auto typed = module->CallArgs("match", args, CallLimits{});
  auto json = module->Call("match", R"(["terraform plan","Plan: 1 to add",0])", CallLimits{});
  REQUIRE(typed.ok());
  CHECK(*typed == *json);
  CHECK(Json(typed).Find("confidence")->as_number() == 0.9);
  CHECK(*module->CallArgs("matches", {}, CallLimits{}) == "2");
  // A promise is awaited.
  const Arg seven[] = {Arg::Number(7)};
  CHECK(*module->CallArgs("later", seven, CallLimits{}) == R"({"value":7})");
  // Errors: no such function, bad JSON argument, unserializable result.
  CHECK(module->CallArgs("nope", {}, CallLimits{}).status().code() == absl::StatusCode::kNotFound);
  const Arg bad_json[] = {Arg::String("ok"), Arg::Json("{not json")};
  auto bad = module->CallArgs("echo", bad_json, CallLimits{});
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(Message(bad).find("argument 2 of echo() is not valid JSON") != std::string::npos);
  CHECK(Message(module->CallArgs("cyclic", {}, CallLimits{})).find("not JSON-serializable") !=
        std::string::npos);
}

TEST_CASE("methods are looked up on every call, so a plugin may replace its own") {
  auto module = LoadModule("shaper/index.js");
  const Arg args[] = {Arg::String("ls"), Arg::String(""), Arg::Number(0)};
  CHECK(Json(module->CallArgs("match", args, CallLimits{})).Find("matched")->as_bool() == false);
  REQUIRE(*module->CallArgs("replaceMatch", {}, CallLimits{}) == "true");
  CHECK(Json(module->CallArgs("match", args, CallLimits{})).Find("replaced")->as_bool());
}

TEST_CASE("CallArgs passes a 1 MB output, ASCII or not, and a JSON context") {
  auto module = LoadModule("shaper/index.js");
  std::string output;
  while (output.size() < (1u << 20)) output += "module.tf line 12: Error: missing provider\n";
  const Arg args[] = {Arg::String(output), Arg::Json(R"({"outputLines":24000,"exitCode":1})")};
  auto shaped = Json(module->CallArgs("shape", args, CallLimits{}));
  CHECK(shaped.Find("length")->as_integer() == static_cast<int64_t>(output.size()));
  CHECK(shaped.Find("ctx")->Find("exitCode")->as_integer() == 1);
  CHECK(shaped.Find("summary")->as_string().find(" errors") != std::string::npos);

  std::string wide;
  while (wide.size() < (1u << 20)) wide += "état: échec ✗ 😀\n";
  wide = "é" + wide + "😀";
  const Arg wide_args[] = {Arg::String(wide), Arg::Null()};
  auto wide_shaped = Json(module->CallArgs("shape", wide_args, CallLimits{}));
  CHECK(wide_shaped.Find("first")->as_integer() == 0xE9);
  CHECK(wide_shaped.Find("last")->as_integer() == 0x1F600);
}

TEST_CASE("CallArgs is stopped at its deadline, toJSON included, and the module recovers") {
  auto module = LoadModule("shaper/index.js");
  const Arg args[] = {Arg::String("terraform"), Arg::String(""), Arg::Number(0)};
  REQUIRE(module->CallArgs("match", args, CallLimits{}).ok());
  auto looped = module->CallArgs("loops", {}, CallLimits{absl::Milliseconds(50)});
  CHECK(looped.status().code() == absl::StatusCode::kDeadlineExceeded);
  // Serializing the result runs JS too (toJSON) and is under the same deadline.
  auto serialized = module->CallArgs("badToJson", {}, CallLimits{absl::Milliseconds(50)});
  CHECK(serialized.status().code() == absl::StatusCode::kDeadlineExceeded);
  // A fresh isolate: state reset, and a long stream of calls after a termination all succeed.
  CHECK(*module->CallArgs("matches", {}, CallLimits{}) == "0");
  for (int i = 0; i < 1000; ++i) REQUIRE(module->CallArgs("match", args, CallLimits{}).ok());
  CHECK(*module->CallArgs("matches", {}, CallLimits{}) == "1000");
}

TEST_CASE("files() lists the entry first, then every imported file once") {
  auto module = LoadModule("graph/index.js");
  std::vector<std::string> files = module->files();
  REQUIRE(files.size() == 4);
  CHECK(files[0] == ModulePath("graph/index.js"));
  std::vector<std::string> rest(files.begin() + 1, files.end());
  std::sort(rest.begin(), rest.end());
  CHECK(rest == std::vector<std::string>{ModulePath("graph/a.js"), ModulePath("graph/lib/b.js"),
                                         ModulePath("graph/lib/shared.js")});
  CHECK(*module->Call("value", "[]", CallLimits{}) == "23");
  // After the isolate is replaced (a deadline), the list is the same.
  auto single = LoadModule("shaper/index.js");
  CHECK(single->files() == std::vector<std::string>{ModulePath("shaper/index.js")});
  CHECK_FALSE(single->CallArgs("loops", {}, CallLimits{absl::Milliseconds(20)}).ok());
  CHECK(single->files() == std::vector<std::string>{ModulePath("shaper/index.js")});
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline::js

// TextEncoder and TextDecoder of the V8 backend (src/js/v8/text_coding.h), and what else the
// JS environment offers (and does not).
#include <doctest/doctest.h>

#include <string>

#include "js/js_test_util.h"

namespace plugline::js {
namespace {

#if PLUGLINE_TEST_WITH_V8

using testing::Json;
using testing::LoadModule;

constexpr char kFffd[] = "65533";

std::string Call(Module& module, std::string_view function, std::string_view args_json) {
  auto result = module.Call(function, args_json, CallLimits{});
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  return *result;
}

TEST_CASE("TextEncoder encodes UTF-8, lone surrogates as U+FFFD") {
  auto module = LoadModule("text/index.js");
  CHECK(Call(*module, "encode", R"(["aé€😀"])") == "[97,195,169,226,130,172,240,159,152,128]");
  CHECK(Call(*module, "encode", R"(["\ud800x"])") == "[239,191,189,120]");
  CHECK(Call(*module, "encode", R"([""])") == "[]");
  CHECK(Call(*module, "encodeDefaults", "[]") == R"(["utf-8",true,0,"[object TextEncoder]"])");
}

TEST_CASE(
    "TextEncoder.encodeInto reports UTF-16 units read and bytes written, never a partial "
    "character") {
  auto module = LoadModule("text/index.js");
  auto fits = Json(module->Call("encodeInto", R"(["a😀b",5])", CallLimits{}));
  CHECK(fits.Find("read")->as_integer() == 3);
  CHECK(fits.Find("written")->as_integer() == 5);
  auto cut = Json(module->Call("encodeInto", R"(["a😀b",3])", CallLimits{}));
  CHECK(cut.Find("read")->as_integer() == 1);
  CHECK(cut.Find("written")->as_integer() == 1);
  CHECK(core::ToJson(*cut.Find("bytes")) == "[97,170,170]");
  // Into a subarray: bytes before the view are untouched.
  auto offset = Json(module->Call("encodeInto", R"(["é",2,2])", CallLimits{}));
  CHECK(core::ToJson(*offset.Find("bytes")) == "[170,170,195,169]");
  auto surrogate = Json(module->Call("encodeInto", R"(["\ud800x",10])", CallLimits{}));
  CHECK(surrogate.Find("read")->as_integer() == 2);
  CHECK(surrogate.Find("written")->as_integer() == 4);
}

TEST_CASE("TextDecoder replaces invalid UTF-8 as the WHATWG decoder does") {
  auto module = LoadModule("text/index.js");
  CHECK(Call(*module, "decode", "[[104,195,169]]") == "[104,233]");
  std::string three = std::string("[") + kFffd + "," + kFffd + "," + kFffd + "]";
  CHECK(Call(*module, "decode", "[[224,128,128]]") == three);  // overlong
  CHECK(Call(*module, "decode", "[[240,159,152]]") == std::string("[") + kFffd + "]");
  CHECK(Call(*module, "decode", "[[237,160,128,65]]") ==
        three.substr(0, three.size() - 1) + ",65]");
  CHECK(Call(*module, "decode", "[[192,175,65]]") ==
        std::string("[") + kFffd + "," + kFffd + ",65]");
  // A BOM is dropped unless ignoreBOM; only at the start.
  CHECK(Call(*module, "decode", "[[239,187,191,65]]") == "[65]");
  CHECK(Call(*module, "decode", R"([[239,187,191,65],{"ignoreBOM":true}])") == "[65279,65]");
  CHECK(Call(*module, "decode", "[[65,239,187,191]]") == "[65,65279]");
}

TEST_CASE("TextDecoder with fatal throws a TypeError on invalid input") {
  auto module = LoadModule("text/index.js");
  CHECK(Call(*module, "fatal", "[[104,195,169]]") == "[104,233]");
  CHECK(Call(*module, "fatal", "[[104,195]]") ==
        R"("TypeError: TextDecoder.decode: the data is not valid UTF-8")");
  CHECK(Call(*module, "fatal", "[[237,160,128]]").find("TypeError") != std::string::npos);
  CHECK(Call(*module, "fatalStream", "[[[240,159],[152,128]]]") == "[128512]");
  CHECK(Call(*module, "fatalStream", "[[[240,159],[65]]]").find("TypeError") != std::string::npos);
  CHECK(Call(*module, "fatalStream", "[[[240,159]]]").find("TypeError") != std::string::npos);
}

TEST_CASE("TextDecoder streams: a character split across chunks is decoded whole") {
  auto module = LoadModule("text/index.js");
  CHECK(Call(*module, "stream", "[[[240],[159],[152],[128,65]]]") == "[128512,65]");
  CHECK(Call(*module, "stream", "[[[226,130],[172]]]") == "[8364]");
  // A BOM split across chunks is still recognized; an unfinished sequence at the end is U+FFFD.
  CHECK(Call(*module, "stream", "[[[239],[187],[191,65]]]") == "[65]");
  CHECK(Call(*module, "stream", "[[[65,240,159]]]") == std::string("[65,") + kFffd + "]");
  // An invalid prefix is not held back.
  CHECK(Call(*module, "stream", "[[[224,128],[128]]]") ==
        std::string("[") + kFffd + "," + kFffd + "," + kFffd + "]");
}

TEST_CASE("TextDecoder accepts every BufferSource and the UTF-8 labels only") {
  auto module = LoadModule("text/index.js");
  auto views = Json(module->Call("decodeViews", "[]", CallLimits{}));
  REQUIRE(views.as_array().size() == 9);
  std::string text = "héllo wörld, and a longer tail past 64 bytes..........";
  CHECK(views.as_array()[0].as_string() == text);
  CHECK(views.as_array()[1].as_string() == text);
  CHECK(views.as_array()[2].as_string() == "éllo");  // bytes 1-5: C3 A9 6C 6C 6F
  CHECK(views.as_array()[3].as_string() == "hi!?");
  CHECK(views.as_array()[4].as_string() == "llo");
  CHECK(views.as_array()[5].as_string() == text);
  for (size_t i = 6; i < 9; ++i) CHECK(views.as_array()[i].as_string().empty());

  auto errors = Json(module->Call("decodeErrors", "[]", CallLimits{}));
  REQUIRE(errors.as_array().size() == 8);
  INFO(core::ToJson(errors));
  CHECK(errors.as_array()[0].as_string().rfind("TypeError: ", 0) == 0);
  CHECK(errors.as_array()[1].as_string().rfind("TypeError: ", 0) == 0);
  CHECK(errors.as_array()[2].as_string() ==
        R"(RangeError: TextDecoder: the encoding "latin1" is not supported (only UTF-8 is))");
  CHECK(errors.as_array()[3].as_string().rfind("RangeError: ", 0) == 0);
  CHECK(errors.as_array()[4].as_string().rfind("TypeError: ", 0) == 0);
  CHECK(errors.as_array()[5].as_string().rfind("TypeError: Illegal invocation", 0) == 0);
  CHECK(errors.as_array()[6].as_string().rfind("TypeError: ", 0) == 0);
  CHECK(errors.as_array()[7].as_string().rfind("TypeError: ", 0) == 0);

  CHECK(Call(*module, "labels", "[]") == R"(["utf-8","utf-8","utf-8","utf-8"])");
  CHECK(Call(*module, "options", "[]") == R"([false,false,true,true,"[object TextDecoder]"])");
}

TEST_CASE("TextEncoder and TextDecoder round-trip large text") {
  auto module = LoadModule("text/index.js");
  std::string text;
  while (text.size() < (256u << 10)) text += "ligne n° 42: état ✓ 😀\n";
  const Arg args[] = {Arg::String(text)};
  auto result = Json(module->CallArgs("roundTrip", args, CallLimits{}));
  CHECK(result.as_array()[0].as_bool());
}

TEST_CASE("TextEncoder memory counts against the ArrayBuffer limit") {
  ModuleOptions options;
  options.array_buffer_limit_bytes = 4u << 20;
  auto module = LoadModule("text/index.js", options);
  CHECK(Call(*module, "bigEncode", "[2]") == std::to_string(2u << 20));
  auto big = module->Call("bigEncode", "[8]", CallLimits{});
  REQUIRE_FALSE(big.ok());
  CHECK(big.status().code() == absl::StatusCode::kResourceExhausted);
}

TEST_CASE("the JS environment has timers and text coding but nothing that reaches the machine") {
  auto module = LoadModule("text/index.js");
  auto env = Json(module->Call("environment", "[]", CallLimits{}));
  for (const char* absent : {"process", "require", "module", "Buffer", "fetch"}) {
    INFO(absent);
    CHECK(env.Find(absent)->as_string() == "undefined");
  }
  for (const char* present : {"TextEncoder", "TextDecoder", "setTimeout", "queueMicrotask"}) {
    INFO(present);
    CHECK(env.Find(present)->as_string() == "function");
  }
  CHECK(env.Find("console")->as_string() == "object");
  CHECK(env.Find("globals")->as_array().empty());
}

#endif  // PLUGLINE_TEST_WITH_V8

}  // namespace
}  // namespace plugline::js

#include "core/json.h"

#include <doctest/doctest.h>

#include <string>

#include "core/text.h"

namespace plugline::core {
namespace {

TEST_CASE("ParseJson reads every kind of value in source order") {
  auto value = ParseJson(R"({"b":true,"a":[1,2.5,"x",null],"o":{"k":"v"},"n":-3})", "test");
  REQUIRE(value.ok());
  REQUIRE(value->is_object());
  CHECK(value->as_object()[0].first == "b");
  CHECK(value->Find("b")->as_bool());
  const Value* a = value->Find("a");
  REQUIRE(a != nullptr);
  REQUIRE(a->as_array().size() == 4);
  CHECK(a->as_array()[0].as_integer() == 1);
  CHECK(a->as_array()[1].as_number() == doctest::Approx(2.5));
  CHECK_FALSE(a->as_array()[1].as_integer().has_value());
  CHECK(a->as_array()[2].as_string() == "x");
  CHECK(a->as_array()[3].is_null());
  CHECK(value->Find("o")->Find("k")->as_string() == "v");
  CHECK(value->Find("n")->as_integer() == -3);
  CHECK(value->Find("missing") == nullptr);
}

TEST_CASE("ParseJson errors name the source") {
  auto bad = ParseJson("{\"a\": ", "plugin audit stdout");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(bad.status().message()).find("plugin audit stdout: invalid JSON") == 0);
  auto empty = ParseJson("  \n", "x.json");
  REQUIRE_FALSE(empty.ok());
  CHECK(std::string(empty.status().message()) == "x.json: invalid JSON: empty input");
}

TEST_CASE("ToJson round-trips through ParseJson") {
  Value v(ValueObject{});
  v.Set("text", "line1\nline2\t\"quoted\" \\ \x01");
  v.Set("pi", 3.25);
  v.Set("big", int64_t{1} << 40);
  v.Set("list", ValueArray{Value(true), Value(), Value("é")});
  std::string json = ToJson(v);
  CHECK(json.find("\\u0001") != std::string::npos);
  auto back = ParseJson(json, "roundtrip");
  REQUIRE(back.ok());
  CHECK(back->Find("text")->as_string() == v.Find("text")->as_string());
  CHECK(back->Find("pi")->as_number() == 3.25);
  CHECK(back->Find("big")->as_integer() == (int64_t{1} << 40));
  CHECK(back->Find("list")->as_array()[2].as_string() == "é");
  CHECK(ToJson(Value(0.9)) == "0.9");
}

TEST_CASE("JSON strings stay valid when the text is not UTF-8") {
  std::string out;
  static constexpr char kInput[] = "ok\xff\xfe end\0nul";
  static constexpr char kExpected[] = "ok\xEF\xBF\xBD\xEF\xBF\xBD end\0nul";
  AppendJsonString(out, std::string(kInput, sizeof kInput - 1));
  auto parsed = ParseJson(out, "sanitized");
  REQUIRE(parsed.ok());
  CHECK(parsed->as_string() == std::string(kExpected, sizeof kExpected - 1));
}

TEST_CASE("JsonWriter places commas and nests") {
  JsonWriter w;
  w.BeginObject();
  w.Key("a").Int(1);
  w.Key("b").BeginArray().String("x").Null().Bool(false).EndArray();
  w.Key("c").BeginObject().EndObject();
  w.Key("d").Raw("[1,2]");
  w.EndObject();
  CHECK(w.str() == R"({"a":1,"b":["x",null,false],"c":{},"d":[1,2]})");
  CHECK(ParseJson(w.str(), "writer").ok());
}

TEST_CASE("ParseYaml resolves plain scalars with the core schema and keeps quoted strings") {
  auto doc = ParseYaml(
      "name: audit\n"
      "timeout_ms: 5000\n"
      "ratio: 0.5\n"
      "enabled: true\n"
      "version: \"1.0\"\n"
      "nothing: ~\n"
      "hooks: [pre_tool_call, post_tool_call]\n"
      "env:\n  LOG: /tmp/x\n",
      "plugin.yaml");
  REQUIRE(doc.ok());
  CHECK(doc->Find("name")->as_string() == "audit");
  CHECK(doc->Find("timeout_ms")->as_integer() == 5000);
  CHECK(doc->Find("ratio")->as_number() == 0.5);
  CHECK(doc->Find("enabled")->as_bool());
  CHECK(doc->Find("version")->as_string() == "1.0");
  CHECK(doc->Find("nothing")->is_null());
  CHECK(doc->Find("hooks")->as_array()[1].as_string() == "post_tool_call");
  CHECK(doc->Find("env")->Find("LOG")->as_string() == "/tmp/x");
}

TEST_CASE("ParseYaml errors name the file, line and column") {
  auto bad = ParseYaml("plugins:\n  enabled: [true\n", "/home/u/.plugline/config.yaml");
  REQUIRE_FALSE(bad.ok());
  std::string message(bad.status().message());
  CHECK(message.find("/home/u/.plugline/config.yaml:") == 0);
  CHECK(message.find("invalid YAML") != std::string::npos);
}

TEST_CASE("ParseYaml refuses an alias bomb instead of exhausting memory") {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
    bomb += "]\n";
    prev = c;
  }
  auto doc = ParseYaml(bomb, "bomb.yaml");
  REQUIRE_FALSE(doc.ok());
  CHECK(std::string(doc.status().message()).find("too large") != std::string::npos);
}

}  // namespace
}  // namespace plugline::core

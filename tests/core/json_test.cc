#include "core/json.h"

#include "absl/strings/ascii.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/strings.h"
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

TEST_CASE("whole numbers too large for 64 bits are written so that ParseJson reads them back") {
  // ToJson once wrote 4.4444444444444434e19 as the 20 digits 44444444444444434432, which the
  // parser (simdjson) refuses beyond 64 bits: an OpenCode plugin's `options` from config.yaml
  // (`options: {n: 44444444444444434444}`) became JSON that plugline could not read (found by
  // the config fuzz target).
  for (double big : {4.4444444444444434e19, 1e20, -1e25, 1.8446744073709552e19, 1e300, 1e15,
                     9007199254740993.0}) {
    CAPTURE(big);
    std::string json = ToJson(Value(ValueArray{Value(big)}));
    auto back = ParseJson(json, "big numbers");
    REQUIRE_MESSAGE(back.ok(), json, ": ", back.status().ToString());
    CHECK(back->as_array()[0].as_number() == big);
  }
  CHECK(ToJson(Value(123456789012345.0)) == "123456789012345");  // below 1e15: plain digits
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

TEST_CASE("ParseYaml tells core-schema numbers from strings that only look like them") {
  struct Case {
    const char* text;
    enum { kInt, kFloat, kString } kind;
  };
  const Case cases[] = {
      {"1", Case::kInt},        {"-12", Case::kInt},      {"+7", Case::kInt},
      {"1.5", Case::kFloat},    {".5", Case::kFloat},     {"-.5", Case::kFloat},
      {"1.", Case::kFloat},     {"1e5", Case::kFloat},    {"2.5E-3", Case::kFloat},
      {"+1e+2", Case::kFloat},  {"e5", Case::kString},    {".", Case::kString},
      {"+", Case::kString},     {"1e", Case::kString},
      {"1e+", Case::kString},   {"1.5.5", Case::kString}, {"1_000", Case::kString},
      {"12abc", Case::kString}, {"--1", Case::kString},   {".e5", Case::kString},
      {"1.2.", Case::kString},  {"0x1F", Case::kInt},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    CAPTURE(text);
    auto doc = ParseYaml(StrCat("v: '", c.text, "'\nw: ", c.text, "\n"), "t.yaml");
    REQUIRE(doc.ok());
    CHECK(doc->Find("v")->as_string() == c.text);  // quoted: always a string
    const Value* w = doc->Find("w");
    switch (c.kind) {
      case Case::kInt: CHECK(w->as_integer().has_value()); break;
      case Case::kFloat: CHECK(w->is_number()); break;
      case Case::kString: CHECK((w->is_string() && w->as_string() == text)); break;
    }
  }
}

TEST_CASE("ParseYaml errors name the file, line and column") {
  auto bad = ParseYaml("plugins:\n  enabled: [true\n", "/home/u/.plugline/config.yaml");
  REQUIRE_FALSE(bad.ok());
  std::string message(bad.status().message());
  CHECK(message.find("/home/u/.plugline/config.yaml:") == 0);
  CHECK(message.find("invalid YAML") != std::string::npos);
}

TEST_CASE("ParseYaml refuses a document that is not UTF-8, naming the line and column") {
  // Keys that differ only in invalid bytes (found by the config fuzz target) became one key
  // twice once written as JSON (invalid bytes become U+FFFD), so an OpenCode plugin's options
  // were JSON that ParseJson refuses.
  auto keys = ParseYaml("plugins:\n  overrides:\n    p:\n      options: {a\x90: 1, a\x91: 2}\n",
                        "/h/config.yaml");
  REQUIRE_FALSE(keys.ok());
  CHECK(keys.status().message() == "/h/config.yaml:4:18: invalid YAML: not UTF-8 (byte 0x90)");
  // Columns count characters: "é" is one.
  auto value = ParseYaml("name: é\ndescription: caf\xe9\n", "plugin.yaml");
  CHECK(value.status().message() == "plugin.yaml:2:17: invalid YAML: not UTF-8 (byte 0xe9)");
  // Valid UTF-8, a byte order mark included, is read as before.
  auto fine = ParseYaml("\xEF\xBB\xBFname: café ✓\n", "plugin.yaml");
  REQUIRE(fine.ok());
  CHECK(fine->Find("name")->as_string() == "café ✓");
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

// Readers disagree on which copy of a repeated key wins, so plugline reads none: every JSON
// document it is given (answers, payloads, state) is refused when a key repeats.
TEST_CASE("ParseJson refuses a key that appears twice in one object, and says where") {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"deny":false,"deny":true})",
       R"(answer: duplicate key "deny" in the top-level object (a key may appear only once))"},
      {R"({"a":1,"b":2,"a":3})", R"(answer: duplicate key "a" in the top-level object)"},
      {R"({"a":1,"a":2})", R"(answer: duplicate key "a" in the top-level object)"},
      {R"({"plugins":{"overrides":{"x":{},"x":{}}}})",
       R"(answer: duplicate key "x" in the object at plugins.overrides)"},
      {R"([1,{"k":[{},{"z":0,"z":0}]}])", R"(answer: duplicate key "z" in the object at [1].k[1])"},
      {R"({"a.b":{"\u001b[31m":{"q":1,"q":2}}})",
       R"(answer: duplicate key "q" in the object at ["a.b"]["\u001b[31m"])"},
      {R"({"\u001b]52;c;x\u0007":1,"\u001b]52;c;x\u0007":2})",
       R"(answer: duplicate key "\u001b]52;c;x\u0007" in the top-level object)"},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    CAPTURE(text);
    auto parsed = ParseJson(c.text, "answer");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_MESSAGE(std::string(parsed.status().message()).find(c.message) == 0,
                  parsed.status().message());
  }
  // Equal values at different places are not duplicates.
  CHECK(ParseJson(R"({"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]})", "ok").ok());
}

TEST_CASE("ParseJson checks large objects for duplicates in linear time") {
  // 200,000 distinct keys, then the same with the first key repeated last: a quadratic scan
  // would take minutes here.
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) StrAppend(&text, i ? "," : "", "\"k", i, "\":", i);
  auto unique = ParseJson(text + "}", "big");
  REQUIRE(unique.ok());
  CHECK(unique->as_object().size() == 200000);
  auto repeated = ParseJson(text + ",\"k0\":1}", "big");
  REQUIRE_FALSE(repeated.ok());
  CHECK(std::string(repeated.status().message()).find("duplicate key \"k0\"") != std::string::npos);
  // Keys past the linear part of the check, and the one where it switches to a hash set.
  for (int n : {15, 16, 17, 40}) {
    std::string object = "{";
    for (int i = 0; i < n; ++i) StrAppend(&object, i ? "," : "", "\"k", i, "\":0");
    CHECK(ParseJson(object + "}", "n").ok());
    for (int dup : {0, n / 2, n - 1}) {
      CAPTURE(n);
      CAPTURE(dup);
      CHECK_FALSE(ParseJson(StrCat(object, ",\"k", dup, "\":1}"), "n").ok());
    }
  }
}

TEST_CASE("ParseJson with DuplicateKeys::kLastWins reads as Node's JSON.parse does") {
  auto parsed = ParseJson(R"({"main":"a.js","x":{"k":1,"k":2},"main":"b.js"})", "package.json",
                          DuplicateKeys::kLastWins);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->as_object().size() == 2);
  CHECK(parsed->as_object()[0].first == "main");  // in the first one's place
  CHECK(parsed->Find("main")->as_string() == "b.js");
  CHECK(parsed->Find("x")->Find("k")->as_integer() == 2);
}

TEST_CASE("ParseYaml refuses a key that appears twice in one mapping, naming both lines") {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"name: guard\non_error: open\ncommand: ./run.sh\non_error: closed\n",
       R"(plugin.yaml:4:1: duplicate key "on_error" (first at line 2))"},
      {"plugins:\n  enabled: true\n  dirs: []\n  enabled: false\n",
       R"(plugin.yaml:4:3: duplicate key "enabled" (first at line 2))"},
      {"env: {A: 1, B: 2, A: 3}\n", R"(plugin.yaml:1:19: duplicate key "A" (first at line 1))"},
      {"hooks:\n  - x: 1\n    x: 2\n", R"(plugin.yaml:3:5: duplicate key "x" (first at line 2))"},
      // Quoting does not make another key: both are the string "1".
      {"1: a\n\"1\": b\n", R"(plugin.yaml:2:1: duplicate key "1" (first at line 1))"},
  };
  for (const Case& c : cases) {
    const std::string text = c.text;
    CAPTURE(text);
    auto parsed = ParseYaml(c.text, "plugin.yaml");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(parsed.status().message()) == c.message);
  }
  std::string big;
  for (int i = 0; i < 50000; ++i) StrAppend(&big, "k", i, ": ", i, "\n");
  auto unique = ParseYaml(big, "big.yaml");
  REQUIRE(unique.ok());
  CHECK(unique->as_object().size() == 50000);
  CHECK_FALSE(ParseYaml(big + "k49999: again\n", "big.yaml").ok());
}

}  // namespace
}  // namespace plugline::core

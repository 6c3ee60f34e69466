// Answer keys plugline does not read, and event names a host probably misspelt: both used to
// be ignored in silence (`{"denied":true}` was no opinion; `pre_tool_cal` made every deny
// "ignored"). Now each is a warning, with the name meant when it is one edit away.
#include <doctest/doctest.h>

#include "core/dispatcher.h"
#include "core/hooks.h"
#include "core/json.h"
#include "core/suggest.h"

namespace plugline::core {
namespace {

TEST_CASE("IsOneEditApart: one insertion, deletion, substitution or adjacent swap") {
  const std::vector<std::tuple<std::string, std::string, bool>> cases = {
      {"deny", "deny", false},          {"deny", "deni", true},   {"deny", "dny", true},
      {"deny", "denyy", true},          {"deny", "edny", true},   {"deny", "deyn", true},
      {"deny", "yned", false},          {"deny", "denied", false}, {"", "a", true},
      {"", "", false},                  {"a", "", true},          {"ab", "ba", true},
      {"abc", "cba", false},            {"notice", "notcie", true}, {"notice", "nitoce", false},
      {"pre_tool_call", "pre_tool_cal", true}, {"pre_tool_call", "pre_tool_calls", true},
      {"pre_tool_call", "pre_tool_clal", true}, {"pre_tool_call", "pre_tol_cal", false},
      {"post_tool_call", "pre_tool_call", false},
  };
  for (const auto& [a, b, expected] : cases) {
    CAPTURE(a);
    CAPTURE(b);
    CHECK(IsOneEditApart(a, b) == expected);
    CHECK(IsOneEditApart(b, a) == expected);
  }
}

TEST_CASE("SuggestKnown: an alias first, else the first known name one edit away") {
  constexpr std::string_view known[] = {"deny", "reason", "notice"};
  constexpr std::pair<std::string_view, std::string_view> aliases[] = {{"denied", "deny"}};
  CHECK(SuggestKnown("denied", known, aliases) == "deny");
  CHECK(SuggestKnown("reasn", known, aliases) == "reason");
  CHECK(SuggestKnown("colour", known, aliases) == std::nullopt);
}

TEST_CASE("answers: unknown keys are named in warnings, with the key meant") {
  struct Case {
    std::string answer;
    std::vector<std::string> warnings;
  };
  const std::vector<Case> cases = {
      {R"({"denied":true})", {R"(unknown answer key "denied" ignored (did you mean "deny"?))"}},
      {R"({"block":true,"reason":"x"})",
       {R"(unknown answer key "block" ignored (did you mean "deny"?))"}},
      {R"({"notcie":"hi"})", {R"(unknown answer key "notcie" ignored (did you mean "notice"?))"}},
      {R"({"arguements":"{}"})",
       {R"(unknown answer key "arguements" ignored (did you mean "arguments"?))"}},
      {R"({"args":"{}"})", {R"(unknown answer key "args" ignored (did you mean "arguments"?))"}},
      {R"({"resutl":"x"})", {R"(unknown answer key "resutl" ignored (did you mean "result"?))"}},
      {R"({"colour":"blue"})", {R"(unknown answer key "colour" ignored)"}},
      {R"({"\u001b]52;c;eA==\u0007":1})",
       {R"(unknown answer key "\u001b]52;c;eA==\u0007" ignored)"}},
      {R"({"deny":false,"reason":"","arguments":"","result":"","notice":""})", {}},
      {R"({})", {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.answer);
    absl::StatusOr<HookAnswer> answer = ParseHookAnswer(c.answer, "stdout");
    REQUIRE(answer.ok());
    CHECK(answer->warnings == c.warnings);
    CHECK_FALSE(answer->deny);  // an unknown key never counts as what it resembles
  }
  // A persistent plugin's answer line has an `id` too.
  constexpr std::string_view line_keys[] = {"id"};
  absl::StatusOr<Value> line = ParseJson(R"({"id":3,"notice":"ok"})", "line");
  REQUIRE(line.ok());
  CHECK(HookAnswerFromValue(*line, "stdout", line_keys)->warnings.empty());
  CHECK(HookAnswerFromValue(*line, "stdout")->warnings.size() == 1);
}

TEST_CASE("answers: a flood of unknown keys is named up to a bound, the rest counted") {
  std::string text = "{";
  for (int i = 0; i < 1000; ++i) text += (i ? "," : "") + ("\"k" + std::to_string(i) + "\":0");
  absl::StatusOr<HookAnswer> answer = ParseHookAnswer(text + "}", "stdout");
  REQUIRE(answer.ok());
  REQUIRE(answer->warnings.size() == kMaxUnknownKeyWarnings + 1);
  CHECK(answer->warnings.back() == "… and 992 more unknown answer keys ignored");
}

TEST_CASE("NearCanonicalEvent: misspellings and other spellings of canonical events") {
  const std::vector<std::pair<std::string, std::optional<std::string_view>>> cases = {
      {"pre_tool_cal", "pre_tool_call"},    {"pre_tool_calls", "pre_tool_call"},
      {"pre_tool_clal", "pre_tool_call"},   {"post_tool_cal", "post_tool_call"},
      {"PreToolCall", "pre_tool_call"},     {"pre-tool-call", "pre_tool_call"},
      {"pre.tool.call", "pre_tool_call"},   {"Pre Tool Call", "pre_tool_call"},
      {"PreToolCal", "pre_tool_call"},      {"session_star", "session_start"},
      {"turn-end", "turn_end"},             {"shellenv", "shell_env"},
      {"pre_tool_call", std::nullopt},      {"deploy_finished", std::nullopt},
      {"my_custom_event", std::nullopt},    {"", std::nullopt},
      {"PreToolUse", std::nullopt},
  };
  for (const auto& [event, meant] : cases) {
    CAPTURE(event);
    CHECK(NearCanonicalEvent(event) == meant);
  }
}

std::shared_ptr<HookPlugin> Answering(std::string id, std::string answer_json) {
  return std::make_shared<NativeHook>(
      std::move(id), std::vector<std::string>{"*"},
      [answer_json](std::string_view, std::string_view) {
        return ParseHookAnswer(answer_json, "answer");
      });
}

TEST_CASE("dispatch: answer warnings and a near-miss event name reach the result") {
  std::vector<std::shared_ptr<HookPlugin>> plugins = {
      Answering("a", R"({"denied":true,"reason":"no"})"), Answering("b", R"({"notice":"fine"})"),
      Answering("c", R"({"deny":true,"colour":"red"})")};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", "{}", plugins);
  REQUIRE(r.ok());
  CHECK(r->denied_by == "c");  // "denied" was not a deny; c's deny still counts
  REQUIRE(r->warnings.size() == 2);
  CHECK(r->warnings[0].plugin == "a");
  CHECK(r->warnings[0].text == R"(unknown answer key "denied" ignored (did you mean "deny"?))");
  CHECK(r->warnings[1].plugin == "c");  // collected before the deny ended the chain
  CHECK(r->warnings[1].text == R"(unknown answer key "colour" ignored)");

  absl::StatusOr<DispatchResult> typo = Dispatch("pre_tool_cal", "{}", plugins);
  REQUIRE(typo.ok());
  CHECK_FALSE(typo->denied);
  REQUIRE(typo->warnings.size() == 3);
  CHECK(typo->warnings[0].plugin.empty());
  CHECK(typo->warnings[0].text ==
        R"(event "pre_tool_cal" is not a canonical event (did you mean "pre_tool_call"?): it is )"
        "observe-only, so no plugin can deny it or rewrite its arguments");
  absl::StatusOr<Value> json = ParseJson(typo->ToJson(), "result");
  REQUIRE(json.ok());
  const Value& first = json->Find("warnings")->as_array()[0];
  CHECK(first.Find("plugin")->is_null());
  CHECK(json->Find("warnings")->as_array()[1].Find("plugin")->as_string() == "a");

  // A host's own event far from every canonical one: no warning.
  absl::StatusOr<DispatchResult> custom = Dispatch("deploy_finished", "{}", {});
  REQUIRE(custom.ok());
  CHECK(custom->warnings.empty());
}

}  // namespace
}  // namespace plugline::core

#include "core/dispatcher.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "absl/status/status.h"
#include "core/json.h"

namespace plugline::core {
namespace {

using Plugins = std::vector<std::shared_ptr<HookPlugin>>;

// A native hook on every event that counts its calls and keeps the payloads it saw.
struct Probe {
  int calls = 0;
  std::vector<std::string> payloads;
};

std::shared_ptr<HookPlugin> Hook(std::string id, Probe* probe,
                                 std::function<absl::StatusOr<HookAnswer>(const Value&)> answer,
                                 bool fail_closed = false) {
  return std::make_shared<NativeHook>(
      std::move(id), std::vector<std::string>{"*"},
      [probe, answer = std::move(answer)](std::string_view,
                                          std::string_view payload) -> absl::StatusOr<HookAnswer> {
        ++probe->calls;
        probe->payloads.emplace_back(payload);
        absl::StatusOr<Value> parsed = ParseJson(payload, "test payload");
        REQUIRE(parsed.ok());
        return answer(*parsed);
      },
      fail_closed);
}

HookAnswer Notice(std::string text) {
  HookAnswer a;
  a.notice = std::move(text);
  return a;
}
HookAnswer Deny(std::string reason) {
  HookAnswer a;
  a.deny = true;
  a.reason = std::move(reason);
  return a;
}
HookAnswer Arguments(std::string args) {
  HookAnswer a;
  a.arguments = std::move(args);
  return a;
}
HookAnswer Result(std::string result) {
  HookAnswer a;
  a.result = std::move(result);
  return a;
}

std::string Str(const Value& payload, std::string_view key) {
  const Value* v = payload.Find(key);
  return v != nullptr && v->is_string() ? v->as_string() : "<absent>";
}

constexpr std::string_view kPreToolCall =
    R"({"event":"pre_tool_call","session_id":"ses_1","platform":"cli","tool":"terminal",)"
    R"("arguments":"{\"command\":\"ls\"}"})";

TEST_CASE("dispatch: two argument rewrites compose in order") {
  Probe a, b;
  Plugins plugins = {Hook("a-append-all", &a,
                          [](const Value& p) {
                            CHECK(Str(p, "arguments") == R"({"command":"ls"})");
                            return Arguments(R"({"command":"ls -a"})");
                          }),
                     Hook("b-append-long", &b, [](const Value& p) {
                       CHECK(Str(p, "arguments") == R"({"command":"ls -a"})");  // sees a's rewrite
                       return Arguments(R"({"command":"ls -a -l"})");
                     })};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK_FALSE(r->denied);
  REQUIRE(r->arguments.has_value());
  CHECK(*r->arguments == R"({"command":"ls -a -l"})");
  CHECK_FALSE(r->result.has_value());
  REQUIRE(r->plugins.size() == 2);
  CHECK(r->plugins[0].plugin == "a-append-all");
  CHECK(r->plugins[0].action == "rewrite");
  CHECK(r->plugins[1].plugin == "b-append-long");
  CHECK(r->plugins[1].action == "rewrite");
  // The first plugin gets the host's text unchanged.
  CHECK(a.payloads.at(0) == kPreToolCall);
}

TEST_CASE("dispatch: a deny ends the chain and later plugins never run") {
  Probe a, b, c;
  Plugins plugins = {Hook("a", &a, [](const Value&) { return Notice("looked"); }),
                     Hook("b-guard", &b,
                          [](const Value&) {
                            HookAnswer d = Deny("writes are limited to /home/me/project");
                            d.arguments = R"({"command":"true"})";  // not applied: deny wins
                            return d;
                          }),
                     Hook("c", &c, [](const Value&) { return Arguments(R"({"x":1})"); })};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK(a.calls == 1);
  CHECK(b.calls == 1);
  CHECK(c.calls == 0);
  CHECK(r->denied);
  CHECK(r->denied_by == "b-guard");
  CHECK(r->reason == "writes are limited to /home/me/project");
  CHECK(*r->arguments == R"({"command":"ls"})");
  REQUIRE(r->plugins.size() == 2);
  CHECK(r->plugins[1].action == "deny");

  SUBCASE("a deny without a reason still gives one") {
    Probe d;
    Plugins one = {Hook("quiet", &d, [](const Value&) { return Deny(""); })};
    absl::StatusOr<DispatchResult> q = Dispatch("pre_tool_call", kPreToolCall, one);
    REQUIRE(q.ok());
    CHECK(q->denied);
    CHECK(q->reason == "denied by plugin quiet");
  }
}

TEST_CASE("dispatch: a failing plugin between two good ones is skipped with its reason") {
  Probe a, b, c;
  Plugins plugins = {
      Hook("a", &a, [](const Value&) { return Arguments(R"({"command":"ls -a"})"); }),
      Hook("b-broken", &b,
           [](const Value&) -> absl::StatusOr<HookAnswer> {
             return absl::UnavailableError("plugin b-broken crashed: killed by signal 11");
           }),
      Hook("c", &c, [](const Value& p) {
        CHECK(Str(p, "arguments") == R"({"command":"ls -a"})");
        return Notice("c ran");
      })};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK_FALSE(r->denied);
  CHECK(c.calls == 1);
  REQUIRE(r->skipped.size() == 1);
  CHECK(r->skipped[0].plugin == "b-broken");
  CHECK(r->skipped[0].why == "unavailable");
  CHECK(r->skipped[0].detail == "plugin b-broken crashed: killed by signal 11");
  REQUIRE(r->plugins.size() == 3);
  CHECK(r->plugins[0].action == "rewrite");
  CHECK(r->plugins[1].action == "skipped");
  CHECK(r->plugins[2].action == "notice");
  CHECK(*r->arguments == R"({"command":"ls -a"})");
}

TEST_CASE("dispatch: a fail-closed plugin's failure is a deny naming it") {
  Probe a, b;
  Plugins plugins = {
      Hook(
          "secret-guard", &a,
          [](const Value&) -> absl::StatusOr<HookAnswer> {
            return absl::DeadlineExceededError("plugin secret-guard timed out after 2000 ms");
          },
          /*fail_closed=*/true),
      Hook("after", &b, [](const Value&) { return HookAnswer{}; })};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK(r->denied);
  CHECK(r->denied_by == "secret-guard");
  CHECK(r->reason.find("secret-guard") != std::string::npos);
  CHECK(r->reason.find("timed out after 2000 ms") != std::string::npos);
  CHECK(b.calls == 0);
  CHECK(r->skipped.empty());
  REQUIRE(r->plugins.size() == 1);
  CHECK(r->plugins[0].action == "deny");

  SUBCASE("on an event that cannot deny it is skipped like any failure") {
    Probe c, d;
    Plugins observe = {Hook(
                           "secret-guard", &c,
                           [](const Value&) -> absl::StatusOr<HookAnswer> {
                             return absl::InternalError("exit status 1");
                           },
                           true),
                       Hook("after", &d, [](const Value&) { return HookAnswer{}; })};
    absl::StatusOr<DispatchResult> q = Dispatch("session_start", R"({"session_id":"s"})", observe);
    REQUIRE(q.ok());
    CHECK_FALSE(q->denied);
    CHECK(d.calls == 1);
    REQUIRE(q->skipped.size() == 1);
    CHECK(q->skipped[0].why == "internal");
    CHECK(q->skipped[0].detail.find("exit status 1") != std::string::npos);
    CHECK(q->skipped[0].detail.find("session_start cannot deny") != std::string::npos);
  }
}

TEST_CASE("dispatch: an observe-only event ignores deny and rewrite and records the attempt") {
  Probe a, b;
  Plugins plugins = {Hook("pushy", &a,
                          [](const Value&) {
                            HookAnswer x = Deny("no sessions today");
                            x.arguments = R"({"command":"rm -rf /"})";
                            x.notice = "hello";
                            return x;
                          }),
                     Hook("later", &b, [](const Value& p) {
                       CHECK(Str(p, "arguments") == "<absent>");
                       return HookAnswer{};
                     })};
  absl::StatusOr<DispatchResult> r =
      Dispatch("session_start", R"({"event":"session_start","session_id":"ses_1"})", plugins);
  REQUIRE(r.ok());
  CHECK_FALSE(r->denied);
  CHECK(b.calls == 1);
  CHECK_FALSE(r->arguments.has_value());
  REQUIRE(r->plugins.size() == 2);
  CHECK(r->plugins[0].action == "ignored: deny, arguments on observe-only event session_start");
  CHECK(r->plugins[1].action == "none");
  REQUIRE(r->notices.size() == 1);  // a notice is allowed on any event
  CHECK(r->notices[0].text == "hello");
}

TEST_CASE("dispatch: notices are collected in order with their plugins") {
  Probe a, b, c;
  Plugins plugins = {Hook("one", &a, [](const Value&) { return Notice("first"); }),
                     Hook("two", &b, [](const Value&) { return HookAnswer{}; }),
                     Hook("three", &c, [](const Value&) { return Notice("third"); })};
  absl::StatusOr<DispatchResult> r = Dispatch("turn_end", "{}", plugins);
  REQUIRE(r.ok());
  REQUIRE(r->notices.size() == 2);
  CHECK(r->notices[0].plugin == "one");
  CHECK(r->notices[0].text == "first");
  CHECK(r->notices[1].plugin == "three");
  CHECK(r->notices[1].text == "third");
  CHECK(r->plugins[0].action == "notice");
  CHECK(r->plugins[1].action == "none");
}

TEST_CASE("dispatch: post_tool_call replaces the result, each plugin seeing the last one's") {
  Probe a, b, c;
  Plugins plugins = {Hook("redact", &a,
                          [](const Value& p) {
                            CHECK(Str(p, "result") == "key sk-12345678abcdef");
                            return Result("key sk-12345678…");
                          }),
                     Hook("tag", &b,
                          [](const Value& p) {
                            CHECK(Str(p, "result") == "key sk-12345678…");
                            HookAnswer x = Result("[redacted] key sk-12345678…");
                            x.notice = "redacted a key";
                            return x;
                          }),
                     Hook("confused", &c, [](const Value&) {
                       HookAnswer x = Deny("too late");
                       x.arguments = R"({"a":1})";
                       return x;
                     })};
  absl::StatusOr<DispatchResult> r = Dispatch(
      "post_tool_call",
      R"({"event":"post_tool_call","tool":"terminal","arguments":"{}","result":"key sk-12345678abcdef"})",
      plugins);
  REQUIRE(r.ok());
  CHECK_FALSE(r->denied);
  REQUIRE(r->result.has_value());
  CHECK(*r->result == "[redacted] key sk-12345678…");
  CHECK(*r->arguments == "{}");
  REQUIRE(r->plugins.size() == 3);
  CHECK(r->plugins[0].action == "replace");
  CHECK(r->plugins[1].action == "replace");
  CHECK(r->plugins[2].action ==
        "ignored: deny, arguments on post_tool_call (it can only replace the result and notice)");

  SUBCASE("pre_tool_call ignores a result replacement") {
    Probe d;
    Plugins one = {Hook("early", &d, [](const Value&) { return Result("nope"); })};
    absl::StatusOr<DispatchResult> q = Dispatch("pre_tool_call", kPreToolCall, one);
    REQUIRE(q.ok());
    CHECK_FALSE(q->result.has_value());
    CHECK(q->plugins[0].action ==
          "ignored: result on pre_tool_call (it can only deny, rewrite arguments and notice)");
  }
}

TEST_CASE("dispatch: unknown payload fields pass through to later plugins") {
  Probe a, b;
  Plugins plugins = {
      Hook("rewrite", &a, [](const Value&) { return Arguments(R"({"command":"ls"})"); }),
      Hook("reader", &b, [](const Value& p) {
        CHECK(Str(p, "event") == "pre_tool_call");
        CHECK(Str(p, "session_id") == "ses_9");
        CHECK(Str(p, "platform") == "web");
        const Value* extra = p.Find("extra");
        REQUIRE(extra != nullptr);
        CHECK(ToJson(*extra) == R"({"nested":[1,2.5,"x",null,true],"empty":{}})");
        return HookAnswer{};
      })};
  absl::StatusOr<DispatchResult> r =
      Dispatch("pre_tool_call",
               R"({"session_id":"ses_9","platform":"web","tool":"terminal","arguments":"{}",)"
               R"("extra":{"nested":[1,2.5,"x",null,true],"empty":{}}})",
               plugins);
  REQUIRE(r.ok());
  REQUIRE(b.calls == 1);
  // The payload had no "event": the dispatcher puts it first, the rest stays in order.
  CHECK(
      b.payloads[0] ==
      R"({"event":"pre_tool_call","session_id":"ses_9","platform":"web","tool":"terminal",)"
      R"("arguments":"{\"command\":\"ls\"}","extra":{"nested":[1,2.5,"x",null,true],"empty":{}}})");
}

TEST_CASE("dispatch: an invalid payload is an error and no plugin runs") {
  Probe a;
  Plugins plugins = {Hook("a", &a, [](const Value&) { return HookAnswer{}; })};
  struct Case {
    std::string_view payload;
    std::string_view message_part;
  };
  for (const Case& c : {Case{"not json", "invalid JSON"}, Case{"", "invalid JSON"},
                        Case{"[1,2]", "must be a JSON object, got an array"},
                        Case{R"("text")", "must be a JSON object, got a string"},
                        Case{R"({"arguments":{"command":"ls"}})", "\"arguments\" must be a string"},
                        Case{R"({"result":42})", "\"result\" must be a string"}}) {
    CAPTURE(c.payload);
    absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", c.payload, plugins);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    const std::string message(r.status().message());
    CHECK(message.find(c.message_part) != std::string::npos);
    CHECK(message.find("pre_tool_call") != std::string::npos);
  }
  CHECK(a.calls == 0);

  absl::StatusOr<DispatchResult> empty_event = Dispatch("", "{}", plugins);
  CHECK(empty_event.status().code() == absl::StatusCode::kInvalidArgument);
  Plugins with_null = {nullptr};
  CHECK(Dispatch("turn_end", "{}", with_null).status().code() ==
        absl::StatusCode::kInvalidArgument);
  // A null arguments counts as absent.
  CHECK(Dispatch("pre_tool_call", R"({"arguments":null})", plugins).ok());
}

TEST_CASE("dispatch: a non-canonical event is observe-only and named in the payload") {
  CHECK_FALSE(IsCanonicalEvent("deploy_finished"));
  CHECK(IsCanonicalEvent("pre_compact"));
  Probe a, b;
  Plugins plugins = {Hook("a", &a,
                          [](const Value& p) {
                            CHECK(Str(p, "event") == "deploy_finished");  // replaced, not kept
                            HookAnswer x = Deny("no");
                            x.result = "replaced";
                            return x;
                          }),
                     Hook("b", &b, [](const Value&) { return Notice("deployed"); })};
  absl::StatusOr<DispatchResult> r =
      Dispatch("deploy_finished", R"({"event":"something_else","result":"orig"})", plugins);
  REQUIRE(r.ok());
  CHECK_FALSE(r->denied);
  CHECK(b.calls == 1);
  CHECK(*r->result == "orig");
  CHECK(r->plugins[0].action == "ignored: deny, result on observe-only event deploy_finished");
  CHECK(r->event == "deploy_finished");
}

TEST_CASE("dispatch: a record for every plugin that ran, none for those that do not handle") {
  int pre_calls = 0;
  auto pre_only = std::make_shared<NativeHook>(
      "pre-only", std::vector<std::string>{"pre_tool_call"},
      [&pre_calls](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
        ++pre_calls;
        return HookAnswer{};
      });
  auto none = std::make_shared<NativeHook>(
      "subscribes-to-nothing", std::vector<std::string>{},
      [](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
        FAIL("never called");
        return HookAnswer{};
      });
  Probe a, b;
  Plugins plugins = {Hook("first", &a, [](const Value&) { return HookAnswer{}; }), pre_only, none,
                     Hook("last", &b, [](const Value&) { return Notice("n"); })};

  absl::StatusOr<DispatchResult> r = Dispatch("session_end", "{}", plugins);
  REQUIRE(r.ok());
  CHECK(pre_calls == 0);
  REQUIRE(r->plugins.size() == 2);
  CHECK(r->plugins[0].plugin == "first");
  CHECK(r->plugins[1].plugin == "last");
  for (const auto& p : r->plugins) CHECK(p.ms >= 0);

  r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK(pre_calls == 1);
  REQUIRE(r->plugins.size() == 3);
  CHECK(r->plugins[1].plugin == "pre-only");
  CHECK(r->plugins[1].action == "none");
}

TEST_CASE("dispatch: an argument rewrite that is not JSON is a bad answer") {
  Probe a, b;
  Plugins plugins = {Hook("sloppy", &a,
                          [](const Value&) {
                            HookAnswer x = Arguments("rm -rf build");
                            x.notice = "not collected: the whole answer is rejected";
                            return x;
                          }),
                     Hook("next", &b, [](const Value& p) {
                       CHECK(Str(p, "arguments") == R"({"command":"ls"})");
                       return HookAnswer{};
                     })};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK(b.calls == 1);
  CHECK(r->notices.empty());
  REQUIRE(r->skipped.size() == 1);
  CHECK(r->skipped[0].why == "bad_answer");
  CHECK(r->skipped[0].detail.find("plugin sloppy arguments") != std::string::npos);
  CHECK(*r->arguments == R"({"command":"ls"})");

  SUBCASE("fail-closed: a deny") {
    Probe c;
    Plugins closed = {Hook(
        "strict", &c, [](const Value&) { return Arguments("{oops"); }, true)};
    absl::StatusOr<DispatchResult> q = Dispatch("pre_tool_call", kPreToolCall, closed);
    REQUIRE(q.ok());
    CHECK(q->denied);
    CHECK(q->denied_by == "strict");
  }
}

TEST_CASE("dispatch: empty answer strings mean no opinion") {
  Probe a;
  Plugins plugins = {Hook("empty", &a, [](const Value&) {
    HookAnswer x;  // the Antares protocol's {"deny":false,"reason":"","arguments":"","result":"","notice":""}
    x.arguments = "";
    x.result = "";
    x.notice = "";
    return x;
  })};
  absl::StatusOr<DispatchResult> r = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(r.ok());
  CHECK(r->plugins[0].action == "none");
  CHECK(*r->arguments == R"({"command":"ls"})");
  CHECK(r->notices.empty());
  CHECK(r->skipped.empty());
}

TEST_CASE("dispatch: a native hook that throws is skipped as an internal failure") {
  auto thrower = std::make_shared<NativeHook>(
      "thrower", std::vector<std::string>{"*"},
      [](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
        throw std::runtime_error("boom");
      });
  absl::StatusOr<DispatchResult> r = Dispatch("turn_end", "{}", Plugins{thrower});
  REQUIRE(r.ok());
  REQUIRE(r->skipped.size() == 1);
  CHECK(r->skipped[0].why == "internal");
  CHECK(r->skipped[0].detail == "native hook thrower threw: boom");
}

TEST_CASE("dispatch: the result JSON has the documented shape (docs/hooks.md)") {
  DispatchResult r;
  r.event = "pre_tool_call";
  r.denied = true;
  r.denied_by = "guard";
  r.reason = "no \"rm\"";
  r.arguments = R"({"command":"rm"})";
  r.notices = {{"audit", "logged"}};
  r.skipped = {{"broken", "deadline_exceeded", "timed out after 5000 ms"}};
  r.plugins = {{"audit", "notice", 0.012}, {"broken", "skipped", 5000}, {"guard", "deny", 1.5}};
  r.warnings = {{"", "about the event"}, {"audit", "unknown answer key \"x\" ignored"}};
  r.broken = {{"old-guard", "plugin.yaml: `command` is required"}};
  CHECK(
      r.ToJson() ==
      R"({"event":"pre_tool_call","denied":true,"denied_by":"guard","reason":"no \"rm\"",)"
      R"("arguments":"{\"command\":\"rm\"}","result":null,)"
      R"("notices":[{"plugin":"audit","text":"logged"}],)"
      R"("skipped":[{"plugin":"broken","why":"deadline_exceeded","detail":"timed out after 5000 ms"}],)"
      R"("plugins":[{"plugin":"audit","action":"notice","ms":0.012},)"
      R"({"plugin":"broken","action":"skipped","ms":5000},{"plugin":"guard","action":"deny","ms":1.5}],)"
      R"("warnings":[{"plugin":null,"text":"about the event"},)"
      R"({"plugin":"audit","text":"unknown answer key \"x\" ignored"}],)"
      R"("broken":[{"plugin":"old-guard","reason":"plugin.yaml: `command` is required"}]})");

  DispatchResult quiet;
  quiet.event = "turn_end";
  CHECK(quiet.ToJson() ==
        R"({"event":"turn_end","denied":false,"denied_by":null,"reason":null,"arguments":null,)"
        R"("result":null,"notices":[],"skipped":[],"plugins":[],"warnings":[],"broken":[]})");

  // And a real dispatch's JSON parses back.
  Probe a;
  Plugins plugins = {Hook("a", &a, [](const Value&) { return Notice("hi"); })};
  absl::StatusOr<DispatchResult> d = Dispatch("pre_tool_call", kPreToolCall, plugins);
  REQUIRE(d.ok());
  absl::StatusOr<Value> parsed = ParseJson(d->ToJson(), "result");
  REQUIRE(parsed.ok());
  CHECK(Str(*parsed, "arguments") == R"({"command":"ls"})");
  CHECK(parsed->Find("plugins")->as_array().size() == 1);
}

}  // namespace
}  // namespace plugline::core

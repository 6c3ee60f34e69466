// What core::Dispatch (and so Host::Dispatch and plugline_host_dispatch) accepts from a host:
// the first line is the event name, the rest the payload. Four native hooks answer it — one
// rewrites the arguments with what it read from the payload, one replaces the result, one adds
// a notice, one fails — so the payload goes through every path a plugin's answer takes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/dispatcher.h"
#include "core/json.h"
#include "fuzz_check.h"
#include "fuzz_input.h"

namespace {

using plugline::core::HookAnswer;
using plugline::core::HookPlugin;
using plugline::core::NativeHook;
using plugline::core::ParseJson;
using plugline::core::Value;

std::vector<std::shared_ptr<HookPlugin>> MakeHooks() {
  std::vector<std::shared_ptr<HookPlugin>> hooks;
  // Reads the payload as a plugin would and writes its arguments back with one field added.
  hooks.push_back(std::make_shared<NativeHook>(
      "rewrite", std::vector<std::string>{"*"},
      [](std::string_view, std::string_view payload) -> absl::StatusOr<HookAnswer> {
        absl::StatusOr<Value> doc = ParseJson(payload, "payload");
        FUZZ_CHECK(doc.ok() && doc->is_object());  // the dispatcher hands on only objects
        HookAnswer answer;
        const Value* arguments = doc->Find("arguments");
        if (arguments != nullptr && arguments->is_string()) {
          absl::StatusOr<Value> args = ParseJson(arguments->as_string(), "arguments");
          if (args.ok() && args->is_object()) {
            args->Set("checked", true);
            answer.arguments = plugline::core::ToJson(*args);
          }
        }
        return answer;
      }));
  hooks.push_back(std::make_shared<NativeHook>(
      "replace", std::vector<std::string>{"post_tool_call"},
      [](std::string_view, std::string_view payload) -> absl::StatusOr<HookAnswer> {
        HookAnswer answer;
        answer.result = std::string(payload.substr(0, 64));
        return answer;
      }));
  hooks.push_back(std::make_shared<NativeHook>(
      "notice", std::vector<std::string>{"*"},
      [](std::string_view event, std::string_view) -> absl::StatusOr<HookAnswer> {
        HookAnswer answer;
        answer.notice = std::string(event);
        return answer;
      }));
  hooks.push_back(std::make_shared<NativeHook>(
      "fail", std::vector<std::string>{"*"},
      [](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
        return absl::InternalError("fuzz hook failed");
      },
      /*fail_closed=*/false));
  return hooks;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::shared_ptr<HookPlugin>> hooks = MakeHooks();
  plugline::fuzz::FuzzInput input(data, size);
  std::string_view event = input.Line();
  std::string_view payload = input.Rest();
  absl::StatusOr<plugline::core::DispatchResult> result =
      plugline::core::Dispatch(event, payload, hooks);
  if (!result.ok()) {
    FUZZ_CHECK(absl::IsInvalidArgument(result.status()));
    return 0;
  }
  // What the host gets back is always JSON, and names every plugin that ran.
  std::string json = result->ToJson();
  absl::StatusOr<Value> back = ParseJson(json, "dispatch result");
  FUZZ_CHECK(back.ok() && back->is_object());
  FUZZ_CHECK(!result->denied);  // no hook here denies, and "fail" is not fail-closed
  // A rewrite is JSON (the dispatcher checks it); the host's own arguments come back as given.
  bool rewritten = false;
  for (const auto& record : result->plugins) rewritten = rewritten || record.action == "rewrite";
  if (rewritten) {
    FUZZ_CHECK(result->arguments.has_value());
    FUZZ_CHECK(ParseJson(*result->arguments, "final arguments").ok());
  }
  return 0;
}

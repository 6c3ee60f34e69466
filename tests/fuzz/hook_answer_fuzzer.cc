// A plugin's answer (core::ParseHookAnswer: an exec plugin's stdout, a native hook's answer
// through the C ABI), then that answer dispatched on pre_tool_call and post_tool_call, where
// the dispatcher applies it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "core/dispatcher.h"
#include "core/hooks.h"
#include "core/json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using plugline::core::HookAnswer;
  using plugline::core::ParseJson;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<HookAnswer> answer = plugline::core::ParseHookAnswer(text, "stdout");
  if (!answer.ok()) {
    FUZZ_CHECK(absl::StartsWith(answer.status().message(), "stdout"));
    return 0;
  }
  // A rewrite that parsed is JSON text, as the next plugin and the host expect.
  if (answer->arguments.has_value() && !answer->arguments->empty()) {
    FUZZ_CHECK(ParseJson(*answer->arguments, "arguments").ok());
  }
  HookAnswer parsed = *answer;
  std::vector<std::shared_ptr<plugline::core::HookPlugin>> hooks = {
      std::make_shared<plugline::core::NativeHook>(
          "answer", std::vector<std::string>{"*"},
          [parsed](std::string_view, std::string_view) -> absl::StatusOr<HookAnswer> {
            return parsed;
          })};
  for (std::string_view event : {"pre_tool_call", "post_tool_call", "session_start"}) {
    absl::StatusOr<plugline::core::DispatchResult> result = plugline::core::Dispatch(
        event, R"({"tool":"terminal","arguments":"{\"command\":\"ls\"}","result":"ok"})", hooks);
    FUZZ_CHECK(result.ok());
    FUZZ_CHECK(ParseJson(result->ToJson(), "dispatch result").ok());
    // A deny is only honoured where it means something, and then always has a reason.
    if (result->denied) {
      FUZZ_CHECK(event == "pre_tool_call");
      FUZZ_CHECK(!result->reason.empty());
      FUZZ_CHECK(result->denied_by == "answer");
    }
  }
  return 0;
}

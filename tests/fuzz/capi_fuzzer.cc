// The C ABI's JSON entry points (capi/include/plugline/plugline.h) on one host, made once per
// process with a temporary PLUGLINE_HOME and a native hook on every event. The first byte picks
// the call:
//   0 plugline_host_dispatch: event line, the native hook's answer line (given to
//     plugline_hook_answer_set), then the payload
//   1 plugline_host_shape: exit code byte, shaper line ("" = choose by match()), command line,
//     then the output
//   2 plugline_host_trigger: hook name line, input line, then the output JSON
//   3 plugline_host_execute_tool: tool name line, context line, then the arguments
//   4 plugline_host_tools: the comma-separated built-in tool names
// Raw outputs and statistics are not stored (plugline_config_set_store_outputs/record_stats 0):
// the fuzzer would spend its time writing files. Every JSON the library returns must parse.
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/json.h"
#include "fuzz_check.h"
#include "fuzz_input.h"
#include "plugline/plugline.h"

namespace {

// The answer the native hook gives in the current input.
std::string_view g_hook_answer;

int FuzzHook(const char* event, const char* payload_json, size_t payload_len,
             plugline_hook_answer* answer, void* user_data) {
  FUZZ_CHECK(event != nullptr && payload_json != nullptr);
  FUZZ_CHECK(plugline::core::ParseJson(std::string_view(payload_json, payload_len), "payload").ok());
  if (g_hook_answer == "fail") {
    plugline_hook_answer_fail(answer, "the fuzz hook failed");
    return 1;
  }
  plugline_status status = plugline_hook_answer_set(answer, g_hook_answer.data(), g_hook_answer.size());
  FUZZ_CHECK(status == PLUGLINE_OK || status == PLUGLINE_EINVALID);
  return 0;
}

plugline_host* MakeHost() {
  std::string pattern = std::filesystem::temp_directory_path().string() + "/plugline-fuzz-XXXXXX";
  FUZZ_CHECK(::mkdtemp(pattern.data()) != nullptr);
  static std::string home = pattern;
  std::atexit([] { std::filesystem::remove_all(home); });
  plugline_config* config = nullptr;
  FUZZ_CHECK(plugline_config_new(&config) == PLUGLINE_OK);
  FUZZ_CHECK(plugline_config_set_home(config, home.c_str()) == PLUGLINE_OK);
  FUZZ_CHECK(plugline_config_set_store_outputs(config, 0) == PLUGLINE_OK);
  FUZZ_CHECK(plugline_config_set_record_stats(config, 0) == PLUGLINE_OK);
  plugline_host* host = nullptr;
  FUZZ_CHECK(plugline_host_new(&host, config) == PLUGLINE_OK);
  plugline_config_free(config);
  plugline_hook_options hook = {};
  hook.struct_size = sizeof hook;
  hook.id = "fuzz-hook";
  hook.events = "*";
  hook.fail_closed = 1;
  FUZZ_CHECK(plugline_host_add_hook(host, &hook, FuzzHook, nullptr, nullptr) == PLUGLINE_OK);
  return host;
}

// A call's outcome (called after the call: its out-parameters are read here): a JSON result on
// success; a message on failure, never a crash.
void Check(plugline_status status, char* json, size_t len) {
  if (status == PLUGLINE_OK) {
    FUZZ_CHECK(json != nullptr);
    FUZZ_CHECK(std::string_view(json).size() == len);  // no NUL inside, NUL-terminated
    FUZZ_CHECK(plugline::core::ParseJson(std::string_view(json, len), "result").ok());
  } else {
    FUZZ_CHECK(json == nullptr);
    FUZZ_CHECK(status != PLUGLINE_EINTERNAL);  // an internal error is a bug
    FUZZ_CHECK(plugline_last_error_message()[0] != '\0');
  }
  plugline_free(json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static plugline_host* host = MakeHost();
  plugline::fuzz::FuzzInput input(data, size);
  char* json = nullptr;
  size_t len = 0;
  switch (input.Byte() % 5) {
    case 0: {
      std::string event(input.Line());
      g_hook_answer = input.Line();
      std::string_view payload = input.Rest();
      plugline_status status = plugline_host_dispatch(&json, &len, host, event.c_str(),
                                                      payload.data(), payload.size());
      Check(status, json, len);
      break;
    }
    case 1: {
      std::optional<int> exit_code = input.ExitCode();
      std::string shaper(input.Line());
      std::string_view command = input.Line();
      std::string_view output = input.Rest();
      plugline_shape_options options = {};
      options.struct_size = sizeof options;
      options.shaper = shaper.empty() ? nullptr : shaper.c_str();
      plugline_status status = plugline_host_shape(
          &json, &len, host, command.data(), command.size(), output.data(), output.size(),
          exit_code.value_or(PLUGLINE_EXIT_CODE_UNKNOWN), &options);
      Check(status, json, len);
      break;
    }
    case 2: {
      std::string name(input.Line());
      std::string_view in = input.Line();
      std::string_view out = input.Rest();
      plugline_status status = plugline_host_trigger(&json, &len, host, name.c_str(), in.data(),
                                                     in.size(), out.data(), out.size());
      Check(status, json, len);
      break;
    }
    case 3: {
      std::string name(input.Line());
      std::string_view context = input.Line();
      std::string_view args = input.Rest();
      plugline_status status = plugline_host_execute_tool(
          &json, &len, host, name.c_str(), args.data(), args.size(), context.data(),
          context.size());
      Check(status, json, len);
      break;
    }
    case 4: {
      std::string names(input.Rest());
      plugline_status status = plugline_host_tools(&json, &len, host, names.c_str());
      Check(status, json, len);
      break;
    }
  }
  g_hook_answer = {};
  return 0;
}

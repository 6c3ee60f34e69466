// Helpers for the tests of the JS runtime: fixture modules, loading, and capturing console
// and backend log lines.
#ifndef PLUGLINE_TESTS_JS_JS_TEST_UTIL_H_
#define PLUGLINE_TESTS_JS_JS_TEST_UTIL_H_

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "js/runtime.h"
#include "test_util.h"

namespace plugline::js::testing {

// tests/js/modules/<relative>
inline std::string ModulePath(std::string_view relative) {
  return plugline::testing::SourceDir() + "/js/modules/" + std::string(relative);
}

inline Runtime* TheRuntime() {
  auto runtime = GetRuntime();
  REQUIRE_MESSAGE(runtime.ok(), runtime.status().ToString());
  return *runtime;
}

inline std::unique_ptr<Module> LoadModule(std::string_view relative, ModuleOptions options = {}) {
  auto module = TheRuntime()->Load(ModulePath(relative), options);
  REQUIRE_MESSAGE(module.ok(), module.status().ToString());
  return *std::move(module);
}

// Log lines as "level: message".
struct LogLines {
  std::vector<std::string> lines;

  LogFunction Sink() {
    return [this](std::string_view level, std::string_view message) {
      lines.push_back(std::string(level) + ": " + std::string(message));
    };
  }
  // The lines of one level, without the "level: " prefix.
  std::vector<std::string> Of(std::string_view level) const {
    std::vector<std::string> out;
    std::string prefix = std::string(level) + ": ";
    for (const std::string& line : lines) {
      if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
    }
    return out;
  }
  bool Contains(std::string_view text) const {
    for (const std::string& line : lines) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

// Parses a call's JSON result; fails the test when the call failed.
inline core::Value Json(const absl::StatusOr<std::string>& result) {
  REQUIRE_MESSAGE(result.ok(), result.status().ToString());
  auto value = core::ParseJson(*result, "result");
  REQUIRE_MESSAGE(value.ok(), value.status().ToString());
  return *std::move(value);
}

inline std::string Message(const absl::StatusOr<std::string>& result) {
  return std::string(result.status().message());
}

}  // namespace plugline::js::testing

#endif  // PLUGLINE_TESTS_JS_JS_TEST_UTIL_H_

// config.yaml: the input is applied as the global file and then again as a project's file on
// top of it, as LoadConfig does with two files; then every plugin's settings are computed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using plugline::core::Config;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Config config;
  std::vector<std::string> diagnostics;
  plugline::core::ApplyConfigText(text, "/fuzz/home/config.yaml", &config, &diagnostics,
                                  "/fuzz/home", "global-config");
  plugline::core::ApplyConfigText(text, "/fuzz/project/.plugline/config.yaml", &config,
                                  &diagnostics, "/fuzz/project", "project-config");
  for (const std::string& message : diagnostics) {
    // A problem names the file it was found in.
    FUZZ_CHECK(message.find("config.yaml") != std::string::npos);
  }
  for (const plugline::core::ConfigOverride& override_entry : config.plugins.overrides) {
    for (bool protect : {false, true}) {
      plugline::core::JsPluginSettings settings =
          config.plugins.ForPlugin(override_entry.id, protect);
      // Options reach an OpenCode plugin as JSON text: what was written must read back.
      FUZZ_CHECK(settings.options_json.empty() ||
                 plugline::core::ParseJson(settings.options_json, "options").ok());
    }
    (void)config.plugins.ProjectOverrideKeys(override_entry.id);
  }
  for (const plugline::core::ConfigDir& dir : config.plugins.dirs) {
    FUZZ_CHECK(!dir.path.empty());
  }
  plugline::core::JsPluginSettings defaults = config.plugins.ForPlugin("fuzz-plugin");
  (void)defaults;
  return 0;
}

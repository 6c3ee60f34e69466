// plugin.yaml of an exec plugin: the whole input is the manifest's text.
// exec::ParseExecPluginManifest is LoadExecPluginManifest without the file system.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dispatcher.h"
#include "exec/exec_plugin.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  absl::StatusOr<plugline::exec::ExecPluginManifest> manifest =
      plugline::exec::ParseExecPluginManifest(text, "/fuzz/plugins/p", &warnings);
  if (!manifest.ok()) {
    // Every error names the file it is about.
    FUZZ_CHECK(manifest.status().message().find("/fuzz/plugins/p/plugin.yaml") !=
               std::string_view::npos);
    return 0;
  }
  // What the rest of plugline relies on once a manifest loaded.
  FUZZ_CHECK(!manifest->name.empty());
  FUZZ_CHECK(!manifest->command.empty());
  FUZZ_CHECK(manifest->timeout_ms > 0);
  for (const std::string& hook : manifest->hooks) {
    FUZZ_CHECK(plugline::core::IsCanonicalEvent(hook));
    FUZZ_CHECK(std::count(manifest->hooks.begin(), manifest->hooks.end(), hook) == 1);
  }
  for (const auto& [name, value] : manifest->env) {
    FUZZ_CHECK(!name.empty() && name.find('=') == std::string::npos);
  }
  return 0;
}

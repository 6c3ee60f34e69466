// What plugline's own programs need of a Host beyond the public API (plugline/host.h): the
// `plugline` client and server split one shaping between two processes, and the server keeps
// hosts loaded while their files stay as they were. Not for embedders.
#ifndef PLUGLINE_CORE_HOST_INTERNAL_H_
#define PLUGLINE_CORE_HOST_INTERNAL_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/backends.h"
#include "core/config.h"
#include "core/output_capture.h"
#include "plugline/host.h"

namespace plugline::core {

// A path a host read its configuration or plugins from. `depth` 0: the path itself; n: also
// what a folder holds, n levels down.
struct WatchedPath {
  std::string path;
  int depth = 0;
};

}  // namespace plugline::core

namespace plugline::internal {

struct HostAccess {
  // Host::Create with these backends (core::CreateHost).
  static absl::StatusOr<std::unique_ptr<Host>> Create(HostOptions options,
                                                      const core::BackendFactory& backends);
  // How the host captures outputs now.
  static core::CaptureSettings CaptureSettings(Host& host);
  // Shapes an output captured elsewhere with these settings, as OutputCapture::Finish does
  // (statistics recorded, failures masked and logged). InvalidArgument for a command that is
  // not valid UTF-8 or an unknown shaper; `captured` is unchanged then. With `queue_stats`,
  // the statistics are queued, to be written by FlushStats (the server writes those of many
  // shapings at once); a host that is destroyed writes what it has queued.
  static absl::StatusOr<ShapeResult> ShapeCaptured(Host& host, std::string_view command,
                                                   std::optional<int> exit_code,
                                                   std::string_view shaper,
                                                   const core::CapturedOutput& captured,
                                                   bool queue_stats = false,
                                                   std::optional<uint64_t> max_tokens = std::nullopt);
  // Writes the statistics ShapeCaptured queued (problems become the host's diagnostics).
  static void FlushStats(Host& host);
  // Every file and folder the configuration and plugins came from, as the last load or
  // reload found them: what changes when a plugin is added, edited or removed, or a config
  // file or the trust store is.
  static std::vector<core::WatchedPath> WatchedPaths(Host& host);
  // Whether some enabled plugin is a JS module (its use would load V8). Loads nothing.
  static bool HasJsPlugins(Host& host);
  // How many plugins the host found (loaded or not, broken included).
  static size_t PluginCount(Host& host);
  // The global config's adapters.<agent> (core::AdapterConfig; empty when it has none).
  static core::AdapterConfig Adapter(Host& host, std::string_view agent);
};

}  // namespace plugline::internal

#endif  // PLUGLINE_CORE_HOST_INTERNAL_H_

// What a Host is built from beyond core: the built-in shapers and the loaders of plugin files
// (exec hook folders, JS modules). Core knows them only through this interface; src/host/
// wires the real ones (src/builtin, src/exec, src/js) into Host::Create, and a test may wire
// others.
#ifndef PLUGLINE_CORE_BACKENDS_H_
#define PLUGLINE_CORE_BACKENDS_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/guard_records.h"
#include "core/log.h"
#include "core/plugins.h"
#include "core/shaper.h"
#include "plugline/host.h"

namespace plugline::core {

// What the backends may use of the host being created. Valid for the host's lifetime.
struct BackendContext {
  const HostOptions* options = nullptr;
  std::string home;                // resolved
  const Log* log = nullptr;        // the host's log
  GuardRecords* guards = nullptr;  // the last good loads of fail-closed exec plugins
  // Adds warnings (the state of a plugin, a file it read) to the host's diagnostics and log,
  // under `source` ("plugins").
  std::function<void(std::string_view source, const std::vector<std::string>& warnings)> warn;
};

struct Backends {
  // The built-in shapers, in priority order.
  std::vector<std::shared_ptr<Shaper>> builtin_shapers;
  // Loads one plugin file the registry found (PluginRegistry::Loader).
  PluginRegistry::Loader load;
  // What a plugin's manifest says even when it is broken (PluginRegistry::Prober); may be
  // empty.
  PluginRegistry::Prober probe;
};

using BackendFactory = std::function<Backends(const BackendContext& context)>;

// Host::Create with the given backends: resolves the home, opens the log, the statistics and
// the guard records, asks `backends` for the shapers and loaders, and loads the configuration.
absl::StatusOr<std::unique_ptr<Host>> CreateHost(HostOptions options,
                                                 const BackendFactory& backends);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_BACKENDS_H_

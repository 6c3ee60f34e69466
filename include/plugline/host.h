// plugline's C++ API: a Host that shapes command output (and, in later versions, dispatches
// hook events to plugins).
//
// This header is the C++ face of the same engine that libplugline.so exposes through the
// stable C ABI in <plugline/plugline.h>. It is for C++ programs that build plugline as part of
// their own CMake project (add_subdirectory, target plugline::core). Programs that link the
// installed shared library use the C ABI, which is the only interface with a stability promise.
//
// Thread safety: a Host may be used from several threads at once; calls are serialized
// internally where they touch shared state.
#ifndef PLUGLINE_HOST_H_
#define PLUGLINE_HOST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace plugline {

// "0.1.0": the library's version.
std::string_view VersionString();

// Counts the tokens of a text the way the host's model would. Must be thread-safe.
using TokenCountFunction = std::function<uint64_t(std::string_view text)>;

struct HostOptions {
  // The state directory. Empty: $PLUGLINE_HOME, or ~/.plugline when that is unset.
  std::string home;
  // The project directory whose .plugline/ adds configuration and plugins. Empty: none.
  std::string project_dir;
  // Store raw outputs under <home>/outputs so that summaries can point at them. Set it to false
  // only when the host keeps raw outputs itself: summaries then name no path. When storing is
  // on but fails (disk full, unwritable home), nothing is elided: the full output is returned
  // and ShapeResult::fallback says why.
  bool store_outputs = true;
  // The host's own token counter. Empty: plugline's documented estimate (docs/tokens.md).
  TokenCountFunction token_counter;
  // Keep per-shaper statistics in <home>/stats.json (also switchable in config.yaml).
  bool record_stats = true;
};

enum class RenderMode { kSummary, kRaw };

struct ShapeRequest {
  std::string_view command;        // the command line as the agent ran it
  std::string_view output;         // its output, stdout and stderr interleaved; any bytes
  std::optional<int> exit_code;    // nullopt when unknown (e.g. still running, or killed)
  std::string_view shaper;         // non-empty: use this shaper id, skipping match()
};

// The shaping result; ToJson() gives the JSON of DESIGN.md "What the host gets back".
struct ShapeResult {
  std::string summary;             // what the model should read
  RenderMode render_mode = RenderMode::kSummary;
  std::string shaper;              // id of the shaper that produced the summary
  double confidence = 0;           // its match() confidence
  std::string raw_path;            // where the raw output is stored; empty if not stored
  uint64_t raw_bytes = 0;
  uint64_t raw_lines = 0;
  uint64_t tokens_raw = 0;
  uint64_t tokens_summary = 0;
  std::optional<std::string> fallback;  // why the summary is not the shaper's, if it is not
  // Shapers left out because their match() failed (threw, timed out, wrong result type).
  struct Skipped {
    std::string shaper;
    std::string why;     // "match() failed" | "match() timed out"
    std::string detail;  // the error
  };
  std::vector<Skipped> skipped;

  std::string ToJson() const;
};

class Host {
 public:
  // Opens the state directory and loads configuration. Configuration problems do not fail
  // creation: they are reported in diagnostics() and defaults are used.
  static absl::StatusOr<std::unique_ptr<Host>> Create(HostOptions options);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Shapes one command's output. Fails only on invalid arguments (a command that is not valid
  // UTF-8, an unknown forced shaper); shaper failures fall back and are reported in the result.
  absl::StatusOr<ShapeResult> Shape(const ShapeRequest& request);

  // The per-shaper statistics as JSON (docs/stats.md); "{}"-like empty stats when none yet.
  absl::StatusOr<std::string> StatsJson() const;

  // Every plugin and built-in shaper with its state, as JSON (docs/plugins-shapers.md):
  // {"plugins": [{"id", "kind", "tier", "state", "reason", "path", "source", "version",
  // "description"}]}. Loads plugins not loaded yet, so broken ones show their reason.
  std::string PluginsJson();

  // Loads every plugin not loaded yet (they load on first use otherwise). A host that knows
  // a shaping is coming — `plugline run` while the command runs — can call this on another
  // thread so the first Shape() does not wait for plugins to load.
  void Preload();

  // Re-reads configuration and rescans plugin directories. Unchanged plugins stay loaded;
  // new, changed and previously broken ones load on next use. Diagnostics are replaced.
  void Reload();

  // The resolved state directory.
  const std::string& home() const;
  // Problems found while opening or reloading (unreadable config, bad keys, unreadable
  // plugin directories), one message each.
  std::vector<std::string> diagnostics() const;

 private:
  struct Impl;
  explicit Host(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace plugline

#endif  // PLUGLINE_HOST_H_

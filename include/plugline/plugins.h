// What a Host lists and runs of its plugins, as typed results: Host::Plugins(), Host::Tools()
// and Host::ExecuteTool() (include/plugline/host.h). Each has ToJson(), the JSON the C ABI and
// the bindings give (docs/plugins-shapers.md, docs/plugins-opencode.md).
#ifndef PLUGLINE_PLUGINS_H_
#define PLUGLINE_PLUGINS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plugline {

// Where a plugin installed from a catalog came from (`plugline plugins --install`).
struct InstallRecord {
  std::string version;
  std::string catalog;       // the index URL it was listed in
  std::string url;           // where it was downloaded from
  std::string sha256;        // of the download, as the catalog listed it and as it arrived
  uint64_t size = 0;         // bytes of the download
  bool verified = false;     // size and SHA-256 matched the catalog entry
  bool signed_index = false;  // the catalog entry came from an index whose signature verified
  std::string kind, tier, format;
  std::string path;          // the file or folder in <home>/plugins
  std::string installed_at;  // RFC 3339, UTC
  std::string name, author, description, homepage;
  std::string isolation;     // "process" or "in-process": how it runs unless config.yaml says
};

// One plugin, built-in shaper or native hook of a host.
struct PluginInfo {
  std::string id;
  std::string kind;    // "builtin-shaper", "js-shaper", "exec-hook", "opencode", "native-hook"
  // "built-in", "community", "premium": a JS shaper's meta.tier, "community" for other
  // plugins; "" when unknown (broken)
  std::string tier;
  std::string state;   // "enabled", "disabled", "broken", "shadowed", "untrusted"
  std::string reason;  // why it is broken, disabled, shadowed or untrusted; "" when enabled
  std::string path;    // its file; "" for built-ins
  std::string source;  // "built-in", "global", "project", "config", "host"
  std::string runtime;  // a loaded JS plugin's: "node" or "sandboxed"; "" otherwise
  std::string version;
  std::string description;
  std::vector<std::string> events;    // hooks: the events it runs on
  std::vector<std::string> warnings;  // problems that did not stop it loading
  bool protect = false;               // a protected global plugin
  // A shaper's statistics (docs/stats.md); none for plugins that shape nothing.
  struct Stats {
    int64_t match_count = 0, shape_count = 0, fail_count = 0;
    int64_t tokens_saved = 0;  // negative when summaries were larger than the outputs
    double average_shape_ms = 0;
  };
  std::optional<Stats> stats;
  // Where it came from, when `plugline plugins --install` put it in place.
  std::optional<InstallRecord> install;
};

struct PluginList {
  std::vector<PluginInfo> plugins;
  // {"plugins": [{"id", "kind", "tier", "state", "reason", "path", "source", "runtime",
  // "version", "description", "events", "warnings", "protected", "stats", "install"}]}.
  std::string ToJson() const;
};

// A tool an OpenCode plugin adds to the agent.
struct ToolInfo {
  std::string name;
  std::string description;
  std::string parameters_json;  // its arguments' JSON Schema (an object)
  std::string plugin;           // the plugin that defines it
  // It has the name of one of the host's own tools (Host::Tools' `builtin_tools`), and takes
  // precedence over it.
  bool overrides_builtin = false;
};

struct ToolList {
  std::vector<ToolInfo> tools;
  // {"tools": [{"name", "description", "parameters", "plugin", "overrides_builtin"}]}.
  std::string ToJson() const;
};

// What a plugin tool answered. A tool that throws, or gets arguments its schema refuses, is
// ok = false with the error; so is a plugin that ran out of time or memory.
struct ToolResult {
  bool ok = false;
  std::string output;         // what its execute() returned, when ok
  std::string error;          // why it failed, when not ok (secrets masked)
  std::string title;
  std::string metadata_json;  // its metadata as JSON; "" when none
  std::string plugin;         // the plugin that has the tool
  // {"ok", "output", "error" (null when ok), "title", "metadata" (null when none), "plugin"}.
  std::string ToJson() const;
};

}  // namespace plugline

#endif  // PLUGLINE_PLUGINS_H_

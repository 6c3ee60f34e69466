// OpenCode's own plugin locations, read when the global config says `plugins.opencode: true`
// (docs/plugins-opencode.md "OpenCode's own locations"), so that an OpenCode user's setup works
// in plugline without copying anything:
//   $XDG_CONFIG_HOME/opencode (default ~/.config/opencode): opencode.json and opencode.jsonc,
//     whose `plugin` list names npm packages ("name", "name@version", [name, options]) and
//     local plugins ("file:///abs/path", "file://relative/to/the/config/folder");
//   its plugins/ (and the older plugin/) folder;
//   $XDG_CACHE_HOME/opencode/node_modules (default ~/.cache/opencode/node_modules): where
//     OpenCode installs the packages of that list.
#ifndef PLUGLINE_CORE_OPENCODE_CONFIG_H_
#define PLUGLINE_CORE_OPENCODE_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

namespace plugline::core {

// $XDG_CONFIG_HOME/opencode, or ~/.config/opencode.
std::string OpenCodeConfigDir();
// $XDG_CACHE_HOME/opencode/node_modules, or ~/.cache/opencode/node_modules.
std::string OpenCodeCacheModules();

// One entry of an opencode.json `plugin` list.
struct OpenCodePluginEntry {
  std::string package;       // an npm package spec ("name", "name@1.2.3"); "" for a file
  std::string path;          // a local plugin (a file:// entry), absolute; "" for a package
  std::string options_json;  // [name, options]: the options as JSON; "" when none
};

// The `plugin` lists of <dir>/opencode.json and <dir>/opencode.jsonc (comments and trailing
// commas allowed), in that order. A file that is missing is skipped; one that cannot be read or
// parsed, or an entry that is not understood, adds a diagnostic naming the file and is skipped.
std::vector<OpenCodePluginEntry> ReadOpenCodePlugins(const std::string& dir,
                                                     std::vector<std::string>* diagnostics);

// JSONC (JSON with // and /* */ comments and trailing commas, as OpenCode's config files) as
// plain JSON: comments become spaces (line numbers stay), trailing commas are dropped. Strings
// are left alone.
std::string JsoncToJson(std::string_view text);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_OPENCODE_CONFIG_H_

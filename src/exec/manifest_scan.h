// What can still be told about an exec plugin whose plugin.yaml does not load: whether it
// fails closed, whether it is protected, its name and its events. A broken fail-closed plugin
// must keep denying (docs/security.md), so plugline has to know it was fail-closed even when
// its YAML no longer parses.
#ifndef PLUGLINE_EXEC_MANIFEST_SCAN_H_
#define PLUGLINE_EXEC_MANIFEST_SCAN_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plugline::exec {

struct ExecManifestHints {
  bool readable = false;     // plugin.yaml could be read at all
  bool parsed = false;       // it is YAML that parses into a mapping
  std::string name;          // `name` when it can be read; "" otherwise
  bool fail_closed = false;  // `on_error: closed`
  bool protect = false;      // `protected: true`
  // The events under `hooks`, when they can be read and every one is canonical; nullopt when
  // they cannot be told (the caller then assumes every event). Absent `hooks`: empty.
  std::optional<std::vector<std::string>> hooks;
};

// Reads `<dir>/plugin.yaml` (its first 1 MiB) leniently, never failing:
// - When it parses into a mapping, each key is read on its own, so one bad field does not hide
//   the others: `on_error` is closed when it is the string "closed"; `protected` when it is
//   true; `name` when it is a scalar; `hooks` when it is a list of canonical event names. A key
//   whose value has an unexpected type is read from the text as below.
// - Otherwise (a YAML syntax error, a truncated file) the text is scanned: `on_error: closed`
//   and `protected: true` count wherever they appear as a key and value outside a comment
//   (quoted or not, in block or flow style), and `name: x` at the start of a line gives the
//   name. A manifest that cannot be read errs towards failing closed: that is the side on
//   which a mistake is visible.
ExecManifestHints ScanExecManifest(const std::string& dir);

// The text scan alone, for tests: whether `key: value` appears as described above.
bool ManifestTextHasKeyValue(std::string_view text, std::string_view key, std::string_view value);

}  // namespace plugline::exec

#endif  // PLUGLINE_EXEC_MANIFEST_SCAN_H_

// Plugin ids, and showing text a plugin chose where a person reads it.
//
// An id names a plugin in results, listings, the log and `plugins.overrides.<id>`. A plugin
// chooses its own (a JS shaper's `meta.name`, an exec plugin's manifest `name`), so an id is
// held to a form that cannot forge a log line or reach a terminal as an escape sequence.
#ifndef PLUGLINE_CORE_PLUGIN_ID_H_
#define PLUGLINE_CORE_PLUGIN_ID_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace plugline::core {

inline constexpr size_t kMaxPluginIdLength = 64;

// 1 to 64 ASCII letters, digits, '.', '_' or '-', not starting with '.' or '-'.
bool IsValidPluginId(std::string_view id);

// What an invalid id breaks a plugin with: "<field> \"<id, escaped>\" is not a valid id (1-64
// letters, digits, '.', '_' or '-', not starting with '.' or '-')".
std::string InvalidPluginIdMessage(std::string_view field, std::string_view id);

// `text` safe to show on a terminal or in one log line: every control character — C0 (including
// newline and tab), DEL, and C1 (U+0080-U+009F, which some terminals also obey) — is written as
// an escape: \n, \r, \t, \x1b, \x7f, \u009b; a byte that is not part of valid UTF-8 as \xNN.
// Everything else, backslashes included, is unchanged.
std::string EscapeControl(std::string_view text);

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_PLUGIN_ID_H_

// Files the agents' adapters write, embedded at build time (cmake/PluglineEmbed.cmake).
#ifndef PLUGLINE_AGENTS_EMBEDDED_H_
#define PLUGLINE_AGENTS_EMBEDDED_H_

#include <string_view>

namespace plugline::embedded {

// bindings/opencode/plugline.js: plugline's OpenCode plugin, which
// `plugline install --agent opencode` writes into OpenCode's plugin folder.
extern const std::string_view kOpenCodeBridge;

}  // namespace plugline::embedded

#endif  // PLUGLINE_AGENTS_EMBEDDED_H_

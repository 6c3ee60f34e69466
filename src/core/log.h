// plugline's own log: <home>/logs/plugline.log. What plugins print (console.* of a JS plugin,
// stderr of an exec plugin) and why a plugin failed goes here, never into the agent's output.
//
// One line per message: "<UTC time> <level> <source>: <message>", with every control character
// of source and message escaped (core::EscapeControl: "\n", "\x1b", ...) so a line is a record
// and no escape sequence reaches a terminal that shows the log. Appends use O_APPEND, so several processes may log at once.
// When the file passes kMaxLogBytes it is renamed to plugline.log.1 (one generation kept).
// Every message passes through RedactSecrets (redact.h) first: API keys, tokens, passwords and
// private keys a plugin printed are masked. Messages at level "debug" (e.g. a JS plugin's load timings, console.debug) are written only
// when $PLUGLINE_DEBUG is set to a non-empty value other than "0".
#ifndef PLUGLINE_CORE_LOG_H_
#define PLUGLINE_CORE_LOG_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace plugline::core {

inline constexpr uint64_t kMaxLogBytes = 4ull << 20;

class Log {
 public:
  // `dir` is created on the first write. Empty: logging is off.
  explicit Log(std::string dir);

  // Best effort: a log that cannot be written never fails the caller.
  void Write(std::string_view level, std::string_view source, std::string_view message) const;

  // The log file's path ("" when off).
  const std::string& path() const { return path_; }

 private:
  std::string dir_;
  std::string path_;
  bool debug_ = false;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_LOG_H_

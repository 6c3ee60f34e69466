#include "exec/manifest_scan.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "core/dispatcher.h"
#include "core/fs.h"
#include "core/json.h"

namespace plugline::exec {
namespace {

constexpr size_t kMaxScanBytes = size_t{1} << 20;

// At most kMaxScanBytes of the file; nullopt when it cannot be opened. O_NONBLOCK: a FIFO put in
// place of the manifest must not block the scan.
std::optional<std::string> ReadPrefix(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buffer[16384];
  while (text.size() < kMaxScanBytes) {
    ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, kMaxScanBytes - text.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Whether position `at` of `line` is inside a comment: a '#' at the start or after a space,
// outside quotes, comes before it.
bool InComment(std::string_view line, size_t at) {
  char quote = 0;
  for (size_t i = 0; i < at; ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || IsSpace(line[i - 1]))) {
      return true;
    }
  }
  return false;
}

// `value` (optionally quoted) at the start of `rest`, followed by the end of the value.
bool StartsWithValue(std::string_view rest, std::string_view value) {
  while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
  char quote = 0;
  if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
    quote = rest.front();
    rest.remove_prefix(1);
  }
  if (!rest.starts_with(value)) return false;
  rest.remove_prefix(value.size());
  if (quote != 0) {
    if (rest.empty() || rest.front() != quote) return false;
    rest.remove_prefix(1);
  }
  while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
  return rest.empty() || rest.front() == ',' || rest.front() == '}' || rest.front() == '#';
}

std::string TextName(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with("name")) continue;
    line.remove_prefix(4);
    while (!line.empty() && IsSpace(line.front())) line.remove_prefix(1);
    if (line.empty() || line.front() != ':') continue;
    line.remove_prefix(1);
    if (size_t hash = line.find(" #"); hash != std::string_view::npos) line = line.substr(0, hash);
    while (!line.empty() && IsSpace(line.front())) line.remove_prefix(1);
    while (!line.empty() && IsSpace(line.back())) line.remove_suffix(1);
    if (line.size() >= 2 && (line.front() == '"' || line.front() == '\'') &&
        line.back() == line.front()) {
      line = line.substr(1, line.size() - 2);
    }
    return std::string(line);
  }
  return "";
}

}  // namespace

bool ManifestTextHasKeyValue(std::string_view text, std::string_view key, std::string_view value) {
  for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    // The key starts a token: line start, after a space, '{', ',', '-' or a quote.
    size_t line_start = text.rfind('\n', at);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    size_t key_start = at;
    size_t key_end = at + key.size();
    // A quoted key: "on_error": closed
    if (key_start > line_start && (text[key_start - 1] == '"' || text[key_start - 1] == '\'') &&
        key_end < text.size() && text[key_end] == text[key_start - 1]) {
      --key_start;
      ++key_end;
    }
    if (key_start > line_start) {
      char before = text[key_start - 1];
      if (!IsSpace(before) && before != '{' && before != ',' && before != '-') continue;
    }
    size_t line_end = text.find('\n', at);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    if (InComment(line, key_start - line_start)) continue;
    std::string_view rest = line.substr(key_end - line_start);
    while (!rest.empty() && IsSpace(rest.front())) rest.remove_prefix(1);
    if (rest.empty() || rest.front() != ':') continue;
    rest.remove_prefix(1);
    if (StartsWithValue(rest, value)) return true;
  }
  return false;
}

ExecManifestHints ScanExecManifest(const std::string& dir) {
  ExecManifestHints hints;
  std::optional<std::string> text = ReadPrefix(core::JoinPath(dir, "plugin.yaml"));
  if (!text.has_value()) {
    hints.hooks.reset();
    return hints;
  }
  hints.readable = true;
  const bool text_closed = ManifestTextHasKeyValue(*text, "on_error", "closed");
  const bool text_protected = ManifestTextHasKeyValue(*text, "protected", "true");
  absl::StatusOr<core::Value> doc = core::ParseYaml(*text, "plugin.yaml");
  if (!doc.ok() || !doc->is_object()) {
    hints.name = TextName(*text);
    hints.fail_closed = text_closed;
    hints.protect = text_protected;
    return hints;  // hooks unknown
  }
  hints.parsed = true;
  if (const core::Value* name = doc->Find("name"); name != nullptr) {
    if (name->is_string()) {
      hints.name = name->as_string();
    } else if (name->is_number() && name->as_integer().has_value()) {
      hints.name = std::to_string(*name->as_integer());
    }
  }
  if (const core::Value* on_error = doc->Find("on_error");
      on_error != nullptr && !on_error->is_null()) {
    hints.fail_closed = on_error->is_string() ? on_error->as_string() == "closed" : text_closed;
  }
  if (const core::Value* protect = doc->Find("protected");
      protect != nullptr && !protect->is_null()) {
    hints.protect = protect->is_bool() ? protect->as_bool() : text_protected;
  }
  const core::Value* hooks = doc->Find("hooks");
  if (hooks == nullptr || hooks->is_null()) {
    hints.hooks.emplace();
  } else if (hooks->is_array()) {
    std::vector<std::string> events;
    bool known = true;
    for (const core::Value& hook : hooks->as_array()) {
      if (!hook.is_string() || !core::IsCanonicalEvent(hook.as_string())) {
        known = false;
        break;
      }
      events.push_back(hook.as_string());
    }
    if (known) hints.hooks = std::move(events);
  }
  return hints;
}

}  // namespace plugline::exec

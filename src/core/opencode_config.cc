#include "core/opencode_config.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "core/config.h"
#include "core/fs.h"
#include "core/json.h"
#include "core/strings.h"

namespace plugline::core {
namespace {

std::string XdgDir(const char* variable, std::string_view fallback) {
  const char* value = std::getenv(variable);
  if (value != nullptr && value[0] == '/') return value;
  return ExpandTilde(fallback);
}

// A config file is small; a bigger one is not a config file.
constexpr size_t kMaxConfigBytes = 4u << 20;

}  // namespace

std::string OpenCodeConfigDir() { return JoinPath(XdgDir("XDG_CONFIG_HOME", "~/.config"), "opencode"); }

std::string OpenCodeCacheModules() {
  return JoinPath(JoinPath(XdgDir("XDG_CACHE_HOME", "~/.cache"), "opencode"), "node_modules");
}

std::string JsoncToJson(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  // Where the last comma outside a string was written, until something other than space
  // follows it: a comma followed by `}` or `]` is dropped.
  size_t pending_comma = std::string::npos;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      size_t start = i++;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      i = std::min(i + 1, text.size());
      out.append(text.substr(start, i - start));
      pending_comma = std::string::npos;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') {
        out.push_back(' ');
        ++i;
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      end = end == std::string_view::npos ? text.size() : end + 2;
      for (; i < end; ++i) out.push_back(text[i] == '\n' ? '\n' : ' ');
      continue;
    }
    if ((c == '}' || c == ']') && pending_comma != std::string::npos) out[pending_comma] = ' ';
    if (c == ',') {
      pending_comma = out.size();
    } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      pending_comma = std::string::npos;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::vector<OpenCodePluginEntry> ReadOpenCodePlugins(const std::string& dir,
                                                     std::vector<std::string>* diagnostics) {
  std::vector<OpenCodePluginEntry> entries;
  auto problem = [diagnostics](const std::string& file, absl::string_view what) {
    if (diagnostics != nullptr) diagnostics->push_back(StrCat(file, ": ", ToStd(what)));
  };
  for (const char* name : {"opencode.json", "opencode.jsonc"}) {
    const std::string file = JoinPath(dir, name);
    absl::StatusOr<std::string> text = ReadFile(file, kMaxConfigBytes);
    if (!text.ok()) {
      if (!absl::IsNotFound(text.status())) problem(file, text.status().message());
      continue;
    }
    absl::StatusOr<Value> doc = ParseJson(JsoncToJson(*text), file);
    if (!doc.ok()) {
      problem(file, doc.status().message());
      continue;
    }
    const Value* list = doc->is_object() ? doc->Find("plugin") : nullptr;
    if (list == nullptr || list->is_null()) continue;
    if (!list->is_array()) {
      problem(file, "\"plugin\" is not a list");
      continue;
    }
    for (const Value& item : list->as_array()) {
      const Value* spec = &item;
      const Value* options = nullptr;
      if (item.is_array() && !item.as_array().empty() && item.as_array().size() <= 2) {
        spec = &item.as_array()[0];
        if (item.as_array().size() == 2) options = &item.as_array()[1];
      }
      if (!spec->is_string() || spec->as_string().empty() ||
          (options != nullptr && !options->is_object() && !options->is_null())) {
        problem(file, "a \"plugin\" entry that is neither a name, a file:// URL nor [name, options] (skipped)");
        continue;
      }
      OpenCodePluginEntry entry;
      if (options != nullptr && options->is_object()) entry.options_json = ToJson(*options);
      std::string_view text_spec = spec->as_string();
      if (text_spec.starts_with("file://")) {
        std::string path(text_spec.substr(7));
        entry.path = path.starts_with("/") ? path : JoinPath(dir, path);
      } else {
        entry.package = std::string(text_spec);
      }
      entries.push_back(std::move(entry));
    }
  }
  return entries;
}

}  // namespace plugline::core

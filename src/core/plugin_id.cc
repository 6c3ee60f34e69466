#include "core/plugin_id.h"

#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendHexByte(std::string& out, unsigned char c) {
  out.append("\\x");
  out.push_back(kHex[c >> 4]);
  out.push_back(kHex[c & 0xf]);
}

}  // namespace

bool IsValidPluginId(std::string_view id) {
  if (id.empty() || id.size() > kMaxPluginIdLength || id[0] == '.' || id[0] == '-') return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string InvalidPluginIdMessage(std::string_view field, std::string_view id) {
  return StrCat(field, " \"", EscapeControl(id.substr(0, 200)), id.size() > 200 ? "…" : "",
                "\" is not a valid id (1-64 letters, digits, '.', '_' or '-', not starting with "
                "'.' or '-')");
}

std::string EscapeControl(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    if (c < 0x20 || c == 0x7f) {
      switch (c) {
        case '\n': out.append("\\n"); break;
        case '\r': out.append("\\r"); break;
        case '\t': out.append("\\t"); break;
        default: AppendHexByte(out, c);
      }
      ++i;
      continue;
    }
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      AppendHexByte(out, c);
      ++i;
      continue;
    }
    if (length == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      out.append("\\u00");  // a C1 control: U+0080-U+009F
      const unsigned char code = static_cast<unsigned char>(text[i + 1]);
      out.push_back(kHex[code >> 4]);
      out.push_back(kHex[code & 0xf]);
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

}  // namespace plugline::core

#include "core/plugin_id.h"

#include "core/strings.h"

namespace plugline::core {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendHexByte(std::string& out, unsigned char c) {
  out.append("\\x");
  out.push_back(kHex[c >> 4]);
  out.push_back(kHex[c & 0xf]);
}

// The length of the valid UTF-8 sequence at the start of `s` (1-4), or 0 when it is not one.
size_t Utf8SequenceLength(std::string_view s) {
  const auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (lead == 0xE0 && byte(1) < 0xA0) return 0;  // overlong
    if (lead == 0xED && byte(1) >= 0xA0) return 0;  // a surrogate
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (lead == 0xF0 && byte(1) < 0x90) return 0;  // overlong
    if (lead == 0xF4 && byte(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
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
    const size_t length = Utf8SequenceLength(text.substr(i));
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

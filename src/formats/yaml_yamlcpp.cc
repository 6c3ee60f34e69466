// ParseYaml (declared in core/json.h) on top of yaml-cpp. yaml-cpp reports errors by
// throwing; every exception is caught here and becomes an absl::Status naming the source.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/json.h"
#include "core/text.h"
#include "formats/duplicate_keys.h"

namespace plugline::core {
namespace {

// Bounds that keep a hostile document (deep nesting, alias bombs) from exhausting memory.
constexpr int kMaxDepth = 128;
constexpr size_t kMaxNodes = 1'000'000;

struct Converter {
  std::string_view source;
  size_t nodes = 0;

  absl::Status Error(const YAML::Node& node, std::string_view what) {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) return absl::InvalidArgumentError(StrCat(source, ": ", what));
    return absl::InvalidArgumentError(
        StrCat(source, ":", mark.line + 1, ":", mark.column + 1, ": ", what));
  }

  // The YAML 1.2 core schema's patterns for plain scalars, checked by hand rather than with
  // std::regex, whose compiling alone cost every command about a millisecond:
  //   int   [-+]?[0-9]+
  //   float [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  static size_t Digits(std::string_view s, size_t at) {
    size_t end = at;
    while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
    return end - at;
  }
  static bool IsCoreInt(std::string_view s) {
    const size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    return s.size() > sign && Digits(s, sign) == s.size() - sign;
  }
  static bool IsCoreFloat(std::string_view s) {
    size_t at = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (at < s.size() && s[at] == '.') {
      const size_t fraction = Digits(s, at + 1);
      if (fraction == 0) return false;
      at += 1 + fraction;
    } else {
      const size_t whole = Digits(s, at);
      if (whole == 0) return false;
      at += whole;
      if (at < s.size() && s[at] == '.') at += 1 + Digits(s, at + 1);
    }
    if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
      ++at;
      if (at < s.size() && (s[at] == '-' || s[at] == '+')) ++at;
      const size_t exponent = Digits(s, at);
      if (exponent == 0) return false;
      at += exponent;
    }
    return at == s.size();
  }

  static Value ResolvePlain(const std::string& s) {
    // YAML 1.2 core schema for untagged plain scalars.
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return Value();
    if (s == "true" || s == "True" || s == "TRUE") return Value(true);
    if (s == "false" || s == "False" || s == "FALSE") return Value(false);
    if (IsCoreInt(s)) {
      int64_t i;
      if (absl::SimpleAtoi(s, &i)) return Value(i);
      double d;
      if (absl::SimpleAtod(s, &d)) return Value(d);
    }
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
      int64_t i;
      if (s[1] == 'x' && absl::SimpleHexAtoi(s.substr(2), &i)) return Value(i);
      if (s[1] == 'o') {
        char* end = nullptr;
        long long v = std::strtoll(s.c_str() + 2, &end, 8);
        if (end && *end == '\0') return Value(static_cast<int64_t>(v));
      }
    }
    if (IsCoreFloat(s)) {
      double d;
      if (absl::SimpleAtod(s, &d)) return Value(d);
    }
    std::string lower = absl::AsciiStrToLower(s);
    if (lower == ".inf" || lower == "+.inf") return Value(std::numeric_limits<double>::infinity());
    if (lower == "-.inf") return Value(-std::numeric_limits<double>::infinity());
    if (lower == ".nan") return Value(std::nan(""));
    return Value(s);
  }

  absl::StatusOr<Value> Convert(const YAML::Node& node, int depth) {
    if (++nodes > kMaxNodes) return Error(node, "document too large (more than 1,000,000 nodes)");
    if (depth > kMaxDepth) return Error(node, "nesting too deep (more than 128 levels)");
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return Value();
      case YAML::NodeType::Scalar:
        // Tag "!" marks a quoted (non-plain) scalar: always a string.
        if (node.Tag() == "!" || (node.Tag() != "?" && !node.Tag().empty())) {
          return Value(node.Scalar());
        }
        return ResolvePlain(node.Scalar());
      case YAML::NodeType::Sequence: {
        ValueArray items;
        for (const YAML::Node& item : node) {
          auto converted = Convert(item, depth + 1);
          if (!converted.ok()) return converted.status();
          items.push_back(*std::move(converted));
        }
        return Value(std::move(items));
      }
      case YAML::NodeType::Map: {
        ValueObject members;
        // Keys are views into the nodes' own strings, which `node` keeps alive.
        formats::KeySet<YAML::Mark> keys;
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) return Error(kv.first, "mapping keys must be scalars");
          if (const YAML::Mark* first = keys.Insert(kv.first.Scalar(), kv.first.Mark())) {
            std::string what = "duplicate key ";
            AppendJsonString(what, kv.first.Scalar());
            if (!first->is_null()) StrAppend(&what, " (first at line ", first->line + 1, ")");
            return Error(kv.first, what);
          }
          auto converted = Convert(kv.second, depth + 1);
          if (!converted.ok()) return converted.status();
          members.emplace_back(kv.first.Scalar(), *std::move(converted));
        }
        return Value(std::move(members));
      }
    }
    return Value();
  }
};

// Where the first byte that is not UTF-8 is, as "line:column" (1-based, columns counted in
// characters), and that byte.
std::string FirstInvalidUtf8(std::string_view text) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = 1;
    if (c >= 0x80) {
      length = Utf8SequenceLength(text, i);
      if (length == 0) {
        return absl::StrCat(line, ":", column, ": invalid YAML: not UTF-8 (byte 0x",
                            absl::Hex(c, absl::kZeroPad2), ")");
      }
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
  return "";
}

}  // namespace

absl::StatusOr<Value> ParseYaml(std::string_view text, std::string_view source) {
  // YAML is Unicode text. A document that is not UTF-8 is refused, naming where: its strings
  // reach plugins as JSON, where invalid bytes become U+FFFD, so two keys that differ only in
  // such bytes would become one key written twice. (UTF-16 and UTF-32, which start with a
  // byte order mark, are left to yaml-cpp, which reads them as Unicode.)
  const bool utf16_or_32 = text.starts_with("\xFE\xFF") || text.starts_with("\xFF\xFE") ||
                           text.starts_with(std::string_view("\0\0\xFE\xFF", 4));
  if (!utf16_or_32 && !IsValidUtf8(text)) {
    return absl::InvalidArgumentError(StrCat(source, ":", FirstInvalidUtf8(text)));
  }
  try {
    YAML::Node root = YAML::Load(std::string(text));
    Converter converter{source};
    return converter.Convert(root, 0);
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) {
      return absl::InvalidArgumentError(StrCat(source, ": invalid YAML: ", e.msg));
    }
    return absl::InvalidArgumentError(StrCat(source, ":", e.mark.line + 1, ":",
                                                   e.mark.column + 1, ": invalid YAML: ", e.msg));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(StrCat(source, ": invalid YAML: ", e.what()));
  }
}

}  // namespace plugline::core

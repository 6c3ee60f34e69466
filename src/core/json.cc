#include "core/json.h"

#include <cmath>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/text.h"

namespace plugline::core {

const Value* Value::Find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : as_object()) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string Value::StringMember(std::string_view key) const {
  const Value* v = Find(key);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

int64_t Value::IntegerMember(std::string_view key) const {
  const Value* v = Find(key);
  return v != nullptr && v->is_number() ? v->as_integer().value_or(0) : 0;
}

void Value::Set(std::string_view key, Value value) {
  if (is_null()) data_ = ValueObject{};
  for (auto& [k, v] : as_object()) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  as_object().emplace_back(std::string(key), std::move(value));
}

std::optional<int64_t> Value::as_integer() const {
  if (!is_number()) return std::nullopt;
  double d = as_number();
  if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 9007199254740992.0) {
    return std::nullopt;
  }
  return static_cast<int64_t>(d);
}

std::string_view Value::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "an array";
    case Kind::kObject: return "an object";
  }
  return "?";
}

void AppendJsonString(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  // Sanitize once up front only when needed; the common case is valid UTF-8.
  std::string sanitized;
  if (!IsValidUtf8(text)) {
    sanitized = SanitizeUtf8(text);
    text = sanitized;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  size_t run_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
  }
  out.append(text.data() + run_start, text.size() - run_start);
  out.push_back('"');
}

namespace {

void AppendNumber(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out.append("null");  // JSON has no NaN or infinity
    return;
  }
  if (std::trunc(d) == d && std::fabs(d) < 1e15) {
    StrAppend(&out, static_cast<int64_t>(d));
    return;
  }
  char buf[32];
  // Shortest text that reads back as the same double (0.9, not 0.90000000000000002). A large
  // whole number in scientific notation: the shortest form of 4.4444444444444434e19 is its 20
  // digits, and an integer beyond 64 bits is one ParseJson (simdjson) refuses.
  auto [end, ec] = std::trunc(d) == d
                       ? std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, ec == std::errc() ? end : buf);
}

void AppendValue(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: out.append("null"); break;
    case Value::Kind::kBool: out.append(v.as_bool() ? "true" : "false"); break;
    case Value::Kind::kNumber: AppendNumber(out, v.as_number()); break;
    case Value::Kind::kString: AppendJsonString(out, v.as_string()); break;
    case Value::Kind::kArray: {
      out.push_back('[');
      bool first = true;
      for (const Value& item : v.as_array()) {
        if (!first) out.push_back(',');
        first = false;
        AppendValue(out, item);
      }
      out.push_back(']');
      break;
    }
    case Value::Kind::kObject: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : v.as_object()) {
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(out, key);
        out.push_back(':');
        AppendValue(out, item);
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace

std::string ToJson(const Value& value) {
  std::string out;
  AppendValue(out, value);
  return out;
}

void JsonWriter::Separate() {
  if (need_comma_) out_.push_back(',');
  need_comma_ = true;
}

JsonWriter& JsonWriter::BeginObject() {
  Separate();
  out_.push_back('{');
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::EndObject() {
  out_.push_back('}');
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::BeginArray() {
  Separate();
  out_.push_back('[');
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::EndArray() {
  out_.push_back(']');
  need_comma_ = true;
  return *this;
}
JsonWriter& JsonWriter::Key(std::string_view key) {
  Separate();
  AppendJsonString(out_, key);
  out_.push_back(':');
  need_comma_ = false;
  return *this;
}
JsonWriter& JsonWriter::String(std::string_view s) {
  Separate();
  AppendJsonString(out_, s);
  return *this;
}
JsonWriter& JsonWriter::Int(int64_t i) {
  Separate();
  StrAppend(&out_, i);
  return *this;
}
JsonWriter& JsonWriter::Double(double d) {
  Separate();
  AppendNumber(out_, d);
  return *this;
}
JsonWriter& JsonWriter::Bool(bool b) {
  Separate();
  out_.append(b ? "true" : "false");
  return *this;
}
JsonWriter& JsonWriter::Null() {
  Separate();
  out_.append("null");
  return *this;
}
JsonWriter& JsonWriter::Raw(std::string_view json) {
  Separate();
  out_.append(json);
  return *this;
}
JsonWriter& JsonWriter::Value(const core::Value& value) {
  Separate();
  AppendValue(out_, value);
  return *this;
}

}  // namespace plugline::core

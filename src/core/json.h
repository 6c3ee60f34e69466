// JSON in plugline's core: a small value tree, a writer, and the parse entry point.
//
// Parsing is implemented in src/formats/ with simdjson; core sees only these declarations, so
// no simdjson type reaches core. The same Value tree carries YAML documents (ParseYaml), which
// lets configuration code read both formats the same way.
#ifndef PLUGLINE_CORE_JSON_H_
#define PLUGLINE_CORE_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace plugline::core {

class Value;
using ValueArray = std::vector<Value>;
// Object members keep their source order; lookups are linear, which is what small
// configuration and protocol objects want.
using ValueObject = std::vector<std::pair<std::string, Value>>;

class Value {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : data_(b) {}
  Value(double d) : data_(d) {}
  Value(int i) : data_(static_cast<double>(i)) {}
  Value(int64_t i) : data_(static_cast<double>(i)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(std::string_view s) : data_(std::string(s)) {}
  Value(const char* s) : data_(std::string(s)) {}
  Value(ValueArray a) : data_(std::move(a)) {}
  Value(ValueObject o) : data_(std::move(o)) {}

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kNumber; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // Accessors require the matching kind (checked by the caller with is_*()).
  bool as_bool() const { return std::get<bool>(data_); }
  double as_number() const { return std::get<double>(data_); }
  const std::string& as_string() const { return std::get<std::string>(data_); }
  const ValueArray& as_array() const { return std::get<ValueArray>(data_); }
  ValueArray& as_array() { return std::get<ValueArray>(data_); }
  const ValueObject& as_object() const { return std::get<ValueObject>(data_); }
  ValueObject& as_object() { return std::get<ValueObject>(data_); }

  // The member `key` of an object, or nullptr (also when this is not an object).
  const Value* Find(std::string_view key) const;
  // The string member `key` of an object; empty when there is none or it is something else.
  std::string StringMember(std::string_view key) const;
  // The integer member `key` of an object; 0 when there is none or it is no integer.
  int64_t IntegerMember(std::string_view key) const;
  // Sets or replaces member `key`; this must be an object (a null Value becomes one).
  void Set(std::string_view key, Value value);

  // The number as an integer when it is one exactly (e.g. 5000 but not 1.5 or 1e300).
  std::optional<int64_t> as_integer() const;

  // A short human name of the kind for error messages: "a string", "an object", ...
  static std::string_view KindName(Kind kind);

 private:
  std::variant<std::monostate, bool, double, std::string, ValueArray, ValueObject> data_;
};

// What ParseJson does with a key that appears twice in one object. Readers disagree on which
// copy counts (simdjson and Value::Find take the first, Python's json and JavaScript's
// JSON.parse the last), so a plugin and the host could act on different values.
enum class DuplicateKeys {
  kReject,    // an error: everything plugline is given (answers, payloads, state, manifests)
  kLastWins,  // the last copy, in the first one's place: for files Node reads (package.json)
};

// Parses one JSON document (RFC 8259) with simdjson. `source` names where the text came from
// ("plugin audit-log stdout", "/home/u/.plugline/stats.json") and starts every error message.
// A duplicate key is InvalidArgument by default: `<source>: duplicate key "deny" in the
// top-level object (a key may appear only once)`, or `in the object at plugins.overrides[2]`.
// Checking costs a linear scan per small object and a hash set per large one.
absl::StatusOr<Value> ParseJson(std::string_view text, std::string_view source,
                                DuplicateKeys duplicates = DuplicateKeys::kReject);

// Parses one YAML document with yaml-cpp. Plain scalars resolve as YAML 1.2's core schema
// (null, true/false, integers, floats); quoted scalars stay strings. An empty document is
// null. Errors name `source` and the line and column. A key that appears twice in one mapping
// is an error naming both lines (`<source>:4:1: duplicate key "on_error" (first at line 2)`):
// YAML 1.2 forbids it, and other readers resolve it differently.
absl::StatusOr<Value> ParseYaml(std::string_view text, std::string_view source);

// Serializes `value` as compact JSON.
std::string ToJson(const Value& value);

// Appends `text` as a JSON string literal (with quotes). Invalid UTF-8 sequences are written
// as U+FFFD so the result is always valid JSON; control characters are escaped.
void AppendJsonString(std::string& out, std::string_view text);

// Builds compact JSON incrementally without an intermediate tree:
//   JsonWriter w; w.BeginObject(); w.Key("a"); w.Int(1); w.EndObject(); w.str();
// Commas are inserted automatically. The writer does not validate nesting.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view s);
  JsonWriter& Int(int64_t i);
  JsonWriter& Double(double d);
  JsonWriter& Bool(bool b);
  JsonWriter& Null();
  // Writes `json` verbatim as one value; the caller guarantees it is valid JSON.
  JsonWriter& Raw(std::string_view json);
  JsonWriter& Value(const core::Value& value);

  const std::string& str() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  void Separate();
  std::string out_;
  bool need_comma_ = false;
};

}  // namespace plugline::core

#endif  // PLUGLINE_CORE_JSON_H_

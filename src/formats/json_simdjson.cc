// ParseJson and IsValidUtf8 (declared in core/json.h and core/text.h) on top of simdjson.
#include <simdjson.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/json.h"
#include "core/text.h"

namespace plugline::core {
namespace {

Value Convert(simdjson::dom::element element) {
  switch (element.type()) {
    case simdjson::dom::element_type::NULL_VALUE: return Value();
    case simdjson::dom::element_type::BOOL: return Value(bool(element.get_bool().value_unsafe()));
    case simdjson::dom::element_type::INT64:
      return Value(static_cast<double>(element.get_int64().value_unsafe()));
    case simdjson::dom::element_type::UINT64:
      return Value(static_cast<double>(element.get_uint64().value_unsafe()));
    case simdjson::dom::element_type::DOUBLE: return Value(element.get_double().value_unsafe());
    case simdjson::dom::element_type::STRING:
      return Value(std::string(element.get_string().value_unsafe()));
    case simdjson::dom::element_type::ARRAY: {
      ValueArray items;
      // Copy the array out of the simdjson_result before iterating: ranging over
      // value_unsafe() of a temporary result would dangle.
      simdjson::dom::array array = element.get_array().value_unsafe();
      for (simdjson::dom::element item : array) {
        items.push_back(Convert(item));
      }
      return Value(std::move(items));
    }
    case simdjson::dom::element_type::OBJECT: {
      ValueObject members;
      simdjson::dom::object object = element.get_object().value_unsafe();
      for (simdjson::dom::key_value_pair field : object) {
        members.emplace_back(std::string(field.key), Convert(field.value));
      }
      return Value(std::move(members));
    }
  }
  return Value();
}

}  // namespace

absl::StatusOr<Value> ParseJson(std::string_view text, std::string_view source) {
  // One parser per thread: simdjson parsers reuse their buffers across documents.
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  auto error = parser.parse(padded).get(root);
  if (error) {
    std::string_view what = simdjson::error_message(error);
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) what = "empty input";
    return absl::InvalidArgumentError(StrCat(source, ": invalid JSON: ", what));
  }
  return Convert(root);
}

bool IsValidUtf8(std::string_view text) {
  return simdjson::validate_utf8(text.data(), text.size());
}

}  // namespace plugline::core

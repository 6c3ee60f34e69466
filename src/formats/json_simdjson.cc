// ParseJson and IsValidUtf8 (declared in core/json.h and core/text.h) on top of simdjson.
#include <simdjson.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/strings.h"
#include "core/json.h"
#include "core/text.h"
#include "formats/duplicate_keys.h"

namespace plugline::core {
namespace {

// Converts a simdjson DOM into a Value, refusing (or, for kLastWins, resolving) a key that
// appears twice in one object. On failure `error` says what and `where` is the path to the
// object, built while the recursion unwinds (so a document that converts costs nothing extra).
struct Converter {
  DuplicateKeys duplicates;
  std::string error;
  std::string where;  // ".plugins.overrides" / "[3].x"

  bool Convert(simdjson::dom::element element, Value& out) {
    switch (element.type()) {
      case simdjson::dom::element_type::NULL_VALUE: out = Value(); return true;
      case simdjson::dom::element_type::BOOL:
        out = Value(bool(element.get_bool().value_unsafe()));
        return true;
      case simdjson::dom::element_type::INT64:
        out = Value(static_cast<double>(element.get_int64().value_unsafe()));
        return true;
      case simdjson::dom::element_type::UINT64:
        out = Value(static_cast<double>(element.get_uint64().value_unsafe()));
        return true;
      case simdjson::dom::element_type::DOUBLE:
        out = Value(element.get_double().value_unsafe());
        return true;
      case simdjson::dom::element_type::STRING:
        out = Value(std::string(element.get_string().value_unsafe()));
        return true;
      case simdjson::dom::element_type::ARRAY: {
        ValueArray items;
        // Copy the array out of the simdjson_result before iterating: ranging over
        // value_unsafe() of a temporary result would dangle.
        simdjson::dom::array array = element.get_array().value_unsafe();
        items.reserve(array.size());
        for (simdjson::dom::element item : array) {
          items.emplace_back();
          if (!Convert(item, items.back())) {
            where = StrCat("[", items.size() - 1, "]", where);
            return false;
          }
        }
        out = Value(std::move(items));
        return true;
      }
      case simdjson::dom::element_type::OBJECT: {
        ValueObject members;
        simdjson::dom::object object = element.get_object().value_unsafe();
        members.reserve(object.size());
        // The keys are views into the parser's string buffer, stable while it converts.
        formats::KeySet<size_t> keys(object.size());
        for (simdjson::dom::key_value_pair field : object) {
          if (const size_t* earlier = keys.Insert(field.key, members.size())) {
            if (duplicates == DuplicateKeys::kReject) {
              error = "duplicate key ";
              AppendJsonString(error, field.key);
              return false;
            }
            if (!Convert(field.value, members[*earlier].second)) return Nest(field.key);
            continue;
          }
          members.emplace_back(std::string(field.key), Value());
          if (!Convert(field.value, members.back().second)) return Nest(field.key);
        }
        out = Value(std::move(members));
        return true;
      }
    }
    out = Value();
    return true;
  }

  // Prepends `key` to the path: `.name` when it is a plain name, else `["a.b"]` (quoted and
  // escaped, so no control character of a key reaches a message raw).
  bool Nest(std::string_view key) {
    const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
      return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
    if (plain) {
      where = StrCat(".", key, where);
    } else {
      std::string quoted = "[";
      AppendJsonString(quoted, key);
      where = StrCat(quoted, "]", where);
    }
    return false;
  }
};

}  // namespace

absl::StatusOr<Value> ParseJson(std::string_view text, std::string_view source,
                                DuplicateKeys duplicates) {
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
  Converter converter{duplicates, {}, {}};
  Value value;
  if (!converter.Convert(root, value)) {
    // Keys are quoted in the path only as far as they need: a person reads it.
    std::string in = converter.where.empty() ? std::string("the top-level object")
                                             : StrCat("the object at ", converter.where.substr(
                                                          converter.where[0] == '.' ? 1 : 0));
    return absl::InvalidArgumentError(
        StrCat(source, ": ", converter.error, " in ", in, " (a key may appear only once)"));
  }
  return value;
}

bool IsValidUtf8(std::string_view text) {
  return simdjson::validate_utf8(text.data(), text.size());
}

}  // namespace plugline::core

#include "core/hooks.h"

#include <algorithm>

#include "absl/status/status.h"
#include "core/strings.h"
#include "core/suggest.h"

namespace plugline::core {
namespace {

std::string KindOf(const Value& value) { return std::string(Value::KindName(value.kind())); }

// Keys other agents' hook protocols use for what plugline calls by another name.
constexpr std::pair<std::string_view, std::string_view> kAnswerAliases[] = {
    {"denied", "deny"},   {"block", "deny"},     {"blocked", "deny"},  {"refuse", "deny"},
    {"reject", "deny"},   {"args", "arguments"}, {"message", "notice"}, {"output", "result"},
    {"why", "reason"}};

// One warning per unknown key (the first kMaxUnknownKeyWarnings of them), then a count.
void WarnUnknownKeys(const Value& doc, std::span<const std::string_view> also_known,
                     std::vector<std::string>& warnings) {
  size_t unknown = 0;
  for (const auto& member : doc.as_object()) {
    const std::string& key = member.first;  // not a structured binding: clang 14 cannot capture one
    auto is = [&key](std::string_view k) { return k == key; };
    if (std::any_of(std::begin(kAnswerKeys), std::end(kAnswerKeys), is) ||
        std::any_of(also_known.begin(), also_known.end(), is)) {
      continue;
    }
    if (++unknown > kMaxUnknownKeyWarnings) continue;
    std::string warning = "unknown answer key ";
    AppendJsonString(warning, key);  // quoted and escaped: a key may hold control characters
    warning += " ignored";
    if (std::optional<std::string_view> meant = SuggestKnown(key, kAnswerKeys, kAnswerAliases)) {
      StrAppend(&warning, " (did you mean \"", *meant, "\"?)");
    }
    warnings.push_back(std::move(warning));
  }
  if (unknown > kMaxUnknownKeyWarnings) {
    warnings.push_back(StrCat("… and ", unknown - kMaxUnknownKeyWarnings,
                              " more unknown answer keys ignored"));
  }
}

}  // namespace

absl::StatusOr<HookAnswer> HookAnswerFromValue(const Value& doc, std::string_view source,
                                               std::span<const std::string_view> also_known) {
  if (!doc.is_object()) {
    return absl::InvalidArgumentError(
        StrCat(source, ": the answer must be a JSON object, not ", KindOf(doc)));
  }
  HookAnswer answer;
  // Unknown fields are ignored (newer protocol versions may add some) but named in a warning,
  // since a misspelt `deny` would otherwise count as no opinion. null = absent. An empty
  // string is absent too: the Antares protocol's template answer lists every field empty.
  WarnUnknownKeys(doc, also_known, answer.warnings);
  if (const Value* deny = doc.Find("deny"); deny != nullptr && !deny->is_null()) {
    if (!deny->is_bool()) {
      return absl::InvalidArgumentError(
          StrCat(source, ": `deny` must be true or false, not ", KindOf(*deny)));
    }
    answer.deny = deny->as_bool();
  }
  struct StringField {
    std::string_view key;
    std::optional<std::string>* out;
  };
  std::optional<std::string> reason;
  const StringField fields[] = {{"reason", &reason},
                                {"arguments", &answer.arguments},
                                {"result", &answer.result},
                                {"notice", &answer.notice}};
  for (const StringField& field : fields) {
    const Value* v = doc.Find(field.key);
    if (v == nullptr || v->is_null()) continue;
    if (!v->is_string()) {
      return absl::InvalidArgumentError(
          StrCat(source, ": `", field.key, "` must be a string, not ", KindOf(*v)));
    }
    if (!v->as_string().empty()) *field.out = v->as_string();
  }
  answer.reason = reason.value_or("");
  if (answer.arguments.has_value()) {
    absl::StatusOr<Value> args = ParseJson(*answer.arguments, "`arguments`");
    if (!args.ok()) {
      return absl::InvalidArgumentError(StrCat(source, ": `arguments` must be a JSON-encoded string: ",
                                               args.status().message()));
    }
  }
  return answer;
}

absl::StatusOr<HookAnswer> ParseHookAnswer(std::string_view text, std::string_view source) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return HookAnswer();
  absl::StatusOr<Value> doc = ParseJson(text, source);
  if (!doc.ok()) return doc.status();  // "<source>: invalid JSON: ..."
  return HookAnswerFromValue(*doc, source);
}

}  // namespace plugline::core
